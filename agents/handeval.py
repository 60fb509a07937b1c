"""Hand evaluation for the rule-based agents (手牌评估): cached shanten with dead tiles, useful tiles, plan shanten.

Everything here works on plain 34-count lists, the way an agent reads them from the observation, and is memoised
in module-level tables (the functions are pure, so one cache per process serves every agent and every game).

Dead tiles
----------
:func:`envs.scoring.shanten.shanten` counts every natural tile towards a complete hand.  A tile of the declared void
suit (定缺) can never be part of a win: it only occupies a slot until it is discarded.  :func:`shanten_dead` models
this exactly by replacing each dead tile with a *dummy*: a single honor tile whose kind is capped at one copy
(``meld_counts = 3``), so that it can be neither a pair, a triplet nor a run.  The hand keeps its size (and so its
number of sets) and every dead tile costs one replacement.  Two approximations are documented here:

* with dummies in the hand, seven pairs (七对) is not considered (``envs.scoring.shanten`` drops it when copy caps
  apply);
* at most six dummies exist (the honor kinds other than 红中); further dead tiles count as ordinary tiles.

The same mechanism gives the shanten of a full-flush plan (清一色): every tile outside the suit is dead.

Plan shanten
------------
:func:`pairs_shanten` (七对) and :func:`triplets_shanten` (对对胡) are closed-form counts that also respect the
copies still live: a pair or a triplet that can no longer be completed is not counted as a candidate.

将 pair (Wuhan)
---------------
:func:`has_jiang_pair` tells whether a complete-size hand splits into sets and a pair of rank 2, 5 or 8 (the pair a
Wuhan small win needs); the greedy agent uses it to count only the winning tiles that make a legal small win.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.scoring.shanten import shanten as _hand_shanten

__all__ = [
    "JIANG_KINDS",
    "SUIT_BITS",
    "clear_caches",
    "dead_mask_for",
    "has_jiang_pair",
    "pairs_shanten",
    "shanten_dead",
    "suit_mask",
    "triplets_shanten",
    "useful_tiles",
]

DUMMY_KINDS = (27, 28, 29, 30, 32, 33)
"""Honor kinds used as dummies for dead tiles (红中 = 31 is skipped: it is the wildcard of the 红中 variant)."""
SUIT_BITS = 0x1FF
_CACHE_LIMIT = 1 << 18
_SHANTEN: dict[tuple, int] = {}
_NEAR = tuple(
    sum(1 << j for j in range(k - 2, k + 3) if 0 <= j < NUM_SUITED and j // 9 == k // 9) for k in range(NUM_SUITED)
)
"""Kinds within two ranks of each suited kind (same suit)."""
_USEFUL: dict[tuple, tuple[int, ...]] = {}


JIANG_KINDS = tuple(k for k in range(NUM_SUITED) if k % 9 in (1, 4, 7))
"""The suited kinds of rank 2, 5 and 8 (将: the pair a Wuhan small win needs)."""
_JIANG: dict[tuple, bool] = {}


def clear_caches() -> None:
    """Empty the memo tables (tests; long runs clear them automatically when they grow too large)."""
    _SHANTEN.clear()
    _USEFUL.clear()
    _JIANG.clear()


def suit_mask(suit: int) -> int:
    """Bitmask of the nine kinds of ``suit`` (0 万, 1 筒, 2 条)."""
    return SUIT_BITS << (9 * suit)


def dead_mask_for(void: int | None) -> int:
    """Bitmask of the kinds that are dead for a player with void suit ``void`` (0 when none declared)."""
    return 0 if void is None else suit_mask(void)


def shanten_dead(
    counts: list[int],
    wilds: int,
    *,
    dead: int = 0,
    allowed: int = (1 << NUM_SUITED) - 1,
    melded: bytes = b"",
) -> int:
    """向听数 of a hand whose kinds in the bitmask ``dead`` can never be used (void suit, off-suit for a flush).

    ``counts``: 34 natural concealed counts (wildcards excluded); ``wilds``: wildcard tiles held; ``allowed``: kinds a
    wildcard may stand for; ``melded``: ``bytes`` of 34 meld counts (empty for no melds) for the 4-copy limit.
    The hand size must be ``3k+1`` or ``3k+2`` tiles (dead tiles included).
    """
    key = (bytes(counts), wilds, dead, allowed, melded)
    value = _SHANTEN.get(key)
    if value is not None:
        return value
    value = _compute_shanten(counts, wilds, dead, allowed, melded)
    if len(_SHANTEN) >= _CACHE_LIMIT:
        _SHANTEN.clear()
    _SHANTEN[key] = value
    return value


def _compute_shanten(counts: list[int], wilds: int, dead: int, allowed: int, melded: bytes) -> int:
    caps = list(melded) if melded else None
    if dead:
        c = list(counts)
        spare = [k for k in DUMMY_KINDS if c[k] == 0 and (caps is None or caps[k] == 0)]
        for k in range(NUM_SUITED):
            if dead >> k & 1 and c[k]:
                while c[k] and spare:
                    c[k] -= 1
                    d = spare.pop()
                    c[d] = 1
                    if caps is None:
                        caps = [0] * NUM_KINDS
                    caps[d] = 3
        allowed &= ~dead
        counts = c
    if caps is not None and not any(caps):
        caps = None
    return _hand_shanten(counts, wilds, allowed_mask=allowed, meld_counts=caps)


def useful_tiles(
    counts: list[int],
    wilds: int,
    *,
    dead: int = 0,
    allowed: int = (1 << NUM_SUITED) - 1,
    melded: bytes = b"",
    candidates: int | None = None,
) -> tuple[int, tuple[int, ...]]:
    """``(shanten, kinds)``: the kinds in ``candidates`` (default: ``allowed`` minus ``dead``) whose draw lowers the
    shanten of the ``3k+1`` hand ``counts`` (有效牌 / 进张).  Drawing a wildcard always helps and is not listed."""
    s = shanten_dead(counts, wilds, dead=dead, allowed=allowed, melded=melded)
    cand = (allowed & ~dead) if candidates is None else candidates
    if not wilds and 0 <= s <= 3:
        # without wildcards, a kind more than two ranks from every held tile cannot lower a shanten of 3 or less
        # (checked exhaustively on random two-suit hands in tests/agents/test_agents.py)
        near = 0
        for k in range(NUM_SUITED):
            if counts[k]:
                near |= _NEAR[k]
        cand &= near
    key = (bytes(counts), wilds, dead, allowed, melded, cand)
    kinds = _USEFUL.get(key)
    if kinds is None:
        out = []
        c = list(counts)
        caps = melded if melded else None
        for t in range(NUM_KINDS):
            if not cand >> t & 1:
                continue
            if c[t] + (caps[t] if caps else 0) >= 4:
                continue
            c[t] += 1
            if shanten_dead(c, wilds, dead=dead, allowed=allowed, melded=melded) < s:
                out.append(t)
            c[t] -= 1
        kinds = tuple(out)
        if len(_USEFUL) >= _CACHE_LIMIT:
            _USEFUL.clear()
        _USEFUL[key] = kinds
    return s, kinds


def pairs_shanten(counts: Sequence[int], wilds: int, dead: int, live: Sequence[int]) -> int:
    """七对 seven-pairs shanten of a 13/14-tile concealed hand, counting only pairs that can still be completed.

    A kind held four times counts as two pairs (龙七对).  A single whose other copies are all visible cannot be
    paired with a natural tile.  Wildcards pair any single.  Dead kinds are never used.
    """
    pairs = 0
    singles = 0
    fresh = 0
    for k in range(NUM_SUITED):
        if dead >> k & 1:
            continue
        c = counts[k]
        if c >= 2:
            pairs += 2 if c == 4 else 1
        if c & 1:
            if live[k] > 0:
                singles += 1
        elif c == 0 and live[k] >= 2:
            fresh += 1
    need = 7 - pairs
    if need <= 0:
        return -1
    used = min(need, singles)
    rest = need - used
    cost = used + 2 * rest if rest <= fresh else used + 2 * fresh + 3 * (rest - fresh)
    # a wildcard fills one missing tile; two wildcards make a fresh pair
    cost = max(0, cost - wilds)
    return cost - 1


def triplets_shanten(
    counts: Sequence[int],
    wilds: int,
    n_sets: int,
    dead: int,
    live: Sequence[int],
    kinds: Iterable[int] = range(NUM_SUITED),
) -> int:
    """对对胡 all-triplets shanten: ``n_sets`` triplets plus a pair from the concealed tiles (melds excluded).

    Each kind of ``kinds`` (default: the suited kinds; Wuhan adds its honors) is scored by the tiles it misses as a
    triplet (``3 - c``) or as the pair (``2 - c``), only when enough copies are still live; the best kinds are taken
    greedily.  Wildcards fill missing tiles.
    """
    trip_costs = []
    pair_costs = []
    for k in kinds:
        if dead >> k & 1:
            continue
        c = counts[k]
        avail = c + live[k]
        if c and avail >= 3:
            trip_costs.append((3 - min(c, 3), k))
        if c and avail >= 2:
            pair_costs.append((2 - min(c, 2), k))
    trip_costs.sort()
    chosen = trip_costs[:n_sets]
    cost = sum(x for x, _ in chosen) + 3 * (n_sets - len(chosen))
    used = {k for _, k in chosen}
    pair = next((x for x, k in sorted(pair_costs) if k not in used), 2)
    cost += pair
    cost = max(0, cost - wilds)
    return cost - 1


def has_jiang_pair(counts: list[int], wilds: int, *, allowed: int = (1 << NUM_SUITED) - 1, melded: bytes = b"") -> bool:
    """Whether the complete-size hand (``3k+2`` tiles: natural ``counts`` plus ``wilds``) splits into ``k`` sets and a
    pair of rank 2, 5 or 8 (将, RULES §4.8: the pair of a Wuhan small win); one wildcard may complete the pair.

    The sets are tested by swapping the pair for a dummy honor pair and asking for a complete standard hand
    (seven pairs excluded).
    """
    key = (bytes(counts), wilds, allowed, melded)
    value = _JIANG.get(key)
    if value is not None:
        return value
    value = False
    spare = next((d for d in DUMMY_KINDS if not counts[d] and not (melded and melded[d])), None)
    if spare is not None:
        caps = list(melded) if melded else None
        c = list(counts)
        for p in JIANG_KINDS:
            for use in (0, 1):
                need = 2 - use
                if c[p] < need or wilds < use:
                    continue
                c[p] -= need
                c[spare] += 2
                done = _hand_shanten(c, wilds - use, allowed_mask=allowed, meld_counts=caps, seven_pairs=False) < 0
                c[p] += need
                c[spare] -= 2
                if done:
                    value = True
                    break
            if value:
                break
    if len(_JIANG) >= _CACHE_LIMIT:
        _JIANG.clear()
    _JIANG[key] = value
    return value
