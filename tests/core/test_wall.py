"""Tests of envs/core/wall.py: portable seeded shuffle, per-hand seeds, commit-reveal verification."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import pytest

from envs.core.rule_config import load_variant
from envs.core.wall import (
    WALL_ALGORITHM,
    SeedStream,
    commitment,
    encode_seed,
    hand_seed,
    shuffled_wall,
    tile_multiset,
    verify_deal,
)

CHENGDU = load_variant("chengdu")
HONGZHONG = load_variant("hongzhong")

# Known answer: the chengdu wall of seed 123 under chuanma-wall-v1.  A change here means a change of algorithm.
KAT_CHENGDU_123 = [
    23, 17, 5, 7, 13, 4, 0, 12, 18, 12, 6, 3, 2, 17, 14, 23, 10, 11, 20, 4, 21, 11, 0, 8, 9, 25, 23, 10, 13, 6, 3, 12,
    25, 14, 22, 16, 21, 6, 19, 11, 24, 14, 0, 4, 2, 23, 14, 26, 21, 1, 3, 19, 18, 21, 17, 19, 13, 10, 20, 8, 16, 26, 5,
    15, 5, 10, 2, 25, 9, 6, 4, 24, 24, 17, 18, 8, 1, 20, 15, 8, 19, 22, 26, 22, 24, 3, 2, 11, 1, 7, 7, 13, 15, 16, 26,
    9, 5, 25, 12, 20, 18, 15, 22, 16, 9, 0, 1, 7,
]  # fmt: skip


def _reference_wall(tiles: list[int], seed_bytes: bytes) -> list[int]:
    """Independent re-implementation of the documented algorithm (module docstring steps 2-5)."""
    key = hashlib.sha256(b"chuanma/stream/v1\x00wall\x00" + seed_bytes).digest()

    def words():
        for c in itertools.count():
            block = hashlib.sha256(key + c.to_bytes(8, "big")).digest()
            for i in range(4):
                yield int.from_bytes(block[8 * i : 8 * i + 8], "big")

    w = words()
    out = sorted(tiles)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**64 - (2**64 % n)
        while (x := next(w)) >= limit:
            pass
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


def test_algorithm_name():
    assert WALL_ALGORITHM == "chuanma-wall-v1"


def test_known_answer_chengdu_seed_123():
    assert shuffled_wall(CHENGDU, 123) == KAT_CHENGDU_123


def test_matches_reference_implementation():
    for seed, enc in [(123, b"i123"), ("kat", b"skat"), (b"\x00\xff", b"b\x00\xff")]:
        assert encode_seed(seed) == enc
        assert shuffled_wall(HONGZHONG, seed) == _reference_wall(tile_multiset(HONGZHONG), enc)


def test_shuffle_reads_the_stream_as_randbelow_does():
    """``shuffle`` hashes its blocks in one go: the same swaps as ``randbelow(i + 1)`` one at a time, and the words it
    did not use come next, whatever was read before it (empty, one-element and long sequences)."""
    for seed in range(60):
        for before in (0, 1, 3, 6):
            fast, slow = SeedStream(seed, "wall"), SeedStream(seed, "wall")
            for _ in range(before):
                assert fast.randbelow(7) == slow.randbelow(7)
            for length in (108, 1, 0, 5, 300):
                got, want = list(range(length)), list(range(length))
                fast.shuffle(got)
                for i in range(length - 1, 0, -1):
                    j = slow.randbelow(i + 1)
                    want[i], want[j] = want[j], want[i]
                assert got == want
                assert fast.randbelow(1000) == slow.randbelow(1000)


def test_deterministic_and_seed_sensitive():
    assert shuffled_wall(CHENGDU, "abc") == shuffled_wall(CHENGDU, "abc")
    assert shuffled_wall(CHENGDU, 1) != shuffled_wall(CHENGDU, 2)
    # type tags: 5, "5" and b"5" are three different seeds
    walls = {tuple(shuffled_wall(CHENGDU, s)) for s in (5, "5", b"5")}
    assert len(walls) == 3


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong", "two_player", "yibin", "chiyu", "xueliu"])
def test_wall_is_the_variant_multiset(variant):
    cfg = load_variant(variant)
    wall = shuffled_wall(cfg, 99)
    assert len(wall) == cfg.num_tiles
    counts = Counter(wall)
    assert set(counts) == set(cfg.kinds)
    for kind, c in counts.items():
        assert c == (cfg.extra_tiles.count(kind) if kind >= 27 else 4)


def test_hongzhong_has_four_red_dragons():
    wall = shuffled_wall(HONGZHONG, 7)
    assert len(wall) == 112 and wall.count(31) == 4


def test_custom_suits_and_extra_tiles():
    cfg = CHENGDU.replace(suits="ps", hand_size=10)
    wall = shuffled_wall(cfg, 3)
    assert len(wall) == 72 and all(9 <= k < 27 for k in wall)


def test_uniformity_of_small_permutations():
    """Chi-square over the 24 permutations of 4 items (2400 seeds, deterministic): 23 dof, 0.1% critical 49.7."""
    counts: Counter = Counter()
    for seed in range(2400):
        items = [0, 1, 2, 3]
        SeedStream(seed, "test").shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    chi2 = sum((c - 100) ** 2 / 100 for c in counts.values())
    assert chi2 < 49.7, chi2


def test_uniformity_of_wall_positions():
    """The 4 copies of 1m spread evenly over 12 position bands of 9 (400 walls; 11 dof, 0.1% critical 31.3)."""
    bands = [0] * 12
    for seed in range(400):
        wall = shuffled_wall(CHENGDU, seed)
        for pos, kind in enumerate(wall):
            if kind == 0:
                bands[pos // 9] += 1
    expected = 400 * 4 / 12
    chi2 = sum((b - expected) ** 2 / expected for b in bands)
    assert chi2 < 31.3, (chi2, bands)


def test_randbelow_range_and_rejection_path():
    s = SeedStream("r")
    assert all(0 <= s.randbelow(3) < 3 for _ in range(200))
    assert SeedStream("r").randbelow(1) == 0
    n = 2**63 + 1  # about half of all 64-bit words are rejected for this n
    values = [SeedStream(i).randbelow(n) for i in range(50)]
    assert all(0 <= v < n for v in values)
    assert len(set(values)) == 50


def test_randbelow_frequencies():
    s = SeedStream(2024, "dice")
    counts = Counter(s.randbelow(3) for _ in range(3000))
    chi2 = sum((counts[k] - 1000) ** 2 / 1000 for k in range(3))
    assert chi2 < 13.8  # 2 dof, 0.1%


def test_domains_are_separated():
    a = [SeedStream(1, "dealer").randbelow(2**32) for _ in range(1)]
    b = [SeedStream(1, "exchange").randbelow(2**32) for _ in range(1)]
    assert a != b


def test_choice():
    s = SeedStream(5, "exchange")
    picks = {s.choice(["next", "previous", "opposite"]) for _ in range(60)}
    assert picks == {"next", "previous", "opposite"}
    with pytest.raises(ValueError, match="non-empty"):
        s.choice([])


def test_hand_seed_derivation():
    h0 = hand_seed(7, 0)
    assert h0 == hashlib.sha256(b"chuanma/hand/v1\x00i7" + (0).to_bytes(8, "big")).digest()
    assert len(h0) == 32
    assert hand_seed(7, 1) != h0 and hand_seed(8, 0) != h0
    assert hand_seed(b"\x01" * 32, 3) == hand_seed(b"\x01" * 32, 3)
    assert shuffled_wall(CHENGDU, h0) != shuffled_wall(CHENGDU, hand_seed(7, 1))


@pytest.mark.parametrize("bad", [-1, True, None, 1.5, "", b"", [1], "\ud800"])
def test_bad_seeds_raise(bad):
    with pytest.raises(ValueError, match="seed"):
        shuffled_wall(CHENGDU, bad)
    with pytest.raises(ValueError, match="seed"):
        commitment(bad)


@pytest.mark.parametrize("bad", [-1, True, 1.0, 2**64])
def test_bad_hand_index_raises(bad):
    with pytest.raises(ValueError, match="hand_index"):
        hand_seed(1, bad)


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, 2**64 + 1])
def test_bad_randbelow_raises(bad):
    with pytest.raises(ValueError, match="randbelow"):
        SeedStream(1).randbelow(bad)


@pytest.mark.parametrize("bad", ["", "a\x00b", "墙", 3])
def test_bad_domain_raises(bad):
    with pytest.raises(ValueError, match="domain"):
        SeedStream(1, bad)


def test_commitment_format_and_separation():
    c = commitment(123)
    assert c == hashlib.sha256(b"chuanma/commit/v1\x00i123").hexdigest()
    assert len(c) == 64 and int(c, 16) >= 0
    assert commitment("123") != c and commitment(124) != c


def test_verify_deal_true_and_false():
    seed = hand_seed(b"secret match seed", 0)
    com = commitment(seed)
    wall = shuffled_wall(CHENGDU, seed)
    assert verify_deal(seed, com, wall, CHENGDU)
    assert verify_deal(seed, com.upper(), tuple(wall), CHENGDU)
    other = hand_seed(b"secret match seed", 1)
    assert not verify_deal(other, com, wall, CHENGDU)  # seed does not match the commitment
    assert not verify_deal(other, commitment(other), wall, CHENGDU)  # seed does not produce the wall
    swapped = wall[:]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert swapped != wall
    assert not verify_deal(seed, com, swapped, CHENGDU)  # tampered wall
    assert not verify_deal(seed, com, wall[:-1], CHENGDU)
    assert not verify_deal(seed, com, wall, HONGZHONG)  # another variant's multiset


def test_verify_deal_bad_input_raises():
    wall = shuffled_wall(CHENGDU, 1)
    with pytest.raises(ValueError, match="commitment"):
        verify_deal(1, "xyz", wall, CHENGDU)
    with pytest.raises(ValueError, match="commitment"):
        verify_deal(1, "g" * 64, wall, CHENGDU)
    with pytest.raises(ValueError, match="seed"):
        verify_deal(-5, commitment(1), wall, CHENGDU)
