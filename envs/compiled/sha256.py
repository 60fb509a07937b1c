"""SHA-256 (FIPS 180-4) compiled with numba, for the seeded streams of :mod:`envs.core.wall` (发牌的哈希).

The wall of a hand is shuffled by SHA-256 in counter mode: block ``c`` of a stream is ``SHA256(key + c)``, a
40-byte message (32-byte key, 8-byte big-endian counter) that pads into a single 64-byte block.  Hashing those
blocks here, inside the compiled deal, spares a Python call into ``hashlib`` per block.

Words are held as ``uint32`` in arrays; the arithmetic runs on ``int64`` scalars masked to 32 bits (an ``int64``
holds a sum of a few 32-bit words and a 31-bit left shift of one), which keeps numba away from its
``uint64``-with-``int`` promotion to float.

* :func:`compress` — the compression function over one 64-byte block;
* :func:`hash_words` / :func:`sha256` — any message (padding, as many blocks as it needs);
* :func:`counter_key` / :func:`counter_block` — the 40-byte counter-mode message ``key + c`` as four big-endian
  ``uint64`` words; the first eight rounds read only the key, so :func:`counter_key` runs them once per stream
  (the midstate) and each block starts at round 8.

``tests/compiled/test_compiled_sha256.py`` compares every function with ``hashlib.sha256``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["BLOCK_BYTES", "DIGEST_BYTES", "compress", "counter_block", "counter_key", "hash_words", "sha256"]

BLOCK_BYTES = 64
DIGEST_BYTES = 32
_MASK = 0xFFFFFFFF

_K = np.array(
    [
        0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
        0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
        0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
        0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
        0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
        0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
        0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
        0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
    ],
    dtype=np.int64,
)  # fmt: skip
"""Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes."""

_H0 = np.array(
    [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19], dtype=np.uint32
)
"""Initial hash value: the first 32 bits of the fractional parts of the square roots of the first 8 primes."""


@njit(cache=True, inline="always")
def _rotr(x, n):
    """Rotate the 32-bit word ``x`` (an ``int64`` below 2**32) right by ``n``."""
    return ((x >> n) | (x << (32 - n))) & _MASK


@njit(cache=True, inline="always")
def _round(a, b, c, d, e, f, g, h, kw):
    """One round on the working words ``a .. h`` with ``kw`` = K[t] + W[t]: returns the new ``e`` and ``a``
    (the others shift one place, which :func:`compress` does by renaming)."""
    t1 = h + (_rotr(e, 6) ^ _rotr(e, 11) ^ _rotr(e, 25)) + ((e & f) ^ (~e & g)) + kw
    t2 = (_rotr(a, 2) ^ _rotr(a, 13) ^ _rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
    return (d + t1) & _MASK, (t1 + t2) & _MASK


@njit(cache=True)
def _schedule(w):
    """Extend the block's 16 words ``w[:16]`` into the 64-word message schedule ``w`` (``uint32[64]``)."""
    for t in range(16, 64):
        x, y = np.int64(w[t - 15]), np.int64(w[t - 2])
        s0 = _rotr(x, 7) ^ _rotr(x, 18) ^ (x >> 3)
        s1 = _rotr(y, 17) ^ _rotr(y, 19) ^ (y >> 10)
        w[t] = (np.int64(w[t - 16]) + s0 + np.int64(w[t - 7]) + s1) & _MASK


@njit(cache=True)
def _rounds(work, w, first, stop):
    """The working words ``work`` (``uint32[8]``, a .. h) after rounds ``first .. stop - 1`` (multiples of 8) over
    the schedule ``w``, as a tuple of eight ``int64``.  Eight rounds at a time, the words renamed, not shifted."""
    k = _K
    a, b, c, d = np.int64(work[0]), np.int64(work[1]), np.int64(work[2]), np.int64(work[3])
    e, f, g, h = np.int64(work[4]), np.int64(work[5]), np.int64(work[6]), np.int64(work[7])
    for t in range(first, stop, 8):
        d, h = _round(a, b, c, d, e, f, g, h, k[t] + np.int64(w[t]))
        c, g = _round(h, a, b, c, d, e, f, g, k[t + 1] + np.int64(w[t + 1]))
        b, f = _round(g, h, a, b, c, d, e, f, k[t + 2] + np.int64(w[t + 2]))
        a, e = _round(f, g, h, a, b, c, d, e, k[t + 3] + np.int64(w[t + 3]))
        h, d = _round(e, f, g, h, a, b, c, d, k[t + 4] + np.int64(w[t + 4]))
        g, c = _round(d, e, f, g, h, a, b, c, k[t + 5] + np.int64(w[t + 5]))
        f, b = _round(c, d, e, f, g, h, a, b, k[t + 6] + np.int64(w[t + 6]))
        e, a = _round(b, c, d, e, f, g, h, a, k[t + 7] + np.int64(w[t + 7]))
    return a, b, c, d, e, f, g, h


@njit(cache=True)
def compress(state, w, out):
    """Fold one 64-byte block into the hash value ``state`` (``uint32[8]``), writing the result to ``out``
    (``uint32[8]``, may be ``state`` itself).

    ``w`` (``uint32[64]``) holds the block as 16 big-endian words in ``w[:16]``; the message schedule is written
    over ``w[16:]``."""
    _schedule(w)
    a, b, c, d, e, f, g, h = _rounds(state, w, 0, 64)
    out[0] = (np.int64(state[0]) + a) & _MASK
    out[1] = (np.int64(state[1]) + b) & _MASK
    out[2] = (np.int64(state[2]) + c) & _MASK
    out[3] = (np.int64(state[3]) + d) & _MASK
    out[4] = (np.int64(state[4]) + e) & _MASK
    out[5] = (np.int64(state[5]) + f) & _MASK
    out[6] = (np.int64(state[6]) + g) & _MASK
    out[7] = (np.int64(state[7]) + h) & _MASK


@njit(cache=True)
def _load_block(data, start, w):
    """``w[:16]`` = the 64 bytes ``data[start : start + 64]`` (``uint8``) as big-endian words."""
    for i in range(16):
        p = start + 4 * i
        w[i] = (np.int64(data[p]) << 24) | (np.int64(data[p + 1]) << 16) | (np.int64(data[p + 2]) << 8) | data[p + 3]


@njit(cache=True)
def hash_words(msg, state):
    """SHA-256 of ``msg`` (``uint8[:]``, any length) as its eight 32-bit words, written to ``state``
    (``uint32[8]``); the digest is their big-endian bytes."""
    state[:] = _H0
    w = np.empty(64, dtype=np.uint32)
    n = msg.shape[0]
    full = n // BLOCK_BYTES
    for blk in range(full):
        _load_block(msg, blk * BLOCK_BYTES, w)
        compress(state, w, state)
    # the tail: the last bytes, the 0x80 marker, zeros and the bit length (one or two blocks)
    tail = np.zeros(2 * BLOCK_BYTES, dtype=np.uint8)
    rest = n - full * BLOCK_BYTES
    tail[:rest] = msg[full * BLOCK_BYTES :]
    tail[rest] = 0x80
    size = BLOCK_BYTES if rest < BLOCK_BYTES - 8 else 2 * BLOCK_BYTES
    bits = np.uint64(n) * np.uint64(8)
    for b in range(8):
        tail[size - 1 - b] = (bits >> np.uint64(8 * b)) & np.uint64(0xFF)
    for start in range(0, size, BLOCK_BYTES):
        _load_block(tail, start, w)
        compress(state, w, state)


@njit(cache=True)
def sha256(msg):
    """The 32-byte SHA-256 digest of ``msg`` (``uint8[:]``), as ``uint8[32]``."""
    state = np.empty(8, dtype=np.uint32)
    hash_words(msg, state)
    out = np.empty(DIGEST_BYTES, dtype=np.uint8)
    for i in range(8):
        for b in range(4):
            out[4 * i + b] = (np.int64(state[i]) >> (24 - 8 * b)) & 0xFF
    return out


@njit(cache=True, inline="always")
def _join(i, x, y):
    """The 64-bit output word of hash words ``i``, ``i + 1`` from the final working words ``x``, ``y``."""
    hi = (np.int64(_H0[i]) + x) & _MASK
    lo = (np.int64(_H0[i + 1]) + y) & _MASK
    return (np.uint64(hi) << np.uint64(32)) | np.uint64(lo)


@njit(cache=True)
def counter_key(key, out):
    """Prepare the counter-mode key ``key`` (``uint32[8]``, e.g. from :func:`hash_words`) for
    :func:`counter_block`: ``out`` (``uint32[16]``) = the key, then the working words after the first eight rounds
    of every block of the stream (the midstate 中间状态: those rounds read only the key).  ``key`` may be
    ``out[:8]``."""
    w = key.copy()  # ``key`` may be ``out[:8]``
    out[:8] = w
    a, b, c, d, e, f, g, h = _rounds(_H0, w, 0, 8)
    out[8], out[9], out[10], out[11] = a, b, c, d
    out[12], out[13], out[14], out[15] = e, f, g, h


@njit(cache=True)
def counter_block(ckey, counter, w, out):
    """Block ``counter`` of a counter-mode stream: ``SHA256(key + counter as 8-byte big-endian)`` as four
    big-endian ``uint64`` words in ``out`` (``uint64[4]``).

    ``ckey`` is the key prepared by :func:`counter_key` (``uint32[16]``); ``w`` (``uint32[64]``) is scratch.  The
    40-byte message pads into one block: the key, the counter, the 0x80 marker, zeros and the length, 320 bits; the
    rounds start at round 8 from the prepared midstate."""
    w[:8] = ckey[:8]
    w[8] = (counter >> 32) & _MASK
    w[9] = counter & _MASK
    w[10] = 0x80000000
    w[11:15] = 0
    w[15] = 40 * 8
    _schedule(w)
    a, b, c, d, e, f, g, h = _rounds(ckey[8:], w, 8, 64)
    out[0] = _join(0, a, b)
    out[1] = _join(2, c, d)
    out[2] = _join(4, e, f)
    out[3] = _join(6, g, h)
