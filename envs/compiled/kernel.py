"""Compiled rules kernel (编译规则核): the state machine of :class:`envs.engine.game.Game` for the core variants, in
numba.

Every function here works on one hand's ``int32`` state row (:mod:`envs.compiled.layout`) and a small ``rules``
vector of flags (:func:`envs.compiled.support.rule_vector`); nothing allocates on the hot path.  The kernel follows
``Game`` method by method (the names in the comments are the ``Game`` methods it mirrors) so that the differential
tests (``tests/compiled/test_compiled_engine.py``) can compare the two engines decision by decision.

Money stays in Python: a kong that pays, a win and the end of an exhausted hand append an *event* to the hand's
event buffer (``EV_*`` below, with everything the scorer needs: the winner's counts and melds, the situation
flags, the seats still in the hand); :class:`envs.compiled.ledger.Ledger` turns the events into transfers with the
same functions the Python engine calls (``judge.score``, ``envs.scoring.settlement``) and writes the scores back.  The
play depends on the scores only through bankruptcy (``start_points > 0``): there the kernel stops after every payment
with what comes next stored in the row (``CONT``, :func:`stop`), and the ledger either ends the hand
(:func:`end_bankrupt`) or lets it go on (:func:`resume`); otherwise the events are settled after the kernel
returns.

The play never needs a score, except where a win must score to be legal (``allow_pinghu_on_discard = false``, the
two-player rule; 断卡根's 小胡 rule; 宜宾, whose 飞 count towards the four-copy limit; the doublings of a 过胡 lock with
``pass_hu_allow_higher``): :func:`win_value` then asks a compiled scorer (:mod:`envs.compiled.score`,
:mod:`envs.compiled.score_dkg` or :mod:`envs.compiled.score_yibin`, its rule vector stored in ``rules`` from
``R_SCORE`` on), or the Python scorer for a configuration none covers.  Seats: a row has four seat slots; a table
of ``NSEATS`` < 4 players uses the first ones and takes turns modulo ``NSEATS``.
"""

# ruff: noqa: SIM109, SIM110 - plain loops and comparisons compile best in numba (no generators)
from __future__ import annotations

import numpy as np
from numba import njit, objmode

from envs.compiled.layout import (
    ACTIVE,
    AFTER_KONG,
    AFTER_PONG,
    BACK,
    BAOHU,
    BAOHU_DISCARD,
    CLAIM_FROM,
    CLAIM_TILE,
    CONT,
    CONT_ARG,
    CONT_SEAT,
    CURRENT,
    DEALER,
    DECISION,
    DIHU_DRAW,
    DINGQUE_CHOICE,
    DISCARD_COUNT,
    DISCARDS,
    DRAWN,
    DREW_LAST,
    EX_DONE,
    EX_OFFSET,
    EXHAUSTED,
    FIRST_ACTION,
    FIRST_DRAW_PENDING,
    FIRST_WIN_PAYER,
    FIRST_WIN_SEATS,
    FORFEIT,
    FRONT,
    GIVEN,
    HANDS,
    HIDE_ANKONG,
    HU_LOCK,
    HU_VALUE,
    INDICATOR,
    KONG_FEEDER,
    KONGS_AT_BAOHU,
    LAIZI_KONGS,
    LAST_DISCARD,
    M_ANKONG,
    M_BUKONG,
    M_CHI,
    M_FEI,
    M_KONG,
    M_NONE,
    M_PONG,
    MAX_MELDS,
    MELD_CLAIMED,
    MELD_FIELDS,
    MELD_MADE,
    MELD_WILDS,
    MELDS,
    NK,
    NP,
    NSEATS,
    NSUITED,
    NUM_MELDS,
    NUM_WINS,
    O_CHI,
    O_FEI,
    O_HU,
    O_KONG,
    O_PASS,
    O_PONG,
    OPTIONS,
    OVER,
    PENDING,
    PH_CLAIM,
    PH_DECLARE,
    PH_DINGQUE,
    PH_END,
    PH_EXCHANGE,
    PH_ROB,
    PH_SELF,
    PHASE,
    PICK_COUNT,
    PICKS,
    PONG_LOCK,
    QINGHU,
    QINGHU_SEAT,
    RECEIVED,
    RED_KONGS,
    REVEAL,
    SHOWN_WIN_TILES,
    TURN_KONGS,
    VOID,
    VOID_REVEALED,
    WALL,
    WALL_LEN,
    WILD,
    WILD2,
    WIN_TILES,
    WON,
    WUHAN,
    XUELIU,
)
from envs.compiled.score import NUM_SCORE_RULES, score_counts, workspace
from envs.compiled.score_dkg import NUM_DKG_RULES, score_dkg, workspace_dkg
from envs.compiled.score_wuhan import NUM_WUHAN_RULES, score_wuhan, workspace_wuhan
from envs.compiled.score_yibin import NUM_YIBIN_RULES, score_yibin, workspace_yibin
from envs.compiled.win_check import RED, holds_void, is_wild, is_win, waits_mask, wins_on
from envs.core.actions import (
    BAOHU_ID,
    CHI_BASE,
    DINGQUE_BASE,
    DISCARD_BASE,
    EXCHANGE_BASE,
    FEI_ID,
    HU_ID,
    KONG_BASE,
    LAIZI_KONG_ID,
    PASS_ID,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
)

# ---- flat action ids (envs.core.actions)
# ------------------------------------------------------------------------------
A_DISCARD = DISCARD_BASE
A_KONG = KONG_BASE
A_PONG = PONG_ID
A_HU = HU_ID
A_PASS = PASS_ID
A_EXCHANGE = EXCHANGE_BASE
A_DINGQUE = DINGQUE_BASE
A_BAOHU = BAOHU_ID
A_QINGHU = QINGHU_BASE
A_FEI = FEI_ID
A_TI = TI_BASE
A_CHI = CHI_BASE
A_RED_KONG = RED_KONG_ID
A_LAIZI_KONG = LAIZI_KONG_ID

# ---- rule flags (envs.compiled.support.rule_vector) --------------------------------------------------------------
R_EXCHANGE = 0  # 换三张 swap3
R_DINGQUE = 1
R_MUST_VOID_FIRST = 2
R_MULTI_RON = 3
R_KONG_FROM_BACK = 4
R_KONG_ON_LAST = 5
R_CLAIMS_LAST_ALL = 6  # claims_on_last_discard = all
R_HU_LOCK = 7  # pass_hu_lock = same_tile
R_PONG_LOCK = 8
R_AFTER_ROBBED = 9  # after_rob_next = after_robbed
R_DIHU_DISCARD = 10  # dihu_definition = include_first_discard
R_HAND_SIZE = 11
R_XUELIU = 12  # continuation = xueliu
R_SAME_WAITS = 13  # xueliu_kong_requires_same_waits
R_REVEAL = 14  # reveal_winner_hand or 血流: winners' hands are shown
R_NUM_TILES = 15  # tiles in the wall
R_WILD = 16  # the wildcard kind (红中 31), -1: none
R_FOUR_RED = 17  # hz_four_red_instant: four 红中 in hand win at once
R_FOUR_RED_ENDS = 18  # hz_four_red_ends_hand
R_BANKRUPTCY = 19  # start_points > 0: a payment can end the hand, so the kernel stops after each one
R_NUM_PLAYERS = 20  # players at the table (2-4)
R_SUITS = 21  # bitmask of the suits in play (1 m, 2 p, 4 s): the 定缺 choices
R_DKG = 22  # 断卡根: 报胡 (declaration before the first draw, the dealer's BAOHU), 请胡, forfeits
R_VERDICT = 23  # V_*: who decides whether a hand with a winning shape may win (allow_pinghu_on_discard, win_rules)
R_CFG_ID = 24  # the configuration's number in envs.compiled.config_numbers (V_PYTHON asks the Python scorer with it)
R_DGH_DIANPAO = 25  # dianganghua = dianpao: a 点杠花 is paid as a discard (its score has no self-draw bonus)
R_ZIMO_VS_BAOHU = 26  # dkg_xiaohu_zimo_vs_baohu: a 小胡 may self-draw when an active payer declared 报胡
R_TINGYONG = 27  # Yibin 本金 / 听用: a flipped indicator names two wildcard kinds, never discarded; 飞 and 提
R_INDICATOR_REMOVED = 28  # indicator_removed_from_wall: the 本金 leaves the live wall
R_FEI_MAX = 29  # yibin_fei_max_wild: the 听用 a 飞 may hold
R_FORCED = 30  # forced_hu_last_n: while the live wall holds at most this many tiles a possible win is the only action
R_HU_HIGHER = 31  # pass_hu_allow_higher: a 过胡 lock gives way to a win worth more doublings than the declined one
R_WUHAN = 32  # Wuhan: 赖子 flip, 红中杠 / 赖子杠, 吃 from the next seat, kongs after a claim, must open, no 红中 wins
R_HAIDI = 33  # wuhan_haidi_tiles: the last live tiles are drawn only to win or be laid down
R_LAIZI_GANG = 34  # laizi_discard_is_gang: a 赖子 is played out as a 赖子杠, never discarded
R_SINGLE = 35  # continuation = single: the hand ends at its first win
R_HIDE_ANKONG = 36  # reveal_concealed_kong = false: the observation shows others a count of hidden 暗杠
R_CHI = 37  # allow_chi: the next seat may 吃 a discard (Wuhan)
R_SCORE = 38  # the compiled scorer's rule vector (score.rule_vector / score_dkg.rule_vector_dkg) starts here
NUM_RULES = R_SCORE + max(NUM_SCORE_RULES, NUM_DKG_RULES, NUM_YIBIN_RULES, NUM_WUHAN_RULES)

# verdicts (R_VERDICT): the shape alone; the compiled scorer on discard / rob wins (no 平胡 on a discard, the doublings
# of a 过胡 lock); on every win (``VariantRules.win_rules``: 断卡根 小胡, 宜宾 飞 copies) the compiled 断卡根 or 宜宾
# scorer, or the Python scorer for a configuration no compiled scorer covers
V_SHAPE, V_SCORER, V_PYTHON, V_DKG, V_YIBIN, V_WUHAN = 0, 1, 2, 3, 4, 5

# ---- continuations (CONT): what the hand does after a payment ----------------------------------------------------
C_NONE, C_DRAW, C_REPLACEMENT, C_END = 0, 1, 2, 3

# ---- events ------------------------------------------------------------------------------------------------------
EV_KONG = 1  # a kong took effect: seat, tile, meld kind, feeder, immediate, active seats
EV_WIN = 2  # a win: seat, tile (-1: the engine's choice of a 天胡 without a drawn tile), how, payer, ...
EV_CALL = 3  # 呼叫转移: the kong player (payer), the winners, the kongs of that turn
EV_END = 4  # the hand ended (exhausted or not)
HOW_ZIMO, HOW_DIANPAO, HOW_QIANGGANG, HOW_INSTANT, HOW_QINGHU = 0, 1, 2, 3, 4
F_AFTER_KONG, F_LAST_TILE, F_TIANHU, F_DIHU = 1, 2, 4, 8
# 断卡根 win facts (E_VFLAGS): the winner declared 报胡; a 请胡 win; the payer declared 报胡; a win on a 请胡 single
VF_BAOHU, VF_QINGHU, VF_PAYER_BAOHU, VF_ON_QINGHU = 1, 2, 4, 8
# event fields
E_TYPE = 0
E_SEAT = 1
E_TILE = 2
E_HOW = 3  # EV_WIN how / EV_KONG meld kind / EV_END exhausted
E_PAYER = 4
E_FEEDER = 5  # EV_WIN feeder of a 杠上花 / EV_KONG discarder of a 直杠 (-1: none)
E_FLAGS = 6  # EV_WIN F_* / EV_KONG immediate
E_ACTIVE = 7  # bitmask of the seats still in the hand (EV_CALL: of the winners)
E_VOID = 8
E_COUNT = 9  # EV_CALL: the number of kongs of that turn
E_NUM_MELDS = 10
E_DEALER = 11  # EV_WIN: the dealer
E_VFLAGS = 12  # EV_WIN: VF_* (断卡根)
E_KAB = 13  # EV_WIN: kongs declared after the winner's 报胡 (at most 4)
E_BAOHU = 14  # EV_WIN: bitmask of the seats that declared 报胡
E_INDICATOR = 15  # EV_WIN: the 本金 (Yibin) / 赖子 indicator (Wuhan), -1: none
E_RED_KONGS = 16  # EV_WIN: the winner's 红中杠 (Wuhan)
E_LAIZI_KONGS = 17  # EV_WIN: the winner's 赖子杠 (Wuhan)
E_MELDS = 18  # MAX_MELDS * MELD_FIELDS
E_MELD_WILDS = E_MELDS + MAX_MELDS * MELD_FIELDS  # MAX_MELDS * 2: the 听用 kinds of each 飞 (-1: none)
E_COUNTS = E_MELD_WILDS + MAX_MELDS * 2  # NK counts (a claim's counts include the claimed tile)
EV_SIZE = E_COUNTS + NK
MAX_EVENTS = 8


# ---- small helpers -----------------------------------------------------------------------------------------------
@njit(cache=True)
def wall_remaining(s):
    return s[BACK] - s[FRONT]


@njit(cache=True)
def first_after(s, field, seat):
    """The first seat after ``seat`` in turn order (``seat`` itself last) whose per-seat ``field`` is set; -1."""
    n = s[NSEATS]
    for i in range(1, n + 1):
        q = (seat + i) % n
        if s[field + q]:
            return q
    return -1


@njit(cache=True)
def next_active(s, seat):
    return first_after(s, ACTIVE, seat)


@njit(cache=True)
def active_mask(s):
    m = 0
    for q in range(NP):
        if s[ACTIVE + q]:
            m |= 1 << q
    return m


@njit(cache=True)
def kind_blocked(s, seat, k):
    """``Game._kind_blocked``: the seat may never pong or kong ``k`` (its void suit, the wildcards)."""
    v = s[VOID + seat]
    return is_wild(s, k) or (s[WUHAN] == 1 and k == RED) or (v >= 0 and k < NSUITED and k // 9 == v)


@njit(cache=True)
def frozen(s, seat):
    """血流: the seat has won and plays on with a frozen hand."""
    return s[XUELIU] == 1 and s[WON + seat] == 1


@njit(cache=True)
def frozen_kong_ok(s, seat, k, claim, rules, table):
    """``Game._frozen_kong_ok``: may frozen ``seat`` kong ``k`` (its drawn tile, or a discard when ``claim``)
    keeping its waits?"""
    if kind_blocked(s, seat, k):
        return False
    h = HANDS + seat * NK + k
    if claim:
        return s[h] == 3 and (not rules[R_SAME_WAITS] or kong_keeps_waits(s, seat, k, M_KONG, table))
    if pong_slot(s, seat, k) >= 0:
        return True  # 补杠 of the drawn tile: the frozen concealed hand itself is unchanged
    if s[h] != 4:
        return False
    if not rules[R_SAME_WAITS]:
        return True
    s[h] -= 1  # the waits before the drawn tile came
    same = kong_keeps_waits(s, seat, k, M_ANKONG, table)
    s[h] += 1
    return same


@njit(cache=True)
def kong_keeps_waits(s, seat, k, kind, table):
    """Whether the seat's waits stay the same when three concealed ``k`` become a kong meld of ``kind``."""
    h = HANDS + seat * NK + k
    before = waits_mask(s, seat, table)
    s[h] -= 3
    add_meld(s, seat, kind, k, -1)
    after = waits_mask(s, seat, table)
    drop_last_meld(s, seat)
    s[h] += 3
    return after == before


@njit(cache=True)
def pong_slot(s, seat, k):
    """The offset of the seat's pong of ``k`` in the row (``MELDS``), -1 when it has none."""
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        if s[m] == M_PONG and s[m + 1] == k:
            return m
    return -1


@njit(cache=True)
def may_win(s, seat):
    """``VariantRules.may_win``: not a 断卡根 seat that forfeited; in Wuhan a seat holding no 红中 with an open meld
    (吃, 碰, 明杠)."""
    if s[FORFEIT + seat]:
        return False
    if s[WUHAN]:
        if s[HANDS + seat * NK + RED]:
            return False
        base = MELDS + seat * MAX_MELDS * MELD_FIELDS
        for i in range(s[NUM_MELDS + seat]):
            if s[base + i * MELD_FIELDS] != M_ANKONG:
                return True
        return False
    return True


@njit(cache=True)
def can_self_win(s, seat, rules, table):
    """``Game._can_self_win``: the shape, then (``V_DKG`` / ``V_PYTHON``) the scorer's verdict
    (``Game._self_win_choice``)."""
    if s[AFTER_PONG] or holds_void(s, seat) or not may_win(s, seat):
        return False
    if not is_win(s, seat, table):
        return False
    if rules[R_VERDICT] == V_SHAPE or rules[R_VERDICT] == V_SCORER:  # they judge discard / rob wins only
        return True
    flags = self_win_flags(s, seat, rules)
    feeder = s[KONG_FEEDER] if s[AFTER_KONG] else -1
    t = s[DRAWN]
    if t >= 0:
        return win_ok(s, seat, t, HOW_ZIMO, -1, feeder, flags, -1, rules)
    for k in range(NK):  # 天胡 without a drawn tile: some tile of the hand as the winning tile
        if s[HANDS + seat * NK + k] and win_ok(s, seat, k, HOW_ZIMO, -1, feeder, flags, -1, rules):
            return True
    return False


@njit(cache=True)
def self_win_flags(s, seat, rules):
    """The situation (``F_*``) of the seat's self-draw now (杠上开花, 海底捞月 — in Wuhan a draw of its 海底 tiles,
    ``WuhanRules.win_context`` —, 天胡, 地胡)."""
    first_win = not s[WON + seat]
    tianhu = seat == s[DEALER] and s[FIRST_ACTION] == 1 and first_win
    dihu = (not tianhu) and s[DIHU_DRAW] == 1 and first_win
    flags = 0
    if s[AFTER_KONG]:
        flags |= F_AFTER_KONG
    if (wall_remaining(s) < rules[R_HAIDI]) if rules[R_WUHAN] else s[DREW_LAST]:
        flags |= F_LAST_TILE
    if tianhu:
        flags |= F_TIANHU
    if dihu:
        flags |= F_DIHU
    return flags


@njit(cache=True)
def kong_possible(s, rules):
    return wall_remaining(s) > 0 or rules[R_KONG_ON_LAST] == 1


@njit(cache=True)
def set_pending_one(s, seat):
    for q in range(NP):
        s[PENDING + q] = 0
        s[DECISION + q] = 0
    s[PENDING + seat] = 1


@njit(cache=True)
def enter_self(s, seat):
    """``Game._enter_self``."""
    s[CURRENT] = seat
    s[CLAIM_TILE] = -1
    s[CLAIM_FROM] = -1
    s[PHASE] = PH_SELF
    set_pending_one(s, seat)


@njit(cache=True)
def reset_turn(s, seat):
    """``Game._reset_turn``."""
    s[CURRENT] = seat
    s[AFTER_KONG] = 0
    s[AFTER_PONG] = 0
    s[KONG_FEEDER] = -1
    s[TURN_KONGS] = 0
    s[DIHU_DRAW] = 0
    s[DREW_LAST] = 0


@njit(cache=True)
def acting_seat(s):
    """The first seat whose decision is awaited (``Game.pending[0]``), -1 when the hand is over."""
    if s[OVER]:
        return -1
    ph = s[PHASE]
    if ph == PH_CLAIM or ph == PH_ROB:
        start = s[CLAIM_FROM]
    elif ph == PH_EXCHANGE or ph == PH_DINGQUE:
        start = s[DEALER] - 1
    else:
        start = s[CURRENT] - 1
    return first_after(s, PENDING, start)


# ---- events ------------------------------------------------------------------------------------------------------
@njit(cache=True)
def new_event(ev, nev, kind):
    i = nev[0]
    if i >= ev.shape[0]:  # one decision records at most a few events (a 一炮多响 with 呼叫转移 and the end: 5)
        raise IndexError("envs.compiled: event buffer full")
    nev[0] = i + 1
    row = ev[i]
    for j in range(EV_SIZE):
        row[j] = -1
    row[E_TYPE] = kind
    return row


@njit(cache=True)
def emit_kong(s, ev, nev, owner, kind, tile, feeder, immediate):
    row = new_event(ev, nev, EV_KONG)
    row[E_SEAT] = owner
    row[E_TILE] = tile
    row[E_HOW] = kind
    row[E_FEEDER] = feeder
    row[E_FLAGS] = 1 if immediate else 0
    row[E_ACTIVE] = active_mask(s)


@njit(cache=True)
def emit_win(s, ev, nev, seat, tile, how, payer, feeder, flags, claimed):
    """A win event with the winner's counts (``claimed``: plus the claimed tile) and melds."""
    fill_win(new_event(ev, nev, EV_WIN), s, seat, tile, how, payer, feeder, flags, claimed)


@njit(cache=True)
def fill_win(row, s, seat, tile, how, payer, feeder, flags, claimed):
    """Write a win (:func:`emit_win`'s fields) into the event row ``row`` (its type already set)."""
    row[E_SEAT] = seat
    row[E_TILE] = tile
    row[E_HOW] = how
    row[E_PAYER] = payer
    row[E_FEEDER] = feeder
    row[E_FLAGS] = flags
    row[E_ACTIVE] = active_mask(s)
    row[E_VOID] = s[VOID + seat]
    row[E_COUNT] = 0
    n = s[NUM_MELDS + seat]
    row[E_NUM_MELDS] = n
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for j in range(MAX_MELDS * MELD_FIELDS):
        row[E_MELDS + j] = s[base + j] if j < n * MELD_FIELDS else -1
    wilds = MELD_WILDS + seat * MAX_MELDS * 2
    for j in range(MAX_MELDS * 2):
        row[E_MELD_WILDS + j] = s[wilds + j] if j < n * 2 else -1
    row[E_INDICATOR] = s[INDICATOR]
    row[E_RED_KONGS] = min(s[RED_KONGS + seat], 4)
    row[E_LAIZI_KONGS] = min(s[LAIZI_KONGS + seat], 4)
    h = HANDS + seat * NK
    for k in range(NK):
        row[E_COUNTS + k] = s[h + k]
    if claimed >= 0:
        row[E_COUNTS + claimed] += 1
    row[E_DEALER] = s[DEALER]
    vf = 0
    baohu = 0
    for q in range(NP):
        if s[BAOHU + q]:
            baohu |= 1 << q
    if s[BAOHU + seat]:
        vf |= VF_BAOHU
        kongs = 0
        for i in range(s[NUM_MELDS + seat]):
            kind = s[MELDS + (seat * MAX_MELDS + i) * MELD_FIELDS]
            kongs += kind == M_KONG or kind == M_ANKONG or kind == M_BUKONG
        row[E_KAB] = min(kongs - s[KONGS_AT_BAOHU + seat], 4)
    else:
        row[E_KAB] = 0
    if how == HOW_QINGHU:
        vf |= VF_QINGHU
    elif payer >= 0:
        if s[BAOHU + payer]:
            vf |= VF_PAYER_BAOHU
        if how == HOW_DIANPAO and s[QINGHU_SEAT] == payer:
            vf |= VF_ON_QINGHU
    row[E_VFLAGS] = vf
    row[E_BAOHU] = baohu


@njit(cache=True)
def dkg_score_event(row, tile, payer_baohu, dgh_dianpao, dkg_rules, stk):
    """``score_dkg`` of the win in event row ``row`` on ``tile``: ``Game._context`` and
    ``DuankagenRules.win_context`` from the event (as ``ledger._situation`` reads them); ``payer_baohu`` -1 takes the
    event's, 0 / 1 replaces it (the per-payer 报胡 price); ``dkg_rules`` is ``score_dkg.rule_vector_dkg``."""
    how = row[E_HOW]
    flags = row[E_FLAGS]
    vf = row[E_VFLAGS]
    robbing = how == HOW_QIANGGANG
    qinghu = how == HOW_QINGHU
    plain = not robbing and not qinghu
    baohu = vf & VF_BAOHU != 0
    pb = vf & VF_PAYER_BAOHU != 0 if payer_baohu < 0 else payer_baohu == 1
    return score_dkg(row[E_COUNTS : E_COUNTS + NK], row[E_MELDS : E_MELDS + MAX_MELDS * MELD_FIELDS],
                     row[E_NUM_MELDS], tile, how == HOW_ZIMO or how == HOW_INSTANT or qinghu, robbing,
                     plain and flags & F_AFTER_KONG != 0, not robbing and flags & F_LAST_TILE != 0,
                     plain and flags & F_TIANHU != 0, plain and flags & F_DIHU != 0,
                     how == HOW_ZIMO and row[E_FEEDER] >= 0 and dgh_dianpao != 0, row[E_SEAT] == row[E_DEALER],
                     baohu, row[E_KAB] if baohu else 0, qinghu, pb, vf & VF_ON_QINGHU != 0, dkg_rules,
                     stk)  # fmt: skip


def _python_value(cfg_id, row):
    """Plain Python (called from :func:`win_value` in object mode): the Python scorer's verdict on a win event row."""
    from envs.compiled.ledger import win_value as python_win_value

    return python_win_value(cfg_id, row)


@njit(cache=True)
def win_ok(s, seat, tile, how, payer, feeder, flags, claimed, rules):
    """Whether ``seat``'s win with the winning shape is legal (:func:`win_value` >= 0)."""
    return win_value(s, seat, tile, how, payer, feeder, flags, claimed, rules) >= 0


@njit(cache=True)
def win_value(s, seat, tile, how, payer, feeder, flags, claimed, rules):
    """-1 when ``seat``'s win with the winning shape (``how`` HOW_*, ``payer`` -1 on a self-draw, the situation
    ``flags``, ``claimed``: a claimed tile) is not legal, else its doublings (0 where no rule reads them).  Asked of
    the compiled scorer (``V_SCORER``: a discard or rob win must score; the doublings of a 过胡 lock), of the compiled
    断卡根 scorer (``V_DKG``: its 小胡 rule and ``DuankagenRules.self_win_ok``) or of the Python scorer
    (``V_PYTHON``: ``Game``'s ``win_rules`` path for what no compiled scorer covers)."""
    row = np.full(EV_SIZE, -1, dtype=np.int32)
    row[E_TYPE] = EV_WIN
    fill_win(row, s, seat, tile, how, payer, feeder, flags, claimed)
    if rules[R_VERDICT] == V_DKG:
        stk = workspace_dkg()[0]
        dkg_rules = rules[R_SCORE : R_SCORE + NUM_DKG_RULES]
        ok, _, _ = dkg_score_event(row, tile, -1, rules[R_DGH_DIANPAO], dkg_rules, stk)
        self_drawn = how == HOW_ZIMO or how == HOW_QINGHU or how == HOW_INSTANT
        if not ok and self_drawn and rules[R_ZIMO_VS_BAOHU] and row[E_BAOHU] & row[E_ACTIVE] & ~(1 << seat):
            ok, _, _ = dkg_score_event(row, tile, 1, rules[R_DGH_DIANPAO], dkg_rules, stk)  # self_win_ok
        return 0 if ok else -1
    if rules[R_VERDICT] == V_YIBIN:
        dp, act, stab, sent, sn, p7, best, scratch = workspace_yibin()
        robbing = how == HOW_QIANGGANG
        self_drawn = how == HOW_ZIMO or how == HOW_INSTANT
        ok, _, dbl = score_yibin(row[E_COUNTS : E_COUNTS + NK], row[E_MELDS : E_MELDS + MAX_MELDS * MELD_FIELDS],
                                 row[E_MELD_WILDS : E_MELD_WILDS + MAX_MELDS * 2], row[E_NUM_MELDS], tile,
                                 row[E_VOID], row[E_INDICATOR], self_drawn, robbing,
                                 not robbing and flags & F_AFTER_KONG != 0, not robbing and flags & F_LAST_TILE != 0,
                                 not robbing and flags & F_TIANHU != 0, not robbing and flags & F_DIHU != 0, False,
                                 how == HOW_ZIMO and feeder >= 0 and rules[R_DGH_DIANPAO] != 0,
                                 rules[R_SCORE : R_SCORE + NUM_YIBIN_RULES], dp, act, stab, sent, sn, p7, best,
                                 scratch)  # fmt: skip
        return dbl if ok else -1
    if rules[R_VERDICT] == V_WUHAN:
        robbing = how == HOW_QIANGGANG
        self_drawn = how == HOW_ZIMO or how == HOW_INSTANT
        ok, _, dbl, _ = score_wuhan(row[E_COUNTS : E_COUNTS + NK], row[E_MELDS : E_MELDS + MAX_MELDS * MELD_FIELDS],
                                    row[E_NUM_MELDS], tile, row[E_INDICATOR], self_drawn, robbing,
                                    not robbing and flags & F_AFTER_KONG != 0,
                                    self_drawn and flags & F_LAST_TILE != 0, row[E_RED_KONGS], row[E_LAIZI_KONGS],
                                    seat == row[E_DEALER], rules[R_SCORE : R_SCORE + NUM_WUHAN_RULES],
                                    *workspace_wuhan())  # fmt: skip
        return dbl if ok else -1
    if rules[R_VERDICT] == V_SCORER:
        tab, ent, ne, best_std, best_7, stk = workspace()
        robbing = how == HOW_QIANGGANG
        n_melds = s[NUM_MELDS + seat]
        ok, _, dbl = score_counts(row[E_COUNTS : E_COUNTS + NK], row[E_MELDS : E_MELDS + MAX_MELDS * MELD_FIELDS],
                                n_melds, tile, s[VOID + seat], False, robbing, flags & F_AFTER_KONG != 0,
                                flags & F_LAST_TILE != 0, False, flags & F_DIHU != 0, False,
                                rules[R_SCORE : R_SCORE + NUM_SCORE_RULES], tab, ent, ne, best_std, best_7,
                                stk)  # fmt: skip
        return dbl if ok else -1
    cfg_id = rules[R_CFG_ID]
    with objmode(value="int64"):
        value = _python_value(cfg_id, row)
    return value


# ---- dealing -----------------------------------------------------------------------------------------------------
@njit(cache=True)
def deal(s, wall, dealer, offset, rules, table, ev, nev):
    """``Game.__init__`` + ``Game._deal``: a fresh hand from ``wall`` (kinds in draw order); without 换三张 and
    定缺 play starts at once (four 红中 may win there: events)."""
    s[:] = 0
    n_tiles = rules[R_NUM_TILES]
    for j in range(WALL_LEN):
        s[WALL + j] = wall[j] if j < n_tiles else -1
    for name in (DRAWN, KONG_FEEDER, CLAIM_TILE, CLAIM_FROM, FIRST_WIN_PAYER, QINGHU_SEAT, WILD2, INDICATOR):
        s[name] = -1
    n_seats = rules[R_NUM_PLAYERS]
    s[NSEATS] = n_seats
    for q in range(NP):
        s[VOID + q] = -1
        s[LAST_DISCARD + q] = -1
        s[DINGQUE_CHOICE + q] = -1
    for q in range(n_seats):  # the empty slots of a smaller table stay inactive
        s[ACTIVE + q] = 1
        s[FIRST_DRAW_PENDING + q] = 1 if q != dealer else 0
    for j in range(NP * MAX_MELDS):
        m = MELDS + j * MELD_FIELDS
        s[m + 1] = -1
        s[m + 2] = -1
        s[MELD_WILDS + 2 * j] = -1
        s[MELD_WILDS + 2 * j + 1] = -1
        s[MELD_CLAIMED + j] = -1
    for j in range(NP * 3):
        s[PICKS + j] = -1
        s[GIVEN + j] = -1
        s[RECEIVED + j] = -1
    s[DEALER] = dealer
    s[CURRENT] = dealer
    s[FIRST_ACTION] = 1
    s[REVEAL] = rules[R_REVEAL]
    s[XUELIU] = rules[R_XUELIU]
    s[WILD] = rules[R_WILD]
    s[WUHAN] = rules[R_WUHAN]
    s[HIDE_ANKONG] = rules[R_HIDE_ANKONG]
    s[EX_OFFSET] = offset
    size = rules[R_HAND_SIZE]
    pos = 0
    for i in range(n_seats):
        seat = (dealer + i) % n_seats
        n = size + (1 if i == 0 else 0)
        for j in range(pos, pos + n):
            s[HANDS + seat * NK + wall[j]] += 1
        pos += n
    s[FRONT] = pos
    s[BACK] = n_tiles
    if rules[R_EXCHANGE]:
        s[PHASE] = PH_EXCHANGE
        for q in range(n_seats):
            s[PENDING + q] = 1
    else:
        s[EX_DONE] = 1
        after_exchange(s, rules, table, ev, nev)


@njit(cache=True)
def after_exchange(s, rules, table, ev, nev):
    if rules[R_DINGQUE]:
        s[PHASE] = PH_DINGQUE
        for q in range(s[NSEATS]):
            s[PENDING + q] = 1
            s[DECISION + q] = 0
    else:
        start_play(s, rules, table, ev, nev)


@njit(cache=True)
def four_red(s, seat, rules):
    """``Game._four_red``: the seat holds the four 红中 (an instant win with ``hz_four_red_instant``)."""
    return rules[R_FOUR_RED] == 1 and s[HANDS + seat * NK + s[WILD]] == 4


@njit(cache=True)
def start_play(s, rules, table, ev, nev):
    """``Game._start_play``: the 本金 flip (Yibin), then the dealer's first turn (its 14th dealt tile plays the part
    of a drawn tile)."""
    if rules[R_TINGYONG] or rules[R_WUHAN]:
        flip_indicator(s, rules)
    dealer = s[DEALER]
    reset_turn(s, dealer)
    last = s[WALL + rules[R_HAND_SIZE]]
    s[DRAWN] = last if s[HANDS + dealer * NK + last] else -1
    enter_self(s, dealer)
    if four_red(s, dealer, rules):
        after_instant(
            s, settle_self_draw(s, dealer, s[WILD], HOW_INSTANT, rules, table, ev, nev), rules, table, ev, nev
        )


@njit(cache=True)
def flip_indicator(s, rules):
    """``Game._flip_indicator``: the next wall tile is the 本金 — its rank neighbours in its suit (wrapping 1 <-> 9)
    are the hand's 听用 (``scoring.tingyong_kinds``) — or Wuhan's indicator, whose successor is the 赖子; it leaves
    the live wall with ``indicator_removed_from_wall``."""
    k = s[WALL + s[FRONT]]
    if rules[R_INDICATOR_REMOVED]:
        s[FRONT] += 1
    s[INDICATOR] = k
    if rules[
        R_WUHAN
    ]:  # the 赖子: the next rank (9 -> 1) or honor, 东南西北发白, skipping 中 (envs.scoring.wuhan_settlement.laizi_of)
        if k < NSUITED:
            s[WILD] = k // 9 * 9 + (k % 9 + 1) % 9
        elif k == 30 or k == RED:
            s[WILD] = 32
        elif k == 33:
            s[WILD] = 27
        else:
            s[WILD] = k + 1
        return
    suit = k // 9
    r = k % 9
    a = suit * 9 + (r + 8) % 9
    b = suit * 9 + (r + 1) % 9
    s[WILD] = min(a, b)
    s[WILD2] = max(a, b)


@njit(cache=True)
def resolve_exchange(s, rules, table, ev, nev):
    """``Game._resolve_exchange``: every seat passes its three tiles to seat + offset."""
    off = s[EX_OFFSET]
    n = s[NSEATS]
    for q in range(n):
        for j in range(3):
            s[HANDS + q * NK + s[PICKS + q * 3 + j]] -= 1
    for q in range(n):
        r = (q + off) % n
        for j in range(3):
            k = s[PICKS + q * 3 + j]
            s[HANDS + r * NK + k] += 1
            s[GIVEN + q * 3 + j] = k
            s[RECEIVED + r * 3 + j] = k
    for q in range(NP):
        s[PICK_COUNT + q] = 0
        for j in range(3):
            s[PICKS + q * 3 + j] = -1
    s[EX_DONE] = 1
    after_exchange(s, rules, table, ev, nev)


@njit(cache=True)
def resolve_dingque(s, rules, table, ev, nev):
    """``Game._resolve_dingque``."""
    for q in range(NP):
        s[VOID + q] = s[DINGQUE_CHOICE + q]
        s[DINGQUE_CHOICE + q] = -1
        s[DECISION + q] = 0
        s[PENDING + q] = 0
    s[VOID_REVEALED] = 1
    start_play(s, rules, table, ev, nev)


# ---- turns -------------------------------------------------------------------------------------------------------
@njit(cache=True)
def clear_locks(s, seat):
    for k in range(NK):
        s[HU_LOCK + seat * NK + k] = 0
        s[PONG_LOCK + seat * NK + k] = 0


@njit(cache=True)
def draw_tile(s, seat, replacement, rules):
    """``Game._draw_tile``."""
    if replacement and rules[R_KONG_FROM_BACK]:
        s[BACK] -= 1
        t = s[WALL + s[BACK]]
    else:
        t = s[WALL + s[FRONT]]
        s[FRONT] += 1
    s[HANDS + seat * NK + t] += 1
    s[DRAWN] = t
    s[DREW_LAST] = 1 if s[FRONT] == s[BACK] else 0
    clear_locks(s, seat)
    return t


@njit(cache=True)
def end_hand(s, ev, nev, exhausted):
    """``Game._end_hand`` (the 查花猪 / 查大叫 / 退税 transfers are the ledger's, from the EV_END event)."""
    s[EXHAUSTED] = 1 if exhausted else 0
    s[OVER] = 1
    s[PHASE] = PH_END
    for q in range(NP):
        s[PENDING + q] = 0
        s[DECISION + q] = 0
        s[OPTIONS + q] = 0
    s[CLAIM_TILE] = -1
    s[CLAIM_FROM] = -1
    s[DRAWN] = -1
    row = new_event(ev, nev, EV_END)
    row[E_HOW] = 1 if exhausted else 0


@njit(cache=True)
def next_turn(s, seat, rules, table, ev, nev):
    """``Game._next_turn``: ``seat`` draws (:func:`begin_draw`) unless 断卡根 asks it to declare 报胡 first; a draw
    completing four 红中 wins at once and the next seat draws (a loop rather than recursion)."""
    while seat >= 0:
        s[CLAIM_TILE] = -1
        s[CLAIM_FROM] = -1
        if wall_remaining(s) == 0:
            end_hand(s, ev, nev, True)
            return
        reset_turn(s, seat)
        if rules[R_DKG]:
            s[QINGHU_SEAT] = -1
            if baohu_asked(s, seat, table):
                return
        seat = begin_draw(s, seat, rules, table, ev, nev)


@njit(cache=True)
def begin_draw(s, seat, rules, table, ev, nev):
    """``Game._begin_draw``; returns the seat that draws next after a four-红中 win, else -1."""
    first = s[FIRST_DRAW_PENDING + seat]
    s[FIRST_DRAW_PENDING + seat] = 0
    s[DIHU_DRAW] = 1 if (first and not s[MELD_MADE]) else 0
    t = draw_tile(s, seat, False, rules)
    enter_self(s, seat)
    if not four_red(s, seat, rules):
        return -1
    nxt = settle_self_draw(s, seat, t, HOW_INSTANT, rules, table, ev, nev)
    if nxt < 0:
        return -1
    code = C_END if rules[R_FOUR_RED_ENDS] else C_DRAW
    if rules[R_BANKRUPTCY]:
        stop(s, code, nxt, -1)
        return -1
    if code == C_END:
        end_hand(s, ev, nev, False)
        return -1
    return nxt


# ---- 断卡根 报胡 / 请胡 (envs.engine.variants.duankagen)
# -------------------------------------------------------------------
@njit(cache=True)
def baohu_asked(s, seat, table):
    """``DuankagenRules.pre_draw``: a non-dealer whose hand is ready, before its first draw, without melds and not
    yet 报胡, is asked BAOHU / PASS (phase DECLARE)."""
    if (
        seat != s[DEALER]
        and s[FIRST_DRAW_PENDING + seat]
        and not s[BAOHU + seat]
        and s[NUM_MELDS + seat] == 0
        and waits_mask(s, seat, table) != 0
    ):
        s[PHASE] = PH_DECLARE
        set_pending_one(s, seat)
        return True
    return False


@njit(cache=True)
def declare_baohu(s, seat):
    """``DuankagenRules._declare``."""
    s[BAOHU + seat] = 1
    kongs = 0
    for i in range(s[NUM_MELDS + seat]):
        kind = s[MELDS + (seat * MAX_MELDS + i) * MELD_FIELDS]
        kongs += kind == M_KONG or kind == M_ANKONG or kind == M_BUKONG
    s[KONGS_AT_BAOHU + seat] = kongs


@njit(cache=True)
def ready_after(s, seat, k, c, table):
    """``duankagen._ready_after``: the seat's hand less ``c`` copies of ``k`` waits on some tile."""
    s[HANDS + seat * NK + k] -= c
    ready = waits_mask(s, seat, table) != 0
    s[HANDS + seat * NK + k] += c
    return ready


@njit(cache=True)
def ready_after_kong(s, seat, k, kind, from_seat, table):
    """The seat's hand stays ready after a kong of ``k`` (``kind`` M_ANKONG / M_KONG / M_BUKONG)."""
    h = HANDS + seat * NK + k
    if kind == M_BUKONG:
        slot = pong_slot(s, seat, k)
        s[slot] = M_BUKONG
        s[h] -= 1
        ready = waits_mask(s, seat, table) != 0
        s[h] += 1
        s[slot] = M_PONG
        return ready
    used = 4 if kind == M_ANKONG else 3
    s[h] -= used
    add_meld(s, seat, kind, k, from_seat)
    ready = waits_mask(s, seat, table) != 0
    drop_last_meld(s, seat)
    s[h] += used
    return ready


@njit(cache=True)
def request_single(s, seat):
    """``duankagen.request_single``: the single of five pairs and one tile (no melds), else -1."""
    if s[NUM_MELDS + seat]:
        return -1
    h = HANDS + seat * NK
    total = 0
    single = -1
    for k in range(NK):
        c = s[h + k]
        total += c
        if c & 1:
            if single >= 0:
                return -1
            single = k
    return single if total == 11 else -1


@njit(cache=True)
def dkg_self_mask(s, seat, rules, table, out):
    """``DuankagenRules.self_actions``: narrow the core's own-turn mask in ``out``."""
    if s[BAOHU_DISCARD]:  # the dealer's 报胡 discard: only discards that keep the hand ready
        out[A_HU] = 0
        for k in range(NK):
            out[A_KONG + k] = 0
            if out[A_DISCARD + k] and not ready_after(s, seat, k, 1, table):
                out[A_DISCARD + k] = 0
        return
    single = request_single(s, seat)
    if s[QINGHU + seat] and single >= 0:  # committed: win, or request again
        for k in range(NK):
            out[A_KONG + k] = 0
            out[A_DISCARD + k] = 0
        out[A_QINGHU + single] = 1
        return
    if s[BAOHU + seat]:  # win, a kong keeping the hand ready, or discard the drawn tile
        h = HANDS + seat * NK
        for k in range(NK):
            if out[A_KONG + k]:
                kind = M_ANKONG if s[h + k] == 4 else M_BUKONG
                if not ready_after_kong(s, seat, k, kind, -1, table):
                    out[A_KONG + k] = 0
            if k != s[DRAWN]:
                out[A_DISCARD + k] = 0
        return
    if seat == s[DEALER] and s[FIRST_ACTION]:
        for k in range(NK):
            if out[A_DISCARD + k] and ready_after(s, seat, k, 1, table):
                out[A_BAOHU] = 1
                break
    if single >= 0:
        out[A_QINGHU + single] = 1


@njit(cache=True)
def dkg_self_step(s, seat, a, rules, table, ev, nev):
    """``DuankagenRules.before_self_step`` and ``self_step``; True when ``a`` was a 断卡根 action (applied here)."""
    if s[BAOHU + seat] and a != A_HU and not s[BAOHU_DISCARD] and can_self_win(s, seat, rules, table):
        s[FORFEIT + seat] = 1  # declining an offered win forfeits winning
    if a < A_DISCARD + NK:
        s[BAOHU_DISCARD] = 0
    if a == A_BAOHU:  # the dealer, with its first discard still to make
        declare_baohu(s, seat)
        s[BAOHU_DISCARD] = 1
        s[FIRST_ACTION] = 0
        enter_self(s, seat)
        return True
    if a >= A_QINGHU and a < A_QINGHU + NK:
        s[QINGHU + seat] = 1
        s[QINGHU_SEAT] = seat
        discard(s, seat, a - A_QINGHU, rules, table, ev, nev)
        return True
    return False


@njit(cache=True)
def window_forfeits(s):
    """``DuankagenRules.window_resolved``: a 报胡 seat that did not take an offered win forfeits winning."""
    for q in range(NP):
        if s[BAOHU + q] and s[OPTIONS + q] & O_HU and s[DECISION + q] != O_HU:
            s[FORFEIT + q] = 1


@njit(cache=True)
def after_unclaimed(s, seat, rules, table, ev, nev):
    """``Game._after_unclaimed``: the next seat draws — or an untaken 请胡 single wins for its requester
    (``DuankagenRules.after_unclaimed`` → ``Game.settle_request_win``)."""
    if rules[R_DKG] and s[QINGHU_SEAT] == seat:
        s[QINGHU_SEAT] = -1
        nxt = settle_self_draw(s, seat, s[LAST_DISCARD + seat], HOW_QINGHU, rules, table, ev, nev)
        if nxt >= 0:
            proceed(s, C_DRAW, nxt, -1, rules, table, ev, nev)
        return
    next_turn(s, next_active(s, seat), rules, table, ev, nev)


@njit(cache=True)
def after_instant(s, nxt, rules, table, ev, nev):
    """After a four-红中 win outside a turn's draw (``nxt``: the next seat, -1 when the wins ended the hand): the
    hand ends with ``hz_four_red_ends_hand``, else ``nxt`` draws — or the kernel stops for the ledger first."""
    if nxt < 0:
        return
    code = C_END if rules[R_FOUR_RED_ENDS] else C_DRAW
    if rules[R_BANKRUPTCY]:
        stop(s, code, nxt, -1)
    elif code == C_END:
        end_hand(s, ev, nev, False)
    else:
        next_turn(s, nxt, rules, table, ev, nev)


@njit(cache=True)
def stop(s, code, seat, arg):
    """Store what the hand does next and return: the ledger settles the payments first (a seat may go bankrupt,
    ``Game._check_bankrupt``), then calls :func:`resume` or :func:`end_bankrupt`."""
    s[CONT] = code
    s[CONT_SEAT] = seat
    s[CONT_ARG] = arg


@njit(cache=True)
def proceed(s, code, seat, arg, rules, table, ev, nev):
    """Go on after a payment (``code``: a ``C_*`` continuation of ``seat``), or stop for the ledger when payments can
    bankrupt a seat."""
    if rules[R_BANKRUPTCY]:
        stop(s, code, seat, arg)
    else:
        go_on(s, code, seat, arg, rules, table, ev, nev)


@njit(cache=True)
def go_on(s, code, seat, arg, rules, table, ev, nev):
    if code == C_DRAW:
        next_turn(s, seat, rules, table, ev, nev)
    elif code == C_REPLACEMENT:
        if arg >= 0:
            s[KONG_FEEDER] = arg  # a claimed kong's discarder (杠上花 / 点杠花)
        replacement_draw(s, seat, rules, table, ev, nev)
    elif code == C_END:
        end_hand(s, ev, nev, False)


@njit(cache=True)
def resume(s, rules, table, ev, nev):
    """The ledger found nobody bankrupt: do what the stored continuation says."""
    code, seat, arg = s[CONT], s[CONT_SEAT], s[CONT_ARG]
    stop(s, C_NONE, 0, 0)
    go_on(s, code, seat, arg, rules, table, ev, nev)


@njit(cache=True)
def end_bankrupt(s, ev, nev):
    """The ledger found a seat below zero: the hand ends at once (``Game._check_bankrupt``)."""
    stop(s, C_NONE, 0, 0)
    end_hand(s, ev, nev, False)


@njit(cache=True)
def replacement_draw(s, seat, rules, table, ev, nev):
    """``Game._replacement_draw``."""
    if wall_remaining(s) == 0:
        end_hand(s, ev, nev, True)
        return
    s[DIHU_DRAW] = 0
    s[AFTER_PONG] = 0
    t = draw_tile(s, seat, True, rules)
    s[AFTER_KONG] = 1
    enter_self(s, seat)
    if four_red(s, seat, rules):
        after_instant(s, settle_self_draw(s, seat, t, HOW_INSTANT, rules, table, ev, nev), rules, table, ev, nev)


@njit(cache=True)
def add_meld(s, seat, kind, k, from_seat):
    i = s[NUM_MELDS + seat]
    m = MELDS + seat * MAX_MELDS * MELD_FIELDS + i * MELD_FIELDS
    s[m] = kind
    s[m + 1] = k
    s[m + 2] = from_seat
    s[NUM_MELDS + seat] = i + 1


# ---- 武汉 吃, 红中杠 / 赖子杠, 海底 (envs.engine.variants.wuhan)
# ----------------------------------------------------------
@njit(cache=True)
def chi_options(s, seat, k):
    """``wuhan.chi_runs``: the ``O_CHI << c`` bits of the runs ``seat`` can make with the discard ``k`` as their low
    (c = 0), middle (1) or high (2) tile, with two tiles of its hand that are neither 红中 nor the 赖子."""
    if k >= NSUITED:
        return 0
    h = HANDS + seat * NK
    rank = k % 9
    out = 0
    for c in range(3):
        if not 0 <= rank - c <= 6:
            continue
        low = k - c
        ok = True
        for t in range(low, low + 3):
            if t != k and (s[h + t] == 0 or is_wild(s, t)):
                ok = False
        if ok:
            out |= O_CHI << c
    return out


@njit(cache=True)
def claim_chi(s, seat, k, from_seat, choice):
    """``WuhanRules.claim_meld``: the run with the discard ``k`` at position ``choice`` (``O_CHI << c``)."""
    c = 0 if choice == O_CHI else (1 if choice == O_CHI << 1 else 2)
    low = k - c
    for t in range(low, low + 3):
        if t != k:
            s[HANDS + seat * NK + t] -= 1
    i = s[NUM_MELDS + seat]
    add_meld(s, seat, M_CHI, low, from_seat)
    s[MELD_CLAIMED + seat * MAX_MELDS + i] = k


@njit(cache=True)
def play_kong_tile(s, seat, k, rules, table, ev, nev):
    """``Game.play_kong_tile`` (红中杠 / 赖子杠): ``k`` goes face up to the seat's river, nobody may claim it, and the
    seat draws a replacement (杠上开花 possible)."""
    s[FIRST_ACTION] = 0
    s[HANDS + seat * NK + k] -= 1
    s[DISCARDS + seat * NK + k] += 1
    s[LAST_DISCARD + seat] = k
    if k == RED:
        s[RED_KONGS + seat] += 1
    else:
        s[LAIZI_KONGS + seat] += 1
    s[TURN_KONGS] += 1
    s[KONG_FEEDER] = -1
    replacement_draw(s, seat, rules, table, ev, nev)


@njit(cache=True)
def wuhan_self_mask(s, seat, rules, out):
    """``WuhanRules.self_actions``: narrow or extend the core's own-turn mask in ``out``."""
    h = HANDS + seat * NK
    laizi = s[WILD]
    t = s[DRAWN]
    wall = wall_remaining(s)
    if wall < rules[R_HAIDI] and t >= 0 and not s[AFTER_PONG]:  # a draw of the 海底: win, or lay the tile down
        hu = out[A_HU]
        out[:] = 0
        out[A_HU] = hu
        out[A_DISCARD + t] = 1
        return
    if wall <= rules[R_HAIDI]:
        for k in range(NK):
            out[A_KONG + k] = 0
    else:
        if s[h + RED]:
            out[A_RED_KONG] = 1
        if s[h + laizi] and rules[R_LAIZI_GANG]:
            out[A_LAIZI_KONG] = 1
    for k in range(NK):
        if out[A_DISCARD + k]:
            return
    if out[A_RED_KONG] or out[A_LAIZI_KONG]:
        return
    if s[h + RED]:  # only 红中 / 赖子 left and no kong possible: lay one down, dead
        out[A_DISCARD + RED] = 1
    if s[h + laizi] and rules[R_LAIZI_GANG]:
        out[A_DISCARD + laizi] = 1


# ---- 宜宾 飞 / 提 (envs.engine.variants.yibin)
# ------------------------------------------------------------------------------
@njit(cache=True)
def leaves_discard(s, seat, k, c):
    """``yibin._leaves_discard``: the seat's hand still holds a tile that is not a 听用 after ``c`` natural ``k``
    leave it."""
    h = HANDS + seat * NK
    left = -c
    for j in range(NK):
        if not is_wild(s, j):
            left += s[h + j]
    return left > 0


@njit(cache=True)
def fei_naturals(s, seat, k, rules):
    """``yibin.fei_tiles``: the natural ``k`` (0 or 1) a 飞 of the discard ``k`` by ``seat`` would use, -1 when the
    seat cannot 飞 (a meld of ``k`` already, too few 听用, or no tile it could discard afterwards)."""
    max_wild = rules[R_FEI_MAX]
    if max_wild < 1:
        return -1
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        if s[base + i * MELD_FIELDS + 1] == k:
            return -1  # a second triplet of one kind would stand for more than four copies
    h = HANDS + seat * NK
    naturals = 1 if s[h + k] >= 1 else 0
    need = 2 - naturals
    if need > max_wild or s[h + s[WILD]] + s[h + s[WILD2]] < need:
        return -1
    if not leaves_discard(s, seat, k, naturals):
        return -1
    return naturals


@njit(cache=True)
def claim_fei(s, seat, k, from_seat, rules):
    """``YibinRules.claim_meld``: the natural ``k`` and the lowest 听用 kinds held make the 飞 meld {k, k, 听用}."""
    naturals = fei_naturals(s, seat, k, rules)
    h = HANDS + seat * NK
    s[h + k] -= naturals
    i = s[NUM_MELDS + seat]
    add_meld(s, seat, M_FEI, k, from_seat)
    slot = MELD_WILDS + (seat * MAX_MELDS + i) * 2
    used = 0
    for w in (s[WILD], s[WILD2]):
        while used < 2 - naturals and s[h + w] > 0:
            s[h + w] -= 1
            s[slot + used] = w
            used += 1


@njit(cache=True)
def fei_slot(s, seat, t):
    """The index (0-3) of the seat's 飞 meld of ``t``, -1 when it has none."""
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        if s[m] == M_FEI and s[m + 1] == t:
            return i
    return -1


@njit(cache=True)
def ti_step(s, seat, t):
    """``YibinRules.self_step`` of 提 ``t``: the drawn natural ``t`` replaces the last 听用 of the seat's 飞 of ``t``
    (a 飞 left without 听用 is a pong), the 听用 comes back as the turn's drawn tile and the turn goes on."""
    i = fei_slot(s, seat, t)
    m = MELDS + (seat * MAX_MELDS + i) * MELD_FIELDS
    slot = MELD_WILDS + (seat * MAX_MELDS + i) * 2
    j = 1 if s[slot + 1] >= 0 else 0
    back = s[slot + j]
    s[slot + j] = -1
    if j == 0:
        s[m] = M_PONG
    h = HANDS + seat * NK
    s[h + t] -= 1
    s[h + back] += 1
    s[DRAWN] = back
    s[FIRST_ACTION] = 0
    enter_self(s, seat)


@njit(cache=True)
def drop_last_meld(s, seat):
    """Undo :func:`add_meld` (a meld tried out): the slot is unused again, ``(M_NONE, -1, -1)``."""
    i = s[NUM_MELDS + seat] - 1
    m = MELDS + seat * MAX_MELDS * MELD_FIELDS + i * MELD_FIELDS
    s[m] = M_NONE
    s[m + 1] = -1
    s[m + 2] = -1
    s[NUM_MELDS + seat] = i


@njit(cache=True)
def pay_kong(s, ev, nev, owner, kind, tile, feeder, immediate):
    """``Game._pay_kong``: count the turn's kong; the ledger pays it."""
    s[TURN_KONGS] += 1
    emit_kong(s, ev, nev, owner, kind, tile, feeder, immediate)


@njit(cache=True)
def concealed_kong(s, seat, k, rules, table, ev, nev):
    s[HANDS + seat * NK + k] -= 4
    add_meld(s, seat, M_ANKONG, k, -1)
    s[MELD_MADE] = 1
    s[KONG_FEEDER] = -1
    pay_kong(s, ev, nev, seat, M_ANKONG, k, -1, True)
    proceed(s, C_REPLACEMENT, seat, -1, rules, table, ev, nev)


@njit(cache=True)
def complete_added_kong(s, seat, k, rules, table, ev, nev):
    """``Game._complete_added_kong``."""
    immediate = k == s[DRAWN]
    s[HANDS + seat * NK + k] -= 1
    s[pong_slot(s, seat, k)] = M_BUKONG  # the pong becomes the added kong, keeping its from_seat
    s[MELD_MADE] = 1
    s[KONG_FEEDER] = -1
    pay_kong(s, ev, nev, seat, M_BUKONG, k, -1, immediate)
    proceed(s, C_REPLACEMENT, seat, -1, rules, table, ev, nev)


@njit(cache=True)
def hu_offer(s, q, k, payer, robbing, rules, table):
    """``Game._hu_offer``: -1 when ``q`` may not win on ``payer``'s discard / robbed kong tile ``k``, else the win's
    doublings where a rule reads them (0 otherwise).  Without ``allow_pinghu_on_discard``, with a variant's win
    minimums or with ``pass_hu_allow_higher`` the scorer must accept the win too; a 过胡 lock on ``k`` (its value is
    the declined win's doublings + 1) refuses it, or with ``pass_hu_allow_higher`` keeps only a win worth more."""
    if not may_win(s, q):
        return -1
    if not wins_on(s, q, k, table):
        return -1
    locked = s[HU_LOCK + q * NK + k] - 1 if rules[R_HU_LOCK] else -1
    if locked >= 0 and not rules[R_HU_HIGHER]:
        return -1
    if rules[R_VERDICT] == V_SHAPE:
        return 0
    how = HOW_QIANGGANG if robbing else HOW_DIANPAO
    d = win_value(s, q, k, how, payer, -1, discard_win_flags(s, q, payer, robbing, rules), k, rules)
    if d < 0 or (locked >= 0 and d <= locked):
        return -1
    return d


@njit(cache=True)
def forced(s, rules):
    """``Game._forced``: the live wall holds at most ``forced_hu_last_n`` tiles — a possible win must be taken."""
    return rules[R_FORCED] > 0 and wall_remaining(s) <= rules[R_FORCED]


@njit(cache=True)
def offer_hu(s, q, value, rules):
    """Record a HU offer of ``value`` doublings to ``q`` in the window being opened: HU alone when it is forced."""
    s[OPTIONS + q] = O_HU if forced(s, rules) else O_HU | O_PASS
    if rules[R_HU_HIGHER]:
        s[HU_VALUE + q] = value


@njit(cache=True)
def open_window(s, phase, seat, k):
    s[PHASE] = phase
    s[CLAIM_TILE] = k
    s[CLAIM_FROM] = seat
    for q in range(NP):
        s[PENDING + q] = 1 if s[OPTIONS + q] else 0
        s[DECISION + q] = 0


@njit(cache=True)
def declare_added_kong(s, seat, k, rules, table, ev, nev):
    """``Game._declare_added_kong``: a rob window when someone may win on ``k`` (抢杠), else the kong completes."""
    any_option = False
    for q in range(NP):
        s[OPTIONS + q] = 0
        if q == seat or not s[ACTIVE + q]:
            continue
        value = hu_offer(s, q, k, seat, True, rules, table)
        if value >= 0:
            offer_hu(s, q, value, rules)
            any_option = True
    if any_option:
        open_window(s, PH_ROB, seat, k)
    else:
        complete_added_kong(s, seat, k, rules, table, ev, nev)


@njit(cache=True)
def discard(s, seat, k, rules, table, ev, nev):
    """``Game._discard`` + ``Game._claim_options``."""
    s[FIRST_ACTION] = 0
    s[HANDS + seat * NK + k] -= 1
    s[DISCARDS + seat * NK + k] += 1
    s[LAST_DISCARD + seat] = k
    s[DISCARD_COUNT] += 1
    s[DRAWN] = -1
    s[AFTER_PONG] = 0
    claims_open = wall_remaining(s) > 0 or rules[R_CLAIMS_LAST_ALL] == 1
    kong_ok = claims_open and kong_possible(s, rules)
    # dead discards: a 红中 (AMB-68), Wuhan's 红中 / 赖子 laid down and every discard of its 海底 (discard_dead)
    dead = k == s[WILD] or (rules[R_WUHAN] and (k == RED or wall_remaining(s) <= rules[R_HAIDI]))
    chi_seat = (seat + 1) % s[NSEATS] if rules[R_CHI] else -1
    any_option = False
    for q in range(NP):
        s[OPTIONS + q] = 0
        if q == seat or not s[ACTIVE + q] or dead:
            continue
        opts = 0
        value = hu_offer(s, q, k, seat, False, rules, table)
        if value >= 0:
            offer_hu(s, q, value, rules)
            if forced(s, rules):
                any_option = True
                continue
            opts |= O_HU
        if claims_open and not kind_blocked(s, q, k):
            c = s[HANDS + q * NK + k]
            if frozen(s, q):
                if kong_ok and c == 3 and frozen_kong_ok(s, q, k, True, rules, table):
                    opts |= O_KONG
            else:
                if kong_ok and c == 3:
                    opts |= O_KONG
                if c >= 2 and not s[PONG_LOCK + q * NK + k]:
                    opts |= O_PONG
                if q == chi_seat:  # WuhanRules.meld_options: 吃 by the discarder's next seat
                    opts |= chi_options(s, q, k)
                if rules[R_TINGYONG]:  # YibinRules.meld_options
                    if opts & O_PONG and not leaves_discard(s, q, k, 2):
                        opts &= ~O_PONG  # only 听用 would remain: no discard possible, 飞 must be used
                    if not s[PONG_LOCK + q * NK + k] and fei_naturals(s, q, k, rules) >= 0:
                        opts |= O_FEI
                if rules[R_DKG]:  # DuankagenRules.meld_options
                    if s[QINGHU_SEAT] == seat or s[QINGHU + q]:  # 请胡 singles are only won; requesters keep pairs
                        opts &= O_HU
                    elif s[BAOHU + q]:  # no pong; a kong only when the hand stays ready
                        opts &= ~O_PONG
                        if opts & O_KONG and not ready_after_kong(s, q, k, M_KONG, seat, table):
                            opts &= ~O_KONG
        if opts:
            s[OPTIONS + q] = opts | O_PASS
            any_option = True
    if any_option:
        open_window(s, PH_CLAIM, seat, k)
    else:
        after_unclaimed(s, seat, rules, table, ev, nev)


@njit(cache=True)
def mark_won(s, seat):
    """``Game._mark_won``: a 血战 winner leaves the hand, a 血流 winner plays on frozen."""
    s[WON + seat] = 1
    if not s[XUELIU]:
        s[ACTIVE + seat] = 0


@njit(cache=True)
def finished_by_wins(s, rules):
    if rules[R_SINGLE]:
        return True
    if s[XUELIU]:
        return False
    won = 0
    for q in range(NP):
        won += s[WON + q]
    return won >= s[NSEATS] - 1


@njit(cache=True)
def settle_self_draw(s, seat, t, how, rules, table, ev, nev):
    """``Game._settle_self_draw`` of a 自摸 (``t``: the drawn tile, -1 for a 天胡 without one: the ledger picks the
    tile), a four-红中 win (``t`` the tile just drawn) or a 断卡根 请胡 (``t`` the untaken single, already among the
    discards).  Returns the seat that draws next, -1 when the hand ended."""
    if how == HOW_QINGHU:  # a self-draw without 天胡 / 地胡 / 杠上开花 (Game._context)
        flags = F_LAST_TILE if s[DREW_LAST] else 0
    else:
        flags = self_win_flags(s, seat, rules)
    feeder = s[KONG_FEEDER] if (how == HOW_ZIMO and s[AFTER_KONG]) else -1
    emit_win(s, ev, nev, seat, t, how, -1, feeder, flags, -1 if how != HOW_QINGHU else t)
    if how == HOW_QINGHU:
        s[WIN_TILES + seat * NK + t] += 1
    elif t >= 0:  # without a drawn tile (天胡 after 换三张) the ledger chooses the tile and updates the row
        s[HANDS + seat * NK + t] -= 1
        s[SHOWN_WIN_TILES + t] += 1
        s[WIN_TILES + seat * NK + t] += 1
    s[NUM_WINS] += 1
    if s[FIRST_WIN_SEATS] == 0:
        s[FIRST_WIN_SEATS] = 1 << seat
        s[FIRST_WIN_PAYER] = -1
    s[FIRST_ACTION] = 0
    mark_won(s, seat)
    if finished_by_wins(s, rules):
        end_hand(s, ev, nev, False)
        return -1
    return next_active(s, seat)


@njit(cache=True)
def discard_win_flags(s, q, payer, robbing, rules):
    """The situation (``F_*``) of ``q``'s win on ``payer``'s discard (杠上炮, 海底炮, 地胡) or robbed kong (none)."""
    f = 0
    if robbing:
        return f
    current = s[CURRENT]
    if s[TURN_KONGS] > 0 and payer == current:
        f |= F_AFTER_KONG
    if s[DREW_LAST] and payer == current and not rules[R_WUHAN]:  # Wuhan: no 海底 on a discard
        f |= F_LAST_TILE
    if rules[R_DIHU_DISCARD] and payer == s[DEALER] and s[DISCARD_COUNT] == 1 and not s[MELD_MADE] and not s[WON + q]:
        f |= F_DIHU
    return f


@njit(cache=True)
def discard_wins(s, winners, payer, k, robbing, rules, table, ev, nev):
    """``Game._discard_wins``: the seats of bitmask ``winners`` win on ``k`` (a discard, or 抢杠 when ``robbing``)."""
    current = s[CURRENT]
    order_last = -1
    n = s[NSEATS]
    for i in range(1, n):
        q = (payer + i) % n
        if not winners >> q & 1:
            continue
        f = discard_win_flags(s, q, payer, robbing, rules)
        emit_win(s, ev, nev, q, k, HOW_QIANGGANG if robbing else HOW_DIANPAO, payer, -1, f, k)
        order_last = q
    s[CLAIM_TILE] = -1
    s[CLAIM_FROM] = -1
    if robbing:
        s[HANDS + payer * NK + k] -= 1
        s[SHOWN_WIN_TILES + k] += 1
    if not robbing and payer == current and s[TURN_KONGS] > 0:
        row = new_event(ev, nev, EV_CALL)
        row[E_PAYER] = payer
        row[E_ACTIVE] = winners
        row[E_COUNT] = s[TURN_KONGS]
    for q in range(NP):
        if winners >> q & 1:
            s[WIN_TILES + q * NK + k] += 1
            s[NUM_WINS] += 1
    if s[FIRST_WIN_SEATS] == 0:
        s[FIRST_WIN_SEATS] = winners
        s[FIRST_WIN_PAYER] = payer
    s[FIRST_ACTION] = 0
    for q in range(NP):
        if winners >> q & 1:
            mark_won(s, q)
    if finished_by_wins(s, rules):
        end_hand(s, ev, nev, False)
        return
    nxt = next_active(s, payer) if robbing and rules[R_AFTER_ROBBED] else next_active(s, order_last)
    proceed(s, C_DRAW, nxt, -1, rules, table, ev, nev)


@njit(cache=True)
def apply_pass_locks(s, rules):
    """``Game._apply_pass_locks``."""
    k = s[CLAIM_TILE]
    for q in range(NP):
        opts = s[OPTIONS + q]
        if not opts:
            continue
        choice = s[DECISION + q]
        if choice != O_HU and opts & O_HU and rules[R_HU_LOCK]:
            v = s[HU_VALUE + q] + 1 if rules[R_HU_HIGHER] else 1
            if s[HU_LOCK + q * NK + k] < v:
                s[HU_LOCK + q * NK + k] = v
        if choice == O_PASS and rules[R_PONG_LOCK] and opts & (O_PONG | O_FEI):
            s[PONG_LOCK + q * NK + k] = 1


@njit(cache=True)
def hu_claimants(s, payer, rules):
    winners = 0
    n = s[NSEATS]
    for i in range(1, n):
        q = (payer + i) % n
        if s[OPTIONS + q] and s[DECISION + q] == O_HU:
            winners |= 1 << q
            if not rules[R_MULTI_RON]:
                break
    return winners


@njit(cache=True)
def close_window(s):
    for q in range(NP):
        s[OPTIONS + q] = 0
        s[DECISION + q] = 0
        s[PENDING + q] = 0
        s[HU_VALUE + q] = 0


@njit(cache=True)
def resolve_claims(s, rules, table, ev, nev):
    """``Game._resolve_claims``: wins first, then a kong or pong, else the next seat draws."""
    k = s[CLAIM_TILE]
    p = s[CLAIM_FROM]
    apply_pass_locks(s, rules)
    if rules[R_DKG]:
        window_forfeits(s)
    winners = hu_claimants(s, p, rules)
    if winners:
        close_window(s)
        discard_wins(s, winners, p, k, False, rules, table, ev, nev)
        return
    claimer = -1
    choice = 0
    n = s[NSEATS]
    for i in range(1, n):  # KONG = PONG = 飞 in turn order, then 吃 (Game._meld_claim)
        q = (p + i) % n
        d = s[DECISION + q]
        if s[OPTIONS + q] and (d == O_KONG or d == O_PONG or d == O_FEI):
            claimer = q
            choice = d
            break
    if claimer < 0:
        for i in range(1, n):
            q = (p + i) % n
            if s[OPTIONS + q] and s[DECISION + q] >= O_CHI:
                claimer = q
                choice = s[DECISION + q]
                break
    close_window(s)
    if claimer < 0:
        after_unclaimed(s, p, rules, table, ev, nev)
        return
    q = claimer
    reset_turn(s, q)
    s[MELD_MADE] = 1
    s[CLAIM_TILE] = -1
    s[CLAIM_FROM] = -1
    if choice == O_KONG:
        s[HANDS + q * NK + k] -= 3
        add_meld(s, q, M_KONG, k, p)
        pay_kong(s, ev, nev, q, M_KONG, k, p, True)
        proceed(s, C_REPLACEMENT, q, p, rules, table, ev, nev)
    else:
        if choice == O_FEI:
            claim_fei(s, q, k, p, rules)
        elif choice >= O_CHI:
            claim_chi(s, q, k, p, choice)
        else:
            s[HANDS + q * NK + k] -= 2
            add_meld(s, q, M_PONG, k, p)
        s[DRAWN] = -1
        s[AFTER_PONG] = 1
        enter_self(s, q)


@njit(cache=True)
def resolve_rob(s, rules, table, ev, nev):
    """``Game._resolve_rob``: 抢杠 winners, else the added kong completes."""
    k = s[CLAIM_TILE]
    p = s[CLAIM_FROM]
    apply_pass_locks(s, rules)
    if rules[R_DKG]:
        window_forfeits(s)
    winners = hu_claimants(s, p, rules)
    close_window(s)
    if winners:
        discard_wins(s, winners, p, k, True, rules, table, ev, nev)
    else:
        s[CLAIM_TILE] = -1
        s[CLAIM_FROM] = -1
        complete_added_kong(s, p, k, rules, table, ev, nev)


# ---- legal actions -----------------------------------------------------------------------------------------------
@njit(cache=True)
def exchange_mask(s, seat, out):
    """换三张 pick-by-pick mask: kinds extending the seat's picks towards three tiles of one suit."""
    h = HANDS + seat * NK
    n = s[PICK_COUNT + seat]
    if n == 0:
        for suit in range(3):
            total = 0
            for r in range(9):
                total += s[h + suit * 9 + r]
            if total >= 3:
                for r in range(9):
                    if s[h + suit * 9 + r]:
                        out[A_EXCHANGE + suit * 9 + r] = 1
        return
    suit = s[PICKS + seat * 3] // 9
    for r in range(9):
        k = suit * 9 + r
        used = 0
        for j in range(n):
            if s[PICKS + seat * 3 + j] == k:
                used += 1
        if s[h + k] > used:
            out[A_EXCHANGE + k] = 1


@njit(cache=True)
def self_mask(s, seat, rules, table, out):
    """``Game._self_actions`` (no variant hooks)."""
    h = HANDS + seat * NK
    if can_self_win(s, seat, rules, table):
        out[A_HU] = 1
        if forced(s, rules):
            return
    if frozen(s, seat):  # only the drawn tile moves: a kong keeping the waits, or its discard
        t = s[DRAWN]
        if kong_possible(s, rules) and frozen_kong_ok(s, seat, t, False, rules, table):
            out[A_KONG + t] = 1
        out[A_DISCARD + t] = 1
        return
    if (not s[AFTER_PONG] or rules[R_WUHAN]) and kong_possible(s, rules):  # Wuhan: kongs after a claim too
        for k in range(NK):
            c = s[h + k]
            if c == 0 or kind_blocked(s, seat, k):
                continue
            if c == 4 or pong_slot(s, seat, k) >= 0:
                out[A_KONG + k] = 1
    if rules[R_MUST_VOID_FIRST] and holds_void(s, seat):
        v = s[VOID + seat] * 9
        for k in range(v, v + 9):
            if s[h + k]:
                out[A_DISCARD + k] = 1
    else:
        for k in range(NK):
            if s[h + k]:
                out[A_DISCARD + k] = 1
    if rules[R_WUHAN]:  # 红中 (and the 赖子) are played out as kongs, never discarded
        out[A_DISCARD + RED] = 0
        if rules[R_LAIZI_GANG]:
            out[A_DISCARD + s[WILD]] = 0
        wuhan_self_mask(s, seat, rules, out)
    if rules[R_TINGYONG]:  # 听用 are never discarded; 提 of the drawn natural tile into a 飞 of its kind
        out[A_DISCARD + s[WILD]] = 0
        out[A_DISCARD + s[WILD2]] = 0
        t = s[DRAWN]
        if t >= 0 and not is_wild(s, t) and not s[AFTER_PONG] and fei_slot(s, seat, t) >= 0:
            out[A_TI + t] = 1
    if rules[R_DKG]:
        dkg_self_mask(s, seat, rules, table, out)


@njit(cache=True)
def legal_mask(s, seat, rules, table, out):
    """The flat legal mask of ``seat`` now (``envs.engine.observation.game_mask``), written into ``out`` (183 int8)."""
    out[:] = 0
    if s[OVER] or not s[PENDING + seat]:
        return
    ph = s[PHASE]
    if ph == PH_SELF:
        self_mask(s, seat, rules, table, out)
    elif ph == PH_CLAIM or ph == PH_ROB:
        opts = s[OPTIONS + seat]
        if opts & O_HU:
            out[A_HU] = 1
        if opts & O_PONG:
            out[A_PONG] = 1
        if opts & O_FEI:
            out[A_FEI] = 1
        for c in range(3):
            if opts & O_CHI << c:
                out[A_CHI + c] = 1
        if opts & O_KONG:
            out[A_KONG + s[CLAIM_TILE]] = 1
        if opts & O_PASS:
            out[A_PASS] = 1
    elif ph == PH_EXCHANGE:
        exchange_mask(s, seat, out)
    elif ph == PH_DINGQUE:
        for suit in range(3):
            if rules[R_SUITS] >> suit & 1:
                out[A_DINGQUE + suit] = 1
    elif ph == PH_DECLARE:
        out[A_BAOHU] = 1
        out[A_PASS] = 1


# ---- one decision ------------------------------------------------------------------------------------------------
@njit(cache=True)
def all_answered(s):
    for q in range(NP):
        if s[PENDING + q]:
            return False
    return True


@njit(cache=True)
def sort3(s, at):
    a, b, c = s[at], s[at + 1], s[at + 2]
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    s[at], s[at + 1], s[at + 2] = a, b, c


@njit(cache=True)
def apply_action(s, seat, a, rules, table, ev, nev):
    """Apply flat action ``a`` of ``seat`` (legal: the caller checked the mask).  Returns False for a 换三张 pick
    that does not complete the seat's triple (the engine has not seen a decision yet), else True."""
    ph = s[PHASE]
    if ph == PH_SELF:
        if rules[R_DKG] and dkg_self_step(s, seat, a, rules, table, ev, nev):
            return True
        if a == A_HU:
            nxt = settle_self_draw(s, seat, s[DRAWN], HOW_ZIMO, rules, table, ev, nev)
            if nxt >= 0:
                proceed(s, C_DRAW, nxt, -1, rules, table, ev, nev)
        elif a >= A_TI and a < A_TI + NK:
            ti_step(s, seat, a - A_TI)
        elif a == A_RED_KONG:
            play_kong_tile(s, seat, RED, rules, table, ev, nev)
        elif a == A_LAIZI_KONG:
            play_kong_tile(s, seat, s[WILD], rules, table, ev, nev)
        elif a >= A_KONG and a < A_KONG + NK:
            k = a - A_KONG
            s[FIRST_ACTION] = 0
            if s[HANDS + seat * NK + k] == 4:
                concealed_kong(s, seat, k, rules, table, ev, nev)
            else:
                declare_added_kong(s, seat, k, rules, table, ev, nev)
        else:
            discard(s, seat, a - A_DISCARD, rules, table, ev, nev)
        return True
    if ph == PH_EXCHANGE:
        n = s[PICK_COUNT + seat]
        s[PICKS + seat * 3 + n] = a - A_EXCHANGE
        s[PICK_COUNT + seat] = n + 1
        if n + 1 < 3:
            return False
        sort3(s, PICKS + seat * 3)  # the engine's triple is sorted
        s[PENDING + seat] = 0
        if all_answered(s):
            resolve_exchange(s, rules, table, ev, nev)
        return True
    if ph == PH_DINGQUE:
        s[DINGQUE_CHOICE + seat] = a - A_DINGQUE
        s[PENDING + seat] = 0
        if all_answered(s):
            resolve_dingque(s, rules, table, ev, nev)
        return True
    if ph == PH_DECLARE:  # 断卡根 报胡 before the first draw (DuankagenRules.declare_step), then the draw
        if a == A_BAOHU:
            declare_baohu(s, seat)
        nxt = begin_draw(s, seat, rules, table, ev, nev)
        if nxt >= 0:
            next_turn(s, nxt, rules, table, ev, nev)
        return True
    # claim / rob window
    if a == A_HU:
        d = O_HU
    elif a == A_PONG:
        d = O_PONG
    elif a == A_PASS:
        d = O_PASS
    elif a == A_FEI:
        d = O_FEI
    elif a >= A_CHI and a < A_CHI + 3:
        d = O_CHI << (a - A_CHI)
    else:
        d = O_KONG
    s[DECISION + seat] = d
    s[PENDING + seat] = 0
    if all_answered(s):
        if ph == PH_CLAIM:
            resolve_claims(s, rules, table, ev, nev)
        else:
            resolve_rob(s, rules, table, ev, nev)
    return True


def empty_events(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Event buffers for ``n`` hands: ``(events (n, MAX_EVENTS, EV_SIZE), counts (n,))``."""
    return np.zeros((n, MAX_EVENTS, EV_SIZE), dtype=np.int32), np.zeros(n, dtype=np.int32)
