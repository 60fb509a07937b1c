"""Compiled greedy phases of the value agents (编译版换三张 / 定缺 / 报胡 / 变体动作): the decisions
:class:`agents.value.ValueAgent` takes unchanged from :class:`agents.greedy.GreedyAgent` and
:class:`agents.variant_play.VariantPlay`, in numba, on the position and setup tuples of
:mod:`agents.compiled.value_play`.

* :func:`exchange` — ``GreedyAgent._exchange``: the same-suit triple whose remaining tiles have the best void-suit
  plan (shanten, tiles left in the void suit, minus pairs, then the triple itself), honouring the picks already made
  (the plan is recomputed from the observation each pick: the hand plane keeps the picked tiles, so it is the
  plan the Python agent keeps).
* :func:`dingque` — ``GreedyAgent._dingque``.
* :func:`declare` — ``VariantPlay._declare`` (the 报胡 question).
* :func:`variant_self_action` — ``VariantPlay._variant_self_action``: 提, 红中杠, 赖子杠, 请胡, the dealer's 报胡.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.compiled.shanten import _DUMMIES, NO_SPLIT, shanten_dead, split_hand, split_suit_shanten
from agents.compiled.shanten_memo import MISS, NEAR, memo_probe, memo_store, memo_words, shanten_cached, useful_tiles
from agents.compiled.value_plans import CI_SUITED, R_DEAD
from envs.core.actions import (
    BAOHU_ID,
    DINGQUE_BASE,
    EXCHANGE_BASE,
    LAIZI_KONG_ID,
    PASS_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
)

__all__ = ["OPENING_ACTIONS", "declare", "dingque", "exchange", "variant_self_action"]

(
    B_EXCHANGE,
    B_DINGQUE,
    B_BAOHU,
    B_PASS,
    B_TI,
    B_RED_KONG,
    B_LAIZI_KONG,
    B_QINGHU,
) = range(8)
OPENING_ACTIONS = np.array(
    [EXCHANGE_BASE, DINGQUE_BASE, BAOHU_ID, PASS_ID, TI_BASE, RED_KONG_ID, LAIZI_KONG_ID, QINGHU_BASE], dtype=np.int64
)
"""Action ids the functions read (passed as an array, never frozen in numba's cache)."""


_MAX_TRIPLES = 165  # the multisets of three of nine kinds: the most triples one suit offers


@njit(cache=True, inline="always")
def _pairs_alive(rest, dead):  # pragma: no cover - compiled
    """The suited kinds outside ``dead`` that ``rest`` holds two or more of."""
    pairs = 0
    for k in range(27):
        if rest[k] >= 2 and not (dead >> k) & 1:
            pairs += 1
    return pairs


@njit(cache=True)
def _void_keys(rest, trips, nt, s, v, n_tiles, wilds, suited, spares, zeros, memo, keys):  # pragma: no cover
    """Lower ``keys[i]`` to ``GreedyAgent._exchange_key``'s ``(shanten, tiles in the void suit, minus pairs)`` with
    suit ``v`` void, for each triple ``trips[i]`` of suit ``s`` (``n_tiles`` tiles there) taken out of ``rest``.
    Void ``s`` itself: the live tiles left are the same for every triple, and when the dummies go round (``spares``
    of them) the dead ones all become dummies, so one shanten answers every triple.  Void ``v != s``: each triple's
    hand is looked up in the memo; the first one it lacks splits the hand into its groups
    (:func:`agents.compiled.shanten.split_hand`), and from then on each one it lacks costs one suit profile
    (:func:`agents.compiled.shanten.split_suit_shanten`) and is kept."""
    tables = memo[0]
    dead = np.int64(0x1FF) << (9 * v)
    allowed = suited & ~dead
    in_void = 0
    for k in range(9 * v, 9 * v + 9):
        in_void += rest[k]
    same = NO_SPLIT  # the shanten every triple shares (void s), when one does
    if v == s:
        in_void = n_tiles - 3
        if in_void <= spares:
            a0, b0, c0 = trips[0, 0], trips[0, 1], trips[0, 2]
            rest[a0] -= 1
            rest[b0] -= 1
            rest[c0] -= 1
            same = shanten_cached(rest, wilds, dead, allowed, zeros, memo)
            rest[a0] += 1
            rest[b0] += 1
            rest[c0] += 1
    split = 0  # 0: not tried, 1: split, -1: the split does not apply
    for i in range(nt):
        a, b, c = trips[i, 0], trips[i, 1], trips[i, 2]
        rest[a] -= 1
        rest[b] -= 1
        rest[c] -= 1
        sh = same
        if sh == NO_SPLIT:
            ok, w0, w1, w4, w5 = memo_words(rest, wilds, zeros)
            slot, sh = memo_probe(memo, ok, w0, w1, dead, allowed, w4, w5)
            if sh == MISS:
                sh = NO_SPLIT
                if split == 0 and v != s:
                    sh = split_hand(rest, wilds, dead, allowed, zeros, tables)
                    split = -1 if sh == NO_SPLIT else 1
                elif split == 1:
                    code = 0
                    for k in range(9 * s, 9 * s + 9):
                        code = code * 5 + rest[k]
                    sh = split_suit_shanten(s, code, tables)
                if sh == NO_SPLIT:
                    sh = shanten_dead(rest, wilds, dead, allowed, zeros, tables)
                memo_store(memo, slot, w0, w1, dead, allowed, w4, w5, sh)
        pairs = _pairs_alive(rest, dead)
        rest[a] += 1
        rest[b] += 1
        rest[c] += 1
        if keys[i, 3] == 0 or (sh, in_void, -pairs) < (keys[i, 0], keys[i, 1], keys[i, 2]):
            keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3] = sh, in_void, -pairs, 1


@njit(cache=True)
def exchange(mask, picked, counts, wilds, suited, memo, acts):  # pragma: no cover - compiled
    """``GreedyAgent._exchange``: the next tile of the best triple that holds the ``picked`` tiles (34 counts), or
    -1 when no legal exchange action is left of it (the caller plays the first legal action).  A triple's key is
    the best over the void suits of ``(shanten, tiles in the void suit, minus pairs)``, then the triple itself; the
    keys of one suit's triples are found void by void (:func:`_void_keys`)."""
    best_found = False
    bk0, bk1, bk2 = 0, 0, 0
    ba, bb, bc = -1, -1, -1
    rest = counts.copy()
    zeros = np.zeros(34, dtype=np.int64)
    trips = np.empty((_MAX_TRIPLES, 3), dtype=np.int64)
    keys = np.zeros((_MAX_TRIPLES, 4), dtype=np.int64)  # (shanten, in void, -pairs, set)
    spares = 0  # honor dummies free for dead tiles (agents.compiled.shanten._without_dead)
    for d in _DUMMIES:
        if counts[d] == 0:
            spares += 1
    for s in range(3):
        if not (suited >> (9 * s)) & 1:
            continue
        outside = False
        for k in range(34):
            if picked[k] and (k >= 27 or k // 9 != s):
                outside = True
        if outside:
            continue
        n_tiles = 0
        for k in range(9 * s, 9 * s + 9):
            n_tiles += counts[k]
        if n_tiles < 3:
            continue
        nt = 0
        for a in range(9 * s, 9 * s + 9):
            if counts[a] < 1:
                continue
            for b in range(a, 9 * s + 9):
                if counts[b] < 1 + (b == a):
                    continue
                for c in range(b, 9 * s + 9):
                    if counts[c] < 1 + (c == a) + (c == b):
                        continue
                    ok = True
                    for k in range(34):  # the triple contains every pick
                        if picked[k] > (a == k) + (b == k) + (c == k):
                            ok = False
                    if ok:
                        trips[nt, 0], trips[nt, 1], trips[nt, 2] = a, b, c
                        nt += 1
        if nt == 0:
            continue
        keys[:nt, 3] = 0
        for v in range(3):
            if (suited >> (9 * v)) & 1:
                _void_keys(rest, trips, nt, s, v, n_tiles, wilds, suited, spares, zeros, memo, keys)
        for i in range(nt):
            k0, k1, k2 = keys[i, 0], keys[i, 1], keys[i, 2]
            a, b, c = trips[i, 0], trips[i, 1], trips[i, 2]
            if not best_found or (k0, k1, k2, a, b, c) < (bk0, bk1, bk2, ba, bb, bc):
                bk0, bk1, bk2, ba, bb, bc = k0, k1, k2, a, b, c
                best_found = True
    if not best_found:
        return -1
    left = np.zeros(34, dtype=np.int64)
    left[ba] += 1
    left[bb] += 1
    left[bc] += 1
    for k in range(34):
        left[k] -= min(left[k], picked[k])
    for k in (ba, bb, bc):
        if left[k] > 0 and mask[acts[B_EXCHANGE] + k]:
            return acts[B_EXCHANGE] + k
    return -1


@njit(cache=True)
def dingque(mask, counts, wilds, melded, suited, memo, acts):  # pragma: no cover - compiled
    """``GreedyAgent._dingque``: the legal suit whose removal leaves the lowest shanten (ties: fewer tiles there,
    fewer pairs there, lower suit); -1 when no suit is legal."""
    best = -1
    b0, b1, b2 = 0, 0, 0
    for s in range(3):
        if not mask[acts[B_DINGQUE] + s]:
            continue
        dead = np.int64(0x1FF) << (9 * s)
        sh = shanten_cached(counts, wilds, dead, suited & ~dead, melded, memo)
        tiles = 0
        pairs = 0
        for k in range(9 * s, 9 * s + 9):
            tiles += counts[k]
            if counts[k] >= 2:
                pairs += 1
        if best < 0 or (sh, tiles, pairs) < (b0, b1, b2):
            best, b0, b1, b2 = s, sh, tiles, pairs
    return -1 if best < 0 else acts[B_DINGQUE] + best


@njit(cache=True)
def _ready_live(counts, wilds, melded, dead, suited, live, memo):  # pragma: no cover - compiled
    """Live waits of the 3k+1 hand when it is ready (0 otherwise)."""
    buf = np.empty(34, dtype=np.int64)
    s, n = useful_tiles(counts, wilds, dead, suited, melded, suited & ~dead, NEAR, memo, buf)
    total = 0
    if s == 0:
        for i in range(n):
            total += live[buf[i]]
    return s, total


@njit(cache=True)
def declare(mask, pos, setup, variant_actions, baohu_min_live):  # pragma: no cover - compiled
    """``VariantPlay._declare``: 报胡 when the ready hand has at least ``baohu_min_live`` live waits, else PASS
    (-1 when neither is legal: the caller plays the first legal action)."""
    ci, memo, acts = setup[1], setup[4], setup[8]
    if variant_actions and mask[acts[B_BAOHU]]:
        s, total = _ready_live(pos[0], pos[1], pos[2], pos[11][R_DEAD], ci[CI_SUITED], pos[12][0], memo)
        if s == 0 and total >= baohu_min_live:
            return acts[B_BAOHU]
    return acts[B_PASS] if mask[acts[B_PASS]] else -1


@njit(cache=True)
def variant_self_action(mask, pos, setup, max_laizi, baohu_min_live):  # pragma: no cover - compiled
    """``VariantPlay._variant_self_action`` (the caller checks ``variant_actions``): the variant action to play now
    on the own turn, or -1."""
    ci, memo, acts = setup[1], setup[4], setup[8]
    for k in range(34):
        if mask[acts[B_TI] + k]:
            return acts[B_TI] + k
    if mask[acts[B_RED_KONG]]:
        return acts[B_RED_KONG]
    counts, wilds, melded = pos[0], pos[1], pos[2]
    wild = pos[7]
    dead = pos[11][R_DEAD]
    suited = ci[CI_SUITED]
    if mask[acts[B_LAIZI_KONG]]:
        ok = True
        if wilds <= max_laizi:
            s_kong = shanten_cached(counts, wilds - 1, dead, suited, melded, memo)
            for k in range(34):
                if mask[k] and not wild[k]:
                    counts[k] -= 1
                    s = shanten_cached(counts, wilds, dead, suited, melded, memo)
                    counts[k] += 1
                    if s < s_kong:
                        ok = False
                        break
        if ok:
            return acts[B_LAIZI_KONG]
    for k in range(34):
        if mask[acts[B_QINGHU] + k]:
            return acts[B_QINGHU] + k
    if mask[acts[B_BAOHU]]:
        best = 0
        live = pos[12][0]
        for k in range(34):
            if mask[k] and not wild[k]:
                counts[k] -= 1
                s, total = _ready_live(counts, wilds, melded, dead, suited, live, memo)
                counts[k] += 1
                if s == 0:
                    best = max(best, total)
        if best >= baohu_min_live:
            return acts[B_BAOHU]
    return -1
