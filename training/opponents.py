"""Baseline opponents of batched self-play (批量基线对手): the one place the rollout gets a rule-based player.

:func:`batch_baseline` returns a player with ``act_batch(observations, masks) -> actions`` (the protocol
:meth:`envs.vector_env.VectorEnv._ask` uses): one call answers a batch of decisions, each row from its own seat's
observation.  ``greedy``, ``value`` and ``defensive`` (with any options) and ``compiled:NAME`` are the compiled
baselines of :mod:`agents.compiled` (the Python agents' decisions, one numba call per batch); a policy
(``pretrained:NAME``, ``policy:PATH``) answers in one forward pass; any other agent (``random``) is the readable
Python agent of :mod:`agents.registry` asked row by row (:class:`LoopedBaseline`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.registry import make_agent, parse_spec
from envs.core.rule_config import RuleConfig, load_variant

__all__ = ["LoopedBaseline", "batch_baseline"]


class LoopedBaseline:
    """A Python baseline answering a batch row by row (one agent serves every row: the baselines read everything
    they decide from the observation; ``reset`` configures the rules once)."""

    def __init__(self, spec: str, cfg: RuleConfig, seed: int) -> None:
        self.name = spec
        self.agent = make_agent(spec, seed=seed, variant=cfg)
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(0, cfg)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(B, C, 34)`` / ``masks`` ``(B, 183)`` (a policy, e.g.
        ``pretrained:NAME``, answers the batch in one forward pass)."""
        batched = getattr(self.agent, "act_batch", None)
        if batched is not None:
            return np.asarray(batched(observations, masks), dtype=np.int64)
        act = self.agent.act
        return np.fromiter((act(o, m) for o, m in zip(observations, masks)), dtype=np.int64, count=len(masks))

    def __repr__(self) -> str:
        return f"LoopedBaseline({self.name!r})"


def batch_baseline(spec: str, cfg: str | RuleConfig, seed: int) -> Any:
    """The batch player of baseline ``spec`` (a registry specification, e.g. ``"value"``) for rules ``cfg``;
    ``seed`` seeds its random draws (the ``random`` baseline)."""
    rules = load_variant(cfg)
    parsed = parse_spec(spec)
    from agents.compiled import COMPILED_BASELINES, make_batch_agent

    if parsed.kind == "compiled":
        return make_batch_agent(parsed.argument or "", rules, **parsed.options)
    if parsed.kind in COMPILED_BASELINES:
        return make_batch_agent(parsed.kind, rules, **parsed.options)
    return LoopedBaseline(spec, rules, seed)
