"""Interpretations (牌型解读) of a winning hand: every wildcard assignment × every decomposition (RULES.md §2.6, §2.13).

A winning hand is read as a set of *groups* (triplets 刻子, runs 顺子, one pair 将 — or seven pairs 七对) over the
concealed tiles, with the melds supplying the remaining sets.  Wildcards (红中, 听用) represent kinds: the
assignment is implied by the groups (``counts - naturals``), so enumerating every distinct multiset of groups
enumerates every (assignment, decomposition) pair exactly once.

Algorithm — budgeted recursion over kinds (no brute-force enumeration of wildcard identities)
------------------------------------------------------------------------------------------------
Kinds are visited in index order 0..33.  At kind ``i`` the search chooses how many triplets (``t``), pairs (``p``)
and runs starting at ``i`` (``r``) the reading holds; runs started at ``i-1`` and ``i-2`` carry tiles into ``i``.
The final count ``c = 3t + 2p + r + carries`` must cover the natural tiles of ``i``; the shortfall ``c - n_i`` is
paid from the wildcard budget, only if a wildcard may represent ``i`` (not the void suit, not 红中 itself ...), and
``c`` plus the copies in melds may not exceed 4 (AMB-14, unless ``wild_ignores_four_copy_limit``).  Eight 听用 cost
no more than a few hundred states.

Every fan predicate reads an interpretation only through :class:`Interpretation`'s ``shape``, ``flags`` and ``gen``
(plus the win context).  With ``collapse=True`` (the default used by the scorer) readings that agree on
``(shape, flags)`` are merged keeping the one with the most 根; since every fan table is non-decreasing in 根 for
fixed flags, the best value over the collapsed set equals the best over all readings.  A new pattern that needs a
fact not captured by the flags MUST add a flag bit here (e.g. a 2-5-8 pair for Wuhan).  ``collapse=False`` yields
every reading (tests compare both against a brute-force enumeration of wildcard identities).

Flag bits (over the concealed groups *and* the melds):

==========================  ==================================================================
``FLAG_SUIT_M/P/S``         a tile of that suit is present
``FLAG_HONOR``              an honor tile is present
``FLAG_RUN``                some set is a run (顺子 or 吃)
``FLAG_GROUP_NO_TERMINAL``  some group (set, pair, meld) holds no 1/9 (breaks 带幺九)
``FLAG_TERMINAL``           some tile is a 1 or 9 (breaks 断幺九)
``FLAG_SIMPLE``             some tile is not a 1/9 (breaks the all-terminals 幺九)
``FLAG_NOT_JIANG``          some tile is not a 2/5/8 (breaks 将对)
``FLAG_MARKED_TRIPLET``     a triplet / pong / kong of the marked kind (Yibin 本金)
``FLAG_JIANG_PAIR``         the pair is a 2/5/8 kind (Wuhan 将 for small wins, AMB-76)
``FLAG_MARKED_PAIR``        the pair is of the marked kind (Wuhan: two 赖子 as a natural pair)
``FLAG_SOFT``               some wildcard stands for a kind other than its own (Wuhan 软胡)
``FLAG_NOT_FENG``           some tile is not a wind, 发 or 白 (breaks Wuhan 风一色)
``FLAG_RUN456_M/P/S``       a concealed 4-5-6 run of that suit (断卡根 硬卡)
``KA_MASK``                 3-bit counter (``>> KA_SHIFT``) of concealed 4-5-6 runs (断卡根 卡), saturating at 7
``FLAG_WILD_PAIR``          the pair is two wildcards standing for another kind: its kind holds no natural tile and
                            fewer than two wildcards of its own kind (Wuhan: two 赖子 are a 2-5-8 pair only as
                            themselves, RULES §4.8.1); in 乱将 / 乱风, every concealed tile is such a wildcard
==========================  ==================================================================

Readings outside the search (Wuhan 乱将 / 乱风, any arrangement): :func:`uniform_reading`.  The all-pairs shape with
a given number of pairs (七对 7, 断卡根 请胡 5) is selected by ``HandSpec.pairs_only``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from envs.core.melds import Meld, MeldKind
from envs.core.tiles import NUM_KINDS, NUM_SUITED, format_tiles, tile_code

FLAG_SUIT_M = 1 << 0
FLAG_SUIT_P = 1 << 1
FLAG_SUIT_S = 1 << 2
FLAG_HONOR = 1 << 3
FLAG_RUN = 1 << 4
FLAG_GROUP_NO_TERMINAL = 1 << 5
FLAG_TERMINAL = 1 << 6
FLAG_SIMPLE = 1 << 7
FLAG_NOT_JIANG = 1 << 8
FLAG_MARKED_TRIPLET = 1 << 9
FLAG_JIANG_PAIR = 1 << 10
FLAG_MARKED_PAIR = 1 << 11
FLAG_SOFT = 1 << 12
FLAG_NOT_FENG = 1 << 13
FLAG_RUN456_M = 1 << 14
FLAG_RUN456_P = 1 << 15
FLAG_RUN456_S = 1 << 16
KA_SHIFT = 17
KA_MASK = 7 << KA_SHIFT
FLAG_WILD_PAIR = 1 << 20
SUIT_FLAGS = FLAG_SUIT_M | FLAG_SUIT_P | FLAG_SUIT_S | FLAG_HONOR
RUN456_FLAGS = (FLAG_RUN456_M, FLAG_RUN456_P, FLAG_RUN456_S)
ALL_FLAGS = (1 << 21) - 1

_SUIT_BIT = (FLAG_SUIT_M, FLAG_SUIT_P, FLAG_SUIT_S, FLAG_HONOR)
_FENG = frozenset({27, 28, 29, 30, 32, 33})  # 东南西北 发 白 (Wuhan 风一色; 红中 is never part of a win)


def _tile_bits(kind: int) -> int:
    """Flag bits a single tile of ``kind`` sets."""
    bits = _SUIT_BIT[kind // 9 if kind < NUM_SUITED else 3]
    terminal = kind < NUM_SUITED and kind % 9 in (0, 8)
    jiang = kind < NUM_SUITED and kind % 9 in (1, 4, 7)
    bits |= FLAG_TERMINAL if terminal else FLAG_SIMPLE
    if not jiang:
        bits |= FLAG_NOT_JIANG
    if kind not in _FENG:
        bits |= FLAG_NOT_FENG
    return bits


TILE_BITS: tuple[int, ...] = tuple(_tile_bits(k) for k in range(NUM_KINDS))
_TERMINAL = tuple(k < NUM_SUITED and k % 9 in (0, 8) for k in range(NUM_KINDS))
_JIANG = tuple(k < NUM_SUITED and k % 9 in (1, 4, 7) for k in range(NUM_KINDS))
_RUN_START = tuple(k < NUM_SUITED and k % 9 <= 6 for k in range(NUM_KINDS))
_ALL_KINDS = (1 << NUM_KINDS) - 1
_RUN_START_MASK = sum(1 << k for k in range(NUM_KINDS) if _RUN_START[k])
_RUN_HAS_TERMINAL = tuple(k < NUM_SUITED and k % 9 in (0, 6) for k in range(NUM_KINDS))
_RUN456 = tuple(RUN456_FLAGS[k // 9] if k < NUM_SUITED and k % 9 == 3 else 0 for k in range(NUM_KINDS))


def ka_count(flags: int) -> int:
    """Number of concealed 4-5-6 runs recorded in ``flags`` (断卡根 卡)."""
    return (flags & KA_MASK) >> KA_SHIFT


class Shape(StrEnum):
    """Winning shapes."""

    STANDARD = "standard"  # 基本和: sets + one pair
    SEVEN_PAIRS = "seven_pairs"  # 七对
    FIVE_PAIRS = "five_pairs"  # 断卡根 请胡: five pairs of a 10-tile hand (the single was discarded)
    LUAN_JIANG = "luan_jiang"  # Wuhan 将一色 in any arrangement (乱将): every tile 2/5/8
    LUAN_FENG = "luan_feng"  # Wuhan 风一色 in any arrangement (乱风): every tile a wind, 发 or 白


class GroupKind(StrEnum):
    """Concealed group kinds."""

    TRIPLET = "triplet"  # 刻子
    RUN = "run"  # 顺子 (tile = lowest kind)
    PAIR = "pair"  # 将 / 对子


@dataclass(frozen=True, slots=True)
class Group:
    """One concealed group of an interpretation."""

    kind: GroupKind
    tile: int

    def tiles(self) -> tuple[int, ...]:
        """Kinds of the group's tiles."""
        if self.kind is GroupKind.RUN:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (3 if self.kind is GroupKind.TRIPLET else 2)

    def __str__(self) -> str:
        return format_tiles(self.tiles()).replace(" ", "")


@dataclass(frozen=True, slots=True)
class HandSpec:
    """What the enumeration needs to know about one winning hand.

    ``naturals``: 34-counts of the concealed natural (non-wildcard) tiles, **including** the winning tile.
    ``wilds``: number of concealed wildcard tiles (including the winning tile when it is one).
    ``melds``: the melds (each supplies one set).  ``allowed_mask``: bit k set when a wildcard may represent kind k.
    ``sets``: sets the whole hand needs (4 for 13-tile hands).  ``four_copy_limit``: AMB-14.
    ``soft_gen``: 根 counts represented wildcards (``wild_counts_for_gen``).  ``marked_kind``: kind whose triplet sets
    :data:`FLAG_MARKED_TRIPLET` (Yibin 本金), or None.  ``seven_pairs``: the seven-pairs shape is available.
    ``flag_mask``: the flag bits the caller's fan table reads; other bits are cleared, so readings that differ only
    in unread facts collapse together (faster, same best value).  ``wild_own``: 34 counts of the physical wildcard
    tiles by their own kind (a wildcard assigned to its own kind is used naturally; more sets :data:`FLAG_SOFT`);
    empty = none.  ``pairs_only``: when > 0 only the all-pairs shape with that many pairs is read (七对 7, 请胡 5).
    """

    naturals: tuple[int, ...]
    wilds: int = 0
    melds: tuple[Meld, ...] = ()
    allowed_mask: int = 0
    sets: int = 4
    four_copy_limit: bool = True
    soft_gen: bool = True
    marked_kind: int | None = None
    seven_pairs: bool = True
    flag_mask: int = ALL_FLAGS
    wild_own: tuple[int, ...] = ()
    pairs_only: int = 0

    def __post_init__(self) -> None:
        if len(self.naturals) != NUM_KINDS:
            raise ValueError(f"naturals must be 34 counts, got {len(self.naturals)}")
        object.__setattr__(self, "naturals", tuple(self.naturals))
        object.__setattr__(self, "melds", tuple(self.melds))
        own = tuple(self.wild_own) if self.wild_own else (0,) * NUM_KINDS
        if len(own) != NUM_KINDS:
            raise ValueError(f"wild_own must be 34 counts or empty, got {len(own)}")
        object.__setattr__(self, "wild_own", own)

    @property
    def meld_counts(self) -> tuple[int, ...]:
        """Copies of each kind represented in the melds (a 飞 counts its 听用 as the represented kind)."""
        counts = [0] * NUM_KINDS
        for meld in self.melds:
            for k in meld.represented():
                counts[k] += 1
        return tuple(counts)


@dataclass(frozen=True, slots=True)
class Interpretation:
    """One reading of a winning hand: a wildcard assignment and a decomposition.

    ``groups``: concealed groups sorted by tile (the melds are the hand's other sets).  ``counts``: final concealed
    34-counts with every wildcard counted as the kind it represents.  ``assignment``: the represented kinds of the
    wildcards, sorted.  ``flags``: the feature bits of the module docstring.  ``gen``: 根 per §2.13 step 4.
    """

    shape: Shape
    groups: tuple[Group, ...]
    counts: tuple[int, ...]
    assignment: tuple[int, ...]
    flags: int
    gen: int

    def has(self, flag: int) -> bool:
        """Whether every bit of ``flag`` is set."""
        return self.flags & flag == flag

    def describe(self) -> str:
        """Readable form, e.g. ``"123m 555m 789s 99s 11m | wild -> 5m"``."""
        text = " ".join(str(g) for g in self.groups)
        if self.assignment:
            text += " | wild -> " + " ".join(tile_code(k) for k in self.assignment)
        return text


def meld_flags(melds: Sequence[Meld], marked_kind: int | None = None) -> int:
    """Flag bits the melds contribute (see the module docstring)."""
    flags = 0
    for meld in melds:
        tiles = meld.represented()
        for k in tiles:
            flags |= TILE_BITS[k]
        if meld.kind is MeldKind.CHI:
            flags |= FLAG_RUN
            if not _RUN_HAS_TERMINAL[meld.tile]:
                flags |= FLAG_GROUP_NO_TERMINAL
        else:
            if not _TERMINAL[meld.tile]:
                flags |= FLAG_GROUP_NO_TERMINAL
            if meld.tile == marked_kind:
                flags |= FLAG_MARKED_TRIPLET
    return flags


def hard_gen(spec: HandSpec) -> int:
    """根 counting natural tiles only (``wild_counts_for_gen = false``): natural concealed + natural melded == 4."""
    counts = list(spec.naturals)
    for meld in spec.melds:
        for k in meld.natural():
            counts[k] += 1
    return sum(1 for c in counts if c == 4)


# ---- enumeration -----------------------------------------------------------------------------------------------
#
# Both searches (standard shape, all pairs) keep one dict of states per kind; a state maps to its readings: one
# ``(gen, path)`` when collapsing (the most 根, the first to arrive on ties), a list of them otherwise.  A path is a
# linked tuple ``(parent, kind, triplets, pairs, runs)`` (None at the root): the groups are spelled out only for the
# readings that survive (:func:`_build`).  The order in which states and choices are visited is part of the result
# (it decides which of two equally valued readings is kept), so every speed-up below keeps it: the per-state choices
# come from a memo in their loop order, and the states after each suit are memoised whole.


def _active_kinds(naturals: Sequence[int], wilds: int, allowed: int, runs: bool) -> list[int]:
    """Kinds where the search has a choice: a natural tile, a usable wildcard, or a run carried in (sorted)."""
    mask = allowed & _ALL_KINDS if wilds else 0
    for k, c in enumerate(naturals):
        if c:
            mask |= 1 << k
    if runs:
        starts = mask & _RUN_START_MASK
        mask |= (starts << 1) | (starts << 2)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _skipped_quads(meld_counts: Sequence[int], active: list[int]) -> int:
    """根 of melded kongs at kinds the search skips (no concealed tile can join them)."""
    seen = set(active)
    return sum(1 for k in range(NUM_KINDS) if meld_counts[k] == 4 and k not in seen)


_T, _R, _P = 0, 1, 2
_GROUP_KINDS = (GroupKind.TRIPLET, GroupKind.RUN, GroupKind.PAIR)
_GROUPS = tuple(tuple(Group(kind, k) for k in range(NUM_KINDS)) for kind in _GROUP_KINDS)  # shared, frozen

# choice codes: bit 0 the kind holds a tile, 1 a triplet, 2 a pair, 3 a run, 4 a wildcard stands for another kind,
# 5 a pair here is two wildcards standing for the kind (set per kind: no natural tile, < 2 wildcards of its own)
_HAS_TILE, _HAS_TRIPLET, _HAS_PAIR, _HAS_RUN, _IS_SOFT, _WILD_PAIR = 1, 2, 4, 8, 16, 32
_HAS_GROUP = _HAS_TRIPLET | _HAS_PAIR | _HAS_RUN
_NO_MELDS = (0,) * NUM_KINDS
_NOTHING = ((0, 0, 0, 0, 0, 0),)  # the only choice at a kind without tiles, carried runs or usable wildcards


def interpretations(spec: HandSpec, *, collapse: bool = True) -> list[Interpretation]:
    """Every interpretation of a complete hand (empty list when the hand is not complete).

    With ``collapse`` readings with equal ``(shape, flags)`` are merged keeping the most 根 (see module docstring).
    The result is sorted deterministically (shape, then groups).
    """
    if spec.pairs_only:
        found = _all_pairs(spec, collapse, spec.pairs_only) if not spec.melds else []
    else:
        found = _standard(spec, collapse)
        if spec.seven_pairs and not spec.melds and spec.sets == 4:
            found += _all_pairs(spec, collapse, 7)
    if not spec.soft_gen:
        gen = hard_gen(spec)
        found = [(shape, flags, gen, path) for shape, flags, _, path in found]
        if collapse:
            merged: dict[tuple[Shape, int], tuple[Shape, int, int, tuple | None]] = {}
            for item in found:
                merged.setdefault((item[0], item[1]), item)
            found = list(merged.values())
    out = [_build(spec, shape, flags, gen, path) for shape, flags, gen, path in found]
    out.sort(key=lambda it: (it.shape != Shape.STANDARD, [(g.tile, g.kind) for g in it.groups]))
    return out


def _build(spec: HandSpec, shape: Shape, flags: int, gen: int, path: tuple | None) -> Interpretation:
    moves = []
    while path is not None:
        path, k, t, p, r = path
        moves.append((k, t, p, r))
    groups: list[Group] = []
    counts = [0] * NUM_KINDS
    for k, t, p, r in reversed(moves):  # ascending kinds; at one kind pairs, runs, triplets (Group sort order)
        groups += (_GROUPS[_P][k],) * p + (_GROUPS[_R][k],) * r + (_GROUPS[_T][k],) * t
        counts[k] += 3 * t + 2 * p + r
        if r:
            counts[k + 1] += r
            counts[k + 2] += r
    assignment: list[int] = []
    for k in range(NUM_KINDS):
        extra = counts[k] - spec.naturals[k]
        if extra < 0:  # pragma: no cover - the recursion never drops natural tiles
            raise AssertionError("interpretation lost natural tiles")
        if extra:
            assignment.extend([k] * extra)
    return Interpretation(shape, tuple(groups), tuple(counts), tuple(assignment), flags, gen)


@lru_cache(maxsize=64)
def _choice_bits(mask: int, marked: int | None) -> tuple[tuple[int, ...], ...]:
    """Per kind, the flag bits a choice adds, indexed by its choice code (module comment above)."""
    out = []
    for i in range(NUM_KINDS):
        group_bits = 0 if _TERMINAL[i] else FLAG_GROUP_NO_TERMINAL
        pair_bits = (FLAG_JIANG_PAIR if _JIANG[i] else 0) | (FLAG_MARKED_PAIR if i == marked else 0)
        run_bits = FLAG_RUN | (0 if _RUN_HAS_TERMINAL[i] else FLAG_GROUP_NO_TERMINAL) | _RUN456[i]
        row = []
        for code in range(64):
            f = 0
            if code & _HAS_TILE:
                f |= TILE_BITS[i]
            if code & _HAS_TRIPLET:
                f |= group_bits | (FLAG_MARKED_TRIPLET if i == marked else 0)
            if code & _HAS_PAIR:
                f |= group_bits | pair_bits | (FLAG_WILD_PAIR if code & _WILD_PAIR else 0)
            if code & _HAS_RUN:
                f |= run_bits
            if code & _IS_SOFT:
                f |= FLAG_SOFT
            row.append(f & mask)
        out.append(tuple(row))
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def _options(ni: int, carry: int, sets_left: int, pair_left: int, top: int, can_run: bool) -> tuple[tuple, ...]:
    """The choices ``(t, p, r, c, c - ni, code)`` at one kind of the standard search, in the search's order:
    ``t`` triplets, ``p`` pairs and ``r`` runs starting here, ``c`` tiles of the kind in all (at least the ``ni``
    natural ones, at most ``top``), ``code`` the choice code without the soft bit."""
    out = []
    for t in range(0, 3):
        if t > sets_left:
            break
        for p in range(0, pair_left + 1):
            base = 3 * t + 2 * p + carry
            if base > top:
                break
            r_max = sets_left - t if can_run else 0
            for r in range(0, r_max + 1):
                c = base + r
                if c > top:
                    break
                if c < ni:
                    continue
                code = (_HAS_TILE if c else 0) | (_HAS_TRIPLET if t else 0) | (_HAS_PAIR if p else 0)
                out.append((t, p, r, c, c - ni, code | (_HAS_RUN if r else 0)))
    return tuple(out)


_PREFIX_MEMO: dict[tuple, dict] = {}
_PREFIX_MEMO_LIMIT = 1 << 12  # snapshots; the memo is cleared when full
"""States of the collapsed standard search after each suit, keyed by everything they depend on (the search's
parameters and the hand's counts up to that suit): hands sharing their first suits (the waits of one ready hand,
one hand valued for several situations) share that work.  Exact: a snapshot is the search's own state."""


def clear_interpretation_cache() -> None:
    """Empty the memos of :func:`interpretations` (benchmarks measure cold calls)."""
    _PREFIX_MEMO.clear()
    _options.cache_clear()


def _standard(spec: HandSpec, collapse: bool) -> list[tuple[Shape, int, int, tuple | None]]:
    n = spec.naturals
    m = spec.meld_counts
    allowed = spec.allowed_mask
    limit = spec.four_copy_limit
    soft = spec.soft_gen
    marked = spec.marked_kind
    sets_needed = spec.sets - len(spec.melds)
    if sets_needed < 0:
        return []
    mask = spec.flag_mask
    own = spec.wild_own
    start_flags = meld_flags(spec.melds, marked) & mask
    count_ka = mask & KA_MASK == KA_MASK
    bits = _choice_bits(mask, marked)
    # state key: (runs started at i-1, runs started at i-2, sets left, pair left, wilds left, flags)
    active = _active_kinds(n, spec.wilds, allowed, True)
    start_gen = _skipped_quads(m, active) if soft else 0
    # gen is counted from 0 and start_gen added at the end (a constant offset changes no comparison), so the
    # snapshots do not depend on kinds the search skips
    states: dict = {(0, 0, sets_needed, 1, spec.wilds, start_flags): (0, None) if collapse else [(0, None)]}
    memo_key: tuple | None = None
    if collapse:
        memo_key = (mask, marked, soft, limit, count_ka, sets_needed, spec.wilds, start_flags)
    pos = 0
    for block_end in (NUM_SUITED // 3, 2 * NUM_SUITED // 3, NUM_SUITED, NUM_KINDS):
        end = pos
        while end < len(active) and active[end] < block_end:
            end += 1
        if end == pos:
            continue
        if memo_key is not None:
            low = (1 << block_end) - 1
            key = (memo_key, block_end, n[:block_end], m[:block_end], own[:block_end], allowed & low)
            hit = _PREFIX_MEMO.get(key)
            if hit is None:
                hit = _standard_kinds(states, active[pos:end], n, m, allowed, limit, soft, own, bits, count_ka, True)
                if len(_PREFIX_MEMO) >= _PREFIX_MEMO_LIMIT:
                    _PREFIX_MEMO.clear()
                _PREFIX_MEMO[key] = hit
            states = hit
        else:
            states = _standard_kinds(states, active[pos:end], n, m, allowed, limit, soft, own, bits, count_ka, False)
        pos = end
        if not states:
            return []
    out = []
    for (c1, c2, sets_left, pair_left, wilds_left, flags), entry in states.items():
        if c1 == 0 and c2 == 0 and sets_left == 0 and pair_left == 0 and wilds_left == 0:
            if collapse:
                out.append((Shape.STANDARD, flags, entry[0] + start_gen, entry[1]))
            else:
                out.extend((Shape.STANDARD, flags, gen + start_gen, path) for gen, path in entry)
    return out


def _standard_kinds(
    states: dict,
    kinds: list[int],
    n: tuple[int, ...],
    m: tuple[int, ...],
    allowed: int,
    limit: bool,
    soft: bool,
    own: tuple[int, ...],
    bits: tuple[tuple[int, ...], ...],
    count_ka: bool,
    collapse: bool,
) -> dict:
    """Advance the standard search over ``kinds`` (ascending); returns the new states (never mutates ``states``)."""
    for i in kinds:
        ni = n[i]
        mi = m[i]
        can_wild = (allowed >> i) & 1
        quad = 4 - mi if soft else -1  # a kind whose concealed count c makes c + mi == 4 adds one 根
        cap = 4 - mi if limit else 14
        own_i = own[i]
        row = bits[i]
        wild_pair = _WILD_PAIR if ni == 0 and own_i < 2 else 0  # a pair here could only be two wildcards standing in
        can_run = _RUN_START[i]
        ka_run = count_ka and bool(_RUN456[i])
        new: dict = {}
        get = new.get
        for state, entry in states.items():
            c1, c2, sets_left, pair_left, wilds_left, flags = state
            if collapse:
                gen0, path0 = entry
            carry = c1 + c2
            if ni == 0 and carry == 0 and (wilds_left == 0 or not can_wild):
                choices: tuple = _NOTHING
            else:
                top = ni + wilds_left if can_wild else ni
                choices = _options(ni, carry, sets_left, pair_left, cap if top > cap else top, can_run)
            for t, p, r, c, extra, code in choices:
                f = flags | row[(code if extra <= own_i else code | _IS_SOFT) | wild_pair]
                if r and ka_run:
                    f = (f & ~KA_MASK) | (min(ka_count(f) + r, 7) << KA_SHIFT)
                key = (r, c1, sets_left - t - r, pair_left - p, wilds_left - extra, f)
                if collapse:
                    gen = gen0 + 1 if c == quad else gen0
                    old = get(key)
                    if old is None or gen > old[0]:
                        new[key] = (gen, (path0, i, t, p, r) if code & _HAS_GROUP else path0)
                else:
                    _extend(new, key, entry, 1 if c == quad else 0, (i, t, p, r) if code & _HAS_GROUP else None)
        states = new
        if not states:
            break
    return states


def _extend(new: dict, key: tuple, entries: list, gen_add: int, move: tuple | None) -> None:
    """Every-reading mode: add each reading of ``entries`` extended by ``move`` to the state ``key``."""
    bucket = new.setdefault(key, [])
    if move is None:
        bucket.extend((gen + gen_add, path) for gen, path in entries)
    else:
        bucket.extend((gen + gen_add, (path, *move)) for gen, path in entries)


def _all_pairs(spec: HandSpec, collapse: bool, n_pairs: int) -> list[tuple[Shape, int, int, tuple | None]]:
    """All-pairs readings: 七对 (7 pairs) or 断卡根 请胡 (5 pairs); a four of a kind is two pairs and one 根."""
    n = spec.naturals
    allowed = spec.allowed_mask
    cap = 4 if spec.four_copy_limit else 14
    soft = spec.soft_gen
    mask = spec.flag_mask
    own = spec.wild_own
    soft_bit = FLAG_SOFT & mask
    shape = Shape.SEVEN_PAIRS if n_pairs == 7 else Shape.FIVE_PAIRS
    if n_pairs == 7 and not _seven_complete(n, spec.wilds, _NO_MELDS, allowed):
        return []  # a sound shortcut: every seven-pairs reading passes this structural check
    states: dict = {(n_pairs, spec.wilds, 0): (0, None) if collapse else [(0, None)]}
    for i in _active_kinds(n, spec.wilds, allowed, False):
        ni = n[i]
        can_wild = (allowed >> i) & 1
        tile_bits = (TILE_BITS[i] | (0 if _TERMINAL[i] else FLAG_GROUP_NO_TERMINAL)) & mask
        pair_bits = ((FLAG_JIANG_PAIR if _JIANG[i] else 0) | (FLAG_MARKED_PAIR if i == spec.marked_kind else 0)) & mask
        new: dict = {}
        get = new.get
        for state, entry in states.items():
            pairs_left, wilds_left, flags = state
            if ni == 0 and (wilds_left == 0 or not can_wild):
                choices: tuple[int, ...] = (0,)
            else:
                budget = wilds_left if can_wild else 0
                choices = tuple(c for c in (0, 2, 4) if ni <= c <= cap and c - ni <= budget and c // 2 <= pairs_left)
            for c in choices:
                f = flags | tile_bits | pair_bits if c else flags
                if c - ni > own[i]:
                    f |= soft_bit
                key = (pairs_left - c // 2, wilds_left - (c - ni), f)
                move = (i, 0, c // 2, 0) if c else None
                if collapse:
                    gen = entry[0] + 1 if soft and c == 4 else entry[0]
                    old = get(key)
                    if old is None or gen > old[0]:
                        new[key] = (gen, (entry[1], *move) if move else entry[1])
                else:
                    _extend(new, key, entry, 1 if soft and c == 4 else 0, move)
        states = new
        if not states:
            return []
    out = []
    for (pairs_left, wilds_left, flags), entry in states.items():
        if pairs_left == 0 and wilds_left == 0:
            if collapse:
                out.append((shape, flags, entry[0], entry[1]))
            else:
                out.extend((shape, flags, gen, path) for gen, path in entry)
    return out


def uniform_reading(spec: HandSpec, shape: Shape, kinds: frozenset[int]) -> Interpretation | None:
    """The any-arrangement reading (Wuhan 乱将 / 乱风) when every tile is, or can represent, a kind of ``kinds``.

    No sets or pair are formed: the natural concealed tiles and every meld must lie in ``kinds``; a wildcard whose
    own kind is in ``kinds`` stays itself, any other one represents the first kind of ``kinds`` with a free copy
    (and sets :data:`FLAG_SOFT`).  ``flags`` holds the tile bits only, and :data:`FLAG_WILD_PAIR` when no concealed
    tile is natural and fewer than two wildcards stay themselves; ``gen`` counts four-of-a-kinds.  None when
    the hand does not qualify.
    """
    if any(k not in kinds for k in range(NUM_KINDS) if spec.naturals[k]):
        return None
    if any(k not in kinds for meld in spec.melds for k in meld.represented()):
        return None
    counts = list(spec.naturals)
    used = [counts[k] + mc for k, mc in enumerate(spec.meld_counts)]
    flags = 0
    free = spec.wilds
    for k in range(NUM_KINDS):  # wildcards used as their own kind first
        keep = min(spec.wild_own[k], free) if k in kinds else 0
        counts[k] += keep
        used[k] += keep
        free -= keep
    if not any(spec.naturals) and spec.wilds - free < 2:
        flags |= FLAG_WILD_PAIR  # any pair of the concealed tiles is two wildcards standing in
    for k in sorted(kinds):
        if free == 0:
            break
        if not (spec.allowed_mask >> k) & 1:
            continue
        room = free if not spec.four_copy_limit else max(0, 4 - used[k])
        take = min(room, free)
        if take:
            counts[k] += take
            used[k] += take
            free -= take
            flags |= FLAG_SOFT
    if free:
        return None
    for k in range(NUM_KINDS):
        if counts[k]:
            flags |= TILE_BITS[k]
    flags = (flags | meld_flags(spec.melds, spec.marked_kind)) & spec.flag_mask
    assignment = tuple(k for k in range(NUM_KINDS) for _ in range(counts[k] - spec.naturals[k]))
    gen = sum(1 for k in range(NUM_KINDS) if used[k] == 4)
    return Interpretation(shape, (), tuple(counts), assignment, flags, gen)


# ---- fast completeness check -------------------------------------------------------------------------------


def is_complete(spec: HandSpec) -> bool:
    """Whether the hand has at least one interpretation (structure only; cached, no flags, no witnesses)."""
    if spec.pairs_only:
        return bool(interpretations(spec))
    return _complete(
        spec.naturals,
        spec.wilds,
        spec.meld_counts if spec.four_copy_limit else None,
        spec.allowed_mask,
        spec.sets - len(spec.melds),
        spec.seven_pairs and not spec.melds and spec.sets == 4,
    )


@lru_cache(maxsize=1 << 16)
def _complete(
    n: tuple[int, ...], wilds: int, m: tuple[int, ...] | None, allowed: int, sets_needed: int, seven: bool
) -> bool:
    if sets_needed < 0:
        return False
    if seven and _seven_complete(n, wilds, m, allowed):
        return True
    states = {(0, 0, sets_needed, 1, wilds)}
    for i in _active_kinds(n, wilds, allowed, True):
        ni = n[i]
        can_wild = (allowed >> i) & 1
        cap = 4 - m[i] if m is not None else 14
        can_run = _RUN_START[i]
        new = set()
        for state in states:
            c1, c2, sets_left, pair_left, wilds_left = state
            carry = c1 + c2
            if ni == 0 and carry == 0 and (wilds_left == 0 or not can_wild):
                new.add(state)
                continue
            top = min(cap, ni + (wilds_left if can_wild else 0))
            for t in range(0, min(2, sets_left) + 1):
                for p in range(0, pair_left + 1):
                    base = 3 * t + 2 * p + carry
                    if base > top:
                        break
                    for r in range(0, (sets_left - t if can_run else 0) + 1):
                        c = base + r
                        if c > top:
                            break
                        if c >= ni:
                            new.add((r, c1, sets_left - t - r, pair_left - p, wilds_left - (c - ni)))
        if not new:
            return False
        states = new
    return (0, 0, 0, 0, 0) in states


def clear_completeness_cache() -> None:
    """Empty the cache of :func:`is_complete` (benchmarks measure cold calls)."""
    _complete.cache_clear()


def _seven_complete(n: tuple[int, ...], wilds: int, m: tuple[int, ...] | None, allowed: int) -> bool:
    need = 0
    pairs = 0
    for i in range(NUM_KINDS):
        ni = n[i]
        if ni % 2:
            if not (allowed >> i) & 1 or (m is not None and ni + 1 > 4):
                return False
            need += 1
            pairs += (ni + 1) // 2
        else:
            pairs += ni // 2
    spare = wilds - need
    if spare < 0 or spare % 2:
        return False
    # spare wildcards form extra pairs; with 14 tiles in total the pair count is always 7.
    return pairs + spare // 2 == 7 and (spare == 0 or allowed != 0)
