"""Wall (牌墙): a portable seeded shuffle, per-hand seeds and provably fair dealing (RULES.md §2.1).

RULES.md §2.1 asks for a uniformly shuffled wall drawn from the front.  This module makes that shuffle a pure,
documented function of a seed, so that the same seed deals the same wall on every machine, Python version and numpy
version (numpy's generators are not guaranteed stable across versions), and so that anyone can re-derive a deal.

Algorithm (version ``chuanma-wall-v1``; any change must change :data:`WALL_ALGORITHM` and the known-answer test)
------------------------------------------------------------------------------------------------------------------
1. **Canonical seed encoding** (:func:`encode_seed`).  A seed is a non-negative ``int``, ``bytes`` or ``str``.  It is
   encoded with a type tag so that ``5``, ``"5"`` and ``b"5"`` are different seeds::

       int   -> b"i" + decimal digits (ASCII)
       bytes -> b"b" + the bytes
       str   -> b"s" + UTF-8 of the string

2. **Stream key** for a domain (``"wall"``, ``"dealer"``, ``"exchange"`` ...; domain separation keeps the per-hand
   random choices independent)::

       key = SHA256(b"chuanma/stream/v1\\x00" + domain (ASCII) + b"\\x00" + canonical(seed))

3. **Counter mode**: block ``c`` (c = 0, 1, 2 ...) is ``SHA256(key + c as 8-byte big-endian)``.  Each 32-byte block is
   read as four 64-bit big-endian unsigned words, consumed in order.
4. **Unbiased** ``randbelow(n)``: take the next word ``x``; with ``limit = 2**64 - (2**64 % n)`` accept ``x % n`` if
   ``x < limit``, else reject ``x`` and take the next word (rejection sampling removes the modulo bias).
5. **Fisher-Yates** (:meth:`SeedStream.shuffle`): for ``i = len - 1`` down to ``1``: ``j = randbelow(i + 1)``, swap
   positions ``i`` and ``j``.
6. **The wall** (:func:`shuffled_wall`) shuffles, with the ``"wall"`` stream, the variant's tile multiset in ascending
   kind order: every suited kind of ``cfg.suits`` four times, plus ``cfg.extra_tiles`` (one entry per physical tile,
   e.g. four ``5z`` in 红中).  Index 0 of the result is drawn first.

Per-hand seeds: :func:`hand_seed` derives hand ``i``'s seed from a match seed as
``SHA256(b"chuanma/hand/v1\\x00" + canonical(match_seed) + i as 8-byte big-endian)`` (32 bytes).

Provably fair dealing (承诺-揭示 commit-reveal): before the hand a server publishes ``commitment(seed)`` =
hex ``SHA256(b"chuanma/commit/v1\\x00" + canonical(seed))``; after the hand it reveals the seed and anyone checks
``verify_deal(seed, commitment, wall, cfg)``.  The commitment hides the seed only if the seed is unguessable: use at
least 128 bits of entropy (e.g. ``secrets.token_bytes(32)`` as a match seed; :func:`hand_seed` outputs are then
unguessable too).  A small integer seed such as ``123`` is fine for reproducible experiments but hides nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from envs.core.rule_config import RuleConfig

WALL_ALGORITHM = "chuanma-wall-v1"
"""Name of the shuffle algorithm described in the module docstring."""

Seed = int | bytes | str

DOMAIN_WALL = "wall"
DOMAIN_DEALER = "dealer"  # first dealer of a match (RULES.md §2.12 "First hand: random")
DOMAIN_EXCHANGE = "exchange"  # 换三张 direction dice (RULES.md §2.3)

_STREAM_PREFIX = b"chuanma/stream/v1\x00"
_HAND_PREFIX = b"chuanma/hand/v1\x00"
_COMMIT_PREFIX = b"chuanma/commit/v1\x00"
_TWO64 = 1 << 64
_MAX_HAND_INDEX = _TWO64 - 1

T = TypeVar("T")


def encode_seed(seed: Seed) -> bytes:
    """Canonical, type-tagged byte encoding of a seed (step 1 of the module docstring).

    Raises ``ValueError`` for a negative int, a bool, an empty ``bytes``/``str``, a string that is not valid
    Unicode text (lone surrogates) or any other type.
    """
    if isinstance(seed, bool):
        raise ValueError(f"seed must be a non-negative int, bytes or str, got the bool {seed!r}")
    if isinstance(seed, int):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative int, bytes or str, got the negative int {seed}")
        return b"i" + str(seed).encode("ascii")
    if isinstance(seed, (bytes, bytearray, memoryview)):
        data = bytes(seed)
        if not data:
            raise ValueError("seed must not be empty bytes")
        return b"b" + data
    if isinstance(seed, str):
        if not seed:
            raise ValueError("seed must not be an empty string")
        try:
            return b"s" + seed.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"seed string is not valid Unicode text: {exc}") from None
    raise ValueError(f"seed must be a non-negative int, bytes or str, got {type(seed).__name__}: {seed!r}")


class SeedStream:
    """A deterministic random stream: SHA-256 in counter mode under a (seed, domain) key (module docstring).

    >>> s = SeedStream(123, "dealer")
    >>> 0 <= s.randbelow(4) < 4
    True
    """

    __slots__ = ("_counter", "_key", "_words")

    def __init__(self, seed: Seed, domain: str = "misc") -> None:
        if not isinstance(domain, str) or not domain or not domain.isascii() or "\x00" in domain:
            raise ValueError(f"stream domain must be a non-empty ASCII string without NUL, got {domain!r}")
        self._key = hashlib.sha256(_STREAM_PREFIX + domain.encode("ascii") + b"\x00" + encode_seed(seed)).digest()
        self._counter = 0
        self._words: list[int] = []  # unread words of the current block, reversed (pop() takes the next one)

    def _next_word(self) -> int:
        if not self._words:
            self._words = list(struct.unpack(">4Q", self._blocks(1)))[::-1]
        return self._words.pop()

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling on 64-bit words; ``n`` must be a positive int."""
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"randbelow needs a positive int n, got {n!r}")
        if n > _TWO64:
            raise ValueError(f"randbelow supports n <= 2**64, got {n}")
        limit = _TWO64 - (_TWO64 % n)
        while True:
            x = self._next_word()
            if x < limit:
                return x % n

    def choice(self, seq: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        if len(seq) == 0:
            raise ValueError("choice needs a non-empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, items: MutableSequence) -> None:
        """Fisher-Yates shuffle in place (step 5 of the module docstring).

        The same draws as ``j = self.randbelow(i + 1)`` for ``i = len - 1 .. 1``, with the words of the blocks one
        shuffle needs (at least one per swap) hashed and unpacked in one go (a wall per hand); unused words stay in
        the stream for the next draw, exactly as one-at-a-time reading would leave them.
        """
        n_items = len(items)
        stream = self._words[::-1]  # unread words in reading order
        self._words = []
        self._extend(stream, n_items - 1 - len(stream))
        pos = 0
        for i in range(n_items - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < _NUM_LIMITS else _TWO64 - (_TWO64 % n)
            while True:
                if pos == len(stream):
                    self._extend(stream, 1)
                x = stream[pos]
                pos += 1
                if x < limit:
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]
        self._words = stream[pos:][::-1]

    def _extend(self, stream: list[int], words: int) -> None:
        """Append at least ``words`` words of the next blocks to ``stream`` (whole blocks of four)."""
        if words > 0:
            blocks = -(-words // 4)
            stream.extend(struct.unpack(f">{4 * blocks}Q", self._blocks(blocks)))

    def _blocks(self, count: int) -> bytes:
        """The stream's next ``count`` 32-byte blocks, ``SHA-256(key || counter)``; the counter moves past them."""
        key, counter = self._key, self._counter
        self._counter = counter + count
        sha = hashlib.sha256
        return b"".join([sha(key + c).digest() for c in _counter_bytes(count, counter)])


_COUNTERS = tuple(c.to_bytes(8, "big") for c in range(64))  # the block counters of one wall, encoded


def _counter_bytes(blocks: int, start: int = 0) -> Sequence[bytes]:
    """The big-endian 8-byte counters ``start .. start + blocks - 1`` (the common ones precomputed)."""
    if start + blocks <= len(_COUNTERS):
        return _COUNTERS[start : start + blocks]
    return [c.to_bytes(8, "big") for c in range(start, start + blocks)]


_NUM_LIMITS = 256
_LIMITS = tuple(_TWO64 - (_TWO64 % n) if n else 0 for n in range(_NUM_LIMITS))
"""Rejection limits of ``randbelow(n)`` for the small ``n`` of a shuffle."""

_MULTISETS: dict[tuple[str, tuple[int, ...]], tuple[int, ...]] = {}


def tile_multiset(cfg: RuleConfig) -> list[int]:
    """The variant's physical tiles as kinds, ascending: suited kinds of ``cfg.suits`` ×4 plus ``cfg.extra_tiles``."""
    key = (cfg.suits, tuple(cfg.extra_tiles))
    known = _MULTISETS.get(key)
    if known is not None and len(known) == cfg.num_tiles:
        return list(known)
    tiles = [s * 9 + r for s, letter in enumerate("mps") if letter in cfg.suits for r in range(9) for _ in range(4)]
    tiles.extend(cfg.extra_tiles)
    tiles.sort()
    if len(tiles) != cfg.num_tiles:  # pragma: no cover - guards a change of RuleConfig.num_tiles
        raise ValueError(f"tile multiset has {len(tiles)} tiles but cfg.num_tiles is {cfg.num_tiles}")
    _MULTISETS[key] = tuple(tiles)
    return tiles


def shuffled_wall(cfg: RuleConfig, seed: Seed) -> list[int]:
    """The wall of a hand: the variant's tile multiset shuffled by the ``"wall"`` stream of ``seed``.

    Index 0 is the first tile drawn.  The same (variant multiset, seed) gives the same wall everywhere.
    """
    tiles = tile_multiset(cfg)
    SeedStream(seed, DOMAIN_WALL).shuffle(tiles)
    return tiles


def hand_seed(match_seed: Seed, hand_index: int) -> bytes:
    """The 32-byte seed of hand ``hand_index`` (0-based) of a match: see the module docstring."""
    if isinstance(hand_index, bool) or not isinstance(hand_index, int) or not 0 <= hand_index <= _MAX_HAND_INDEX:
        raise ValueError(f"hand_index must be an int in [0, 2**64), got {hand_index!r}")
    return hashlib.sha256(_HAND_PREFIX + encode_seed(match_seed) + hand_index.to_bytes(8, "big")).digest()


def commitment(seed: Seed) -> str:
    """承诺 commitment: hex SHA-256 of the domain-separated canonical seed, published before the hand."""
    return hashlib.sha256(_COMMIT_PREFIX + encode_seed(seed)).hexdigest()


def verify_deal(seed: Seed, commitment_hex: str, wall: Sequence[int], cfg: RuleConfig) -> bool:
    """Check a revealed seed: it matches the published commitment and reproduces the dealt wall exactly.

    Returns ``False`` when either check fails.  Raises ``ValueError`` for a malformed seed or a commitment that is
    not a 64-digit hex string (bad input, as opposed to a deal that does not verify).
    """
    expected = commitment(seed)
    if not isinstance(commitment_hex, str) or len(commitment_hex) != 64:
        raise ValueError(f"commitment must be a 64-digit hex string, got {commitment_hex!r}")
    try:
        bytes.fromhex(commitment_hex)
    except ValueError:
        raise ValueError(f"commitment must be a 64-digit hex string, got {commitment_hex!r}") from None
    if not hmac.compare_digest(expected, commitment_hex.lower()):
        return False
    return list(wall) == shuffled_wall(cfg, seed)
