"""What the rule-based agents read from one observation (观测特征): plain Python lists from the observation planes.

:func:`read` turns the :data:`envs.engine.observation.OBS_SHAPE` tensor (``chuanma-v1``, ``(106, 34)``) into a
:class:`Seen` record: own natural counts and wildcards, the own void suit and melds, copies still live
(``4 - visible``), the phase, the wall, and per opponent slot the public facts a danger model needs.  It reads the
tensor only (never the engine), by plane name through :data:`envs.engine.observation.SLICES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core.tiles import NUM_KINDS
from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.engine.observation import PHASES, SLICES, WALL_SCALE
from envs.engine.view import Phase

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
    chi_runs: int = 0  # own 吃 runs (Wuhan), counted in ``n_melds``; their kinds are not in ``melded``
    opened: bool = False  # own open meld: a pong (飞 included), an exposed or added kong, or a chi (武汉 开口)

    @property
    def n_sets(self) -> int:
        """Sets the concealed hand still has to form (from its size: ``3k+1`` or ``3k+2`` tiles hold ``k`` sets)."""
        return (sum(self.counts) + self.wilds - 1) // 3

    @property
    def unseen(self) -> int:
        """Tiles this seat cannot see (live copies of every kind)."""
        return sum(self.live)


# the rows read by :func:`read`, gathered with three numpy calls (tolist of a whole float tensor is slow)
_SLOTS = range(4)
_COUNT_NAMES = (
    ["visible", "exchange_picked", "chis/0"]
    + [f"discards/{i}" for i in _SLOTS]
    + [f"revealed_hands/{i}" for i in _SLOTS]
)
_KIND_NAMES = (
    ["wild_kinds", "claim_tile", "drawn_tile", "indicator"]
    + [f"{g}/{i}" for g in ("pongs", "exposed_kongs", "concealed_kongs", "added_kongs") for i in _SLOTS]
    + [f"void_suits/{i}" for i in _SLOTS]
    + [f"last_discard/{i}" for i in _SLOTS]
)
_SCALAR_NAMES = (
    [f"phase/{i}" for i in range(SLICES["phase"].stop - SLICES["phase"].start)]
    + [f"{g}/{i}" for g in ("active", "won", "seat_present", "hidden_kongs") for i in _SLOTS]
    + ["wall"]
)


def _row_index(name: str) -> int:
    group, _, offset = name.partition("/")
    return _ROW[group] + (int(offset) if offset else 0)


_COUNT_IDX = np.array([_row_index(n) for n in _COUNT_NAMES])
_KIND_IDX = np.array([_row_index(n) for n in _KIND_NAMES])
_SCALAR_IDX = np.array([_row_index(n) for n in _SCALAR_NAMES])
_C = {n: i for i, n in enumerate(_COUNT_NAMES)}
_K = {n: i for i, n in enumerate(_KIND_NAMES)}
_S = {n: i for i, n in enumerate(_SCALAR_NAMES)}
_N_PHASES = SLICES["phase"].stop - SLICES["phase"].start
# per seat slot: (pongs, exposed, concealed, added, void, last discard) kind rows; (discards, revealed) count rows;
# (active, won, seat_present, hidden kongs) scalars
_SLOT_KIND = tuple(
    tuple(
        _K[f"{g}/{i}"]
        for g in ("pongs", "exposed_kongs", "concealed_kongs", "added_kongs", "void_suits", "last_discard")
    )
    for i in _SLOTS
)
_SLOT_COUNT = tuple((_C[f"discards/{i}"], _C[f"revealed_hands/{i}"]) for i in _SLOTS)
_SLOT_SCALAR = tuple(tuple(_S[f"{g}/{i}"] for g in ("active", "won", "seat_present", "hidden_kongs")) for i in _SLOTS)


def read(obs: np.ndarray, *, in_play: tuple[int, ...] | None = None) -> Seen:
    """Decode one observation (shape :data:`envs.engine.observation.OBS_SHAPE`, ``(106, 34)``) into a :class:`Seen`;
    a match observation (``chuanma-v1-match``, RULES.md §11.2) is read by its ``chuanma-v1`` rows.

    ``in_play`` (the variant's tile kinds) limits the live counts to kinds that exist; default: all 34.
    """
    rows = SLICES["melds_count"].stop
    if obs.shape == MATCH_OBS_SHAPE:
        obs = obs[:rows]
    if obs.shape != (rows, NUM_KINDS):
        raise ValueError(f"observation must have shape ({rows}, {NUM_KINDS}) or {MATCH_OBS_SHAPE}, got {obs.shape}")
    hand = obs[_HAND].sum(0).astype(np.int8).tolist()
    counts_rows = np.rint(obs[_COUNT_IDX]).astype(np.int8).tolist()
    rr, cc = np.nonzero(obs[_KIND_IDX])
    kinds: list[list[int]] = [[] for _ in _KIND_NAMES]
    for i, k in zip(rr.tolist(), cc.tolist()):
        kinds[i].append(k)
    scalars = obs[_SCALAR_IDX, 0].tolist()

    def kind_row(name: str) -> list[int]:
        return kinds[_K[name]]

    def void_of(slot: int) -> int | None:
        row = kinds[_SLOT_KIND[slot][4]]
        return row[0] // 9 if row else None

    def melds_of(slot: int) -> tuple[list[int], list[int], int]:
        p, e, c, a = _SLOT_KIND[slot][:4]
        pongs = kinds[p]
        kongs = sorted({*kinds[e], *kinds[c], *kinds[a]}) if kinds[e] or kinds[c] or kinds[a] else []
        return pongs, kongs, round(scalars[_SLOT_SCALAR[slot][3]] * 4)

    wild_kinds = tuple(kind_row("wild_kinds"))
    counts = list(hand)
    wilds = 0
    for k in wild_kinds:
        wilds += counts[k]
        counts[k] = 0
    phase = PHASES[max(range(_N_PHASES), key=lambda i: scalars[i])]
    pongs, kongs, hidden = melds_of(0)
    chi_runs = sum(counts_rows[_C["chis/0"]]) // 3
    if pongs or kongs:
        m = [0] * NUM_KINDS
        for k in pongs:  # a 飞 (宜宾) shows as a pong but holds a 听用: hand and meld never exceed four copies
            m[k] = min(3, 4 - counts[k])
        for k in kongs:
            m[k] = 4
        melded = bytes(m)
    else:
        melded = b""
    visible = counts_rows[_C["visible"]]
    if in_play is None:
        live = [max(0, 4 - v) for v in visible]
    else:
        live = [0] * NUM_KINDS
        for k in in_play:
            live[k] = max(0, 4 - visible[k])
    n_players = round(sum(scalars[_SLOT_SCALAR[i][2]] for i in _SLOTS))
    opponents = []
    for slot in range(1, n_players):
        d_row, r_row = _SLOT_COUNT[slot]
        disc = counts_rows[d_row]
        last = kinds[_SLOT_KIND[slot][5]]
        rev = counts_rows[r_row]
        o_pongs, o_kongs, o_hidden = melds_of(slot)
        opponents.append(
            Opponent(
                slot=slot,
                active=bool(scalars[_SLOT_SCALAR[slot][0]]),
                won=bool(scalars[_SLOT_SCALAR[slot][1]]),
                void=void_of(slot),
                discards=disc,
                n_discards=sum(disc),
                last_discard=last[0] if last else None,
                pongs=o_pongs,
                kongs=o_kongs,
                hidden_kongs=o_hidden,
                revealed=rev if any(rev) else None,
            )
        )
    claim = kind_row("claim_tile")
    drawn = kind_row("drawn_tile")
    indicator = kind_row("indicator")
    return Seen(
        phase=phase,
        hand=hand,
        counts=counts,
        wilds=wilds,
        wild_kinds=wild_kinds,
        void=void_of(0),
        pongs=pongs,
        kongs=kongs,
        melded=melded,
        n_melds=len(pongs) + len(kongs) + hidden + chi_runs,
        visible=visible,
        live=live,
        wall=round(scalars[_S["wall"]] * WALL_SCALE),
        n_players=n_players,
        exchange_picked=counts_rows[_C["exchange_picked"]],
        claim_tile=claim[0] if claim else None,
        drawn_tile=drawn[0] if drawn else None,
        won=bool(scalars[_S["won/0"]]),
        opponents=opponents,
        indicator=indicator[0] if indicator else None,
        chi_runs=chi_runs,
        opened=bool(pongs or chi_runs or kinds[_K["exposed_kongs/0"]] or kinds[_K["added_kongs/0"]]),
    )
