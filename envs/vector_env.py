"""Batched environment (批量环境): many hands of ``sichuan_mahjong_v0`` stepped in one call, for training.

:class:`VectorEnv` keeps ``num_envs`` hands (one :class:`envs.engine.game.Game` per *slot*) and advances all of them
with one ``step(actions)`` call.  Observations are written into one ``float32`` array ``(N, C, 34)`` (the
tensor of :mod:`envs.engine.observation`, ``C`` = ``NUM_PLANES``) and legal masks into one ``int8`` array ``(N, 183)``.
The rules stay in the engine: the batched env only orders the decisions, collects the 换三张 picks and pays rewards,
exactly as the AEC environment does, without PettingZoo's per-agent dictionaries, infos and event logs.
Every ``reset`` and ``step`` encodes every row into a new observation array (``venv.obs`` is the latest), so an
array returned earlier is never overwritten: sb3's on-policy algorithms store the previous step's observations
after stepping.  The mask array ``venv.masks`` is reused (``action_masks()`` returns a copy).

Two modes
---------
* **Learner** (default, ``self_play=False``): one learning seat per slot, the other seats played by
  ``opponents`` until the learner has a decision.  This is :class:`envs.single_agent.SingleAgentEnv` batched:
  same observations, masks, rewards, episode ends and seat draws.  ``VectorEnv(v, N, seed=s)`` produces exactly
  what sb3's ``DummyVecEnv([SingleAgentEnv(v) for _ in range(N)])`` produces after ``.seed(s)`` (slot ``i``
  starts from seed ``s + i``; later hands of a slot are the next hands of its seed sequence,
  :func:`envs.core.wall.hand_seed`), as long as the opponents do not depend on the order in which they are asked.
  ``step`` returns ``obs (N, C, 34)``, ``rewards (N,)`` float32, ``dones (N,)`` bool, ``infos`` (list of dicts).
* **Self-play** (``self_play=True``): every decision of every seat is a step.  Row ``i`` of the observation is
  the view of the seat whose turn it is in slot ``i`` (``acting_seats[i]``, also ``infos[i]["seat"]``);
  ``step`` returns ``rewards`` of shape ``(N, num_players)``: every seat's reward of that step, exactly the
  AEC env's ``rewards`` after that step (a 血战 winner's seat gets nothing more once it has left).  ``dones[i]``
  is true when the hand ended.  This mode is for custom self-play loops (sb3 algorithms expect one reward per
  slot: use the learner mode with policy opponents there).

Opponents (learner mode)
------------------------
``opponents`` is ``None`` (uniformly random legal actions drawn from the slot's generator, like
``SingleAgentEnv``), one policy for every other seat, a sequence of ``num_players - 1`` policies for the seats
after the learner (下家, 对家, 上家), or a *pool*: an object with ``opponents_for(slot, rng)`` returning such a
sequence for the next hand of ``slot`` (``rng`` is a generator of that slot, seeded from the slot's seed and
independent of the seat and random-opponent draws).  A policy is a callable ``f(obs, mask) -> int`` or has
``act(obs, mask) -> int``; an optional ``reset(seat, cfg)`` is called before each hand.  A policy with
``act_batch(observations, masks) -> actions`` is asked once per round for all slots where it has a decision
(``observations`` ``(B, C, 34)``, ``masks`` ``(B, 183)`` int8; it must treat the rows independently).  Random
opponents never need an observation, so none is encoded for them.

Episodes, seeds, resets
-----------------------
An episode is one hand (learner mode: the learner's part of it — a 血战 winner's episode ends when its score is
final).  A slot whose episode ended is dealt its next hand at once (auto-reset, as sb3's ``VecEnv`` requires):
``infos[i]["terminal_observation"]`` holds the last observation of the ended episode and ``infos[i]["episode"]``
its return ``r`` and length ``l``.  A hand that ends before the learner (self-play: anyone) decides is skipped.
``reset()`` deals every slot the next hand of its sequence, or a new sequence when :meth:`seed` gave seeds
(``VecEnv`` semantics).  Nothing reads the clock or OS entropy.

stable-baselines3
-----------------
With sb3 installed the class is an sb3 ``VecEnv`` (``step_async``/``step_wait``, ``get_attr``, ``set_attr``,
``env_method``, ``env_is_wrapped``, ``seed``).  sb3-contrib's ``MaskablePPO`` gets the masks through
``env_method("action_masks")`` (bool rows); :meth:`action_masks` returns them as one ``(N, 183)`` array.
``env_method`` also forwards any other method to the opponent pool (e.g. ``set_pool`` of the training
helper), called once, with the result repeated per slot; a pool with a ``seed(seed)`` method is reseeded by
:meth:`VectorEnv.seed` (so that shared opponents' generators restart with the environment).

Compiled engine
---------------
:func:`make_vec_env` with ``engine="compiled"`` returns :class:`envs.compiled.vector.CompiledVectorEnv`: this
environment (same constructor, modes, observations, masks, rewards and infos, checked step by step by
``tests/envs/test_compiled_vector_env.py``) on the numba engine of :mod:`envs.compiled`, for every preset and the
rule flags it plays (:func:`envs.compiled.support.unsupported` names the others).

>>> from envs.vector_env import VectorEnv
>>> venv = VectorEnv("hongzhong", num_envs=4, seed=0)
>>> obs = venv.reset()
>>> obs.shape == (4, *OBS_SHAPE), venv.masks.shape
(True, (4, 183))
>>> obs, rewards, dones, infos = venv.step(venv.sample_actions())
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.actions import ACTION_SPACE_SIZE, action_name, engine_action
from envs.core.rule_config import ENGINES, RuleConfig, load_variant
from envs.core.wall import hand_seed
from envs.engine.game import Game
from envs.engine.observation import (
    OBS_SHAPE,
    GameObserver,
    ObservationEncoder,
    game_mask,
    legal_ids,
    observation_bounds,
)
from envs.scoring.settlement import score_final

try:  # sb3 is an optional dependency (the ``train`` extra): without it the class is a plain batched env
    from stable_baselines3.common.vec_env import VecEnv as _VecEnvBase
except ImportError:  # pragma: no cover - exercised only without sb3
    _VecEnvBase = object  # type: ignore[assignment,misc]

__all__ = ["ENGINES", "REWARD_MODES", "VectorEnv", "make_vec_env"]

REWARD_MODES = ("delta", "terminal")
Policy = Callable[[np.ndarray, np.ndarray], int] | Any
_POOL_SALT = 0x5E1F  # the opponent-pool generator of a slot: default_rng([slot seed, salt])


class _Slot:
    """One hand in the batch and its bookkeeping (the state the AEC env and the single-agent wrapper keep)."""

    __slots__ = (
        "alive",
        "ep_len",
        "ep_return",
        "game",
        "hand_index",
        "observer",
        "pending",
        "picks",
        "policies",
        "pool_rng",
        "rng",
        "score",
        "scores",
        "seat",
        "seed",
        "skipped",
    )

    def __init__(self) -> None:
        self.game: Game | None = None
        self.observer: GameObserver | None = None  # incremental observations of the slot's hand
        self.seed: Any = 0
        self.hand_index = -1
        self.rng = np.random.default_rng(0)
        self.pool_rng = np.random.default_rng([0, _POOL_SALT])
        self.seat = 0  # learner seat (learner mode) or the acting seat (self-play)
        self.picks: list[list[int]] = []
        self.scores: list[int] = []  # per-seat scores already paid as rewards (AEC ``_scores``)
        self.alive: list[bool] = []  # seats still in the AEC env's ``agents``
        self.score = 0  # learner mode: the learner's score already paid
        self.pending: Any = 0.0  # reward earned before the first decision (float, or per-seat array in self-play)
        self.policies: list[Any] = []
        self.ep_return = 0.0
        self.ep_len = 0
        self.skipped = 0


class VectorEnv(_VecEnvBase):
    """``num_envs`` hands of one variant stepped together (see the module docstring).

    ``variant``: preset name, YAML path or :class:`~envs.core.rule_config.RuleConfig`; ``rules``: flag overrides.
    ``seat``: the learner's seat number or ``"random"`` (drawn per hand from the slot's generator).
    ``reward_mode``, ``reward_scale``, ``normalize_reward``: as the AEC env options of the same names.
    ``seed``: slot ``i`` starts from seed ``seed + i`` at the first :meth:`reset`.
    """

    def __init__(
        self,
        variant: str | RuleConfig = "hongzhong",
        num_envs: int = 8,
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        seat: int | str = "random",
        self_play: bool = False,
        seed: int = 0,
        rules: dict[str, Any] | None = None,
        reward_mode: str = "delta",
        reward_scale: float = 1.0,
        normalize_reward: bool = False,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {list(REWARD_MODES)}, got {reward_mode!r}")
        if not np.isfinite(reward_scale):
            raise ValueError(f"reward_scale must be a finite number, got {reward_scale!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed!r}")
        cfg = load_variant(variant, **dict(rules or {}))
        Game(cfg, seed=0, record_events=False)  # UnsupportedRule now rather than at the first reset
        self.cfg = cfg
        n = self.num_players = cfg.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat number 0-{n - 1}, got {seat!r}")
        self.seat_option = seat
        self.self_play = bool(self_play)
        if self.self_play and opponents is not None:
            raise ValueError("self_play=True plays every seat from the actions given to step(); opponents must be None")
        self._pool = None
        self._fixed: list[Any] = [None] * (n - 1)
        if opponents is not None and hasattr(opponents, "opponents_for"):
            self._pool = opponents
        elif opponents is not None and isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise ValueError(f"expected {n - 1} opponent policies (one per other seat), got {len(opponents)}")
            self._fixed = list(opponents)
        elif opponents is not None:
            self._fixed = [opponents] * (n - 1)
        for policy in self._fixed:
            _check_policy(policy)
        self.reward_mode = reward_mode
        self.reward_scale = float(reward_scale)
        self.normalize_reward = bool(normalize_reward)
        self._factor = self.reward_scale / (cfg.base_unit if normalize_reward else 1)
        self._encoder = ObservationEncoder.from_config(cfg)
        self.render_mode = None
        low, high = observation_bounds()
        self.obs = np.zeros((num_envs, *OBS_SHAPE), dtype=np.float32)
        self.masks = np.zeros((num_envs, ACTION_SPACE_SIZE), dtype=np.int8)
        self.acting_seats = np.zeros(num_envs, dtype=np.int64)
        self._scratch_obs = np.zeros((num_envs, *OBS_SHAPE), dtype=np.float32)
        self._scratch_masks = np.zeros((num_envs, ACTION_SPACE_SIZE), dtype=np.int8)
        self._slots = [_Slot() for _ in range(num_envs)]
        self._actions: np.ndarray | None = None
        self._was_reset = False  # step() before the first reset() has no hands to play
        self._start = time.perf_counter()
        try:
            from gymnasium import spaces
        except ImportError:  # pragma: no cover - gymnasium comes with the env / train extras
            obs_space = act_space = None
        else:
            obs_space = spaces.Box(low=low, high=high, shape=OBS_SHAPE, dtype=np.float32)
            act_space = spaces.Discrete(ACTION_SPACE_SIZE)
        if _VecEnvBase is object:  # pragma: no cover - without sb3: the same attributes, set here
            self.num_envs = num_envs
            self.observation_space, self.action_space = obs_space, act_space
            self.reset_infos = [{} for _ in range(num_envs)]
        else:
            super().__init__(num_envs, obs_space, act_space)
        self._seeds = [seed + i for i in range(num_envs)]

    # ---- episode management --------------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every slot a hand (the seeds given by :meth:`seed`, else the next hand of its sequence)."""
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._new_obs()
        self._was_reset = True
        self._deal_all(range(self.num_envs), [self._seeds[i] for i in range(self.num_envs)], self.reset_infos)
        self._seeds = [None] * self.num_envs
        for i, s in enumerate(self._slots):
            self.reset_infos[i]["skipped_hands"] = s.skipped
        return self.obs

    def _new_obs(self) -> None:
        """A new array for the observations this reset / step encodes (each encodes every row)."""
        self.obs = np.empty((self.num_envs, *OBS_SHAPE), dtype=np.float32)

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seeds for the next :meth:`reset`: slot ``i`` gets ``seed + i`` (sb3 ``VecEnv.seed`` semantics)."""
        if seed is None or isinstance(seed, bool) or not hasattr(seed, "__index__") or seed < 0:
            raise ValueError(f"VectorEnv.seed needs a non-negative int seed (it never draws one itself), got {seed!r}")
        seed = operator.index(seed)
        self._seeds = [seed + i for i in range(self.num_envs)]
        if self._pool is not None and callable(getattr(self._pool, "seed", None)):
            self._pool.seed(seed)
        return list(self._seeds)

    def _new_hand(self, i: int, seed: int | None) -> bool:
        """Deal slot ``i`` its next hand (a new seed sequence when ``seed`` is given), as ``raw_env.reset`` does;
        True when something happened at the deal itself (:meth:`_deal`)."""
        s = self._slots[i]
        if seed is not None:
            s.seed, s.hand_index = seed, 0
            s.rng = np.random.default_rng(seed)
            s.pool_rng = np.random.default_rng([seed, _POOL_SALT])
            hand = seed
        else:
            s.hand_index += 1
            hand = s.seed if s.hand_index == 0 else hand_seed(s.seed, s.hand_index)
        moved = self._deal(i, hand)
        n = self.num_players
        s.scores = self._scores_of(i)
        s.alive = [True] * n
        s.ep_return = 0.0
        s.ep_len = 0
        if self.self_play:
            s.pending = 0.0  # the deal's rewards, paid with the slot's next step
            if moved:  # a seat may leave at the deal (four 红中 at once)
                s.pending = np.zeros(n, dtype=np.float32)
                self._pay(i, s.pending)
            return moved
        s.seat = int(s.rng.integers(n)) if self.seat_option == "random" else self.seat_option
        if self._pool is not None:
            policies = list(self._pool.opponents_for(i, s.pool_rng))
            if len(policies) != n - 1:
                raise ValueError(f"the opponent pool returned {len(policies)} policies, expected {n - 1}")
            for policy in policies:
                _check_policy(policy)
            s.policies = policies
        else:
            s.policies = self._fixed
        for r, policy in enumerate(s.policies, start=1):
            if policy is not None and hasattr(policy, "reset"):
                policy.reset((s.seat + r) % n, self.cfg)
        s.score = s.scores[s.seat]
        s.pending = 0.0
        return moved

    # ---- the engine of the slots (CompiledVectorEnv overrides these) ----------------------------------------------
    def _deal(self, i: int, hand: Any) -> bool:
        """Start hand seed ``hand`` in slot ``i``; False when nothing happened at the deal itself (no win there: the
        scores are zero and every seat is in the hand)."""
        s = self._slots[i]
        g = s.game = Game(self.cfg, seed=hand, record_events=False)
        s.observer = GameObserver(self._encoder, g)
        s.picks = [[] for _ in range(self.num_players)]
        return bool(g.wins) or g.is_over

    def _scores_of(self, i: int) -> list[int]:
        """The hand scores of slot ``i`` (a fresh list)."""
        return list(self._slots[i].game.scores)

    def _leaves(self, i: int, seat: int) -> bool:
        """Whether ``seat``'s score in slot ``i`` is final: the hand is over, or the seat left it (血战 winner) and
        can no longer gain or lose points (the AEC env's rule, :func:`envs.scoring.settlement.score_final`)."""
        g = self._slots[i].game
        return g.is_over or (not g.active[seat] and score_final(g.cfg, seat, g.kong_payments, g.won))

    def _observe_into(self, pairs: list[tuple[int, int]], obs: np.ndarray, masks: np.ndarray) -> None:
        """The observation and mask of each ``(slot, seat)`` into row ``slot`` of ``obs`` and ``masks``."""
        for i, seat in pairs:
            s = self._slots[i]
            s.observer.encode(seat, obs[i], exchange_picks=s.picks[seat])
            game_mask(s.game, seat, s.picks[seat], masks[i])

    def _play_all(self, pairs: list[tuple[int, int]], actions: list[int]) -> None:
        """Apply ``actions[j]`` of the seat of ``pairs[j]`` in its slot."""
        for (i, seat), a in zip(pairs, actions):
            self._play(self._slots[i], seat, a)

    def _terminal_observation(self, i: int) -> np.ndarray:
        """The last observation of slot ``i``'s learner (a new array)."""
        s = self._slots[i]
        return s.observer.encode(s.seat)

    def _deal_all(self, indices: Sequence[int], seeds: Sequence[Any], infos: list[dict[str, Any]]) -> None:
        """Deal hands until every listed slot awaits a decision; fill the observations and masks of those rows."""
        for i, seed in zip(indices, seeds):
            s = self._slots[i]
            s.skipped = 0
            self._new_hand(i, seed)
        self._settle(list(indices), infos, fresh=set(indices))

    # ---- stepping ------------------------------------------------------------------------------------------------
    def _require_reset(self) -> None:
        if not self._was_reset:
            raise RuntimeError(f"{type(self).__name__}.step() before reset(): call reset() first to deal the hands")

    def step_async(self, actions: np.ndarray) -> None:
        self._require_reset()
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        actions = self._actions
        if actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        self._actions = None
        return self._step(actions)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Apply one action per slot (flat ids, shape ``(N,)``); returns ``obs, rewards, dones, infos``."""
        self._require_reset()
        return self._step(actions)

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        acts = np.asarray(actions).reshape(-1)
        N = self.num_envs
        if acts.shape[0] != N:
            raise ValueError(f"expected {N} actions (one per slot), got shape {np.shape(actions)}")
        masks = self.masks
        infos: list[dict[str, Any]] = [{} for _ in range(N)]
        dones = np.zeros(N, dtype=bool)
        n = self.num_players
        rewards = np.zeros((N, n) if self.self_play else N, dtype=np.float32)
        for i in range(N):
            a = int(acts[i])
            if not (0 <= a < ACTION_SPACE_SIZE and masks[i, a]):
                legal = ", ".join(f"{j} ({action_name(j)})" for j in np.flatnonzero(masks[i]))
                raise ValueError(f"illegal action {a} in slot {i} (seat {self._slots[i].seat}); legal: {legal}")
        self._new_obs()
        if self.self_play:
            ended, others = [], []
            for i in range(N):
                s = self._slots[i]
                row = rewards[i]
                row += s.pending
                s.pending = 0.0
                if self._play(s, s.seat, int(acts[i])):
                    self._pay(i, row)
                s.ep_len += 1
                if s.game.is_over:
                    dones[i] = True
                    infos[i]["final_scores"] = list(s.game.scores)
                    infos[i]["episode"] = {"l": s.ep_len, "t": self._elapsed()}
                    ended.append(i)
                else:
                    others.append(i)
            self._settle(others, infos, fresh=set())
            self._deal_all(ended, [None] * len(ended), infos)
            for i in range(N):
                infos[i]["seat"] = self._slots[i].seat
            return self.obs, rewards, dones, infos
        for i in range(N):
            s = self._slots[i]
            self._play(s, s.seat, int(acts[i]))
        self._settle(list(range(N)), infos, fresh=set(), rewards=rewards, dones=dones)
        return self.obs, rewards, dones, infos

    def _play(self, s: _Slot, seat: int, a: int) -> bool:
        """Apply flat action ``a`` of ``seat``; False when it was a 换三张 pick that does not complete the triple."""
        action = engine_action(a, s.picks[seat])
        if action is None:
            return False
        s.game.step(seat, action)
        return True

    def _pay(self, i: int, row: np.ndarray) -> None:
        """Self-play: add every seat's reward of slot ``i``'s last engine step to ``row`` (the AEC env's rule)."""
        s = self._slots[i]
        scores = self._scores_of(i)
        delta = self.reward_mode == "delta"
        f = self._factor
        for q in range(self.num_players):
            if not s.alive[q]:
                continue
            leaving = self._leaves(i, q)
            if delta:
                row[q] += (scores[q] - s.scores[q]) * f
            elif leaving:
                row[q] += scores[q] * f
            if leaving:
                s.alive[q] = False
        s.scores = scores

    def _settle(
        self,
        todo: list[int],
        infos: list[dict[str, Any]],
        *,
        fresh: set[int],
        rewards: np.ndarray | None = None,
        dones: np.ndarray | None = None,
    ) -> None:
        """Advance the listed slots until each awaits a decision of its learner (or, in self-play, of anyone).

        Learner mode: opponents move in rounds (one decision per waiting slot per round, batch-friendly policies
        asked once per round); an ended episode pays its reward, records its terminal observation and deals the
        next hand (``fresh`` holds the slots whose current hand was just dealt by a reset, whose reward before the
        first decision waits for the first step).  Then the rows of ``obs`` and ``masks`` are encoded.
        """
        slots = self._slots
        if self.self_play:
            for i in todo:
                s = slots[i]
                while s.game.is_over:  # a hand over at the deal: nobody decides, deal the next one
                    s.skipped += 1
                    self._new_hand(i, None)
                s.seat = s.game.pending[0]
            self._encode_rows(todo)
            return
        active = list(todo)
        while active:
            waiting: dict[int, list[tuple[int, int]]] = {}  # id(policy) -> [(slot, seat)]
            policy_of: dict[int, Any] = {}
            nxt = []
            for i in active:
                s = slots[i]
                if self._leaves(i, s.seat):
                    self._finish(i, infos, rewards, dones, fresh)
                    nxt.append(i)
                    continue
                seat = s.game.pending[0]
                if seat == s.seat:
                    self._first_decision(i, rewards, fresh)
                    continue
                policy = s.policies[(seat - s.seat) % self.num_players - 1]
                if policy is None:  # uniform over the legal ids: SingleAgentEnv's rng.choice(flatnonzero(mask))
                    ids = legal_ids(s.game.legal_actions(seat), s.picks[seat])
                    self._play(s, seat, ids[int(s.rng.integers(len(ids)))])
                else:
                    waiting.setdefault(id(policy), []).append((i, seat))
                    policy_of[id(policy)] = policy
                nxt.append(i)
            for key, rows in waiting.items():
                self._ask(policy_of[key], rows)
            active = nxt
        self._encode_rows(todo)

    def _ask(self, policy: Any, rows: list[tuple[int, int]]) -> None:
        """One decision of ``policy`` in each listed ``(slot, seat)``, batched when it has ``act_batch``."""
        obs, masks = self._scratch_obs, self._scratch_masks
        self._observe_into(rows, obs, masks)
        if hasattr(policy, "act_batch") and len(rows) > 1:
            idx = [i for i, _ in rows]
            chosen = [int(a) for a in policy.act_batch(obs[idx], masks[idx])]
        elif hasattr(policy, "act"):
            chosen = [int(policy.act(obs[i], masks[i])) for i, _ in rows]
        elif hasattr(policy, "act_batch"):
            chosen = [int(a) for a in policy.act_batch(obs[[rows[0][0]]], masks[[rows[0][0]]])]
        else:
            chosen = [int(policy(obs[i], masks[i])) for i, _ in rows]
        for (i, seat), a in zip(rows, chosen):
            if not (0 <= a < ACTION_SPACE_SIZE and masks[i, a]):
                raise ValueError(f"opponent {policy!r} chose illegal action {a} in slot {i} (seat {seat})")
        self._play_all(rows, chosen)

    def _learner_reward(self, i: int) -> float:
        s = self._slots[i]
        score = self._scores_of(i)[s.seat]
        if self.reward_mode == "delta":
            r = (score - s.score) * self._factor
        else:
            r = score * self._factor if self._leaves(i, s.seat) else 0.0
        s.score = score
        return float(r)

    def _first_decision(self, i: int, rewards: np.ndarray | None, fresh: set[int]) -> None:
        """The learner of slot ``i`` must decide: pay the reward since its last decision."""
        s = self._slots[i]
        r = self._learner_reward(i)
        if i in fresh:  # dealt by this call: paid with the first step
            s.pending += r
            return
        r += s.pending
        s.pending = 0.0
        s.ep_len += 1
        s.ep_return += r
        if rewards is not None:
            rewards[i] = r

    def _finish(
        self,
        i: int,
        infos: list[dict[str, Any]],
        rewards: np.ndarray | None,
        dones: np.ndarray | None,
        fresh: set[int],
    ) -> None:
        """The learner's episode in slot ``i`` ended (or its hand ended before its first decision): next hand."""
        s = self._slots[i]
        if i in fresh:  # the hand ended before the learner ever decided: skip it (SingleAgentEnv.reset)
            s.skipped += 1
            infos[i]["skipped_hands"] = s.skipped
            self._new_hand(i, None)
            return
        r = self._learner_reward(i) + s.pending
        s.pending = 0.0
        s.ep_len += 1
        s.ep_return += r
        if rewards is not None and dones is not None:
            rewards[i] = r
            dones[i] = True
        info = infos[i]
        info["terminal_observation"] = self._terminal_observation(i)
        info["TimeLimit.truncated"] = False
        info["episode"] = {"r": s.ep_return, "l": s.ep_len, "t": self._elapsed()}
        info["scores"] = self._scores_of(i)
        info["seat"] = s.seat
        fresh.add(i)
        s.skipped = 0
        self._new_hand(i, None)

    def _encode_rows(self, rows: Sequence[int]) -> None:
        obs, masks, acting = self.obs, self.masks, self.acting_seats
        for i in rows:
            s = self._slots[i]
            seat = s.seat
            acting[i] = seat
            picks = s.picks[seat]
            s.observer.encode(seat, obs[i], exchange_picks=picks)
            game_mask(s.game, seat, picks, masks[i])

    def _elapsed(self) -> float:
        return round(time.perf_counter() - self._start, 6)

    # ---- masks and helpers ----------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Boolean legal masks of the current decisions, shape ``(N, 183)``."""
        return self.masks.astype(bool)

    def sample_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """One uniformly random legal action per slot (from ``rng``, default a generator seeded 0 once): with
        ``u = rng.random(N)``, slot ``i`` plays its ``floor(u[i] * n_i)``-th legal action (``n_i`` legal ones, in
        id order) — the same actions on both engines for the same generator state."""
        if rng is None:
            rng = self.__dict__.setdefault("_sample_rng", np.random.default_rng(0))
        return self._pick_legal(rng.random(self.num_envs))

    def _pick_legal(self, u: np.ndarray) -> np.ndarray:
        """Slot ``i``'s ``floor(u[i] * n_i)``-th legal action (``0 <= u[i] < 1``)."""
        counts = self.masks.sum(axis=1, dtype=np.int64)
        if not counts.all():
            raise RuntimeError(f"slot {int(np.argmin(counts))} has no legal action (reset the environment first)")
        ranks = (u * counts).astype(np.int64)
        return (self.masks.cumsum(axis=1, dtype=np.int64) > ranks[:, None]).argmax(axis=1)

    @property
    def games(self) -> list[Game]:
        """The engine of each slot (full information: for tests and tools, not for agents)."""
        return [s.game for s in self._slots]

    @property
    def seats(self) -> list[int]:
        """Learner mode: each slot's learner seat; self-play: the seat to act."""
        return [s.seat for s in self._slots]

    # ---- sb3 VecEnv API --------------------------------------------------------------------------------------------
    def close(self) -> None:
        for s in self._slots:
            s.game = None

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``seat`` / ``game`` per slot; any other attribute of the env (e.g. ``cfg``) repeated per slot."""
        idx = self._indices(indices)
        if attr_name == "seat":
            return [self._slots[i].seat for i in idx]
        if attr_name == "game":
            return [self._slots[i].game for i in idx]
        value = getattr(self, attr_name)  # AttributeError when unknown, as sb3 expects
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the env (one env object holds every slot, so ``indices`` must cover all)."""
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError("VectorEnv.set_attr sets an attribute of all slots at once; pass indices=None")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """``action_masks`` per slot (bool rows, as sb3-contrib's ``get_action_masks`` expects); other names go to
        the opponent pool (called once, the result repeated per slot)."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.masks.astype(bool)
            return [masks[i] for i in idx]
        target = getattr(self._pool, method_name, None)
        if target is None or not callable(target):
            raise AttributeError(f"VectorEnv has no per-slot method {method_name!r} (nor has its opponent pool)")
        result = target(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> list[None]:
        return [None for _ in range(self.num_envs)]


def _check_policy(policy: Any) -> None:
    if policy is not None and not callable(policy) and not hasattr(policy, "act") and not hasattr(policy, "act_batch"):
        raise ValueError(f"opponent {policy!r} is neither a callable f(obs, mask) nor has act / act_batch")


def make_vec_env(
    variant: str | RuleConfig = "hongzhong", num_envs: int = 8, *, engine: str = "python", **options: Any
) -> VectorEnv:
    """A :class:`VectorEnv` (the batched replacement of ``DummyVecEnv([SingleAgentEnv(...)] * num_envs)``).

    ``engine="compiled"`` gives the same environment on the numba engine
    (:class:`envs.compiled.vector.CompiledVectorEnv`: every preset; a configuration with a flag the compiled engine
    does not play raises :class:`~envs.engine.game.UnsupportedRule` naming it).
    """
    if engine == "python":
        return VectorEnv(variant, num_envs, **options)
    if engine == "compiled":
        from envs.compiled.vector import CompiledVectorEnv  # numba compiles the kernel on first use

        return CompiledVectorEnv(variant, num_envs, **options)
    raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
