"""Compiled baselines by name (编译版基线注册): :func:`make_batch_agent` builds the batch player of ``greedy``,
``value``, ``defensive`` or the ``arbiter`` (which plays the compiled ``value`` and ``defensive``) with the Python
agent's options.

Each compiled baseline answers ``act_batch(observations, masks)`` for a whole batch in one numba call and makes the
decision of the readable Python agent of the same name and options (the differential tests of
``tests/agents/test_compiled_*.py``); it also plays one decision (``act``) and so fits everywhere an agent does.  A
baseline that is not compiled (``random`` draws from its own generator) is refused by name, and so is an option the
Python agent does not have.
"""

from __future__ import annotations

import importlib
from typing import Any

from envs.core.rule_config import RuleConfig, load_variant

__all__ = ["COMPILED_BASELINES", "make_batch_agent"]

COMPILED_BASELINES: dict[str, tuple[str, str]] = {
    "greedy": ("agents.compiled.greedy", "BatchGreedyAgent"),
    "value": ("agents.compiled.value", "BatchValueAgent"),
    "defensive": ("agents.compiled.defensive", "BatchDefensiveAgent"),
    "arbiter": ("agents.compiled.arbiter", "BatchArbiterAgent"),
}


def make_batch_agent(name: str, cfg: str | RuleConfig, **options: Any) -> Any:
    """The compiled baseline ``name`` for the rules ``cfg`` with the Python agent's ``options``; ``ValueError`` names
    a baseline that is not compiled or an option the agent does not have."""
    if name not in COMPILED_BASELINES:
        raise ValueError(f"no compiled baseline {name!r}; the compiled baselines are {sorted(COMPILED_BASELINES)}")
    module, cls_name = COMPILED_BASELINES[name]
    cls = getattr(importlib.import_module(module), cls_name)
    python = cls.python_class
    from agents.registry import constructor_options

    allowed = constructor_options(python)
    unknown = sorted(k for k in options if k not in allowed)
    if unknown:
        raise ValueError(f"compiled {name!r} has no option(s) {unknown}; its options are {sorted(allowed)}")
    return cls(load_variant(cfg), **options)
