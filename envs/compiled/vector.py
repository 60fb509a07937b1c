"""The batched environment on the compiled engine (编译批量环境): :class:`CompiledVectorEnv`.

The same environment as :class:`envs.vector_env.VectorEnv` — same constructor, modes (learner / self-play),
observations, masks, rewards, episode ends, seeds, opponents and sb3 ``VecEnv`` API — with the hands played by the
numba kernel (:mod:`envs.compiled.kernel`) instead of :class:`envs.engine.game.Game`: the state of all hands lives in
one ``int32`` array, one call applies a decision in every slot, and the observations and masks of the next decisions
are written by compiled code.  Only the variants of :mod:`envs.compiled.support` are played (the ``chengdu``,
``xueliu``, ``hongzhong`` and ``chiyu`` presets and their scoring / settlement options); others raise
:class:`~envs.engine.game.UnsupportedRule` naming the flags.

It overrides :class:`~envs.vector_env.VectorEnv`'s engine hooks (``_deal``, ``_scores_of``, ``_leaves``,
``_observe_into``, ``_play_all``, ``_terminal_observation``) and, for speed, its step and settle loops (one kernel
call for every slot's decision, one for every next observation and mask, random opponents drawn in batches).

The wall, the dealer and the 换三张 direction of every hand come from the Python engine's seeded generators
(:func:`envs.core.wall.shuffled_wall`, ...), and money from its scorer and settlement functions
(:mod:`envs.compiled.ledger`), so a seed deals the same hand in both engines and
``tests/compiled/test_compiled_engine.py`` compares them decision by decision.

>>> from envs.compiled.vector import CompiledVectorEnv
>>> venv = CompiledVectorEnv("chengdu", num_envs=4, self_play=True, seed=0)
>>> obs = venv.reset()
>>> obs, rewards, dones, infos = venv.step(venv.sample_actions())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.compiled import batch
from envs.compiled import kernel as K
from envs.compiled._cache import announce_compile
from envs.compiled.dealing import seeded_start
from envs.compiled.encode import encode_row, encode_rows
from envs.compiled.layout import ACTIVE, OVER, SCORES, STATE_SIZE, WALL_LEN, WON
from envs.compiled.ledger import Ledger
from envs.compiled.support import check_supported, rule_vector, win_table
from envs.core.actions import action_name
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import tile_multiset
from envs.vector_env import VectorEnv

__all__ = ["CompiledVectorEnv"]


class CompiledVectorEnv(VectorEnv):
    """:class:`~envs.vector_env.VectorEnv` on the compiled engine (see the module docstring)."""

    def __init__(self, variant: str | RuleConfig = "chengdu", num_envs: int = 8, **options: Any) -> None:
        cfg = load_variant(variant, **dict(options.pop("rules", None) or {}))
        check_supported(cfg)
        announce_compile(K.deal, batch.step_rows, batch.masks_rows, encode_rows)
        super().__init__(cfg, num_envs, **options)
        self._rules = rule_vector(cfg)
        self._table = win_table()
        self.state = np.zeros((num_envs, STATE_SIZE), dtype=np.int32)
        self._events, self._num_events = K.empty_events(num_envs)
        self._ledgers = [Ledger(cfg, self._table) for _ in range(num_envs)]
        self._all = np.arange(num_envs, dtype=np.int64)
        self._wall = np.zeros(WALL_LEN, dtype=np.int32)
        self._tiles = np.asarray(tile_multiset(cfg), dtype=np.int32)
        self._base_unit = float(cfg.base_unit)
        self._ep_len = np.zeros(num_envs, dtype=np.int64)  # self-play: decisions of each slot's hand so far
        self._pending: set[int] = set()  # self-play: slots with a reward from the deal, paid with their next step

    # ---- the engine of the slots (VectorEnv's hooks) ------------------------------------------------------------
    def _deal(self, i: int, hand: Any) -> bool:
        """Deal hand seed ``hand`` in slot ``i``: the wall, dealer and 换三张 offset ``Game(cfg, seed=hand)`` has."""
        cfg = self.cfg
        dealer, offset = seeded_start(cfg, hand, self._tiles, self._wall)
        count = self._num_events[i : i + 1]
        count[0] = 0
        K.deal(
            self.state[i], self._wall[: cfg.num_tiles], dealer, offset, self._rules, self._table, self._events[i], count
        )
        ledger = self._ledgers[i] = Ledger(cfg, self._table)
        if not count[0]:
            return False
        ledger.settle(self.state[i], self._events[i], count, self._rules)  # without 换三张 and 定缺, four 红中 can win
        return True

    def _new_hand(self, i: int, seed: int | None) -> bool:
        moved = super()._new_hand(i, seed)
        if self.self_play:
            self._ep_len[i] = 0
            if moved and self._slots[i].pending.any():
                self._pending.add(i)
        return moved

    def _scores_of(self, i: int) -> list[int]:
        return self.state[i, SCORES : SCORES + self.num_players].tolist()

    def _leaves(self, i: int, seat: int) -> bool:
        st = self.state[i]
        if st[OVER]:
            return True
        return not st[ACTIVE + seat] and self._ledgers[i].score_final(seat, st[WON : WON + self.num_players])

    def _pay(self, i: int, row: np.ndarray) -> None:
        """``VectorEnv._pay`` (slot ``i``'s self-play rewards of its last step, added to ``row``) reading the row once
        for every seat: its scores, whether the hand is over, the seats still in it (:meth:`_leaves` per seat)."""
        s = self._slots[i]
        n = self.num_players
        st = self.state[i]
        scores = st[SCORES : SCORES + n].tolist()
        over = st[OVER] != 0
        active = st[ACTIVE : ACTIVE + n].tolist()
        delta = self.reward_mode == "delta"
        f = self._factor
        old, alive = s.scores, s.alive
        for q in range(n):
            if not alive[q]:
                continue
            leaving = over or (not active[q] and self._ledgers[i].score_final(q, st[WON : WON + n]))
            if delta:
                if scores[q] != old[q]:  # adding 0.0 would change nothing: a reward row sums from +0.0, never -0.0
                    row[q] += (scores[q] - old[q]) * f
            elif leaving:
                row[q] += scores[q] * f
            if leaving:
                alive[q] = False
        s.scores = scores

    def _observe_into(self, pairs: list[tuple[int, int]], obs: np.ndarray, masks: np.ndarray) -> None:
        rows = np.asarray([i for i, _ in pairs], dtype=np.int64)
        seats = np.asarray([q for _, q in pairs], dtype=np.int64)
        encode_rows(self.state, rows, seats, self._base_unit, obs)
        batch.masks_rows(self.state, rows, seats, self._rules, self._table, masks)

    def _play_all(self, pairs: list[tuple[int, int]], actions: list[int]) -> None:
        rows = np.asarray([i for i, _ in pairs], dtype=np.int64)
        seats = np.asarray([q for _, q in pairs], dtype=np.int64)
        self._apply(rows, seats, np.asarray(actions, dtype=np.int64))

    def _pick_legal(self, u: np.ndarray) -> np.ndarray:
        out = np.empty(self.num_envs, dtype=np.int64)
        bad = batch.pick_legal(self.masks, u, out)
        if bad >= 0:
            raise RuntimeError(f"slot {bad} has no legal action (reset the environment first)")
        return out

    def _terminal_observation(self, i: int) -> np.ndarray:
        out = np.empty(self.obs.shape[1:], dtype=np.float32)
        encode_row(self.state[i], self._slots[i].seat, self._base_unit, out)
        return out

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> list[int]:
        """One decision of ``seats[j]`` in each slot ``rows[j]``; settles the money of what happened and returns the
        slots where something was paid or changed hands (kongs, wins, the end of a hand)."""
        counts = self._num_events
        batch.step_rows(self.state, rows, seats, actions, self._rules, self._table, self._events, counts)
        moved = np.flatnonzero(counts).tolist()
        for i in moved:
            self._ledgers[i].settle(self.state[i], self._events[i], counts[i : i + 1], self._rules)
        return moved

    # ---- stepping ------------------------------------------------------------------------------------------------
    def _check_actions(self, acts: np.ndarray) -> None:
        N = self.num_envs
        if acts.shape[0] != N:
            raise ValueError(f"expected {N} actions (one per slot), got shape {acts.shape}")
        i = batch.first_illegal(self.masks, acts)
        if i < 0:
            return
        legal = ", ".join(f"{j} ({action_name(j)})" for j in np.flatnonzero(self.masks[i]))
        seat = int(self.acting_seats[i])
        raise ValueError(f"illegal action {int(acts[i])} in slot {i} (seat {seat}); legal: {legal}")

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        try:
            acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"actions must be {self.num_envs} integer action ids, got {actions!r}") from None
        self._check_actions(acts)
        self._new_obs()
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
        for i in moved:  # the other slots' scores, seats and hands did not change
            self._pay(i, rewards[i])
        self._ep_len += 1
        over = self.state[:, OVER] == 1
        ended = np.flatnonzero(over).tolist()
        finals = []
        for i in ended:
            episode = {"l": int(self._ep_len[i]), "t": self._elapsed()}
            finals.append({"final_scores": self._scores_of(i), "episode": episode})
            self._slots[i].skipped = 0
            self._new_hand(i, None)
        self._skip_hands_over(ended)
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
            self._skip_hands_over(rows.tolist())
            self._encode_rows(rows)
            return
        slots = self._slots
        n = self.num_players
        active = rows
        seats = np.zeros(self.num_envs, dtype=np.int64)
        while active.size:
            batch.acting_seats(self.state, active, seats[: active.size])
            nxt, random_rows, random_seats = [], [], []
            waiting: dict[int, list[tuple[int, int]]] = {}  # id(policy) -> [(slot, seat)]
            policy_of: dict[int, Any] = {}
            for j, i in enumerate(active.tolist()):
                s = slots[i]
                if self._leaves(i, s.seat):
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
            while self.state[i, OVER]:
                self._slots[i].skipped += 1
                self._new_hand(i, None)

    def _play_random(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """Uniformly random legal actions drawn from each slot's generator (``SingleAgentEnv``'s opponents)."""
        masks = self._scratch_masks
        batch.masks_rows(self.state, rows, seats, self._rules, self._table, masks)
        actions = np.empty(len(rows), dtype=np.int64)
        for j, i in enumerate(rows.tolist()):
            ids = np.flatnonzero(masks[i])
            actions[j] = ids[int(self._slots[i].rng.integers(len(ids)))]
        self._apply(rows, seats, actions)

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
        raise AttributeError(
            "CompiledVectorEnv keeps no envs.engine.game.Game per slot; read .state (envs.compiled.layout)"
        )

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "game":
            raise AttributeError("CompiledVectorEnv keeps no envs.engine.game.Game per slot; read .state")
        if attr_name == "seat":
            return [int(self.acting_seats[i]) for i in self._indices(indices)]
        return super().get_attr(attr_name, indices)
