"""Benchmark: evaluation and self-play on Ray against the local run, side by side in one run.

* ``eval``: walls per second of a duplicate evaluation (``--challenger`` vs ``--opponent``, ``--walls`` walls),
  locally in this process and as Ray tasks (:mod:`training.evaluation.distributed`); the two results are checked
  equal;
* ``train``: learner steps (samples) per second of PPO segments of ``--config`` with the local batched environment
  (``--tables`` hands) and with 1 and 2 Ray rollout workers (``--tables`` hands each,
  :mod:`training.distributed`); the ratios to the local figure are printed.

The Ray instance is started once on this machine (``--cpus``, default all cores) and its start-up time is not
counted; nor are the workers' start-up (the first segment of each training run is a warm-up, not timed).

Usage: ``python benchmarks/bench_ray.py [--walls 16] [--config hongzhong] [--steps 2048] [--tables 8]``.
Prints one JSON object.  The numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ray  # noqa: E402

from training.evaluation import evaluate  # noqa: E402
from training.train_config import load_train_config  # noqa: E402
from training.trainer import Trainer  # noqa: E402


def bench_eval(args: argparse.Namespace) -> dict:
    pairs = [(args.challenger, args.opponent)]
    out: dict = {}
    results = {}
    for name, address in (("local", None), ("ray", "local")):
        t0 = time.perf_counter()
        results[name] = evaluate.run_matchups(args.variant, pairs, walls=args.walls, seed=0, ray_address=address)
        dt = time.perf_counter() - t0
        out[name] = {"seconds": round(dt, 2), "walls_per_s": round(args.walls / dt, 3)}
    out["equal"] = [m.to_dict() for m in results["local"]] == [m.to_dict() for m in results["ray"]]
    out["ray_over_local"] = round(out["ray"]["walls_per_s"] / out["local"]["walls_per_s"], 2)
    return out


def _train_rate(cfg, steps: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer.create(cfg, Path(tmp) / "run", progress=False)
        try:
            trainer.train(max_segments=1, progress=False)  # warm-up: workers started, numba and torch loaded
            t0 = time.perf_counter()
            start = trainer.state.num_timesteps
            trainer.train(progress=False)
            return (trainer.state.num_timesteps - start) / (time.perf_counter() - t0)
        finally:
            trainer.close()


def bench_train(args: argparse.Namespace) -> dict:
    segment = args.n_steps * args.tables * 2  # local and 1 worker: 2 rollouts per segment; 2 workers: 1
    base = {
        "total_steps": segment + args.steps,
        "bc.decisions": 0,
        "eval.every": 0,
        "eval.final_deals": 0,
        "logging.tensorboard": False,
        "logging.progress_bar": False,
        "env.engine": args.engine,
        "env.vec_env": "batched",
        "ppo.n_steps": args.n_steps,
        "ppo.batch_size": args.n_steps * args.tables,
        "schedule.segment_steps": segment,
    }
    runs = {
        "local": {"env.num_envs": args.tables},
        "ray_1_worker": {"distributed.backend": "ray", "distributed.workers": 1},
        "ray_2_workers": {"distributed.backend": "ray", "distributed.workers": 2},
        "local_again": {"env.num_envs": args.tables},  # the load of the machine moves: local measured twice
    }
    out: dict = {}
    for name, extra in runs.items():
        over = {**base, **extra, "distributed.tables_per_worker": args.tables}
        cfg = load_train_config(args.config, overrides=over)
        rate = _train_rate(cfg, args.steps)
        out[name] = {"samples_per_s": round(rate, 1)}
    local = (out["local"]["samples_per_s"] + out["local_again"]["samples_per_s"]) / 2
    for name in ("ray_1_worker", "ray_2_workers"):
        out[name]["over_local"] = round(out[name]["samples_per_s"] / local, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="hongzhong")
    p.add_argument("--challenger", default="greedy")
    p.add_argument("--opponent", default="value")
    p.add_argument("--walls", type=int, default=16)
    p.add_argument("--config", default="hongzhong")
    p.add_argument("--engine", default="compiled", choices=("python", "compiled"))
    p.add_argument("--steps", type=int, default=2048, help="timed learner steps per training run")
    p.add_argument("--n-steps", type=int, default=64, help="ppo.n_steps")
    p.add_argument("--tables", type=int, default=8, help="hands of the local env and of each Ray worker")
    p.add_argument("--cpus", type=int, default=None, help="CPUs of the Ray instance (default: all)")
    p.add_argument("--skip", choices=("eval", "train"), default=None)
    args = p.parse_args(argv)
    path = os.pathsep.join(x for x in (str(ROOT), os.environ.get("PYTHONPATH", "")) if x)
    ray.init(
        address="local",
        num_cpus=args.cpus,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    report: dict = {"machine": platform.platform(), "cpus": os.cpu_count(), "ray": ray.__version__}
    try:
        if args.skip != "eval":
            report["eval"] = bench_eval(args)
        if args.skip != "train":
            report["train"] = bench_train(args)
    finally:
        ray.shutdown()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
