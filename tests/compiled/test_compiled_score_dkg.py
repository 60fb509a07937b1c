"""The compiled 断卡根 scorer (envs/compiled/score_dkg.py) equals the Python scorer, field by field.

Random 11-tile winning hands over 条 筒 (0-3 melds including kongs, full flushes, terminal / 2-5-8 / 4-5-6 heavy
hands, 请胡 five pairs + a single) and near-misses, every context the Python ``WinContext`` accepts (self-draw,
discard, 抢杠, 杠上, 海底, 天胡/地胡, 报胡 with 0-4 kongs after it, 请胡, the payer's 报胡, a 请胡 discard, 点杠花 paid
as a discard), for the ``dkg_wiki`` and ``dkg_wanghu`` tables and flag variations: ``CompiledDkgScorer.score`` ==
``judge.score`` (``is_win``, ``payment``, ``doublings or 0``) and ``CompiledDkgScorer.ready`` == the 查叫 value of
``envs.engine.variants.duankagen.ready_value`` (over ``judge.waits_mask``'s waits).  Every fan row, the
fixed 天胡/地胡, the 小胡 refusal and each 小胡 exception must occur.  Seeded.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import numpy as np
import pytest

from envs.compiled import score_dkg as D
from envs.compiled.layout import M_ANKONG, M_BUKONG, M_KONG, M_PONG, NK
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.engine.variants.duankagen import ready_value as dkg_ready_value
from envs.scoring import judge

_MELD_KIND = {M_PONG: MeldKind.PONG, M_KONG: MeldKind.KONG, M_ANKONG: MeldKind.ANKONG, M_BUKONG: MeldKind.BUKONG}
_SUITS = (1, 2)  # 筒 p, 条 s (suits "sp")

CONFIGS = {
    "wiki": ("duankagen", {}),
    "wiki_flags": (
        "duankagen",
        {
            "dkg_xiaohu_exceptions": [],
            "dkg_zimo_plus_one_fan": True,
            "dkg_tier_units": [1, 3, 6],
            "chadajiao": "min",
            "base_unit": 2,
            "dkg_zimo_units": 2,
            "tiandihu": "cap",
        },
    ),
    "wiki_gsp": (
        "duankagen",
        {
            "dkg_xiaohu_exceptions": ["gang_shang_pao", "qinghu_discard"],
            "dkg_xiaohu_zimo_vs_baohu": True,
            "dkg_tier_units": [2, 4, 8, 16, 32, 64],
            "zimo_bonus": "none",
            "tiandihu": "off",
            "dkg_qinghu_catch_bonus": 0,
            "dkg_baohu_penalty": 2,
        },
    ),
    "wanghu": ("duankagen", {"fan_table": "dkg_wanghu", "cap_doublings": 5}),
    "wanghu_e5": (
        "duankagen",
        {
            "fan_table": "dkg_wanghu",
            "cap_doublings": 3,
            "dkg_xiaohu_exceptions": ["qinghu_discard", "gang_shang_pao"],
            "dkg_qinghu_catch_bonus": 2,
            "dkg_zimo_units": 2,
            "dkg_zimo_plus_one_fan": True,
            "chadajiao": "min",
        },
    ),
    "wanghu_open": (
        "duankagen",
        {
            "fan_table": "dkg_wanghu",
            "cap_doublings": None,
            "tiandihu": "off",
            "zimo_bonus": "none",
            "dkg_xiaohu_exceptions": [],
            "dkg_baohu_win_bonus": 4,
            "dkg_xiaohu_zimo_vs_baohu": True,
        },
    ),
}

WIKI_ROWS = {
    "duan_yao_jiu", "dui_dui_hu", "qing_yi_se", "dai_yao_jiu", "jiang_dui", "qing_hu", "gen", "gang_shang_kai_hua",
    "gang_shang_pao", "qiang_gang_hu", "hai_di_lao_yue", "hai_di_pao", "bao_hu", "ka", "ying_ka", "zi_mo",
    "qing_hu_pao", "bao_hu_fa", "tian_hu", "di_hu",
}  # fmt: skip
WANGHU_ROWS = WIKI_ROWS | {"ping_hu", "qing_dui", "qing_qing_hu", "qing_yao_jiu"}


def _cfg(name: str):
    base, overrides = CONFIGS[name]
    return load_variant(base).replace(**overrides) if overrides else load_variant(base)


def _meld_objects(melds):
    return tuple(Meld(_MELD_KIND[kind], tile, from_seat=None if src < 0 else src) for kind, tile, src in melds)


def _kinds(rng: random.Random) -> list[int]:
    suits = list(_SUITS) if rng.random() < 0.7 else [rng.choice(_SUITS)]
    kinds = [s * 9 + r for s in suits for r in range(9)]
    roll = rng.random()
    if roll < 0.3:  # terminal-heavy (带幺九) / 2-5-8 (将对) / 4-5-6 (卡) / simples (断幺九) hands
        pick = rng.choice([(0, 8), (1, 4, 7), (3, 4, 5), (1, 2, 3, 4, 5, 6, 7)])
        kinds = [k for k in kinds if k % 9 in pick]
    return kinds


def _random_hand(rng: random.Random, size: int = 11):
    """(counts, melds, qinghu_shape): a hand of ``size`` tiles counting each meld as 3 — complete (standard or five
    pairs + a single) and often perturbed."""
    while True:
        kinds = _kinds(rng)
        own = [0] * NK
        melds = []
        counts = [0] * NK
        five_pairs = rng.random() < 0.2
        if five_pairs:
            for _ in range(40):
                if sum(counts) >= size - 1:
                    break
                k = rng.choice(kinds)
                n = 4 if rng.random() < 0.15 and sum(counts) + 4 <= size - 1 else 2
                if counts[k] + n <= 4:
                    counts[k] += n
            counts[rng.choice(kinds)] += 1
        else:
            for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
                kind = rng.choice([M_PONG, M_PONG, M_KONG, M_ANKONG, M_BUKONG])
                tile = rng.choice(kinds)
                if own[tile]:
                    continue
                own[tile] += 3 if kind == M_PONG else 4
                melds.append((kind, tile, -1 if kind == M_ANKONG else rng.randrange(4)))
            tiles_left = size - 3 * len(melds)
            counts[rng.choice(kinds)] += 2
            while sum(counts) < tiles_left:
                k = rng.choice(kinds)
                if rng.random() < 0.55 and k % 9 <= 6:
                    if rng.random() < 0.3 and k % 9 != 3 and (k - k % 9 + 3) in kinds:
                        k = k - k % 9 + 3  # a 4-5-6 run
                    for j in range(3):
                        counts[k + j] += 1
                else:
                    counts[k] += 3
        if rng.random() < 0.3:  # perturb: one tile becomes another kind of the suits in play
            held = [k for k in range(NK) if counts[k]]
            counts[rng.choice(held)] -= 1
            counts[rng.choice([s * 9 + r for s in _SUITS for r in range(9)])] += 1
        if sum(counts) + 3 * len(melds) != size or sum(counts) < 2:
            continue
        if any(counts[k] + own[k] > 4 for k in range(NK)):
            continue
        return counts, melds


def _single(counts) -> int | None:
    odd = [k for k in range(NK) if counts[k] % 2]
    return odd[0] if len(odd) == 1 else None


def _situation(rng: random.Random, counts, melds, erheyi: bool = False) -> tuple[int, dict]:
    """A winning tile and a context ``WinContext`` accepts."""
    single = _single(counts)
    qinghu = not melds and single is not None and rng.random() < 0.6
    if qinghu:
        tile = single
    else:
        held = [k for k in range(NK) if counts[k]]
        fives = [k for k in held if k % 9 == 4]
        tile = rng.choice(fives) if fives and rng.random() < 0.3 else rng.choice(held)
    robbing = not qinghu and rng.random() < 0.1
    self_drawn = qinghu or (not robbing and rng.random() < 0.45)
    baohu = (not qinghu or erheyi) and rng.random() < 0.3
    tianhu = self_drawn and rng.random() < 0.05
    out = {
        "self_drawn": self_drawn,
        "robbing_kong": robbing,
        "after_kong": not robbing and rng.random() < 0.15,
        "last_tile": not robbing and rng.random() < 0.12,
        "tianhu": tianhu,
        "dihu": not tianhu and rng.random() < 0.06,
        "paid_as_discard": self_drawn and rng.random() < 0.1,
        "baohu": baohu,
        "kongs_after_baohu": rng.choice([0, 0, 1, 2, 3, 4]) if baohu else 0,
        "qinghu": qinghu,
        "payer_baohu": rng.random() < 0.25,
        "on_qinghu_discard": not self_drawn and not robbing and rng.random() < 0.2,
    }
    return tile, out


def _python_ready(cfg, counts, melds, baohu: bool) -> int:
    """:func:`envs.engine.variants.duankagen.ready_value` (what ``DuankagenRules.end_transfers`` uses) of a seat that
    did not forfeit, over its ``judge.waits_mask`` waits."""
    mask = judge.waits_mask(cfg, list(counts), melds, None)
    value = dkg_ready_value(cfg, counts, melds, mask, dealer=False, baohu=baohu)
    return D.NOT_READY if value is None else value


@functools.cache
def _compare_scores(name: str) -> Counter:
    """Compare 1,500 random wins of configuration ``name`` with ``judge.score`` (once per process: the coverage
    test below reuses the counts, or makes them itself when it runs alone, e.g. on another xdist worker)."""
    cfg = _cfg(name)
    scorer = D.CompiledDkgScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"dkg-score-{name}")
    seen: Counter = Counter()
    for _ in range(1500):
        counts, melds = _random_hand(rng)
        tile, flags = _situation(rng, counts, melds)
        dealer = rng.random() < 0.25
        meld_objs = _meld_objects(melds)
        want = judge.score(cfg, counts, meld_objs, tile, void=None, dealer=dealer, **flags)
        got = scorer.score(
            np.array(counts, dtype=np.int32), D.dkg_meld_array(melds), len(melds), tile, dealer=dealer, **flags
        )
        assert got == (want.is_win, want.payment, want.doublings or 0), (counts, melds, tile, flags, want)
        seen["compared"] += 1
        if want.is_win:
            seen["win"] += 1
            seen.update(want.breakdown)
            seen.update(f"situation:{key}" for key, on in flags.items() if on)
            if want.fixed:
                seen[f"fixed:{want.fixed}"] += 1
            own = sum(v for k, v in want.breakdown.items() if k not in ("qing_hu_pao", "bao_hu_fa"))
            if own < (1 if cfg.fan_table == "dkg_wiki" else 2) and not want.fixed:
                seen[f"xiaohu_admitted:{name}"] += 1
            if want.capped:
                seen["capped"] += 1
        else:
            seen[f"reason:{want.reason}"] += 1
    return seen


@pytest.mark.parametrize("name", list(CONFIGS))
def test_score_equals_python(name: str) -> None:
    assert _compare_scores(name)["win"] > 300


@pytest.mark.parametrize("name", list(CONFIGS))
def test_ready_equals_python(name: str) -> None:
    cfg = _cfg(name)
    scorer = D.CompiledDkgScorer.for_config(cfg)
    assert scorer is not None
    rng = random.Random(f"dkg-ready-{name}")
    ready = not_ready = 0
    for _ in range(250):
        counts, melds = _random_hand(rng)
        held = [k for k in range(NK) if counts[k]]
        counts[rng.choice(held)] -= 1  # a 10-tile hand: often ready
        baohu = rng.random() < 0.3
        want = _python_ready(cfg, counts, _meld_objects(melds), baohu)
        got = scorer.ready(np.array(counts, dtype=np.int32), D.dkg_meld_array(melds), len(melds), baohu)
        assert got == want, (counts, melds, baohu, want, got)
        ready += want != D.NOT_READY
        not_ready += want == D.NOT_READY
    assert ready > 40 and not_ready > 20


def test_every_row_and_situation_occurred() -> None:
    """Each fan row, fixed hand, situation, cap, 小胡 refusal and 小胡 exception was compared on a real win at
    least once (over the comparisons of :func:`test_score_equals_python`)."""
    wiki: Counter = Counter()
    wanghu: Counter = Counter()
    for name in CONFIGS:
        (wanghu if _cfg(name).fan_table == "dkg_wanghu" else wiki).update(_compare_scores(name))
    for rows, seen in ((WIKI_ROWS, wiki), (WANGHU_ROWS, wanghu)):
        missing = sorted(r for r in rows if not seen[r])
        assert not missing, missing
        for key in ("self_drawn", "robbing_kong", "after_kong", "last_tile", "tianhu", "dihu", "paid_as_discard",
                    "baohu", "kongs_after_baohu", "qinghu", "payer_baohu", "on_qinghu_discard"):  # fmt: skip
            assert seen[f"situation:{key}"] > 0, key
        assert seen["reason:min_fan"] > 0 and seen["reason:incomplete"] > 0
    assert wiki["fixed:tian_hu"] and wiki["fixed:di_hu"] and wiki["capped"] and wanghu["capped"]
    for name in ("wiki", "wiki_gsp", "wanghu", "wanghu_e5"):  # some 小胡 won under an exception
        seen = wanghu if "wanghu" in name else wiki
        assert seen[f"xiaohu_admitted:{name}"] > 0, name


def _counts(*kinds: int) -> np.ndarray:
    out = np.zeros(NK, dtype=np.int32)
    for k in kinds:
        out[k] += 1
    return out


P, S = 9, 18  # 1p, 1s


def test_fixed_examples() -> None:
    """Hands worked by hand from RULES.md §4.5.2 (tiers 1, 2, 4, 8 for fan 1, 2, 3, >= 4; +1 base on a self-draw)."""
    wiki = D.CompiledDkgScorer.for_config(load_variant("duankagen"))
    wanghu = D.CompiledDkgScorer.for_config(load_variant("duankagen", fan_table="dkg_wanghu", cap_doublings=5))
    assert wiki is not None and wanghu is not None
    none = D.dkg_meld_array([])
    # 小胡 (2p3p4p 6p7p8p 3s4s5s 9s9s, no fan): refused, also as a self-draw; won on a 报胡 discard: 报胡罚 1 fan
    plain = _counts(P + 1, P + 2, P + 3, P + 5, P + 6, P + 7, S + 2, S + 3, S + 4, S + 8, S + 8)
    assert wiki.score(plain, none, 0, P + 3, self_drawn=False) == (False, 0, 0)
    assert wiki.score(plain, none, 0, P + 3, self_drawn=True) == (False, 0, 0)
    assert wiki.score(plain, none, 0, P + 3, self_drawn=False, payer_baohu=True) == (True, 1, 1)
    # 请胡炮: +3 fan -> tier 4
    assert wiki.score(plain, none, 0, P + 3, self_drawn=False, on_qinghu_discard=True) == (True, 4, 3)
    # 网狐: 鸡胡 1 may self-draw (2^0 + dkg_zimo_units 1) but not win on a discard
    assert wanghu.score(plain, none, 0, P + 3, self_drawn=True) == (True, 2, 1)
    assert wanghu.score(plain, none, 0, P + 3, self_drawn=False) == (False, 0, 0)
    # 断幺九 + 硬卡 on the 5p of 4p5p6p (discard): 2 fan -> 2; self-drawn: 断幺九 + 卡 = 2 fan -> 2 + 1
    ka = _counts(P + 3, P + 4, P + 5, S + 1, S + 2, S + 3, S + 5, S + 6, S + 7, P + 1, P + 1)
    assert wiki.score(ka, none, 0, P + 4, self_drawn=False) == (True, 2, 2)
    assert wiki.score(ka, none, 0, P + 4, self_drawn=True) == (True, 3, 2)
    # 网狐: 鸡胡 1 + 断幺九 1 + 硬卡 1 = 3 fan -> 4
    assert wanghu.score(ka, none, 0, P + 4, self_drawn=False) == (True, 4, 3)
    # 请胡 (1p1p 3p3p 5p5p 7p7p 9p9p + single 2s): 请胡 2 + 清一色 2 = 4 fan -> 8 + 1
    qh = _counts(P, P, P + 2, P + 2, P + 4, P + 4, P + 6, P + 6, P + 8, P + 8, S + 1)
    assert wiki.score(qh, none, 0, S + 1, self_drawn=True, qinghu=True) == (True, 9, 4)
    # 网狐: 清请胡 5 fan -> 16 + 1
    assert wanghu.score(qh, none, 0, S + 1, self_drawn=True, qinghu=True) == (True, 17, 5)
    # the same tiles without 请胡 are no standard hand
    assert wiki.score(qh, none, 0, S + 1, self_drawn=True) == (False, 0, 0)
    # 天和: 3 fan fixed -> 4, no self-draw unit; 报胡 penalty on the payer: 4 fan -> 8
    assert wiki.score(ka, none, 0, P + 4, self_drawn=True, tianhu=True) == (True, 4, 3)
    assert wiki.score(ka, none, 0, P + 4, self_drawn=True, tianhu=True, payer_baohu=True) == (True, 8, 4)
    # 查叫: 4p5p6p 2s3s4s 6s7s8s 2p waits on 2p (断幺九 1 fan -> 1); with 报胡 3 fan -> 4
    ready = _counts(P + 3, P + 4, P + 5, S + 1, S + 2, S + 3, S + 5, S + 6, S + 7, P + 1)
    assert wiki.ready(ready, none, 0) == 1
    assert wiki.ready(ready, none, 0, baohu=True) == 4
    assert wiki.ready(plain - _counts(S + 8), none, 0) == D.NOT_READY  # 小胡-only wait: not ready


def test_for_config() -> None:
    for cfg in (
        load_variant("chengdu"),
        load_variant("duankagen").replace(fan_table="chengdu"),
        load_variant("duankagen").replace(hand_size=13),
        load_variant("duankagen").replace(dingque=True),
        load_variant("duankagen").replace(dkg_tier_units=list(range(1, 20))),
    ):
        assert D.CompiledDkgScorer.for_config(cfg) is None
        assert D.unsupported_dkg(cfg)
        with pytest.raises(ValueError, match="does not cover"):
            D.rule_vector_dkg(cfg)
    rules = D.rule_vector_dkg(load_variant("duankagen"))
    assert rules.dtype == np.int32 and rules[D.D_NTIERS] == 4
