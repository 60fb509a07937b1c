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
            # the hand stopped at the transfer that broke the seat: no transfer after it
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
