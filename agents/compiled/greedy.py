"""Compiled greedy baseline (编译版牌效率智能体): :class:`agents.greedy.GreedyAgent`'s decisions for a whole batch.

:class:`BatchGreedyAgent` runs the compiled play of :mod:`agents.compiled.value_play` with the greedy options
(``OI_GREEDY``, :meth:`agents.compiled.value_play.ValueOptions.of_greedy`): the discard that minimises the shanten,
then maximises the live effective tiles (then terminals first, then the most visible kind), the greedy 将 rule of
武汉 (a 2-5-8 pair only), kongs that keep the shanten, and pong / 飞 / 吃 claims by the greedy tests alone; 换三张,
定缺, the 报胡 question and the variant actions are :mod:`agents.compiled.opening`, as for the value agent.  Every row
gets the Python agent's decision (``tests/agents/test_compiled_greedy.py``).
"""

from __future__ import annotations

from typing import Any

from agents.compiled.value import BatchValueAgent
from agents.compiled.value_plans import ValueKit
from agents.compiled.value_play import ValueOptions, ValueSetup
from agents.greedy import GreedyAgent
from agents.value import ValueAgent
from envs.core.rule_config import RuleConfig

__all__ = ["BatchGreedyAgent"]


class BatchGreedyAgent(BatchValueAgent):
    """The greedy baseline for a batch of decision rows (see :class:`agents.compiled.value.BatchValueAgent`)."""

    python_class: Any = GreedyAgent

    def _configure(self, cfg: RuleConfig) -> None:
        self.cfg = cfg
        self.python.reset(0, cfg)
        # the value rows the compiled play reads (live tiles, dead suits ...); their hand values go unused here, and
        # the greedy play reads no opponent (read_opponents is a ninth of a decision: left out)
        shape = ValueAgent()
        shape.reset(0, cfg)
        self.kit = ValueKit(cfg, max_off_suit=shape.max_off_suit, exhaustion_weight=shape.exhaustion_weight,
                            exit_weight=shape.exit_weight, opponents=False)  # fmt: skip
        self.setup = ValueSetup(
            cfg,
            ValueOptions.of_greedy(self.python, cfg),
            max_off_suit=shape.max_off_suit,
            ready_value=shape._ready_value,
            exit_weight=shape.exit_weight,
        ).args()

    def __repr__(self) -> str:
        return f"BatchGreedyAgent({self.name!r}, {self.options!r})"
