"""chuanma rules engine and environments.

The engine modules (``envs.tiles``, ``envs.hand``, ``envs.scoring``, ``envs.game`` ...) import neither PettingZoo nor
gymnasium.  ``from envs import sichuan_mahjong_v0`` loads the PettingZoo AEC environment lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {"sichuan_mahjong_v0"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"envs.{name}")
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
