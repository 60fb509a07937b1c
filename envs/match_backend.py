"""Matches in a batch (批量比赛): :class:`MatchBatch`, the :class:`envs.backend.BatchBackend` protocol over one
:class:`envs.engine.match.TableMatch` per slot, so that :class:`envs.vector_env.VectorEnv` plays whole matches
(a points match or a room's bankroll match, RULES.md §11) on either engine.

Each slot holds one :class:`~envs.backend.TableBackend` of the chosen engine (``make_table``) driven by a
:class:`~envs.engine.match.TableMatch`, exactly as the AEC env drives its table in match mode: ``deal(i, seed)``
starts match seed ``seed`` (first dealer from the seed's ``"dealer"`` stream, hand ``k`` dealt from
``hand_seed(seed, k)``), a decision that ends a hand closes it in the ledger and deals the next one, and the slot is
*over* when the match is.  What the batch reports as a seat's *score* is its change since the match began (points,
or chips in a room): the AEC env's ``scores`` in match mode, what the rewards add up to.  A seat's score is final
only when the match is over (a 血战 winner stays at the table for the next hands).  Observations are
``chuanma-v1-match`` (:func:`envs.engine.match_observation.encode_match`, ``(117, 34)``).

The compiled engine plays each slot's hands on its own :class:`~envs.compiled.backend.CompiledTable` (the numba
kernel per table, not one call for the whole batch): matches deal each hand with the dealer and the points the
match carries, which the compiled batch's seed-only deal does not take.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.backend import TableBackend, make_table
from envs.core.rule_config import RuleConfig
from envs.engine.game import Game
from envs.engine.match import MatchLedger, MatchRules, TableMatch
from envs.engine.match_observation import encode_match
from envs.game_backend import first_illegal, pick_legal

__all__ = ["MatchBatch"]


class MatchBatch:
    """``num_envs`` matches of ``rules`` on ``engine``, one per slot (see the module docstring)."""

    def __init__(self, engine: str, cfg: RuleConfig, rules: MatchRules, num_envs: int) -> None:
        self.engine = engine
        self.cfg = cfg
        self.rules = rules
        self.num_envs = num_envs
        self._tables: list[TableBackend] = [make_table(engine, cfg) for _ in range(num_envs)]
        self._matches: list[TableMatch | None] = [None] * num_envs

    def match(self, i: int) -> TableMatch:
        """Slot ``i``'s match (``RuntimeError`` before its first deal)."""
        m = self._matches[i]
        if m is None:
            raise RuntimeError(f"slot {i} has no match yet: deal it first")
        return m

    def ledger(self, i: int) -> MatchLedger:
        """Slot ``i``'s match ledger (standings, hand, busts, placements)."""
        return self.match(i).ledger

    def deal(self, i: int, seed: Any) -> bool:
        self._matches[i] = TableMatch(self._tables[i], self.cfg, self.rules, seed)
        return any(self.scores(i)) or self._matches[i].over

    def step(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> list[int]:
        moved = []
        for i, seat, a in zip(rows.tolist(), seats.tolist(), actions.tolist()):
            if self.match(i).step(seat, a) is not None:
                moved.append(i)
        return moved

    def _acting(self, i: int) -> int:
        m = self.match(i)
        return -1 if m.over else m.table.acting_seat()

    def acting_seats(self, rows: np.ndarray, out: np.ndarray) -> None:
        for j, i in enumerate(rows.tolist()):
            out[j] = self._acting(i)

    def masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for i, seat in zip(rows.tolist(), seats.tolist()):
            out[i] = self.match(i).table.legal_mask(seat)

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for i, seat in zip(rows.tolist(), seats.tolist()):
            out[i] = self.observation(i, seat)

    def observe_next(
        self, rows: np.ndarray, seats: np.ndarray, find_seats: bool, obs: np.ndarray, masks: np.ndarray
    ) -> None:
        for i in rows.tolist():
            if find_seats:
                seats[i] = self._acting(i)
            seat = int(seats[i])
            m = self.match(i)
            obs[i] = self.observation(i, seat)
            if m.over or m.table.acting_seat() < 0:
                masks[i] = 0
            else:
                masks[i] = m.table.legal_mask(seat)

    def observation(self, i: int, seat: int) -> np.ndarray:
        m = self.match(i)
        return encode_match(m.ledger, seat, m.table.observe(seat))

    def privileged(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for j, (i, seat) in enumerate(zip(rows.tolist(), seats.tolist())):
            out[j] = self.match(i).table.privileged(seat)

    def scores(self, i: int) -> list[int]:
        led = self.ledger(i)
        return [s - start for s, start in zip(led.standing, led.rules.start)]

    def seat_scores(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return np.array([self.scores(i)[q] for i, q in zip(rows.tolist(), seats.tolist())], dtype=np.int64)

    def over(self) -> np.ndarray:
        return np.fromiter((m is not None and m.over for m in self._matches), dtype=bool, count=self.num_envs)

    def is_over(self, i: int) -> bool:
        return self.match(i).over

    def seat_final(self, i: int, seat: int) -> bool:
        return self.match(i).over

    def first_illegal(self, masks: np.ndarray, actions: np.ndarray) -> int:
        return first_illegal(masks, actions)

    def pick_legal(self, masks: np.ndarray, u: np.ndarray) -> np.ndarray:
        return pick_legal(masks, u)

    def games(self) -> list[Game | None]:
        """The current hand of each slot as a :class:`~envs.engine.game.Game` (on the compiled engine, its replay)."""
        out: list[Game | None] = []
        for t in self._tables:
            log = t.log
            out.append(None if log is None else log.game())
        return out

    def picks(self, i: int, seat: int) -> list[int]:
        return self.match(i).table.picks(seat)

    def close(self) -> None:
        for t in self._tables:
            t.close()
        self._matches = [None] * self.num_envs
