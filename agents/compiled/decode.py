"""Batch decoding of observations (批量观测解码) in numba: what :func:`agents.features.read` gives one seat, for a
whole batch of ``(B, C, 34)`` float32 observation rows in one call.

:func:`decode_batch` returns a :class:`Decoded` record of arrays (one row per observation).  The plane rows are read
by name from :data:`envs.engine.observation.SLICES` at import and passed to the compiled function as an array, so
numba's on-disk cache never freezes a stale row layout.  Values equal :func:`agents.features.read` field by field
(``tests/agents/test_compiled_decode.py``); absent kinds (no void, no claim tile ...) are ``-1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from envs.core.tiles import NUM_KINDS
from envs.engine.observation import OBS_SHAPE, SLICES, WALL_SCALE

__all__ = ["Decoded", "decode_batch", "in_play_mask"]

_N_PHASES = SLICES["phase"].stop - SLICES["phase"].start
_ROWS = np.array(
    [
        SLICES["hand"].start,  # 0
        SLICES["hand"].stop - SLICES["hand"].start,  # 1: hand rows
        SLICES["wild_kinds"].start,  # 2
        SLICES["phase"].start,  # 3
        _N_PHASES,  # 4
        SLICES["void_suits"].start,  # 5
        SLICES["pongs"].start,  # 6
        SLICES["exposed_kongs"].start,  # 7
        SLICES["concealed_kongs"].start,  # 8
        SLICES["added_kongs"].start,  # 9
        SLICES["hidden_kongs"].start,  # 10
        SLICES["chis"].start,  # 11
        SLICES["visible"].start,  # 12
        SLICES["seat_present"].start,  # 13
        SLICES["wall"].start,  # 14
        SLICES["exchange_picked"].start,  # 15
        SLICES["claim_tile"].start,  # 16
        SLICES["drawn_tile"].start,  # 17
        SLICES["won"].start,  # 18
        SLICES["indicator"].start,  # 19
    ],
    dtype=np.int64,
)


@dataclass(frozen=True)
class Decoded:
    """One seat's view per batch row (see :func:`agents.features.read` for the meaning of each field)."""

    phase: np.ndarray  # (B,) index into envs.engine.observation.PHASES
    hand: np.ndarray  # (B, 34) every concealed tile, wildcards included
    counts: np.ndarray  # (B, 34) natural concealed counts (wildcard kinds zeroed)
    wilds: np.ndarray  # (B,) wildcard tiles held
    wild: np.ndarray  # (B, 34) 1 at the wildcard kinds
    void: np.ndarray  # (B,) own void suit, -1 before 定缺
    melded: np.ndarray  # (B, 34) own meld copies (pongs min(3, 4 - held), kongs 4)
    n_melds: np.ndarray  # (B,) pongs + kongs + hidden kongs + 吃 runs
    visible: np.ndarray  # (B, 34)
    live: np.ndarray  # (B, 34) 4 - visible over the kinds in play, >= 0
    wall: np.ndarray  # (B,)
    n_players: np.ndarray  # (B,)
    exchange_picked: np.ndarray  # (B, 34)
    claim_tile: np.ndarray  # (B,) -1 when none
    drawn_tile: np.ndarray  # (B,) -1 when none
    won: np.ndarray  # (B,) 1 when this seat has won (血流 frozen hand)
    indicator: np.ndarray  # (B,) -1 when none
    chi_runs: np.ndarray  # (B,)
    opened: np.ndarray  # (B,) 1 with an own open meld (pong, exposed / added kong, 吃)


def in_play_mask(kinds: tuple[int, ...] | list[int] | None) -> np.ndarray:
    """``(34,)`` int8: 1 for the kinds of the variant (all 34 for ``None``)."""
    out = np.zeros(NUM_KINDS, dtype=np.int8)
    if kinds is None:
        out[:] = 1
    else:
        out[list(kinds)] = 1
    return out


@njit(cache=True)
def _first(row):  # pragma: no cover - compiled
    for k in range(row.shape[0]):
        if row[k] != 0.0:
            return k
    return -1


@njit(cache=True, nogil=True)
def _decode(obs, rows, in_play, wall_scale, i_out, k_out):  # pragma: no cover - compiled
    """Fill ``i_out`` (12, B) scalars and ``k_out`` (7, B, 34) kind rows from ``obs`` (B, C, 34): field-major, so
    that every field of :class:`Decoded` is a C-contiguous array whatever the batch size."""
    n = obs.shape[0]
    nk = obs.shape[2]
    for b in range(n):
        o = obs[b]
        hand = k_out[0, b]
        counts = k_out[1, b]
        wild = k_out[2, b]
        melded = k_out[3, b]
        visible = k_out[4, b]
        live = k_out[5, b]
        picked = k_out[6, b]
        wilds = 0
        for k in range(nk):
            s = 0.0
            for r in range(rows[1]):
                s += o[rows[0] + r, k]
            hand[k] = np.int8(s)
            w = o[rows[2], k] != 0.0
            wild[k] = 1 if w else 0
            if w:
                wilds += hand[k]
                counts[k] = 0
            else:
                counts[k] = hand[k]
            v = np.int8(np.rint(o[rows[12], k]))
            visible[k] = v
            live[k] = max(0, 4 - v) if in_play[k] else 0
            picked[k] = np.int8(np.rint(o[rows[15], k]))
        best = 0
        for p in range(1, rows[4]):
            if o[rows[3] + p, 0] > o[rows[3] + best, 0]:
                best = p
        i_out[0, b] = best
        i_out[1, b] = wilds
        v0 = _first(o[rows[5]])
        i_out[2, b] = -1 if v0 < 0 else v0 // 9
        n_pongs = 0
        n_kongs = 0
        opened = 0
        for k in range(nk):
            melded[k] = 0
            if o[rows[6], k] != 0.0:
                n_pongs += 1
                melded[k] = min(3, 4 - counts[k])
                opened = 1
            e = o[rows[7], k] != 0.0
            c = o[rows[8], k] != 0.0
            a = o[rows[9], k] != 0.0
            if e or c or a:
                n_kongs += 1
                melded[k] = 4
            if e or a:
                opened = 1
        chi = 0
        for k in range(nk):
            chi += np.int64(np.rint(o[rows[11], k]))
        chi_runs = chi // 3
        if chi_runs:
            opened = 1
        hidden = np.int64(np.rint(o[rows[10], 0] * 4))
        i_out[3, b] = n_pongs + n_kongs + hidden + chi_runs
        i_out[4, b] = np.int64(np.rint(o[rows[14], 0] * wall_scale))
        players = 0.0
        for r in range(4):
            players += o[rows[13] + r, 0]
        i_out[5, b] = np.int64(np.rint(players))
        i_out[6, b] = _first(o[rows[16]])
        i_out[7, b] = _first(o[rows[17]])
        i_out[8, b] = 1 if o[rows[18], 0] != 0.0 else 0
        i_out[9, b] = _first(o[rows[19]])
        i_out[10, b] = chi_runs
        i_out[11, b] = opened


def decode_batch(observations: np.ndarray, in_play: np.ndarray | None = None) -> Decoded:
    """Decode ``(B, C, 34)`` (or one ``(C, 34)``) float32 observations; ``in_play`` from :func:`in_play_mask`."""
    obs = np.asarray(observations)
    if obs.ndim == 2:
        obs = obs[None]
    if obs.ndim != 3 or obs.shape[1:] != OBS_SHAPE:
        raise ValueError(f"observations must have shape (B, {OBS_SHAPE[0]}, {OBS_SHAPE[1]}), got {obs.shape}")
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    ip = in_play_mask(None) if in_play is None else np.ascontiguousarray(in_play, dtype=np.int8)
    if ip.shape != (NUM_KINDS,):
        raise ValueError(f"in_play must have shape ({NUM_KINDS},), got {ip.shape}")
    n = obs.shape[0]
    # field-major: each field below is a C-contiguous array for any n, so the compiled functions that read them are
    # typed (and compiled, or loaded from numba's cache) once, not once for column views and again for one row
    i_out = np.zeros((12, n), dtype=np.int64)
    k_out = np.zeros((7, n, NUM_KINDS), dtype=np.int8)
    _decode(obs, _ROWS, ip, WALL_SCALE, i_out, k_out)
    return Decoded(
        phase=i_out[0],
        hand=k_out[0],
        counts=k_out[1],
        wilds=i_out[1],
        wild=k_out[2],
        void=i_out[2],
        melded=k_out[3],
        n_melds=i_out[3],
        visible=k_out[4],
        live=k_out[5],
        wall=i_out[4],
        n_players=i_out[5],
        exchange_picked=k_out[6],
        claim_tile=i_out[6],
        drawn_tile=i_out[7],
        won=i_out[8],
        indicator=i_out[9],
        chi_runs=i_out[10],
        opened=i_out[11],
    )
