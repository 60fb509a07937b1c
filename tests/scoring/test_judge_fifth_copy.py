"""``wild_ignores_four_copy_limit`` (AMB-14 off): the engine's shape questions follow the scorer past four copies.

With the flag on, a 红中 may stand for a fifth copy of a kind (in the hand or beside a meld).  The engine offers a
win (``judge.is_win``), lists waits (``judge.waits_mask``) and values 查大叫 (``settlement.ready_value``) from the
same hands the scorer accepts; with the flag off none of them counts a fifth copy.
"""

from __future__ import annotations

import random

import pytest

from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import RED, parse_counts
from envs.scoring import judge
from envs.scoring.settlement import PlayerEnd, ready_value

KONG_1S, PONG_9P, PONG_9S = Meld(MeldKind.KONG, 18), Meld(MeldKind.PONG, 17), Meld(MeldKind.PONG, 26)


@pytest.mark.parametrize("flag", [False, True])
def test_a_wait_through_a_fifth_copy_beside_melds(flag):
    """2s 3s 9s 红中 with 1s kong, 9p and 9s pongs: 4s wins only if the 红中 may be a fifth 9s (the pair)."""
    cfg = load_variant("hongzhong", wild_ignores_four_copy_limit=flag)
    counts = list(parse_counts("23s 9s 5z"))
    melds = [KONG_1S, PONG_9P, PONG_9S]
    four_s = 21
    assert bool(judge.waits_mask(cfg, counts, melds, 0) >> four_s & 1) == flag
    won = counts[:]
    won[four_s] += 1
    assert judge.is_win(cfg, won, melds, 0) == flag
    assert judge.score(cfg, won, melds, four_s, void=0, dealer=False, self_drawn=False).is_win == flag
    value = ready_value(cfg, PlayerEnd(0, False, tuple(counts), tuple(melds), 0))
    assert (value is not None) == flag


@pytest.mark.parametrize("flag", [False, True])
def test_a_concealed_fifth_copy(flag):
    """5555m 红中 123p 456p 789p: complete only with the 红中 as a fifth 5m."""
    cfg = load_variant("hongzhong", wild_ignores_four_copy_limit=flag)
    hand = list(parse_counts("5555m 5z 123p 456p 789p"))
    assert judge.is_win(cfg, hand, [], 2) == flag
    assert judge.score(cfg, hand, [], 4, void=2, dealer=False, self_drawn=True).is_win == flag


def _ready_hands(rng: random.Random, n: int) -> list[tuple[list[int], list[Meld]]]:
    """13-tile 红中 hands one tile from complete (1-3 红中, 0-2 melds), biased towards many copies of few kinds."""
    out = []
    while len(out) < n:
        kinds = rng.sample(range(27), 5)
        melds = [Meld(rng.choice((MeldKind.PONG, MeldKind.KONG)), k) for k in kinds[: rng.randint(0, 2)]]
        room = [4] * 34  # copies left beside the melds
        for m in melds:
            room[m.tile] -= len(m.represented())
        counts = [0] * 34
        while sum(counts) < 13 - 3 * len(melds):
            k = rng.choice(kinds) if rng.random() < 0.8 else rng.randrange(27)
            if counts[k] < room[k]:
                counts[k] += 1
        wilds = rng.randint(1, 3)
        for _ in range(wilds):
            k = rng.choice([k for k in range(34) if counts[k]])
            counts[k] -= 1
            counts[RED] += 1
        out.append((counts, melds))
    return out


@pytest.mark.parametrize("flag", [False, True])
def test_waits_are_the_scorers_wins(flag):
    """Every kind ``waits_mask`` lists is a win the scorer accepts, and every accepted natural win is listed."""
    cfg = load_variant("hongzhong", wild_ignores_four_copy_limit=flag)
    rng = random.Random(7)
    listed = 0
    for counts, melds in _ready_hands(rng, 400):
        mask = judge.waits_mask(cfg, counts, melds, None)
        held = counts[:]
        for m in melds:
            for k in m.represented():
                held[k] += 1
        for t in range(27):
            if held[t] >= 4:
                continue  # no natural copy left to win on
            won = counts[:]
            won[t] += 1
            wins = judge.score(cfg, won, melds, t, void=None, dealer=False, self_drawn=False).is_win
            assert bool(mask >> t & 1) == wins, (counts, melds, t)
            listed += wins
    assert listed > 100
