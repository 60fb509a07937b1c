"""Outside bots (外部机器人): a JSON-lines protocol over stdin/stdout, and :class:`ExternalAgent` that speaks it.

A bot written in any language plays through this protocol: the evaluator starts it as a child process, writes one
JSON object per line to its **stdin** and reads one line per decision from its **stdout** (UTF-8, ``\\n``-terminated;
the bot must flush after each line).  Anything the bot writes to **stderr** is ignored (or saved with
``stderr=PATH``).  ``agents/examples/random_bot.py`` is a complete bot that imports nothing from this project.

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

The bot answers a ``decide`` with one line: ``{"id": 17, "action": 5}`` (recommended: the ``id`` lets the evaluator
discard a reply that arrives after its deadline) or just ``5``.  It should exit when its stdin closes.

Faults
------
The evaluation never hangs or crashes because of a bot.  When the reply is late (``timeout`` seconds), is not an
integer action (``garbage``), names an action the mask forbids (``illegal``), or the process has died or closed its
output (``crash``), the **fallback** plays instead: ``"first"`` (the lowest legal id), ``"random"`` (uniform, seeded),
an agent specification such as ``"greedy"`` (:mod:`agents.registry`) or any agent object.  Every fault is counted
in :attr:`ExternalAgent.faults` (with ``decisions``, ``fallback`` moves, ``restarts``); a crashed bot is restarted at
the next hand (``restart=True``) or stays on the fallback.  Late replies are dropped: replies carrying an ``id``
are matched exactly; a bare integer is taken as the answer to the oldest unanswered decision.
"""

from __future__ import annotations

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
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_ids
from envs.core.actions import ACTION_LAYOUT_VERSION, action_name
from envs.core.rule_config import RuleConfig
from envs.engine.observation import OBS_VERSION, PLANES, decode

__all__ = ["FAULT_KINDS", "PROTOCOL", "ExternalAgent", "observation_message"]

PROTOCOL = "chuanma-bot/1"
FAULT_KINDS = ("timeout", "garbage", "illegal", "crash")
_EOF = object()


def observation_message(observation: np.ndarray) -> dict[str, Any]:
    """The ``observation`` field of a ``decide`` message: every plane group by name as nested lists."""
    views = decode(np.asarray(observation))
    out: dict[str, Any] = {}
    for name, view in views.items():
        values = view.tolist()
        out[name] = _compact(values)
    return out


def _compact(values: Any) -> Any:
    if isinstance(values, list):
        return [_compact(v) for v in values]
    if isinstance(values, float) and values.is_integer():
        return int(values)
    return values


def _reader(stream: Any, sink: queue.Queue) -> None:
    try:
        for line in stream:
            sink.put(line)
    except (OSError, ValueError):
        pass
    finally:
        sink.put(_EOF)


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()


class ExternalAgent(BaseAgent):
    """An outside bot behind the agent interface (see the module docstring for the protocol and the faults).

    ``command`` is a shell-like string (split with :func:`shlex.split`) or an argument list.  ``timeout`` is the
    per-decision deadline in seconds.  ``fallback`` plays when the bot fails.  ``seed`` seeds the ``"random"``
    fallback.  ``stderr`` names a file for the bot's stderr (default: discarded).
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
    ) -> None:
        super().__init__()
        args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not args:
            raise ValueError(f"ExternalAgent needs a command to run, got {command!r}")
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.args = args
        self.timeout = float(timeout)
        self.label = name or " ".join(args)
        self.restart = restart
        self.cwd = None if cwd is None else str(cwd)
        self.stderr_path = None if stderr is None else str(stderr)
        self.faults: Counter[str] = Counter()
        self._fallback_spec = fallback
        self._fallback = self._make_fallback(fallback, seed)
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._dead = False
        self._next_id = 0
        self._unanswered: list[int] = []  # ids of decisions whose reply timed out
        self._events: list[dict[str, Any]] = []
        self._finalizer: weakref.finalize | None = None
        self.start_error: str | None = None

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
        err = open(self.stderr_path, "a", encoding="utf-8") if self.stderr_path else subprocess.DEVNULL  # noqa: SIM115
        try:
            proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=self.cwd,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as exc:
            self._dead = True
            self.faults["crash"] += 1
            self._proc = None
            self.start_error = str(exc)
            return
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        self._proc = proc
        self._lines = queue.Queue()
        self._unanswered = []
        self._dead = False
        threading.Thread(target=_reader, args=(proc.stdout, self._lines), daemon=True).start()
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
        proc = self._proc
        if proc is None or self._dead:
            return False
        try:
            proc.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            proc.stdin.flush()
            return True
        except (OSError, ValueError):
            self._crashed()
            return False

    def _crashed(self) -> None:
        if not self._dead:
            self._dead = True
            self.faults["crash"] += 1
        if self._proc is not None:
            _kill(self._proc)

    @property
    def alive(self) -> bool:
        """Whether the bot process is running and answering."""
        return self._proc is not None and not self._dead and self._proc.poll() is None

    def close(self) -> None:
        """Close the bot's stdin, give it a moment to exit, then kill it."""
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin and not proc.stdin.closed:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.wait()
        self._proc = None
        self._dead = True

    # ---- agent interface ----------------------------------------------------------------------------------------
    def reset(self, seat: int, variant: RuleConfig) -> None:
        super().reset(seat, variant)
        if self._fallback is not None and hasattr(self._fallback, "reset"):
            self._fallback.reset(seat, variant)
        if self._proc is None or (self._dead and self.restart):
            if self._proc is not None:
                self.faults["restarts"] += 1
                self.close()
            self._start()
        self._events = []
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

    def _await(self, decision: int) -> int | None:
        """The bot's action for ``decision``, or ``None`` after counting a fault."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.faults["timeout"] += 1
                self._unanswered.append(decision)
                return None
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is _EOF:
                self._crashed()
                return None
            text = line.strip()
            if not text:
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                self.faults["garbage"] += 1
                return None
            reply_id: Any = None
            if isinstance(data, dict):
                reply_id = data.get("id")
                data = data.get("action")
            if isinstance(data, bool) or not isinstance(data, int):
                self.faults["garbage"] += 1
                return None
            if reply_id is None:
                if self._unanswered:  # a bare late reply answers the oldest timed-out decision
                    self._unanswered.pop(0)
                    continue
            elif reply_id != decision:
                if reply_id in self._unanswered:  # the late answer of an earlier decision
                    self._unanswered.remove(reply_id)
                    continue
                self.faults["garbage"] += 1
                return None
            return data

    def __repr__(self) -> str:
        return f"ExternalAgent({self.label!r})"
