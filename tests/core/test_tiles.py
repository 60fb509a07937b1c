"""Tests of envs/core/tiles.py: the 34-kind index, hand-string parsing and its errors, formatting, names and glyphs."""

from __future__ import annotations

import random

import pytest

from envs.core.tiles import (
    EAST,
    GLYPH_BACK,
    GLYPHS,
    GREEN,
    HONG_ZHONG,
    NORTH,
    NUM_KINDS,
    RED,
    SOUTH,
    WEST,
    WHITE,
    chinese_name,
    counts_to_kinds,
    format_counts,
    format_tiles,
    glyphs,
    is_honor,
    is_jiang,
    is_terminal,
    kind_of,
    parse_counts,
    parse_tiles,
    rank_of,
    suit_letter,
    suit_of,
    tile_code,
    to_counts,
)


def test_index_layout_follows_rules_1_1():
    assert [kind_of(c) for c in ("1m", "9m", "1p", "9p", "1s", "9s")] == [0, 8, 9, 17, 18, 26]
    assert [kind_of(f"{r}z") for r in range(1, 8)] == list(range(27, 34))
    assert (EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE) == (27, 28, 29, 30, 31, 32, 33)
    assert HONG_ZHONG == RED == 31  # 5z is 红中 (Chinese order 东南西北中发白), not Tenhou's 7z


def test_honor_letters():
    assert parse_tiles("ESWNCFP") == [EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE]
    assert parse_tiles("5z C") == [RED, RED]


def test_parse_keeps_written_order_and_accepts_separators():
    assert parse_tiles("123m 5z") == [0, 1, 2, 31]
    assert parse_tiles("3m1m,2p\t9s\n") == [2, 0, 10, 26]
    assert parse_tiles("") == []
    assert parse_counts("112m")[:3] == [2, 1, 0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123x", "unknown character 'x'"),
        ("m", "has no digits before it"),
        ("123", "at the end of '123' have no suit letter"),
        ("12 3m", "digits '12' in '12 3m' have no suit letter"),
        ("12E", "have no suit letter"),
        ("0m", "rank 0m"),
        ("8z", "honor rank 8z"),
        ("0z", "honor rank 0z"),
        ("11111m", "fifth copy of 1m"),
        ("CCCCC", "fifth copy of 5z"),
    ],
)
def test_parse_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_tiles(text)


def test_parse_rejects_non_strings_and_can_skip_the_copy_check():
    with pytest.raises(ValueError, match="tile string expected"):
        parse_tiles(123)  # type: ignore[arg-type]
    assert parse_tiles("11111m", check_copies=False) == [0] * 5


def test_kind_of_needs_exactly_one_tile():
    assert kind_of("C") == RED
    with pytest.raises(ValueError, match="exactly one tile"):
        kind_of("12m")
    with pytest.raises(ValueError, match="exactly one tile"):
        kind_of("")


def test_counts_round_trip():
    rng = random.Random(3)
    for _ in range(200):
        kinds = sorted(rng.sample([k for k in range(NUM_KINDS) for _ in range(4)], rng.randrange(15)))
        counts = to_counts(kinds)
        assert counts_to_kinds(counts) == kinds
        assert parse_counts(format_counts(counts)) == counts
        assert sorted(parse_tiles(format_tiles(kinds))) == kinds


def test_formatting():
    assert format_tiles([31, 0, 1]) == "12m 5z"
    assert format_tiles([]) == ""
    assert format_tiles([26, 9, 0, 33]) == "1m 1p 9s 7z"
    assert format_counts(parse_counts("9s 1m 55p")) == "1m 55p 9s"
    assert tile_code(RED) == "5z"
    with pytest.raises(ValueError, match="out of range"):
        format_tiles([34])
    with pytest.raises(ValueError, match="out of range"):
        to_counts([-1])


def test_kind_predicates():
    assert [suit_of(k) for k in (0, 9, 18, 27, 33)] == [0, 1, 2, 3, 3]
    assert [suit_letter(k) for k in (0, 9, 18, 27)] == ["m", "p", "s", "z"]
    assert [rank_of(k) for k in (0, 8, 13, 26, 27, 33)] == [1, 9, 5, 9, 1, 7]
    assert [k for k in range(NUM_KINDS) if is_terminal(k)] == [0, 8, 9, 17, 18, 26]
    assert [k for k in range(NUM_KINDS) if is_honor(k)] == list(range(27, 34))
    assert [k % 9 + 1 for k in range(NUM_KINDS) if is_jiang(k)] == [2, 5, 8] * 3


def test_chinese_names():
    assert chinese_name(0) == "一万"
    assert chinese_name(17) == "九筒"
    assert chinese_name(22) == "五条"
    assert [chinese_name(k) for k in range(27, 34)] == ["东", "南", "西", "北", "红中", "发", "白"]


def test_glyphs():
    assert len(GLYPHS) == NUM_KINDS and len(set(GLYPHS)) == NUM_KINDS
    assert glyphs([31, 0]) == "\U0001f007\U0001f004"  # 🀇🀄, sorted by kind
    assert GLYPHS[9] == "\U0001f019" and GLYPHS[18] == "\U0001f010"  # 🀙 one dot, 🀐 one bamboo
    assert GLYPHS[27:31] == ("\U0001f000", "\U0001f001", "\U0001f002", "\U0001f003")  # 🀀🀁🀂🀃 winds
    assert GLYPHS[31:] == ("\U0001f004", "\U0001f005", "\U0001f006")  # 🀄 red, 🀅 green, 🀆 white
    assert GLYPH_BACK == "\U0001f02b"
