"""Mirror (状态镜像): one :mod:`envs.compiled.layout` row filled from a Python :class:`envs.engine.game.Game`.

:func:`state_of_game` writes every field of the layout from the engine's attributes, so that the compiled engine's
rows can be compared with the reference engine field by field, and the compiled encoder
(:func:`envs.compiled.encode.encode_row`) can be checked against :meth:`envs.engine.observation.ObservationEncoder.
encode` of the game's view.  It mirrors the configurations the compiled engine plays (:func:`envs.compiled.support.
check_supported`: the ``chengdu`` preset and its flags) and raises :class:`~envs.engine.game.UnsupportedRule` for
others.

Conventions (the kernel keeps its rows the same way)
----------------------------------------------------
* ``-1`` marks "none" (no drawn tile, no claim, no void yet, an unused pick / meld slot ...); booleans are 0 / 1.
* ``PHASE`` is the row of the phase in :data:`envs.engine.observation.PHASES` (``PH_*``).
* ``PENDING[s]`` is 1 while the seat's answer is awaited (``Game.pending``: a seat that answered a simultaneous
  decision is no longer pending); the observation's ``to_act`` plane is ``PENDING[seat]``.
* 换三张 (``PICK_COUNT``, ``PICKS``, ``GIVEN``, ``RECEIVED``):

  - during ``PH_EXCHANGE`` a seat that has not answered the engine yet holds its ``k`` (0-2) picks of the
    pick-by-pick sequence of the batched env: ``PICK_COUNT = k``, ``PICKS[:k]`` the picked kinds in pick order,
    the rest ``-1``;
  - a seat that has answered (its triple is in ``Game._decisions``) has ``PICK_COUNT = 3`` and ``PICKS`` = the
    triple (as the engine stores it, sorted); the observation shows it as ``exchange_given`` (and no longer as
    ``exchange_picked``) until the exchange resolves;
  - once the exchange has resolved (``EX_DONE = 1``) ``PICK_COUNT`` is 0 and ``PICKS`` is ``-1`` for every seat,
    while ``GIVEN`` / ``RECEIVED`` hold the triple each seat passed / received (``-1`` before).
* 定缺: ``DINGQUE_CHOICE[s]`` is the suit a seat answered while ``PH_DINGQUE`` is open (``-1`` before it answered
  and after the phase resolved); ``VOID`` holds the declared suits once resolved (``VOID_REVEALED = 1``).
* Claim / rob windows (``PH_CLAIM`` / ``PH_ROB``): ``OPTIONS[q]`` is the set of ``O_*`` bits offered to each asked
  seat (0: not asked) and ``DECISION[q]`` the ``O_*`` bit of its answer (0: none yet).  Both are 0 in every other
  phase (the engine keeps its last window's options around; the row does not).
* ``MELDS[s, i]`` = (``M_*`` kind, tile, from_seat) in the order made, ``NUM_MELDS[s]`` of them; an added kong
  (补杠) replaces its pong in place and keeps the pong's ``from_seat``; concealed kongs have from_seat ``-1``;
  unused slots are ``(M_NONE, -1, -1)``.
* ``DISCARDS`` counts every discarded copy (claimed ones included); ``LAST_DISCARD[s]`` is the seat's most recent
  discard (claimed or not).
* ``HU_LOCK[s, k]`` is 1 for each kind of ``Game._hu_lock[s]`` (过胡 same_tile); ``PONG_LOCK[s, k]`` is bit ``k``
  of ``Game._pong_lock[s]`` (过碰).
* ``WIN_TILES[s, k]`` counts the wins of seat ``s`` on kind ``k``; ``NUM_WINS`` is ``len(Game.wins)``.
* ``SHOWN_WIN_TILES[k]`` counts the winning tiles set aside face up that no other plane shows: one per self-drawn
  win (``from_seat`` None: 自摸, the tile leaves the winner's hand) and one per robbed added kong (抢杠: once per
  robbing event, however many seats win on it; the tile leaves the robbed seat's hand).  A win on a discard adds
  nothing (the tile stays counted among the discards).
* ``FIRST_WIN_SEATS`` is the bitmask of the winners of the first win event and ``FIRST_WIN_PAYER`` its discarder
  (``-1`` for a self-draw or before any win; ``FIRST_WIN_SEATS`` is then 0).
* ``EX_OFFSET`` is the 换三张 offset drawn at the start of the hand (known to the engine from the start; the
  observation shows it only once ``EX_DONE``); ``SCORES`` are this hand's running scores.
* 断卡根 (``BAOHU``, ``FORFEIT``, ``KONGS_AT_BAOHU``, ``QINGHU``, ``BAOHU_DISCARD``, ``QINGHU_SEAT``) mirror
  :class:`envs.engine.variants.duankagen.DuankagenState` (zero, and ``QINGHU_SEAT = -1``, in other variants).
* ``NSEATS`` is the number of players; a two- or three-player table leaves the last seat slots at their defaults
  (inactive, ``-1`` where a field means "none").
* ``WILD`` (the wildcard kind, -1), ``REVEAL (winners' hands shown) and ``XUELIU`` come from the configuration;
  ``CONT`` / ``CONT_SEAT`` / ``CONT_ARG`` are 0 (the kernel stores a continuation only between a payment that may
  bankrupt a seat and the ledger's answer, never at a decision).
* ``BANKRUPT`` is ``Game.bankrupt``: the ledger sets it when the hand ends with a seat below zero (a payment in play
  ends the hand at once; the exhaustive draw's 查花猪 / 查大叫 / 退税 settle together).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.compiled import layout as L
from envs.compiled.support import check_supported
from envs.core.actions import ActionType
from envs.core.melds import MeldKind
from envs.engine.observation import PHASES
from envs.engine.variants.duankagen import DuankagenState
from envs.engine.variants.wuhan import WuhanState
from envs.engine.view import Phase

_PHASE_INDEX: dict[Phase, int] = {p: i for i, p in enumerate(PHASES)}
_MELD_CODE: dict[MeldKind, int] = {
    MeldKind.PONG: L.M_PONG,
    MeldKind.KONG: L.M_KONG,
    MeldKind.ANKONG: L.M_ANKONG,
    MeldKind.BUKONG: L.M_BUKONG,
    MeldKind.FEI: L.M_FEI,
    MeldKind.CHI: L.M_CHI,
}
_OPTION_BIT: dict[ActionType, int] = {
    ActionType.HU: L.O_HU,
    ActionType.PONG: L.O_PONG,
    ActionType.KONG: L.O_KONG,
    ActionType.PASS: L.O_PASS,
    ActionType.FEI: L.O_FEI,
}
# fields whose "none" value is -1 (everything else starts at 0)
_MINUS_ONE: tuple[tuple[int, int], ...] = tuple(
    L.FIELDS[name]
    for name in (
        "drawn_tile",
        "kong_feeder",
        "claim_tile",
        "claim_from",
        "first_win_payer",
        "qinghu_seat",
        "void",
        "last_discard",
        "dingque_choice",
        "picks",
        "given",
        "received",
        "melds",
        "meld_wilds",
        "meld_claimed",
        "wild2",
        "indicator",
    )
)


def _opt(value: int | None) -> int:
    return -1 if value is None else value


def _option_bits(actions) -> int:
    bits = 0
    for a in actions:
        if a.type is ActionType.CHI:  # the claimed tile's place in the run: low, middle, high
            bits |= L.O_CHI << a.tile
            continue
        bit = _OPTION_BIT.get(a.type)
        if bit is None:
            raise ValueError(f"claim / rob window action {a} has no O_* bit in the compiled layout")
        bits |= bit
    return bits


def _fill_scalars(row: np.ndarray, game) -> None:
    row[L.PHASE] = _PHASE_INDEX[game.phase]
    row[L.NSEATS] = game.n
    row[L.DEALER] = game.dealer
    row[L.CURRENT] = game.current
    row[L.FRONT] = game._front
    row[L.BACK] = game._back
    row[L.DRAWN] = _opt(game.drawn_tile)
    row[L.AFTER_PONG] = game._after_pong
    row[L.AFTER_KONG] = game._after_kong
    row[L.DREW_LAST] = game._drew_last
    row[L.KONG_FEEDER] = _opt(game._kong_feeder)
    row[L.TURN_KONGS] = game._turn_kongs
    row[L.FIRST_ACTION] = game._first_action
    row[L.DIHU_DRAW] = game._dihu_draw
    row[L.MELD_MADE] = game._meld_made
    row[L.DISCARD_COUNT] = game._discard_count
    row[L.CLAIM_TILE] = _opt(game.claim_tile)
    row[L.CLAIM_FROM] = _opt(game.claim_from)
    row[L.EX_OFFSET] = game.exchange_offset or 0
    row[L.EX_DONE] = game._exchange_done
    row[L.VOID_REVEALED] = game._void_revealed
    row[L.OVER] = game.is_over
    row[L.EXHAUSTED] = game.exhausted
    row[L.BANKRUPT] = game.bankrupt
    row[L.NUM_WINS] = len(game.wins)
    row[L.REVEAL] = game._reveals_hand()
    row[L.XUELIU] = game.cfg.continuation == "xueliu"
    wild = game.wild_kinds
    row[L.WILD] = wild[0] if wild else -1
    row[L.WILD2] = wild[1] if len(wild) > 1 else -1
    row[L.INDICATOR] = _opt(game.indicator)
    row[L.WUHAN] = game.cfg.fan_table == "wuhan"
    row[L.HIDE_ANKONG] = not game.cfg.reveal_concealed_kong
    first = game._first_win_event
    if first is not None:
        winners, payer = first
        row[L.FIRST_WIN_SEATS] = sum(1 << s for s in winners)
        row[L.FIRST_WIN_PAYER] = _opt(payer)
    st = game.vstate
    if isinstance(st, WuhanState):
        for s in range(game.n):
            row[L.RED_KONGS + s] = st.red_kongs[s]
            row[L.LAIZI_KONGS + s] = st.laizi_kongs[s]
    if isinstance(st, DuankagenState):
        row[L.BAOHU_DISCARD] = st.baohu_discard
        row[L.QINGHU_SEAT] = _opt(st.qinghu_seat)
        for s in range(game.n):
            row[L.BAOHU + s] = st.baohu[s]
            row[L.FORFEIT + s] = st.forfeit[s]
            row[L.KONGS_AT_BAOHU + s] = st.kongs_at_baohu[s]
            row[L.QINGHU + s] = st.qinghu[s]


def _fill_seat(row: np.ndarray, game, s: int) -> None:
    """The per-seat scalars and the per-kind tables of seat ``s`` (melds included)."""
    row[L.VOID + s] = _opt(game.void[s])
    row[L.WON + s] = game.won[s]
    row[L.ACTIVE + s] = game.active[s]
    row[L.FIRST_DRAW_PENDING + s] = game._first_draw_pending[s]
    row[L.SCORES + s] = game.scores[s]
    base = s * L.NK
    row[L.HANDS + base : L.HANDS + base + L.NK] = game.hands[s]
    discards = game.discards[s]
    if discards:
        row[L.LAST_DISCARD + s] = discards[-1]
        row[L.DISCARDS + base : L.DISCARDS + base + L.NK] = np.bincount(discards, minlength=L.NK)
    higher = game.cfg.pass_hu_allow_higher  # the lock keeps the declined win's doublings, + 1
    for k, v in game._hu_lock[s].items():
        row[L.HU_LOCK + base + k] = v + 1 if higher else 1
    mask = game._pong_lock[s]
    if mask:
        for k in range(L.NK):
            row[L.PONG_LOCK + base + k] = mask >> k & 1
    melds = game.melds[s]
    if len(melds) > L.MAX_MELDS:
        raise ValueError(f"seat {s} has {len(melds)} melds; the layout holds {L.MAX_MELDS}")
    row[L.NUM_MELDS + s] = len(melds)
    for i, m in enumerate(melds):
        code = _MELD_CODE.get(m.kind)
        if code is None:
            raise ValueError(f"meld kind {m.kind!r} has no M_* code in the compiled layout")
        at = L.MELDS + (s * L.MAX_MELDS + i) * L.MELD_FIELDS
        row[at : at + 3] = (code, m.tile, _opt(m.from_seat))
        at = L.MELD_WILDS + (s * L.MAX_MELDS + i) * 2
        row[at : at + len(m.wild_kinds)] = m.wild_kinds
        if m.kind is MeldKind.CHI:
            row[L.MELD_CLAIMED + s * L.MAX_MELDS + i] = _opt(m.claimed)
    for i, k in enumerate(game.exchange_given[s]):
        row[L.GIVEN + 3 * s + i] = k
    for i, k in enumerate(game.exchange_received[s]):
        row[L.RECEIVED + 3 * s + i] = k


def _fill_decisions(row: np.ndarray, game, picks: Sequence[Sequence[int]] | None) -> None:
    """``PENDING``, the 换三张 picks, the 定缺 answers and the claim / rob window options and answers."""
    for s in game.pending:
        row[L.PENDING + s] = 1
    phase = game.phase
    decisions = game._decisions
    if picks is not None:
        if len(picks) != game.n:
            raise ValueError(f"picks needs one list per seat ({game.n}), got {len(picks)}")
        for s, p in enumerate(picks):
            if p and (phase is not Phase.EXCHANGE or s in decisions or len(p) >= 3):
                raise ValueError(
                    f"seat {s}: {len(p)} pending 换三张 picks in phase {phase.value} "
                    f"({'answered' if s in decisions else 'not answered'}); picks are 0-2 kinds of an unanswered seat"
                )
            row[L.PICK_COUNT + s] = len(p)
            row[L.PICKS + 3 * s : L.PICKS + 3 * s + len(p)] = p
    if phase is Phase.EXCHANGE:
        for s, a in decisions.items():
            row[L.PICK_COUNT + s] = 3
            row[L.PICKS + 3 * s : L.PICKS + 3 * s + 3] = a.tiles
    elif phase is Phase.DINGQUE:
        for s, a in decisions.items():
            row[L.DINGQUE_CHOICE + s] = a.tile
    elif phase is Phase.CLAIM or phase is Phase.ROB:
        for q, opts in game._options.items():
            row[L.OPTIONS + q] = _option_bits(opts)
        if game.cfg.pass_hu_allow_higher:
            for q, v in game._hu_values.items():
                row[L.HU_VALUE + q] = v
        for q, a in decisions.items():
            row[L.DECISION + q] = _option_bits((a,))


def _fill_wins(row: np.ndarray, game) -> None:
    """``WIN_TILES`` and ``SHOWN_WIN_TILES`` (exactly the extra visible copies of the observation encoder)."""
    robbed: set[tuple[int, int | None]] = set()
    for w in game.wins:
        row[L.WIN_TILES + w.seat * L.NK + w.tile] += 1
        if w.how == "qianggang":
            if (w.tile, w.from_seat) not in robbed:
                robbed.add((w.tile, w.from_seat))
                row[L.SHOWN_WIN_TILES + w.tile] += 1
        elif w.how in ("zimo", "instant"):  # self-drawn (a 点杠花 too); a 断卡根 请胡 single lies among the discards
            row[L.SHOWN_WIN_TILES + w.tile] += 1


def state_of_game(game, picks: Sequence[Sequence[int]] | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """The layout row (``int32``, shape ``(STATE_SIZE,)``) of ``game`` (an :class:`envs.engine.game.Game` of 成都
    rules).

    ``picks`` (optional) holds each seat's pending 换三张 picks of the batched env's pick-by-pick sequence (0-2 kinds
    per seat that has not answered the engine yet; empty lists otherwise).  ``out`` is overwritten and returned
    when given.  See the module docstring for the conventions.
    """
    check_supported(game.cfg)
    if len(game._wall) > L.WALL_LEN:
        raise ValueError(f"the layout holds a wall of {L.WALL_LEN} tiles, the game has {len(game._wall)}")
    if out is None:
        out = np.zeros(L.STATE_SIZE, dtype=np.int32)
    elif out.shape != (L.STATE_SIZE,) or out.dtype != np.int32:
        raise ValueError(f"out must be int32 with shape ({L.STATE_SIZE},), got {out.dtype} {out.shape}")
    else:
        out.fill(0)
    for start, length in _MINUS_ONE:
        out[start : start + length] = -1
    for i in range(L.NP * L.MAX_MELDS):  # unused meld slots: (M_NONE, -1, -1)
        out[L.MELDS + i * L.MELD_FIELDS] = L.M_NONE
    _fill_scalars(out, game)
    for s in range(game.n):  # a smaller table's empty seat slots keep the defaults (inactive, -1 where "none")
        _fill_seat(out, game, s)
    _fill_decisions(out, game, picks)
    _fill_wins(out, game)
    out[L.WALL : L.WALL + L.WALL_LEN] = -1
    out[L.WALL : L.WALL + len(game._wall)] = game._wall
    return out
