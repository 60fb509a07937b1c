"""Compiled arbiter (编译版仲裁智能体): :class:`agents.arbiter.ArbiterAgent`'s decisions for a whole batch.

:class:`BatchArbiterAgent` asks the compiled ``value`` and ``defensive`` baselines for every row (one call each) and
the arbiter's gate for the rows where they discard different tiles (:func:`agents.arbiter.choose`), so it makes the
Python agent's decision on every row (``tests/agents/test_arbiter.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.arbiter import ArbiterAgent, choose
from agents.compiled.defensive import BatchDefensiveAgent
from agents.compiled.value import BatchValueAgent
from envs.core.rule_config import RuleConfig, load_variant

__all__ = ["BatchArbiterAgent"]


class BatchArbiterAgent:
    """The arbiter for a batch of decision rows of one rule set: ``act_batch(observations, masks)``,
    ``act(observation, mask)`` and ``reset(seat, variant)``; an instance serves one thread at a time (its
    baselines' scratch rows)."""

    python_class: type[ArbiterAgent] = ArbiterAgent

    def __init__(self, cfg: str | RuleConfig, **options: Any) -> None:
        self.options = dict(options)
        self.python = ArbiterAgent(**options)  # checks every option (ValueError names the bad one)
        self.name = self.python.name
        self.cfg = load_variant(cfg)
        self.gate = self.python.gate_of(self.cfg)  # refuses rules without a gate, by name
        self.value = BatchValueAgent(self.cfg)
        self.defensive = BatchDefensiveAgent(self.cfg)

    def reset(self, seat: int, variant: str | RuleConfig) -> None:
        """Configure for ``variant`` (the agent keeps no per-hand state)."""
        cfg = load_variant(variant)
        if cfg != self.cfg:
            self.gate = self.python.gate_of(cfg)
            self.cfg = cfg
        self.value.reset(seat, cfg)
        self.defensive.reset(seat, cfg)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        """One decision (a batch of one row)."""
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(legal_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(B, C, 34)`` and legal ``masks`` ``(B, 183)``."""
        va = self.value.act_batch(observations, masks)
        da = self.defensive.act_batch(observations, masks)
        return choose(self.gate, observations, va, da)

    def __repr__(self) -> str:
        return f"BatchArbiterAgent({self.options!r})"
