"""Duplicate evaluation on a Ray cluster (分布式评测): the ``--ray [ADDRESS]`` option of ``chuanma eval``.

:func:`run_on_ray` plays the walls of an evaluation as Ray tasks, one wall per task, with a bounded number of
tasks in flight; every finished wall is handed back as it completes (the progress bar moves with the walls) and
:mod:`training.evaluation.evaluate` sorts the records into wall order, so the result is the one of the local run:
every agent is seeded from the coordinates of its hand, never from the process that plays it.  A task whose worker
dies (a killed process, a lost node) is retried by Ray up to ``max_retries`` times; a task returns its wall once,
so no wall is lost or counted twice.  An exception raised by the play itself (an illegal agent action) is not
retried: it stops the evaluation as it does locally.

:func:`connect` joins the cluster: ``"local"`` starts a Ray instance on this machine for the run (stopped at the
end), ``"auto"`` joins the cluster started by ``ray start`` on this machine, ``"HOST:PORT"`` (or ``ray://...``) a
given one; a process already connected to Ray (``ray.init`` called before) keeps its connection.  Checkpoint files
and outside-bot commands named by the agents must exist at the same path on every node.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

DEFAULT_ADDRESS = "local"
PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the envs, agents and training packages


def local_init_options() -> dict[str, Any]:
    """``ray.init`` options of a Ray instance started on this machine: no dashboard, and workers that import this
    copy of chuanma (its folder first on their ``PYTHONPATH``, as for this process)."""
    path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {
        "address": "local",
        "include_dashboard": False,
        "log_to_driver": False,
        "runtime_env": {"env_vars": {"PYTHONPATH": path}},
    }


def _ray() -> Any:
    try:
        import ray
    except ImportError:  # pragma: no cover - the test extra installs it
        raise ValueError("--ray needs the Ray package: pip install 'chuanma[ray]'") from None
    return ray


@contextlib.contextmanager
def connect(address: str | None = DEFAULT_ADDRESS) -> Iterator[Any]:
    """Connected to the Ray cluster at ``address`` while the block runs (see the module docstring); yields the
    ``ray`` module.  A connection this function opened is closed at the end."""
    ray = _ray()
    if ray.is_initialized():
        yield ray
        return
    address = address or DEFAULT_ADDRESS
    try:
        if address == "local":
            ray.init(**local_init_options())
        else:
            ray.init(address=address, log_to_driver=False)
    except ConnectionError as exc:
        raise ValueError(f"cannot join the Ray cluster at {address!r}: {exc}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def run_on_ray(
    play: Callable[[Any], Any],
    tasks: Sequence[Any],
    collect: Callable[[Any], None],
    *,
    address: str | None = DEFAULT_ADDRESS,
    skipped: Callable[[Any], Any | None] | None = None,
    max_retries: int = 3,
    in_flight: int | None = None,
) -> None:
    """``collect(play(task))`` for every task, ``play`` running as Ray tasks; results arrive as tasks complete.

    ``skipped(task)``: asked just before a task is submitted; a value that is not None is collected in place of
    playing it (a matchup already failed).  ``in_flight``: tasks submitted at once (default: twice the cluster's
    CPUs).  ``max_retries``: retries of a task whose worker died."""
    with connect(address) as ray:
        remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(play)
        limit = in_flight or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
        pending: list[Any] = []
        queue = list(tasks)
        queue.reverse()
        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    task = queue.pop()
                    instead = skipped(task) if skipped is not None else None
                    if instead is not None:
                        collect(instead)
                        continue
                    pending.append(remote.remote(task))
                if not pending:
                    continue
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    collect(ray.get(ref))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
