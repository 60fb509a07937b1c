"""A memo of compiled shanten values (向听数缓存) for the compiled value agents.

The value estimate asks the shanten of many hands that differ by a tile or two, over and over within a decision and
across the decisions of a game (the Python agents keep a dict for the same reason, :mod:`agents.handeval`).
:func:`shanten_cached` is :func:`agents.compiled.shanten.shanten_dead` behind a direct-mapped table: the full input
(34 counts, wildcards, dead and allowed masks, 34 meld counts) is packed into six int64 words and compared whole, so a
hit is always the exact value (a slot keeps the last hand hashed to it).  :func:`new_memo` makes the
``(shanten tables, keys, values, useful keys, useful values, discard keys, discard values)`` tuple the compiled
agents pass where :mod:`agents.compiled.shanten` takes its tables.  :func:`useful_tiles` (有效牌) and
:func:`discard_shanten` ask the shanten of the hand plus or minus one tile of each candidate kind: their keys are the
hand's key plus or minus one count, so a hit costs a hash and a comparison.  Both also keep their whole answer per
hand in a table of their own, keyed the same way (:func:`useful_tiles` adds the candidate kinds), as the Python
agents keep theirs (:func:`agents.handeval.useful_tiles`): a hand asked again, at the next discard that keeps it or
at a claim that looks at it, costs one lookup.  :func:`discard_useful` answers both for the discards of one hand at
once, from one split of it, into the same tables.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from agents.compiled.shanten import (
    NO_SPLIT,
    SHANTEN_TABLES,
    discard_begin,
    discard_end,
    draw_after,
    fill_suit_table,
    new_tables,
    shanten_dead,
    split_hand,
    split_step,
)
from envs.core.tiles import NUM_KINDS, NUM_SUITED

__all__ = [
    "MEMO",
    "MISS",
    "NEAR",
    "add_tile",
    "clear_memo",
    "discard_shanten",
    "discard_useful",
    "memo_probe",
    "memo_store",
    "memo_words",
    "new_memo",
    "shanten_cached",
    "shanten_keyed",
    "shanten_stepped",
    "thread_memo",
    "useful_tiles",
]

NEAR = np.array(
    [sum(1 << j for j in range(k - 2, k + 3) if 0 <= j < NUM_SUITED and j // 9 == k // 9) for k in range(NUM_SUITED)],
    dtype=np.int64,
)
"""Kinds within two ranks of each suited kind (:data:`agents.handeval._NEAR`): where a useful draw of a hand without
wildcards and at most three steps from ready can be (:func:`useful_tiles`)."""

MISS = -1000
"""What :func:`memo_probe` answers for a hand the memo does not hold (no shanten is that low)."""
_SLOTS = 1 << 17
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)


def new_memo(slots: int = _SLOTS, tables: tuple = SHANTEN_TABLES) -> tuple:
    """``(shanten tables, keys (slots, 6) int64, values (slots,) int64, useful keys (slots, 7) int64, useful values
    (slots, 2) int64, discard keys (slots, 6) int64, discard values (slots, 34) int8)``; ``slots`` must be a power
    of two; ``tables``: :func:`agents.compiled.shanten.new_tables`.  A useful value is ``(shanten, bitmask of the
    useful kinds)`` of the hand, wildcards, dead and allowed masks, meld counts and candidate kinds of its key; a
    discard value the shanten after discarding each held natural kind (:func:`discard_shanten`)."""
    if slots <= 0 or slots & (slots - 1):
        raise ValueError(f"slots must be a power of two, got {slots}")
    return (
        tables,
        np.full((slots, 6), -1, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.full((slots, 7), -1, dtype=np.int64),
        np.zeros((slots, 2), dtype=np.int64),
        np.full((slots, 6), -1, dtype=np.int64),
        np.zeros((slots, NUM_KINDS), dtype=np.int8),
    )


def clear_memo(memo: tuple) -> None:
    """Empty the tables of ``memo`` (benchmarks of cold caches; the shanten tables are emptied apart)."""
    memo[1][:] = -1
    memo[3][:] = -1
    memo[5][:] = -1


MEMO = new_memo()
"""The memo of the compiled value agents in the main thread (:func:`thread_memo`)."""

_THREAD = threading.local()


def thread_memo() -> tuple:
    """The memo of the calling thread (每线程缓存): :data:`MEMO` in the main thread, a memo of its own in any other.

    A memo's tables and its shanten tables' scratch rows are written by every lookup, so two threads must never
    share one; the compiled agents ask for the calling thread's memo on every call, and an agent instance (its own
    scratch rows) is used by one thread at a time.  A thread's memo starts empty (about 28 MB) and goes with the
    thread; its suit table is the process's own, full (:func:`agents.compiled.shanten.fill_suit_table`), which every
    thread only reads."""
    if threading.current_thread() is threading.main_thread():
        return MEMO
    memo = getattr(_THREAD, "memo", None)
    if memo is None:
        fill_suit_table()
        memo = _THREAD.memo = new_memo(tables=new_tables(suit_table=SHANTEN_TABLES[0]))
    return memo


@njit(cache=True)
def memo_words(counts, wilds, melded):  # pragma: no cover - compiled
    """``(ok, w0, w1, w4, w5)``: the key words of a hand (``w0`` / ``w1``: counts of kinds 0-20 / 21-33 and the
    wildcards, ``w4`` / ``w5``: meld counts); ``ok`` is False when a count is outside what the words hold (the hand
    is then computed every time).  Adding one tile of kind ``t`` to a hand adds ``1 << 3 * t`` to ``w0`` (``t < 21``)
    or ``1 << 3 * (t - 21)`` to ``w1`` (:func:`add_tile`)."""
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
    w1 |= np.int64(wilds & 15) << 39
    return ok, w0, w1, w4, w5


@njit(cache=True)
def add_tile(w0, w1, t, d):  # pragma: no cover - compiled
    """``(w0, w1)`` of the hand with ``d`` (+1 or -1) tiles of kind ``t`` more (its count must stay in 0-7)."""
    if t < 21:
        return w0 + d * (np.int64(1) << (3 * t)), w1
    return w0, w1 + d * (np.int64(1) << (3 * (t - 21)))


@njit(cache=True, inline="always")
def shanten_keyed(counts, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5):  # pragma: no cover - compiled
    """:func:`shanten_cached` of a hand whose :func:`memo_words` are given (``counts`` / ``wilds`` / ``melded`` must
    be the hand they describe: a miss computes it from them)."""
    slot, s = memo_probe(memo, ok, w0, w1, dead, allowed, w4, w5)
    if s == MISS:
        s = shanten_dead(counts, wilds, dead, allowed, melded, memo[0])
        memo_store(memo, slot, w0, w1, dead, allowed, w4, w5, s)
    return s


@njit(cache=True, inline="always")
def shanten_stepped(counts, t, d, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5):  # pragma: no cover
    """:func:`shanten_keyed` of the hand of these :func:`memo_words` with ``d`` (+1 or -1) tiles of kind ``t`` more
    (its count must stay in 0-7; ``counts`` is restored)."""
    counts[t] += d
    a0, a1 = add_tile(w0, w1, t, d)
    s = shanten_keyed(counts, wilds, dead, allowed, melded, memo, ok, a0, a1, w4, w5)
    counts[t] -= d
    return s


@njit(cache=True, inline="always")
def memo_probe(memo, ok, w0, w1, dead, allowed, w4, w5):  # pragma: no cover - compiled
    """``(slot, shanten)`` of the hand of these :func:`memo_words` in ``memo``'s shanten table: :data:`MISS` when
    the table does not hold it, slot -1 when its words do not describe it (``ok`` false: never kept)."""
    if not ok:
        return -1, MISS
    keys = memo[1]
    i = _slot(_hand_hash(w0, w1, np.int64(dead), np.int64(allowed), w4, w5), keys.shape[0])
    if _key_is(keys[i], w0, w1, np.int64(dead), np.int64(allowed), w4, w5):
        return i, memo[2][i]
    return i, MISS


@njit(cache=True, inline="always")
def memo_store(memo, slot, w0, w1, dead, allowed, w4, w5, shanten):  # pragma: no cover - compiled
    """Keep ``shanten`` for the hand of these :func:`memo_words` in ``slot`` (from :func:`memo_probe`; -1: not
    kept)."""
    if slot >= 0:
        _key_set(memo[1][slot], w0, w1, np.int64(dead), np.int64(allowed), w4, w5)
        memo[2][slot] = shanten


@njit(cache=True, inline="always")
def shanten_cached(counts, wilds, dead, allowed, melded, memo):  # pragma: no cover - compiled
    """:func:`agents.compiled.shanten.shanten_dead` of the inputs, from ``memo`` when the same inputs were asked
    before (counts and meld counts 0-7, 0-15 wildcards; other inputs are computed every time)."""
    ok, w0, w1, w4, w5 = memo_words(counts, wilds, melded)
    return shanten_keyed(counts, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5)


@njit(cache=True, inline="always")
def _hand_hash(w0, w1, dead, allowed, w4, w5):  # pragma: no cover - compiled
    """A 64-bit hash of a hand's memo key (its :func:`memo_words` and the dead and allowed masks)."""
    h = np.uint64(w0) * _M1
    h ^= np.uint64(w1) * _M2
    h = (h ^ (h >> np.uint64(29))) * _M1
    h ^= np.uint64(dead) * _M2 + np.uint64(allowed)
    h ^= np.uint64(w4) * _M1 + np.uint64(w5)
    return (h ^ (h >> np.uint64(31))) * _M2


@njit(cache=True, inline="always")
def _slot(h, slots):  # pragma: no cover - compiled
    """The row of hash ``h`` in a direct-mapped table of ``slots`` (a power of two) rows."""
    return np.int64(h >> np.uint64(40)) & (slots - 1)


@njit(cache=True, inline="always")
def _key_is(key, w0, w1, w2, w3, w4, w5):  # pragma: no cover - compiled
    """Whether the first six words of the table row ``key`` are the hand's key ``w0`` .. ``w5``."""
    return key[0] == w0 and key[1] == w1 and key[2] == w2 and key[3] == w3 and key[4] == w4 and key[5] == w5


@njit(cache=True, inline="always")
def _key_set(key, w0, w1, w2, w3, w4, w5):  # pragma: no cover - compiled
    """Write the hand's key ``w0`` .. ``w5`` into the first six words of the table row ``key``."""
    key[0] = w0
    key[1] = w1
    key[2] = w2
    key[3] = w3
    key[4] = w4
    key[5] = w5


@njit(cache=True, inline="always")
def _useful_slot(w0, w1, dead, allowed, w4, w5, cand, slots):  # pragma: no cover - compiled
    """The slot of a :func:`useful_tiles` key (the hand's and the candidate kinds) in a table of ``slots`` rows."""
    h = _hand_hash(w0, w1, dead, allowed, w4, w5) ^ (np.uint64(cand) * _M1)
    return _slot((h ^ (h >> np.uint64(29))) * _M2, slots)


@njit(cache=True, inline="always")
def useful_tiles(counts, wilds, dead, allowed, melded, cand, near, memo, out):  # pragma: no cover - compiled
    """``(shanten, n)``: :func:`agents.handeval.useful_tiles` with ``candidates`` = ``cand`` (pass
    ``allowed & ~dead`` for the default), its pruning to the kinds ``near`` the held suited tiles included; the
    first ``n`` entries of ``out`` are the useful kinds (whose draw lowers the shanten), ascending.  The answer is
    kept in the memo's useful table (one ``near`` table per memo: the agents pass :data:`NEAR`), so a hand asked
    again costs one lookup; a new hand is split into its groups once
    (:func:`agents.compiled.shanten.split_hand`), so each drawn hand is one suit profile; where the split does not
    apply, the shanten memo answers (the key of each drawn hand is the held hand's plus one tile).  A drawn hand the
    split cannot answer (an honor kind) is computed in full."""
    ok, w0, w1, w4, w5 = memo_words(counts, wilds, melded)
    slot = -1
    if ok:
        ukeys, uvals = memo[3], memo[4]
        slot = _useful_slot(w0, w1, dead, allowed, w4, w5, cand, ukeys.shape[0])
        key = ukeys[slot]
        if _key_is(key, w0, w1, dead, allowed, w4, w5) and key[6] == cand:
            bits = uvals[slot, 1]
            n = 0
            for t in range(34):
                if (bits >> t) & 1:
                    out[n] = t
                    n += 1
            return uvals[slot, 0], n
    s, n = _useful_tiles(counts, wilds, dead, allowed, melded, cand, near, memo, out, ok, w0, w1, w4, w5)
    if slot >= 0:
        bits = np.int64(0)
        for i in range(n):
            bits |= np.int64(1) << out[i]
        key = memo[3][slot]
        _key_set(key, w0, w1, dead, allowed, w4, w5)
        key[6] = cand
        memo[4][slot, 0] = s
        memo[4][slot, 1] = bits
    return s, n


@njit(cache=True, inline="always")
def _near_only(cand, counts, wilds, s, near):  # pragma: no cover - compiled
    """``cand`` without the kinds no held suited kind is ``near`` when the hand (of shanten ``s``) holds no wildcard
    and is at most three steps from ready (:func:`agents.handeval.useful_tiles`' pruning)."""
    if wilds == 0 and 0 <= s <= 3:
        nm = np.int64(0)
        for k in range(27):
            if counts[k]:
                nm |= near[k]
        cand &= nm
    return cand


@njit(cache=True)
def _useful_tiles(counts, wilds, dead, allowed, melded, cand, near, memo, out, ok, w0, w1, w4, w5):
    # pragma: no cover - compiled
    """:func:`useful_tiles` computed (``ok`` and the words: :func:`memo_words` of the hand)."""
    tables = memo[0]
    table, cap_keys, cap_vals, parts, kinds, meta, steps = tables[0], tables[1], tables[2], tables[5], tables[6], \
        tables[7], tables[8]  # fmt: skip
    s = split_hand(counts, wilds, dead, allowed, melded, tables)
    split = s != NO_SPLIT
    if not split:
        s = shanten_keyed(counts, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5)
    cand = _near_only(cand, counts, wilds, s, near)
    n = 0
    for t in range(34):
        if not (cand >> t) & 1:
            continue
        if counts[t] + melded[t] >= 4:
            continue
        s2 = split_step(t, 1, table, cap_keys, cap_vals, parts, kinds, meta, steps) if split else NO_SPLIT
        if s2 == NO_SPLIT:
            # (at most 4 after the check above: the key stays exact)
            s2 = shanten_stepped(counts, t, 1, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5)
        if s2 < s:
            out[n] = t
            n += 1
    return s, n


@njit(cache=True)
def discard_shanten(counts, wilds, melded, cands, n, dead, allowed, wild, memo, out):  # pragma: no cover - compiled
    """``out[i]``: the shanten of the hand after discarding one ``cands[i]`` (``i < n``; a wildcard when
    ``wild[cands[i]]``).  The shanten after discarding each held natural kind is kept per hand in the memo's discard
    table, so a hand asked again costs one lookup; a new hand is split once
    (:func:`agents.compiled.shanten.split_hand`) and each discard is one suit profile, else the shanten memo (the
    key of each hand is the held hand's minus one count)."""
    ok, w0, w1, w4, w5 = memo_words(counts, wilds, melded)
    row = _discard_row(counts, wilds, melded, dead, allowed, memo, ok, w0, w1, w4, w5) if ok else -1
    for i in range(n):
        k = cands[i]
        if wild[k]:
            out[i] = shanten_cached(counts, wilds - 1, dead, allowed, melded, memo)
        elif row >= 0 and counts[k] > 0:
            out[i] = memo[6][row, k]
        else:
            counts[k] -= 1
            out[i] = shanten_dead(counts, wilds, dead, allowed, melded, memo[0])
            counts[k] += 1


@njit(cache=True)
def _discard_row(counts, wilds, melded, dead, allowed, memo, ok, w0, w1, w4, w5):  # pragma: no cover - compiled
    """The row of the memo's discard table that holds, for every natural kind ``k`` the hand holds, the shanten of
    the hand with one ``k`` fewer (filled here on a miss)."""
    dkeys = memo[5]
    slot = _slot(_hand_hash(w0, w1, dead, allowed, w4, w5), dkeys.shape[0])
    if not _key_is(dkeys[slot], w0, w1, dead, allowed, w4, w5):
        _fill_discard_row(counts, wilds, melded, dead, allowed, memo, ok, w0, w1, w4, w5, slot)
    return slot


@njit(cache=True)
def _fill_discard_row(counts, wilds, melded, dead, allowed, memo, ok, w0, w1, w4, w5, slot):
    # pragma: no cover - compiled
    """Fill row ``slot`` of the memo's discard table for the hand, from one split of it; returns 1 when the memo's
    tables hold that split now, -1 when the split does not apply."""
    tables = memo[0]
    table, cap_keys, cap_vals, parts, kinds, meta, steps = tables[0], tables[1], tables[2], tables[5], tables[6], \
        tables[7], tables[8]  # fmt: skip
    split = 1 if split_hand(counts, wilds, dead, allowed, melded, tables) != NO_SPLIT else -1
    for k in range(34):
        if counts[k] <= 0:
            continue
        s = NO_SPLIT
        if split > 0 and k < NUM_SUITED:
            s = split_step(k, -1, table, cap_keys, cap_vals, parts, kinds, meta, steps)
        elif split > 0:  # an honor: the honors' profiles again
            s = discard_begin(k, table, cap_keys, cap_vals, parts, kinds, meta, steps)
            discard_end(kinds, meta, steps)
        if s == NO_SPLIT:
            s = shanten_stepped(counts, k, -1, wilds, dead, allowed, melded, memo, ok, w0, w1, w4, w5)
        memo[6][slot, k] = s
    _key_set(memo[5][slot], w0, w1, dead, allowed, w4, w5)
    return split


@njit(cache=True)
def discard_useful(counts, wilds, melded, cands, n, dead, allowed, memo, out_s, out_bits):  # pragma: no cover
    """:func:`discard_shanten` and, for each discard of the least shanten, :func:`useful_tiles` of the hand after it
    (candidates ``allowed & ~dead``, :data:`NEAR` pruning) at once: ``out_s[i]`` the shanten after discarding one
    ``cands[i]``, ``out_bits[i]`` the useful kinds of that hand as a bit mask when ``out_s[i]`` is the least (else
    0).  Returns False, filling nothing, where it does not apply (a candidate the hand does not hold, a dead tile in
    the hand, counts the memo keys cannot hold): ask those two functions.

    The answers are the memo's (the discard table for the hand, the useful table for each hand after a discard), so
    a hand asked again costs lookups; what the memo lacks comes from one split of the held hand
    (:func:`agents.compiled.shanten.split_hand`): each discard one suit profile, each draw after it one suit profile
    and one pass (:func:`agents.compiled.shanten.discard_begin`, :func:`agents.compiled.shanten.draw_after`)
    instead of a split of every hand after a discard."""
    ok, w0, w1, w4, w5 = memo_words(counts, wilds, melded)
    if not ok:
        return False
    for k in range(27):
        if counts[k] and (dead >> k) & 1:
            return False
    for i in range(n):
        k = cands[i]
        if counts[k] <= 0:
            return False
    tables = memo[0]
    table, cap_keys, cap_vals, parts, kinds, meta, steps = tables[0], tables[1], tables[2], tables[5], tables[6], \
        tables[7], tables[8]  # fmt: skip
    split = 0  # 0: the tables do not hold this hand's split yet, 1: they do, -1: the split does not apply
    dkeys, dvals = memo[5], memo[6]
    drow = _slot(_hand_hash(w0, w1, dead, allowed, w4, w5), dkeys.shape[0])
    if not _key_is(dkeys[drow], w0, w1, dead, allowed, w4, w5):
        split = _fill_discard_row(counts, wilds, melded, dead, allowed, memo, ok, w0, w1, w4, w5, drow)
    s_min = dvals[drow, cands[0]]
    for i in range(n):
        out_s[i] = dvals[drow, cands[i]]
        s_min = min(s_min, out_s[i])
    cand = allowed & ~dead
    ukeys, uvals = memo[3], memo[4]
    for i in range(n):
        out_bits[i] = 0
        if out_s[i] != s_min:
            continue
        d = cands[i]
        a0, a1 = add_tile(w0, w1, d, -1)
        slot = _useful_slot(a0, a1, dead, allowed, w4, w5, cand, ukeys.shape[0])
        key = ukeys[slot]
        if _key_is(key, a0, a1, dead, allowed, w4, w5) and key[6] == cand:
            out_bits[i] = uvals[slot, 1]
            continue
        if split == 0:
            split = 1 if split_hand(counts, wilds, dead, allowed, melded, tables) != NO_SPLIT else -1
        s = discard_begin(d, table, cap_keys, cap_vals, parts, kinds, meta, steps) if split > 0 else NO_SPLIT
        counts[d] -= 1
        if s == NO_SPLIT:  # the discard row holds it
            s = out_s[i]
        c = _near_only(cand, counts, wilds, s, NEAR)
        bits = np.int64(0)
        for t in range(34):
            if not (c >> t) & 1 or counts[t] + melded[t] >= 4:
                continue
            s2 = draw_after(t, s, table, cap_keys, cap_vals, parts, kinds, meta, steps) if split > 0 else NO_SPLIT
            if s2 == NO_SPLIT:
                s2 = shanten_stepped(counts, t, 1, wilds, dead, allowed, melded, memo, ok, a0, a1, w4, w5)
            if s2 < s:
                bits |= np.int64(1) << t
        counts[d] += 1
        if split > 0:
            discard_end(kinds, meta, steps)
        _key_set(key, a0, a1, dead, allowed, w4, w5)
        key[6] = cand
        uvals[slot, 0] = s
        uvals[slot, 1] = bits
        out_bits[i] = bits
    return True
