"""Each evaluation worker process's share of the machine's cores (the thread pools of numpy's BLAS and of torch).

numpy's BLAS (OpenBLAS) and torch start as many threads as the machine has cores in *every* process, and OpenBLAS's
threads spin while they wait for the next product.  A policy's batched forward pass in evaluation is numpy matrix
products (:class:`agents.learned.extractor.NumpyActor`), so one evaluation process kept two cores busy for the work
of one, and two worker processes on two cores ran four busy threads and played fewer walls a second than one
process alone (``benchmarks/README.md``).  A worker pool's initializer calls :func:`share_cores`, which gives each
worker ``cores // workers`` threads (at least one) in the pools already loaded (``threadpoolctl``) and in those loaded
later (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``).
"""

from __future__ import annotations

import os
import sys

from threadpoolctl import threadpool_limits

WALLS_PER_WORKER = 200
"""The fewest walls per matchup a worker process is started for: a process spends seconds loading torch and the
compiled code, about what one process needs to play this many walls batched, so fewer walls play in one process."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else ``os.cpu_count()``)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_workers(walls: int) -> int:
    """The worker processes an evaluation of ``walls`` walls (or matches) uses when none are asked for: one per core
    this process may use (:func:`available_cores`), at most one per :data:`WALLS_PER_WORKER` walls, at least one."""
    if isinstance(walls, bool) or not isinstance(walls, int) or walls < 1:
        raise ValueError(f"walls must be a positive int, got {walls!r}")
    return max(1, min(available_cores(), walls // WALLS_PER_WORKER))


def worker_threads(workers: int) -> int:
    """Threads (BLAS, OpenMP, torch) for each of ``workers`` processes sharing this machine: ``cores // workers``,
    at least 1."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return max(1, available_cores() // workers)


def share_cores(workers: int) -> None:
    """In a worker process: limit numpy's BLAS, OpenMP and torch to :func:`worker_threads` threads each, in the
    libraries already loaded (``threadpool_limits``; ``torch.set_num_threads``) and in those loaded later (the
    environment variables they read when loaded)."""
    threads = worker_threads(workers)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)
    threadpool_limits(limits=threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def one_blas_thread() -> threadpool_limits:
    """A context manager that runs its block with one numpy BLAS thread and gives the caller's pools back after.

    For a process that plays small numpy products (a policy's forward pass on one batch of tables): one thread is
    as fast as OpenBLAS's pool of one per core, whose idle threads would spin on the other cores (the batched
    evaluator in one process, the batched trainer's rollouts beside the update's torch threads)."""
    return threadpool_limits(limits=1, user_api="blas")
