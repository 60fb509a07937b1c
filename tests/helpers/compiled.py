"""Helpers for the compiled-engine tests: a layout row holding one seat's hand."""

from __future__ import annotations

import numpy as np

from envs.compiled import layout as L


def seat0_row(
    counts: list[int],
    melds: list[tuple[int, int]],
    void: int,
    wild: int,
    wild2: int = -1,
    meld_wilds: list[tuple[int, ...]] | None = None,
) -> np.ndarray:
    """A layout row whose seat 0 holds ``counts`` and ``melds`` (``(M_* kind, tile)``; a 飞's 听用 kinds in
    ``meld_wilds``, one tuple per meld), void suit ``void`` (-1: none) and wildcard kinds ``wild`` / ``wild2`` (-1:
    none); the other "none" fields are -1, every other field 0."""
    row = np.zeros(L.STATE_SIZE, dtype=np.int32)
    row[L.HANDS : L.HANDS + L.NK] = counts
    row[L.VOID] = void
    row[L.WILD] = wild
    row[L.WILD2] = wild2
    row[L.INDICATOR] = -1
    start, length = L.FIELDS["meld_wilds"]
    row[start : start + length] = -1
    for i, (kind, tile) in enumerate(melds):
        at = L.MELDS + i * L.MELD_FIELDS
        row[at : at + 3] = (kind, tile, -1)
        if meld_wilds is not None:
            row[L.MELD_WILDS + 2 * i : L.MELD_WILDS + 2 * i + len(meld_wilds[i])] = meld_wilds[i]
    row[L.NUM_MELDS] = len(melds)
    return row
