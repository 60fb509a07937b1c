"""Export a replay to mjai-style JSON lines (``chuanma replay FILE --mjai OUT.jsonl``).

mjai (the riichi bot protocol) writes one JSON object per line.  The standard events used here: ``start_game``
(``names``), ``start_kyoku`` (``oya`` the dealer, ``scores`` the match totals, ``tehais`` the dealt hands; the
riichi-only fields ``bakaze``/``kyoku``/``honba``/``kyotaku``/``dora_marker`` are written as ``"E"``, the hand number,
0, 0 and ``null``), ``tsumo`` (``actor``, ``pai``), ``dahai`` (``actor``, ``pai``, ``tsumogiri``), ``pon``,
``daiminkan``, ``ankan``, ``kakan`` and ``chi`` (``actor``, ``target``, ``pai``, ``consumed``), ``hora`` (``actor``,
``target``, ``pai``, ``deltas``), ``ryukyoku`` (``deltas``), ``end_kyoku`` and ``end_game``.  Tiles are mjai names:
``1m``..``9m``, ``1p``..``9p``, ``1s``..``9s``, ``E S W N`` and ``P F C`` (白 發 中).

Sichuan rules have no riichi counterpart for three things, written as extension events whose type starts with
``sc_`` (a riichi client can skip them):

* ``{"type": "sc_exchange", "actor": 0, "given": [...], "received": [...], "target": 2}`` — 换三张: the three tiles
  ``actor`` passed on and the three it received from ``target``, after ``sc_exchange_direction``
  (``{"type": "sc_exchange_direction", "offset": 2}``: receiver = giver + offset);
* ``{"type": "sc_dingque", "actor": 0, "suit": "p"}`` — 定缺: the suit each seat declared void;
* ``{"type": "sc_hora", "actor": 1, "target": 3, "pai": "5s", "deltas": [...], "how": "dianpao", "fans": {...},
  "win_index": 1}`` — a later win of 血战/血流 after which play goes on.  The first win of a hand is a standard
  ``hora`` (with the same ``how``, ``fans`` and ``win_index`` fields added); every win after it is ``sc_hora``.
  ``deltas`` are the transfers that the win caused.

Transfers that are not part of a win (杠 payments, 查叫, 退税) are ``{"type": "sc_transfer", "payer", "receiver",
"amount", "reason"}``; the hand's net result per seat is in the ``end_kyoku`` extension field ``sc_scores``.
Events of the rule variants that mjai has no name for (飞, 提, 红中杠, 报胡, ...) are written as ``sc_<type>``
with the engine's fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from envs.core.tiles import NUM_SUITED

__all__ = ["mjai_events", "mjai_tile", "write_mjai"]

_HONORS = ("E", "S", "W", "N", "C", "F", "P")  # kinds 27..33: 东南西北 then 中 发 白 (envs.core.tiles)
_SKIP = ("action", "claims_resolved", "rob_resolved", "play_start", "hand_start", "visible_to", "redact")


def mjai_tile(kind: int) -> str:
    """The mjai name of a tile kind: ``5m``, ``E``, ``C`` (红中); ``?`` for a hidden tile (a concealed kong)."""
    if kind < 0:
        return "?"
    if kind < NUM_SUITED:
        return f"{kind % 9 + 1}{'mps'[kind // 9]}"
    return _HONORS[kind - NUM_SUITED]


def _strip(ev: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k not in ("type", "visible_to", "redact", "scores", "agent")}


def mjai_events(doc: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The mjai-style events of a (checked) replay document, in order (see the module docstring)."""
    n = len(doc["players"])
    yield {"type": "start_game", "names": list(doc["players"]), "sc_variant": doc["variant"]}
    for hand in doc["hands"]:
        events = hand["events"]
        start = events[0]
        deals = {ev["seat"]: ev["tiles"] for ev in events if ev["type"] == "deal"}
        yield {
            "type": "start_kyoku",
            "bakaze": "E",
            "kyoku": hand["hand_index"] + 1,
            "honba": 0,
            "kyotaku": 0,
            "oya": hand["dealer"],
            "dora_marker": None,
            "scores": list(start.get("match_points") or [doc["config"].get("start_points", 0)] * n),
            "tehais": [[mjai_tile(k) for k in deals.get(s, [])] for s in range(n)],
        }
        last_draw: dict[int, int] = {}
        last_discard = -1
        win_count = 0
        i = 1
        while i < len(events):
            ev = events[i]
            t = ev["type"]
            if t in ("deal", *_SKIP):
                pass
            elif t == "exchange":
                yield {
                    "type": "sc_exchange",
                    "actor": ev["seat"],
                    "given": [mjai_tile(k) for k in ev["given"]],
                    "received": [mjai_tile(k) for k in ev["received"]],
                    "target": ev["from_seat"],
                }
            elif t == "exchange_direction":
                yield {"type": "sc_exchange_direction", "offset": ev["offset"]}
            elif t == "dingque":
                for s, v in enumerate(ev["voids"]):
                    if v is not None:
                        yield {"type": "sc_dingque", "actor": s, "suit": "mps"[v]}
            elif t == "draw":
                last_draw[ev["seat"]] = ev["tile"]
                yield {"type": "tsumo", "actor": ev["seat"], "pai": mjai_tile(ev["tile"])}
            elif t == "discard":
                last_discard = ev["tile"]
                yield {
                    "type": "dahai",
                    "actor": ev["seat"],
                    "pai": mjai_tile(ev["tile"]),
                    "tsumogiri": last_draw.pop(ev["seat"], None) == ev["tile"],
                }
            elif t == "pong":
                p = mjai_tile(ev["tile"])
                yield {"type": "pon", "actor": ev["seat"], "target": ev["from_seat"], "pai": p, "consumed": [p, p]}
            elif t == "kong":
                p = mjai_tile(ev["tile"])
                kind = ev.get("kind", "kong")
                if kind == "ankong":
                    yield {"type": "ankan", "actor": ev["seat"], "consumed": [p] * 4}
                elif kind == "bukong":
                    yield {"type": "kakan", "actor": ev["seat"], "pai": p, "consumed": [p] * 3}
                else:
                    yield {
                        "type": "daiminkan",
                        "actor": ev["seat"],
                        "target": ev.get("from_seat"),
                        "pai": p,
                        "consumed": [p] * 3,
                    }
            elif t == "chi" and isinstance(ev.get("run"), list):
                taken = last_discard
                consumed = list(ev["run"])
                if taken in consumed:
                    consumed.remove(taken)
                yield {
                    "type": "chi",
                    "actor": ev["seat"],
                    "target": ev["from_seat"],
                    "pai": mjai_tile(taken),
                    "consumed": [mjai_tile(k) for k in consumed],
                }
            elif t == "win":
                deltas = [0] * n
                j = i + 1
                while j < len(events) and events[j]["type"] == "transfer":
                    tr = events[j]
                    deltas[tr["payer"]] -= tr["amount"]
                    deltas[tr["receiver"]] += tr["amount"]
                    j += 1
                from_seat = ev.get("from_seat")
                yield {
                    "type": "hora" if win_count == 0 else "sc_hora",
                    "actor": ev["seat"],
                    "target": ev["seat"] if from_seat is None else from_seat,
                    "pai": mjai_tile(ev["tile"]),
                    "deltas": deltas,
                    "how": ev["how"],
                    "fans": ev.get("breakdown", {}),
                    "win_index": win_count,
                }
                win_count += 1
                i = j
                continue
            elif t == "transfer":
                yield {"type": "sc_transfer", **_strip(ev)}
            elif t == "hand_end":
                if ev.get("exhausted") and win_count == 0:
                    yield {"type": "ryukyoku", "deltas": list(ev["scores"])}
                yield {"type": "end_kyoku", "sc_scores": list(ev["scores"])}
            else:
                yield {"type": f"sc_{t}", **_strip(ev)}
            i += 1
    yield {"type": "end_game"}


def write_mjai(doc: Mapping[str, Any], path: str | Path) -> Path:
    """Write :func:`mjai_events` of ``doc`` to ``path``, one JSON object per line; returns the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for ev in mjai_events(doc):
            fh.write(json.dumps(ev, ensure_ascii=False) + "\n")
    return out
