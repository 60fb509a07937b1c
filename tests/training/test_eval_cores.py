"""Evaluation worker processes share the machine's cores (training/evaluation/cores.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

from training.evaluation import cores


@pytest.mark.parametrize(("available", "workers", "threads"), [(2, 1, 2), (2, 2, 1), (2, 3, 1), (16, 4, 4), (16, 3, 5)])
def test_each_worker_gets_its_share_of_the_cores(available: int, workers: int, threads: int, monkeypatch: Any) -> None:
    monkeypatch.setattr(cores, "available_cores", lambda: available)
    assert cores.worker_threads(workers) == threads


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_bad_worker_counts_are_refused(workers: object) -> None:
    with pytest.raises(ValueError, match="workers must be a positive int"):
        cores.worker_threads(workers)  # type: ignore[arg-type]


def test_share_cores_limits_blas_and_torch_now_and_at_import(monkeypatch: Any) -> None:
    """The libraries already loaded get their share (numpy's BLAS through threadpoolctl, torch's intra-op threads);
    libraries a process loads later read the environment variables."""
    before = torch.get_num_threads()
    monkeypatch.setattr(cores, "available_cores", lambda: 8)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(name, "")
    try:
        with threadpool_limits(limits=None):  # puts every pool back as it was on leaving
            cores.share_cores(4)
            blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
            assert blas and all(pool["num_threads"] == 2 for pool in blas)
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert os.environ["OMP_NUM_THREADS"] == os.environ["OPENBLAS_NUM_THREADS"] == os.environ["MKL_NUM_THREADS"] == "2"


def test_available_cores_is_at_least_one() -> None:
    assert 1 <= cores.available_cores() <= (os.cpu_count() or 1)


@pytest.mark.parametrize(
    ("available", "walls", "workers"),
    [(2, 1, 1), (2, 399, 1), (2, 400, 2), (2, 10**6, 2), (16, 1000, 5), (16, 10**6, 16)],
)
def test_default_workers_is_one_per_core_and_one_per_200_walls_at_most(
    available: int, walls: int, workers: int, monkeypatch: Any
) -> None:
    monkeypatch.setattr(cores, "available_cores", lambda: available)
    assert cores.WALLS_PER_WORKER == 200
    assert cores.default_workers(walls) == workers


@pytest.mark.parametrize("walls", [0, -3, 2.5, True, "400"])
def test_default_workers_refuses_a_count_of_walls_that_is_not_positive(walls: object) -> None:
    with pytest.raises(ValueError, match="walls must be a positive int"):
        cores.default_workers(walls)  # type: ignore[arg-type]
