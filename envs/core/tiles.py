"""Tiles (牌): the canonical 34-kind index of RULES.md §1.1, parsing, formatting and glyphs.

Index layout (the same in every variant, so a tile kind has one id everywhere):

=======  ===========================  ===========
index    kind                         string code
=======  ===========================  ===========
0-8      万 characters 1-9              ``1m``-``9m``
9-17     筒 dots 1-9                    ``1p``-``9p``
18-26    条 bamboo 1-9                  ``1s``-``9s``
27-30    东 南 西 北 winds               ``1z``-``4z`` (also ``E S W N``)
31       红中 red dragon                 ``5z`` (also ``C``)
32       发 green dragon                 ``6z`` (also ``F``)
33       白 white dragon                 ``7z`` (also ``P``)
=======  ===========================  ===========

Honors follow the Chinese order 东南西北中发白, so ``5z`` is 红中.  Tenhou notation orders the dragons
白发中 (its ``7z`` is 中); this parser does **not** use the Tenhou order.  The letters ``C F P`` name the
dragons unambiguously and ``E S W N`` the winds.

Hand strings: digits followed by a suit letter, groups separated by optional spaces, e.g.
``"123m 456p 789s 55z"`` or ``"123m5zC"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

NUM_KINDS = 34
NUM_SUITED = 27
COPIES = 4
SUIT_LETTERS = "mps"
SUIT_NAMES = {"m": "万 characters", "p": "筒 dots", "s": "条 bamboo"}

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
RED, GREEN, WHITE = 31, 32, 33
HONG_ZHONG = RED  # 红中

_HONOR_LETTERS = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH, "C": RED, "F": GREEN, "P": WHITE}
_HONOR_CHINESE = "东南西北中发白"
_SUIT_CHINESE = "万筒条"
_NUMERALS = "一二三四五六七八九"

# Unicode Mahjong Tiles block: 🀇-🀏 characters, 🀙-🀡 dots, 🀐-🀘 bamboo, 🀀-🀃 winds, 🀄 red, 🀅 green, 🀆 white.
GLYPHS: tuple[str, ...] = tuple(
    [chr(0x1F007 + r) for r in range(9)]
    + [chr(0x1F019 + r) for r in range(9)]
    + [chr(0x1F010 + r) for r in range(9)]
    + [chr(0x1F000 + r) for r in range(4)]
    + [chr(0x1F004), chr(0x1F005), chr(0x1F006)]
)
GLYPH_BACK = chr(0x1F02B)


def suit_of(kind: int) -> int:
    """Suit number of a kind: 0 = 万 m, 1 = 筒 p, 2 = 条 s, 3 = honors."""
    return kind // 9 if kind < NUM_SUITED else 3


def suit_letter(kind: int) -> str:
    """``"m"``, ``"p"``, ``"s"`` or ``"z"``."""
    return "mpsz"[suit_of(kind)]


def rank_of(kind: int) -> int:
    """Rank 1-9 of a suited kind; 1-7 for honors in 东南西北中发白 order."""
    return kind % 9 + 1 if kind < NUM_SUITED else kind - NUM_SUITED + 1


def is_terminal(kind: int) -> bool:
    """幺九牌: a suited 1 or 9."""
    return kind < NUM_SUITED and kind % 9 in (0, 8)


def is_honor(kind: int) -> bool:
    """字牌: wind or dragon."""
    return kind >= NUM_SUITED


def is_jiang(kind: int) -> bool:
    """将牌: a suited 2, 5 or 8."""
    return kind < NUM_SUITED and kind % 9 in (1, 4, 7)


def kind_of(code: str) -> int:
    """The kind of one tile code such as ``"5m"``, ``"5z"`` or ``"C"``."""
    kinds = parse_tiles(code)
    if len(kinds) != 1:
        raise ValueError(f"expected exactly one tile, got {code!r} ({len(kinds)} tiles)")
    return kinds[0]


def parse_tiles(text: str, *, check_copies: bool = True) -> list[int]:
    """Parse a hand string into a list of kinds, in the order written.

    >>> parse_tiles("123m 5z")
    [0, 1, 2, 31]
    >>> parse_tiles("11p C")
    [9, 9, 31]

    Raises ``ValueError`` naming the bad part for an unknown character, digits with no suit letter,
    a rank out of range (``0m``, ``8z``) or, when ``check_copies``, a fifth copy of a kind.
    """
    if not isinstance(text, str):
        raise ValueError(f"tile string expected, got {type(text).__name__}: {text!r}")
    kinds: list[int] = []
    digits: list[int] = []
    digit_start = 0
    for pos, ch in enumerate(text):
        if ch.isdigit():
            if not digits:
                digit_start = pos
            digits.append(int(ch))
        elif ch in "mpsz":
            if not digits:
                raise ValueError(f"suit letter {ch!r} at position {pos} of {text!r} has no digits before it")
            for r in digits:
                if ch == "z":
                    if not 1 <= r <= 7:
                        raise ValueError(f"honor rank {r}z in {text!r} is out of range (1z-7z)")
                    kinds.append(NUM_SUITED + r - 1)
                else:
                    if not 1 <= r <= 9:
                        raise ValueError(f"rank {r}{ch} in {text!r} is out of range (1-9)")
                    kinds.append(SUIT_LETTERS.index(ch) * 9 + r - 1)
            digits = []
        elif ch in _HONOR_LETTERS:
            if digits:
                raise ValueError(f"digits {text[digit_start:pos]!r} in {text!r} have no suit letter (m, p, s or z)")
            kinds.append(_HONOR_LETTERS[ch])
        elif ch in " ,\t\n":
            if digits:
                raise ValueError(f"digits {text[digit_start:pos]!r} in {text!r} have no suit letter (m, p, s or z)")
        else:
            raise ValueError(
                f"unknown character {ch!r} at position {pos} of {text!r}; expected digits with m/p/s/z, "
                "or one of E S W N C F P"
            )
    if digits:
        raise ValueError(f"digits {text[digit_start:]!r} at the end of {text!r} have no suit letter (m, p, s or z)")
    if check_copies:
        counts = [0] * NUM_KINDS
        for k in kinds:
            counts[k] += 1
            if counts[k] > COPIES:
                raise ValueError(f"{text!r} holds a fifth copy of {format_tiles([k])}; a kind has only 4 copies")
    return kinds


def to_counts(kinds: Iterable[int]) -> list[int]:
    """34-count vector of a list of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        if not 0 <= k < NUM_KINDS:
            raise ValueError(f"tile kind {k!r} is out of range 0-33")
        counts[k] += 1
    return counts


def parse_counts(text: str) -> list[int]:
    """Parse a hand string into a 34-count vector (see :func:`parse_tiles`).

    >>> parse_counts("1123m")[:4]
    [2, 1, 1, 0]
    """
    return to_counts(parse_tiles(text))


def counts_to_kinds(counts: Sequence[int]) -> list[int]:
    """Sorted list of kinds from a 34-count vector."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def format_tiles(kinds: Iterable[int]) -> str:
    """Compact string of kinds, grouped by suit in m p s z order.

    >>> format_tiles([31, 1, 0, 9])
    '12m 1p 5z'
    """
    groups: dict[str, list[int]] = {c: [] for c in "mpsz"}
    for k in sorted(kinds):
        if not 0 <= k < NUM_KINDS:
            raise ValueError(f"tile kind {k!r} is out of range 0-33")
        groups[suit_letter(k)].append(rank_of(k))
    return " ".join("".join(map(str, ranks)) + c for c, ranks in groups.items() if ranks)


def format_counts(counts: Sequence[int]) -> str:
    """Compact string of a 34-count vector."""
    return format_tiles(counts_to_kinds(counts))


def tile_code(kind: int) -> str:
    """The two-character code of one kind, e.g. ``"5z"``."""
    return format_tiles([kind])


def chinese_name(kind: int) -> str:
    """Chinese name of a kind.

    >>> chinese_name(0), chinese_name(26), chinese_name(31)
    ('一万', '九条', '红中')
    """
    if kind >= NUM_SUITED:
        name = _HONOR_CHINESE[kind - NUM_SUITED]
        return "红中" if kind == RED else name
    return _NUMERALS[kind % 9] + _SUIT_CHINESE[kind // 9]


def glyphs(kinds: Iterable[int]) -> str:
    """Unicode tile glyphs of kinds, sorted: ``glyphs([0, 31]) == "🀇🀄"``."""
    return "".join(GLYPHS[k] for k in sorted(kinds))
