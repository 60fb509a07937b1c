"""Player view (玩家视角): everything one seat may know at a decision point, and nothing else.

The engine builds a :class:`PlayerView` with ``Game.view(seat)``; the observation encoder, the renderer and the
rule-based agents read only this object.  It holds the seat's own concealed tiles and public information
(RULES.md §2.14): discards, melds (concealed kongs per ``reveal_concealed_kong``), declared void suits, the exchange
direction once revealed, wins, wall count and scores.  It never holds another player's concealed tiles (except hands
that the rules reveal, such as frozen 血流 hands) or the wall.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from envs.core.actions import Action
from envs.core.melds import Meld


class Phase(StrEnum):
    """Hand phases of RULES.md §2.2, with the play phase split by the kind of decision."""

    EXCHANGE = "exchange"  # 换三张: pick three tiles of one suit
    DINGQUE = "dingque"  # 定缺: declare a void suit
    SELF = "self"  # own turn after a draw (or after a pong): 自摸 / kong / discard
    CLAIM = "claim"  # answer a discard: hu / kong / pong / pass
    ROB = "rob"  # answer an added kong: hu (抢杠) / pass
    DECLARE = "declare"  # a declaration before the own draw: 断卡根 报胡 (baohu) / pass
    END = "end"  # the hand is over


@dataclass(frozen=True, slots=True)
class WinInfo:
    """A public win record: who won, on what, from whom, and the scored value."""

    seat: int
    tile: int
    from_seat: int | None  # None for a self-draw (自摸) or the four-红中 instant win
    how: str  # "zimo", "dianpao" (discard), "qianggang" (robbing a kong), "instant" (four 红中), "qinghu" (断卡根 请胡)
    doublings: int
    payment: int  # the scorer's amount per payer; 断卡根 (报胡 penalty) and Wuhan payers may differ: see the transfers
    order: int  # 0 for the hand's first win, 1 for the next ...


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What ``seat`` may see now.  Tuples indexed by seat hold one entry per player."""

    seat: int
    num_players: int
    variant: str
    phase: Phase
    to_act: bool  # whether this seat has a decision to make now
    dealer: int
    current: int  # the seat whose turn it is (the discarder during a claim window)
    hand: tuple[int, ...]  # own concealed tiles as 34 counts (wild tiles counted under their own kind)
    drawn_tile: int | None  # the tile this seat just drew, on its own turn
    melds: tuple[tuple[Meld, ...], ...]  # per seat; a hidden concealed kong has tile == -1
    discards: tuple[tuple[int, ...], ...]  # per seat, in order, including tiles later claimed by others
    void_suits: tuple[int | None, ...]  # per seat, None until declared (and revealed)
    own_void: int | None
    won: tuple[bool, ...]  # per seat: has won at least once this hand
    active: tuple[bool, ...]  # per seat: still playing (血战 winners leave)
    wins: tuple[WinInfo, ...]  # every win so far, in order
    revealed_hands: tuple[tuple[int, ...] | None, ...]  # per seat: concealed counts the rules reveal, else None
    claim_tile: int | None  # tile being claimed (discard) or robbed (added kong)
    claim_from: int | None
    exchange_given: tuple[int, ...]  # own three tiles passed in 换三张 (empty before / without the exchange)
    exchange_received: tuple[int, ...]  # the three tiles received (known once the exchange resolved)
    exchange_offset: int | None  # receiver = (giver + offset) % n, public after the exchange; None before
    wall_remaining: int
    scores: tuple[int, ...]  # per seat: points won or lost in this hand so far (base units)
    match_points: tuple[int, ...]  # per seat: running match total
    wild_kinds: tuple[int, ...]  # kinds that act as wildcards for this hand (红中; 听用)
    indicator: int | None  # 本金 / 赖子 indicator tile, when the variant flips one
    pass_hu_locked: tuple[int, ...]  # kinds this seat may not win on a discard now (过胡); all kinds for "any_tile"
    pass_pong_locked: tuple[int, ...]  # kinds this seat may not pong now (过碰)
    legal_actions: tuple[Action, ...]  # empty when this seat has nothing to decide
    baohu: tuple[bool, ...] = ()  # 断卡根, per seat: declared 报胡 (ready); () in variants without it
    qinghu: tuple[bool, ...] = ()  # 断卡根, per seat: announced 请胡 (its discards are 请胡 singles); () without it
