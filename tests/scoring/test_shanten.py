"""Tests of envs/scoring/shanten.py (win check, waits, shanten) against hand-made cases, brute force and the `mahjong`
package."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core.tiles import NUM_KINDS, RED, kind_of, parse_counts
from envs.scoring import _suit_tables
from envs.scoring.shanten import (
    ALL_MASK,
    HONOR_MASK,
    SUITED_MASK,
    clear_memos,
    is_winning,
    is_winning_str,
    kinds_mask,
    mask_excluding_suit,
    shanten,
    waits,
)

P = parse_counts
NO_RED = ALL_MASK & ~(1 << RED)
ONE_SUIT = 0x1FF  # 万 only


def kinds_of(mask: int) -> list[int]:
    return [k for k in range(NUM_KINDS) if mask >> k & 1]


# ----------------------------------------------------------------------------------------------------------------
# reference implementations: brute force, written independently of the table machinery


def ref_win(counts, wilds=0, allowed=SUITED_MASK, melds=None, seven_pairs=True) -> bool:
    """Exhaustive search: the structure holding the lowest natural tile is a triplet, pair or run; every slot is
    a natural tile or a wildcard of an allowed kind with room under the 4-copy limit; leftover wildcards form
    whole sets/pairs on their own."""
    total = sum(counts) + wilds
    assert total % 3 == 2
    melds = melds or [0] * NUM_KINDS
    ok_kinds = kinds_of(allowed)
    c = list(counts)
    rep = [0] * NUM_KINDS

    def room(k):
        return (4 - counts[k] - melds[k] - rep[k]) if allowed >> k & 1 else 0

    def wild_only(w, sets, pair):
        if w != 3 * sets + 2 * pair:
            return False
        if pair:
            for k in ok_kinds:
                if room(k) >= 2:
                    rep[k] += 2
                    found = wild_only(w - 2, sets, 0)
                    rep[k] -= 2
                    if found:
                        return True
            return False
        if sets == 0:
            return True
        for k in ok_kinds:
            groups = [[k, k, k]]
            if k < 27 and k % 9 <= 6:
                groups.append([k, k + 1, k + 2])
            for g in groups:
                if all(room(j) >= g.count(j) for j in g):
                    for j in g:
                        rep[j] += 1
                    found = wild_only(w - 3, sets - 1, 0)
                    for j in g:
                        rep[j] -= 1
                    if found:
                        return True
        return False

    def rec(w, sets, pair):
        k = next((i for i in range(NUM_KINDS) if c[i]), None)
        if k is None:
            return wild_only(w, sets, pair)
        for size, left in ((3, sets), (2, pair)):
            if not left:
                continue
            for a in range(1, min(c[k], size) + 1):
                need = size - a
                if need > w or (need and room(k) < need):
                    continue
                c[k] -= a
                rep[k] += need
                found = rec(w - need, sets - (size == 3), pair - (size == 2))
                c[k] += a
                rep[k] -= need
                if found:
                    return True
        if k < 27 and sets:
            lo, hi = 9 * (k // 9), 9 * (k // 9) + 8
            for start in (k - 2, k - 1, k):
                if start < lo or start + 2 > hi:
                    continue
                others = [j for j in (start, start + 1, start + 2) if j != k]
                for natural in product((True, False), repeat=2):
                    if any(nat and not c[j] for j, nat in zip(others, natural)):
                        continue
                    wild_kinds = [j for j, nat in zip(others, natural) if not nat]
                    if len(wild_kinds) > w or any(room(j) < 1 for j in wild_kinds):
                        continue
                    c[k] -= 1
                    for j, nat in zip(others, natural):
                        if nat:
                            c[j] -= 1
                        else:
                            rep[j] += 1
                    found = rec(w - len(wild_kinds), sets - 1, pair)
                    c[k] += 1
                    for j, nat in zip(others, natural):
                        if nat:
                            c[j] += 1
                        else:
                            rep[j] -= 1
                    if found:
                        return True
        return False

    if rec(wilds, (total - 2) // 3, 1):
        return True
    return seven_pairs and total == 14 and not any(melds) and ref_seven_pairs(counts, wilds, allowed)


def ref_seven_pairs(counts, wilds, allowed) -> bool:
    """Each kind ends even and at most 4, wildcards only on allowed kinds."""

    def rec(k, w):
        if k == NUM_KINDS:
            return w == 0
        options = [r for r in range(0, 5 - counts[k]) if (counts[k] + r) % 2 == 0 and r <= w]
        if not allowed >> k & 1:
            options = [r for r in options if r == 0]
        return any(rec(k + 1, w - r) for r in options)

    return rec(0, wilds)


def literal_win(counts, wilds, allowed, melds=None, seven_pairs=True) -> bool:
    """The definition word for word: try every multiset of wildcard identities, then decompose naturally."""
    melds = melds or [0] * NUM_KINDS
    total = sum(counts) + wilds
    for ids in combinations_with_replacement(kinds_of(allowed), wilds):
        hand = list(counts)
        for k in ids:
            hand[k] += 1
        if any(hand[k] + melds[k] > 4 for k in range(NUM_KINDS)):
            continue
        if simple_win(hand, (total - 2) // 3):
            return True
        if seven_pairs and total == 14 and not any(melds) and all(v % 2 == 0 for v in hand):
            return True
    return False


def simple_win(hand, n_sets) -> bool:
    """Standard shape by trying every kind as the pair, then greedy-free recursive set removal."""
    for k in range(NUM_KINDS):
        if hand[k] >= 2:
            hand[k] -= 2
            found = _sets_only(hand, n_sets)
            hand[k] += 2
            if found:
                return True
    return False


def _sets_only(c, sets) -> bool:
    k = next((i for i in range(NUM_KINDS) if c[i]), None)
    if k is None:
        return sets == 0
    if sets == 0:
        return False
    if c[k] >= 3:
        c[k] -= 3
        found = _sets_only(c, sets - 1)
        c[k] += 3
        if found:
            return True
    if k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2]:
        for j in (k, k + 1, k + 2):
            c[j] -= 1
        found = _sets_only(c, sets - 1)
        for j in (k, k + 1, k + 2):
            c[j] += 1
        return found
    return False


def ref_waits(counts, wilds, allowed, melds=None, candidates=None) -> list[int]:
    melds = melds or [0] * NUM_KINDS
    cand = allowed if candidates is None else candidates
    out = []
    for t in kinds_of(cand):
        if counts[t] + melds[t] >= 4:
            continue
        counts[t] += 1
        if ref_win(counts, wilds, allowed, melds):
            out.append(t)
        counts[t] -= 1
    return out


# ----------------------------------------------------------------------------------------------------------------
# random hands biased toward near-complete ones


def random_mask(rng: random.Random) -> int:
    choice = rng.randrange(8)
    if choice == 0:
        return SUITED_MASK
    if choice == 1:
        return mask_excluding_suit(rng.randrange(3))
    if choice == 2:
        return ALL_MASK
    if choice == 3:
        return NO_RED
    if choice == 4:
        return mask_excluding_suit(rng.randrange(3), NO_RED)
    if choice == 5:
        return 0x1FF << (9 * rng.randrange(3))
    if choice == 6:  # a random subset: suits only partly allowed (exact slow path)
        return rng.getrandbits(34)
    return mask_excluding_suit(rng.randrange(3))


def random_hand(
    rng: random.Random, *, wilds: int, residue: int = 2, kinds: int = 34, n_melds: int = 0, perturb: int | None = None
):
    """``(counts, melds)``: a complete hand (sets from ``kinds``, a pair), ``wilds`` of its tiles turned into
    wildcards, then ``perturb`` tiles swapped for random ones; one more tile dropped for a 3k+1 hand."""
    while True:
        melds = [0] * NUM_KINDS
        for _ in range(n_melds):
            melds[rng.randrange(kinds)] += rng.choice((3, 3, 3, 4))
        tiles: list[int] = []
        for _ in range(4 - n_melds):
            k = rng.randrange(kinds)
            if k >= 27 or k % 9 > 6 or rng.random() < 0.35:
                tiles += [k, k, k]
            else:
                tiles += [k, k + 1, k + 2]
        p = rng.randrange(kinds)
        tiles += [p, p]
        if rng.random() < 0.15 and n_melds == 0:  # seven pairs material
            tiles = [k for k in rng.sample(range(kinds), 7) for _ in range(2)]
        rng.shuffle(tiles)
        for _ in range(wilds):
            tiles.pop()
        swaps = rng.choice((0, 0, 1, 1, 2, 3)) if perturb is None else perturb
        for _ in range(min(swaps, len(tiles))):
            tiles[rng.randrange(len(tiles))] = rng.randrange(kinds)
        if residue == 1:
            if not tiles:
                continue
            tiles.pop(rng.randrange(len(tiles)))
        counts = [0] * NUM_KINDS
        for k in tiles:
            counts[k] += 1
        if all(counts[k] + melds[k] <= 4 for k in range(NUM_KINDS)):
            return counts, melds


# ----------------------------------------------------------------------------------------------------------------
# hand-made cases

WIN_CASES = [
    # (hand, wilds, kwargs, expected)
    ("123m 456m 789m 123p 55s", 0, {}, True),
    ("111m 222m 333m 444m 55m", 0, {}, True),
    ("11122233344455m", 0, {}, True),
    ("123m 456m 789m 123p 56s", 0, {}, False),
    ("189m 111p 222p 333s 44s", 0, {}, False),  # 8-9-1 does not wrap
    ("789m 123p 456s 111z 77z", 0, {"allowed_mask": ALL_MASK}, True),
    ("123z 456m 789m 123p 55s", 0, {}, False),  # honors never form runs
    ("11223344556677m", 0, {}, True),  # seven pairs (and 123m 123m 456m 456m 77m)
    ("1122m 3344p 5566s 77z", 0, {}, True),  # seven pairs
    ("1111m 2233p 5566s 77z", 0, {}, True),  # a quad counts as two pairs
    ("1111m 2222p 3333s 77z", 0, {}, True),
    ("1111m 2233p 5566s 77z", 0, {"seven_pairs": False}, False),
    ("1122m 3344p 5566s 67z", 0, {}, False),
    ("11m", 0, {}, True),  # the concealed pair after four melds
    ("123m 11p", 0, {}, True),
    ("123m 12p", 0, {}, False),
    ("1111m 2222m 3333m 44m", 0, {}, True),  # 123m x4 + 44m
    # wildcards
    ("123m 456m 789m 12p 55s", 1, {}, True),
    ("123m 456m 789m 13p 55s", 1, {}, True),
    ("123m 456m 789m 19p 55s", 1, {}, False),
    ("123m 456m 789m 123p 5s", 1, {}, True),
    ("123m 456m 789m 123p", 2, {}, True),  # two wildcards as the pair
    ("123m 456m 789m 55s", 3, {}, True),  # three wildcards as a set
    ("123m 456m", 8, {}, True),  # Yibin: eight 听用
    ("", 14, {}, True),
    ("1m", 13, {}, True),
    ("123m 456m 789m 12p 55s", 1, {"allowed_mask": mask_excluding_suit(1)}, False),  # void 筒: no 3p wildcard
    ("123m 456m 789m 12s 55s", 1, {"allowed_mask": mask_excluding_suit(1)}, True),
    ("123m 456m 789m 123p 5z", 1, {"allowed_mask": SUITED_MASK}, False),
    ("123m 456m 789m 123p 5z", 1, {"allowed_mask": ALL_MASK}, True),
    ("123m 456m 789m 123p 5z", 1, {"allowed_mask": NO_RED}, False),  # 中 is never represented (Wuhan)
    ("1122m 3344p 5566s 7s", 1, {}, True),  # seven pairs with a wildcard
    ("1122m 3344p 55s 66s", 2, {}, True),  # two wildcards as a pair of their own
    ("1122m 3344p 5566s 7z", 1, {"allowed_mask": SUITED_MASK}, False),
    ("1122m 3344p 567s", 3, {}, True),  # the wildcards pair up with 5s 6s 7s
    # 4-copy limit (AMB-14)
    ("1111m", 1, {}, False),  # 111m + (1m, wildcard) needs a fifth 1m; nothing else fits
    ("1111m", 1, {"allowed_mask": 1}, False),
    ("1111m 23m", 2, {}, True),  # 111m 123m + a wildcard pair
    ("2222m 3333m 4444m 5m", 1, {}, True),  # 234m x4 + 5m with a wildcard 5m
    ("111z", 2, {"allowed_mask": 1 << 27}, False),  # only 东 allowed: 3 + 2 = 5 copies of 东
    ("111z", 2, {"allowed_mask": (1 << 27) | (1 << 28)}, True),  # 111z + a 南 pair of wildcards
    ("1111z", 1, {"allowed_mask": ALL_MASK}, False),
]


@pytest.mark.parametrize(("hand", "wilds", "kwargs", "expected"), WIN_CASES)
def test_win_cases(hand, wilds, kwargs, expected):
    counts = P(hand)
    assert is_winning(counts, wilds, **kwargs) is expected
    mask = kwargs.get("allowed_mask", SUITED_MASK)
    assert ref_win(counts, wilds, mask, seven_pairs=kwargs.get("seven_pairs", True)) is expected


def test_meld_copies_block_a_wildcard():
    # concealed 5m + a wildcard next to a pong of 5m: the pair 5m5m would be a fifth copy
    counts, melds = P("123p 456p 789p 5m"), P("555m")
    assert not is_winning(counts, 1, meld_counts=melds, n_sets=3)
    assert is_winning(counts, 1, n_sets=3)  # without the meld information the pair 5m5m is fine
    assert is_winning(P("123p 456p 789p 6m"), 1, meld_counts=melds)
    # a kong of 5m: no wildcard may stand for 5m
    assert not is_winning(P("123p 46m 7s"), 2, meld_counts=P("5555m 999s"))  # 4_6m needs a 5m
    assert is_winning(P("123p 46m 7s"), 2, meld_counts=P("999s 111s"))


def test_meld_copies_in_waits_and_shanten():
    hand = P("123p 456p 46m 11s")  # one meld: 10 concealed tiles, waiting on 5m
    assert waits(hand, meld_counts=P("555m")) == [kind_of("5m")]  # one 5m is still out there
    assert waits(hand, meld_counts=P("5555m")) == []  # a kong of 5m: dead wait
    assert shanten(hand, meld_counts=P("555m")) == 0
    assert shanten(hand, meld_counts=P("5555m")) == 1
    # a single 5m next to a 5m pong cannot become the pair
    hand = P("123p 456p 789p 5m")
    assert waits(hand) == [kind_of("5m")]
    assert waits(hand, meld_counts=P("555s")) == [kind_of("5m")]
    assert waits(hand, meld_counts=P("555m")) == []
    assert shanten(hand, meld_counts=P("555m")) == 1


def test_clear_memos_empties_them_and_keeps_the_answers():
    """clear_memos empties the memos the module fills as it answers (a capped suit, profile products)
    and the same hands get the same answers afterwards."""
    from envs.scoring import shanten as module

    hands = [
        (P("123p 456p 46m 11s"), P("555m")),
        (P("1122m 3344p 5566s 7s"), None),
        (P("123m 456m 789m 13p 58s"), None),
    ]
    before = [shanten(h, meld_counts=m) for h, m in hands]
    assert module._CAPPED_IDS and module._CONV
    clear_memos()
    assert not (module._CAPPED_IDS or module._CONV or module._FINAL or module._HONOR_IDS or module._KIND_IDS)
    assert [shanten(h, meld_counts=m) for h, m in hands] == before == [0, 0, 1]
    assert module._CAPPED_IDS  # filled again


def test_waits_cases():
    assert waits(P("1112345678999m")) == list(range(9))  # 九莲宝灯: all nine
    assert waits(P("123m 456m 789m 123p 5s")) == [kind_of("5s")]
    assert waits(P("123m 456m 789m 11p 55s")) == [kind_of("1p"), kind_of("5s")]
    assert waits(P("123m 456m 789m 13p 55s")) == [kind_of("2p")]
    assert waits(P("123m 456m 789m 89p 55s")) == [kind_of("7p")]
    assert waits(P("123m 456m 789m 78p 55s")) == [kind_of("6p"), kind_of("9p")]
    assert waits(P("1122m 3344p 5566s 7s")) == [kind_of("7s")]  # seven pairs
    assert waits(P("1122m 3344p 5566s 7s"), seven_pairs=False) == []
    # waiting on a tile the player holds all four copies of does not count
    assert waits(P("1111m 234p 567p 888s")) == []  # the only wait would be a fifth 1m
    assert waits(P("1111m 2m 234p 567p 88s")) == [kind_of("3m")]
    assert waits(P("123m 456m 789m 123p 1z"), allowed_mask=ALL_MASK) == [kind_of("1z")]
    assert waits(P("123m 456m 789m 123p 1z")) == []  # candidates default to the allowed (suited) kinds
    assert waits(P("123m 456m 789m 123p 1z"), candidates_mask=HONOR_MASK) == [kind_of("1z")]
    # with wildcards: one wildcard + 123m456m789m123p waits on everything allowed
    assert waits(P("123m 456m 789m 123p"), 1) == list(range(27))
    assert waits(P("123m 456m 789m 123p"), 1, allowed_mask=mask_excluding_suit(2)) == list(range(18))


def test_shanten_cases():
    assert shanten(P("123m 456m 789m 123p 55s")) == -1
    assert shanten(P("123m 456m 789m 123p 5s")) == 0
    assert shanten(P("123m 456m 789m 13p 59s")) == 1
    assert shanten(P("123m 456m 789m 13p 59s"), 1) == 0  # the wildcard is the 2p
    assert shanten(P("123m 456m 789m 13p 59s"), 1, allowed_mask=0) == 1  # a wildcard that fits nothing
    assert shanten(P("147m 258p 369s 1234z")) == 6  # thirteen singles: six pairs short of seven pairs
    assert shanten(P("147m 258p 369s 1234z"), seven_pairs=False) == 8
    assert shanten(P("1122m 3344p 5566s 7s")) == 0
    assert shanten(P("1122m 3344p 5566s 7s"), seven_pairs=False) == 2
    assert shanten(P("1111m 2222p 3333s 4s")) == 0  # seven pairs with quads, waiting on 4s
    # complete as seven pairs (a quad counts as two pairs) while the standard shape is only ready: every path says -1
    hand = P("667788m 11s 2222s 44s")
    assert shanten(P("6678m 78m 11s 222s 44s")) == 0
    assert shanten(hand) == shanten(tuple(hand)) == shanten(hand, meld_counts=[0] * 34) == -1
    assert shanten(P("112233m 44p 5566s 77s")) == -1
    assert shanten([0] * 34, 2) == -1
    assert shanten([0] * 34, 1) == 0
    assert shanten(P("1m")) == 0
    assert shanten(P("19m 19p 19s 1234567z"), allowed_mask=ALL_MASK) == 6  # no kokushi in this game


# ----------------------------------------------------------------------------------------------------------------
# references agree with each other (so the fast comparisons below test against something trustworthy)


def test_reference_search_matches_literal_enumeration():
    rng = random.Random(7)
    for _ in range(1500):
        wilds = rng.randrange(4)
        mask = rng.choice([0x1FF, 0x1FF << 9, (1 << 27) | (1 << 28) | (1 << 33), 0b1011 << 3])
        counts, melds = random_hand(rng, wilds=wilds, kinds=rng.choice((9, 18, 34)), n_melds=rng.choice((0, 0, 1)))
        expected = literal_win(counts, wilds, mask, melds)
        assert ref_win(counts, wilds, mask, melds) == expected, (counts, wilds, mask, melds)


# ----------------------------------------------------------------------------------------------------------------
# is_winning vs the reference


def _check_random_wins(n: int, seed: int) -> None:
    rng = random.Random(seed)
    seen = {True: 0, False: 0}
    for _ in range(n):
        wilds = rng.choice((0, 0, 1, 1, 2, 3, 4))
        n_melds = rng.choice((0, 0, 0, 1, 2))
        counts, melds = random_hand(rng, wilds=wilds, kinds=rng.choice((27, 27, 34)), n_melds=n_melds)
        mask = random_mask(rng)
        sevens = rng.random() < 0.9
        expected = ref_win(counts, wilds, mask, melds, seven_pairs=sevens)
        got = is_winning(counts, wilds, allowed_mask=mask, meld_counts=melds, seven_pairs=sevens)
        assert got == expected, (counts, wilds, hex(mask), melds, sevens)
        seen[expected] += 1
    assert min(seen.values()) > n // 10, seen  # both answers occur often


def test_is_winning_matches_reference_5k():
    _check_random_wins(5_000, seed=11)


@pytest.mark.slow
def test_is_winning_matches_reference_100k():
    _check_random_wins(100_000, seed=12)


def test_wildcards_up_to_eight_match_reference():
    rng = random.Random(13)
    for _ in range(300):
        wilds = rng.randrange(5, 9)
        counts, melds = random_hand(rng, wilds=wilds, kinds=27, n_melds=rng.choice((0, 1)))
        mask = random_mask(rng)
        expected = ref_win(counts, wilds, mask, melds)
        assert is_winning(counts, wilds, allowed_mask=mask, meld_counts=melds) == expected


def test_waits_match_reference():
    rng = random.Random(21)
    nonempty = 0
    for _ in range(250):
        wilds = rng.choice((0, 0, 1, 2, 3))
        counts, melds = random_hand(rng, wilds=wilds, residue=1, kinds=rng.choice((27, 34)), n_melds=rng.choice((0, 1)))
        mask = random_mask(rng)
        everything = ref_waits(counts, wilds, mask, melds, candidates=ALL_MASK)
        got = waits(counts, wilds, allowed_mask=mask, meld_counts=melds, candidates_mask=ALL_MASK)
        assert got == everything, (counts, wilds, hex(mask), melds)
        default = waits(counts, wilds, allowed_mask=mask, meld_counts=melds)  # candidates = allowed kinds
        assert default == [t for t in everything if mask >> t & 1]
        nonempty += bool(got)
    assert nonempty > 40


# ----------------------------------------------------------------------------------------------------------------
# shanten


mahjong_shanten = pytest.importorskip("mahjong.shanten").Shanten
mahjong_agari = pytest.importorskip("mahjong.agari").Agari


def _mahjong_hands(seed: int, n: int):
    rng = random.Random(seed)
    for i in range(n):
        if i % 3 == 0:  # uniformly random tiles
            size = rng.choice((1, 2, 4, 5, 7, 8, 10, 11, 13, 14))
            wall = [k for k in range(34) for _ in range(4)]
            counts = [0] * NUM_KINDS
            for k in rng.sample(wall, size):
                counts[k] += 1
            yield counts
        else:
            yield random_hand(rng, wilds=0, residue=rng.choice((1, 2)), kinds=rng.choice((27, 34)))[0]


def test_regular_shanten_matches_mahjong_package():
    for counts in _mahjong_hands(31, 6000):
        expected = mahjong_shanten.calculate_shanten_for_regular_hand(counts)
        assert shanten(counts, seven_pairs=False) == expected, counts


def test_seven_pairs_shanten_matches_mahjong_package():
    # mahjong's chiitoitsu needs seven distinct pairs; ours lets four copies count twice, so compare on hands
    # where no kind has more than two copies (there the rules coincide).
    checked = 0
    for counts in _mahjong_hands(32, 6000):
        if sum(counts) < 13 or max(counts) > 2:
            continue
        regular = mahjong_shanten.calculate_shanten_for_regular_hand(counts)
        sevens = mahjong_shanten.calculate_shanten_for_chiitoitsu_hand(counts)
        assert shanten(counts) == min(regular, sevens), counts
        checked += 1
    assert checked > 500


def test_win_check_matches_mahjong_package():
    wins = 0
    for counts in _mahjong_hands(33, 8000):
        if sum(counts) % 3 != 2 or max(counts) == 4:  # its chiitoitsu needs distinct pairs
            continue
        if sum(counts) == 14 and sum(counts[k] > 0 for k in (0, 8, 9, 17, 18, 26, *range(27, 34))) == 13:
            continue  # kokushi musou is not a shape in this game
        expected = mahjong_agari.is_agari(counts)
        assert is_winning(counts) == expected, counts
        wins += expected
    assert wins > 500


def _natural_shanten_over_identities(counts, wilds, mask, melds) -> int:
    """Shanten with wildcards = best shanten over all wildcard identities (natural tiles within the 4-copy limit)."""
    best = 99
    for ids in combinations_with_replacement(kinds_of(mask), wilds):
        hand = list(counts)
        for k in ids:
            hand[k] += 1
        if any(hand[k] + melds[k] > 4 for k in range(NUM_KINDS)):
            continue
        best = min(best, shanten(hand, meld_counts=melds))
    return best


def test_wildcard_shanten_equals_best_identity_assignment():
    rng = random.Random(41)
    for _ in range(250):
        wilds = rng.choice((1, 1, 2))
        counts, melds = random_hand(
            rng,
            wilds=wilds,
            residue=rng.choice((1, 2)),
            kinds=27,
            n_melds=rng.choice((0, 0, 1)),
            perturb=rng.randrange(5),
        )
        mask = rng.choice([SUITED_MASK, mask_excluding_suit(rng.randrange(3)), 0x1FF, 0x1FF << 18])
        got = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds)
        assert got == _natural_shanten_over_identities(counts, wilds, mask, melds), (counts, wilds, hex(mask), melds)


def _neighbour_checks(counts, wilds, mask, melds) -> None:
    """Shanten satisfies its defining recursion: a 3k+1 hand is one more than its best draw; an incomplete 3k+2
    hand equals its best discard (a natural tile or a wildcard); a complete one is -1 exactly when it wins."""
    kw = {"allowed_mask": mask, "meld_counts": melds}
    value = shanten(counts, wilds, **kw)
    if (sum(counts) + wilds) % 3 == 1:
        draws = []
        for t in range(NUM_KINDS):
            if counts[t] + melds[t] < 4:
                counts[t] += 1
                draws.append(shanten(counts, wilds, **kw))
                counts[t] -= 1
        assert value == 1 + min(draws), (counts, wilds, hex(mask), melds)
        assert (value == 0) == bool(waits(counts, wilds, candidates_mask=ALL_MASK, **kw))
    else:
        win = is_winning(counts, wilds, **kw)
        assert (value == -1) == win, (counts, wilds, hex(mask), melds)
        if not win:
            options = []
            for d in range(NUM_KINDS):
                if counts[d]:
                    counts[d] -= 1
                    options.append(shanten(counts, wilds, **kw))
                    counts[d] += 1
            if wilds:
                options.append(shanten(counts, wilds - 1, **kw))
            assert value == min(options), (counts, wilds, hex(mask), melds)


def test_shanten_recursion_on_random_hands():
    rng = random.Random(51)
    for _ in range(250):
        wilds = rng.choice((0, 0, 1, 2))
        counts, melds = random_hand(
            rng, wilds=wilds, residue=rng.choice((1, 2)), kinds=rng.choice((27, 34)), n_melds=rng.choice((0, 1, 2))
        )
        if sum(counts) + wilds < 2:
            continue
        _neighbour_checks(counts, wilds, random_mask(rng), melds)


# ----------------------------------------------------------------------------------------------------------------
# hypothesis properties


@st.composite
def hands(draw, residue: int):
    """(counts, wilds, mask, melds) with sum(counts) + wilds = 3k + residue (k <= 4)."""
    n_melds = draw(st.integers(0, 2))
    melds = [0] * NUM_KINDS
    for k in draw(st.lists(st.integers(0, 33), min_size=n_melds, max_size=n_melds, unique=True)):
        melds[k] = draw(st.sampled_from((3, 4)))
    size = 3 * (4 - n_melds) + residue - 3 * draw(st.integers(0, 1))
    wilds = draw(st.integers(0, min(4, size)))
    pool = [k for k in range(NUM_KINDS) for _ in range(4 - melds[k])]
    kinds = draw(st.lists(st.sampled_from(range(len(pool))), min_size=size - wilds, max_size=size - wilds, unique=True))
    counts = [0] * NUM_KINDS
    for i in kinds:
        counts[pool[i]] += 1
    mask = draw(st.sampled_from([SUITED_MASK, ALL_MASK, NO_RED, mask_excluding_suit(1), 0x1FF << 9]))
    return counts, wilds, mask, melds


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(hands(1))
def test_property_ready_iff_waits(hand):
    counts, wilds, mask, melds = hand
    value = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds)
    found = waits(counts, wilds, allowed_mask=mask, meld_counts=melds, candidates_mask=ALL_MASK)
    assert (value == 0) == bool(found)
    assert value >= 0


@PROPERTY
@given(hands(1))
def test_property_one_tile_changes_shanten_by_at_most_one(hand):
    counts, wilds, mask, melds = hand
    value = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds)
    for t in range(NUM_KINDS):
        if counts[t] + melds[t] < 4:
            counts[t] += 1
            after = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds)
            counts[t] -= 1
            assert value - 1 <= after <= value
            if after < value and mask >> t & 1:
                # a useful draw; a wildcard is at least as useful when it may stand for that kind
                assert shanten(counts, wilds + 1, allowed_mask=mask, meld_counts=melds) <= after


@PROPERTY
@given(hands(2))
def test_property_wildcard_replaces_any_allowed_tile(hand):
    counts, wilds, mask, melds = hand
    if wilds == 0:
        return
    win = is_winning(counts, wilds, allowed_mask=mask, meld_counts=melds)
    assert win == (shanten(counts, wilds, allowed_mask=mask, meld_counts=melds) == -1)
    # turning a wildcard into a natural allowed tile (with room) never helps
    for t in kinds_of(mask):
        if counts[t] + melds[t] < 4:
            counts[t] += 1
            if is_winning(counts, wilds - 1, allowed_mask=mask, meld_counts=melds):
                assert win
            counts[t] -= 1
    # the 4-copy information only ever removes wins
    if win:
        assert is_winning(counts, wilds, allowed_mask=mask)
    # a larger mask only ever adds wins
    if win:
        assert is_winning(counts, wilds, allowed_mask=ALL_MASK, meld_counts=melds)


def _permute_suits(counts, order):
    out = list(counts)
    for new, old in enumerate(order):
        out[9 * new : 9 * new + 9] = counts[9 * old : 9 * old + 9]
    return out


def _reverse_ranks(counts):
    out = list(counts)
    for s in range(3):
        out[9 * s : 9 * s + 9] = counts[9 * s : 9 * s + 9][::-1]
    return out


def _mask_of(counts_like_bits):
    return kinds_mask(k for k in range(NUM_KINDS) if counts_like_bits[k])


@PROPERTY
@given(hands(1), st.permutations((0, 1, 2)))
def test_property_symmetries(hand, order):
    counts, wilds, mask, melds = hand
    bits = [mask >> k & 1 for k in range(NUM_KINDS)]
    for transform in (lambda v: _permute_suits(v, order), _reverse_ranks):
        kw = {"allowed_mask": _mask_of(transform(bits)), "meld_counts": transform(melds)}
        base = {"allowed_mask": mask, "meld_counts": melds}
        assert shanten(transform(counts), wilds, **kw) == shanten(counts, wilds, **base)
        assert len(waits(transform(counts), wilds, **kw)) == len(waits(counts, wilds, **base))


@PROPERTY
@given(hands(2))
def test_property_seven_pairs_flag_only_adds(hand):
    counts, wilds, mask, melds = hand
    with_sevens = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds)
    without = shanten(counts, wilds, allowed_mask=mask, meld_counts=melds, seven_pairs=False)
    assert with_sevens <= without


# ----------------------------------------------------------------------------------------------------------------
# input checking and helpers


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: is_winning([0] * 33), "34 entries"),
        (lambda: is_winning([5] + [0] * 33), "outside 0-4"),
        (lambda: is_winning([-1] + [0] * 33), "outside 0-4"),
        (lambda: is_winning([1.5] + [0] * 33), "int count"),
        (lambda: is_winning("11m"), "34"),
        (lambda: is_winning(P("123m")), "3k\\+2"),
        (lambda: is_winning(P("11m"), -1), "wilds"),
        (lambda: is_winning(P("11m"), 0, n_sets=1), "n_sets"),
        (lambda: is_winning(P("123m 456m 789m 123p 456p 11s")), "at most 14"),
        (lambda: is_winning(P("11m"), 3, allowed_mask=-1), "allowed_mask"),
        (lambda: is_winning(P("11m"), meld_counts=P("111m")), "only 4"),
        (lambda: is_winning(P("11m"), meld_counts=[0] * 3), "meld_counts"),
        (lambda: waits(P("11m")), "3k\\+1"),
        (lambda: waits(P("1m"), candidates_mask=1 << 40), "candidates_mask"),
        (lambda: shanten(P("123m")), "3k\\+1 or 3k\\+2"),
        (lambda: mask_excluding_suit(3), "suit"),
        (lambda: kinds_mask([34]), "out of range"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_accepts_tuples_and_numpy_arrays():
    np = pytest.importorskip("numpy")
    hand = P("123m 456m 789m 123p 55s")
    assert is_winning(tuple(hand))
    assert is_winning(np.array(hand))
    assert shanten(np.array(hand, dtype=np.int8)) == -1
    assert waits(np.array(P("123m 456m 789m 123p 5s"))) == [kind_of("5s")]


def test_caller_lists_are_not_modified():
    hand = P("123m 456m 789m 12p 5s")
    copy = list(hand)
    waits(hand, 1)
    shanten(hand, 1)
    is_winning(hand, 2)
    assert hand == copy


def test_masks_and_string_helper():
    assert SUITED_MASK == (1 << 27) - 1 and ALL_MASK == (1 << 34) - 1 and HONOR_MASK == ALL_MASK ^ SUITED_MASK
    assert mask_excluding_suit(None) == SUITED_MASK
    assert mask_excluding_suit(1) == SUITED_MASK & ~(0x1FF << 9)
    assert mask_excluding_suit(0, NO_RED) == NO_RED & ~0x1FF
    assert kinds_mask([0, 31]) == 1 | 1 << 31
    assert is_winning_str("123m 456m 789m 12p 55s", 1)
    assert not is_winning_str("123m 456m 789m 12p 55s", 1, allowed_mask=0)


# ----------------------------------------------------------------------------------------------------------------
# the tables themselves


def _brute_profile(counts, caps, runs=True):
    """Profile of a short group by enumerating every target (multiset of sets + optional pair)."""
    n = len(counts)
    set_types = [(k, k, k) for k in range(n)] + ([(k, k + 1, k + 2) for k in range(n - 2)] if runs else [])
    best = [_suit_tables.INF] * _suit_tables.PROFILE_LEN
    for m in range(5):
        for sets in combinations_with_replacement(set_types, m):
            for pair in [None, *range(n)]:
                target = [0] * n
                for s in sets:
                    for k in s:
                        target[k] += 1
                if pair is not None:
                    target[pair] += 2
                if any(target[k] > caps[k] for k in range(n)):
                    continue
                added = sum(max(0, target[k] - counts[k]) for k in range(n))
                j = 2 * m + (pair is not None)
                best[j] = min(best[j], added)
    return tuple(best)


def test_table_matches_target_enumeration_on_short_suits():
    rng = random.Random(61)
    for length in (3, 4, 5):
        ids, profiles = _suit_tables.build_profiles(length)
        for _ in range(60):
            counts = [rng.choice((0, 0, 1, 1, 2, 3, 4)) for _ in range(length)]
            key = sum(c * 5**r for r, c in enumerate(counts))
            assert tuple(profiles[ids[key]]) == _brute_profile(counts, [4] * length)


def test_capped_and_typed_profiles_match_target_enumeration():
    rng = random.Random(62)
    for _ in range(120):
        length = rng.choice((3, 4, 5))
        caps = [rng.choice((0, 1, 2, 3, 4, 4, 4)) for _ in range(length)]
        counts = [rng.randint(0, cap) for cap in caps]
        runs = rng.random() < 0.8
        expected = _brute_profile(counts, caps, runs)
        assert _suit_tables.capped_profile(tuple(counts), tuple(caps), runs) == expected
        typed = _suit_tables.exact_profile(tuple(counts), tuple(caps), (True,) * length, runs)
        assert tuple(min((a for a, _ in front), default=_suit_tables.INF) for front in typed) == expected


def test_nine_rank_table_spot_checks():
    ids, profiles, codes = _suit_tables.load_tables()
    rng = random.Random(63)
    for _ in range(40):
        counts = [0] * 9
        for _ in range(rng.randrange(15)):
            r = rng.randrange(9)
            if counts[r] < 4:
                counts[r] += 1
        key = sum(c * 5**r for r, c in enumerate(counts))
        expected = _suit_tables.capped_profile(tuple(counts), (4,) * 9)
        assert tuple(int(v) for v in profiles[ids[key]]) == expected
        total = sum(counts)
        code = 1 if total % 3 == 0 and expected[2 * (total // 3)] == 0 else 0
        if total % 3 == 2 and expected[2 * ((total - 2) // 3) + 1] == 0:
            code = 2
        assert codes[key] == code


def test_cache_falls_back_when_unwritable(tmp_path, monkeypatch):
    tables = _suit_tables.load_tables()
    monkeypatch.setattr(_suit_tables, "build_tables", lambda: tables)  # the plumbing, not a 1 s rebuild
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    monkeypatch.setenv("CHUANMA_CACHE_DIR", str(blocker / "sub"))
    assert _suit_tables.load_tables() is tables
    assert not list(tmp_path.glob("**/*.npz"))


def test_cache_round_trip_and_damaged_file(tmp_path, monkeypatch):
    tables = _suit_tables.load_tables()
    monkeypatch.setattr(_suit_tables, "build_tables", lambda: tables)
    monkeypatch.setenv("CHUANMA_CACHE_DIR", str(tmp_path))
    assert _suit_tables.load_tables() is tables  # nothing cached yet: "built", then written
    cache = tmp_path / "suit_tables_v1.npz"
    assert cache.exists()
    loaded = _suit_tables.load_tables()
    assert loaded is not tables
    assert all((a == b).all() for a, b in zip(loaded, tables))
    cache.write_bytes(b"garbage")
    assert _suit_tables.load_tables() is tables  # damaged cache: rebuilt and rewritten
    assert all((a == b).all() for a, b in zip(_suit_tables.load_tables(), tables))


def test_suit_profile_rows_are_the_tables_profile_of_each_key(monkeypatch):
    """suit_profile_rows gives row ``key`` the profile of the counts that key encodes (rank 1 least significant,
    checked against the exact programme on seeded keys), and writes ``impossible`` where a profile holds the table's
    impossible mark (a table with one such entry stands in for the real one, where every shape is reachable)."""
    import numpy as np

    from envs.scoring.shanten import suit_profile_rows

    rows = suit_profile_rows()
    assert rows.shape == (5**9, _suit_tables.PROFILE_LEN) and rows.dtype == np.int8
    for key in np.random.default_rng(11).integers(0, 5**9, 200):
        counts = tuple(int(key) // 5**r % 5 for r in range(9))
        assert tuple(int(v) for v in rows[key]) == _suit_tables.capped_profile(counts, (4,) * 9), counts
    ids, profiles, codes = _suit_tables.load_tables()
    marked = profiles.copy()
    marked[int(ids[7]), 9] = _suit_tables.INF
    monkeypatch.setattr(_suit_tables, "load_tables", lambda: (ids, marked, codes))
    got = suit_profile_rows(impossible=127)
    hit = ids == ids[7]
    assert (got[hit, 9] == 127).all() and np.array_equal(got[~hit], rows[~hit])
    assert np.array_equal(got[hit, :9], rows[hit, :9])
