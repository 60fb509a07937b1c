"""Distributed evaluation and self-play on a real local Ray instance (one per module, 2 CPUs, 127.0.0.1).

The tests of this module run in one pytest-xdist worker (``xdist_group``; ``bash dev.sh test`` passes
``--dist loadgroup``), so the suite starts Ray once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from training.evaluation import evaluate  # noqa: E402
from training.evaluation.distributed import run_on_ray  # noqa: E402

pytestmark = pytest.mark.xdist_group("ray")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ray_local():
    """A Ray instance on this machine whose workers import this checkout."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
        runtime_env={"env_vars": {"PYTHONPATH": path, "NUMBA_NUM_THREADS": "1"}},
    )
    yield ray
    ray.shutdown()


def test_eval_on_ray_equals_the_local_run(ray_local):
    pairs = [("greedy", "random"), ("random", "greedy")]
    local = evaluate.run_matchups("hongzhong", pairs, walls=3, seed=7)
    remote = evaluate.run_matchups("hongzhong", pairs, walls=3, seed=7, ray_address="local")
    assert [m.to_dict() for m in remote] == [m.to_dict() for m in local]


def test_a_task_whose_worker_dies_is_retried_once_and_counted_once(ray_local, tmp_path):
    marker = tmp_path / "died"

    def play(item: int) -> int:
        if item == 2 and not marker.exists():
            marker.write_text("x")
            os._exit(1)  # the worker process dies in the middle of the task
        return item * 10

    got: list[int] = []
    run_on_ray(play, list(range(5)), got.append, in_flight=2)
    assert marker.exists()
    assert sorted(got) == [0, 10, 20, 30, 40]


def test_skipped_tasks_are_collected_without_playing(ray_local):
    got: list[int] = []
    run_on_ray(lambda x: x, [1, 2, 3], got.append, skipped=lambda x: -x if x == 2 else None)
    assert sorted(got) == [-2, 1, 3]


def _ray_config(tmp_path):
    from tests.training.test_training import tiny_config

    return tiny_config(
        tmp_path,
        ppo={"n_steps": 16, "batch_size": 32, "n_epochs": 1},
        distributed={"backend": "ray", "workers": 2, "tables_per_worker": 2, "cpus_per_worker": 0.5},
    )


def test_distributed_training_survives_a_killed_worker_and_resumes(ray_local, tmp_path):
    from training.distributed import DistributedMaskablePPO, RayVecEnv
    from training.trainer import Trainer, latest_checkpoint

    cfg = _ray_config(tmp_path)
    assert cfg.rollout_steps == 16 * 2 * 2
    run = tmp_path / "run"
    trainer = Trainer.create(cfg, run, progress=False)
    env = trainer.model.env
    assert isinstance(env, RayVecEnv) and isinstance(trainer.model, DistributedMaskablePPO)
    assert env.num_envs == 4
    try:
        trainer.train(max_segments=1, progress=False)
        assert trainer.state.num_timesteps == 128
        ray.kill(env.actors[0])  # a rollout worker dies in the middle of the run
        trainer.train(progress=False)
        assert env.replaced == 1
        assert trainer.state.num_timesteps == cfg.total_steps == 256
        assert len(trainer.pool) == 2  # the snapshots of steps 0 and 128 (the last segment adds none)
        assert any(r.get("train/policy_gradient_loss") is not None for r in trainer.state.history)
    finally:
        trainer.close()
    assert latest_checkpoint(run).name == f"step_{256:012d}"

    resumed = Trainer.resume(run, total_steps=384)
    try:
        assert isinstance(resumed.model.env, RayVecEnv)
        resumed.train(progress=False)
        assert resumed.state.num_timesteps == 384
        assert resumed.model.env.replaced == 0
    finally:
        resumed.close()


def test_chuanma_eval_with_ray_prints_the_numbers_of_the_local_command(ray_local, capsys):
    from training.cli import main

    argv = ["eval", "--challenger", "greedy", "--opponent", "random", "--walls", "2", "--seed", "3", "--no-progress"]
    assert main(argv) == 0
    local = capsys.readouterr().out
    assert main([*argv, "--ray"]) == 0
    assert capsys.readouterr().out == local
    assert "| greedy | random | 2 |" in local


def test_the_distributed_section_sets_the_rollout_size_and_is_validated(tmp_path):
    from training.cli import build_parser
    from training.train_config import TrainConfigError

    cfg = _ray_config(tmp_path)
    assert cfg.tables == 4 and cfg.replace(**{"distributed.backend": "local"}).tables == cfg.env.num_envs
    with pytest.raises(TrainConfigError, match="distributed.workers"):
        cfg.replace(**{"distributed.workers": 0})
    with pytest.raises(TrainConfigError, match="distributed.backend"):
        cfg.replace(**{"distributed.backend": "mpi"})
    args = build_parser().parse_args(["train", "--config", "hongzhong", "--ray"])
    assert args.ray == "local"
    args = build_parser().parse_args(["train", "--config", "hongzhong", "--ray", "auto"])
    assert args.ray == "auto"
