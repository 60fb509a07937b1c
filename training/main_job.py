"""The README's main job (主任务): ``chuanma main`` (``bash dev.sh main``).

Trains a self-play policy on the default variant (红中 hongzhong) from ``configs/train/hongzhong.yaml`` scaled to a
budget that finishes in about ten minutes on two CPU cores — the network reads the value baseline's choice at each
decision as input planes (``net.advisor: value``, :mod:`agents.learned.advice`: computed from the observation and the
legal mask alone), behaviour-cloning warm start from the YAML's teacher (the value baseline), then self-play PPO on
the batched path (``trainer: batched``: :mod:`training.rollout` tables, :mod:`training.ppo` updates, the compiled
engine and the compiled baselines) — evaluates it against ``random``, ``greedy`` and, when the package ships one,
the policy of its variant (``pretrained:hongzhong``) by duplicate one-vs-three evaluation, prints the markdown table,
how the policy compares with the shipped one, how many decisions PPO trained on, and where the learning curve and
the checkpoint went.

Budget
------
The clock starts once the compiled code is ready: before it, the job compiles what numba's on-disk cache lacks (the
engine and the agents of its variant: minutes of one core after an install or a change of their sources, as
``chuanma compile``; seconds to load them otherwise), and its first line says which it was.

* ``--minutes M`` (default 10): time budget of the job.  BC uses a fixed number of decisions, PPO runs whole
  segments until ``PPO_SHARE`` of the budget has passed, the final evaluation plays a fixed number of walls (scaled
  with ``M``).  The number of PPO steps therefore depends on the machine; the report states it.
* ``--steps N``: a fixed number of PPO steps instead of a deadline (reproducible: same seed, same result).
* ``--device auto|cpu|cuda``: the learner's torch device (the rollout tables stay on the CPU).
* ``CHUANMA_BUDGET=small`` (environment variable): everything tiny (well under a minute) for CI and notebooks.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.train_config import TrainConfig, load_train_config

DEFAULT_CONFIG = "hongzhong"
ADVISOR = "value"  # net.advisor of the main job: the network reads the value agent's choice (agents/learned/advice.py)
LEARNING_RATE = 5.0e-5  # constant: small steps away from the cloned advisor keep its edge while PPO learns
PPO_SHARE = 0.85  # PPO stops at the first segment boundary after this share of the time budget
PPO_EPOCHS = 2  # passes over each batch: fresh self-play experience costs less than a third and fourth pass
LATEST_SHARE = 1.0  # the learner plays every seat that is not a baseline: each of its decisions is a sample
TORCH_THREADS = 2  # the update's threads (two cores); the rollout's small forward passes run on one
EVAL_WALLS = 400  # final-evaluation walls per opponent of a ten-minute budget (batched: well under a minute each)
BUDGET_ENV = "CHUANMA_BUDGET"


@dataclass(frozen=True)
class Budget:
    """How much of everything the main job does."""

    minutes: float | None  # time budget (None: run exactly ``steps``)
    steps: int  # PPO steps (an upper bound when ``minutes`` is set)
    bc_decisions: int
    eval_walls: int
    segment_steps: int
    num_envs: int
    n_steps: int
    batch_size: int


def budget_for(minutes: float | None, steps: int | None, small: bool) -> Budget:
    """The budget for ``--minutes`` / ``--steps`` / ``CHUANMA_BUDGET=small``."""
    if small:
        return Budget(None, steps or 1024, 400, 2, 512, 8, 64, 128)
    if steps is not None:
        if steps <= 0:
            raise ValueError(f"--steps must be positive, got {steps}")
        walls = EVAL_WALLS if minutes is None else max(4, int(EVAL_WALLS * minutes / 10.0))
        return Budget(minutes, steps, 20000, walls, 32768, 256, 32, 512)
    if minutes is None:
        minutes = 10.0
    if minutes <= 0:
        raise ValueError(f"--minutes must be positive, got {minutes}")
    scale = minutes / 10.0
    return Budget(
        minutes=minutes,
        steps=10_000_000,
        bc_decisions=max(1000, int(20000 * min(1.0, scale))),
        eval_walls=max(4, int(EVAL_WALLS * scale)),
        segment_steps=32768,
        num_envs=256,
        n_steps=32,
        batch_size=512,
    )


def main_config(
    budget: Budget,
    *,
    seed: int,
    base: str | Path = DEFAULT_CONFIG,
    device: str = "cpu",
    engine: str = "compiled",
) -> TrainConfig:
    """``configs/train/hongzhong.yaml`` scaled to ``budget`` on the batched trainer (constant learning rate,
    evaluation only at the end), the network reading the :data:`ADVISOR`'s choice at each decision (behaviour
    cloning copies it, PPO learns where to depart from it), its tables on ``engine``."""
    cfg = load_train_config(base)
    from agents.pretrained import available

    opponents = tuple(cfg.eval.opponents)
    if cfg.variant in available():  # how the run compares with the policy shipped for its variant
        opponents = (*opponents, f"pretrained:{cfg.variant}")
    return cfg.replace(
        source="chuanma main budget",
        **{
            "trainer": "batched",
            "device": device,
            "env.engine": engine,
            "name": f"main-{cfg.name}",
            "seed": seed,
            "total_steps": budget.steps,
            "env.num_envs": budget.num_envs,
            "ppo.n_steps": budget.n_steps,
            "ppo.batch_size": budget.batch_size,
            "ppo.n_epochs": PPO_EPOCHS,
            "pool.latest_share": LATEST_SHARE,
            "torch_threads": TORCH_THREADS,
            "ppo.learning_rate": LEARNING_RATE,
            "ppo.learning_rate_final": LEARNING_RATE,
            "net.advisor": ADVISOR,
            "bc.decisions": budget.bc_decisions,
            "schedule.segment_steps": budget.segment_steps,
            "schedule.checkpoint_every": 8,
            "eval.every": 0,
            "eval.final_deals": budget.eval_walls,
            "eval.opponents": opponents,
        },
    )


def compile_first(variant: str) -> None:
    """Compile (or load) the compiled engine and agents the job plays on ``variant`` before its clock starts, and
    print what it took (:meth:`training.precompile.CompileReport.line`).  When numba's on-disk cache lacks any of
    them (a fresh install, a change of their sources), say so first: compiling takes minutes of one core, once."""
    from training import precompile

    if not (precompile.engine_cached() and precompile.agents_cached()):
        print(
            "chuanma main: compiling the numba engine and agents first (after an install or a change of their "
            "sources: minutes of one core, once; not counted in the budget)",
            flush=True,
        )
    print(f"chuanma main: {precompile.compile_engine((variant,)).line()}, before the budget's clock starts", flush=True)


def run_main(
    *,
    minutes: float | None = None,
    steps: int | None = None,
    run_dir: str | Path | None = None,
    seed: int = 0,
    workers: int = 2,
    progress: bool = True,
    small: bool | None = None,
    device: str = "cpu",
) -> dict[str, Any]:
    """Run the main job; returns the training report (see :func:`training.report.write_report`)."""
    from training.trainer import RUNS_DIR, Trainer

    if small is None:
        small = os.environ.get(BUDGET_ENV, "").strip().lower() == "small"
    budget = budget_for(minutes, steps, small)
    if small:
        workers = 1  # starting worker processes costs more than the few walls of a small evaluation
    cfg = main_config(budget, seed=seed, device=device)
    compile_first(cfg.variant)
    start = time.monotonic()
    if run_dir is None:
        run_dir = RUNS_DIR / f"{cfg.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    print(
        f"chuanma main: variant {cfg.variant}, budget "
        + (f"{budget.minutes:g} min" if budget.minutes else f"{budget.steps} PPO steps")
        + f", BC {budget.bc_decisions} decisions, final evaluation {budget.eval_walls} walls per opponent, "
        f"trainer {cfg.trainer} on the {cfg.env.engine} engine ({cfg.env.num_envs} tables), run directory {run_dir}",
        flush=True,
    )
    trainer = Trainer.create(cfg, run_dir, progress=progress)
    deadline = start + PPO_SHARE * budget.minutes * 60.0 if budget.minutes else None
    trainer.train(deadline=deadline, progress=progress)
    report = trainer.finish(workers=workers, progress=progress)
    elapsed = time.monotonic() - start
    report["job_wall_time_s"] = elapsed
    print()
    print(report["markdown"])
    print(f"Learning curve: {report['learning_curve']}")
    print(f"Checkpoint:     {report['checkpoint']}  (agents.policy.PolicyAgent.load)")
    print(f"Report:         {Path(run_dir) / 'report.md'}")
    for row in report["final_eval"]:
        if str(row.get("opponent", "")).startswith("pretrained:"):
            print(pretrained_line(row, cfg.variant))
    print(
        f"Wall time {elapsed / 60:.1f} min from the start of the budget; PPO ({cfg.trainer}) trained on "
        f"{report['steps']} learner decisions ({report['table_decisions']} decisions played by the self-play tables)."
    )
    return report


def pretrained_line(row: dict[str, Any], variant: str) -> str:
    """The report line comparing the trained policy with the shipped policy of ``variant`` (a final-eval row)."""
    low, high = row.get("ci_low"), row.get("ci_high")
    if low is None or high is None:
        interval, verdict = "no interval", "not decided"
    else:
        interval = f"[{low:+.2f}, {high:+.2f}]"
        verdict = "ahead" if low > 0 else "behind" if high < 0 else "not decided"
    return (
        f"Against the shipped {row['opponent']} (agents/pretrained/{variant}.md): {row['points']:+.2f} points/hand "
        f"{interval} over {row['walls']} walls ({verdict})"
    )


def register_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``main`` subcommand to a ``chuanma`` argument parser."""
    p = subparsers.add_parser(
        "main",
        help="the README's main job: train on hongzhong (~10 min), evaluate vs random and greedy",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--minutes", type=float, default=None, help="time budget in minutes (default 10)")
    group.add_argument("--steps", type=int, default=None, help="a fixed number of PPO steps instead of a deadline")
    p.add_argument("--seed", type=int, default=0, help="run seed")
    p.add_argument("--run-dir", default=None, help="run directory (default runs/main-hongzhong-<time>)")
    p.add_argument("--workers", type=int, default=2, help="worker processes for the final evaluation")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--device", choices=("auto", "cpu", "cuda"), default="cpu", help="learner device (rollouts stay on the CPU)"
    )
    p.set_defaults(func=_run_cli)
    return p


def _run_cli(args: argparse.Namespace) -> int:
    run_main(
        minutes=args.minutes,
        steps=args.steps,
        run_dir=args.run_dir,
        seed=args.seed,
        workers=args.workers,
        progress=not args.no_progress,
        device=args.device,
    )
    return 0
