"""Dealing a hand on the compiled engine (发牌): the wall, dealer and 换三张 direction ``Game`` draws for a seed.

:func:`seeded_start` reads the hand's seeded streams (:mod:`envs.core.wall`, algorithm ``chuanma-wall-v1``) the way
``Game(cfg, seed=...)`` does, in one compiled call: the stream keys of the ``"wall"``, ``"dealer"`` and
``"exchange"`` domains, the counter-mode blocks as the draws need them (SHA-256 of :mod:`envs.compiled.sha256`),
the wall's Fisher-Yates shuffle, the dealer and the 换三张 offset — the same draws as
:func:`envs.core.wall.shuffled_wall`, ``SeedStream(seed, "dealer").randbelow(num_players)`` and
:func:`envs.engine.game.draw_exchange_offset`.

A stream here is a few small arrays (:class:`_Stream`): its key, the words of its current block and where the
reading is; a block is hashed when the draws reach it, so no draw runs out of words.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.compiled.sha256 import counter_block, counter_key, hash_words
from envs.core.rule_config import RuleConfig
from envs.core.wall import _STREAM_PREFIX, DOMAIN_DEALER, DOMAIN_EXCHANGE, DOMAIN_WALL, encode_seed
from envs.engine.game import exchange_offsets

__all__ = ["seeded_start"]

EXCHANGE_NONE = 0  # no 换三张 (or a redraw exchange): offset 0, no draw
EXCHANGE_CHOICE = 1  # ``stream.choice(options)`` (no draw with a single option)
EXCHANGE_PARITY = 2  # two dice, odd sum -> next seat, even -> previous seat (random2_parity)


def _domain_prefix(domain: str) -> np.ndarray:
    """The bytes a stream key hashes before the canonical seed: ``prefix + domain + NUL`` (``uint8``)."""
    return np.frombuffer(_STREAM_PREFIX + domain.encode("ascii") + b"\x00", dtype=np.uint8).copy()


_WALL_PREFIX = _domain_prefix(DOMAIN_WALL)
_DEALER_PREFIX = _domain_prefix(DOMAIN_DEALER)
_EXCHANGE_PREFIX = _domain_prefix(DOMAIN_EXCHANGE)


# ---- a seeded stream in compiled code ----------------------------------------------------------------------------
class _Stream(NamedTuple):
    """A seeded stream's arrays (passed to numba as one value)."""

    key: np.ndarray  # uint32[16]: the key, SHA-256 of prefix + domain + NUL + canonical seed, and its midstate
    words: np.ndarray  # uint64[4]: the current block's words
    at: np.ndarray  # int64[2]: [next block counter, next word of ``words``] (4: all read)
    w: np.ndarray  # uint32[64]: SHA-256 message schedule (scratch)


@njit(cache=True)
def _new_stream():
    """An unopened stream's arrays."""
    key = np.empty(16, dtype=np.uint32)
    words = np.empty(4, dtype=np.uint64)
    at = np.empty(2, dtype=np.int64)
    w = np.empty(64, dtype=np.uint32)
    return _Stream(key, words, at, w)


@njit(cache=True)
def _open(stream, prefix, seed):
    """(Re)start ``stream`` as the stream keyed by ``prefix + seed`` (``uint8`` / ``bytes``): block 0, nothing read."""
    msg = np.empty(prefix.shape[0] + len(seed), dtype=np.uint8)
    msg[: prefix.shape[0]] = prefix
    for i in range(len(seed)):
        msg[prefix.shape[0] + i] = seed[i]
    hash_words(msg, stream.key[:8])
    counter_key(stream.key[:8], stream.key)
    stream.at[0] = 0
    stream.at[1] = 4


@njit(cache=True, inline="always")
def _accept(x, n):
    """Rejection sampling of ``randbelow(n)`` on the word ``x``: ``x % n``, or -1 when ``x`` falls in the top
    ``2**64 % n`` words that would bias the result (the draw then takes the next word)."""
    m = np.uint64(n)
    if x >= np.uint64(0) - m:  # only the top n words can be rejected (2**64 % n < n): one division saved per draw
        rem = (np.uint64(0) - m) % m  # 2**64 % n
        if rem != 0 and x >= np.uint64(0) - rem:  # x >= 2**64 - rem
            return -1
    return np.int64(x % m)


@njit(cache=True)
def _randbelow(stream, n):
    """``SeedStream.randbelow(n)``: a uniform int in ``[0, n)`` from the stream's next words."""
    at = stream.at
    while True:
        if at[1] == 4:  # the block is read: hash the next one
            counter_block(stream.key, at[0], stream.w, stream.words)
            at[0] += 1
            at[1] = 0
        value = _accept(stream.words[at[1]], n)
        at[1] += 1
        if value >= 0:
            return value


@njit(cache=True)
def _shuffle(stream, wall, n):
    """``SeedStream.shuffle`` of ``wall[:n]`` from a freshly opened ``stream``: Fisher-Yates with
    ``randbelow(i + 1)`` for ``i = n - 1 .. 1``, the reading of :func:`_randbelow` with its place kept in locals
    (the hot loop of a deal)."""
    key, words, w = stream.key, stream.words, stream.w
    counter, pos = 0, 4
    for i in range(n - 1, 0, -1):
        while True:
            if pos == 4:
                counter_block(key, counter, w, words)
                counter += 1
                pos = 0
            j = _accept(words[pos], i + 1)
            pos += 1
            if j >= 0:
                break
        tmp = wall[i]
        wall[i] = wall[j]
        wall[j] = tmp


# ---- the deal ------------------------------------------------------------------------------------------------------
@njit(cache=True)
def _deal(seed, tiles, wall, num_players, exchange_kind, options, prefixes):
    """Shuffle ``tiles`` into ``wall[:len(tiles)]`` with the ``"wall"`` stream of ``seed`` (its canonical ``bytes``) and
    return ``(dealer, offset)`` from the ``"dealer"`` and ``"exchange"`` streams; ``prefixes``: the key prefixes of
    the three domains, in that order."""
    n = tiles.shape[0]
    if n > wall.shape[0]:
        raise ValueError("the wall array is shorter than the variant's tiles")
    wall_prefix, dealer_prefix, exchange_prefix = prefixes
    stream = _new_stream()
    _open(stream, wall_prefix, seed)
    wall[:n] = tiles
    _shuffle(stream, wall, n)
    _open(stream, dealer_prefix, seed)
    dealer = _randbelow(stream, num_players)
    offset = 0
    if exchange_kind == EXCHANGE_PARITY:  # two dice: an odd sum passes to the next seat, an even one to the previous
        _open(stream, exchange_prefix, seed)
        dice = _randbelow(stream, 6) + _randbelow(stream, 6) + 2
        offset = 1 % num_players if dice % 2 else (num_players - 1) % num_players
    elif exchange_kind == EXCHANGE_CHOICE:  # stream.choice(options), no draw for a single option
        pick = 0
        if options.shape[0] > 1:
            _open(stream, exchange_prefix, seed)
            pick = _randbelow(stream, options.shape[0])
        offset = options[pick]
    return dealer, offset


_PREFIXES = (_WALL_PREFIX, _DEALER_PREFIX, _EXCHANGE_PREFIX)
_PLANS: dict[int, tuple[RuleConfig, int, int, int, np.ndarray]] = {}
_MAX_PLANS = 64


def _plan(cfg: RuleConfig) -> tuple[RuleConfig, int, int, int, np.ndarray]:
    """``(cfg, num_tiles, num_players, exchange kind, offsets)`` of a config, kept per config object (by identity:
    hashing a frozen config hashes every rule flag)."""
    plan = _PLANS.get(id(cfg))
    if plan is not None and plan[0] is cfg:
        return plan
    if cfg.exchange_mode != "swap3":
        kind, options = EXCHANGE_NONE, ()
    elif cfg.exchange_direction == "random2_parity":
        kind, options = EXCHANGE_PARITY, ()
    else:
        kind, options = EXCHANGE_CHOICE, exchange_offsets(cfg)
    plan = (cfg, cfg.num_tiles, cfg.num_players, kind, np.asarray(options, dtype=np.int64).reshape(-1))
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[id(cfg)] = plan
    return plan


def seeded_start(cfg: RuleConfig, hand: Any, tiles: np.ndarray, wall: np.ndarray) -> tuple[int, int]:
    """Write the wall of hand seed ``hand`` into ``wall[:cfg.num_tiles]`` (``tiles``: the variant's tiles in
    ascending order, ``int32``) and return ``(dealer, exchange offset)`` (offset 0 without 换三张) — what
    ``Game(cfg, seed=hand)`` deals."""
    _, num_tiles, num_players, kind, options = _plan(cfg)
    if tiles.shape[0] != num_tiles:
        raise ValueError(f"expected the variant's {num_tiles} tiles, got {tiles.shape[0]}")
    return _deal(encode_seed(hand), tiles, wall, num_players, kind, options, _PREFIXES)
