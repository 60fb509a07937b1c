"""The batched environment on the compiled engine (编译批量环境): :class:`CompiledVectorEnv`.

The same environment as :class:`envs.vector_env.VectorEnv` — same constructor, modes (learner / self-play),
observations, masks, rewards, episode ends, seeds, opponents and sb3 ``VecEnv`` API — with the hands played by the
numba kernel (:mod:`envs.compiled.kernel`) instead of :class:`envs.game.Game`: the state of all hands lives in one
``int32`` array, one call applies a decision in every slot, and the observations and masks of the next decisions
are written by compiled code.  Only the variants of :mod:`envs.compiled.support` are played (the ``chengdu``
preset and its scoring / settlement options); others raise :class:`~envs.game.UnsupportedRule` naming the flags.

The wall, the dealer and the 换三张 direction of every hand come from the Python engine's seeded generators
(:func:`envs.wall.shuffled_wall`, ...), and money from its scorer and settlement functions
(:mod:`envs.compiled.ledger`), so a seed deals the same hand in both engines and
``tests/test_compiled_engine.py`` compares them decision by decision.

>>> from envs.compiled.vector import CompiledVectorEnv
>>> venv = CompiledVectorEnv("chengdu", num_envs=4, self_play=True, seed=0)
>>> obs = venv.reset()
>>> obs, rewards, dones, infos = venv.step(venv.sample_actions())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.actions import ACTION_SPACE_SIZE, action_name
from envs.compiled import batch
from envs.compiled import kernel as K
from envs.compiled.encode import encode_row, encode_rows
from envs.compiled.layout import ACTIVE, OVER, SCORES, STATE_SIZE, WALL_LEN, WON
from envs.compiled.ledger import Ledger
from envs.compiled.support import check_supported, rule_vector, win_table
from envs.config import RuleConfig, load_variant
from envs.game import draw_exchange_offset
from envs.vector_env import _POOL_SALT, VectorEnv, _check_policy
from envs.wall import DOMAIN_DEALER, SeedStream, hand_seed, shuffled_wall

__all__ = ["CompiledVectorEnv"]


class CompiledVectorEnv(VectorEnv):
    """:class:`~envs.vector_env.VectorEnv` on the compiled engine (see the module docstring)."""

    def __init__(self, variant: str | RuleConfig = "chengdu", num_envs: int = 8, **options: Any) -> None:
        cfg = load_variant(variant, **dict(options.pop("rules", None) or {}))
        check_supported(cfg)
        super().__init__(cfg, num_envs, **options)
        self._rules = rule_vector(cfg)
        self._table = win_table()
        self.state = np.zeros((num_envs, STATE_SIZE), dtype=np.int32)
        self._events, self._num_events = K.empty_events(num_envs)
        self._ledgers = [Ledger(cfg, self._table) for _ in range(num_envs)]
        self._all = np.arange(num_envs, dtype=np.int64)
        self._wall = np.zeros(WALL_LEN, dtype=np.int32)
        self._base_unit = float(cfg.base_unit)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)  # self-play: decisions of each slot's hand so far
        self._pending: set[int] = set()  # self-play: slots with a reward from the deal, paid with their next step

    # ---- hands ---------------------------------------------------------------------------------------------------
    def _new_hand(self, i: int, seed: int | None) -> None:
        """Deal slot ``i`` its next hand: the wall, dealer and 换三张 offset ``Game(cfg, seed=hand)`` would have."""
        s = self._slots[i]
        if seed is not None:
            s.seed, s.hand_index = seed, 0
            s.rng = np.random.default_rng(seed)
            s.pool_rng = np.random.default_rng([seed, _POOL_SALT])
            hand = seed
        else:
            s.hand_index += 1
            hand = s.seed if s.hand_index == 0 else hand_seed(s.seed, s.hand_index)
        cfg = self.cfg
        n = self.num_players
        wall = self._wall[: cfg.num_tiles]
        wall[:] = shuffled_wall(cfg, hand)
        dealer = SeedStream(hand, DOMAIN_DEALER).randbelow(n)
        offset = draw_exchange_offset(cfg, hand) if cfg.exchange_mode == "swap3" else 0
        counts = self._num_events
        counts[i] = 0
        K.deal(
            self.state[i], self._wall[: cfg.num_tiles], dealer, offset, self._rules, self._events[i], counts[i : i + 1]
        )
        ledger = self._ledgers[i] = Ledger(cfg, self._table)
        if counts[i]:  # without 换三张 and 定缺, four 红中 can win at the deal
            ledger.settle(self.state[i], self._events[i], int(counts[i]))
            counts[i] = 0
        s.scores = [int(v) for v in self.state[i, SCORES : SCORES + n]]
        s.alive = [True] * n
        s.ep_return = 0.0
        s.ep_len = 0
        if self.self_play:
            self._ep_len[i] = 0
            s.pending = np.zeros(n, dtype=np.float32)
            self._pay(i, s.pending)  # a seat may leave at the deal (VectorEnv._new_hand)
            if s.pending.any():
                self._pending.add(i)
            return
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
                policy.reset((s.seat + r) % n, cfg)
        s.score = int(self.state[i, SCORES + s.seat])
        s.pending = 0.0

    def _over(self, i: int) -> bool:
        return bool(self.state[i, OVER])

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """One decision of ``seats[j]`` in each slot ``rows[j]``; settles the money of what happened and returns the
        slots where something was paid or changed hands (kongs, wins, the end of a hand)."""
        counts = self._num_events
        batch.step_rows(self.state, rows, seats, actions, self._rules, self._table, self._events, counts)
        moved = np.flatnonzero(counts)
        for i in moved:
            self._ledgers[i].settle(self.state[i], self._events[i], int(counts[i]))
        counts[moved] = 0
        return moved

    def _pay(self, i: int, row: np.ndarray) -> None:
        """Self-play: add every seat's reward of slot ``i``'s last step to ``row`` (``VectorEnv._pay``)."""
        s = self._slots[i]
        n = self.num_players
        st = self.state[i]
        scores = [int(v) for v in st[SCORES : SCORES + n]]
        over = bool(st[OVER])
        ledger = self._ledgers[i]
        delta = self.reward_mode == "delta"
        f = self._factor
        for q in range(n):
            if not s.alive[q]:
                continue
            leaving = over or (not st[ACTIVE + q] and ledger.score_final(q, st[WON : WON + n]))
            if delta:
                row[q] += (scores[q] - s.scores[q]) * f
            elif leaving:
                row[q] += scores[q] * f
            if leaving:
                s.alive[q] = False
        s.scores = scores

    def _deal_next(self, i: int) -> None:
        """Self-play: slot ``i``'s next hand, skipping hands that end at the deal (nobody decides in them)."""
        s = self._slots[i]
        s.skipped = 0
        self._new_hand(i, None)
        while self.state[i, OVER]:
            s.skipped += 1
            self._new_hand(i, None)

    # ---- stepping ------------------------------------------------------------------------------------------------
    def _check_actions(self, acts: np.ndarray) -> None:
        N = self.num_envs
        if acts.shape[0] != N:
            raise ValueError(f"expected {N} actions (one per slot), got shape {acts.shape}")
        if acts.min() >= 0 and acts.max() < ACTION_SPACE_SIZE and self.masks[self._all, acts].all():
            return
        ok = (acts >= 0) & (acts < ACTION_SPACE_SIZE)
        ok[ok] = self.masks[self._all[ok], acts[ok]] == 1
        i = int(np.flatnonzero(~ok)[0])
        legal = ", ".join(f"{j} ({action_name(j)})" for j in np.flatnonzero(self.masks[i]))
        seat = int(self.acting_seats[i])
        raise ValueError(f"illegal action {int(acts[i])} in slot {i} (seat {seat}); legal: {legal}")

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        try:
            acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"actions must be {self.num_envs} integer action ids, got {actions!r}") from None
        self._check_actions(acts)
        N = self.num_envs
        if not self.self_play:
            infos: list[dict[str, Any]] = [{} for _ in range(N)]
            rewards = np.zeros(N, dtype=np.float32)
            dones = np.zeros(N, dtype=bool)
            self._apply(self._all, self.acting_seats, acts)
            self._settle(list(range(N)), infos, fresh=set(), rewards=rewards, dones=dones)
            return self.obs, rewards, dones, infos
        # self-play: one kernel call for the decisions, the money of the few slots where some moved, new hands for
        # the slots whose hand ended, one kernel call for every next decision
        n = self.num_players
        rewards = np.zeros((N, n), dtype=np.float32)
        for i in self._pending:
            rewards[i] += self._slots[i].pending
        self._pending.clear()
        moved = self._apply(self._all, self.acting_seats, acts)
        for i in moved.tolist():  # the other slots' scores, seats and hands did not change
            self._pay(i, rewards[i])
        self._ep_len += 1
        over = self.state[:, OVER] == 1
        ended = np.flatnonzero(over).tolist()
        finals = []
        for i in ended:
            scores = [int(v) for v in self.state[i, SCORES : SCORES + n]]
            finals.append({"final_scores": scores, "episode": {"l": int(self._ep_len[i]), "t": self._elapsed()}})
            self._deal_next(i)
        self._encode_rows(self._all)
        infos = [{"seat": q} for q in self.acting_seats.tolist()]
        for i, final in zip(ended, finals):
            infos[i].update(final)
        return self.obs, rewards, over, infos

    def _settle(
        self,
        todo: Sequence[int],
        infos: list[dict[str, Any]],
        *,
        fresh: set[int],
        rewards: np.ndarray | None = None,
        dones: np.ndarray | None = None,
    ) -> None:
        """``VectorEnv._settle`` on the kernel: advance the listed slots to their next learner decision (self-play:
        to anyone's), the opponents deciding in rounds, then encode the observations and masks of those rows."""
        rows = np.asarray(todo, dtype=np.int64)
        if self.self_play:
            for i in rows.tolist():
                while self.state[i, OVER]:  # a hand over at the deal: nobody decides, deal the next one
                    self._slots[i].skipped += 1
                    self._new_hand(i, None)
            self._encode_rows(rows)
            return
        slots = self._slots
        n = self.num_players
        active = rows
        state = self.state
        seats = np.zeros(self.num_envs, dtype=np.int64)
        while active.size:
            batch.acting_seats(state, active, seats[: active.size])
            nxt, random_rows, random_seats = [], [], []
            waiting: dict[int, list[tuple[int, int]]] = {}  # id(policy) -> [(slot, seat)]
            policy_of: dict[int, Any] = {}
            for j, i in enumerate(active.tolist()):
                s = slots[i]
                if self._learner_leaves(s, i):
                    self._finish(i, s, infos, rewards, dones, fresh)
                    nxt.append(i)
                    continue
                seat = int(seats[j])
                if seat == s.seat:
                    self._first_decision(i, s, rewards, fresh)
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

    def _play_random(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """Uniformly random legal actions drawn from each slot's generator (``SingleAgentEnv``'s opponents)."""
        masks = self._scratch_masks
        batch.masks_rows(self.state, rows, seats, self._rules, self._table, masks)
        actions = np.empty(len(rows), dtype=np.int64)
        for j, i in enumerate(rows.tolist()):
            ids = np.flatnonzero(masks[i])
            actions[j] = ids[int(self._slots[i].rng.integers(len(ids)))]
        self._apply(rows, seats, actions)

    def _ask(self, policy: Any, pairs: list[tuple[int, int]]) -> None:
        """One decision of ``policy`` in each listed ``(slot, seat)``, batched when it has ``act_batch``."""
        obs, masks = self._scratch_obs, self._scratch_masks
        rows = np.asarray([i for i, _ in pairs], dtype=np.int64)
        seats = np.asarray([q for _, q in pairs], dtype=np.int64)
        encode_rows(self.state, rows, seats, self._base_unit, obs)
        batch.masks_rows(self.state, rows, seats, self._rules, self._table, masks)
        if hasattr(policy, "act_batch") and len(rows) > 1:
            chosen = [int(a) for a in policy.act_batch(obs[rows], masks[rows])]
        elif hasattr(policy, "act"):
            chosen = [int(policy.act(obs[i], masks[i])) for i in rows]
        elif hasattr(policy, "act_batch"):
            chosen = [int(a) for a in policy.act_batch(obs[rows[:1]], masks[rows[:1]])]
        else:
            chosen = [int(policy(obs[i], masks[i])) for i in rows]
        for (i, seat), a in zip(pairs, chosen):
            if not (0 <= a < ACTION_SPACE_SIZE and masks[i, a]):
                raise ValueError(f"opponent {policy!r} chose illegal action {a} in slot {i} (seat {seat})")
        self._apply(rows, seats, np.asarray(chosen, dtype=np.int64))

    # ---- learner bookkeeping -------------------------------------------------------------------------------------
    def _learner_leaves(self, s: Any, i: int) -> bool:  # type: ignore[override]
        st = self.state[i]
        if st[OVER]:
            return True
        return not st[ACTIVE + s.seat] and self._ledgers[i].score_final(s.seat, st[WON : WON + self.num_players])

    def _learner_reward(self, s: Any, i: int) -> float:  # type: ignore[override]
        score = int(self.state[i, SCORES + s.seat])
        if self.reward_mode == "delta":
            r = (score - s.score) * self._factor
        else:
            r = score * self._factor if self._learner_leaves(s, i) else 0.0
        s.score = score
        return float(r)

    def _first_decision(self, i: int, s: Any, rewards: np.ndarray | None, fresh: set[int]) -> None:
        r = self._learner_reward(s, i)
        if i in fresh:
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
        s: Any,
        infos: list[dict[str, Any]],
        rewards: np.ndarray | None,
        dones: np.ndarray | None,
        fresh: set[int],
    ) -> None:
        if i in fresh:  # the hand ended before the learner ever decided: skip it
            s.skipped += 1
            infos[i]["skipped_hands"] = s.skipped
            self._new_hand(i, None)
            return
        r = self._learner_reward(s, i) + s.pending
        s.pending = 0.0
        s.ep_len += 1
        s.ep_return += r
        if rewards is not None and dones is not None:
            rewards[i] = r
            dones[i] = True
        terminal = np.empty(self.obs.shape[1:], dtype=np.float32)
        encode_row(self.state[i], s.seat, self._base_unit, terminal)
        info = infos[i]
        info["terminal_observation"] = terminal
        info["TimeLimit.truncated"] = False
        info["episode"] = {"r": s.ep_return, "l": s.ep_len, "t": self._elapsed()}
        info["scores"] = [int(v) for v in self.state[i, SCORES : SCORES + self.num_players]]
        info["seat"] = s.seat
        fresh.add(i)
        s.skipped = 0
        self._new_hand(i, None)

    def _encode_rows(self, rows: Sequence[int] | np.ndarray) -> None:
        """Observations, masks and (self-play) acting seats of the listed slots' next decisions."""
        rows = np.asarray(rows, dtype=np.int64)
        if not rows.size:
            return
        seats = self.acting_seats
        if not self.self_play:
            seats[rows] = [self._slots[i].seat for i in rows.tolist()]
        batch.observe_rows(
            self.state, rows, seats, self.self_play, self._rules, self._table, self._base_unit, self.obs, self.masks
        )

    # ---- inspection ------------------------------------------------------------------------------------------------
    @property
    def seats(self) -> list[int]:
        """Learner mode: each slot's learner seat; self-play: the seat to act."""
        return self.acting_seats.tolist()

    @property
    def games(self) -> list[Any]:
        raise AttributeError("CompiledVectorEnv keeps no envs.game.Game per slot; read .state (envs.compiled.layout)")

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "game":
            raise AttributeError("CompiledVectorEnv keeps no envs.game.Game per slot; read .state")
        if attr_name == "seat":
            return [int(self.acting_seats[i]) for i in self._indices(indices)]
        return super().get_attr(attr_name, indices)
