"""Configuration numbers (配置编号) for the compiled kernel's calls back into Python.

The kernel's rule vector holds only integers; where it asks the Python scorer for a verdict (``kernel.win_ok`` with
``V_PYTHON``) it passes the configuration's number from :func:`number`, and the callback looks the configuration up
with :func:`config`.  Numbers are stable for the life of the process; equal configurations share one.
"""

from __future__ import annotations

from envs.config import RuleConfig

_CONFIGS: list[RuleConfig] = []
_NUMBERS: dict[RuleConfig, int] = {}


def number(cfg: RuleConfig) -> int:
    """The number of ``cfg`` (registered on first use)."""
    n = _NUMBERS.get(cfg)
    if n is None:
        n = _NUMBERS[cfg] = len(_CONFIGS)
        _CONFIGS.append(cfg)
    return n


def config(n: int) -> RuleConfig:
    """The configuration registered as number ``n``."""
    if not 0 <= n < len(_CONFIGS):
        raise KeyError(f"no configuration registered as number {n} (envs.compiled.configs.number registers them)")
    return _CONFIGS[n]
