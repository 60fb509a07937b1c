"""Compiled defensive baseline (编译版防守智能体): :class:`agents.defensive.DefensiveAgent`'s decisions for a batch.

:class:`BatchDefensiveAgent` is :class:`agents.compiled.value.BatchValueAgent` with the defensive options: the
compiled play (:mod:`agents.compiled.value_play`) reads them from its option arrays — danger-weighted discards
(:mod:`agents.compiled.danger`), risk folding, late push/fold, late folding of far hands, safe first, the speed
steer and danger-ordered void tiles.
"""

from __future__ import annotations

from agents.compiled.value import BatchValueAgent
from agents.defensive import DefensiveAgent
from agents.value import ValueAgent

__all__ = ["BatchDefensiveAgent"]


class BatchDefensiveAgent(BatchValueAgent):
    """The defensive baseline for a batch of decision rows (see :class:`BatchValueAgent`)."""

    python_class: type[ValueAgent] = DefensiveAgent
