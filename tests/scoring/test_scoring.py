"""Scoring: RULES.md §7 worked examples, hand-derived pattern cases, input errors and properties.

Expected values of the examples are the ones printed in RULES.md §7 (doublings; han for 赤羽) and payments per payer
at base 1 (points for 赤羽).  The extra cases per pattern were derived by hand from §3/§4 (comment per case).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from envs.core.melds import parse_meld
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_counts, parse_tiles, tile_code
from envs.scoring.interpret import (
    ALL_FLAGS,
    FLAG_GROUP_NO_TERMINAL,
    FLAG_HONOR,
    FLAG_MARKED_TRIPLET,
    FLAG_NOT_JIANG,
    FLAG_RUN,
    FLAG_SIMPLE,
    FLAG_SUIT_M,
    FLAG_SUIT_P,
    FLAG_SUIT_S,
    FLAG_TERMINAL,
    HandSpec,
    Shape,
    interpretations,
    is_complete,
)
from envs.scoring.patterns import FAN_TABLES, PATTERN_NAMES_ZH, PatternContext, evaluate
from envs.scoring.scorer import (
    WinContext,
    best_discard_value,
    can_win,
    chajiao_value,
    discard_values,
    score_hand,
    score_win,
    tingyong_kinds,
    winning_tiles,
)
from tests.helpers.hand_strategies import concealed_string

# ---- RULES.md §7 worked examples -----------------------------------------------------------------------------

# (id, variant, overrides, concealed, melds, win, flags, doublings, payment)
EXAMPLES = [
    ("C1", "chengdu", {}, "123m 456m 789m 234s 5s", [], "5s", {"void_suit": "p"}, 0, 1),
    ("C2", "chengdu", {}, "345m 678s 789s 2s", ["pong 5m"], "2s", {"self_drawn": True, "void_suit": "p"}, 1, 3),
    ("C3", "chengdu", {}, "777m 88s 44s", ["kong 9s", "pong 3m"], "8s", {"void_suit": "p"}, 2, 4),
    ("C4", "chengdu", {}, "11m 22m 33m 4444m 55m 6m", [], "6m", {"void_suit": "s"}, 5, 8),
    (
        "C4-uncapped",
        "chengdu",
        {"cap_doublings": None},
        "11m 22m 33m 4444m 55m 6m",
        [],
        "6m",
        {"void_suit": "s"},
        5,
        32,
    ),
    (
        "C5",
        "chengdu",
        {},
        "777p 88p 99p",
        ["pong 5p", "ankong 2p"],
        "9p",
        {"self_drawn": True, "after_kong": True, "void_suit": "m"},
        5,
        9,
    ),
    (
        "C5-uncapped",
        "chengdu",
        {"cap_doublings": None},
        "777p 88p 99p",
        ["pong 5p", "ankong 2p"],
        "9p",
        {"self_drawn": True, "after_kong": True, "void_suit": "m"},
        5,
        33,
    ),
    ("C6", "chengdu", {}, "2s", ["pong 1s", "pong 4s", "kong 6m", "pong 8m"], "2s", {"void_suit": "p"}, 3, 8),
    ("C7", "chengdu", {}, "888m 55m 22s", ["pong 2m", "pong 5s"], "2s", {"void_suit": "p"}, 3, 8),
    ("C8", "chengdu", {}, "12m 789m 111s 789s 99m", [], "3m", {"void_suit": "p"}, 2, 4),
    ("C9-win", "chengdu", {}, "234m 567m 234s 67s 99s", [], "5s", {"after_kong": True, "void_suit": "p"}, 1, 2),
    ("C10-win", "chengdu", {}, "123m 456m 345p 68p 11m", [], "7p", {"robbing_kong": True, "void_suit": "s"}, 1, 2),
    ("C11-S1", "chengdu", {}, "234m 456m 55m 12s 789s", [], "3s", {"void_suit": "p"}, 0, 1),
    ("C11-S3", "chengdu", {}, "123s 45s 666s 789s 11s", [], "3s", {"void_suit": "m"}, 2, 4),
    (
        "C13",
        "chengdu",
        {"zimo_bonus": "jiafan"},
        "345m 678s 789s 2s",
        ["pong 5m"],
        "2s",
        {"self_drawn": True, "void_suit": "p"},
        2,
        4,
    ),
    (
        "C14",
        "chengdu",
        {},
        "123m 567m 2s",
        ["kong 9m", "pong 4s"],
        "2s",
        {"self_drawn": True, "after_kong": True, "void_suit": "p"},
        2,
        5,
    ),
    (
        "C15",
        "chengdu",
        {},
        "111m 234m 567s 789s 6s",
        [],
        "6s",
        {"self_drawn": True, "last_tile": True, "void_suit": "p"},
        1,
        3,
    ),
    ("C16", "chengdu", {}, "123s 456s 789s 1s", ["ankong 7m"], "1s", {"self_drawn": True, "void_suit": "p"}, 1, 3),
    (
        "C16-menqing",
        "chengdu",
        {"enable_menqing": True},
        "123s 456s 789s 1s",
        ["ankong 7m"],
        "1s",
        {"self_drawn": True, "void_suit": "p"},
        2,
        5,
    ),
    ("C17", "chengdu", {}, "5m", ["pong 2m", "pong 8m", "pong 2s", "pong 5s"], "5m", {"void_suit": "p"}, 5, 8),
    (
        "C17-uncapped",
        "chengdu",
        {"cap_doublings": None},
        "5m",
        ["pong 2m", "pong 8m", "pong 2s", "pong 5s"],
        "5m",
        {"void_suit": "p"},
        5,
        32,
    ),
    (
        "C17-no-stack",  # jiang_jingou_stack = false: E3's 16x (将对 3 + the golden hook's excess 1)
        "chengdu",
        {"cap_doublings": None, "jiang_jingou_stack": False},
        "5m",
        ["pong 2m", "pong 8m", "pong 2s", "pong 5s"],
        "5m",
        {"void_suit": "p"},
        4,
        16,
    ),
    ("C18", "chengdu", {}, "1111m 3333m 55s 77s 8s", [], "8s", {"self_drawn": True, "void_suit": "p"}, 4, 9),
    (
        "C18-uncapped",
        "chengdu",
        {"cap_doublings": None},
        "1111m 3333m 55s 77s 8s",
        [],
        "8s",
        {"self_drawn": True, "void_suit": "p"},
        4,
        17,
    ),
    (
        "C18-jiadi-before-cap",  # E3 order: +1 then cap
        "chengdu",
        {"zimo_jiadi_after_cap": False},
        "1111m 3333m 55s 77s 8s",
        [],
        "8s",
        {"self_drawn": True, "void_suit": "p"},
        4,
        8,
    ),
    (
        "C19",
        "chengdu",
        {},
        "9s",
        ["kong 1s", "ankong 3s", "bukong 5s", "kong 7s"],
        "9s",
        {"self_drawn": True, "after_kong": True, "void_suit": "m"},
        9,
        9,
    ),
    (
        "C19-uncapped",
        "chengdu",
        {"cap_doublings": None},
        "9s",
        ["kong 1s", "ankong 3s", "bukong 5s", "kong 7s"],
        "9s",
        {"self_drawn": True, "after_kong": True, "void_suit": "m"},
        9,
        513,
    ),
    ("X1a", "xueliu", {}, "123s 456s 789s 22m 45m", [], "3m", {"void_suit": "p"}, 0, 1),
    ("X1b", "xueliu", {}, "123s 456s 789s 22m 45m", [], "6m", {"self_drawn": True, "void_suit": "p"}, 0, 2),
    ("H1", "hongzhong", {}, "234m 567m 11s 789s 4s 5z", [], "5s", {"void_suit": "p"}, 0, 1),
    ("H2", "hongzhong", {}, "234m 567m 11s 789s 45s", [], "6s", {"self_drawn": True, "void_suit": "p"}, 2, 4),
    ("H3", "hongzhong", {}, "777s 99s 33s", ["pong 2s", "pong 5s"], "3s", {"void_suit": "p"}, 4, 16),
    ("H4-8m", "hongzhong", {}, "11m 22m 33m 55m 77m 99m 5z", [], "8m", {"void_suit": "p"}, 5, 32),
    ("H4-1m", "hongzhong", {}, "11m 22m 33m 55m 77m 99m 5z", [], "1m", {"void_suit": "p"}, 6, 64),
    (
        "H4-8m-q2",
        "hongzhong",
        {"hz_qidui_doublings": 2},
        "11m 22m 33m 55m 77m 99m 5z",
        [],
        "8m",
        {"void_suit": "p"},
        4,
        16,
    ),
    (
        "H4-1m-q2",
        "hongzhong",
        {"hz_qidui_doublings": 2},
        "11m 22m 33m 55m 77m 99m 5z",
        [],
        "1m",
        {"void_suit": "p"},
        6,
        64,
    ),
    ("H5", "hongzhong", {}, "5z5z5z 123m 456m 789m 1s", [], "5z", {"self_drawn": True, "void_suit": "p"}, 8, 256),
    ("H6", "hongzhong", {}, "1111s 22s 33s 6666s 8s", [], "8s", {"self_drawn": True, "void_suit": "p"}, 9, 512),
    ("H7", "hongzhong", {}, "555m 34m 5z 789s 11s 67s", [], "8s", {"void_suit": "p"}, 1, 2),
    (
        "H7-hard-gen",
        "hongzhong",
        {"wild_counts_for_gen": False},
        "555m 34m 5z 789s 11s 67s",
        [],
        "8s",
        {"void_suit": "p"},
        0,
        1,
    ),
    (
        "Y1",
        "yibin",
        {},
        "111m 234m 567m 89m 4s 6s",
        [],
        "9m",
        {"self_drawn": True, "void_suit": "p", "benjin": "5s"},
        4,
        16,
    ),
    (
        "Y1-hard-gen",
        "yibin",
        {"wild_counts_for_gen": False},
        "111m 234m 567m 89m 4s 6s",
        [],
        "9m",
        {"self_drawn": True, "void_suit": "p", "benjin": "5s"},
        3,
        8,
    ),
    ("Y2", "yibin", {}, "999m 22s 88s", ["pong 3m", "pong 7s"], "2s", {"void_suit": "p", "benjin": "5s"}, 3, 8),
    (
        "Y3",
        "yibin",
        {},
        "55s 4s 3m",
        ["pong 2m", "pong 8m", "pong 9s"],
        "3m",
        {"self_drawn": True, "void_suit": "p", "benjin": "5s"},
        3,
        8,
    ),
    ("R1", "chiyu", {}, "123s 345s 666s 78s 11s", [], "6s", {"self_drawn": True, "void_suit": "p"}, 4, 9000),
    ("R2", "chiyu", {}, "5m", ["pong 2m", "pong 8m", "pong 2s", "pong 5s"], "5m", {"void_suit": "p"}, 4, 8000),
    ("R3", "chiyu", {}, "11m 22m 33m 44m 5555s 6s", [], "6s", {}, 4, 8000),
    (
        "R4",
        "chiyu",
        {},
        "9s",
        ["kong 1s", "ankong 3s", "bukong 5s", "kong 7s"],
        "9s",
        {"self_drawn": True, "after_kong": True, "void_suit": "m"},
        7,
        33000,
    ),
    ("E1-tsumo", "two_player", {}, "123m 456m 789m 34s 55s", [], "5s", {"self_drawn": True, "void_suit": "p"}, 0, 2),
    ("E2", "two_player", {}, "123s 345s 666s 789s 1s", [], "1s", {}, 2, 4),
]


def _score(variant, overrides, concealed, melds, win, flags):
    cfg = load_variant(variant, **overrides)
    return score_hand(cfg, concealed, melds, win, **flags)


@pytest.mark.parametrize(
    ("variant", "overrides", "concealed", "melds", "win", "flags", "doublings", "payment"),
    [e[1:] for e in EXAMPLES],
    ids=[e[0] for e in EXAMPLES],
)
def test_worked_examples(variant, overrides, concealed, melds, win, flags, doublings, payment):
    _assert_scores(variant, overrides, concealed, melds, win, flags, doublings, payment)


def _assert_scores(variant, overrides, concealed, melds, win, flags, doublings, payment):
    """The hand is a win worth ``doublings`` and ``payment``; an additive breakdown sums to the doublings."""
    r = _score(variant, overrides, concealed, melds, win, flags)
    assert r.is_win
    assert (r.doublings, r.payment) == (doublings, payment)
    if FAN_TABLES[load_variant(variant, **overrides).fan_table].unit in ("doublings", "han", "fan"):
        assert sum(r.breakdown.values()) == r.doublings


@pytest.mark.parametrize(
    ("example", "breakdown"),
    [
        ("C2", {"ping_hu": 0, "gen": 1}),
        ("C3", {"dui_dui_hu": 1, "gen": 1}),
        ("C4", {"qi_dui": 2, "qing_yi_se": 2, "gen": 1}),
        ("C5", {"dui_dui_hu": 1, "qing_yi_se": 2, "gen": 1, "gang_shang_kai_hua": 1}),
        ("C6", {"jin_gou_diao": 2, "gen": 1}),
        ("C7", {"jiang_dui": 3}),
        ("C8", {"dai_yao_jiu": 2}),
        ("C9-win", {"ping_hu": 0, "gang_shang_pao": 1}),
        ("C10-win", {"ping_hu": 0, "qiang_gang_hu": 1}),
        ("C13", {"ping_hu": 0, "gen": 1, "zi_mo": 1}),
        ("C15", {"ping_hu": 0, "hai_di_lao_yue": 1}),
        ("C17", {"jin_gou_diao": 2, "jiang_dui": 3}),
        ("C19", {"jin_gou_diao": 2, "qing_yi_se": 2, "gen": 4, "gang_shang_kai_hua": 1}),
        ("H2", {"ping_hu": 0, "sha_gui": 1, "zi_mo": 1}),
        ("H3", {"qing_yi_se": 2, "dui_dui_hu": 1, "sha_gui": 1}),
        ("H4-1m", {"long_qi_dui": 4, "qing_yi_se": 2}),
        ("H5", {"si_hong_zhong": 8}),
        ("H6", {"long_qi_dui": 4, "gen": 1, "qing_yi_se": 2, "sha_gui": 1, "zi_mo": 1}),
        ("Y2", {"dui_dui_hu": 1, "wu_ting_yong": 2}),
        ("Y3", {"dui_dui_hu": 1, "ben_jin": 1, "zi_mo": 1}),
        ("R2", {"jiang_dui": 4}),
        ("R3", {"long_qi_dui": 4}),
        ("R4", {"qing_shi_ba_luo_han": 6, "gang_shang_kai_hua": 1}),
    ],
)
def test_example_breakdowns(example, breakdown):
    row = next(e for e in EXAMPLES if e[0] == example)
    assert _score(*row[1:7]).breakdown == breakdown


def test_breakdown_keys_have_chinese_names():
    r = _score(*next(e for e in EXAMPLES if e[0] == "H6")[1:7])
    assert r.breakdown_zh == {"龙七对": 4, "根": 1, "清一色": 2, "杀鬼": 1, "自摸": 1}
    for table in FAN_TABLES.values():
        for fan in table.base + table.bonus:
            assert fan.name in PATTERN_NAMES_ZH


def test_h1_uses_the_red_dragon_as_3s_or_6s():
    r = score_hand("hongzhong", "234m 567m 11s 789s 4s 5z", [], "5s", void_suit="p")
    assert r.interpretation is not None and r.interpretation.assignment in ((kind_of("3s"),), (kind_of("6s"),))


def test_y1_soft_root_interpretation():
    r = score_hand("yibin", "111m 234m 567m 89m 4s 6s", [], "9m", self_drawn=True, void_suit="p", benjin="5s")
    assert r.interpretation is not None and r.interpretation.gen == 1
    assert 4 in r.interpretation.counts  # 1m x4 (RULES' reading) or the equal-valued 9m x4


def test_c14_kong_bloom_paid_as_discard():
    """点杠花 with dianganghua = "dianpao": the discarder of the kong tile pays 4, no self-draw bonus."""
    ctx = WinContext(
        concealed=tuple(parse_counts("123m 567m 22s")),
        win_tile=kind_of("2s"),
        melds=(parse_meld("kong 9m"), parse_meld("pong 4s")),
        self_drawn=True,
        after_kong=True,
        void_suit=1,
        paid_as_discard=True,
    )
    r = score_win("chengdu", ctx)
    assert (r.doublings, r.payment) == (2, 4)


def test_e1_no_basic_win_on_a_discard():
    r = score_hand("two_player", "123m 456m 789m 34s 55s", [], "2s", void_suit="p")
    assert not r.is_win and r.doublings is None and r.payment == 0 and r.breakdown == {}
    assert r.reason == "min_fan_on_discard"
    same_in_chengdu = score_hand("chengdu", "123m 456m 789m 34s 55s", [], "2s", void_suit="p")
    assert (same_in_chengdu.is_win, same_in_chengdu.payment) == (True, 1)


@pytest.mark.parametrize(
    ("concealed", "melds", "win", "flags", "doublings", "payment"),
    [
        # a root lifts a basic hand to 1 doubling: winnable on a discard
        ("345m 678s 789s 2s", ["pong 5m"], "2s", {"void_suit": "p"}, 1, 2),
        # robbing a kong adds 1 doubling
        ("123m 456m 345p 68p 11m", [], "7p", {"robbing_kong": True, "void_suit": "s"}, 1, 2),
        # 海底炮 adds 1 doubling
        ("123m 456m 789m 34s 55s", [], "2s", {"last_tile": True, "void_suit": "p"}, 1, 2),
        # cap 4 doublings (16x): 清七对 + 1 根 = 5 -> 16
        ("1111m 22m 33m 55m 77m 9m", [], "9m", {"void_suit": "p"}, 5, 16),
    ],
)
def test_two_player_minimum_and_cap(concealed, melds, win, flags, doublings, payment):
    r = score_hand("two_player", concealed, melds, win, **flags)
    assert r.is_win and (r.doublings, r.payment) == (doublings, payment)


# ---- hand-derived cases per pattern ----------------------------------------------------------------------------

# (id, variant, overrides, concealed, melds, win, flags, doublings, payment)
PATTERN_CASES = [
    # 清对: 111 444 777 999 + 22, all 万: 对对胡 1 + 清一色 2
    ("cd-qing-dui", "chengdu", {}, "111m 444m 777m 22m 99m", [], "9m", {"void_suit": "p"}, 3, 8),
    # 清七对: 七对 2 + 清一色 2 = 4 -> 16 uncapped
    ("cd-qing-qi-dui", "chengdu", {"cap_doublings": None}, "11m 22m 33m 55m 77m 99m 4m", [], "4m", {}, 4, 16),
    # 清幺九: 123 123 789 999 + 11 (1m x4, 9m x4): 清一色 2 + 带幺九 2 + 根 2
    ("cd-qing-yao-jiu", "chengdu", {"cap_doublings": None}, "123m 123m 789m 999m 1m", [], "1m", {}, 6, 64),
    # 七对 + 带幺九: 1111m 9999m 1111s 99s: 七对 2 + 带幺九 2 + 根 3
    ("cd-qidui-yaojiu", "chengdu", {"cap_doublings": None}, "1111m 9999m 111s 99s", [], "1s", {}, 7, 128),
    # 清金钩钓: 金钩钓 2 + 清一色 2
    (
        "cd-qing-jin-gou",
        "chengdu",
        {"cap_doublings": None},
        "2s",
        ["pong 1s", "pong 4s", "pong 6s", "pong 8s"],
        "2s",
        {},
        4,
        16,
    ),
    # 十八罗汉 (mixed suits): 金钩钓 2 + 4 根
    (
        "cd-shi-ba-luo-han",
        "chengdu",
        {"cap_doublings": None},
        "9s",
        ["kong 1s", "ankong 3s", "kong 5m", "bukong 7m"],
        "9s",
        {},
        6,
        64,
    ),
    # 门前清 on a golden hook of four concealed kongs (self-draw): 金钩钓 2 + 根 4 + 门前清 1
    (
        "cd-menqing-ankong-hook",
        "chengdu",
        {"cap_doublings": None, "enable_menqing": True},
        "9s",
        ["ankong 1s", "ankong 3s", "ankong 5m", "ankong 7m"],
        "9s",
        {"self_drawn": True},
        7,
        129,
    ),
    # 门前清 is self-draw only
    ("cd-menqing-discard", "chengdu", {"enable_menqing": True}, "123s 456s 789s 1s", ["ankong 7m"], "1s", {}, 1, 2),
    # 门前清 never with 七对: 七对 2 only, +1 加底
    (
        "cd-menqing-qidui",
        "chengdu",
        {"enable_menqing": True},
        "11m 22m 33m 55m 77m 99s 4s",
        [],
        "4s",
        {"self_drawn": True},
        2,
        5,
    ),
    # 断幺九 (optional): all simples
    ("cd-duanyao-off", "chengdu", {}, "234m 345m 456m 678s 8s", [], "8s", {}, 0, 1),
    ("cd-duanyao-on", "chengdu", {"enable_duanyao": True}, "234m 345m 456m 678s 8s", [], "8s", {}, 1, 2),
    # 将对 replaces 断幺九 even when 断幺九 is enabled
    (
        "cd-jiangdui-duanyao",
        "chengdu",
        {"enable_duanyao": True},
        "888m 55m 22s",
        ["pong 2m", "pong 5s"],
        "2s",
        {},
        3,
        8,
    ),
    # without 幺九将对 the 将对 hand is 对对胡 (+ 断幺九 when enabled)
    (
        "cd-no-yaojiu-jiangdui",
        "chengdu",
        {"enable_yaojiu_jiangdui": False, "enable_duanyao": True},
        "888m 55m 22s",
        ["pong 2m", "pong 5s"],
        "2s",
        {},
        2,
        4,
    ),
    ("cd-no-daiyao", "chengdu", {"enable_yaojiu_jiangdui": False}, "12m 789m 111s 789s 99m", [], "3m", {}, 0, 1),
    # 海底炮 on a discard
    ("cd-haidipao", "chengdu", {}, "123m 456m 789m 234s 5s", [], "5s", {"last_tile": True}, 1, 2),
    # 杠上开花 + 海底捞月 together (the replacement tile is the last tile)
    (
        "cd-bloom-haidi",
        "chengdu",
        {},
        "123m 567m 2s",
        ["kong 9m", "pong 4s"],
        "2s",
        {"self_drawn": True, "after_kong": True, "last_tile": True},
        3,
        9,
    ),
    # 自摸 none: no bonus
    (
        "cd-zimo-none",
        "chengdu",
        {"zimo_bonus": "none"},
        "345m 678s 789s 2s",
        ["pong 5m"],
        "2s",
        {"self_drawn": True},
        1,
        2,
    ),
    # 红中 断幺九 + 杀鬼
    ("hz-duanyao", "hongzhong", {}, "234m 345m 567m 66s 78s", [], "6s", {"void_suit": "p"}, 2, 4),
    # 红中 幺九 (带幺九 reading) + 杀鬼; the literal all-terminals reading does not hold
    ("hz-yaojiu", "hongzhong", {}, "12m 789m 111s 789s 99m", [], "3m", {"void_suit": "p"}, 2, 4),
    (
        "hz-yaojiu-literal",
        "hongzhong",
        {"hz_yaojiu_definition": "all_terminals"},
        "12m 789m 111s 789s 99m",
        [],
        "3m",
        {"void_suit": "p"},
        1,
        2,
    ),
    # all-terminal seven pairs: 龙七对 4 + 根 2 + 幺九 1 + 杀鬼 1 (both 幺九 readings)
    ("hz-terminal-qidui", "hongzhong", {}, "1111m 9999m 111s 99s", [], "1s", {"void_suit": "p"}, 8, 256),
    (
        "hz-terminal-qidui-literal",
        "hongzhong",
        {"hz_yaojiu_definition": "all_terminals"},
        "1111m 9999m 111s 99s",
        [],
        "1s",
        {"void_suit": "p"},
        8,
        256,
    ),
    # 红中 金钩钓 with the 红中 as the pair: 对对胡 1 + 金钩钓 1 + 断幺九 1 + 自摸 1 (no 杀鬼)
    (
        "hz-jingou-red-pair",
        "hongzhong",
        {},
        "5z",
        ["pong 2m", "pong 3m", "pong 4s", "pong 7s"],
        "8s",
        {"self_drawn": True, "void_suit": "p"},
        4,
        16,
    ),
    # 杠上炮 inherited (AMB-11) ... and not when hz_inherit_situational = false
    (
        "hz-gangshangpao",
        "hongzhong",
        {},
        "234m 567m 234s 67s 99s",
        [],
        "5s",
        {"after_kong": True, "void_suit": "p"},
        2,
        4,
    ),
    (
        "hz-no-inherit",
        "hongzhong",
        {"hz_inherit_situational": False},
        "234m 567m 234s 67s 99s",
        [],
        "5s",
        {"after_kong": True, "void_suit": "p"},
        1,
        2,
    ),
    # a self-drawn 红中 completes the hand (as 3s or 6s): 自摸 1 only
    (
        "hz-selfdraw-red",
        "hongzhong",
        {},
        "234m 567m 11s 789s 45s",
        [],
        "5z",
        {"self_drawn": True, "void_suit": "p"},
        1,
        2,
    ),
    # four 红中 (dealt four, win on anything): fixed 8 whatever the hand or flags (§10)
    ("hz-four-red-discard", "hongzhong", {}, "5z5z5z5z 123m 456m 789m", [], "1s", {}, 8, 256),
    ("hz-four-red-void", "hongzhong", {}, "5z5z5z5z 123m 456m 789m", [], "1p", {"void_suit": "p"}, 8, 256),
    # ... and without the instant win: 123 456 789 + 111m (3 红中 -> soft 根) + 1s 红中 pair
    ("hz-four-red-off", "hongzhong", {"hz_four_red_instant": False}, "5z5z5z5z 123m 456m 789m", [], "1s", {}, 1, 2),
    # Yibin 清对 + 无听用 = 6 -> cap 5 (32x); 本金 5p is in the void suit, which is fine
    ("yb-qing-dui", "yibin", {}, "111m 444m 777m 22m 99m", [], "9m", {"void_suit": "p", "benjin": "5p"}, 6, 32),
    # Yibin 七对 + 无听用
    ("yb-qidui", "yibin", {}, "11m 22m 33m 55m 77m 88s 4s", [], "4s", {"void_suit": "p", "benjin": "5p"}, 4, 16),
    # Yibin 对对和 worth 2 (yibin_duidui_doublings)
    (
        "yb-duidui-2",
        "yibin",
        {"yibin_duidui_doublings": 2},
        "999m 22s 88s",
        ["pong 3m", "pong 7s"],
        "2s",
        {"void_suit": "p", "benjin": "5s"},
        4,
        16,
    ),
    # Yibin 无听用 as "+1 根 + 2 units": d = 1 + 1, payment 4 + 2
    (
        "yb-wutingyong-units",
        "yibin",
        {"yibin_wutingyong": "one_gen_plus_two_units"},
        "999m 22s 88s",
        ["pong 3m", "pong 7s"],
        "2s",
        {"void_suit": "p", "benjin": "5s"},
        2,
        6,
    ),
    # Yibin 金钩钓 3 + 无听用 2
    (
        "yb-jingou",
        "yibin",
        {},
        "2s",
        ["pong 1m", "pong 3m", "pong 7s", "pong 9m"],
        "2s",
        {"void_suit": "p", "benjin": "5p"},
        5,
        32,
    ),
    # Yibin 本金 from a melded pong of the 本金 kind: 本金 1 + 无听用 2
    ("yb-benjin-pong", "yibin", {}, "123m 456m 789m 1m", ["pong 5s"], "1m", {"void_suit": "p", "benjin": "5s"}, 3, 8),
    # Yibin 飞 meld (777m with a 听用) + the 7m of 789m: 清一色 2 + soft 根 1 (7m x4 counting the 听用);
    # the 听用 in the meld forbids 无听用.  Natural roots only: 7m x3 -> no 根.
    ("yb-fei", "yibin", {}, "123m 456m 789m 1m", ["fei 7m 4s"], "1m", {"void_suit": "p", "benjin": "5s"}, 3, 8),
    (
        "yb-fei-hard-gen",
        "yibin",
        {"wild_counts_for_gen": False},
        "123m 456m 789m 1m",
        ["fei 7m 4s"],
        "1m",
        {"void_suit": "p", "benjin": "5s"},
        2,
        4,
    ),
    # Yibin 本金 from a 飞 meld of the 本金 kind (5s 5s + the 听用 4s): 本金 1, no 无听用
    ("yb-fei-benjin", "yibin", {}, "123m 456m 789m 1m", ["fei 5s 4s"], "1m", {"void_suit": "p", "benjin": "5s"}, 1, 2),
    # Yibin 本金 from a melded kong (only possible when the indicator stays in the wall): 本金 1 + 根 1 + 无听用 2
    (
        "yb-benjin-kong",
        "yibin",
        {"indicator_removed_from_wall": False},
        "123m 456m 789m 1m",
        ["kong 5s"],
        "1m",
        {"void_suit": "p", "benjin": "5s"},
        4,
        16,
    ),
    # Y4 after 提: the 飞 777m became a natural pong and its 听用 4s returned to the hand (here standing for 1m);
    # natural roots only: 7m x4 (pong + 789m) is now a 根 -> 清一色 2 + 根 1 + 自摸 1 (compare yb-fei-hard-gen: 2)
    (
        "yb-Y4-after-ti-hard-gen",
        "yibin",
        {"wild_counts_for_gen": False},
        "123m 456m 789m 4s",
        ["pong 7m"],
        "1m",
        {"self_drawn": True, "void_suit": "p", "benjin": "5s"},
        4,
        16,
    ),
    # Yibin seven pairs never scores 本金 (the 听用 pairs with the 9m)
    (
        "yb-qidui-no-benjin",
        "yibin",
        {},
        "11m 22m 33m 44m 77m 55s 4s",
        [],
        "9m",
        {"void_suit": "p", "benjin": "5s"},
        2,
        4,
    ),
    # Yibin eight 听用: 清七对 4 + 2 soft 根 (1111m, 2222m) = 6 -> 32 (uncapped 64; self-draw 7)
    ("yb-eight-wilds", "yibin", {}, "4444s 6666s 123m 77m", [], "9m", {"void_suit": "p", "benjin": "5s"}, 6, 32),
    (
        "yb-eight-wilds-uncapped-zimo",
        "yibin",
        {"cap_doublings": None},
        "4444s 6666s 123m 77m",
        [],
        "9m",
        {"void_suit": "p", "benjin": "5s", "self_drawn": True},
        7,
        128,
    ),
    # 赤羽: 清七对 5 han; 十八罗汉 6 han (four 根 consumed); 清幺九 5 + 2 根
    ("cy-qing-qi-dui", "chiyu", {}, "11m 22m 33m 55m 77m 99m 4m", [], "4m", {}, 5, 16000),
    ("cy-shi-ba-luo-han", "chiyu", {}, "9s", ["kong 1s", "ankong 3s", "kong 5m", "bukong 7m"], "9s", {}, 6, 32000),
    ("cy-qing-yao-jiu", "chiyu", {}, "123m 123m 789m 999m 1m", [], "1m", {}, 7, 32000),
    ("cy-basic-tsumo", "chiyu", {}, "123m 456m 789m 234s 5s", [], "5s", {"self_drawn": True}, 1, 2000),
    # S2 血流 column (wiki_xueliu): base multipliers, x2 per bonus, no cap in 血流
    ("wiki-basic", "xueliu", {"fan_table": "wiki_xueliu"}, "123m 456m 789m 234s 5s", [], "5s", {}, 0, 2),
    ("wiki-flush", "xueliu", {"fan_table": "wiki_xueliu"}, "123s 45s 666s 789s 11s", [], "3s", {}, 0, 6),
    (
        "wiki-hook-root",
        "xueliu",
        {"fan_table": "wiki_xueliu"},
        "2s",
        ["pong 1s", "pong 4s", "kong 6m", "pong 8m"],
        "2s",
        {},
        1,
        20,
    ),
    (
        "wiki-jiangdui",
        "xueliu",
        {"fan_table": "wiki_xueliu"},
        "5m",
        ["pong 2m", "pong 8m", "pong 2s", "pong 5s"],
        "5m",
        {},
        0,
        16,
    ),
    (
        "wiki-qidui-zimo",
        "xueliu",
        {"fan_table": "wiki_xueliu"},
        "1111m 3333m 55s 77s 8s",
        [],
        "8s",
        {"self_drawn": True},
        2,
        25,
    ),
]


@pytest.mark.parametrize(
    ("variant", "overrides", "concealed", "melds", "win", "flags", "doublings", "payment"),
    [e[1:] for e in PATTERN_CASES],
    ids=[e[0] for e in PATTERN_CASES],
)
def test_pattern_cases(variant, overrides, concealed, melds, win, flags, doublings, payment):
    _assert_scores(variant, overrides, concealed, melds, win, flags, doublings, payment)


def _ctx(concealed_with_win, win, melds=(), **kw):
    return WinContext(
        concealed=tuple(parse_counts(concealed_with_win)),
        win_tile=kind_of(win),
        melds=tuple(parse_meld(m) for m in melds),
        **kw,
    )


def test_yibin_fei_meld_holds_a_tingyong():
    """A 飞 meld's 听用 is part of the final hand: no 无听用; a natural pong after 提 gives it back (Y4)."""
    fei = score_hand("yibin", "123m 456m 789m 1m", ["fei 7m 4s"], "1m", void_suit="p", benjin="5s")
    assert fei.breakdown == {"qing_yi_se": 2, "gen": 1}
    pong = score_hand("yibin", "123m 456m 789m 1m", ["pong 7m"], "1m", void_suit="p", benjin="5s")
    assert pong.breakdown == {"qing_yi_se": 2, "gen": 1, "wu_ting_yong": 2}
    benjin = score_hand("yibin", "123m 456m 789m 1m", ["fei 5s 4s"], "1m", void_suit="p", benjin="5s")
    assert benjin.breakdown == {"ping_hu": 0, "ben_jin": 1}


def test_juezhang_is_an_engine_flag():
    ctx = _ctx("123m 456m 789m 234s 55s", "5s", juezhang=True)
    assert score_win("chengdu", ctx).doublings == 0  # 和绝张 off by default (AMB-75)
    on = score_win(load_variant("chengdu", enable_juezhang=True), ctx)
    assert (on.doublings, on.payment, on.breakdown) == (1, 2, {"ping_hu": 0, "he_jue_zhang": 1})


@pytest.mark.parametrize(
    ("variant", "overrides", "kw", "doublings", "payment", "name"),
    [
        ("chengdu", {}, {"tianhu": True}, 0, 2, None),  # tiandihu off: a normal self-draw
        ("chengdu", {"tiandihu": "cap"}, {"tianhu": True}, 3, 8, "tian_hu"),  # = cap, no 加底
        ("chengdu", {"tiandihu": "cap"}, {"dihu": True}, 2, 4, "di_hu"),  # half the cap
        ("chengdu", {"tiandihu": "cap", "cap_doublings": None}, {"tianhu": True}, 6, 64, "tian_hu"),
        ("chengdu", {"tiandihu": "cap", "cap_doublings": None}, {"dihu": True}, 5, 32, "di_hu"),
        ("hongzhong", {}, {"tianhu": True}, 8, 256, "tian_hu"),
        ("hongzhong", {}, {"dihu": True}, 8, 256, "di_hu"),
        ("yibin", {}, {"tianhu": True, "indicator": kind_of("5p")}, 6, 64, "tian_hu"),  # cap + 1 root, above the cap
    ],
)
def test_tiandihu_modes(variant, overrides, kw, doublings, payment, name):
    ctx = _ctx("123m 456m 789m 234s 55s", "5s", self_drawn=True, is_dealer=bool(kw.get("tianhu")), **kw)
    r = score_win(load_variant(variant, **overrides), ctx)
    assert r.is_win and (r.doublings, r.payment, r.fixed) == (doublings, payment, name)
    if name:
        assert r.breakdown == {name: doublings}


def test_tiandihu_mahjongsoul_is_a_base_pattern():
    ctx = _ctx("123m 456m 789m 234s 55s", "5s", self_drawn=True, tianhu=True, is_dealer=True)
    r = score_win("chiyu", ctx)
    assert (r.doublings, r.payment, r.breakdown) == (6, 33000, {"tian_hu": 6})
    bloom = _ctx("123m 567m 22s", "2s", melds=("kong 9m", "pong 4s"), self_drawn=True, dihu=True, after_kong=True)
    r = score_win("chiyu", bloom)
    assert r.breakdown == {"di_hu": 6, "gen": 1, "gang_shang_kai_hua": 1} and r.payment == 33000


def test_fixed_hands_still_need_a_complete_hand():
    ctx = _ctx("123m 456m 789m 234s 59s", "9s", self_drawn=True, tianhu=True)
    assert not score_win(load_variant("chengdu", tiandihu="cap"), ctx).is_win


# ---- not a win -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "concealed", "melds", "win", "flags", "reason"),
    [
        ("chengdu", "123m 456m 789m 234s 5s", [], "9s", {}, "incomplete"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"void_suit": "m"}, "void_suit"),
        ("chengdu", "123m 456m 789m 5s", ["pong 3p"], "5s", {"void_suit": "p"}, "void_suit"),
        ("chengdu", "11m 22m 33m 55m 77m 99m 4m", [], "5m", {}, "incomplete"),
        # a discarded 红中 is dead (AMB-68); 听用 are never discarded
        ("hongzhong", "234m 567m 11s 789s 45s", [], "5z", {"void_suit": "p"}, "wild_not_claimable"),
        ("yibin", "111m 234m 567m 99m 67m", [], "4s", {"void_suit": "p", "benjin": "5s"}, "wild_not_claimable"),
        # a wildcard may not stand for a void-suit tile
        ("hongzhong", "234m 567m 11s 789s 4p 5z", [], "5s", {"void_suit": "p"}, "void_suit"),
        ("hongzhong", "123m 456m 789m 11s 2s 5z", [], "9s", {"void_suit": "s"}, "void_suit"),
        ("hongzhong", "123m 456m 789m 11m 5z5z", [], "5p", {"void_suit": "p"}, "void_suit"),
        # a 飞 meld of the void suit
        ("yibin", "123m 456m 789m 1m", ["fei 7p 4s"], "1m", {"void_suit": "p", "benjin": "5s"}, "void_suit"),
    ],
)
def test_not_a_win(variant, concealed, melds, win, flags, reason):
    r = score_hand(variant, concealed, melds, win, **flags)
    assert not r.is_win
    assert (r.doublings, r.payment, r.breakdown, r.reason) == (None, 0, {}, reason)


def test_wild_cannot_create_a_fifth_copy():
    """AMB-14: pong 1m + 1m in hand; the only completion would make the 红中 a fifth 1m (pair 11m)."""
    r = score_hand("hongzhong", "1m 5z 456s 789s 23s", ["pong 1m"], "1s", void_suit="p")
    assert not r.is_win and r.reason == "incomplete"
    relaxed = load_variant("hongzhong", wild_ignores_four_copy_limit=True)
    loose = score_hand(relaxed, "1m 5z 456s 789s 23s", ["pong 1m"], "1s", void_suit="p")
    assert loose.is_win and loose.interpretation is not None
    assert loose.interpretation.assignment == (kind_of("1m"),)


def test_pong_plus_a_represented_fourth_copy_is_a_soft_root():
    """A pong plus the fourth copy anywhere gives 1 根; the 红中 may be that copy (345m with 红中 = 5m)."""
    r = score_hand("hongzhong", "34m 678m 111s 2s 5z", ["pong 5m"], "2s", void_suit="p")
    assert r.is_win and (r.doublings, r.payment) == (1, 2)
    assert r.interpretation is not None and r.interpretation.assignment == (kind_of("5m"),)
    hard = score_hand(
        load_variant("hongzhong", wild_counts_for_gen=False), "34m 678m 111s 2s 5z", ["pong 5m"], "2s", void_suit="p"
    )
    assert (hard.doublings, hard.payment) == (0, 1)


# ---- input errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "concealed", "melds", "win", "flags", "message"),
    [
        ("chengdu", "123m 456m 789m 234s 5x", [], "5s", {}, "unknown character"),
        ("chengdu", "123m 456m 789m 234s 0s", [], "5s", {}, "out of range"),
        ("chengdu", "123m 456m 789m 234s", [], "5s", {}, "wrong tile count.*expected 13 - 3×0 = 13"),
        ("chengdu", "123m 456m 789m 5s", [], "5s", {}, "wrong tile count"),
        ("chengdu", "123m 456m 789m 23s 5s", ["pong 1p"], "5s", {}, "expected 13 - 3×1 = 10"),
        ("chengdu", "1111m 234m 567m 999s", [], "1m", {}, "1m appears 5 times"),
        ("chengdu", "55m 3m 678s 789s 2s", ["pong 5m"], "2s", {}, "5m appears 5 times"),
        ("chengdu", "55m 34m 678s 789s 2s", ["pang 5m"], "2s", {}, "unknown kind 'pang'"),
        ("chengdu", "55m 34m 678s 789s 2s", ["pong 56m"], "2s", {}, "copies of one kind"),
        ("chengdu", "123m 456m 789m 234s 5z", [], "5s", {}, "红中 \\(5z\\) is not a tile of variant 'chengdu'"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5z", {}, "红中"),
        ("chengdu", "123m 456m 789m 234s 1z", [], "1z", {}, "1z is not a tile"),
        ("chengdu", "123m 456m 789m 5s", ["chi 234s"], "5s", {}, "chi \\(吃\\) is not allowed"),
        ("chengdu", "123m 456m 789m 5s", ["fei 2s 4s"], "5s", {}, "fei \\(飞\\) melds exist only in Yibin"),
        ("hongzhong", "123m 456m 789m 5s", ["pong 5z"], "5s", {}, "wildcard .* cannot be melded"),
        ("yibin", "123m 456m 789m 5m", ["pong 4s"], "5m", {"benjin": "5s"}, "wildcard .* cannot be melded"),
        ("yibin", "123m 456m 789m 1m", ["fei 7m 3s"], "1m", {"benjin": "5s"}, "3s is not a 听用"),
        ("yibin", "123m 456m 789m 1m", ["fei 7m 4s6s"], "1m", {"benjin": "5s"}, "at most 1 听用"),
        ("yibin", "123m 456m 789m 234s 5s", [], "5s", {}, "needs benjin"),
        ("yibin", "123m 456m 789m 5555s", [], "1m", {"benjin": "5s"}, "本金 indicator is one copy"),
        ("yibin", "123m 456m 789m 1m", ["kong 5s"], "1m", {"benjin": "5s"}, "本金 indicator is one copy"),
        ("yibin", "123m 456m 789m 234s 5s", [], "5s", {"benjin": "5z"}, "benjin"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"benjin": "5s"}, "benjin is only used in Yibin"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"void_suit": "z"}, "void_suit must be 'm', 'p', 's'"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"self_drawn": True, "robbing_kong": True}, "contradicts"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"after_kong": True, "robbing_kong": True}, "contradicts"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"last_tile": True, "robbing_kong": True}, "contradicts"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "55s", {}, "exactly one tile"),
        ("chengdu", "123m 456m 789m 234s 5s", [], "5s", {"self_drawn": 1}, "True or False"),
        ("nosuchvariant", "123m 456m 789m 234s 5s", [], "5s", {}, "unknown variant"),
    ],
)
def test_input_errors_name_the_problem(variant, concealed, melds, win, flags, message):
    with pytest.raises(ValueError, match=message):
        score_hand(variant, concealed, melds, win, **flags)


def test_void_suit_needs_dingque():
    with pytest.raises(ValueError, match="no 定缺"):
        score_hand(load_variant("chengdu", dingque=False), "123m 456m 789m 234s 5s", [], "5s", void_suit="p")


def test_win_context_validation():
    counts = tuple(parse_counts("123m 456m 789m 234s 55s"))
    with pytest.raises(ValueError, match="34 counts"):
        WinContext(concealed=(0,) * 33, win_tile=0)
    with pytest.raises(ValueError, match="must include the winning tile"):
        WinContext(concealed=counts, win_tile=kind_of("9p"))
    with pytest.raises(ValueError, match="contradicts"):
        WinContext(concealed=counts, win_tile=kind_of("5s"), self_drawn=True, robbing_kong=True)
    with pytest.raises(ValueError, match="both"):
        WinContext(concealed=counts, win_tile=kind_of("5s"), tianhu=True, dihu=True)
    with pytest.raises(ValueError, match="void_suit"):
        WinContext(concealed=counts, win_tile=kind_of("5s"), void_suit=3)
    with pytest.raises(ValueError, match="0-4"):
        five = list(parse_counts("1111m 456m 789m 555s"))
        five[0] += 1
        score_win("chengdu", WinContext(concealed=tuple(five), win_tile=kind_of("1m")))
    across = WinContext(  # a pong of 9m and two more 9m in hand: five copies spread over hand and melds
        concealed=tuple(parse_counts("123m 567m 99m 222s")), win_tile=kind_of("2s"), melds=(parse_meld("pong 9m"),)
    )
    with pytest.raises(ValueError, match="5 copies of 9m in its concealed tiles and melds"):
        score_win("chengdu", across)
    short = tuple(parse_counts("123m 456m 789m 55s"))
    with pytest.raises(ValueError, match="holds 14 tiles"):
        score_win("chengdu", WinContext(concealed=short, win_tile=kind_of("5s")))


def test_tingyong_kinds_wrap_within_the_suit():
    assert tingyong_kinds(kind_of("5s")) == (kind_of("4s"), kind_of("6s"))
    assert tingyong_kinds(kind_of("1m")) == (kind_of("2m"), kind_of("9m"))
    assert tingyong_kinds(kind_of("9p")) == (kind_of("1p"), kind_of("8p"))
    with pytest.raises(ValueError, match="only 8"):
        tingyong_kinds(kind_of("5s"), 4)


# ---- engine helpers ------------------------------------------------------------------------------------------


def test_can_win_matches_score_win():
    assert can_win("chengdu", _ctx("123m 456m 789m 234s 55s", "5s", void_suit=1))
    assert not can_win("chengdu", _ctx("123m 456m 789m 234s 59s", "9s"))
    assert not can_win("chengdu", _ctx("123m 456m 789m 234s 55s", "5s", void_suit=0))
    e1 = _ctx("123m 456m 789m 234s 55s", "2s", void_suit=1)
    assert not can_win("two_player", e1)
    assert can_win("two_player", _ctx("123m 456m 789m 234s 55s", "2s", void_suit=1, self_drawn=True))
    assert can_win("two_player", _ctx("123m 456m 789m 234s 55s", "2s", void_suit=1, robbing_kong=True))
    assert can_win("hongzhong", _ctx("5z5z5z5z 123m 456m 789m 1s", "1s"))


def test_winning_tiles_and_chajiao_values():
    hand = parse_counts("123m 456m 789m 34s 55s")
    assert winning_tiles("chengdu", hand, void_suit=1) == (kind_of("2s"), kind_of("5s"))
    values = discard_values("chengdu", hand, void_suit=1)
    assert {tile_code(k): r.payment for k, r in values.items()} == {"2s": 1, "5s": 1}
    # C12: S1 waits 1s/9s on 清一色 -> 4
    s1 = parse_counts("234s 567s 888s 11s 99s")
    assert winning_tiles("chengdu", s1, void_suit=1) == (kind_of("1s"), kind_of("9s"))
    best = best_discard_value("chengdu", s1, void_suit=1)
    assert best is not None and best.payment == 4 and best.breakdown == {"qing_yi_se": 2}
    assert chajiao_value("chengdu", s1, void_suit=1) == 4
    assert best_discard_value("chengdu", parse_counts("123m 456m 789m 35s 59s"), void_suit=1) is None
    # two-player readiness is a question of shape: a 平胡 wait is worth 1 in 查大叫
    assert chajiao_value("two_player", hand, void_suit=1) == 1


def test_chajiao_min_mode_and_fifth_copy_waits():
    # 1111m + three complete sets: the only wait is a fifth 1m (虚听, AMB-74) -> not ready by default
    hand = parse_counts("1111m 234s 567s 789s")
    assert winning_tiles("chengdu", hand, void_suit=1) == ()
    assert chajiao_value("chengdu", hand, void_suit=1) is None
    relaxed = load_variant("chengdu", ready_excludes_fifth_tile=False)
    assert winning_tiles(relaxed, hand, void_suit=1) == (kind_of("1m"),)
    assert set(discard_values(relaxed, hand, void_suit=1)) == {kind_of("1m")}
    # waits 5m, 1s (1111s: 111s + 123s, one 根 -> 2), 4s and 7s (-> 1)
    two_values = parse_counts("111s 23s 456s 789s 55m")
    assert winning_tiles("chengdu", two_values, void_suit=1) == tuple(map(kind_of, ("5m", "1s", "4s", "7s")))
    assert chajiao_value("chengdu", two_values, void_suit=1) == 2
    assert chajiao_value(load_variant("chengdu", chadajiao="min"), two_values, void_suit=1) == 1


def test_discard_values_skip_wildcards_and_exclude_situational_fans():
    hand = parse_counts("234m 567m 11s 789s 4s 5z")
    values = discard_values("hongzhong", hand, void_suit=1)
    assert kind_of("5z") not in values
    assert kind_of("5z") in winning_tiles("hongzhong", hand, void_suit=1)
    assert all("zi_mo" not in r.breakdown for r in values.values())


# ---- interpretation enumeration vs brute force --------------------------------------------------------------

_SUIT_FLAG = (FLAG_SUIT_M, FLAG_SUIT_P, FLAG_SUIT_S)


def _brute_decompositions(counts: list[int], sets: int, seven: bool) -> set[tuple]:
    """Every decomposition of a natural hand (independent of envs.scoring.interpret)."""
    out: set[tuple] = set()

    def rec(c: list[int], groups: list[tuple[str, int]], sets_left: int, pair_left: int) -> None:
        i = next((k for k in range(34) if c[k]), None)
        if i is None:
            if sets_left == 0 and pair_left == 0:
                out.add(tuple(sorted(groups)))
            return
        if c[i] >= 3 and sets_left:
            c[i] -= 3
            rec(c, [*groups, ("triplet", i)], sets_left - 1, pair_left)
            c[i] += 3
        if c[i] >= 2 and pair_left:
            c[i] -= 2
            rec(c, [*groups, ("pair", i)], sets_left, 0)
            c[i] += 2
        if sets_left and i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            rec(c, [*groups, ("run", i)], sets_left - 1, pair_left)
            for k in (i, i + 1, i + 2):
                c[k] += 1

    rec(list(counts), [], sets, 1)
    if seven and all(x % 2 == 0 for x in counts) and sum(counts) == 14:
        out.add(tuple(sorted(("pair", k) for k in range(34) for _ in range(counts[k] // 2))))
    return out


def _brute_flags(groups: tuple, melds, marked: int | None) -> int:
    flags = 0
    every = [(kind, tile) for kind, tile in groups] + [("run" if m.is_run else "triplet", m.tile) for m in melds]
    for kind, tile in every:
        tiles = [tile, tile + 1, tile + 2] if kind == "run" else [tile]
        if kind == "run":
            flags |= FLAG_RUN
        if not any(t < 27 and t % 9 in (0, 8) for t in tiles):
            flags |= FLAG_GROUP_NO_TERMINAL
        if kind == "triplet" and tile == marked:
            flags |= FLAG_MARKED_TRIPLET
        for t in tiles:
            flags |= _SUIT_FLAG[t // 9] if t < 27 else FLAG_HONOR
            flags |= FLAG_TERMINAL if t < 27 and t % 9 in (0, 8) else FLAG_SIMPLE
            if not (t < 27 and t % 9 in (1, 4, 7)):
                flags |= FLAG_NOT_JIANG
    return flags


def _brute_best(cfg, counts: list[int], melds, win: int, void: int | None, self_drawn: bool, indicator=None):
    """Best (doublings, payment) by enumerating every wildcard identity (hongzhong / yibin, no cap)."""
    wild = (31,) if cfg.wild == "hongzhong" else tingyong_kinds(indicator)
    naturals = [0 if k in wild else c for k, c in enumerate(counts)]
    if void is not None and any(naturals[void * 9 : void * 9 + 9]):
        return None
    n_wild = sum(counts[k] for k in wild)
    meld_counts = [0] * 34
    for m in melds:
        for k in m.represented():
            meld_counts[k] += 1
    allowed = [k for k in range(27) if void is None or k // 9 != void]
    table = FAN_TABLES[cfg.fan_table]
    marked = indicator if cfg.fan_table == "yibin" else None
    win_ctx = WinContext(tuple(counts), win, tuple(melds), self_drawn=self_drawn)
    best = None
    for combo in itertools.combinations_with_replacement(allowed, n_wild):
        final = list(naturals)
        for k in combo:
            final[k] += 1
        if any(final[k] + meld_counts[k] > 4 for k in range(34)):
            continue
        gen = sum(1 for k in range(34) if final[k] + meld_counts[k] == 4)
        for groups in _brute_decompositions(final, 4 - len(melds), not melds):
            shape = Shape.SEVEN_PAIRS if len(groups) == 7 else Shape.STANDARD
            x = PatternContext(
                shape=shape,
                flags=_brute_flags(groups, melds, marked if shape is Shape.STANDARD else None),
                gen=gen,
                win=win_ctx,
                wild_tiles=n_wild,
            )
            val = evaluate(cfg, table, x)
            d = val.doublings + (1 if self_drawn else 0)
            pay = min(1 << d, 1 << cfg.cap_doublings) if cfg.cap_doublings is not None else 1 << d
            key = (d, pay)
            if best is None or key > best:
                best = key
    return best


@st.composite
def complete_hands(draw, *, max_melds: int = 2):
    """A random complete 14-tile hand over two suits: (kinds incl. win tile, melds, win tile, void suit)."""
    void = draw(st.integers(0, 2))
    suits = [s for s in range(3) if s != void]
    counts = [0] * 34
    melds = []
    n_melds = draw(st.integers(0, max_melds))
    seven = n_melds == 0 and draw(st.integers(0, 5)) == 0
    tiles: list[int] = []
    if seven:
        for _ in range(7):
            k = draw(st.sampled_from([s * 9 + r for s in suits for r in range(9)]))
            assume(counts[k] <= 2)
            counts[k] += 2
            tiles += [k, k]
    else:
        for index in range(4):
            suit = draw(st.sampled_from(suits))
            if draw(st.booleans()) or index < n_melds:
                k = suit * 9 + draw(st.integers(0, 8))
                assume(counts[k] <= 1)
                if index < n_melds:
                    kind = draw(st.sampled_from(["pong", "kong", "ankong", "bukong"]))
                    assume(kind == "pong" or counts[k] == 0)
                    counts[k] += 4 if kind != "pong" else 3
                    melds.append(parse_meld(f"{kind} {tile_code(k)}"))
                    continue
                counts[k] += 3
                tiles += [k, k, k]
            else:
                k = suit * 9 + draw(st.integers(0, 6))
                assume(all(counts[k + j] <= 3 for j in range(3)))
                for j in range(3):
                    counts[k + j] += 1
                tiles += [k, k + 1, k + 2]
        k = draw(st.sampled_from([s * 9 + r for s in suits for r in range(9)]))
        assume(counts[k] <= 2)
        counts[k] += 2
        tiles += [k, k]
    win = draw(st.sampled_from(tiles))
    return tiles, melds, win, void


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@_SETTINGS
@given(hand=complete_hands(), data=st.data(), self_drawn=st.booleans())
def test_permuting_tile_order_never_changes_the_result(hand, data, self_drawn):
    tiles, melds, win, _ = hand
    order = data.draw(st.permutations(range(len(tiles) - 1)))
    melds_s = [str(m) for m in melds]
    base = score_hand("chengdu", concealed_string(tiles, win), melds_s, tile_code(win), self_drawn=self_drawn)
    shuffled = score_hand(
        "chengdu", concealed_string(tiles, win, order), list(reversed(melds_s)), tile_code(win), self_drawn=self_drawn
    )
    assert base.is_win
    assert (base.doublings, base.payment, base.breakdown) == (shuffled.doublings, shuffled.payment, shuffled.breakdown)


@_SETTINGS
@given(hand=complete_hands(), self_drawn=st.booleans(), variant=st.sampled_from(["chengdu", "hongzhong", "xueliu"]))
def test_a_hand_with_a_void_tile_is_never_a_win(hand, self_drawn, variant):
    tiles, melds, win, void = hand
    concealed = concealed_string(tiles, win)
    present = {k // 9 for k in tiles} | {m.tile // 9 for m in melds}
    for suit in present:
        r = score_hand(variant, concealed, [str(m) for m in melds], tile_code(win), self_drawn=self_drawn,
                       void_suit="mps"[suit])  # fmt: skip
        assert not r.is_win and r.reason == "void_suit"
    ok = score_hand(variant, concealed, [str(m) for m in melds], tile_code(win), void_suit="mps"[void])
    assert ok.is_win


_FLAGS_ON = [
    ("chengdu", {"enable_menqing": True}),
    ("chengdu", {"enable_duanyao": True}),
    ("chengdu", {"enable_yaojiu_jiangdui": True}),
    ("chengdu", {"cap_doublings": None}),
    ("chengdu", {"jiang_jingou_stack": True}),
    ("hongzhong", {"hz_inherit_situational": True}),
    ("hongzhong", {"wild_counts_for_gen": True}),
    ("yibin", {"wild_counts_for_gen": True}),
]


@_SETTINGS
@given(
    hand=complete_hands(),
    flag=st.sampled_from(_FLAGS_ON),
    self_drawn=st.booleans(),
    situation=st.sampled_from([{}, {"after_kong": True}, {"last_tile": True}]),
    reds=st.integers(0, 2),
)
def test_adding_a_pattern_flag_never_lowers_the_value(hand, flag, self_drawn, situation, reds):
    tiles, melds, win, void = hand
    variant, on = flag
    off = {key: (False if value is True else 3) for key, value in on.items()}
    kwargs = {"void_suit": "mps"[void], "self_drawn": self_drawn, **situation}
    concealed_tiles = list(tiles)
    if variant == "yibin":
        kwargs["benjin"] = "5m" if void != 0 else "5p"
        wild = tingyong_kinds(kind_of(kwargs["benjin"]))
    else:
        wild = (31,)
    assume(all(m.tile not in wild for m in melds))
    if variant != "chengdu":  # swap up to two non-winning tiles for wildcards
        concealed_tiles.remove(win)
        for i in range(min(reds, len(concealed_tiles))):
            concealed_tiles[i] = wild[i % len(wild)]
        concealed_tiles.append(win)
        assume(all(concealed_tiles.count(w) + sum(m.tile == w for m in melds) * 3 <= 4 for w in wild))
        if variant == "yibin":
            benjin = kind_of(kwargs["benjin"])
            assume(concealed_tiles.count(benjin) + sum(m.size for m in melds if m.tile == benjin) <= 3)
    concealed = concealed_string(concealed_tiles, win)
    ms = [str(m) for m in melds]
    r_on = score_hand(load_variant(variant, **on), concealed, ms, tile_code(win), **kwargs)
    r_off = score_hand(load_variant(variant, **off), concealed, ms, tile_code(win), **kwargs)
    assert r_on.is_win == r_off.is_win
    if r_on.is_win:
        assert r_on.doublings >= r_off.doublings
        assert r_on.payment >= r_off.payment


@_SETTINGS
@given(hands=st.lists(complete_hands(), min_size=2, max_size=4), self_drawn=st.booleans(),
       variant=st.sampled_from(["chengdu", "two_player", "xueliu", "hongzhong", "chiyu"]))  # fmt: skip
def test_payment_is_monotone_in_doublings(hands, self_drawn, variant):
    results = []
    for tiles, melds, win, void in hands:
        concealed = concealed_string(tiles, win)
        r = score_hand(variant, concealed, [str(m) for m in melds], tile_code(win), self_drawn=self_drawn,
                       void_suit="mps"[void])  # fmt: skip
        assert r.is_win or (variant == "two_player" and not self_drawn)
        if r.is_win:
            results.append(r)
    for a, b in itertools.combinations(results, 2):
        if a.doublings < b.doublings:
            assert a.payment <= b.payment
        if a.doublings == b.doublings:
            assert a.payment == b.payment


@st.composite
def near_complete_wild_hands(draw, *, max_wilds: int = 3, variant: str = "hongzhong"):
    tiles, melds, win, void = draw(complete_hands())
    tiles = list(tiles)
    tiles.remove(win)
    n_wild = draw(st.integers(1, max_wilds))
    if variant == "hongzhong":
        wild, indicator = (31,), None
    else:
        indicator = draw(st.sampled_from([k for k in range(27)]))
        wild = tingyong_kinds(indicator)
    positions = draw(st.lists(st.integers(0, len(tiles) - 1), min_size=n_wild, max_size=n_wild, unique=True))
    for i, pos in enumerate(positions):
        tiles[pos] = wild[i % len(wild)]
    if draw(st.booleans()):  # perturb one tile: the hand may stop being complete
        pos = draw(st.integers(0, len(tiles) - 1))
        tiles[pos] = draw(st.sampled_from([k for k in range(27) if k // 9 != void]))
    if draw(st.integers(0, 3)) == 0:
        win = wild[0]
    physical = [tiles.count(k) + (win == k) + sum(m.size for m in melds if m.tile == k) for k in range(34)]
    if indicator is not None:
        physical[indicator] += 1
    assume(max(physical) <= 4)
    assume(all(m.tile not in wild for m in melds))
    assume(sum(physical[k] for k in wild) <= max_wilds + 1)
    return tiles, melds, win, void, indicator


def _check_against_brute_force(variant, hand, self_drawn):
    tiles, melds, win, void, indicator = hand
    cfg = load_variant(variant, cap_doublings=None)
    kwargs = {"void_suit": "mps"[void], "self_drawn": self_drawn or win in (31,)}
    if indicator is not None:
        kwargs["benjin"] = tile_code(indicator)
        if win in tingyong_kinds(indicator):
            kwargs["self_drawn"] = True
    r = score_hand(cfg, " ".join(tile_code(k) for k in tiles), [str(m) for m in melds], tile_code(win), **kwargs)
    counts = [0] * 34
    for k in [*tiles, win]:
        counts[k] += 1
    if cfg.wild == "hongzhong" and counts[31] == 4:
        return
    brute = _brute_best(cfg, counts, melds, win, void, kwargs["self_drawn"], indicator)
    if brute is None:
        assert not r.is_win
    else:
        assert r.is_win
        assert (r.doublings, r.payment) == brute


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(hand=near_complete_wild_hands(max_wilds=3), self_drawn=st.booleans())
def test_budgeted_recursion_equals_brute_force_hongzhong(hand, self_drawn):
    _check_against_brute_force("hongzhong", hand, self_drawn)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(hand=near_complete_wild_hands(max_wilds=2, variant="yibin"), self_drawn=st.booleans())
def test_budgeted_recursion_equals_brute_force_yibin(hand, self_drawn):
    _check_against_brute_force("yibin", hand, self_drawn)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(hand=near_complete_wild_hands(max_wilds=2))
def test_uncollapsed_enumeration_lists_every_reading(hand):
    """interpretations(collapse=False) yields exactly the (assignment, decomposition) pairs of brute force."""
    tiles, melds, win, void, _ = hand
    counts = [0] * 34
    for k in [*tiles, win]:
        counts[k] += 1
    n_wild = counts[31]
    naturals = list(counts)
    naturals[31] = 0
    assume(not any(naturals[void * 9 : void * 9 + 9]))
    allowed = [k for k in range(27) if k // 9 != void]
    meld_counts = [0] * 34
    for m in melds:
        for k in m.represented():
            meld_counts[k] += 1
    expected = set()
    for combo in itertools.combinations_with_replacement(allowed, n_wild):
        final = list(naturals)
        for k in combo:
            final[k] += 1
        if any(final[k] + meld_counts[k] > 4 for k in range(34)):
            continue
        expected |= _brute_decompositions(final, 4 - len(melds), not melds)
    spec = HandSpec(
        naturals=tuple(naturals),
        wilds=n_wild,
        melds=tuple(melds),
        allowed_mask=sum(1 << k for k in allowed),
    )
    readings = interpretations(spec, collapse=False)
    got = [tuple(sorted((g.kind.value, g.tile) for g in it.groups)) for it in readings]
    assert len(got) == len(set(got))
    assert set(got) == expected
    assert is_complete(spec) == bool(expected)
    for it in readings:
        assert sum(it.counts) == 14 - 3 * len(melds)
        assert [it.counts[k] - naturals[k] for k in range(34)] == [it.assignment.count(k) for k in range(34)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(hand=near_complete_wild_hands(max_wilds=3))
def test_is_complete_agrees_with_envs_hand(hand):
    hand_mod = pytest.importorskip("envs.scoring.shanten")
    tiles, melds, win, void, _ = hand
    counts = [0] * 34
    for k in [*tiles, win]:
        counts[k] += 1
    wilds = counts[31]
    counts[31] = 0
    meld_counts = [0] * 34
    for m in melds:
        for k in m.represented():
            meld_counts[k] += 1
    mask = sum(1 << k for k in range(27) if k // 9 != void)
    spec = HandSpec(naturals=tuple(counts), wilds=wilds, melds=tuple(melds), allowed_mask=mask)
    expected = hand_mod.is_winning(counts, wilds, allowed_mask=mask, meld_counts=meld_counts, seven_pairs=True)
    assert is_complete(spec) == expected


@settings(max_examples=300, deadline=None)
@given(
    flags=st.integers(0, ALL_FLAGS),
    gen=st.integers(0, 4),
    seven=st.sampled_from(list(Shape)),
    melds=st.lists(st.sampled_from(["pong 2m", "kong 9s", "ankong 1p", "bukong 5s", "pong 7m"]), max_size=4),
    situation=st.fixed_dictionaries(
        {
            "self_drawn": st.booleans(),
            "after_kong": st.booleans(),
            "last_tile": st.booleans(),
            "is_dealer": st.booleans(),
            "win_tile": st.integers(0, 33),
            "baohu": st.booleans(),
            "on_qinghu_discard": st.booleans(),
            "payer_baohu": st.booleans(),
            "red_kongs": st.integers(0, 2),
            "laizi_kongs": st.integers(0, 2),
        }
    ),
    wild_tiles=st.integers(0, 2),
    table=st.sampled_from(sorted(FAN_TABLES)),
)
def test_fan_tables_read_only_their_declared_flags(flags, gen, seven, melds, situation, wild_tiles, table):
    """The enumeration drops flag bits a table does not declare in ``reads``: its value must not depend on them."""
    shape = seven if not melds else Shape.STANDARD
    cfg = load_variant("chengdu", enable_menqing=True, enable_duanyao=True)
    fan_table = FAN_TABLES[table]
    ms = tuple(parse_meld(m) for m in dict.fromkeys(melds))
    assume(not (situation["on_qinghu_discard"] and situation["self_drawn"]))  # 请胡炮 is a discard win
    concealed = tuple(int(k == situation["win_tile"]) for k in range(34))
    win = WinContext(concealed, melds=ms, **situation)
    full = PatternContext(shape, flags, gen, win, wild_tiles)
    reduced = PatternContext(shape, flags & fan_table.reads, gen, win, wild_tiles)
    assert evaluate(cfg, fan_table, full) == evaluate(cfg, fan_table, reduced)


def test_eight_tingyong_enumeration_is_small():
    """Budgeted recursion: eight 听用 collapse to a handful of readings (no identity enumeration)."""
    allowed = sum(1 << k for k in range(27) if k // 9 != 1)
    spec = HandSpec(naturals=tuple(parse_counts("123m 77m 9m")), wilds=8, allowed_mask=allowed)
    readings = interpretations(spec)
    assert 0 < len(readings) < 200
    assert is_complete(spec)


def test_parse_tiles_roundtrip_helper():
    tiles = parse_tiles("123m 55s")
    assert concealed_string([*tiles, 4], 4) == "1m 2m 3m 5s 5s"
