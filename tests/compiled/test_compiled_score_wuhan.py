"""The compiled 武汉 scorer (envs/compiled/score_wuhan.py) equals the Python scorer and settlement, field by field.

Random Wuhan hands — every indicator (so every 赖子, honors included), 0-4 赖子 in the concealed hand, 0-4 melds
(chi, pong, the three kongs), complete hands built from triplets, runs and a pair (often a 2/5/8 pair, often of one
suit, of 将 kinds or of 风 kinds) with tiles swapped for 赖子, a 红中 now and then, near misses — in every context the
Python ``WinContext`` accepts (self-draw, discard, 抢杠, 杠上开花, 海底, dealer, 红中杠 / 赖子杠 counts):
``CompiledWuhanScorer.score`` == ``judge.score`` (``is_win``, ``multiplier``, ``doublings or 0`` and the breakdown
keys), and for the wins ``CompiledWuhanScorer.settle`` == ``wuhan.wuhan_settlement`` on random losers (melds, kongs,
dealer, 放冲 / robbed, ready, fed the third meld), for the preset and flag variations.  Every row and refusal must
occur.  Seeded.  ``test_speed`` prints the µs per call of both sides.
"""

from __future__ import annotations

import functools
import random
import time
from collections import Counter

import numpy as np
import pytest

from envs.compiled import score_wuhan as W
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG
from envs.core.melds import Meld, MeldKind, parse_meld
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_counts
from envs.core.win_context import WinContext
from envs.scoring import judge
from envs.scoring.scorer import score_win
from envs.scoring.wuhan_settlement import WuhanSide, laizi_indicators, laizi_of, wuhan_settlement
from tests.scoring.test_scoring_wuhan import LAIZI_PAIR_CASES

NK = 34
RED = 31
M_CHI = W.M_CHI
_MELD_KIND = {
    M_PONG: MeldKind.PONG,
    M_KONG: MeldKind.KONG,
    M_ANKONG: MeldKind.ANKONG,
    M_BUKONG: MeldKind.BUKONG,
    M_CHI: MeldKind.CHI,
}
_SIZE = {M_PONG: 3, M_KONG: 4, M_ANKONG: 4, M_BUKONG: 4}

CONFIGS = {
    "wuhan": {},
    "koukou": {"wuhan_open_mode": "koukou"},
    "laizi4": {"wuhan_laizi_gang_factor": 4},
    "discard_pays_alone": {"wuhan_discard_all_pay": False},
    "exclusive_caps": {"wuhan_cap_threshold_inclusive": False},
    "options": {
        "wuhan_small_win_max_laizi": 2,
        "zimo_bonus": "none",
        "wuhan_angang_factor": 8,
        "wuhan_hongzhong_gang_factor": 1,
        "wuhan_small_base": 2,
        "wuhan_big_base": 5,
        "wuhan_caps": (100, 200, 500),
        "wuhan_cap_thresholds": (100, 200),
        "base_unit": 3,
        "wild_ignores_four_copy_limit": True,
    },
}

JIANG = [k for k in range(27) if k % 9 in (1, 4, 7)]
FENG = [27, 28, 29, 30, 32, 33]
PLAYABLE = [k for k in range(NK) if k != RED]
BASE_ROWS = {
    "ping_hu", "peng_peng_hu", "qing_yi_se", "jiang_yi_se", "feng_yi_se", "quan_qiu_ren", "gang_shang_kai_hua",
    "hai_di_lao_yue", "qiang_gang_hu",
}  # fmt: skip
BONUS_ROWS = {"kai_kou", "an_gang", "ming_gang", "hong_zhong_gang", "lai_zi_gang", "zi_mo", "ying_hu", "zhuang_jia"}
REASONS = ("incomplete", "hongzhong_in_hand", "not_open", "wild_not_claimable", "small_win_pair", "small_win_laizi")


def _cfg(name: str):
    overrides = CONFIGS[name]
    return load_variant("wuhan").replace(**overrides) if overrides else load_variant("wuhan")


def _meld_objects(melds) -> tuple[Meld, ...]:
    return tuple(Meld(_MELD_KIND[kind], tile, from_seat=None if src < 0 else src) for kind, tile, src in melds)


def _own(counts, melds) -> list[int]:
    own = list(counts)
    for kind, tile, _ in melds:
        if kind == M_CHI:
            for j in range(3):
                own[tile + j] += 1
        else:
            own[tile] += _SIZE[kind]
    return own


def _random_meld(rng: random.Random, pool: list[int], laizi: int) -> tuple[int, int, int] | None:
    kind = rng.choice([M_CHI, M_CHI, M_PONG, M_PONG, M_PONG, M_KONG, M_ANKONG, M_BUKONG])
    if kind == M_CHI:
        starts = [k for k in pool if k < 27 and k % 9 <= 6]
        if not starts:
            return None
        tile = rng.choice(starts)
        tiles = [tile, tile + 1, tile + 2]
    else:
        tile = rng.choice(pool)
        tiles = [tile]
    if laizi in tiles and rng.random() < 0.9:  # a 赖子 is never melded in play (Python still scores it)
        return None
    return kind, tile, -1 if kind == M_ANKONG else rng.randrange(4)


def _random_hand(rng: random.Random):
    """``(counts, melds, indicator)``: a 14-tile hand (each meld counted as 3), mostly complete before its 赖子 swaps
    and often perturbed; within four physical copies of each kind."""
    while True:
        indicator = rng.randrange(NK)
        laizi = laizi_of(indicator)
        roll = rng.random()
        if roll < 0.2:
            suit = rng.randrange(3)
            pool = list(range(9 * suit, 9 * suit + 9))  # 清一色
        elif roll < 0.3:
            pool = list(JIANG)  # 将一色
        elif roll < 0.38:
            pool = list(FENG)  # 风一色
        elif roll < 0.5:
            pool = [k for k in PLAYABLE if k < 27]
        else:
            pool = list(PLAYABLE)
        counts = [0] * NK
        melds = []
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 4, 4])):
            meld = _random_meld(rng, pool, laizi)
            if meld is not None and not (meld[0] != M_CHI and any(m[0] != M_CHI and m[1] == meld[1] for m in melds)):
                melds.append(meld)
        uniform = pool in (JIANG, FENG) and rng.random() < 0.4
        if uniform:  # any arrangement: 乱将 / 乱风
            for _ in range(14 - 3 * len(melds)):
                counts[rng.choice(pool)] += 1
        else:
            for _ in range(4 - len(melds)):
                k = rng.choice(pool)
                if rng.random() < 0.45 and k < 27 and k % 9 <= 6:
                    for j in range(3):
                        counts[k + j] += 1
                else:
                    counts[k] += 3
            pairs = [k for k in pool if k in JIANG] if rng.random() < 0.6 else pool
            counts[rng.choice(pairs or pool)] += 2
        swaps = rng.choice([0, 0, 0, 1, 1, 1, 2, 2, 3, 4])
        for _ in range(swaps):
            held = [k for k in range(NK) if counts[k] and k != laizi]
            if not held:
                break
            counts[rng.choice(held)] -= 1
            counts[laizi] += 1
        if rng.random() < 0.05:  # a 红中 in hand: never a win
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[RED] += 1
        if rng.random() < 0.15:  # perturb: one tile becomes another kind
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[rng.choice(PLAYABLE)] += 1
        if sum(counts) + 3 * len(melds) != 14 or max(_own(counts, melds)) > 4:
            continue
        return counts, melds, indicator


def _situation(rng: random.Random, counts, laizi: int) -> tuple[int, dict]:
    """A winning tile (a 赖子 now and then) and the context ``judge.score`` gets from ``Game._score_on`` plus
    ``WuhanRules.win_context`` (some ``WinContext`` refuses)."""
    held = [k for k in range(NK) if counts[k]]
    tile = laizi if counts[laizi] and rng.random() < 0.2 else rng.choice(held)
    self_drawn = rng.random() < 0.5
    return tile, {
        "self_drawn": self_drawn,
        "robbing_kong": rng.random() < (0.05 if self_drawn else 0.2),
        "after_kong": rng.random() < 0.2,
        "last_tile": rng.random() < 0.15,
        "is_dealer": rng.random() < 0.25,
        "red_kongs": rng.choice([0, 0, 0, 1, 2, 4]),
        "laizi_kongs": rng.choice([0, 0, 0, 1, 2, 3]),
    }


def _python_score(cfg, counts, melds, tile, indicator, flags):
    ctx = dict(flags)
    dealer = ctx.pop("is_dealer")
    return judge.score(cfg, counts, _meld_objects(melds), tile, void=None, dealer=dealer, indicator=indicator, **ctx)


def _random_sides(rng: random.Random, result_flags: dict, winner_dealer: bool, winner_open: int) -> list[WuhanSide]:
    """Three losers: their own melds and kongs, the dealer (one of them unless the winner deals), the dealer-in of a
    discard win (放冲) or the robbed loser, readiness, the feeder of the winner's third open meld."""
    dealer = -1 if winner_dealer else rng.randrange(3)
    dealt = -1 if result_flags["self_drawn"] else rng.randrange(3)
    fed = rng.randrange(3) if winner_open >= 3 and rng.random() < 0.7 else -1
    sides = []
    for i in range(3):
        melds = []
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 4])):
            kind = rng.choice([M_CHI, M_PONG, M_PONG, M_KONG, M_ANKONG, M_BUKONG])
            tile = rng.randrange(7) if kind == M_CHI else rng.choice(PLAYABLE)
            melds.append((kind, tile, -1 if kind == M_ANKONG else rng.randrange(4)))
        sides.append(
            WuhanSide(
                melds=_meld_objects(melds),
                red_kongs=rng.choice([0, 0, 0, 1, 2]),
                laizi_kongs=rng.choice([0, 0, 0, 1, 2]),
                is_dealer=i == dealer,
                discarded=i == dealt and not result_flags["robbing_kong"],
                kong_robbed=i == dealt and result_flags["robbing_kong"],
                ready=rng.random() < 0.5,
                fed_third_meld=i == fed,
            )
        )
    return sides


@functools.cache
def _compare(name: str, n: int = 1500) -> Counter:
    """Compare ``n`` random hands of configuration ``name`` with ``judge.score``, and every win's settlement on
    random losers with ``wuhan_settlement`` (once per process: the coverage test reuses the counts)."""
    cfg = _cfg(name)
    scorer = W.CompiledWuhanScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"wuhan-score-{name}-{n}")
    seen: Counter = Counter()
    while seen["compared"] < n:
        counts, melds, indicator = _random_hand(rng)
        laizi = laizi_of(indicator)
        tile, flags = _situation(rng, counts, laizi)
        try:
            want = _python_score(cfg, counts, melds, tile, indicator, flags)
        except ValueError:
            seen["refused_context"] += 1
            continue
        c = np.array(counts, dtype=np.int32)
        m = W.wuhan_meld_array(_meld_objects(melds))
        got = scorer.score(c, m, len(melds), tile, indicator=indicator, **flags)
        expect = (want.is_win, want.multiplier, want.doublings or 0, set(want.breakdown))
        assert got[:3] == expect[:3] and W.breakdown_keys(got[3]) == expect[3], (
            counts, melds, indicator, tile, flags, want.breakdown, want.multiplier, got, W.breakdown_keys(got[3])
        )  # fmt: skip
        seen["compared"] += 1
        if not want.is_win:
            seen[f"reason:{want.reason}"] += 1
            continue
        seen["win"] += 1
        seen.update(want.breakdown.keys())
        seen.update(f"situation:{key}" for key, on in flags.items() if on)
        seen[f"laizi:{counts[laizi]}"] += 1
        seen[f"shape:{want.interpretation.shape}"] += 1
        if any(mk == M_CHI for mk, _, _ in melds):
            seen["chi"] += 1
        open_melds = sum(1 for mk, _, _ in melds if mk != M_ANKONG)
        for _ in range(3):
            sides = _random_sides(rng, flags, flags["is_dealer"], open_melds)
            pay = wuhan_settlement(cfg, want, sides)
            assert scorer.settle_sides(got[1], got[2], got[3], sides) == pay, (want.breakdown, want.multiplier, sides)
            seen["settled"] += 1
            if len(set(pay)) == 2 and 0 in pay and pay.count(0) == 2:
                seen["settle:liable_or_alone"] += 1
            if max(pay) in {a * cfg.base_unit for a in cfg.wuhan_caps[1:]}:
                seen["settle:tier"] += 1
    return seen


@pytest.mark.parametrize("name", list(CONFIGS))
def test_score_and_settlement_equal_python(name: str) -> None:
    seen = _compare(name)
    assert seen["win"] > 400 and seen["settled"] > 1200, seen


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_score_and_settlement_sweep(name: str) -> None:
    assert _compare(name, 30000)["win"] > 8000


def test_every_row_and_refusal_occurred() -> None:
    """Each breakdown row, refusal, situation, 赖子 count (0-4), shape and settlement path was compared on a win."""
    seen: Counter = Counter()
    for name in CONFIGS:
        seen.update(_compare(name))
    missing = sorted(r for r in BASE_ROWS | BONUS_ROWS if not seen[r])
    assert not missing, missing
    for reason in REASONS:
        assert seen[f"reason:{reason}"] > 0, (reason, sorted(k for k in seen if k.startswith("reason:")))
    for key in ("self_drawn", "robbing_kong", "after_kong", "last_tile", "is_dealer", "red_kongs", "laizi_kongs"):
        assert seen[f"situation:{key}"] > 0, key
    assert all(seen[f"laizi:{n}"] for n in range(5)), sorted(k for k in seen if k.startswith("laizi:"))
    assert seen["shape:luan_jiang"] and seen["shape:luan_feng"] and seen["chi"]
    assert seen["settle:liable_or_alone"] and seen["settle:tier"]


def _counts(*kinds: int) -> np.ndarray:
    out = np.zeros(NK, dtype=np.int32)
    for k in kinds:
        out[k] += 1
    return out


P, S, E = 9, 18, 27  # 1p, 1s, 东


def test_fixed_examples() -> None:
    """Hands worked by hand from RULES.md §4.8 (base 1 / 10 per big win, 开口 x2, 自摸 x2, 硬胡 x2, 庄家 x2)."""
    wh = W.CompiledWuhanScorer.for_config(load_variant("wuhan"))
    assert wh is not None
    chi = W.wuhan_meld_array([Meld(MeldKind.CHI, S + 2, from_seat=3)])  # 345s
    # 123m 456m 789m 22p + chi 345s, 赖子 白 (indicator 发): a small win on a discard, 开口 + 硬胡 -> 4
    hand = _counts(0, 1, 2, 3, 4, 5, 6, 7, 8, P + 1, P + 1)
    assert wh.score(hand, chi, 1, P + 1, indicator=32, self_drawn=False) == (
        True, 4, 2, W.WF_PING_HU | W.WF_KAI_KOU | W.WF_YING_HU,
    )  # fmt: skip
    # self-drawn by the dealer: 自摸 and 庄家 -> 16
    assert wh.score(hand, chi, 1, P + 1, indicator=32, self_drawn=True, is_dealer=True)[:3] == (True, 16, 4)
    # a 3p pair: no 将, not a win
    bad = _counts(0, 1, 2, 3, 4, 5, 6, 7, 8, P + 2, P + 2)
    assert wh.score(bad, chi, 1, P + 2, indicator=32, self_drawn=False)[0] is False
    # one 赖子 (白) for a 2p: 软, small win -> 2; a 红中 in hand: no win; no open meld: no win
    soft = _counts(0, 1, 2, 3, 4, 5, 6, 7, 8, P + 1, 33)
    assert wh.score(soft, chi, 1, P + 1, indicator=32, self_drawn=False)[:3] == (True, 2, 1)
    red = _counts(0, 1, 2, 3, 4, 5, 6, 7, 8, P + 1, RED)
    assert wh.score(red, chi, 1, P + 1, indicator=32, self_drawn=True)[0] is False
    ankong = W.wuhan_meld_array([Meld(MeldKind.ANKONG, S + 2)])
    assert wh.score(hand, ankong, 1, P + 1, indicator=32, self_drawn=True)[0] is False
    # the 赖子 won on a discard: no win
    assert wh.score(soft, chi, 1, 33, indicator=32, self_drawn=False)[0] is False
    # 乱风: 东东南西西北发白白 + pong 北, any arrangement, self-drawn: 风一色 10 x 开口 x 自摸 x 硬胡 = 80
    feng = W.wuhan_meld_array([Meld(MeldKind.PONG, E + 3, from_seat=1)])
    luan = _counts(E, E, E + 1, E + 2, E + 2, E + 5, E + 5, E + 6, E + 6, E + 6, E + 1)
    assert wh.score(luan, feng, 1, E + 1, indicator=0, self_drawn=True) == (
        True, 80, 3, W.WF_FENG_YI_SE | W.WF_KAI_KOU | W.WF_ZI_MO | W.WF_YING_HU,
    )  # fmt: skip
    # settlement: the 80 above, losers bare but the dealer x2 only on a small win: 80 each -> 240 in all
    bare = np.zeros((3, 12), dtype=np.int32)
    zeros = np.zeros(3, dtype=np.int32)
    no = np.zeros(3, dtype=np.bool_)
    assert wh.settle(80, 3, W.WF_FENG_YI_SE, bare, zeros, zeros, zeros, no, no, no, no, no) == [80, 80, 80]
    # the discarder pays x2 (160); 全求人 dealt in by a loser not ready: it pays all three (80 + 80 + 160)
    dis = np.array([False, True, False])
    assert wh.settle(80, 3, W.WF_FENG_YI_SE, bare, zeros, zeros, zeros, no, dis, no, no, no) == [80, 160, 80]
    qqr = W.WF_QUAN_QIU_REN
    assert wh.settle(80, 3, qqr, bare, zeros, zeros, zeros, no, dis, no, no, no) == [0, 320, 0]
    # 金顶: every raw amount >= 300 -> 400 each; 钻顶 at 600 -> 700 each; one short of 300 -> 封顶 300 at most
    assert wh.settle(320, 5, 0, bare, zeros, zeros, zeros, no, no, no, no, no) == [400, 400, 400]
    assert wh.settle(640, 6, 0, bare, zeros, zeros, zeros, no, no, no, no, no) == [700, 700, 700]
    assert wh.settle(160, 4, 0, bare, zeros, zeros, zeros, no, dis, no, no, no) == [160, 300, 160]


def test_two_standing_in_laizi_are_no_258_pair_in_either_suit() -> None:
    """A pair of two 赖子 (东, indicator 白) self-drawn after a kong beside pong 2 / 5 / 8 and chi 123 of one suit:
    standing for a 2/5/8 kind they are no 将 (RULES §4.8.1), so the hand is a 清一色 (the pair standing for a kind of
    the suit), never a 杠上开花, 10 x 开口 x 自摸 = 40 in 万 and in 条 alike."""
    wh = W.CompiledWuhanScorer.for_config(load_variant("wuhan"))
    assert wh is not None
    for base in (0, S):
        melds = [(M_PONG, base + 1, 1), (M_PONG, base + 4, 1), (M_PONG, base + 7, 2), (M_CHI, base, 3)]
        pair = _counts(E, E)
        flags = {"self_drawn": True, "after_kong": True}
        want = _python_score(load_variant("wuhan"), list(pair), melds, E, 33, {**flags, "is_dealer": False})
        got = wh.score(pair, W.wuhan_meld_array(_meld_objects(melds)), 4, E, indicator=33, **flags)
        assert got == (True, 40, 2, W.WF_QING_YI_SE | W.WF_KAI_KOU | W.WF_ZI_MO)
        assert W.breakdown_keys(got[3]) == set(want.breakdown) and want.multiplier == 40


_NO_SITUATION = {"self_drawn": False, "robbing_kong": False, "after_kong": False, "last_tile": False,
                 "is_dealer": False, "red_kongs": 0, "laizi_kongs": 0}  # fmt: skip


@pytest.mark.parametrize(
    ("concealed", "melds", "win", "laizi", "situation", "expected"),
    [c[1:] for c in LAIZI_PAIR_CASES],
    ids=[c[0] for c in LAIZI_PAIR_CASES],
)
def test_two_laizi_pair_rule_equals_python(concealed, melds, win, laizi, situation, expected) -> None:
    """The 杠上开花 / 海底捞月 / 抢杠 cases of ``tests/scoring/test_scoring_wuhan.py`` (two 赖子 make a 2-5-8 pair only
    as themselves): the compiled answer equals the Python scorer's and the expected one."""
    cfg = load_variant("wuhan")
    wh = W.CompiledWuhanScorer.for_config(cfg)
    assert wh is not None
    counts = parse_counts(concealed)
    counts[kind_of(win)] += 1
    meld_objects = tuple(parse_meld(m) for m in melds)
    indicator = laizi_indicators(kind_of(laizi))[0]
    flags = {**_NO_SITUATION, **situation}
    ctx = dict(flags)
    dealer = ctx.pop("is_dealer")
    want = judge.score(cfg, counts, meld_objects, kind_of(win), void=None, dealer=dealer, indicator=indicator, **ctx)
    c = np.array(counts, dtype=np.int32)
    got = wh.score(c, W.wuhan_meld_array(meld_objects), len(meld_objects), kind_of(win), indicator=indicator, **flags)
    assert got[:3] == (want.is_win, want.multiplier, want.doublings or 0)
    assert W.breakdown_keys(got[3]) == set(want.breakdown)
    if isinstance(expected, str):
        assert not got[0] and want.reason == expected
    else:
        assert (got[1], W.breakdown_keys(got[3])) == (expected[0], set(expected[1]))


def test_discard_win_without_all_pay_has_no_golden_or_diamond_cap() -> None:
    """``wuhan_discard_all_pay = false`` (RULES §7.8 W2's note): a big discard win is capped at 300 per loser even
    when all three raw amounts pass 300 (W3's hand on a discard: raw 320, 640, 320); with all paying, 金顶 400."""
    for name, expected in (("discard_pays_alone", [300, 300, 300]), ("wuhan", [400, 400, 400])):
        cfg = _cfg(name)
        wh = W.CompiledWuhanScorer.for_config(cfg)
        assert wh is not None
        melds = (parse_meld("pong 1m"), parse_meld("kong 3m"), parse_meld("pong 6m"))
        counts = parse_counts("999m 88m")
        ok, mult, dbl, flags = wh.score(np.array(counts, dtype=np.int32), W.wuhan_meld_array(melds), 3, 7,
                                        indicator=laizi_indicators(kind_of("6p"))[0], self_drawn=False)  # fmt: skip
        assert (ok, mult) == (True, 160)
        losers = [
            WuhanSide(discarded=True),
            WuhanSide(melds=(parse_meld("pong 1z"), parse_meld("ankong 9s"))),
            WuhanSide(melds=(parse_meld("pong 2z"), parse_meld("kong 3z"))),
        ]
        want = judge.score(cfg, counts, melds, 7, void=None, dealer=False, indicator=laizi_indicators(kind_of("6p"))[0],
                           self_drawn=False)  # fmt: skip
        assert wh.settle_sides(mult, dbl, flags, losers) == wuhan_settlement(cfg, want, losers) == expected


def test_for_config() -> None:
    for cfg in (
        load_variant("chengdu"),
        load_variant("hongzhong"),
        load_variant("wuhan").replace(tiandihu="cap"),
        load_variant("wuhan").replace(wild_counts_for_gen=True),
        load_variant("wuhan").replace(num_players=3),
    ):
        assert W.CompiledWuhanScorer.for_config(cfg) is None
        assert W.unsupported_wuhan(cfg)
        with pytest.raises(ValueError, match="does not cover"):
            W.rule_vector_wuhan(cfg)
    assert not W.unsupported_wuhan(load_variant("wuhan"))
    for name in CONFIGS:
        assert not W.unsupported_wuhan(_cfg(name)), name
    assert [laizi_of(k) for k in range(NK)] == [int(W.laizi_kind(k)) for k in range(NK)]
    assert len(W.FLAG_KEYS) == len(BASE_ROWS | BONUS_ROWS)


def test_speed(capsys: pytest.CaptureFixture[str]) -> None:
    """µs per call of the compiled scorer and settlement against the Python ones (printed; the compiled side must
    be faster)."""
    cfg = _cfg("wuhan")
    scorer = W.CompiledWuhanScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random("wuhan-speed")
    cases = []
    while len(cases) < 400:
        counts, melds, indicator = _random_hand(rng)
        tile, flags = _situation(rng, counts, laizi_of(indicator))
        try:
            want = _python_score(cfg, counts, melds, tile, indicator, flags)
        except ValueError:
            continue
        ctx = dict(flags)
        dealer = ctx.pop("is_dealer")
        win_ctx = WinContext(tuple(counts), tile, _meld_objects(melds), indicator=indicator, is_dealer=dealer, **ctx)
        arrays = (np.array(counts, dtype=np.int32), W.wuhan_meld_array(_meld_objects(melds)), len(melds), tile)
        cases.append((win_ctx, arrays, indicator, flags, want))
    t0 = time.perf_counter()
    for win_ctx, *_ in cases:
        score_win(cfg, win_ctx)  # the Python scorer without judge's memo (interpret keeps its own)
    py = (time.perf_counter() - t0) / len(cases) * 1e6
    work = scorer.work
    rules = scorer.rules
    t0 = time.perf_counter()
    for _ in range(5):
        for _, (c, m, n, tile), indicator, flags, _ in cases:
            W.score_wuhan(c, m, n, tile, indicator, flags["self_drawn"], flags["robbing_kong"], flags["after_kong"],
                          flags["last_tile"], flags["red_kongs"], flags["laizi_kongs"], flags["is_dealer"], rules,
                          *work)  # fmt: skip
    nb = (time.perf_counter() - t0) / (5 * len(cases)) * 1e6
    wins = [(want, flags) for *_, flags, want in cases if want.is_win]
    sides = [_random_sides(rng, flags, flags["is_dealer"], 4) for _, flags in wins]
    t0 = time.perf_counter()
    for (want, _), s in zip(wins, sides, strict=True):
        wuhan_settlement(cfg, want, s)
    py_settle = (time.perf_counter() - t0) / len(wins) * 1e6
    arrays = [W.loser_arrays(s) for s in sides]
    out = np.zeros(3, dtype=np.int64)
    t0 = time.perf_counter()
    for (want, _), a in zip(wins, arrays, strict=True):
        W.settle_wuhan(rules, want.multiplier, want.doublings, 0, *a, out)
    nb_settle = (time.perf_counter() - t0) / len(wins) * 1e6
    with capsys.disabled():
        print(
            f"\nwuhan score: python {py:.1f} us, compiled {nb:.2f} us per call ({len(cases)} hands); "
            f"settlement: python {py_settle:.1f} us, compiled {nb_settle:.2f} us per win"
        )
    assert nb < py
