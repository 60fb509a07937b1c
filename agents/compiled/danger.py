"""Compiled danger estimates (编译版放铳风险): :mod:`agents.danger` in numba, for the compiled defensive agent.

:func:`read_opponents` decodes the public facts of every opponent slot of one observation row (the
:class:`agents.features.Opponent` fields the danger models read) into an ``(3, O_*)`` int array and two ``(3, 34)``
count arrays; :func:`ready_probability`, :func:`ready_estimate`, :func:`wait_probability`, :func:`deal_in_by_kind`
and :func:`danger_from` then compute the Python functions' floats in the same operation order (equal to the last
bit, ``tests/agents/test_compiled_danger.py``).  A revealed hand's waits (血流 frozen winners) come from the compiled
shanten (:func:`agents.compiled.shanten.shanten_caps`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.compiled.shanten import shanten_caps
from agents.compiled.valuation import V_BASE, payment
from agents.danger import (
    _RANK_W,
    _READY_W,
    _W_BIAS,
    _W_DISCARDED,
    _W_FLUSH,
    _W_LENGTH,
    _W_NEIGHBOUR,
    _W_NEXT,
    _W_PASSED,
    _W_PONG_SUIT,
    _W_SUIT_SHARE,
    _W_SUJI,
    _W_VISIBLE,
    _W_WILDS,
)
from envs.engine.observation import SLICES

__all__ = [
    "OPP_ROWS",
    "danger_from",
    "deal_in_by_kind",
    "expected_wilds",
    "read_opponents",
    "ready_estimate",
    "ready_probability",
    "wait_probability",
]

# per opponent (slot 1, 2, 3): int fields
O_ACTIVE, O_WON, O_VOID, O_ND, O_LAST, O_MELDS, O_REVEALED = range(7)
O_PONG_SUIT = 7  # 7, 8, 9: pongs of suited kinds per suit
O_PONGS = 10  # pongs (any kind)
NUM_O = 11
OPP_ROWS = np.array(
    [
        SLICES["pongs"].start,  # 0
        SLICES["exposed_kongs"].start,  # 1
        SLICES["concealed_kongs"].start,  # 2
        SLICES["added_kongs"].start,  # 3
        SLICES["hidden_kongs"].start,  # 4
        SLICES["discards"].start,  # 5
        SLICES["last_discard"].start,  # 6
        SLICES["revealed_hands"].start,  # 7
        SLICES["void_suits"].start,  # 8
        SLICES["won"].start,  # 9
        SLICES["active"].start,  # 10
        SLICES["seat_present"].start,  # 11
    ],
    dtype=np.int64,
)
"""Plane rows :func:`read_opponents` reads (slot ``i`` is ``row + i``), from :data:`envs.engine.observation.SLICES`."""
_RANK = np.array(_RANK_W, dtype=np.float64)
_VISIBLE = np.array(_W_VISIBLE, dtype=np.float64)
_READY = np.array(_READY_W, dtype=np.float64)


@njit(cache=True)
def read_opponents(o, rows, opp, disc, melded, revealed):  # pragma: no cover - compiled
    """Fill ``opp`` (3, NUM_O), ``disc`` / ``melded`` / ``revealed`` (3, 34) from one observation ``o`` (C, 34);
    returns the number of opponents (slots ``1 .. n_players - 1``)."""
    players = 0.0
    for r in range(4):
        players += o[rows[11] + r, 0]
    n_opp = np.int64(np.rint(players)) - 1
    for i in range(3):
        for f in range(NUM_O):
            opp[i, f] = 0
        for k in range(34):
            disc[i, k] = 0
            melded[i, k] = 0
            revealed[i, k] = 0
    for i in range(n_opp):
        slot = i + 1
        opp[i, O_ACTIVE] = 1 if o[rows[10] + slot, 0] != 0.0 else 0
        opp[i, O_WON] = 1 if o[rows[9] + slot, 0] != 0.0 else 0
        opp[i, O_VOID] = -1
        opp[i, O_LAST] = -1
        for k in range(34):
            if opp[i, O_VOID] < 0 and o[rows[8] + slot, k] != 0.0:
                opp[i, O_VOID] = k // 9
            if opp[i, O_LAST] < 0 and o[rows[6] + slot, k] != 0.0:
                opp[i, O_LAST] = k
        nd = 0
        rev = 0
        pongs = 0
        kongs = 0
        for k in range(34):
            d = np.int64(np.rint(o[rows[5] + slot, k]))
            disc[i, k] = d
            nd += d
            r = np.int64(np.rint(o[rows[7] + slot, k]))
            revealed[i, k] = r
            rev += r
            if o[rows[0] + slot, k] != 0.0:
                pongs += 1
                melded[i, k] += 3
                if k < 27:
                    opp[i, O_PONG_SUIT + k // 9] += 1
            if o[rows[1] + slot, k] != 0.0 or o[rows[2] + slot, k] != 0.0 or o[rows[3] + slot, k] != 0.0:
                kongs += 1
                melded[i, k] += 4
        hidden = np.int64(np.rint(o[rows[4] + slot, 0] * 4))
        opp[i, O_ND] = nd
        opp[i, O_MELDS] = pongs + kongs + hidden
        opp[i, O_PONGS] = pongs
        opp[i, O_REVEALED] = 1 if rev else 0
    return n_opp


@njit(cache=True)
def _sigmoid(x):  # pragma: no cover - compiled
    return 1.0 / (1.0 + math.exp(-x)) if x > -40 else 0.0


@njit(cache=True)
def ready_probability(opp):  # pragma: no cover - compiled
    """:func:`agents.danger.ready_probability` of one ``opp`` row."""
    if not opp[O_ACTIVE]:
        return 0.0
    if opp[O_REVEALED]:
        return 1.0
    x = (opp[O_ND] - 6.5 + 0.8 * opp[O_MELDS]) / 2.0
    p = 1.0 / (1.0 + math.exp(-x))
    if opp[O_VOID] >= 0 and opp[O_LAST] >= 0 and opp[O_LAST] // 9 == opp[O_VOID]:
        p /= 3.0
    return p


@njit(cache=True)
def expected_wilds(n_wild_kinds, num_tiles):  # pragma: no cover - compiled
    """:func:`agents.danger.expected_wilds`."""
    return n_wild_kinds * 4 * 13 / max(1, num_tiles)


@njit(cache=True)
def ready_estimate(opp, disc, wilds):  # pragma: no cover - compiled
    """:func:`agents.danger.ready_estimate` of one ``opp`` row (``disc``: its 34 discard counts)."""
    if not opp[O_ACTIVE]:
        return 0.0
    if opp[O_REVEALED]:
        return 1.0
    melds = opp[O_MELDS]
    nd = opp[O_ND]
    void = opp[O_VOID]
    last = opp[O_LAST]
    last_void = void >= 0 and last >= 0 and last < 27 and last // 9 == void
    void_discards = 0
    if void >= 0:
        for k in range(9 * void, 9 * void + 9):
            void_discards += disc[k]
    w = _READY
    x = (
        w[0]
        + w[1] * nd
        + w[2] * melds
        + w[3] * wilds
        + w[4] * nd * wilds
        + w[5] * (1 if last_void else 0)
        + w[6] * min(nd, 4)
        + w[7] * void_discards
        + w[8] * melds * wilds
    )
    return _sigmoid(x)


@njit(cache=True)
def wait_probability(visible_t, opp, disc, t, wilds_held, passed):  # pragma: no cover - compiled
    """:func:`agents.danger.wait_probability` of the suited kind ``t`` for one ``opp`` row."""
    void = opp[O_VOID]
    if void >= 0 and t // 9 == void:
        return 0.0
    s = t // 9
    i = t % 9
    nb1 = (disc[t - 1] if i > 0 else 0) + (disc[t + 1] if i < 8 else 0)
    nb2 = (disc[t - 2] if i > 1 else 0) + (disc[t + 2] if i < 7 else 0)
    suji = (disc[t - 3] if i > 2 else 0) + (disc[t + 3] if i < 6 else 0)
    suit_d = 0
    for k in range(9 * s, 9 * s + 9):
        suit_d += disc[k]
    void_d = 0
    if void >= 0:
        for k in range(9 * void, 9 * void + 9):
            void_d += disc[k]
    nonvoid = opp[O_ND] - void_d
    x = (
        _W_BIAS
        + _RANK[t]
        + _VISIBLE[min(visible_t, 4)]
        + (_W_DISCARDED if disc[t] else 0.0)
        + _W_NEIGHBOUR * min(nb1, 3)
        + _W_NEXT * min(nb2, 3)
        + _W_SUJI * min(suji, 2)
        + _W_SUIT_SHARE * suit_d / max(nonvoid, 1)
        + (_W_FLUSH if nonvoid >= 6 and suit_d == 0 else 0.0)
        + _W_WILDS * wilds_held
        + _W_PONG_SUIT * opp[O_PONG_SUIT + s]
        + _W_LENGTH * min(nonvoid, 12) / 12
        + (_W_PASSED if passed else 0.0)
    )
    return _sigmoid(x)


@njit(cache=True)
def _revealed_waits(revealed, melded, void, wild, suited, table, out):  # pragma: no cover - compiled
    """1 in ``out`` at each wait of a revealed hand (``agents.danger._revealed_waits``; none when not 3k+1)."""
    counts = np.zeros(34, dtype=np.int64)
    wilds = 0
    total = 0
    for k in range(34):
        out[k] = 0
        if wild[k]:
            wilds += revealed[k]
        else:
            counts[k] = revealed[k]
        total += revealed[k]
    if total % 3 != 1:
        return
    allowed = suited if void < 0 else suited & ~(np.int64(0x1FF) << (9 * void))
    for t in range(34):
        if not (allowed >> t) & 1 or counts[t] + melded[t] >= 4:
            continue
        counts[t] += 1
        if shanten_caps(counts, wilds, allowed, melded, True, table) < 0:
            out[t] = 1
        counts[t] -= 1


@njit(cache=True)
def deal_in_by_kind(n_opp, opp, disc, melded, revealed, hand, wild, live, visible, claimable, num_tiles, suited,
                    table, rows):  # fmt: skip  # pragma: no cover - compiled
    """:func:`agents.danger.deal_in_by_kind` into ``rows`` (3, 34) (rows past ``n_opp`` stay 0)."""
    unseen = 0
    wild_live = 0
    n_wild_kinds = 0
    for k in range(34):
        unseen += live[k]
        if wild[k]:
            wild_live += live[k]
            n_wild_kinds += 1
    unseen = max(1, unseen)
    held = wild_live * 13 / unseen
    game_wilds = expected_wilds(n_wild_kinds, num_tiles)
    waits = np.zeros(34, dtype=np.int64)
    for i in range(3):
        for k in range(34):
            rows[i, k] = 0.0
    for i in range(n_opp):
        if not opp[i, O_ACTIVE]:
            continue
        if opp[i, O_REVEALED]:
            _revealed_waits(revealed[i], melded[i], opp[i, O_VOID], wild, suited, table, waits)
            for t in range(34):
                if waits[t] and not (wild[t] and not claimable):
                    rows[i, t] = 1.0
            continue
        ready = ready_estimate(opp[i], disc[i], game_wilds)
        last = opp[i, O_LAST]
        for t in range(27):
            if wild[t] or (not live[t] and not hand[t]):
                continue
            passed = False
            if last >= 0:
                for j in range(i + 1, n_opp):
                    if opp[j, O_ACTIVE] and opp[j, O_LAST] == t:
                        passed = True
            rows[i, t] = ready * wait_probability(visible[t], opp[i], disc[i], t, held, passed)


@njit(cache=True)
def danger_from(n_opp, opp, rows, v, danger):  # pragma: no cover - compiled
    """:func:`agents.danger.danger_from` into ``danger`` (34)."""
    for k in range(34):
        danger[k] = 0.0
    base_stake = payment(v, v[V_BASE] + 1)
    for i in range(n_opp):
        if not opp[i, O_ACTIVE]:
            continue
        stake = base_stake * (2.0 if opp[i, O_MELDS] >= 2 else 1.0)
        for t in range(34):
            if rows[i, t]:
                danger[t] += rows[i, t] * stake
