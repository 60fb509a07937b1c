"""Single-agent view (单智能体环境) of ``sichuan_mahjong_v0``: one learning seat against fixed opponents.

:class:`SingleAgentEnv` is a gymnasium ``Env`` for one learner; the other seats are played by given opponents until
the learner has a decision to make.  An episode is one hand.

* Observation: the ``chuanma-v1`` tensor, float32 ``(106, 34)`` (see :mod:`envs.engine.observation`).
* Action: ``Discrete(183)``; :meth:`SingleAgentEnv.action_masks` returns the legal mask (bool) as sb3-contrib's
  ``MaskablePPO`` expects; ``info["action_mask"]`` carries the same mask (``int8``).
* Reward: the **learner's own** score change since its previous decision (kong payments, wins, settlement), in the
  units of the AEC env options (``reward_mode``, ``reward_scale``, ``normalize_reward``).  The rewards of an episode
  sum to the learner seat's hand score.
* Illegal actions (mask entry 0): ``illegal_action="raise"`` (default) raises ``ValueError`` naming the action and
  the legal ones; ``"penalty"`` leaves the state unchanged, pays ``illegal_penalty`` and sets
  ``info["illegal_action"]``, truncating the episode after ``max_illegal`` illegal actions in a row (for learners
  without masks, and for ``gymnasium`` / ``stable_baselines3`` ``check_env``, which step unmasked samples).
* The episode terminates when the learner's part of the hand is over: when the hand ends, or when the learner
  leaves it as a 血战 winner whose score is final (the AEC env's rule, see :mod:`envs.sichuan_mahjong_v0`).  A
  reward earned before the learner's first decision (a kong payment to an early dealer kong) is paid with the
  first step; a hand that ends before the learner ever decides is skipped (the next hand of the seed sequence is
  dealt; ``info["skipped_hands"]`` counts them).

Opponents: a single policy for every other seat, or a sequence of ``num_players - 1`` policies for the seats after
the learner in turn order (下家, 对家, 上家).  A policy is a callable ``f(observation, action_mask) -> int`` or an
object with ``act(observation, legal_mask) -> int`` (an optional ``reset(seat, cfg)`` is called before each hand).
``None`` (default) plays uniformly random legal actions from a generator seeded by ``reset(seed=...)``.

``seat`` is a seat number, or ``"random"``: a seat drawn per episode from the reset seed.  ``reset(seed)`` is
deterministic: the same seed gives the same hand, seat and random opponent choices.

>>> from envs.single_agent import SingleAgentEnv
>>> env = SingleAgentEnv("chengdu", seat="random")
>>> obs, info = env.reset(seed=3)
>>> obs.shape
(106, 34)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig
from envs.sichuan_mahjong_v0 import raw_env

Policy = Callable[[np.ndarray, np.ndarray], int] | Any
ILLEGAL_ACTION_MODES = ("raise", "penalty")


def _as_id(action: Any) -> int | None:
    try:
        a = operator.index(np.asarray(action).item() if isinstance(action, np.ndarray) else action)
    except (TypeError, ValueError):
        return None
    return a if 0 <= a < ACTION_SPACE_SIZE else None


class SingleAgentEnv(gymnasium.Env):
    """One learning seat of ``sichuan_mahjong_v0`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        variant: str | RuleConfig = "hongzhong",
        opponents: Policy | Sequence[Policy] | None = None,
        *,
        seat: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        max_illegal: int = 64,
        **env_options: Any,
    ) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTION_MODES)}, got {illegal_action!r}")
        if max_illegal < 1:
            raise ValueError(f"max_illegal must be >= 1, got {max_illegal!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.max_illegal = max_illegal
        self._illegal_run = 0
        self.aec = raw_env(variant=variant, render_mode=render_mode, **env_options)
        self.cfg = self.aec.cfg
        self.render_mode = render_mode
        n = self.cfg.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat number 0-{n - 1}, got {seat!r}")
        self.seat_option = seat
        if opponents is None or not isinstance(opponents, Sequence):
            self._opponents: list[Policy | None] = [opponents] * (n - 1)
        else:
            if len(opponents) != n - 1:
                raise ValueError(f"expected {n - 1} opponent policies (one per other seat), got {len(opponents)}")
            self._opponents = list(opponents)
        for policy in self._opponents:
            if policy is not None and not callable(policy) and not hasattr(policy, "act"):
                raise ValueError(f"opponent {policy!r} is neither a callable f(obs, mask) nor has act(obs, mask)")
        # the AEC env's: chuanma-v1, or chuanma-v1-match in match mode (RULES.md §11.2)
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(ACTION_SPACE_SIZE)
        self.seat = 0 if seat == "random" else seat
        self._rng = np.random.default_rng(0)
        self._mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
        self._done = True
        self._score = 0
        self._pending_reward = 0.0

    # ---- gymnasium API ---------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        skipped = 0
        self.aec.reset(seed=seed, options=options)
        while True:
            self._start_hand()
            self._pending_reward = self._advance()
            if not self._done:
                break
            if options and "wall" in options:
                raise ValueError("the fixed start given in options ends the hand before the learner's first decision")
            skipped += 1  # the hand ended before the learner ever decided: deal the next hand of the sequence
            self.aec.reset(options=options)
        obs, info = self._observe()
        info["skipped_hands"] = skipped
        return obs, info

    def _start_hand(self) -> None:
        n = self.cfg.num_players
        if self.seat_option == "random":
            self.seat = int(self._rng.integers(n))
        self.agent = self.aec.possible_agents[self.seat]
        for r, policy in enumerate(self._opponents, start=1):
            if policy is not None and hasattr(policy, "reset"):
                policy.reset((self.seat + r) % n, self.aec.hand_cfg)
        self._done = False
        self._illegal_run = 0
        self._score = self.aec.scores[self.seat]

    def step(self, action: int):
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset() first")
        action_id = _as_id(action)
        if self.illegal_action == "penalty" and (action_id is None or not self._mask[action_id]):
            self._illegal_run += 1
            obs, info = self._observe()
            info["illegal_action"] = True
            truncated = self._illegal_run >= self.max_illegal
            self._done = truncated
            return obs, self.illegal_penalty, False, truncated, info
        self._illegal_run = 0
        self.aec.step(action if action_id is None else action_id)
        reward = self._advance() + self._pending_reward
        self._pending_reward = 0.0
        obs, info = self._observe()
        return obs, reward, self._done, False, info

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask of the learner's current decision (all False once the episode ended)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ---- internals -------------------------------------------------------------------------------------------
    def _advance(self) -> float:
        """Play the opponents until the learner must act or leaves; returns the learner's reward meanwhile."""
        aec = self.aec
        me = self.agent
        while aec.agents:
            agent = aec.agent_selection
            if agent == me:
                if aec.terminations[me]:
                    aec.step(None)  # the learner leaves: its hand score is final (the AEC env guarantees it)
                break
            if aec.terminations[agent]:
                aec.step(None)
            else:
                seat = aec.agent_name_mapping[agent]
                policy = self._opponents[(seat - self.seat) % self.cfg.num_players - 1]
                if policy is None:  # a random opponent needs only the mask (the observation would be thrown away)
                    aec.step(int(self._rng.choice(np.flatnonzero(aec.legal_mask(seat)))))
                    continue
                obs = aec.observe(agent)
                aec.step(self._act(policy, obs["observation"], obs["action_mask"]))
        self._done = me not in aec.agents
        score = aec.scores[self.seat]
        if aec.reward_mode == "delta":
            reward = (score - self._score) * aec.reward_factor
        else:
            reward = score * aec.reward_factor if self._done else 0.0
        if self._done:
            reward += aec.placement_reward(self.seat)  # a match's placement reward (RULES.md §11.4), else 0
        self._score = score
        return float(reward)

    def _act(self, policy: Policy | None, observation: np.ndarray, mask: np.ndarray) -> int:
        if policy is None:
            return int(self._rng.choice(np.flatnonzero(mask)))
        if hasattr(policy, "act"):
            return int(policy.act(observation, mask))
        return int(policy(observation, mask))

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        aec = self.aec
        seat = self.seat
        if self._done:
            obs = aec.observe(self.agent)["observation"]  # the learner has left: its mask is all zeros
            self._mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
            return obs, aec.end_info(seat, {"action_mask": self._mask.copy()})
        o = aec.observe(self.agent)
        self._mask = o["action_mask"]
        return o["observation"], aec.info_with(self.agent, {"action_mask": self._mask.copy()})
