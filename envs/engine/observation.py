"""Observation encoding (观测编码) ``chuanma-v1``: one seat's :class:`~envs.engine.view.PlayerView` as a ``(C, 34)``
tensor.

Every row ("plane") is a vector over the 34 tile kinds of :mod:`envs.core.tiles` (0-8 万, 9-17 筒, 18-26 条, 27-33
honors, 31 = 红中).  Facts that are not about a tile kind (phase, dealer, wall size, scores ...) are *broadcast*: the
same value in all 34 columns.  The layout is the same for every variant and every table size.

Seats are **relative**: seat slot ``r`` is the player ``r`` turns after the observer (0 = self, 1 = 下家 next,
2 = 对家 opposite, 3 = 上家 previous at a four-player table; with three players slot 2 is 上家 and slot 3 is unused;
with two players slot 1 is the opponent and slots 2-3 are unused).  Unused slots stay zero and ``seat_present`` says
which slots hold a player, so the tensor is invariant under rotating the table.

Counts are raw integer counts except the own hand, which is a 4-plane thermometer (plane i = "holds at least i+1
copies"; ``hand.sum(0)`` gives the counts).  Wild tiles (红中, 听用) are counted under their own kind.

Plane table (``C`` = :data:`NUM_PLANES` = 106)
--------------------------------------------------

=======  =====================  ====  ==========  =====================================================================
rows     name                   n     range       meaning
=======  =====================  ====  ==========  =====================================================================
0-3      ``hand``               4     {0,1}       own concealed tiles, thermometer: row i = count >= i+1
4        ``drawn_tile``         1     {0,1}       the tile just drawn, on the observer's own turn (one-hot)
5        ``exchange_picked``    1     0-3         换三张 tiles picked so far in the current pick sequence (counts)
6        ``exchange_given``     1     0-3         换三张 the three tiles the observer passed (counts)
7        ``exchange_received``  1     0-3         换三张 the three tiles the observer received (counts)
8-10     ``exchange_direction`` 3     {0,1}       换三张 offset 1/2/3 (receiver = giver + offset), public once resolved
11-14    ``pongs``              4     {0,1}       per seat slot: exposed pong (碰; a 飞 counts as a pong)
15-18    ``exposed_kongs``      4     {0,1}       per seat slot: exposed kong (直杠, claimed on a discard)
19-22    ``concealed_kongs``    4     {0,1}       per seat slot: concealed kong (暗杠) of a revealed kind
23-26    ``added_kongs``        4     {0,1}       per seat slot: added kong (补杠 / 巴杠)
27-30    ``chis``               4     0-4         per seat slot: tiles in 吃 runs (each run adds its three kinds)
31-34    ``hidden_kongs``       4     0-1         per seat slot, broadcast: concealed kongs of unrevealed kind / 4
35-38    ``discards``           4     0-4         per seat slot: discarded copies (incl. tiles later claimed; Wuhan
                                                  红中杠 / 赖子杠 tiles played out)
39-42    ``last_discard``       4     {0,1}       per seat slot: that player's most recent discard (one-hot)
43       ``visible``            1     0-4         copies the observer has seen: own hand, discards, melds, revealed
                                                  hands, self-drawn / robbed winning tiles, the indicator
44-47    ``revealed_hands``     4     0-4         per seat slot: concealed tiles the rules reveal (血流 frozen hands)
48-51    ``void_suits``         4     {0,1}       per seat slot: 1 on the nine kinds of the declared void suit (定缺)
52       ``wild_kinds``         1     {0,1}       kinds acting as wildcards this hand (红中; 听用; 赖子)
53       ``indicator``          1     {0,1}       本金 / 赖子 indicator tile (one-hot), when the variant flips one
54-57    ``won``                4     {0,1}       per seat slot, broadcast: has won at least once this hand
58-61    ``win_tiles``          4     0-4         per seat slot: number of that player's wins on each kind
62-65    ``active``             4     {0,1}       per seat slot, broadcast: still playing (血战 winners leave)
66-69    ``baohu``              4     {0,1}       per seat slot, broadcast: declared 报胡 (断卡根)
70-73    ``qinghu``             4     {0,1}       per seat slot, broadcast: announced 请胡 (five-pair request)
74-77    ``seat_present``       4     {0,1}       per seat slot, broadcast: the slot holds a player
78-81    ``dealer``             4     {0,1}       per seat slot, broadcast: the dealer (庄家)
82-85    ``current``            4     {0,1}       per seat slot, broadcast: whose turn it is (the discarder or the
                                                  kong player during a claim / rob window)
86       ``claim_tile``         1     {0,1}       the tile being claimed (discard) or robbed (added kong), one-hot
87       ``claim_is_rob``       1     {0,1}       broadcast: the claim window is a rob window (抢杠)
88       ``pass_hu_locked``     1     {0,1}       kinds the observer may not win on a discard now (过胡)
89       ``pass_pong_locked``   1     {0,1}       kinds the observer may not pong now (过碰)
90-96    ``phase``              7     {0,1}       broadcast one-hot: exchange, dingque, self, claim, rob, declare, end
97       ``to_act``             1     {0,1}       broadcast: the observer has a decision to make now
98       ``wall``               1     0-1         broadcast: wall tiles remaining / 136
99       ``wall_countdown``     1     {0,1}       column k = 1 while more than k wall tiles remain (last 34 exactly)
100-103  ``scores``             4     -2-2        per seat slot, broadcast: this hand's score, signed log scale
                                                  sign(s) * log2(1 + |s| / base_unit) / 8, clipped to [-2, 2]
104      ``hand_size``          1     0-1         broadcast: own concealed tile count / 14
105      ``melds_count``        1     0-1         broadcast: own number of melds / 4
=======  =====================  ====  ==========  =====================================================================

Named views
-----------
:func:`decode` (or :meth:`ObservationEncoder.views`) returns a dict of numpy *views* into an observation (no copies;
leading batch axes are kept), so agents can read planes by name::

    from envs.engine.observation import ObservationEncoder, decode, hand_counts, phase_of
    enc = ObservationEncoder(num_players=4, base_unit=1)
    obs = enc.encode(game.view(seat))          # float32 (106, 34)
    v = decode(obs)
    v["hand"].sum(0)                           # own counts, same as hand_counts(obs)
    v["void_suits"][1]                         # 下家's void suit (9 ones) or zeros before 定缺
    v["discards"][3]                           # 上家's discard counts
    phase_of(obs)                              # Phase.SELF ...

:func:`legal_mask` builds the ``int8`` mask over the flat action layout of :mod:`envs.core.actions` from
``view.legal_actions``, including the 换三张 pick-by-pick masks of the AEC environment.

Fast paths (same output, bit for bit): :class:`GameObserver` reads a :class:`~envs.engine.game.Game` directly, keeps
each seat's last tensor of one hand and rewrites only what changed since (the environments use it);
:func:`game_mask` is :func:`legal_mask` without the view.  ``tests/envs/test_observation_fast_paths.py`` checks them
against the view path.

Version
-------
:data:`OBS_VERSION` names this layout; checkpoints record it, and a policy made for another layout is refused.
Observations of the variants without 吃, 报胡 or 请胡 keep those planes at zero.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from envs.core.actions import (
    ACTION_SPACE_SIZE,
    BAOHU,
    BAOHU_ID,
    CHI_BASE,
    DINGQUE_BASE,
    DISCARD_BASE,
    EXCHANGE_BASE,
    FEI,
    FEI_ID,
    HU,
    HU_ID,
    KONG_BASE,
    LAIZI_KONG,
    LAIZI_KONG_ID,
    PASS,
    PASS_ID,
    PONG,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG,
    RED_KONG_ID,
    TI_BASE,
    Action,
    ActionType,
    discard,
    encode,
    kong,
)
from envs.core.melds import MeldKind
from envs.core.tiles import NUM_KINDS
from envs.engine.view import Phase, PlayerView

OBS_VERSION = "chuanma-v1"
MAX_SEATS = 4
WALL_SCALE = 136.0
SCORE_LOG_DIVISOR = 8.0
SCORE_CLIP = 2.0
HAND_SCALE = 14.0
PHASES: tuple[Phase, ...] = (
    Phase.EXCHANGE,
    Phase.DINGQUE,
    Phase.SELF,
    Phase.CLAIM,
    Phase.ROB,
    Phase.DECLARE,
    Phase.END,
)


@dataclass(frozen=True, slots=True)
class PlaneGroup:
    """One named block of consecutive planes: ``rows`` planes with values in ``[low, high]``."""

    name: str
    rows: int
    low: float
    high: float
    meaning: str


PLANES: tuple[PlaneGroup, ...] = (
    PlaneGroup("hand", 4, 0, 1, "own concealed tiles, thermometer (row i: count >= i+1)"),
    PlaneGroup("drawn_tile", 1, 0, 1, "tile just drawn on own turn"),
    PlaneGroup("exchange_picked", 1, 0, 3, "换三张 tiles picked so far"),
    PlaneGroup("exchange_given", 1, 0, 3, "换三张 tiles passed"),
    PlaneGroup("exchange_received", 1, 0, 3, "换三张 tiles received"),
    PlaneGroup("exchange_direction", 3, 0, 1, "换三张 offset 1/2/3"),
    PlaneGroup("pongs", MAX_SEATS, 0, 1, "碰 per seat slot"),
    PlaneGroup("exposed_kongs", MAX_SEATS, 0, 1, "直杠 per seat slot"),
    PlaneGroup("concealed_kongs", MAX_SEATS, 0, 1, "暗杠 per seat slot"),
    PlaneGroup("added_kongs", MAX_SEATS, 0, 1, "补杠 per seat slot"),
    PlaneGroup("chis", MAX_SEATS, 0, 4, "吃 run tiles per seat slot"),
    PlaneGroup("hidden_kongs", MAX_SEATS, 0, 1, "unrevealed 暗杠 count / 4 per seat slot"),
    PlaneGroup("discards", MAX_SEATS, 0, 4, "discard counts per seat slot"),
    PlaneGroup("last_discard", MAX_SEATS, 0, 1, "most recent discard per seat slot"),
    PlaneGroup("visible", 1, 0, 4, "copies seen by the observer"),
    PlaneGroup("revealed_hands", MAX_SEATS, 0, 4, "revealed concealed counts per seat slot"),
    PlaneGroup("void_suits", MAX_SEATS, 0, 1, "定缺 suit per seat slot"),
    PlaneGroup("wild_kinds", 1, 0, 1, "wildcard kinds"),
    PlaneGroup("indicator", 1, 0, 1, "本金 / 赖子 indicator"),
    PlaneGroup("won", MAX_SEATS, 0, 1, "has won per seat slot"),
    PlaneGroup("win_tiles", MAX_SEATS, 0, 4, "wins per kind per seat slot"),
    PlaneGroup("active", MAX_SEATS, 0, 1, "still playing per seat slot"),
    PlaneGroup("baohu", MAX_SEATS, 0, 1, "declared 报胡 per seat slot"),
    PlaneGroup("qinghu", MAX_SEATS, 0, 1, "announced 请胡 per seat slot"),
    PlaneGroup("seat_present", MAX_SEATS, 0, 1, "slot holds a player"),
    PlaneGroup("dealer", MAX_SEATS, 0, 1, "dealer slot"),
    PlaneGroup("current", MAX_SEATS, 0, 1, "slot whose turn it is"),
    PlaneGroup("claim_tile", 1, 0, 1, "tile being claimed or robbed"),
    PlaneGroup("claim_is_rob", 1, 0, 1, "rob window flag"),
    PlaneGroup("pass_hu_locked", 1, 0, 1, "过胡 locked kinds"),
    PlaneGroup("pass_pong_locked", 1, 0, 1, "过碰 locked kinds"),
    PlaneGroup("phase", len(PHASES), 0, 1, "phase one-hot"),
    PlaneGroup("to_act", 1, 0, 1, "observer must decide now"),
    PlaneGroup("wall", 1, 0, 1, "wall remaining / 136"),
    PlaneGroup("wall_countdown", 1, 0, 1, "column k: wall remaining > k"),
    PlaneGroup("scores", MAX_SEATS, -SCORE_CLIP, SCORE_CLIP, "signed-log hand score per seat slot"),
    PlaneGroup("hand_size", 1, 0, 1, "own concealed count / 14"),
    PlaneGroup("melds_count", 1, 0, 1, "own melds / 4"),
)


def _offsets() -> dict[str, slice]:
    out: dict[str, slice] = {}
    start = 0
    for g in PLANES:
        out[g.name] = slice(start, start + g.rows)
        start += g.rows
    return out


SLICES: dict[str, slice] = _offsets()
"""Plane name -> row slice of the observation tensor."""

NUM_PLANES = sum(g.rows for g in PLANES)
OBS_SHAPE = (NUM_PLANES, NUM_KINDS)

_MELD_GROUP = {
    MeldKind.PONG: "pongs",
    MeldKind.FEI: "pongs",
    MeldKind.KONG: "exposed_kongs",
    MeldKind.ANKONG: "concealed_kongs",
    MeldKind.BUKONG: "added_kongs",
    MeldKind.CHI: "chis",
}
_PHASE_ROW = {p: i for i, p in enumerate(PHASES)}
_R: dict[str, int] = {name: sl.start for name, sl in SLICES.items()}  # first row of each group
_SIZE = NUM_PLANES * NUM_KINDS
_MELD_ROW = {kind: _R[group] for kind, group in _MELD_GROUP.items()}
# first rows (and first flat cells) of the groups the encoder writes, as plain ints
_R_DIRECTION, _R_HAND_SIZE, _R_MELDS_COUNT = _R["exchange_direction"], _R["hand_size"], _R["melds_count"]
_R_HIDDEN, _R_DISCARDS, _R_LAST, _R_REVEALED = (
    _R["hidden_kongs"],
    _R["discards"],
    _R["last_discard"],
    _R["revealed_hands"],
)
_R_WON, _R_ACTIVE, _R_PRESENT, _R_SCORES = _R["won"], _R["active"], _R["seat_present"], _R["scores"]
_R_BAOHU, _R_QINGHU = _R["baohu"], _R["qinghu"]
_R_WIN_TILES, _R_DEALER, _R_CURRENT, _R_PHASE = _R["win_tiles"], _R["dealer"], _R["current"], _R["phase"]
_R_TO_ACT, _R_WALL, _R_ROB, _R_VISIBLE = _R["to_act"], _R["wall"], _R["claim_is_rob"], _R["visible"]
_DRAWN, _PICKED = _R["drawn_tile"] * NUM_KINDS, _R["exchange_picked"] * NUM_KINDS
_GIVEN, _RECEIVED = _R["exchange_given"] * NUM_KINDS, _R["exchange_received"] * NUM_KINDS
_WILD, _INDICATOR, _CLAIM = _R["wild_kinds"] * NUM_KINDS, _R["indicator"] * NUM_KINDS, _R["claim_tile"] * NUM_KINDS
_HU_LOCK, _PONG_LOCK = _R["pass_hu_locked"] * NUM_KINDS, _R["pass_pong_locked"] * NUM_KINDS
# _VOID_CELLS[slot][suit]: the nine cells of a declared void suit
_VOID_CELLS = tuple(
    tuple(tuple(range((_R["void_suits"] + r) * NUM_KINDS + 9 * s, (_R["void_suits"] + r) * NUM_KINDS + 9 * s + 9))
          for s in range(3))
    for r in range(MAX_SEATS)
)  # fmt: skip
_R_COUNTDOWN = _R["wall_countdown"]
# _HAND_CELLS[k][c]: flat indices of the thermometer cells of c copies of kind k
_HAND_CELLS = tuple(
    tuple(tuple((_R["hand"] + i) * NUM_KINDS + k for i in range(c)) for c in range(5)) for k in range(NUM_KINDS)
)


_DISCARD_BASES = tuple((_R_DISCARDS + r) * NUM_KINDS for r in range(MAX_SEATS))
_LAST_BASES = tuple((_R_LAST + r) * NUM_KINDS for r in range(MAX_SEATS))
# _COUNTDOWN_CELLS[m]: the first m cells of the wall countdown row
_COUNTDOWN_CELLS = tuple(
    list(range(_R_COUNTDOWN * NUM_KINDS, _R_COUNTDOWN * NUM_KINDS + m)) for m in range(NUM_KINDS + 1)
)


_THERMOMETER = tuple(tuple(1.0 if i < c else 0.0 for i in range(4)) for c in range(5))  # hand rows of c copies
_ZEROS = array("f", bytes(4 * NUM_KINDS))
_ONES = array("f", [1.0] * NUM_KINDS)
_COUNTDOWN = _R_COUNTDOWN * NUM_KINDS
_COUNTDOWN_ROWS = tuple(array("f", [1.0] * m + [0.0] * (NUM_KINDS - m)) for m in range(NUM_KINDS + 1))
_R_VOID, _HAND0 = _R["void_suits"], _R["hand"] * NUM_KINDS
_SUIT_SPANS = ((0, 9), (9, 18), (18, 27), (27, NUM_KINDS))
_VIS0 = _R_VISIBLE * NUM_KINDS
_FAST_VALUE_ROWS = ((2, _R_TO_ACT), (3, _R_WALL), (4, _R_ROB), (5, _R_HAND_SIZE), (6, _R_MELDS_COUNT))
_MELD_GROUP_ROWS = tuple(sorted(set(_MELD_ROW.values())))
_BROADCAST_ROWS = tuple(
    row
    for name in (
        "exchange_direction", "hidden_kongs", "won", "active", "baohu", "qinghu", "seat_present", "dealer",
        "current", "claim_is_rob", "phase", "to_act", "wall", "scores", "hand_size", "melds_count",
    )
    for row in range(SLICES[name].start, SLICES[name].stop)
)  # fmt: skip


def _visible_weights() -> np.ndarray:
    """Row weights turning the count planes into visible copies (claimed melds: one copy is a discard)."""
    w = np.zeros(NUM_PLANES, dtype=np.float32)
    for name, weight in (
        ("hand", 1),
        ("discards", 1),
        ("pongs", 2),
        ("exposed_kongs", 3),
        ("concealed_kongs", 4),
        ("added_kongs", 3),
        ("chis", 1),
        ("revealed_hands", 1),
    ):
        w[SLICES[name]] = weight
    return w


_VISIBLE_WEIGHTS = _visible_weights()


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Element-wise ``(low, high)`` float32 arrays of shape :data:`OBS_SHAPE` (for a gymnasium ``Box``)."""
    low = np.empty(OBS_SHAPE, dtype=np.float32)
    high = np.empty(OBS_SHAPE, dtype=np.float32)
    for g in PLANES:
        low[SLICES[g.name]] = g.low
        high[SLICES[g.name]] = g.high
    return low, high


def decode(array: np.ndarray) -> dict[str, np.ndarray]:
    """Named views into an observation (shape ``(..., C, 34)``); writes through the views change ``array``.

    Single-row groups are returned as ``(..., 34)`` vectors, multi-row groups as ``(..., rows, 34)``.
    """
    if array.shape[-2:] != OBS_SHAPE:
        raise ValueError(f"observation must end with shape {OBS_SHAPE} ({OBS_VERSION}), got {array.shape}")
    out: dict[str, np.ndarray] = {}
    for g in PLANES:
        sl = SLICES[g.name]
        out[g.name] = array[..., sl.start, :] if g.rows == 1 else array[..., sl, :]
    return out


def hand_counts(array: np.ndarray) -> np.ndarray:
    """Own concealed counts (``int64``, shape ``(..., 34)``) from the thermometer planes."""
    return decode(array)["hand"].sum(axis=-2).astype(np.int64)


def phase_of(array: np.ndarray) -> Phase:
    """The phase encoded in one observation."""
    row = decode(array)["phase"][..., 0]
    if row.ndim != 1:
        raise ValueError("phase_of reads one observation, not a batch")
    hot = np.flatnonzero(row)
    if hot.size != 1:
        raise ValueError(f"observation has no single phase plane set (rows {hot.tolist()})")
    return PHASES[int(hot[0])]


def wall_remaining(array: np.ndarray) -> int:
    """Number of wall tiles left, decoded from the ``wall`` plane."""
    return round(float(decode(array)["wall"][..., 0]) * WALL_SCALE)


def relative_slot(seat: int, observer: int, num_players: int) -> int:
    """Seat slot of ``seat`` seen from ``observer``: the number of turns from the observer to that seat."""
    return (seat - observer) % num_players


def _score_value(score: float, base_unit: float) -> float:
    mag = math.log2(1.0 + abs(score) / base_unit) / SCORE_LOG_DIVISOR
    return math.copysign(min(mag, SCORE_CLIP), score) if score else 0.0


class ObservationEncoder:
    """Encoder of :class:`PlayerView` objects into ``chuanma-v1`` tensors (float32, shape :data:`OBS_SHAPE`).

    ``num_players`` is the table size (2-4); ``base_unit`` the variant's points per base unit (1; 1000 in 赤羽)
    used to scale the score planes.  :meth:`from_config` reads both from a :class:`~envs.core.rule_config.RuleConfig`.
    """

    version = OBS_VERSION
    shape = OBS_SHAPE

    def __init__(self, num_players: int, *, base_unit: float = 1.0) -> None:
        if num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if not base_unit > 0:
            raise ValueError(f"base_unit must be positive, got {base_unit!r}")
        self.num_players = num_players
        self.base_unit = float(base_unit)
        self._row_template = [0.0] * NUM_PLANES
        for r in range(num_players):
            self._row_template[_R_PRESENT + r] = 1.0

    @classmethod
    def from_config(cls, cfg) -> ObservationEncoder:
        """Encoder for the table size and base unit of a rule configuration."""
        return cls(cfg.num_players, base_unit=cfg.base_unit)

    @staticmethod
    def views(array: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into ``array`` (see :func:`decode`)."""
        return decode(array)

    def encode(
        self,
        view: PlayerView,
        out: np.ndarray | None = None,
        *,
        exchange_picks: Sequence[int] = (),
    ) -> np.ndarray:
        """Encode ``view`` into ``out`` (allocated when None; overwritten entirely) and return it.

        ``exchange_picks`` are the 换三张 kinds the observer has picked so far in the AEC environment's
        three-pick sequence (the engine receives the three tiles at once).
        """
        n = self.num_players
        if view.num_players != n:
            raise ValueError(f"view is for a {view.num_players}-player table, encoder for {n} players")
        if out is None:
            out = np.empty(OBS_SHAPE, dtype=np.float32)
        elif out.shape != OBS_SHAPE or out.dtype != np.float32:
            raise ValueError(f"out must be float32 with shape {OBS_SHAPE}, got {out.dtype} {out.shape}")
        me = view.seat
        cells: list[int] = []  # flat indices row * 34 + kind; each occurrence adds 1
        rows: list[int] = []  # broadcast rows (never among the cells' rows) ...
        values: list[float] = []  # ... and their values
        extra: list[int] = []  # visible copies not derivable from the count planes (+1 each) ...
        less: list[int] = []  # ... and copies to subtract (wildcards standing in a 飞 meld)
        add = cells.append

        # --- own hand -------------------------------------------------------------------------------------------
        hand = view.hand
        for k, c in enumerate(hand):
            if c:
                cells += _HAND_CELLS[k][c]
        if view.drawn_tile is not None:
            add(_DRAWN + view.drawn_tile)
        if exchange_picks:
            cells += [_PICKED + k for k in exchange_picks]
        if view.exchange_given:
            cells += [_GIVEN + k for k in view.exchange_given]
        if view.exchange_received:
            cells += [_RECEIVED + k for k in view.exchange_received]
        if view.exchange_offset is not None and view.exchange_offset % n:
            rows.append(_R_DIRECTION + view.exchange_offset % n - 1)
            values.append(1.0)
        rows += (_R_HAND_SIZE, _R_MELDS_COUNT)
        values += (sum(hand) / HAND_SCALE, len(view.melds[me]) / 4.0)

        # --- per-seat public information -------------------------------------------------------------------------
        revealed_rows: list[tuple[int, tuple[int, ...]]] = []
        melds_all, discards_all, revealed_all = view.melds, view.discards, view.revealed_hands
        won, active, scores, voids = view.won, view.active, view.scores, view.void_suits
        base_unit = self.base_unit
        baohu, qinghu = view.baohu, view.qinghu
        for r in range(n):
            seat = (me + r) % n
            melds = melds_all[seat]
            if melds:
                hidden = 0
                for meld in melds:
                    group = _MELD_ROW.get(meld.kind)
                    if group is None:
                        raise ValueError(f"meld kind {meld.kind!r} has no plane in {OBS_VERSION}")
                    if meld.tile < 0:
                        hidden += 1
                        continue
                    if meld.kind is MeldKind.CHI:  # all three kinds; the claimed one is among the discards
                        cells += [(group + r) * NUM_KINDS + k for k in meld.represented()]
                        if meld.claimed is not None:
                            less.append(meld.claimed)
                        continue
                    add((group + r) * NUM_KINDS + meld.tile)
                    if meld.wilds:  # a 飞: fewer natural copies, the 听用 themselves are seen
                        less += [meld.tile] * meld.wilds
                        extra += meld.wild_kinds
                if hidden:
                    rows.append(_R_HIDDEN + r)
                    values.append(hidden / 4.0)
            discards = discards_all[seat]
            if discards:
                base = (_R_DISCARDS + r) * NUM_KINDS
                cells += [base + k for k in discards]
                add((_R_LAST + r) * NUM_KINDS + discards[-1])
            revealed = revealed_all[seat]
            if revealed is not None and seat != me:
                revealed_rows.append((_R_REVEALED + r, revealed))
            void = view.own_void if seat == me else voids[seat]
            if void is not None:
                cells += _VOID_CELLS[r][void]
            score = scores[seat]
            if baohu and baohu[seat]:
                rows.append(_R_BAOHU + r)
                values.append(1.0)
            if qinghu and qinghu[seat]:
                rows.append(_R_QINGHU + r)
                values.append(1.0)
            rows += (_R_WON + r, _R_ACTIVE + r, _R_PRESENT + r, _R_SCORES + r)
            values += (
                float(won[seat]),
                float(active[seat]),
                1.0,
                _score_value(score, base_unit) if score else 0.0,
            )
        if view.wins:
            robbed: set[tuple[int, int | None]] = set()
            for w in view.wins:
                add((_R_WIN_TILES + (w.seat - me) % n) * NUM_KINDS + w.tile)
                # a winning tile is set aside face up: count it unless it is a discard (already counted); several
                # winners robbing one added kong share its tile
                if w.how == "qianggang":
                    if (w.tile, w.from_seat) not in robbed:
                        robbed.add((w.tile, w.from_seat))
                        extra.append(w.tile)
                elif w.how in ("zimo", "instant"):  # self-drawn (点杠花 too); a 请胡 single lies among the discards
                    extra.append(w.tile)
        for k in view.wild_kinds:
            add(_WILD + k)
        if view.indicator is not None:
            add(_INDICATOR + view.indicator)
            extra.append(view.indicator)

        # --- turn, claims, locks, phase, wall --------------------------------------------------------------------
        rows += (
            _R_DEALER + (view.dealer - me) % n,
            _R_CURRENT + (view.current - me) % n,
            _R_PHASE + _PHASE_ROW[view.phase],
            _R_TO_ACT,
            _R_WALL,
        )
        wall = view.wall_remaining
        values += (1.0, 1.0, 1.0, float(view.to_act), wall / WALL_SCALE)
        if view.claim_tile is not None:
            add(_CLAIM + view.claim_tile)
            if view.phase == Phase.ROB:
                rows.append(_R_ROB)
                values.append(1.0)
        if view.pass_hu_locked:
            cells += [_HU_LOCK + k for k in view.pass_hu_locked]
        if view.pass_pong_locked:
            cells += [_PONG_LOCK + k for k in view.pass_pong_locked]

        dense = out if out.flags.c_contiguous else np.empty(OBS_SHAPE, dtype=np.float32)
        dense.reshape(-1)[:] = np.bincount(cells, minlength=_SIZE)
        if wall:
            dense[_R_COUNTDOWN, : min(wall, NUM_KINDS)] = 1.0
        for row, counts in revealed_rows:
            dense[row] = counts
        # visible copies: own hand, discards, melds (less the claimed copy, already among the discards),
        # revealed hands, then the extras
        visible = _VISIBLE_WEIGHTS @ dense
        for k in extra:
            visible[k] += 1.0
        for k in less:
            visible[k] -= 1.0
        dense[_R_VISIBLE] = visible
        dense += np.bincount(rows, weights=values, minlength=NUM_PLANES)[:, None]
        if dense is not out:
            out[...] = dense
        return out


class _SeatCache:
    """What one observer's tensor was last built from (see :class:`GameObserver`)."""

    __slots__ = (
        "buf",
        "claim_cell",
        "countdown",
        "discards",
        "drawn_cell",
        "exchange",
        "fast",
        "flat",
        "hand",
        "hu_lock",
        "last_cells",
        "meld_extra",
        "meld_hidden",
        "meld_less",
        "melds",
        "pong_lock",
        "revealed",
        "rows",
        "slow",
        "wilds",
        "wins",
        "wins_extra",
    )
    buf: np.ndarray  # the tensor, a numpy view of ``flat``
    claim_cell: int
    countdown: int
    discards: list[int]
    drawn_cell: int
    exchange: tuple
    fast: tuple
    flat: array  # float32 cells
    hand: list[int]
    hu_lock: tuple
    last_cells: list[int]
    meld_extra: list[tuple]
    meld_hidden: list[int]
    meld_less: list[tuple]
    melds: list[tuple]
    pong_lock: int
    revealed: list
    rows: list[float]
    slow: tuple | None
    wilds: tuple
    wins: int
    wins_extra: tuple


class GameObserver:
    """Incremental ``chuanma-v1`` encoder of the seats of one :class:`envs.engine.game.Game` (观测缓存).

    ``observer.encode(seat)`` returns exactly ``encoder.encode(game.view(seat))`` (bit for bit; the tests compare
    them over random games of every preset), but keeps each seat's last tensor and rewrites only the cells whose
    inputs changed since that seat was last encoded: the own hand, new discards, changed melds, the broadcast rows
    (turn, phase, wall, scores ...), the claimed tile, the locks.  One observer serves one hand: make a new one for
    the next hand.  It reads the engine's state exactly as ``Game.view`` does.
    """

    def __init__(self, encoder: ObservationEncoder, game) -> None:
        if game.n != encoder.num_players:
            raise ValueError(f"game is for a {game.n}-player table, encoder for {encoder.num_players} players")
        self.encoder = encoder
        self.game = game
        cfg = game.cfg
        self._hide = not cfg.reveal_concealed_kong
        self._reveals = game._reveals_hand()
        self._hu_lock_rule = cfg.pass_hu_lock
        self._seats: list[_SeatCache | None] = [None] * game.n

    def encode(self, seat: int, out: np.ndarray | None = None, *, exchange_picks: Sequence[int] = ()) -> np.ndarray:
        """The observation of ``seat`` now, written into ``out`` (a new array when None) and returned."""
        if out is not None and (out.shape != OBS_SHAPE or out.dtype != np.float32):
            raise ValueError(f"out must be float32 with shape {OBS_SHAPE}, got {out.dtype} {out.shape}")
        st = self._seats[seat]
        if st is None:
            st = self._seats[seat] = self._new_cache()
        self._update(st, seat, tuple(exchange_picks) if exchange_picks else ())
        if out is None:
            return st.buf.copy()
        out[...] = st.buf
        return out

    def _new_cache(self) -> _SeatCache:
        n = self.game.n
        st = _SeatCache()
        st.flat = array("f", bytes(4 * _SIZE))  # float32 cells: cheap scalar writes
        st.buf = np.frombuffer(st.flat, dtype=np.float32).reshape(OBS_SHAPE)  # the same memory, for numpy
        st.hand = [0] * NUM_KINDS
        st.drawn_cell = -1
        st.exchange = ((), (), ())
        st.rows = [0.0] * NUM_PLANES
        st.slow = None
        st.fast = (-1, -1, 0.0, 0.0, 0.0, 0.0, 0.0)
        st.discards = [0] * n
        st.last_cells = [-1] * n
        st.melds = [()] * n
        st.meld_extra = [()] * n
        st.meld_less = [()] * n
        st.meld_hidden = [0] * n
        st.revealed = [None] * n
        st.wins = 0
        st.wins_extra = ()
        st.wilds = ((), None)
        st.claim_cell = -1
        st.hu_lock = ()
        st.pong_lock = 0
        st.countdown = 0
        return st

    def _update(self, st: _SeatCache, me: int, picks: tuple[int, ...]) -> None:
        """Bring seat ``me``'s tensor up to date, plane group by plane group."""
        self._write_own(st, me, picks)
        visible_changed = self._write_seats(st, me)  # the visible row needs a full recount (else kept up to date)
        visible_changed |= self._write_wins(st, me)
        rob = self._write_claim_and_locks(st, me)
        self._write_fast(st, me, rob)
        self._write_rare(st, me)
        if visible_changed:
            self._recount_visible(st)

    def _write_own(self, st: _SeatCache, me: int, picks: tuple[int, ...]) -> None:
        """The own hand (and its visible copies), the drawn tile and the 换三张 rows."""
        game = self.game
        flat = st.flat
        phase = game.phase
        decisions = game._decisions
        hand = game.hands[me]
        old = st.hand
        if hand != old:
            for lo, hi in _SUIT_SPANS:  # a turn changes one or two suits: compare suit by suit first
                if hand[lo:hi] == old[lo:hi]:
                    continue
                for k in range(lo, hi):
                    c = hand[k]
                    if c != old[k]:
                        flat[_VIS0 + k] += c - old[k]
                        t0, t1, t2, t3 = _THERMOMETER[c]
                        flat[_HAND0 + k] = t0
                        flat[_HAND0 + k + NUM_KINDS] = t1
                        flat[_HAND0 + k + 2 * NUM_KINDS] = t2
                        flat[_HAND0 + k + 3 * NUM_KINDS] = t3
            st.hand = hand[:]
        cell = (
            _DRAWN + game.drawn_tile
            if phase is Phase.SELF and me == game.current and game.drawn_tile is not None
            else -1
        )
        if cell != st.drawn_cell:
            if st.drawn_cell >= 0:
                flat[st.drawn_cell] = 0.0
            if cell >= 0:
                flat[cell] = 1.0
            st.drawn_cell = cell
        given = game.exchange_given[me]
        if not given and phase is Phase.EXCHANGE and me in decisions:
            given = decisions[me].tiles
        exchange = (picks, tuple(given), tuple(game.exchange_received[me]))
        if exchange != st.exchange:
            for start, kinds in zip((_PICKED, _GIVEN, _RECEIVED), exchange):
                flat[start : start + NUM_KINDS] = _ZEROS
                for k in kinds:
                    flat[start + k] += 1.0
            st.exchange = exchange

    def _write_seats(self, st: _SeatCache, me: int) -> bool:
        """Per seat slot: melds, discards and last discard, revealed hands; True when the visible row needs a
        recount."""
        game = self.game
        n = game.n
        flat = st.flat
        melds_all, discards_all = game.melds, game.discards
        won = game.won
        reveal = self._reveals and any(won)
        visible_changed = False
        for r in range(n):
            s = me + r
            if s >= n:
                s -= n
            melds = melds_all[s]
            if melds or st.melds[r]:
                snap = tuple(melds)
                if snap != st.melds[r]:
                    self._write_melds(st, r, snap, self._hide and s != me)
                    visible_changed = True
            discards = discards_all[s]
            seen = st.discards[r]
            if len(discards) != seen:
                base = _DISCARD_BASES[r]
                if len(discards) < seen:  # never happens in the engine; rebuild the slot's row
                    flat[base : base + NUM_KINDS] = _ZEROS
                    seen = 0
                    visible_changed = True
                for k in discards[seen:]:
                    flat[base + k] += 1.0
                    flat[_VIS0 + k] += 1.0
                if st.last_cells[r] >= 0:
                    flat[st.last_cells[r]] = 0.0
                cell = _LAST_BASES[r] + discards[-1] if discards else -1
                if cell >= 0:
                    flat[cell] = 1.0
                st.last_cells[r] = cell
                st.discards[r] = len(discards)
            if reveal or st.revealed[r] is not None:
                revealed = game._revealed(s, me) if reveal and s != me and won[s] else None
                if revealed != st.revealed[r]:
                    start = (_R_REVEALED + r) * NUM_KINDS
                    flat[start : start + NUM_KINDS] = array("f", revealed) if revealed is not None else _ZEROS
                    st.revealed[r] = revealed
                    visible_changed = True
        return visible_changed

    def _write_wins(self, st: _SeatCache, me: int) -> bool:
        """The win tiles per seat slot, the wildcard kinds and the indicator; True when they changed (the visible
        row needs a recount)."""
        game = self.game
        n = game.n
        flat = st.flat
        visible_changed = False
        wins = game.wins
        if len(wins) != st.wins:
            start = _R_WIN_TILES * NUM_KINDS
            flat[start : start + MAX_SEATS * NUM_KINDS] = _ZEROS * MAX_SEATS
            extra: list[int] = []
            robbed: set[tuple[int, int | None]] = set()
            for w in wins:
                flat[start + (w.seat - me) % n * NUM_KINDS + w.tile] += 1.0
                # a winning tile is set aside face up: seen unless it is a discard (already counted); several
                # winners robbing one added kong share its tile
                if w.how == "qianggang":
                    if (w.tile, w.from_seat) not in robbed:
                        robbed.add((w.tile, w.from_seat))
                        extra.append(w.tile)
                elif w.how in ("zimo", "instant"):  # self-drawn (点杠花 too); a 请胡 single lies among the discards
                    extra.append(w.tile)
            st.wins = len(wins)
            st.wins_extra = tuple(extra)
            visible_changed = True
        wilds = (game._wild_kinds, game.indicator)
        if wilds != st.wilds:
            flat[_WILD : _WILD + NUM_KINDS] = _ZEROS
            for k in wilds[0]:
                flat[_WILD + k] += 1.0
            flat[_INDICATOR : _INDICATOR + NUM_KINDS] = _ZEROS
            if wilds[1] is not None:
                flat[_INDICATOR + wilds[1]] = 1.0
            st.wilds = wilds
            visible_changed = True
        return visible_changed

    def _write_claim_and_locks(self, st: _SeatCache, me: int) -> float:
        """The claimed tile, the 过胡 / 过碰 locks and the wall countdown; returns the rob-window flag."""
        game = self.game
        flat = st.flat
        phase = game.phase
        wall = game._back - game._front
        rob = 0.0
        cell = -1
        if phase is Phase.CLAIM or phase is Phase.ROB:
            claim = game.claim_tile
            if claim is not None:
                cell = _CLAIM + claim
                if phase is Phase.ROB:
                    rob = 1.0
        if cell != st.claim_cell:
            if st.claim_cell >= 0:
                flat[st.claim_cell] = 0.0
            if cell >= 0:
                flat[cell] = 1.0
            st.claim_cell = cell
        lock = self._hu_lock_rule
        if lock == "any_tile":
            hu_lock = tuple(game.cfg.kinds) if game._hu_lock_any[me] >= 0 else ()
        elif lock == "same_tile" and game._hu_lock[me]:
            hu_lock = tuple(sorted(game._hu_lock[me]))
        else:
            hu_lock = ()
        if hu_lock != st.hu_lock:
            flat[_HU_LOCK : _HU_LOCK + NUM_KINDS] = _ZEROS
            for k in hu_lock:
                flat[_HU_LOCK + k] = 1.0
            st.hu_lock = hu_lock
        pong_mask = game._pong_lock[me]
        if pong_mask != st.pong_lock:
            for k in range(NUM_KINDS):
                flat[_PONG_LOCK + k] = float(pong_mask >> k & 1)
            st.pong_lock = pong_mask
        m = wall if wall < NUM_KINDS else NUM_KINDS
        if m != st.countdown:
            flat[_COUNTDOWN : _COUNTDOWN + NUM_KINDS] = _COUNTDOWN_ROWS[m]
            st.countdown = m
        return rob

    def _write_fast(self, st: _SeatCache, me: int, rob: float) -> None:
        """The broadcast rows that change from one decision to the next: turn, phase, to act, wall, rob window,
        own hand size and melds."""
        game = self.game
        n = game.n
        flat = st.flat
        wall = game._back - game._front
        fast = (
            _R_CURRENT + (game.current - me) % n,
            _R_PHASE + _PHASE_ROW[game.phase],
            1.0 if me in game.pending else 0.0,
            wall / WALL_SCALE,
            rob,
            sum(game.hands[me]) / HAND_SCALE,
            len(game.melds[me]) / 4.0,
        )
        old_fast = st.fast
        if fast != old_fast:
            for i in (0, 1):  # one-hot groups: clear the old row, set the new one
                if fast[i] != old_fast[i]:
                    if old_fast[i] >= 0:
                        start = old_fast[i] * NUM_KINDS
                        flat[start : start + NUM_KINDS] = _ZEROS
                    start = fast[i] * NUM_KINDS
                    flat[start : start + NUM_KINDS] = _ONES
            for i, row in _FAST_VALUE_ROWS:
                v = fast[i]
                if v != old_fast[i]:
                    start = row * NUM_KINDS
                    flat[start : start + NUM_KINDS] = array("f", (v,)) * NUM_KINDS
            st.fast = fast

    def _write_rare(self, st: _SeatCache, me: int) -> None:
        """The rarely changing rest: voids, wins / activity / scores per seat, declarations, dealer, direction."""
        game = self.game
        decisions = game._decisions
        own_void = game.void[me]
        if own_void is None and game.phase is Phase.DINGQUE and me in decisions:
            own_void = decisions[me].tile
        fields = game._rules.view_fields(game, me)
        slow = (
            own_void,
            tuple(game.void) if game._void_revealed else None,
            tuple(game.won),
            tuple(game.active),
            tuple(game.scores),
            tuple(st.meld_hidden),
            game.exchange_offset if game._exchange_done else None,
            fields.get("baohu", ()),
            fields.get("qinghu", ()),
        )
        if slow != st.slow:
            self._write_slow(st, me, slow)

    @staticmethod
    def _recount_visible(st: _SeatCache) -> None:
        """The visible row from scratch: the count rows, plus the copies seen beyond them (winning tiles set aside,
        the indicator, wildcards standing in a 飞, claimed 吃 tiles), less the copies the count rows hold twice."""
        extra = [k for extras in (*st.meld_extra, st.wins_extra) for k in extras]
        if st.wilds[1] is not None:
            extra.append(st.wilds[1])
        # small integer sums are exact in float32; broadcast rows weigh 0
        buf = st.buf
        visible = _VISIBLE_WEIGHTS.dot(buf)
        for k in extra:
            visible[k] += 1.0
        for k in (k for lesses in st.meld_less for k in lesses):
            visible[k] -= 1.0
        buf[_R_VISIBLE] = visible

    def _write_slow(self, st: _SeatCache, me: int, slow: tuple) -> None:
        """Rewrite the void rows and the rarely changing broadcast rows (those whose value differs)."""
        own_void, voids, won, active, scores, hidden, offset, baohu, qinghu = slow
        game = self.game
        n = game.n
        flat = st.flat
        old_voids = None if st.slow is None else (st.slow[0], st.slow[1])
        if (own_void, voids) != old_voids:
            for r in range(n):
                s = (me + r) % n
                void = own_void if s == me else (voids[s] if voids is not None else None)
                start = (_R_VOID + r) * NUM_KINDS
                flat[start : start + NUM_KINDS] = _ZEROS
                if void is not None:
                    flat[start + 9 * void : start + 9 * void + 9] = _ONES[:9]
        rv = self.encoder._row_template[:]
        if offset is not None and offset % n:
            rv[_R_DIRECTION + offset % n - 1] = 1.0
        base_unit = self.encoder.base_unit
        for r in range(n):
            s = (me + r) % n
            if hidden[r]:
                rv[_R_HIDDEN + r] = hidden[r] / 4.0
            if baohu and baohu[s]:
                rv[_R_BAOHU + r] = 1.0
            if qinghu and qinghu[s]:
                rv[_R_QINGHU + r] = 1.0
            if won[s]:
                rv[_R_WON + r] = 1.0
            if active[s]:
                rv[_R_ACTIVE + r] = 1.0
            if scores[s]:
                rv[_R_SCORES + r] = _score_value(scores[s], base_unit)
        rv[_R_DEALER + (game.dealer - me) % n] = 1.0
        old_rows = st.rows
        for row in _BROADCAST_ROWS:
            v = rv[row]
            if v != old_rows[row]:
                start = row * NUM_KINDS
                flat[start : start + NUM_KINDS] = array("f", (v,)) * NUM_KINDS
        st.rows = rv
        st.slow = slow

    @staticmethod
    def _write_melds(st: _SeatCache, r: int, melds: tuple, others_hide: bool) -> None:
        """Rewrite the meld rows of seat slot ``r`` (and what they add to / take from the visible row)."""
        flat = st.flat
        for group in _MELD_GROUP_ROWS:
            start = (group + r) * NUM_KINDS
            flat[start : start + NUM_KINDS] = _ZEROS
        cells, hidden, less, extra = _meld_cells(melds, r, others_hide)
        for cell in cells:
            flat[cell] += 1.0
        st.melds[r] = melds
        st.meld_hidden[r] = hidden
        st.meld_extra[r] = tuple(extra)
        st.meld_less[r] = tuple(less)


def _meld_cells(melds: tuple, r: int, others_hide: bool) -> tuple[list[int], int, list[int], list[int]]:
    """The meld planes of seat slot ``r`` as flat cells (``row * 34 + kind``, one per copy), the number of hidden
    concealed kongs, and the visible-row corrections of the melds: copies they take away (a chi's claimed tile, the
    natural tiles a wildcard stands for) and the wildcard kinds they add."""
    cells: list[int] = []
    less: list[int] = []
    extra: list[int] = []
    hidden = 0
    for m in melds:
        kind = m.kind
        group = _MELD_ROW.get(kind)
        if group is None:
            raise ValueError(f"meld kind {kind!r} has no plane in {OBS_VERSION}")
        if m.tile < 0 or (others_hide and kind is MeldKind.ANKONG):
            hidden += 1
            continue
        base = (group + r) * NUM_KINDS
        if kind is MeldKind.CHI:
            cells += [base + k for k in m.represented()]
            if m.claimed is not None:
                less.append(m.claimed)
            continue
        cells.append(base + m.tile)
        if m.wilds:
            less += [m.tile] * m.wilds
            extra += m.wild_kinds
    return cells, hidden, less, extra


# ---- legal-action masks -----------------------------------------------------------------------------------------
# flat id of an action = base, plus its tile for the types that carry one (envs.core.actions.encode, as a table)
_FLAT_BASE: dict[ActionType, int] = {
    ActionType.DISCARD: DISCARD_BASE,
    ActionType.KONG: KONG_BASE,
    ActionType.PONG: PONG_ID,
    ActionType.HU: HU_ID,
    ActionType.PASS: PASS_ID,
    ActionType.DINGQUE: DINGQUE_BASE,
    ActionType.CHI: CHI_BASE,
    ActionType.FEI: FEI_ID,
    ActionType.TI: TI_BASE,
    ActionType.BAOHU: BAOHU_ID,
    ActionType.QINGHU_DISCARD: QINGHU_BASE,
    ActionType.RED_KONG: RED_KONG_ID,
    ActionType.LAIZI_KONG: LAIZI_KONG_ID,
}
# the engine's shared action instances (envs.core.actions: one per discard / kong kind, PONG, HU, PASS ...), by
# identity: they live as long as the module, so their ids are never reused
# the engine's shared action instances (envs.core.actions: one per discard / kong kind, PONG, HU, PASS ...), looked up
# by identity (they live as long as the modules, so their ids are never reused); other actions go by type
_SHARED_ACTIONS = (*map(discard, range(NUM_KINDS)), *map(kong, range(NUM_KINDS)), PONG, HU, PASS, FEI, BAOHU)
_SHARED_IDS: dict[int, int] = {id(a): encode(a) for a in (*_SHARED_ACTIONS, RED_KONG, LAIZI_KONG)}
_TILE_TYPES = frozenset(
    {ActionType.DISCARD, ActionType.KONG, ActionType.DINGQUE, ActionType.CHI, ActionType.TI, ActionType.QINGHU_DISCARD}
)


def exchange_pick_kinds(triples: Sequence[Sequence[int]], picks: Sequence[int]) -> list[int]:
    """Kinds that may be picked next in 换三张, given the legal triples and the picks made so far.

    A kind is allowed when some legal triple contains the picks plus that kind (as a multiset).
    """
    allowed: set[int] = set()
    for triple in triples:
        rest = list(triple)
        try:
            for k in picks:
                rest.remove(k)
        except ValueError:
            continue
        allowed.update(rest)
    return sorted(allowed)


def legal_mask(view: PlayerView, pending_exchange_picks: Sequence[int] = ()) -> np.ndarray:
    """``int8`` mask of shape ``(183,)`` over the flat layout of :mod:`envs.core.actions` for ``view.legal_actions``.

    In 换三张 the engine lists whole triples; the mask allows the ``EXCHANGE_PICK`` kinds that extend
    ``pending_exchange_picks`` (the picks already made in the three-pick sequence) towards a legal triple.
    """
    return actions_mask(view.legal_actions, pending_exchange_picks)


def legal_ids(actions: Sequence[Action], pending_exchange_picks: Sequence[int] = ()) -> list[int]:
    """The sorted flat ids that :func:`actions_mask` sets (``np.flatnonzero`` of the mask, as a list)."""
    return sorted(set(_flat_ids(actions, pending_exchange_picks)))


def _flat_ids(actions: Sequence[Action], pending_exchange_picks: Sequence[int]) -> list[int]:
    """The flat ids of ``actions`` (换三张 triples as the next pick's kinds), unsorted, possibly repeated."""
    ids = []
    triples = []
    shared = _SHARED_IDS
    for action in actions:
        i = shared.get(id(action))
        if i is not None:
            ids.append(i)
            continue
        t = action.type
        base = _FLAT_BASE.get(t)
        if base is not None:
            ids.append(base + action.tile if t in _TILE_TYPES else base)
        elif t == ActionType.EXCHANGE:
            triples.append(action.tiles)
        else:
            ids.append(encode(action))  # raises for an action without a flat id
    if triples:
        if len(pending_exchange_picks) >= 3:
            raise ValueError(f"three exchange picks already made: {list(pending_exchange_picks)}")
        ids += [EXCHANGE_BASE + k for k in exchange_pick_kinds(triples, pending_exchange_picks)]
    elif pending_exchange_picks:
        raise ValueError("exchange picks given but the view has no 换三张 decision")
    return ids


def game_mask(game, seat: int, pending_exchange_picks: Sequence[int] = (), out: np.ndarray | None = None) -> np.ndarray:
    """``legal_mask(game.view(seat), pending_exchange_picks)`` without building the view (``game``: an
    :class:`envs.engine.game.Game`); ``out`` as in :func:`actions_mask`."""
    return actions_mask(game._legal(seat), pending_exchange_picks, out)


def actions_mask(
    actions: Sequence[Action], pending_exchange_picks: Sequence[int] = (), out: np.ndarray | None = None
) -> np.ndarray:
    """:func:`legal_mask` from a list of engine actions (``Game.legal_actions(seat)``), without a view.

    ``out`` (``int8``, shape ``(183,)``) is overwritten and returned when given (a row of a batch of masks).
    """
    ids = _flat_ids(actions, pending_exchange_picks)
    if out is None:
        out = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    else:
        out.fill(0)
    out[ids] = 1
    return out
