"""The reference engine behind a compiled hand (影子对局): event logs and results on demand.

The AEC environment on the compiled engine (:mod:`envs.compiled.aec`) plays a hand on the kernel, which keeps no
event log and no :class:`~envs.engine.game.HandResult`.  Both are produced, when somebody reads them, by the Python
engine itself: a :class:`HandReplay` records every decision of the hand and replays them on an
:class:`envs.engine.game.Game` dealt the same way, as far as needed.  A :class:`LazyInfo` is an ``infos[agent]`` dict
whose ``"events"`` (and ``"result"``) values are filled from the replay the first time any value of it is read, so
a training loop that never reads them never pays for them, and one that does gets exactly what the Python
environment gives (``tests/envs/test_compiled_aec.py`` compares the two step by step).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from envs.core.actions import engine_action
from envs.engine.game import Action, Game

__all__ = ["HandReplay", "LazyInfo"]


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


class LazyInfo(dict):
    """An ``infos[agent]`` dict whose ``lazy`` keys get their values on first use (see the module docstring).

    Every key is present from the start (``len``, ``in`` and ``keys()`` compute nothing), and reading or writing
    the other keys computes nothing either (``info["seat"]``, ``info.get("episode")``, ``info["x"] = ...``, as
    training wrappers do at every step).  Reading a lazy key, or anything that sees every value — ``items``,
    ``values``, iteration (so ``dict(info)`` and ``{**info}``), comparison, ``repr``, copying, pickling,
    ``update`` — first calls :meth:`fill`, which stores the computed values.  ``copy.copy`` and ``copy.deepcopy``
    stay lazy; ``info.copy()``, ``dict(info)`` and pickles are plain dicts."""

    __slots__ = ("_fill", "_lazy")

    def __init__(self, values: dict[str, Any], fill: Callable[[], dict[str, Any]], lazy: tuple[str, ...]) -> None:
        super().__init__(values)
        for key in lazy:
            dict.setdefault(self, key, None)
        self._fill: Callable[[], dict[str, Any]] | None = fill
        self._lazy = lazy

    def fill(self) -> None:
        """Compute the deferred values now (once)."""
        fill = self._fill
        if fill is not None:
            self._fill = None
            dict.update(self, fill())

    def extended(self, extra: dict[str, Any]) -> dict[str, Any]:
        """A new info with the keys of ``extra`` added, its deferred values still deferred (computed once each)."""
        values = dict(dict.items(self))  # the stored values, placeholders included, without filling
        if self._fill is None or any(key in extra for key in self._lazy):
            self.fill()
            values = dict(dict.items(self))
            values.update(extra)
            return values
        values.update(extra)
        return LazyInfo(values, self._fill, self._lazy)

    def __getitem__(self, key: Any) -> Any:
        if self._fill is not None and key in self._lazy:
            self.fill()
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if self._fill is not None and key in self._lazy:
            self.fill()
        return dict.get(self, key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._fill is not None and key in self._lazy:
            self.fill()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        if self._fill is not None and key in self._lazy:
            self.fill()
        dict.__delitem__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        if self._fill is not None and key in self._lazy:
            self.fill()
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if self._fill is not None and key in self._lazy:
            self.fill()
        return dict.setdefault(self, key, default)

    def __copy__(self) -> dict[str, Any]:
        if self._fill is None:
            return dict(dict.items(self))
        return LazyInfo(dict(dict.items(self)), self._fill, self._lazy)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        """A deep copy that stays lazy (sb3's ``DummyVecEnv`` deep-copies every step's infos): its deferred values,
        once computed, are deep copies too."""
        values = copy.deepcopy(dict(dict.items(self)), memo)
        fill = self._fill
        if fill is None:
            return values
        return LazyInfo(values, lambda: copy.deepcopy(fill()), self._lazy)

    def __reduce_ex__(self, protocol: int) -> tuple[Any, ...]:
        self.fill()
        return (dict, (dict(self),))

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__reduce_ex__(2)


def _filled(name: str) -> Callable[..., Any]:
    base = getattr(dict, name)

    def method(self: LazyInfo, *args: Any, **kwargs: Any) -> Any:
        if self._fill is not None:
            self.fill()
        return base(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``dict.{name}`` after :meth:`LazyInfo.fill`."
    return method


for _name in (
    "__iter__",
    "__eq__",
    "__ne__",
    "__repr__",
    "__or__",
    "__ror__",
    "__ior__",
    "__reversed__",
    "items",
    "values",
    "copy",
    "popitem",
    "update",
    "clear",
):
    setattr(LazyInfo, _name, _filled(_name))
del _name
LazyInfo.__hash__ = None  # type: ignore[assignment]  # a dict: unhashable
