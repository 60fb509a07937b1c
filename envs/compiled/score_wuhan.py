"""Compiled 武汉 红中赖子杠 scoring (编译计分, RULES.md §4.8): whether a Wuhan hand wins, its value and what each loser
pays, in numba.

The numba counterparts of :func:`envs.scoring.judge.score` (→ :func:`envs.scoring.scorer.score_win`) for the ``wuhan``
fan table and of :func:`envs.scoring.wuhan_settlement.wuhan_settlement` (what
:meth:`envs.engine.variants.wuhan.WuhanRules.settle_win` asks).
:func:`score_wuhan` answers ``(is_win, multiplier, doublings, flags)``: ``multiplier`` and ``doublings`` are
``ScoreResult.multiplier`` (base × M(W)) and ``ScoreResult.doublings or 0``, and ``flags`` holds one ``WF_*`` bit per
key of ``ScoreResult.breakdown`` (:data:`FLAG_KEYS`; the settlement reads 小胡 ``ping_hu``, 全求人 and 清一色).
:func:`settle_wuhan` prices the three losers from them.  :meth:`CompiledWuhanScorer.for_config` answers None for a
configuration these functions do not cover (:func:`unsupported_wuhan`).

The hand (what the engine holds)
--------------------------------
``counts``: 34 physical concealed counts including the winning tile, the 赖子 counted under its own kind (the
successor of the ``indicator``, skipping 中: :func:`envs.scoring.wuhan_settlement.laizi_of`); ``melds``: ``(kind, tile,
from_seat)`` triples, kinds 1 pong, 2 exposed kong (冲杠), 3 concealed kong, 4 added kong (蓄杠), 6 吃 (``tile`` = the
lowest kind of the run).  The 赖子 in the hand are wildcards for any kind but 中 (their own kind included); every kind
holds at most four copies counting what the melds hold (``wild_ignores_four_copy_limit`` lifts it).

Who may win (``envs.scoring.scorer._prepare``): no 红中 in the hand; a 赖子 won on a discard or a robbed kong is no win;
the hand must be open (开口: a chi, pong or 明杠; a 暗杠 does not open it); no seven pairs.

How a hand is read (the readings of :mod:`envs.scoring.interpret` with the flags the ``wuhan`` table reads)
--------------------------------------------------------------------------------------------------
* Standard shape: ``4 - melds`` sets and one pair over the concealed tiles, honors as triplets and pairs only.  A
  depth-first search walks the kinds 0-33 in order choosing the triplets, pairs and runs started at each (runs
  started one and two kinds back carried in), the copies past the natural ones paid with 赖子 — the very choices of
  ``interpret._options``, in their order.  States that cannot complete (``(kind, carried runs, sets, pair, 赖子
  left)``) are remembered within the call, so a dead branch is walked once.
* The facts of a reading (``R_*``): the suits and honors present, a run (a 顺子 or a chi), a tile not 2/5/8, a tile
  not a wind / 发 / 白, the pair a 2/5/8 kind (将), the pair the 赖子 kind, a 赖子 standing for another kind (软),
  the pair two 赖子 standing for another kind (a kind without natural tiles: no 将, since two 赖子 make a 将 only as
  themselves, RULES §4.8.1).
* 乱将 / 乱风 (``interpret.uniform_reading``): every natural tile and meld in the 将 kinds (suited 2/5/8) or in the
  风 kinds (winds, 发, 白); the 赖子 stay themselves when their kind is in the set (硬), else stand for the first kinds
  of the set with a free copy (软); a hand whose concealed tiles are all such standing-in 赖子 has no 将.

As in the Python scorer, readings that agree on their facts collapse; each class is valued by the table and the best
counts by ``(multiplier, payment, doublings)`` (the Wuhan payment grows with the multiplier, so by ``(multiplier,
doublings)``).  Two classes of equal value may still differ in their rows (a 清一色 against a 全求人 where the 将 of
the suit are used up): like ``_score`` the first of them in the order of ``interpret.interpretations`` wins — the
class whose reading reached first in the search's order (``interpret._standard_kinds`` keeps the first arrival per
state, i.e. the lexicographically least choice sequence) has the least group list ``(kind, pair < run < triplet)``;
乱将 and 乱风 come after every standard reading.

The table (``patterns.WUHAN``, ``_evaluate_wuhan``, ``_wuhan_admits``)
--------------------------------------------------------------------
base = ``wuhan_big_base`` per big win — 碰碰胡 (standard, no run), 清一色 (standard, one suit, no honor), 将一色,
风一色, 全求人 (four open melds, a discard, 将 pair), 杠上开花 / 海底捞月 (self-draw after a kong / in the 海底, 将
pair), 抢杠 (将 pair); 乱将 has the 将 pair, 乱风 not, two 赖子 standing in never — or ``wuhan_small_base`` (小胡
``ping_hu``); doublings = 开口 (1, or the open melds with ``koukou``) + log2 of the 暗杠 / 明杠 / 红中杠 / 赖子杠
factors per kong + 自摸 (``zimo_bonus = "factor"``) + 硬胡 (no 软 赖子) + 庄家 (a small win by the dealer); a small
win needs the 将 pair and at most ``wuhan_small_win_max_laizi`` 赖子 (two only as a natural pair of the 赖子 kind).
``multiplier`` = base << doublings.

Settlement (:func:`settle_wuhan` = ``wuhan_settlement``): per loser M(L) = F(L) × 2 if it dealt in (放冲 or the
robbed 蓄杠) × 2 on a small win when it is the dealer, raw = multiplier × M(L) (``wuhan_discard_all_pay = false``:
the other losers of a discard win pay nothing on a small win, ``wuhan_big_base`` × M(W) × M(L) on a big one, and
only the plain cap applies, never 金顶 / 钻顶); the caps (封顶 / 金顶 / 钻顶 over the three raw amounts); 承包 (the
not-ready dealer-in of a 全求人, the feeder of a 清一色's third open meld, the robbed loser) pays the sum; ×
``base_unit``.
``tests/compiled/test_compiled_score_wuhan.py`` compares every output with the Python scorer and settlement.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.compiled import fan_values as fv
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG
from envs.compiled.score import TableScorer, meld_array
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig

M_CHI = 6  # 吃: layout.M_CHI (a run; the meld's tile is its lowest kind)
RED = 31  # 红中: never in a win, never a 赖子
NUM_LOSERS = 3

# ---- the rule vector -------------------------------------------------------------------------------------------
W_BASE = 0  # base_unit
W_KOUKOU = 1  # wuhan_open_mode == "koukou" (x2 per open meld; else 开口翻 x2 once)
W_ANGANG = 2  # log2 wuhan_angang_factor (doublings per 暗杠)
W_MINGGANG = 3  # log2 wuhan_minggang_factor (per 明杠: 冲杠 / 蓄杠)
W_HONGZHONG = 4  # log2 wuhan_hongzhong_gang_factor (per 红中杠)
W_LAIZI = 5  # log2 wuhan_laizi_gang_factor (per 赖子杠)
W_SMALL = 6  # wuhan_small_base (小胡)
W_BIG = 7  # wuhan_big_base (per 大胡)
W_MAX_LAIZI = 8  # wuhan_small_win_max_laizi
W_ZIMO = 9  # zimo_bonus == "factor" (自摸 x2)
W_CAP = 10  # wuhan_caps[0] 封顶
W_GOLD = 11  # wuhan_caps[1] 金顶
W_DIAMOND = 12  # wuhan_caps[2] 钻顶
W_GOLD_AT = 13  # wuhan_cap_thresholds[0]
W_DIAMOND_AT = 14  # wuhan_cap_thresholds[1]
W_INCLUSIVE = 15  # wuhan_cap_threshold_inclusive
W_ALL_PAY = 16  # wuhan_discard_all_pay
W_LIMIT = 17  # the four-copy limit (not wild_ignores_four_copy_limit)
NUM_WUHAN_RULES = 18

# ---- result flags: one bit per breakdown key (FLAG_KEYS[i] is the key of bit i) ---------------------------------
WF_PING_HU = 1 << 0  # 小胡 (no big win)
WF_PENG_PENG_HU = 1 << 1  # 碰碰胡
WF_QING_YI_SE = 1 << 2  # 清一色
WF_JIANG_YI_SE = 1 << 3  # 将一色 (乱将 included)
WF_FENG_YI_SE = 1 << 4  # 风一色 (乱风 included)
WF_QUAN_QIU_REN = 1 << 5  # 全求人
WF_GANG_SHANG_KAI_HUA = 1 << 6  # 杠上开花
WF_HAI_DI_LAO_YUE = 1 << 7  # 海底捞月
WF_QIANG_GANG_HU = 1 << 8  # 抢杠
WF_KAI_KOU = 1 << 9  # 开口翻 / 口口翻
WF_AN_GANG = 1 << 10  # 暗杠 factor
WF_MING_GANG = 1 << 11  # 明杠 factor
WF_HONG_ZHONG_GANG = 1 << 12  # 红中杠 factor
WF_LAI_ZI_GANG = 1 << 13  # 赖子杠 factor
WF_ZI_MO = 1 << 14  # 自摸 x2
WF_YING_HU = 1 << 15  # 硬胡 x2
WF_ZHUANG_JIA = 1 << 16  # 庄家 x2 (a small win by the dealer)
FLAG_KEYS = (
    "ping_hu",
    "peng_peng_hu",
    "qing_yi_se",
    "jiang_yi_se",
    "feng_yi_se",
    "quan_qiu_ren",
    "gang_shang_kai_hua",
    "hai_di_lao_yue",
    "qiang_gang_hu",
    "kai_kou",
    "an_gang",
    "ming_gang",
    "hong_zhong_gang",
    "lai_zi_gang",
    "zi_mo",
    "ying_hu",
    "zhuang_jia",
)
"""The ``ScoreResult.breakdown`` key of each ``WF_*`` bit, in bit order."""

# ---- reading facts (the interpret flag bits the wuhan table reads) -----------------------------------------------
R_M, R_P, R_S, R_H = 1, 2, 4, 8  # a tile of 万 / 筒 / 条 / an honor
R_RUN = 16  # a run (顺子 or 吃)
R_NOT_JIANG = 32  # a tile not of rank 2/5/8
R_NOT_FENG = 64  # a tile not a wind, 发 or 白
R_JIANG_PAIR = 128  # the pair is a 2/5/8 kind (将)
R_MARKED_PAIR = 256  # the pair is of the 赖子 kind
R_SOFT = 512  # a 赖子 stands for another kind (软)
R_WILD_PAIR = 1024  # the pair is two 赖子 standing for another kind (no 将 then, RULES §4.8.1)
_NFACTS = 2048

SHAPE_STANDARD, SHAPE_LUAN_JIANG, SHAPE_LUAN_FENG = 0, 1, 2

# situation bits (score_wuhan packs its flags into one int)
SIT_SELF = 1
SIT_ROB = 2
SIT_AFTER_KONG = 4
SIT_LAST = 8
SIT_DEALER = 16


def _facts_of(kind: int) -> int:
    facts = (R_M, R_P, R_S)[kind // 9] if kind < 27 else R_H
    if not (kind < 27 and kind % 9 in (1, 4, 7)):
        facts |= R_NOT_JIANG
    if kind not in (27, 28, 29, 30, 32, 33):
        facts |= R_NOT_FENG
    return facts


_TILE_FACTS = np.array([_facts_of(k) for k in range(34)], dtype=np.int64)
_JIANG = np.array([k < 27 and k % 9 in (1, 4, 7) for k in range(34)], dtype=np.bool_)
_FENG = np.array([k in (27, 28, 29, 30, 32, 33) for k in range(34)], dtype=np.bool_)

# ---- search sizes ----------------------------------------------------------------------------------------------
MAX_WILD = 4  # 赖子 in the concealed hand: one kind of four copies
_NW = MAX_WILD + 1
_NDEAD = 35 * 5 * 5 * 5 * 2 * _NW  # dead states: (kind, c1, c2, sets, pair, 赖子 left)
_NLEVELS = 36  # search depth: one level per kind visited (at most 34) and the root
_NOPT = 32  # choices per level: t 0-2 x p 0-1 x r 0-4
_MAXG = 8  # concealed groups of a reading (five at most)
# level columns
_K, _C1, _C2, _SETS, _PAIR, _WILD, _FACTS, _GLEN, _FOUND, _NOPTS, _IDX = range(11)
_NCOLS = 11
_STAMP_LIMIT = (1 << 31) - 2


@njit(cache=True)
def laizi_kind(indicator):
    """``envs.scoring.wuhan_settlement.laizi_of``: the 赖子 of an indicator (the next rank, 9 wrapping to 1; honors
    东→南→西→北→发→白→东, 中 → 发)."""
    if indicator < 27:
        return indicator - indicator % 9 + (indicator % 9 + 1) % 9
    if indicator == 30 or indicator == 31:
        return 32
    if indicator == 33:
        return 27
    return indicator + 1


@njit(cache=True)
def _dead_key(k, c1, c2, sets, pair, wild):
    return ((((k * 5 + c1) * 5 + c2) * 5 + sets) * 2 + pair) * _NW + wild


@njit(cache=True)
def _options(lv, opts, level, nat, mrep, limit):
    """The choices ``(t, p, r)`` (code ``t | p << 2 | r << 3``) at the kind of ``level`` from its state, in the order
    of ``interpret._options``: triplets, pairs, runs started here, covering the natural tiles, within the 赖子 left and
    the four-copy cap."""
    k = lv[level, _K]
    ni = nat[k]
    carry = lv[level, _C1] + lv[level, _C2]
    sets = lv[level, _SETS]
    pair = lv[level, _PAIR]
    top = ni + (lv[level, _WILD] if k != RED else 0)
    if limit:
        cap = 4 - mrep[k]
        if top > cap:
            top = cap
    can_run = k < 27 and k % 9 <= 6
    n = 0
    for t in range(3):
        if t > sets:
            break
        for p in range(pair + 1):
            base = 3 * t + 2 * p + carry
            if base > top:
                break
            rmax = sets - t if can_run else 0
            for r in range(rmax + 1):
                c = base + r
                if c > top:
                    break
                if c < ni:
                    continue
                opts[level, n] = t | (p << 2) | (r << 3)
                n += 1
    lv[level, _NOPTS] = n
    lv[level, _IDX] = 0
    lv[level, _FOUND] = 0


# The fixed row values of ``patterns.WUHAN`` (envs.compiled.fan_values); the bases and the kong factors follow the
# configuration (the rule vector), as the table's value functions do.
_ZI_MO, _YING_HU = fv.value("wuhan", "zi_mo"), fv.value("wuhan", "ying_hu")


@njit(cache=True)
def _value(rules, shape, f, n_melds, n_open, n_an, n_ming, n_wild, red_kongs, laizi_kongs, sit):
    """``patterns._evaluate_wuhan`` of one reading class (``shape``, facts ``f``): ``(admitted, base, doublings,
    WF_* flags)``; ``admitted`` is False where ``_wuhan_admits`` refuses it (a small win without the 将 pair or with
    too many 赖子)."""
    self_drawn = (sit & SIT_SELF) != 0
    standard = shape == SHAPE_STANDARD
    jiang_pair = ((standard and (f & R_JIANG_PAIR) != 0) or shape == SHAPE_LUAN_JIANG) and not f & R_WILD_PAIR
    out = 0
    big = 0
    if standard and not f & R_RUN:
        out |= WF_PENG_PENG_HU
        big += 1
    suits = f & (R_M | R_P | R_S | R_H)
    if standard and suits in (R_M, R_P, R_S):
        out |= WF_QING_YI_SE
        big += 1
    if shape == SHAPE_LUAN_JIANG or (standard and not f & R_NOT_JIANG):
        out |= WF_JIANG_YI_SE
        big += 1
    if shape == SHAPE_LUAN_FENG or (standard and not f & R_NOT_FENG):
        out |= WF_FENG_YI_SE
        big += 1
    if standard and n_melds == 4 and n_open == 4 and not self_drawn and jiang_pair:
        out |= WF_QUAN_QIU_REN
        big += 1
    if sit & SIT_AFTER_KONG and self_drawn and jiang_pair:
        out |= WF_GANG_SHANG_KAI_HUA
        big += 1
    if sit & SIT_LAST and self_drawn and jiang_pair:
        out |= WF_HAI_DI_LAO_YUE
        big += 1
    if sit & SIT_ROB and jiang_pair:
        out |= WF_QIANG_GANG_HU
        big += 1
    small = big == 0
    base = rules[W_SMALL] if small else rules[W_BIG] * big
    if small:
        out |= WF_PING_HU
    d = 0
    if n_open:
        v = n_open if rules[W_KOUKOU] else 1
        d += v
        out |= WF_KAI_KOU
    v = n_an * rules[W_ANGANG]
    if v:
        d += v
        out |= WF_AN_GANG
    v = n_ming * rules[W_MINGGANG]
    if v:
        d += v
        out |= WF_MING_GANG
    v = red_kongs * rules[W_HONGZHONG]
    if v:
        d += v
        out |= WF_HONG_ZHONG_GANG
    v = laizi_kongs * rules[W_LAIZI]
    if v:
        d += v
        out |= WF_LAI_ZI_GANG
    if rules[W_ZIMO] and self_drawn:
        d += _ZI_MO
        out |= WF_ZI_MO
    if not f & R_SOFT:
        d += _YING_HU
        out |= WF_YING_HU
    if small and sit & SIT_DEALER:
        d += 1
        out |= WF_ZHUANG_JIA
    ok = True
    if small:
        if not standard or not f & R_JIANG_PAIR:
            ok = False
        elif n_wild > rules[W_MAX_LAIZI]:
            ok = n_wild == 2 and (f & R_MARKED_PAIR) != 0 and not f & R_SOFT
    return ok, np.int64(base), np.int64(d), np.int64(out)


@njit(cache=True)
def _uniform(jiang, nat, mrep, melds, n_melds, n_wild, laizi, mfacts, limit):
    """``interpret.uniform_reading`` for 乱将 (``jiang``) or 乱风: the facts of the reading, -1 when the hand does not
    qualify."""
    inset = _JIANG if jiang else _FENG
    for k in range(34):
        if nat[k] and not inset[k]:
            return -1
    for i in range(n_melds):
        kind = melds[3 * i]
        t = melds[3 * i + 1]
        if kind == M_CHI:
            for j in range(3):
                if not inset[t + j]:
                    return -1
        elif not inset[t]:
            return -1
    f = mfacts
    free = n_wild
    if free and inset[laizi]:  # 赖子 standing as themselves
        f |= _TILE_FACTS[laizi]
        free = 0
    natural = False
    for k in range(34):
        if nat[k]:
            f |= _TILE_FACTS[k]
            natural = True
    if not natural and n_wild - free < 2:
        f |= R_WILD_PAIR  # every concealed tile a 赖子 standing in: any pair of them is no 将
    for k in range(34):  # the others take the first kinds of the set with a free copy
        if free == 0:
            break
        if not inset[k] or k == RED:
            continue
        room = free
        if limit:
            room = 4 - nat[k] - mrep[k]
            if room < 0:
                room = 0
        take = room if room < free else free
        if take:
            free -= take
            f |= _TILE_FACTS[k] | R_SOFT
    if free:
        return -1
    return f


@njit(cache=True)
def _better(mult, dbl, bm, bd):
    return mult > bm or (mult == bm and dbl > bd)


@njit(cache=True)
def workspace_wuhan() -> tuple[np.ndarray, ...]:
    """Scratch arrays of :func:`score_wuhan` (one set per caller); compiled, so that the kernel can make a set too."""
    return (
        np.zeros((_NLEVELS, _NCOLS), dtype=np.int32),  # search levels: kind, state, group count, choice cursor
        np.zeros((_NLEVELS, _NOPT), dtype=np.int32),  # the choices of each level
        np.zeros((2, _MAXG), dtype=np.int32),  # group lists: the current path, the best class's reading
        np.zeros(_NDEAD, dtype=np.int32),  # dead states: the call stamp that found them
        np.zeros(_NFACTS, dtype=np.int32),  # reading classes seen: the call stamp
        np.zeros(1, dtype=np.int64),  # the call stamp
        np.zeros((3, 35), dtype=np.int32),  # natural counts, meld copies, next kind holding a natural tile
    )


@njit(cache=True)
def score_wuhan(counts, melds, n_melds, win_tile, indicator, self_drawn, robbing_kong, after_kong, last_tile,
                red_kongs, laizi_kongs, is_dealer, rules, lv, opts, groups, dead, seen, stamp, scratch):  # fmt: skip
    """``judge.score`` of a 武汉 win: ``(is_win, multiplier, doublings, flags)`` — ``ScoreResult.multiplier`` (base ×
    M(W)), ``.doublings or 0`` and the ``WF_*`` bits of its breakdown keys; ``(False, 0, 0, 0)`` when not a win.

    ``counts`` (34) are the physical concealed counts including ``win_tile`` and the 赖子 held; ``melds`` holds
    ``n_melds`` ``(kind, tile, from_seat)`` triples (kinds 1 pong, 2 冲杠, 3 暗杠, 4 蓄杠, 6 吃 with the lowest
    tile); ``indicator`` the flipped 赖子 indicator; ``red_kongs`` / ``laizi_kongs`` the winner's 红中杠 / 赖子杠
    (0-4); ``last_tile`` with ``self_drawn`` a draw of the 海底; ``is_dealer`` the winner deals; the last seven
    arguments are a :func:`workspace_wuhan`.  The context must be one ``WinContext`` accepts (no 抢杠 with a
    self-draw, 杠上 or 海底; at most four copies of a kind counting the melds; 14 tiles; no 红中 meld): Python raises
    on the others, this function does not check them."""
    zero = np.int64(0)
    if counts[RED] > 0:
        return False, zero, zero, zero  # hongzhong_in_hand
    laizi = laizi_kind(indicator)
    if win_tile == laizi and not self_drawn:
        return False, zero, zero, zero  # wild_not_claimable
    nat = scratch[0]
    mrep = scratch[1]
    nxt = scratch[2]
    for k in range(34):
        nat[k] = counts[k]
        mrep[k] = 0
    n_wild = nat[laizi]
    nat[laizi] = 0
    if n_wild > MAX_WILD:
        return False, zero, zero, zero  # more than the four 赖子: not a hand the engine holds
    nxt[34] = 34
    for k in range(33, -1, -1):
        nxt[k] = k if nat[k] else nxt[k + 1]
    n_open = 0
    n_an = 0
    n_ming = 0
    mfacts = 0
    for i in range(n_melds):
        kind = melds[3 * i]
        t = melds[3 * i + 1]
        if kind == M_CHI:
            for j in range(3):
                mrep[t + j] += 1
                mfacts |= _TILE_FACTS[t + j]
            mfacts |= R_RUN
            n_open += 1
        else:
            mrep[t] += 3 if kind == M_PONG else 4
            mfacts |= _TILE_FACTS[t]
            if kind == M_ANKONG:
                n_an += 1
            else:
                n_open += 1
                if kind in (M_KONG, M_BUKONG):
                    n_ming += 1
    if n_open == 0:
        return False, zero, zero, zero  # not_open
    sit = 0
    if self_drawn:
        sit |= SIT_SELF
    if robbing_kong:
        sit |= SIT_ROB
    if after_kong:
        sit |= SIT_AFTER_KONG
    if last_tile:
        sit |= SIT_LAST
    if is_dealer:
        sit |= SIT_DEALER
    limit = rules[W_LIMIT] != 0
    s = stamp[0] + 1
    if s > _STAMP_LIMIT:
        dead[:] = 0
        seen[:] = 0
        s = 1
    stamp[0] = s
    cur = groups[0]
    best_g = groups[1]
    best_mult = np.int64(-1)
    best_dbl = np.int64(-1)
    best_flags = np.int64(0)
    best_glen = 0
    sets0 = 4 - n_melds
    start = 0 if n_wild else nxt[0]
    if sets0 >= 0 and start < 34:
        # ---- the standard readings: depth-first, in interpret's choice order
        lv[0, _K] = start
        lv[0, _C1] = 0
        lv[0, _C2] = 0
        lv[0, _SETS] = sets0
        lv[0, _PAIR] = 1
        lv[0, _WILD] = n_wild
        lv[0, _FACTS] = mfacts
        lv[0, _GLEN] = 0
        _options(lv, opts, 0, nat, mrep, limit)
        level = 0
        while level >= 0:
            idx = lv[level, _IDX]
            if idx < lv[level, _NOPTS]:
                lv[level, _IDX] = idx + 1
                code = opts[level, idx]
                t = code & 3
                p = (code >> 2) & 1
                r = code >> 3
                k = lv[level, _K]
                c1 = lv[level, _C1]
                c2 = lv[level, _C2]
                c = 3 * t + 2 * p + r + c1 + c2
                extra = c - nat[k]
                f = lv[level, _FACTS]
                if c:
                    f |= _TILE_FACTS[k]
                if p:
                    if _JIANG[k]:
                        f |= R_JIANG_PAIR
                    if k == laizi:
                        f |= R_MARKED_PAIR
                    if nat[k] == 0 and (k != laizi or n_wild < 2):
                        f |= R_WILD_PAIR  # two 赖子 standing for this kind
                if r:
                    f |= R_RUN
                if extra > (n_wild if k == laizi else 0):
                    f |= R_SOFT
                ns = lv[level, _SETS] - t - r
                npair = lv[level, _PAIR] - p
                nw = lv[level, _WILD] - extra
                glen = lv[level, _GLEN]
                for _ in range(p):
                    cur[glen] = 3 * k
                    glen += 1
                for _ in range(r):
                    cur[glen] = 3 * k + 1
                    glen += 1
                for _ in range(t):
                    cur[glen] = 3 * k + 2
                    glen += 1
                nk = k + 1
                if nw == 0 and r == 0 and c1 == 0:
                    nk = nxt[nk]  # nothing to choose until the next natural tile
                if nk == 34:
                    if r == 0 and c1 == 0 and ns == 0 and npair == 0 and nw == 0:
                        lv[level, _FOUND] = 1
                        if seen[f] != s:  # the first reading of its class: the one interpret keeps
                            seen[f] = s
                            ok, base, dbl, wf = _value(rules, SHAPE_STANDARD, f, n_melds, n_open, n_an, n_ming,
                                                       n_wild, red_kongs, laizi_kongs, sit)  # fmt: skip
                            if ok:
                                mult = base << dbl
                                take = _better(mult, dbl, best_mult, best_dbl)
                                if not take and mult == best_mult and dbl == best_dbl:
                                    # equal value: the class whose reading sorts first (interpretations' order)
                                    for j in range(glen):
                                        if j >= best_glen or cur[j] != best_g[j]:
                                            take = j < best_glen and cur[j] < best_g[j]
                                            break
                                if take:
                                    best_mult = mult
                                    best_dbl = dbl
                                    best_flags = wf
                                    best_glen = glen
                                    for j in range(glen):
                                        best_g[j] = cur[j]
                    continue
                if dead[_dead_key(nk, r, c1, ns, npair, nw)] == s:
                    continue
                level += 1
                lv[level, _K] = nk
                lv[level, _C1] = r
                lv[level, _C2] = c1
                lv[level, _SETS] = ns
                lv[level, _PAIR] = npair
                lv[level, _WILD] = nw
                lv[level, _FACTS] = f
                lv[level, _GLEN] = glen
                _options(lv, opts, level, nat, mrep, limit)
            else:
                if lv[level, _FOUND]:
                    if level:
                        lv[level - 1, _FOUND] = 1
                else:
                    dead[_dead_key(lv[level, _K], lv[level, _C1], lv[level, _C2], lv[level, _SETS], lv[level, _PAIR],
                                   lv[level, _WILD])] = s  # fmt: skip
                level -= 1
    # ---- 乱将 / 乱风, after every standard reading
    for shape in (SHAPE_LUAN_JIANG, SHAPE_LUAN_FENG):
        f = _uniform(shape == SHAPE_LUAN_JIANG, nat, mrep, melds, n_melds, n_wild, laizi, mfacts, limit)
        if f < 0:
            continue
        ok, base, dbl, wf = _value(rules, shape, f, n_melds, n_open, n_an, n_ming, n_wild, red_kongs, laizi_kongs,
                                   sit)  # fmt: skip
        if ok:
            mult = base << dbl
            if _better(mult, dbl, best_mult, best_dbl):
                best_mult = mult
                best_dbl = dbl
                best_flags = wf
    if best_mult < 0:
        return False, zero, zero, zero  # incomplete, or every reading refused
    return True, best_mult, best_dbl, best_flags


# ---- settlement ----------------------------------------------------------------------------------------------------
@njit(cache=True)
def _reaches(rules, value, threshold):
    return value >= threshold if rules[W_INCLUSIVE] else value > threshold


@njit(cache=True)
def _factor_doublings(rules, melds, n_melds, red_kongs, laizi_kongs):
    """log2 of F(X) (``wuhan_factor``): the open factor and the 暗杠 / 明杠 / 红中杠 / 赖子杠 factors of one player."""
    n_open = 0
    d = 0
    for i in range(n_melds):
        kind = melds[3 * i]
        if kind == M_ANKONG:
            d += rules[W_ANGANG]
        else:
            n_open += 1
            if kind in (M_KONG, M_BUKONG):
                d += rules[W_MINGGANG]
    if n_open:
        d += n_open if rules[W_KOUKOU] else 1
    return d + red_kongs * rules[W_HONGZHONG] + laizi_kongs * rules[W_LAIZI]


@njit(cache=True)
def settle_wuhan(rules, multiplier, doublings, flags, loser_melds, loser_n_melds, loser_red_kongs, loser_laizi_kongs,
                 loser_is_dealer, loser_discarded, loser_kong_robbed, loser_ready, loser_fed_third, out):  # fmt: skip
    """``wuhan_settlement`` of one win: what each of the three losers pays (× ``base_unit``), written to ``out[0:3]``.

    ``multiplier``, ``doublings``, ``flags``: the :func:`score_wuhan` answer of the win; per loser (arrays of three,
    the order of ``out``): ``loser_melds`` (3, 12) ``(kind, tile, from_seat)`` triples and ``loser_n_melds`` their
    count, the 红中杠 / 赖子杠 made this hand, dealer, discarded the winning tile (放冲), had the robbed 蓄杠, was ready
    when dealing in (承包 of a 全求人 needs not ready; the caller asks ``winning_tiles``), supplied the tile of the
    winner's third open meld.  As ``WuhanSide`` requires: at most one loser dealt in, one dealer, one feeder."""
    small = (flags & WF_PING_HU) != 0
    dealt = -1
    for i in range(NUM_LOSERS):
        if dealt < 0 and (loser_discarded[i] or loser_kong_robbed[i]):
            dealt = i
    tiers = not (dealt >= 0 and not rules[W_ALL_PAY])  # E3's discard win: the plain cap only (RULES §7.8 W2)
    for i in range(NUM_LOSERS):
        d = _factor_doublings(rules, loser_melds[i], loser_n_melds[i], loser_red_kongs[i], loser_laizi_kongs[i])
        if i == dealt:
            d += 1
        if small and loser_is_dealer[i]:
            d += 1
        raw = np.int64(multiplier) << d
        if dealt >= 0 and not rules[W_ALL_PAY] and i != dealt:
            if small:
                raw = np.int64(0)
            else:
                raw = np.int64(rules[W_BIG]) << (doublings + d)
        out[i] = raw
    tier = np.int64(-1)  # apply_wuhan_caps: 钻顶 / 金顶 when every loser reaches the threshold
    if tiers:
        diamond = True
        gold = True
        for i in range(NUM_LOSERS):
            if not _reaches(rules, out[i], rules[W_DIAMOND_AT]):
                diamond = False
            if not _reaches(rules, out[i], rules[W_GOLD_AT]):
                gold = False
        if diamond:
            tier = rules[W_DIAMOND]
        elif gold:
            tier = rules[W_GOLD]
    for i in range(NUM_LOSERS):
        if tier >= 0:
            out[i] = tier
        elif out[i] > rules[W_CAP]:
            out[i] = rules[W_CAP]  # 封顶
    liable = -1
    if flags & WF_QUAN_QIU_REN and dealt >= 0 and not loser_ready[dealt]:
        liable = dealt
    if liable < 0 and flags & WF_QING_YI_SE:
        for i in range(NUM_LOSERS):
            if loser_fed_third[i]:
                liable = i
                break
    if liable < 0:
        for i in range(NUM_LOSERS):
            if loser_kong_robbed[i]:
                liable = i
                break
    if liable >= 0:
        total = out[0] + out[1] + out[2]
        for i in range(NUM_LOSERS):
            out[i] = total if i == liable else 0
    for i in range(NUM_LOSERS):
        out[i] *= rules[W_BASE]


# ---- the Python entry -------------------------------------------------------------------------------------------
_MELD_CODE = {
    MeldKind.PONG: M_PONG,
    MeldKind.KONG: M_KONG,
    MeldKind.ANKONG: M_ANKONG,
    MeldKind.BUKONG: M_BUKONG,
    MeldKind.CHI: M_CHI,
}
_ALL_KINDS = tuple(range(34))


def _log2(value: int) -> int:
    return value.bit_length() - 1


def _worst_bits(cfg: RuleConfig) -> int:
    """Bits of the largest raw amount a Wuhan win can reach (base × M(W) × M(L)), for the int64 arithmetic."""
    kong = max(_log2(cfg.wuhan_angang_factor), _log2(cfg.wuhan_minggang_factor), 0)
    red, laizi = _log2(cfg.wuhan_hongzhong_gang_factor), _log2(cfg.wuhan_laizi_gang_factor)
    open_bits = 4 if cfg.wuhan_open_mode == "koukou" else 1
    player = open_bits + 4 * kong + 4 * red + 4 * laizi
    base = max(cfg.wuhan_small_base, 8 * cfg.wuhan_big_base, 1).bit_length()
    return base + (player + 3) + (player + 2) + cfg.wuhan_big_base.bit_length()


def unsupported_wuhan(cfg: RuleConfig) -> list[str]:
    """Why the compiled 武汉 scorer does not cover ``cfg`` (empty when it does)."""
    problems = []
    if cfg.fan_table != "wuhan":
        problems.append(f"fan_table {cfg.fan_table!r} (it scores 'wuhan')")
    if cfg.wild != "laizi":
        problems.append(f"wild {cfg.wild!r} (it reads the 赖子 of an indicator)")
    if tuple(cfg.kinds) != _ALL_KINDS:
        problems.append("a tile set other than the 34 kinds (the 赖子 may stand for every kind but 中)")
    if cfg.hand_size != 13:
        problems.append(f"hand_size {cfg.hand_size} (it reads 13-tile hands)")
    if cfg.num_players != 4:
        problems.append(f"num_players {cfg.num_players} (the settlement prices three losers)")
    if cfg.tiandihu != "off":
        problems.append(f"tiandihu {cfg.tiandihu!r} (天胡/地胡 as fixed hands)")
    if cfg.wild_in_melds:
        problems.append("wild_in_melds = true (melds holding a 赖子)")
    if cfg.wild_counts_for_gen:  # the reading kept per class would follow 根, which the search does not count
        problems.append("wild_counts_for_gen = true")
    if cfg.dingque:
        problems.append("定缺 (a void suit)")
    if cfg.zimo_bonus not in ("factor", "none"):
        problems.append(f"zimo_bonus {cfg.zimo_bonus!r}")
    for key in ("wuhan_angang_factor", "wuhan_minggang_factor", "wuhan_hongzhong_gang_factor",
                "wuhan_laizi_gang_factor"):  # fmt: skip
        value = getattr(cfg, key)
        if value < 1 or value & (value - 1):
            problems.append(f"{key} {value} (a power of two)")
    if _worst_bits(cfg) > 62:
        problems.append("factors and bases whose amounts could pass 2^62")
    if max(cfg.wuhan_caps) > 1 << 30 or cfg.base_unit > 1 << 20:
        problems.append("caps past 2^30 or base_unit past 2^20")
    return problems


def rule_vector_wuhan(cfg: RuleConfig) -> np.ndarray:
    """The rule vector (``W_*``, int64) of a configuration :func:`unsupported_wuhan` accepts."""
    problems = unsupported_wuhan(cfg)
    if problems:
        raise ValueError(f"variant {cfg.name!r}: the compiled 武汉 scorer does not cover " + "; ".join(problems))
    r = np.zeros(NUM_WUHAN_RULES, dtype=np.int64)
    r[W_BASE] = cfg.base_unit
    r[W_KOUKOU] = cfg.wuhan_open_mode == "koukou"
    r[W_ANGANG] = _log2(cfg.wuhan_angang_factor)
    r[W_MINGGANG] = _log2(cfg.wuhan_minggang_factor)
    r[W_HONGZHONG] = _log2(cfg.wuhan_hongzhong_gang_factor)
    r[W_LAIZI] = _log2(cfg.wuhan_laizi_gang_factor)
    r[W_SMALL] = cfg.wuhan_small_base
    r[W_BIG] = cfg.wuhan_big_base
    r[W_MAX_LAIZI] = cfg.wuhan_small_win_max_laizi
    r[W_ZIMO] = cfg.zimo_bonus == "factor"
    r[W_CAP], r[W_GOLD], r[W_DIAMOND] = cfg.wuhan_caps
    r[W_GOLD_AT], r[W_DIAMOND_AT] = cfg.wuhan_cap_thresholds
    r[W_INCLUSIVE] = cfg.wuhan_cap_threshold_inclusive
    r[W_ALL_PAY] = cfg.wuhan_discard_all_pay
    r[W_LIMIT] = not cfg.wild_ignores_four_copy_limit
    return r


def breakdown_keys(flags: int) -> set[str]:
    """The ``ScoreResult.breakdown`` keys of a :func:`score_wuhan` ``flags`` value."""
    return {key for i, key in enumerate(FLAG_KEYS) if flags >> i & 1}


def wuhan_meld_array(melds: Sequence[Meld]) -> np.ndarray:
    """:class:`~envs.core.melds.Meld` values as the flat int32 ``(kind, tile, from_seat)`` triples :func:`score_wuhan`
    reads (a missing ``from_seat`` is -1)."""
    return meld_array([(_MELD_CODE[m.kind], m.tile, -1 if m.from_seat is None else m.from_seat) for m in melds])


class CompiledWuhanScorer(TableScorer):
    """The compiled 武汉 scorer of one configuration: :meth:`score` (a win) and :meth:`settle` (the three losers)."""

    __slots__ = ()
    rules_of = staticmethod(rule_vector_wuhan)
    workspace = staticmethod(workspace_wuhan)
    unsupported = staticmethod(unsupported_wuhan)

    def score(
        self,
        counts: np.ndarray,
        melds: np.ndarray,
        n_melds: int,
        win_tile: int,
        *,
        indicator: int,
        self_drawn: bool,
        robbing_kong: bool = False,
        after_kong: bool = False,
        last_tile: bool = False,
        red_kongs: int = 0,
        laizi_kongs: int = 0,
        is_dealer: bool = False,
    ) -> tuple[bool, int, int, int]:
        """``(is_win, multiplier, doublings, flags)`` as ``judge.score`` gives ``is_win``, ``multiplier``,
        ``doublings or 0`` and the breakdown keys (``WF_*``, :func:`breakdown_keys`).

        ``counts``: 34 physical concealed counts including ``win_tile`` (int32); ``melds``: flat ``(kind, tile,
        from_seat)`` triples (:func:`wuhan_meld_array`); ``indicator``: the 赖子 indicator.
        """
        ok, mult, dbl, flags = score_wuhan(counts, melds, n_melds, win_tile, indicator, bool(self_drawn),
                                           bool(robbing_kong), bool(after_kong), bool(last_tile), red_kongs,
                                           laizi_kongs, bool(is_dealer), self.rules, *self.work)  # fmt: skip
        return bool(ok), int(mult), int(dbl), int(flags)

    def settle(
        self,
        multiplier: int,
        doublings: int,
        flags: int,
        loser_melds: np.ndarray,
        loser_n_melds: np.ndarray,
        loser_red_kongs: np.ndarray,
        loser_laizi_kongs: np.ndarray,
        loser_is_dealer: np.ndarray,
        loser_discarded: np.ndarray,
        loser_kong_robbed: np.ndarray,
        loser_ready: np.ndarray,
        loser_fed_third: np.ndarray,
    ) -> list[int]:
        """What the three losers pay (:func:`settle_wuhan`), in the order of the per-loser arrays."""
        out = np.zeros(NUM_LOSERS, dtype=np.int64)
        settle_wuhan(self.rules, multiplier, doublings, flags, loser_melds, loser_n_melds, loser_red_kongs,
                     loser_laizi_kongs, loser_is_dealer, loser_discarded, loser_kong_robbed, loser_ready,
                     loser_fed_third, out)  # fmt: skip
        return [int(a) for a in out]

    def settle_sides(self, multiplier: int, doublings: int, flags: int, sides: Sequence[object]) -> list[int]:
        """:meth:`settle` with the losers given as :class:`envs.scoring.wuhan_settlement.WuhanSide` values (three of
        them)."""
        return self.settle(multiplier, doublings, flags, *loser_arrays(sides))


def loser_arrays(sides: Sequence[object]) -> tuple[np.ndarray, ...]:
    """Three :class:`envs.scoring.wuhan_settlement.WuhanSide` values as the per-loser arrays of :func:`settle_wuhan`
    (melds (3, 12), meld counts, 红中杠, 赖子杠, dealer, discarded, kong robbed, ready, fed the third meld)."""
    if len(sides) != NUM_LOSERS:
        raise ValueError(f"a Wuhan win has {NUM_LOSERS} losers, got {len(sides)}")
    melds = np.zeros((NUM_LOSERS, 12), dtype=np.int32)
    n = np.zeros(NUM_LOSERS, dtype=np.int32)
    ints = np.zeros((2, NUM_LOSERS), dtype=np.int32)
    bools = np.zeros((5, NUM_LOSERS), dtype=np.bool_)
    for i, side in enumerate(sides):
        row = wuhan_meld_array(side.melds)  # type: ignore[attr-defined]
        melds[i, : row.size] = row
        n[i] = len(side.melds)  # type: ignore[attr-defined]
        ints[:, i] = (side.red_kongs, side.laizi_kongs)  # type: ignore[attr-defined]
        bools[:, i] = (side.is_dealer, side.discarded, side.kong_robbed, side.ready, side.fed_third_meld)  # type: ignore[attr-defined]
    return melds, n, ints[0], ints[1], bools[0], bools[1], bools[2], bools[3], bools[4]


__all__ = [
    "FLAG_KEYS",
    "M_CHI",
    "NUM_WUHAN_RULES",
    "WF_AN_GANG",
    "WF_FENG_YI_SE",
    "WF_GANG_SHANG_KAI_HUA",
    "WF_HAI_DI_LAO_YUE",
    "WF_HONG_ZHONG_GANG",
    "WF_JIANG_YI_SE",
    "WF_KAI_KOU",
    "WF_LAI_ZI_GANG",
    "WF_MING_GANG",
    "WF_PENG_PENG_HU",
    "WF_PING_HU",
    "WF_QIANG_GANG_HU",
    "WF_QING_YI_SE",
    "WF_QUAN_QIU_REN",
    "WF_YING_HU",
    "WF_ZHUANG_JIA",
    "WF_ZI_MO",
    "CompiledWuhanScorer",
    "breakdown_keys",
    "laizi_kind",
    "loser_arrays",
    "rule_vector_wuhan",
    "score_wuhan",
    "settle_wuhan",
    "unsupported_wuhan",
    "workspace_wuhan",
    "wuhan_meld_array",
]
