"""Helpers for the compiled-engine tests: a layout row holding one seat's hand."""

from __future__ import annotations

import numpy as np

from envs.compiled import layout as L


def seat0_row(counts: list[int], melds: list[tuple[int, int]], void: int, wild: int) -> np.ndarray:
    """A layout row whose seat 0 holds ``counts`` and ``melds`` (``(M_* kind, tile)``), void suit ``void`` (-1: none)
    and wildcard kind ``wild`` (-1: none); every other field is 0."""
    row = np.zeros(L.STATE_SIZE, dtype=np.int32)
    row[L.HANDS : L.HANDS + L.NK] = counts
    row[L.VOID] = void
    row[L.WILD] = wild
    for i, (kind, tile) in enumerate(melds):
        at = L.MELDS + i * L.MELD_FIELDS
        row[at : at + 3] = (kind, tile, -1)
    row[L.NUM_MELDS] = len(melds)
    return row
