"""Hand-evaluation feature planes (agents/learned/hand_features.py) and the policies / training runs that use them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.features import read
from agents.handeval import dead_mask_for, shanten_dead
from agents.learned.hand_features import HAND_FEATURE_PLANES, HAND_FEATURES_VERSION, HandFeatures
from agents.learned.net_input import NetInput, NetInputObservation
from agents.policy import NetSpec, PolicyAgent, build_policy, save_policy
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.engine.observation import OBS_SHAPE
from envs.engine.view import Phase
from envs.sichuan_mahjong_v0 import raw_env


def _observations(variant: str, seed: int, limit: int):
    """(observation, mask) of every decision of random play, seeded."""
    env = raw_env(variant=variant)
    rng = np.random.default_rng(seed)
    out = []
    env.reset(seed=seed)
    while len(out) < limit:
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 30)))
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        o = env.observe(agent)
        out.append((o["observation"].copy(), o["action_mask"].copy()))
        env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def torch_logits(policy, net_input: np.ndarray) -> np.ndarray:
    """The torch policy's action logits of one network input ``(rows, 34)`` (the reference for the numpy actor)."""
    with torch.no_grad():
        full = torch.as_tensor(net_input[None])
        return policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(full)))[0].numpy()


def _brute_shanten(seen, counts, wilds, cfg):
    allowed = sum(1 << k for k in cfg.kinds if k < NUM_SUITED)
    return shanten_dead(counts, wilds, dead=dead_mask_for(seen.void), allowed=allowed, melded=seen.melded)


def _draws_improving(seen, counts, wilds, s, cfg):
    """Live copies of the kinds whose draw lowers the shanten ``s`` of ``counts`` + ``wilds`` (brute force)."""
    total = 0
    for t in cfg.kinds:
        if seen.live[t] == 0 or (t >= NUM_SUITED and t not in seen.wild_kinds):
            continue
        if seen.void is not None and t // 9 == seen.void and t < NUM_SUITED:
            continue  # a void-suit tile (定缺) must be discarded: it never helps
        c = list(counts)
        if t in seen.wild_kinds:
            s_after = _brute_shanten(seen, c, wilds + 1, cfg)
        else:
            c[t] += 1
            s_after = _brute_shanten(seen, c, wilds, cfg)
        if s_after < s:
            total += seen.live[t]
    return total


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_planes_match_a_brute_force_count_of_shanten_and_live_draws(variant):
    """Every plane is recomputed by brute force: shanten per discard, and live draws that lower the shanten."""
    cfg = load_variant(variant)
    hf = HandFeatures(cfg)
    checked = {Phase.SELF: 0, Phase.CLAIM: 0}
    for obs, _mask in _observations(variant, 3, 300):
        planes = hf.planes(obs)
        assert planes.shape == (HAND_FEATURE_PLANES, NUM_KINDS) and planes.min() >= 0 and planes.max() <= 1
        assert np.all(planes[4] == planes[4, 0])  # a broadcast plane
        seen = read(obs, in_play=tuple(cfg.kinds))
        if seen.phase not in checked:
            assert not planes.any()
            continue
        checked[seen.phase] += 1

        if (sum(seen.counts) + seen.wilds) % 3 == 2:
            after = {}
            for k in range(NUM_KINDS):
                if not seen.hand[k]:
                    assert planes[0, k] == planes[1, k] == planes[2, k] == 0
                    continue
                c, w = list(seen.counts), seen.wilds
                if k in seen.wild_kinds:
                    w -= 1
                else:
                    c[k] -= 1
                after[k] = (c, w, _brute_shanten(seen, c, w, cfg))
                assert planes[0, k] == pytest.approx(min((after[k][2] + 1) / 8, 1.0))
            best = min(s for _, _, s in after.values())
            for k, (c, w, s) in after.items():
                assert planes[1, k] == (1.0 if s == best else 0.0)
                if s == best:
                    assert planes[2, k] == pytest.approx(min(_draws_improving(seen, c, w, s, cfg) / 40, 1.0))
            assert planes[4, 0] == pytest.approx(min((best + 1) / 8, 1.0))
        else:
            s = _brute_shanten(seen, seen.counts, seen.wilds, cfg)
            assert planes[4, 0] == pytest.approx(min((s + 1) / 8, 1.0))
            for t in range(NUM_KINDS):
                if planes[3, t]:
                    c = list(seen.counts)
                    c[t] += 1
                    assert _brute_shanten(seen, c, seen.wilds, cfg) < s
    assert checked[Phase.SELF] > 30 and checked[Phase.CLAIM] > 10


def test_net_input_appends_the_planes_after_the_observation():
    hf = HandFeatures("chengdu")
    obs, _ = _observations("chengdu", 5, 40)[-1]
    full = NetInput("chengdu", hand_features=True).build(obs)
    assert full.shape == (OBS_SHAPE[0] + HAND_FEATURE_PLANES, NUM_KINDS) and full.dtype == np.float32
    np.testing.assert_array_equal(full[: OBS_SHAPE[0]], obs)
    np.testing.assert_array_equal(full[OBS_SHAPE[0] :], hf.planes(obs))


def test_netspec_refuses_an_unknown_feature_version():
    with pytest.raises(ValueError, match="hand_features 'chuanma-hand-v0' is not supported"):
        NetSpec(hand_features="chuanma-hand-v0")


def test_policy_agent_computes_the_planes_itself_and_round_trips(tmp_path):
    """A hand-feature policy plays raw observations; its checkpoint reloads to the same logits; it needs a variant."""
    from agents.policy import CheckpointMeta

    cfg = load_variant("hongzhong")
    torch.manual_seed(0)
    net = NetSpec(features_dim=32, channels=8, honor_channels=2, broadcast_dim=8, hand_features=HAND_FEATURES_VERSION)
    policy = build_policy(net)
    assert policy.observation_space.shape == (OBS_SHAPE[0] + HAND_FEATURE_PLANES, NUM_KINDS)
    meta = CheckpointMeta.for_variant(cfg, net, seed=0, step=0)
    agent = PolicyAgent.from_policy(policy, net, meta)
    obs, mask = _observations("hongzhong", 1, 30)[-1]
    expected = torch_logits(policy, NetInput(cfg, hand_features=True).build(obs))
    np.testing.assert_allclose(agent.logits(obs), expected, rtol=1e-4, atol=1e-4)
    path = save_policy(tmp_path / "p.zip", policy, meta)
    loaded = PolicyAgent.load(path, variant="hongzhong")
    np.testing.assert_array_equal(loaded.logits(obs), agent.logits(obs))
    assert mask[loaded.act(obs, mask)]
    bare = PolicyAgent.from_policy(policy, net)  # no metadata: the variant must come from reset
    with pytest.raises(ValueError, match="needs the variant"):
        bare.act(obs, mask)
    bare.reset(0, cfg)
    np.testing.assert_array_equal(bare.logits(obs), agent.logits(obs))


def test_single_agent_wrapper_observations_carry_the_planes():
    from envs.single_agent import SingleAgentEnv

    cfg = load_variant("chengdu")
    from agents.registry import make_agent

    opponents = [make_agent("random", seed) for seed in range(3)]
    env = NetInputObservation(SingleAgentEnv(cfg, opponents, seat=0), NetInput(cfg, hand_features=True))
    obs, _ = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    for _ in range(30):
        mask = env.get_wrapper_attr("action_masks")()
        obs, _r, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        assert obs.shape == env.observation_space.shape
        np.testing.assert_array_equal(obs[OBS_SHAPE[0] :], HandFeatures(cfg).planes(obs[: OBS_SHAPE[0]]))
        if term or trunc:
            break


def test_selfplay_env_of_a_hand_feature_config_observes_the_planes(tmp_path):
    from tests.training.test_training import tiny_config
    from training.selfplay import make_selfplay_env

    cfg = tiny_config(tmp_path, net={"hand_features": True})
    env = make_selfplay_env(cfg)
    obs, _ = env.reset(seed=3)
    assert obs.shape == (OBS_SHAPE[0] + HAND_FEATURE_PLANES, NUM_KINDS) and env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[OBS_SHAPE[0] :], HandFeatures("hongzhong").planes(obs[: OBS_SHAPE[0]]))
    assert env.get_wrapper_attr("action_masks")().shape == (183,)


def test_training_with_hand_features_runs_and_loads(tmp_path):
    """BC data, the batched self-play env and the saved policy all carry / compute the planes."""
    from tests.training.test_training import tiny_config
    from training.evaluation.evaluate import play_hand
    from training.trainer import Trainer

    cfg = tiny_config(
        tmp_path,
        total_steps=128,
        env={"vec_env": "batched"},
        net={"hand_features": True},
        bc={"decisions": 32, "epochs": 1, "batch_size": 16, "teacher": "greedy"},
    )
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    assert trainer.model.observation_space.shape == (OBS_SHAPE[0] + HAND_FEATURE_PLANES, NUM_KINDS)
    trainer.train(progress=False)
    report = trainer.finish()
    assert report["steps"] == 128
    agent = PolicyAgent.load(tmp_path / "run" / "final.zip", variant="hongzhong")
    assert agent.features is not None
    from agents.registry import make_agent

    game = play_hand(load_variant("hongzhong"), 5, [agent, make_agent("random", 1), make_agent("random", 2), agent])
    assert game.is_over and sum(game.scores) == 0
