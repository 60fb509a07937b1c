"""Compiled shanten (编译版向听数) by its definition, for the compiled agents.

:func:`shanten_caps` computes exactly the value of :func:`envs.scoring.shanten.shanten`: ``min |T - H| - 1`` over
complete hands ``T`` of ``3n + 2`` tiles (``n`` sets and a pair, or seven pairs 七对 when ``n == 4`` and there are no
melds), no kind above ``4 - melded`` copies, a natural tile supplying its own kind and a wildcard any kind of the
``allowed`` mask.  It runs one dynamic programme over the 34 kinds (state: sets made, pair made, runs still open
from the two previous ranks, wildcards used), so every input takes the same exact path.

:func:`shanten_dead` is :func:`agents.handeval.shanten_dead`: dead tiles (the void suit) become capped honor
dummies exactly as there, then :func:`shanten_caps`.  Masks are ``int64`` bit masks over the 34 kinds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["SUIT_TABLE", "new_suit_table", "shanten_caps", "shanten_dead"]

_INF = 1 << 20
_UNSET = -2  # a suit profile not computed yet
_FAR = 127  # a (sets, pair) split the suit cannot reach (int8)


def new_suit_table() -> np.ndarray:
    """An empty memo of uncapped suit profiles: ``(5**9, 5, 2)`` int8, row = the base-5 code of the nine counts,
    filled on first use (``_UNSET`` marks rows not computed yet)."""
    return np.full((5**9, 5, 2), _UNSET, dtype=np.int8)


SUIT_TABLE = new_suit_table()
"""The process-wide memo the agents pass to :func:`shanten_dead` / :func:`shanten_caps`."""

_DUMMIES = np.array([27, 28, 29, 30, 32, 33], dtype=np.int64)  # honor dummies (红中 31 skipped), popped from the end


@njit(cache=True)
def _standard(counts, wilds, allowed, caps, n):  # pragma: no cover - compiled
    """Least ``|T - H|`` over standard-shape targets of ``n`` sets and one pair."""
    w = wilds
    # dp[s, p, r1, r2, u]: least uncovered missing tiles
    dp = np.full((n + 1, 2, 5, 5, w + 1), _INF, dtype=np.int64)
    nd = np.empty_like(dp)
    dp[0, 0, 0, 0, 0] = 0
    for k in range(34):
        nd[:] = _INF
        c = counts[k]
        cap = caps[k]
        is_allowed = (allowed >> k) & 1
        can_run = k < 27 and k % 9 <= 6
        for s in range(n + 1):
            for p in range(2):
                for r1 in range(5):
                    for r2 in range(5 - r1):
                        for u in range(w + 1):
                            v = dp[s, p, r1, r2, u]
                            if v >= _INF:
                                continue
                            base = r1 + r2
                            if base > cap:
                                continue
                            for t in range(2):
                                if s + t > n:
                                    break
                                for q in range(2 - p):
                                    max_rn = n - s - t if can_run else 0
                                    for rn in range(max_rn + 1):
                                        tk = base + 3 * t + 2 * q + rn
                                        if tk > cap:
                                            break
                                        miss = tk - c if tk > c else 0
                                        use = 0
                                        if is_allowed:
                                            use = min(miss, w - u)
                                        cost = v + miss - use
                                        s2 = s + t + rn
                                        if rn + r1 > 4:
                                            break
                                        cur = nd[s2, p + q, rn, r1, u + use]
                                        if cost < cur:
                                            nd[s2, p + q, rn, r1, u + use] = cost
        dp, nd = nd, dp
    best = _INF
    for u in range(w + 1):
        if dp[n, 1, 0, 0, u] < best:
            best = dp[n, 1, 0, 0, u]
    return best


@njit(cache=True)
def _cheapest(j, n0, n1, n2):  # pragma: no cover - compiled
    """Sum of the ``j`` cheapest of ``n0`` zeros, ``n1`` ones and ``n2`` twos (``_INF`` when there are fewer)."""
    if j > n0 + n1 + n2:
        return _INF
    j -= min(j, n0)
    ones = min(j, n1)
    return ones + 2 * (j - ones)


@njit(cache=True)
def _seven_pairs(counts, wilds, allowed):  # pragma: no cover - compiled
    """Least ``|T - H|`` over seven-pairs targets (a kind held four times counts as two pairs), after the
    wildcards cover missing tiles of ``allowed`` kinds.

    A kind's first pair misses ``max(2 - c, 0)`` tiles and its second ``max(4 - c, 0)`` minus that, never less, so
    the best target takes the cheapest pair steps: ``j`` of them from allowed kinds and ``7 - j`` from the others,
    for the best ``j``."""
    steps = np.zeros((2, 3), dtype=np.int64)  # [allowed?, missing tiles 0 / 1 / 2]: pair steps available
    for k in range(34):
        c = counts[k]
        first = 2 - c if c < 2 else 0
        pool = (allowed >> k) & 1
        steps[pool, first] += 1
        steps[pool, (4 - c if c < 4 else 0) - first] += 1
    best = _INF
    for j in range(8):
        sa = _cheapest(j, steps[1, 0], steps[1, 1], steps[1, 2])
        so = _cheapest(7 - j, steps[0, 0], steps[0, 1], steps[0, 2])
        if sa >= _INF or so >= _INF:
            continue
        cost = so + (sa - wilds if sa > wilds else 0)
        if cost < best:
            best = cost
    return best


@njit(cache=True)
def _group(counts, caps, lo, hi, n, out):  # pragma: no cover - compiled
    """``out[s, p]``: least missing tiles of kinds ``lo..hi-1`` (one suit or one honor kind) holding ``s`` sets and
    ``p`` pairs; runs only inside a suit."""
    dp = np.full((n + 1, 2, 5, 5), _INF, dtype=np.int64)
    nd = np.empty_like(dp)
    dp[0, 0, 0, 0] = 0
    for k in range(lo, hi):
        nd[:] = _INF
        c = counts[k]
        cap = caps[k]
        can_run = k < 27 and k % 9 <= 6
        for s in range(n + 1):
            for p in range(2):
                for r1 in range(5):
                    for r2 in range(5 - r1):
                        v = dp[s, p, r1, r2]
                        if v >= _INF:
                            continue
                        base = r1 + r2
                        if base > cap:
                            continue
                        for t in range(2):
                            if s + t > n:
                                break
                            for q in range(2 - p):
                                max_rn = n - s - t if can_run else 0
                                for rn in range(max_rn + 1):
                                    tk = base + 3 * t + 2 * q + rn
                                    if tk > cap or rn + r1 > 4:
                                        break
                                    cost = v + (tk - c if tk > c else 0)
                                    if cost < nd[s + t + rn, p + q, rn, r1]:
                                        nd[s + t + rn, p + q, rn, r1] = cost
        dp, nd = nd, dp
    for s in range(n + 1):
        for p in range(2):
            out[s, p] = dp[s, p, 0, 0]


@njit(cache=True)
def _honor(c, cap, n, out):  # pragma: no cover - compiled
    """``out[s, p]`` of one honor kind: nothing, a pair or a triplet (no runs)."""
    out[:] = _INF
    for t in range(2):
        if t > n:
            break
        for q in range(2):
            tk = 3 * t + 2 * q
            if tk > cap:
                continue
            out[t, q] = tk - c if tk > c else 0


@njit(cache=True)
def _merge(a, b, n, out, tmp):  # pragma: no cover - compiled
    """(min, +) product of two (sets, pair) profiles into ``a`` (``tmp`` is scratch)."""
    tmp[:] = _INF
    for s1 in range(n + 1):
        for p1 in range(2):
            x = a[s1, p1]
            if x >= _INF:
                continue
            for s2 in range(n + 1 - s1):
                for p2 in range(2 - p1):
                    y = b[s2, p2]
                    if y < _INF and x + y < tmp[s1 + s2, p1 + p2]:
                        tmp[s1 + s2, p1 + p2] = x + y
    a[:] = tmp


@njit(cache=True)
def _by_groups(counts, wilds, allowed, caps, n, table):  # pragma: no cover - compiled
    """Least ``|T - H|`` when every group (suit, honor kind) is wholly allowed or wholly not: allowed groups' missing
    tiles are covered by the wildcards, the others' all count; ``-1`` when a suit is partly allowed."""
    scratch = np.empty((5, max(n + 1, 5), 2), dtype=np.int64)  # one allocation for the five profiles
    pa = scratch[0, : n + 1]
    po = scratch[1, : n + 1]
    prof = scratch[2, : n + 1]
    full_prof = scratch[3, :5]
    tmp = scratch[4, : n + 1]
    pa[:] = _INF
    po[:] = _INF
    pa[0, 0] = 0
    po[0, 0] = 0
    groups = 10
    if (allowed >> 27) & 0x7F == 0:
        empty = True
        for k in range(27, 34):
            if counts[k] != 0 or caps[k] != 4:
                empty = False
        if empty:  # seven empty, uncapped honor kinds not allowed: s triplets and p pairs from scratch, one product
            for s in range(n + 1):
                for p in range(2):
                    prof[s, p] = 3 * s + 2 * p if s + p <= 7 else _INF
            _merge(po, prof, n, po, tmp)
            groups = 3
    for g in range(groups):
        lo = 9 * g if g < 3 else 24 + g
        hi = lo + 9 if g < 3 else lo + 1
        bits = (allowed >> lo) & ((1 << (hi - lo)) - 1)
        full = (1 << (hi - lo)) - 1
        if bits != 0 and bits != full:
            return -1
        if (
            g < 3
            and caps[lo] == 4
            and caps[lo + 1] == 4
            and caps[lo + 2] == 4
            and caps[lo + 3] == 4
            and caps[lo + 4] == 4
            and caps[lo + 5] == 4
            and caps[lo + 6] == 4
            and caps[lo + 7] == 4
            and caps[lo + 8] == 4
        ):
            code = 0
            for k in range(lo, hi):
                code = code * 5 + counts[k]
            if table[code, 0, 0] == _UNSET:
                _group(counts, caps, lo, hi, 4, full_prof)
                for s in range(5):
                    for p in range(2):
                        v = full_prof[s, p]
                        table[code, s, p] = _FAR if v >= _FAR else v
            for s in range(n + 1):
                for p in range(2):
                    v = table[code, s, p]
                    prof[s, p] = _INF if v == _FAR else v
        elif g >= 3:
            _honor(counts[lo], caps[lo], n, prof)
        else:
            _group(counts, caps, lo, hi, n, prof)
        if bits == full:
            _merge(pa, prof, n, pa, tmp)
        else:
            _merge(po, prof, n, po, tmp)
    best = _INF
    for s in range(n + 1):
        for p in range(2):
            x = po[s, p]
            y = pa[n - s, 1 - p]
            if x >= _INF or y >= _INF:
                continue
            cost = x + (y - wilds if y > wilds else 0)
            if cost < best:
                best = cost
    return best


@njit(cache=True)
def shanten_caps(counts, wilds, allowed, melded, seven_pairs, table):  # pragma: no cover - compiled
    """Shanten of natural ``counts`` (34) with ``wilds`` wildcards over ``allowed`` kinds and ``melded`` copies
    (34, all zero for no melds); seven pairs when ``seven_pairs``, ``n == 4`` and no melds.  ``table``:
    :data:`SUIT_TABLE` (or one of :func:`new_suit_table`)."""
    total = wilds
    no_melds = True
    caps = np.empty(34, dtype=np.int64)
    for k in range(34):
        total += counts[k]
        caps[k] = 4 - melded[k]
        if melded[k]:
            no_melds = False
    n = (total - 1) // 3
    cost = _by_groups(counts, wilds, allowed, caps, n, table)
    if cost < 0:
        cost = _standard(counts, wilds, allowed, caps, n)
    if seven_pairs and n == 4 and no_melds and cost > 0:
        sp = _seven_pairs(counts, wilds, allowed)
        if sp < cost:
            cost = sp
    return cost - 1


@njit(cache=True)
def shanten_dead(counts, wilds, dead, allowed, melded, table):  # pragma: no cover - compiled
    """:func:`agents.handeval.shanten_dead`: each dead tile becomes an honor dummy capped at one copy (while the
    six dummies last; further dead tiles stay ordinary tiles), seven pairs only without dummies or melds."""
    any_caps = False
    for k in range(34):
        if melded[k]:
            any_caps = True
    if not dead:  # nothing to rewrite: no copies
        return shanten_caps(counts, wilds, allowed, melded, not any_caps, table)
    c = counts.astype(np.int64)
    caps_m = melded.astype(np.int64)
    spare = np.empty(6, dtype=np.int64)
    ns = 0
    for i in range(6):
        d = _DUMMIES[i]
        if c[d] == 0 and caps_m[d] == 0:
            spare[ns] = d
            ns += 1
    for k in range(27):
        if (dead >> k) & 1:
            while c[k] > 0 and ns > 0:
                c[k] -= 1
                ns -= 1
                d = spare[ns]
                c[d] = 1
                caps_m[d] = 3
                any_caps = True
    allowed = allowed & ~dead
    return shanten_caps(c, wilds, allowed, caps_m, not any_caps, table)
