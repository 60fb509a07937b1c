"""The Python engine as a backend (Python 引擎后端): :class:`envs.engine.game.Game` behind the protocols of
:mod:`envs.backend`.

:class:`GameTable` plays one table's hands on a ``Game`` (with its event log, read by the AEC environment's infos);
:class:`GameBatch` keeps one ``Game`` per slot (events off) for the batched environment.  Both collect the
换三张 picks of the flat action layout (:func:`envs.core.actions.engine_action`) and encode observations with the
incremental :class:`envs.engine.observation.GameObserver`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envs.core.actions import ACTION_SPACE_SIZE, engine_action
from envs.core.rule_config import RuleConfig
from envs.engine.game import Game
from envs.engine.observation import GameObserver, ObservationEncoder, game_mask
from envs.engine.privileged import privileged_planes
from envs.engine.view import Phase
from envs.scoring.settlement import Transfer, score_final

__all__ = ["GameBatch", "GameLog", "GameTable", "pick_legal"]


class GameLog:
    """The record of a hand played on a :class:`~envs.engine.game.Game`: its event log cut at every decision."""

    __slots__ = ("_cursors", "_game")

    def __init__(self, game: Game) -> None:
        self._game = game
        self._cursors = [len(game.events)]  # len(game.events) after decision t (index t; 0: the deal)

    def record(self) -> None:
        """Mark the end of the decision just applied to the game."""
        self._cursors.append(len(self._game.events))

    @property
    def steps(self) -> int:
        return len(self._cursors) - 1

    def events_of(self, step: int) -> list[dict[str, Any]]:
        cursors = self._cursors
        return self._game.events[cursors[step - 1] if step else 0 : cursors[step]]

    def game(self) -> Game:
        return self._game


class GameTable:
    """:class:`envs.backend.TableBackend` on :class:`envs.engine.game.Game`."""

    engine = "python"
    defers_events = False

    def __init__(self, cfg: RuleConfig) -> None:
        Game(cfg, seed=0, record_events=False)  # UnsupportedRule now rather than at the first deal
        self.cfg = cfg
        self._game: Game | None = None
        self._log: GameLog | None = None
        self._observer: GameObserver | None = None
        self._picks: list[list[int]] = [[] for _ in range(cfg.num_players)]

    def deal(self, cfg: RuleConfig, seed: Any, fixed: Mapping[str, Any]) -> list[Transfer]:
        game = self._game = Game(cfg, **fixed) if "wall" in fixed else Game(cfg, seed=seed, **fixed)
        self.cfg = cfg
        self._log = GameLog(game)
        self._observer = GameObserver(ObservationEncoder.from_config(cfg), game)
        self._picks = [[] for _ in range(cfg.num_players)]
        return list(game.transfers)

    def hand_end(self) -> tuple[int, bool]:
        result = self._game.result
        if result is None:
            raise ValueError("the hand is still being played: it has no next dealer yet")
        return result.next_dealer, result.bankrupt

    @property
    def steps(self) -> int:
        return self._log.steps

    @property
    def log(self) -> GameLog | None:
        return self._log

    def acting_seat(self) -> int:
        game = self._game
        return -1 if game.is_over else game.pending[0]

    def legal_mask(self, seat: int) -> np.ndarray:
        return game_mask(self._game, seat, self._picks[seat])

    def step(self, seat: int, action: int) -> list[Transfer] | None:
        move = engine_action(action, self._picks[seat])  # a 换三张 pick waits for the third
        if move is None:
            return None
        game = self._game
        transfers = game.transfers
        before = len(transfers)
        game.step(seat, move)
        self._log.record()
        return transfers[before:]

    def observe(self, seat: int) -> np.ndarray:
        return self._observer.encode(seat, exchange_picks=self._picks[seat])

    def privileged(self, seat: int) -> np.ndarray:
        if self._game is None:
            raise RuntimeError("no hand has been dealt yet")
        return privileged_planes(self._game, seat)

    def picks(self, seat: int) -> list[int]:
        return list(self._picks[seat])

    def scores(self) -> list[int]:
        return list(self._game.scores)

    def active(self) -> list[bool]:
        return list(self._game.active)

    def is_over(self) -> bool:
        return self._game.is_over

    def score_final(self, seat: int) -> bool:
        game = self._game
        return score_final(game.cfg, seat, game.kong_payments, game.won)

    def phase(self) -> Phase:
        return self._game.phase

    def close(self) -> None:
        self._game = self._log = self._observer = None


class GameBatch:
    """:class:`envs.backend.BatchBackend` on one :class:`envs.engine.game.Game` per slot (events off)."""

    engine = "python"

    def __init__(self, cfg: RuleConfig, num_envs: int) -> None:
        Game(cfg, seed=0, record_events=False)  # UnsupportedRule now rather than at the first deal
        self.cfg = cfg
        self.num_envs = num_envs
        self._encoder = ObservationEncoder.from_config(cfg)
        self._games: list[Game | None] = [None] * num_envs
        self._observers: list[GameObserver | None] = [None] * num_envs
        self._picks: list[list[list[int]]] = [[] for _ in range(num_envs)]

    def deal(self, i: int, seed: Any) -> bool:
        g = self._games[i] = Game(self.cfg, seed=seed, record_events=False)
        self._observers[i] = GameObserver(self._encoder, g)
        self._picks[i] = [[] for _ in range(self.cfg.num_players)]
        return bool(g.wins) or g.is_over

    def copy_hand(self, source: GameBatch, i: int, slot: int) -> None:
        if source.cfg != self.cfg:
            raise ValueError("copy_hand: the source batch plays other rules")
        g = self._games[slot] = source._games[i].copy()
        self._observers[slot] = GameObserver(self._encoder, g)
        self._picks[slot] = [p[:] for p in source._picks[i]]

    def step(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> list[int]:
        moved = []
        games, picks = self._games, self._picks
        for i, seat, a in zip(rows.tolist(), seats.tolist(), actions.tolist()):
            move = engine_action(a, picks[i][seat])
            if move is not None:
                games[i].step(seat, move)
                moved.append(i)
        return moved

    def acting_seats(self, rows: np.ndarray, out: np.ndarray) -> None:
        games = self._games
        for j, i in enumerate(rows.tolist()):
            g = games[i]
            out[j] = -1 if g.is_over else g.pending[0]

    def masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for i, seat in zip(rows.tolist(), seats.tolist()):
            game_mask(self._games[i], seat, self._picks[i][seat], out[i])

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for i, seat in zip(rows.tolist(), seats.tolist()):
            self._observers[i].encode(seat, out[i], exchange_picks=self._picks[i][seat])

    def observe_next(
        self, rows: np.ndarray, seats: np.ndarray, find_seats: bool, obs: np.ndarray, masks: np.ndarray
    ) -> None:
        games, picks = self._games, self._picks
        for i in rows.tolist():
            g = games[i]
            if find_seats:
                seats[i] = g.pending[0]
            seat = int(seats[i])
            mine = picks[i][seat]
            self._observers[i].encode(seat, obs[i], exchange_picks=mine)
            game_mask(g, seat, mine, masks[i])

    def observation(self, i: int, seat: int) -> np.ndarray:
        return self._observers[i].encode(seat, exchange_picks=self._picks[i][seat])

    def privileged(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        games = self._games
        for j, (i, seat) in enumerate(zip(rows.tolist(), seats.tolist())):
            privileged_planes(games[i], seat, out[j])

    def scores(self, i: int) -> list[int]:
        return list(self._games[i].scores)

    def seat_scores(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        games = self._games
        return np.array([games[i].scores[q] for i, q in zip(rows.tolist(), seats.tolist())], dtype=np.int64)

    def over(self) -> np.ndarray:
        return np.array([g.is_over for g in self._games], dtype=bool)

    def is_over(self, i: int) -> bool:
        return self._games[i].is_over

    def seat_final(self, i: int, seat: int) -> bool:
        g = self._games[i]
        return g.is_over or (not g.active[seat] and score_final(g.cfg, seat, g.kong_payments, g.won))

    def first_illegal(self, masks: np.ndarray, actions: np.ndarray) -> int:
        return first_illegal(masks, actions)

    def pick_legal(self, masks: np.ndarray, u: np.ndarray) -> np.ndarray:
        return pick_legal(masks, u)

    def games(self) -> list[Game | None]:
        return list(self._games)

    def picks(self, i: int, seat: int) -> list[int]:
        return list(self._picks[i][seat])

    def close(self) -> None:
        self._games = [None] * self.num_envs
        self._observers = [None] * self.num_envs


def first_illegal(masks: np.ndarray, actions: np.ndarray) -> int:
    """The first row whose action is outside the flat layout or not set in its mask, or -1 (every action legal)."""
    for i, a in enumerate(actions.tolist()):
        if not (0 <= a < ACTION_SPACE_SIZE and masks[i, a]):
            return i
    return -1


def pick_legal(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row ``i``'s ``floor(u[i] * n_i)``-th legal action (``n_i`` set entries of ``masks[i]``, in id order;
    ``0 <= u[i] < 1``), with numpy; ``RuntimeError`` naming the first row without a legal action."""
    counts = masks.sum(axis=1, dtype=np.int64)
    if not counts.all():
        raise RuntimeError(f"slot {int(np.argmin(counts))} has no legal action (reset the environment first)")
    ranks = (u * counts).astype(np.int64)
    return (masks.cumsum(axis=1, dtype=np.int64) > ranks[:, None]).argmax(axis=1)
