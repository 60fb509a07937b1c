"""What the rule-based agents read from one observation (观测特征): plain Python lists from the ``chuanma-v0`` planes.

:func:`read` turns the ``(93, 34)`` tensor of :mod:`envs.observation` into a :class:`Seen` record: own natural
counts and wildcards, the own void suit and melds, copies still live (``4 - visible``), the phase, the wall, and
per opponent slot the public facts a danger model needs.  It reads the tensor only (never the engine), by plane
name through :data:`envs.observation.SLICES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.observation import PHASES, SLICES, WALL_SCALE
from envs.tiles import NUM_KINDS, NUM_SUITED
from envs.view import Phase

__all__ = ["Opponent", "Seen", "read"]

_HAND = SLICES["hand"]
_ROW = {name: sl.start for name, sl in SLICES.items()}
_MELD_GROUPS = ("pongs", "exposed_kongs", "concealed_kongs", "added_kongs")


@dataclass(slots=True)
class Opponent:
    """Public facts about one other seat slot (1 = 下家 ...)."""

    slot: int
    active: bool
    won: bool
    void: int | None
    discards: list[int]  # 34 counts
    n_discards: int
    last_discard: int | None
    pongs: list[int]  # kinds
    kongs: list[int]  # kinds of revealed kongs (exposed, concealed, added)
    hidden_kongs: int
    revealed: list[int] | None  # concealed counts revealed by the rules (血流 frozen hands), else None


@dataclass(slots=True)
class Seen:
    """One seat's observation as plain lists (see :func:`read`)."""

    phase: Phase
    hand: list[int]  # 34 counts of every concealed tile, wildcards included
    counts: list[int]  # natural concealed counts (wildcard kinds zeroed)
    wilds: int
    wild_kinds: tuple[int, ...]
    void: int | None
    pongs: list[int]
    kongs: list[int]
    melded: bytes  # 34 meld counts as bytes (b"" without melds)
    n_melds: int
    visible: list[int]
    live: list[int]  # copies not visible to this seat (4 - visible, >= 0)
    wall: int
    n_players: int
    exchange_picked: list[int]  # 34 counts
    claim_tile: int | None
    drawn_tile: int | None
    won: bool
    opponents: list[Opponent]
    indicator: int | None = None  # 本金 / 赖子 indicator kind, when the variant flips one

    @property
    def n_sets(self) -> int:
        """Sets the concealed hand still has to form (from its size: ``3k+1`` or ``3k+2`` tiles hold ``k`` sets)."""
        return (sum(self.counts) + self.wilds - 1) // 3

    @property
    def unseen(self) -> int:
        """Tiles this seat cannot see (live copies of every kind)."""
        return sum(self.live)


def _row(obs: np.ndarray, name: str, r: int = 0) -> np.ndarray:
    return obs[_ROW[name] + r]


def _void_of(row: np.ndarray) -> int | None:
    hot = np.flatnonzero(row[:NUM_SUITED])
    return int(hot[0]) // 9 if hot.size else None


def _kinds(row: np.ndarray) -> list[int]:
    return np.flatnonzero(row).tolist()


def read(obs: np.ndarray, *, in_play: tuple[int, ...] | None = None) -> Seen:
    """Decode one observation (shape ``(93, 34)``) into a :class:`Seen`.

    ``in_play`` (the variant's tile kinds) limits the live counts to kinds that exist; default: all 34.
    """
    if obs.shape != (SLICES["melds_count"].stop, NUM_KINDS):
        raise ValueError(f"observation must have shape ({SLICES['melds_count'].stop}, {NUM_KINDS}), got {obs.shape}")
    hand = obs[_HAND].sum(0).astype(np.int64).tolist()
    wild_kinds = tuple(_kinds(_row(obs, "wild_kinds")))
    counts = list(hand)
    wilds = 0
    for k in wild_kinds:
        wilds += counts[k]
        counts[k] = 0
    phase = PHASES[int(np.argmax(obs[SLICES["phase"], 0]))]
    void = _void_of(_row(obs, "void_suits", 0))
    pongs = _kinds(_row(obs, "pongs", 0))
    kongs = _kinds(_row(obs, "exposed_kongs", 0) + _row(obs, "concealed_kongs", 0) + _row(obs, "added_kongs", 0))
    hidden = round(float(_row(obs, "hidden_kongs", 0)[0]) * 4)
    n_melds = len(pongs) + len(kongs) + hidden
    if pongs or kongs:
        m = [0] * NUM_KINDS
        for k in pongs:
            m[k] = 3
        for k in kongs:
            m[k] = 4
        melded = bytes(m)
    else:
        melded = b""
    visible = _row(obs, "visible").astype(np.int64).tolist()
    if in_play is None:
        live = [max(0, 4 - v) for v in visible]
    else:
        live = [0] * NUM_KINDS
        for k in in_play:
            live[k] = max(0, 4 - visible[k])
    n_players = round(float(obs[SLICES["seat_present"], 0].sum()))
    claim = np.flatnonzero(_row(obs, "claim_tile"))
    drawn = np.flatnonzero(_row(obs, "drawn_tile"))
    indicator = np.flatnonzero(_row(obs, "indicator"))
    opponents = []
    for r in range(1, n_players):
        disc = _row(obs, "discards", r).astype(np.int64)
        last = np.flatnonzero(_row(obs, "last_discard", r))
        rev = None
        rev_row = _row(obs, "revealed_hands", r)
        if rev_row.any():
            rev = rev_row.astype(np.int64).tolist()
        opponents.append(
            Opponent(
                slot=r,
                active=bool(_row(obs, "active", r)[0]),
                won=bool(_row(obs, "won", r)[0]),
                void=_void_of(_row(obs, "void_suits", r)),
                discards=disc.tolist(),
                n_discards=int(disc.sum()),
                last_discard=int(last[0]) if last.size else None,
                pongs=_kinds(_row(obs, "pongs", r)),
                kongs=_kinds(
                    _row(obs, "exposed_kongs", r) + _row(obs, "concealed_kongs", r) + _row(obs, "added_kongs", r)
                ),
                hidden_kongs=round(float(_row(obs, "hidden_kongs", r)[0]) * 4),
                revealed=rev,
            )
        )
    return Seen(
        phase=phase,
        hand=hand,
        counts=counts,
        wilds=wilds,
        wild_kinds=wild_kinds,
        void=void,
        pongs=pongs,
        kongs=kongs,
        melded=melded,
        n_melds=n_melds,
        visible=visible,
        live=live,
        wall=round(float(_row(obs, "wall")[0]) * WALL_SCALE),
        n_players=n_players,
        exchange_picked=_row(obs, "exchange_picked").astype(np.int64).tolist(),
        claim_tile=int(claim[0]) if claim.size else None,
        drawn_tile=int(drawn[0]) if drawn.size else None,
        won=bool(_row(obs, "won", 0)[0]),
        opponents=opponents,
        indicator=int(indicator[0]) if indicator.size else None,
    )
