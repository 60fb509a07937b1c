"""Batched environment: decision-by-decision equality with the single-agent wrapper and the AEC env, auto-reset,
opponent batching, the sb3 VecEnv API and a short MaskablePPO run."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.rule_config import ENGINE_PRESETS
from envs.core.wall import hand_seed
from envs.engine.observation import OBS_SHAPE
from envs.sichuan_mahjong_v0 import raw_env
from envs.single_agent import SingleAgentEnv
from envs.vector_env import VectorEnv

sb3 = pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv  # noqa: E402

VARIANTS = ENGINE_PRESETS  # every preset the engine plays


def _masked_choice(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _compare_with_single_agent(variant, *, steps, n=3, seed=5, opponents=None, batch_opponents=None, **options):
    """Drive DummyVecEnv([SingleAgentEnv]) and VectorEnv with the same actions; every output must be equal."""
    ref = DummyVecEnv([lambda: SingleAgentEnv(variant, opponents, match=False, **options) for _ in range(n)])
    ref.seed(seed)
    venv = VectorEnv(variant, n, seed=seed, opponents=batch_opponents or opponents, **options)
    assert np.array_equal(ref.reset(), venv.reset())
    rng = np.random.default_rng(seed)
    episodes = 0
    for t in range(steps):
        masks = np.stack(ref.env_method("action_masks"))
        assert np.array_equal(masks, np.stack(venv.env_method("action_masks"))), f"mask differs at step {t}"
        assert np.array_equal(masks, venv.action_masks())
        actions = _masked_choice(rng, masks)
        obs1, rew1, done1, info1 = ref.step(actions)
        obs2, rew2, done2, info2 = venv.step(actions)
        assert np.array_equal(obs1, obs2), f"observation differs at step {t}"
        np.testing.assert_allclose(rew1, rew2, rtol=0, atol=1e-6, err_msg=f"reward differs at step {t}")
        assert np.array_equal(done1, done2), f"done differs at step {t}"
        for i in np.flatnonzero(done1):
            assert np.array_equal(info1[i]["terminal_observation"], info2[i]["terminal_observation"])
            assert info2[i]["episode"]["l"] >= 1
        episodes += int(done1.sum())
    return episodes


@pytest.mark.parametrize("variant", VARIANTS)
def test_learner_mode_equals_single_agent_wrapper(variant):
    assert _compare_with_single_agent(variant, steps=90) >= 3


@pytest.mark.parametrize("variant", ["chengdu", "two_player"])
def test_learner_mode_terminal_rewards_and_fixed_seat(variant):
    assert _compare_with_single_agent(variant, steps=80, reward_mode="terminal", reward_scale=0.5, seat=1) >= 2


def test_learner_mode_normalised_points_rewards():
    assert _compare_with_single_agent("chiyu", steps=60, normalize_reward=True, reward_scale=0.1) >= 1


class _LowestLegal:
    """Deterministic opponent: the smallest legal id (act) — and the same rule row by row (act_batch)."""

    def __init__(self, batched: bool) -> None:
        self.calls = 0
        self.rows = 0
        if batched:
            self.act_batch = self._act_batch

    def act(self, observation, legal_mask):
        assert observation.shape == OBS_SHAPE
        self.calls += 1
        self.rows += 1
        return int(np.flatnonzero(legal_mask)[0])

    def _act_batch(self, observations, masks):
        assert observations.shape[0] == masks.shape[0] and observations.shape[1:] == OBS_SHAPE
        self.calls += 1
        self.rows += len(masks)
        return masks.argmax(axis=1)


def test_batch_friendly_opponents_match_and_are_batched():
    single, batched = _LowestLegal(False), _LowestLegal(True)
    _compare_with_single_agent("hongzhong", steps=60, n=6, opponents=single, batch_opponents=batched)
    assert batched.rows > batched.calls  # several slots answered per call
    assert batched.calls < single.calls


def test_mixed_opponent_sequence_matches():
    # None (random from the slot generator), a policy object and a plain callable, per relative seat
    def lowest(_, mask):
        return int(np.flatnonzero(mask)[0])

    opponents = [None, _LowestLegal(False), lowest]
    _compare_with_single_agent("chengdu", steps=60, opponents=opponents)


def _skip_dead(env):
    while env.agents and env.terminations[env.agent_selection]:
        env.step(None)
    if not env.agents:
        env.reset()
        _skip_dead(env)


@pytest.mark.parametrize(("variant", "mode"), [(v, "delta") for v in VARIANTS] + [("xueliu", "terminal")])
def test_self_play_mode_equals_aec_env(variant, mode):
    n = 3
    aecs = [raw_env(variant=variant, reward_mode=mode, match=False) for _ in range(n)]
    for i, env in enumerate(aecs):
        env.reset(seed=11 + i)
        _skip_dead(env)
    venv = VectorEnv(variant, n, seed=11, self_play=True, reward_mode=mode)
    venv.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(220):
        actions = []
        for i, env in enumerate(aecs):
            agent = env.agent_selection
            o = env.observe(agent)
            assert env.agent_name_mapping[agent] == venv.acting_seats[i], f"acting seat differs at step {t}"
            assert np.array_equal(o["observation"], venv.obs[i]), f"observation differs at step {t}"
            assert np.array_equal(o["action_mask"], venv.masks[i]), f"mask differs at step {t}"
            actions.append(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        _, rewards, dones, infos = venv.step(np.array(actions))
        assert rewards.shape == (n, venv.num_players)
        for i, env in enumerate(aecs):
            env.step(actions[i])
            expected = np.zeros(venv.num_players, dtype=np.float32)
            for agent, r in env.rewards.items():
                expected[env.agent_name_mapping[agent]] = r
            np.testing.assert_allclose(rewards[i], expected, atol=1e-6, err_msg=f"rewards differ at step {t}")
            assert dones[i] == env.game.is_over
            if dones[i]:
                assert infos[i]["final_scores"] == list(env.game.scores)
                ended += 1
            _skip_dead(env)
            assert infos[i]["seat"] == venv.acting_seats[i]
    assert ended >= 3


def test_auto_reset_deals_the_next_hand_of_each_slot_sequence():
    venv = VectorEnv("chengdu", 4, seed=40)
    venv.reset()
    assert [g.seed for g in venv.games] == [40, 41, 42, 43]
    hands = [0] * 4
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 12:
        _, _, dones, infos = venv.step(_masked_choice(rng, venv.masks))
        for i in map(int, np.flatnonzero(dones)):
            finished += 1
            hands[i] += 1 + infos[i].get("skipped_hands", 0)
            assert infos[i]["terminal_observation"].shape == OBS_SHAPE
            assert not venv.games[i].is_over  # already dealt
            assert venv.games[i].seed == hand_seed(40 + i, hands[i])
        assert venv.masks.any(axis=1).all()  # every slot awaits a learner decision
    # reset() continues each sequence; seed() starts new ones
    venv.reset()
    assert [g.seed for g in venv.games] == [hand_seed(40 + i, hands[i] + 1) for i in range(4)]
    venv.seed(7)
    venv.reset()
    assert [g.seed for g in venv.games] == [7, 8, 9, 10]


def test_sb3_vecenv_api_and_errors():
    venv = VectorEnv("hongzhong", 3, seed=0)
    assert isinstance(venv, VecEnv)
    with pytest.raises(RuntimeError, match=r"VectorEnv.step\(\) before reset\(\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(RuntimeError, match="before reset"):
        venv.step_async(np.zeros(3, dtype=np.int64))
    obs = venv.reset()
    assert obs.shape == (3, *OBS_SHAPE) and obs.dtype == np.float32
    assert venv.observation_space.shape == OBS_SHAPE and venv.action_space.n == 183
    assert venv.has_attr("action_masks")
    assert venv.get_attr("seat") == venv.seats
    assert venv.get_attr("cfg", indices=[0, 2]) == [venv.cfg, venv.cfg]
    assert venv.env_is_wrapped(object) == [False] * 3
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    with pytest.raises(AttributeError, match="set_pool"):
        venv.env_method("set_pool", [])
    from sb3_contrib.common.maskable.utils import get_action_masks

    assert get_action_masks(venv).shape == (3, 183)
    bad = venv.sample_actions()
    bad[1] = int(np.flatnonzero(venv.masks[1] == 0)[0])
    with pytest.raises(ValueError, match="illegal action .* slot 1"):
        venv.step(bad)
    with pytest.raises(ValueError, match="expected 3 actions"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.step_async(venv.sample_actions())
    obs, rewards, dones, infos = venv.step_wait()
    assert rewards.shape == (3,) and dones.shape == (3,) and len(infos) == 3
    for kwargs, message in (
        ({"num_envs": 0}, "num_envs"),
        ({"seat": 4}, "seat"),
        ({"reward_mode": "sparse"}, "reward_mode"),
        ({"self_play": True, "opponents": _LowestLegal(False)}, "self_play"),
        ({"opponents": [None]}, "3 opponent policies"),
        ({"opponents": 5}, "neither a callable"),
    ):
        args = {"num_envs": 2, **kwargs}
        with pytest.raises(ValueError, match=message):
            VectorEnv("hongzhong", **args)


class _Pool:
    """An opponent pool: a fresh opponent list per hand, plus a method reachable through env_method."""

    def __init__(self) -> None:
        self.entries = None
        self.drawn = 0

    def opponents_for(self, slot, rng):
        self.drawn += 1
        return [None, _LowestLegal(False) if rng.random() < 0.5 else None, None]

    def set_pool(self, entries):
        self.entries = entries
        return len(entries)


def test_opponent_pool_drawn_per_hand_and_reachable_by_env_method():
    pool = _Pool()
    venv = VectorEnv("chengdu", 2, seed=3, opponents=pool)
    venv.reset()
    assert pool.drawn == 2
    assert venv.env_method("set_pool", [{"id": 1}]) == [1, 1]
    assert pool.entries == [{"id": 1}]
    rng = np.random.default_rng(0)
    done = 0
    while done < 3:
        done += int(venv.step(_masked_choice(rng, venv.masks))[2].sum())
    assert pool.drawn >= 5


def test_maskable_ppo_learns_a_few_hundred_steps_on_the_batched_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    torch.set_num_threads(1)
    venv = VectorEnv("hongzhong", 4, seed=0, reward_scale=0.05)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu", policy_kwargs={"net_arch": [32]}
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    assert all(venv.masks[i, a] for i, a in enumerate(actions))


@pytest.mark.parametrize(("variant", "engine"), [("hongzhong", "python"), ("chengdu", "compiled")])
def test_training_config_selects_the_batched_env(tmp_path, variant, engine):
    """``env.vec_env: batched`` in a training config trains through VectorEnv (the make_vec_env seam), on the
    engine ``env.engine`` names (compiled: envs.vector_env.CompiledVectorEnv)."""
    pytest.importorskip("sb3_contrib")
    import yaml

    from training.batched import BatchedPolicy, SelfPlayPool
    from training.train_config import load_train_config
    from training.trainer import Trainer

    data = {
        "name": "tiny",
        "variant": variant,
        "seed": 7,
        "total_steps": 128,
        "env": {"num_envs": 2, "reward_scale": 0.05, "vec_env": "batched", "engine": engine},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
        "net": {
            "features_dim": 32,
            "channels": 8,
            "honor_channels": 2,
            "broadcast_dim": 8,
            "pi_layers": [16],
            "vf_layers": [16],
        },
        "pool": {"max_size": 3, "baseline_share": 0.5, "baselines": ["random"]},
        "bc": {"decisions": 0},
        "schedule": {"segment_steps": 64, "keep_checkpoints": 5},
        "eval": {"every": 0, "deals": 1, "final_deals": 1, "opponents": ["random"]},
        "logging": {"tensorboard": False, "progress_bar": False},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    trainer = Trainer.create(load_train_config(path), tmp_path / "run", progress=False)
    venv = trainer.model.get_env()
    assert isinstance(venv, VectorEnv) and venv.num_envs == 2
    assert (type(venv).__name__ == "CompiledVectorEnv") == (engine == "compiled")
    assert isinstance(venv._pool, SelfPlayPool)
    trainer.train(progress=False)
    assert trainer.model.num_timesteps == 128
    snap = trainer.pool.snapshots[-1]
    venv.env_method("set_pool", trainer.pool.entries())
    agent = venv.env_method("snapshot_agent", snap.id, indices=[0])[0]
    # act_batch plays each row as PolicyAgent.act would (deterministic agent: the masked argmax)
    batched = BatchedPolicy(type(agent).load(snap.path, deterministic=True))
    obs = np.random.default_rng(0).random((5, *OBS_SHAPE), dtype=np.float32)
    masks = np.zeros((5, 183), dtype=np.int8)
    masks[:, :34] = np.random.default_rng(1).random((5, 34)) < 0.5
    masks[:, 0] = 1
    assert batched.act_batch(obs, masks) == [batched.agent.act(o, m) for o, m in zip(obs, masks)]
