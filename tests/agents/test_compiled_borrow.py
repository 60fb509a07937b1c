"""Borrowed arrays (:mod:`agents.compiled.borrow`): the same memory without reference counts."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents.compiled.borrow import borrowed


@njit(cache=False)
def _write_through(t):  # pragma: no cover - compiled
    """Write through the borrowed views of a nested tuple and read them back."""
    b = borrowed(t)
    a, (n, m) = b
    a[1] = 7.0
    m[0, 2] = n
    v = m[0]  # a view of a borrowed array
    v[1] = -1
    return a.sum(), m.shape[0], m.shape[1], m.strides[0], n


def test_borrowed_views_are_the_same_memory() -> None:
    a = np.zeros(3)
    m = np.zeros((2, 4), dtype=np.int64)
    total, rows, cols, stride, n = _write_through((a, (5, m)))
    assert (total, rows, cols, stride, n) == (7.0, 2, 4, 32, 5)
    assert a[1] == 7.0 and m[0, 2] == 5 and m[0, 1] == -1  # the caller's arrays changed
    assert m.sum() == 4


def test_borrowed_keeps_non_contiguous_layouts() -> None:
    @njit(cache=False)
    def column_sum(x):  # pragma: no cover - compiled
        return borrowed(x).sum()

    m = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert column_sum(m[:, 1]) == 1 + 5 + 9


def test_borrowed_is_compiled_only() -> None:
    with pytest.raises(TypeError, match="numba-compiled"):
        borrowed(np.zeros(2))
