"""Pretrained policies shipped with the package (预训练策略): a policy-only checkpoint per preset and its model card.

Files, next to this module:

* ``<variant>.zip`` — a policy-only checkpoint (:func:`agents.policy.save_policy`) of the final policy of the run the
  card documents;
* ``<variant>.md`` — its model card: the training configuration, the command, the commit, the hardware, wall time and
  decisions seen, and the duplicate evaluation table against the baselines with 95 % intervals;
* ``<variant>.json`` — the rows of that table (:func:`evaluation`).

They load by name without network access and without a ``runs/`` directory:
:meth:`agents.policy.PolicyAgent.pretrained` (``PolicyAgent.pretrained("hongzhong")``) and the agent specification
``pretrained:hongzhong`` (:mod:`agents.registry`).  ``chuanma publish RUN_DIR`` (:mod:`training.publish`) evaluates a
finished run and writes both files here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["PRETRAINED_DIR", "available", "card_path", "checkpoint_path", "evaluation"]

PRETRAINED_DIR = Path(__file__).resolve().parent


def available() -> tuple[str, ...]:
    """The names (variant presets) of the shipped policies, sorted."""
    return tuple(sorted(p.stem for p in PRETRAINED_DIR.glob("*.zip")))


def checkpoint_path(name: str) -> Path:
    """The checkpoint file of the shipped policy ``name``; ``ValueError`` names the shipped ones when it is unknown."""
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise ValueError(f"a pretrained policy is named by its variant preset, got {name!r}")
    path = PRETRAINED_DIR / f"{name}.zip"
    if not path.is_file():
        shipped = ", ".join(available()) or "none"
        raise ValueError(f"no pretrained policy {name!r} ships with this package; shipped: {shipped}")
    return path


def card_path(name: str) -> Path:
    """The model card (markdown) of the shipped policy ``name``."""
    return checkpoint_path(name).with_suffix(".md")


def evaluation(name: str) -> dict[str, Any]:
    """The published evaluation of the shipped policy ``name``: ``seed`` of the held-out walls, ``walls`` (the most
    of any row) and one row per opponent (``opponent``, its ``walls``, ``hands``, ``points`` per hand, ``ci_low`` /
    ``ci_high`` of its 95 % interval, ``wall_means``: the challenger's mean per wall, so that any wall can be replayed
    and checked)."""
    data: dict[str, Any] = json.loads(checkpoint_path(name).with_suffix(".json").read_text(encoding="utf-8"))
    return data
