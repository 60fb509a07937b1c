"""The compiled scorer (envs/compiled/score.py) equals the Python scorer and settlement, field by field.

Random complete and near-complete hands (0-4 红中, 0-4 melds including kongs, every void suit, every context flag,
dealer or not) for the ``chengdu`` and ``hongzhong`` fan tables and the flag variations of the compiled presets:
``CompiledScorer.score`` == ``judge.score`` (``is_win``, ``payment``, ``doublings or 0``) and ``CompiledScorer.ready``
== ``settlement.ready_value`` on 13-tile hands (ready or not).  Seeded.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import judge
from envs.compiled import score as S
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG, NK
from envs.config import load_variant
from envs.melds import Meld, MeldKind
from envs.settlement import PlayerEnd, ready_value
from envs.tiles import RED

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
}


def _cfg(name: str):
    base, overrides = CONFIGS[name]
    return load_variant(base).replace(**overrides) if overrides else load_variant(base)


def _random_hand(rng: random.Random, wild: bool, concealed_size: int):
    """(counts, melds, void): a complete hand of ``concealed_size`` concealed tiles plus its melds, often perturbed."""
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
        n_melds = rng.choice([0, 0, 0, 1, 2, 3, 4])
        for _ in range(n_melds):
            kind = rng.choice([M_PONG, M_KONG, M_ANKONG, M_BUKONG, M_PONG])
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
    for _ in range(600):
        counts, melds, void = _random_hand(rng, wild, 14)
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
    assert wins > 150  # the generator makes mostly complete hands


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ready_value_equals_settlement(name: str) -> None:
    cfg = _cfg(name)
    scorer = S.CompiledScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"ready-{name}")
    wild = cfg.wild == "hongzhong"
    ready = four_red = 0
    for _ in range(250):
        counts, melds, void = _random_hand(rng, wild, 14)
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


def test_scores_fixed_examples() -> None:
    """A few hands worked by hand (RULES §4.1.2, §4.3.2): the tables, not only agreement with Python."""
    cd = S.CompiledScorer.for_config(load_variant("chengdu"))
    hz = S.CompiledScorer.for_config(load_variant("hongzhong"))
    assert cd is not None and hz is not None

    def counts_of(*kinds: int) -> np.ndarray:
        out = np.zeros(NK, dtype=np.int32)
        for k in kinds:
            out[k] += 1
        return out

    none = S.meld_array([])
    # 清一色 all in 万 with one run: 2 doublings, capped at 3, discard win -> 4
    hand = counts_of(0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8)
    assert cd.score(hand, none, 0, 8, void=1, self_drawn=False) == (True, 4, 2)
    # same on a self-draw: 自摸加底 after the cap -> 5
    assert cd.score(hand, none, 0, 8, void=1, self_drawn=True) == (True, 5, 2)
    # a void-suit tile is not a win
    assert cd.score(hand, none, 0, 8, void=0, self_drawn=True) == (False, 0, 0)
    # 红中: 七对 with one 红中 (3) + 自摸加番 (1) = 4 doublings -> 16; 四红中 -> 256
    seven = counts_of(0, 0, 2, 2, 4, 4, 10, 10, 12, 12, 14, 14, 16, RED)
    assert hz.score(seven, none, 0, RED, void=2, self_drawn=True) == (True, 16, 4)
    assert hz.score(seven, none, 0, 16, void=2, self_drawn=False) == (True, 8, 3)
    four = counts_of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, RED, RED, RED, RED)
    assert hz.score(four, none, 0, 9, void=2, self_drawn=True) == (True, 256, 8)
    # a discarded 红中 is dead
    assert hz.score(seven, none, 0, RED, void=2, self_drawn=False) == (False, 0, 0)


def test_for_config_declines_what_it_does_not_score() -> None:
    for cfg in (
        load_variant("chiyu"),  # mahjongsoul table
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
    for name in ("chengdu", "xueliu", "hongzhong"):
        assert S.CompiledScorer.for_config(load_variant(name)) is not None


def test_ledger_falls_back_to_python() -> None:
    """The ledger scores with the compiled scorer where it covers the configuration, else with the Python one."""
    from envs.compiled.ledger import Ledger
    from envs.compiled.support import win_table

    for name in ("chiyu",):
        assert Ledger(load_variant(name), win_table()).scorer is None
    for name in ("chengdu", "xueliu", "hongzhong"):
        ledger = Ledger(load_variant(name), win_table())
        assert ledger.scorer is not None and ledger.scorer.cfg is ledger.cfg
