"""The hand's set-up decisions in numba (编译版换三张 / 定缺): :class:`agents.greedy.GreedyAgent`'s 换三张 and 定缺,
which the value and defensive agents inherit unchanged.

* **换三张** (:func:`exchange_action`): over every same-suit triple of natural tiles that contains the tiles already
  picked (the ``exchange_picked`` plane), keep the ten or eleven tiles whose best void-suit plan has the lowest
  ``(shanten, tiles left in that suit, -pairs)``; ties take the lowest triple in suit then kind order.  The pick is the
  first tile of that triple not picked yet that the mask allows (else the first legal action) — what the Python agent
  plays, whose per-hand plan cache only saves recomputing the same triple.
* **定缺** (:func:`dingque_action`): the legal suit of the least ``(shanten with the suit dead, tiles in it, pairs in
  it, suit)``.

Rule parameters arrive as arguments (the suited kinds in play), never frozen into numba's cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.compiled.shanten import shanten_dead

__all__ = ["dingque_action", "exchange_action", "setup_rows"]


@njit(cache=True)
def _suit_mask(s):  # pragma: no cover - compiled
    return np.int64(((1 << 9) - 1) << (9 * s))


@njit(cache=True)
def _exchange_key(rest, wilds, suited, zero, table, key):  # pragma: no cover - compiled
    """``GreedyAgent._exchange_key`` into ``key[0:3]``: the best ``(shanten, in_void, -pairs)`` over the void plans."""
    found = False
    for v in range(3):
        if not (suited >> (9 * v)) & 1:
            continue
        dead = _suit_mask(v)
        s = shanten_dead(rest, wilds, dead, suited & ~dead, zero, table)
        in_void = 0
        for k in range(9 * v, 9 * v + 9):
            in_void += rest[k]
        pairs = 0
        for k in range(27):
            if rest[k] >= 2 and not (dead >> k) & 1:
                pairs += 1
        if not found or (s, in_void, -pairs) < (key[0], key[1], key[2]):
            key[0], key[1], key[2] = s, in_void, -pairs
            found = True
    if not found:
        key[0], key[1], key[2] = 0, 0, 0


@njit(cache=True)
def _contains(a, b, c, picked):  # pragma: no cover - compiled
    """The multiset ``picked`` (34 counts) lies inside the triple ``(a, b, c)``."""
    for k in range(34):
        if picked[k]:
            n = (a == k) + (b == k) + (c == k)
            if picked[k] > n:
                return False
    return True


@njit(cache=True)
def exchange_action(mask, counts, wilds, picked, suited, exchange_base, table):  # pragma: no cover - compiled
    """``GreedyAgent._exchange``: the 换三张 pick of one row (``counts`` natural counts, ``picked`` the tiles picked
    so far, ``suited`` the bitmask of suited kinds in play)."""
    zero = np.zeros(34, dtype=np.int64)
    rest = counts.copy()
    key = np.zeros(3, dtype=np.int64)
    best = np.full(3, -1, dtype=np.int64)
    bkey = np.zeros(3, dtype=np.int64)
    have = False
    for s in range(3):
        if not (suited >> (9 * s)) & 1:
            continue
        inside = True
        for k in range(34):
            if picked[k] and (k // 9 != s or k >= 27):
                inside = False
        if not inside:
            continue
        lo, hi = 9 * s, 9 * s + 9
        total = 0
        for k in range(lo, hi):
            total += counts[k]
        if total < 3:
            continue
        for a in range(lo, hi):
            if counts[a] < 1:
                continue
            for b in range(a, hi):
                if counts[b] < 1 + (b == a):
                    continue
                for c in range(b, hi):
                    if counts[c] < 1 + (c == a) + (c == b):
                        continue
                    if not _contains(a, b, c, picked):
                        continue
                    rest[a] -= 1
                    rest[b] -= 1
                    rest[c] -= 1
                    _exchange_key(rest, wilds, suited, zero, table, key)
                    rest[a] += 1
                    rest[b] += 1
                    rest[c] += 1
                    if not have or (key[0], key[1], key[2]) < (bkey[0], bkey[1], bkey[2]):
                        bkey[:] = key
                        best[0], best[1], best[2] = a, b, c
                        have = True
    left = picked.copy()
    for i in range(3):
        k = best[i]
        if k < 0:
            continue
        if left[k] > 0:
            left[k] -= 1
            continue
        if mask[exchange_base + k]:
            return exchange_base + k
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@njit(cache=True)
def dingque_action(mask, counts, wilds, melded, suited, dingque_base, table):  # pragma: no cover - compiled
    """``GreedyAgent._dingque``: the void suit of one row."""
    choice = -1
    bs, bn, bp, bsuit = 0, 0, 0, 0
    for s in range(3):
        if not mask[dingque_base + s]:
            continue
        dead = _suit_mask(s)
        sh = shanten_dead(counts, wilds, dead, suited & ~dead, melded, table)
        n = 0
        p = 0
        for k in range(9 * s, 9 * s + 9):
            n += counts[k]
            p += counts[k] >= 2
        if choice < 0 or (sh, n, p, s) < (bs, bn, bp, bsuit):
            choice = dingque_base + s
            bs, bn, bp, bsuit = sh, n, p, s
    if choice >= 0:
        return choice
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@njit(cache=True)
def setup_rows(rows, masks, phase, counts, wilds, melded, picked, suited, phases, bases, table, out):
    """The 换三张 (``phase == phases[0]``) and 定缺 (``phases[1]``) answers of the batch rows ``rows`` into ``out``;
    other rows are left as they are.  ``bases``: ``(EXCHANGE_BASE, DINGQUE_BASE)``."""
    for i in range(rows.shape[0]):
        b = rows[i]
        c = counts[b].astype(np.int64)
        if phase[b] == phases[0]:
            out[b] = exchange_action(masks[b], c, wilds[b], picked[b].astype(np.int64), suited, bases[0], table)
        elif phase[b] == phases[1]:
            out[b] = dingque_action(masks[b], c, wilds[b], melded[b].astype(np.int64), suited, bases[1], table)
