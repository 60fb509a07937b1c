"""The reference engine behind a compiled hand (影子对局): event logs and results on demand.

A table of the compiled engine (:class:`envs.compiled.backend.CompiledTable`) plays a hand on the kernel, which
keeps no event log and no :class:`~envs.engine.game.HandResult`.  Both are produced, when somebody reads them, by the
Python engine itself: a :class:`HandReplay` records every decision of the hand and replays them on an
:class:`envs.engine.game.Game` dealt the same way, as far as needed (the AEC environment reads them through
:class:`envs.lazy_info.LazyInfo`, only when an info is read; ``tests/envs/test_compiled_aec.py`` compares them with the
Python environment's step by step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.core.actions import engine_action
from envs.engine.game import Action, Game

__all__ = ["HandReplay"]


class HandReplay:
    """The decisions of one hand, replayed on :class:`envs.engine.game.Game` up to the step somebody asks about.

    ``start`` builds the hand's ``Game`` (with its event log); it is called at the first question, so a hand nobody
    asks about costs no ``Game`` at all.  Step ``0`` is the deal; step ``t`` is the ``t``-th engine decision (three
    换三张 picks of the AEC environment make one decision, as in ``Game``)."""

    __slots__ = ("_cursors", "_game", "_log", "_picks", "_start")

    def __init__(self, start: Callable[[], Game], num_players: int) -> None:
        self._start = start
        self._game: Game | None = None
        self._log: list[tuple[int, Action]] = []
        self._cursors: list[int] = []  # len(game.events) after step t (index t), for the steps replayed so far
        self._picks: list[list[int]] = [[] for _ in range(num_players)]

    @property
    def steps(self) -> int:
        """Engine decisions recorded so far (the current step's index)."""
        return len(self._log)

    def record(self, seat: int, action_id: int) -> bool:
        """Record ``seat``'s flat action; returns whether it made an engine decision (False for the first two
        换三张 picks, which the engine receives together with the third)."""
        action = engine_action(action_id, self._picks[seat])
        if action is None:
            return False
        self._log.append((seat, action))
        return True

    def picks(self, seat: int) -> list[int]:
        """``seat``'s 换三张 picks not yet sent to the engine (the first two of three)."""
        return list(self._picks[seat])

    def game_at(self, step: int) -> Game:
        """The hand's ``Game`` replayed through ``step`` (it only moves forward: a later step is replayed from
        where it stands)."""
        game = self._game
        if game is None:
            game = self._game = self._start()
            self._cursors.append(len(game.events))
        cursors, log = self._cursors, self._log
        while len(cursors) <= step:
            seat, action = log[len(cursors) - 1]
            game.step(seat, action)
            cursors.append(len(game.events))
        return game

    def game(self) -> Game:
        """The hand's ``Game`` as it stands now (every recorded decision replayed)."""
        return self.game_at(self.steps)

    def events_of(self, step: int) -> list[dict[str, Any]]:
        """The engine events of ``step`` (all seats' forms, as ``Game.events`` holds them)."""
        game = self.game_at(step)
        end = self._cursors[step]
        begin = self._cursors[step - 1] if step else 0
        return game.events[begin:end]
