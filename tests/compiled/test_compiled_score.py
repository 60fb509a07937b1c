"""The compiled scorer (envs/compiled/score.py) equals the Python scorer and settlement, field by field.

Random complete and near-complete hands (0-4 红中, 0-4 melds including kongs and four-kong hands, every void suit,
every context flag, dealer or not) for the ``chengdu``, ``hongzhong`` and ``mahjongsoul`` (赤羽 ``chiyu``, han) fan
tables and the flag variations of the compiled presets: ``CompiledScorer.score`` == ``judge.score`` (``is_win``,
``payment``, ``doublings or 0``) and ``CompiledScorer.ready`` == ``settlement.ready_value`` on 13-tile hands (ready
or not).  Seeded.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from envs.compiled import score as S
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG, NK
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import RED
from envs.scoring import judge
from envs.scoring.settlement import PlayerEnd, ready_value

_MELD_KIND = {M_PONG: MeldKind.PONG, M_KONG: MeldKind.KONG, M_ANKONG: MeldKind.ANKONG, M_BUKONG: MeldKind.BUKONG}

CONFIGS = {
    "chengdu": ("chengdu", {}),
    "xueliu": ("xueliu", {}),
    "hongzhong": ("hongzhong", {}),
    "cd_flags": (
        "chengdu",
        {
            "enable_menqing": True,
            "enable_duanyao": True,
            "jiang_jingou_stack": False,
            "longqidui_mode": "fixed4_incl_gen",
            "tiandihu": "cap",
            "zimo_bonus": "jiafan",
            "chadajiao": "min",
            "ready_excludes_fifth_tile": False,
        },
    ),
    "cd_noyj": (
        "chengdu",
        {
            "enable_yaojiu_jiangdui": False,
            "enable_duanyao": True,
            "longqidui_mode": "ms",
            "tiandihu": "cap_plus_1",
            "zimo_jiadi_after_cap": False,
            "cap_doublings": 4,
            "base_unit": 2,
            "allow_pinghu_on_discard": False,
            "huazhu_definition": "three_suits",
        },
    ),
    "cd_uncapped": ("chengdu", {"cap_doublings": None, "zimo_bonus": "none", "tiandihu": "fixed3"}),
    "hz_flags": (
        "hongzhong",
        {
            "hz_qidui_doublings": 5,
            "hz_yaojiu_definition": "all_terminals",
            "hz_inherit_situational": False,
            "tiandihu": "cap",
            "cap_doublings": 5,
            "zimo_bonus": "jiadi",
            "zimo_jiadi_after_cap": False,
            "chadajiao": "min",
            "ready_excludes_fifth_tile": False,
        },
    ),
    "hz_hard": (
        "hongzhong",
        {
            "wild_counts_for_gen": False,
            "longqidui_mode": "qidui_plus_gen",
            "hz_four_red_instant": False,
            "tiandihu": "off",
            "hz_qidui_doublings": 2,
            "cap_doublings": 3,
        },
    ),
    "hz_ms": (
        "hongzhong",
        {"longqidui_mode": "ms", "tiandihu": "ms6", "hz_tiandihu_fixed": 6, "huazhu_definition": "three_suits"},
    ),
    "hz_chengdu_table": ("hongzhong", {"fan_table": "chengdu", "cap_doublings": 3, "enable_menqing": True}),
    # 赤羽 (mahjongsoul han table): the preset (天胡/地胡 6-han base rows, +1000 after the 32000 cap) and variations
    "chiyu": ("chiyu", {}),
    "ms_flags": (
        "chiyu",
        {
            "zimo_bonus": "jiafan",
            "longqidui_mode": "qidui_plus_gen",  # no 龙七对 rows: 七对 + 根
            "tiandihu": "cap",  # fixed hands: 天胡 = cap (5 han), 地胡 4 han
            "cap_doublings": 5,  # 2^5 units = 32000: the lower of this and point_cap binds
            "point_cap": 64000,
            "chadajiao": "min",
            "ready_excludes_fifth_tile": False,
        },
    ),
    "ms_low_cap": (
        "chiyu",
        {
            "point_cap": 8000,
            "zimo_jiadi_after_cap": False,
            "tsumo_bonus_points": 500,
            "longqidui_mode": "fixed4_incl_gen",
            "tiandihu": "cap_plus_1",  # 7 han fixed, capped by point_cap only
            "allow_pinghu_on_discard": False,  # a 1-han (multiplier 1) discard win is refused
            "huazhu_definition": "three_suits",
        },
    ),
    "ms_uncapped": (
        "chiyu",
        {"point_cap": 1 << 40, "base_unit": 1, "tsumo_bonus_points": 1, "tiandihu": "fixed3", "zimo_bonus": "none"},
    ),
    "ms_hongzhong": (
        "chiyu",
        {
            "wild": "hongzhong",
            "extra_tiles": [RED] * 4,
            "tiandihu": "off",
            "hz_tiandihu_fixed": 6,  # 四红中: 2^6 units, not capped (scoring._prepare)
            "point_cap": 16000,
        },
    ),
    "ms_hz_hard": (
        "chiyu",
        {"wild": "hongzhong", "extra_tiles": [RED] * 4, "wild_counts_for_gen": False, "hz_four_red_instant": False},
    ),
}


def _cfg(name: str):
    base, overrides = CONFIGS[name]
    return load_variant(base).replace(**overrides) if overrides else load_variant(base)


def _random_hand(rng: random.Random, wild: bool, concealed_size: int, kongs: float = 0.0):
    """(counts, melds, void): a complete hand of ``concealed_size`` concealed tiles plus its melds, often perturbed;
    with probability ``kongs`` a four-kong hand (十八罗汉)."""
    while True:
        void = rng.choice([None, 0, 1, 2, 2])
        suits = [s for s in range(3) if s != void] if rng.random() < 0.9 else [0, 1, 2]
        if rng.random() < 0.5:
            suits = rng.sample(suits, 1)  # a full flush is common enough to matter
        kinds = [s * 9 + r for s in suits for r in range(9)]
        if rng.random() < 0.3:  # terminal-heavy / 2-5-8-heavy hands
            pick = (0, 8) if rng.random() < 0.5 else (1, 4, 7)
            kinds = [k for k in kinds if k % 9 in pick] or kinds
        own = [0] * NK
        melds = []
        four_kongs = kongs > 0 and rng.random() < kongs
        n_melds = 4 if four_kongs else rng.choice([0, 0, 0, 1, 2, 3, 4])
        for _ in range(n_melds):
            kinds_of_meld = [M_KONG, M_ANKONG, M_BUKONG] if four_kongs else [M_PONG, M_KONG, M_ANKONG, M_BUKONG, M_PONG]
            kind = rng.choice(kinds_of_meld)
            tile = rng.choice(kinds)
            size = 3 if kind == M_PONG else 4
            if own[tile]:
                continue
            own[tile] += size
            melds.append((kind, tile, -1 if kind == M_ANKONG else rng.randrange(4)))
        counts = [0] * NK
        tiles_left = concealed_size - 3 * len(melds)
        if not melds and rng.random() < 0.3:  # seven pairs (fours allowed)
            for _ in range(40):
                if sum(counts) >= tiles_left:
                    break
                k = rng.choice(kinds)
                n = 4 if rng.random() < 0.15 and sum(counts) + 4 <= tiles_left else 2
                if counts[k] + n <= 4:
                    counts[k] += n
        else:
            pair = rng.choice(kinds)
            counts[pair] += 2
            while sum(counts) < tiles_left:
                k = rng.choice(kinds)
                if rng.random() < 0.5 and k % 9 <= 6:
                    for j in range(3):
                        counts[k + j] += 1
                else:
                    counts[k] += 3
        if wild:
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 4])):
                held = [k for k in range(27) if counts[k]]
                if not held:
                    break
                k = rng.choice(held)
                counts[k] -= 1
                counts[RED] += 1
        if rng.random() < 0.35:  # perturb: one tile becomes another kind
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[rng.choice(kinds + ([RED] if wild else []))] += 1
        if sum(counts) != tiles_left or tiles_left < 2:
            continue
        if any(counts[k] + own[k] > 4 for k in range(NK)) or counts[RED] > 4:
            continue
        return counts, melds, void


def _meld_objects(melds):
    return tuple(Meld(_MELD_KIND[kind], tile, from_seat=None if src < 0 else src) for kind, tile, src in melds)


def _situation(rng: random.Random) -> dict[str, bool]:
    robbing = rng.random() < 0.1
    self_drawn = not robbing and rng.random() < 0.5
    out = {
        "self_drawn": self_drawn,
        "robbing_kong": robbing,
        "after_kong": not robbing and rng.random() < 0.2,
        "last_tile": not robbing and rng.random() < 0.15,
        "tianhu": self_drawn and rng.random() < 0.05,
        "dihu": False,
        "paid_as_discard": self_drawn and rng.random() < 0.15,
    }
    out["dihu"] = not out["tianhu"] and rng.random() < 0.05
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_score_equals_python(name: str) -> None:
    cfg = _cfg(name)
    scorer = S.CompiledScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"score-{name}")
    wild = cfg.wild == "hongzhong"
    wins = 0
    situations: Counter[str] = Counter()
    for _ in range(600):
        counts, melds, void = _random_hand(rng, wild, 14, kongs=0.05)
        held = [k for k in range(NK) if counts[k]]
        tile = rng.choice(held)
        flags = _situation(rng)
        dealer = rng.random() < 0.25
        want = judge.score(cfg, counts, _meld_objects(melds), tile, void=void, dealer=dealer, **flags)
        got = scorer.score(
            np.array(counts, dtype=np.int32), S.meld_array(melds), len(melds), tile, void=-1 if void is None else void,
            **flags,
        )  # fmt: skip
        assert got == (want.is_win, want.payment, want.doublings or 0), (counts, melds, tile, void, flags, want)
        wins += want.is_win
        if want.is_win:
            situations.update(key for key, on in flags.items() if on)
            situations["discard"] += not flags["self_drawn"] and not flags["robbing_kong"]
    assert wins > 150  # the generator makes mostly complete hands
    for key in ("self_drawn", "discard", "robbing_kong", "after_kong", "last_tile", "tianhu", "dihu"):
        assert situations[key] > 0, (key, situations)  # every situation is compared on wins


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ready_value_equals_settlement(name: str) -> None:
    cfg = _cfg(name)
    scorer = S.CompiledScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"ready-{name}")
    wild = cfg.wild == "hongzhong"
    ready = four_red = 0
    for _ in range(250):
        counts, melds, void = _random_hand(rng, wild, 14, kongs=0.05)
        held = [k for k in range(NK) if counts[k]]
        counts[rng.choice(held)] -= 1  # a 13-tile hand: often ready
        want = ready_value(
            cfg,
            PlayerEnd(seat=0, won_ever=False, concealed=tuple(counts), melds=_meld_objects(melds), void_suit=void),
        )
        got = scorer.ready(
            np.array(counts, dtype=np.int32), S.meld_array(melds), len(melds), -1 if void is None else void
        )
        four_red += counts[RED] >= 4
        assert got == (S.NOT_READY if want is None else want), (counts, melds, void, want, got)
        ready += want is not None
    assert ready > 60
    assert four_red > 10 or not wild


def _counts_of(*kinds: int) -> np.ndarray:
    """34 counts holding ``kinds`` (repeated kinds count twice)."""
    out = np.zeros(NK, dtype=np.int32)
    for k in kinds:
        out[k] += 1
    return out


def test_scores_fixed_examples() -> None:
    """A few hands worked by hand (RULES §4.1.2, §4.3.2): the tables, not only agreement with Python."""
    cd = S.CompiledScorer.for_config(load_variant("chengdu"))
    hz = S.CompiledScorer.for_config(load_variant("hongzhong"))
    assert cd is not None and hz is not None

    none = S.meld_array([])
    # 清一色 all in 万 with one run: 2 doublings, capped at 3, discard win -> 4
    hand = _counts_of(0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8)
    assert cd.score(hand, none, 0, 8, void=1, self_drawn=False) == (True, 4, 2)
    # same on a self-draw: 自摸加底 after the cap -> 5
    assert cd.score(hand, none, 0, 8, void=1, self_drawn=True) == (True, 5, 2)
    # a void-suit tile is not a win
    assert cd.score(hand, none, 0, 8, void=0, self_drawn=True) == (False, 0, 0)
    # 红中: 七对 with one 红中 (3) + 自摸加番 (1) = 4 doublings -> 16; 四红中 -> 256
    seven = _counts_of(0, 0, 2, 2, 4, 4, 10, 10, 12, 12, 14, 14, 16, RED)
    assert hz.score(seven, none, 0, RED, void=2, self_drawn=True) == (True, 16, 4)
    assert hz.score(seven, none, 0, 16, void=2, self_drawn=False) == (True, 8, 3)
    four = _counts_of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, RED, RED, RED, RED)
    assert hz.score(four, none, 0, 9, void=2, self_drawn=True) == (True, 256, 8)
    # a discarded 红中 is dead
    assert hz.score(seven, none, 0, RED, void=2, self_drawn=False) == (False, 0, 0)


def test_scores_mahjongsoul_examples() -> None:
    """赤羽 hands worked by hand from RULES §4.6.1 / §4.6.2: P(h) = min(1000·2^(h-1), 32000), +1000 on a self-draw."""
    ms = S.CompiledScorer.for_config(load_variant("chiyu"))
    assert ms is not None

    none = S.meld_array([])
    # 无番和 (1 han): 1000 on a discard, 2000 on a self-draw (1000 + 1000)
    plain = _counts_of(0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 16, 16)
    assert ms.score(plain, none, 0, 16, void=2, self_drawn=False) == (True, 1000, 1)
    assert ms.score(plain, none, 0, 16, void=2, self_drawn=True) == (True, 2000, 1)
    # 杠上炮, 抢杠, 海底捞月 (+ the self-draw bonus): +1 han each
    assert ms.score(plain, none, 0, 16, void=2, self_drawn=False, after_kong=True) == (True, 2000, 2)
    assert ms.score(plain, none, 0, 16, void=2, self_drawn=False, robbing_kong=True) == (True, 2000, 2)
    assert ms.score(plain, none, 0, 16, void=2, self_drawn=True, last_tile=True) == (True, 3000, 2)
    # 清一色 (3 han): 4000
    flush = _counts_of(0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8)
    assert ms.score(flush, none, 0, 8, void=1, self_drawn=False) == (True, 4000, 3)
    # 清对 (4 han, not 清一色 3 + 对对和 2): 8000
    qd = _counts_of(0, 0, 0, 2, 2, 2, 4, 4, 4, 6, 6, 6, 8, 8)
    assert ms.score(qd, none, 0, 8, void=1, self_drawn=False) == (True, 8000, 4)
    # 龙七对 (4 han, its 根 included) + a second 根: 5 han = 16000
    lqd = _counts_of(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 10, 10, 12, 12)
    assert ms.score(lqd, none, 0, 12, void=2, self_drawn=False) == (True, 16000, 5)
    # 清龙七对 (6 han, its 根 included) on a self-draw: 32000 + 1000
    qlqd = _counts_of(0, 0, 0, 0, 2, 2, 4, 4, 5, 5, 6, 6, 8, 8)
    assert ms.score(qlqd, none, 0, 8, void=1, self_drawn=True) == (True, 33000, 6)
    # 天和 (ms6: a 6-han base row) + 根 = 7 han: 32000 + 1000
    tian = _counts_of(0, 1, 2, 3, 4, 5, 9, 9, 9, 9, 10, 11, 16, 16)
    assert ms.score(tian, none, 0, 16, void=2, self_drawn=True, tianhu=True) == (True, 33000, 7)
    # 十八罗汉 (6 han, its four 根 consumed; the base row is the highest one, not 金钩钓 3 + 4 根): 32000
    kongs = S.meld_array([(M_KONG, 0, 1), (M_ANKONG, 10, -1), (M_BUKONG, 12, 2), (M_KONG, 14, 3)])
    assert ms.score(_counts_of(4, 4), kongs, 4, 4, void=2, self_drawn=False) == (True, 32000, 6)
    # a void-suit tile is not a win
    assert ms.score(flush, none, 0, 8, void=0, self_drawn=True) == (False, 0, 0)
    # 查大叫: 1m 2m 3m 4m 5m 6m 1p 2p 3p 4p 5p 6p 8p waits on 8p (无番和 1000)
    assert ms.ready(_counts_of(0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 16), none, 0, 2) == 1000


def test_for_config_declines_what_it_does_not_score() -> None:
    for cfg in (
        load_variant("chiyu").replace(tiandihu="cap", cap_doublings=1),  # 地胡 0 han: Python cannot price it
        load_variant("chiyu").replace(point_cap=-1),
        load_variant("yibin"),
        load_variant("wuhan"),
        load_variant("chengdu").replace(fan_table="wiki_xueliu"),
        load_variant("chengdu").replace(dead_wait_counts_as_ready=False),
        load_variant("hongzhong").replace(hz_red_discard_claimable=True),
        load_variant("hongzhong").replace(wild_ignores_four_copy_limit=True),
    ):
        assert S.CompiledScorer.for_config(cfg) is None, cfg.name
        assert S.unsupported(cfg)
        with pytest.raises(ValueError, match="compiled scorer does not cover"):
            S.rule_vector(cfg)
    for name in ("chengdu", "xueliu", "hongzhong", "chiyu"):
        assert S.CompiledScorer.for_config(load_variant(name)) is not None


def test_ledger_falls_back_to_python() -> None:
    """The ledger scores with the compiled scorer where it covers the configuration, else with the Python one."""
    from envs.compiled.ledger import Ledger
    from envs.compiled.support import win_table

    for cfg in (load_variant("chengdu").replace(fan_table="yibin"), load_variant("chiyu").replace(point_cap=-1)):
        assert Ledger(cfg, win_table()).scorer is None
    for name in ("chengdu", "xueliu", "hongzhong", "chiyu"):
        ledger = Ledger(load_variant(name), win_table())
        assert ledger.scorer is not None and ledger.scorer.cfg is ledger.cfg
