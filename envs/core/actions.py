"""Actions (动作): the structured actions of the rules engine and the one flat ``Discrete(A)`` layout of the AEC env.

Structured actions
------------------
The engine speaks :class:`Action` values: an :class:`ActionType` plus a tile kind (``tile``) or a tuple of kinds
(``tiles``, the three tiles of 换三张).  Kongs are one type: on a player's own turn the hand decides whether ``KONG k``
is concealed (暗杠, four concealed copies) or added (补杠, an own exposed pong of k plus the fourth copy) — a kind can
never be both at once; in a claim window ``KONG k`` is the exposed kong (直杠) on the discard ``k``.

Flat layout (``ACTION_SPACE_SIZE`` = 183, shared by every variant)
--------------------------------------------------------------------

=========  =======================  ==========================================================================
ids        action                   meaning
=========  =======================  ==========================================================================
0-33       ``DISCARD k``            打牌 discard one tile of kind k
34-67      ``KONG k``               杠 kong of kind k (暗杠 / 补杠 on own turn, 直杠 on a discard)
68         ``PONG``                 碰 pong the tile being claimed
69         ``HU``                   胡 win: 自摸 on own turn, 点炮 on a discard, 抢杠 on an added kong
70         ``PASS``                 过 decline every claim (or the rob)
71-104     ``EXCHANGE_PICK k``      换三张 pick one tile of kind k (three picks, one per AEC turn)
105-107    ``DINGQUE s``            定缺 declare suit s void (0 = 万 m, 1 = 筒 p, 2 = 条 s)
108-110    ``CHI c``                吃 (Wuhan) the claimed tile is the low/middle/high tile of the run
111        ``FEI``                  飞 (Yibin) claim with one natural tile and one 听用
112-145    ``TI k``                 提 (Yibin) swap the drawn natural k into a 飞 meld of k
146        ``BAOHU``                报胡 (Duankagen) declare ready
147-180    ``QINGHU_DISCARD k``     请胡 (Duankagen) discard k announcing the five-pair request
181        ``RED_KONG``             红中杠 (Wuhan) play a 红中 out as a kong
182        ``LAIZI_KONG``           赖子杠 (Wuhan) play a 赖子 out as a kong
=========  =======================  ==========================================================================

Layout version: :data:`ACTION_LAYOUT_VERSION`.  The variant ranges (108-182) are never legal in the variants that
lack the rule.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import IntEnum

from envs.core.tiles import NUM_KINDS, format_tiles

ACTION_LAYOUT_VERSION = "chuanma-actions-v0"


class ActionType(IntEnum):
    """Kinds of structured engine actions."""

    DISCARD = 0
    KONG = 1
    PONG = 2
    HU = 3
    PASS = 4
    EXCHANGE = 5  # engine: three tiles at once; the AEC env collects three EXCHANGE_PICK turns
    DINGQUE = 6
    CHI = 7
    FEI = 8
    TI = 9
    BAOHU = 10
    QINGHU_DISCARD = 11
    RED_KONG = 12
    LAIZI_KONG = 13


@dataclass(frozen=True, slots=True)
class Action:
    """One engine action.  ``tile`` is a kind (or a suit for DINGQUE, a run position for CHI); -1 when unused."""

    type: ActionType
    tile: int = -1
    tiles: tuple[int, ...] = ()

    def __str__(self) -> str:
        name = self.type.name.lower()
        if self.type == ActionType.EXCHANGE:
            return f"exchange {format_tiles(self.tiles)}"
        if self.type == ActionType.DINGQUE:
            return f"dingque {'mps'[self.tile]}"
        if self.type == ActionType.CHI:
            return f"chi {('low', 'middle', 'high')[self.tile]}"
        if self.tile >= 0:
            return f"{name} {format_tiles([self.tile])}"
        return name


# Actions are immutable: the engine hands out one shared instance per discard / kong kind (cheap to build, and a
# legal-set membership test then succeeds on identity before comparing fields)
_DISCARDS = tuple(Action(ActionType.DISCARD, k) for k in range(NUM_KINDS))
_KONGS = tuple(Action(ActionType.KONG, k) for k in range(NUM_KINDS))


def discard(k: int) -> Action:
    if type(k) is int and 0 <= k < NUM_KINDS:
        return _DISCARDS[k]
    return Action(ActionType.DISCARD, k)


def kong(k: int) -> Action:
    if type(k) is int and 0 <= k < NUM_KINDS:
        return _KONGS[k]
    return Action(ActionType.KONG, k)


PONG = Action(ActionType.PONG)
HU = Action(ActionType.HU)
PASS = Action(ActionType.PASS)
FEI = Action(ActionType.FEI)
BAOHU = Action(ActionType.BAOHU)
RED_KONG = Action(ActionType.RED_KONG)
LAIZI_KONG = Action(ActionType.LAIZI_KONG)


def exchange(tiles: tuple[int, ...] | list[int]) -> Action:
    return Action(ActionType.EXCHANGE, tiles=tuple(sorted(tiles)))


def dingque(suit: int) -> Action:
    return Action(ActionType.DINGQUE, suit)


# ---- flat layout ------------------------------------------------------------------------------------
DISCARD_BASE = 0
KONG_BASE = 34
PONG_ID = 68
HU_ID = 69
PASS_ID = 70
EXCHANGE_BASE = 71
DINGQUE_BASE = 105
CHI_BASE = 108
FEI_ID = 111
TI_BASE = 112
BAOHU_ID = 146
QINGHU_BASE = 147
RED_KONG_ID = 181
LAIZI_KONG_ID = 182
ACTION_SPACE_SIZE = 183

_RANGES: tuple[tuple[str, int, int], ...] = (
    ("discard", DISCARD_BASE, NUM_KINDS),
    ("kong", KONG_BASE, NUM_KINDS),
    ("pong", PONG_ID, 1),
    ("hu", HU_ID, 1),
    ("pass", PASS_ID, 1),
    ("exchange_pick", EXCHANGE_BASE, NUM_KINDS),
    ("dingque", DINGQUE_BASE, 3),
    ("chi", CHI_BASE, 3),
    ("fei", FEI_ID, 1),
    ("ti", TI_BASE, NUM_KINDS),
    ("baohu", BAOHU_ID, 1),
    ("qinghu_discard", QINGHU_BASE, NUM_KINDS),
    ("red_kong", RED_KONG_ID, 1),
    ("laizi_kong", LAIZI_KONG_ID, 1),
)


def action_name(action_id: int) -> str:
    """Readable name of a flat action id.

    >>> action_name(DISCARD_BASE + 4), action_name(PONG_ID), action_name(DINGQUE_BASE + 1)
    ('discard 5m', 'pong', 'dingque p')
    """
    if not 0 <= action_id < ACTION_SPACE_SIZE:
        raise ValueError(f"action id {action_id!r} is outside 0..{ACTION_SPACE_SIZE - 1}")
    for name, base, size in _RANGES:
        if base <= action_id < base + size:
            if size == 1:
                return name
            offset = action_id - base
            if name == "dingque":
                return f"dingque {'mps'[offset]}"
            if name == "chi":
                return f"chi {('low', 'middle', 'high')[offset]}"
            return f"{name} {format_tiles([offset])}"
    raise AssertionError("unreachable: ranges cover the layout")  # pragma: no cover


def encode(action: Action) -> int:
    """Flat id of a structured action (EXCHANGE has no single id: the AEC env encodes its three picks)."""
    t, k = action.type, action.tile
    if t == ActionType.DISCARD:
        return DISCARD_BASE + k
    if t == ActionType.KONG:
        return KONG_BASE + k
    if t == ActionType.PONG:
        return PONG_ID
    if t == ActionType.HU:
        return HU_ID
    if t == ActionType.PASS:
        return PASS_ID
    if t == ActionType.DINGQUE:
        return DINGQUE_BASE + k
    if t == ActionType.CHI:
        return CHI_BASE + k
    if t == ActionType.FEI:
        return FEI_ID
    if t == ActionType.TI:
        return TI_BASE + k
    if t == ActionType.BAOHU:
        return BAOHU_ID
    if t == ActionType.QINGHU_DISCARD:
        return QINGHU_BASE + k
    if t == ActionType.RED_KONG:
        return RED_KONG_ID
    if t == ActionType.LAIZI_KONG:
        return LAIZI_KONG_ID
    raise ValueError(f"action {action} has no single flat id (换三张 is encoded as three EXCHANGE_PICK ids)")


def decode(action_id: int) -> Action:
    """Structured action of a flat id; an EXCHANGE_PICK id decodes to ``Action(EXCHANGE, tiles=(k,))``.

    >>> decode(encode(kong(31))) == kong(31)
    True
    """
    try:
        a = operator.index(action_id)
    except TypeError:
        raise ValueError(f"action id must be an integer, got {action_id!r}") from None
    if not 0 <= a < ACTION_SPACE_SIZE:
        raise ValueError(f"action id {a} is outside 0..{ACTION_SPACE_SIZE - 1}")
    if a < KONG_BASE:
        return _DISCARDS[a - DISCARD_BASE]
    if a < PONG_ID:
        return _KONGS[a - KONG_BASE]
    if a == PONG_ID:
        return PONG
    if a == HU_ID:
        return HU
    if a == PASS_ID:
        return PASS
    if a < DINGQUE_BASE:
        return Action(ActionType.EXCHANGE, tiles=(a - EXCHANGE_BASE,))
    if a < CHI_BASE:
        return Action(ActionType.DINGQUE, a - DINGQUE_BASE)
    if a < FEI_ID:
        return Action(ActionType.CHI, a - CHI_BASE)
    if a == FEI_ID:
        return FEI
    if a < BAOHU_ID:
        return Action(ActionType.TI, a - TI_BASE)
    if a == BAOHU_ID:
        return BAOHU
    if a < RED_KONG_ID:
        return Action(ActionType.QINGHU_DISCARD, a - QINGHU_BASE)
    if a == RED_KONG_ID:
        return RED_KONG
    return LAIZI_KONG


def engine_action(action_id: int, picks: list[int]) -> Action | None:
    r"""The engine action of flat ``action_id`` for a seat whose 换三张 picks so far are ``picks``: an
    ``EXCHANGE_PICK`` is appended to ``picks`` and only the third returns the exchange of all three (``picks`` is
    then emptied); None for the first two.  Every other id is :func:`decode`\ d."""
    if EXCHANGE_BASE <= action_id < EXCHANGE_BASE + NUM_KINDS:
        picks.append(action_id - EXCHANGE_BASE)
        if len(picks) < 3:
            return None
        action = exchange(picks)
        picks.clear()
        return action
    return decode(action_id)
