"""Advisor planes (agents/learned/advice.py), the network input that carries them and the policies trained with them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned.advice import ADVICE_PLANES, ADVICE_VERSION, GROUPS, Advisor, decode, encode, encode_batch
from agents.learned.hand_features import HAND_FEATURE_PLANES, HandFeatures
from agents.learned.net_input import NetInput, NetInputObservation, NetInputVecEnv
from agents.policy import CheckpointMeta, NetSpec, PolicyAgent, build_policy, save_policy
from agents.registry import make_agent
from envs.core.actions import ACTION_SPACE_SIZE, action_name
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS
from envs.engine.observation import OBS_SHAPE
from tests.agents.test_hand_features import _observations, torch_logits

TINY = {"features_dim": 32, "channels": 8, "honor_channels": 2, "broadcast_dim": 8}


def test_every_action_id_encodes_to_planes_that_decode_to_it():
    out = np.zeros((ADVICE_PLANES, NUM_KINDS), dtype=np.float32)
    seen = set()
    for a in range(ACTION_SPACE_SIZE):
        planes = encode(a, out).copy()
        assert decode(planes) == a, action_name(a)
        assert planes[1:, 0].sum() == 1 and (planes[1:] == planes[1:, :1]).all()  # one broadcast group row
        seen.add(planes.tobytes())
    assert len(seen) == ACTION_SPACE_SIZE and len(GROUPS) == ADVICE_PLANES - 1
    assert decode(np.zeros_like(out)) is None
    with pytest.raises(ValueError, match="outside the flat layout"):
        encode(ACTION_SPACE_SIZE, out)
    bad = np.zeros_like(out)
    bad[1 + GROUPS.index("pong"), :] = 1.0
    bad[0, 3] = 1.0  # a pong names no tile
    with pytest.raises(ValueError, match="group 'pong' with tile kind 3"):
        decode(bad)


def test_a_batch_of_actions_encodes_as_each_alone():
    """encode_batch writes every row's planes as encode does (stale values in ``out`` are cleared), and refuses an
    id outside the layout."""
    actions = np.array([*range(ACTION_SPACE_SIZE), 5, 5, ACTION_SPACE_SIZE - 1])
    out = np.ones((actions.size, ADVICE_PLANES, NUM_KINDS), dtype=np.float32)
    encode_batch(actions, out)
    one = np.zeros((ADVICE_PLANES, NUM_KINDS), dtype=np.float32)
    for i, a in enumerate(actions.tolist()):
        assert np.array_equal(out[i], encode(a, one)), action_name(a)
    with pytest.raises(ValueError, match="action id -1 is outside the flat layout"):
        encode_batch(np.array([3, -1]), out[:2])


@pytest.mark.parametrize(
    "variant, name",
    [("wuhan", "value"), ("chengdu", "greedy"), ("hongzhong", "defensive"), ("chengdu", "value:late_wall=8")],
)
def test_advisor_planes_name_the_advisor_agents_own_choice(variant, name):
    cfg = load_variant(variant)
    advisor = Advisor(cfg, name)
    reference = make_agent(name)
    reference.reset(2, cfg)
    decisions = _observations(variant, 11, 250)
    groups = set()
    for obs, mask in decisions:
        planes = advisor.planes(obs, mask)
        advised = decode(planes)
        assert advised == reference.act(obs, mask) and mask[advised]
        groups.add(GROUPS[int(np.flatnonzero(planes[1:, 0])[0])])
    assert "discard" in groups and len(groups) >= 3
    if variant == "wuhan":
        assert {"chi_low", "chi_middle", "chi_high", "red_kong", "laizi_kong", "pong"} & groups
    assert not advisor.planes(decisions[0][0], np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)).any()
    obs = np.stack([o for o, _ in decisions])
    masks = np.stack([m for _, m in decisions])
    masks[3] = 0  # a row without a decision gets zero planes
    batch = advisor.planes_batch(obs, masks, np.full((len(decisions), ADVICE_PLANES, NUM_KINDS), 7.0, np.float32))
    single = [advisor.planes(o, m) for o, m in zip(obs, masks)]
    np.testing.assert_array_equal(batch, np.stack(single))


def test_advisor_names_and_versions_are_checked(tmp_path):
    with pytest.raises(ValueError, match="unknown advisor 'random'"):
        Advisor("chengdu", "random")
    with pytest.raises(ValueError, match="advisor 'random' / advice"):
        NetSpec(advisor="random", advice=ADVICE_VERSION)
    with pytest.raises(ValueError, match="advice 'chuanma-advice-v0'"):
        NetSpec(advisor="value", advice="chuanma-advice-v0")
    with pytest.raises(ValueError, match="advisor '' / advice"):
        NetSpec(advisor="", advice=ADVICE_VERSION)
    from tests.training.test_training import tiny_config
    from training.train_config import TrainConfigError

    with pytest.raises(TrainConfigError, match="'net.advisor' = 'oracle': unknown advisor 'oracle'"):
        tiny_config(tmp_path, net={"advisor": "oracle"})
    with pytest.raises(TrainConfigError, match=r"'net.advisor' = 'value:no_such=1'.*no option\(s\) \['no_such'\]"):
        tiny_config(tmp_path, net={"advisor": "value:no_such=1"})
    with pytest.raises(ValueError, match="late_wall must be a non-negative int"):
        Advisor("chengdu", "value:late_wall=-1")
    with pytest.raises(ValueError, match=r"advisor 'value:no_such=1' / advice.*no option\(s\) \['no_such'\]"):
        NetSpec(advisor="value:no_such=1", advice=ADVICE_VERSION)
    spec = tiny_config(tmp_path, net={"advisor": "greedy"}).net.spec()
    assert (spec.advisor, spec.advice) == ("greedy", ADVICE_VERSION)
    spec = tiny_config(tmp_path, net={"advisor": "defensive:danger_weight=2"}).net.spec()
    assert (spec.advisor, spec.advice) == ("defensive:danger_weight=2", ADVICE_VERSION)
    assert tiny_config(tmp_path).net.spec().advice == ""


def test_net_input_layout_and_the_mask_it_needs():
    cfg = load_variant("wuhan")
    obs, mask = _observations("wuhan", 3, 60)[-1]
    both = NetInput(cfg, hand_features=True, advisor="value")
    assert both.rows == OBS_SHAPE[0] + HAND_FEATURE_PLANES + ADVICE_PLANES and both.needs_mask
    full = both.build(obs, mask)
    assert full.shape == (both.rows, NUM_KINDS) and both.space().contains(full)
    np.testing.assert_array_equal(full[: OBS_SHAPE[0]], obs)
    hand = full[OBS_SHAPE[0] : OBS_SHAPE[0] + HAND_FEATURE_PLANES]
    np.testing.assert_array_equal(hand, HandFeatures(cfg).planes(obs))
    np.testing.assert_array_equal(full[-ADVICE_PLANES:], Advisor(cfg, "value").planes(obs, mask))
    with pytest.raises(ValueError, match="advisor 'value' needs the legal-action mask"):
        both.build(obs)
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        both.build_batch(obs[None])
    np.testing.assert_array_equal(both.build_batch(obs[None], mask[None])[0], full)
    advice_only = NetInput(cfg, advisor="greedy")
    assert advice_only.rows == OBS_SHAPE[0] + ADVICE_PLANES
    assert not NetInput(cfg, hand_features=True).needs_mask


def test_policy_with_an_advisor_plays_from_the_mask_and_round_trips(tmp_path):
    cfg = load_variant("wuhan")
    torch.manual_seed(0)
    net = NetSpec(**TINY, advisor="value", advice=ADVICE_VERSION)
    policy = build_policy(net)
    assert policy.observation_space.shape == (OBS_SHAPE[0] + ADVICE_PLANES, NUM_KINDS)
    meta = CheckpointMeta.for_variant(cfg, net, seed=0, step=0)
    agent = PolicyAgent.from_policy(policy, net, meta)
    obs, mask = _observations("wuhan", 4, 40)[-1]
    expected = torch_logits(policy, NetInput(cfg, advisor="value").build(obs, mask))
    np.testing.assert_allclose(agent.logits(obs, mask), expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        agent.logits(obs)
    loaded = PolicyAgent.load(save_policy(tmp_path / "p.zip", policy, meta), variant="wuhan")
    assert loaded.net.advisor == "value"
    np.testing.assert_array_equal(loaded.logits(obs, mask), agent.logits(obs, mask))
    assert mask[loaded.act(obs, mask)]


def test_training_envs_carry_the_advice_of_their_current_decision(tmp_path):
    """The single-agent wrapper and the batched VecEnv wrapper compute the advice from each slot's legal mask."""
    from envs.single_agent import SingleAgentEnv
    from envs.vector_env import VectorEnv

    cfg = load_variant("wuhan")
    net_input = NetInput(cfg, advisor="greedy")
    env = NetInputObservation(SingleAgentEnv(cfg, [make_agent("random", s) for s in range(3)], seat=1), net_input)
    greedy = make_agent("greedy")
    greedy.reset(1, cfg)
    obs, _ = env.reset(seed=2)
    for _ in range(40):
        mask = env.get_wrapper_attr("action_masks")()
        assert decode(obs[OBS_SHAPE[0] :]) == greedy.act(obs[: OBS_SHAPE[0]], mask)
        obs, _r, term, trunc, _ = env.step(int(np.flatnonzero(mask)[-1]))
        if term or trunc:
            assert decode(obs[OBS_SHAPE[0] :]) is None  # nothing is legal after the hand
            break
    venv = NetInputVecEnv(VectorEnv(cfg, 3, seat="random", seed=5), net_input)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = np.stack(venv.env_method("action_masks"))
        for row, mask in zip(obs, masks):
            assert decode(row[OBS_SHAPE[0] :]) == greedy.act(row[: OBS_SHAPE[0]], mask)
        obs, _r, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for done, info in zip(dones, infos):
            if done:
                assert decode(info["terminal_observation"][OBS_SHAPE[0] :]) is None


def test_training_with_an_advisor_clones_it_and_plays(tmp_path):
    """BC data carries the advice; after cloning the advisor itself the policy copies it on held-out decisions."""
    from tests.training.test_training import tiny_config
    from training.bc import collect_decisions
    from training.evaluation.evaluate import play_hand
    from training.trainer import Trainer

    cfg = tiny_config(
        tmp_path,
        total_steps=128,
        env={"vec_env": "batched"},
        net={"advisor": "greedy"},
        bc={"decisions": 2000, "epochs": 20, "batch_size": 32, "teacher": "greedy", "learning_rate": 3e-3},
    )
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    assert trainer.model.observation_space.shape == (OBS_SHAPE[0] + ADVICE_PLANES, NUM_KINDS)
    trainer.train(progress=False)
    report = trainer.finish()
    assert report["steps"] == 128 and report["bc"]["heldout_accuracy"] > 0.85
    agent = PolicyAgent.load(tmp_path / "run" / "final.zip", variant="hongzhong")
    held_out = collect_decisions(load_variant("hongzhong"), "greedy", 300, 99, advisor="greedy")
    advised = [decode(o[OBS_SHAPE[0] :]) for o in held_out.observations]
    assert advised == held_out.actions.tolist()  # the teacher's own action stands in for the advisor's
    copies = [agent.act(o[: OBS_SHAPE[0]].astype(np.float32), m) == a for o, m, a in zip(*_rows(held_out))]
    assert np.mean(copies) > 0.85
    game = play_hand(load_variant("hongzhong"), 5, [agent, make_agent("random", 1), make_agent("random", 2), agent])
    assert game.is_over and sum(game.scores) == 0


def _rows(data):
    return data.observations, data.masks, data.actions


def test_selfplay_env_of_an_advised_config_observes_the_advice(tmp_path):
    from tests.training.test_training import tiny_config
    from training.selfplay import make_selfplay_env

    cfg = tiny_config(tmp_path, variant="wuhan", net={"advisor": "value", "hand_features": True})
    env = make_selfplay_env(cfg)
    value = make_agent("value")
    value.reset(0, load_variant("wuhan"))
    obs, _ = env.reset(seed=3)
    for _ in range(20):
        assert obs.shape == (OBS_SHAPE[0] + HAND_FEATURE_PLANES + ADVICE_PLANES, NUM_KINDS)
        mask = env.get_wrapper_attr("action_masks")()
        assert decode(obs[-ADVICE_PLANES:]) == value.act(obs[: OBS_SHAPE[0]], mask)
        obs, _r, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        if term or trunc:
            break


def test_an_advised_run_resumes_exactly(tmp_path):
    """Interrupted and resumed, a run with an advisor ends with the same weights as the run played straight."""
    from tests.training.test_training import tiny_config
    from training.trainer import Trainer

    cfg = tiny_config(tmp_path, total_steps=256, net={"advisor": "greedy"}, pool={"baselines": ["greedy"]})
    first = Trainer.create(cfg, tmp_path / "run", progress=False)
    first.train(max_segments=1, progress=False)
    del first
    resumed = Trainer.resume(tmp_path / "run")
    resumed.train(progress=False)
    straight = Trainer.create(cfg, tmp_path / "straight", progress=False)
    straight.train(progress=False)
    assert resumed.state.num_timesteps == straight.state.num_timesteps == 256
    a, b = straight.model.policy.state_dict(), resumed.model.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
