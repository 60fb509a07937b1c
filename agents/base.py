"""The one agent interface (智能体接口) shared by baselines, learned policies and outside bots.

An agent sees exactly what the AEC environment gives its seat: the observation tensor of
:mod:`envs.engine.observation` (shape ``(C, 34)``) and the ``int8`` legal-action mask over the flat layout of
:mod:`envs.core.actions`.  It returns one flat action id whose mask entry is 1.  ``reset`` is called before each hand.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

import numpy as np

from envs.core.rule_config import RuleConfig


@runtime_checkable
class Agent(Protocol):
    """``act(observation, legal_mask) -> action id`` plus an optional ``reset(seat, variant)``."""

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int: ...


class BaseAgent(ABC):
    """Convenience base class: stores the seat and variant given by :meth:`reset`."""

    name = "agent"

    def __init__(self) -> None:
        self.seat: int | None = None
        self.variant: RuleConfig | None = None

    def reset(self, seat: int, variant: RuleConfig) -> None:
        """Called before each hand with the agent's seat and the rules in force."""
        self.seat = seat
        self.variant = variant

    @abstractmethod
    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        """Choose one flat action id allowed by ``legal_mask``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def legal_ids(legal_mask: np.ndarray) -> np.ndarray:
    """The flat ids allowed by a mask; raises ``ValueError`` for an empty mask."""
    ids = np.flatnonzero(legal_mask)
    if ids.size == 0:
        raise ValueError("the legal-action mask is empty: there is no decision to make")
    return ids
