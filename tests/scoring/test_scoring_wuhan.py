"""Wuhan 红中赖子杠 scoring: RULES.md §7.8 examples W1-W4, the win rules of §4.8.1-§4.8.2 (红中, 开口, 2-5-8 pair, 赖子
limits, 乱将/乱风, big wins and their pair requirement), the factor system and caps of §4.8.3 with 承包 liability,
the 赖子 successor rule, input errors and properties.

``score_hand(..., laizi=...)`` takes the 赖子 kind itself; ``payment`` is what a loser without factors of their own
pays, :func:`envs.scoring.wuhan_settlement.wuhan_settlement` gives every loser's amount.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from envs.core.melds import parse_meld
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_counts, tile_code
from envs.scoring.interpret import FLAG_SOFT, FLAG_WILD_PAIR, HandSpec, Shape, uniform_reading
from envs.scoring.scorer import WinContext, can_win, score_hand, score_win, winning_tiles
from envs.scoring.wuhan_settlement import (
    WuhanSide,
    apply_wuhan_caps,
    laizi_indicators,
    laizi_of,
    wuhan_factor,
    wuhan_loser_multiplier,
    wuhan_settlement,
)
from tests.helpers.hand_strategies import concealed_string, set_hands

WH = "wuhan"


def wh(concealed, melds, win, laizi="6p", variant=WH, **flags):
    return score_hand(variant, concealed, list(melds), win, laizi=laizi, **flags)


def side(*melds, **kw):
    return WuhanSide(melds=tuple(parse_meld(m) for m in melds), **kw)


# ---- RULES.md §7.8 (赖子 = 6p) ----------------------------------------------------------------------------------


def test_w1_small_self_draw_by_a_non_dealer():
    r = wh("678s 234p 789p 2m", ["chi 345m"], "2m", self_drawn=True)
    assert r.is_win
    assert (r.doublings, r.multiplier, r.payment) == (3, 8, 8)  # M(S1) = 开口 2 × 自摸 2 × 硬胡 2
    assert r.breakdown == {"ping_hu": 1, "kai_kou": 1, "zi_mo": 1, "ying_hu": 1}
    losers = [side(is_dealer=True), side("pong 1z", red_kongs=1), side("ankong 9m")]  # S0, S2, S3
    amounts = wuhan_settlement(WH, r, losers)
    assert amounts == [16, 32, 32] and sum(amounts) == 80


def test_w2_two_big_wins_on_a_discard_by_the_dealer():
    r = wh("444s 999s 5s", ["pong 2s", "pong 7s"], "5s", is_dealer=True)
    assert (r.doublings, r.multiplier, r.payment) == (2, 80, 80)  # base 20 × (开口 2 × 硬胡 2), no dealer factor
    assert r.breakdown == {"peng_peng_hu": 10, "qing_yi_se": 10, "kai_kou": 1, "ying_hu": 1}
    losers = [side("pong 1z"), side(discarded=True), side()]  # S1 (one pong), S2 (discarder), S3
    amounts = wuhan_settlement(WH, r, losers)
    assert amounts == [160, 160, 80] and sum(amounts) == 400


def test_w3_golden_cap():
    r = wh("999m 8m", ["pong 1m", "kong 3m", "pong 6m"], "8m", self_drawn=True)
    assert (r.doublings, r.multiplier) == (4, 320)  # 20 × 开口 2 × 明杠 2 × 自摸 2 × 硬胡 2
    assert r.payment == 400 and r.capped  # three factor-free losers would all reach 300: 金顶
    losers = [side(is_dealer=True), side("pong 1z"), side()]  # raw 320, 640, 320
    amounts = wuhan_settlement(WH, r, losers)
    assert amounts == [400, 400, 400] and sum(amounts) == 1200
    # W3 is an isolated score; in play the supplier of the third open meld pays all of it (承包 rule 2)
    fed = [side(is_dealer=True), side("pong 1z", fed_third_meld=True), side()]
    assert wuhan_settlement(WH, r, fed) == [0, 1200, 0]


def test_w4_liability_for_quan_qiu_ren():
    """W4's second chi is 789p: a chi holding the 赖子 6p (never chi'd, §4.8.1) is refused as input."""
    with pytest.raises(ValueError, match="6p is a wildcard"):
        wh("5m", ["chi 123m", "pong 7s", "pong 3p", "chi 456p"], "5m", laizi="6p")
    r = wh("5m", ["chi 123m", "pong 7s", "pong 3p", "chi 789p"], "5m", laizi="6p")
    assert (r.doublings, r.multiplier, r.payment) == (2, 40, 40)
    assert r.breakdown == {"quan_qiu_ren": 10, "kai_kou": 1, "ying_hu": 1}
    s0 = side("pong 1z", is_dealer=True, discarded=True, ready=False)
    amounts = wuhan_settlement(WH, r, [s0, side(), side("ankong 9m")])
    assert amounts == [360, 0, 0]  # 160 + 40 + 160, all on S0
    ready = side("pong 1z", is_dealer=True, discarded=True, ready=True)
    assert wuhan_settlement(WH, r, [ready, side(), side("ankong 9m")]) == [160, 40, 160]


# ---- hand-derived cases -----------------------------------------------------------------------------------------

# (id, overrides, concealed, melds, win, kwargs, doublings, multiplier, payment)
CASES = [
    # 口口翻: three open melds -> x8; 20 × 8 × 明杠 2 × 自摸 2 × 硬胡 2 = 1280 -> all >= 600: 钻顶 700
    ("koukou", {"wuhan_open_mode": "koukou"}, "999m 8m", ["pong 1m", "kong 3m", "pong 6m"], "8m",
     {"self_drawn": True}, 6, 1280, 700),
    # the winner's own 暗杠 x4 (2 doublings): 1 × 开口 2 × 暗杠 4 × 自摸 2 × 硬胡 2 = 32
    ("an-gang", {}, "234p 789p 2m", ["chi 345m", "ankong 9s"], "2m", {"self_drawn": True}, 5, 32, 32),
    # 红中杠 x2 and two 赖子杠 x4: 8 × 2 × 4 = 64
    ("red-laizi-kongs", {}, "678s 234p 789p 2m", ["chi 345m"], "2m",
     {"self_drawn": True, "red_kongs": 1, "laizi_kongs": 2}, 6, 64, 64),
    # E3's 赖子杠 x4 (AMB-60): 8 × 2 × 16 = 256 -> 金顶 400
    ("laizi-kong-x4", {"wuhan_laizi_gang_factor": 4}, "678s 234p 789p 2m", ["chi 345m"], "2m",
     {"self_drawn": True, "red_kongs": 1, "laizi_kongs": 2}, 8, 256, 256),
    # dealer's small win: x2 (庄家)
    ("dealer-small", {}, "678s 234p 789p 2m", ["chi 345m"], "2m", {"self_drawn": True, "is_dealer": True},
     4, 16, 16),
    # 软胡: the 赖子 (1z) stands for 9p -> no 硬胡 factor: 1 × 开口 2 × 自摸 2
    ("soft", {}, "678s 234p 78p 1z 2m", ["chi 345m"], "2m", {"self_drawn": True, "laizi": "1z"}, 2, 4, 4),
    # a small win on a discard: 开口 2 × 硬胡 2
    ("small-discard", {}, "678s 234p 789p 2m", ["chi 345m"], "2m", {}, 2, 4, 4),
    # two 赖子 (5p) as their own 2/5/8 pair: a hard small win
    ("two-laizi-natural-pair", {}, "234m 567s 789p 5p", ["pong 1p"], "5p", {"self_drawn": True, "laizi": "5p"},
     3, 8, 8),
    # a small win may hold two 赖子 with wuhan_small_win_max_laizi = 2 (both wild -> soft)
    ("two-laizi-allowed", {"wuhan_small_win_max_laizi": 2}, "234m 567s 78p 2z 2p", ["pong 1p"], "2z",
     {"self_drawn": True, "laizi": "2z"}, 2, 4, 4),
    # 碰碰胡 with two 赖子 (big wins waive the limit): 5s5s as 88s; soft
    ("peng-peng-two-laizi", {}, "111s 333s 8s 9p 5s 5s", ["pong 1p"], "9p", {"self_drawn": True, "laizi": "5s"},
     2, 40, 40),
    # 碰碰胡 with an honor pair (no 2-5-8 pair needed)
    ("peng-peng-honor-pair", {}, "111s 333p 777m 1z", ["pong 2z"], "1z", {"laizi": "9s"}, 2, 40, 40),
    # 将一色 in any arrangement (乱将), self-drawn
    ("luan-jiang", {}, "2m 5m 8m 22p 58p 2s 5s 8s", ["pong 5p"], "8m", {"self_drawn": True, "laizi": "9s"}, 3, 80, 80),
    # ... with a 赖子 standing for a 2/5/8 tile: soft
    ("luan-jiang-soft", {}, "2m 5m 8m 22p 58p 2s 5s 9s", ["pong 5p"], "8m", {"self_drawn": True, "laizi": "9s"},
     2, 40, 40),
    # 将一色 + 碰碰胡 (222m 555s 888p 888m + 22s) on a discard
    ("jiang-peng", {}, "888p 22s 88m", ["pong 2m", "pong 5s"], "8m", {"laizi": "9s"}, 2, 80, 80),
    # 风一色 in any arrangement (乱风) and 风一色 + 碰碰胡
    ("luan-feng", {}, "11z 22z 3z 66z 7z 1z 2z", ["pong 4z"], "7z", {"self_drawn": True, "laizi": "9s"}, 3, 80, 80),
    ("feng-peng", {}, "111z 222z 333z 6z", ["pong 4z"], "6z", {"self_drawn": True, "laizi": "9s"}, 3, 160, 160),
    # 杠上开花 with a 2-5-8 pair: big win; + 清一色 = 20
    ("gang-kai", {}, "234m 567s 789p 2p", ["pong 1p"], "2p", {"self_drawn": True, "after_kong": True, "laizi": "5s"},
     3, 80, 80),
    ("gang-kai-flush", {}, "234s 567s 789s 2s", ["pong 1s"], "2s",
     {"self_drawn": True, "after_kong": True, "laizi": "5p"}, 3, 160, 160),
    # 海底捞月 (a 海底-phase draw) and 抢杠, both with a 2-5-8 pair
    ("hai-di", {}, "234m 567s 789p 2p", ["pong 1p"], "2p", {"self_drawn": True, "last_tile": True, "laizi": "5s"},
     3, 80, 80),
    ("qiang-gang", {}, "234m 567s 789p 2p", ["pong 1p"], "2p", {"robbing_kong": True, "laizi": "5s"}, 2, 40, 40),
    # 全求人 self-drawn is no 全求人: a small win (2-5-8 pair)
    ("quan-qiu-ren-self", {}, "5m", ["chi 123m", "pong 7s", "pong 3p", "chi 456p"], "5m",
     {"self_drawn": True, "laizi": "9s"}, 3, 8, 8),
    # 3 x 80 raw = 240 < 300: plain amounts; base_unit scales the payment
    ("base-unit", {"base_unit": 2}, "234m 567s 789p 2p", ["pong 1p"], "2p",
     {"self_drawn": True, "last_tile": True, "laizi": "5s"}, 3, 80, 160),
]  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "concealed", "melds", "win", "kwargs", "doublings", "multiplier", "payment"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_cases(overrides, concealed, melds, win, kwargs, doublings, multiplier, payment):
    kwargs = {"laizi": "6p", **kwargs}
    r = score_hand(load_variant(WH, **overrides), concealed, melds, win, **kwargs)
    assert r.is_win, r.reason
    assert (r.doublings, r.multiplier, r.payment) == (doublings, multiplier, payment)


def test_breakdowns_and_shapes():
    luan = wh("2m 5m 8m 22p 58p 2s 5s 8s", ["pong 5p"], "8m", laizi="9s", self_drawn=True)
    assert luan.breakdown == {"jiang_yi_se": 10, "kai_kou": 1, "zi_mo": 1, "ying_hu": 1}
    assert luan.interpretation is not None and luan.interpretation.shape == "luan_jiang"
    feng = wh("111z 222z 333z 6z", ["pong 4z"], "6z", laizi="9s", self_drawn=True)
    assert feng.breakdown == {"peng_peng_hu": 10, "feng_yi_se": 10, "kai_kou": 1, "zi_mo": 1, "ying_hu": 1}
    dealer = wh("678s 234p 789p 2m", ["chi 345m"], "2m", self_drawn=True, is_dealer=True)
    assert dealer.breakdown["zhuang_jia"] == 1 and dealer.breakdown_zh["庄家"] == 1
    big_dealer = wh("444s 999s 5s", ["pong 2s", "pong 7s"], "5s", is_dealer=True)
    assert "zhuang_jia" not in big_dealer.breakdown


# ---- not a win ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "concealed", "melds", "win", "kwargs", "reason"),
    [
        # holding 红中 forbids any win
        ({}, "234m 567s 789p 5z", ["pong 1p"], "5z", {"self_drawn": True}, "hongzhong_in_hand"),
        ({}, "234m 567s 78p 5z 2p", ["pong 1p"], "2p", {"self_drawn": True}, "hongzhong_in_hand"),
        # must open: no melds, or only 暗杠 (seven pairs are not a Wuhan shape either)
        ({}, "123m 456m 789m 234s 5s", [], "5s", {}, "not_open"),
        ({}, "234m 567s 789p 2p", ["ankong 1p"], "2p", {"self_drawn": True}, "not_open"),
        ({}, "11m 22m 33m 55m 77m 99m 2s", [], "2s", {"self_drawn": True}, "not_open"),
        # small wins need a 2-5-8 pair
        ({}, "234m 567s 789p 9p", ["pong 1p"], "9p", {"self_drawn": True, "laizi": "9s"}, "small_win_pair"),
        # ... and so do 全求人, 杠上开花, 海底捞月 and 抢杠 (AMB-76)
        ({}, "9m", ["chi 123m", "pong 7s", "pong 3p", "chi 456p"], "9m", {"laizi": "9s"}, "small_win_pair"),
        ({}, "234m 567s 789p 9p", ["pong 1p"], "9p", {"self_drawn": True, "after_kong": True, "laizi": "5s"},
         "small_win_pair"),
        ({}, "234m 567s 789p 9p", ["pong 1p"], "9p", {"self_drawn": True, "last_tile": True, "laizi": "5s"},
         "small_win_pair"),
        ({}, "234m 567s 789p 9p", ["pong 1p"], "9p", {"robbing_kong": True, "laizi": "5s"}, "small_win_pair"),
        # a small win holds at most one 赖子 (two only as their own 2/5/8 pair)
        ({}, "234m 567s 78p 2z 2p", ["pong 1p"], "2z", {"self_drawn": True, "laizi": "2z"}, "small_win_laizi"),
        # two 赖子 6p: a natural pair is no 2-5-8 pair, as wildcards they are one too many
        ({}, "234m 567s 789p 6p", ["pong 1p"], "6p", {"self_drawn": True}, "small_win_pair"),
        # a discarded 赖子 is a 赖子杠: nobody can win on it
        ({}, "234m 567s 789p 5p", ["pong 1p"], "5p", {"laizi": "5p"}, "wild_not_claimable"),
        ({}, "234m 567s 789p 2m", ["pong 1p"], "9m", {}, "incomplete"),
    ],
)  # fmt: skip
def test_not_a_win(overrides, concealed, melds, win, kwargs, reason):
    kwargs = {"laizi": "6p", **kwargs}
    r = score_hand(load_variant(WH, **overrides), concealed, melds, win, **kwargs)
    assert not r.is_win
    assert (r.doublings, r.payment, r.breakdown, r.reason) == (None, 0, {}, reason)


# ---- two 赖子 as the pair (§4.8.1) in the big wins that need a 2-5-8 pair (§4.8.2) -------------------------------

GANG_KAI = {"self_drawn": True, "after_kong": True}
HAI_DI = {"self_drawn": True, "last_tile": True}
QIANG_GANG = {"robbing_kong": True}
_OPEN_SELF = {"kai_kou": 1, "zi_mo": 1}

# (id, concealed, melds, win, 赖子, situation, (multiplier, breakdown) of the win, or the reason it is none)
LAIZI_PAIR_CASES = [
    # two 赖子 7p may not stand for 88p: no 杠上开花 / 海底捞月 / 抢杠, and no small win either
    ("gang-kai-wild-pair", "13m 46m 111s 777p", ["pong 1z"], "7p", "7p", GANG_KAI, "small_win_pair"),
    ("hai-di-wild-pair", "13m 46m 111s 777p", ["pong 1z"], "7p", "7p", HAI_DI, "small_win_pair"),
    ("qiang-gang-wild-pair", "13m 46m 99s 7777p", ["pong 1z"], "9s", "7p", QIANG_GANG, "small_win_pair"),
    # a 清一色 still wins (it needs no 2-5-8 pair) but its two 赖子 standing in add no situational big win
    ("gang-kai-flush-wild-pair", "13p 46p 111p 777s", ["pong 9p"], "7s", "7s", GANG_KAI,
     (40, {"qing_yi_se": 10, **_OPEN_SELF})),
    ("hai-di-flush-wild-pair", "13p 46p 111p 777s", ["pong 9p"], "7s", "7s", HAI_DI,
     (40, {"qing_yi_se": 10, **_OPEN_SELF})),
    ("qiang-gang-flush-wild-pair", "13p 46p 99p 7777s", ["pong 1p"], "9p", "7s", QIANG_GANG,
     (20, {"qing_yi_se": 10, "kai_kou": 1})),
    # two 赖子 5p used as themselves are a 2-5-8 pair: the big win stands, hard
    ("gang-kai-natural-laizi-pair", "234m 567s 789p 5p", ["pong 1p"], "5p", "5p", GANG_KAI,
     (80, {"gang_shang_kai_hua": 10, **_OPEN_SELF, "ying_hu": 1})),
    ("hai-di-natural-laizi-pair", "234m 567s 789p 5p", ["pong 1p"], "5p", "5p", HAI_DI,
     (80, {"hai_di_lao_yue": 10, **_OPEN_SELF, "ying_hu": 1})),
    ("qiang-gang-natural-laizi-pair", "234m 567s 78p 55p", ["pong 1p"], "9p", "5p", QIANG_GANG,
     (40, {"qiang_gang_hu": 10, "kai_kou": 1, "ying_hu": 1})),
    # one 赖子 beside a natural 2p is a 将 pair 22p (soft)
    ("gang-kai-one-laizi-pair", "234m 567s 789p 9s", ["pong 1p"], "2p", "9s", GANG_KAI,
     (40, {"gang_shang_kai_hua": 10, **_OPEN_SELF})),
    ("hai-di-one-laizi-pair", "234m 567s 789p 9s", ["pong 1p"], "2p", "9s", HAI_DI,
     (40, {"hai_di_lao_yue": 10, **_OPEN_SELF})),
    ("qiang-gang-one-laizi-pair", "234m 567s 789p 9s", ["pong 1p"], "2p", "9s", QIANG_GANG,
     (20, {"qiang_gang_hu": 10, "kai_kou": 1})),
]  # fmt: skip


@pytest.mark.parametrize(
    ("concealed", "melds", "win", "laizi", "situation", "expected"),
    [c[1:] for c in LAIZI_PAIR_CASES],
    ids=[c[0] for c in LAIZI_PAIR_CASES],
)
def test_two_laizi_make_a_258_pair_only_as_themselves(concealed, melds, win, laizi, situation, expected):
    r = wh(concealed, melds, win, laizi=laizi, **situation)
    if isinstance(expected, str):
        assert (r.is_win, r.reason) == (False, expected)
    else:
        assert r.is_win, r.reason
        assert (r.multiplier, r.breakdown) == expected


def test_luan_jiang_of_two_standing_in_laizi_has_no_258_pair():
    """乱将 with every concealed tile a 赖子 standing in (4 pongs of 将 kinds + two 赖子 7p): no 将 pair, so no
    杠上开花 in any reading; 碰碰胡 + 将一色 (soft) and 碰碰胡 with the natural pair 77p (hard) are worth 80 each."""
    melds = ["pong 2m", "pong 5m", "pong 8p", "pong 2s"]
    r = wh("7p", melds, "7p", laizi="7p", **GANG_KAI)
    assert r.is_win and r.multiplier == 80 and "gang_shang_kai_hua" not in r.breakdown
    spec = HandSpec(
        naturals=(0,) * 34,
        wilds=2,
        melds=tuple(parse_meld(m) for m in melds),
        allowed_mask=(1 << 34) - 1,
        wild_own=tuple(2 if k == kind_of("7p") else 0 for k in range(34)),
    )
    luan = uniform_reading(spec, Shape.LUAN_JIANG, frozenset(k for k in range(27) if k % 9 in (1, 4, 7)))
    assert luan is not None and luan.has(FLAG_WILD_PAIR) and luan.has(FLAG_SOFT)
    natural = uniform_reading(
        HandSpec(naturals=spec.naturals, wilds=2, melds=spec.melds, allowed_mask=spec.allowed_mask,
                 wild_own=tuple(2 if k == kind_of("5p") else 0 for k in range(34))),
        Shape.LUAN_JIANG,
        frozenset(k for k in range(27) if k % 9 in (1, 4, 7)),
    )  # fmt: skip
    assert natural is not None and not natural.has(FLAG_WILD_PAIR) and not natural.has(FLAG_SOFT)


def test_can_win_and_waits_use_the_wuhan_rules():
    def ctx(concealed, win, melds=("pong 1p",), **kw):
        return WinContext(
            tuple(parse_counts(concealed)),
            kind_of(win),
            tuple(parse_meld(m) for m in melds),
            indicator=kind_of("8s"),  # 赖子 9s
            **kw,
        )

    assert can_win(WH, ctx("234m 567s 789p 22p", "2p", self_drawn=True))
    assert not can_win(WH, ctx("234m 567s 789p 99p", "9p", self_drawn=True))  # small win without a 2-5-8 pair
    assert not can_win(WH, ctx("234m 567s 789p 22p", "2p", melds=("ankong 1p",), self_drawn=True))  # not open
    assert can_win(WH, ctx("2m 5m 8m 22p 58p 2s 5s 8s 8m", "8m", melds=("pong 5p",), self_drawn=True))  # 乱将
    # waits are legal self-draw wins: the 2p (2-5-8 pair) and the 赖子 9s standing for it; never 红中
    hand = parse_counts("234m 567s 789p 2p")
    assert winning_tiles(WH, hand, (parse_meld("pong 1p"),), indicator=kind_of("8s")) == (kind_of("2p"), kind_of("9s"))
    # a 9p single: 99p (natural or with the 赖子) is no 2-5-8 pair, so nothing completes a small win
    single_9p = parse_counts("234m 567s 789p 9p")
    assert winning_tiles(WH, single_9p, (parse_meld("pong 1p"),), indicator=kind_of("8s")) == ()
    # with a 赖子 already in hand (5s, indicator 4s) a second one is one too many: 8s makes 678s + 22p (5s as 2p)
    with_laizi = winning_tiles(WH, hand, (parse_meld("pong 1p"),), indicator=kind_of("4s"))
    assert kind_of("8s") in with_laizi and kind_of("5s") not in with_laizi


def test_wuhan_needs_the_laizi():
    with pytest.raises(ValueError, match="needs laizi"):
        score_hand(WH, "678s 234p 789p 2m", ["chi 345m"], "2m", self_drawn=True)
    ctx = WinContext(tuple(parse_counts("678s 234p 789p 22m")), kind_of("2m"), (parse_meld("chi 345m"),))
    with pytest.raises(ValueError, match="indicator"):
        score_win(WH, ctx)


# ---- settlement, caps, liability ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "raws", "expected"),
    [
        ({}, [299, 300, 300], [299, 300, 300]),
        ({}, [300, 300, 300], [400, 400, 400]),
        ({}, [600, 600, 599], [400, 400, 400]),
        ({}, [600, 640, 1280], [700, 700, 700]),
        ({}, [10, 1280, 1280], [10, 300, 300]),
        ({"wuhan_cap_threshold_inclusive": False}, [300, 300, 300], [300, 300, 300]),
        ({"wuhan_cap_threshold_inclusive": False}, [301, 301, 600], [400, 400, 400]),
        ({"wuhan_caps": [500, 800, 1000], "wuhan_cap_thresholds": [500, 1000]}, [600, 600, 400], [500, 500, 400]),
    ],
)
def test_caps(overrides, raws, expected):
    assert apply_wuhan_caps(load_variant(WH, **overrides), raws) == expected


def test_caps_without_tiers_and_bad_raws():
    assert apply_wuhan_caps(WH, [320, 320, 320], tiers=False) == [300, 300, 300]
    with pytest.raises(ValueError, match="non-negative"):
        apply_wuhan_caps(WH, [-1, 2, 3])


def test_factors():
    assert wuhan_factor(WH) == 1
    assert wuhan_factor(WH, (parse_meld("pong 1z"),), red_kongs=1) == 4  # W1's S2
    assert wuhan_factor(WH, (parse_meld("ankong 9m"),)) == 4  # a 暗杠 does not open
    melds = (parse_meld("pong 1m"), parse_meld("kong 3m"), parse_meld("bukong 6m"))
    assert wuhan_factor(WH, melds) == 2 * 2 * 2
    assert wuhan_factor(load_variant(WH, wuhan_open_mode="koukou"), melds) == 8 * 2 * 2
    assert wuhan_factor(WH, (), laizi_kongs=2) == 4
    assert wuhan_loser_multiplier(WH, side(is_dealer=True, discarded=True), small_win=True) == 4
    assert wuhan_loser_multiplier(WH, side(is_dealer=True, discarded=True), small_win=False) == 2


def test_liability_for_qing_yi_se_and_robbed_kong():
    w3 = wh("999m 8m", ["pong 1m", "kong 3m", "pong 6m"], "8m", self_drawn=True)
    assert wuhan_settlement(WH, w3, [side(is_dealer=True), side("pong 1z"), side(fed_third_meld=True)]) == [0, 0, 1200]
    robbed = wh("234m 567s 789p 2p", ["pong 1p"], "2p", robbing_kong=True, laizi="5s")  # 抢杠 10 × 4 = 40
    assert robbed.breakdown["qiang_gang_hu"] == 10
    losers = [side("pong 9s", kong_robbed=True), side(), side("ankong 1z")]  # raw 40·2·2 = 160, 40, 160
    assert wuhan_settlement(WH, robbed, losers) == [360, 0, 0]
    # 承包 for a robbed kong applies even when the robbing hand is no 抢杠 big win (清一色 without a 2-5-8 pair)
    flush = wh("123s 456s 789s 9s", ["pong 1s"], "9s", robbing_kong=True, laizi="5p")
    assert "qiang_gang_hu" not in flush.breakdown and flush.breakdown["qing_yi_se"] == 10
    assert wuhan_settlement(WH, flush, [side(kong_robbed=True), side(), side()]) == [80 + 40 + 40, 0, 0]


def test_discard_all_pay_off_follows_e3():
    cfg = load_variant(WH, wuhan_discard_all_pay=False)
    w2 = wh("444s 999s 5s", ["pong 2s", "pong 7s"], "5s", variant=cfg, is_dealer=True)
    # big win on a discard: the discarder pays the full 20 × 4 × 2, the others 10 × 4 × M(L) (陪冲)
    assert wuhan_settlement(cfg, w2, [side("pong 1z"), side(discarded=True), side()]) == [80, 160, 40]
    small = wh("678s 234p 789p 2m", ["chi 345m"], "2m", variant=cfg)  # 1 × 4
    assert wuhan_settlement(cfg, small, [side(discarded=True, is_dealer=True), side(), side()]) == [16, 0, 0]
    zimo = wh("678s 234p 789p 2m", ["chi 345m"], "2m", variant=cfg, self_drawn=True)  # self-draws: everybody pays
    assert wuhan_settlement(cfg, zimo, [side(is_dealer=True), side(), side()]) == [16, 8, 8]
    # a discard win is capped at 300 each, never 金顶 / 钻顶 (W2's note): W3's hand on a discard, M(W) = 8
    w3 = wh("999m 8m", ["pong 1m", "kong 3m", "pong 6m"], "8m", variant=cfg)
    assert w3.multiplier == 160
    losers = [side(discarded=True), side("pong 1z", "ankong 9s"), side("pong 2z", "kong 3z")]  # raw 320, 640, 320
    assert wuhan_settlement(cfg, w3, losers) == [300, 300, 300]
    assert wuhan_settlement(WH, w3, losers) == [400, 400, 400]  # every loser by factors: 金顶


def test_settlement_input_errors():
    w1 = wh("678s 234p 789p 2m", ["chi 345m"], "2m", self_drawn=True)
    with pytest.raises(ValueError, match="3 losers"):
        wuhan_settlement(WH, w1, [side(), side()])
    with pytest.raises(ValueError, match="only one loser can deal in"):
        wuhan_settlement(WH, w1, [side(discarded=True), side(kong_robbed=True), side()])
    with pytest.raises(ValueError, match="fan_table 'wuhan'"):
        wuhan_settlement("chengdu", w1, [side(), side(), side()])
    with pytest.raises(ValueError, match="winning ScoreResult"):
        wuhan_settlement(WH, wh("234m 567s 789p 9p", ["pong 1p"], "9p", laizi="9s"), [side(), side(), side()])
    chengdu = score_hand("chengdu", "123m 456m 789m 234s 5s", [], "5s")
    with pytest.raises(ValueError, match="does not come from the wuhan table"):
        wuhan_settlement(WH, chengdu, [side(), side(), side()])
    with pytest.raises(ValueError, match="WuhanSide"):
        wuhan_settlement(WH, w1, [side(), side(), "S3"])
    with pytest.raises(ValueError, match="red_kongs"):
        WuhanSide(red_kongs=5)
    with pytest.raises(ValueError, match="Meld"):
        WuhanSide(melds=("pong 1z",))


# ---- the 赖子 rule ------------------------------------------------------------------------------------------------


def test_laizi_successor_rule():
    pairs = {"5p": "6p", "9m": "1m", "1s": "2s", "1z": "2z", "4z": "6z", "5z": "6z", "6z": "7z", "7z": "1z"}
    for indicator, laizi in pairs.items():
        assert laizi_of(kind_of(indicator)) == kind_of(laizi), indicator
    assert laizi_indicators(kind_of("6z")) == (kind_of("4z"), kind_of("5z"))
    assert laizi_indicators(kind_of("1m")) == (kind_of("9m"),)
    with pytest.raises(ValueError, match="never the 赖子"):
        laizi_indicators(kind_of("5z"))
    with pytest.raises(ValueError, match="0-33"):
        laizi_of(34)


def test_engine_context_uses_the_indicator():
    ctx = WinContext(
        tuple(parse_counts("678s 234p 789p 22m")),
        kind_of("2m"),
        (parse_meld("chi 345m"),),
        self_drawn=True,
        indicator=kind_of("5p"),
    )
    assert score_win(WH, ctx).multiplier == 8
    soft = WinContext(
        tuple(parse_counts("678s 234p 89p 6p 22m")),  # the 赖子 6p stands for 7p
        kind_of("2m"),
        (parse_meld("chi 345m"),),
        self_drawn=True,
        indicator=kind_of("5p"),
    )
    assert score_win(WH, soft).multiplier == 4


# ---- input errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "concealed", "melds", "win", "kwargs", "message"),
    [
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "5z"}, "never the 赖子"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "benjin": "5s"}, "benjin is only used in Yibin"),
        (WH, "678s 234p 789p 2m", ["pong 5z"], "2m", {"laizi": "6p"}, "红中 can never be ponged"),
        (WH, "678s 234p 789p 2m", ["pong 6p"], "2m", {"laizi": "6p"}, "6p is a wildcard"),
        (WH, "678s 234p 789p 2m", ["chi 567p"], "2m", {"laizi": "6p"}, "6p is a wildcard"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "red_kongs": 5}, "0-4"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "red_kongs": True}, "0-4"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "is_dealer": 1}, "True or False"),
        (WH, "678s 234p 789p 6p", ["chi 345m"], "6p", {"laizi": "6p", "laizi_kongs": 3}, "6p appears 5 times"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "void_suit": "m"}, "no 定缺"),
        (WH, "678s 234p 789p 2m", ["chi 345m"], "2m", {"laizi": "6p", "baohu": True}, "断卡根 flag"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"laizi": "6p"}, "laizi is only used in Wuhan"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"red_kongs": 1}, "only in Wuhan"),
    ],
)
def test_input_errors_name_the_problem(variant, concealed, melds, win, kwargs, message):
    with pytest.raises(ValueError, match=message):
        score_hand(variant, concealed, melds, win, **kwargs)


# ---- properties ---------------------------------------------------------------------------------------------------

_KINDS = [k for k in range(34) if k != 31]


def wuhan_hands():
    """An open complete 14-tile hand (1-2 pongs) with honors: (kinds incl. the win, melds, win)."""
    return set_hands(_KINDS, sets=4, melds=(1, 2))


def _laizi_for(tiles, melds):
    """A 赖子 kind the hand does not contain (so the hand is read without wildcards)."""
    used = set(tiles) | {parse_meld(m).tile for m in melds}
    return next(tile_code(k) for k in _KINDS if k not in used)


_SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@_SETTINGS
@given(hand=wuhan_hands(), data=st.data(), self_drawn=st.booleans())
def test_tile_order_never_changes_the_result(hand, data, self_drawn):
    tiles, melds, win = hand
    laizi = _laizi_for(tiles, melds)
    order = data.draw(st.permutations(range(len(tiles) - 1)))
    a = wh(concealed_string(tiles, win), melds, tile_code(win), laizi=laizi, self_drawn=self_drawn)
    b = wh(
        concealed_string(tiles, win, order), list(reversed(melds)), tile_code(win), laizi=laizi, self_drawn=self_drawn
    )
    assert (a.is_win, a.multiplier, a.payment, a.breakdown, a.reason) == (
        b.is_win,
        b.multiplier,
        b.payment,
        b.breakdown,
        b.reason,
    )


@_SETTINGS
@given(hand=wuhan_hands(), red=st.integers(0, 2), laizi_kongs=st.integers(0, 2), dealer=st.booleans())
def test_factors_and_self_draw_never_lower_the_payment(hand, red, laizi_kongs, dealer):
    tiles, melds, win = hand
    laizi = _laizi_for(tiles, melds)
    base = wh(concealed_string(tiles, win), melds, tile_code(win), laizi=laizi)
    more = wh(concealed_string(tiles, win), melds, tile_code(win), laizi=laizi, self_drawn=True, red_kongs=red,
              laizi_kongs=laizi_kongs, is_dealer=dealer)  # fmt: skip
    assert more.is_win == base.is_win
    if base.is_win:
        assert more.multiplier >= 2 * base.multiplier and more.payment >= base.payment
        assert "ying_hu" in base.breakdown  # no 赖子 in the hand: always 硬胡


@_SETTINGS
@given(hand=wuhan_hands(), data=st.data())
def test_settlement_respects_caps_and_liability_moves_the_total(hand, data):
    tiles, melds, win = hand
    laizi = _laizi_for(tiles, melds)
    r = wh(concealed_string(tiles, win), melds, tile_code(win), laizi=laizi, self_drawn=True)
    assume(r.is_win)
    loser_melds = st.lists(st.sampled_from(["pong 1z", "ankong 2z", "kong 3z", "chi 123m"]), max_size=2, unique=True)
    losers = [side(*data.draw(loser_melds), red_kongs=data.draw(st.integers(0, 1))) for _ in range(3)]
    amounts = wuhan_settlement(WH, r, losers)
    assert all(0 < a <= 700 for a in amounts)
    assert len(set(amounts)) == 1 or max(amounts) <= 300
    liable = [WuhanSide(s.melds, s.red_kongs, fed_third_meld=(i == 1)) for i, s in enumerate(losers)]
    if "qing_yi_se" in r.breakdown:
        assert wuhan_settlement(WH, r, liable) == [0, sum(amounts), 0]
    else:
        assert wuhan_settlement(WH, r, liable) == amounts


@_SETTINGS
@given(hands=st.lists(wuhan_hands(), min_size=2, max_size=4))
def test_payment_is_monotone_in_the_multiplier(hands):
    results = []
    for tiles, melds, win in hands:
        r = wh(concealed_string(tiles, win), melds, tile_code(win), laizi=_laizi_for(tiles, melds), self_drawn=True)
        if r.is_win:
            results.append(r)
    for a, b in itertools.combinations(results, 2):
        if a.multiplier <= b.multiplier:
            assert a.payment <= b.payment
