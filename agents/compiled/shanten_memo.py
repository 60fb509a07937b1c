"""A memo of compiled shanten values (向听数缓存) for the compiled value agents.

The value estimate asks the shanten of many hands that differ by a tile or two, over and over within a decision and
across the decisions of a game (the Python agents keep a dict for the same reason, :mod:`agents.handeval`).
:func:`shanten_cached` is :func:`agents.compiled.shanten.shanten_dead` behind a direct-mapped table: the full input
(34 counts, wildcards, dead and allowed masks, 34 meld counts) is packed into six int64 words and compared whole, so a
hit is always the exact value (a slot keeps the last hand hashed to it).  :func:`new_memo` makes the
``(suit table, keys, values)`` tuple the compiled agents pass where :mod:`agents.compiled.shanten` takes its table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.compiled.shanten import SUIT_TABLE, shanten_dead

__all__ = ["MEMO", "new_memo", "shanten_cached"]

_SLOTS = 1 << 17
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)


def new_memo(slots: int = _SLOTS, table: np.ndarray = SUIT_TABLE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(suit table, keys (slots, 6) int64, values (slots,) int64)``; ``slots`` must be a power of two."""
    if slots <= 0 or slots & (slots - 1):
        raise ValueError(f"slots must be a power of two, got {slots}")
    return table, np.full((slots, 6), -1, dtype=np.int64), np.zeros(slots, dtype=np.int64)


MEMO = new_memo()
"""The process-wide memo of the compiled value agents."""


@njit(cache=True)
def shanten_cached(counts, wilds, dead, allowed, melded, memo):  # pragma: no cover - compiled
    """:func:`agents.compiled.shanten.shanten_dead` of the inputs, from ``memo`` when the same inputs were asked
    before (counts and meld counts 0-7, 0-15 wildcards; other inputs are computed every time)."""
    table, keys, vals = memo
    w0 = np.int64(0)
    w1 = np.int64(0)
    w4 = np.int64(0)
    w5 = np.int64(0)
    ok = 0 <= wilds < 16
    for k in range(21):
        c = counts[k]
        m = melded[k]
        if c < 0 or c > 7 or m < 0 or m > 7:
            ok = False
        w0 |= np.int64(c & 7) << (3 * k)
        w4 |= np.int64(m & 7) << (3 * k)
    for k in range(21, 34):
        c = counts[k]
        m = melded[k]
        if c < 0 or c > 7 or m < 0 or m > 7:
            ok = False
        w1 |= np.int64(c & 7) << (3 * (k - 21))
        w5 |= np.int64(m & 7) << (3 * (k - 21))
    if not ok:
        return shanten_dead(counts, wilds, dead, allowed, melded, table)
    w1 |= np.int64(wilds) << 39
    w2 = np.int64(dead)
    w3 = np.int64(allowed)
    h = np.uint64(w0) * _M1
    h ^= np.uint64(w1) * _M2
    h = (h ^ (h >> np.uint64(29))) * _M1
    h ^= np.uint64(w2) * _M2 + np.uint64(w3)
    h ^= np.uint64(w4) * _M1 + np.uint64(w5)
    h = (h ^ (h >> np.uint64(31))) * _M2
    i = np.int64(h >> np.uint64(40)) & (keys.shape[0] - 1)
    key = keys[i]
    if key[0] == w0 and key[1] == w1 and key[2] == w2 and key[3] == w3 and key[4] == w4 and key[5] == w5:
        return vals[i]
    s = shanten_dead(counts, wilds, dead, allowed, melded, table)
    key[0] = w0
    key[1] = w1
    key[2] = w2
    key[3] = w3
    key[4] = w4
    key[5] = w5
    vals[i] = s
    return s
