"""Benchmark: the pieces of self-play training — policy inference, self-play env steps, PPO learner steps.

* ``actor``: batch-1 action logits per second of the default network, numpy path (:class:`agents.learned.extractor.
  NumpyActor`, what opponents and :class:`agents.policy.PolicyAgent` use) and torch path (sb3's policy);
* ``selfplay_env``: learner steps per second of one :class:`training.selfplay.SelfPlayEnv` (opponents: the initial
  snapshot and the baselines, as configured), random learner actions;
* ``ppo``: learner steps per second of a whole PPO segment (rollouts with the network, updates) with the
  configured number of environments.

Usage: ``python benchmarks/bench_training.py [--config hongzhong] [--steps 4096] [--threads 1] [--vec-env batched]``.
Prints one JSON object.  The numbers depend on the machine and its load.

``--compare [--configs hongzhong,chengdu,wuhan]``: learner samples per second of the old path (the config as
committed: ``trainer: sb3``, its ``env.vec_env`` and engine) and the new path (``trainer: batched`` on the compiled
engine, ``--tables`` tables, ``ppo.n_steps`` set so that an update sees the same ``n_steps * num_envs`` samples),
same network, same opponent mix, same PPO hyperparameters, the same ``--threads`` torch threads (the new path's
rollouts use one, its updates all of them), each a PPO segment of ``--steps`` samples started from the same fresh run
(no BC), side by side in one run, after the compiled code of every config is loaded or compiled (untimed); plus
where the new path's time goes (rollout parts, updates).  ``--device auto|cpu|cuda`` puts the new path's learner (its
forward passes and updates) on that torch device, the rollout tables staying on the CPU; the old path is the
committed trainer, on the CPU.

``--bc [--configs ...] [--decisions 4000]``: behaviour-cloning data collection, teacher decisions per second of the
hand-by-hand path (the AEC env with the Python teacher, ``batched=False``) and the batched path (the compiled engine
and the compiled teacher, 128 hands at a time in each lane: one lane, then the default number of lanes, one thread
each), each recording the config's ``bc.teacher`` and network input, side by side in one run; they record the same
decisions (tests/training/test_bc_batched.py).

``--bc --fresh``: the same two paths (two lanes for the batched one) the way a training run meets them, each in a
process of its own started for it: the compiled code loaded, nothing played before the timed collection (no warm-up,
empty memos and caches), as the BC warm start of ``chuanma main`` / ``chuanma train`` collects.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.policy import PolicyAgent, build_policy
from envs.engine.observation import OBS_SHAPE
from training.selfplay import make_selfplay_env
from training.train_config import load_train_config


def bench_actor(cfg, calls: int) -> dict:
    net = cfg.net.spec()
    policy = build_policy(net)
    agent = PolicyAgent.from_policy(policy, net)
    obs = np.random.default_rng(0).random(OBS_SHAPE, dtype=np.float32)
    for _ in range(20):
        agent.logits(obs)
    t = time.perf_counter()
    for _ in range(calls):
        agent.logits(obs)
    numpy_rate = calls / (time.perf_counter() - t)
    x = torch.as_tensor(obs[None])
    with torch.inference_mode():
        t = time.perf_counter()
        for _ in range(calls):
            f = policy.extract_features(x, policy.pi_features_extractor)
            policy.action_net(policy.mlp_extractor.forward_actor(f))
        torch_rate = calls / (time.perf_counter() - t)
    params = sum(p.numel() for p in policy.parameters())
    return {"numpy_calls_per_s": numpy_rate, "torch_calls_per_s": torch_rate, "parameters": params}


def bench_env(cfg, steps: int, pool_entries: list) -> dict:
    env = make_selfplay_env(cfg)
    env.get_wrapper_attr("set_pool")(pool_entries)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    episodes = 0
    t = time.perf_counter()
    for _ in range(steps):
        mask = env.get_wrapper_attr("action_masks")()
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done:
            episodes += 1
            env.reset()
    dt = time.perf_counter() - t
    return {"steps_per_s": steps / dt, "episodes": episodes, "steps": steps}


def _segment_rate(cfg, tmp: Path, name: str) -> tuple[float, int, dict]:
    """Samples/s of one PPO segment of ``cfg`` (a fresh run, no BC or evaluations); the batched path's time split."""
    from training.trainer import Trainer

    with contextlib.redirect_stdout(sys.stderr):  # the run's progress lines; stdout is the JSON
        trainer = Trainer.create(cfg, tmp / name, progress=False)
        t = time.perf_counter()
        trainer.train(max_segments=1, progress=False)
        dt = time.perf_counter() - t
    steps = trainer.state.num_timesteps
    return steps / dt, steps, {k: round(v, 2) for k, v in trainer.rollout_timing.items()}


def compare(configs: list[str], steps: int, tables: int, threads: int, device: str = "cpu") -> dict:
    """Old path vs new path learner samples/s for each config, the new path's learner on ``device`` (see the module
    docstring)."""
    from training.precompile import compile_engine
    from training.trainer import learner_device

    learner = learner_device(device)  # a clear error before anything runs when CUDA is asked for and absent

    # the compiled engine, baselines and planes of every config load (or compile) before any path is timed
    compile_engine(tuple(dict.fromkeys(load_train_config(name).variant for name in configs)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in configs:
            base = load_train_config(name)
            rollout = base.rollout_steps
            n = max(rollout, steps // rollout * rollout)
            common = {
                "total_steps": n,
                "bc.decisions": 0,
                "eval.every": 0,
                "eval.final_deals": 0,
                "schedule.segment_steps": n,
                "logging.tensorboard": False,
                "logging.progress_bar": False,
                "torch_threads": threads,
            }
            old = base.replace(**common)
            new = base.replace(
                **common,
                **{
                    "trainer": "batched",
                    "env.engine": "compiled",
                    "env.num_envs": tables,
                    "ppo.n_steps": max(1, rollout // tables),
                    "device": learner,
                },
            )
            old_rate, old_steps, _ = _segment_rate(old, Path(tmp), f"{name}-old")
            new_rate, new_steps, split = _segment_rate(new, Path(tmp), f"{name}-new")
            rows.append(
                {
                    "config": name,
                    "old": {"path": f"sb3 {old.env.vec_env} {old.env.engine}", "samples_per_s": old_rate,
                            "samples": old_steps},
                    "new": {"path": f"batched compiled, {tables} tables, learner on {learner}",
                            "samples_per_s": new_rate, "samples": new_steps, "seconds": split},
                    "ratio": new_rate / old_rate,
                }
            )  # fmt: skip
            print(
                f"{name:10s} old {old_rate:8.0f} samples/s  new {new_rate:8.0f} samples/s  x{new_rate / old_rate:.1f}"
                f"  new-path seconds {split}",
                file=sys.stderr,
                flush=True,
            )
    return {"compare": rows}


def bench_bc(configs: list[str], decisions: int) -> dict:
    """Hand-by-hand vs batched BC data collection, decisions/s for each config (see the module docstring)."""
    from agents.compiled.shanten_memo import MEMO, clear_memo
    from training.bc import collect_decisions, lane_count

    rows = []
    lanes = lane_count(None)
    for name in configs:
        cfg = load_train_config(name)
        kwargs = _bc_options(cfg)
        rates = {}
        paths = {"hand_by_hand": {"batched": False}, "one_lane": {"batched": True, "threads": 1},
                 "batched": {"batched": True, "threads": lanes}}  # fmt: skip
        for path, how in paths.items():
            collect_decisions(cfg.variant, cfg.bc.teacher, 2000, 1, **how, **kwargs)  # warm: compiled code loaded
            clear_memo(MEMO)  # the same hands for every path: none may find the positions of the one before
            MEMO[0][1][:] = -1  # (the capped-suit profiles too; the suit table is filled before any path runs)
            t = time.perf_counter()
            collect_decisions(cfg.variant, cfg.bc.teacher, decisions, cfg.seed, **how, **kwargs)
            rates[path] = decisions / (time.perf_counter() - t)
        rows.append({"config": name, "teacher": cfg.bc.teacher, "decisions": decisions, "lanes": lanes,
                     "decisions_per_s": rates, "ratio": rates["batched"] / rates["hand_by_hand"]})  # fmt: skip
        print(
            f"{name:10s} BC ({cfg.bc.teacher}) hand by hand {rates['hand_by_hand']:8.0f} dec/s  "
            f"batched, one lane {rates['one_lane']:8.0f} dec/s, {lanes} lanes {rates['batched']:8.0f} dec/s  "
            f"x{rates['batched'] / rates['hand_by_hand']:.1f}",
            file=sys.stderr,
            flush=True,
        )
    return {"bc": rows}


def _bc_options(cfg) -> dict:
    """The keyword arguments of ``training.bc.collect_decisions`` a training run of ``cfg`` passes."""
    from training.selfplay import env_options

    return {"env_options": env_options(cfg), "hand_features": cfg.net.hand_features, "advisor": cfg.net.advisor}


_FRESH_PATHS = {"hand_by_hand": {"batched": False}, "batched": {"batched": True}}


def bc_once(name: str, path: str, decisions: int) -> float:
    """Decisions/s of one BC collection of config ``name`` on ``path`` (a key of ``_FRESH_PATHS``) in this process,
    with nothing played before it (the compiled code is loaded first, untimed)."""
    from training.bc import collect_decisions
    from training.precompile import compile_engine

    cfg = load_train_config(name)
    compile_engine((cfg.variant,))  # loads the compiled engine and agents (plays random moves, no teacher)
    kwargs = _bc_options(cfg)
    t = time.perf_counter()
    collect_decisions(cfg.variant, cfg.bc.teacher, decisions, cfg.seed, **_FRESH_PATHS[path], **kwargs)
    return decisions / (time.perf_counter() - t)


def bench_bc_fresh(configs: list[str], decisions: int, threads: int) -> dict:
    """``--bc --fresh``: each path of each config in a fresh process (see the module docstring)."""
    import subprocess

    rows = []
    for name in configs:
        rates = {}
        for path in _FRESH_PATHS:
            cmd = [sys.executable, __file__, "--bc-once", path, "--config", name, "--decisions", str(decisions),
                   "--threads", str(threads)]  # fmt: skip
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            rates[path] = json.loads(done.stdout.strip().splitlines()[-1])["decisions_per_s"]
        rows.append({"config": name, "teacher": load_train_config(name).bc.teacher, "decisions": decisions,
                     "fresh_process": True, "decisions_per_s": rates,
                     "ratio": rates["batched"] / rates["hand_by_hand"]})  # fmt: skip
        print(
            f"{name:10s} BC, fresh processes: hand by hand {rates['hand_by_hand']:8.0f} dec/s  "
            f"batched {rates['batched']:8.0f} dec/s  x{rates['batched'] / rates['hand_by_hand']:.1f}",
            file=sys.stderr,
            flush=True,
        )
    return {"bc_fresh": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="hongzhong", help="training config (name or path)")
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per measurement")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--vec-env", default=None, help="override env.vec_env (dummy, subproc, batched)")
    parser.add_argument("--compare", action="store_true", help="old path vs new path samples/s (module docstring)")
    parser.add_argument("--configs", default="hongzhong,chengdu,wuhan", help="configs of --compare")
    parser.add_argument("--tables", type=int, default=64, help="tables of the new path in --compare")
    parser.add_argument("--device", default="cpu", help="the new path's learner device in --compare: auto, cpu, cuda")
    parser.add_argument("--bc", action="store_true", help="hand-by-hand vs batched BC data collection (docstring)")
    parser.add_argument("--decisions", type=int, default=4000, help="teacher decisions per measurement of --bc")
    parser.add_argument("--fresh", action="store_true", help="--bc with each path in a fresh process (docstring)")
    parser.add_argument("--bc-once", choices=sorted(_FRESH_PATHS), help=argparse.SUPPRESS)  # one path of --fresh
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.bc_once:
        print(json.dumps({"decisions_per_s": bc_once(args.config, args.bc_once, args.decisions)}))
        return
    if args.bc:
        out = {"python": platform.python_version()}
        configs = [c for c in args.configs.split(",") if c]
        if args.fresh:
            out.update(bench_bc_fresh(configs, args.decisions, args.threads))
        else:
            out.update(bench_bc(configs, args.decisions))
        print(json.dumps(out, indent=2))
        return
    if args.compare:
        out = {"python": platform.python_version(), "torch_threads": args.threads}
        configs = [c for c in args.configs.split(",") if c]
        out.update(compare(configs, args.steps, args.tables, args.threads, args.device))
        print(json.dumps(out, indent=2))
        return
    from training.trainer import Trainer

    base = load_train_config(args.config)
    rollout = base.rollout_steps
    steps = max(rollout, args.steps // rollout * rollout)
    cfg = base.replace(
        **{
            "total_steps": steps,
            "bc.decisions": 0,
            "eval.every": 0,
            "schedule.segment_steps": steps,
            "logging.tensorboard": False,
            "logging.progress_bar": False,
            **({"env.vec_env": args.vec_env} if args.vec_env else {}),
        }
    )
    out = {
        "config": args.config,
        "vec_env": cfg.env.vec_env,
        "python": platform.python_version(),
        "torch_threads": args.threads,
    }
    out["actor"] = bench_actor(cfg, 2000)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer.create(cfg, Path(tmp) / "run", progress=False)
        out["selfplay_env"] = bench_env(cfg, min(steps, 2000), trainer.pool.entries())
        t = time.perf_counter()
        trainer.train(progress=False)
        dt = time.perf_counter() - t
        out["ppo"] = {"steps_per_s": steps / dt, "steps": steps, "num_envs": cfg.env.num_envs}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
