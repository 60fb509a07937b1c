"""The value agent prices 武汉 Wuhan hands from the Wuhan fan table (agents/valuation.py, agents/value.py).

Plan values from RULES.md §4.8.3 (开口 / 硬胡 doublings, big wins ``wuhan_big_base`` each, per-loser payments capped
at the 封顶, every loser paying), waits priced by the engine's scorer (so a 碰碰胡 wait without a 2-5-8 pair counts),
the 吃 runs read from the observation, and no 查叫 value at exhaustion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.features import read
from agents.valuation import SELF_DRAW_SHARE, VariantValues, win_value, wuhan_wait_payments
from agents.value import ValueAgent
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS, kind_of, parse_counts
from envs.engine.observation import decode
from tests.agents.test_agents import make_obs

WUHAN = load_variant("wuhan")
T = kind_of


def test_wuhan_plan_values_follow_the_fan_table() -> None:
    v = VariantValues.of(WUHAN)
    assert v.doublings["base"] == 2.0  # 开口 ×2 and 硬胡 ×2
    ratio = WUHAN.wuhan_big_base / WUHAN.wuhan_small_base
    assert v.doublings["flush"] == pytest.approx(2.0 + math.log2(ratio))
    assert v.doublings["triplets"] == v.doublings["flush"]
    assert v.doublings["flush_triplets"] == pytest.approx(2.0 + math.log2(2 * ratio))  # two big wins add up
    assert v.shagui == 1  # a soft win loses the 硬胡 doubling
    small = v.payment(v.doublings["base"])
    assert v.payment(v.doublings["flush"]) == pytest.approx(ratio * small)
    assert v.payment(v.doublings["flush_triplets"]) == WUHAN.wuhan_caps[0]  # the 封顶
    # the other variants keep the canonical-hand values
    hz = VariantValues.of(load_variant("hongzhong"))
    assert hz.unit == 1.0 and not hz.ron_all_pay and hz.payment(hz.doublings["base"]) == 2.0


def test_wuhan_win_value_every_loser_pays_and_self_draw_doubles() -> None:
    v = VariantValues.of(WUHAN)
    p = 16.0
    share = SELF_DRAW_SHARE
    expected = share * (2 * p) * 3 + (1 - share) * (2 * p + 2 * p)  # zimo ×2 from three; ron: discarder ×2 + two
    assert win_value(v, p, 3) == pytest.approx(expected)
    capped = win_value(v, 200.0, 3)
    assert capped == pytest.approx(share * 300 * 3 + (1 - share) * (300 + 2 * 200))


def test_wuhan_wait_payments_price_big_wins_and_refuse_non_wins() -> None:
    v = VariantValues.of(WUHAN)
    # RULES §7.8 W2: pongs 2s 7s, concealed 444s 999s 5s: 5s is 清一色 + 碰碰胡 (base 20) -> capped
    melds = (Meld(MeldKind.PONG, T("2s")), Meld(MeldKind.PONG, T("7s")))
    pays = wuhan_wait_payments(WUHAN, v, list(parse_counts("444s999s5s")), melds, (T("5s"), T("1p")), indicator=T("5p"))
    assert pays[T("5s")] == WUHAN.wuhan_caps[0]
    assert pays[T("1p")] == 0.0  # not a win
    # a small hard win with a 2-5-8 pair (W1's hand, chi 345m): base 1 × 开口 2 × 硬胡 2, per-loser unit
    chi = (Meld(MeldKind.CHI, T("3m")),)
    hand = list(parse_counts("678s234p789p2m"))
    small = wuhan_wait_payments(WUHAN, v, hand, chi, (T("2m"),), indicator=T("5p"))[T("2m")]
    assert small == v.payment(v.doublings["base"]) == 16.0
    # the same shape waiting on a 3m single: the pair 33m is no 将, no big win -> not a win
    hand3 = list(parse_counts("678s234p789p3m"))
    assert wuhan_wait_payments(WUHAN, v, hand3, chi, (T("3m"),), indicator=T("5p"))[T("3m")] == 0.0
    # 碰碰胡 needs no 2-5-8 pair: pongs 1m 9p 4s, concealed 777s 33m, waits 3m / 7s... (a pair of 3m wins big)
    pph = (Meld(MeldKind.PONG, T("1m")), Meld(MeldKind.PONG, T("9p")), Meld(MeldKind.PONG, T("4s")))
    big = wuhan_wait_payments(WUHAN, v, list(parse_counts("777s3m")), pph, (T("3m"),), indicator=T("5p"))
    assert big[T("3m")] == pytest.approx(10 * small)


def _wuhan_obs(hand: str, *, pongs: str = "", chis: str = "", laizi: str = "6p", indicator: str = "5p") -> np.ndarray:
    """An own-turn Wuhan observation: :func:`tests.agents.test_agents.make_obs` plus own pongs and 吃 tiles, the 赖子
    and its indicator."""
    obs = make_obs(hand, wall=50)
    v = decode(obs)
    seen = np.zeros(NUM_KINDS, dtype=np.float32)  # copies the additions make visible
    for k, c in enumerate(parse_counts(pongs)):
        if c:
            v["pongs"][0][k] = 1
            seen[k] += 3
    chi = parse_counts(chis)
    v["chis"][0] = chi
    seen += chi
    v["wild_kinds"][T(laizi)] = 1
    v["indicator"][T(indicator)] = 1
    seen[T(indicator)] += 1
    v["visible"][:] += seen
    return obs


def _agent(obs: np.ndarray) -> ValueAgent:
    agent = ValueAgent()
    agent.reset(0, WUHAN)
    agent._read_chis(obs)
    return agent


def test_value_agent_reads_its_chi_runs_from_the_observation() -> None:
    obs = _wuhan_obs("456s789s11p", chis="123m123m345p")
    agent = _agent(obs)
    assert agent._chi_lows == (T("1m"), T("1m"), T("3p"))
    assert agent._laizi == T("6p") and agent._indicator == T("5p")
    assert read(obs).chi_runs == 3


def test_value_agent_counts_a_big_win_wait_without_a_258_pair() -> None:
    # pongs 1m 9p 4s, concealed 77s 33m + 6m: after discarding 6m the hand waits 3m / 7s as 碰碰胡 (pairs 33m / 77s
    # are no 将, so a small win is impossible, but 碰碰胡 needs none)
    obs = _wuhan_obs("77s33m6m", pongs="1m9p4s")
    agent = _agent(obs)
    seen = read(obs, in_play=tuple(WUHAN.kinds))
    counts = list(seen.counts)
    counts[T("6m")] -= 1
    value, useful, plan = agent.hand_value(seen, counts, 0, seen.melded, seen.n_melds)
    assert useful > 0 and plan == "standard"
    # the same pongs with a 2-5-8 pair and a 34s run waiting 2s / 5s (small wins only) is worth far less
    obs2 = _wuhan_obs("34s55m6m", pongs="1m9p4p")
    agent2 = _agent(obs2)
    seen2 = read(obs2, in_play=tuple(WUHAN.kinds))
    c2 = list(seen2.counts)
    c2[T("6m")] -= 1  # 34s 55m: waits 2s / 5s with the 将 55m
    small, useful2, _ = agent2.hand_value(seen2, c2, 0, seen2.melded, seen2.n_melds)
    assert useful2 > 0
    assert value > 3 * small


def test_value_agent_has_no_exhaustion_value_in_wuhan() -> None:
    agent = ValueAgent()
    agent.reset(0, WUHAN)
    assert agent._ready_value == 0.0
    agent.reset(0, load_variant("chengdu"))
    assert agent._ready_value > 0.0
    forced = ValueAgent(exhaustion_weight=1.0)
    forced.reset(0, WUHAN)
    assert forced._ready_value > 0.0
