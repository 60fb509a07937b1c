"""The web server of ``chuanma play``: a Starlette app, served by uvicorn on 127.0.0.1, around one :class:`PlayTable`.

Routes:

* ``GET /`` — the play page (``training/play/static/play.html``, package data: one file, no network);
* ``GET /replay.json`` — the record of the hands finished so far (:func:`play_record`), as a download; 409 before
  the first hand is over (a record of a hand in play would show the wall and the other hands);
* ``WS /ws`` — the game.  The server sends ``{"type": "state", ...}`` (:meth:`PlayTable.state`) on connecting and to
  every open page after each change, and ``{"type": "error", "message": ...}`` to the sender of a message it
  refuses.  The page sends JSON text messages:

  ===============================================  =================================================================
  message                                          meaning
  ===============================================  =================================================================
  ``{"type": "act", "action": {"type": "DISCARD",  play one of the legal actions the last state listed (the
  "tile": 4, "tiles": []}}``                       ``action`` of a ``legal`` entry; ``tile`` and ``tiles`` optional)
  ``{"type": "next_hand"}``                        deal the next hand once the hand is over
  ``{"type": "state"}``                            send the state again
  ===============================================  =================================================================

Every message is checked: malformed JSON, a message that is not an object, an unknown type, a malformed action, an
action that is not legal now, a binary frame — each gets an error reply naming what is wrong, and the game and the
server go on.  Messages larger than :data:`MAX_MESSAGE_BYTES` close that connection (uvicorn's limit); the server
stays up.  Decisions are applied one at a time (a lock), the agents' play runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from envs.core.actions import Action, ActionType, exchange
from envs.core.tiles import NUM_KINDS
from envs.engine.replay_file import build_replay, hand_record
from training.play.table import IllegalAction, PlayTable

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MESSAGE_TYPES",
    "MessageError",
    "PlayServer",
    "bind_socket",
    "open_page",
    "page_html",
    "parse_action",
    "parse_message",
    "play_record",
    "running_server",
    "serve",
]

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest WebSocket message the server reads (the page's largest is under 200 bytes)."""

MESSAGE_TYPES = ("act", "next_hand", "state")
"""The ``type`` of every message the page may send (see the module docstring)."""

HOST = "127.0.0.1"


class MessageError(ValueError):
    """A message from the page that the server cannot read; the text says what is wrong with it."""


def play_record(table: PlayTable) -> dict[str, Any]:
    """The replay file of the hands of ``table`` finished so far (:mod:`envs.engine.replay_file`: every hand's
    seed, wall and events, which ``chuanma replay`` checks and shows in the viewer), with the game's ``match_seed``.
    ``ValueError`` before the first hand is over."""
    hands = [hand_record(game, i) for i, game in enumerate(table.finished_games())]
    doc = build_replay(table.cfg, hands, players=table.names, source="play")
    doc["match_seed"] = table.seed
    return doc


def page_html() -> str:
    """The play page (package data)."""
    return (files("training.play") / "static" / "play.html").read_text(encoding="utf-8")


def parse_message(text: str) -> dict[str, Any]:
    """The message object of one text frame; :class:`MessageError` names what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MessageError(f"malformed JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    if not isinstance(data, dict):
        raise MessageError(f"a message must be a JSON object with a 'type', got {type(data).__name__}")
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise MessageError(f"unknown message type {kind!r}; expected one of {list(MESSAGE_TYPES)}")
    return data


def _int_field(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MessageError(f"action field {name!r} must be an integer, got {value!r}")
    return value


def parse_action(data: Any) -> Action:
    """The engine action of an ``act`` message's ``action`` object; :class:`MessageError` names the bad field."""
    if not isinstance(data, dict):
        raise MessageError(f"an 'act' message needs an 'action' object, got {data!r}")
    name = data.get("type")
    if not isinstance(name, str) or name not in ActionType.__members__:
        raise MessageError(f"unknown action type {name!r}; expected one of {list(ActionType.__members__)}")
    unknown = sorted(set(data) - {"type", "tile", "tiles"})
    if unknown:
        raise MessageError(f"action has unknown field(s) {unknown}; expected 'type', 'tile', 'tiles'")
    tile = _int_field(data.get("tile", -1), "tile")
    tiles = data.get("tiles", [])
    if not isinstance(tiles, list) or len(tiles) > 3:
        raise MessageError(f"action field 'tiles' must be a list of at most 3 tile kinds, got {tiles!r}")
    kinds = tuple(_int_field(t, "tiles") for t in tiles)
    if not -1 <= tile < NUM_KINDS or any(not 0 <= k < NUM_KINDS for k in kinds):
        raise MessageError(f"action tile(s) out of range 0..{NUM_KINDS - 1}: tile {tile}, tiles {list(kinds)}")
    if name == "EXCHANGE":
        return exchange(kinds)  # the three tiles in any order
    return Action(ActionType[name], tile, kinds)


class PlayServer:
    """The Starlette app of one table (:attr:`app`); see the module docstring for its routes and messages."""

    def __init__(self, table: PlayTable) -> None:
        self.table = table
        self._lock = asyncio.Lock()
        self._clients: set[WebSocket] = set()
        self.app = Starlette(
            routes=[
                Route("/", self._index),
                Route("/replay.json", self._replay),
                WebSocketRoute("/ws", self._socket),
            ]
        )

    async def _index(self, request: Request) -> HTMLResponse:
        return HTMLResponse(page_html())

    async def _replay(self, request: Request) -> JSONResponse:
        async with self._lock:
            if not self.table.finished_games():
                return JSONResponse({"error": "no hand is finished yet: nothing to download"}, status_code=409)
            record = play_record(self.table)
        name = f"chuanma-{self.table.cfg.name}-seed{self.table.seed}.json"
        return JSONResponse(record, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def _socket(self, ws: WebSocket) -> None:
        await ws.accept()
        self._clients.add(ws)
        try:
            async with self._lock:
                state = await run_in_threadpool(self.table.state)
            await _send(ws, state)
            while True:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                text = frame.get("text")
                if text is None:
                    await _send(ws, _error("binary frames are not read: send JSON text"))
                    continue
                await self._handle(ws, text)
        except WebSocketDisconnect:
            return
        finally:
            self._clients.discard(ws)

    async def _handle(self, ws: WebSocket, text: str) -> None:
        try:
            message = parse_message(text)
            action = parse_action(message.get("action")) if message["type"] == "act" else None
        except MessageError as exc:
            await _send(ws, _error(str(exc)))
            return
        async with self._lock:
            if message["type"] != "state":
                try:
                    await run_in_threadpool(self._apply, message["type"], action)
                except (IllegalAction, ValueError) as exc:
                    await _send(ws, _error(str(exc)))
                    return
                except Exception as exc:  # an agent's or the engine's failure: reported, the server stays up
                    log.exception("play server: %s failed", message["type"])
                    await _send(ws, _error(f"the server failed on {message['type']!r}: {type(exc).__name__}: {exc}"))
                    return
            state = await run_in_threadpool(self.table.state)
        if message["type"] == "state":
            await _send(ws, state)
        else:
            await self._broadcast(state)

    def _apply(self, kind: str, action: Action | None) -> None:
        if kind == "act":
            assert action is not None
            self.table.act(action)
        else:
            self.table.next_hand()

    async def _broadcast(self, message: dict[str, Any]) -> None:
        for client in list(self._clients):
            if not await _send(client, message):
                self._clients.discard(client)


async def _send(ws: WebSocket, message: dict[str, Any]) -> bool:
    """Send ``message``; False when the page has gone away meanwhile (nothing to answer then)."""
    try:
        await ws.send_json(message)
    except (WebSocketDisconnect, RuntimeError, OSError):
        return False
    return True


def _error(message: str) -> dict[str, str]:
    return {"type": "error", "message": message}


def bind_socket(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` 0: a free port); ``ValueError`` names a port in use."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be 0..65535 (0: any free port), got {port!r}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    return sock


def _uvicorn_server(table: PlayTable) -> uvicorn.Server:
    config = uvicorn.Config(PlayServer(table).app, log_level="warning", lifespan="off", ws_max_size=MAX_MESSAGE_BYTES)
    return uvicorn.Server(config)


def _url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{host}:{port}/"


@contextlib.contextmanager
def running_server(table: PlayTable, *, port: int = 0, start_timeout: float = 30.0) -> Iterator[str]:
    """Serve ``table`` from a background thread; yields the page's URL and stops the server on exit."""
    sock = bind_socket(port)
    server = _uvicorn_server(table)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="chuanma-play", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + start_timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the play server did not start")
            time.sleep(0.02)
        yield _url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def open_page(url: str) -> bool:
    """Open ``url`` in the user's browser (:mod:`webbrowser`, from a thread: the server never waits for it).

    On Linux without a graphical display (no ``DISPLAY`` / ``WAYLAND_DISPLAY``, e.g. over SSH) nothing is opened:
    :mod:`webbrowser` would start a text browser in the server's terminal.  Returns whether a browser was asked.
    """
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("chuanma play: no graphical display here: open the address above in a browser", file=sys.stderr)
        return False
    threading.Thread(target=webbrowser.open, args=(url,), name="chuanma-browser", daemon=True).start()
    return True


def serve(table: PlayTable, *, port: int = 0, open_browser: bool = True) -> None:
    """Serve ``table`` until interrupted (Ctrl-C); opens the page in the user's browser unless ``open_browser`` is
    false.  Stops the table's outside bots at the end."""
    sock = bind_socket(port)
    url = _url_of(sock)
    print(f"chuanma play: open {url} (Ctrl-C stops the server)", file=sys.stderr, flush=True)
    try:
        if open_browser:
            open_page(url)
        _uvicorn_server(table).run(sockets=[sock])
    finally:
        sock.close()
        table.close()
