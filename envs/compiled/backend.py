"""The compiled engine as a backend (编译引擎后端): the numba kernel behind the protocols of :mod:`envs.backend`.

* :class:`CompiledTable` — one table on one ``int32`` state row (:mod:`envs.compiled.layout`): the AEC environment
  on the compiled engine.  Its event log and hand result are :class:`envs.compiled.shadow.HandReplay`: the Python
  engine replaying the hand's decisions when somebody reads them (``defers_events``).
* :class:`CompiledBatch` — ``num_envs`` tables in one ``(num_envs, STATE_SIZE)`` array (``state``): one numba
  call applies a decision in every listed slot (:mod:`envs.compiled.batch`), one writes every next observation and
  mask.

Money is settled by :class:`envs.compiled.ledger.Ledger` (the Python engine's scorer and settlement functions) from
the kernel's events; a seed deals what ``Game(cfg, seed=seed)`` deals (:func:`envs.compiled.dealing.seeded_start`).
Only the configurations of :mod:`envs.compiled.support` are played; others raise
:class:`~envs.engine.game.UnsupportedRule` naming the flags.  This module imports no environment.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from envs.compiled import batch
from envs.compiled import kernel as K
from envs.compiled._cache import announce_compile
from envs.compiled.dealing import seeded_start
from envs.compiled.encode import encode_row, encode_rows
from envs.compiled.layout import (
    ACTIVE,
    BANKRUPT,
    DEALER,
    FIRST_WIN_PAYER,
    FIRST_WIN_SEATS,
    NUM_WINS,
    OVER,
    PHASE,
    SCORES,
    STATE_SIZE,
    WALL_LEN,
    WON,
)
from envs.compiled.ledger import Ledger
from envs.compiled.privileged import privileged_rows
from envs.compiled.shadow import HandReplay
from envs.compiled.support import check_supported, rule_vector, win_table
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig
from envs.core.wall import tile_multiset
from envs.engine.game import Game
from envs.engine.match import next_dealer
from envs.engine.observation import OBS_SHAPE, PHASES
from envs.engine.privileged import PRIVILEGED_SHAPE
from envs.engine.view import Phase
from envs.scoring.settlement import Transfer

__all__ = ["CompiledBatch", "CompiledTable"]


class CompiledTable:
    """:class:`envs.backend.TableBackend` on one kernel row (see the module docstring)."""

    engine = "compiled"
    defers_events = True

    def __init__(self, cfg: RuleConfig) -> None:
        check_supported(cfg)
        announce_compile(K.deal, K.apply_action, K.legal_mask, encode_row)
        self.cfg = cfg
        self._table = win_table()
        self._row = np.zeros(STATE_SIZE, dtype=np.int32)
        events, counts = K.empty_events(1)
        self._ev, self._count = events[0], counts  # one row's event buffer and its count (a 1-element array)
        self._wall = np.zeros(WALL_LEN, dtype=np.int32)
        self._hand_rules: dict[RuleConfig, tuple[np.ndarray, np.ndarray]] = {}  # cfg -> (rule vector, tiles)
        self._rules = rule_vector(cfg)
        self._base_unit = float(cfg.base_unit)
        self._ledger = Ledger(cfg, self._table)
        self._replay: HandReplay | None = None

    @property
    def row(self) -> np.ndarray:
        """The hand's state row (:mod:`envs.compiled.layout`; for inspection)."""
        return self._row

    def deal(self, cfg: RuleConfig, seed: Any, fixed: Mapping[str, Any]) -> list[Transfer]:
        known = self._hand_rules.get(cfg)
        if known is None:
            check_supported(cfg)
            known = self._hand_rules[cfg] = (rule_vector(cfg), np.asarray(tile_multiset(cfg), dtype=np.int32))
        self._rules, tiles = known
        self.cfg = cfg
        self._base_unit = float(cfg.base_unit)
        wall = self._wall
        if fixed:  # a fixed start (tests, puzzles): the engine checks and completes it
            game = Game(cfg, **fixed) if "wall" in fixed else Game(cfg, seed=seed, **fixed)
            wall[: cfg.num_tiles] = game._wall
            dealer, offset = game.dealer, game.exchange_offset or 0
            self._replay = HandReplay(lambda: game, cfg.num_players)
        else:
            dealer, offset = seeded_start(cfg, seed, tiles, wall)
            self._replay = HandReplay(functools.partial(Game, cfg, seed=seed), cfg.num_players)
        ledger = self._ledger = Ledger(cfg, self._table)
        if fixed.get("match_points") is not None:  # a points match carries its totals into the hand (bankruptcy)
            ledger.match_points = [int(p) for p in fixed["match_points"]]
        ledger.transfers = []
        count = self._count
        count[0] = 0
        K.deal(self._row, wall[: cfg.num_tiles], dealer, offset, self._rules, self._table, self._ev, count)
        if count[0]:  # four 红中 can win at the deal
            ledger.settle(self._row, self._ev, count, self._rules)
        return list(ledger.transfers)

    def hand_end(self) -> tuple[int, bool]:
        row = self._row
        if not row[OVER]:
            raise ValueError("the hand is still being played: it has no next dealer yet")
        n = self.cfg.num_players
        bankrupt = bool(row[BANKRUPT])
        seats = int(row[FIRST_WIN_SEATS])
        winners = [s for s in range(n) if seats >> s & 1] if row[NUM_WINS] else []
        payer = int(row[FIRST_WIN_PAYER])
        dealer = int(row[DEALER])
        if bankrupt and not row[NUM_WINS]:
            return dealer, True
        return next_dealer(self.cfg, dealer, winners, None if payer < 0 else payer), bankrupt

    @property
    def steps(self) -> int:
        return self._replay.steps

    @property
    def log(self) -> HandReplay | None:
        return self._replay

    def acting_seat(self) -> int:
        return -1 if self._row[OVER] else int(K.acting_seat(self._row))

    def legal_mask(self, seat: int) -> np.ndarray:
        mask = np.empty(ACTION_SPACE_SIZE, dtype=np.int8)
        K.legal_mask(self._row, seat, self._rules, self._table, mask)
        return mask

    def step(self, seat: int, action: int) -> list[Transfer] | None:
        decided = self._replay.record(seat, action)
        row, ledger, count = self._row, self._ledger, self._count
        count[0] = 0
        K.apply_action(row, seat, action, self._rules, self._table, self._ev, count)  # picks go to the row
        if not decided:  # a 换三张 pick before the third: nothing to settle
            return None
        transfers = ledger.transfers
        transfers.clear()
        if count[0]:
            ledger.settle(row, self._ev, count, self._rules)
        return transfers

    def observe(self, seat: int) -> np.ndarray:
        obs = np.empty(OBS_SHAPE, dtype=np.float32)
        encode_row(self._row, seat, self._base_unit, obs)
        return obs

    def privileged(self, seat: int) -> np.ndarray:
        out = np.empty((1, *PRIVILEGED_SHAPE), dtype=np.float32)
        privileged_rows(self._row[None], np.zeros(1, dtype=np.int64), np.array([seat]), self.cfg.num_players, out)
        return out[0]

    def picks(self, seat: int) -> list[int]:
        return self._replay.picks(seat)

    def scores(self) -> list[int]:
        return list(self._ledger.scores)

    def active(self) -> list[bool]:
        return [bool(a) for a in self._row[ACTIVE : ACTIVE + self.cfg.num_players].tolist()]

    def is_over(self) -> bool:
        return bool(self._row[OVER])

    def score_final(self, seat: int) -> bool:
        return self._ledger.score_final(seat, self._row[WON : WON + self.cfg.num_players])

    def phase(self) -> Phase:
        return PHASES[self._row[PHASE]]

    def close(self) -> None:
        self._replay = None


class CompiledBatch:
    """:class:`envs.backend.BatchBackend` on one kernel row per slot (see the module docstring)."""

    engine = "compiled"
    ledger_type: type[Ledger] = Ledger  # the ledger each dealt hand settles with (a subclass may record more)

    def __init__(self, cfg: RuleConfig, num_envs: int) -> None:
        check_supported(cfg)
        # the entry points every user of a batch calls (the masks alone, VectorEnv's, compile in seconds once the
        # kernel they share with these is cached): a batch that never asks for them is not told of a compile each time
        announce_compile(K.deal, batch.step_rows, batch.observe_rows)
        self.cfg = cfg
        self.num_envs = num_envs
        self.num_players = cfg.num_players
        self.rules = rule_vector(cfg)
        self.table = win_table()
        self.state = np.zeros((num_envs, STATE_SIZE), dtype=np.int32)
        self._events, self._num_events = K.empty_events(num_envs)
        self._ledgers = [self.ledger_type(cfg, self.table) for _ in range(num_envs)]
        self._wall = np.zeros(WALL_LEN, dtype=np.int32)
        self._tiles = np.asarray(tile_multiset(cfg), dtype=np.int32)
        self._base_unit = float(cfg.base_unit)

    def deal(self, i: int, seed: Any) -> bool:
        cfg = self.cfg
        dealer, offset = seeded_start(cfg, seed, self._tiles, self._wall)
        count = self._num_events[i : i + 1]
        count[0] = 0
        row, wall = self.state[i], self._wall[: cfg.num_tiles]
        K.deal(row, wall, dealer, offset, self.rules, self.table, self._events[i], count)
        ledger = self._ledgers[i] = self.ledger_type(cfg, self.table)
        if not count[0]:
            return False
        ledger.settle(row, self._events[i], count, self.rules)  # without 换三张 and 定缺, four 红中 can win
        return True

    def copy_hand(self, source: CompiledBatch, i: int, slot: int) -> None:
        """Make slot ``slot`` a copy of the hand in slot ``i`` of ``source`` (a batch of the same rules, possibly this
        one): its state row and a copy of its ledger, so that the two play on independently from here (a branch of
        the hand: the same wall and hidden tiles)."""
        if source.cfg != self.cfg or source.ledger_type is not self.ledger_type:
            raise ValueError("copy_hand: the source batch plays other rules or keeps another kind of ledger")
        self.state[slot] = source.state[i]
        self._ledgers[slot] = source._ledgers[i].copy()

    def step(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> list[int]:
        counts = self._num_events
        batch.step_rows(self.state, rows, seats, actions, self.rules, self.table, self._events, counts)
        moved = np.flatnonzero(counts).tolist()
        for i in moved:
            self._ledgers[i].settle(self.state[i], self._events[i], counts[i : i + 1], self.rules)
        return moved

    def acting_seats(self, rows: np.ndarray, out: np.ndarray) -> None:
        batch.acting_seats(self.state, rows, out)

    def masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        batch.masks_rows(self.state, rows, seats, self.rules, self.table, out)

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        encode_rows(self.state, rows, seats, self._base_unit, out)

    def observe_next(
        self, rows: np.ndarray, seats: np.ndarray, find_seats: bool, obs: np.ndarray, masks: np.ndarray
    ) -> None:
        batch.observe_rows(self.state, rows, seats, find_seats, self.rules, self.table, self._base_unit, obs, masks)

    def observation(self, i: int, seat: int) -> np.ndarray:
        out = np.empty(OBS_SHAPE, dtype=np.float32)
        encode_row(self.state[i], seat, self._base_unit, out)
        return out

    def privileged(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        privileged_rows(self.state, rows, seats, self.num_players, out)

    def scores(self, i: int) -> list[int]:
        return self.state[i, SCORES : SCORES + self.num_players].tolist()

    def seat_scores(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return self.state[rows, SCORES + seats].astype(np.int64)

    def over(self) -> np.ndarray:
        return self.state[:, OVER] == 1

    def is_over(self, i: int) -> bool:
        return bool(self.state[i, OVER])

    def seat_final(self, i: int, seat: int) -> bool:
        st = self.state[i]
        if st[OVER]:
            return True
        return not st[ACTIVE + seat] and self._ledgers[i].score_final(seat, st[WON : WON + self.num_players])

    def first_illegal(self, masks: np.ndarray, actions: np.ndarray) -> int:
        return int(batch.first_illegal(masks, actions))

    def pick_legal(self, masks: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = np.empty(masks.shape[0], dtype=np.int64)
        bad = batch.pick_legal(masks, u, out)
        if bad >= 0:
            raise RuntimeError(f"slot {bad} has no legal action (reset the environment first)")
        return out

    def games(self) -> list[Game | None]:
        raise AttributeError(
            "the compiled engine keeps no envs.engine.game.Game per slot; read backend.state (its layout)"
        )

    def picks(self, i: int, seat: int) -> list[int]:
        raise AttributeError("the compiled engine keeps the 换三张 picks in its state rows (envs.compiled.layout)")

    def close(self) -> None:
        pass
