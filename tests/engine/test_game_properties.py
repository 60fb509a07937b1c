"""Property tests of the engine over random seeds and random legal decisions, for every supported variant.

Each game checks after every step: ``validate()`` (tile conservation, hand sizes, meld legality, zero-sum scores),
that every offered action is accepted (on copies) and that a sample of actions not offered is refused with
``ValueError`` without changing the state; at the end: zero-sum transfers, and ``replay(events)`` rebuilds the same
final state.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core.actions import HU, PASS, PONG, Action, ActionType, dingque, discard, exchange, kong
from envs.core.rule_config import ENGINE_PRESETS
from envs.engine.game import Game
from envs.engine.match import Match
from envs.engine.replay import replay
from envs.engine.view import Phase

VARIANTS = ENGINE_PRESETS

_UNIVERSE = (
    [discard(k) for k in range(34)]
    + [kong(k) for k in range(34)]
    + [PONG, HU, PASS]
    + [dingque(s) for s in range(3)]
    + [exchange((0, 0, 0)), exchange((0, 1, 2)), exchange((9, 18, 27)), Action(ActionType.FEI)]
    + [Action(ActionType.TI, k) for k in (0, 13, 22)]
    + [Action(ActionType.CHI, c) for c in range(3)]
    + [Action(ActionType.BAOHU), Action(ActionType.RED_KONG), Action(ActionType.LAIZI_KONG)]
    + [Action(ActionType.QINGHU_DISCARD, k) for k in (9, 20)]
)


_SPECIALS = frozenset(
    {ActionType.FEI, ActionType.TI, ActionType.CHI, ActionType.BAOHU, ActionType.QINGHU_DISCARD}
    | {ActionType.RED_KONG, ActionType.LAIZI_KONG}
)


def _choose(g: Game, seat: int, rng: random.Random) -> Action:
    """A random legal action, biased towards wins and kongs so that settlement paths are exercised."""
    legal = g.legal_actions(seat)
    if HU in legal and rng.random() < 0.8:
        return HU
    specials = [a for a in legal if a.type in _SPECIALS]
    if specials and rng.random() < 0.6:
        return rng.choice(specials)
    kongs = [a for a in legal if a.type == ActionType.KONG]
    if kongs and rng.random() < 0.6:
        return rng.choice(kongs)
    if PONG in legal and rng.random() < 0.4:
        return PONG
    if PASS in legal and g.phase in (Phase.CLAIM, Phase.ROB) and rng.random() < 0.7:
        return PASS
    return rng.choice(legal)


def _check_offers(g: Game, rng: random.Random) -> None:
    before = g.snapshot()
    seat = rng.choice(g.pending)
    legal = g.legal_actions(seat)
    for a in rng.sample(legal, min(3, len(legal))):
        c = g.copy()
        c.step(seat, a)
        c.validate()
    assert g.snapshot() == before, "stepping a copy changed the original"
    for a in rng.sample(_UNIVERSE, 8):
        if a in legal:
            continue
        with pytest.raises(ValueError):
            g.step(seat, a)
    others = [s for s in range(g.n) if s not in g.pending]
    if others:
        with pytest.raises(ValueError, match="no decision now"):
            g.step(rng.choice(others), PASS)
    assert g.snapshot() == before, "a refused action changed the state"


def play_random(variant: str, seed: int, *, check_every: int = 7) -> Game:
    rng = random.Random(seed)
    g = Game(variant, seed=seed)
    g.validate()
    steps = 0
    while not g.is_over:
        seat = g.pending[0]
        if steps % check_every == 0:
            _check_offers(g, rng)
        g.step(seat, _choose(g, seat, rng))
        g.validate()
        steps += 1
        assert steps < 2000
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(variant, seed):
    g = play_random(variant, seed)
    assert sum(g.scores) == 0 and sum(t.amount for t in g.transfers) >= 0
    assert g.result is not None and g.result.scores == tuple(g.scores)
    assert not g.pending and g.legal_actions(0) == []
    with pytest.raises(ValueError, match="hand is over"):
        g.step(0, PASS)
    r = replay(json.loads(json.dumps(g.events)))
    assert r.snapshot() == g.snapshot()
    # same seed and the same decisions give the same game
    assert play_random(variant, seed).snapshot() == g.snapshot()


@pytest.mark.parametrize("variant", VARIANTS)
def test_views_never_show_hidden_tiles(variant):
    g = Game(variant, seed=17)
    rng = random.Random(17)
    while not g.is_over:
        for s in range(g.n):
            v = g.view(s)
            assert v.hand == tuple(g.hands[s])
            for q in range(g.n):
                if v.revealed_hands[q] is not None:
                    assert g.won[q] and (g.cfg.reveal_winner_hand or g.cfg.continuation == "xueliu")
            assert v.legal_actions == tuple(g.legal_actions(s))
            assert v.to_act == (s in g.pending)
            assert v.drawn_tile is None or (s == g.current and g.phase == Phase.SELF)
        seat = g.pending[0]
        g.step(seat, _choose(g, seat, rng))


def test_wins_happen_in_every_variant():
    """The random player above does reach wins, kongs and exhaustion (the properties are not vacuous)."""
    hows, kongs, exhausted = set(), 0, 0
    for variant in VARIANTS:
        for seed in range(6):
            g = play_random(variant, seed, check_every=50)
            hows |= {w.how for w in g.wins}
            kongs += sum(m.is_kong for ms in g.melds for m in ms)
            exhausted += g.exhausted
    assert {"zimo", "dianpao"} <= hows and kongs > 0 and exhausted > 0


# ---- matches ------------------------------------------------------------------------------------------------------
def _play_match(m: Match, rng: random.Random) -> None:
    while True:
        g = m.game
        while not g.is_over:
            seat = g.pending[0]
            g.step(seat, _choose(g, seat, rng))
        if m.is_over:
            return
        m.next_hand()


def test_chiyu_match_is_four_hands_from_50000_points():
    m = Match("chiyu", seed=8)
    assert m.points == (50000,) * 4 and m.game.match_points_before == (50000,) * 4
    _play_match(m, random.Random(8))
    final = m.final_points()
    assert m.hand_index == 3 and len(m.results) == 4 and sum(final) == 200000
    assert final == tuple(50000 + sum(r.scores[s] for r in m.results) for s in range(4))
    for prev, result in zip(m.results, m.results[1:]):
        assert result is not prev
    with pytest.raises(ValueError, match="match is over"):
        m.next_hand()


def test_match_dealer_succession_and_hand_seeds():
    from envs.core.wall import hand_seed

    m = Match("chengdu", seed=3)
    rng = random.Random(3)
    dealers = [m.game.dealer]
    for _ in range(4):
        g = m.game
        assert g.seed == hand_seed(3, m.hand_index)
        with pytest.raises(ValueError, match="still being played"):
            m.next_hand()
        while not g.is_over:
            seat = g.pending[0]
            g.step(seat, _choose(g, seat, rng))
        assert not m.is_over  # hands_per_match = None: the caller decides
        nxt = m.next_hand()
        assert nxt.dealer == g.result.next_dealer
        dealers.append(nxt.dealer)
    assert len(m.results) == 4


def test_exhaustive_draw_that_leaves_a_seat_below_zero_ends_the_match():
    """RULES §2.11.4 (a player below 0 ends the match): 赤羽 from 12 000 points, seed 56, uniformly random legal play.
    Hand 2 ends in a draw whose 查花猪 (two pigs, 8 000 to each of the two others) leaves two seats at -4 000: the
    hand is ``bankrupt`` and no hand 3 is dealt."""
    from envs.core.rule_config import load_variant

    m = Match(load_variant("chiyu", start_points=12000), seed=56, record_events=False)
    rng = random.Random(1)
    while not m.is_over:
        if m.game.is_over:
            m.next_hand()
        g = m.game
        while not g.is_over:
            legal = g.legal_actions(g.pending[0])
            g.step(g.pending[0], legal[rng.randrange(len(legal))])
    assert m.hand_index == 1 and g.exhausted and g.bankrupt and g.result.bankrupt
    assert m.final_points() == (-4000, 28000, -4000, 28000)
    assert {t.reason for t in g.transfers} == {"huazhu"}
    with pytest.raises(ValueError, match="match is over"):
        m.next_hand()


def test_a_points_match_ends_exactly_when_a_seat_falls_below_zero():
    """Whatever payment does it (kong, win, or the draw's 查花猪 / 查大叫 / 退税), a hand that leaves a seat's match
    total below zero is ``bankrupt`` and the last of its match; a hand that does not is neither."""
    from envs.core.rule_config import load_variant

    ways = set()
    for start in (3000, 12000):
        cfg = load_variant("chiyu", start_points=start)
        for seed in range(20):
            m = Match(cfg, seed=seed, record_events=False)
            _play_match(m, random.Random(seed))
            m.final_points()
            totals = [start] * 4
            for i, result in enumerate(m.results):
                totals = [t + s for t, s in zip(totals, result.scores, strict=True)]
                assert result.bankrupt == (min(totals) < 0), (start, seed, i, totals)
                if result.bankrupt:
                    assert i == len(m.results) - 1
                    ways.add("draw" if result.exhausted else "in_play")
            assert len(m.results) == 4 or m.results[-1].bankrupt
    assert ways == {"draw", "in_play"}


def test_bankruptcy_ends_a_points_match_early():
    from envs.core.rule_config import load_variant

    cfg = load_variant("chiyu", start_points=3000)
    ended_early = 0
    for seed in range(6):
        m = Match(cfg, seed=seed)
        _play_match(m, random.Random(seed))
        final = m.final_points()
        last = m.results[-1]
        if last.bankrupt:
            ended_early += 1
            assert min(final) < 0 and m.game.is_over
            if last.exhausted:  # the draw's 查花猪 / 查大叫 / 退税 settle together: the whole settlement stands
                continue
            # the hand stopped at the payment that broke the seat: no transfer after it
            running = [3000 + sum(r.scores[q] for r in m.results[:-1]) for q in range(4)]
            broke_at = None
            for i, t in enumerate(last.transfers):
                running[t.payer] -= t.amount
                running[t.receiver] += t.amount
                if min(running) < 0 and broke_at is None:
                    broke_at = i
            assert broke_at is not None and len(last.transfers) - broke_at <= 6
        else:
            assert len(m.results) == 4
    assert ended_early > 0
