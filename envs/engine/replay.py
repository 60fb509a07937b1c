"""Replay (复盘): rebuild a hand from its event log.

A :class:`~envs.engine.game.Game` records JSON-serialisable events (``Game.events``).  The first event, ``hand_start``,
holds everything chance decided — the rule configuration, the wall in draw order, the dealer, the 换三张 offset and
the match totals — and every ``action`` event holds one seat's decision.  Replaying feeds the same decisions to a
fresh game; automatic steps (passes of seats without options, the four-红中 instant win, settlements) follow from
the rules, so the rebuilt game equals the original (``replay(g.events).snapshot() == g.snapshot()``).

The log may come from JSON: ``replay(json.loads(json.dumps(g.events)))`` works.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from envs.core.rule_config import ConfigError, RuleConfig
from envs.engine.game import Game, action_from_dict, seed_from_json

__all__ = ["replay", "replay_steps"]


def replay(log: Iterable[Mapping[str, Any]]) -> Game:
    """Rebuild the final state of a hand from its event log (see the module docstring).

    Raises ``ValueError`` when the log does not start with a ``hand_start`` event or a recorded action is not legal
    in the rebuilt game (a corrupted or foreign log).
    """
    steps = replay_steps(log)
    _, game = next(steps)
    for _ in steps:
        pass
    return game


def replay_steps(log: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, Game]]:
    """Rebuild a hand one decision at a time: yields ``(0, game)`` once dealt, then ``(i, game)`` right after the
    ``action`` event ``i`` of the log was played (the same :class:`Game` object, advanced in place).

    Raises ``ValueError`` like :func:`replay`.
    """
    events = list(log)
    if not events or events[0].get("type") != "hand_start":
        first = events[0].get("type") if events else None
        raise ValueError(f"an event log must start with a 'hand_start' event (the full log), got {first!r}")
    start = events[0]
    try:
        flags: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in start["config"].items()}
        cfg = RuleConfig(**flags)
    except (ConfigError, TypeError) as exc:
        raise ValueError(f"hand_start carries an invalid rule configuration: {exc}") from None
    game = Game(
        cfg,
        seed_from_json(start.get("seed")),
        wall=start["wall"],
        dealer=start["dealer"],
        exchange_offset=start.get("exchange_offset"),
        match_points=start.get("match_points"),
    )
    yield 0, game
    for i, ev in enumerate(events[1:], start=1):
        if ev.get("type") != "action":
            continue
        try:
            game.step(int(ev["seat"]), action_from_dict(ev["action"]))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"event {i} of the log cannot be replayed: {exc}") from None
        yield i, game
