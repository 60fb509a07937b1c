"""Melds: the structured type and its string parser."""

from __future__ import annotations

import dataclasses

import pytest

from envs.core.melds import HIDDEN_TILE, Meld, MeldKind, parse_meld, parse_melds
from envs.core.tiles import kind_of


@pytest.mark.parametrize(
    ("text", "kind", "tile", "size"),
    [
        ("pong 5m", MeldKind.PONG, "5m", 3),
        ("pong 555m", MeldKind.PONG, "5m", 3),
        ("kong 9s", MeldKind.KONG, "9s", 4),
        ("kong 9999s", MeldKind.KONG, "9s", 4),
        ("ankong 3p", MeldKind.ANKONG, "3p", 4),
        ("bukong 7s", MeldKind.BUKONG, "7s", 4),
        ("碰 2m", MeldKind.PONG, "2m", 3),
        ("暗杠 1p", MeldKind.ANKONG, "1p", 4),
        ("jiagang 4s", MeldKind.BUKONG, "4s", 4),
        ("chi 345m", MeldKind.CHI, "3m", 3),
        ("chi 756s", MeldKind.CHI, "5s", 3),
    ],
)
def test_parse_meld_kinds(text, kind, tile, size):
    meld = parse_meld(text)
    assert meld.kind is kind
    assert meld.tile == kind_of(tile)
    assert meld.size == size
    assert parse_meld(str(meld)) == meld


def test_meld_tiles_and_flags():
    pong = parse_meld("pong 5m")
    assert pong.represented() == (4, 4, 4) and pong.natural() == (4, 4, 4)
    assert not pong.is_kong and not pong.is_concealed
    ankong = parse_meld("ankong 3p")
    assert ankong.is_kong and ankong.is_concealed and ankong.represented() == (11,) * 4
    assert parse_meld("kong 9s").is_kong and not parse_meld("kong 9s").is_concealed
    chi = parse_meld("chi 789p")
    assert chi.is_run and chi.represented() == (15, 16, 17)


def test_fei_meld_holds_a_wildcard():
    fei = parse_meld("fei 7m 4s")
    assert fei.kind is MeldKind.FEI and fei.wilds == 1 and fei.wild_kinds == (kind_of("4s"),)
    assert fei.represented() == (6, 6, 6)
    assert fei.natural() == (6, 6)
    assert str(fei) == "fei 7m 4s"
    assert parse_meld("fei 77m 6s") == Meld(MeldKind.FEI, 6, wilds=1, wild_kinds=(kind_of("6s"),))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pong", "kind word and tiles"),
        ("pang 5m", "unknown kind 'pang'"),
        ("pong 56m", "copies of one kind"),
        ("pong 55m", "1 or 3 tiles"),
        ("kong 99s", "1 or 4 tiles"),
        ("pong 0m", "out of range"),
        ("pong 5x", "unknown character"),
        ("chi 135m", "three consecutive"),
        ("chi 89m1p", "cannot wrap"),
        ("chi 3m", "three consecutive"),
        ("fei 7m", "natural kind then its 听用"),
        ("fei 777m 4s", "2 natural tile"),
    ],
)
def test_parse_meld_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_meld(text)


def test_meld_constructor_validates():
    with pytest.raises(ValueError, match="unknown meld kind"):
        Meld("triple", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out of range"):
        Meld(MeldKind.PONG, 34)
    with pytest.raises(ValueError, match="only a fei"):
        Meld(MeldKind.PONG, 3, wilds=1)
    with pytest.raises(ValueError, match="only a concealed kong"):
        Meld(MeldKind.PONG, HIDDEN_TILE)
    with pytest.raises(ValueError, match="chi run must start"):
        Meld(MeldKind.CHI, 8)
    with pytest.raises(ValueError, match="exactly 1 tile"):
        Meld(MeldKind.FEI, 3, wilds=1, wild_kinds=(22, 24))
    hidden = Meld(MeldKind.ANKONG, HIDDEN_TILE)
    assert str(hidden) == "ankong ??"
    assert Meld("pong", 3).kind is MeldKind.PONG  # type: ignore[arg-type]


def test_meld_is_frozen_and_hashable():
    meld = parse_meld("pong 5m", from_seat=2)
    assert meld.from_seat == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        meld.tile = 3  # type: ignore[misc]
    assert len({meld, parse_meld("pong 5m", from_seat=2)}) == 1


def test_parse_melds_list_and_string():
    assert parse_melds(None) == ()
    assert parse_melds(["pong 5m", "kong 9s"]) == (parse_meld("pong 5m"), parse_meld("kong 9s"))
    assert parse_melds("pong 5m; ankong 3p") == (parse_meld("pong 5m"), parse_meld("ankong 3p"))
