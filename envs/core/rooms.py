"""Rooms (房间): the 红中 platform's 底分 tiers and entry limits as data (RULES.md §11.1).

The six rooms ship in ``configs/rooms/rooms.yaml`` (package data).  A room is found by its Chinese name (``"初级场"``)
or its English alias (``"beginner"``); :meth:`Room.check_stack` refuses a stack outside the entry limits.

>>> room = load_room("初级场")
>>> room.base, room.min_entry, room.max_entry
(400, 2000, 100000)
>>> load_room("beginner") == room
True
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

import yaml

from envs.core.rule_config import CONFIG_DIR

__all__ = ["ROOM_DIR", "Room", "check_stack", "load_room", "room_names"]

ROOM_DIR = CONFIG_DIR / "rooms"


@dataclass(frozen=True)
class Room:
    """One room: ``base`` 底分 (chips per rule unit of the variant) and the entry limits in chips (``max_entry``
    None: 无上限)."""

    name: str
    alias: str
    base: int
    min_entry: int
    max_entry: int | None
    variant: str = "hongzhong"

    @property
    def limits(self) -> str:
        """The entry range as text (``"2000..100000"``, ``"20000..no limit"``)."""
        return f"{self.min_entry}..{'no limit' if self.max_entry is None else self.max_entry}"

    def check_stack(self, stack: Any, what: str = "stack") -> int:
        """``stack`` as an int when it is a whole number of chips inside the entry limits, else ``ValueError`` naming
        the value and the allowed range."""
        return check_stack(stack, self.min_entry, self.max_entry, f"{what} in {self.name} ({self.alias})")


def check_stack(stack: Any, low: int, high: int | None, what: str = "stack") -> int:
    """``stack`` as an int in ``[low, high]`` (``high`` None: no upper limit), else ``ValueError`` naming the value
    and the range (a bool, a float or a negative number is refused too)."""
    span = f"{low}..{'no limit' if high is None else high}"
    if isinstance(stack, bool):
        raise ValueError(f"{what} must be a whole number of chips in {span}, got the bool {stack!r}")
    try:
        value = operator.index(stack)
    except TypeError:
        raise ValueError(f"{what} must be a whole number of chips in {span}, got {stack!r}") from None
    if value < 0:
        raise ValueError(f"{what} must be a whole number of chips in {span}, got the negative {value}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{what} must be in {span} chips, got {value}")
    return value


@functools.cache
def _rooms() -> tuple[Room, ...]:
    data = yaml.safe_load((ROOM_DIR / "rooms.yaml").read_text(encoding="utf-8"))
    variant = data.get("variant", "hongzhong")
    return tuple(Room(variant=variant, **row) for row in data["rooms"])


def room_names() -> list[str]:
    """Every room's Chinese name, cheapest first."""
    return [r.name for r in _rooms()]


def load_room(room: str | Room) -> Room:
    """The room named ``room`` (Chinese name or English alias, case-insensitive for the alias); ``ValueError``
    naming the value and the known rooms otherwise."""
    if isinstance(room, Room):
        return room
    if isinstance(room, str):
        key = room.strip()
        for r in _rooms():
            if key == r.name or key.lower() == r.alias:
                return r
    known = ", ".join(f"{r.name} ({r.alias})" for r in _rooms())
    raise ValueError(f"unknown room {room!r}; known rooms: {known}")
