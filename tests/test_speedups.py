"""Speed-ups must not change behaviour: fast paths against the slow reference computations they replace."""

from __future__ import annotations

import random

import pytest

from envs import settlement
from envs.game import Game
from envs.scoring import discard_values

VARIANTS = ("chengdu", "xueliu", "hongzhong", "chiyu", "two_player")


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


@pytest.mark.parametrize("variant", VARIANTS)
def test_ready_waits_precheck_matches_full_scoring(variant):
    """查大叫: the structural pre-check of ready_waits never drops a wait the scorer would find."""
    checked = ready = 0
    for g, players in _played_states(variant, range(12)):
        for p in players:
            if settlement.is_pig(g.cfg, p) or sum(p.concealed) + 3 * len(p.melds) != g.cfg.hand_size:
                continue
            values = discard_values(g.cfg, p.concealed, p.melds, void_suit=p.void_suit)
            assert settlement.ready_waits(g.cfg, p) == {t: r.payment for t, r in values.items()}
            checked += 1
            ready += bool(values)
    assert checked >= 5 and (ready > 0 or variant == "chiyu")
