"""Melds (副露): the structured meld type shared by the engine and the scorer, and its string parser.

A :class:`Meld` is one set laid down in front of a player:

==========  ==========================  ==================================================================
kind        Chinese                     contents
==========  ==========================  ==================================================================
``pong``    碰                           three copies of ``tile`` claimed from a discard
``kong``    直杠 / 明杠 (exposed)          four copies; the fourth claimed from a discard
``ankong``  暗杠 (concealed)              four concealed copies declared on the owner's turn
``bukong``  补杠 / 加杠 (added)            an own pong plus the fourth copy, added on the owner's turn
``chi``     吃 (Wuhan)                   the run ``tile, tile+1, tile+2`` (``tile`` is the lowest kind)
``fei``     飞 (Yibin)                   a triplet of ``tile`` made of ``3 - wilds`` natural copies and ``wilds``
                                        听用 wildcards (physical kinds in ``wild_kinds`` when known)
==========  ==========================  ==================================================================

String form (:func:`parse_meld`): a kind word followed by tiles, e.g. ``"pong 5m"``, ``"pong 555m"``, ``"kong 9s"``,
``"ankong 3p"``, ``"bukong 7s"``, ``"chi 345m"``, ``"fei 7m 4s"`` (natural kind first, then the wildcard tile(s)).
Chinese and pinyin aliases are accepted (``碰``/``peng``, ``杠``/``明杠``/``zhigang``, ``暗杠``/``angang``, ``补杠``/
``bugang``/``jiagang``, ``吃``, ``飞``).  ``str(meld)`` gives back the canonical form.

>>> parse_meld("pong 5m")
Meld(kind=<MeldKind.PONG: 'pong'>, tile=4, wilds=0, from_seat=None, wild_kinds=(), claimed=None)
>>> str(parse_meld("暗杠 3p"))
'ankong 3p'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from envs.core.tiles import NUM_KINDS, NUM_SUITED, parse_tiles, tile_code


class MeldKind(StrEnum):
    """Kinds of melds."""

    PONG = "pong"  # 碰
    KONG = "kong"  # 直杠 exposed kong from a discard
    ANKONG = "ankong"  # 暗杠 concealed kong
    BUKONG = "bukong"  # 补杠 added kong
    CHI = "chi"  # 吃 run (Wuhan)
    FEI = "fei"  # 飞 triplet completed by 听用 (Yibin)


KONG_KINDS = frozenset({MeldKind.KONG, MeldKind.ANKONG, MeldKind.BUKONG})
"""The three kong kinds (a kong counts as one set of four tiles)."""

HIDDEN_TILE = -1
"""``tile`` of a concealed kong whose kind is hidden from the viewer (Wuhan does not reveal 暗杠)."""

_ALIASES: dict[str, MeldKind] = {
    "pong": MeldKind.PONG,
    "peng": MeldKind.PONG,
    "pung": MeldKind.PONG,
    "碰": MeldKind.PONG,
    "kong": MeldKind.KONG,
    "minggang": MeldKind.KONG,
    "zhigang": MeldKind.KONG,
    "daminggang": MeldKind.KONG,
    "杠": MeldKind.KONG,
    "明杠": MeldKind.KONG,
    "直杠": MeldKind.KONG,
    "ankong": MeldKind.ANKONG,
    "angang": MeldKind.ANKONG,
    "暗杠": MeldKind.ANKONG,
    "bukong": MeldKind.BUKONG,
    "bugang": MeldKind.BUKONG,
    "jiagang": MeldKind.BUKONG,
    "补杠": MeldKind.BUKONG,
    "加杠": MeldKind.BUKONG,
    "巴杠": MeldKind.BUKONG,
    "chi": MeldKind.CHI,
    "吃": MeldKind.CHI,
    "fei": MeldKind.FEI,
    "飞": MeldKind.FEI,
}


@dataclass(frozen=True, slots=True)
class Meld:
    """One meld.  ``tile`` is the kind of a pong/kong/飞 triplet or the lowest kind of a 吃 run.

    ``wilds`` counts the wildcards inside the meld (only a 飞 may hold any); ``wild_kinds`` optionally names their
    physical kinds (needed to return the 听用 to the hand on 提 and to check the four-copy limit); ``from_seat`` is
    the seat the claimed tile came from (``None`` for concealed and added kongs, or when unknown); ``claimed``
    optionally names the kind of the claimed discard (it matters for a 吃 run, whose three kinds differ).
    """

    kind: MeldKind
    tile: int
    wilds: int = 0
    from_seat: int | None = None
    wild_kinds: tuple[int, ...] = ()
    claimed: int | None = None

    def __post_init__(self) -> None:
        try:
            kind = MeldKind(self.kind)
        except ValueError:
            valid = [k.value for k in MeldKind]
            raise ValueError(f"unknown meld kind {self.kind!r}; expected one of {valid}") from None
        object.__setattr__(self, "kind", kind)
        if isinstance(self.tile, bool) or not isinstance(self.tile, int):
            raise ValueError(f"meld tile must be a kind index 0-33, got {self.tile!r}")
        if self.tile == HIDDEN_TILE:
            if kind is not MeldKind.ANKONG:
                raise ValueError(f"only a concealed kong may hide its tile (tile -1), not a {kind.value}")
        elif not 0 <= self.tile < NUM_KINDS:
            raise ValueError(f"meld tile {self.tile!r} is out of range 0-33")
        if kind is MeldKind.CHI and (self.tile >= NUM_SUITED or self.tile % 9 > 6):
            raise ValueError(f"chi run must start at a suited rank 1-7, got {tile_code(self.tile)}")
        if isinstance(self.wilds, bool) or not isinstance(self.wilds, int) or self.wilds < 0:
            raise ValueError(f"meld wilds must be a non-negative integer, got {self.wilds!r}")
        if self.wilds and kind is not MeldKind.FEI:
            raise ValueError(f"only a fei (飞) meld may hold wildcards, got {self.wilds} in a {kind.value}")
        if kind is MeldKind.FEI and not 1 <= self.wilds <= 2:
            raise ValueError(f"a fei (飞) meld holds 1 or 2 wildcards, got {self.wilds}")
        wk = tuple(self.wild_kinds)
        if wk and len(wk) != self.wilds:
            raise ValueError(f"wild_kinds {wk!r} must name exactly {self.wilds} tile(s) or be empty")
        if any(isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < NUM_KINDS for k in wk):
            raise ValueError(f"wild_kinds {wk!r} must be kind indices 0-33")
        object.__setattr__(self, "wild_kinds", wk)
        if self.claimed is not None and (kind is MeldKind.ANKONG or self.claimed not in self.represented()):
            raise ValueError(f"claimed tile {self.claimed!r} is not a claimed tile of this {kind.value} meld")

    # ---- shape --------------------------------------------------------------------------------------
    @property
    def is_kong(self) -> bool:
        """Any of 直杠, 暗杠, 补杠."""
        return self.kind in KONG_KINDS

    @property
    def is_concealed(self) -> bool:
        """Only a 暗杠 keeps the hand concealed (门清)."""
        return self.kind is MeldKind.ANKONG

    @property
    def is_run(self) -> bool:
        """A 吃 run (the only meld that is not a triplet or kong)."""
        return self.kind is MeldKind.CHI

    @property
    def size(self) -> int:
        """Physical tiles in the meld: 4 for a kong, 3 otherwise."""
        return 4 if self.is_kong else 3

    def represented(self) -> tuple[int, ...]:
        """Kinds the meld stands for, wildcards counted as the kind they represent (飞 777m -> 7m 7m 7m)."""
        if self.kind is MeldKind.CHI:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * self.size

    def natural(self) -> tuple[int, ...]:
        """Kinds of the meld's natural (non-wildcard) tiles."""
        rep = self.represented()
        return rep[: len(rep) - self.wilds]

    def __str__(self) -> str:
        if self.tile == HIDDEN_TILE:
            return "ankong ??"
        if self.kind is MeldKind.CHI:
            return f"chi {''.join(str(k % 9 + 1) for k in self.represented())}{tile_code(self.tile)[-1]}"
        text = f"{self.kind.value} {tile_code(self.tile)}"
        if self.wild_kinds:
            text += " " + " ".join(tile_code(k) for k in self.wild_kinds)
        return text


def parse_meld(text: str, *, from_seat: int | None = None) -> Meld:
    """Parse one meld string such as ``"pong 5m"``, ``"kong 9999s"``, ``"chi 345m"`` or ``"fei 7m 4s"``.

    Raises ``ValueError`` naming the problem: unknown kind word, missing or unknown tiles, tiles that do not make
    the named meld.
    """
    if not isinstance(text, str):
        raise ValueError(f"meld string expected (e.g. 'pong 5m'), got {type(text).__name__}: {text!r}")
    parts = text.strip().split(None, 1)
    if len(parts) != 2:
        raise ValueError(f"meld {text!r} must be a kind word and tiles, e.g. 'pong 5m' or 'ankong 3p'")
    word, rest = parts
    kind = _ALIASES.get(word.lower())
    if kind is None:
        raise ValueError(
            f"meld {text!r}: unknown kind {word!r}; "
            "expected pong, kong (直杠), ankong (暗杠), bukong (补杠), chi or fei"
        )
    try:
        if kind is MeldKind.FEI:
            head, _, wild_text = rest.strip().partition(" ")
            naturals = parse_tiles(head)
            wild_kinds = tuple(parse_tiles(wild_text)) if wild_text.strip() else ()
        else:
            naturals = parse_tiles(rest)
            wild_kinds = ()
    except ValueError as exc:
        raise ValueError(f"meld {text!r}: {exc}") from None
    if not naturals:
        raise ValueError(f"meld {text!r} names no tile")
    tile = naturals[0]
    if kind is MeldKind.CHI:
        tile = min(naturals)
        if len(naturals) != 3 or sorted(naturals) != [tile, tile + 1, tile + 2] or tile >= NUM_SUITED:
            raise ValueError(f"meld {text!r}: a chi needs three consecutive tiles of one suit, e.g. 'chi 345m'")
        if tile % 9 > 6:
            raise ValueError(f"meld {text!r}: a chi run cannot wrap around 9-1")
        return Meld(kind, tile, from_seat=from_seat)
    if any(k != tile for k in naturals):
        raise ValueError(f"meld {text!r}: a {kind.value} holds copies of one kind, got {len(set(naturals))} kinds")
    if kind is MeldKind.FEI:
        if not wild_kinds:
            raise ValueError(f"meld {text!r}: a fei names its natural kind then its 听用 tile(s), e.g. 'fei 7m 4s'")
        n_wild = len(wild_kinds)
        if len(naturals) not in (1, 3 - n_wild):
            raise ValueError(f"meld {text!r}: a fei holds {3 - n_wild} natural tile(s) and {n_wild} 听用")
        return Meld(kind, tile, wilds=n_wild, from_seat=from_seat, wild_kinds=wild_kinds)
    size = 4 if kind in KONG_KINDS else 3
    if len(naturals) not in (1, size):
        raise ValueError(f"meld {text!r}: a {kind.value} is written with 1 or {size} tiles, got {len(naturals)}")
    return Meld(kind, tile, from_seat=from_seat)


def parse_melds(items: list[str] | tuple[str, ...] | str | None) -> tuple[Meld, ...]:
    """Parse a list of meld strings (a single string with ``;``/``,`` separators is also accepted)."""
    if items is None:
        return ()
    if isinstance(items, str):
        items = [p for p in items.replace(";", ",").split(",") if p.strip()]
    out = []
    for item in items:
        if isinstance(item, Meld):
            out.append(item)
        else:
            out.append(parse_meld(item))
    return tuple(out)
