"""Scripted deals of RULES.md §7 that several engine test files play (tests/engine/test_game_settlement.py,
tests/engine/test_game_rules.py, tests/compiled/test_compiled_engine.py), with the openings they share.  Walls are
built by :func:`tests.helpers.game.scripted_game`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from envs.core.actions import (
    DINGQUE_BASE,
    EXCHANGE_BASE,
    HU,
    HU_ID,
    KONG_BASE,
    PASS,
    PASS_ID,
    discard,
    engine_action,
    kong,
)
from envs.core.rule_config import RuleConfig
from envs.core.tiles import kind_of as T
from envs.engine.game import Game
from envs.engine.observation import game_mask
from envs.engine.view import Phase
from tests.helpers.game import Script, auto, build_wall, pong, scripted_game, turn_of

IdPolicy = Callable[[Game, int, np.ndarray], int]

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


# R5 (赤羽 exhaustion): S0 discards 7s, S2 konges S3's 5p (S3 pays 2000), S0 self-draws 3p (2000 from each), and at
# the draw the pig S3 pays 查花猪 8000 to S1 and S2, the not-ready S2 pays 查大叫 4000 to S1 and refunds S3's 2000.
R5_HANDS = {
    0: "123m 456m 789m 12p 99p 7s",
    1: "234s 567s 888s 11s 99s",
    2: "555p 11p 44p 77p 8p 9p 2m 6m",
    3: "1122m 3344m 5566m 2s",
}
R5_DRAWS = "1m 3m 5p 7p 8s 3p"
R5_VOIDS = "spss"
# R5 with S3 ready on 8m (清一色, 16000) instead of a pig: at the draw S2 pays 查大叫 4000 to S1 and 16000 to S3, then
# refunds S3's 2000 (this hand's net: S0 +6000, S1 +2000, S2 -22000, S3 +14000).
R5_READY_HANDS = {**R5_HANDS, 3: "1122m 3344m 5579m 9m"}


def r5_script(cfg: RuleConfig, hands: dict[int, str] = R5_HANDS) -> Script:
    """The R5 wall (换三张 offset 2; a ``chiyu`` configuration)."""
    return build_wall(cfg, hands, R5_DRAWS, offset=2)


def r5_policy(script: Script) -> IdPolicy:
    """R5's decisions as flat action ids (either engine): the scripted 换三张 picks and voids, S0's first discard 7s,
    S2's kong of the 5p, S0's self-draw once S2 has melded; every other decision tsumogiri / pass."""
    picked = [0] * script.cfg.num_players
    kong_5p = KONG_BASE + T("5p")

    def choose(game: Game, seat: int, ids: np.ndarray) -> int:
        legal = set(ids.tolist())
        if game.phase is Phase.EXCHANGE:
            picked[seat] += 1
            return EXCHANGE_BASE + script.passes[seat][picked[seat] - 1]
        if game.phase is Phase.DINGQUE:
            return DINGQUE_BASE + "mps".index(R5_VOIDS[seat])
        if seat == 0 and not game.discards[0]:
            return T("7s")
        if seat == 2 and kong_5p in legal and game.phase is Phase.CLAIM:
            return kong_5p
        if seat == 0 and HU_ID in legal and game.melds[2]:
            return HU_ID
        if PASS_ID in legal:
            return PASS_ID
        drawn = game.drawn_tile
        if drawn is not None and drawn in legal:
            return drawn
        return min(a for a in legal if a < KONG_BASE)

    return choose


def play_ids(game: Game, choose: IdPolicy) -> None:
    """Play ``game`` to its end on the Python engine, ``choose`` picking flat action ids from the legal mask."""
    picks: list[list[int]] = [[] for _ in range(game.n)]
    while not game.is_over:
        seat = game.pending[0]
        a = choose(game, seat, np.flatnonzero(game_mask(game, seat, picks[seat])))
        action = engine_action(a, picks[seat])
        if action is not None:
            game.step(seat, action)


def r5_game(cfg: RuleConfig, hands: dict[int, str] = R5_HANDS, match_points: Sequence[int] | None = None) -> Game:
    """R5 (or a variant of its hands) played to its end on the Python engine."""
    script = r5_script(cfg, hands)
    game = script.game(match_points=match_points)
    play_ids(game, r5_policy(script))
    return game
