"""Training on whole matches (RULES.md §11.2): the ``env.match`` / ``env.room`` keys of a training config."""

from __future__ import annotations

import numpy as np
import pytest

from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.engine.observation import OBS_SHAPE
from tests.training.test_training import tiny_config
from training.train_config import TrainConfigError


def test_a_match_training_episode_is_a_whole_match_rewarded_by_its_points(tmp_path):
    from training.selfplay import make_selfplay_env

    cfg = tiny_config(
        tmp_path,
        variant="chiyu",
        env={"match": True, "placement": "linear"},
        pool={"baseline_share": 1.0, "baselines": ["greedy"]},
    )
    env = make_selfplay_env(cfg)
    inner = env.unwrapped
    assert env.observation_space.shape == MATCH_OBS_SHAPE  # the network reads the whole match observation
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=8)
    total = 0.0
    while True:
        mask = env.get_wrapper_attr("action_masks")()
        obs, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert obs.shape == MATCH_OBS_SHAPE
        total += reward
        if done:
            break
    led = inner.aec.match
    seat = inner.seat
    factor = cfg.env.reward_scale / inner.cfg.base_unit
    assert led.over and led.hands_played >= 1
    assert total == pytest.approx((led.standing[seat] - 50000) * factor + led.placement_rewards()[seat])


def test_a_room_match_trains_briefly(tmp_path):
    from training.trainer import Trainer

    cfg = tiny_config(tmp_path, total_steps=64, env={"room": "初级场", "stack": 2000, "match_hands": 4})
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    trainer.train(max_segments=1, progress=False)
    assert trainer.state.num_timesteps >= 64


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"room": "vip"}, "unknown room 'vip'"),
        ({"room": "初级场", "stack": 10}, "must be in 2000..100000 chips, got 10"),
        ({"match": True}, "sets no hands_per_match"),
    ],
)
def test_bad_match_keys_are_refused_by_name(tmp_path, env, message):
    with pytest.raises(TrainConfigError, match=message):
        tiny_config(tmp_path, env=env)


def test_match_training_refuses_behaviour_cloning_of_single_hands(tmp_path):
    with pytest.raises(TrainConfigError, match="'bc.decisions' = 64: the behaviour-cloning warm start records single"):
        tiny_config(tmp_path, variant="chiyu", env={"match": True}, bc={"decisions": 64})


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_the_batched_trainer_trains_on_whole_matches_and_resumes_exactly(tmp_path, engine):
    """``trainer: batched`` on 赤羽 matches: every learner sample reads the 117 match planes, a resumed run trains to
    the same weights, and the final evaluation plays whole matches."""
    from tests.training.test_match_policy import assert_a_resumed_run_trains_the_same_weights
    from training.rollout import SelfPlayRollout
    from training.selfplay import env_options
    from training.trainer import Trainer

    cfg = tiny_config(
        tmp_path,
        variant="chiyu",
        trainer="batched",
        env={"match": True, "num_envs": 4, "engine": engine},
        ppo={"n_steps": 16, "batch_size": 32, "n_epochs": 1},
        pool={"baseline_share": 1.0, "baselines": ["greedy"]},
    )
    trainer = Trainer.create(cfg, tmp_path / "straight", progress=False)
    assert trainer.model.observation_space.shape == MATCH_OBS_SHAPE
    rules = trainer.rules
    rollout = SelfPlayRollout(
        rules,
        trainer.model.policy,
        cfg.net_input(rules),
        num_envs=4,
        seed=1,
        snapshots=[],
        baselines=("greedy",),
        baseline_share=1.0,
        latest_share=0.0,
        env_options=env_options(cfg),
    )
    batch = rollout.collect(200)
    rollout.close()
    assert batch.inputs.shape[1:] == MATCH_OBS_SHAPE and len(batch) >= 200
    match_rows = batch.inputs[:, OBS_SHAPE[0] :]  # hand number, hands left, standings: they change along a match
    assert np.ptp(match_rows) > 0
    trainer.train(progress=False)
    assert_a_resumed_run_trains_the_same_weights(cfg, trainer, tmp_path)
    report = trainer.finish()
    rows = [e for e in trainer.state.evals if e["step"] == report["steps"]]
    assert rows and all(1.0 <= r["placement"] <= 4.0 for r in rows)


def test_a_room_match_trains_on_the_batched_trainer_and_the_batched_vec_env(tmp_path):
    from training.trainer import Trainer

    room = {"room": "初级场", "stack": 2000, "match_hands": 4}
    for name, sections in (
        ("batched", {"trainer": "batched", "env": {**room, "num_envs": 4}, "ppo": {"n_steps": 16}}),
        ("vec", {"env": {**room, "vec_env": "batched"}}),
    ):
        cfg = tiny_config(tmp_path, total_steps=64, **sections)
        trainer = Trainer.create(cfg, tmp_path / name, progress=False)
        trainer.train(max_segments=1, progress=False)
        assert trainer.state.num_timesteps >= 64
        assert trainer.model.observation_space.shape == MATCH_OBS_SHAPE
