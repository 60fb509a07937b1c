"""The compiled 宜宾 scorer (envs/compiled/score_yibin.py) equals the Python scorer and settlement, field by field.

Random Yibin hands — every 本金 indicator, 0-8 听用 in the concealed hand, 0-4 melds (pongs, the three kongs, 飞 with
one or two 听用), every void suit or none, complete hands built from sets and a pair (or seven pairs) with tiles
swapped for 听用, 听用-only hands, 本金-heavy and one-suit hands, and near misses — in every context the Python
``WinContext`` accepts (self-draw, discard, 抢杠, 杠上花 / 杠上炮, 海底, 天胡 / 地胡, 和绝张, 点杠花 paid as a discard):
``CompiledYibinScorer.score`` == ``judge.score`` (``is_win``, ``payment``, ``doublings or 0``) and
``CompiledYibinScorer.ready`` == ``settlement.ready_value`` (the 查大叫 value) of 13-tile hands, for the preset and
flag variations.  Every fan row, fixed hand and refusal must occur.  Seeded.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import numpy as np
import pytest

from envs.compiled import layout as L
from envs.compiled import score_yibin as Y
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG, NK
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.scoring import judge
from envs.scoring.scorer import tingyong_kinds
from envs.scoring.settlement import PlayerEnd, ready_value

M_FEI = Y.M_FEI
_MELD_KIND = {
    M_PONG: MeldKind.PONG,
    M_KONG: MeldKind.KONG,
    M_ANKONG: MeldKind.ANKONG,
    M_BUKONG: MeldKind.BUKONG,
    M_FEI: MeldKind.FEI,
}

CONFIGS = {
    "yibin": {},
    "duidui2": {"yibin_duidui_doublings": 2},
    "fei2": {"yibin_fei_max_wild": 2, "longqidui_mode": "fixed4_incl_gen"},
    "cap_open": {"cap_doublings": None, "tiandihu": "cap", "longqidui_mode": "ms", "chadajiao": "min"},
    "units": {
        "yibin_wutingyong": "one_gen_plus_two_units",
        "zimo_bonus": "jiadi",
        "zimo_jiadi_after_cap": False,
        "cap_doublings": 3,
        "base_unit": 2,
        "enable_juezhang": True,
        "allow_pinghu_on_discard": False,
        "wild_counts_for_gen": False,
        "tiandihu": "fixed8",
        "huazhu_definition": "three_suits",
        "ready_excludes_fifth_tile": False,
        "yibin_fei_max_wild": 2,
    },
}

BASE_ROWS = {"dui_dui_hu", "qing_yi_se", "qi_dui", "jin_gou_diao", "qing_dui", "qing_qi_dui", "qing_jin_gou_diao"}
BONUS_ROWS = {
    "gen", "gang_shang_kai_hua", "gang_shang_pao", "qiang_gang_hu", "hai_di_lao_yue", "hai_di_pao", "he_jue_zhang",
    "ben_jin", "wu_ting_yong", "zi_mo", "long_qi_dui",
}  # fmt: skip
SITUATIONS = ("self_drawn", "robbing_kong", "after_kong", "last_tile", "tianhu", "dihu", "juezhang", "paid_as_discard")


def _cfg(name: str):
    overrides = CONFIGS[name]
    return load_variant("yibin").replace(**overrides) if overrides else load_variant("yibin")


def _meld_objects(melds) -> tuple[Meld, ...]:
    return tuple(
        Meld(_MELD_KIND[kind], tile, wilds=len(wk), from_seat=None if src < 0 else src, wild_kinds=tuple(wk))
        for kind, tile, src, wk in melds
    )


def _own(counts, melds) -> list[int]:
    """Physical copies held (``scoring._own_copies``): concealed, the melds' natural tiles, the 飞's 听用."""
    own = list(counts)
    for kind, tile, _, wk in melds:
        own[tile] += (4 if kind in (M_KONG, M_ANKONG, M_BUKONG) else 3) - len(wk)
        for w in wk:
            own[w] += 1
    return own


def _random_hand(rng: random.Random, fei_max: int):
    """``(counts, melds, indicator, void)``: a 14-tile hand (each meld counted as 3), complete before its 听用 swaps
    and often perturbed; within four physical copies of each kind."""
    while True:
        indicator = rng.randrange(27)
        wilds = tingyong_kinds(indicator)
        void = rng.choice([None, 0, 1, 2, 0, 1, 2])
        suits = [s for s in range(3) if s != void]
        if rng.random() < 0.3:
            suits = [rng.choice(suits)]  # one suit: 清一色 rows
        if void is not None and rng.random() < 0.04:
            suits.append(void)  # a void-suit tile: no win
        kinds = [s * 9 + r for s in suits for r in range(9)]
        favour = [indicator] if indicator // 9 in suits else []
        counts = [0] * NK
        melds = []
        n_melds = rng.choice([0, 0, 1, 1, 2, 3, 4, 4])
        for _ in range(n_melds):
            kind = rng.choice([M_PONG, M_PONG, M_KONG, M_ANKONG, M_BUKONG, M_FEI, M_FEI])
            tile = rng.choice(kinds + favour * 3)
            if tile in wilds or any(m[1] == tile for m in melds):
                continue
            wk: list[int] = []
            if kind == M_FEI:
                wk = [rng.choice(wilds) for _ in range(2 if fei_max >= 2 and rng.random() < 0.3 else 1)]
            melds.append((kind, tile, -1 if kind == M_ANKONG else rng.randrange(4), wk))
        if not melds and rng.random() < 0.25:  # 七对
            while sum(counts) < 14:
                k = rng.choice(kinds)
                counts[k] += 2
        else:
            for _ in range(4 - len(melds)):
                k = rng.choice(kinds + favour * 2)
                if rng.random() < 0.5 and k % 9 <= 6:
                    for j in range(3):
                        counts[k + j] += 1
                else:
                    counts[k] += 3
            counts[rng.choice(kinds)] += 2
        roll = rng.random()
        if roll < 0.08:  # every concealed tile a 听用 (a 听用-only hand)
            swaps = sum(counts)
        elif roll < 0.35:
            swaps = 0
        else:
            swaps = min(rng.choice([1, 1, 2, 2, 3, 4, 5, 6, 7, 8]), sum(counts))
        for _ in range(swaps):
            held = [k for k in range(NK) if counts[k] and k not in wilds]
            if not held:
                break
            counts[rng.choice(held)] -= 1
            counts[rng.choice(wilds)] += 1
        if rng.random() < 0.2:  # perturb: one tile becomes another kind
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[rng.choice(kinds + list(wilds))] += 1
        if sum(counts) + 3 * len(melds) != 14 or max(_own(counts, melds)) > 4:
            continue
        return counts, melds, indicator, void


def _situation(rng: random.Random, counts, wilds) -> tuple[int, dict]:
    """A winning tile (often a 听用 when one is held) and situation flags (some ``WinContext`` refuses)."""
    held = [k for k in range(NK) if counts[k]]
    held_wild = [k for k in held if k in wilds]
    tile = rng.choice(held_wild) if held_wild and rng.random() < 0.25 else rng.choice(held)
    self_drawn = rng.random() < 0.5
    tianhu = self_drawn and rng.random() < 0.05
    return tile, {
        "self_drawn": self_drawn,
        "robbing_kong": rng.random() < 0.1,
        "after_kong": rng.random() < 0.15,
        "last_tile": rng.random() < 0.12,
        "tianhu": tianhu,
        "dihu": not tianhu and rng.random() < 0.05,
        "juezhang": rng.random() < 0.1,
        "paid_as_discard": self_drawn and rng.random() < 0.1,
    }


def _arrays(counts, melds):
    triples, wilds = Y.yibin_meld_arrays(melds)
    return np.array(counts, dtype=np.int32), triples, wilds


@functools.cache
def _compare_scores(name: str, n: int = 1500) -> Counter:
    """Compare ``n`` random wins of configuration ``name`` with ``judge.score`` (once per process: the coverage
    test reuses the counts)."""
    cfg = _cfg(name)
    scorer = Y.CompiledYibinScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"yibin-score-{name}-{n}")
    seen: Counter = Counter()
    while seen["compared"] < n:
        counts, melds, indicator, void = _random_hand(rng, cfg.yibin_fei_max_wild)
        wilds = tingyong_kinds(indicator)
        tile, flags = _situation(rng, counts, wilds)
        try:
            want = judge.score(cfg, counts, _meld_objects(melds), tile, void=void, dealer=False, indicator=indicator,
                               **flags)  # fmt: skip
        except ValueError:
            seen["refused_context"] += 1
            continue
        c, m, w = _arrays(counts, melds)
        got = scorer.score(c, m, w, len(melds), tile, void=-1 if void is None else void, indicator=indicator, **flags)
        assert got == (want.is_win, want.payment, want.doublings or 0), (counts, melds, indicator, void, tile, flags,
                                                                          want)  # fmt: skip
        seen["compared"] += 1
        if want.is_win:
            seen["win"] += 1
            seen.update(want.breakdown)
            seen.update(f"situation:{key}" for key, on in flags.items() if on)
            seen[f"wilds:{counts[wilds[0]] + counts[wilds[1]] + sum(len(x[3]) for x in melds)}"] += 1
            if want.fixed:
                seen[f"fixed:{want.fixed}"] += 1
            if want.capped:
                seen["capped"] += 1
            if any(x[0] == M_FEI for x in melds):
                seen["fei"] += 1
        else:
            seen[f"reason:{want.reason}"] += 1
    return seen


@pytest.mark.parametrize("name", list(CONFIGS))
def test_score_equals_python(name: str) -> None:
    seen = _compare_scores(name)
    assert seen["win"] > 400, seen


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_score_equals_python_sweep(name: str) -> None:
    assert _compare_scores(name, 20000)["win"] > 5000


def _python_ready(cfg, counts, melds, indicator, void) -> int:
    player = PlayerEnd(0, False, tuple(counts), _meld_objects(melds), void, indicator)
    value = ready_value(cfg, player)
    return Y.NOT_READY if value is None else value


def _compare_ready(name: str, n: int) -> tuple[int, int]:
    cfg = _cfg(name)
    scorer = Y.CompiledYibinScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"yibin-ready-{name}-{n}")
    ready = not_ready = 0
    while ready + not_ready < n:
        counts, melds, indicator, void = _random_hand(rng, cfg.yibin_fei_max_wild)
        held = [k for k in range(NK) if counts[k]]
        counts[rng.choice(held)] -= 1  # a 13-tile hand: often ready
        if rng.random() < 0.3:  # one more tile of another kind: often not
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[rng.randrange(27)] += 1
            if max(_own(counts, melds)) > 4:
                continue
        want = _python_ready(cfg, counts, melds, indicator, void)
        c, m, w = _arrays(counts, melds)
        got = scorer.ready(c, m, w, len(melds), -1 if void is None else void, indicator)
        assert got == want, (counts, melds, indicator, void, want, got)
        ready += want != Y.NOT_READY
        not_ready += want == Y.NOT_READY
    return ready, not_ready


@pytest.mark.parametrize("name", ["yibin", "cap_open", "units"])
def test_ready_equals_settlement(name: str) -> None:
    ready, not_ready = _compare_ready(name, 150)
    assert ready > 40 and not_ready > 20


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_ready_equals_settlement_sweep(name: str) -> None:
    ready, not_ready = _compare_ready(name, 3000)
    assert ready > 800 and not_ready > 300


def test_every_row_and_situation_occurred() -> None:
    """Each fan row, fixed hand, situation, cap, refusal, 飞 and 听用 count (0-8) was compared on a real win."""
    seen: Counter = Counter()
    for name in CONFIGS:
        seen.update(_compare_scores(name))
    missing = sorted(r for r in BASE_ROWS | BONUS_ROWS if not seen[r])
    assert not missing, missing
    for key in SITUATIONS:
        assert seen[f"situation:{key}"] > 0, key
    for reason in ("incomplete", "void_suit", "wild_not_claimable", "min_fan_on_discard"):
        assert seen[f"reason:{reason}"] > 0, reason
    assert seen["fixed:tian_hu"] and seen["fixed:di_hu"] and seen["capped"] and seen["fei"]
    assert all(seen[f"wilds:{n}"] for n in range(9)), sorted(k for k in seen if k.startswith("wilds:"))


def _counts(*kinds: int) -> np.ndarray:
    out = np.zeros(NK, dtype=np.int32)
    for k in kinds:
        out[k] += 1
    return out


P, S = 9, 18  # 1p, 1s


def test_fixed_examples() -> None:
    """Hands worked by hand from RULES.md §4.4.2 (cap 5 doublings, 自摸 +1, 无听用 +2, 本金 +1, 天胡 64)."""
    yb = Y.CompiledYibinScorer.for_config(load_variant("yibin"))
    assert yb is not None
    none_m, none_w = Y.yibin_meld_arrays([])
    # 本金 5s (听用 4s 6s), void 万: 123p 456p 789p 55p 888s (本金 no) won on a discard: 无听用 2 -> 4
    hand = _counts(P, P + 1, P + 2, P + 3, P + 4, P + 5, P + 6, P + 7, P + 8, P + 4, P + 4, S + 7, S + 7, S + 7)
    assert yb.score(hand, none_m, none_w, 0, S + 7, void=0, indicator=S + 4, self_drawn=False) == (True, 4, 2)
    # the same with 555s (本金) for 888s, one 5s a 听用 4s: 本金 1, no 无听用 -> 2; self-drawn: +1 -> 4
    hand = _counts(P, P + 1, P + 2, P + 3, P + 4, P + 5, P + 6, P + 7, P + 8, P + 4, P + 4, S + 4, S + 4, S + 3)
    assert yb.score(hand, none_m, none_w, 0, S + 4, void=0, indicator=S + 4, self_drawn=False) == (True, 2, 1)
    assert yb.score(hand, none_m, none_w, 0, S + 4, void=0, indicator=S + 4, self_drawn=True) == (True, 4, 2)
    # a 听用 cannot be won on a discard
    assert yb.score(hand, none_m, none_w, 0, S + 3, void=0, indicator=S + 4, self_drawn=False) == (False, 0, 0)
    # 清金钩钓: four melds of 筒 (one a 飞 with a 听用 4s) and a pair of 听用: 5 + 1 (自摸) -> capped at 32
    melds = [(M_PONG, P, 1, []), (M_KONG, P + 2, 2, []), (M_FEI, P + 6, 3, [S + 3]), (M_ANKONG, P + 8, -1, [])]
    m, w = Y.yibin_meld_arrays(melds)
    pair = _counts(S + 5, S + 5)
    assert yb.score(pair, m, w, 4, S + 5, void=0, indicator=S + 4, self_drawn=True) == (True, 32, 8)
    # 七对 of one suit with a 4-of-a-kind (清七对 4 + 根 1) and no 听用 (+2), on a discard: 7 -> 32
    seven = _counts(P, P, P, P, P + 2, P + 2, P + 4, P + 4, P + 5, P + 5, P + 7, P + 7, P + 8, P + 8)
    assert yb.score(seven, none_m, none_w, 0, P + 8, void=0, indicator=S + 4, self_drawn=False) == (True, 32, 7)
    # 天胡 (cap_plus_1): 2^6 fixed, no cap, no self-draw bonus
    assert yb.score(seven, none_m, none_w, 0, P + 8, void=0, indicator=S + 4, self_drawn=True, tianhu=True) == (
        True,
        64,
        6,
    )
    # a void-suit (万) tile: no win
    bad = seven.copy()
    bad[P + 8] -= 2
    bad[0] += 2
    assert yb.score(bad, none_m, none_w, 0, 0, void=0, indicator=S + 4, self_drawn=True)[0] is False
    # 查大叫: 123p 456p 789p 55p 88s waits on 5p (5555p: 根 1 + 无听用 2 -> 8) and 8s (无听用 2 -> 4): max 8
    ready = _counts(P, P + 1, P + 2, P + 3, P + 4, P + 5, P + 6, P + 7, P + 8, P + 4, P + 4, S + 7, S + 7)
    assert yb.ready(ready, none_m, none_w, 0, 0, S + 4) == 8
    # a 听用 4s for one 8s: 5p (4 copies, 根 -> 2), 8s (the 听用 makes 5555p: soft 根 -> 2), 7s / 9s (a run -> 1)
    ready[S + 7] -= 1
    ready[S + 3] += 1
    assert yb.ready(ready, none_m, none_w, 0, 0, S + 4) == 2
    assert Y.CompiledYibinScorer(load_variant("yibin", chadajiao="min")).ready(ready, none_m, none_w, 0, 0, S + 4) == 1
    # holding a void tile (花猪): not ready
    pig = ready.copy()
    pig[0] += 1
    pig[P] -= 1
    assert yb.ready(pig, none_m, none_w, 0, 0, S + 4) == Y.NOT_READY


def test_for_config() -> None:
    for cfg in (
        load_variant("chengdu"),
        load_variant("yibin").replace(yibin_zimo_only=True),
        load_variant("yibin").replace(piao=True),
        load_variant("yibin").replace(wild_ignores_four_copy_limit=True),
        load_variant("yibin").replace(dead_wait_counts_as_ready=False),
    ):
        assert Y.CompiledYibinScorer.for_config(cfg) is None
        assert Y.unsupported_yibin(cfg)
        with pytest.raises(ValueError, match="does not cover"):
            Y.rule_vector_yibin(cfg)
    assert not Y.unsupported_yibin(load_variant("yibin"))
    assert getattr(L, "M_FEI", M_FEI) == M_FEI
