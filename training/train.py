"""Self-play training (自我对弈训练) of one variant: the ``chuanma train`` command.

``chuanma train --config configs/train/hongzhong.yaml [--total-steps N] [--run-dir DIR]`` starts a run in
``runs/<name>/`` (or ``DIR``); ``chuanma train --resume runs/hongzhong [--total-steps N]`` continues one from its
newest checkpoint (exactly as if it had not been interrupted).  At the end it prints the final report (duplicate
evaluation against the configured baselines) and writes ``final.zip``, ``report.{json,md}`` and
``learning_curve.png`` into the run directory.  What a run does is described in :mod:`training.trainer`; the
configuration keys in :mod:`training.train_config` and ``configs/train/*.yaml``.

From Python::

    from training.train import train
    report = train("configs/train/hongzhong.yaml", total_steps=200_000)

This module imports torch and sb3 only when a run starts, so that the ``chuanma`` command line stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def train(
    config: str | Path,
    *,
    total_steps: int | None = None,
    run_dir: str | Path | None = None,
    workers: int = 1,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Train from a config file (or name of ``configs/train/``) to the end; returns the final report."""
    from training.train_config import load_train_config
    from training.trainer import Trainer

    overrides = {"total_steps": total_steps} if total_steps is not None else None
    trainer = Trainer.create(load_train_config(config, overrides), run_dir, progress=progress)
    trainer.train(progress=progress)
    return trainer.finish(workers=workers, progress=progress is not False)


def resume(
    run_dir: str | Path, *, total_steps: int | None = None, workers: int = 1, progress: bool | None = None
) -> dict[str, Any]:
    """Continue the run in ``run_dir`` to its end (``total_steps`` may extend it); returns the final report."""
    from training.trainer import Trainer

    trainer = Trainer.resume(run_dir, total_steps=total_steps)
    trainer.train(progress=progress)
    return trainer.finish(workers=workers, progress=progress is not False)


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
    p.add_argument("--resume", metavar="RUN_DIR", default=None, help="continue the run in RUN_DIR")
    p.add_argument("--run-dir", default=None, help="run directory (default runs/<name>)")
    p.add_argument("--workers", type=int, default=1, help="worker processes for the final evaluation")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run_cli)
    return p


def run_cli(args: argparse.Namespace) -> int:
    progress = False if args.no_progress else None
    if args.total_steps is not None and args.total_steps <= 0:
        raise ValueError(f"--total-steps must be positive, got {args.total_steps}")
    if args.resume:
        if args.config or args.run_dir:
            raise ValueError("--resume takes the config and directory of the run; do not give --config/--run-dir")
        report = resume(args.resume, total_steps=args.total_steps, workers=args.workers, progress=progress)
    else:
        if not args.config:
            raise ValueError("give --config configs/train/<variant>.yaml (or --resume RUN_DIR)")
        report = train(
            args.config, total_steps=args.total_steps, run_dir=args.run_dir, workers=args.workers, progress=progress
        )
    print(report["markdown"])
    return 0
