"""The browser replay viewer (牌谱查看器): one self-contained HTML page per replay file (``chuanma replay --html``).

:func:`viewer_frames` plays each hand of a checked replay again through the engine
(:func:`envs.engine.replay.replay_steps`) and records the table after every decision: every seat's hand, melds,
river (discards, claimed ones marked), the live wall count, scores, voids and wins, the decision's text, how many
legal actions the seat had, and the agent data of the replay file.  :func:`write_html` inlines those frames as JSON
together with the page's script and style (package data in ``envs/engine/viewer/``): no network, no server.  The
tiles are drawn by the page as inline SVG (suit colour, rank digit, Chinese character), not from a font.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from envs.core.actions import Action
from envs.core.melds import HIDDEN_TILE, Meld
from envs.core.tiles import NUM_KINDS, chinese_name, counts_to_kinds, tile_code
from envs.engine.game import Game, action_from_dict
from envs.engine.render import MELD_NAMES, render_event
from envs.engine.replay import replay_steps
from envs.engine.replay_file import engine_events
from envs.scoring.patterns import PATTERN_NAMES_ZH

__all__ = ["render_html", "viewer_frames", "write_html"]

_ASSETS = files("envs.engine") / "viewer"


_GLYPHS = re.compile("[\U0001f000-\U0001f02f] ?")


def _plain(text: str) -> str:
    """An event line without the Unicode tile glyphs (few fonts have them; the page draws its own tiles)."""
    return _GLYPHS.sub("", text).strip()


def _seen_by(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """``events`` as ``seat`` may see them (the rule of :meth:`envs.engine.game.Game.events_for`)."""
    out = []
    for ev in events:
        vis = ev.get("visible_to")
        if vis is None or seat in vis:
            out.append({k: v for k, v in ev.items() if k not in ("visible_to", "redact")})
        elif ev.get("redact"):
            drop = set(ev["redact"]) | {"visible_to", "redact"}
            out.append({k: v for k, v in ev.items() if k not in drop})
    return out


def _tile_table() -> list[dict[str, Any]]:
    return [{"code": tile_code(k), "zh": chinese_name(k)} for k in range(NUM_KINDS)]


def _meld(m: Meld) -> dict[str, Any]:
    tiles = [HIDDEN_TILE] * 4 if m.tile == HIDDEN_TILE else list(m.represented())
    wilds = list(m.wild_kinds) or []
    if wilds:
        tiles = tiles[: len(tiles) - len(wilds)] + wilds
    return {"name": MELD_NAMES.get(m.kind, str(m.kind)), "text": str(m), "tiles": tiles, "from": m.from_seat}


def _action_text(action: Action) -> str:
    name = action.type.name.lower()
    if action.tiles:
        return f"{name} {' '.join(tile_code(t) for t in action.tiles)}"
    if action.tile is not None and action.tile >= 0:
        if name == "dingque":
            return f"dingque {'mps'[action.tile]}"
        return f"{name} {tile_code(action.tile)}"
    return name


def _table(game: Game) -> dict[str, Any]:
    n = game.n
    return {
        "phase": game.phase.value,
        "pending": list(game.pending),
        "current": game.current,
        "drawn": game.drawn_tile,
        "hands": [counts_to_kinds(game.hand_of(s)) for s in range(n)],
        "melds": [[_meld(m) for m in game.melds[s]] for s in range(n)],
        "discards": [[[k, bool(c)] for k, c in zip(game.discards[s], game.discard_claimed[s])] for s in range(n)],
        "wall": game.wall_remaining,
        "scores": list(game.scores),
        "void": list(game.void),
        "won": list(game.won),
        "indicator": game.indicator,
    }


def viewer_frames(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per hand of a checked replay: its frames (the table after every decision) and its wins (see the module
    docstring).  Run :func:`envs.engine.replay_file.verify_replay` first: this trusts the file."""
    hands = []
    for hand in doc["hands"]:
        events = hand["events"]
        n = len(doc["players"])
        frames: list[dict[str, Any]] = []
        done = 0
        game: Game | None = None
        legal_before = 0
        for i, game in replay_steps(engine_events(events)):
            end = len(game.events)
            if i == 0:
                frame: dict[str, Any] = {"event": 0, "seat": None, "action": None, "n_legal": 0}
            else:
                ev = events[i]
                frame = {
                    "event": i,
                    "seat": ev["seat"],
                    "action": _action_text(action_from_dict(ev["action"])),
                    "n_legal": legal_before,
                    "visible_to": ev.get("visible_to"),  # a private decision (换三张, 定缺): only these seats see it
                }
                if "agent" in ev:
                    frame["agent"] = ev["agent"]
            new = game.events[done:end]
            shown = [e for e in new if e.get("type") != "action"]
            frame["log"] = [_plain(render_event(e, n)) for e in shown]
            frame["log_seat"] = [[_plain(render_event(e, n)) for e in _seen_by(shown, s)] for s in range(n)]
            frame["wins"] = [e for e in new if e.get("type") == "win"]
            frame["hand_end"] = any(e.get("type") == "hand_end" for e in new)
            frame.update(_table(game))
            frames.append(frame)
            done = end
            # the legal actions of the next decision (its seat is the first pending one the log acts for)
            nxt = next((events[j] for j in range(i + 1, len(events)) if events[j].get("type") == "action"), None)
            legal_before = len(game.legal_actions(nxt["seat"])) if nxt is not None else 0
        assert game is not None
        hands.append(
            {
                "hand_index": hand["hand_index"],
                "dealer": hand["dealer"],
                "commitment": hand.get("commitment"),
                "wall_size": len(hand["wall"]),
                "frames": frames,
                "result": hand["result"],
            }
        )
    return hands


def _asset(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")


def render_html(doc: Mapping[str, Any], *, title: str | None = None) -> str:
    """The viewer page of a checked replay as one HTML string (script, style and data inlined)."""
    data = {
        "title": title or f"chuanma replay: {doc['variant']}",
        "variant": doc["variant"],
        "description": doc["config"].get("description", ""),
        "players": doc["players"],
        "source": doc.get("source"),
        "tiles": _tile_table(),
        "fan_names": dict(PATTERN_NAMES_ZH),
        "hands": viewer_frames(doc),
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    page = _asset("viewer.html")
    page = page.replace("/*__STYLE__*/", _asset("viewer.css"))
    page = page.replace("/*__SCRIPT__*/", _asset("viewer.js"))
    page = page.replace("__TITLE__", _escape(data["title"]))
    return page.replace("__DATA__", payload)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_html(doc: Mapping[str, Any], path: str | Path, *, title: str | None = None) -> Path:
    """Write the viewer page of a checked replay to ``path``; returns the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(doc, title=title), encoding="utf-8")
    return out
