"""The compiled SHA-256 (envs.compiled.sha256) against ``hashlib``, and the compiled deal
(envs.compiled.dealing.seeded_start) against the Python streams of envs.core.wall / envs.engine.game."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from envs.compiled import dealing
from envs.compiled.dealing import seeded_start
from envs.compiled.sha256 import compress, counter_block, counter_key, hash_words, sha256
from envs.core.rule_config import load_variant
from envs.core.wall import DOMAIN_DEALER, SeedStream, hand_seed, shuffled_wall, tile_multiset
from envs.engine.game import draw_exchange_offset

PRESETS = ("chengdu", "hongzhong", "duankagen", "two_player", "chiyu")
SEEDS = [*range(120), 2**70 + 3, "kat", b"\x00\xff", *(hand_seed(5, i) for i in range(120))]


def _digest(data: bytes) -> bytes:
    return bytes(sha256(np.frombuffer(data, dtype=np.uint8)))


def _be32(data: bytes) -> np.ndarray:
    """``data`` as big-endian 32-bit words, in a native ``uint32`` array."""
    return np.frombuffer(data, dtype=">u4").astype(np.uint32)


# ---- SHA-256 --------------------------------------------------------------------------------------------------------


def test_sha256_equals_hashlib_on_every_length_up_to_200_and_a_few_long_messages():
    """Random messages of 0 .. 200 bytes (the padding boundaries 55/56/63/64 and 119/120/127/128 among them), plus
    all-zero, all-0xff and multi-block messages."""
    rng = random.Random(1)
    messages = [rng.randbytes(n) for n in range(201)]
    messages += [bytes(n) for n in (55, 56, 63, 64, 65)] + [b"\xff" * n for n in (55, 56, 63, 64, 65)]
    messages += [rng.randbytes(n) for n in (1000, 4096, 10_007)]
    for data in messages:
        assert _digest(data) == hashlib.sha256(data).digest(), len(data)


def test_sha256_known_answers():
    """FIPS 180-4 examples: the empty message and "abc"."""
    assert _digest(b"").hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert _digest(b"abc").hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_hash_words_are_the_digest_words_and_compress_folds_one_block():
    rng = random.Random(2)
    for n in (0, 33, 56, 64, 100):
        data = rng.randbytes(n)
        state = np.empty(8, dtype=np.uint32)
        hash_words(np.frombuffer(data, dtype=np.uint8), state)
        assert state.tolist() == _be32(hashlib.sha256(data).digest()).tolist()
    # one full block then the padding block of a 64-byte message, by hand
    data = rng.randbytes(64)
    state = np.array([0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19])
    state = state.astype(np.uint32)
    for block in (data, b"\x80" + bytes(55) + (512).to_bytes(8, "big")):
        w = np.zeros(64, dtype=np.uint32)
        w[:16] = _be32(block)
        compress(state, w, state)
    assert state.astype(">u4").tobytes() == hashlib.sha256(data).digest()


def test_counter_blocks_equal_hashlib():
    """``counter_block`` = ``SHA256(key + counter as 8 bytes big-endian)`` read as four big-endian words, for
    counters past 2**32 too, with the key prepared in place (``counter_key`` of ``out[:8]``)."""
    rng = random.Random(3)
    w, out = np.empty(64, dtype=np.uint32), np.empty(4, dtype=np.uint64)
    for _ in range(20):
        key = rng.randbytes(32)
        ckey = np.zeros(16, dtype=np.uint32)
        ckey[:8] = _be32(key)
        counter_key(ckey[:8], ckey)
        assert ckey[:8].astype(">u4").tobytes() == key
        for counter in (0, 1, 2, 3, 27, 255, 256, 2**32 - 1, 2**32, 2**32 + 7, 2**62 + 12345, 2**63 - 1):
            counter_block(ckey, counter, w, out)
            expected = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
            assert out.astype(">u8").tobytes() == expected, counter


# ---- the compiled deal ----------------------------------------------------------------------------------------------


def _python_deal(cfg, seed) -> tuple[list[int], int, int]:
    dealer = SeedStream(seed, DOMAIN_DEALER).randbelow(cfg.num_players)
    offset = draw_exchange_offset(cfg, seed) if cfg.exchange_mode == "swap3" else 0
    return shuffled_wall(cfg, seed), dealer, offset


def _check_deals(cfg, seeds) -> None:
    tiles = np.asarray(tile_multiset(cfg), dtype=np.int32)
    wall = np.full(cfg.num_tiles + 5, -1, dtype=np.int32)
    for seed in seeds:
        dealer, offset = seeded_start(cfg, seed, tiles, wall)
        wall_ref, dealer_ref, offset_ref = _python_deal(cfg, seed)
        assert wall[: cfg.num_tiles].tolist() == wall_ref, seed
        assert (dealer, offset) == (dealer_ref, offset_ref), seed
        assert type(dealer) is int and type(offset) is int
        assert wall[cfg.num_tiles :].tolist() == [-1] * 5  # cells past the variant's wall are left alone


@pytest.mark.parametrize("variant", PRESETS)
def test_seeded_start_deals_what_the_python_streams_deal(variant):
    """Wall, dealer and 换三张 offset equal ``shuffled_wall``, the ``"dealer"`` stream and ``draw_exchange_offset``
    for int, str, bytes and ``hand_seed`` seeds."""
    _check_deals(load_variant(variant), SEEDS)


@pytest.mark.parametrize("direction", ["next", "previous", "opposite", "random3", "random2_parity"])
def test_seeded_start_draws_every_exchange_direction(direction):
    """Every 换三张 direction rule (fixed, a choice of offsets, the two-dice parity), and a 换三张 off."""
    cfg = load_variant("chengdu", exchange_direction=direction)
    _check_deals(cfg, SEEDS[:60] + SEEDS[-60:])
    tiles, wall = np.asarray(tile_multiset(cfg), dtype=np.int32), np.zeros(112, dtype=np.int32)
    offsets = {seeded_start(cfg, seed, tiles, wall)[1] for seed in SEEDS}
    assert len(offsets) == {"random3": 3, "random2_parity": 2}.get(direction, 1)
    _check_deals(load_variant("chengdu", exchange_direction=direction, exchange_mode="none"), SEEDS[:20])


def test_seeded_start_checks_its_arrays():
    cfg = load_variant("chengdu")
    tiles = np.asarray(tile_multiset(cfg), dtype=np.int32)
    with pytest.raises(ValueError, match="shorter"):
        seeded_start(cfg, 1, tiles, np.zeros(cfg.num_tiles - 1, dtype=np.int32))
    with pytest.raises(ValueError, match="tiles"):
        seeded_start(cfg, 1, tiles[:-1], np.zeros(112, dtype=np.int32))
    with pytest.raises(ValueError, match="negative"):
        seeded_start(cfg, -1, tiles, np.zeros(112, dtype=np.int32))


def test_rejection_sampling_boundaries():
    """``_accept`` rejects exactly the words at or above ``2**64 - 2**64 % n`` (never for a power of two); such
    words are too rare to meet in a stream, so the rule is checked on chosen words."""
    top = 2**64
    for n in (1, 2, 3, 4, 6, 7, 27, 64, 107, 108, 111, 112, 1000, 2**40 + 1):
        limit = top - top % n
        for x in sorted(x for x in {0, 1, n - 1, limit - 1, limit, limit + 1, top - 1} if x < top):
            expected = x % n if x < limit else -1
            assert dealing._accept(np.uint64(x), n) == expected, (n, x)
