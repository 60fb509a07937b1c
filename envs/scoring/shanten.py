"""Hand evaluation (和牌判定, 听牌, 向听数): win check, waits and shanten, with wildcards, table-driven.

Inputs (RULES §1.1, §2.6, §2.13):

* ``counts`` — 34 counts of the player's **concealed natural** tiles (melds removed, wildcard tiles not included).
* ``wilds`` — how many wildcard tiles (红中 / 听用 / 赖子) the player holds among the concealed tiles.
* ``allowed_mask`` — bit ``k`` set when a wildcard may represent kind ``k`` (the caller removes the void suit,
  红中 etc.; :data:`SUITED_MASK`, :data:`ALL_MASK`, :func:`mask_excluding_suit`).
* ``meld_counts`` — optional 34 counts of the tiles in the player's melds.  They only matter for the 4-copy
  limit: no kind may end up with more than 4 copies among concealed tiles, represented wildcards and melds
  (AMB-14), and seven pairs needs a hand without melds.
* ``n_sets`` — how many sets the concealed part must form; derived from the tile count (``sum(counts) + wilds``
  is ``3 * n_sets + 2`` for a complete hand, ``3 * n_sets + 1`` or ``3 * n_sets + 2`` for waits and shanten) and
  checked when given.

Winning shapes: the **standard** shape (基本和) is ``n_sets`` sets (triplets 刻子, or runs 顺子 of three consecutive
ranks of one suit: no wrap, no honors) plus exactly one pair; **seven pairs** (七对) needs ``n_sets == 4`` (14
concealed tiles), no melds and ``seven_pairs=True``: every kind an even count, four copies counting as two pairs.
A wildcard stands for any allowed kind, each one separately.

Shanten (向听数) is the replacement count: over all complete hands ``T`` of ``3 * n_sets + 2`` tiles (standard or
seven pairs, any of the 34 kinds, at most 4 copies of a kind counting the melds), the least number of tiles of
``T`` the hand cannot supply — a natural tile supplies its own kind, a wildcard any allowed kind — minus one.
So -1 = complete (3k+2 hands only), 0 = ready (听牌: one tile away), 1 = one tile short of ready, and so on.
Waiting on a fifth copy does not count as ready (``ready_excludes_fifth_tile``), so for a 3k+1 hand
``shanten(...) == 0`` exactly when :func:`waits` (over all kinds) is non-empty.

How it is fast: each suit's nine counts index a precomputed table (:mod:`envs.scoring._suit_tables`) of *profiles* — for
every (sets, pair) shape, the number of tiles the suit is missing.  Honors are independent kinds.  Group profiles
combine by a memoised (min, +) product, and the wildcards cover the missing tiles of the allowed groups.  A group
with a lowered copy cap (a meld of one of its kinds) or only partly allowed to wildcards takes an exact slower path.

Bad input (wrong length, a count outside 0-4, a fifth copy with the melds, a tile total that cannot be a hand)
raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product

import numpy as np

from envs.core.tiles import COPIES, NUM_KINDS, NUM_SUITED, parse_counts
from envs.scoring import _suit_tables as _st

__all__ = [
    "ALL_MASK",
    "HONOR_MASK",
    "SUITED_MASK",
    "clear_memos",
    "is_winning",
    "is_winning_str",
    "kinds_mask",
    "mask_excluding_suit",
    "shanten",
    "suit_profile_rows",
    "waits",
]

SUITED_MASK = (1 << NUM_SUITED) - 1
"""Kinds 0-26 (万 筒 条)."""
ALL_MASK = (1 << NUM_KINDS) - 1
"""All 34 kinds."""
HONOR_MASK = ALL_MASK ^ SUITED_MASK
"""Kinds 27-33 (winds and dragons)."""

MAX_TILES = 14
_SUIT_BITS = 0x1FF
_HONOR_BITS = 0x7F
_INF = _st.INF
_ZERO7 = [0] * 7
_VALID_COUNT_BYTES = bytes(range(COPIES + 1))
_MEMO_LIMIT = 1 << 20


def suit_profile_rows(impossible: int = _INF) -> np.ndarray:
    """The profile of every count vector of one suit (数牌形表), the table this module evaluates hands with, whole:
    ``(5**9, 10)`` int8, row ``sum(c[r] * 5**r)`` for the counts ``c`` of ranks 1-9 (rank 1 the least significant
    digit), entry ``2 * m + p`` the fewest tiles to add for ``m`` sets and ``p`` pairs (copy caps 4), ``impossible``
    where no such shape exists.  Read from the table's disk cache (built when there is none)."""
    ids, profiles, _ = _st.load_tables()
    rows = profiles[ids]
    if impossible != _INF:
        rows[rows == _INF] = impossible
    return rows


def mask_excluding_suit(suit: int | None, base: int = SUITED_MASK) -> int:
    """``base`` without the nine kinds of ``suit`` (0 = 万, 1 = 筒, 2 = 条); ``base`` itself for ``None``.

    The usual wildcard mask of a player who declared ``suit`` void (定缺, RULES §2.4).
    """
    if suit is None:
        return base
    if suit not in (0, 1, 2):
        raise ValueError(f"suit must be 0 (万 m), 1 (筒 p), 2 (条 s) or None, got {suit!r}")
    return base & ~(_SUIT_BITS << (9 * suit))


def kinds_mask(kinds: Iterable[int]) -> int:
    """Bitmask with bit ``k`` set for each kind in ``kinds``."""
    mask = 0
    for k in kinds:
        if not 0 <= k < NUM_KINDS:
            raise ValueError(f"tile kind {k!r} is out of range 0-33")
        mask |= 1 << k
    return mask


# --------------------------------------------------------------------------------------------------------------
# profile registry: profiles are interned tuples; the first ids are the suit table's rows

_PROFILES: list[tuple[int, ...]] = []
_PROFILE_IDS: dict[tuple[int, ...], int] = {}
_SUIT_ID: bytes = b""  # suit key -> profile id
_CODE: bytes = b""  # suit key -> 0 incomplete, 1 sets only, 2 sets + pair
_READY = False
_IDENTITY = 0  # id of the profile of "no kinds at all"
_CONV: dict[int, int] = {}
_FINAL: dict[tuple[int, int, int, int], int] = {}
_HONOR_IDS: dict[tuple[object, ...], int] = {}
_CAPPED_IDS: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
_KIND_IDS: dict[tuple[int, int], int] = {}
_NUM_SUIT_PROFILES = 0
_PAIR_INDEX: list[int] = []  # a * _NUM_SUIT_PROFILES + b -> row of the two suits' product
_TRIPLE_INDEX: list[int] = []  # pair row * _NUM_SUIT_PROFILES + c -> row of the three suits' product
_TRIPLE_IDS: list[int] = []  # triple row -> profile id
_TRIPLE_NO_HONORS: list[tuple[int, ...]] = []  # triple row -> profile of the whole hand when it holds no honors
_SUIT_INFO: dict[bytes, int] = {}  # 9 counts of a suit -> packed info (see _suit_info)
_SUIT_INFO_LIMIT = 1 << 18  # prefilled with every suit of at most 8 tiles, then memoised up to this size
_HONOR_INFO: dict[bytes, int] = {}  # 7 honor counts -> packed info (tiles, incomplete, pairs)
# packed info fields; the infos of a hand's groups are summed, and no field overflows into the next
_TILES = 63  # bits 0-5: tile count
_INCOMPLETE = 1 << 6  # bits 6-8: groups that are not sets (+ at most one pair)
_PAIRED = 1 << 9  # bits 9-11: groups holding a pair (honors count at most 2)
_WIN_MASK = 0xFC0  # info & _WIN_MASK == _PAIRED: no group incomplete, exactly one pair
_COMPLETE_TOTALS = frozenset(range(2, MAX_TILES + 1, 3))
_ID_SHIFT = 12  # bits 12-19: the suit's profile id
_PRESENT = 1 << 24  # makes every info non-zero
_FRESH_HONORS = 0  # id of the honors group holding no tiles


def _intern(profile: tuple[int, ...]) -> int:
    pid = _PROFILE_IDS.get(profile)
    if pid is None:
        pid = len(_PROFILES)
        _PROFILES.append(profile)
        _PROFILE_IDS[profile] = pid
    return pid


def _init() -> None:
    """Load the suit table (built or read from the cache on first use)."""
    global _SUIT_ID, _CODE, _READY, _IDENTITY, _FRESH_HONORS, _NUM_SUIT_PROFILES
    global _PAIR_INDEX, _TRIPLE_INDEX, _TRIPLE_IDS, _TRIPLE_NO_HONORS
    if _READY:
        return
    ids, profiles, codes = _st.load_tables()
    if len(profiles) > 256:  # 126 in fact; _SUIT_ID stores one byte per key
        raise RuntimeError(f"suit table has {len(profiles)} profiles, expected at most 256")
    for row in profiles:
        _intern(tuple(int(v) for v in row))
    _NUM_SUIT_PROFILES = len(profiles)
    _SUIT_ID = ids.astype("uint8").tobytes()
    _CODE = codes.tobytes()
    for digits in product(range(COPIES + 1), repeat=5):
        _LOW[bytes(digits)] = sum(d * 5**r for r, d in enumerate(digits))
    for digits in product(range(COPIES + 1), repeat=4):
        _HIGH[bytes(digits)] = sum(d * 5 ** (r + 5) for r, d in enumerate(digits))
    _IDENTITY = _intern((0,) + (_INF,) * (_st.PROFILE_LEN - 1))
    _FRESH_HONORS = _honor_profile(_ZERO7, None, _HONOR_BITS)
    pair_index, _, triple_index, triple_rows = _st.suit_combinations(profiles)
    _PAIR_INDEX = pair_index.tolist()
    _TRIPLE_INDEX = triple_index.tolist()
    _TRIPLE_IDS = [_intern(tuple(int(v) for v in row)) for row in triple_rows]
    fresh = np.array([_PROFILES[_FRESH_HONORS]])
    _TRIPLE_NO_HONORS = [tuple(int(v) for v in row) for row in _st.convolve_rows(triple_rows, fresh)[:, 0]]
    # last: the fast paths start using the suit memo as soon as it has entries
    patterns = [b""]
    for _ in range(_st.NUM_RANKS):  # every suit of at most 8 tiles
        patterns = [p + bytes((d,)) for p in patterns for d in range(COPIES + 1) if sum(p) + d <= 8]
    for pattern in patterns:
        _suit_info(pattern)
    _READY = True


def _remember(memo: dict, key: object, value: int) -> int:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def clear_memos() -> None:
    """Empty the memos this module fills as it answers hands (products of profiles, final costs, honor groups,
    capped suits), leaving them as a new process has them; the suit table stays.  For benchmarks of cold caches
    (``benchmarks/bench_agents.py``); a long run clears each memo itself when it grows too large."""
    for memo in (_CONV, _FINAL, _HONOR_IDS, _CAPPED_IDS, _KIND_IDS):
        memo.clear()


def _conv(a: int, b: int) -> int:
    """Id of the (min, +) product of two profiles: the best split of (sets, pair) between two groups."""
    if a > b:
        a, b = b, a
    key = a << 32 | b
    pid = _CONV.get(key)
    if pid is not None:
        return pid
    pa, pb = _PROFILES[a], _PROFILES[b]
    out = []
    for m in range(_st.MAX_SETS + 1):
        for p in range(2):
            best = _INF
            for m1 in range(m + 1):
                for p1 in range(p + 1):
                    v = pa[2 * m1 + p1] + pb[2 * (m - m1) + p - p1]
                    if v < best:
                        best = v
            out.append(best)
    return _remember(_CONV, key, _intern(tuple(out)))


def _final_cost(allowed: int, other: int, n: int, wilds: int) -> int:
    """Least uncovered missing tiles: ``other`` groups' missing tiles all count, ``allowed`` ones beyond ``wilds``."""
    key = (allowed, other, n, wilds)
    cost = _FINAL.get(key)
    if cost is not None:
        return cost
    pa, po = _PROFILES[allowed], _PROFILES[other]
    cost = _INF
    for m in range(n + 1):
        for p in range(2):
            v = po[2 * m + p] + max(0, pa[2 * (n - m) + 1 - p] - wilds)
            if v < cost:
                cost = v
    return _remember(_FINAL, key, min(cost, _INF))


def _kind_profile(count: int, cap: int) -> int:
    """Profile id of one honor kind: a triplet, a pair, or nothing."""
    key = (count, cap)
    pid = _KIND_IDS.get(key)
    if pid is None:
        prof = [_INF] * _st.PROFILE_LEN
        prof[0] = 0
        if cap >= 3:
            prof[2] = max(0, 3 - count)
        if cap >= 2:
            prof[1] = max(0, 2 - count)
        pid = _KIND_IDS[key] = _intern(tuple(prof))
    return pid


def _honor_profile(hcounts: Sequence[int], hcaps: Sequence[int] | None, select: int) -> int:
    """Profile id of the honor kinds in the 7-bit ``select`` (bit i = kind 27 + i)."""
    key = (tuple(hcounts), None if hcaps is None else tuple(hcaps), select)
    pid = _HONOR_IDS.get(key)
    if pid is None:
        pid = _IDENTITY
        for i in range(7):
            if select >> i & 1:
                pid = _conv(pid, _kind_profile(hcounts[i], COPIES if hcaps is None else hcaps[i]))
        _remember(_HONOR_IDS, key, pid)
    return pid


def _capped_suit(counts9: tuple[int, ...], caps9: tuple[int, ...]) -> int:
    key = (counts9, caps9)
    pid = _CAPPED_IDS.get(key)
    if pid is None:
        pid = _remember(_CAPPED_IDS, key, _intern(_st.capped_profile(counts9, caps9)))
    return pid


_LOW: dict[bytes, int] = {}  # counts of ranks 1-5 (as bytes) -> their part of the suit key
_HIGH: dict[bytes, int] = {}  # counts of ranks 6-9 -> their part of the suit key
_NO_HONORS = bytes(7)


def _suit_info(b9: bytes, key: int = -1) -> int:
    """Packed info of one suit's 9 counts (tile count, incomplete / paired flags, profile id), memoised.

    Raises ``KeyError`` when a count is outside 0-4 (callers then take the checked path).
    """
    info = _SUIT_INFO.get(b9)
    if info is None:
        if key < 0:
            key = _LOW[b9[0:5]] + _HIGH[b9[5:9]]
        code = _CODE[key]
        info = sum(b9) | (code == 0) * _INCOMPLETE | (code == 2) * _PAIRED | _SUIT_ID[key] << _ID_SHIFT | _PRESENT
        if len(_SUIT_INFO) < _SUIT_INFO_LIMIT:
            _SUIT_INFO[b9] = info
    return info


def _honor_info(h7: bytes) -> int:
    """Packed info of the 7 honor counts (no profile id); ``KeyError`` for a count outside 0-4."""
    info = _HONOR_INFO.get(h7)
    if info is None:
        if h7.translate(None, _VALID_COUNT_BYTES):
            raise KeyError(h7)
        incomplete = 1 in h7 or 4 in h7
        info = sum(h7) | incomplete * _INCOMPLETE | min(h7.count(2), 2) * _PAIRED | _PRESENT
        _HONOR_INFO[h7] = info
    return info


def _key_of(b: bytes, base: int) -> int:
    """Suit key from the ``bytes`` of a count vector (two small dict lookups)."""
    return _LOW[b[base : base + 5]] + _HIGH[b[base + 5 : base + 9]]


def _suit_key(c: Sequence[int], base: int) -> int:
    return (
        c[base]
        + 5 * c[base + 1]
        + 25 * c[base + 2]
        + 125 * c[base + 3]
        + 625 * c[base + 4]
        + 3125 * c[base + 5]
        + 15625 * c[base + 6]
        + 78125 * c[base + 7]
        + 390625 * c[base + 8]
    )


# --------------------------------------------------------------------------------------------------------------
# input checking


def _as_counts(counts: Sequence[int], name: str = "counts") -> list[int]:
    """A plain list of 34 ints in 0-4 (raises ``ValueError`` naming the problem)."""
    if type(counts) is not list:
        tolist = getattr(counts, "tolist", None)
        try:
            counts = tolist() if tolist is not None else list(counts)
        except TypeError:
            raise ValueError(f"{name} must be a sequence of {NUM_KINDS} tile counts, got {counts!r}") from None
    if len(counts) != NUM_KINDS:
        raise ValueError(f"{name} must have {NUM_KINDS} entries (one per tile kind), got {len(counts)}")
    try:
        bad = bytes(counts).translate(None, _VALID_COUNT_BYTES)
    except (TypeError, ValueError):
        bad = b"?"
    if bad:
        for k, v in enumerate(counts):
            if type(v) is not int and not (hasattr(v, "__index__") and not isinstance(v, bool)):
                raise ValueError(f"{name}[{k}] must be an int count, got {v!r}")
            if not 0 <= v <= COPIES:
                raise ValueError(f"{name}[{k}] = {v} is outside 0-{COPIES} (a kind has {COPIES} copies)")
        counts = [int(v) for v in counts]
    return counts


def _prepare(
    counts: Sequence[int],
    wilds: int,
    meld_counts: Sequence[int] | None,
    n_sets: int | None,
    residues: tuple[int, ...],
    what: str,
) -> tuple[list[int], list[int] | None, int]:
    """Checked ``(counts, caps or None, n_sets)``; ``caps[k] = 4 - meld_counts[k]`` when any meld tile is given."""
    counts = _as_counts(counts)
    if type(wilds) is not int:
        if isinstance(wilds, bool) or not hasattr(wilds, "__index__"):
            raise ValueError(f"wilds must be an int count of wildcard tiles, got {wilds!r}")
        wilds = int(wilds)
    if wilds < 0:
        raise ValueError(f"wilds must be >= 0, got {wilds}")
    total = sum(counts) + wilds
    if total > MAX_TILES:
        raise ValueError(f"a concealed hand holds at most {MAX_TILES} tiles, got {total} (incl. {wilds} wilds)")
    if total % 3 not in residues:
        shapes = " or ".join(f"3k+{r}" for r in residues)
        raise ValueError(f"{what} needs a {shapes} tile hand, got {total} tiles (incl. {wilds} wilds)")
    derived = (total - 1) // 3
    if n_sets is not None and n_sets != derived:
        raise ValueError(f"n_sets={n_sets} does not fit a hand of {total} tiles (expected {derived})")
    caps = None
    if meld_counts is not None:
        melds = _as_counts(meld_counts, "meld_counts")
        if any(melds):
            caps = [COPIES - m for m in melds]
            for k in range(NUM_KINDS):
                if counts[k] > caps[k]:
                    raise ValueError(
                        f"kind {k} has {counts[k]} concealed + {melds[k]} melded copies; a kind has only {COPIES}"
                    )
    return counts, caps, derived


def _check_mask(mask: int, name: str) -> int:
    if type(mask) is not int or not 0 <= mask <= ALL_MASK:
        raise ValueError(f"{name} must be an int bitmask of the 34 kinds (0 .. 2**34-1), got {mask!r}")
    return mask


# --------------------------------------------------------------------------------------------------------------
# standard shape


def _suit_group(
    counts: list[int], caps: list[int] | None, wilds: int, mask: int, suit: int, win_only: bool
) -> tuple[int, bool] | None:
    """``(profile id, wildcard-coverable)`` of one suit; ``None`` when the suit is only partly allowed.

    With ``wilds == 0`` every group counts as coverable (nothing to cover with).  ``win_only``: the caller only
    asks whether the cost is zero, so a meld cap matters only where a wildcard could add a copy beyond it.
    """
    base = 9 * suit
    bits = mask >> base & _SUIT_BITS if wilds else _SUIT_BITS
    if bits != _SUIT_BITS and bits:
        return None
    if caps is not None:
        caps9 = caps[base : base + 9]
        if min(caps9) < COPIES and (
            not win_only or (bits and any(caps9[r] < COPIES and counts[base + r] + wilds > caps9[r] for r in range(9)))
        ):
            return _capped_suit(tuple(counts[base : base + 9]), tuple(caps9)), bool(bits)
    return _SUIT_ID[_suit_key(counts, base)], bool(bits)


def _honor_groups(counts: list[int], caps: list[int] | None, wilds: int, mask: int) -> list[tuple[int, bool]]:
    """The honors as one or two groups: the kinds wildcards may stand for, and the others."""
    hcounts = counts[27:34]
    hcaps = None if caps is None else caps[27:34]
    hbits = mask >> NUM_SUITED & _HONOR_BITS if wilds else _HONOR_BITS
    out = []
    if hbits:
        out.append((_honor_profile(hcounts, hcaps, hbits), True))
    if hbits != _HONOR_BITS:
        out.append((_honor_profile(hcounts, hcaps, _HONOR_BITS ^ hbits), False))
    return out


def _groups(
    counts: list[int], caps: list[int] | None, wilds: int, mask: int, win_only: bool
) -> list[list[tuple[int, bool]]] | None:
    """Per part of the hand (suit 0, 1, 2, honors) its groups' ``(profile id, coverable)``; ``None`` when a suit
    is only partly allowed to wildcards (the typed slow path handles that)."""
    parts: list[list[tuple[int, bool]]] = []
    for suit in range(3):
        group = _suit_group(counts, caps, wilds, mask, suit, win_only)
        if group is None:
            return None
        parts.append([group])
    parts.append(_honor_groups(counts, caps, wilds, mask))
    return parts


def _split(parts: Iterable[list[tuple[int, bool]]]) -> tuple[int, int]:
    """Products of the coverable groups and of the others."""
    covered = other = _IDENTITY
    for part in parts:
        for pid, coverable in part:
            if coverable:
                covered = _conv(covered, pid)
            else:
                other = _conv(other, pid)
    return covered, other


def _standard_cost(
    counts: list[int], caps: list[int] | None, wilds: int, mask: int, n: int, win_only: bool = False
) -> int:
    """Least number of target tiles the hand cannot supply, over standard-shape targets of ``n`` sets + a pair."""
    parts = _groups(counts, caps, wilds, mask, win_only)
    if parts is None:
        return _typed_standard_cost(counts, caps, wilds, mask, n)
    covered, other = _split(parts)
    if not wilds:
        return _PROFILES[_conv(covered, other)][2 * n + 1]
    return _final_cost(covered, other, n, wilds)


_TYPED: dict[tuple[object, ...], tuple[tuple[tuple[int, int], ...], ...]] = {}


def _typed_group(
    counts: tuple[int, ...], caps: tuple[int, ...], wild_ok: tuple[bool, ...], runs: bool
) -> tuple[tuple[tuple[int, int], ...], ...]:
    key = (counts, caps, wild_ok, runs)
    prof = _TYPED.get(key)
    if prof is None:
        prof = _st.exact_profile(counts, caps, wild_ok, runs)
        if len(_TYPED) >= _MEMO_LIMIT:
            _TYPED.clear()
        _TYPED[key] = prof
    return prof


def _typed_standard_cost(counts: list[int], caps: list[int] | None, wilds: int, mask: int, n: int) -> int:
    """Exact slow path with typed missing tiles: ``(a, b)`` = (wildcard-coverable, not coverable) per shape."""
    full_caps = caps if caps is not None else [COPIES] * NUM_KINDS
    wild_ok = [bool(mask >> k & 1) for k in range(NUM_KINDS)]
    acc: list[tuple[tuple[int, int], ...]] = [((0, 0),)] + [()] * (_st.PROFILE_LEN - 1)
    for lo, hi, runs in ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False)):
        prof = _typed_group(tuple(counts[lo:hi]), tuple(full_caps[lo:hi]), tuple(wild_ok[lo:hi]), runs)
        nxt: list[tuple[tuple[int, int], ...]] = []
        for m in range(_st.MAX_SETS + 1):
            for p in range(2):
                pairs = [
                    (a1 + a2, b1 + b2)
                    for m1 in range(m + 1)
                    for p1 in range(p + 1)
                    for a1, b1 in acc[2 * m1 + p1]
                    for a2, b2 in prof[2 * (m - m1) + p - p1]
                ]
                nxt.append(_st.pareto_front(pairs))
        acc = nxt
    return min((b + max(0, a - wilds) for a, b in acc[2 * n + 1]), default=_INF)


# --------------------------------------------------------------------------------------------------------------
# seven pairs


def _seven_pairs_cost(counts: list[int], wilds: int, mask: int) -> int:
    """Least number of tiles of a 14-tile seven-pairs target the hand cannot supply (caps 4, no melds)."""
    pairs = counts.count(2) + counts.count(3) + 2 * counts.count(4)
    need = 7 - pairs
    if need <= 0:
        return 0
    if not wilds:
        singles = counts.count(1) + counts.count(3)
        used = min(need, singles)
        return used + 2 * (need - used)
    # typed items: a single completed (1 tile), a fresh pair (2 tiles); allowed kinds are covered by wildcards
    single_a = single_b = fresh_a = fresh_b = 0
    for k in range(NUM_KINDS):
        c = counts[k]
        fresh = (COPIES - c - (c & 1)) // 2
        if mask >> k & 1:
            single_a += c & 1
            fresh_a += fresh
        else:
            single_b += c & 1
            fresh_b += fresh
    best = _INF
    for j in range(min(single_b, need) + 1):
        rest = need - j
        i = min(single_a, rest)
        f = min(fresh_a, rest - i)
        g = rest - i - f
        if g > fresh_b:
            continue
        cost = j + 2 * g + max(0, i + 2 * f - wilds)
        if cost < best:
            best = cost
    return best


def _no_melds(meld_counts: Sequence[int] | None) -> bool:
    return meld_counts is None or not any(meld_counts)


# --------------------------------------------------------------------------------------------------------------
# public API


def is_winning(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    allowed_mask: int = SUITED_MASK,
    meld_counts: Sequence[int] | None = None,
    seven_pairs: bool = True,
    n_sets: int | None = None,
) -> bool:
    """和牌 win check: do the concealed tiles plus ``wilds`` wildcards form a complete hand (3k+2 tiles)?

    Standard shape or seven pairs (see the module docstring), each wildcard standing for a kind in
    ``allowed_mask`` without any kind passing 4 copies counting ``meld_counts`` (AMB-14).  Exact for any number
    of wildcards.  Raises ``ValueError`` for bad input, including a hand that is not 3k+2 tiles.

    >>> is_winning(parse_counts("123m 456m 789m 123p 55s"))
    True
    >>> is_winning(parse_counts("123m 456m 789m 12p 55s"), 1)
    True
    """
    if wilds == 0 and meld_counts is None and n_sets is None and type(counts) is list and len(counts) == NUM_KINDS:
        # fast path (the common call): three memoised suit lookups.  Anything unusual -- a suit pattern not yet
        # memoised, a bad count, tables not loaded yet -- raises here and takes the checked path below.
        try:
            b = bytes(counts)
            info = _SUIT_INFO[b[0:9]] + _SUIT_INFO[b[9:18]] + _SUIT_INFO[b[18:27]]
            if not b.endswith(_NO_HONORS):
                info += _HONOR_INFO[b[27:34]]
        except (TypeError, ValueError, KeyError):
            b = None
        if b is not None:
            total = info & _TILES
            if total in _COMPLETE_TOTALS:
                if info & _WIN_MASK == _PAIRED:
                    return True
                return seven_pairs and total == MAX_TILES and not (b.count(1) or b.count(3))
    if not _READY:
        _init()
    counts, caps, n = _prepare(counts, wilds, meld_counts, n_sets, (2,), "is_winning")
    if not wilds:
        return _natural_win(bytes(counts), 3 * n + 2, seven_pairs and _no_melds(meld_counts))
    mask = _check_mask(allowed_mask, "allowed_mask")
    if n == 4 and seven_pairs and caps is None and _seven_pairs_cost(counts, wilds, mask) == 0:
        return True
    return _standard_cost(counts, caps, wilds, mask, n, win_only=True) == 0


def _natural_win(b: bytes, total: int, seven_pairs: bool) -> bool:
    """Win check without wildcards (no copy cap can matter): completeness of the three suits + honors."""
    info = _suit_info(b[0:9]) + _suit_info(b[9:18]) + _suit_info(b[18:27]) + _honor_info(b[27:34])
    if info & _WIN_MASK == _PAIRED:
        return True
    return seven_pairs and total == MAX_TILES and not (b.count(1) or b.count(3))


def waits(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    allowed_mask: int = SUITED_MASK,
    meld_counts: Sequence[int] | None = None,
    seven_pairs: bool = True,
    n_sets: int | None = None,
    candidates_mask: int | None = None,
) -> list[int]:
    """听牌 waits of a 3k+1 hand: sorted kinds ``t`` whose natural tile completes it.

    ``t`` ranges over ``candidates_mask`` (default: ``allowed_mask``, the kinds the variant lets wildcards
    stand for, which are the kinds a winning hand may hold) and must have fewer than 4 copies among the concealed
    tiles and ``meld_counts`` (a fifth copy cannot be drawn).  Otherwise the same rules as :func:`is_winning`.

    >>> waits(parse_counts("123m 456m 789m 123p 5s"))
    [22]
    """
    if not _READY:
        _init()
    counts, caps, n = _prepare(counts, wilds, meld_counts, n_sets, (1,), "waits")
    counts = list(counts)  # probed in place below; never touch the caller's list
    mask = _check_mask(allowed_mask, "allowed_mask")
    cand = mask if candidates_mask is None else _check_mask(candidates_mask, "candidates_mask")
    sevens = seven_pairs and n == 4 and caps is None
    own = counts if caps is None else [COPIES - caps[k] + counts[k] for k in range(NUM_KINDS)]
    if not wilds:
        return _natural_waits(counts, own, cand, sevens)
    parts = _groups(counts, caps, wilds, mask, True)
    # the product of every part but one, so that a candidate only recomputes its own part
    rest = None if parts is None else [_split(parts[:g] + parts[g + 1 :]) for g in range(4)]
    odd = sum(c & 1 for c in counts)
    result: list[int] = []
    for t in range(NUM_KINDS):
        if not (cand >> t & 1) or own[t] >= COPIES:
            continue
        counts[t] += 1
        if rest is None:
            win = _standard_cost(counts, caps, wilds, mask, n, win_only=True) == 0
        else:
            part = t // 9 if t < NUM_SUITED else 3
            if part < 3:
                group = _suit_group(counts, caps, wilds, mask, part, True)
                assert group is not None  # the mask did not change, and no suit was partly allowed
                new = [group]
            else:
                new = _honor_groups(counts, caps, wilds, mask)
            covered, other = rest[part]
            for pid, coverable in new:
                if coverable:
                    covered = _conv(covered, pid)
                else:
                    other = _conv(other, pid)
            win = _final_cost(covered, other, n, wilds) == 0
        # seven pairs needs a wildcard per odd kind
        if not win and sevens and odd + (1 if counts[t] & 1 else -1) <= wilds:
            win = _seven_pairs_cost(counts, wilds, mask) == 0
        counts[t] -= 1
        if win:
            result.append(t)
    return result


def _natural_waits(counts: list[int], own: list[int], cand: int, sevens: bool) -> list[int]:
    """Waits without wildcards: only the tile's own group changes, so recheck that group's completeness code."""
    code = _CODE
    b = bytes(counts)
    keys = [_key_of(b, 0), _key_of(b, 9), _key_of(b, 18)]
    codes = [code[k] for k in keys]
    honors = counts[27:34]
    honor_ok = 1 not in honors and 4 not in honors
    honor_pairs = honors.count(2)
    found: set[int] = set()
    for s in range(3):
        others_ok = all(codes[g] for g in range(3) if g != s) and honor_ok
        if not others_ok:
            continue
        other_pairs = sum(codes[g] == 2 for g in range(3) if g != s) + honor_pairs
        key = keys[s]
        for r in range(9):
            t = 9 * s + r
            if cand >> t & 1 and own[t] < COPIES:
                new = code[key + 5**r]
                if new and other_pairs + (new == 2) == 1:
                    found.add(t)
    if all(codes):
        suit_pairs = sum(c == 2 for c in codes)
        for i in range(7):
            t = NUM_SUITED + i
            if not (cand >> t & 1) or own[t] >= COPIES:
                continue
            h = honors[i] + 1
            rest_ok = all(v in (0, 2, 3) for j, v in enumerate(honors) if j != i)
            rest_pairs = sum(v == 2 for j, v in enumerate(honors) if j != i)
            if rest_ok and h in (2, 3) and suit_pairs + rest_pairs + (h == 2) == 1:
                found.add(t)
    if sevens:
        odd = [k for k in range(NUM_KINDS) if counts[k] & 1]
        if len(odd) == 1 and cand >> odd[0] & 1 and own[odd[0]] < COPIES:
            found.add(odd[0])
    return sorted(found)


def shanten(
    counts: Sequence[int],
    wilds: int = 0,
    *,
    allowed_mask: int = SUITED_MASK,
    meld_counts: Sequence[int] | None = None,
    seven_pairs: bool = True,
    n_sets: int | None = None,
) -> int:
    """向听数 shanten of a 3k+1 or 3k+2 hand: -1 complete, 0 ready (听牌), 1, 2, ... (module docstring).

    Precisely: ``min |T - H| - 1`` over complete hands ``T`` of ``3 * n_sets + 2`` tiles (standard shape, or seven
    pairs when allowed) with no kind above 4 copies counting ``meld_counts``, where ``|T - H|`` counts the tiles of
    ``T`` left over after matching each natural tile of the hand to its own kind and each wildcard to any kind
    of ``allowed_mask``.

    >>> shanten(parse_counts("123m 456m 789m 12p 55s"))
    0
    >>> shanten(parse_counts("123m 456m 789m 13p 5s"), 1)
    0
    """
    if wilds == 0 and meld_counts is None and n_sets is None and type(counts) is list and len(counts) == NUM_KINDS:
        # fast path (the common call): three memoised suit lookups, two list lookups for the suits' product;
        # anything unusual raises inside ``try`` and takes the checked path below (as in is_winning)
        try:
            b = bytes(counts)
            x, y, z = _SUIT_INFO[b[0:9]], _SUIT_INFO[b[9:18]], _SUIT_INFO[b[18:27]]
            honors = b[27:34]
            total = (x + y + z) & _TILES
            if honors != _NO_HONORS:
                total += _HONOR_INFO[honors] & _TILES
        except (TypeError, ValueError, KeyError):
            b = None
        if b is not None and total % 3 and total <= MAX_TILES:
            size = _NUM_SUIT_PROFILES
            row = _PAIR_INDEX[(x >> _ID_SHIFT & 255) * size + (y >> _ID_SHIFT & 255)]
            row = _TRIPLE_INDEX[row * size + (z >> _ID_SHIFT & 255)]
            if honors == _NO_HONORS:
                prof = _TRIPLE_NO_HONORS[row]
            else:
                prof = _PROFILES[_conv(_TRIPLE_IDS[row], _honor_profile(honors, None, _HONOR_BITS))]
            n = (total - 1) // 3
            cost = prof[2 * n + 1]
            if seven_pairs and n == 4 and cost > 0:  # a ready standard shape may be complete seven pairs
                cost = _natural_seven_pairs(b, cost)
            return cost - 1
    if not _READY:
        _init()
    counts, caps, n = _prepare(counts, wilds, meld_counts, n_sets, (1, 2), "shanten")
    if not wilds and caps is None:
        return _natural_shanten(bytes(counts), n, seven_pairs and _no_melds(meld_counts))
    mask = _check_mask(allowed_mask, "allowed_mask") if wilds else SUITED_MASK
    cost = _standard_cost(counts, caps, wilds, mask, n)
    if seven_pairs and n == 4 and caps is None and cost > 0:
        cost = min(cost, _seven_pairs_cost(counts, wilds, mask))
    return cost - 1


def _natural_shanten(b: bytes, n: int, seven_pairs: bool) -> int:
    """Shanten without wildcards or melds (valid counts): suit profiles, their product, seven pairs."""
    size = _NUM_SUIT_PROFILES
    x, y, z = _suit_info(b[0:9]), _suit_info(b[9:18]), _suit_info(b[18:27])
    row = _PAIR_INDEX[(x >> _ID_SHIFT & 255) * size + (y >> _ID_SHIFT & 255)]
    row = _TRIPLE_INDEX[row * size + (z >> _ID_SHIFT & 255)]
    honors = b[27:34]
    if honors == _NO_HONORS:
        prof = _TRIPLE_NO_HONORS[row]
    else:
        _honor_info(honors)  # memoised for the fast path
        prof = _PROFILES[_conv(_TRIPLE_IDS[row], _honor_profile(honors, None, _HONOR_BITS))]
    cost = prof[2 * n + 1]
    if seven_pairs and n == 4 and cost > 0:  # a ready standard shape may be complete seven pairs
        cost = _natural_seven_pairs(b, cost)
    return cost - 1


def _natural_seven_pairs(b: bytes, cost: int) -> int:
    """``min(cost, seven-pairs cost)`` of a 13/14-tile hand without wildcards."""
    pairs = b.count(2) + b.count(3) + 2 * b.count(4)
    if pairs >= 7:
        return 0
    need = 7 - pairs
    singles = b.count(1) + b.count(3)
    sevens = 2 * need - (need if need < singles else singles)
    return sevens if sevens < cost else cost


def is_winning_str(text: str, wilds: int = 0, **kwargs: object) -> bool:
    """:func:`is_winning` of a hand string (``"123m 456p 789s 11z"``, see :mod:`envs.core.tiles`)."""
    return is_winning(parse_counts(text), wilds, **kwargs)  # type: ignore[arg-type]
