"""Defensive agent (防守): fitted danger model, folding in the wildcard variants, value play when nobody threatens."""

from __future__ import annotations

import pytest

from agents.danger import danger_by_kind, deal_in_by_kind, expected_wilds, ready_estimate, wait_probability
from agents.defensive import OFF, TINGYONG_FOLD_RISK, WILD_FOLD_RISK, DefensiveAgent
from agents.features import read
from agents.greedy import GreedyAgent
from agents.valuation import VariantValues
from agents.value import ValueAgent
from envs.core.actions import action_name
from envs.core.rule_config import load_variant
from envs.core.tiles import parse_counts
from tests.agents.test_agents import discard_mask, make_obs

# own hand (void 筒): 123m 234s 678s, pair 11m, 89m, a loose 5m.  Throwing 5m keeps the hand ready (waiting 7m);
# throwing any 条 breaks a set (one step slower).
HAND = "11m 123m 5m 89m 234s 678s"
# a 下家 with twelve discards (very likely ready) whose void suit is 条; the other two seats already won and left
THREAT = (
    {"discards": "1p 2p 3p 4p 5p 6p 7p 9p 1p 2p 9m 1m", "void": 2},
    {"active": False, "discards": "7p"},
    {"active": False, "discards": "8p"},
)
# the same table early: nobody has discarded much
QUIET = (
    {"discards": "1p 9p", "void": 2},
    {"discards": "2p", "void": 1},
    {"discards": "9s", "void": 2},
)


def _agent(cls, variant: str, **options):
    agent = cls(**options)
    agent.reset(0, load_variant(variant))
    return agent


def test_folds_to_the_void_suit_of_a_ready_opponent_in_hongzhong() -> None:
    cfg = load_variant("hongzhong")
    obs = make_obs(HAND, void=1, opponents=THREAT, wall=30, wild=True)
    seen = read(obs, in_play=cfg.kinds)
    rows = deal_in_by_kind(seen, cfg)
    assert ready_estimate(seen.opponents[0], expected_wilds(cfg, seen.wild_kinds)) > 0.8
    assert all(rows[0][k] == 0.0 for k in range(18, 27))  # its void suit cannot be won on
    assert rows[0][4] > 0.2  # 5m: a middle tile it never discarded
    mask = discard_mask(HAND)
    # speed and value both keep the ready hand by throwing the dangerous 5m ...
    assert action_name(_agent(GreedyAgent, "hongzhong").act(obs, mask)) == "discard 5m"
    assert action_name(_agent(ValueAgent, "hongzhong").act(obs, mask)) == "discard 5m"
    # ... the defender gives the readiness up and throws a 条, safe against the only opponent left
    choice = _agent(DefensiveAgent, "hongzhong").act(obs, mask)
    assert 18 <= choice < 27, action_name(choice)


def test_pushes_like_the_value_agent_when_nobody_threatens() -> None:
    obs = make_obs(HAND, void=1, opponents=QUIET, wall=50, wild=True)
    mask = discard_mask(HAND)
    value = _agent(ValueAgent, "hongzhong").act(obs, mask)
    assert action_name(_agent(DefensiveAgent, "hongzhong").act(obs, mask)) == action_name(value) == "discard 5m"


def test_risk_folding_is_on_in_the_sichuan_wildcard_variants_only() -> None:
    assert _agent(DefensiveAgent, "hongzhong").fold_risk == WILD_FOLD_RISK
    assert _agent(DefensiveAgent, "yibin").fold_risk == TINGYONG_FOLD_RISK
    assert _agent(DefensiveAgent, "chengdu").fold_risk == OFF
    assert _agent(DefensiveAgent, "wuhan").fold_risk == OFF  # 赖子 wildcards: folding lost points there
    assert _agent(DefensiveAgent, "chengdu", fold_risk="0.3/0.1").fold_risk == (0.3, 0.1)
    assert _agent(DefensiveAgent, "hongzhong", fold_risk="off").fold_risk == OFF
    # in 成都 (no wildcards) the same table is played for readiness: folding there lost points on the tuning walls
    obs = make_obs(HAND, void=1, opponents=THREAT, wall=30)
    assert action_name(_agent(DefensiveAgent, "chengdu").act(obs, discard_mask(HAND))) == "discard 5m"
    # with folding switched on it gives the hand up there too
    assert 18 <= _agent(DefensiveAgent, "chengdu", fold_risk="0.1").act(obs, discard_mask(HAND)) < 27


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"fold_risk": "0.2/x"}, "fold_risk"),
        ({"fold_risk": "-0.1"}, "non-negative"),
        ({"fold_risk": 0.2}, "fold_risk"),
        ({"fold_ratio": 1.5}, "fold_ratio"),
        ({"safe_first_shanten": -1}, "safe_first_shanten"),
        ({"safe_first_shanten": 1.5}, "safe_first_shanten"),
        ({"safe_first_shanten": True}, "safe_first_shanten"),
        ({"steer": "fast"}, r"steer must be one of \['value', 'speed'\]"),
        ({"steer": None}, "steer"),
        ({"live_slack": -1}, "live_slack"),
        ({"live_slack": 1.5}, "live_slack"),
        ({"live_slack": 2}, "only applies with steer='speed'"),
    ],
)
def test_bad_options_are_rejected(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        DefensiveAgent(**options)


def test_danger_model_reads_discards_wildcards_and_passed_tiles() -> None:
    hz = load_variant("hongzhong")
    cd = load_variant("chengdu")
    early = make_obs(HAND, void=1, opponents=({"discards": "1p 2p 3p", "void": 2},), n_players=2, wild=True)
    late = make_obs(HAND, void=1, opponents=({"discards": "1p 2p 3p 4p 5p 6p 7p 8p", "void": 2},), n_players=2)
    p_early = ready_estimate(read(early).opponents[0], expected_wilds(hz, (31,)))
    p_late = ready_estimate(read(late).opponents[0])
    assert 0.0 < p_early < p_late < 1.0
    # late in a hand, a table with wildcards is more likely ready
    opp = read(late).opponents[0]
    assert ready_estimate(opp, expected_wilds(hz, (31,))) > ready_estimate(opp, 0.0)
    # a tile the opponent threw itself, or one a later seat threw after its last discard, is rarely a wait
    seen = read(make_obs(HAND, void=1, opponents=THREAT, wall=30))
    threat = seen.opponents[0]
    assert wait_probability(seen, threat, 0) < 0.2 * wait_probability(seen, threat, 4)  # 1m (discarded) vs 5m
    assert wait_probability(seen, threat, 4, passed=True) < 0.2 * wait_probability(seen, threat, 4)
    assert wait_probability(seen, threat, 22) == 0.0  # its void suit
    # a seat that left the hand (血战 winner) is no danger; the expected loss is in payment units
    danger = danger_by_kind(seen, cd, VariantValues.of(cd))
    rows = deal_in_by_kind(seen, cd)
    assert rows[1] == [0.0] * 34 and rows[2] == [0.0] * 34
    stake = VariantValues.of(cd).payment(VariantValues.of(cd).doublings["base"] + 1)
    assert danger[4] == pytest.approx(rows[0][4] * stake)
    assert parse_counts(HAND)[4] == 1


def test_value_and_greedy_options_pass_through_to_the_defender() -> None:
    """The defender takes its bases' options (by name in a spec too) and still refuses unknown ones."""
    from agents.registry import make_agent

    agent = make_agent("defensive:variant_actions=false,slack=1,fold_risk=off")
    assert agent.variant_actions is False and agent.slack == 1 and agent.fold_risk_spec == "off"
    with pytest.raises(ValueError, match=r"has no option\(s\) \['bogus'\]"):
        make_agent("defensive:bogus=1")


# a 红中 table with three likely-ready opponents (void 条, 筒, 条)
HZ_TABLE = (
    {"discards": "1s 2s 9s 4s 1m 9m 5m", "void": 2},
    {"discards": "1p 2p 8s 9m 6s 7s", "void": 1},
    {"discards": "3s 9s 1m 2m 7m", "void": 2},
)


def test_safe_first_takes_the_safest_discard_of_a_hand_that_is_not_ready() -> None:
    # one step from ready: the value play throws 7m (deal-in chance ~0.22); safe-first from one step away throws 2m
    # (~0.11), as fast
    hand = "2m2m3m4m4m6m6m7m3p4p4p5p6p7p"
    obs = make_obs(hand, void=2, wall=30, opponents=HZ_TABLE, wild=True)
    mask = discard_mask(hand, 2)
    hz = load_variant("hongzhong")
    risk = [sum(col) for col in zip(*deal_in_by_kind(read(obs), hz))]
    safe = _agent(DefensiveAgent, "hongzhong", safe_first_shanten=1).act(obs, mask)
    off = _agent(DefensiveAgent, "hongzhong").act(obs, mask)  # off by default
    assert action_name(safe) == "discard 2m" and action_name(off) == "discard 7m"
    assert risk[safe] < risk[off]
    # the threshold is a shanten: from two steps away it leaves this one-step hand to the value play
    assert _agent(DefensiveAgent, "hongzhong", safe_first_shanten=2).act(obs, mask) == off
    assert _agent(DefensiveAgent, "hongzhong", safe_first_shanten="off").act(obs, mask) == off


def test_speed_steer_keeps_greedy_speed_and_takes_the_safer_of_equally_fast_discards() -> None:
    # a ready hand: throwing 9p or 8p both leave seven live winning tiles; greedy (terminals first) and the value
    # play throw 9p (deal-in chance ~0.16), steer="speed" throws the as-fast 8p (~0.12)
    hand = "2m2m3m4m5m5p5p6p7p7p8p8p8p9p"
    obs = make_obs(hand, void=2, wall=40, opponents=HZ_TABLE, wild=True)
    mask = discard_mask(hand, 2)
    hz = load_variant("hongzhong")
    seen = read(obs, in_play=hz.kinds)
    risk = [sum(col) for col in zip(*deal_in_by_kind(seen, hz))]
    speed = _agent(DefensiveAgent, "hongzhong", steer="speed")
    greedy = _agent(GreedyAgent, "hongzhong").act(obs, mask)
    assert action_name(greedy) == "discard 9p"
    assert action_name(_agent(DefensiveAgent, "hongzhong").act(obs, mask)) == "discard 9p"  # steer="value"
    choice = speed.act(obs, mask)
    assert action_name(choice) == "discard 8p"
    assert risk[choice] < risk[greedy]
    keys = {k: key for key, k in speed._discard_options(seen, [k for k in range(34) if seen.counts[k]])}
    assert keys[choice][:2] == keys[greedy][:2] == (0, -7)  # as fast: ready, seven live winning tiles
    # the pick is the safest of the as-fast discards
    as_fast = [k for k, key in keys.items() if key[:2] == (0, -7)]
    assert risk[choice] == min(risk[k] for k in as_fast)
