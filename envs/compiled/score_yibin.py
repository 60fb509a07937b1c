"""Compiled 宜宾 scoring (编译计分, RULES.md §4.4): the payment of a win and the 查大叫 value of a ready hand, in numba.

The numba counterparts of :func:`envs.scoring.judge.score` (→ :func:`envs.scoring.scorer.score_win`) for the ``yibin``
fan table and of :func:`envs.scoring.settlement.ready_value` (→ :func:`envs.scoring.scorer.discard_values`) for a Yibin
seat.  Only the money is computed: ``(is_win, payment, doublings)`` — ``doublings`` is ``ScoreResult.doublings or 0``
(the uncapped total, 自摸加番 included; a fixed 天胡/地胡 its fixed value), which is what 过胡 with
``pass_hu_allow_higher`` compares.
:meth:`CompiledYibinScorer.for_config` answers None for a configuration these functions do not cover
(:func:`unsupported_yibin`).

The hand (what the engine holds)
--------------------------------
``counts``: 34 physical concealed counts including the winning tile, the 听用 counted under their own kinds (the two
rank neighbours of the 本金 ``indicator``, :func:`envs.scoring.scorer.tingyong_kinds`); ``melds``: ``(kind, tile,
from_seat)`` triples, kinds 1 pong, 2 exposed kong, 3 concealed kong, 4 added kong, 5 飞 (a triplet of ``tile``);
``meld_wilds``: two entries per meld, the physical 听用 kinds inside a 飞 (-1: none).

How a hand is read (the readings of :mod:`envs.scoring.interpret` with the flags the ``yibin`` table reads)
--------------------------------------------------------------------------------------------------
The 听用 in the concealed hand are wildcards: each stands for any kind of a suit in play other than the void suit
(its own kind included).  Every kind holds at most four copies counting what the melds represent (a 飞 is three
copies of its kind: AMB-14 as :mod:`envs.scoring.interpret` applies it; a 查大叫 fifth-copy wait lifts the limit).

* Standard shape: each suit is read on its own, rank by rank, as a dynamic programme over the states ``(runs
  started one and two ranks back, sets, pair, 听用 used, facts) -> most 根``: at each rank the triplets, pairs and
  runs started there, the copies past the natural ones paid with 听用 (where they may stand).  A suit's facts are
  "some set is a run" and "a triplet of the 本金 kind" (本金); a suit is present when it holds a set or the pair.
  The three suits are then combined under the totals (``4 - melds`` sets, one pair, every concealed 听用 used) with
  the melds' facts (their suits; a pong, kong or 飞 of the 本金 kind).  Merging equal states keeps the work small:
  eight 听用 make a few hundred states per suit, where a depth-first search would walk thousands of paths.
* 七对 (no melds): every kind holds 0, 2 or 4 tiles, 听用 filling the rest, as a programme over the kinds with the
  states ``(听用 used, suits present) -> most 根``.
* 根 (``wild_counts_for_gen``): kinds whose represented copies, concealed and melded, reach four; otherwise the
  natural copies only (``interpret.hard_gen``: the 听用 kinds and a 飞's 听用 never count).

As in the Python scorer, the readings that agree on ``(shape, facts)`` keep the most 根 (the table is non-decreasing
in 根), each is valued and the best one counts by ``(multiplier, payment, doublings)``.

Rules applied in :func:`envs.scoring.scorer._score` order
--------------------------------------------------
A 听用 won on a discard or a robbed kong is no win; a tile of the void suit (concealed, a 听用 excepted, or a meld
of that suit) is no win; no reading is no win; 天胡/地胡 are fixed hands (``tiandihu``, e.g. ``cap_plus_1``: 1 <<
(cap + 1) base, no cap, no self-draw bonus); otherwise the ``yibin`` table (``patterns.YIBIN``, ``max_base``): the
single largest base row (对对 ``yibin_duidui_doublings``, 清一色 2, 七对 2, 龙七对 per ``longqidui_mode``, 金钩钓 3,
清对 4, 清七对 4, 清金钩钓 5; ties to the row consuming fewer 根) + 根 (less the 根 a 龙七对 row includes) + 杠上花 /
杠上炮 / 抢杠 / 海底捞月 / 海底炮 + 和绝张 (``enable_juezhang`` and ``juezhang``) + 本金 1 (a triplet, pong, kong or
飞 of the 本金 kind in a standard reading) + 无听用 (no 听用 in the hand nor in a 飞: +2, or +1 and 2 base units
after the cap with ``one_gen_plus_two_units``); then 自摸 (``jiafan`` +1 doubling, ``jiadi`` units; not for a
点杠花 paid as a discard), the cap (``cap_doublings``), and the two-player minimum (``allow_pinghu_on_discard``).

查大叫 (:func:`ready_yibin`): a 花猪 is never ready; otherwise over the suited kinds ``t`` in play other than the
听用 kinds (a kind held four times, 飞 听用 counted at their physical kinds, skipped under
``ready_excludes_fifth_tile``, else scored without the four-copy limit) the payment of a plain discard win on ``t``
(no situation, no minimum); the max (``chadajiao = "max"``) or min of the wins, :data:`NOT_READY` when none.  The
Python side only scores the shape waits of ``judge.waits_mask``, a superset of the scorer's wins, so trying every
kind gives the same answer.  ``tests/compiled/test_compiled_score_yibin.py`` compares every output with the Python side.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.compiled import fan_values as fv
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG
from envs.compiled.score import TableScorer, _fixed_values
from envs.core.rule_config import RuleConfig

M_FEI = 5  # 飞: layout.M_FEI (a triplet of the meld's tile holding one or two 听用)

# ---- the rule vector -------------------------------------------------------------------------------------------
Y_BASE = 0  # base_unit
Y_CAP = 1  # cap_doublings, -1: none
Y_ZIMO = 2  # zimo_bonus: 0 none, 1 jiadi, 2 jiafan
Y_JIADI_AFTER_CAP = 3  # zimo_jiadi_after_cap
Y_TSUMO_UNITS = 4  # cfg.tsumo_bonus_units (jiadi: base_unit per payer)
Y_DUIDUI = 5  # yibin_duidui_doublings
Y_LQD = 6  # longqidui_mode: 0 qidui_plus_gen, 1 fixed4_incl_gen, 2 ms
Y_WU_UNITS = 7  # yibin_wutingyong == "one_gen_plus_two_units" (+1 and 2 base units; else +2)
Y_JUEZHANG = 8  # enable_juezhang (和绝张 +1 when the caller says juezhang)
Y_TIAN = 9  # 天胡 fixed doublings, -1: not a fixed hand
Y_DI = 10  # 地胡 fixed doublings, -1: not a fixed hand
Y_PINGHU = 11  # allow_pinghu_on_discard
Y_CHADAJIAO_MAX = 12  # chadajiao == "max"
Y_EXCL_FIFTH = 13  # ready_excludes_fifth_tile
Y_SOFT_GEN = 14  # wild_counts_for_gen
Y_DINGQUE = 15  # dingque (花猪 at 查大叫)
Y_THREE_SUITS = 16  # huazhu_definition == "three_suits"
Y_SUITS = 17  # bit s: suit s is in play (the kinds a 听用 may stand for, the kinds 查大叫 tries)
NUM_YIBIN_RULES = 18

NOT_READY = -1  # ready_yibin: no wait is a win (or a 花猪)

# situation bits (score_yibin packs its flags into one int)
SIT_SELF = 1
SIT_ROB = 2
SIT_AFTER_KONG = 4
SIT_LAST = 8
SIT_TIAN = 16
SIT_DI = 32
SIT_PAID_AS_DISCARD = 64
SIT_JUEZHANG = 128

# ---- search sizes ----------------------------------------------------------------------------------------------
MAX_WILD = 8  # concealed 听用: two kinds of four copies
_NU = MAX_WILD + 1  # 听用 used: 0-8
_NST = 5 * 5 * 5 * 2 * _NU * 4  # suit programme states: (c1, c2, sets, pair, used, facts)
_NSUIT = 5 * 2 * _NU * 4  # a suit's readings: (sets, pair, used, facts)
_SLOTS = 7  # suit tables: 0-2 a hand's suits, 3 a 查大叫 wait's suit, 4-6 a fifth-copy wait's suits
_N7 = _NU * 8  # 七对 states: (used, suits present)
L_RUN, L_MARKED = 1, 2  # a suit's facts: some set is a run; a triplet of the 本金 kind
F_RUN, F_MARKED = 8, 16  # a reading's facts: bits 0-2 the suits present, then the two facts


@njit(cache=True)
def _tingyong(indicator):
    """The two 听用 kinds of the 本金 ``indicator`` (``scoring.tingyong_kinds``), lower first."""
    base = indicator - indicator % 9
    r = indicator % 9
    a = base + (r + 8) % 9
    b = base + (r + 1) % 9
    return (a, b) if a < b else (b, a)


# ---- the searches ----------------------------------------------------------------------------------------------
@njit(cache=True)
def _suit_dp(nat, mrep, suit, n_wild, can_wild, maxsets, limit, soft, marked_rank, dp, act, stab, sent, sn, slot):
    """The standard readings of ``suit`` (``interpret._standard_kinds`` over its nine ranks) into table ``slot``:
    ``(sets, pair, 听用 used, facts) -> most 根`` (``sent[slot, j]`` = sets, pair, used, facts, 根 for ``j <
    sn[slot]``; ``stab[slot, key]`` = entry + 1 of a key, 0: none).

    ``dp[i, state]`` holds the most 根 of a state (-1: unreached) with ``state = ((((c1 * 5 + c2) * 5 + sets) * 2
    + pair) * 9 + used) * 4 + facts`` (``c1`` / ``c2``: runs started one / two ranks back); ``act[i]`` lists the
    reached states of layer ``i``.  Both layers are left at -1."""
    for j in range(sn[slot]):  # empty the slot
        stab[slot, ((sent[slot, j, 0] * 2 + sent[slot, j, 1]) * _NU + sent[slot, j, 2]) * 4 + sent[slot, j, 3]] = 0
    sn[slot] = 0
    cur = 0
    n_act = 1
    act[0, 0] = 0
    dp[0, 0] = 0
    for d in range(9):
        k = suit * 9 + d
        ni = nat[k]
        mi = mrep[k]
        cap = 4 - mi if limit else 14
        quad = 4 - mi if soft else -1  # a kind whose copies reach four with the melds: one 根
        nxt = 1 - cur
        n_new = 0
        for a in range(n_act):
            code = act[cur, a]
            g = dp[cur, code]
            dp[cur, code] = -1
            lf = code & 3
            x = code >> 2
            used = x % _NU
            x //= _NU
            pair = x % 2
            x //= 2
            sets = x % 5
            x //= 5
            c2 = x % 5
            c1 = x // 5
            carry = c1 + c2
            top = ni + (n_wild - used if can_wild else 0)
            if top > cap:
                top = cap
            if carry > top:
                continue
            for t in range(3):  # triplets, pairs and runs started here (interpret._options order)
                if sets + t > maxsets:
                    break
                for p in range(2 - pair):
                    base = 3 * t + 2 * p + carry
                    if base > top:
                        break
                    rmax = maxsets - sets - t if d <= 6 else 0
                    for r in range(rmax + 1):
                        c = base + r
                        if c > top:
                            break
                        if c < ni:
                            continue
                        nlf = lf
                        if r:
                            nlf |= L_RUN
                        if t and d == marked_rank:
                            nlf |= L_MARKED
                        ng = g + 1 if c == quad else g
                        ncode = ((((r * 5 + c1) * 5 + sets + t + r) * 2 + pair + p) * _NU + used + c - ni) * 4 + nlf
                        old = dp[nxt, ncode]
                        if old < 0:
                            act[nxt, n_new] = ncode
                            n_new += 1
                            dp[nxt, ncode] = ng
                        elif ng > old:
                            dp[nxt, ncode] = ng
        cur = nxt
        n_act = n_new
        if n_act == 0:
            break
    for a in range(n_act):  # no run starts at rank 8 or 9: c1 = c2 = 0, the state is the key
        key = act[cur, a]
        g = dp[cur, key]
        dp[cur, key] = -1
        j = sn[slot]
        sn[slot] = j + 1
        stab[slot, key] = j + 1
        sent[slot, j, 3] = key & 3
        x = key >> 2
        sent[slot, j, 2] = x % _NU
        x //= _NU
        sent[slot, j, 1] = x % 2
        sent[slot, j, 0] = x // 2
        sent[slot, j, 4] = g


@njit(cache=True)
def _combine(s0, s1, s2, n_wild, maxsets, mflags, hard, stab, sent, sn, best):
    """Every standard reading from the suit tables ``s0``, ``s1``, ``s2`` (万 筒 条) under the totals (``maxsets``
    sets, one pair, ``n_wild`` 听用) and the melds' facts ``mflags``; ``best[facts]`` keeps the most 根 (``hard`` >=
    0: the 根 of natural copies, the same for every reading).  True when one exists."""
    found = False
    for a in range(sn[s0]):
        sa, pa, ua, la, ga = sent[s0, a, 0], sent[s0, a, 1], sent[s0, a, 2], sent[s0, a, 3], sent[s0, a, 4]
        for b in range(sn[s1]):
            sb = sa + sent[s1, b, 0]
            pb = pa + sent[s1, b, 1]
            ub = ua + sent[s1, b, 2]
            if sb > maxsets or pb > 1 or ub > n_wild:
                continue
            lb = la | sent[s1, b, 3]
            gb = ga + sent[s1, b, 4]
            f = mflags
            if sa + pa:
                f |= 1
            if sent[s1, b, 0] + sent[s1, b, 1]:
                f |= 2
            if maxsets - sb + 1 - pb:
                f |= 4
            rest = (((maxsets - sb) * 2 + 1 - pb) * _NU + n_wild - ub) * 4
            for lc in range(4):
                j = stab[s2, rest + lc]
                if j == 0:
                    continue
                lf = lb | lc
                fc = f
                if lf & L_RUN:
                    fc |= F_RUN
                if lf & L_MARKED:
                    fc |= F_MARKED
                g = gb + sent[s2, j - 1, 4] if hard < 0 else hard
                if g > best[fc]:
                    best[fc] = g
                found = True
    return found


@njit(cache=True)
def _pairs_dp(nat, n_wild, wild_suits, limit, soft, hard, p7, best):
    """七对 readings (``interpret._all_pairs`` with seven pairs): every suited kind 0, 2 or 4 tiles, 听用 filling the
    rest where they may stand (suit bit set in ``wild_suits``); ``best[32 + suits present]`` keeps the most 根.  The
    states ``(used, suits) -> most 根`` live in ``p7[layer]`` (left at -1).  True when one exists."""
    cap = 4 if limit else 14
    cur = 0
    p7[0, 0] = 0
    for k in range(27):
        ni = nat[k]
        s = k // 9
        can = (wild_suits >> s) & 1
        if ni == 0 and not can:
            continue  # only c = 0: the states stay
        nxt = 1 - cur
        bit = 1 << s
        for code in range(_N7):
            g = p7[cur, code]
            if g < 0:
                continue
            p7[cur, code] = -1
            used = code >> 3
            sb = code & 7
            for c in range(0, 5, 2):
                if c < ni or c > cap:
                    continue
                extra = c - ni
                if extra and (not can or used + extra > n_wild):
                    continue
                nsb = sb | bit if c else sb
                ng = g + 1 if soft and c == 4 else g
                ncode = (used + extra) * 8 + nsb
                if ng > p7[nxt, ncode]:
                    p7[nxt, ncode] = ng
        cur = nxt
    found = False
    for code in range(_N7):
        g = p7[cur, code]
        if g < 0:
            continue
        p7[cur, code] = -1
        if code >> 3 == n_wild:
            best[32 + (code & 7)] = g if hard < 0 else hard
            found = True
    return found


# ---- the table --------------------------------------------------------------------------------------------------
# The row values of ``patterns.YIBIN`` (envs.compiled.fan_values); 对对胡 and 无听用 follow the configuration
# (the rule vector), as the table's value functions do.
_QYS, _QIDUI, _JGD, _QING_DUI, _QQD, _QJGD = (
    fv.value("yibin", name)
    for name in ("qing_yi_se", "qi_dui", "jin_gou_diao", "qing_dui", "qing_qi_dui", "qing_jin_gou_diao")
)
_LQD_GEN = fv.consumes("yibin", "long_qi_dui")
_LQD_MS = fv.at("yibin", "long_qi_dui", longqidui_mode="ms")
_LQD_FIXED4 = fv.at("yibin", "long_qi_dui", longqidui_mode="fixed4_incl_gen")
_GEN, _GSKH, _GSP, _QGH, _HDLY, _HDP, _JUEZHANG, _BEN_JIN = (
    fv.value("yibin", name)
    for name in ("gen", "gang_shang_kai_hua", "gang_shang_pao", "qiang_gang_hu", "hai_di_lao_yue", "hai_di_pao",
                 "he_jue_zhang", "ben_jin")
)  # fmt: skip


@njit(cache=True)
def _value(rules, standard, f, gen, n_melds, wild_tiles, sit):
    """``patterns.evaluate`` of ``YIBIN`` + ``scoring._priced``: ``(multiplier, payment, doublings)`` of one
    reading (``f``: suits present in bits 0-2, :data:`F_RUN`, :data:`F_MARKED`)."""
    suits = f & 7
    qys = suits == 1 or suits == 2 or suits == 4
    seven = not standard
    ddh = standard and not f & F_RUN
    jgd = standard and n_melds == 4
    lqd_mode = rules[Y_LQD]
    # the single highest base row (patterns._best_base: ties to the row consuming fewer 根), 平胡 0 when none
    have = False
    base = 0
    used = 0
    for row in range(8):
        if row == 0:
            worth, consumes, applies = rules[Y_DUIDUI], 0, ddh  # 对对胡
        elif row == 1:
            worth, consumes, applies = _QYS, 0, qys  # 清一色
        elif row == 2:
            worth, consumes, applies = _QIDUI, 0, seven  # 七对
        elif row == 3:
            lqd = lqd_mode != 0 and seven and gen >= 1
            worth, consumes, applies = (_LQD_FIXED4 if lqd_mode == 1 else _LQD_MS), _LQD_GEN, lqd  # 龙七对
        elif row == 4:
            worth, consumes, applies = _JGD, 0, jgd  # 金钩钓
        elif row == 5:
            worth, consumes, applies = _QING_DUI, 0, qys and ddh  # 清对
        elif row == 6:
            worth, consumes, applies = _QQD, 0, qys and seven  # 清七对
        else:
            worth, consumes, applies = _QJGD, 0, qys and jgd  # 清金钩钓
        if applies and (not have or worth > base or (worth == base and consumes <= used)):
            have = True
            base = worth
            used = consumes
    total = base
    if gen > used:
        total += (gen - used) * _GEN  # 根
    self_drawn = sit & SIT_SELF != 0
    if sit & SIT_AFTER_KONG:
        if self_drawn:
            total += _GSKH  # 杠上开花
        elif not sit & SIT_ROB:
            total += _GSP  # 杠上炮
    if sit & SIT_ROB:
        total += _QGH  # 抢杠胡
    if sit & SIT_LAST:
        total += _HDLY if self_drawn else _HDP  # 海底捞月 / 海底炮
    if sit & SIT_JUEZHANG and rules[Y_JUEZHANG]:
        total += _JUEZHANG  # 和绝张
    if standard and f & F_MARKED:
        total += _BEN_JIN  # 本金
    extra_units = 0
    if wild_tiles == 0:  # 无听用
        if rules[Y_WU_UNITS]:
            total += 1
            extra_units = 2
        else:
            total += 2
    zimo = self_drawn and not sit & SIT_PAID_AS_DISCARD
    if zimo and rules[Y_ZIMO] == 2:
        total += 1  # 自摸加番
    mult = np.int64(1) << total
    unit = rules[Y_BASE]
    raw = mult * unit
    value = raw
    cap = rules[Y_CAP]
    cap_amount = (np.int64(1) << cap) * unit if cap >= 0 else np.int64(-1)
    if cap >= 0 and raw > cap_amount:
        value = cap_amount
    if zimo and rules[Y_ZIMO] == 1:  # 自摸加底
        bonus = rules[Y_TSUMO_UNITS]
        if rules[Y_JIADI_AFTER_CAP] or cap < 0:
            value += bonus
        else:
            value = min(raw + bonus, cap_amount)
    return mult, value + extra_units * unit, np.int64(total)


# ---- one win ----------------------------------------------------------------------------------------------------
@njit(cache=True)
def _meld_natural(kind, i, meld_wilds):
    """Natural tiles of meld ``i`` (a 飞 less its 听用)."""
    if kind in (M_KONG, M_ANKONG, M_BUKONG):
        return 4
    if kind == M_FEI:
        return 3 - (meld_wilds[2 * i] >= 0) - (meld_wilds[2 * i + 1] >= 0)
    return 3


@njit(cache=True)
def _hard_gen(nat, melds, meld_wilds, n_melds):
    """``interpret.hard_gen``: kinds whose natural copies, concealed (``nat``: 听用 kinds zeroed) and melded, are 4."""
    hard = 0
    for k in range(27):
        c = nat[k]
        for i in range(n_melds):
            if melds[3 * i + 1] == k:
                c += _meld_natural(melds[3 * i], i, meld_wilds)
        if c == 4:
            hard += 1
    return hard


@njit(cache=True)
def _hand_facts(counts, melds, meld_wilds, n_melds, indicator, soft, scratch):
    """Fill ``scratch[0]`` (natural concealed counts: the 听用 kinds zeroed) and ``scratch[1]`` (copies the melds
    represent); ``(concealed 听用, 听用 in 飞 melds, melds' facts, natural 根 or -1 with soft 根)``."""
    nat = scratch[0]
    mrep = scratch[1]
    wl, wh = _tingyong(indicator)
    for k in range(34):
        nat[k] = counts[k]
        mrep[k] = 0
    n_wild = nat[wl] + nat[wh]
    nat[wl] = 0
    nat[wh] = 0
    meld_wild = 0
    mflags = 0
    hard = -1
    for i in range(n_melds):
        kind = melds[3 * i]
        tile = melds[3 * i + 1]
        mrep[tile] += 4 if kind in (M_KONG, M_ANKONG, M_BUKONG) else 3
        mflags |= 1 << (tile // 9)
        if tile == indicator:
            mflags |= F_MARKED
        if kind == M_FEI:
            meld_wild += (meld_wilds[2 * i] >= 0) + (meld_wilds[2 * i + 1] >= 0)
    if not soft:
        hard = _hard_gen(nat, melds, meld_wilds, n_melds)
    return n_wild, meld_wild, mflags, hard


@njit(cache=True)
def _best(rules, n_melds, wild_tiles, sit, best):
    """The best valued reading of ``best`` (32 standard facts, then 8 七对 suit sets; -1: none), by ``(multiplier,
    payment, doublings)``; every cell is set back to -1."""
    b_mult = np.int64(-1)
    b_pay = np.int64(0)
    b_dbl = np.int64(0)
    for i in range(40):
        g = best[i]
        if g < 0:
            continue
        best[i] = -1
        mult, pay, dbl = _value(rules, i < 32, i & 31 if i < 32 else i - 32, g, n_melds, wild_tiles, sit)
        if mult > b_mult or (mult == b_mult and (pay > b_pay or (pay == b_pay and dbl > b_dbl))):
            b_mult, b_pay, b_dbl = mult, pay, dbl
    return b_mult, b_pay, b_dbl


@njit(cache=True)
def _score(counts, melds, meld_wilds, n_melds, win_tile, void, indicator, sit, rules, enforce_min, limit, slot0, dp,
           act, stab, sent, sn, p7, best, scratch):  # fmt: skip
    """``scoring._score`` for the ``yibin`` table: ``(is_win, payment, doublings)``; the suit tables go to slots
    ``slot0`` .. ``slot0 + 2``."""
    wl, wh = _tingyong(indicator)
    if win_tile in (wl, wh) and not sit & SIT_SELF:
        return False, np.int64(0), np.int64(0)  # a 听用 cannot be won on a discard or a robbed kong
    if void >= 0:
        for k in range(void * 9, void * 9 + 9):
            if counts[k] and k != wl and k != wh:
                return False, np.int64(0), np.int64(0)
        for i in range(n_melds):
            if melds[3 * i + 1] // 9 == void:
                return False, np.int64(0), np.int64(0)
    soft = rules[Y_SOFT_GEN] != 0
    n_wild, meld_wild, mflags, hard = _hand_facts(counts, melds, meld_wilds, n_melds, indicator, soft, scratch)
    if n_wild > MAX_WILD:
        return False, np.int64(0), np.int64(0)  # more than the eight 听用 tiles: not a hand the engine holds
    nat = scratch[0]
    mrep = scratch[1]
    wild_suits = rules[Y_SUITS] & ~(1 << void) if void >= 0 else rules[Y_SUITS]
    maxsets = 4 - n_melds
    marked_suit = indicator // 9
    found = False
    if maxsets >= 0:
        for s in range(3):
            _suit_dp(nat, mrep, s, n_wild, n_wild > 0 and ((wild_suits >> s) & 1) == 1, maxsets, limit, soft,
                     indicator % 9 if s == marked_suit else -1, dp, act, stab, sent, sn, slot0 + s)  # fmt: skip
        found = _combine(slot0, slot0 + 1, slot0 + 2, n_wild, maxsets, mflags, hard, stab, sent, sn, best)
    if n_melds == 0 and _pairs_dp(nat, n_wild, wild_suits, limit, soft, hard, p7, best):
        found = True
    if not found:
        return False, np.int64(0), np.int64(0)
    if sit & (SIT_TIAN | SIT_DI):
        fixed = rules[Y_TIAN] if sit & SIT_TIAN else rules[Y_DI]
        if fixed >= 0:  # scoring._fixed_result: 2^fixed base, no cap, no self-draw bonus
            for i in range(40):
                best[i] = -1
            return True, (np.int64(1) << fixed) * rules[Y_BASE], np.int64(fixed)
    mult, pay, dbl = _best(rules, n_melds, n_wild + meld_wild, sit, best)
    if enforce_min and not rules[Y_PINGHU] and not sit & SIT_SELF and mult < 2:
        return False, np.int64(0), np.int64(0)
    return True, pay, dbl


@njit(cache=True)
def workspace_yibin() -> tuple[np.ndarray, ...]:
    """Scratch arrays of :func:`score_yibin` / :func:`ready_yibin` (one set per caller; they are left clean);
    compiled, so that the kernel can make a set too."""
    return (
        np.full((2, _NST), -1, dtype=np.int16),  # suit programme: state -> most 根, two layers
        np.zeros((2, _NST), dtype=np.int32),  # the reached states of each layer
        np.zeros((_SLOTS, _NSUIT), dtype=np.int16),  # suit tables: (sets, pair, used, facts) -> entry + 1
        np.zeros((_SLOTS, _NSUIT, 5), dtype=np.int16),  # their entries: sets, pair, used, facts, 根
        np.zeros(_SLOTS, dtype=np.int64),  # entries per suit table
        np.full((2, _N7), -1, dtype=np.int16),  # 七对 programme: (used, suits) -> most 根, two layers
        np.full(40, -1, dtype=np.int64),  # readings: 32 standard facts, 8 七对 suit sets -> most 根
        np.zeros((4, 34), dtype=np.int64),  # natural counts, meld copies; 查大叫: copies held, the hand with a wait
    )


@njit(cache=True)
def score_yibin(counts, melds, meld_wilds, n_melds, win_tile, void, indicator, self_drawn, robbing_kong, after_kong,
                last_tile, tianhu, dihu, juezhang, paid_as_discard, rules, dp, act, stab, sent, sn, p7, best,
                scratch):  # fmt: skip
    """``judge.score`` of a 宜宾 win: ``(is_win, payment, doublings)`` (``doublings`` = ``ScoreResult.doublings or 0``).

    ``counts`` (34) are the physical concealed counts including ``win_tile`` and the 听用 held; ``melds`` holds
    ``n_melds`` ``(kind, tile, from_seat)`` triples (kinds 1 pong, 2 kong, 3 concealed kong, 4 added kong, 5 飞);
    ``meld_wilds`` two entries per meld, the physical 听用 kinds in a 飞 (-1: none); ``void`` the void suit or -1;
    ``indicator`` the 本金 kind (0-26); the last eight arguments are a :func:`workspace_yibin`.  The context must be
    one ``WinContext`` accepts (no 抢杠 with a self-draw, 杠上 or 海底; at most four copies of a kind counting the
    melds and the 飞's 听用 at their own kinds; 14 tiles): Python raises on the others, this function does not
    check them."""
    sit = 0
    if self_drawn:
        sit |= SIT_SELF
    if robbing_kong:
        sit |= SIT_ROB
    if after_kong:
        sit |= SIT_AFTER_KONG
    if last_tile:
        sit |= SIT_LAST
    if tianhu:
        sit |= SIT_TIAN
    if dihu:
        sit |= SIT_DI
    if paid_as_discard:
        sit |= SIT_PAID_AS_DISCARD
    if juezhang:
        sit |= SIT_JUEZHANG
    return _score(counts, melds, meld_wilds, n_melds, win_tile, void, indicator, sit, rules, True, True, 0, dp, act,
                  stab, sent, sn, p7, best, scratch)  # fmt: skip


@njit(cache=True)
def ready_yibin(counts, melds, meld_wilds, n_melds, void, indicator, rules, dp, act, stab, sent, sn, p7, best,
                scratch):  # fmt: skip
    """``settlement.ready_value`` of a 宜宾 seat (dead waits counting as ready): the 查大叫 payment of a 13-tile hand
    (``counts`` without a winning tile) — the max (or min, ``chadajiao``) over its waits of a plain discard win —
    :data:`NOT_READY` when it waits on nothing or is a 花猪.  Arguments as :func:`score_yibin`.

    The suits other than the wait's are the same for every wait: read once (tables 0-2), the wait's suit per wait
    (table 3); a fifth-copy wait (``ready_excludes_fifth_tile = false``) is scored whole without the limit."""
    wl, wh = _tingyong(indicator)
    held = 0  # 花猪 (settlement.is_pig): suits of the natural tiles, concealed (听用 excepted) and melded
    for k in range(27):
        if counts[k] and k != wl and k != wh:
            held |= 1 << (k // 9)
    for i in range(n_melds):
        held |= 1 << (melds[3 * i + 1] // 9)
    if rules[Y_DINGQUE] and rules[Y_THREE_SUITS] and held == 7:
        return np.int64(NOT_READY)  # a 花猪 of the three suits
    if void >= 0 and held >> void & 1:
        return np.int64(NOT_READY)  # a 花猪 (a tile of the declared void suit): no wait would be a win either
    soft = rules[Y_SOFT_GEN] != 0
    n_wild, meld_wild, mflags, _ = _hand_facts(counts, melds, meld_wilds, n_melds, indicator, soft, scratch)
    if n_wild > MAX_WILD:
        return np.int64(NOT_READY)
    nat = scratch[0]
    mrep = scratch[1]
    own = scratch[2]  # physical copies held (scoring._own_copies): concealed, a meld's natural tiles, its 听用
    for k in range(34):
        own[k] = counts[k]
    for i in range(n_melds):
        kind = melds[3 * i]
        own[melds[3 * i + 1]] += _meld_natural(kind, i, meld_wilds)
        if kind == M_FEI:
            for j in range(2):
                if meld_wilds[2 * i + j] >= 0:
                    own[meld_wilds[2 * i + j]] += 1
    wild_suits = rules[Y_SUITS] & ~(1 << void) if void >= 0 else rules[Y_SUITS]
    maxsets = 4 - n_melds
    marked_suit = indicator // 9
    want_max = rules[Y_CHADAJIAO_MAX] != 0
    value = np.int64(NOT_READY)
    if maxsets < 0:
        return value
    can = n_wild > 0
    for s in range(3):
        _suit_dp(nat, mrep, s, n_wild, can and ((wild_suits >> s) & 1) == 1, maxsets, True, soft,
                 indicator % 9 if s == marked_suit else -1, dp, act, stab, sent, sn, s)  # fmt: skip
    hand = scratch[3]
    for k in range(34):
        hand[k] = counts[k]
    for t in range(27):
        s = t // 9
        if not (rules[Y_SUITS] >> s) & 1 or t in (wl, wh) or s == void:
            continue
        fifth = own[t] >= 4
        if fifth:
            if rules[Y_EXCL_FIFTH]:
                continue
            hand[t] += 1
            ok, pay, _ = _score(hand, melds, meld_wilds, n_melds, t, void, indicator, 0, rules, False, False, 4, dp,
                                act, stab, sent, sn, p7, best, scratch)  # fmt: skip
            hand[t] -= 1
            # _score rewrote the scratch counts: restore them for the next waits
            _hand_facts(counts, melds, meld_wilds, n_melds, indicator, soft, scratch)
        else:
            nat[t] += 1
            hard = _hard_gen(nat, melds, meld_wilds, n_melds) if not soft else -1
            _suit_dp(nat, mrep, s, n_wild, can and ((wild_suits >> s) & 1) == 1, maxsets, True, soft,
                     indicator % 9 if s == marked_suit else -1, dp, act, stab, sent, sn, 3)  # fmt: skip
            found = _combine(3 if s == 0 else 0, 3 if s == 1 else 1, 3 if s == 2 else 2, n_wild, maxsets, mflags, hard,
                             stab, sent, sn, best)  # fmt: skip
            if n_melds == 0 and _pairs_dp(nat, n_wild, wild_suits, True, soft, hard, p7, best):
                found = True
            nat[t] -= 1
            ok = found
            pay = np.int64(0)
            if found:
                _, pay, _ = _best(rules, n_melds, n_wild + meld_wild, 0, best)
        if ok and (value < 0 or (pay > value if want_max else pay < value)):
            value = pay
    return value


# ---- the Python entry -------------------------------------------------------------------------------------------
_ZIMO = {"none": 0, "jiadi": 1, "jiafan": 2}
_LQD = {"qidui_plus_gen": 0, "fixed4_incl_gen": 1, "ms": 2}


def unsupported_yibin(cfg: RuleConfig) -> list[str]:
    """Why the compiled 宜宾 scorer does not cover ``cfg`` (empty when it does)."""
    problems = []
    if cfg.fan_table != "yibin":
        problems.append(f"fan_table {cfg.fan_table!r} (it scores 'yibin')")
    if cfg.wild != "tingyong" or tuple(cfg.extra_tiles):
        problems.append(
            f"wild {cfg.wild!r} / extra_tiles {list(cfg.extra_tiles)!r} (it reads the 听用 of suited tiles)"
        )
    if cfg.yibin_tingyong_count != 8:
        problems.append(f"yibin_tingyong_count {cfg.yibin_tingyong_count} (the scorer knows the 8 neighbours only)")
    if cfg.hand_size != 13:
        problems.append(f"hand_size {cfg.hand_size} (it reads 13-tile hands)")
    if cfg.allow_chi:
        problems.append("吃")
    if cfg.zimo_bonus not in _ZIMO:
        problems.append(f"zimo_bonus {cfg.zimo_bonus!r}")
    if cfg.wild_ignores_four_copy_limit:  # a fifth copy through a 听用: not modelled (nor played by the kernel)
        problems.append("wild_ignores_four_copy_limit = true")
    if not cfg.dead_wait_counts_as_ready:
        problems.append("dead_wait_counts_as_ready = false (查大叫 needs the unseen copies)")
    for flag, rule in (("yibin_zimo_only", "只和自摸"), ("yibin_min_fan_rule", "碰/飞后2番起和"), ("piao", "漂")):
        if getattr(cfg, flag):  # the Python scorer does not apply them either; the engine refuses them
            problems.append(f"{flag} (the optional {rule} rule)")
    if not 0 <= cfg.yibin_duidui_doublings <= 20:
        problems.append(f"yibin_duidui_doublings {cfg.yibin_duidui_doublings} (it reads 0 to 20)")
    tian, di = _fixed_values(cfg)
    if cfg.tiandihu != "off" and min(tian, di) < 0:
        problems.append("a negative fixed 天胡/地胡 value (Python raises)")
    if max(tian, di, cfg.cap_doublings or 0) > 40:
        problems.append("fixed values or caps past 2^40")
    if cfg.base_unit > 1 << 20:
        problems.append("base_unit past 2^20")
    return problems


def rule_vector_yibin(cfg: RuleConfig) -> np.ndarray:
    """The rule vector (``Y_*``, int64) of a configuration :func:`unsupported_yibin` accepts."""
    problems = unsupported_yibin(cfg)
    if problems:
        raise ValueError(f"variant {cfg.name!r}: the compiled 宜宾 scorer does not cover " + "; ".join(problems))
    r = np.zeros(NUM_YIBIN_RULES, dtype=np.int64)
    r[Y_BASE] = cfg.base_unit
    r[Y_CAP] = -1 if cfg.cap_doublings is None else cfg.cap_doublings
    r[Y_ZIMO] = _ZIMO[cfg.zimo_bonus]
    r[Y_JIADI_AFTER_CAP] = cfg.zimo_jiadi_after_cap
    r[Y_TSUMO_UNITS] = cfg.tsumo_bonus_units
    r[Y_DUIDUI] = cfg.yibin_duidui_doublings
    r[Y_LQD] = _LQD[cfg.longqidui_mode]
    r[Y_WU_UNITS] = cfg.yibin_wutingyong != "two_gen"
    r[Y_JUEZHANG] = cfg.enable_juezhang
    r[Y_TIAN], r[Y_DI] = _fixed_values(cfg)
    r[Y_PINGHU] = cfg.allow_pinghu_on_discard
    r[Y_CHADAJIAO_MAX] = cfg.chadajiao == "max"
    r[Y_EXCL_FIFTH] = cfg.ready_excludes_fifth_tile
    r[Y_SOFT_GEN] = cfg.wild_counts_for_gen
    r[Y_DINGQUE] = cfg.dingque
    r[Y_THREE_SUITS] = cfg.huazhu_definition == "three_suits"
    r[Y_SUITS] = sum(1 << "mps".index(s) for s in set(cfg.suits))
    return r


class CompiledYibinScorer(TableScorer):
    """The compiled 宜宾 scorer of one configuration: :meth:`score` (a win) and :meth:`ready` (查大叫)."""

    __slots__ = ()
    rules_of = staticmethod(rule_vector_yibin)
    workspace = staticmethod(workspace_yibin)
    unsupported = staticmethod(unsupported_yibin)

    def score(
        self,
        counts: np.ndarray,
        melds: np.ndarray,
        meld_wilds: np.ndarray,
        n_melds: int,
        win_tile: int,
        *,
        void: int,
        indicator: int,
        self_drawn: bool,
        robbing_kong: bool = False,
        after_kong: bool = False,
        last_tile: bool = False,
        tianhu: bool = False,
        dihu: bool = False,
        juezhang: bool = False,
        paid_as_discard: bool = False,
    ) -> tuple[bool, int, int]:
        """``(is_win, payment, doublings)`` as ``judge.score`` gives ``is_win``, ``payment``, ``doublings or 0``.

        ``counts``: 34 physical concealed counts including ``win_tile``; ``melds``: ``(kind, tile, from_seat)``
        triples and ``meld_wilds`` the 听用 kinds of each 飞 (two per meld, -1: none), :func:`yibin_meld_arrays`;
        ``void``: the void suit or -1; ``indicator``: the 本金 kind.
        """
        ok, pay, dbl = score_yibin(counts, melds, meld_wilds, n_melds, win_tile, void, indicator, bool(self_drawn),
                                   bool(robbing_kong), bool(after_kong), bool(last_tile), bool(tianhu), bool(dihu),
                                   bool(juezhang), bool(paid_as_discard), self.rules, *self.work)  # fmt: skip
        return bool(ok), int(pay), int(dbl)

    def ready(self, counts: np.ndarray, melds: np.ndarray, meld_wilds: np.ndarray, n_melds: int, void: int,
              indicator: int) -> int:  # fmt: skip
        """The 查大叫 value (:func:`ready_yibin`): a payment or :data:`NOT_READY`."""
        return int(ready_yibin(counts, melds, meld_wilds, n_melds, void, indicator, self.rules, *self.work))


def yibin_meld_arrays(melds: Sequence[tuple[int, int, int, Sequence[int]]]) -> tuple[np.ndarray, np.ndarray]:
    """``(kind, tile, from_seat, 听用 kinds)`` melds as the flat int32 arrays :meth:`CompiledYibinScorer.score`
    reads: the ``(kind, tile, from_seat)`` triples and two 听用 kinds per meld (-1: none)."""
    triples = np.zeros(3 * max(len(melds), 1), dtype=np.int32)
    wilds = np.full(2 * max(len(melds), 1), -1, dtype=np.int32)
    for i, (kind, tile, src, wild_kinds) in enumerate(melds):
        triples[3 * i : 3 * i + 3] = (kind, tile, src)
        for j, w in enumerate(wild_kinds):
            wilds[2 * i + j] = w
    return triples, wilds


__all__ = [
    "M_FEI",
    "NOT_READY",
    "CompiledYibinScorer",
    "ready_yibin",
    "rule_vector_yibin",
    "score_yibin",
    "unsupported_yibin",
    "workspace_yibin",
    "yibin_meld_arrays",
]
