"""Speed-ups must not change behaviour: fast paths against the slow reference computations they replace."""

from __future__ import annotations

import random

import pytest

from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS, RED
from envs.engine.game import Game
from envs.scoring import judge, settlement
from envs.scoring.scorer import discard_values
from envs.scoring.shanten import is_winning, waits

VARIANTS = ("chengdu", "xueliu", "hongzhong", "chiyu", "two_player")
ALL_PRESETS = (*VARIANTS, "yibin", "duankagen", "wuhan")


def _played_states(variant: str, seeds: range, rate: float = 0.12):
    """Mid-hand and final positions of randomly played hands (every seat's PlayerEnd)."""
    for seed in seeds:
        g = Game(variant, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.pending[0]
            g.step(seat, rng.choice(g.legal_actions(seat)))
            if g.phase.value == "self" and rng.random() < rate:
                yield g, [g.player_end(q) for q in range(g.n) if q != g.current]
        yield g, [g.player_end(q) for q in range(g.n)]


@pytest.mark.parametrize("variant", ALL_PRESETS)
def test_ready_waits_precheck_matches_full_scoring(variant):
    """查大叫: the structural pre-check and the shape-wait candidates of ready_waits never drop a wait the scorer
    would find (every kind scored in full as the reference)."""
    checked = ready = 0
    for g, players in _played_states(variant, range(12)):
        for p in players:
            if settlement.is_pig(g.cfg, p) or sum(p.concealed) + 3 * len(p.melds) != g.cfg.hand_size:
                continue
            values = discard_values(g.cfg, p.concealed, p.melds, void_suit=p.void_suit, indicator=p.indicator)
            live = [4] * NUM_KINDS  # every copy unseen: the dead-wait rule never removes a wait here
            assert settlement.ready_waits(g.cfg, p, live=live) == {t: r.payment for t, r in values.items()}
            checked += 1
            ready += bool(values)
    assert checked >= 5 and (ready > 0 or variant in ("chiyu", "wuhan"))


def _reference_waits(cfg, counts, melds, void) -> int:
    """judge.waits_mask as first written: full meld counts, no memo."""
    natural = list(counts)
    wilds = natural[RED] if cfg.wild == "hongzhong" else 0
    if wilds:
        natural[RED] = 0
    cand = judge.suited_mask(cfg, void)
    for m in melds:
        if counts[m.tile] + m.size >= 4:
            cand &= ~(1 << m.tile)
    mc = [0] * NUM_KINDS
    for m in melds:
        for k in m.represented():
            mc[k] += 1
    if wilds:
        found = waits(natural, wilds, allowed_mask=judge.suited_mask(cfg, void), meld_counts=mc if melds else None,
                      candidates_mask=cand)  # fmt: skip
    else:
        found = waits(natural, candidates_mask=cand)
    mask = sum(1 << t for t in found)
    if cfg.wild == "hongzhong" and cfg.hz_red_discard_claimable and counts[RED] < 4:
        c = list(counts)
        c[RED] += 1
        c[RED], w = 0, c[RED]
        if is_winning(c, w, allowed_mask=judge.suited_mask(cfg, void), meld_counts=mc if melds else None):
            mask |= 1 << RED
    return mask


@pytest.mark.parametrize(("variant", "claimable"), [("hongzhong", False), ("hongzhong", True), ("xueliu", False)])
def test_judge_waits_and_wins_match_reference(variant, claimable):
    """judge: binding-only meld caps and the memo give the answers of the full four-copy caps."""
    cfg = load_variant(variant, **({"hz_red_discard_claimable": True} if claimable else {}))
    judge._WAITS_MEMO.clear()
    checked = with_melds = 0
    for seed in range(20):
        g = Game(cfg, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.pending[0]
            legal = g.legal_actions(seat)
            g.step(seat, next((a for a in legal if a.type.name in ("PONG", "KONG")), rng.choice(legal)))
            for q in range(g.n):
                h, melds, void = g.hands[q], g.melds[q], g.void[q]
                size = sum(h) + 3 * len(melds)
                if size == cfg.hand_size:
                    assert judge.waits_mask(cfg, h, melds, void) == _reference_waits(cfg, h, melds, void)
                    checked += 1
                    with_melds += bool(melds) and h[RED] > 0
                elif size == cfg.hand_size + 1:
                    mc = [0] * NUM_KINDS
                    for m in melds:
                        for k in m.represented():
                            mc[k] += 1
                    nat = list(h)
                    w = nat[RED] if cfg.wild == "hongzhong" else 0
                    nat[RED] = 0 if w else nat[RED]
                    expected = (
                        is_winning(nat, w, allowed_mask=judge.suited_mask(cfg, void), meld_counts=mc if melds else None)
                        if w
                        else is_winning(h)
                    )
                    assert judge.is_win(cfg, list(h), melds, void) == expected
    assert checked > 500 and (with_melds > 20 or variant != "hongzhong")


def test_inlined_wall_shuffle_makes_the_randbelow_fisher_yates_walls():
    """envs.core.wall: the inlined shuffle draws exactly ``randbelow(i + 1)`` for i = len - 1 .. 1 (and leaves the
    stream where that loop would)."""
    from envs.core import wall

    for variant in ("chengdu", "hongzhong", "two_player", "yibin"):
        cfg = load_variant(variant)
        for seed in [*range(40), b"\x00bytes", "text", 2**70]:
            fast, slow = wall.tile_multiset(cfg), wall.tile_multiset(cfg)
            s1, s2 = wall.SeedStream(seed, "wall"), wall.SeedStream(seed, "wall")
            s1.shuffle(fast)
            for i in range(len(slow) - 1, 0, -1):
                j = s2.randbelow(i + 1)
                slow[i], slow[j] = slow[j], slow[i]
            assert fast == slow
            assert s1.randbelow(10**9) == s2.randbelow(10**9)
        assert wall.shuffled_wall(cfg, 5) == wall.shuffled_wall(cfg, 5)
        assert wall.tile_multiset(cfg) is not wall.tile_multiset(cfg)  # a fresh list each time (callers shuffle it)


@pytest.mark.parametrize("variant", ("hongzhong", "yibin", "wuhan", "chengdu"))
def test_waits_shanten_precheck_never_drops_a_wait(variant, monkeypatch):
    """judge.waits_mask: the 向听 pre-check (a hand two tiles from complete waits on nothing) gives the full scan's
    answer on every 3k+1 hand met in random play, wildcard hands included."""
    cfg = load_variant(variant)
    states = []
    for seed in range(25):
        g = Game(cfg, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not g.is_over:
            for q in range(g.n):
                h = g.hands[q]
                if sum(h) % 3 == 1:
                    states.append((list(h), list(g.melds[q]), g.void[q], g.wild_kinds))
            seat = g.pending[0]
            g.step(seat, rng.choice(g.legal_actions(seat)))
    fast = [judge._waits_mask(cfg, h, m, v, w) for h, m, v, w in states]
    monkeypatch.setattr(judge, "shanten", lambda *args, **kwargs: 0)  # the full candidate scan every time
    slow = [judge._waits_mask(cfg, h, m, v, w) for h, m, v, w in states]
    assert fast == slow
    with_wilds = sum(1 for h, _, _, w in states if any(h[k] for k in w))
    assert len(states) > 1000 and any(slow)
    assert with_wilds > 200 if variant != "chengdu" else with_wilds == 0
