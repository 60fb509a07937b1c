"""chuanma rules engine and environments, in layers (ARCHITECTURE.md), each importing only the ones below it.

* :mod:`envs.core` — tiles, melds, actions, the rule configuration and the seeded wall;
* :mod:`envs.scoring` — hand evaluation (win check, waits, shanten), fan tables, the scorer and settlement;
* :mod:`envs.engine` — the state machine (:class:`envs.engine.game.Game`, variants), a seat's view and observation;
* :mod:`envs.compiled` — the same state machine compiled with numba;
* the environments on top: :mod:`envs.sichuan_mahjong_v0` (PettingZoo AEC), :mod:`envs.single_agent` (gymnasium) and
  :mod:`envs.vector_env` (batched).

The rules layers (core, scoring, engine) import neither PettingZoo, gymnasium, numba nor torch.
``from envs import sichuan_mahjong_v0`` loads the PettingZoo AEC environment lazily.  The modules' names before the
layers keep importing (:mod:`envs.legacy`), so that old checkpoints load.
"""

from __future__ import annotations

import importlib
from typing import Any

from envs.legacy import install as _install_legacy_names

__version__ = "0.1.0"

_LAZY = {"sichuan_mahjong_v0"}

_install_legacy_names()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"envs.{name}")
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
