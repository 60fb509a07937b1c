"""Compiled 断卡根 scoring (编译计分, RULES.md §4.5): the payment of a win and the 查叫 value of a ready hand, in numba.

The numba counterparts of :func:`envs.scoring.judge.score` (→ :func:`envs.scoring.scorer.score_win`) for the 断卡根 fan
tables ``dkg_wiki`` (S2 column: additive fan, paid by ``dkg_tier_units``) and ``dkg_wanghu`` (E5 网狐: the single
highest base row + extras, fan f pays 2^(f-1) under ``cap_doublings``), and of
``envs.engine.variants.duankagen.ready_value`` (:mod:`envs.engine.variants.duankagen`, without the forfeit, which the
caller handles).  Only the money is computed: ``(is_win, payment, fan)`` — ``fan`` is ``ScoreResult.doublings or 0``
(the fan total, the payer's 报胡 penalty and 请胡炮 included).  :meth:`CompiledDkgScorer.for_config` answers None for a
configuration these functions do not cover.

How a hand is read (the readings of :mod:`envs.scoring.interpret` for a 10-tile hand without wildcards)
----------------------------------------------------------------------------------------------
* Standard shape (every win but a 请胡): ``3 - melds`` sets and one pair over the concealed tiles.  Without
  wildcards the runs started at a kind are fixed by the triplet / pair choice there (every tile must be used), so a
  depth-first search over the 27 suited kinds tries at most four choices per kind.  Each complete reading is valued
  at once (no collapsing is needed: the best reading is the maximum over all of them).
* 请胡 (``qinghu``): no melds, exactly one kind held an odd number of times (the single, discarded when 请胡 was
  announced); the other ten tiles are five pairs (a four of a kind is two pairs).  That is the only reading of a
  请胡 win; the standard shape is never read for it, and five pairs are never read otherwise (七对 needs 4 sets).
* The facts are the flag bits of :mod:`envs.scoring.interpret` the 断卡根 tables read (suits, a run, a group without
  1/9, a 1/9 tile, a non-2-5-8 tile, a concealed 4-5-6 run per suit) plus the count of concealed 4-5-6 runs (卡);
  根 counts kinds whose concealed and melded copies reach four (natural copies, ``interpret.hard_gen``; after a
  请胡 the single is not counted).

score.py's per-suit search (:func:`envs.compiled.score._suit_search`) keys a suit's facts into six local bits and
collapses readings by them, so it cannot carry the 4-5-6 run count and the per-suit 4-5-6 bit that 卡 / 硬卡 read;
this module has its own (much smaller, wildcard-free) search and reuses score.py's 天胡/地胡 fixed values
(:func:`envs.compiled.score._fixed_values`).

Rules applied in :func:`envs.scoring.scorer._score` order: a 请胡 with melds or without exactly one single is not a win;
no reading → not a win; 天胡/地胡 fixed fan (``dkg_wiki``; + the payer's 报胡 penalty, priced by tier, no
self-draw units); the table per reading (rows of ``patterns.DKG_WIKI`` / ``DKG_WANGHU``), the 小胡 minimum
(``_dkg_admits``: the hand's own fan without 请胡炮 and 报胡罚, exceptions ``dkg_xiaohu_exceptions`` and
``dkg_xiaohu_zimo_vs_baohu``), the price (tier units; 网狐 2^(f-1) capped at 2^cap_doublings), + the self-draw
units (``dkg_zimo_units`` × base, ``zimo_bonus = "jiadi"``, not for a 点杠花 paid as a discard); the best reading
counts by ``(uncapped units, payment, fan)``.  ``tests/compiled/test_compiled_score_dkg.py`` compares every output with
the Python scorer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.compiled import fan_values as fv
from envs.compiled.score import TableScorer, _fixed_values, meld_array
from envs.core.rule_config import DKG_TABLES, RuleConfig
from envs.scoring.interpret import (
    FLAG_GROUP_NO_TERMINAL,
    FLAG_NOT_JIANG,
    FLAG_RUN,
    FLAG_RUN456_M,
    FLAG_TERMINAL,
)
from envs.scoring.patterns import FAN_TABLES

# ---- the rule vector -------------------------------------------------------------------------------------------
D_TABLE = 0  # 0 dkg_wiki (additive, tiers), 1 dkg_wanghu (max base, 2^(f-1))
D_BASE = 1  # base_unit
D_CAP = 2  # cap_doublings (dkg_wanghu), -1: none
D_JIADI = 3  # zimo_bonus == "jiadi"
D_ZIMO_UNITS = 4  # cfg.tsumo_bonus_units (dkg_zimo_units × base_unit)
D_FIXED = 5  # 天胡/地胡 are fixed hands (dkg_wiki with tiandihu != "off")
D_TIAN = 6  # 天胡 fixed fan
D_DI = 7  # 地胡 fixed fan
D_TD_ROWS = 8  # dkg_wanghu 天胡/地胡 base rows (tiandihu != "off")
D_XH_BAOHU = 9  # "baohu_discard" in dkg_xiaohu_exceptions
D_XH_QINGHU = 10  # "qinghu_discard" in dkg_xiaohu_exceptions
D_XH_GSP = 11  # "gang_shang_pao" in dkg_xiaohu_exceptions
D_XH_ZIMO_VS_BAOHU = 12  # dkg_xiaohu_zimo_vs_baohu
D_ZIMO_FAN = 13  # dkg_zimo_plus_one_fan
D_QH_CATCH = 14  # dkg_qinghu_catch_bonus (请胡炮)
D_BH_WIN = 15  # dkg_baohu_win_bonus (报胡)
D_BH_PEN = 16  # dkg_baohu_penalty (报胡罚)
D_CHADAJIAO_MAX = 17  # chadajiao == "max"
D_SUITS = 18  # bit s: suit s is in play (the kinds 查叫 tries)
D_NTIERS = 19  # len(dkg_tier_units)
D_TIERS = 20  # dkg_tier_units, D_NTIERS of them
MAX_TIERS = 16
NUM_DKG_RULES = D_TIERS + MAX_TIERS

T_WIKI, T_WANGHU = 0, 1  # D_TABLE values

NOT_READY = -1  # ready_dkg: no wait is a legal discard win

# situation bits (score_dkg packs its flags into one int for the valuation)
SIT_SELF = 1
SIT_ROB = 2
SIT_AFTER_KONG = 4
SIT_LAST = 8
SIT_TIAN = 16
SIT_DI = 32
SIT_PAID_AS_DISCARD = 64
SIT_BAOHU = 128
SIT_QINGHU = 256
SIT_PAYER_BAOHU = 512
SIT_ON_QINGHU = 1024

_GNT = FLAG_GROUP_NO_TERMINAL
_TERM = FLAG_TERMINAL
_NOTJ = FLAG_NOT_JIANG
_RUN = FLAG_RUN
_RUN456_0 = FLAG_RUN456_M  # the 4-5-6 bit of suit s is _RUN456_0 << s (interpret.RUN456_FLAGS)


@njit(cache=True)
def _tile_bits(k):
    """``interpret.TILE_BITS`` of suited kind ``k`` restricted to the bits the 断卡根 tables read."""
    r = k % 9
    f = 1 << (k // 9)
    if r == 0 or r == 8:
        f |= _TERM
    if r != 1 and r != 4 and r != 7:
        f |= _NOTJ
    return f


# ---- the tables -------------------------------------------------------------------------------------------------
@njit(cache=True)
def _price(rules, fan):
    """``(uncapped units, payment before the self-draw units)``: ``_tier_price`` / ``_pow2_price`` then
    ``scoring._fan_payment``'s cap."""
    if fan <= 0:
        return np.int64(0), np.int64(0)
    if rules[D_TABLE] == T_WIKI:
        n = rules[D_NTIERS]
        units = np.int64(rules[D_TIERS + (fan if fan < n else n) - 1])
        return units, units
    units = np.int64(1) << (fan - 1)
    capped = units
    cap = rules[D_CAP]
    if cap >= 0 and units > (np.int64(1) << cap):
        capped = np.int64(1) << cap
    return units, capped


# The row values of ``patterns.DKG_WIKI`` and ``patterns.DKG_WANGHU`` (envs.compiled.fan_values); 报胡 and the
# payer's bonuses follow the configuration (the rule vector), as the tables' value functions do.
_W_JD, _W_DDH, _W_DUANYAO, _W_QYS, _W_DYJ, _W_QH, _W_GEN = (
    fv.value("dkg_wiki", name)
    for name in ("jiang_dui", "dui_dui_hu", "duan_yao_jiu", "qing_yi_se", "dai_yao_jiu", "qing_hu", "gen")
)
_H_BASIC = FAN_TABLES["dkg_wanghu"].basic
_H_DDH, _H_QYS, _H_QH, _H_QING_DUI, _H_QQH, _H_DYJ, _H_QYJ, _H_JD, _H_TIAN, _H_DI, _H_DUANYAO, _H_GEN = (
    fv.value("dkg_wanghu", name)
    for name in ("dui_dui_hu", "qing_yi_se", "qing_hu", "qing_dui", "qing_qing_hu", "dai_yao_jiu", "qing_yao_jiu",
                 "jiang_dui", "tian_hu", "di_hu", "duan_yao_jiu", "gen")
)  # fmt: skip
_GSKH, _GSP, _QGH, _HDLY, _HDP, _KA, _YING_KA, _ZI_MO = (
    fv.common(DKG_TABLES, name)
    for name in ("gang_shang_kai_hua", "gang_shang_pao", "qiang_gang_hu", "hai_di_lao_yue", "hai_di_pao", "ka",
                 "ying_ka", "zi_mo")
)  # fmt: skip


@njit(cache=True)
def _value(rules, standard, f, ka, gen, win_tile, sit, kongs_after_baohu):
    """One reading (``patterns.evaluate`` + ``_dkg_admits`` + ``scoring._priced``): ``(admitted, uncapped units,
    payment, fan)``."""
    self_drawn = sit & SIT_SELF != 0
    rob = sit & SIT_ROB != 0
    after_kong = sit & SIT_AFTER_KONG != 0
    last = sit & SIT_LAST != 0
    suits = f & 7
    qys = suits == 1 or suits == 2 or suits == 4
    ddh = standard and not f & _RUN
    dyj = not f & _GNT  # 带幺九
    duanyao = not f & _TERM  # 断幺九
    jd = ddh and not f & _NOTJ  # 将对
    qh = not standard  # 请胡 (five pairs)
    wiki = rules[D_TABLE] == T_WIKI
    own = 0
    if wiki:
        if jd:
            own += _W_JD  # replaces 对对胡 and 断幺九
        else:
            if ddh:
                own += _W_DDH
            if duanyao:
                own += _W_DUANYAO
        if qys:
            own += _W_QYS
        if dyj:
            own += _W_DYJ
        if qh:
            own += _W_QH
        own += gen * _W_GEN
    else:  # the single highest base row, 鸡胡 when none applies
        base = _H_BASIC
        if ddh:
            base = max(base, _H_DDH)
        if qys:
            base = max(base, _H_QYS)
        if qh:
            base = max(base, _H_QH)
        if qys and ddh:
            base = max(base, _H_QING_DUI)
        if qh and qys:
            base = max(base, _H_QQH)
        if dyj:
            base = max(base, _H_DYJ)
        if qys and dyj:
            base = max(base, _H_QYJ)
        if jd:
            base = max(base, _H_JD)
        if rules[D_TD_ROWS] and sit & SIT_TIAN:
            base = max(base, _H_TIAN)
        if rules[D_TD_ROWS] and sit & SIT_DI and sit & SIT_BAOHU:
            base = max(base, _H_DI)
        own = base
        if duanyao:
            own += _H_DUANYAO
        own += (gen if gen < 3 else 3) * _H_GEN
    # situational rows
    if after_kong and self_drawn:
        own += _GSKH  # 杠上花
    if after_kong and not self_drawn and not rob:
        own += _GSP  # 杠上炮
    if rob:
        own += _QGH  # 抢杠
    if last:
        own += _HDLY if self_drawn else _HDP  # 海底捞月 / 海底炮
    if sit & SIT_BAOHU:
        bonus = rules[D_BH_WIN]
        if wiki:
            own += bonus
        else:
            top = bonus if bonus > 3 else 3
            own += bonus + kongs_after_baohu if bonus + kongs_after_baohu < top else top
    if self_drawn and standard:
        own += ka * _KA  # 卡
    if not self_drawn and standard and 0 <= win_tile < 27 and win_tile % 9 == 4 and f & (_RUN456_0 << (win_tile // 9)):
        own += _YING_KA  # 硬卡: a concealed 4-5-6 run in the suit of the winning 5
    if rules[D_ZIMO_FAN] and self_drawn:
        own += _ZI_MO
    total = own
    if sit & SIT_ON_QINGHU:
        total += rules[D_QH_CATCH]
    if sit & SIT_PAYER_BAOHU:
        total += rules[D_BH_PEN]
    # the 小胡 minimum (own fan: without 请胡炮 and 报胡罚)
    ok = True
    if own < (1 if wiki else 2) and not (self_drawn and not wiki):
        discard = not self_drawn
        ok = False
        if discard and sit & SIT_PAYER_BAOHU and rules[D_XH_BAOHU]:
            ok = True
        if sit & SIT_ON_QINGHU and rules[D_XH_QINGHU]:
            ok = True
        if discard and after_kong and not rob and rules[D_XH_GSP]:
            ok = True
        if self_drawn and sit & SIT_PAYER_BAOHU and rules[D_XH_ZIMO_VS_BAOHU]:
            ok = True
    units, pay = _price(rules, total)
    pay = pay * rules[D_BASE]
    if self_drawn and not sit & SIT_PAID_AS_DISCARD and units and rules[D_JIADI]:
        pay += rules[D_ZIMO_UNITS]
    return ok, units, pay, np.int64(total)


# ---- one win ----------------------------------------------------------------------------------------------------
@njit(cache=True)
def _score(counts, melds, n_melds, win_tile, sit, kongs_after_baohu, rules, stk):
    """``scoring._score`` for a 断卡根 table: ``(is_win, payment, fan)``; ``counts`` include the winning tile."""
    m = np.zeros(27, dtype=np.int64)
    mflags = 0
    for i in range(n_melds):
        kind = melds[3 * i]
        tile = melds[3 * i + 1]
        m[tile] += 3 if kind == 1 else 4
        mflags |= _tile_bits(tile)
        r = tile % 9
        if r != 0 and r != 8:
            mflags |= _GNT
    qinghu = sit & SIT_QINGHU != 0
    # 根: natural copies (concealed, less a 请胡 single, and melded) reaching four
    single = -1
    if qinghu:
        if n_melds:
            return False, np.int64(0), np.int64(0)
        for k in range(34):
            if counts[k] % 2:
                if single >= 0 or k >= 27:
                    return False, np.int64(0), np.int64(0)
                single = k
        if single < 0:
            return False, np.int64(0), np.int64(0)
    gen = 0
    for k in range(27):
        c = counts[k] - (1 if k == single else 0)
        if c + m[k] == 4:
            gen += 1
    fixed = (sit & (SIT_TIAN | SIT_DI)) != 0 and rules[D_FIXED] != 0
    best_units = np.int64(-1)
    best_pay = np.int64(0)
    best_fan = np.int64(0)
    found = False
    if qinghu:  # the five pairs: the only reading
        for k in range(27, 34):
            if counts[k]:
                return False, np.int64(0), np.int64(0)
        f = 0
        for k in range(27):
            c = counts[k] - (1 if k == single else 0)
            if c:
                f |= _tile_bits(k)
                r = k % 9
                if r != 0 and r != 8:
                    f |= _GNT
        found = True
        if not fixed:
            ok, units, pay, fan = _value(rules, False, f, 0, gen, win_tile, sit, kongs_after_baohu)
            if ok:
                best_units, best_pay, best_fan = units, pay, fan
    else:
        for k in range(27, 34):
            if counts[k]:
                return False, np.int64(0), np.int64(0)
        maxsets = 3 - n_melds
        if maxsets >= 0:
            # depth-first over the kinds; stk[d]: runs started 1 and 2 kinds back, sets, pair, flags, 卡 count,
            # next choice (t = j >> 1 triplets, p = j & 1 pairs; the runs started here are what is left)
            stk[0, 0] = 0
            stk[0, 1] = 0
            stk[0, 2] = 0
            stk[0, 3] = 0
            stk[0, 4] = mflags
            stk[0, 5] = 0
            stk[0, 6] = 0
            d = 0
            while d >= 0:
                if d == 27:
                    if stk[27, 2] == maxsets and stk[27, 3] == 1:
                        found = True
                        if fixed:
                            break
                        ok, units, pay, fan = _value(rules, True, stk[27, 4], stk[27, 5], gen, win_tile, sit,
                                                     kongs_after_baohu)  # fmt: skip
                        if ok and (
                            units > best_units
                            or (units == best_units and (pay > best_pay or (pay == best_pay and fan > best_fan)))
                        ):
                            best_units, best_pay, best_fan = units, pay, fan
                    d -= 1
                    continue
                j = stk[d, 6]
                if j >= 4:
                    d -= 1
                    continue
                stk[d, 6] = j + 1
                t = j >> 1
                p = j & 1
                c1, c2, sets, pair = stk[d, 0], stk[d, 1], stk[d, 2], stk[d, 3]
                ni = counts[d]
                runs = ni - c1 - c2 - 3 * t - 2 * p
                rank = d % 9
                if runs < 0 or (runs and rank > 6) or sets + t + runs > maxsets or pair + p > 1:
                    continue
                if ni == 0 and j:  # nothing else fits an empty kind
                    continue
                f = stk[d, 4]
                ka = stk[d, 5]
                if ni:
                    f |= _tile_bits(d)
                    if (t or p) and rank != 0 and rank != 8:
                        f |= _GNT
                if runs:
                    f |= _RUN
                    if rank != 0 and rank != 6:
                        f |= _GNT
                    if rank == 3:
                        f |= _RUN456_0 << (d // 9)
                        ka = min(ka + runs, 7)
                e = d + 1
                stk[e, 0] = runs if rank < 8 else 0
                stk[e, 1] = c1
                stk[e, 2] = sets + t + runs
                stk[e, 3] = pair + p
                stk[e, 4] = f
                stk[e, 5] = ka
                stk[e, 6] = 0
                d = e
    if not found:
        return False, np.int64(0), np.int64(0)
    if fixed:  # scoring._fixed_result: the fixed fan + the payer's 报胡 penalty, priced by tier, no self-draw units
        fan = rules[D_TIAN] if sit & SIT_TIAN else rules[D_DI]
        if sit & SIT_PAYER_BAOHU:
            fan += rules[D_BH_PEN]
        units, pay = _price(rules, fan)
        return True, pay * rules[D_BASE], np.int64(fan)
    if best_units < 0:  # every reading refused (小胡)
        return False, np.int64(0), np.int64(0)
    return True, best_pay, best_fan


@njit(cache=True)
def workspace_dkg() -> tuple[np.ndarray]:
    """Scratch arrays of :func:`score_dkg` / :func:`ready_dkg` (one set per caller)."""
    return (np.zeros((28, 8), dtype=np.int64),)


@njit(cache=True)
def score_dkg(counts, melds, n_melds, win_tile, self_drawn, robbing_kong, after_kong, last_tile, tianhu, dihu,
              paid_as_discard, dealer, baohu, kongs_after_baohu, qinghu, payer_baohu, on_qinghu_discard, rules,
              stk):  # fmt: skip
    """``judge.score`` of a 断卡根 win: ``(is_win, payment, fan)`` (``fan`` = ``doublings or 0``).

    ``counts`` (34) include ``win_tile`` (a 请胡: the eleven tiles, the single being ``win_tile``); ``melds`` holds
    ``n_melds`` ``(kind, tile, from_seat)`` triples (layout ``M_*`` kinds); ``dealer`` is read by no 断卡根 rule;
    the last argument is a :func:`workspace_dkg`.  The context must be one ``WinContext`` accepts (e.g. no 请胡 with
    melds, no 抢杠 with a self-draw): Python raises on the others, this function does not check them."""
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
    if baohu:
        sit |= SIT_BAOHU
    if qinghu:
        sit |= SIT_QINGHU
    if payer_baohu:
        sit |= SIT_PAYER_BAOHU
    if on_qinghu_discard:
        sit |= SIT_ON_QINGHU
    return _score(counts, melds, n_melds, win_tile, sit, kongs_after_baohu, rules, stk)


@njit(cache=True)
def ready_dkg(counts, melds, n_melds, baohu, rules, stk):
    """``envs.engine.variants.duankagen.ready_value`` (no forfeit): over the shape waits ``t`` of the 10-tile (3k+1)
    hand (kinds of the suits in play held fewer than four times counting the melds), the payment of a plain discard win
    on ``t`` (with ``baohu``); the max (``chadajiao = "max"``) or min of the legal wins, :data:`NOT_READY` when none
    is one (小胡-only and 素卡 waits do not count; a 请胡 is never a discard win)."""
    hand = np.empty(34, dtype=np.int64)
    for k in range(34):
        hand[k] = counts[k]
    own = np.zeros(27, dtype=np.int64)
    for k in range(27):
        own[k] = hand[k]
    for i in range(n_melds):
        own[melds[3 * i + 1]] += 3 if melds[3 * i] == 1 else 4
    sit = SIT_BAOHU if baohu else 0
    want_max = rules[D_CHADAJIAO_MAX] != 0
    value = np.int64(NOT_READY)
    for t in range(27):
        if own[t] >= 4 or not rules[D_SUITS] >> (t // 9) & 1:
            continue
        hand[t] += 1
        ok, pay, _ = _score(hand, melds, n_melds, t, sit, 0, rules, stk)
        hand[t] -= 1
        if ok and (value < 0 or (pay > value if want_max else pay < value)):
            value = pay
    return value


# ---- the Python entry -------------------------------------------------------------------------------------------
_XH = ("baohu_discard", "qinghu_discard", "gang_shang_pao")


def unsupported_dkg(cfg: RuleConfig) -> list[str]:
    """Why the compiled 断卡根 scorer does not cover ``cfg`` (empty when it does)."""
    problems = []
    if cfg.fan_table not in DKG_TABLES:
        problems.append(f"fan_table {cfg.fan_table!r} (it scores {', '.join(DKG_TABLES)})")
    if cfg.wild != "none" or tuple(cfg.extra_tiles):
        problems.append(f"wild {cfg.wild!r} / extra_tiles {list(cfg.extra_tiles)!r} (it reads suited tiles only)")
    if cfg.hand_size != 10:
        problems.append(f"hand_size {cfg.hand_size} (it reads 10-tile hands: 3 sets + pair, or 请胡 five pairs)")
    if cfg.dingque:
        problems.append("定缺 (no void suit is read)")
    if cfg.allow_chi:
        problems.append("吃")
    if cfg.zimo_bonus not in ("jiadi", "none"):
        problems.append(f"zimo_bonus {cfg.zimo_bonus!r}")
    if not 1 <= len(cfg.dkg_tier_units) <= MAX_TIERS or max(cfg.dkg_tier_units) > 1 << 40:
        problems.append(f"dkg_tier_units {list(cfg.dkg_tier_units)!r} (1-{MAX_TIERS} tiers up to 2^40)")
    if cfg.fan_table == "dkg_wanghu" and cfg.cap_doublings is not None and not 0 <= cfg.cap_doublings <= 40:
        problems.append(f"cap_doublings {cfg.cap_doublings} (it reads 0 to 40)")
    if any(x not in _XH for x in cfg.dkg_xiaohu_exceptions):
        problems.append(f"dkg_xiaohu_exceptions {list(cfg.dkg_xiaohu_exceptions)!r}")
    if cfg.fan_table == "dkg_wiki" and cfg.tiandihu != "off" and max(map(abs, _fixed_values(cfg))) > 1000:
        problems.append("天胡/地胡 fixed values past 1000 fan")
    if max(cfg.base_unit, cfg.tsumo_bonus_units) > 1 << 20:
        problems.append("base_unit / dkg_zimo_units past 2^20")
    return problems


def rule_vector_dkg(cfg: RuleConfig) -> np.ndarray:
    """The rule vector (``D_*``, int32) of a configuration :func:`unsupported_dkg` accepts."""
    problems = unsupported_dkg(cfg)
    if problems:
        raise ValueError(f"variant {cfg.name!r}: the compiled 断卡根 scorer does not cover " + "; ".join(problems))
    r = np.zeros(NUM_DKG_RULES, dtype=np.int32)
    wanghu = cfg.fan_table == "dkg_wanghu"
    r[D_TABLE] = T_WANGHU if wanghu else T_WIKI
    r[D_BASE] = cfg.base_unit
    r[D_CAP] = -1 if cfg.cap_doublings is None or not wanghu else cfg.cap_doublings
    r[D_JIADI] = cfg.zimo_bonus == "jiadi"
    r[D_ZIMO_UNITS] = cfg.tsumo_bonus_units
    fixed = not wanghu and cfg.tiandihu != "off"
    r[D_FIXED] = fixed
    r[D_TIAN], r[D_DI] = _fixed_values(cfg) if fixed else (0, 0)
    r[D_TD_ROWS] = wanghu and cfg.tiandihu != "off"
    r[D_XH_BAOHU] = "baohu_discard" in cfg.dkg_xiaohu_exceptions
    r[D_XH_QINGHU] = "qinghu_discard" in cfg.dkg_xiaohu_exceptions
    r[D_XH_GSP] = "gang_shang_pao" in cfg.dkg_xiaohu_exceptions
    r[D_XH_ZIMO_VS_BAOHU] = cfg.dkg_xiaohu_zimo_vs_baohu
    r[D_ZIMO_FAN] = cfg.dkg_zimo_plus_one_fan
    r[D_QH_CATCH] = cfg.dkg_qinghu_catch_bonus
    r[D_BH_WIN] = cfg.dkg_baohu_win_bonus
    r[D_BH_PEN] = cfg.dkg_baohu_penalty
    r[D_CHADAJIAO_MAX] = cfg.chadajiao == "max"
    r[D_SUITS] = sum(1 << "mps".index(s) for s in set(cfg.suits))
    r[D_NTIERS] = len(cfg.dkg_tier_units)
    for i, units in enumerate(cfg.dkg_tier_units):
        r[D_TIERS + i] = units
    return r


class CompiledDkgScorer(TableScorer):
    """The compiled 断卡根 scorer of one configuration: :meth:`score` (a win) and :meth:`ready` (查叫)."""

    __slots__ = ()
    rules_of = staticmethod(rule_vector_dkg)
    workspace = staticmethod(workspace_dkg)
    unsupported = staticmethod(unsupported_dkg)

    def score(
        self,
        counts: np.ndarray,
        melds: np.ndarray,
        n_melds: int,
        win_tile: int,
        *,
        self_drawn: bool,
        robbing_kong: bool = False,
        after_kong: bool = False,
        last_tile: bool = False,
        tianhu: bool = False,
        dihu: bool = False,
        paid_as_discard: bool = False,
        dealer: bool = False,
        baohu: bool = False,
        kongs_after_baohu: int = 0,
        qinghu: bool = False,
        payer_baohu: bool = False,
        on_qinghu_discard: bool = False,
    ) -> tuple[bool, int, int]:
        """``(is_win, payment, fan)`` as ``judge.score`` gives ``is_win``, ``payment``, ``doublings or 0``.

        ``counts``: 34 concealed counts including ``win_tile``; ``melds``: ``(kind, tile, from_seat)`` triples
        (layout ``M_*`` kinds, at least ``3 * n_melds`` ints, :func:`envs.compiled.score.meld_array`).
        """
        ok, pay, fan = score_dkg(counts, melds, n_melds, win_tile, bool(self_drawn), bool(robbing_kong),
                                 bool(after_kong), bool(last_tile), bool(tianhu), bool(dihu), bool(paid_as_discard),
                                 bool(dealer), bool(baohu), int(kongs_after_baohu), bool(qinghu), bool(payer_baohu),
                                 bool(on_qinghu_discard), self.rules, *self.work)  # fmt: skip
        return bool(ok), int(pay), int(fan)

    def ready(self, counts: np.ndarray, melds: np.ndarray, n_melds: int, baohu: bool = False) -> int:
        """The 查叫 value (:func:`ready_dkg`): a payment or :data:`NOT_READY`."""
        return int(ready_dkg(counts, melds, n_melds, bool(baohu), self.rules, *self.work))


def dkg_meld_array(melds: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """``(kind, tile, from_seat)`` triples as the flat int32 array :meth:`CompiledDkgScorer.score` reads."""
    return meld_array(melds)


__all__ = [
    "NOT_READY",
    "CompiledDkgScorer",
    "dkg_meld_array",
    "ready_dkg",
    "rule_vector_dkg",
    "score_dkg",
    "unsupported_dkg",
    "workspace_dkg",
]
