"""A policy trained on matches reads the whole ``chuanma-v1-match`` observation (RULES.md §11.2): its checkpoint
records that observation version, it plays matches, refuses single-hand observations by name, and a resumed run
trains to the same weights; single-hand policies keep reading the first rows of a match observation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.policy import CheckpointError, NetSpec, PolicyAgent, build_policy, check_compatible, read_meta
from envs.core.rule_config import load_variant
from envs.engine.match import match_rules
from envs.engine.match_observation import MATCH_OBS_SHAPE, MATCH_OBS_VERSION
from envs.engine.observation import OBS_SHAPE, OBS_VERSION
from tests.training.test_training import TINY_NET, tiny_config, tiny_policy
from training.evaluation.matches import play_match


def _match_config(tmp_path, **sections):
    return tiny_config(
        tmp_path,
        variant="chiyu",
        env={"match": True},
        pool={"baseline_share": 1.0, "baselines": ["random"]},
        **sections,
    )


def test_a_match_trained_policy_reads_117_planes_and_plays_a_match(tmp_path):
    from training.trainer import Trainer

    cfg = _match_config(tmp_path, total_steps=256)
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    assert trainer.model.observation_space.shape == MATCH_OBS_SHAPE
    trainer.train(progress=False)
    report = trainer.finish()
    final = tmp_path / "run" / "final.zip"
    meta = read_meta(final)
    assert meta.obs_version == MATCH_OBS_VERSION and tuple(meta.obs_shape) == MATCH_OBS_SHAPE
    assert meta.net["match"] is True
    rows = [e for e in trainer.state.evals if e["step"] == report["steps"]]
    assert rows and all(1.0 <= r["placement"] <= 4.0 for r in rows)

    agent = PolicyAgent.load(final, variant="chiyu")
    assert agent.net.match and agent.net.input_shape() == MATCH_OBS_SHAPE
    cfg_rules = load_variant("chiyu")
    summary = play_match(cfg_rules, match_rules(cfg_rules, match=True), 5, [agent, "random", "random", "random"], 1)
    assert summary["hands"] >= 1 and sum(summary["standing"]) == sum(summary["start"])

    mask = np.zeros(183, dtype=bool)
    mask[[0, 1]] = True
    with pytest.raises(ValueError, match="trained on matches .* cannot play from a single-hand 'chuanma-v1'"):
        agent.act(np.zeros(OBS_SHAPE, dtype=np.float32), mask)
    assert agent.act(np.zeros(MATCH_OBS_SHAPE, dtype=np.float32), mask) in (0, 1)


def test_the_match_planes_change_a_match_policys_logits():
    torch.manual_seed(0)
    net = NetSpec.from_dict({**TINY_NET, "match": True})
    policy = build_policy(net)
    with torch.no_grad():
        for p in policy.parameters():
            p.normal_(0.0, 0.2)
    agent = PolicyAgent.from_policy(policy, net)
    obs = np.zeros(MATCH_OBS_SHAPE, dtype=np.float32)
    other = obs.copy()
    other[OBS_SHAPE[0] + 2 :] = 0.5  # the standings and changes
    assert not np.allclose(agent.logits(obs), agent.logits(other))
    with torch.no_grad():  # the numpy actor equals the torch network on the 117 planes
        dist = policy.get_distribution(policy.obs_to_tensor(other[None])[0])
        torch_logits = dist.distribution.logits.numpy()[0]
    probs = np.exp(agent.logits(other) - agent.logits(other).max())
    np.testing.assert_allclose(probs / probs.sum(), np.exp(torch_logits), rtol=1e-4, atol=1e-6)


def test_a_single_hand_policy_reads_the_first_rows_of_a_match_observation(tmp_path):
    policy, net = tiny_policy(3)
    agent = PolicyAgent.from_policy(policy, net)
    rng = np.random.default_rng(0)
    obs = rng.random(MATCH_OBS_SHAPE).astype(np.float32)
    np.testing.assert_array_equal(agent.logits(obs), agent.logits(obs[: OBS_SHAPE[0]]))
    mask = np.ones(183, dtype=bool)
    assert agent.act(obs, mask) == agent.act(obs[: OBS_SHAPE[0]].copy(), mask)


def test_a_checkpoint_whose_network_and_observation_version_disagree_is_refused(tmp_path):
    from agents.policy import CheckpointMeta

    net = NetSpec.from_dict({**TINY_NET, "match": True})
    meta = CheckpointMeta.for_variant(load_variant("chiyu"), net, seed=0, step=0)
    assert meta.obs_version == MATCH_OBS_VERSION
    check_compatible(meta, "m")
    bad = CheckpointMeta(meta.variant, meta.variant_config, meta.net, obs_version=OBS_VERSION, obs_shape=OBS_SHAPE)
    with pytest.raises(CheckpointError, match="its network reads 'chuanma-v1-match' but its observation version"):
        check_compatible(bad, "m")


def assert_a_resumed_run_trains_the_same_weights(cfg, straight, tmp_path) -> None:
    """``straight`` (a finished run of ``cfg``) and a run of ``cfg`` stopped after one segment and resumed end with
    equal weights."""
    from training.trainer import Trainer

    first = Trainer.create(cfg, tmp_path / "split", progress=False)
    first.train(max_segments=1, progress=False)
    del first
    resumed = Trainer.resume(tmp_path / "split")
    resumed.train(progress=False)
    a, b = straight.model.policy.state_dict(), resumed.model.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_resuming_a_match_run_trains_the_same_weights(tmp_path):
    from training.trainer import Trainer

    cfg = _match_config(tmp_path, total_steps=256)
    straight = Trainer.create(cfg, tmp_path / "straight", progress=False)
    straight.train(progress=False)
    assert_a_resumed_run_trains_the_same_weights(cfg, straight, tmp_path)
