"""Privileged information (全知信息) from the compiled engine's state rows: the planes of
:mod:`envs.engine.privileged` (the other seats' concealed hands, the live wall, its next draws) for many hands at
once, in numpy over the row layout (:mod:`envs.compiled.layout`)."""

from __future__ import annotations

import numpy as np

from envs.compiled.layout import BACK, FRONT, HANDS, NK, NP, WALL, WALL_LEN
from envs.engine.privileged import NEXT_DRAWS, OTHER_SEAT_ROWS, PRIVILEGED_ROWS

__all__ = ["privileged_rows"]

_POSITIONS = np.arange(WALL_LEN)
_KINDS = np.arange(NK)


def privileged_rows(state: np.ndarray, rows: np.ndarray, seats: np.ndarray, num_players: int, out: np.ndarray) -> None:
    """The privileged planes of ``seats[j]`` in hand ``rows[j]`` into ``out[j]`` (``out``: ``(len(rows),
    PRIVILEGED_ROWS, 34)`` float32)."""
    m = len(rows)
    if out.shape != (m, PRIVILEGED_ROWS, NK):
        raise ValueError(f"out has shape {out.shape}; expected {(m, PRIVILEGED_ROWS, NK)}")
    out[...] = 0.0
    if m == 0:
        return
    seats = np.asarray(seats, dtype=np.int64)
    if seats.min() < 0 or seats.max() >= num_players:
        raise ValueError(f"seats {seats.tolist()} are not all seats of a {num_players}-seat table")
    st = state[rows]
    hands = st[:, HANDS : HANDS + NP * NK].reshape(m, NP, NK)
    for r in range(num_players - 1):
        other = (seats + 1 + r) % num_players
        out[:, r] = hands[np.arange(m), other] / 4.0
    front = st[:, FRONT].astype(np.int64)
    back = st[:, BACK].astype(np.int64)
    wall = st[:, WALL : WALL + WALL_LEN]
    live = (front[:, None] <= _POSITIONS) & (back[:, None] > _POSITIONS)
    kinds = np.where(live, wall, -1)  # -1: a cell outside the live wall, which matches no kind
    out[:, OTHER_SEAT_ROWS] = (kinds[:, :, None] == _KINDS).sum(axis=1) / 4.0
    for j in range(NEXT_DRAWS):
        pos = front + j
        has = np.flatnonzero(pos < back)
        out[has, OTHER_SEAT_ROWS + 1 + j, wall[has, pos[has]]] = 1.0
