"""Infos computed on first read (惰性信息): ``infos[agent]`` dicts whose costly values wait until somebody reads them.

The AEC environment on the compiled engine (:mod:`envs.sichuan_mahjong_v0` with ``engine="compiled"``) puts each
step's event log and, at the end, the hand result into the infos as a :class:`LazyInfo`: their values come from the
Python engine replaying the hand (:class:`envs.compiled.shadow.HandReplay`) the first time any value of that info is
read, so a training loop that never reads them never pays for them, and one that does gets exactly what the Python
environment gives.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, SupportsIndex

__all__ = ["LazyInfo"]


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

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
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
