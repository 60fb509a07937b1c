"""The optimised interpretation search (envs.scoring.interpret) against the search as it was before its speed-ups.

``_reference_interpretations`` below is a frozen copy of the straightforward search (groups spelled out as tuples at
every step, one merge helper, no memos).  The optimised search must give the *same list*: the same readings, in the
same order, and — when collapsing — the same reading kept among equally valued ones (it is the
``ScoreResult.interpretation`` the scorer reports).  Thousands of random hand specs cover every variant's knobs
(wildcards, meld caps, 根 counting, marked kind, flag masks, 断卡根 卡 counter, 请胡 five pairs); end to end, the
scorer and 查大叫 values with the reference plugged in must match the optimised ones exactly.
"""

from __future__ import annotations

import random

import pytest

from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED
from envs.engine.game import Game
from envs.scoring import interpret, judge
from envs.scoring import scorer as scoring
from envs.scoring.interpret import (
    _GROUP_KINDS,
    _JIANG,
    _RUN456,
    _RUN_HAS_TERMINAL,
    _RUN_START,
    _TERMINAL,
    FLAG_GROUP_NO_TERMINAL,
    FLAG_JIANG_PAIR,
    FLAG_MARKED_PAIR,
    FLAG_MARKED_TRIPLET,
    FLAG_RUN,
    FLAG_SOFT,
    FLAG_WILD_PAIR,
    KA_MASK,
    KA_SHIFT,
    TILE_BITS,
    Group,
    HandSpec,
    Interpretation,
    Shape,
    _active_kinds,
    _skipped_quads,
    hard_gen,
    interpretations,
    ka_count,
    meld_flags,
)
from envs.scoring.patterns import FAN_TABLES
from envs.scoring.scorer import WinContext, score_win
from envs.scoring.settlement import ready_waits

# ---- the reference: the search before its speed-ups -----------------------------------------------------------

_T, _R, _P = 0, 1, 2


def _reference_interpretations(spec: HandSpec, *, collapse: bool = True) -> list[Interpretation]:
    if spec.pairs_only:
        found = _reference_all_pairs(spec, collapse, spec.pairs_only) if not spec.melds else []
    else:
        found = _reference_standard(spec, collapse)
        if spec.seven_pairs and not spec.melds and spec.sets == 4:
            found += _reference_all_pairs(spec, collapse, 7)
    if not spec.soft_gen:
        gen = hard_gen(spec)
        found = [(shape, flags, gen, groups) for shape, flags, _, groups in found]
        if collapse:
            merged: dict = {}
            for item in found:
                merged.setdefault((item[0], item[1]), item)
            found = list(merged.values())
    out = [_reference_build(spec, shape, flags, gen, groups) for shape, flags, gen, groups in found]
    out.sort(key=lambda it: (it.shape != Shape.STANDARD, [(g.tile, g.kind) for g in it.groups]))
    return out


def _reference_build(spec: HandSpec, shape: Shape, flags: int, gen: int, raw_groups: tuple) -> Interpretation:
    groups = tuple(sorted((Group(_GROUP_KINDS[g], k) for g, k in raw_groups), key=lambda g: (g.tile, g.kind)))
    counts = [0] * NUM_KINDS
    for group in groups:
        for k in group.tiles():
            counts[k] += 1
    assignment: list[int] = []
    for k in range(NUM_KINDS):
        extra = counts[k] - spec.naturals[k]
        assert extra >= 0
        assignment.extend([k] * extra)
    return Interpretation(shape, groups, tuple(counts), tuple(assignment), flags, gen)


def _reference_merge(new: dict, key: tuple, entries: list, gen_add: int, added: tuple, collapse: bool) -> None:
    if collapse:
        gen, groups = entries[0]
        gen += gen_add
        old = new.get(key)
        if old is None or gen > old[0][0]:
            new[key] = [(gen, groups + added if added else groups)]
        return
    bucket = new.setdefault(key, [])
    for gen, groups in entries:
        bucket.append((gen + gen_add, groups + added if added else groups))


def _reference_standard(spec: HandSpec, collapse: bool) -> list:
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
    marked_bit = FLAG_MARKED_TRIPLET & mask
    soft_bit = FLAG_SOFT & mask
    wild_pair_bit = FLAG_WILD_PAIR & mask
    count_ka = mask & KA_MASK == KA_MASK
    active = _active_kinds(n, spec.wilds, allowed, True)
    start_gen = _skipped_quads(m, active) if soft else 0
    states: dict = {(0, 0, sets_needed, 1, spec.wilds, start_flags): [(start_gen, ())]}
    for i in active:
        ni = n[i]
        mi = m[i]
        can_wild = (allowed >> i) & 1
        quad_gen = 1 if soft and mi == 4 else 0
        new: dict = {}
        tile_bits = TILE_BITS[i] & mask
        group_bits = (0 if _TERMINAL[i] else FLAG_GROUP_NO_TERMINAL) & mask
        pair_bits = ((FLAG_JIANG_PAIR if _JIANG[i] else 0) | (FLAG_MARKED_PAIR if i == marked else 0)) & mask
        run_bits = (FLAG_RUN | (0 if _RUN_HAS_TERMINAL[i] else FLAG_GROUP_NO_TERMINAL) | _RUN456[i]) & mask
        ka_run = count_ka and bool(_RUN456[i])
        own_i = own[i]
        can_run = _RUN_START[i]
        cap = 4 - mi if limit else 14
        for (c1, c2, sets_left, pair_left, wilds_left, flags), entries in states.items():
            carry = c1 + c2
            if ni == 0 and carry == 0 and (wilds_left == 0 or not can_wild):
                _reference_merge(new, (0, 0, sets_left, pair_left, wilds_left, flags), entries, quad_gen, (), collapse)
                continue
            budget = wilds_left if can_wild else 0
            top = min(cap, ni + budget)
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
                        f = flags
                        if c:
                            f |= tile_bits
                            if c - ni > own_i:
                                f |= soft_bit
                        if t or p:
                            f |= group_bits
                            if t and i == marked:
                                f |= marked_bit
                            if p:
                                f |= pair_bits
                                if ni == 0 and own_i < 2:  # the pair can only be two wildcards standing in
                                    f |= wild_pair_bit
                        if r:
                            f |= run_bits
                            if ka_run:
                                f = (f & ~KA_MASK) | (min(ka_count(f) + r, 7) << KA_SHIFT)
                        gen = 1 if soft and c + mi == 4 else 0
                        added = ((_T, i),) * t + ((_P, i),) * p + ((_R, i),) * r
                        key = (r, c1, sets_left - t - r, pair_left - p, wilds_left - (c - ni), f)
                        _reference_merge(new, key, entries, gen, added, collapse)
        states = new
        if not states:
            return []
    out = []
    for (c1, c2, sets_left, pair_left, wilds_left, flags), entries in states.items():
        if c1 == 0 and c2 == 0 and sets_left == 0 and pair_left == 0 and wilds_left == 0:
            out.extend((Shape.STANDARD, flags, gen, groups) for gen, groups in entries)
    return out


def _reference_all_pairs(spec: HandSpec, collapse: bool, n_pairs: int) -> list:
    n = spec.naturals
    allowed = spec.allowed_mask
    cap = 4 if spec.four_copy_limit else 14
    soft = spec.soft_gen
    mask = spec.flag_mask
    own = spec.wild_own
    shape = Shape.SEVEN_PAIRS if n_pairs == 7 else Shape.FIVE_PAIRS
    states: dict = {(n_pairs, spec.wilds, 0): [(0, ())]}
    for i in _active_kinds(n, spec.wilds, allowed, False):
        ni = n[i]
        can_wild = (allowed >> i) & 1
        tile_bits = (TILE_BITS[i] | (0 if _TERMINAL[i] else FLAG_GROUP_NO_TERMINAL)) & mask
        pair_bits = ((FLAG_JIANG_PAIR if _JIANG[i] else 0) | (FLAG_MARKED_PAIR if i == spec.marked_kind else 0)) & mask
        new: dict = {}
        for (pairs_left, wilds_left, flags), entries in states.items():
            if ni == 0 and (wilds_left == 0 or not can_wild):
                _reference_merge(new, (pairs_left, wilds_left, flags), entries, 0, (), collapse)
                continue
            budget = wilds_left if can_wild else 0
            for c in (0, 2, 4):
                if c < ni or c > cap or c - ni > budget or c // 2 > pairs_left:
                    continue
                f = flags | tile_bits | pair_bits if c else flags
                if c - ni > own[i]:
                    f |= FLAG_SOFT & mask
                gen = 1 if soft and c == 4 else 0
                added = ((_P, i),) * (c // 2)
                _reference_merge(new, (pairs_left - c // 2, wilds_left - (c - ni), f), entries, gen, added, collapse)
        states = new
        if not states:
            return []
    return [
        (shape, flags, gen, groups)
        for (pairs_left, wilds_left, flags), entries in states.items()
        if pairs_left == 0 and wilds_left == 0
        for gen, groups in entries
    ]


# ---- random hand specs ---------------------------------------------------------------------------------------

_MASKS = sorted({table.reads for table in FAN_TABLES.values()})


def _complete_tiles(rng: random.Random, suits: list[int], sets: int, honors: bool) -> list[int]:
    """A complete hand of ``sets`` sets and a pair over ``suits`` (and the honors), at most 4 copies of a kind."""
    while True:
        tiles: list[int] = []
        for _ in range(sets):
            if honors and rng.random() < 0.2:
                tiles += [rng.choice((27, 28, 29, 30, 32, 33))] * 3
                continue
            s = rng.choice(suits)
            r = rng.randrange(9)
            tiles += [s * 9 + r] * 3 if r > 6 or rng.random() < 0.35 else [s * 9 + r, s * 9 + r + 1, s * 9 + r + 2]
        p = rng.choice(suits) * 9 + rng.randrange(9)
        tiles += [p, p]
        if max(tiles.count(k) for k in set(tiles)) <= 4:
            return tiles


def _random_spec(rng: random.Random) -> HandSpec:
    """A random hand spec: a complete hand (or a near miss) with some tiles turned into wildcards and some sets
    turned into melds, under random search parameters."""
    pairs_only = 5 if rng.random() < 0.05 else 0
    sets = 3 if pairs_only or rng.random() < 0.15 else 4
    suits = rng.sample(range(3), rng.choice((1, 2, 2, 3)))
    honors = rng.random() < 0.15
    naturals = [0] * NUM_KINDS
    melds: list[Meld] = []
    if pairs_only or rng.random() < 0.1:  # all pairs
        for _ in range(pairs_only or 7):
            naturals[rng.choice(suits) * 9 + rng.randrange(9)] += 2
        if max(naturals) > 4:
            return _random_spec(rng)
        sets = 4 if not pairs_only else 3
    else:
        for k in _complete_tiles(rng, suits, sets, honors):
            naturals[k] += 1
        for _ in range(rng.choice((0, 0, 0, 1, 2))):  # meld a triplet (pong or kong)
            trips = [k for k in range(NUM_KINDS) if naturals[k] >= 3]
            if not trips:
                break
            k = rng.choice(trips)
            naturals[k] -= 3
            kind = rng.choice((MeldKind.PONG, MeldKind.PONG, MeldKind.KONG, MeldKind.ANKONG))
            if kind is not MeldKind.PONG and naturals[k]:
                kind = MeldKind.PONG
            melds.append(Meld(kind, k))
    if rng.random() < 0.2:  # a near miss: move one tile
        held = [k for k in range(NUM_KINDS) if naturals[k]]
        if held:
            naturals[rng.choice(held)] -= 1
            naturals[rng.choice(suits) * 9 + rng.randrange(9)] += 1
    wilds = 0
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5, 8))):
        held = [k for k in range(NUM_KINDS) if naturals[k]]
        if not held:
            break
        naturals[rng.choice(held)] -= 1
        wilds += 1
    allowed = 0
    for s in suits:
        allowed |= 0x1FF << (9 * s)
    if rng.random() < 0.3:
        allowed |= sum(1 << k for k in (27, 28, 29, 30, 32, 33))
    if rng.random() < 0.2:
        allowed &= rng.getrandbits(NUM_KINDS)
    own = [0] * NUM_KINDS
    if wilds and rng.random() < 0.3:
        own[rng.choice([k for k in range(NUM_KINDS) if (allowed >> k) & 1] or [RED])] = min(wilds, 4)
    return HandSpec(
        naturals=tuple(naturals),
        wilds=wilds if not pairs_only else 0,
        melds=tuple(melds) if not pairs_only else (),
        allowed_mask=allowed if wilds else 0,
        sets=sets,
        four_copy_limit=rng.random() < 0.8,
        soft_gen=rng.random() < 0.7,
        marked_kind=rng.choice((None, None, rng.randrange(NUM_SUITED))),
        seven_pairs=rng.random() < 0.8,
        flag_mask=rng.choice(_MASKS),
        wild_own=tuple(own),
        pairs_only=pairs_only,
    )


@pytest.mark.parametrize("seed", range(4))
def test_interpretations_equal_the_reference_on_random_specs(seed):
    """Same list (readings, order, kept reading) as the reference, collapsed and not, with and without warm memos."""
    rng = random.Random(seed)
    specs = [_random_spec(rng) for _ in range(800)]
    complete = 0
    for spec in specs:
        expected = _reference_interpretations(spec)
        assert interpretations(spec) == expected, spec
        complete += bool(expected)
        if spec.wilds <= 3 and rng.random() < 0.25:  # every reading: small wildcard counts keep it short
            assert interpretations(spec, collapse=False) == _reference_interpretations(spec, collapse=False), spec
    assert complete > len(specs) // 3  # the sample is mostly winning hands
    # the memos never make a result depend on what was asked before: cold, in reverse order
    interpret.clear_interpretation_cache()
    for spec in reversed(specs[:200]):
        assert interpretations(spec) == _reference_interpretations(spec), spec


def _hongzhong_wins(n: int, seed: int) -> list[WinContext]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        suits = rng.sample(range(3), 2)
        counts = [0] * NUM_KINDS
        for k in _complete_tiles(rng, suits, 4, False):
            counts[k] += 1
        melds = []
        if rng.random() < 0.3:
            k = rng.choice([k for k in range(NUM_KINDS) if counts[k] == 3] or [None])
            if k is not None:
                counts[k] -= 3
                melds.append(Meld(MeldKind.PONG, k))
        win = rng.choice([k for k in range(NUM_KINDS) if counts[k]])
        for _ in range(rng.randrange(1, 4)):
            held = [k for k in range(NUM_SUITED) if counts[k] and k != win]
            if held:
                k = rng.choice(held)
                counts[k] -= 1
                counts[RED] += 1
        void = ({0, 1, 2} - set(suits)).pop()
        out.append(WinContext(tuple(counts), win, tuple(melds), void_suit=void, self_drawn=rng.random() < 0.5))
    return out


def _with_reference(monkeypatch) -> None:
    monkeypatch.setattr(scoring, "interpretations", _reference_interpretations)
    judge._SCORE_MEMO.clear()
    judge._WAITS_MEMO.clear()


def test_hongzhong_scores_equal_the_reference(monkeypatch):
    """score_win on wildcard wins: the same ScoreResult (value, breakdown and reported reading)."""
    cfg = load_variant("hongzhong")
    contexts = _hongzhong_wins(1500, 11)
    fast = [score_win(cfg, ctx) for ctx in contexts]
    assert sum(r.is_win for r in fast) > 1000
    _with_reference(monkeypatch)
    assert [score_win(cfg, ctx) for ctx in contexts] == fast


@pytest.mark.parametrize("variant", ["hongzhong", "chengdu", "yibin"])
def test_ready_values_in_play_equal_the_reference(monkeypatch, variant):
    """查大叫 values (ready_waits: every wait's payment) of hands met in random play, and the scores of the wins
    offered there: the same with the reference search."""
    players = []
    for seed in range(10):
        game = Game(variant, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.pending[0]
            game.step(seat, rng.choice(game.legal_actions(seat)))
            if rng.random() < 0.1:
                players += [game.player_end(q) for q in range(game.n)]
    cfg = game.cfg
    players = [
        p
        for p in players
        if sum(p.concealed) + 3 * len(p.melds) == cfg.hand_size and (p.indicator is not None or cfg.wild != "tingyong")
    ]
    live = [4] * NUM_KINDS
    fast = [ready_waits(cfg, p, live=live) for p in players]
    assert sum(bool(v) for v in fast) > 5
    _with_reference(monkeypatch)
    assert [ready_waits(cfg, p, live=live) for p in players] == fast
