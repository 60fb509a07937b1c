"""Batch loops of the compiled engine (批处理): one call for a decision in many hands, one for their next decisions.

Each function loops over listed rows of the batch state (``state[rows[j]]``) in compiled code, so that a step of
the batched environment costs two calls into numba however many hands it holds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.compiled.encode import encode_row
from envs.compiled.kernel import acting_seat, apply_action, legal_mask


@njit(cache=True)
def step_rows(state, rows, seats, actions, rules, table, events, num_events):
    """Apply ``actions[j]`` of ``seats[j]`` in hand ``rows[j]`` for every ``j``; each hand's events go to
    ``events[rows[j]]`` and are counted in ``num_events[rows[j]]``."""
    for j in range(rows.shape[0]):
        i = rows[j]
        apply_action(state[i], seats[j], actions[j], rules, table, events[i], num_events[i : i + 1])


@njit(cache=True)
def acting_seats(state, rows, out):
    """``out[j]`` = the first seat whose decision hand ``rows[j]`` awaits (-1: the hand is over)."""
    for j in range(rows.shape[0]):
        out[j] = acting_seat(state[rows[j]])


@njit(cache=True)
def masks_rows(state, rows, seats, rules, table, out):
    """Legal masks of ``seats[j]`` in hand ``rows[j]``, written into ``out[rows[j]]``."""
    for j in range(rows.shape[0]):
        legal_mask(state[rows[j]], seats[j], rules, table, out[rows[j]])


@njit(cache=True)
def observe_rows(state, rows, seats, find_seats, rules, table, base_unit, obs, masks):
    """The next decision of each listed hand: with ``find_seats`` the acting seat is written into ``seats[rows[j]]``
    first (self-play), otherwise ``seats[rows[j]]`` is the seat to observe; then its observation and legal mask go
    to ``obs[rows[j]]`` and ``masks[rows[j]]``."""
    for j in range(rows.shape[0]):
        i = rows[j]
        if find_seats:
            seats[i] = acting_seat(state[i])
        encode_row(state[i], seats[i], base_unit, obs[i])
        legal_mask(state[i], seats[i], rules, table, masks[i])


@njit(cache=True)
def first_illegal(masks, actions):
    """The first slot whose action is outside the flat layout or its mask, -1 when every action is legal."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            return i
    return -1


@njit(cache=True)
def pick_legal(masks, u, out):
    """``out[i]`` = the ``floor(u[i] * n_i)``-th legal action of slot ``i`` (``n_i`` set entries of ``masks[i]``, in
    id order; ``0 <= u[i] < 1``): a uniformly random legal action per slot from one uniform each (what
    ``VectorEnv._pick_legal`` computes with numpy).  Returns the first slot without a legal action, or -1."""
    for i in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[i, a] != 0
        if n == 0:
            return i
        rank = int(u[i] * n)
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                if rank == 0:
                    out[i] = a
                    break
                rank -= 1
    return -1


@njit(cache=True)
def shuffle(items, words):
    """``envs.wall.SeedStream.shuffle`` of ``items`` in place from the stream's words read ahead (``uint64``,
    ``SeedStream.word_bytes``): Fisher-Yates with ``randbelow(i + 1)`` by rejection sampling, the same swaps.
    Returns the number of words used, or -1 when they ran out (a rejection streak; the caller then shuffles in
    Python) — ``tests/test_compiled_engine.py`` compares the walls with ``envs.wall.shuffled_wall``."""
    pos = 0
    for i in range(items.shape[0] - 1, 0, -1):
        n = np.uint64(i + 1)
        rem = (np.uint64(0) - n) % n  # 2**64 % n
        limit = np.uint64(0) - rem  # 2**64 - rem (0 stands for 2**64 when rem is 0: every word is accepted)
        while True:
            if pos >= words.shape[0]:
                return -1
            x = words[pos]
            pos += 1
            if rem == 0 or x < limit:
                break
        j = x % n
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
    return pos
