"""Match mode in the environments (RULES.md §11): one AEC episode is a whole match — 赤羽's points match or a room's
bankroll match — on either engine, with the ``chuanma-v1-match`` observation."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from envs import sichuan_mahjong_v0
from envs.backend import make_table
from envs.core.rule_config import load_variant
from envs.engine.match import MatchRules, TableMatch
from envs.engine.match_observation import MATCH_OBS_SHAPE, MATCH_OBS_VERSION
from envs.engine.observation import NUM_PLANES, OBS_SHAPE

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(
    "options",
    [{"variant": "chiyu", "match": True}, {"variant": "hongzhong", "room": "初级场", "stacks": 2000, "match_hands": 6}],
    ids=["chiyu-match", "beginner-room"],
)
def test_a_match_episode_passes_the_pettingzoo_api_test(options):
    api_test(sichuan_mahjong_v0.env(**options), num_cycles=400)


def _play_env(env, seed: int):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    hands = set()
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if "match" in info:
            hands.add(info["match"]["hand"])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if term or trunc else int(rng.choice(legal)))
    return total, hands


def test_a_chiyu_match_episode_plays_four_hands_and_its_rewards_add_up_to_the_points():
    env = sichuan_mahjong_v0.env("chiyu", match=True)
    total, hands = _play_env(env, seed=2)
    led = env.unwrapped.match
    assert led.over and hands == {0, 1, 2, 3} and sum(led.standing) == 200000
    assert [total[a] for a in env.possible_agents] == [s - 50000 for s in led.standing]
    obs = env.unwrapped.observation_space("player_0")["observation"]
    assert obs.shape == MATCH_OBS_SHAPE == (NUM_PLANES + 11, 34) and MATCH_OBS_VERSION == "chuanma-v1-match"


def test_a_bust_ends_the_room_match_and_every_agent_leaves_through_termination():
    env = sichuan_mahjong_v0.env("hongzhong", room="beginner", stacks=2000, placement="linear")
    total, _ = _play_env(env, seed=1)
    raw = env.unwrapped
    led = raw.match
    assert led.over and any(led.busted) and raw.agents == []
    placement = led.placement_rewards()
    for seat, agent in enumerate(raw.possible_agents):
        assert total[agent] == pytest.approx(led.standing[seat] - 2000 + placement[seat])
    assert sum(led.standing) == 8000


def test_the_match_planes_show_the_hand_and_every_standing():
    env = sichuan_mahjong_v0.raw_env("chiyu", match=True)
    env.reset(seed=4)
    obs = env.observe("player_1")["observation"]
    assert obs.shape == MATCH_OBS_SHAPE
    hand_rows = env.backend.observe(1)
    np.testing.assert_array_equal(obs[:NUM_PLANES], hand_rows)
    hand, left, standing = obs[NUM_PLANES], obs[NUM_PLANES + 1], obs[NUM_PLANES + 2 : NUM_PLANES + 6]
    assert hand.sum() == 0 and left.sum() == 3  # hand 0 of 4: three follow
    assert np.allclose(standing, np.log2(1 + 50) / 8) and obs[NUM_PLANES + 10, 1] == 1.0
    np.testing.assert_array_equal(env.reference_observe("player_1")["observation"], obs)


def test_match_options_are_checked():
    with pytest.raises(ValueError, match="fix one hand"):
        sichuan_mahjong_v0.raw_env("chiyu", match=True).reset(seed=1, options={"wall": list(range(34)) * 3})
    with pytest.raises(ValueError, match="unknown room"):
        sichuan_mahjong_v0.raw_env("hongzhong", room="vip")
    with pytest.raises(ValueError, match=r"must be in 2000..100000 chips, got 100"):
        sichuan_mahjong_v0.raw_env("hongzhong", room="初级场", stacks=100)
    from envs.vector_env import VectorEnv

    with pytest.raises(ValueError, match="unknown room"):
        VectorEnv("hongzhong", 2, room="vip")
    assert VectorEnv("chiyu", 2, match=True).observation_space.shape == MATCH_OBS_SHAPE
    plain = sichuan_mahjong_v0.raw_env("chiyu", match=False)  # 赤羽 opts out of its matches
    assert plain.match_rules is None and plain.observation_space("player_0")["observation"].shape == OBS_SHAPE


def test_chiyu_plays_matches_by_default_and_other_presets_single_hands():
    default = sichuan_mahjong_v0.raw_env("chiyu")
    assert default.match_rules is not None and default.match_rules.hands == 4
    assert default.observation_space("player_0")["observation"].shape == MATCH_OBS_SHAPE
    from envs.single_agent import SingleAgentEnv

    assert SingleAgentEnv("chiyu").observation_space.shape == MATCH_OBS_SHAPE
    assert sichuan_mahjong_v0.raw_env("chengdu").match_rules is None


def _play_table(engine: str, cfg, rules: MatchRules, seed: int):
    table = make_table(engine, cfg)
    match = TableMatch(table, cfg, rules, seed)
    rng = random.Random(seed)
    trace = []
    while not match.over:
        seat = table.acting_seat()
        legal = np.flatnonzero(table.legal_mask(seat))
        change = match.step(seat, int(legal[rng.randrange(len(legal))]))
        assert match.ledger.conserved()
        trace.append((seat, change))
    return trace, match.ledger.summary()


@pytest.mark.parametrize(
    ("variant", "rules"),
    [
        ("chiyu", lambda cfg: MatchRules.points(cfg)),
        ("chiyu12k", lambda cfg: MatchRules.points(cfg)),
        ("hongzhong", lambda cfg: MatchRules.for_room("初级场", cfg, 2000, hands=5)),
        ("hongzhong", lambda cfg: MatchRules.for_room("初级场", cfg, 4000, on_bust="refill", hands=4)),
        ("hongzhong", lambda cfg: MatchRules.points(cfg, hands=3, placement="linear")),
    ],
    ids=["chiyu", "chiyu-12000", "beginner", "beginner-refill", "hongzhong-3"],
)
def test_the_python_and_compiled_engines_agree_match_by_match(variant, rules):
    cfg = load_variant("chiyu", start_points=12000) if variant == "chiyu12k" else load_variant(variant)
    match_rules = rules(cfg)
    for seed in range(3):
        assert _play_table("python", cfg, match_rules, seed) == _play_table("compiled", cfg, match_rules, seed)


def test_points_are_conserved_across_whole_matches():
    """Property over random 赤羽 matches from 12 000 points (bankruptcies at a payment and at the draw): the totals
    always add up to the starts, and a match that ends before its fourth hand ends on a seat below zero."""
    cfg = load_variant("chiyu", start_points=12000)
    rules = MatchRules.points(cfg)
    early = 0
    for seed in range(12):
        _, summary = _play_table("python", cfg, rules, seed)
        assert sum(summary["standing"]) == 48000
        if summary["hand"] < 3:
            early += 1
            assert min(summary["standing"]) < 0 and any(summary["busted"])
    assert early >= 1


def test_the_single_agent_env_plays_a_whole_match_against_baselines():
    from agents.registry import make_agent
    from envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("chiyu", make_agent("greedy", 0, variant="chiyu"), seat=2, match=True)
    assert env.observation_space.shape == MATCH_OBS_SHAPE
    obs, _ = env.reset(seed=5)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += reward
        if terminated or truncated:
            break
    led = env.aec.match
    assert led.over and total == led.standing[2] - 50000 and obs.shape == MATCH_OBS_SHAPE


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "chiyu", "match": True, "placement": "linear"},
        {"variant": "hongzhong", "room": "beginner", "match_hands": 6},
    ],
    ids=["chiyu-match", "beginner-room"],
)
def test_the_match_env_is_the_same_on_both_engines(options):
    envs = [sichuan_mahjong_v0.env(engine=engine, **options) for engine in ("python", "compiled")]
    for env in envs:
        env.reset(seed=6)
    rng = np.random.default_rng(6)
    steps = 0
    for agent in envs[0].agent_iter():
        outs = [env.last() for env in envs]
        assert envs[1].agent_selection == agent
        (obs, reward, term, trunc, info), (obs2, reward2, term2, trunc2, info2) = outs
        np.testing.assert_array_equal(obs["observation"], obs2["observation"])
        np.testing.assert_array_equal(obs["action_mask"], obs2["action_mask"])
        assert (reward, term, trunc) == (reward2, term2, trunc2)
        assert info.get("match") == info2.get("match") and info["scores"] == info2["scores"]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for env in envs:
            env.step(action)
        steps += 1
    assert envs[1].unwrapped.agents == [] and steps > 50
    assert envs[0].unwrapped.match.summary() == envs[1].unwrapped.match.summary()
