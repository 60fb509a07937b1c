"""Scripted deals of RULES.md §7 that several engine test files play (tests/engine/test_game_settlement.py,
tests/engine/test_game_rules.py), with the openings they share.  Walls are built by
:func:`tests.helpers.game.scripted_game`.
"""

from __future__ import annotations

from envs.core.actions import HU, PASS, discard, kong
from envs.core.rule_config import RuleConfig
from envs.core.tiles import kind_of as T
from envs.engine.game import Game
from envs.engine.view import Phase
from tests.helpers.game import auto, pong, scripted_game, turn_of

# C9: S1 konges 9m, then discards the replacement 5s on which S2 wins (杠上炮, 呼叫转移)
C9_HANDS = {
    0: "124678m 1478s 258s 3s",
    1: "999m 123s 456s 78s 11s",
    2: "234m 567m 234s 67s 99s",
    3: "12479p 258p 479s 56s",
}

# C11: S0's first discard 3s is won by S1 and S3
C11_HANDS = {
    0: "3s 1479m 258m 1479p 25p",
    1: "234m 456m 55m 12s 789s",
    2: "1368m 1368p 2468p 9p",
    3: "123s 45s 666s 789s 11s",
}


def c9_until_kong(cfg: RuleConfig, hands: dict[int, str] = C9_HANDS) -> Game:
    """C9 up to S1's turn: S1 has drawn the fourth 9m and may kong it (the replacement is 5s)."""
    g = scripted_game(cfg, hands, "9m 5s", offset=2, voids="pppm")
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("9m") and kong(T("9m")) in g.legal_actions(1)
    return g


def c9_kong_discard_win(cfg: RuleConfig) -> Game:
    """C9 played through: S1 konges 9m and discards the replacement 5s, S2 (the only claimant) wins on it."""
    g = c9_until_kong(cfg)
    g.step(1, kong(T("9m")))
    assert g.drawn_tile == T("5s") and g.current == 1
    g.step(1, discard(T("5s")))
    assert g.phase == Phase.CLAIM and g.pending == (2,)
    assert g.legal_actions(2) == [HU, PASS]
    g.step(2, HU)
    g.validate()
    return g


def c11_after_discard(cfg: RuleConfig) -> Game:
    """C11 after S0 discarded 3s: S1 and S3 are asked."""
    g = scripted_game(cfg, C11_HANDS, offset=2, voids="spsm")
    g.step(0, discard(T("3s")))
    return g


def pong_the_7p(g: Game, seat: int) -> None:
    """S0 discards 7p, ``seat`` pongs it (every other claimant passes) and, discard-only, plays 9s."""
    g.step(0, discard(T("7p")))
    pong(g, seat)
    assert all(a.type.name == "DISCARD" for a in g.legal_actions(seat))  # right after a pong: discard only
    g.step(seat, discard(T("9s")))


def add_the_7p_kong(g: Game, seat: int) -> None:
    """After :func:`pong_the_7p`: play on until ``seat`` draws the fourth 7p, then add it to the pong (补杠)."""
    auto(g, until=turn_of(seat))
    assert g.drawn_tile == T("7p") and kong(T("7p")) in g.legal_actions(seat)
    g.step(seat, kong(T("7p")))
