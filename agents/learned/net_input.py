"""Network input (网络输入): the observation plus the optional feature blocks a learned policy reads.

``(rows, 34)`` float32, in this order:

1. the observation of :mod:`envs.engine.observation` (``OBS_SHAPE[0]`` rows), or with ``match`` the
   ``chuanma-v1-match`` observation of :mod:`envs.engine.match_observation` (``MATCH_OBS_SHAPE[0]`` rows: the
   standings of a match, RULES.md §11.2);
2. with ``net.hand_features``: the :mod:`agents.learned.hand_features` planes (computed from the observation's
   ``chuanma-v1`` rows);
3. with ``net.advisor``: the :mod:`agents.learned.advice` planes (the advisor agent's choice, which needs the legal
   mask).

:class:`NetInput` builds it for one variant; :class:`NetInputObservation` (one single-agent env) and
:class:`NetInputVecEnv` (a ``VecEnv``) give the training environments' observations in this form, taking the legal
masks from ``action_masks``.  :func:`input_space` is the matching observation space and
:func:`agents.learned.extractor.input_rows` the row layout the feature extractor reads.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from agents.compiled.hand_features import BatchHandFeatures
from agents.learned.advice import Advisor, encode, encode_batch
from agents.learned.extractor import input_rows
from agents.learned.hand_features import HAND_FEATURE_PLANES, HandFeatures
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS
from envs.engine.match_observation import MATCH_OBS_SHAPE, match_bounds
from envs.engine.observation import OBS_SHAPE, observation_bounds

__all__ = ["NetInput", "NetInputObservation", "NetInputVecEnv", "input_space"]

_NO_MASK = np.zeros(ACTION_SPACE_SIZE, dtype=bool)


def input_space(hand_features: bool = False, advisor: bool = False, match: bool = False) -> gymnasium.spaces.Box:
    """The network input space: the observation bounds (with ``match``: the match observation's), then [0, 1] for the
    feature blocks that are on."""
    low, high = observation_bounds()
    if match:
        match_low, match_high = match_bounds()
        low, high = np.concatenate((low, match_low)), np.concatenate((high, match_high))
    extra = input_rows(hand_features, advisor, match)[0] - low.shape[0]
    low = np.concatenate((low, np.zeros((extra, NUM_KINDS), dtype=np.float32)))
    high = np.concatenate((high, np.ones((extra, NUM_KINDS), dtype=np.float32)))
    return gymnasium.spaces.Box(low=low, high=high, shape=low.shape, dtype=np.float32)


class NetInput:
    """Builds the network input of ``variant`` with the hand-feature planes (``hand_features``) and the advice of
    ``advisor`` (an :data:`agents.learned.advice.ADVISORS` name, ``""`` for none); ``match``: the observations are
    ``chuanma-v1-match`` (a match env's, RULES.md §11.2), read whole."""

    def __init__(
        self, variant: str | RuleConfig, *, hand_features: bool = False, advisor: str = "", match: bool = False
    ) -> None:
        self.cfg = load_variant(variant)
        self.hand = HandFeatures(self.cfg) if hand_features else None
        self.batch_hand = BatchHandFeatures(self.cfg) if hand_features else None
        self.advisor = Advisor(self.cfg, advisor) if advisor else None
        self.match = match
        self.obs_rows = MATCH_OBS_SHAPE[0] if match else OBS_SHAPE[0]
        self.rows = input_rows(hand_features, bool(advisor), match)[0]

    @property
    def bare(self) -> bool:
        """Whether the input is the observation itself (no feature block is on)."""
        return self.rows == self.obs_rows

    @property
    def needs_mask(self) -> bool:
        """Whether :meth:`build` needs the legal mask (the advice does)."""
        return self.advisor is not None

    def space(self) -> gymnasium.spaces.Box:
        return input_space(self.hand is not None, self.advisor is not None, self.match)

    def build(
        self,
        observation: np.ndarray,
        legal_mask: np.ndarray | None = None,
        out: np.ndarray | None = None,
        *,
        advice: int | None = None,
    ) -> np.ndarray:
        """The ``(rows, 34)`` float32 input of one observation (``legal_mask`` is required with an advisor).

        ``advice``: the advisor's action at this decision when the caller already knows it (behaviour cloning of
        the advisor itself), so that it is not computed twice."""
        if out is None:
            out = np.empty((self.rows, NUM_KINDS), dtype=np.float32)
        base = self.obs_rows
        out[:base] = observation
        hand_obs = observation[: OBS_SHAPE[0]]
        if self.hand is not None:
            self.hand.planes(hand_obs, out=out[base : base + HAND_FEATURE_PLANES])
            base += HAND_FEATURE_PLANES
        if self.advisor is not None and advice is not None:
            encode(advice, out[base:])
        elif self.advisor is not None:
            if legal_mask is None:
                raise ValueError(
                    f"the network input with advisor {self.advisor.name!r} needs the legal-action mask of the "
                    "observation (pass legal_mask)"
                )
            self.advisor.planes(hand_obs, legal_mask, out=out[base:])
        return out

    def build_batch(
        self, observations: np.ndarray, masks: np.ndarray | None = None, *, advice: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`build` of every observation of a batch ``(B, C, 34)`` (``masks`` ``(B, 183)``, required with an
        advisor): the observations followed by their :meth:`feature_blocks`, ``(B, rows, 34)`` float32."""
        observations = np.asarray(observations)
        out = np.empty((observations.shape[0], self.rows, NUM_KINDS), dtype=np.float32)
        out[:, : self.obs_rows] = observations
        self.feature_blocks(observations, masks, advice=advice, out=out[:, self.obs_rows :])
        return out

    def feature_blocks(
        self,
        observations: np.ndarray,
        masks: np.ndarray | None = None,
        *,
        advice: np.ndarray | None = None,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The rows of the network input after the observation, for a batch of observations ``(B, C, 34)``:
        ``(B, rows - obs_rows, 34)`` float32 (into ``out`` if given).  The hand-feature planes of the whole batch come
        from one compiled call (:class:`agents.compiled.hand_features.BatchHandFeatures`, the same values as
        :meth:`build`), and so do the advisor's actions (:meth:`agents.learned.advice.Advisor.planes_batch`).
        ``advice``: the advisor's action of every row when the caller already knows them (``(B,)``, as
        :meth:`build`'s ``advice``)."""
        observations = np.asarray(observations)
        n = observations.shape[0]
        shape = (n, self.rows - self.obs_rows, NUM_KINDS)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be float32 of shape {shape}, got {out.dtype} {out.shape}")
        if self.match:  # the feature blocks read the chuanma-v1 rows
            observations = np.ascontiguousarray(observations[:, : OBS_SHAPE[0]])
        base = 0
        if self.batch_hand is not None:
            planes = out if self.advisor is None and out.flags.c_contiguous else None  # written in place
            got = self.batch_hand.planes(observations, out=planes)
            if planes is None:
                out[:, :HAND_FEATURE_PLANES] = got
            base = HAND_FEATURE_PLANES
        if self.advisor is not None:
            if masks is None:
                raise ValueError(
                    f"the network input with advisor {self.advisor.name!r} needs the legal-action masks of the "
                    "observations (pass masks)"
                )
            if advice is not None:
                encode_batch(np.asarray(advice), out[:, base:])
            else:
                self.advisor.planes_batch(observations, masks, out[:, base:])
        return out


class NetInputObservation(gymnasium.ObservationWrapper):
    """A single-agent env whose observations are network inputs (``action_masks`` passes through)."""

    def __init__(self, env: gymnasium.Env, net_input: NetInput) -> None:
        super().__init__(env)
        self.net_input = net_input
        self.observation_space = net_input.space()

    def observation(self, observation: np.ndarray) -> np.ndarray:
        mask = self.env.action_masks() if self.net_input.needs_mask else None
        return self.net_input.build(observation, mask)


class NetInputVecEnv(VecEnvWrapper):
    """A ``VecEnv`` whose observations (and terminal observations, with no advice) are network inputs."""

    def __init__(self, venv: VecEnv, net_input: NetInput) -> None:
        super().__init__(venv, observation_space=net_input.space())
        self.net_input = net_input

    def _masks(self) -> np.ndarray | None:
        return get_action_masks(self.venv) if self.net_input.needs_mask else None

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        return self.net_input.build_batch(obs, self._masks())

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            terminal = info.get("terminal_observation")
            if terminal is not None:  # the hand is over: nothing is legal, so no advice
                info["terminal_observation"] = self.net_input.build(terminal, _NO_MASK)
        return self.net_input.build_batch(obs, self._masks()), rewards, dones, infos
