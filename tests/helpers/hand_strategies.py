"""Hypothesis strategies and helpers shared by the scoring property tests (tests/test_scoring*.py)."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from envs.core.tiles import tile_code


@st.composite
def set_hands(draw, kinds: list[int], sets: int, melds: tuple[int, int]):
    """A complete hand of ``sets`` sets and a pair over ``kinds``, the first 0-n sets as pongs (``melds`` = the
    range of n): (kinds incl. the winning tile, meld strings, winning kind).

    A set is a triplet (always for honors and for ranks 8-9, which start no run) or a run starting at its kind.
    """
    counts = [0] * 34
    tiles: list[int] = []
    meld_strings: list[str] = []
    n_melds = draw(st.integers(*melds))
    for index in range(sets):
        k = draw(st.sampled_from(kinds))
        if index < n_melds or k >= 27 or k % 9 > 6 or draw(st.booleans()):
            assume(counts[k] <= 1)
            counts[k] += 3
            if index < n_melds:
                meld_strings.append(f"pong {tile_code(k)}")
            else:
                tiles += [k] * 3
        else:
            assume(all(counts[k + j] <= 3 for j in range(3)))
            for j in range(3):
                counts[k + j] += 1
            tiles += [k, k + 1, k + 2]
    k = draw(st.sampled_from(kinds))
    assume(counts[k] <= 2)
    tiles += [k, k]
    return tiles, meld_strings, draw(st.sampled_from(tiles))


def concealed_string(tiles: list[int], win: int, order: list[int] | None = None) -> str:
    """``tiles`` without one copy of the winning kind ``win``, as a tile string, optionally reordered by ``order``."""
    rest = list(tiles)
    rest.remove(win)
    if order is not None:
        rest = [rest[i] for i in order]
    return " ".join(tile_code(k) for k in rest)
