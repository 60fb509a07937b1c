"""Compiled scoring (编译计分): the payment of a win and the 查大叫 value of a ready hand, in numba.

The numba counterparts of :func:`envs.scoring.judge.score` (→ :func:`envs.scoring.scorer.score_win`) and
:func:`envs.scoring.settlement.ready_value` for the fan tables ``chengdu`` and ``hongzhong`` (additive doublings,
RULES.md §4.1, §4.3) and ``mahjongsoul`` (赤羽之战 han, §4.6.2: one base row plus the bonus rows), pricing §2.11 and
§4.6.1: the compiled engine's ledger (:mod:`envs.compiled.ledger`) asks them for every win and every seat that may be
ready at exhaustion.  Only the money is computed: ``(is_win, payment, doublings)`` (doublings: han in ``mahjongsoul``),
no breakdown and no interpretation.  :meth:`CompiledScorer.for_config` builds the rule vector of a configuration, or
answers None for a configuration these functions do not cover (the ledger then calls the Python functions).

How a hand is read (the same readings as :mod:`envs.scoring.interpret`)
----------------------------------------------------------------
* Standard shape: each suit is searched on its own, rank by rank, choosing triplets, pairs and runs (runs started at
  the two previous ranks carried in); the wildcards (红中) fill any shortfall at a rank they may stand for (a suit
  other than the void suit), every kind within four copies counting the melds (a fifth copy of a 查大叫 wait lifts
  the limit as in :func:`envs.scoring.scorer.discard_values`).  A suit's
  readings are kept as ``(sets, pair, wildcards used, suit facts) -> most 根``; the three suits are then combined
  under the totals (four sets less the melds, one pair, every wildcard used).
* 七对 (no melds): every kind holds 0, 2 or 4 tiles, wildcards filling odd counts (a four of a kind is two pairs).
* The facts are the flag bits of :mod:`envs.scoring.interpret` the tables read (suits, runs, a group without 1/9, a
  1/9 tile, a simple, a non-2-5-8 tile) plus the melds' bits; 根 counts kinds whose represented copies (concealed
  and melded) reach four (``wild_counts_for_gen = false``: natural copies only).  As in the Python scorer, the
  readings that agree on ``(shape, facts)`` keep the most 根, each is valued by the table, and the best one
  counts by ``(multiplier, payment, doublings)``.

Rules applied in :func:`envs.scoring.scorer._score` order: 四红中 (fixed ``hz_tiandihu_fixed``), a dead 红中 discard,
the void suit, no reading (not a win), 天胡/地胡 fixed values (precomputed per ``tiandihu``), the table, 自摸加番 or
自摸加底 (not for a 点杠花 paid as a discard), the cap, and the two-player minimum (``allow_pinghu_on_discard``).
``tests/compiled/test_compiled_score.py`` compares every output with the Python scorer and settlement.

The tables (:func:`_table_value`, ``S_TABLE``): 0 ``chengdu`` and 1 ``hongzhong`` add their rows; 2 ``mahjongsoul``
takes the single highest base row (``patterns._best_base``: ties to the row consuming fewer 根; 无番和 1 han when
none applies) and adds 根 left after the base row's consumption (龙七对 / 清龙七对 one, 十八罗汉 four) and the
situational rows.  Its total is han: ``_price`` pays ``base_unit · 2^(h-1)`` (a fixed 天胡/地胡 the same), every
payment (fixed ones too) capped at ``point_cap``, as ``scoring._payment`` / ``_fixed_result`` do; with
``tiandihu = "ms6"`` 天胡/地胡 are 6-han base rows of the table, not fixed hands.

What it covers (:func:`unsupported` names the rest): the ``chengdu``, ``hongzhong`` and ``mahjongsoul`` fan tables
with their options, the three suits (no honors) with or without the four 红中 wildcards, 13-tile hands, wildcards
never melded nor claimable, ``wild_ignores_four_copy_limit = false`` (the compiled engine does not play a fifth copy
through a wildcard) and dead waits counting as ready.  和绝张 never applies (the engines never pass ``juezhang``),
nor does the dealer (a Wuhan rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

import numpy as np
from numba import njit

from envs.compiled import fan_values as fv
from envs.core.rule_config import RuleConfig
from envs.core.tiles import RED
from envs.scoring.interpret import (
    FLAG_GROUP_NO_TERMINAL,
    FLAG_HONOR,
    FLAG_NOT_JIANG,
    FLAG_RUN,
    FLAG_SIMPLE,
    FLAG_TERMINAL,
)
from envs.scoring.patterns import FAN_TABLES

# ---- the rule vector -------------------------------------------------------------------------------------------
S_TABLE = 0  # 0 chengdu, 1 hongzhong, 2 mahjongsoul (han)
S_WILD = 1  # the wildcard kind (红中 31) or -1
S_FOUR_RED = 2  # 四红中 instant win (hz_four_red_instant with 红中 wildcards)
S_FOUR_RED_D = 3  # its fixed doublings (hz_tiandihu_fixed)
S_BASE = 4  # base_unit
S_CAP = 5  # cap_doublings, -1: none
S_ZIMO = 6  # zimo_bonus: 0 none (or factor), 1 jiadi, 2 jiafan
S_JIADI_AFTER_CAP = 7
S_TSUMO_UNITS = 8  # cfg.tsumo_bonus_units
S_LQD = 9  # longqidui_mode: 0 qidui_plus_gen, 1 fixed4_incl_gen, 2 ms
S_YJJD = 10  # enable_yaojiu_jiangdui
S_MENQING = 11
S_DUANYAO = 12
S_JJ_STACK = 13  # jiang_jingou_stack
S_HZ_QIDUI = 14
S_HZ_ALL_TERMINALS = 15  # hz_yaojiu_definition == "all_terminals"
S_HZ_INHERIT = 16  # hz_inherit_situational
S_TIAN = 17  # 天胡 fixed doublings, -1: not a fixed hand
S_DI = 18  # 地胡 fixed doublings, -1: not a fixed hand
S_PINGHU = 19  # allow_pinghu_on_discard
S_CHADAJIAO_MAX = 20  # chadajiao == "max"
S_EXCL_FIFTH = 21  # ready_excludes_fifth_tile
S_SOFT_GEN = 22  # wild_counts_for_gen
S_LIMIT = 23  # not wild_ignores_four_copy_limit
S_DINGQUE = 24
S_THREE_SUITS = 25  # huazhu_definition == "three_suits"
S_MASK = 26  # the interpretation flag bits the table reads
S_POINT_CAP = 27  # the cap of a payment in points (mahjongsoul point_cap), -1: none
S_TIANDI_ROWS = 28  # 天胡/地胡 are 6-han base rows of the table (mahjongsoul with tiandihu "ms6")
NUM_SCORE_RULES = 29

T_CHENGDU, T_HONGZHONG, T_MAHJONGSOUL = 0, 1, 2  # S_TABLE values

NOT_READY = -1  # ready_value: not ready (or a 花猪)

# interpretation flags (envs.scoring.interpret); the suit bits are 1 << suit
_RUN = FLAG_RUN
_GNT = FLAG_GROUP_NO_TERMINAL
_TERM = FLAG_TERMINAL
_SIMPLE = FLAG_SIMPLE
_NOTJ = FLAG_NOT_JIANG
_HONOR = FLAG_HONOR
_NFLAGS = 512  # every bit above lies below 512

# per-suit facts of the standard search (mapped to the flags when the suits are combined)
L_PRESENT, L_RUN, L_GNT, L_TERM, L_SIMPLE, L_NOTJ = 1, 2, 4, 8, 16, 32
_NL = 64
_MAXE = 5 * 2 * 5 * _NL  # distinct (sets, pair, wildcards, facts) of one suit
_SLOTS = 7  # one suit's readings each: 0-2 the suits, 3 the wait's suit (ready_value), 4-6 a fifth-copy wait's suits


@njit(cache=True)
def _tile_local(r):
    """Facts one tile of rank ``r`` (0-8) adds."""
    f = L_PRESENT
    if r == 0 or r == 8:
        f |= L_TERM
    else:
        f |= L_SIMPLE
    if r != 1 and r != 4 and r != 7:
        f |= L_NOTJ
    return f


@njit(cache=True)
def _local_to_flags(lf, suit):
    f = 0
    if lf & L_PRESENT:
        f |= 1 << suit
    if lf & L_RUN:
        f |= _RUN
    if lf & L_GNT:
        f |= _GNT
    if lf & L_TERM:
        f |= _TERM
    if lf & L_SIMPLE:
        f |= _SIMPLE
    if lf & L_NOTJ:
        f |= _NOTJ
    return f


@njit(cache=True)
def _record(slot, sets, pair, used, lf, gen, tab, ent, ne):
    """Keep one reading of a suit in ``slot``: the most 根 per (sets, pair, wildcards used, facts)."""
    key = slot * _MAXE + ((sets * 2 + pair) * 5 + used) * _NL + lf
    idx = tab[key]
    if idx == 0:
        j = ne[slot]
        ent[slot, j, 0] = sets
        ent[slot, j, 1] = pair
        ent[slot, j, 2] = used
        ent[slot, j, 3] = lf
        ent[slot, j, 4] = gen
        ne[slot] = j + 1
        tab[key] = j + 1
    elif gen > ent[slot, idx - 1, 4]:
        ent[slot, idx - 1, 4] = gen


@njit(cache=True)
def _reset(slot, tab, ent, ne):
    """Empty ``slot`` (its table cells back to 0)."""
    for j in range(ne[slot]):
        s, p, u, lf = ent[slot, j, 0], ent[slot, j, 1], ent[slot, j, 2], ent[slot, j, 3]
        tab[slot * _MAXE + ((s * 2 + p) * 5 + u) * _NL + lf] = 0
    ne[slot] = 0


@njit(cache=True)
def _suit_search(counts, m, suit, slot, wmax, can_wild, maxsets, limit, soft, tab, ent, ne, stk):
    """The standard search over the ranks of ``suit`` (``interpret._standard_kinds`` restricted to a suit), depth
    first with an explicit stack: at each rank the triplets ``t``, pairs ``p`` and runs started there, runs started
    one/two ranks back carried in; the readings found go to :func:`_record` in ``slot`` (empty on entry).

    ``stk[d]`` holds the state on reaching rank ``d`` — runs started one and two ranks back, sets, pair, wildcards
    used, facts, 根 — and the next choice to try there (``t``, ``p``, runs as one index over 3 x 2 x 5).
    """
    # state columns: 0 c1, 1 c2, 2 sets, 3 pair, 4 used, 5 facts, 6 gen, 7 next choice index
    for col in range(8):
        stk[0, col] = 0
    d = 0
    while d >= 0:
        if d == 9:
            if stk[9, 0] == 0 and stk[9, 1] == 0:
                _record(slot, stk[9, 2], stk[9, 3], stk[9, 4], stk[9, 5], stk[9, 6], tab, ent, ne)
            d -= 1
            continue
        j = stk[d, 7]
        if j >= 30:
            d -= 1
            continue
        stk[d, 7] = j + 1
        t = j // 10
        p = (j // 5) % 2
        runs = j % 5
        c1, c2, sets, pair, used = stk[d, 0], stk[d, 1], stk[d, 2], stk[d, 3], stk[d, 4]
        if sets + t + runs > maxsets or pair + p > 1 or (runs and d > 6):
            continue
        k = suit * 9 + d
        ni = counts[k]
        mi = m[k]
        c = 3 * t + 2 * p + c1 + c2 + runs
        top = ni + (wmax - used if can_wild else 0)
        cap = 4 - mi if limit else 14
        if top > cap:
            top = cap
        if c > top or c < ni:
            continue
        f = stk[d, 5]
        if c:
            f |= _tile_local(d)
        if (t or p) and d != 0 and d != 8:
            f |= L_GNT
        if runs:
            f |= L_RUN | (0 if d == 0 or d == 6 else L_GNT)
        e = d + 1
        stk[e, 0] = runs
        stk[e, 1] = c1
        stk[e, 2] = sets + t + runs
        stk[e, 3] = pair + p
        stk[e, 4] = used + c - ni
        stk[e, 5] = f
        stk[e, 6] = stk[d, 6] + 1 if soft and c + mi == 4 else stk[d, 6]
        stk[e, 7] = 0
        d = e


@njit(cache=True)
def _pairs_search(counts, void, n_wild, limit, soft, mask, best, stk):
    """七对 readings (``interpret._all_pairs``): 0, 2 or 4 tiles of each suited kind, wildcards filling the rest
    where they may stand (outside the void suit); ``best[facts]`` keeps the most 根.  Depth first over the kinds,
    ``stk[k]`` = (pairs left, wildcards left, facts, 根, next choice)."""
    stk[0, 0] = 7
    stk[0, 1] = n_wild
    stk[0, 2] = 0
    stk[0, 3] = 0
    stk[0, 4] = 0
    cap = 4 if limit else 14
    k = 0
    while k >= 0:
        if k == 27:
            if stk[27, 0] == 0 and stk[27, 1] == 0:
                f = stk[27, 2] & mask
                if stk[27, 3] > best[f]:
                    best[f] = stk[27, 3]
            k -= 1
            continue
        j = stk[k, 4]
        if j >= 3:
            k -= 1
            continue
        stk[k, 4] = j + 1
        c = 2 * j
        ni = counts[k]
        pairs_left, wleft = stk[k, 0], stk[k, 1]
        budget = wleft if n_wild > 0 and k // 9 != void else 0
        if not (ni <= c <= cap and c - ni <= budget and c // 2 <= pairs_left):
            continue
        f = stk[k, 2]
        if c:
            r = k % 9
            f |= (1 << (k // 9)) | (_TERM if r == 0 or r == 8 else _SIMPLE | _GNT)
            if r != 1 and r != 4 and r != 7:
                f |= _NOTJ
        e = k + 1
        stk[e, 0] = pairs_left - c // 2
        stk[e, 1] = wleft - (c - ni)
        stk[e, 2] = f
        stk[e, 3] = stk[k, 3] + 1 if soft and c == 4 else stk[k, 3]
        stk[e, 4] = 0
        k = e


# ---- the fan tables ---------------------------------------------------------------------------------------------
# The row values, from the Python tables (envs.compiled.fan_values); rows valued by the configuration (七对 of 红中
# and its 龙七对, Chengdu's 金钩钓) are computed below from the rule vector as the tables' value functions do.
_CD_DDH, _CD_QYS, _CD_QIDUI, _CD_DYJ, _CD_JD, _CD_MENQING, _CD_DUANYAO = (
    fv.value("chengdu", name)
    for name in ("dui_dui_hu", "qing_yi_se", "qi_dui", "dai_yao_jiu", "jiang_dui", "men_qian_qing", "duan_yao_jiu")
)
_HZ_QYS, _HZ_DDH, _HZ_JGD, _HZ_DUANYAO, _HZ_YAOJIU, _HZ_SHA_GUI = (
    fv.value("hongzhong", name)
    for name in ("qing_yi_se", "dui_dui_hu", "jin_gou_diao", "duan_yao_jiu", "yao_jiu", "sha_gui")
)
_CD_LQD_MS = fv.at("chengdu", "long_qi_dui", longqidui_mode="ms")
_CD_LQD_FIXED4 = fv.at("chengdu", "long_qi_dui", longqidui_mode="fixed4_incl_gen")
_HZ_LQD_FIXED4 = fv.at("hongzhong", "long_qi_dui", longqidui_mode="fixed4_incl_gen")
_MS_BASIC = FAN_TABLES["mahjongsoul"].basic
_MS_DDH, _MS_QYS, _MS_QIDUI, _MS_DYJ, _MS_JGD, _MS_QING_DUI, _MS_JIANG_DUI, _MS_LQD, _MS_QQD, _MS_QYJ, _MS_QJGD = (
    fv.value("mahjongsoul", name)
    for name in ("dui_dui_hu", "qing_yi_se", "qi_dui", "dai_yao_jiu", "jin_gou_diao", "qing_dui", "jiang_dui",
                 "long_qi_dui", "qing_qi_dui", "qing_yao_jiu", "qing_jin_gou_diao")
)  # fmt: skip
_MS_QLQD, _MS_18, _MS_Q18, _MS_TIAN, _MS_DI = (
    fv.value("mahjongsoul", name)
    for name in ("qing_long_qi_dui", "shi_ba_luo_han", "qing_shi_ba_luo_han", "tian_hu", "di_hu")
)
_MS_LQD_GEN, _MS_QLQD_GEN, _MS_18_GEN, _MS_Q18_GEN = (
    fv.consumes("mahjongsoul", name)
    for name in ("long_qi_dui", "qing_long_qi_dui", "shi_ba_luo_han", "qing_shi_ba_luo_han")
)
_GEN, _GSKH, _GSP, _QGH, _HDLY, _HDP = (
    fv.common(("chengdu", "hongzhong", "mahjongsoul"), name)
    for name in ("gen", "gang_shang_kai_hua", "gang_shang_pao", "qiang_gang_hu", "hai_di_lao_yue", "hai_di_pao")
)


@njit(cache=True)
def _higher_base(base, used, value, consumes, applies):
    """``patterns._best_base`` one row at a time: ``(value, 根 consumed)`` of the best base row so far, replaced by
    an applicable row worth more, or as much while consuming fewer 根."""
    if applies and (value > base or (value == base and consumes < used)):
        return value, consumes
    return base, used


@njit(cache=True)
def _table_value(rules, standard, flags, gen, n_melds, concealed, all_kongs, wild_tiles, self_drawn, robbing_kong,
                 after_kong, last_tile, tianhu, dihu):  # fmt: skip
    """Total of one reading (``patterns.evaluate``): doublings of ``CHENGDU`` / ``HONGZHONG``, han of
    ``MAHJONGSOUL``.  ``all_kongs``: every meld is a kong (十八罗汉 with four melds)."""
    seven = not standard
    suits = flags & 15
    qys = suits == 1 or suits == 2 or suits == 4
    ddh = standard and not flags & _RUN
    jgd = standard and n_melds == 4
    lqd_mode = rules[S_LQD]
    lqd = lqd_mode != 0 and seven and gen >= 1
    table = rules[S_TABLE]
    total = 0
    consumed = 0  # 根 included in a base row (not counted again)
    inherit = True  # 杠上炮, 抢杠胡 and 海底炮 count
    if table == T_CHENGDU:
        yjjd = rules[S_YJJD] != 0
        jiang = ddh and not flags & _NOTJ
        jd = yjjd and jiang
        if ddh and not jgd and not jd:
            total += _CD_DDH
        if qys:
            total += _CD_QYS
        if seven and not lqd:
            total += _CD_QIDUI
        if lqd:
            total += _CD_LQD_FIXED4 if lqd_mode == 1 else _CD_LQD_MS
            consumed = 1
        if yjjd and not flags & _GNT:
            total += _CD_DYJ
        if jgd:
            total += 1 if (rules[S_JJ_STACK] == 0 and yjjd and jiang) else 2
        if jd:
            total += _CD_JD
        if rules[S_MENQING] and self_drawn and standard and concealed:
            total += _CD_MENQING
        if rules[S_DUANYAO] and not flags & (_TERM | _HONOR) and not jd:
            total += _CD_DUANYAO
    elif table == T_HONGZHONG:
        qidui = rules[S_HZ_QIDUI]
        if lqd:
            total += _HZ_LQD_FIXED4 if lqd_mode == 1 else qidui + 1
            consumed = 1
        if seven and not lqd:
            total += qidui
        if qys:
            total += _HZ_QYS
        if ddh:
            total += _HZ_DDH
        if jgd:
            total += _HZ_JGD
        if not flags & (_TERM | _HONOR):
            total += _HZ_DUANYAO
        if rules[S_HZ_ALL_TERMINALS]:
            if not flags & (_SIMPLE | _HONOR):
                total += _HZ_YAOJIU
        elif not flags & _GNT:
            total += _HZ_YAOJIU
        if wild_tiles == 0:
            total += _HZ_SHA_GUI
        inherit = rules[S_HZ_INHERIT] != 0
    else:  # 雀魂 赤羽 (han): the single highest base row, 无番和 1 when none applies
        dyj = not flags & _GNT
        rows = rules[S_TIANDI_ROWS] != 0
        base, used = _MS_BASIC, 0
        base, used = _higher_base(base, used, _MS_DDH, 0, ddh)  # 对对和
        base, used = _higher_base(base, used, _MS_QYS, 0, qys)  # 清一色
        base, used = _higher_base(base, used, _MS_QIDUI, 0, seven)  # 七对
        base, used = _higher_base(base, used, _MS_DYJ, 0, dyj)  # 带幺九
        base, used = _higher_base(base, used, _MS_JGD, 0, jgd)  # 金钩钓
        base, used = _higher_base(base, used, _MS_QING_DUI, 0, qys and ddh)  # 清对
        base, used = _higher_base(base, used, _MS_JIANG_DUI, 0, ddh and not flags & _NOTJ)  # 将对
        base, used = _higher_base(base, used, _MS_LQD, _MS_LQD_GEN, lqd)  # 龙七对
        base, used = _higher_base(base, used, _MS_QQD, 0, qys and seven)  # 清七对
        base, used = _higher_base(base, used, _MS_QYJ, 0, qys and dyj)  # 清幺九
        base, used = _higher_base(base, used, _MS_QJGD, 0, qys and jgd)  # 清金钩钓
        base, used = _higher_base(base, used, _MS_QLQD, _MS_QLQD_GEN, qys and lqd)  # 清龙七对
        base, used = _higher_base(base, used, _MS_18, _MS_18_GEN, jgd and all_kongs)  # 十八罗汉
        base, used = _higher_base(base, used, _MS_Q18, _MS_Q18_GEN, qys and jgd and all_kongs)  # 清十八罗汉
        base, used = _higher_base(base, used, _MS_TIAN, 0, rows and tianhu)  # 天和
        base, used = _higher_base(base, used, _MS_DI, 0, rows and dihu)  # 地和
        total = base
        consumed = used
    g = gen - consumed
    if g > 0:
        total += g * _GEN
    if after_kong and self_drawn:
        total += _GSKH
    if inherit:
        if after_kong and not self_drawn and not robbing_kong:
            total += _GSP
        if robbing_kong:
            total += _QGH
        if last_tile and not self_drawn:
            total += _HDP
    if last_tile and self_drawn:
        total += _HDLY
    return total


@njit(cache=True)
def _cap_amount(rules):
    """The most one payer pays (``scoring._payment``): ``2^cap_doublings`` units and ``point_cap``, -1: no cap."""
    cap = rules[S_CAP]
    amount = (np.int64(1) << cap) * rules[S_BASE] if cap >= 0 else np.int64(-1)
    points = rules[S_POINT_CAP]
    if points >= 0 and (amount < 0 or points < amount):
        amount = np.int64(points)
    return amount


@njit(cache=True)
def _fixed_payment(rules, value):
    """``scoring._fixed_result``: a fixed hand of ``value`` doublings (han in ``mahjongsoul``: ``2^(value-1)``),
    never capped but by ``point_cap``."""
    if rules[S_TABLE] == T_MAHJONGSOUL:
        pay = (np.int64(1) << (value - 1)) * rules[S_BASE]
        return min(pay, np.int64(rules[S_POINT_CAP]))
    return (np.int64(1) << value) * rules[S_BASE]


@njit(cache=True)
def _price(rules, total, zimo):
    """``scoring._priced`` / ``_payment`` of a doubling or han table: ``(multiplier, payment, doublings)``."""
    doublings = total
    if rules[S_TABLE] == T_MAHJONGSOUL:  # han: 2^(h-1)
        multiplier = np.int64(1) << (total - 1 if total > 0 else 0)
    else:
        multiplier = np.int64(1) << total
    if zimo and rules[S_ZIMO] == 2:
        doublings += 1
        multiplier *= 2
    raw = multiplier * rules[S_BASE]
    cap_amount = _cap_amount(rules)
    value = raw if cap_amount < 0 or raw <= cap_amount else cap_amount
    if zimo and rules[S_ZIMO] == 1:
        bonus = rules[S_TSUMO_UNITS]
        if rules[S_JIADI_AFTER_CAP] or cap_amount < 0:
            value += bonus
        else:
            value = min(raw + bonus, cap_amount)
    return multiplier, value, doublings


# ---- one win ----------------------------------------------------------------------------------------------------
@njit(cache=True)
def _score(counts, melds, n_melds, win_tile, void, self_drawn, robbing_kong, after_kong, last_tile, tianhu, dihu,
           paid_as_discard, rules, enforce_min, limit, shape_only, slot0, tab, ent, ne, best_std, best_7,
           stk):  # fmt: skip
    """``scoring._score``: ``(is_win, payment, doublings)``; ``counts`` include the winning tile.

    ``shape_only``: only whether the tiles have a reading (``judge.waits_mask``'s question: no 四红中, void suit or
    dead-红中 rule), as ``(found, 0, 0)``.  ``slot0 >= 0``: the suits are searched into slots ``slot0`` ..
    ``slot0 + 2`` (emptied again before returning); ``slot0 = -1``: slots 0-2 already hold the searches of the hand
    without ``win_tile`` (same limit, :func:`ready_value`), only the win tile's suit is searched again (slot 3)."""
    wild = rules[S_WILD]
    unit = rules[S_BASE]
    n_wild = counts[wild] if wild >= 0 else 0
    if not shape_only and wild >= 0 and rules[S_FOUR_RED] and n_wild >= 4:
        d = rules[S_FOUR_RED_D]
        return True, (np.int64(1) << d) * unit, np.int64(d)
    if not shape_only and wild >= 0 and win_tile == wild and not self_drawn:  # a discarded / robbed 红中 is dead
        return False, np.int64(0), np.int64(0)
    m = np.zeros(27, dtype=np.int64)
    concealed = True
    all_kongs = True
    mflags = 0
    for i in range(n_melds):
        kind = melds[3 * i]
        tile = melds[3 * i + 1]
        if not shape_only and void >= 0 and tile // 9 == void:
            return False, np.int64(0), np.int64(0)
        m[tile] += 3 if kind == 1 else 4
        if kind != 3:
            concealed = False
        if kind == 1:
            all_kongs = False
        r = tile % 9
        mflags |= _local_to_flags(_tile_local(r) | (0 if r == 0 or r == 8 else L_GNT), tile // 9)
    if not shape_only and void >= 0:
        for r in range(9):
            if counts[void * 9 + r]:
                return False, np.int64(0), np.int64(0)
    soft = rules[S_SOFT_GEN] != 0
    mask = rules[S_MASK]
    # standard shape: per suit, then the suits combined
    maxsets = 4 - n_melds
    if slot0 >= 0:
        sl0, sl1, sl2 = slot0, slot0 + 1, slot0 + 2
        for suit in range(3):
            _suit_search(counts, m, suit, slot0 + suit, n_wild, n_wild > 0 and suit != void, maxsets, limit, soft,
                         tab, ent, ne, stk)  # fmt: skip
    else:
        sw = win_tile // 9
        sl0 = 3 if sw == 0 else 0
        sl1 = 3 if sw == 1 else 1
        sl2 = 3 if sw == 2 else 2
        _suit_search(counts, m, sw, 3, n_wild, n_wild > 0 and sw != void, maxsets, limit, soft, tab, ent, ne, stk)
    for f in range(_NFLAGS):
        best_std[f] = -1
        best_7[f] = -1
    found = False
    if maxsets >= 0:
        for a in range(ne[sl0]):
            s0, p0, u0 = ent[sl0, a, 0], ent[sl0, a, 1], ent[sl0, a, 2]
            f0 = _local_to_flags(ent[sl0, a, 3], 0) | mflags
            g0 = ent[sl0, a, 4]
            for b in range(ne[sl1]):
                s1, p1, u1 = s0 + ent[sl1, b, 0], p0 + ent[sl1, b, 1], u0 + ent[sl1, b, 2]
                if s1 > maxsets or p1 > 1 or u1 > n_wild:
                    continue
                f1 = f0 | _local_to_flags(ent[sl1, b, 3], 1)
                g1 = g0 + ent[sl1, b, 4]
                for c in range(ne[sl2]):
                    if s1 + ent[sl2, c, 0] != maxsets or p1 + ent[sl2, c, 1] != 1 or u1 + ent[sl2, c, 2] != n_wild:
                        continue
                    f = (f1 | _local_to_flags(ent[sl2, c, 3], 2)) & mask
                    g = g1 + ent[sl2, c, 4]
                    if g > best_std[f]:
                        best_std[f] = g
                    found = True
    if slot0 >= 0:  # empty the slots for the next call
        for suit in range(3):
            _reset(slot0 + suit, tab, ent, ne)
    else:
        _reset(3, tab, ent, ne)
    if n_melds == 0:
        _pairs_search(counts, void, n_wild, limit, soft, mask, best_7, stk)
        for f in range(_NFLAGS):
            if best_7[f] >= 0:
                found = True
    if not found or shape_only:
        return found, np.int64(0), np.int64(0)
    if tianhu or dihu:
        fixed = rules[S_TIAN] if tianhu else rules[S_DI]
        if fixed >= 0:
            return True, _fixed_payment(rules, fixed), np.int64(fixed)
    if not soft:  # 根 of natural copies only (interpret.hard_gen)
        hard = 0
        for k in range(27):
            if counts[k] + m[k] == 4:
                hard += 1
        for f in range(_NFLAGS):
            if best_std[f] >= 0:
                best_std[f] = hard
            if best_7[f] >= 0:
                best_7[f] = hard
    zimo = self_drawn and not paid_as_discard
    b_mult = np.int64(-1)
    b_pay = np.int64(0)
    b_dbl = np.int64(0)
    for shape in range(2):
        for f in range(_NFLAGS):
            gen = best_std[f] if shape == 0 else best_7[f]
            if gen < 0:
                continue
            total = _table_value(rules, shape == 0, f, gen, n_melds, concealed, all_kongs, n_wild, self_drawn,
                                 robbing_kong, after_kong, last_tile, tianhu, dihu)  # fmt: skip
            mult, pay, dbl = _price(rules, total, zimo)
            if mult > b_mult or (mult == b_mult and (pay > b_pay or (pay == b_pay and dbl > b_dbl))):
                b_mult, b_pay, b_dbl = mult, pay, dbl
    if enforce_min and not rules[S_PINGHU] and not self_drawn and b_mult < 2:
        return False, np.int64(0), np.int64(0)
    return True, b_pay, b_dbl


@njit(cache=True)
def workspace() -> tuple[np.ndarray, ...]:
    """Scratch arrays of :func:`score_counts` / :func:`ready_value` (one set per caller; they are left clean); compiled,
    so that the kernel can make a set too (``kernel.win_ok``)."""
    return (
        np.zeros(_SLOTS * _MAXE, dtype=np.int32),  # per slot: (sets, pair, wildcards, facts) -> entry + 1
        np.zeros((_SLOTS, _MAXE, 5), dtype=np.int16),  # per slot entries: sets, pair, wildcards, facts, 根
        np.zeros(_SLOTS, dtype=np.int64),  # entries per slot
        np.zeros(_NFLAGS, dtype=np.int64),  # standard shape: facts -> most 根 (-1: none)
        np.zeros(_NFLAGS, dtype=np.int64),  # 七对: the same
        np.zeros((28, 8), dtype=np.int64),  # search stack
    )


@njit(cache=True)
def score_counts(counts, melds, n_melds, win_tile, void, self_drawn, robbing_kong, after_kong, last_tile, tianhu, dihu,
               paid_as_discard, rules, tab, ent, ne, best_std, best_7, stk):  # fmt: skip
    """``judge.score``: ``(is_win, payment, doublings)`` of a win; ``counts`` (34) include ``win_tile``, ``melds``
    holds ``n_melds`` ``(kind, tile, from_seat)`` triples (layout ``M_*`` kinds), ``void`` is -1 without 定缺; the
    last six arguments are a :func:`workspace`."""
    return _score(counts, melds, n_melds, win_tile, void, self_drawn, robbing_kong, after_kong, last_tile, tianhu,
                  dihu, paid_as_discard, rules, True, rules[S_LIMIT] != 0, False, 0, tab, ent, ne, best_std,
                  best_7, stk)  # fmt: skip


@njit(cache=True)
def ready_value(counts, melds, n_melds, void, rules, tab, ent, ne, best_std, best_7, stk):
    """``settlement.ready_value`` (dead waits counting as ready): the 查大叫 payment of a 13-tile hand — the max (or
    min, ``chadajiao``) over its waits of a plain discard win — :data:`NOT_READY` when it waits on nothing or is a
    花猪; the last six arguments are a :func:`workspace`.

    Each kind ``t`` is scored as a discard win (no situation, wildcard kinds skipped, a kind held four times skipped
    under ``ready_excludes_fifth_tile``, else scored without the four-copy limit).  A hand holding four 红中 with
    ``hz_four_red_instant`` wins 四红中 on any wait the settlement tries: the shape waits of ``judge.waits_mask``
    (outside the void suit, void tiles held or not) and the fifth copies."""
    wild = rules[S_WILD]
    held = 0
    for k in range(27):
        if counts[k]:
            held |= 1 << (k // 9)
    for i in range(n_melds):
        held |= 1 << (melds[3 * i + 1] // 9)
    if rules[S_DINGQUE]:
        if rules[S_THREE_SUITS]:
            if held == 7:
                return NOT_READY
        elif void >= 0 and held >> void & 1:
            return NOT_READY
    hand = np.empty(34, dtype=np.int64)
    for k in range(34):
        hand[k] = counts[k]
    own = np.zeros(27, dtype=np.int64)
    for k in range(27):
        own[k] = hand[k]
    for i in range(n_melds):
        own[melds[3 * i + 1]] += 3 if melds[3 * i] == 1 else 4
    limit = rules[S_LIMIT] != 0
    if wild >= 0 and rules[S_FOUR_RED] and counts[wild] >= 4:
        for t in range(27):
            fifth = own[t] >= 4
            if fifth and rules[S_EXCL_FIFTH]:
                continue
            if not fifth:
                if void >= 0 and t // 9 == void:
                    continue
                hand[t] += 1
                ok, _, _ = _score(hand, melds, n_melds, t, void, False, False, False, False, False, False, False,
                                  rules, False, limit, True, 0, tab, ent, ne, best_std, best_7, stk)  # fmt: skip
                hand[t] -= 1
                if not ok:
                    continue
            return (np.int64(1) << rules[S_FOUR_RED_D]) * rules[S_BASE]
        return np.int64(NOT_READY)
    want_max = rules[S_CHADAJIAO_MAX] != 0
    value = np.int64(NOT_READY)
    # the suits without the wait are the same for every wait: searched once (slots 0-2), the wait's suit per wait
    n_wild = hand[wild] if wild >= 0 else 0
    m = np.zeros(27, dtype=np.int64)
    for i in range(n_melds):
        m[melds[3 * i + 1]] += 3 if melds[3 * i] == 1 else 4
    soft = rules[S_SOFT_GEN] != 0
    for suit in range(3):
        _suit_search(hand, m, suit, suit, n_wild, n_wild > 0 and suit != void, 4 - n_melds, limit, soft, tab, ent, ne,
                     stk)  # fmt: skip
    for t in range(27):
        fifth = own[t] >= 4
        if fifth and rules[S_EXCL_FIFTH]:
            continue
        hand[t] += 1
        ok, pay, _ = _score(hand, melds, n_melds, t, void, False, False, False, False, False, False, False, rules,
                            False, limit and not fifth, False, 4 if fifth else -1, tab, ent, ne, best_std, best_7,
                            stk)  # fmt: skip
        hand[t] -= 1
        if ok and (value < 0 or (pay > value if want_max else pay < value)):
            value = pay
    for suit in range(3):
        _reset(suit, tab, ent, ne)
    return value


# ---- the Python entry -------------------------------------------------------------------------------------------
_TABLES = {"chengdu": T_CHENGDU, "hongzhong": T_HONGZHONG, "mahjongsoul": T_MAHJONGSOUL}
_EXTRA_TILES = {"none": (), "hongzhong": (RED,) * 4}
_LQD = {"qidui_plus_gen": 0, "fixed4_incl_gen": 1, "ms": 2}
_ZIMO = {"none": 0, "factor": 0, "jiadi": 1, "jiafan": 2}


def _fixed_values(cfg: RuleConfig) -> tuple[int, int]:
    """天胡 / 地胡 fixed doublings (han in ``mahjongsoul``) per ``tiandihu`` (``scoring._fixed_hand``), -1 where the
    table scores the hand (``ms6`` in ``mahjongsoul``: 6-han base rows, ``S_TIANDI_ROWS``)."""
    if cfg.tiandihu == "off":
        return -1, -1
    top = cfg.cap_doublings if cfg.cap_doublings is not None else 6
    mode = cfg.tiandihu
    if mode == "ms6":
        return (-1, -1) if cfg.fan_table == "mahjongsoul" else (6, 6)
    if mode == "cap":
        return top, top - 1
    if mode == "fixed8":
        return cfg.hz_tiandihu_fixed, cfg.hz_tiandihu_fixed
    if mode == "cap_plus_1":
        return top + 1, top + 1
    return cfg.dkg_tiandihu_fixed, cfg.dkg_tiandihu_fixed  # "fixed3"


def unsupported(cfg: RuleConfig) -> list[str]:
    """Why the compiled scorer does not cover ``cfg`` (empty when it does)."""
    problems = []
    if cfg.fan_table not in _TABLES:
        problems.append(f"fan_table {cfg.fan_table!r} (it scores {', '.join(_TABLES)})")
    if cfg.wild not in _EXTRA_TILES:
        problems.append(f"wild {cfg.wild!r} (it reads none or the 红中 wildcards)")
    elif tuple(cfg.extra_tiles) != _EXTRA_TILES[cfg.wild]:
        problems.append(f"extra_tiles {list(cfg.extra_tiles)!r} with wild {cfg.wild!r}")
    if cfg.suits != "mps" or cfg.hand_size != 13:
        problems.append(f"suits {cfg.suits!r} / hand_size {cfg.hand_size} (it reads the three suits, 13 tiles)")
    if cfg.hz_red_discard_claimable or cfg.wild_in_melds or cfg.allow_chi:
        problems.append("claimable 红中, wildcards in melds or 吃")
    if cfg.zimo_bonus not in _ZIMO:
        problems.append(f"zimo_bonus {cfg.zimo_bonus!r}")
    if cfg.wild_ignores_four_copy_limit:  # a fifth copy through a wildcard: not modelled (nor played by the kernel)
        problems.append("wild_ignores_four_copy_limit = true")
    if not cfg.dead_wait_counts_as_ready:
        problems.append("dead_wait_counts_as_ready = false (查大叫 needs the unseen copies)")
    tian, di = _fixed_values(cfg)
    mahjongsoul = cfg.fan_table == "mahjongsoul"
    fixed = cfg.tiandihu != "off" and not (mahjongsoul and cfg.tiandihu == "ms6")
    negative_cap = cfg.cap_doublings is not None and cfg.cap_doublings < 0
    if negative_cap or (fixed and min(tian, di) < (1 if mahjongsoul else 0)):
        problems.append("a negative cap or fixed value (a fixed mahjongsoul hand needs 1 han; Python raises)")
    if max(tian, di, cfg.hz_tiandihu_fixed, cfg.cap_doublings or 0) > 40:
        problems.append("fixed values or caps past 2^40")
    if mahjongsoul and not 0 <= cfg.point_cap <= 1 << 40:
        problems.append(f"point_cap {cfg.point_cap} (it reads 0 to 2^40)")
    return problems


def rule_vector(cfg: RuleConfig) -> np.ndarray:
    """The rule vector (``S_*``) of a configuration :func:`unsupported` accepts."""
    problems = unsupported(cfg)
    if problems:
        raise ValueError(f"variant {cfg.name!r}: the compiled scorer does not cover " + "; ".join(problems))
    r = np.zeros(NUM_SCORE_RULES, dtype=np.int64)
    hongzhong = cfg.wild == "hongzhong"
    r[S_TABLE] = _TABLES[cfg.fan_table]
    r[S_WILD] = RED if hongzhong else -1
    r[S_FOUR_RED] = hongzhong and cfg.hz_four_red_instant
    r[S_FOUR_RED_D] = cfg.hz_tiandihu_fixed
    r[S_BASE] = cfg.base_unit
    r[S_CAP] = -1 if cfg.cap_doublings is None else cfg.cap_doublings
    r[S_ZIMO] = _ZIMO[cfg.zimo_bonus]
    r[S_JIADI_AFTER_CAP] = cfg.zimo_jiadi_after_cap
    r[S_TSUMO_UNITS] = cfg.tsumo_bonus_units
    r[S_LQD] = _LQD[cfg.longqidui_mode]
    r[S_YJJD] = cfg.enable_yaojiu_jiangdui
    r[S_MENQING] = cfg.enable_menqing
    r[S_DUANYAO] = cfg.enable_duanyao
    r[S_JJ_STACK] = cfg.jiang_jingou_stack
    r[S_HZ_QIDUI] = cfg.hz_qidui_doublings
    r[S_HZ_ALL_TERMINALS] = cfg.hz_yaojiu_definition == "all_terminals"
    r[S_HZ_INHERIT] = cfg.hz_inherit_situational
    r[S_TIAN], r[S_DI] = _fixed_values(cfg)
    r[S_PINGHU] = cfg.allow_pinghu_on_discard
    r[S_CHADAJIAO_MAX] = cfg.chadajiao == "max"
    r[S_EXCL_FIFTH] = cfg.ready_excludes_fifth_tile
    r[S_SOFT_GEN] = cfg.wild_counts_for_gen
    r[S_LIMIT] = not cfg.wild_ignores_four_copy_limit
    r[S_DINGQUE] = cfg.dingque
    r[S_THREE_SUITS] = cfg.huazhu_definition == "three_suits"
    r[S_MASK] = FAN_TABLES[cfg.fan_table].reads
    mahjongsoul = cfg.fan_table == "mahjongsoul"
    r[S_POINT_CAP] = cfg.point_cap if mahjongsoul else -1
    r[S_TIANDI_ROWS] = mahjongsoul and cfg.tiandihu == "ms6"
    return r


class TableScorer:
    """What the compiled scorers share: one configuration, its rule vector and the scorer's scratch arrays.  A
    subclass names its three module functions: ``rules_of`` (the rule vector of a configuration), ``workspace``
    (the scratch arrays, made once per scorer) and ``unsupported`` (the rules of a configuration it does not
    cover)."""

    __slots__ = ("cfg", "rules", "work")
    rules_of: staticmethod
    workspace: staticmethod
    unsupported: staticmethod

    def __init__(self, cfg: RuleConfig) -> None:
        self.cfg = cfg
        self.rules = self.rules_of(cfg)
        self.work = self.workspace()

    @classmethod
    def for_config(cls, cfg: RuleConfig) -> Self | None:
        """The scorer of ``cfg``, or None when ``unsupported`` names a rule it does not cover."""
        return None if cls.unsupported(cfg) else cls(cfg)


class CompiledScorer(TableScorer):
    """The compiled scorer of one configuration: :meth:`score` (a win) and :meth:`ready` (查大叫)."""

    __slots__ = ()
    rules_of = staticmethod(rule_vector)
    workspace = staticmethod(workspace)
    unsupported = staticmethod(unsupported)

    def score(
        self,
        counts: np.ndarray,
        melds: np.ndarray,
        n_melds: int,
        win_tile: int,
        *,
        void: int,
        self_drawn: bool,
        robbing_kong: bool = False,
        after_kong: bool = False,
        last_tile: bool = False,
        tianhu: bool = False,
        dihu: bool = False,
        paid_as_discard: bool = False,
    ) -> tuple[bool, int, int]:
        """``(is_win, payment, doublings)`` as ``judge.score`` gives ``is_win``, ``payment``, ``doublings or 0``.

        ``counts``: 34 physical concealed counts including ``win_tile``; ``melds``: ``(kind, tile, from_seat)``
        triples (layout ``M_*`` kinds, at least ``3 * n_melds`` ints); ``void``: the void suit or -1.
        """
        ok, pay, dbl = score_counts(counts, melds, n_melds, win_tile, void, self_drawn, robbing_kong, after_kong,
                                  last_tile, tianhu, dihu, paid_as_discard, self.rules, *self.work)  # fmt: skip
        return bool(ok), int(pay), int(dbl)

    def ready(self, counts: np.ndarray, melds: np.ndarray, n_melds: int, void: int) -> int:
        """The 查大叫 value (:func:`ready_value`): a payment or :data:`NOT_READY`."""
        return int(ready_value(counts, melds, n_melds, void, self.rules, *self.work))


def meld_array(melds: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """``(kind, tile, from_seat)`` triples as the flat int32 array :meth:`CompiledScorer.score` reads."""
    out = np.zeros(3 * max(len(melds), 1), dtype=np.int32)
    for i, (kind, tile, src) in enumerate(melds):
        out[3 * i : 3 * i + 3] = (kind, tile, src)
    return out
