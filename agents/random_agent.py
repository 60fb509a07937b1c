"""Random baseline (随机智能体): a uniform choice among the legal actions, from the agent's own seeded generator."""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent, legal_ids

__all__ = ["RandomAgent"]


class RandomAgent(BaseAgent):
    """Uniform over the legal actions of each decision (each 换三张 pick is one decision).

    ``seed`` (or an existing ``numpy.random.Generator`` as ``rng``) fixes the agent's own random stream; the global
    RNG is never used.  Two agents built with the same seed make the same choices on the same inputs.
    """

    name = "random"

    def __init__(self, seed: int | None = 0, *, rng: np.random.Generator | None = None) -> None:
        super().__init__()
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if rng is None:
            if seed is None:
                raise ValueError("RandomAgent needs an explicit seed (or rng=): no hidden randomness")
            rng = np.random.default_rng(seed)
        self.rng = rng

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        ids = legal_ids(legal_mask)
        return int(ids[self.rng.integers(ids.size)])

    def __repr__(self) -> str:
        return "RandomAgent()"
