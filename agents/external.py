"""Outside bots (外部机器人): a JSON-lines protocol over stdin/stdout, and :class:`ExternalAgent` that speaks it.

A bot written in any language plays through this protocol: the evaluator starts it as a child process, writes one
JSON object per line to its **stdin** and reads one line per decision from its **stdout** (UTF-8, ``\\n``-terminated;
the bot must flush after each line).  Stdout is for replies only; anything the bot writes to **stderr** is kept
(the last lines in memory for error messages, all of it in the file ``stderr=PATH`` when one is given).
``agents/examples/random_bot.py`` is a complete bot that imports nothing from this project.

Protocol ``chuanma-bot/1``
--------------------------
Messages to the bot (field ``type``); only ``decide`` expects an answer:

``hello`` — once, when the process starts::

    {"type": "hello", "protocol": "chuanma-bot/1", "observation": "chuanma-v1",
     "actions": "chuanma-actions-v0", "planes": [["hand", 4], ["drawn_tile", 1], ...]}

``new_hand`` — before every hand::

    {"type": "new_hand", "seat": 2, "variant": "hongzhong", "num_players": 4, "rules": {...every rule flag...}}

``decide`` — one per decision (each 换三张 pick is a decision)::

    {"type": "decide", "id": 17,
     "events": [ ...the events this seat may see since its previous decision (see Game.events_for)... ],
     "observation": {"hand": [[0, 1, ...34 values], [...], [...], [...]], "drawn_tile": [...34 values], ...},
     "legal": [{"id": 0, "name": "discard 1m"}, {"id": 69, "name": "hu"}, ...]}

  ``observation`` holds every plane group of :mod:`envs.engine.observation` by name (a group of one row is a list of 34
  numbers, a larger group a list of rows); seat slots are relative (slot 0 = the bot).  ``legal`` lists the action
  ids allowed now with their names (the flat layout of :mod:`envs.core.actions`).

``end_hand`` — after every hand: ``{"type": "end_hand", "events": [...], "scores": [3, -1, -1, -1]}``.

The bot answers a ``decide`` with one line ``{"id": 17, "action": 5}``: the request's ``id`` echoed back, so that
every reply is matched to the decision it answers.  A line that answers nothing — a banner, a debug print, a reply
to a decision already answered or not yet asked — is counted as ``garbage`` and skipped: it never shifts later
replies onto the wrong decision.  A bare integer line (``5``) is still accepted as the answer to the current
decision, but it cannot be told apart from a stray number, so bots should send the ``id``.  The bot should exit
when its stdin closes.

Faults
------
The evaluation never hangs because of a bot, and never scores a bot that does not play:

* The decision is played by the **fallback** when the reply is late (``timeout`` seconds: ``timeout``), the answer
  to this decision is not an integer action (``garbage``), names an action the mask forbids (``illegal``), the
  process died after answering at least once (``crash``) or flooded its stdout (``flood``: more than
  :data:`MAX_UNREAD_LINES` unread lines, or a line longer than :data:`MAX_LINE_BYTES` bytes; the reader never holds
  more, and the bot is killed).  The fallback is ``"first"`` (the lowest legal id), ``"random"`` (uniform, seeded),
  an agent specification such as ``"greedy"`` (:mod:`agents.registry`) or any agent object.  A crashed or flooding
  bot is restarted at the next hand (``restart=True``) or stays on the fallback.
* A bot that **cannot start** — the command is missing, or the process exits before it has answered its first
  decision (a missing script, a syntax error) — raises :class:`BotError` (``kind="start"``) with the exit status
  and the last lines of its stderr.
* After ``max_timeouts`` timeouts **in a row** the bot is declared **dead** and killed: :class:`BotError`
  (``kind="dead"``) with ``on_dead="fail"`` (the default), or with ``on_dead="fallback"`` the fallback plays every
  later decision (no restarts) and ``faults["dead"]`` is 1.

Messages are written to the bot's stdin from a thread, so a bot that stops reading them cannot block the
evaluator: its decisions time out (and more than :data:`MAX_UNSENT_MESSAGES` unread messages get it killed).

Every fault is counted in :attr:`ExternalAgent.faults` (with ``decisions``, ``fallback`` moves, ``restarts``).
A reply that arrives after its deadline is dropped when it comes (matched by its ``id``; a bare integer is taken
as the answer to the oldest timed-out decision).
"""

from __future__ import annotations

import collections
import contextlib
import json
import queue
import shlex
import subprocess
import threading
import time
import weakref
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from agents.base import BaseAgent, legal_ids
from envs.core.actions import ACTION_LAYOUT_VERSION, action_name
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS
from envs.engine.observation import OBS_VERSION, PLANES, decode

__all__ = [
    "FAULT_KINDS",
    "MAX_LINE_BYTES",
    "MAX_UNREAD_LINES",
    "MAX_UNSENT_MESSAGES",
    "PROTOCOL",
    "BotError",
    "ExternalAgent",
    "observation_from_message",
    "observation_message",
]

PROTOCOL = "chuanma-bot/1"
FAULT_KINDS = ("timeout", "garbage", "illegal", "crash", "flood")
MAX_LINE_BYTES = 65_536  # a reply is a few dozen bytes; a longer stdout line is a flood
MAX_UNREAD_LINES = 256  # stdout lines read but not yet consumed; more is a flood
MAX_UNSENT_MESSAGES = 64  # messages the bot has not read from its stdin; more and it is killed
STDERR_TAIL_LINES = 20  # stderr lines kept in memory for error messages
STDERR_FILE_LIMIT = 8 * 2**20  # bytes of one process's stderr written to the stderr file
_EOF = object()
_BAD_ACTION = object()


class BotError(RuntimeError):
    """An outside bot that cannot be used: it could not start (``kind="start"``) or was declared dead
    (``kind="dead"``).  ``bot`` is the bot's label, ``stderr_tail`` the last lines of its stderr."""

    def __init__(self, message: str, *, bot: str, kind: str, stderr_tail: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.bot = bot
        self.kind = kind
        self.stderr_tail = tuple(stderr_tail)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_bot_error, (str(self), self.bot, self.kind, self.stderr_tail))


def _make_bot_error(message: str, bot: str, kind: str, stderr_tail: Sequence[str]) -> BotError:
    return BotError(message, bot=bot, kind=kind, stderr_tail=stderr_tail)


def observation_message(observation: np.ndarray) -> dict[str, Any]:
    """The ``observation`` field of a ``decide`` message: every plane group by name as nested lists."""
    views = decode(np.asarray(observation))
    out: dict[str, Any] = {}
    for name, view in views.items():
        whole = np.isfinite(view).all() and (view == np.round(view)).all()
        out[name] = view.astype(np.int64).tolist() if whole else _compact(view.tolist())
    return out


def observation_from_message(fields: dict[str, Any]) -> np.ndarray:
    """The observation array ``(C, 34)`` float32 of a ``decide`` message's ``observation`` field (the inverse of
    :func:`observation_message`); ``ValueError`` names a missing or misshapen plane group."""
    rows = []
    for group in PLANES:
        if group.name not in fields:
            raise ValueError(f"observation message lacks the plane group {group.name!r}")
        block = np.asarray(fields[group.name], dtype=np.float32).reshape(-1, NUM_KINDS)
        if block.shape[0] != group.rows:
            raise ValueError(f"plane group {group.name!r} has {block.shape[0]} rows, expected {group.rows}")
        rows.append(block)
    return np.concatenate(rows)


def _compact(values: Any) -> Any:
    if isinstance(values, list):
        return [_compact(v) for v in values]
    if isinstance(values, float) and values.is_integer():
        return int(values)
    return values


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)


class _StdoutReader:
    """Reads the bot's stdout on a thread into a queue of at most :data:`MAX_UNREAD_LINES` decoded lines.

    A longer backlog or a line over :data:`MAX_LINE_BYTES` bytes is a flood: ``flood`` says which, the process is
    killed and reading stops, so the memory held never exceeds the two bounds.  The queue ends with ``_EOF``."""

    def __init__(self, stream: IO[bytes], proc: subprocess.Popen) -> None:
        self.lines: queue.Queue = queue.Queue()
        self.flood: str | None = None
        self._stream = stream
        self._proc = proc
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                raw = self._stream.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    self.flood = f"a stdout line longer than {MAX_LINE_BYTES} bytes"
                    break
                if self.lines.qsize() >= MAX_UNREAD_LINES:
                    self.flood = f"more than {MAX_UNREAD_LINES} unread stdout lines"
                    break
                self.lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        finally:
            if self.flood is not None:
                _kill(self._proc)
            self.lines.put(_EOF)


class _StdinWriter:
    """Writes messages to the bot's stdin on a thread, so that a bot that stops reading can never block the
    evaluator (its decisions time out instead).  More than :data:`MAX_UNSENT_MESSAGES` waiting messages means
    the bot has stopped reading: it is killed.  ``broken`` is set once the pipe fails or that happens."""

    def __init__(self, stream: IO[bytes], proc: subprocess.Popen) -> None:
        self.broken = False
        self._stream = stream
        self._proc = proc
        self._pending: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, data: bytes) -> bool:
        if self.broken:
            return False
        if self._pending.qsize() >= MAX_UNSENT_MESSAGES:
            self.broken = True
            _kill(self._proc)
            return False
        self._pending.put(data)
        return True

    def close(self) -> None:
        """Close stdin once the waiting messages are written."""
        self._pending.put(_EOF)

    def _run(self) -> None:
        try:
            while True:
                data = self._pending.get()
                if data is _EOF:
                    break
                self._stream.write(data)
                self._stream.flush()
        except (OSError, ValueError):
            self.broken = True
        finally:
            with contextlib.suppress(OSError, ValueError):
                self._stream.close()


class _StderrReader:
    """Drains the bot's stderr on a thread: keeps the last lines, and appends everything (up to
    :data:`STDERR_FILE_LIMIT` bytes per process, each line prefixed with the process id) to ``path``."""

    def __init__(self, stream: IO[bytes], path: str | None, pid: int) -> None:
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stream = stream
        self._path = path
        self._prefix = f"[pid {pid}] ".encode()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sink = None
        written = 0
        try:
            if self._path is not None:
                Path(self._path).parent.mkdir(parents=True, exist_ok=True)
                sink = open(self._path, "ab")  # noqa: SIM115
            while True:
                raw = self._stream.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                self.tail.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
                if sink is not None and written <= STDERR_FILE_LIMIT:
                    line = self._prefix + raw + (b"" if raw.endswith(b"\n") else b"\n")
                    if written + len(line) > STDERR_FILE_LIMIT:
                        line = self._prefix + f"[stderr cut at {STDERR_FILE_LIMIT} bytes]\n".encode()
                        written = STDERR_FILE_LIMIT
                    sink.write(line)
                    sink.flush()
                    written += len(line)
        except (OSError, ValueError):
            pass
        finally:
            if sink is not None:
                sink.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


class ExternalAgent(BaseAgent):
    """An outside bot behind the agent interface (see the module docstring for the protocol and the faults).

    ``command`` is a shell-like string (split with :func:`shlex.split`) or an argument list.  ``timeout`` is the
    per-decision deadline in seconds.  ``fallback`` plays when the bot fails.  ``seed`` seeds the ``"random"``
    fallback.  ``stderr`` names a file the bot's stderr is appended to (default: only the last lines are kept, in
    memory).  ``max_timeouts`` timeouts in a row declare the bot dead; ``on_dead`` is ``"fail"`` (raise
    :class:`BotError`) or ``"fallback"`` (the fallback plays the rest).
    """

    name = "external"

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 5.0,
        fallback: Any = "first",
        name: str | None = None,
        seed: int = 0,
        restart: bool = True,
        cwd: str | Path | None = None,
        stderr: str | Path | None = None,
        max_timeouts: int = 3,
        on_dead: str = "fail",
    ) -> None:
        super().__init__()
        args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not args:
            raise ValueError(f"ExternalAgent needs a command to run, got {command!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if isinstance(max_timeouts, bool) or not isinstance(max_timeouts, int) or max_timeouts < 1:
            raise ValueError(f"max_timeouts must be a positive int, got {max_timeouts!r}")
        if on_dead not in ("fail", "fallback"):
            raise ValueError(f"on_dead must be 'fail' or 'fallback', got {on_dead!r}")
        self.args = args
        self.timeout = float(timeout)
        self.label = name or " ".join(args)
        self.restart = restart
        self.cwd = None if cwd is None else str(cwd)
        self.stderr_path = None if stderr is None else str(stderr)
        self.max_timeouts = max_timeouts
        self.on_dead = on_dead
        self.faults: Counter[str] = Counter()
        self.dead_reason: str | None = None
        self._fallback_spec = fallback
        self._fallback = self._make_fallback(fallback, seed)
        self._proc: subprocess.Popen | None = None
        self._out: _StdoutReader | None = None
        self._in: _StdinWriter | None = None
        self._err: _StderrReader | None = None
        self._dead = False  # the current process is gone (crash, flood) until the next restart
        self._answered = False  # the current process has answered a decision
        self._in_row = 0  # consecutive timeouts
        self._next_id = 0
        self._unanswered: collections.deque[int] = collections.deque(maxlen=1024)  # timed-out decision ids
        self._events: list[dict[str, Any]] = []
        self._finalizer: weakref.finalize | None = None

    # ---- fallback ------------------------------------------------------------------------------------------------
    @staticmethod
    def _make_fallback(fallback: Any, seed: int) -> Any:
        if fallback == "first":
            return None
        if fallback == "random":
            from agents.random_agent import RandomAgent

            return RandomAgent(seed=seed)
        if isinstance(fallback, str):
            from agents.registry import make_agent, parse_spec

            spec = parse_spec(fallback)
            if spec.kind == "external":
                raise ValueError("an outside bot cannot be the fallback of another outside bot")
            return make_agent(spec, seed)
        if hasattr(fallback, "act"):
            return fallback
        raise ValueError(f"fallback must be 'first', 'random', an agent name or an agent object, got {fallback!r}")

    def _fallback_action(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        self.faults["fallback"] += 1
        if self._fallback is None:
            return int(legal_ids(legal_mask)[0])
        return int(self._fallback.act(observation, legal_mask))

    # ---- process -------------------------------------------------------------------------------------------------
    def _start(self) -> None:
        try:
            proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                start_new_session=True,  # a Ctrl-C at the terminal reaches the evaluator, which stops the bot
            )
        except OSError as exc:
            self._proc = None
            self._dead = True
            raise BotError(f"outside bot {self.label!r} could not start: {exc}", bot=self.label, kind="start") from None
        self._proc = proc
        assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None  # all three are PIPEs
        self._out = _StdoutReader(proc.stdout, proc)
        self._in = _StdinWriter(proc.stdin, proc)
        self._err = _StderrReader(proc.stderr, self.stderr_path, proc.pid)
        self._unanswered.clear()
        self._dead = False
        self._answered = False
        self._finalizer = weakref.finalize(self, _kill, proc)
        self._send(
            {
                "type": "hello",
                "protocol": PROTOCOL,
                "observation": OBS_VERSION,
                "actions": ACTION_LAYOUT_VERSION,
                "planes": [[g.name, g.rows] for g in PLANES],
            }
        )

    def _send(self, message: dict[str, Any]) -> bool:
        if self._proc is None or self._dead or self._in is None:
            return False
        if self._in.send(json.dumps(message, separators=(",", ":")).encode() + b"\n"):
            return True
        self._lost()
        return False

    def _lost(self) -> None:
        """The process closed its stdout or stdin: a flood, a crash, or (before any answer) a failed start."""
        proc = self._proc
        if proc is None or self._dead:
            return
        self._dead = True
        flood = self._out.flood if self._out is not None else None
        if flood is not None:
            self.faults["flood"] += 1
            _kill(proc)
            return
        if not self._answered:
            try:
                status: Any = proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                _kill(proc)
                status = "still running: its stdout was closed"
            if self._err is not None:
                self._err.join(2.0)
            raise BotError(
                f"outside bot {self.label!r} exited before answering its first decision (exit status {status})"
                + self._tail_text(),
                bot=self.label,
                kind="start",
                stderr_tail=self.stderr_tail(),
            )
        self.faults["crash"] += 1
        _kill(proc)
        if self._err is not None:
            self._err.join(1.0)  # its last words, for the evaluator's report

    def stderr_tail(self) -> list[str]:
        """The last lines the bot (its latest process) wrote to stderr."""
        return [] if self._err is None else list(self._err.tail)

    def _tail_text(self) -> str:
        tail = self.stderr_tail()
        text = ""
        if tail:
            text = "\nlast lines of its stderr:\n" + "\n".join(f"    {line}" for line in tail[-10:])
        else:
            text = "\nit wrote nothing to stderr"
        if self.stderr_path is not None:
            text += f"\n(all of its stderr: {self.stderr_path})"
        return text

    @property
    def alive(self) -> bool:
        """Whether the bot process is running and answering."""
        return self._proc is not None and not self._dead and self._proc.poll() is None

    def close(self) -> None:
        """Close the bot's stdin, give it a moment to exit, then kill it."""
        proc = self._proc
        if proc is None:
            return
        if self._in is not None:
            self._in.close()
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            _kill(proc)
        self._proc = None
        self._dead = True

    def kill(self) -> None:
        """Stop the bot process now (an interrupted evaluation)."""
        proc = self._proc
        if proc is not None:
            _kill(proc)
        self._proc = None
        self._dead = True

    # ---- agent interface ----------------------------------------------------------------------------------------
    def reset(self, seat: int, variant: RuleConfig) -> None:
        super().reset(seat, variant)
        if self._fallback is not None and hasattr(self._fallback, "reset"):
            self._fallback.reset(seat, variant)
        self._events = []
        if self.dead_reason is not None:
            return
        if self._proc is None or (self._dead and self.restart):
            if self._proc is not None:
                self.faults["restarts"] += 1
                self.close()
            self._start()
        self._send(
            {
                "type": "new_hand",
                "seat": seat,
                "variant": variant.name,
                "num_players": variant.num_players,
                "rules": variant.to_dict(),
            }
        )

    def feed_events(self, events: list[dict[str, Any]]) -> None:
        """Events this seat may see, delivered with the next ``decide`` message."""
        for ev in events:
            self._events.append({k: v for k, v in ev.items() if k not in ("visible_to", "redact")})

    def end_hand(self, scores: list[int]) -> None:
        """Send ``end_hand`` with the remaining events and the hand's scores."""
        self._send({"type": "end_hand", "events": self._events, "scores": list(scores)})
        self._events = []

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        ids = legal_ids(legal_mask)
        self.faults["decisions"] += 1
        if self.dead_reason is not None:
            return self._fallback_action(observation, legal_mask)
        if self._proc is None and not self._dead:
            self._start()
        decision = self._next_id
        self._next_id += 1
        message = {
            "type": "decide",
            "id": decision,
            "events": self._events,
            "observation": observation_message(observation),
            "legal": [{"id": int(i), "name": action_name(int(i))} for i in ids],
        }
        self._events = []
        if not self._send(message):
            return self._fallback_action(observation, legal_mask)
        reply = self._await(decision)
        if reply is None:
            return self._fallback_action(observation, legal_mask)
        if not 0 <= reply < legal_mask.shape[0] or not legal_mask[reply]:
            self.faults["illegal"] += 1
            return self._fallback_action(observation, legal_mask)
        return reply

    @staticmethod
    def _parse(text: str) -> tuple[int | None, Any] | None:
        """``(reply id or None, action)`` of a reply line, or ``None`` when the line is no reply at all."""
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if isinstance(data, int) and not isinstance(data, bool):
            return None, data
        if not isinstance(data, dict):
            return None
        action = data.get("action", _BAD_ACTION)
        if isinstance(action, bool) or not isinstance(action, int):
            action = _BAD_ACTION
        reply_id = data.get("id")
        if reply_id is None:
            return None if action is _BAD_ACTION else (None, action)
        if isinstance(reply_id, bool) or not isinstance(reply_id, int):
            return None
        return reply_id, action

    def _await(self, decision: int) -> int | None:
        """The bot's action for ``decision``, or ``None`` after counting a fault."""
        assert self._out is not None
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._timed_out(decision)
                return None
            try:
                line = self._out.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is _EOF:
                self._lost()
                return None
            text = line.strip()
            if not text:
                continue
            reply = self._parse(text)
            if reply is None:  # answers nothing: skipped, the stream stays in step
                self.faults["garbage"] += 1
                continue
            reply_id, action = reply
            if reply_id is None:
                if self._unanswered:  # a bare late reply answers the oldest timed-out decision
                    self._unanswered.popleft()
                    continue
            elif reply_id != decision:
                if reply_id in self._unanswered:  # the late answer of an earlier decision
                    self._unanswered.remove(reply_id)
                else:  # a decision already answered, or never asked
                    self.faults["garbage"] += 1
                continue
            self._answered = True
            self._in_row = 0
            if action is _BAD_ACTION:
                self.faults["garbage"] += 1
                return None
            return action

    def _timed_out(self, decision: int) -> None:
        self.faults["timeout"] += 1
        self._unanswered.append(decision)
        self._in_row += 1
        if self._in_row < self.max_timeouts:
            return
        self.faults["dead"] += 1
        self.dead_reason = (
            f"outside bot {self.label!r} did not answer {self._in_row} decisions in a row (timeout {self.timeout:g} s "
            f"each) and was declared dead"
        )
        if self._proc is not None:
            _kill(self._proc)
        self._dead = True
        if self._err is not None:
            self._err.join(1.0)
        if self.on_dead == "fail":
            raise BotError(
                self.dead_reason + self._tail_text(), bot=self.label, kind="dead", stderr_tail=self.stderr_tail()
            )

    def __repr__(self) -> str:
        return f"ExternalAgent({self.label!r})"
