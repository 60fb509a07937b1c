"""Replay files (牌谱文件): a versioned JSON record of whole hands that the engine checks by playing them again.

Format ``chuanma-replay``, version 1 (:data:`FORMAT_VERSION`), rules version :data:`RULES_VERSION` (the version of
docs/RULES.md the engine implements).  One UTF-8 JSON object::

    {
     "format": "chuanma-replay",          # always this string
     "format_version": 1,                 # refused when it is not FORMAT_VERSION
     "rules_version": "1.0",              # refused when it is not RULES_VERSION
     "action_layout": "chuanma-actions-v0",   # the flat action ids named in agent data
     "source": "simulate",                # who wrote it: simulate, eval, train-eval, play, ...
     "variant": "chengdu",
     "config": {...},                     # every RuleConfig field (the rules the hands were played under)
     "players": ["random", ...],          # one agent spec (or name) per seat
     "hands": [                           # one or more hands of a match, in order
      {
       "hand_index": 0,
       "seed": 17,                        # the hand's deal seed (bytes as {"hex": ...})
       "commitment": "9f2c...",           # 承诺: envs.core.wall.commitment(seed), published before the deal
       "dealer": 0,
       "wall": [...],                     # the wall as dealt, in draw order (envs.core.wall.verify_deal)
       "events": [                        # the engine's event log (Game.events), one event per line,
        {"type": "hand_start", ..., "scores": [0, 0, 0, 0]},   # each with the seat scores after it
        {"type": "action", "seat": 0, "action": {...}, "scores": [...],
         "agent": [{"chosen": "discard 5m", "probs": {"discard 5m": 0.61, ...}}]},   # optional agent data
        ...
       ],
       "result": {"scores": [...], "exhausted": false, "bankrupt": false, "next_dealer": 2,
                  "wins": [{"seat": 2, "tile": 17, "how": "dianpao", "doublings": 1, "payment": 2,
                            "breakdown": {...}, "transfers": [{"payer": 3, "receiver": 2, "amount": 2, ...}]}]}
      }
     ]
    }

Every event carries its acting seat where it has one (``seat``, ``payer``/``receiver``), exactly as the engine
emits it (see :mod:`envs.engine.render` for the event types).  ``agent`` (optional, on ``action`` events only) is
a list with one entry per agent call behind the decision (three for a 换三张 picked tile by tile): ``chosen`` (the
flat action name) and whatever the agent reports, e.g. a learned policy's ``probs`` over its legal actions;
rule-based agents record nothing.

:func:`load_replay` parses and checks the structure (a malformed or truncated file names the line and column, a
wrong field names its path such as ``hands[0].events[17].seat``); :func:`verify_replay` plays every hand again
through the engine (:func:`envs.engine.replay.replay`) and refuses a file whose events, scores or result the engine
does not reproduce, naming the first event that differs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from envs.core.actions import ACTION_LAYOUT_VERSION
from envs.core.rule_config import ConfigError, RuleConfig, config_from_dict
from envs.core.wall import commitment, verify_deal
from envs.engine.game import Game, seed_from_json
from envs.engine.replay import replay

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "RULES_VERSION",
    "ReplayError",
    "annotate_scores",
    "build_replay",
    "check_replay_file",
    "config_from_json",
    "dumps_replay",
    "engine_events",
    "hand_record",
    "load_replay",
    "loads_replay",
    "save_replay",
    "verify_replay",
    "with_line",
]

FORMAT = "chuanma-replay"
FORMAT_VERSION = 1
RULES_VERSION = "1.0"  # the "Version" line of docs/RULES.md that the engine implements

_EXTRA_KEYS = ("scores", "agent")  # what a replay file adds to an engine event


class ReplayError(ValueError):
    """A replay file that cannot be used: malformed, truncated, of another version, or not what the engine plays."""


# ---- writing -----------------------------------------------------------------------------------------------------
def annotate_scores(events: Iterable[Mapping[str, Any]], num_players: int) -> list[dict[str, Any]]:
    """Copies of ``events`` each with ``scores``: every seat's hand score after the event (transfers summed)."""
    scores = [0] * num_players
    out = []
    for ev in events:
        if ev.get("type") == "transfer":
            scores[ev["payer"]] -= ev["amount"]
            scores[ev["receiver"]] += ev["amount"]
        out.append({**ev, "scores": list(scores)})
    return out


def _result(events: Sequence[Mapping[str, Any]], game: Game) -> dict[str, Any]:
    result = game.result
    if result is None:
        raise ValueError("the hand is not over: only finished hands are saved as replays")
    wins: list[dict[str, Any]] = []
    for i, ev in enumerate(events):
        if ev.get("type") != "win":
            continue
        transfers = []
        for later in events[i + 1 :]:
            if later.get("type") != "transfer":
                break
            transfers.append({k: later[k] for k in ("payer", "receiver", "amount", "reason")})
        win = {k: ev.get(k) for k in ("seat", "tile", "from_seat", "how", "doublings", "payment", "breakdown")}
        wins.append({**win, "transfers": transfers})
    return {
        "scores": list(result.scores),
        "exhausted": result.exhausted,
        "bankrupt": result.bankrupt,
        "next_dealer": result.next_dealer,
        "wins": wins,
    }


def hand_record(
    game: Game, hand_index: int = 0, agent_data: Mapping[int, Sequence[Mapping[str, Any]]] | None = None
) -> dict[str, Any]:
    """The replay record of a finished hand played with ``record_events=True``.

    ``agent_data``: per ``action`` event index, the agent entries behind that decision (see the module docstring).
    """
    if not game.events or game.events[0].get("type") != "hand_start":
        raise ValueError("the game has no event log: play it with record_events=True to save a replay")
    start = game.events[0]
    events = annotate_scores(game.events, game.n)
    for i, entries in (agent_data or {}).items():
        if events[i].get("type") != "action":
            raise ValueError(f"agent data for event {i}, which is a {events[i].get('type')!r} event, not an action")
        if entries:
            events[i]["agent"] = [dict(e) for e in entries]
    seed = seed_from_json(start.get("seed"))
    return {
        "hand_index": hand_index,
        "seed": start.get("seed"),
        "commitment": None if seed is None else commitment(seed),
        "dealer": start["dealer"],
        "wall": list(start["wall"]),
        "events": events,
        "result": _result(game.events, game),
    }


def build_replay(
    cfg: RuleConfig, hands: Sequence[Mapping[str, Any]], *, players: Sequence[str], source: str
) -> dict[str, Any]:
    """A whole replay document from :func:`hand_record` entries."""
    if len(players) != cfg.num_players:
        raise ValueError(f"need one player name per seat ({cfg.num_players}), got {len(players)}")
    if not hands:
        raise ValueError("a replay needs at least one hand")
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "action_layout": ACTION_LAYOUT_VERSION,
        "source": source,
        "variant": cfg.name,
        "config": json.loads(json.dumps(hands[0]["events"][0]["config"])),
        "players": [str(p) for p in players],
        "hands": [dict(h) for h in hands],
    }


def dumps_replay(doc: Mapping[str, Any]) -> str:
    """The file text: indented, one event per line (so that an error's line number points at one event)."""
    lines = ["{"]
    top = [k for k in doc if k != "hands"]
    for k in top:
        lines.append(f" {json.dumps(k)}: {json.dumps(doc[k], ensure_ascii=False)},")
    lines.append(' "hands": [')
    hands = doc.get("hands", [])
    for h, hand in enumerate(hands):
        lines.append("  {")
        keys = [k for k in hand if k != "events"]
        for k in keys:
            lines.append(f"   {json.dumps(k)}: {json.dumps(hand[k], ensure_ascii=False)},")
        lines.append('   "events": [')
        events = hand.get("events", [])
        for i, ev in enumerate(events):
            comma = "," if i + 1 < len(events) else ""
            lines.append("    " + json.dumps(ev, ensure_ascii=False) + comma)
        lines.append("   ]")
        lines.append("  }" + ("," if h + 1 < len(hands) else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_replay(path: str | Path, doc: Mapping[str, Any]) -> Path:
    """Write ``doc`` to ``path`` (parent folders created); returns the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps_replay(doc), encoding="utf-8")
    return out


# ---- reading -----------------------------------------------------------------------------------------------------
def load_replay(path: str | Path) -> dict[str, Any]:
    """Read and structurally check a replay file (:func:`loads_replay`); the error names the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"replay file {str(path)!r} does not exist") from None
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return loads_replay(text, name=str(path))


def loads_replay(text: str, *, name: str = "replay") -> dict[str, Any]:
    """Parse a replay document and check its structure and versions (see the module docstring).

    ``ReplayError`` names the line and column of invalid JSON (a truncated file: where it ends), or the path of a
    wrong field, or both versions when the file is of another format or rules version.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise ReplayError(f"{name}: the file is empty") from None
        if exc.pos >= len(text.rstrip()):
            raise ReplayError(
                f"{name}: line {exc.lineno} column {exc.colno}: the file ends early (truncated?): {exc.msg}"
            ) from None
        raise ReplayError(f"{name}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from None
    try:
        _check_document(doc, name)
    except ReplayError as exc:
        raise ReplayError(with_line(str(exc), text)) from None
    return doc


_EVENT_PATH = re.compile(r"hands\[(\d+)\]\.events\[(\d+)\]")


def with_line(message: str, text: str) -> str:
    """``message`` with the file line of the event it names (``hands[0].events[17]`` → ``... (line 40)``), when
    ``text`` has the layout :func:`dumps_replay` writes (one event per line); else ``message`` unchanged."""
    found = _EVENT_PATH.search(message)
    if found is None:
        return message
    hand, event = int(found[1]), int(found[2])
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines) if line == '   "events": [']
    if hand >= len(starts):
        return message
    n = starts[hand] + 1 + event
    if n >= len(lines) or not lines[n].startswith('    {"type": '):
        return message
    return message[: found.end()] + f" (line {n + 1})" + message[found.end() :]


def check_replay_file(path: str | Path) -> tuple[dict[str, Any], list[Game]]:
    """:func:`load_replay` then :func:`verify_replay`; an error about an event names its line in the file too."""
    doc = load_replay(path)
    try:
        games = verify_replay(doc, name=str(path))
    except ReplayError as exc:
        raise ReplayError(with_line(str(exc), Path(path).read_text(encoding="utf-8"))) from None
    return doc, games


def _fail(name: str, where: str, what: str) -> ReplayError:
    return ReplayError(f"{name}: {where}: {what}")


def _need(name: str, obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise _fail(name, f"{where}.{key}" if where else key, "missing")
    value = obj[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        ok = False
    else:
        ok = isinstance(value, kind)
    if not ok:
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise _fail(name, f"{where}.{key}" if where else key, f"expected {names}, got {value!r}"[:300])
    return value


def _seat(name: str, value: Any, where: str, n: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise _fail(name, where, f"expected a seat 0..{n - 1}, got {value!r}")


def _check_document(doc: Any, name: str) -> None:
    if not isinstance(doc, dict):
        raise _fail(name, "top level", f"expected a JSON object, got {type(doc).__name__}")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise _fail(name, "format", f"expected {FORMAT!r}, got {fmt!r}: not a chuanma replay file")
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise _fail(
            name,
            "format_version",
            f"the file is format version {version!r}; this chuanma reads format version {FORMAT_VERSION}",
        )
    rules = doc.get("rules_version")
    if rules != RULES_VERSION:
        raise _fail(
            name,
            "rules_version",
            f"the file was played under rules version {rules!r}; this engine implements rules version "
            f"{RULES_VERSION!r} (docs/RULES.md)",
        )
    layout = doc.get("action_layout")
    if layout != ACTION_LAYOUT_VERSION:
        raise _fail(
            name,
            "action_layout",
            f"the file names action layout {layout!r}; this chuanma uses {ACTION_LAYOUT_VERSION!r}",
        )
    config = _need(name, doc, "config", dict, "")
    try:
        cfg = config_from_json(config)
    except (ConfigError, TypeError, ValueError) as exc:
        raise _fail(name, "config", f"not a valid rule configuration: {exc}") from None
    n = cfg.num_players
    _need(name, doc, "variant", str, "")
    players = _need(name, doc, "players", list, "")
    if len(players) != n or not all(isinstance(p, str) for p in players):
        raise _fail(name, "players", f"expected {n} player names, got {players!r}"[:300])
    hands = _need(name, doc, "hands", list, "")
    if not hands:
        raise _fail(name, "hands", "no hands")
    for h, hand in enumerate(hands):
        where = f"hands[{h}]"
        if not isinstance(hand, dict):
            raise _fail(name, where, f"expected an object, got {type(hand).__name__}")
        _need(name, hand, "hand_index", int, where)
        _need(name, hand, "dealer", int, where)
        _seat(name, hand["dealer"], f"{where}.dealer", n)
        wall = _need(name, hand, "wall", list, where)
        for i, t in enumerate(wall):
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < 34:
                raise _fail(name, f"{where}.wall[{i}]", f"expected a tile kind 0..33, got {t!r}")
        _need(name, hand, "result", dict, where)
        events = _need(name, hand, "events", list, where)
        if not events:
            raise _fail(name, f"{where}.events", "no events")
        for i, ev in enumerate(events):
            ew = f"{where}.events[{i}]"
            if not isinstance(ev, dict):
                raise _fail(name, ew, f"expected an object, got {type(ev).__name__}")
            _need(name, ev, "type", str, ew)
            for key in ("seat", "from_seat", "payer", "receiver"):
                if key in ev:
                    _seat(name, ev[key], f"{ew}.{key}", n)
            scores = _need(name, ev, "scores", list, ew)
            if len(scores) != n or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
                raise _fail(name, f"{ew}.scores", f"expected {n} integer scores, got {scores!r}"[:300])
            if "agent" in ev:
                _check_agent(name, ev, ew)
        if events[0]["type"] != "hand_start":
            raise _fail(name, f"{where}.events[0].type", f"expected 'hand_start', got {events[0]['type']!r}")
        if events[-1]["type"] != "hand_end":
            raise _fail(
                name,
                f"{where}.events[{len(events) - 1}].type",
                f"expected 'hand_end' (the last event), got {events[-1]['type']!r}: the hand is incomplete",
            )


def _check_agent(name: str, ev: Mapping[str, Any], where: str) -> None:
    if ev["type"] != "action":
        raise _fail(name, f"{where}.agent", f"agent data belongs on 'action' events, not on {ev['type']!r}")
    entries = ev["agent"]
    if not isinstance(entries, list):
        raise _fail(name, f"{where}.agent", f"expected a list of objects, got {entries!r}"[:300])
    for j, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _fail(name, f"{where}.agent[{j}]", f"expected an object, got {entry!r}"[:300])
        probs = entry.get("probs")
        if probs is None:
            continue
        if not isinstance(probs, dict):
            raise _fail(name, f"{where}.agent[{j}].probs", f"expected an object, got {probs!r}"[:300])
        for k, p in probs.items():
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise _fail(name, f"{where}.agent[{j}].probs[{k!r}]", f"expected a probability 0..1, got {p!r}")


def config_from_json(data: Mapping[str, Any]) -> RuleConfig:
    """The :class:`RuleConfig` of a replay's ``config`` object (every flag checked as in a variant file)."""
    return config_from_dict(dict(data), source="the replay's config")


# ---- checking against the engine ---------------------------------------------------------------------------------
def engine_events(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A replay file's events as the engine logged them (without the file's ``scores`` and ``agent`` keys)."""
    return [{k: v for k, v in ev.items() if k not in _EXTRA_KEYS} for ev in events]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 240 else text[:237] + "..."


def verify_replay(doc: Mapping[str, Any], *, name: str = "replay") -> list[Game]:
    """Play every hand of a (loaded) replay again through the engine; returns the finished games.

    ``ReplayError`` names the first thing the engine does not reproduce: an event (``hands[h].events[i]``, with
    both versions), the per-event scores, the seed commitment, the wall, or the result.
    """
    cfg = config_from_json(doc["config"])
    if cfg.name != doc["variant"]:
        raise _fail(name, "variant", f"{doc['variant']!r} but the config is named {cfg.name!r}")
    games = []
    for h, hand in enumerate(doc["hands"]):
        where = f"hands[{h}]"
        events = hand["events"]
        start = events[0]
        if start.get("config") != doc["config"]:
            raise _fail(name, f"{where}.events[0].config", "differs from the file's config")
        for key in ("dealer", "wall", "seed"):
            if start.get(key) != hand.get(key):
                raise _fail(
                    name, f"{where}.{key}", f"{_short(hand.get(key))} but hand_start says {_short(start.get(key))}"
                )
        seed = seed_from_json(hand.get("seed"))
        if seed is not None:
            if hand.get("commitment") != commitment(seed):
                raise _fail(name, f"{where}.commitment", "does not match the seed (承诺 check failed)")
            try:
                dealt = verify_deal(seed, hand["commitment"], hand["wall"], cfg)
            except ValueError as exc:
                raise _fail(name, f"{where}.seed", str(exc)) from None
            if not dealt:
                raise _fail(name, f"{where}.wall", "is not the wall the seed deals")
        try:
            game = replay(engine_events(events))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise _fail(name, f"{where}.events", f"the engine cannot replay them: {exc}") from None
        expected = annotate_scores(game.events, game.n)
        mine = [{k: v for k, v in ev.items() if k != "agent"} for ev in events]
        for i, (got, want) in enumerate(zip(mine, expected)):
            if got != want:
                raise _fail(
                    name, f"{where}.events[{i}]", f"the file has {_short(got)} but the engine gives {_short(want)}"
                )
        if len(mine) != len(expected):
            raise _fail(
                name,
                f"{where}.events",
                f"the file has {len(mine)} events but the engine gives {len(expected)}",
            )
        want_result = _result(game.events, game)
        if hand["result"] != want_result:
            raise _fail(
                name,
                f"{where}.result",
                f"the file has {_short(hand['result'])} but the engine gives {_short(want_result)}",
            )
        games.append(game)
    return games
