"""Compiled shanten (编译版向听数) by its definition, for the compiled agents.

:func:`shanten_caps` computes exactly the value of :func:`envs.scoring.shanten.shanten`: ``min |T - H| - 1`` over
complete hands ``T`` of ``3n + 2`` tiles (``n`` sets and a pair, or seven pairs 七对 when ``n == 4`` and there are no
melds), no kind above ``4 - melded`` copies, a natural tile supplying its own kind and a wildcard any kind of the
``allowed`` mask.  When every suit is wholly wildcard-allowed or wholly not (the agents' masks), the hand is split
into groups: each suit's *profile* (the least missing tiles for ``s`` sets and ``p`` pairs, a dynamic programme over
its nine kinds) comes from a memo — the suit table for suits without melds, a direct-mapped memo keyed by counts and
caps for suits that hold one — and the profiles are combined by (min, +) products.  Other masks run one dynamic
programme over the 34 kinds (state: sets made, pair made, runs still open from the two previous ranks, wildcards
used).

:func:`shanten_dead` is :func:`agents.handeval.shanten_dead`: dead tiles (the void suit) become capped honor
dummies exactly as there, then :func:`shanten_caps`.  :func:`split_hand` keeps a hand's groups so that
:func:`split_shanten` answers the hand with one suited tile more or less (a useful draw, a discard) from one suit
profile and one product, and :func:`discard_begin` / :func:`draw_after` the hand with one tile fewer and then each
hand one tile more than that.  Masks are ``int64`` bit masks over the 34 kinds; every function takes the ``tables`` of
:func:`new_tables` (:data:`SHANTEN_TABLES` in the agents).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.scoring.shanten import suit_profile_rows

__all__ = [
    "NO_SPLIT",
    "SHANTEN_TABLES",
    "clear_tables",
    "discard_begin",
    "discard_end",
    "draw_after",
    "fill_suit_table",
    "new_suit_table",
    "new_tables",
    "shanten_caps",
    "shanten_dead",
    "split_hand",
    "split_shanten",
    "split_suit_shanten",
]

_INF = 1 << 20
_UNSET = -2  # a suit profile not computed yet
_FAR = 127  # a (sets, pair) split the suit cannot reach (int8)


def new_suit_table() -> np.ndarray:
    """An empty memo of uncapped suit profiles: ``(5**9, 5, 2)`` int8, row = the base-5 code of the nine counts,
    filled on first use (``_UNSET`` marks rows not computed yet)."""
    return np.full((5**9, 5, 2), _UNSET, dtype=np.int8)


_CAPPED_SLOTS = 1 << 16
_POW5 = np.array([5 ** (8 - i) for i in range(9)], dtype=np.int64)  # weight of the i-th kind of a suit in its code
NO_SPLIT = -100
"""What :func:`split_hand` / :func:`split_shanten` return when the split does not apply (ask :func:`shanten_dead`)."""
# split_hand's parts: suit profiles 0-2, honors (allowed, other) 3-4, the rest without suit g (allowed 5+g, other 8+g;
# without wildcards both sides as one profile 14+g), a candidate's suit profile 11 and its two sides 12-13; for a
# discard then a draw (discard_begin, draw_after): the honors and suit f alone (allowed 17+f, other 20+f; without
# wildcards one profile 17+f), the discard's suit profile 23, the rest without suit h of the hand after the discard
# (allowed 24+h, other 27+h; without wildcards one profile 24+h)
_P_SUIT, _P_HON_A, _P_HON_O, _P_REST_A, _P_REST_O, _P_NEW, _P_SIDE_A, _P_SIDE_O = 0, 3, 4, 5, 8, 11, 12, 13
_P_REST = 14
_P_ONE_A, _P_ONE_O, _P_DISC, _P_DREST_A, _P_DREST_O = 17, 20, 23, 24, 27
_P_DHON_A, _P_DHON_O = 30, 31  # the honors after discard_begin's honor discard, each side
_NUM_PARTS = 32
# split_hand's meta: sets, wildcards, seven pairs on, tile total, split applies, allowed and dead masks, then per
# suit: wildcard-allowed, code, capped
_M_N, _M_WILDS, _M_SEVEN, _M_TOTAL, _M_OK, _M_ALLOWED, _M_DEAD = range(7)
_M_SIDE, _M_CODE, _M_CAPPED = 7, 10, 13
_M_DISC, _M_DISC_CODE = 16, 17  # discard_begin's kind (-1: none) and its suit's code after the discard
_NUM_META = 18


def new_tables(suit_table: np.ndarray | None = None, capped_slots: int = _CAPPED_SLOTS) -> tuple:
    """The ``tables`` argument of every function here: nine arrays.

    * ``[0]`` the suit table (:func:`new_suit_table`): the profiles of uncapped suits, filled on first use;
    * ``[1]``, ``[2]`` a direct-mapped memo of the profiles of suits with capped kinds (a pong or kong of the suit, a
      dead tile's dummy): keys (the suit's base-5 counts code, then its caps code; ``-1`` empty) and the profiles
      ``(slots, 5, 2)`` int8, so a suit that holds a meld is a lookup after its first time as well;
    * ``[3]``, ``[4]`` scratch profiles and kind rows the computation reuses instead of allocating per call (so one
      thread uses a set of tables at a time: :func:`agents.compiled.shanten_memo.thread_memo`);
    * ``[5]`` - ``[8]`` the hand :func:`split_hand` split (profiles, counts and caps, meta, seven-pairs steps), which
      :func:`split_shanten` reads.
    """
    if capped_slots <= 0 or capped_slots & (capped_slots - 1):
        raise ValueError(f"capped_slots must be a power of two, got {capped_slots}")
    return (
        new_suit_table() if suit_table is None else suit_table,
        np.full(capped_slots, -1, dtype=np.int64),
        np.zeros((capped_slots, 5, 2), dtype=np.int8),
        np.empty((5, 5, 2), dtype=np.int64),
        np.empty((4, 34), dtype=np.int64),
        np.empty((_NUM_PARTS, 5, 2), dtype=np.int64),
        np.empty((2, 34), dtype=np.int64),
        np.zeros(_NUM_META, dtype=np.int64),
        np.zeros((2, 3), dtype=np.int64),
    )


def clear_tables(tables: tuple) -> None:
    """Empty the memos of ``tables`` (a cold start, for benchmarks; never while another thread reads them: the
    threads of a process share the suit table of :data:`SHANTEN_TABLES`, which only a full table makes safe)."""
    tables[0][:] = _UNSET
    tables[1][:] = -1


SHANTEN_TABLES = new_tables()
"""The process-wide tables the agents pass to :func:`shanten_dead` / :func:`shanten_caps`."""


def fill_suit_table(tables: tuple = SHANTEN_TABLES) -> int:
    """Fill the suit table of ``tables`` with the profile of every suit (all ``5**9`` count codes) now, unless it is
    full already; returns how many rows it wrote.  The rows come from the scoring package's suit table
    (:func:`envs.scoring.shanten.suit_profile_rows`, the same profiles by the same definition, read from its disk
    cache), put in this table's order: 0.15 s, where the dynamic programme of every suit of at most 14 tiles took
    1.2 s.  A full table is only read, so the threads of a process share it
    (:func:`agents.compiled.shanten_memo.thread_memo`); one not filled computes a suit's profile the first time its
    code appears, which on fresh 红中 hands costs a seventh of the value agent's time."""
    table = tables[0]
    if not (table[:, 0, 0] == _UNSET).any():
        return 0
    table[:] = suit_rows()
    return int(table.shape[0])


def suit_rows() -> np.ndarray:
    """The whole suit table, ``(5**9, 5, 2)`` int8 (:func:`new_suit_table`'s layout: row = the base-5 code of the
    nine counts, rank 1 the most significant digit; 127 where no split exists), from
    :func:`envs.scoring.shanten.suit_profile_rows` (rank 1 the least significant digit, profile entry ``2 * s + p``)."""
    rows = suit_profile_rows(impossible=_FAR).reshape((5,) * 9 + (5, 2))
    return np.ascontiguousarray(rows.transpose(*range(8, -1, -1), 9, 10)).reshape(5**9, 5, 2)


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
        _pair_steps(steps, (allowed >> k) & 1, counts[k], 1)
    return _seven_from_steps(steps, wilds)


@njit(cache=True)
def _pair_steps(steps, pool, c, sign):  # pragma: no cover - compiled
    """Add (``sign`` 1) or remove (-1) the two pair steps of a kind held ``c`` times to ``steps[pool]``."""
    first = 2 - c if c < 2 else 0
    steps[pool, first] += sign
    steps[pool, (4 - c if c < 4 else 0) - first] += sign


@njit(cache=True, inline="always")
def _move_pair_steps(steps, pool, old, new):  # pragma: no cover - compiled
    """Move a kind of ``steps[pool]`` from a count of ``old`` to one of ``new``: its pair steps at ``old`` out, those
    at ``new`` in."""
    _pair_steps(steps, pool, old, -1)
    _pair_steps(steps, pool, new, 1)


@njit(cache=True)
def _seven_from_steps(steps, wilds):  # pragma: no cover - compiled
    """:func:`_seven_pairs` of the pair steps counted in ``steps``."""
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
def _honor_at(c, cap, n, parts, out):  # pragma: no cover - compiled
    """``parts[out, s, p]`` of one honor kind held ``c`` times: nothing, a pair or a triplet (no runs)."""
    for s in range(n + 1):
        for p in range(2):
            parts[out, s, p] = _INF
    for t in range(2):
        if t > n:
            break
        for q in range(2):
            tk = 3 * t + 2 * q
            if tk > cap:
                continue
            parts[out, t, q] = tk - c if tk > c else 0


@njit(cache=True, inline="always")
def _product_at(parts, a, b, n, out):  # pragma: no cover - compiled
    """(min, +) product of the (sets, pair) profiles ``parts[a]`` and ``parts[b]`` into ``parts[out]`` (neither of
    them).  Profiles are indexed in place, never sliced: numba counts the references of every view."""
    for s in range(n + 1):
        for p in range(2):
            parts[out, s, p] = _INF
    for s1 in range(n + 1):
        for p1 in range(2):
            x = parts[a, s1, p1]
            if x >= _INF:
                continue
            for s2 in range(n + 1 - s1):
                for p2 in range(2 - p1):
                    y = parts[b, s2, p2]
                    if y < _INF and x + y < parts[out, s1 + s2, p1 + p2]:
                        parts[out, s1 + s2, p1 + p2] = x + y


@njit(cache=True, inline="always")
def _merge_at(parts, a, b, n, tmp):  # pragma: no cover - compiled
    """``parts[a]`` times ``parts[b]`` into ``parts[a]`` (``parts[tmp]`` is scratch)."""
    _product_at(parts, a, b, n, tmp)
    for s in range(n + 1):
        for p in range(2):
            parts[a, s, p] = parts[tmp, s, p]


@njit(cache=True, inline="always")
def _least_at(parts, o, a, n, wilds):  # pragma: no cover - compiled
    """Least ``|T - H|`` of ``n`` sets and a pair from the profile of the groups no wildcard may stand for
    (``parts[o]``) and of the wildcard-allowed groups (``parts[a]``), whose missing tiles the wildcards cover."""
    best = _INF
    for s in range(n + 1):
        for p in range(2):
            x = parts[o, s, p]
            y = parts[a, n - s, 1 - p]
            if x >= _INF or y >= _INF:
                continue
            cost = x + (y - wilds if y > wilds else 0)
            if cost < best:
                best = cost
    return best


@njit(cache=True, inline="always")
def _identity_at(parts, i, n):  # pragma: no cover - compiled
    """``parts[i]``: the profile of no group (nothing costs nothing, any set or pair is out of reach)."""
    for s in range(n + 1):
        for p in range(2):
            parts[i, s, p] = _INF
    parts[i, 0, 0] = 0


@njit(cache=True, inline="always")
def _store(prof, row):  # pragma: no cover - compiled
    for s in range(5):
        for p in range(2):
            v = prof[s, p]
            row[s, p] = _FAR if v >= _FAR else v


@njit(cache=True)
def _honors(counts, caps, allowed, n, parts, a, o, prof, tmp):  # pragma: no cover - compiled
    """Merge the honor kinds into the wildcard-allowed (``parts[a]``) and other (``parts[o]``) profiles: a kind
    capped at one copy (a dead tile's dummy) adds nothing, the empty, uncapped kinds no wildcard may stand for are
    one profile (``s`` triplets and ``p`` pairs from scratch), every other kind its own."""
    free = 0
    for k in range(27, 34):
        if caps[k] <= 1:  # no pair or set of this kind fits: nothing to add
            continue
        is_allowed = (allowed >> k) & 1
        if counts[k] == 0 and caps[k] == 4 and not is_allowed:
            free += 1
            continue
        _honor_at(counts[k], caps[k], n, parts, prof)
        _merge_at(parts, a if is_allowed else o, prof, n, tmp)
    if free:
        for s in range(n + 1):
            for p in range(2):
                parts[prof, s, p] = 3 * s + 2 * p if s + p <= free else _INF
        _merge_at(parts, o, prof, n, tmp)


@njit(cache=True)
def _by_groups(counts, wilds, allowed, caps, n, table, cap_keys, cap_vals, scratch):  # pragma: no cover - compiled
    """Least ``|T - H|`` when every group (suit, honor kind) is wholly allowed or wholly not: allowed groups' missing
    tiles are covered by the wildcards, the others' all count; ``-1`` when a suit is partly allowed.  ``scratch``:
    five profiles (the allowed side, the other side, a group's, the product's, the programme's)."""
    _identity_at(scratch, 0, n)
    _identity_at(scratch, 1, n)
    for g in range(3):
        lo = 9 * g
        bits = (allowed >> lo) & 0x1FF
        if bits != 0 and bits != 0x1FF:
            return -1
        code, capped = _suit_code(counts, caps, lo)
        _suit_into(counts, caps, lo, code, capped, table, cap_keys, cap_vals, scratch, 2, 4)
        _merge_at(scratch, 0 if bits == 0x1FF else 1, 2, n, 3)
    _honors(counts, caps, allowed, n, scratch, 0, 1, 2, 3)
    return _least_at(scratch, 1, 0, n, wilds)


@njit(cache=True)
def shanten_caps(counts, wilds, allowed, melded, seven_pairs, tables):  # pragma: no cover - compiled
    """Shanten of natural ``counts`` (34) with ``wilds`` wildcards over ``allowed`` kinds and ``melded`` copies
    (34, all zero for no melds); seven pairs when ``seven_pairs``, ``n == 4`` and no melds.  ``tables``:
    :data:`SHANTEN_TABLES` (or one of :func:`new_tables`)."""
    total = wilds
    for k in range(34):
        total += counts[k]
    return _shanten_n(counts, wilds, allowed, melded, seven_pairs, (total - 1) // 3, tables)


@njit(cache=True, inline="always")
def _shanten_n(counts, wilds, allowed, melded, seven_pairs, n, tables):  # pragma: no cover - compiled
    """:func:`shanten_caps` with the number of sets ``n`` of the targets given."""
    no_melds = True
    caps = tables[4][3]
    for k in range(34):
        caps[k] = 4 - melded[k]
        if melded[k]:
            no_melds = False
    cost = _by_groups(counts, wilds, allowed, caps, n, tables[0], tables[1], tables[2], tables[3])
    if cost < 0:
        cost = _standard(counts, wilds, allowed, caps, n)
    if seven_pairs and n == 4 and no_melds and cost > 0:
        sp = _seven_pairs(counts, wilds, allowed)
        if sp < cost:
            cost = sp
    return cost - 1


@njit(cache=True)
def _without_dead(counts, melded, dead, c, m, spare):  # pragma: no cover - compiled
    """:func:`agents.handeval.shanten_dead`'s rewrite into ``c`` / ``m`` (copies of ``counts`` / ``melded``): each
    dead tile becomes an honor dummy capped at one copy while the six dummies last (further dead tiles stay ordinary
    tiles).  A dummy adds nothing to a target (:func:`_honors`), so its tile is left out of ``c`` and only its kind is
    capped in ``m``.  Returns ``(tiles held, melds or dummies)``: the number of sets still counts the dead tiles."""
    any_caps = False
    total = 0
    for k in range(34):
        c[k] = counts[k]
        m[k] = melded[k]
        total += counts[k]
        if melded[k]:
            any_caps = True
    if dead:
        ns = 0
        for i in range(6):
            d = _DUMMIES[i]
            if c[d] == 0 and m[d] == 0:
                spare[ns] = d
                ns += 1
        for k in range(27):
            if (dead >> k) & 1:
                while c[k] > 0 and ns > 0:
                    c[k] -= 1
                    ns -= 1
                    m[spare[ns]] = 3
                    any_caps = True
    return total, any_caps


@njit(cache=True)
def shanten_dead(counts, wilds, dead, allowed, melded, tables):  # pragma: no cover - compiled
    """:func:`agents.handeval.shanten_dead`: each dead tile becomes an honor dummy capped at one copy (while the
    six dummies last; further dead tiles stay ordinary tiles), seven pairs only without dummies or melds
    (:func:`_without_dead`)."""
    if not dead:  # nothing to rewrite: no copies
        any_caps = False
        for k in range(34):
            if melded[k]:
                any_caps = True
        return shanten_caps(counts, wilds, allowed, melded, not any_caps, tables)
    work = tables[4]
    total, any_caps = _without_dead(counts, melded, dead, work[0], work[1], work[2])
    return _shanten_n(work[0], wilds, allowed & ~dead, work[1], not any_caps, (total + wilds - 1) // 3, tables)


# ---- a hand split into its groups, for the shanten of the hand with one tile more or less ------------------------
# The split state lives in the arrays of ``tables`` (``parts``, ``kinds``, ``meta``, ``steps``); the inner functions
# take those arrays one by one and index them in place (no views: numba counts the references of every view).
@njit(cache=True, inline="always")
def _suit_code(counts, caps, lo):  # pragma: no cover - compiled
    """``(code, capped)`` of the suit ``lo..lo+8``: the base-5 code of its counts (first kind most significant) and
    whether a kind of it is capped (a meld, a dummy)."""
    code = 0
    capped = False
    for k in range(lo, lo + 9):
        code = code * 5 + counts[k]
        if caps[k] != 4:
            capped = True
    return code, capped


@njit(cache=True, inline="always")
def _suit_into(c, caps, lo, code, capped, table, cap_keys, cap_vals, parts, dst, work):  # pragma: no cover - compiled
    """``parts[dst]``: the full profile (five set counts) of the suit ``lo..lo+8`` of ``c`` (base-5 ``code``), from
    the suit table when no kind is ``capped``, else from the capped memo; computed by :func:`_group` (into
    ``parts[work]``) on first use."""
    if not capped:
        if table[code, 0, 0] == _UNSET:
            _group(c, caps, lo, lo + 9, 4, parts[work])
            _store(parts[work], table[code])
        for s in range(5):
            for p in range(2):
                v = table[code, s, p]
                parts[dst, s, p] = _INF if v == _FAR else v
        return
    key = np.int64(code)
    for k in range(lo, lo + 9):
        key = key * 5 + caps[k]
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    i = np.int64(h) & (cap_keys.shape[0] - 1)
    if cap_keys[i] != key:
        _group(c, caps, lo, lo + 9, 4, parts[work])
        _store(parts[work], cap_vals[i])
        cap_keys[i] = key
    for s in range(5):
        for p in range(2):
            v = cap_vals[i, s, p]
            parts[dst, s, p] = _INF if v == _FAR else v


@njit(cache=True)
def split_hand(counts, wilds, dead, allowed, melded, tables):  # pragma: no cover - compiled
    """:func:`shanten_dead` of the hand, keeping its groups in ``tables`` so that :func:`split_shanten` answers the
    same hand with one suited tile more or less from one suit profile; :data:`NO_SPLIT` when the split does not
    apply (a suit partly wildcard-allowed: :func:`shanten_dead` computes those with its full programme)."""
    return _split(counts, wilds, dead, allowed, melded, tables[0], tables[1], tables[2], tables[4], tables[5],
                  tables[6], tables[7], tables[8])  # fmt: skip


@njit(cache=True)
def _split(counts, wilds, dead, allowed, melded, table, cap_keys, cap_vals, work, parts, kinds, meta, steps):
    # pragma: no cover - compiled
    """:func:`split_hand` on the arrays of the tables."""
    c = kinds[0]
    caps = kinds[1]
    held, any_caps = _without_dead(counts, melded, dead, c, caps, work[2])
    total = held + wilds
    for k in range(34):
        caps[k] = 4 - caps[k]
    allowed = allowed & ~dead
    meta[_M_OK] = 0
    meta[_M_DEAD] = dead
    for g in range(3):
        bits = (allowed >> (9 * g)) & 0x1FF
        if bits != 0 and bits != 0x1FF:
            return NO_SPLIT
    n = (total - 1) // 3
    meta[_M_N] = n
    meta[_M_WILDS] = wilds
    meta[_M_TOTAL] = total
    meta[_M_ALLOWED] = allowed
    meta[_M_SEVEN] = 1 if not any_caps and n == 4 else 0
    for g in range(3):
        lo = 9 * g
        code, capped = _suit_code(c, caps, lo)
        meta[_M_SIDE + g] = 1 if (allowed >> lo) & 1 else 0
        meta[_M_CODE + g] = code
        meta[_M_CAPPED + g] = capped
        _suit_into(c, caps, lo, code, capped, table, cap_keys, cap_vals, parts, _P_SUIT + g, _P_NEW)
    _identity_at(parts, _P_HON_A, n)
    _identity_at(parts, _P_HON_O, n)
    _honors(c, caps, allowed, n, parts, _P_HON_A, _P_HON_O, _P_NEW, _P_SIDE_A)
    if wilds == 0:  # no wildcard covers the allowed side, so the sides add up: everything but suit g as one profile
        _product_at(parts, _P_HON_A, _P_HON_O, n, _P_SIDE_A)
        for f in range(3):  # the honors and suit f
            _product_at(parts, _P_SIDE_A, _P_SUIT + f, n, _P_ONE_A + f)
        _product_at(parts, _P_ONE_A, _P_SUIT + 1, n, _P_REST + 2)
        _product_at(parts, _P_ONE_A, _P_SUIT + 2, n, _P_REST + 1)
        _product_at(parts, _P_ONE_A + 1, _P_SUIT + 2, n, _P_REST)
    else:
        for f in range(3):  # the honors and suit f, on each side
            a, o = _P_ONE_A + f, _P_ONE_O + f
            parts[a] = parts[_P_HON_A]
            parts[o] = parts[_P_HON_O]
            _merge_at(parts, a if meta[_M_SIDE + f] else o, _P_SUIT + f, n, _P_SIDE_A)
        for g in range(3):  # everything but suit g, on each side: the honors, suit f and suit h
            f = 1 if g == 0 else 0
            h = 3 - g - f
            a, o = _P_REST_A + g, _P_REST_O + g
            parts[a] = parts[_P_ONE_A + f]
            parts[o] = parts[_P_ONE_O + f]
            _merge_at(parts, a if meta[_M_SIDE + h] else o, _P_SUIT + h, n, _P_SIDE_A)
    meta[_M_DISC] = -1
    if meta[_M_SEVEN]:
        steps[:] = 0
        for k in range(34):
            _pair_steps(steps, (allowed >> k) & 1, c[k], 1)
    meta[_M_OK] = 1
    return _split_cost(0, _P_SUIT, parts, meta, steps) - 1


@njit(cache=True, inline="always")
def _split_cost(g, prof, parts, meta, steps):  # pragma: no cover - compiled
    """Least ``|T - H|`` of the split hand with the profile of suit ``g`` replaced by ``parts[prof]`` (standard
    shapes, then seven pairs from the pair ``steps`` when they apply)."""
    return _rest_cost(prof, meta[_M_SIDE + g], _P_REST_A + g, _P_REST_O + g, _P_REST + g, parts, meta, steps)


@njit(cache=True, inline="always")
def _rest_cost(prof, side, rest_a, rest_o, rest, parts, meta, steps):  # pragma: no cover - compiled
    """Least ``|T - H|`` of the profile ``parts[prof]`` of one suit (wildcard-allowed when ``side``) beside the rest
    of the hand: ``parts[rest]`` without wildcards, where ``n`` sets and a pair cost the least sum of an entry of the
    suit's profile and the complementary entry of the rest's; else its two sides ``parts[rest_a]`` and
    ``parts[rest_o]``.  Then seven pairs from the pair ``steps`` when they apply."""
    n = meta[_M_N]
    wilds = meta[_M_WILDS]
    if wilds == 0:
        cost = _INF
        for s in range(n + 1):
            for p in range(2):
                x = parts[prof, s, p]
                y = parts[rest, n - s, 1 - p]
                if x < _INF and y < _INF and x + y < cost:
                    cost = x + y
    elif side:
        _product_at(parts, rest_a, prof, n, _P_SIDE_A)
        cost = _least_at(parts, rest_o, _P_SIDE_A, n, wilds)
    else:
        _product_at(parts, rest_o, prof, n, _P_SIDE_O)
        cost = _least_at(parts, _P_SIDE_O, rest_a, n, wilds)
    if meta[_M_SEVEN] and cost > 0:
        sp = _seven_from_steps(steps, wilds)
        if sp < cost:
            cost = sp
    return cost


@njit(cache=True)
def split_shanten(t, d, tables):  # pragma: no cover - compiled
    """The shanten of the hand :func:`split_hand` split, with ``d`` (+1 or -1) tiles of the suited kind ``t``
    more: :data:`NO_SPLIT` when the split does not apply, ``t`` is dead (the dummies would change), the count would
    leave 0-4 or its cap, or the number of sets of the targets would change (ask :func:`shanten_dead`)."""
    return split_step(t, d, tables[0], tables[1], tables[2], tables[5], tables[6], tables[7], tables[8])


@njit(cache=True)
def split_suit_shanten(g, code, tables):  # pragma: no cover - compiled
    """The shanten of the hand :func:`split_hand` split, with the counts of suit ``g`` replaced by those of the
    base-5 ``code`` (first kind most significant) holding as many tiles: one suit profile and one product.
    :data:`NO_SPLIT` when the split does not apply, suit ``g`` holds a dead or capped kind (a meld, a dummy), seven
    pairs apply (their pair steps would change), or ``code`` holds another number of tiles (ask
    :func:`shanten_dead`)."""
    table, cap_keys, cap_vals, parts, kinds, meta, steps = (tables[0], tables[1], tables[2], tables[5], tables[6],
                                                             tables[7], tables[8])  # fmt: skip
    lo = 9 * g
    if not meta[_M_OK] or meta[_M_SEVEN] or meta[_M_CAPPED + g] or (meta[_M_DEAD] >> lo) & 0x1FF:
        return NO_SPLIT
    held = meta[_M_CODE + g]  # the split hand's own counts of the suit
    if _code_tiles(code) != _code_tiles(held):
        return NO_SPLIT
    _counts_into(kinds[0], lo, code)  # (a profile not in the table is computed from the counts)
    _suit_into(kinds[0], kinds[1], lo, code, False, table, cap_keys, cap_vals, parts, _P_NEW, _P_NEW)
    _counts_into(kinds[0], lo, held)
    return _split_cost(g, _P_NEW, parts, meta, steps) - 1


@njit(cache=True, inline="always")
def _code_tiles(code):  # pragma: no cover - compiled
    """The number of tiles of a suit's base-5 ``code``."""
    n = 0
    while code:
        n += code % 5
        code //= 5
    return n


@njit(cache=True, inline="always")
def _counts_into(c, lo, code):  # pragma: no cover - compiled
    """The nine counts of the base-5 ``code`` (first kind most significant) into ``c[lo:lo + 9]``."""
    for i in range(8, -1, -1):
        c[lo + i] = code % 5
        code //= 5


@njit(cache=True)
def split_step(t, d, table, cap_keys, cap_vals, parts, kinds, meta, steps):  # pragma: no cover - compiled
    """:func:`split_shanten` on the arrays of the tables (``tables[0:3]`` and ``tables[5:9]``: a caller asking many
    candidates takes them out of the tuple once)."""
    if not meta[_M_OK] or t >= 27 or (meta[_M_DEAD] >> t) & 1:
        return NO_SPLIT
    n = meta[_M_N]
    if (meta[_M_TOTAL] + d - 1) // 3 != n:
        return NO_SPLIT
    old = kinds[0, t]
    new = old + d
    if new < 0 or new > kinds[1, t]:
        return NO_SPLIT
    g = t // 9
    lo = 9 * g
    kinds[0, t] = new
    _suit_into(kinds[0], kinds[1], lo, meta[_M_CODE + g] + d * _POW5[t - lo], meta[_M_CAPPED + g] != 0, table,
               cap_keys, cap_vals, parts, _P_NEW, _P_NEW)  # fmt: skip
    kinds[0, t] = old
    seven = meta[_M_SEVEN] != 0
    pool = (meta[_M_ALLOWED] >> t) & 1
    if seven:
        _move_pair_steps(steps, pool, old, new)
    cost = _split_cost(g, _P_NEW, parts, meta, steps)
    if seven:
        _move_pair_steps(steps, pool, new, old)
    return cost - 1


@njit(cache=True)
def discard_begin(d, table, cap_keys, cap_vals, parts, kinds, meta, steps):  # pragma: no cover - compiled
    """The shanten of the hand :func:`split_hand` split with one tile ``d`` fewer (a suited kind as :func:`split_step`
    with ``-1``, or an honor), keeping that hand so that :func:`draw_after` answers it with any one suited tile more,
    until :func:`discard_end`; :data:`NO_SPLIT` (and nothing kept) for a kind the hand does not hold, a dead kind, an
    honor beside a dead suit (the honor kinds an emptied honor frees could then stand for more of its dead tiles,
    :func:`_without_dead`), a hand of another size or a second discard.  The rest of the hand beside each suit ``h`` the
    discard leaves as it was (the honors and the two other suits, one of them the discard's) is one product here, so
    each draw is one suit profile and one pass."""
    if not meta[_M_OK] or (meta[_M_DEAD] >> d) & 1 or meta[_M_DISC] >= 0:
        return NO_SPLIT
    n = meta[_M_N]
    if (meta[_M_TOTAL] - 2) // 3 != n:
        return NO_SPLIT
    old = kinds[0, d]
    if old < 1:
        return NO_SPLIT
    if d >= 27:
        if meta[_M_DEAD]:
            return NO_SPLIT
        return _honor_discard_begin(d, old, parts, kinds, meta, steps)
    g = d // 9
    lo = 9 * g
    code = meta[_M_CODE + g] - _POW5[d - lo]
    kinds[0, d] = old - 1
    _suit_into(kinds[0], kinds[1], lo, code, meta[_M_CAPPED + g] != 0, table, cap_keys, cap_vals, parts, _P_DISC,
               _P_NEW)  # fmt: skip
    if meta[_M_SEVEN]:
        pool = (meta[_M_ALLOWED] >> d) & 1
        _move_pair_steps(steps, pool, old, old - 1)
    wilds = meta[_M_WILDS]
    for h in range(3):
        if h == g:
            continue
        f = 3 - g - h  # the third suit
        if wilds == 0:
            _product_at(parts, _P_ONE_A + f, _P_DISC, n, _P_DREST_A + h)
        else:
            a, o = _P_DREST_A + h, _P_DREST_O + h
            parts[a] = parts[_P_ONE_A + f]
            parts[o] = parts[_P_ONE_O + f]
            _merge_at(parts, a if meta[_M_SIDE + g] else o, _P_DISC, n, _P_SIDE_A)
    meta[_M_DISC] = d
    meta[_M_DISC_CODE] = code
    return _split_cost(g, _P_DISC, parts, meta, steps) - 1


@njit(cache=True)
def _honor_discard_begin(d, old, parts, kinds, meta, steps):  # pragma: no cover - compiled
    """:func:`discard_begin` of the honor ``d`` held ``old`` times: the honors' profiles again without that tile, and
    beside each suit ``h`` the product of those honors and the two other suits."""
    n = meta[_M_N]
    kinds[0, d] = old - 1
    _identity_at(parts, _P_DHON_A, n)
    _identity_at(parts, _P_DHON_O, n)
    _honors(kinds[0], kinds[1], meta[_M_ALLOWED], n, parts, _P_DHON_A, _P_DHON_O, _P_NEW, _P_SIDE_A)
    if meta[_M_SEVEN]:
        _move_pair_steps(steps, (meta[_M_ALLOWED] >> d) & 1, old, old - 1)
    if meta[_M_WILDS] == 0:  # the sides add up: the honors as one profile
        _product_at(parts, _P_DHON_A, _P_DHON_O, n, _P_SIDE_A)
    for h in range(3):
        f = 1 if h == 0 else 0
        e = 3 - h - f
        a, o = _P_DREST_A + h, _P_DREST_O + h
        if meta[_M_WILDS] == 0:
            _product_at(parts, _P_SIDE_A, _P_SUIT + f, n, _P_NEW)
            _product_at(parts, _P_NEW, _P_SUIT + e, n, a)
        else:
            parts[a] = parts[_P_DHON_A]
            parts[o] = parts[_P_DHON_O]
            _merge_at(parts, a if meta[_M_SIDE + f] else o, _P_SUIT + f, n, _P_SIDE_A)
            _merge_at(parts, a if meta[_M_SIDE + e] else o, _P_SUIT + e, n, _P_SIDE_A)
    meta[_M_DISC] = d
    meta[_M_DISC_CODE] = 0  # no suit changed
    return _rest_cost(_P_SUIT, meta[_M_SIDE], _P_DREST_A, _P_DREST_O, _P_DREST_A, parts, meta, steps) - 1


@njit(cache=True)
def draw_after(t, below, table, cap_keys, cap_vals, parts, kinds, meta, steps):  # pragma: no cover - compiled
    """``min(shanten, below)`` of the hand :func:`discard_begin` kept with one tile of the suited kind ``t`` more:
    :data:`NO_SPLIT` when ``t`` is dead or an honor, or its count would pass its cap.  A suit with a capped kind (a
    meld) first takes its uncapped profile from the suit table, a bound from below (the caps only take targets
    away): when that bound is ``below`` or more, so is the shanten, and its own profile is never computed."""
    d = meta[_M_DISC]
    if d < 0 or t >= 27 or (meta[_M_DEAD] >> t) & 1:
        return NO_SPLIT
    old = kinds[0, t]
    if old + 1 > kinds[1, t]:
        return NO_SPLIT
    g, h = d // 9, t // 9
    lo = 9 * h
    code = (meta[_M_DISC_CODE] if h == g else meta[_M_CODE + h]) + _POW5[t - lo]
    capped = meta[_M_CAPPED + h] != 0
    seven = meta[_M_SEVEN] != 0
    pool = (meta[_M_ALLOWED] >> t) & 1
    if seven:
        _move_pair_steps(steps, pool, old, old + 1)
    cost = NO_SPLIT
    if capped and table[code, 0, 0] != _UNSET:
        _suit_into(kinds[0], kinds[1], lo, code, False, table, cap_keys, cap_vals, parts, _P_NEW, _P_NEW)
        if _draw_cost(g, h, parts, meta, steps) - 1 >= below:
            cost = below + 1
    if cost == NO_SPLIT:
        kinds[0, t] = old + 1
        _suit_into(kinds[0], kinds[1], lo, code, capped, table, cap_keys, cap_vals, parts, _P_NEW, _P_NEW)
        kinds[0, t] = old
        cost = _draw_cost(g, h, parts, meta, steps)
    if seven:
        _move_pair_steps(steps, pool, old + 1, old)
    return min(cost - 1, below)


@njit(cache=True, inline="always")
def _draw_cost(g, h, parts, meta, steps):  # pragma: no cover - compiled
    """Least ``|T - H|`` of the hand :func:`discard_begin` kept (its discard in suit ``g``) with the profile of suit
    ``h`` replaced by ``parts[_P_NEW]``."""
    if h == g:
        return _split_cost(g, _P_NEW, parts, meta, steps)
    return _rest_cost(_P_NEW, meta[_M_SIDE + h], _P_DREST_A + h, _P_DREST_O + h, _P_DREST_A + h, parts, meta, steps)


@njit(cache=True)
def discard_end(kinds, meta, steps):  # pragma: no cover - compiled
    """Return the split hand from :func:`discard_begin`'s discard to the hand :func:`split_hand` split."""
    d = meta[_M_DISC]
    if d < 0:
        return
    old = kinds[0, d]
    kinds[0, d] = old + 1
    if meta[_M_SEVEN]:
        pool = (meta[_M_ALLOWED] >> d) & 1
        _move_pair_steps(steps, pool, old, old + 1)
    meta[_M_DISC] = -1
