"""Child processes started as from a terminal (终端启动的子进程)."""

from __future__ import annotations

import signal
import subprocess
from typing import Any


def popen_as_from_a_terminal(*args: Any, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(*args, **kwargs)`` whose child starts with the default response to Ctrl-C (SIGINT).

    A test suite started in the background by a non-interactive shell (``cmd &``, ``nohup``) inherits SIGINT
    ignored, and so would every child; an ignored signal stays ignored across ``exec`` while a caught one is reset
    to its default, so SIGINT is caught here while the child is started (this must run in the main thread)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(*args, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)
