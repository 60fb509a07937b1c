"""Privileged information (全知信息) of a seat: what the rules hide from it, as tile planes for a training critic.

A critic that sees more than the acting policy (an *asymmetric* or *oracle* critic) gives lower-variance
advantages during training; the policy itself never reads these planes (``training/hidden_critic.py``).  The
planes of ``seat`` are ``(PRIVILEGED_ROWS, 34)`` float32, in this order:

* rows ``0 .. 2``: the concealed counts (手牌) of the seats after ``seat`` in turn order (``seat + 1``, ``seat + 2``,
  ``seat + 3``, modulo the table size), divided by 4; the rows of seats a smaller table lacks are zero;
* row ``3``: the counts of the live wall (牌墙) by kind, divided by 4;
* rows ``4 .. 7``: the next ``NEXT_DRAWS`` tiles drawn from the front of the live wall, one-hot (a zero row past
  the wall's end).

:func:`privileged_planes` reads them from an :class:`envs.engine.game.Game`; the compiled engine writes the same
values from its state rows (:func:`envs.compiled.privileged.privileged_rows`, tested equal).
"""

from __future__ import annotations

import numpy as np

from envs.core.tiles import NUM_KINDS
from envs.engine.game import Game

__all__ = ["NEXT_DRAWS", "OTHER_SEAT_ROWS", "PRIVILEGED_ROWS", "PRIVILEGED_SHAPE", "privileged_planes"]

OTHER_SEAT_ROWS = 3  # the other seats of a four-seat table
NEXT_DRAWS = 4
PRIVILEGED_ROWS = OTHER_SEAT_ROWS + 1 + NEXT_DRAWS
PRIVILEGED_SHAPE = (PRIVILEGED_ROWS, NUM_KINDS)


def privileged_planes(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The privileged planes of ``seat`` in ``game`` (module docstring), written into ``out`` when given."""
    if out is None:
        out = np.zeros(PRIVILEGED_SHAPE, dtype=np.float32)
    else:
        out[...] = 0.0
    n = game.cfg.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not a seat of a {n}-seat table")
    for r in range(n - 1):
        out[r] = np.asarray(game.hand_of((seat + 1 + r) % n), dtype=np.float32) / 4.0
    wall = game.live_wall()
    if wall:
        out[OTHER_SEAT_ROWS] = np.bincount(np.asarray(wall), minlength=NUM_KINDS)[:NUM_KINDS] / 4.0
    for j, kind in enumerate(wall[:NEXT_DRAWS]):
        out[OTHER_SEAT_ROWS + 1 + j, kind] = 1.0
    return out
