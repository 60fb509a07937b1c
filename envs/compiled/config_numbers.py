"""Configuration numbers (配置编号) for the compiled kernel's calls back into Python.

The kernel's rule vector holds only integers; where it asks the Python scorer for a verdict (``kernel.win_ok`` with
``V_PYTHON``) it passes the configuration's number from :func:`number`, and the callback looks the configuration up
with :func:`config`.  A number is derived from the configuration's contents (the same in every process), and a
process knows the configurations registered in it: :func:`number` registers one (``support.rule_vector`` does, and
so does unpickling a :class:`~envs.compiled.ledger.Ledger`, which every compiled environment holds).
"""

from __future__ import annotations

import hashlib

from envs.core.rule_config import RuleConfig

_CONFIGS: dict[int, RuleConfig] = {}


def number(cfg: RuleConfig) -> int:
    """The number of ``cfg`` (a 31-bit digest of its fields), registered in this process."""
    n = int.from_bytes(hashlib.sha256(repr(cfg).encode()).digest()[:4], "big") & 0x7FFFFFFF
    known = _CONFIGS.setdefault(n, cfg)
    if known != cfg:  # pragma: no cover - a 31-bit digest collision between two live configurations
        raise RuntimeError(f"configurations {known.name!r} and {cfg.name!r} share the number {n}")
    return n


def config(n: int) -> RuleConfig:
    """The configuration registered as number ``n``."""
    cfg = _CONFIGS.get(n)
    if cfg is None:
        raise KeyError(
            f"no configuration registered as number {n} in this process (envs.compiled.config_numbers.number registers "
            "one; support.rule_vector and unpickling a compiled environment's ledger do)"
        )
    return cfg
