"""The ``trainer: batched`` path: exact resume, loadable checkpoints, the run report, bad config values refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_info

from agents.policy import PolicyAgent
from training.train_config import TrainConfigError, load_train_config
from training.trainer import Trainer, learner_device

TINY = {
    "trainer": "batched",
    "total_steps": 128,
    "env.num_envs": 4,
    "ppo.n_steps": 16,
    "ppo.batch_size": 32,
    "ppo.n_epochs": 2,
    "schedule.segment_steps": 64,
    "bc.decisions": 0,
    "eval.every": 0,
    "eval.final_deals": 0,
    "pool.baselines": ["random"],
    "net.hand_features": False,
    "net.features_dim": 32,
    "net.channels": 4,
    "net.honor_channels": 2,
    "net.broadcast_dim": 8,
    "net.pi_layers": [16],
    "net.vf_layers": [16],
    "logging.progress_bar": False,
    "logging.tensorboard": False,
}


def _cfg(**extra):
    return load_train_config("hongzhong").replace(**{**TINY, **extra})


def _weights(trainer: Trainer) -> list[np.ndarray]:
    return [p.detach().cpu().numpy().copy() for p in trainer.model.policy.parameters()]


def test_resume_is_exact_and_checkpoints_load(tmp_path: Path) -> None:
    cfg = _cfg()
    whole = Trainer.create(cfg, tmp_path / "whole", progress=False)
    whole.train(progress=False)
    assert whole.state.num_timesteps >= 128 and whole.state.segment == 2
    assert whole.state.decisions > whole.state.num_timesteps  # the tables' other seats decide too

    first = Trainer.create(cfg, tmp_path / "split", progress=False)
    first.train(max_segments=1, progress=False)
    resumed = Trainer.resume(tmp_path / "split")
    assert resumed.state.num_timesteps == first.state.num_timesteps
    resumed.train(progress=False)
    assert resumed.state.num_timesteps == whole.state.num_timesteps
    assert resumed.state.decisions == whole.state.decisions
    assert [s.id for s in resumed.pool.snapshots] == [s.id for s in whole.pool.snapshots]
    for a, b in zip(_weights(whole), _weights(resumed)):
        np.testing.assert_array_equal(a, b)

    report = whole.finish()
    assert report["trainer"] == "batched" and report["trained_decisions"] == whole.state.num_timesteps
    assert "trainer `batched`" in report["markdown"]
    agent = PolicyAgent.load(tmp_path / "whole" / "final.zip", variant="hongzhong")
    env = whole.model.env
    assert env is not None
    venv_obs = np.asarray(env.reset())
    mask = env.env_method("action_masks")[0]
    action = agent.act(venv_obs[0], mask.astype(np.int8))
    assert mask[action]
    with torch.no_grad():
        expected = whole.model.policy.predict(venv_obs, deterministic=True, action_masks=mask[None])[0][0]
    assert action == int(expected)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [("trainer", "fast", "'sb3', 'batched'"), ("device", "gpu", "'auto', 'cpu', 'cuda'")],
)
def test_bad_values_are_refused(key: str, value: str, words: str) -> None:
    with pytest.raises(TrainConfigError, match=f"key '{key}'.*{words}"):
        _cfg(**{key: value})


def test_learner_device() -> None:
    assert learner_device("cpu") == "cpu"
    assert learner_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            learner_device("cuda")


def test_rollouts_run_on_one_torch_and_one_blas_thread_and_updates_on_the_configured_threads(
    tmp_path: Path, monkeypatch
) -> None:
    """The rollout's small forward passes run on one torch thread and one BLAS thread (the snapshots' numpy
    products), the update on ``torch_threads``; numpy's BLAS pool is put back as it was after each rollout."""
    import training.ppo as ppo
    import training.rollout as rollout

    def blas_threads() -> int:
        return max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")

    seen: dict[str, set[tuple[int, int]]] = {"collect": set(), "update": set()}
    collect, update = rollout.SelfPlayRollout.collect, ppo.ppo_update

    def counting_collect(self, *args, **kwargs):
        seen["collect"].add((torch.get_num_threads(), blas_threads()))
        return collect(self, *args, **kwargs)

    def counting_update(*args, **kwargs):
        seen["update"].add((torch.get_num_threads(), blas_threads()))
        return update(*args, **kwargs)

    monkeypatch.setattr(rollout.SelfPlayRollout, "collect", counting_collect)
    monkeypatch.setattr(ppo, "ppo_update", counting_update)
    before = torch.get_num_threads()
    blas_before = blas_threads()
    try:
        trainer = Trainer.create(_cfg(torch_threads=2, total_steps=64), tmp_path / "run", progress=False)
        trainer.train(progress=False)
        assert seen == {"collect": {(1, 1)}, "update": {(2, blas_before)}}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_total_steps_zero_is_behaviour_cloning_alone(tmp_path: Path) -> None:
    """``total_steps: 0`` with a BC warm start: the final policy is the clone (no PPO update); without BC decisions
    it is refused (nothing would train), and a negative budget too."""
    cfg = _cfg(**{"total_steps": 0, "bc.decisions": 300, "bc.epochs": 1, "bc.teacher": "greedy"})
    trainer = Trainer.create(cfg, tmp_path / "bc", progress=False)
    cloned = _weights(trainer)
    trainer.train(progress=False)
    assert trainer.state.num_timesteps == 0 and trainer.state.segment == 0
    for a, b in zip(cloned, _weights(trainer)):
        np.testing.assert_array_equal(a, b)
    report = trainer.finish()
    assert report["steps"] == 0 and report["bc"]["decisions"] == 300
    assert PolicyAgent.load(tmp_path / "bc" / "final.zip", variant="hongzhong").meta.step == 0
    with pytest.raises(TrainConfigError, match=r"'total_steps' = 0 \(behaviour cloning alone\) needs 'bc\.decisions'"):
        _cfg(**{"total_steps": 0})
    with pytest.raises(TrainConfigError, match="total_steps"):
        _cfg(**{"total_steps": -1, "bc.decisions": 300})
