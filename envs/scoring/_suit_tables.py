"""Per-suit lookup tables (数牌表) behind :mod:`envs.scoring.shanten`.

Hand evaluation reduces to one question asked of a *group* of kinds (one suit, or some honors):

    profile(c)[2*m + p] = the least number of tiles that must be **added** to the group's natural tiles ``c``
                          (surplus natural tiles may be dropped) so that it holds exactly ``m`` sets and ``p``
                          pairs (``m`` = 0..4, ``p`` = 0..1), no kind above its copy cap (4 by default).

A profile is a 10-tuple; :data:`INF` marks an impossible shape.  Sets are triplets (刻子) and, in a suit, runs
(顺子) of three consecutive ranks that never wrap; honors never form runs.

The table covers all ``5**9`` count vectors of a suit (key ``sum(c[r] * 5**r)``) with caps 4.  It is computed
by :func:`build_tables`, a dynamic programme over the ranks vectorised over every count prefix at once (about
1 s), and cached as ``suit_tables_v1.npz`` in ``$CHUANMA_CACHE_DIR`` or ``~/.cache/chuanma``; when the cache
cannot be read or written the table is rebuilt in memory.  ``python -m envs.scoring._suit_tables`` rebuilds the cache
and prints its statistics.  Only 126 distinct profiles occur, so the table is one byte per key.

Groups the table does not cover use exact single-vector versions of the same programme, which the caller
memoises: :func:`capped_profile` (lower caps: the player's melds hold copies of a kind, RULES §2.13 AMB-14) and
:func:`exact_profile` (a suit only partly available to wildcards, so added tiles are typed).
"""

from __future__ import annotations

import os
import tempfile
from itertools import product
from pathlib import Path

import numpy as np

NUM_RANKS = 9
MAX_SETS = 4
PROFILE_LEN = 2 * (MAX_SETS + 1)
INF = 99
"""Marks an impossible (sets, pair) shape in a profile."""

TABLE_KEYS = 5**NUM_RANKS
EMPTY_PROFILE = (0, 2, 3, 5, 6, 8, 9, 11, 12, 14)
"""Profile of an empty suit: every set or pair is built from added tiles."""
_CACHE_NAME = "suit_tables_v1.npz"


def build_profiles(length: int = NUM_RANKS) -> tuple[np.ndarray, np.ndarray]:
    """Compute the profile of every count vector of a suit with ``length`` ranks (caps 4, all runs allowed).

    Returns ``(ids, profiles)``: ``ids[key]`` (``key = sum(c[r] * 5**r)``) indexes a row of ``profiles``
    (``int8``, shape ``(D, 10)``, :data:`INF` for impossible shapes).

    The programme walks the ranks left to right.  Its state after a prefix of ranks is (sets, pair, runs started at
    the previous rank, runs started two ranks back); the value is the largest number of the prefix's natural tiles
    that the chosen target tiles can match (``sum(min(target[r], c[r]))``).  Every prefix of counts is processed at
    once as one numpy axis, so rank ``r`` handles ``5**r`` prefixes in parallel.
    """
    if not 1 <= length <= NUM_RANKS:
        raise ValueError(f"suit length must be 1-{NUM_RANKS}, got {length}")
    layer: dict[tuple[int, int, int, int], np.ndarray] = {(0, 0, 0, 0): np.zeros(1, dtype=np.int8)}
    digits = np.arange(5, dtype=np.int8)
    for rank in range(length):
        last = rank == length - 1
        max_new_runs = MAX_SETS if rank <= length - 3 else 0
        width = next(iter(layer.values())).shape[0]
        # best[(new_state, target_count)] = max over old states and choices of the old value
        best: dict[tuple[tuple[int, int, int, int], int], np.ndarray] = {}
        for (m, p, x, y), row in layer.items():
            if last and x:
                continue  # a run started at the previous rank cannot finish
            for t, q, z in product(range(2), range(2 - p), range(max_new_runs + 1)):
                target = 3 * t + 2 * q + z + x + y
                m2 = m + t + z
                if target > 4 or m2 > MAX_SETS:
                    continue
                key = ((m2, p + q, z, x), target)
                prev = best.get(key)
                best[key] = row if prev is None else np.maximum(prev, row)
        new_layer: dict[tuple[int, int, int, int], np.ndarray] = {}
        for (state, target), row in best.items():
            gain = np.minimum(digits, target)  # matched natural tiles at this rank, per digit
            # the digit of this rank is the most significant so far: new key = prefix + digit * 5**rank
            cand = (row[None, :] + gain[:, None]).reshape(5 * width)
            prev = new_layer.get(state)
            new_layer[state] = cand if prev is None else np.maximum(prev, cand)
        layer = new_layer
    keys = 5**length
    table = np.full((keys, PROFILE_LEN), INF, dtype=np.int8)
    for m in range(MAX_SETS + 1):
        for p in range(2):
            matched = layer.get((m, p, 0, 0))
            if matched is None:
                continue
            size = 3 * m + 2 * p
            table[:, 2 * m + p] = size - matched
    packed = np.zeros(keys, dtype=np.int64)
    for j in range(PROFILE_LEN):
        packed |= np.minimum(table[:, j], 15).astype(np.int64) << (4 * j)
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    dtype = np.uint8 if len(first) <= 2**8 else np.uint16
    return inverse.astype(dtype).reshape(-1), table[first]


def completeness_codes(ids: np.ndarray, profiles: np.ndarray) -> np.ndarray:
    """Per key: 1 when the group's tiles form sets only, 2 when sets plus one pair, 0 otherwise (``uint8``).

    Decided from the profile entry whose size equals the group's own tile count (nothing to add).
    """
    totals = np.zeros(1, dtype=np.int64)
    for _ in range(NUM_RANKS):  # digit sums of all keys, least significant digit first
        totals = (totals[None, :] + np.arange(5, dtype=np.int64)[:, None]).reshape(-1)
    rows = profiles.astype(np.int64)[ids]
    code = np.zeros(len(ids), dtype=np.uint8)
    plain_sets, pair_sets = totals // 3, (totals - 2) // 3
    plain = (totals % 3 == 0) & (plain_sets <= MAX_SETS)
    pair = (totals % 3 == 2) & (pair_sets <= MAX_SETS)
    plain_col = np.where(plain, 2 * plain_sets, 0)
    pair_col = np.where(pair, 2 * pair_sets + 1, 1)
    plain &= np.take_along_axis(rows, plain_col[:, None], 1)[:, 0] == 0
    pair &= np.take_along_axis(rows, pair_col[:, None], 1)[:, 0] == 0
    code[plain] = 1
    code[pair] = 2
    return code


def convolve_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(min, +) products of every profile row of ``x`` with every row of ``y``: shape ``(len(x), len(y), 10)``.

    ``out[i, j, 2*m + p]`` is the best split of ``m`` sets and ``p`` pairs between the two groups.
    """
    x = x.astype(np.int64)
    y = y.astype(np.int64)
    out = np.empty((len(x), len(y), PROFILE_LEN), dtype=np.int64)
    for m in range(MAX_SETS + 1):
        for p in range(2):
            best = np.full((len(x), len(y)), INF, dtype=np.int64)
            for m1 in range(m + 1):
                for p1 in range(p + 1):
                    np.minimum(best, x[:, None, 2 * m1 + p1] + y[None, :, 2 * (m - m1) + p - p1], out=best)
            out[:, :, 2 * m + p] = best
    return out


def suit_combinations(profiles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Closed tables for combining the three suits of a hand: ``(pair_index, pair_rows, triple_index, triple_rows)``.

    ``pair_rows[pair_index[a * D + b]]`` is the product of suit profiles ``a`` and ``b`` (``D = len(profiles)``);
    ``triple_rows[triple_index[i * D + c]]`` the product of pair row ``i`` with suit profile ``c``.  Only a few
    hundred distinct rows occur, so this replaces per-hand products by two list lookups.
    """
    d = len(profiles)
    pairs = convolve_rows(profiles, profiles).reshape(d * d, PROFILE_LEN)
    pair_rows, pair_index = np.unique(pairs, axis=0, return_inverse=True)
    triples = convolve_rows(pair_rows, profiles).reshape(len(pair_rows) * d, PROFILE_LEN)
    triple_rows, triple_index = np.unique(triples, axis=0, return_inverse=True)
    return pair_index.reshape(-1), pair_rows, triple_index.reshape(-1), triple_rows


def build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, profiles, codes)`` for the 9-rank suit: see :func:`build_profiles` and :func:`completeness_codes`."""
    ids, profiles = build_profiles()
    return ids, profiles, completeness_codes(ids, profiles)


def cache_dir() -> Path:
    """Where the table cache lives: ``$CHUANMA_CACHE_DIR`` or ``~/.cache/chuanma``."""
    env = os.environ.get("CHUANMA_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "chuanma"


def _plausible(ids: np.ndarray, profiles: np.ndarray, codes: np.ndarray) -> bool:
    """Cheap integrity check of a loaded cache (shape, range, a few known entries)."""
    if ids.shape != (TABLE_KEYS,) or codes.shape != (TABLE_KEYS,) or profiles.ndim != 2:
        return False
    if profiles.shape[1] != PROFILE_LEN or int(ids.max()) >= profiles.shape[0]:
        return False
    # 1m1m (pair) = key 2; 1m2m3m (run) = 1 + 5 + 25; 1m2m = 6 (incomplete)
    return (
        tuple(int(v) for v in profiles[int(ids[0])]) == EMPTY_PROFILE
        and (int(codes[0]), int(codes[2]), int(codes[31]), int(codes[6])) == (1, 2, 1, 0)
        and int(profiles[int(ids[6]), 2]) == 1
    )


def load_tables(use_cache: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 9-rank tables ``(ids, profiles, codes)``, from the cache when it is valid, else built (and cached)."""
    path = cache_dir() / _CACHE_NAME
    if use_cache:
        try:
            with np.load(path) as data:
                tables = data["ids"], data["profiles"], data["codes"]
            if _plausible(*tables):
                return tables
        except (OSError, KeyError, ValueError, EOFError):
            pass  # missing or damaged cache: rebuild below
    tables = build_tables()
    if use_cache:
        _write_cache(path, tables)
    return tables


def _write_cache(path: Path, tables: tuple[np.ndarray, np.ndarray, np.ndarray]) -> bool:
    """Write the cache atomically; ``False`` (and no exception) when the location is not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".suit_tables", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, ids=tables[0], profiles=tables[1], codes=tables[2])
        os.replace(tmp, path)
        return True
    except OSError:
        return False
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# --------------------------------------------------------------------------------------------------------------
# exact single-vector programmes (slow paths)

_STATES = [
    (m, p, x, y)
    for m in range(MAX_SETS + 1)
    for p in range(2)
    for x in range(MAX_SETS + 1)
    for y in range(MAX_SETS + 1)
    if x + y <= m
]
_STATE_INDEX = {s: i for i, s in enumerate(_STATES)}
_FINAL_STATES = [_STATE_INDEX[(j // 2, j % 2, 0, 0)] for j in range(PROFILE_LEN)]
_NEG = -1000
_TRANSITIONS: dict[tuple[int, int, bool], np.ndarray] = {}


def _transition(count: int, cap: int, new_runs: bool) -> np.ndarray:
    """(max, +) matrix of one rank: ``M[old, new]`` = natural tiles matched at this rank, ``_NEG`` if impossible."""
    key = (count, cap, new_runs)
    matrix = _TRANSITIONS.get(key)
    if matrix is None:
        matrix = np.full((len(_STATES), len(_STATES)), _NEG, dtype=np.int16)
        for i, (m, p, x, y) in enumerate(_STATES):
            for t, q, z in product(range(2), range(2 - p), range(MAX_SETS + 1 if new_runs else 1)):
                target = 3 * t + 2 * q + z + x + y
                m2 = m + t + z
                if target <= cap and m2 <= MAX_SETS:
                    j = _STATE_INDEX[(m2, p + q, z, x)]
                    matrix[i, j] = max(matrix[i, j], min(target, count))
        _TRANSITIONS[key] = matrix
    return matrix


def capped_profile(counts: tuple[int, ...], caps: tuple[int, ...], runs: bool = True) -> tuple[int, ...]:
    """Profile of one group whose kinds have copy caps ``caps`` (``counts[r] <= caps[r] <= 4``), in rank order.

    ``runs`` says whether consecutive kinds form runs (a suit) or not (honors).  The same dynamic programme as
    :func:`build_profiles`, for one vector, as nine (max, +) matrix-vector products (tens of microseconds).
    """
    layer = np.full(len(_STATES), _NEG, dtype=np.int16)
    layer[0] = 0
    length = len(counts)
    for rank in range(length):
        matrix = _transition(counts[rank], caps[rank], runs and rank <= length - 3)
        layer = np.maximum((layer[:, None] + matrix).max(axis=0), _NEG)
    out = []
    for j, state in enumerate(_FINAL_STATES):
        matched = int(layer[state])
        out.append(3 * (j // 2) + 2 * (j % 2) - matched if matched >= 0 else INF)
    return tuple(out)


def pareto_front(pairs: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Minimal (a, b) pairs: none is matched or beaten in both coordinates by another."""
    pairs.sort()
    out: list[tuple[int, int]] = []
    for a, b in pairs:
        if not out or b < out[-1][1]:
            out.append((a, b))
    return tuple(out)


def exact_profile(
    counts: tuple[int, ...], caps: tuple[int, ...], wild_ok: tuple[bool, ...], runs: bool
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Typed profile of one group: for each ``2*m + p``, the Pareto set of ``(a, b)`` where ``a`` added tiles are
    of kinds a wildcard may represent (``wild_ok``) and ``b`` are not; an empty tuple marks an impossible shape.

    ``counts[r] <= caps[r] <= 4`` are the natural tiles and copy limits of the group's kinds in rank order;
    ``runs`` says whether consecutive kinds form runs (a suit) or not (honors).  Pure Python, for the rare groups
    the table does not cover.
    """
    length = len(counts)
    layer: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {(0, 0, 0, 0): [(0, 0)]}
    for rank in range(length):
        c, cap, ok = counts[rank], caps[rank], wild_ok[rank]
        max_new_runs = MAX_SETS if runs and rank <= length - 3 else 0
        nxt: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {}
        for (m, p, x, y), front in layer.items():
            for t in (0, 1):
                for q in range(2 - p):
                    base = 3 * t + 2 * q + x + y
                    for z in range(max_new_runs + 1):
                        target = base + z
                        m2 = m + t + z
                        if target > cap or m2 > MAX_SETS:
                            break
                        add = target - c if target > c else 0
                        key = (m2, p + q, z, x)
                        bucket = nxt.setdefault(key, [])
                        if ok:
                            bucket.extend((a + add, b) for a, b in front)
                        else:
                            bucket.extend((a, b + add) for a, b in front)
        layer = {key: list(pareto_front(bucket)) for key, bucket in nxt.items()}
    out = []
    for m in range(MAX_SETS + 1):
        for p in range(2):
            out.append(tuple(layer.get((m, p, 0, 0), ())))
    return tuple(out)


def main() -> None:
    """Rebuild the cache file and print a short JSON summary."""
    import json
    import time

    start = time.perf_counter()
    tables = build_tables()
    built = time.perf_counter() - start
    path = cache_dir() / _CACHE_NAME
    written = _write_cache(path, tables)
    print(
        json.dumps(
            {
                "build_seconds": round(built, 3),
                "keys": int(tables[0].shape[0]),
                "distinct_profiles": int(tables[1].shape[0]),
                "cache": str(path),
                "written": written,
            }
        )
    )


if __name__ == "__main__":
    main()
