"""Compiled observation encoder (编译观测编码): ``chuanma-v1`` tensors straight from :mod:`envs.compiled.layout` rows.

:func:`encode_row` writes one seat's ``(106, 34)`` float32 observation of one state row; it is bit for bit
:meth:`envs.engine.observation.ObservationEncoder.encode` of the view of the :class:`envs.engine.game.Game` the row
mirrors (:func:`envs.compiled.mirror.state_of_game`), with the seat's pending 换三张 picks taken from ``PICK_COUNT`` /
``PICKS``.  :func:`encode_rows` encodes a batch of (row, seat) pairs.  Both are numba ``njit`` functions that
allocate nothing: every cell of ``out`` is overwritten.

A table of two or three players (``NSEATS``) fills the first seat slots only.  Only the planes of the core rules
are written, with 断卡根's 报胡 / 请胡, 宜宾's 本金 indicator, 听用 and 飞 melds, and Wuhan's 赖子 indicator, 吃 runs
and hidden 暗杠: every plane of the reference.

Float values: count planes are small integers (exact in float32, so the ``visible`` row is summed in float32 as it
is built); broadcast values (wall / 136, hand size / 14, melds / 4, the score scale) are computed in float64 and
rounded to float32 once, as the reference does.

The plane offsets and the layout offsets are compile-time constants: numba's cache (``cache=True``) does not notice
a change of :mod:`envs.compiled.layout` or :mod:`envs.engine.observation`, so clear ``envs/compiled/__pycache__`` (or
touch this file) after changing either.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.compiled import layout as L
from envs.engine.observation import (
    HAND_SCALE,
    MAX_SEATS,
    OBS_SHAPE,
    SCORE_CLIP,
    SCORE_LOG_DIVISOR,
    SLICES,
    WALL_SCALE,
)

NP, NK = L.NP, L.NK
if MAX_SEATS != NP:  # pragma: no cover - both are four
    raise ImportError(f"the compiled encoder needs {NP} seat slots, the observation has {MAX_SEATS}")

# first rows of the plane groups (envs.engine.observation.SLICES)
R_HAND = SLICES["hand"].start
R_DRAWN = SLICES["drawn_tile"].start
R_PICKED = SLICES["exchange_picked"].start
R_GIVEN = SLICES["exchange_given"].start
R_RECEIVED = SLICES["exchange_received"].start
R_DIRECTION = SLICES["exchange_direction"].start
R_PONGS = SLICES["pongs"].start
R_EXPOSED = SLICES["exposed_kongs"].start
R_CONCEALED = SLICES["concealed_kongs"].start
R_ADDED = SLICES["added_kongs"].start
R_CHIS = SLICES["chis"].start
R_HIDDEN = SLICES["hidden_kongs"].start
R_DISCARDS = SLICES["discards"].start
R_LAST = SLICES["last_discard"].start
R_VISIBLE = SLICES["visible"].start
R_VOID = SLICES["void_suits"].start
R_REVEALED = SLICES["revealed_hands"].start
R_WILD = SLICES["wild_kinds"].start
R_INDICATOR = SLICES["indicator"].start
R_WON = SLICES["won"].start
R_WIN_TILES = SLICES["win_tiles"].start
R_ACTIVE = SLICES["active"].start
R_BAOHU = SLICES["baohu"].start
R_QINGHU = SLICES["qinghu"].start
R_PRESENT = SLICES["seat_present"].start
R_DEALER = SLICES["dealer"].start
R_CURRENT = SLICES["current"].start
R_CLAIM = SLICES["claim_tile"].start
R_ROB = SLICES["claim_is_rob"].start
R_HU_LOCK = SLICES["pass_hu_locked"].start
R_PONG_LOCK = SLICES["pass_pong_locked"].start
R_PHASE = SLICES["phase"].start
R_TO_ACT = SLICES["to_act"].start
R_WALL = SLICES["wall"].start
R_COUNTDOWN = SLICES["wall_countdown"].start
R_SCORES = SLICES["scores"].start
R_HAND_SIZE = SLICES["hand_size"].start
R_MELDS_COUNT = SLICES["melds_count"].start

# layout offsets (module constants: numba compiles them in)
PHASE, DEALER, CURRENT, FRONT, BACK, DRAWN = L.PHASE, L.DEALER, L.CURRENT, L.FRONT, L.BACK, L.DRAWN
NSEATS = L.NSEATS
BAOHU, QINGHU = L.BAOHU, L.QINGHU
CLAIM_TILE, EX_OFFSET, EX_DONE, VOID_REVEALED = L.CLAIM_TILE, L.EX_OFFSET, L.EX_DONE, L.VOID_REVEALED
VOID, WON, ACTIVE, SCORES, LAST_DISCARD = L.VOID, L.WON, L.ACTIVE, L.SCORES, L.LAST_DISCARD
NUM_MELDS, PENDING, PICK_COUNT, DINGQUE_CHOICE = L.NUM_MELDS, L.PENDING, L.PICK_COUNT, L.DINGQUE_CHOICE
HANDS, DISCARDS, WIN_TILES, HU_LOCK, PONG_LOCK = L.HANDS, L.DISCARDS, L.WIN_TILES, L.HU_LOCK, L.PONG_LOCK
PICKS, GIVEN, RECEIVED, MELDS, SHOWN = L.PICKS, L.GIVEN, L.RECEIVED, L.MELDS, L.SHOWN_WIN_TILES
MAX_MELDS, MELD_FIELDS, REVEAL, WILD = L.MAX_MELDS, L.MELD_FIELDS, L.REVEAL, L.WILD
WILD2, INDICATOR, MELD_WILDS = L.WILD2, L.INDICATOR, L.MELD_WILDS
MELD_CLAIMED, HIDE_ANKONG = L.MELD_CLAIMED, L.HIDE_ANKONG
PH_EXCHANGE, PH_DINGQUE, PH_SELF, PH_CLAIM, PH_ROB = L.PH_EXCHANGE, L.PH_DINGQUE, L.PH_SELF, L.PH_CLAIM, L.PH_ROB

# per meld kind M_*: its first plane, and the visible copies it shows beyond the discards
# (envs.engine.observation._VISIBLE_WEIGHTS: one copy of a claimed meld is counted among the discards)
_MELD_PLANES = {
    L.M_PONG: (R_PONGS, 2.0),
    L.M_KONG: (R_EXPOSED, 3.0),
    L.M_ANKONG: (R_CONCEALED, 4.0),
    L.M_BUKONG: (R_ADDED, 3.0),
    L.M_FEI: (R_PONGS, 2.0),  # less the copies its 听用 stand for, plus the 听用 themselves
}
MELD_ROW = np.array([_MELD_PLANES.get(m, (0, 0.0))[0] for m in range(L.M_FEI + 1)], dtype=np.int64)
MELD_VISIBLE = np.array([_MELD_PLANES.get(m, (0, 0.0))[1] for m in range(L.M_FEI + 1)], dtype=np.float32)


@njit(cache=True)
def score_value(score: int, base_unit: float) -> float:
    """``envs.engine.observation._score_value``: sign(s) * min(log2(1 + |s| / base_unit) / 8, 2), 0 for 0 (float64)."""
    if score == 0:
        return 0.0
    mag = math.log2(1.0 + abs(score) / base_unit) / SCORE_LOG_DIVISOR
    if mag > SCORE_CLIP:
        mag = SCORE_CLIP
    return mag if score > 0 else -mag


@njit(cache=True)
def _fill_row(out, r, value):
    """A broadcast plane: ``value`` (rounded to float32) in all 34 columns of row ``r``."""
    v = np.float32(value)
    for k in range(NK):
        out[r, k] = v


@njit(cache=True)
def _add_triple(row, at, out, plane):
    """+1 on ``plane`` for each kind of the three entries ``row[at:at + 3]`` that is set (``>= 0``)."""
    for i in range(3):
        k = row[at + i]
        if k >= 0:
            out[plane, k] += 1.0


@njit(cache=True)
def _encode_own(row, me, out):
    """Own hand (thermometer, and its copies in ``visible``), drawn tile, 换三张 planes, hand size, melds count."""
    phase = row[PHASE]
    total = 0
    for k in range(NK):
        c = row[HANDS + me * NK + k]
        for i in range(c):
            out[R_HAND + i, k] = 1.0
        out[R_VISIBLE, k] += c
        total += c
    drawn = row[DRAWN]
    if phase == PH_SELF and me == row[CURRENT] and drawn >= 0:
        out[R_DRAWN, drawn] = 1.0
    picked = row[PICK_COUNT + me]
    if picked < 3:
        for i in range(picked):
            out[R_PICKED, row[PICKS + 3 * me + i]] += 1.0
    if row[GIVEN + 3 * me] >= 0:
        _add_triple(row, GIVEN + 3 * me, out, R_GIVEN)
    elif phase == PH_EXCHANGE and picked == 3:  # answered, not resolved yet: the triple shows as given
        _add_triple(row, PICKS + 3 * me, out, R_GIVEN)
    _add_triple(row, RECEIVED + 3 * me, out, R_RECEIVED)
    if row[EX_DONE]:
        offset = row[EX_OFFSET] % row[NSEATS]
        if offset:
            _fill_row(out, R_DIRECTION + offset - 1, 1.0)
    _fill_row(out, R_HAND_SIZE, total / HAND_SCALE)
    _fill_row(out, R_MELDS_COUNT, row[NUM_MELDS + me] / 4.0)


@njit(cache=True)
def _encode_seat(row, me, r, base_unit, out):
    """Seat slot ``r``: melds, discards, last discard, void suit, won / active / present / score, win tiles."""
    s = (me + r) % row[NSEATS]
    hidden = 0
    for i in range(row[NUM_MELDS + s]):
        at = MELDS + (s * MAX_MELDS + i) * MELD_FIELDS
        kind = row[at]
        k = row[at + 1]
        if kind == L.M_ANKONG and s != me and row[HIDE_ANKONG]:  # an unrevealed 暗杠: others see only a count
            hidden += 1
            continue
        if kind == L.M_CHI:  # the run's three kinds; its claimed tile is counted among the discards
            for d in range(3):
                out[R_CHIS + r, k + d] += 1.0
                out[R_VISIBLE, k + d] += 1.0
            claimed = row[MELD_CLAIMED + s * MAX_MELDS + i]
            if claimed >= 0:
                out[R_VISIBLE, claimed] -= 1.0
            continue
        out[MELD_ROW[kind] + r, k] += 1.0
        out[R_VISIBLE, k] += MELD_VISIBLE[kind]
        if kind == L.M_FEI:
            w = MELD_WILDS + (s * MAX_MELDS + i) * 2
            for j in range(2):
                if row[w + j] >= 0:
                    out[R_VISIBLE, k] -= 1.0
                    out[R_VISIBLE, row[w + j]] += 1.0
    for k in range(NK):
        c = row[DISCARDS + s * NK + k]
        if c:
            out[R_DISCARDS + r, k] = c
            out[R_VISIBLE, k] += c
        w = row[WIN_TILES + s * NK + k]
        if w:
            out[R_WIN_TILES + r, k] = w
    if hidden:
        _fill_row(out, R_HIDDEN + r, hidden / 4.0)
    last = row[LAST_DISCARD + s]
    if last >= 0:
        out[R_LAST + r, last] = 1.0
    void = -1
    if s == me:
        void = row[VOID + me]
        if void < 0 and row[PHASE] == PH_DINGQUE:
            void = row[DINGQUE_CHOICE + me]
    elif row[VOID_REVEALED]:
        void = row[VOID + s]
    if void >= 0:
        for k in range(9 * void, 9 * void + 9):
            out[R_VOID + r, k] = 1.0
    if s != me and row[WON + s] and row[REVEAL]:  # a winner's revealed hand (血流), less its private draw
        drawn = row[DRAWN] if (s == row[CURRENT] and row[PHASE] == PH_SELF) else -1
        for k in range(NK):
            c = row[HANDS + s * NK + k] - (1 if k == drawn else 0)
            if c:
                out[R_REVEALED + r, k] = c
                out[R_VISIBLE, k] += c
    if row[WON + s]:
        _fill_row(out, R_WON + r, 1.0)
    if row[ACTIVE + s]:
        _fill_row(out, R_ACTIVE + r, 1.0)
    if row[BAOHU + s]:  # 断卡根
        _fill_row(out, R_BAOHU + r, 1.0)
    if row[QINGHU + s]:
        _fill_row(out, R_QINGHU + r, 1.0)
    _fill_row(out, R_PRESENT + r, 1.0)
    score = row[SCORES + s]
    if score:
        _fill_row(out, R_SCORES + r, score_value(score, base_unit))


@njit(cache=True)
def _encode_table(row, me, out):
    """Dealer, current, phase, to_act, wall and countdown, the claimed / robbed tile, the observer's pass locks."""
    phase = row[PHASE]
    n = row[NSEATS]
    _fill_row(out, R_DEALER + (row[DEALER] - me) % n, 1.0)
    _fill_row(out, R_CURRENT + (row[CURRENT] - me) % n, 1.0)
    _fill_row(out, R_PHASE + phase, 1.0)
    if row[PENDING + me]:
        _fill_row(out, R_TO_ACT, 1.0)
    wall = row[BACK] - row[FRONT]
    _fill_row(out, R_WALL, wall / WALL_SCALE)
    for k in range(min(wall, NK)):
        out[R_COUNTDOWN, k] = 1.0
    claim = row[CLAIM_TILE]
    if phase in (PH_CLAIM, PH_ROB) and claim >= 0:
        out[R_CLAIM, claim] = 1.0
        if phase == PH_ROB:
            _fill_row(out, R_ROB, 1.0)
    for k in range(NK):
        if row[HU_LOCK + me * NK + k]:
            out[R_HU_LOCK, k] = 1.0
        if row[PONG_LOCK + me * NK + k]:
            out[R_PONG_LOCK, k] = 1.0


@njit(cache=True)
def encode_row(row: np.ndarray, seat: int, base_unit: float, out: np.ndarray) -> None:
    """Write the ``chuanma-v1`` observation of ``seat`` of the hand in ``row`` (an ``int32`` layout row) into
    ``out`` (float32, shape ``(106, 34)``, every cell overwritten); ``base_unit`` scales the score planes."""
    out[:, :] = 0.0
    _encode_own(row, seat, out)
    for r in range(row[NSEATS]):  # the slots of seats a smaller table lacks stay zero
        _encode_seat(row, seat, r, base_unit, out)
    for k in range(NK):  # winning tiles set aside face up (自摸, 抢杠)
        out[R_VISIBLE, k] += row[SHOWN + k]
    if row[WILD] >= 0:
        out[R_WILD, row[WILD]] = 1.0
    if row[WILD2] >= 0:
        out[R_WILD, row[WILD2]] = 1.0
    if row[INDICATOR] >= 0:  # the flipped 本金, face up
        out[R_INDICATOR, row[INDICATOR]] = 1.0
        out[R_VISIBLE, row[INDICATOR]] += 1.0
    _encode_table(row, seat, out)


@njit(cache=True)
def encode_rows(state: np.ndarray, rows_idx: np.ndarray, seats: np.ndarray, base_unit: float, out: np.ndarray) -> None:
    """``out[i] = encode_row(state[i], seats[j], base_unit)`` for ``i = rows_idx[j]``: the observations of some rows
    of a batch, written in place (``out``: ``(N, 106, 34)``, rows not listed are left as they are)."""
    for j in range(rows_idx.shape[0]):
        i = rows_idx[j]
        encode_row(state[i], seats[j], base_unit, out[i])


def new_observations(n: int) -> np.ndarray:
    """An uninitialised float32 buffer for ``n`` observations (shape ``(n, 106, 34)``) for :func:`encode_rows`."""
    return np.empty((n, *OBS_SHAPE), dtype=np.float32)
