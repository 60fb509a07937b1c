"""Engine backends (引擎后端): the one interface the environments drive, on either rules engine.

The environments — the AEC ``raw_env`` (:mod:`envs.sichuan_mahjong_v0`), :class:`envs.single_agent.SingleAgentEnv`
on top of it and the batched :class:`envs.vector_env.VectorEnv` — are written once against two small protocols:

* :class:`TableBackend` — one table (one hand at a time): deal, the acting seat, legal masks, one decision with
  the payments it made, observations, scores, whether a seat's score is final, and the hand's record
  (:class:`HandLog`: events and result) on demand;
* :class:`BatchBackend` — ``num_envs`` tables stepped together (one call for a decision in many hands).

Each has two implementations, chosen by ``engine``:

* ``"python"`` — :mod:`envs.game_backend` (:class:`~envs.game_backend.GameTable`,
  :class:`~envs.game_backend.GameBatch`): :class:`envs.engine.game.Game`, the reference engine;
* ``"compiled"`` — :mod:`envs.compiled.backend` (:class:`~envs.compiled.backend.CompiledTable`,
  :class:`~envs.compiled.backend.CompiledBatch`): the numba kernel on ``int32`` state rows; its event log and hand
  result are the Python engine replaying the hand's decisions, so they cost something only when read.

The backends speak the flat action ids of :mod:`envs.core.actions` (a 换三张 pick is one id; the backend collects the
three), and import no environment: the environments import them (:func:`make_table`, :func:`make_batch`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from envs.core.rule_config import ENGINES, RuleConfig
from envs.engine.game import Game
from envs.engine.view import Phase
from envs.game_backend import GameBatch, GameTable
from envs.scoring.settlement import Transfer

__all__ = ["ENGINES", "BatchBackend", "HandLog", "TableBackend", "make_batch", "make_table"]


class HandLog(Protocol):
    """The record of one hand, read on demand (it stays valid after the backend deals its next hand)."""

    def events_of(self, step: int) -> list[dict[str, Any]]:
        """The engine events of decision ``step`` (0: the deal), every seat's forms as ``Game.events`` holds them."""
        ...

    def game(self) -> Game:
        """The hand on the Python engine as it stands now (its ``result`` once it is over)."""
        ...


class TableBackend(Protocol):
    """One table of one variant (see the module docstring); a hand is dealt by :meth:`deal`."""

    engine: str
    """``"python"`` or ``"compiled"``."""
    defers_events: bool
    """True when reading the events or the result costs a replay: an environment then reads them only when asked."""

    def deal(self, cfg: RuleConfig, seed: Any, fixed: Mapping[str, Any]) -> Sequence[Transfer]:
        """Deal a hand with the rules ``cfg`` (the table size cannot change): seed ``seed``, or the fixed start of
        ``fixed`` (``wall``, ``dealer``, ``exchange_offset``, ``match_points``: the totals a points match carries into
        the hand; the engine checks and completes it).  Returns the payments made at the deal (four 红中)."""
        ...

    def hand_end(self) -> tuple[int, bool]:
        """The finished hand's ``(next_dealer, bankrupt)`` (``HandResult``'s; :mod:`envs.engine.match` reads them)."""
        ...

    @property
    def steps(self) -> int:
        """Engine decisions of the current hand so far (three 换三张 picks make one)."""
        ...

    @property
    def log(self) -> HandLog | None:
        """The current hand's record (None before the first deal or after :meth:`close`)."""
        ...

    def acting_seat(self) -> int:
        """The first seat whose decision the hand awaits (-1 once it is over)."""
        ...

    def legal_mask(self, seat: int) -> np.ndarray:
        """A new ``int8`` mask ``(183,)`` of ``seat``'s legal action ids (its 换三张 picks so far counted)."""
        ...

    def step(self, seat: int, action: int) -> Sequence[Transfer] | None:
        """Apply ``seat``'s flat action id (legal: the caller checks the mask).  None when it is a 换三张 pick before
        the third (the engine has not moved), else the payments the decision made (valid until the next step)."""
        ...

    def observe(self, seat: int) -> np.ndarray:
        """A new ``chuanma-v1`` observation tensor of ``seat`` (its 换三张 picks so far shown)."""
        ...

    def privileged(self, seat: int) -> np.ndarray:
        """A new array of ``seat``'s privileged planes (:mod:`envs.engine.privileged`: what the rules hide from it;
        for a training critic, never for the acting policy)."""
        ...

    def picks(self, seat: int) -> list[int]:
        """``seat``'s 换三张 picks not yet sent to the engine (the first two of three)."""
        ...

    def scores(self) -> list[int]:
        """The hand scores of every seat (a new list)."""
        ...

    def active(self) -> list[bool]:
        """Whether each seat is still in the hand (a 血战 winner is not)."""
        ...

    def is_over(self) -> bool:
        """Whether the hand has ended."""
        ...

    def score_final(self, seat: int) -> bool:
        """Whether ``seat``, which has left the hand, can no longer gain or lose points
        (:func:`envs.scoring.settlement.score_final`: a 退税 refund may still be due)."""
        ...

    def phase(self) -> Phase:
        """The engine's phase now."""
        ...

    def close(self) -> None:
        """Drop the current hand."""
        ...


class BatchBackend(Protocol):
    """``num_envs`` tables of one variant, one hand each (*slots*), stepped together (see the module docstring).

    ``rows`` are ``int64`` arrays of slot numbers; the methods that take ``seats`` pair ``seats[j]`` with
    ``rows[j]`` unless they say otherwise, and write row ``rows[j]`` of their output arrays."""

    engine: str

    def deal(self, i: int, seed: Any) -> bool:
        """Deal slot ``i`` hand seed ``seed``; True when something happened at the deal itself (a win: four 红中)."""
        ...

    def copy_hand(self, source: Any, i: int, slot: int) -> None:
        """Make slot ``slot`` a copy of the hand in slot ``i`` of ``source`` (a batch of the same engine and rules,
        possibly this one) that shares nothing mutable with it: from here the two play on independently, on the
        same wall and hidden tiles (a branch of the hand, for search and rollouts)."""
        ...

    def step(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> list[int]:
        """One flat action id ``actions[j]`` of ``seats[j]`` in each slot ``rows[j]`` (legal: the caller checks);
        returns the slots whose scores or seats may have changed (a superset of those where money moved)."""
        ...

    def acting_seats(self, rows: np.ndarray, out: np.ndarray) -> None:
        """``out[j]`` = the first seat whose decision slot ``rows[j]`` awaits (-1: its hand is over)."""
        ...

    def masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """The legal masks of ``seats[j]`` in slot ``rows[j]`` into ``out[rows[j]]``."""
        ...

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """The observations of ``seats[j]`` in slot ``rows[j]`` into ``out[rows[j]]``."""
        ...

    def observe_next(
        self, rows: np.ndarray, seats: np.ndarray, find_seats: bool, obs: np.ndarray, masks: np.ndarray
    ) -> None:
        """The next decision of each listed slot ``i``: with ``find_seats`` the acting seat is written into
        ``seats[i]`` first, otherwise ``seats[i]`` is the seat to show (``seats`` is indexed by slot); then its
        observation and legal mask go to ``obs[i]`` and ``masks[i]``."""
        ...

    def observation(self, i: int, seat: int) -> np.ndarray:
        """A new observation tensor of ``seat`` in slot ``i``."""
        ...

    def privileged(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """The privileged planes (:mod:`envs.engine.privileged`) of ``seats[j]`` in slot ``rows[j]`` into ``out[j]``
        (``out``: ``(len(rows), PRIVILEGED_ROWS, 34)``; a training critic's input, never the acting policy's)."""
        ...

    def scores(self, i: int) -> list[int]:
        """The hand scores of slot ``i`` (a new list)."""
        ...

    def seat_scores(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """A new ``int64`` array: the hand score of ``seats[j]`` in slot ``rows[j]`` (``scores(rows[j])[seats[j]]``),
        for every ``j``."""
        ...

    def over(self) -> np.ndarray:
        """A new ``bool`` array ``(num_envs,)``: whose hands have ended."""
        ...

    def is_over(self, i: int) -> bool:
        """Whether slot ``i``'s hand has ended."""
        ...

    def seat_final(self, i: int, seat: int) -> bool:
        """Whether ``seat``'s score in slot ``i`` is final: the hand is over, or the seat left it (血战 winner) and
        can no longer gain or lose points (:func:`envs.scoring.settlement.score_final`)."""
        ...

    def first_illegal(self, masks: np.ndarray, actions: np.ndarray) -> int:
        """The first slot whose action is outside the flat layout or its row of ``masks`` (-1: none)."""
        ...

    def pick_legal(self, masks: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Slot ``i``'s ``floor(u[i] * n_i)``-th legal action (``n_i`` set entries of ``masks[i]``, in id order;
        ``0 <= u[i] < 1``); ``RuntimeError`` naming the first slot without one."""
        ...

    def games(self) -> list[Game | None]:
        """The hand of each slot as an :class:`envs.engine.game.Game` (``AttributeError`` where the backend keeps
        none)."""
        ...

    def picks(self, i: int, seat: int) -> list[int]:
        """``seat``'s 换三张 picks in slot ``i`` not yet sent to the engine."""
        ...

    def close(self) -> None:
        """Drop the hands."""
        ...


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")


def make_table(engine: str, cfg: RuleConfig) -> TableBackend:
    """A :class:`TableBackend` of ``cfg`` on ``engine`` (``"python"`` or ``"compiled"``); a configuration the
    engine does not play raises :class:`~envs.engine.game.UnsupportedRule` naming its flags."""
    _check_engine(engine)
    if engine == "compiled":
        from envs.compiled.backend import CompiledTable  # numba compiles the kernel on first use

        return CompiledTable(cfg)
    return GameTable(cfg)


def make_batch(engine: str, cfg: RuleConfig, num_envs: int) -> BatchBackend:
    """A :class:`BatchBackend` of ``num_envs`` slots of ``cfg`` on ``engine`` (see :func:`make_table`)."""
    _check_engine(engine)
    if engine == "compiled":
        from envs.compiled.backend import CompiledBatch  # numba compiles the kernel on first use

        return CompiledBatch(cfg, num_envs)
    return GameBatch(cfg, num_envs)
