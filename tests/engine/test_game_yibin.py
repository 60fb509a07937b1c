"""宜宾 Yibin in the engine (RULES.md §4.4, §7.4): 本金 / 听用, 飞, 提, forced wins, scripted Y1-Y4 with exact
transfers.

Scripts (see tests/helpers/game.py): the wall deals the hands, then the 本金 is the next tile (flipped after 定缺 and
out of the wall), then the play draws.  With 本金 ``5s`` the 听用 are ``4s`` and ``6s``.  Seats that only draw and
discard are usually void in 筒 and hold 筒 tiles (never ready) or draw 筒 fillers that nobody may claim.
"""

from __future__ import annotations

import pytest

from envs.core.actions import FEI, HU, PASS, PONG, Action, ActionType, discard
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_tiles
from envs.engine.game import Game
from envs.engine.view import Phase
from tests.helpers.game import auto, scripted_game, transfers, turn_of

YIBIN = load_variant("yibin")
T = kind_of
TI = ActionType.TI


def _game(hands: dict[int, str], draws: str, voids: str, *, benjin: str = "5s", last: str = "") -> Game:
    return scripted_game(YIBIN, hands, f"{benjin} {draws}", voids=voids, last=last)


def _discards(g: Game, seat: int) -> set[int]:
    return {a.tile for a in g.legal_actions(seat) if a.type == ActionType.DISCARD}


# ---- the indicator ---------------------------------------------------------------------------------------------------
def test_benjin_is_flipped_after_dingque_and_leaves_the_wall():
    g = Game("yibin", seed=11, dealer=0)
    assert g.phase == Phase.DINGQUE and g.view(0).indicator is None and g.wild_kinds == ()
    for s in g.pending:
        g.step(s, g.legal_actions(s)[0])
    assert g.indicator == g.events[0]["wall"][53] and g.view(2).indicator == g.indicator
    suit, rank = divmod(g.indicator, 9)
    assert g.wild_kinds == tuple(sorted((suit * 9 + (rank - 1) % 9, suit * 9 + (rank + 1) % 9)))
    assert g.view(1).wild_kinds == g.wild_kinds
    assert g.wall_remaining == 108 - 53 - 1
    assert any(ev["type"] == "indicator" and ev["tile"] == g.indicator for ev in g.events)
    g.validate()  # the flipped tile is counted out of the wall


def test_tingyong_is_never_discarded_and_has_no_suit():
    hands = {
        0: "123456789p 12378s",
        1: "111m 234m 567m 89m 4s 6s",
        2: "2345678p 123789s",
        3: "2345678p 123s 99s 9m",
    }
    g = _game(hands, "1p", "mssp")  # S1 declares 条 void but holds only 听用 of that suit
    g.step(0, discard(T("1p")))
    assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]  # 听用 make S1 ready on any tile
    g.step(1, PASS)
    assert g.current == 1 and g.drawn_tile == T("1p")
    assert _discards(g, 1) == {T("1m"), T("2m"), T("3m"), T("4m"), T("5m"), T("6m"), T("7m"), T("8m"), T("9m"),
                               T("1p")}  # fmt: skip


# ---- Y1-Y3: scripted wins with exact transfers -----------------------------------------------------------------------
def test_y1_full_flush_with_two_tingyong_and_a_soft_root_self_draw():
    hands = {
        0: "123456789p 12378s",
        1: "111m 234m 567m 89m 4s 6s",
        2: "2345678p 123789s",
        3: "2345678p 123s 99s 9m",
    }
    g = _game(hands, "2p 3p 4p 5p 9m", "mppp")
    g.step(0, discard(T("1p")))  # nobody may claim a 筒 (all others void in 筒)
    auto(g, until=lambda g: g.drawn_tile == T("9m"))  # not S1's first draw (that would be 地胡)
    assert g.current == 1 and HU in g.legal_actions(1)
    g.step(1, HU)
    win = g.wins[0]
    assert (win.seat, win.how, win.doublings, win.payment) == (1, "zimo", 4, 16)
    assert transfers(g) == [(0, 1, 16, "zimo"), (2, 1, 16, "zimo"), (3, 1, 16, "zimo")]


def test_y2_no_tingyong_discard_win():
    hands = {
        0: "3m 1m 2m 4m 5m 6m 7m 8m 1s 3s 5s 9s 9s 8s",
        1: "3456789p 1m 2m 4m 1s 3s 5s",
        2: "33m 999m 22s 77s 88s 1p 2p",
        3: "1m 2m 5m 6m 7m 9m 1s 3s 5s 8s 9s 4m 6m",
    }
    g = _game(hands, "7s 2s", "pppp")
    g.step(0, discard(T("3m")))
    assert g.pending == (2,) and g.legal_actions(2) == [PONG, PASS]
    g.step(2, PONG)
    assert _discards(g, 2) == {T("1p"), T("2p")}  # void tiles first
    g.step(2, discard(T("1p")))
    g.step(3, discard(T("7s")))
    assert g.pending == (2,)
    g.step(2, PONG)
    g.step(2, discard(T("2p")))
    g.step(3, discard(T("2s")))
    assert g.pending == (2,) and g.legal_actions(2) == [HU, PONG, PASS]
    g.step(2, HU)
    assert [(w.seat, w.from_seat, w.how, w.doublings, w.payment) for w in g.wins] == [(2, 3, "dianpao", 3, 8)]
    assert transfers(g) == [(3, 2, 8, "dianpao")]  # no kong payments ever in Yibin


def test_y3_benjin_triplet_completed_by_a_tingyong():
    hands = {
        0: "22m 88m 3m 1p 3p 5p 7p 99s 55s 4s",
        1: "1m 3m 4m 5m 6m 7m 9m 9m 1s 2s 3s 7s 8s",
        2: "12345689p 1m 2m 2s 3s 7s",
        3: "12345689p 4m 1s 5m 7s 8s",
    }
    g = _game(hands, "2m 8m 9s 2p 4p 6p 3m", "pppp")
    g.step(0, discard(T("1p")))
    for fed, void_tile in (("2m", "3p"), ("8m", "5p"), ("9s", "7p")):
        assert g.current == 1 and g.drawn_tile == T(fed)
        g.step(1, discard(T(fed)))
        assert g.pending == (0,) and PONG in g.legal_actions(0)
        g.step(0, PONG)
        g.step(0, discard(T(void_tile)))
    auto(g, until=turn_of(0))
    assert g.drawn_tile == T("3m") and HU in g.legal_actions(0)
    g.step(0, HU)
    win = g.wins[0]
    assert (win.seat, win.how, win.doublings, win.payment) == (0, "zimo", 3, 8)
    breakdown = next(ev["breakdown"] for ev in g.events if ev["type"] == "win")
    assert breakdown.get("ben_jin") == 1
    assert transfers(g) == [(1, 0, 8, "zimo"), (2, 0, 8, "zimo"), (3, 0, 8, "zimo")]


# ---- Y4: 飞 then 提 --------------------------------------------------------------------------------------------------
Y4_HANDS = {
    0: "123456789p 12379s",
    1: "7m 4s 1m 3m 5m 9m 2s 3s 8s 9s 1s 5s 8m",
    2: "123456789p 2m 4m 6m 8m",
    3: "1m 2m 3m 4m 5m 6m 2s 3s 5s 7s 8s 9s 9m",
}


def test_y4_fei_then_ti():
    g = _game(Y4_HANDS, "2p 3p 7m 4p 5p 6p 7m", "mppp")
    g.step(0, discard(T("1p")))
    auto(g, until=turn_of(3))
    assert g.drawn_tile == T("7m")
    g.step(3, discard(T("7m")))
    assert g.pending == (1,) and g.legal_actions(1) == [FEI, PASS]  # one natural 7m: no pong
    g.step(1, FEI)
    assert g.melds[1] == [Meld(MeldKind.FEI, T("7m"), 1, 3, (T("4s"),))]
    legal = g.legal_actions(1)
    assert all(a.type == ActionType.DISCARD for a in legal)  # no kong, no 提 right after 飞
    assert T("4s") not in _discards(g, 1) and g.hand_of(1)[T("4s")] == 0
    g.step(1, discard(T("9m")))
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("7m") and Action(TI, T("7m")) in g.legal_actions(1)
    g.step(1, Action(TI, T("7m")))
    assert g.melds[1] == [Meld(MeldKind.PONG, T("7m"), from_seat=3)]
    assert g.hand_of(1)[T("4s")] == 1 and g.hand_of(1)[T("7m")] == 0
    assert g.phase == Phase.SELF and g.current == 1 and g.drawn_tile == T("4s")
    assert Action(TI, T("7m")) not in g.legal_actions(1) and T("4s") not in _discards(g, 1)
    g.validate()
    g.step(1, discard(T("1m")))
    assert g.current == 2


def test_passing_fei_locks_pong_and_fei_of_that_kind_until_the_next_draw():
    g = _game(Y4_HANDS, "2p 3p 7m 7m 5p", "mppp")
    g.step(0, discard(T("1p")))
    auto(g, until=turn_of(3))
    g.step(3, discard(T("7m")))
    g.step(1, PASS)
    assert g.view(1).pass_pong_locked == (T("7m"),)
    assert g.current == 0 and g.drawn_tile == T("7m")
    g.step(0, discard(T("7m")))  # S1 may not 飞 it now
    assert g.phase == Phase.SELF and g.current == 1 and g.view(1).pass_pong_locked == ()


# ---- pong legality, a hand of only 听用 ----------------------------------------------------------------------------
def test_pong_that_leaves_only_tingyong_is_refused_and_an_all_tingyong_hand_must_win():
    hands = {
        0: "1m 1235789s 99s 9m 8m 5m 6m",
        1: "11m 22m 33m 77m 4s 6s 1p 3p 5p",
        2: "12346789m 23589s",
        3: "6m 8m 9m 4p 5p 6p 7p 8p 9p 1s 2s 3s 4s",
    }
    g = _game(hands, "2m 3m 7m 6p 7p 8p 4s", "pppp")
    assert g.legal_actions(0)[0] == discard(T("1m"))
    g.step(0, discard(T("1m")))
    for feed, void_tile in (("2m", "1p"), ("3m", "3p"), ("7m", "5p")):
        assert g.pending == (1,) and PONG in g.legal_actions(1)
        g.step(1, PONG)
        g.step(1, discard(T(void_tile)))
        assert g.current == 2 and g.drawn_tile == T(feed)
        g.step(2, discard(T(feed)))
    # S1 holds 7m 7m 4s 6s: a pong would leave only 听用 (no discard), 飞 keeps a 7m to discard
    assert g.pending == (1,) and g.legal_actions(1) == [HU, FEI, PASS]
    g.step(1, FEI)
    assert g.legal_actions(1) == [discard(T("7m"))]
    g.step(1, discard(T("7m")))
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("4s") and g.hand_of(1)[T("6s")] == 1 and sum(g.hand_of(1)) == 2
    assert g.legal_actions(1) == [HU]  # no legal discard: the hand of two 听用 is complete and must win
    g.step(1, HU)
    assert g.won[1] and g.wins[-1].how == "zimo" and sum(g.scores) == 0
    g.validate()


# ---- forced wins, 天胡 ---------------------------------------------------------------------------------------------
def _forced_script():
    """S1 waits only on 9m and draws it last-but-one; S0/S3 (void 筒) only ever draw 筒 and S2 (void 条) only 条, so
    they keep a void tile and never get ready; S2 holds all eight 听用.  Nobody claims anything."""
    hands = {
        0: "123p 99m 1m 22m 33m 44m 55m",
        1: "111m 234m 567m 888m 9m",
        2: "4444s 6666s 123s 78s",
        3: "45p 2m 3m 4m 5m 666m 777m 8m",
    }
    used = [k for text in (*hands.values(), "5s") for k in parse_tiles(text)]
    p_pool = [k for k in range(9, 18) for _ in range(4 - used.count(k))]
    s_pool = [k for k in range(18, 27) if k not in (T("4s"), T("6s")) for _ in range(4 - used.count(k))]
    draws = []
    for i in range(54):
        seat = (1 + i) % 4
        if seat == 1:
            draws.append(T("9m") if i == 52 else (p_pool.pop() if len(p_pool) > 26 - (i // 4) * 2 else s_pool.pop()))
        elif seat == 2:
            draws.append(s_pool.pop(0))
        else:
            draws.append(p_pool.pop(0))
    return hands, draws


def test_forced_win_in_the_last_four_tiles():
    hands, draws = _forced_script()
    g = scripted_game(YIBIN, hands, [T("5s"), *draws], voids="ppsp")
    auto(g, until=lambda g: g.phase == Phase.SELF and g.current == 1 and g.drawn_tile == T("9m"))
    assert g.wall_remaining == 1 and not any(g.won)
    assert g.legal_actions(1) == [HU]
    g.step(1, HU)
    assert g.wins[-1].seat == 1


def test_heavenly_win_is_the_cap_plus_one_root():
    hands = {
        0: "111m 234m 567m 888m 99m",
        1: "123456789p 1s 2s 3s 7s",
        2: "123456789p 2s 3s 7s 8s",
        3: "123456789p 1s 2s 3s 8s",
    }
    g = _game(hands, "", "pmmm")
    assert HU in g.legal_actions(0)
    g.step(0, HU)
    assert g.wins[0].doublings == 6 and transfers(g) == [(1, 0, 64, "zimo"), (2, 0, 64, "zimo"), (3, 0, 64, "zimo")]


@pytest.mark.parametrize("seed", range(6))
def test_random_yibin_hands_keep_tingyong_out_of_discards(seed):
    import random

    from tests.engine.test_game_properties import _choose

    g = Game("yibin", seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        seat = g.pending[0]
        for a in g.legal_actions(seat):
            if a.type == ActionType.DISCARD:
                assert a.tile not in g.wild_kinds
        g.step(seat, _choose(g, seat, rng))
    assert all(k not in g.wild_kinds for d in g.discards for k in d)
