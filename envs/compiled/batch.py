"""Batch loops of the compiled engine (批处理): one call for a decision in many hands, one for their next decisions.

Each function loops over listed rows of the batch state (``state[rows[j]]``) in compiled code, so that a step of
the batched environment costs two calls into numba however many hands it holds.  They release the GIL: threads that
each drive a batch of their own run them side by side (:func:`training.bc.collect_batched`).
"""

from __future__ import annotations

from numba import njit

from envs.compiled.encode import encode_row
from envs.compiled.kernel import acting_seat, apply_action, legal_mask


@njit(cache=True, nogil=True)
def step_rows(state, rows, seats, actions, rules, table, events, num_events):
    """Apply ``actions[j]`` of ``seats[j]`` in hand ``rows[j]`` for every ``j``; each hand's events go to
    ``events[rows[j]]`` and are counted in ``num_events[rows[j]]``."""
    for j in range(rows.shape[0]):
        i = rows[j]
        apply_action(state[i], seats[j], actions[j], rules, table, events[i], num_events[i : i + 1])


@njit(cache=True, nogil=True)
def acting_seats(state, rows, out):
    """``out[j]`` = the first seat whose decision hand ``rows[j]`` awaits (-1: the hand is over)."""
    for j in range(rows.shape[0]):
        out[j] = acting_seat(state[rows[j]])


@njit(cache=True, nogil=True)
def masks_rows(state, rows, seats, rules, table, out):
    """Legal masks of ``seats[j]`` in hand ``rows[j]``, written into ``out[rows[j]]``."""
    for j in range(rows.shape[0]):
        legal_mask(state[rows[j]], seats[j], rules, table, out[rows[j]])


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def first_illegal(masks, actions):
    """The first slot whose action is outside the flat layout or its mask, -1 when every action is legal."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            return i
    return -1


@njit(cache=True, nogil=True)
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
