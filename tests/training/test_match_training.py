"""Training on whole matches (RULES.md §11.2): the ``env.match`` / ``env.room`` keys of a training config."""

from __future__ import annotations

import numpy as np
import pytest

from envs.engine.match_observation import MATCH_OBS_SHAPE
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
        ({"match": True, "vec_env": "batched"}, "training on the batched VectorEnv plays single hands"),
        ({"room": "vip"}, "unknown room 'vip'"),
        ({"room": "初级场", "stack": 10}, "must be in 2000..100000 chips, got 10"),
        ({"match": True}, "sets no hands_per_match"),
    ],
)
def test_bad_match_keys_are_refused_by_name(tmp_path, env, message):
    with pytest.raises(TrainConfigError, match=message):
        tiny_config(tmp_path, env=env)


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        ({"trainer": "batched"}, "needs trainer 'sb3'"),
        ({"bc": {"decisions": 64}}, "'bc.decisions' = 64: the behaviour-cloning warm start records single hands"),
    ],
)
def test_match_training_refuses_what_plays_single_hands(tmp_path, sections, message):
    with pytest.raises(TrainConfigError, match=message):
        tiny_config(tmp_path, variant="chiyu", env={"match": True}, **sections)
