"""断卡根 Duankagen scoring: RULES.md §7.5 examples D1-D5, hand-derived cases per fan (§4.5.2), the 小胡 rule and its
exceptions, 请胡 / 报胡, tiers, the 网狐 table, 查叫 readiness, input errors and properties.

Hands are 10 tiles before the winning tile (3 sets + pair with it), suits 条 (s) and 筒 (p) only.  Payments are per
payer at base 1: tier units [1, 2, 4, 8] for fan 1, 2, 3, >= 4, plus 1 base on a self-draw.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core.melds import parse_meld
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_counts, tile_code
from envs.scoring.scorer import (
    WinContext,
    can_win,
    chajiao_value,
    discard_values,
    dkg_payments,
    score_hand,
    score_win,
    winning_tiles,
)
from tests.helpers.hand_strategies import concealed_string, set_hands

DKG = "duankagen"


def dkg(concealed, win, melds=(), variant=DKG, **flags):
    return score_hand(variant, concealed, list(melds), win, **flags)


# ---- RULES.md §7.5 ------------------------------------------------------------------------------------------

# (id, concealed, melds, win, flags, fan, payment, breakdown)
EXAMPLES = [
    ("D1", "456s 456s 789s 1s", [], "1s", {"self_drawn": True}, 4, 9, {"qing_yi_se": 2, "ka": 2}),
    ("D2", "46p 123s 789s 22p", [], "5p", {}, 1, 1, {"ping_hu": 0, "ying_ka": 1}),
    ("D3", "11s 44s 66s 88s 33p", [], "9p", {"self_drawn": True, "qinghu": True}, 2, 3, {"qing_hu": 2}),
    ("D4", "123s 456p 78p 55s", [], "9p", {"on_qinghu_discard": True}, 3, 4, {"ping_hu": 0, "qing_hu_pao": 3}),
    # D5: S3's 断幺九 hand (1 fan) on the discard of S1, who declared 报胡: +1 fan on S1's payment
    ("D5", "234p 567s 88s 34s", [], "5s", {"payer_baohu": True}, 2, 2, {"duan_yao_jiu": 1, "bao_hu_fa": 1}),
]


@pytest.mark.parametrize(
    ("concealed", "melds", "win", "flags", "fan", "payment", "breakdown"),
    [e[1:] for e in EXAMPLES],
    ids=[e[0] for e in EXAMPLES],
)
def test_worked_examples(concealed, melds, win, flags, fan, payment, breakdown):
    r = dkg(concealed, win, melds, **flags)
    assert r.is_win
    assert (r.doublings, r.payment, r.breakdown) == (fan, payment, breakdown)
    assert sum(r.breakdown.values()) == r.doublings


def test_d5_without_the_penalty_is_one_fan():
    r = dkg("234p 567s 88s 34s", "5s")
    assert (r.doublings, r.payment, r.breakdown) == (1, 1, {"duan_yao_jiu": 1})


def test_d4_the_requester_wins_by_self_draw_when_nobody_catches():
    """D3's requester keeps the five pairs; D4's catcher is a 小胡 that could not win on an ordinary discard."""
    assert dkg("123s 456p 78p 55s", "9p").reason == "min_fan"


# ---- hand-derived cases per fan (§4.5.2) --------------------------------------------------------------------

# (id, overrides, concealed, melds, win, flags, fan, payment)
CASES = [
    # 对对胡 1 (111s 999p 333p + 22s; no 带幺九: 333p and 22s hold no terminal)
    ("dui-dui", {}, "111s 999p 33p 22s", [], "3p", {}, 1, 1),
    # 清对 = 对对胡 1 + 清一色 2 -> tier 3 (极品) = 4
    ("qing-dui", {}, "111s 333s 777s 9s", [], "9s", {}, 3, 4),
    # 带幺九 3 (123s 789s 111p 99p)
    ("dai-yao", {}, "123s 789s 111p 9p", [], "9p", {}, 3, 4),
    # 清幺九 = 5 -> counted as the top tier (capped)
    ("qing-yao-jiu", {}, "123s 123s 789s 9s", [], "9s", {}, 5, 8),
    # 将对 4 includes 对对胡 and 断幺九
    ("jiang-dui", {}, "222s 555p 888s 2p", [], "2p", {}, 4, 8),
    # 根: 1111s as 111s + 123s (one 根, nothing else)
    ("gen-concealed", {}, "111s 123s 456p 9p", [], "9p", {}, 1, 1),
    # 根 from a kong meld + 断幺九
    ("gen-kong", {}, "234p 678s 8s", ["kong 5s"], "8s", {}, 2, 2),
    # 清一色 + 根 from a pong plus the fourth copy (555s + 456s)
    ("gen-pong", {}, "456s 789s 2s", ["pong 5s"], "2s", {}, 3, 4),
    # situational fans lift a 小胡 to 1 fan: 杠上炮, 抢杠, 海底炮, 杠上花, 海底捞月
    ("gang-shang-pao", {}, "123s 345p 78p 99s", [], "9p", {"after_kong": True}, 1, 1),
    ("qiang-gang", {}, "123s 345p 78p 99s", [], "9p", {"robbing_kong": True}, 1, 1),
    ("hai-di-pao", {}, "123s 345p 78p 99s", [], "9p", {"last_tile": True}, 1, 1),
    ("gang-kai", {}, "123s 345p 78p 99s", [], "9p", {"self_drawn": True, "after_kong": True}, 1, 2),
    ("hai-di-lao", {}, "123s 345p 78p 99s", [], "9p", {"self_drawn": True, "last_tile": True}, 1, 2),
    # 卡 counts every 4-5-6 run on a self-draw (three runs + 断幺九 = 4 -> 超叫 8, +1)
    ("ka-three", {}, "456s 456s 456p 5p", [], "5p", {"self_drawn": True}, 4, 9),
    # ... but none on a discard (the 5p is not in a 4_6 closed wait reading? it is: 456p + 55p -> 硬卡 1 + 断幺九 1)
    ("ka-discard", {}, "456s 456s 456p 5p", [], "5p", {}, 2, 2),
    # 硬卡 is worth 1 whatever other 4-5-6 runs the hand holds (discard)
    ("ying-ka-other-runs", {}, "46p 456s 789s 22p", [], "5p", {}, 1, 1),
    # the same hand self-drawn: 卡 x2 (456p, 456s)
    ("ying-ka-self-drawn", {}, "46p 456s 789s 22p", [], "5p", {"self_drawn": True}, 2, 3),
    # 素卡 self-drawn: one 456 run, nothing else -> 1 fan, + 1 base
    ("su-ka-zimo", {}, "123s 456p 78p 99s", [], "9p", {"self_drawn": True}, 1, 2),
    # 报胡 +2 on the winner's own win (a 小胡 becomes 2 fan), self-draw adds 卡
    ("bao-hu", {}, "123s 345p 78p 99s", [], "9p", {"baohu": True}, 2, 2),
    ("bao-hu-zimo", {}, "123s 456p 78p 99s", [], "9p", {"baohu": True, "self_drawn": True}, 3, 5),
    # 小胡 on a 报胡 player's discard: 0 + 1 (penalty) -> tier 1
    ("baohu-discard", {}, "123s 345p 78p 99s", [], "9p", {"payer_baohu": True}, 1, 1),
    # 请胡 + 清一色 = 清请胡 4 (+1 base)
    ("qing-qing-hu", {}, "11s 22s 44s 66s 88s", [], "9s", {"self_drawn": True, "qinghu": True}, 4, 9),
    # 请胡 with a four of a kind (two pairs + 根); the single 3p was discarded
    ("qing-hu-quad", {}, "1111s 44s 66s 88p", [], "3p", {"self_drawn": True, "qinghu": True}, 3, 5),
    # 请胡 where the single is the third copy of a kind (111s = pair + single)
    ("qing-hu-three", {}, "111s 44s 66s 88p 3p", [], "3p", {"self_drawn": True, "qinghu": True}, 2, 3),
    # regional: self-draw +1 fan lets a 小胡 self-draw (and keeps the +1 base)
    ("zimo-plus-one", {"dkg_zimo_plus_one_fan": True}, "123s 345p 78p 99s", [], "9p", {"self_drawn": True}, 1, 2),
    # 二合一: 报胡 with 请胡
    (
        "erheyi",
        {"dkg_erheyi": True},
        "11s 44s 66s 88s 33p",
        [],
        "9p",
        {"self_drawn": True, "qinghu": True, "baohu": True},
        4,
        9,
    ),
    # other tier tables and a higher 请胡炮 bonus
    ("tiers", {"dkg_tier_units": [1, 3, 9]}, "111s 333s 777s 9s", [], "9s", {}, 3, 9),
    ("catch-bonus-2", {"dkg_qinghu_catch_bonus": 2}, "123s 456p 78p 55s", [], "9p", {"on_qinghu_discard": True}, 2, 2),
    ("zimo-units-2", {"dkg_zimo_units": 2}, "456s 456s 789s 1s", [], "1s", {"self_drawn": True}, 4, 10),
    ("zimo-none", {"zimo_bonus": "none"}, "456s 456s 789s 1s", [], "1s", {"self_drawn": True}, 4, 8),
    ("base-unit", {"base_unit": 5}, "456s 456s 789s 1s", [], "1s", {"self_drawn": True}, 4, 45),
]


@pytest.mark.parametrize(
    ("overrides", "concealed", "melds", "win", "flags", "fan", "payment"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_fan_cases(overrides, concealed, melds, win, flags, fan, payment):
    r = dkg(concealed, win, melds, variant=load_variant(DKG, **overrides), **flags)
    assert r.is_win, r.reason
    assert (r.doublings, r.payment) == (fan, payment)


def test_breakdowns_name_the_fans():
    assert dkg("222s 555p 888s 2p", "2p").breakdown == {"jiang_dui": 4}
    assert dkg("111s 333s 777s 9s", "9s").breakdown == {"dui_dui_hu": 1, "qing_yi_se": 2}
    assert dkg("11s 22s 44s 66s 88s", "9s", self_drawn=True, qinghu=True).breakdown == {"qing_hu": 2, "qing_yi_se": 2}
    assert dkg("46p 456s 789s 22p", "5p").breakdown == {"ping_hu": 0, "ying_ka": 1}
    r = dkg("123s 123s 789s 9s", "9s")
    assert r.capped and r.multiplier == 8 and r.breakdown_zh == {"清一色": 2, "带幺九": 3}


def test_qinghu_interpretation_drops_the_single():
    r = dkg("1111s 44s 66s 88p", "3p", self_drawn=True, qinghu=True)
    assert r.interpretation is not None and r.interpretation.shape == "five_pairs"
    assert sum(r.interpretation.counts) == 10 and r.interpretation.counts[kind_of("3p")] == 0
    assert r.interpretation.gen == 1


# ---- not a win: the 小胡 rule and its exceptions --------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "concealed", "win", "flags", "reason"),
    [
        # 小胡 cannot win, self-draw or discard
        ({}, "123s 345p 78p 99s", "9p", {}, "min_fan"),
        ({}, "123s 345p 78p 99s", "9p", {"self_drawn": True}, "min_fan"),
        # 素卡 needs a self-draw; a 4-6 wait on 4 or 6 is not 硬卡
        ({}, "123s 456p 78p 99s", "9p", {}, "min_fan"),
        ({}, "45p 123s 789s 22p", "6p", {}, "min_fan"),
        ({}, "56p 123s 789s 22p", "4p", {}, "min_fan"),
        # exceptions switched off
        ({"dkg_xiaohu_exceptions": ["qinghu_discard"]}, "123s 345p 78p 99s", "9p", {"payer_baohu": True}, "min_fan"),
        (
            {"dkg_xiaohu_exceptions": ["baohu_discard"]},
            "123s 456p 78p 55s",
            "9p",
            {"on_qinghu_discard": True},
            "min_fan",
        ),
        # a 报胡 payer does not make a 小胡 self-draw legal unless dkg_xiaohu_zimo_vs_baohu
        ({}, "123s 345p 78p 99s", "9p", {"self_drawn": True, "payer_baohu": True}, "min_fan"),
        # 请胡 needs five pairs and one single
        ({}, "123s 44s 66s 88p 3p", "9p", {"self_drawn": True, "qinghu": True}, "incomplete"),
        ({}, "11s 44s 66s 88p 3p 5p", "9p", {"self_drawn": True, "qinghu": True}, "incomplete"),
        ({}, "123s 345p 78p 99s", "1p", {}, "incomplete"),
    ],
)
def test_not_a_win(overrides, concealed, win, flags, reason):
    r = dkg(concealed, win, variant=load_variant(DKG, **overrides), **flags)
    assert not r.is_win
    assert (r.doublings, r.payment, r.breakdown, r.reason) == (None, 0, {}, reason)


def test_gang_shang_pao_exception_of_the_wanghu_rules():
    """The 网狐 table: 鸡胡 (1 fan) cannot win on a discard, except on a 请胡 or (with the exception) 杠上炮."""
    wanghu = load_variant(DKG, fan_table="dkg_wanghu")
    assert dkg("123s 345p 78p 99s", "9p", variant=wanghu).reason == "min_fan"
    assert dkg("123s 345p 78p 99s", "9p", variant=wanghu, self_drawn=True).is_win  # 鸡胡 may self-draw
    pao = dkg("123s 345p 78p 99s", "9p", variant=wanghu, after_kong=True)  # 鸡胡 1 + 杠上炮 1 = 2
    assert pao.is_win and (pao.doublings, pao.payment) == (2, 2)
    # the catch bonus does not count towards the hand's own minimum: without the qinghu_discard exception a 鸡胡
    # cannot take a 请胡 discard
    assert dkg("123s 345p 78p 99s", "9p", variant=wanghu, on_qinghu_discard=True).is_win
    strict = load_variant(DKG, fan_table="dkg_wanghu", cap_doublings=5, dkg_xiaohu_exceptions=["gang_shang_pao"])
    assert dkg("123s 345p 78p 99s", "9p", variant=strict, on_qinghu_discard=True).reason == "min_fan"


# ---- the 网狐 table (E5) ----------------------------------------------------------------------------------------

WANGHU = {"fan_table": "dkg_wanghu", "cap_doublings": 5, "dkg_zimo_units": 2, "dkg_qinghu_catch_bonus": 2}


@pytest.mark.parametrize(
    ("concealed", "melds", "win", "flags", "fan", "payment", "breakdown"),
    [
        # 清对对 4 (max base, not 清一色 3 + 对对胡 2) -> 2^3 = 8
        ("111s 333s 777s 9s", [], "9s", {}, 4, 8, {"qing_dui": 4}),
        # 将对对 6 + 断幺九 1 = 7 -> 64, capped at 6 fan = 32
        ("222s 555p 888s 2p", [], "2p", {}, 7, 32, {"jiang_dui": 6, "duan_yao_jiu": 1}),
        # 鸡胡 1 + 卡 1, self-draw: 2 + 2 base
        ("123s 456p 78p 99s", [], "9p", {"self_drawn": True}, 2, 4, {"ping_hu": 1, "ka": 1}),
        # 清请胡 5 -> 16 + 2
        ("11s 22s 44s 66s 88s", [], "9s", {"self_drawn": True, "qinghu": True}, 5, 18, {"qing_qing_hu": 5}),
        # 请胡 caught: 鸡胡 1 + 2 (E5: the requester's 请胡) = 3 -> 4
        ("123s 456p 78p 55s", [], "9p", {"on_qinghu_discard": True}, 3, 4, {"ping_hu": 1, "qing_hu_pao": 2}),
        # 报胡 2 on a 鸡胡: 3 -> 4
        ("123s 345p 78p 99s", [], "9p", {"baohu": True}, 3, 4, {"ping_hu": 1, "bao_hu": 2}),
        # 硬卡 on a discard
        ("46p 123s 789s 22p", [], "5p", {}, 2, 2, {"ping_hu": 1, "ying_ka": 1}),
    ],
)
def test_wanghu_table(concealed, melds, win, flags, fan, payment, breakdown):
    r = dkg(concealed, win, melds, variant=load_variant(DKG, **WANGHU), **flags)
    assert r.is_win, r.reason
    assert (r.doublings, r.payment, r.breakdown) == (fan, payment, breakdown)


def test_wanghu_roots_are_capped_at_three_and_baohu_grows_with_kongs():
    cfg = load_variant(DKG, **WANGHU)
    hand = WinContext(
        concealed=tuple(parse_counts("99p")),
        win_tile=kind_of("9p"),
        melds=tuple(parse_meld(m) for m in ("kong 2s", "ankong 3s", "kong 4p")),
        baohu=True,
        kongs_after_baohu=2,
    )
    r = score_win(cfg, hand)
    # max base 对对胡 2; 勾 (根) 3 for three kongs; 报胡 2 + 2 later kongs -> at most 3; 2^7 capped at 32
    assert r.breakdown == {"dui_dui_hu": 2, "gen": 3, "bao_hu": 3}
    assert (r.doublings, r.payment, r.capped) == (8, 32, True)


def test_wanghu_tiandihu_are_table_rows():
    cfg = load_variant(DKG, **WANGHU)
    base = {"concealed": tuple(parse_counts("123s 456p 789p 99s")), "win_tile": kind_of("9s"), "self_drawn": True}
    tian = score_win(cfg, WinContext(**base, tianhu=True, is_dealer=True))
    assert tian.breakdown == {"tian_hu": 6, "ka": 1} and tian.payment == 32 + 2
    di_without_baohu = score_win(cfg, WinContext(**base, dihu=True))
    assert "di_hu" not in di_without_baohu.breakdown
    di = score_win(cfg, WinContext(**base, dihu=True, baohu=True))
    assert di.breakdown["di_hu"] == 6 and di.fixed is None


# ---- 天和 / 地和, per-payer payments ------------------------------------------------------------------------------


def test_tiandihu_fixed_three():
    counts = tuple(parse_counts("456s 456s 789s 11s"))
    tian = score_win(DKG, WinContext(counts, kind_of("1s"), self_drawn=True, tianhu=True, is_dealer=True))
    assert (tian.doublings, tian.payment, tian.fixed, tian.breakdown) == (3, 4, "tian_hu", {"tian_hu": 3})
    di = score_win(DKG, WinContext(counts, kind_of("1s"), self_drawn=True, dihu=True, baohu=True))
    assert (di.doublings, di.payment, di.breakdown) == (3, 4, {"di_hu": 3})  # 地和 does not add 报胡
    punished = score_win(DKG, WinContext(counts, kind_of("1s"), self_drawn=True, dihu=True, payer_baohu=True))
    assert (punished.doublings, punished.payment) == (4, 8)
    assert score_win(load_variant(DKG, dkg_tiandihu_fixed=4), WinContext(counts, kind_of("1s"), self_drawn=True,
                                                                        tianhu=True)).payment == 8  # fmt: skip


def test_dkg_payments_prices_each_payer():
    ctx = WinContext(tuple(parse_counts("234s 234s 678s 99s")), kind_of("9s"), self_drawn=True)
    assert dkg_payments(DKG, ctx, [False, False, False]) == [3, 3, 3]  # 清一色 2 -> 2 + 1
    assert dkg_payments(DKG, ctx, [True, False, False]) == [5, 3, 3]  # the 报胡 payer: 3 fan -> 4 + 1
    xiaohu = WinContext(tuple(parse_counts("123s 345p 789p 99s")), kind_of("9p"), self_drawn=True)
    assert dkg_payments(DKG, xiaohu, [True, False, False]) is None
    lenient = load_variant(DKG, dkg_xiaohu_zimo_vs_baohu=True)
    assert dkg_payments(lenient, xiaohu, [False, True, False]) == [0, 2, 0]  # only the 报胡 player pays (1 fan)
    discard = WinContext(tuple(parse_counts("234p 567s 88s 345s")), kind_of("5s"))
    assert dkg_payments(DKG, discard, [True]) == [2]
    with pytest.raises(ValueError, match="one payer"):
        dkg_payments(DKG, discard, [True, False])
    with pytest.raises(ValueError, match="断卡根 fan table"):
        dkg_payments("chengdu", discard, [True])
    with pytest.raises(ValueError, match="True/False"):
        dkg_payments(DKG, ctx, [1, 0, 0])


# ---- readiness (查叫) ---------------------------------------------------------------------------------------------


def test_chajiao_readiness_follows_the_discard_value():
    # 小胡 waits (6p/9p): not ready
    assert chajiao_value(DKG, parse_counts("123s 345p 78p 99s")) is None
    # 素卡 waits: winnable by self-draw only, so not ready for 查叫
    su_ka = parse_counts("123s 456p 78p 99s")
    assert winning_tiles(DKG, su_ka) == (kind_of("6p"), kind_of("9p"))
    assert chajiao_value(DKG, su_ka) is None
    # 硬卡 wait: ready, worth 1
    ying = parse_counts("46p 123s 789s 22p")
    assert set(discard_values(DKG, ying)) == {kind_of("5p")} and chajiao_value(DKG, ying) == 1
    # a flush wait: 清一色 2
    assert chajiao_value(DKG, parse_counts("234s 234s 678s 9s")) == 2


def test_can_win_applies_the_xiaohu_rule():
    assert not can_win(DKG, WinContext(tuple(parse_counts("123s 345p 789p 99s")), kind_of("9p")))
    assert can_win(DKG, WinContext(tuple(parse_counts("123s 345p 789p 99s")), kind_of("9p"), payer_baohu=True))
    assert can_win(DKG, WinContext(tuple(parse_counts("11s 44s 66s 88s 33p 9p")), kind_of("9p"), self_drawn=True,
                                   qinghu=True))  # fmt: skip


# ---- input errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "concealed", "melds", "win", "flags", "message"),
    [
        (DKG, "123m 456s 78s 99s", [], "9s", {}, "1m is not a tile of variant 'duankagen'"),
        (DKG, "123s 456p 789p 99s 1s", [], "1s", {}, "expected 10 - 3×0 = 10"),
        (DKG, "123s 456p 78p 99s", [], "9p", {"void_suit": "m"}, "no 定缺"),
        (DKG, "11s 44s 66s 8s", ["pong 3p"], "8s", {"self_drawn": True, "qinghu": True}, "without melds"),
        (DKG, "11s 44s 66s 88s 33p", [], "9p", {"qinghu": True}, "self-draw win"),
        (DKG, "123s 456p 78p 55s", [], "9p", {"on_qinghu_discard": True, "self_drawn": True}, "contradicts"),
        (DKG, "11s 44s 66s 88s 33p", [], "9p", {"self_drawn": True, "qinghu": True, "baohu": True}, "dkg_erheyi"),
        (DKG, "123s 456p 78p 55s", [], "9p", {"red_kongs": 1}, "only in Wuhan"),
        (DKG, "123s 456p 78p 55s", [], "9p", {"baohu": "yes"}, "True or False"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"baohu": True}, "断卡根 flag"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"payer_baohu": True}, "断卡根 flag"),
    ],
)
def test_input_errors_name_the_problem(variant, concealed, melds, win, flags, message):
    with pytest.raises(ValueError, match=message):
        score_hand(variant, concealed, melds, win, **flags)


def test_win_context_validation():
    counts = tuple(parse_counts("123s 456p 789p 99s"))
    with pytest.raises(ValueError, match="self-draw"):
        WinContext(counts, kind_of("9p"), qinghu=True)
    with pytest.raises(ValueError, match="contradicts"):
        WinContext(counts, kind_of("9p"), on_qinghu_discard=True, robbing_kong=True)
    with pytest.raises(ValueError, match="kongs_after_baohu needs baohu"):
        WinContext(counts, kind_of("9p"), kongs_after_baohu=1)
    with pytest.raises(ValueError, match="0-4"):
        WinContext(counts, kind_of("9p"), baohu=True, kongs_after_baohu=-1)


# ---- properties -------------------------------------------------------------------------------------------------

_KINDS = list(range(9, 27))  # 筒 and 条


def dkg_hands():
    """A complete 11-tile hand over 筒/条 with 0-1 pongs: (kinds incl. the win, melds, win)."""
    return set_hands(_KINDS, sets=3, melds=(0, 1))


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@_SETTINGS
@given(hand=dkg_hands(), data=st.data(), flags=st.sampled_from([{}, {"self_drawn": True}, {"baohu": True}]))
def test_tile_order_never_changes_the_result(hand, data, flags):
    tiles, melds, win = hand
    order = data.draw(st.permutations(range(len(tiles) - 1)))
    a = dkg(concealed_string(tiles, win), tile_code(win), melds, **flags)
    b = dkg(concealed_string(tiles, win, order), tile_code(win), list(reversed(melds)), **flags)
    assert (a.is_win, a.doublings, a.payment, a.breakdown, a.reason) == (
        b.is_win,
        b.doublings,
        b.payment,
        b.breakdown,
        b.reason,
    )


@_SETTINGS
@given(hand=dkg_hands(), self_drawn=st.booleans())
def test_declarations_and_penalties_never_lower_the_value(hand, self_drawn):
    """报胡 (winner), the payer's 报胡 penalty and 请胡炮 only add fan; a legal win stays legal."""
    tiles, melds, win = hand
    concealed = concealed_string(tiles, win)
    plain = dkg(concealed, tile_code(win), melds, self_drawn=self_drawn)
    extra = [{"baohu": True}, {"payer_baohu": True}]
    if not self_drawn:
        extra.append({"on_qinghu_discard": True})
    for flags in extra:
        more = dkg(concealed, tile_code(win), melds, self_drawn=self_drawn, **flags)
        assert more.is_win or not plain.is_win
        if plain.is_win:
            assert more.doublings > plain.doublings and more.payment >= plain.payment


@_SETTINGS
@given(hand=dkg_hands())
def test_a_discard_win_is_also_a_self_draw_win_worth_more(hand):
    """卡 on a self-draw covers 硬卡, and a self-draw adds one base: the self-draw pays strictly more."""
    tiles, melds, win = hand
    discard = dkg(concealed_string(tiles, win), tile_code(win), melds)
    zimo = dkg(concealed_string(tiles, win), tile_code(win), melds, self_drawn=True)
    if discard.is_win:
        assert zimo.is_win and zimo.doublings >= discard.doublings and zimo.payment > discard.payment


@_SETTINGS
@given(hands=st.lists(dkg_hands(), min_size=2, max_size=4), self_drawn=st.booleans())
def test_payment_is_monotone_in_fan(hands, self_drawn):
    results = [dkg(concealed_string(t, w), tile_code(w), m, self_drawn=self_drawn) for t, m, w in hands]
    results = [r for r in results if r.is_win]
    for a, b in itertools.combinations(results, 2):
        if a.doublings <= b.doublings:
            assert a.payment <= b.payment
        if min(a.doublings, 4) == min(b.doublings, 4):
            assert a.payment == b.payment
