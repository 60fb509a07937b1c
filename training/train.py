"""Self-play training (自我对弈训练) of one variant: the ``chuanma train`` command.

``chuanma train --config configs/train/hongzhong.yaml [--total-steps N] [--run-dir DIR]`` starts a run in
``runs/<name>/`` (or ``DIR``); ``chuanma train --resume runs/hongzhong [--total-steps N]`` continues one from its
newest checkpoint (exactly as if it had not been interrupted).  At the end it prints the final report (duplicate
evaluation against the configured baselines) and writes ``final.zip``, ``report.{json,md}`` and
``learning_curve.png`` into the run directory.  What a run does is described in :mod:`training.trainer`; the
configuration keys in :mod:`training.train_config` and ``configs/train/*.yaml``.

Budget options scale every part of a run from the command line, so that a small run is small:
``--total-steps N`` (PPO), ``--bc-decisions N`` (the behaviour-cloning warm start; 0: none), ``--eval-every K`` and
``--eval-walls W`` (periodic evaluations; ``--eval-every 0``: none), ``--final-walls W`` (the final evaluation per
opponent; 0: none) and ``--set KEY=VALUE`` for any other key of the YAML (dotted, e.g. ``--set ppo.n_steps=64``).
``--ray [ADDRESS]`` plays the self-play rollouts in Ray actors (:mod:`training.distributed`;
``--set distributed.workers=4``).
A smoke run (34 CPU seconds measured)::

    chuanma train --config hongzhong --total-steps 2048 --bc-decisions 500 --eval-every 0 --final-walls 4

The run prints one line per phase (plan, BC, each segment, each evaluation, the files), also with
``--no-progress`` (which only turns the progress bars off).

From Python::

    from training.train import train
    report = train("configs/train/hongzhong.yaml", total_steps=200_000, overrides={"bc.decisions": 500})

This module imports torch and sb3 only when a run starts, so that the ``chuanma`` command line stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

# command-line budget options -> training config keys (training.train_config)
BUDGET_OPTIONS = {
    "bc_decisions": "bc.decisions",
    "eval_every": "eval.every",
    "eval_walls": "eval.deals",
    "final_walls": "eval.final_deals",
}


def train(
    config: str | Path,
    *,
    total_steps: int | None = None,
    run_dir: str | Path | None = None,
    workers: int = 1,
    progress: bool | None = None,
    overrides: dict[str, Any] | None = None,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
) -> dict[str, Any]:
    """Train from a config file (or name of ``configs/train/``) to the end; returns the final report.

    ``overrides``: dotted config keys and their values (``{"bc.decisions": 500}``), validated like the file.
    ``replay_dir`` / ``replay_sample``: replay files of the final evaluation (:meth:`Trainer.finish`)."""
    from training.train_config import load_train_config
    from training.trainer import Trainer

    overrides = dict(overrides or {})
    if total_steps is not None:
        overrides["total_steps"] = total_steps
    trainer = Trainer.create(load_train_config(config, overrides or None), run_dir, progress=progress)
    try:
        trainer.train(progress=progress)
        return trainer.finish(
            workers=workers, progress=progress is not False, replay_dir=replay_dir, replay_sample=replay_sample
        )
    finally:
        trainer.close()


def resume(
    run_dir: str | Path,
    *,
    total_steps: int | None = None,
    workers: int = 1,
    progress: bool | None = None,
    final_walls: int | None = None,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Continue the run in ``run_dir`` to its end (``total_steps`` may extend it); returns the final report.

    ``final_walls``: walls of the final evaluation per opponent instead of the run's ``eval.final_deals``;
    ``ray_address``: continue with Ray rollout workers on that cluster (:mod:`training.distributed`)."""
    from training.trainer import Trainer

    trainer = Trainer.resume(run_dir, total_steps=total_steps, ray_address=ray_address)
    try:
        trainer.train(progress=progress)
        return trainer.finish(
            final_walls=final_walls,
            workers=workers,
            progress=progress is not False,
            replay_dir=replay_dir,
            replay_sample=replay_sample,
        )
    finally:
        trainer.close()


# ---- command line --------------------------------------------------------------------------------------------------
def register_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``train`` subcommand to a ``chuanma`` argument parser."""
    p = subparsers.add_parser(
        "train",
        help="self-play training of one variant (MaskablePPO)",
        description="Self-play training with MaskablePPO (see training/train.py).",
    )
    p.add_argument("--config", help="training config YAML (configs/train/<variant>.yaml) or its name")
    p.add_argument("--total-steps", type=int, default=None, help="override total_steps (learner decisions)")
    budget = p.add_argument_group(
        "budget", "scale the other parts of a run too (a small run: --bc-decisions 500 --eval-every 0 --final-walls 4)"
    )
    budget.add_argument("--bc-decisions", type=int, default=None, help="bc.decisions: BC warm start size (0: none)")
    budget.add_argument(
        "--eval-every", type=int, default=None, help="eval.every: segments between evaluations (0: final only)"
    )
    budget.add_argument("--eval-walls", type=int, default=None, help="eval.deals: walls per periodic evaluation")
    budget.add_argument(
        "--final-walls", type=int, default=None, help="eval.final_deals: final evaluation walls per opponent (0: none)"
    )
    budget.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any config key, dotted, with a YAML value (repeatable), e.g. --set ppo.n_steps=64",
    )
    p.add_argument(
        "--trainer",
        choices=("sb3", "batched"),
        default=None,
        help="override trainer (the training loop: sb3 or batched)",
    )
    p.add_argument(
        "--device", choices=("auto", "cpu", "cuda"), default=None, help="override device (the learner's torch device)"
    )
    p.add_argument("--resume", metavar="RUN_DIR", default=None, help="continue the run in RUN_DIR")
    p.add_argument("--run-dir", default=None, help="run directory (default runs/<name>)")
    p.add_argument("--workers", type=int, default=1, help="worker processes for the final evaluation")
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="self-play rollouts in Ray actors (distributed.backend: ray): alone, on a Ray instance started here; "
        "'auto', the cluster of 'ray start'; or HOST:PORT (workers and tables: the distributed section)",
    )
    p.add_argument(
        "--save-replays",
        metavar="DIR",
        default=None,
        help="write replay files of the final evaluation's hands into DIR, with the policy's action probabilities",
    )
    p.add_argument(
        "--replay-sample", type=int, metavar="N", default=None, help="with --save-replays: only the first N walls"
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bars (one line per phase is printed either way)"
    )
    p.set_defaults(func=run_cli)
    return p


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The config overrides of ``chuanma train``'s budget options and ``--set KEY=VALUE`` items."""
    overrides: dict[str, Any] = {}
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set takes KEY=VALUE (a dotted config key), got {item!r}")
        try:
            overrides[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"--set {item!r}: the value is not valid YAML ({exc})") from None
    for option, key in BUDGET_OPTIONS.items():
        value = getattr(args, option)
        if value is not None:
            if value < 0:
                raise ValueError(f"--{option.replace('_', '-')} must be >= 0, got {value}")
            overrides[key] = value
    for option in ("trainer", "device"):
        value = getattr(args, option, None)
        if value is not None:
            overrides[option] = value
    return overrides


def run_cli(args: argparse.Namespace) -> int:
    progress = False if args.no_progress else None
    if args.total_steps is not None and args.total_steps <= 0:
        raise ValueError(f"--total-steps must be positive, got {args.total_steps}")
    overrides = cli_overrides(args)
    if args.replay_sample is not None and args.save_replays is None:
        raise ValueError("--replay-sample needs --save-replays DIR")
    if args.resume:
        if args.config or args.run_dir:
            raise ValueError("--resume takes the config and directory of the run; do not give --config/--run-dir")
        fixed = sorted(set(overrides) - {"eval.final_deals"})
        if fixed:
            raise ValueError(
                f"--resume continues the run with its own configuration; only --total-steps and --final-walls "
                f"change it (got {', '.join(fixed)})"
            )
        report = resume(
            args.resume,
            total_steps=args.total_steps,
            workers=args.workers,
            progress=progress,
            final_walls=overrides.get("eval.final_deals"),
            replay_dir=args.save_replays,
            replay_sample=args.replay_sample,
            ray_address=args.ray,
        )
    else:
        if args.ray is not None:
            overrides.update({"distributed.backend": "ray", "distributed.address": args.ray})
        if not args.config:
            raise ValueError("give --config configs/train/<variant>.yaml (or --resume RUN_DIR)")
        report = train(
            args.config,
            total_steps=args.total_steps,
            run_dir=args.run_dir,
            workers=args.workers,
            progress=progress,
            overrides=overrides,
            replay_dir=args.save_replays,
            replay_sample=args.replay_sample,
        )
    print(report["markdown"])
    return 0
