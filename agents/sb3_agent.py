"""Agents from stable-baselines3 models (sb3 模型智能体): ``sb3:PATH`` in an agent specification.

:class:`SB3Agent` plays a ``MaskablePPO`` model of sb3-contrib saved with ``model.save(PATH)`` after training on the
chuanma observations — :class:`envs.single_agent.SingleAgentEnv`, :func:`envs.vector_env.make_vec_env` or anything
else with the ``(106, 34)`` observation and the 183 flat actions — behind ``act(observation, legal_mask)``: the
model's ``predict`` with the legal mask, deterministic (the masked argmax).  So ``chuanma eval --challenger
sb3:my_model.zip --opponent greedy`` evaluates one's own model by duplicate evaluation.  (A policy of ``chuanma
train`` is a ``policy:PATH``: it carries its variant and network input.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent
from envs.core.actions import ACTION_SPACE_SIZE
from envs.engine.observation import OBS_SHAPE


class SB3Agent(BaseAgent):
    """A ``MaskablePPO`` model as an agent (see the module docstring)."""

    name = "sb3"

    def __init__(self, model: Any, *, name: str | None = None) -> None:
        super().__init__()
        obs_shape = tuple(getattr(model.observation_space, "shape", None) or ())
        actions = getattr(model.action_space, "n", None)
        if obs_shape != OBS_SHAPE or actions != ACTION_SPACE_SIZE:
            raise ValueError(
                f"sb3 model {name or model!r} was trained on observations of shape {obs_shape} with {actions} "
                f"actions; the chuanma agents see {OBS_SHAPE} and {ACTION_SPACE_SIZE} actions"
            )
        self.model = model
        if name:
            self.name = name

    @classmethod
    def load(cls, path: str | Path) -> SB3Agent:
        """Load a ``MaskablePPO`` zip (``ValueError`` naming the file when it is missing or not such a model)."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"sb3 model {str(path)!r} does not exist (expected a zip written by MaskablePPO.save)")
        from sb3_contrib import MaskablePPO

        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as exc:  # sb3 raises many kinds for a file that is not its zip
            raise ValueError(f"sb3 model {str(path)!r} cannot be loaded as a MaskablePPO model ({exc})") from None
        return cls(model, name=f"sb3:{path}")

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        mask = np.asarray(legal_mask, dtype=bool)
        action, _ = self.model.predict(np.asarray(observation), action_masks=mask, deterministic=True)
        return int(action)

    def __repr__(self) -> str:
        return f"SB3Agent({self.name!r})"
