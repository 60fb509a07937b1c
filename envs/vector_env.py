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

Engines
-------
``engine="python"`` (default) plays each slot's hand on an :class:`envs.engine.game.Game`; ``engine="compiled"`` plays
all of them on the numba kernel of :mod:`envs.compiled` (the state of every hand in one ``int32`` array, one call
applying a decision in every slot, one writing every next observation and mask), for every preset and the rule
flags it plays (:func:`envs.compiled.support.unsupported` names the others).  The environment drives either
through the batch protocol of :mod:`envs.backend` (``venv.backend``); everything it returns is the same, checked
step by step by ``tests/envs/test_compiled_vector_env.py``.  :func:`make_vec_env` takes the same ``engine`` option and
:class:`CompiledVectorEnv` is this environment with ``engine="compiled"``.

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

from envs.backend import ENGINES, BatchBackend, make_batch
from envs.core.actions import ACTION_SPACE_SIZE, action_name
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import hand_seed
from envs.engine.game import Game
from envs.engine.match import MatchRules, match_rules
from envs.engine.match_observation import MATCH_OBS_SHAPE, match_bounds
from envs.engine.observation import OBS_SHAPE, observation_bounds
from envs.engine.privileged import PRIVILEGED_SHAPE
from envs.match_backend import MatchBatch

try:  # sb3 is an optional dependency (the ``train`` extra): without it the class is a plain batched env
    from stable_baselines3.common.vec_env import VecEnv as _VecEnvBase
except ImportError:  # pragma: no cover - exercised only without sb3
    _VecEnvBase = object  # type: ignore[assignment,misc]

__all__ = ["ENGINES", "REWARD_MODES", "CompiledVectorEnv", "VectorEnv", "make_vec_env"]

REWARD_MODES = ("delta", "terminal")
Policy = Callable[[np.ndarray, np.ndarray], int] | Any
_POOL_SALT = 0x5E1F  # the opponent-pool generator of a slot: default_rng([slot seed, salt])


class _Slot:
    """The bookkeeping of one slot's episode (what the AEC env and the single-agent wrapper keep); the hand itself
    lives in the backend."""

    __slots__ = (
        "alive",
        "ep_len",
        "ep_return",
        "hand_index",
        "pending",
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
        self.seed: Any = 0
        self.hand_index = -1
        self.rng = np.random.default_rng(0)
        self.pool_rng = np.random.default_rng([0, _POOL_SALT])
        self.seat = 0  # learner seat (learner mode)
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
    ``engine``: ``"python"`` or ``"compiled"`` (see the module docstring; ``venv.backend`` holds the hands).
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
        engine: str = "python",
        match: bool = False,
        match_hands: int | None = None,
        placement: str | Sequence[float] | None = None,
        room: str | None = None,
        stacks: int | Sequence[int] | None = None,
        bankroll: dict[str, str] | None = None,
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
        self.match_rules: MatchRules | None = match_rules(
            cfg, match=match, hands=match_hands, placement=placement, room=room, stacks=stacks, bankroll=bankroll
        )
        self.backend: BatchBackend
        if self.match_rules is None:
            self.backend = make_batch(engine, cfg, num_envs)  # UnsupportedRule now, not at the reset
            obs_shape: tuple[int, int] = OBS_SHAPE
        else:  # one TableMatch per slot (envs.match_backend), chuanma-v1-match observations
            self.backend = MatchBatch(engine, cfg, self.match_rules, num_envs)
            obs_shape = MATCH_OBS_SHAPE
        self.obs_shape = obs_shape
        self.engine = engine
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
        mr = self.match_rules
        unit = mr.unit if mr is not None and mr.bankroll else cfg.base_unit  # a room's rewards: per 底分
        self._factor = self.reward_scale / (unit if normalize_reward else 1)
        self.render_mode = None
        low, high = observation_bounds()
        if mr is not None:
            mlow, mhigh = match_bounds()
            low, high = np.concatenate([low, mlow]), np.concatenate([high, mhigh])
        self.obs = np.zeros((num_envs, *obs_shape), dtype=np.float32)
        self.masks = np.zeros((num_envs, ACTION_SPACE_SIZE), dtype=np.int8)
        self.acting_seats = np.zeros(num_envs, dtype=np.int64)
        self._scratch_obs = np.zeros((num_envs, *obs_shape), dtype=np.float32)
        self._scratch_masks = np.zeros((num_envs, ACTION_SPACE_SIZE), dtype=np.int8)
        self._slots = [_Slot() for _ in range(num_envs)]
        self._all = np.arange(num_envs, dtype=np.int64)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)  # self-play: decisions of each slot's hand so far
        self._pending: set[int] = set()  # self-play: slots with a reward from the deal, paid with their next step
        self._actions: np.ndarray | None = None
        self._was_reset = False  # step() before the first reset() has no hands to play
        self._start = time.perf_counter()
        try:
            from gymnasium import spaces
        except ImportError:  # pragma: no cover - gymnasium comes with the env / train extras
            obs_space = act_space = None
        else:
            obs_space = spaces.Box(low=low, high=high, shape=obs_shape, dtype=np.float32)
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
        self.obs = np.empty((self.num_envs, *self.obs_shape), dtype=np.float32)

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
        True when something happened at the deal itself (:meth:`envs.backend.BatchBackend.deal`)."""
        s = self._slots[i]
        if seed is not None:
            s.seed, s.hand_index = seed, 0
            s.rng = np.random.default_rng(seed)
            s.pool_rng = np.random.default_rng([seed, _POOL_SALT])
            hand = seed
        else:
            s.hand_index += 1
            hand = s.seed if s.hand_index == 0 else hand_seed(s.seed, s.hand_index)
        moved = self.backend.deal(i, hand)
        n = self.num_players
        s.scores = self.backend.scores(i)
        s.alive = [True] * n
        s.ep_return = 0.0
        s.ep_len = 0
        if self.self_play:
            self._ep_len[i] = 0
            s.pending = 0.0  # the deal's rewards, paid with the slot's next step
            if moved:  # a seat may leave at the deal (four 红中 at once)
                s.pending = np.zeros(n, dtype=np.float32)
                self._pay(i, s.pending)
                if s.pending.any():
                    self._pending.add(i)
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

    def _deal_all(self, indices: Sequence[int], seeds: Sequence[Any], infos: list[dict[str, Any]]) -> None:
        """Deal hands until every listed slot awaits a decision; fill the observations and masks of those rows."""
        for i, seed in zip(indices, seeds):
            self._slots[i].skipped = 0
            self._new_hand(i, seed)
        self._settle(list(indices), infos, fresh=set(indices))

    # ---- stepping ------------------------------------------------------------------------------------------------
    def _require_reset(self, call: str = "step()") -> None:
        if not self._was_reset:
            raise RuntimeError(f"{type(self).__name__}.{call} before reset(): call reset() first to deal the hands")

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

    def _check_actions(self, actions: Any) -> np.ndarray:
        """The actions as ``int64`` ids, one per slot, each legal (``ValueError`` naming the first that is not)."""
        N = self.num_envs
        try:
            acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"actions must be {N} integer action ids, got {actions!r}") from None
        if acts.shape[0] != N:
            raise ValueError(f"expected {N} actions (one per slot), got shape {np.shape(actions)}")
        i = self.backend.first_illegal(self.masks, acts)
        if i >= 0:
            legal = ", ".join(f"{j} ({action_name(j)})" for j in np.flatnonzero(self.masks[i]))
            seat = int(self.acting_seats[i])
            raise ValueError(f"illegal action {int(acts[i])} in slot {i} (seat {seat}); legal: {legal}")
        return acts

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        acts = self._check_actions(actions)
        self._new_obs()
        N = self.num_envs
        if not self.self_play:
            infos: list[dict[str, Any]] = [{} for _ in range(N)]
            rewards = np.zeros(N, dtype=np.float32)
            dones = np.zeros(N, dtype=bool)
            self.backend.step(self._all, self.acting_seats, acts)
            self._settle(list(range(N)), infos, fresh=set(), rewards=rewards, dones=dones)
            return self.obs, rewards, dones, infos
        # self-play: one backend call for the decisions, the money of the slots where some moved, new hands for the
        # slots whose hand ended, one backend call for every next decision
        n = self.num_players
        rewards = np.zeros((N, n), dtype=np.float32)
        for i in self._pending:
            rewards[i] += self._slots[i].pending
        self._pending.clear()
        moved = self.backend.step(self._all, self.acting_seats, acts)
        for i in moved:  # the other slots' scores, seats and hands did not change
            self._pay(i, rewards[i])
        self._ep_len += 1
        over = self.backend.over()
        ended = np.flatnonzero(over).tolist()
        finals = []
        for i in ended:
            episode = {"l": int(self._ep_len[i]), "t": self._elapsed()}
            final = {"final_scores": self.backend.scores(i), "episode": episode}
            if self.match_rules is not None:
                rewards[i] += self._placement(i)
                final["match"] = self._match_summary(i)
            finals.append(final)
            self._slots[i].skipped = 0
            self._new_hand(i, None)
        self._skip_hands_over(ended)
        self._encode_rows(self._all)
        infos = [{"seat": q} for q in self.acting_seats.tolist()]
        for i, final in zip(ended, finals):
            infos[i].update(final)
        return self.obs, rewards, over, infos

    def _pay(self, i: int, row: np.ndarray) -> None:
        """Self-play: add every seat's reward of slot ``i``'s last engine step to ``row`` (the AEC env's rule)."""
        s = self._slots[i]
        backend = self.backend
        scores = backend.scores(i)
        delta = self.reward_mode == "delta"
        f = self._factor
        old, alive = s.scores, s.alive
        for q in range(self.num_players):
            if not alive[q]:
                continue
            leaving = backend.seat_final(i, q)
            if delta:
                if scores[q] != old[q]:  # adding 0.0 would change nothing: a reward row sums from +0.0, never -0.0
                    row[q] += (scores[q] - old[q]) * f
            elif leaving:
                row[q] += scores[q] * f
            if leaving:
                alive[q] = False
        s.scores = scores

    def _settle(
        self,
        todo: Sequence[int],
        infos: list[dict[str, Any]],
        *,
        fresh: set[int],
        rewards: np.ndarray | None = None,
        dones: np.ndarray | None = None,
    ) -> None:
        """Advance the listed slots until each awaits a decision of its learner (or, in self-play, of anyone).

        Learner mode: opponents move in rounds (one decision per waiting slot per round: random ones in one backend
        call, batch-friendly policies asked once per round); an ended episode pays its reward, records its terminal
        observation and deals the next hand (``fresh`` holds the slots whose current hand was just dealt by a reset,
        whose reward before the first decision waits for the first step).  Then the rows of ``obs`` and ``masks``
        are encoded.
        """
        rows = np.asarray(todo, dtype=np.int64)
        if self.self_play:
            self._skip_hands_over(rows.tolist())
            self._encode_rows(rows)
            return
        backend = self.backend
        slots = self._slots
        n = self.num_players
        active = rows
        seats = np.zeros(self.num_envs, dtype=np.int64)
        while active.size:
            backend.acting_seats(active, seats[: active.size])
            nxt, random_rows, random_seats = [], [], []
            waiting: dict[int, list[tuple[int, int]]] = {}  # id(policy) -> [(slot, seat)]
            policy_of: dict[int, Any] = {}
            for j, i in enumerate(active.tolist()):
                s = slots[i]
                if backend.seat_final(i, s.seat):
                    self._finish(i, infos, rewards, dones, fresh)
                    nxt.append(i)
                    continue
                seat = int(seats[j])
                if seat == s.seat:
                    self._first_decision(i, rewards, fresh)
                    continue
                policy = s.policies[(seat - s.seat) % n - 1]
                if policy is None:
                    random_rows.append(i)
                    random_seats.append(seat)
                else:
                    waiting.setdefault(id(policy), []).append((i, seat))
                    policy_of[id(policy)] = policy
                nxt.append(i)
            if random_rows:
                self._play_random(np.asarray(random_rows, dtype=np.int64), np.asarray(random_seats, dtype=np.int64))
            for key, pairs in waiting.items():
                self._ask(policy_of[key], pairs)
            active = np.asarray(nxt, dtype=np.int64)
        self._encode_rows(rows)

    def _skip_hands_over(self, rows: list[int]) -> None:
        """Self-play: a hand over at the deal (four 红中 ending it) has no decision: deal the next one."""
        for i in rows:
            while self.backend.is_over(i):
                self._slots[i].skipped += 1
                self._new_hand(i, None)

    def _play_random(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """Uniformly random legal actions drawn from each slot's generator (``SingleAgentEnv``'s opponents:
        ``rng.choice(flatnonzero(mask))``)."""
        masks = self._scratch_masks
        self.backend.masks(rows, seats, masks)
        actions = np.empty(len(rows), dtype=np.int64)
        for j, i in enumerate(rows.tolist()):
            ids = np.flatnonzero(masks[i])
            actions[j] = ids[int(self._slots[i].rng.integers(len(ids)))]
        self.backend.step(rows, seats, actions)

    def _ask(self, policy: Any, pairs: list[tuple[int, int]]) -> None:
        """One decision of ``policy`` in each listed ``(slot, seat)``, batched when it has ``act_batch``."""
        obs, masks = self._scratch_obs, self._scratch_masks
        rows = np.asarray([i for i, _ in pairs], dtype=np.int64)
        seats = np.asarray([q for _, q in pairs], dtype=np.int64)
        self.backend.observe(rows, seats, obs)
        self.backend.masks(rows, seats, masks)
        if hasattr(policy, "act_batch") and len(pairs) > 1:
            chosen = [int(a) for a in policy.act_batch(obs[rows], masks[rows])]
        elif hasattr(policy, "act"):
            chosen = [int(policy.act(obs[i], masks[i])) for i, _ in pairs]
        elif hasattr(policy, "act_batch"):
            chosen = [int(a) for a in policy.act_batch(obs[[pairs[0][0]]], masks[[pairs[0][0]]])]
        else:
            chosen = [int(policy(obs[i], masks[i])) for i, _ in pairs]
        for (i, seat), a in zip(pairs, chosen):
            if not (0 <= a < ACTION_SPACE_SIZE and masks[i, a]):
                raise ValueError(f"opponent {policy!r} chose illegal action {a} in slot {i} (seat {seat})")
        self.backend.step(rows, seats, np.asarray(chosen, dtype=np.int64))

    def _learner_reward(self, i: int) -> float:
        s = self._slots[i]
        score = self.backend.scores(i)[s.seat]
        if self.reward_mode == "delta":
            r = (score - s.score) * self._factor
        else:
            r = score * self._factor if self.backend.seat_final(i, s.seat) else 0.0
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
        if self.match_rules is not None:
            r += float(self._placement(i)[s.seat])
            infos[i]["match"] = self._match_summary(i)
        s.pending = 0.0
        s.ep_len += 1
        s.ep_return += r
        if rewards is not None and dones is not None:
            rewards[i] = r
            dones[i] = True
        info = infos[i]
        info["terminal_observation"] = self.backend.observation(i, s.seat)
        info["TimeLimit.truncated"] = False
        info["episode"] = {"r": s.ep_return, "l": s.ep_len, "t": self._elapsed()}
        info["scores"] = self.backend.scores(i)
        info["seat"] = s.seat
        fresh.add(i)
        s.skipped = 0
        self._new_hand(i, None)

    def _placement(self, i: int) -> np.ndarray:
        """Every seat's placement reward of slot ``i``'s finished match (RULES.md §11.4; zeros without a table)."""
        assert isinstance(self.backend, MatchBatch)
        return np.asarray(self.backend.ledger(i).placement_rewards(), dtype=np.float32)

    def _match_summary(self, i: int) -> dict[str, Any]:
        """Slot ``i``'s match as plain data (the AEC env's ``infos[agent]["match"]``: standings, busts, placements)."""
        assert isinstance(self.backend, MatchBatch)
        return self.backend.ledger(i).summary()

    def _encode_rows(self, rows: Sequence[int] | np.ndarray) -> None:
        """Observations, masks and (self-play) acting seats of the listed slots' next decisions."""
        rows = np.asarray(rows, dtype=np.int64)
        if not rows.size:
            return
        seats = self.acting_seats
        if not self.self_play:
            seats[rows] = [self._slots[i].seat for i in rows.tolist()]
        self.backend.observe_next(rows, seats, self.self_play, self.obs, self.masks)

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
        return self.backend.pick_legal(self.masks, u)

    @property
    def games(self) -> list[Game | None]:
        """The engine of each slot (full information: for tests and tools, not for agents); the Python engine only
        (``AttributeError`` on the compiled one)."""
        return self.backend.games()

    def privileged_observations(self, rows: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """The privileged planes (:mod:`envs.engine.privileged`: the other seats' concealed hands, the live wall and
        its next draws) of the seat each slot of ``rows`` (default: every slot) shows in ``obs``, a new
        ``(len(rows), PRIVILEGED_ROWS, 34)`` float32 array.  For a training critic only: an acting policy must not
        read them."""
        self._require_reset("privileged_observations()")
        idx = self._all if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
        out = np.zeros((idx.size, *PRIVILEGED_SHAPE), dtype=np.float32)
        self.backend.privileged(idx, self.acting_seats[idx], out)
        return out

    @property
    def reward_factor(self) -> float:
        """Rewards per point of score: ``reward_scale``, divided by the base unit when ``normalize_reward``."""
        return self._factor

    def upcoming_hands(self, i: int, count: int = 1) -> list[int]:
        """The wall seeds of slot ``i``'s current hand and of the ``count - 1`` hands its auto-reset deals next
        (``Game(cfg, seed=s)`` deals wall ``s``; until :meth:`seed` gives new seeds).  Single hands only: a match
        deals its hands from the match's own sequence."""
        if self.match_rules is not None:
            raise ValueError("upcoming_hands: a match slot deals its hands from the match's sequence")
        if count < 1:
            raise ValueError(f"count must be positive, got {count}")
        self._require_reset("upcoming_hands()")
        s = self._slots[i]
        return [s.seed if k == 0 else hand_seed(s.seed, k) for k in range(s.hand_index, s.hand_index + count)]

    @property
    def seats(self) -> list[int]:
        """Learner mode: each slot's learner seat; self-play: the seat to act."""
        return self.acting_seats.tolist()

    # ---- sb3 VecEnv API --------------------------------------------------------------------------------------------
    def close(self) -> None:
        self.backend.close()

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
            return [int(self.acting_seats[i]) for i in idx]
        if attr_name == "game":
            games = self.backend.games()
            return [games[i] for i in idx]
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


class CompiledVectorEnv(VectorEnv):
    """:class:`VectorEnv` on the compiled engine (``engine="compiled"``; default variant ``chengdu``): what
    ``make_vec_env(..., engine="compiled")`` returns.

    >>> venv = CompiledVectorEnv("chengdu", num_envs=4, self_play=True, seed=0)
    >>> obs = venv.reset()
    >>> obs, rewards, dones, infos = venv.step(venv.sample_actions())
    """

    def __init__(self, variant: str | RuleConfig = "chengdu", num_envs: int = 8, **options: Any) -> None:
        engine = options.pop("engine", "compiled")
        if engine != "compiled":
            raise ValueError(f"CompiledVectorEnv plays engine='compiled', got engine={engine!r}")
        super().__init__(variant, num_envs, engine="compiled", **options)


def _check_policy(policy: Any) -> None:
    if policy is not None and not callable(policy) and not hasattr(policy, "act") and not hasattr(policy, "act_batch"):
        raise ValueError(f"opponent {policy!r} is neither a callable f(obs, mask) nor has act / act_batch")


def make_vec_env(
    variant: str | RuleConfig = "hongzhong", num_envs: int = 8, *, engine: str = "python", **options: Any
) -> VectorEnv:
    """A :class:`VectorEnv` (the batched replacement of ``DummyVecEnv([SingleAgentEnv(...)] * num_envs)``) on
    ``engine``: ``"python"``, or ``"compiled"`` (a :class:`CompiledVectorEnv`: every preset; a configuration with a
    flag the compiled engine does not play raises :class:`~envs.engine.game.UnsupportedRule` naming it).
    """
    if engine == "compiled":
        return CompiledVectorEnv(variant, num_envs, **options)
    return VectorEnv(variant, num_envs, engine=engine, **options)
