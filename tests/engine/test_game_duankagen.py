"""断卡根 Duankagen in the engine (RULES.md §4.5, §7.5): D1-D5 as scripted games with exact transfers; 报胡 and
its restrictions, 请胡 and the requester's commitment, the 小胡 rule, 赔喜 and 查叫.

72 tiles (条 s, 筒 p), 10-tile hands (dealer 11), no 换三张 and no 定缺: a script's wall is the four hands in deal
order followed by the play draws.  Filler hands are not ready, so the only wins are the scripted ones.
"""

from __future__ import annotations

from envs.core.actions import BAOHU, HU, PASS, PONG, Action, ActionType, discard, kong
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of
from envs.engine.game import Game
from envs.engine.view import Phase
from tests.helpers.game import auto, scripted_game, transfers, turn_of

DKG = load_variant("duankagen")
T = kind_of
QINGHU = ActionType.QINGHU_DISCARD


def _game(hands: dict[int, str], draws: str = "", *, dealer: int = 0) -> Game:
    return scripted_game(DKG, hands, draws, dealer=dealer)


def _qinghu(k: str) -> Action:
    return Action(QINGHU, T(k))


# ---- D1-D5 --------------------------------------------------------------------------------------------------------
def test_d1_full_flush_with_two_ka_self_draw():
    hands = {0: "14679p 234678s", 1: "145789p 2567s", 2: "456s 456s 789s 1s", 3: "12457p 34579s"}
    g = _game(hands, "2p 3p 5p 8p 9p 1s")
    auto(g, until=lambda g: g.phase == Phase.SELF and g.drawn_tile == T("1s"))
    assert g.current == 2 and g.legal_actions(2)[0] == HU
    g.step(2, HU)
    w = g.wins[0]
    assert (w.seat, w.how, w.doublings, w.payment) == (2, "zimo", 4, 9)  # 清一色 2 + 卡 2 = 4 fan: 超叫 8, +1 base
    assert transfers(g) == [(0, 2, 9, "zimo"), (1, 2, 9, "zimo"), (3, 2, 9, "zimo")]


def test_d2_ying_ka_on_a_discard():
    hands = {0: "1478p 1234678s", 1: "46p 123s 789s 22p", 2: "14689p 12567s", 3: "12348p 14578s"}
    g = _game(hands, "3p 9p 5p")
    g.step(0, discard(T("1s")))
    assert g.phase == Phase.DECLARE and g.pending == (1,) and g.legal_actions(1) == [BAOHU, PASS]
    g.step(1, PASS)
    auto(g, until=turn_of(3))
    assert g.drawn_tile == T("5p")
    g.step(3, discard(T("5p")))
    assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]  # only 硬卡 makes this 小胡 a win
    g.step(1, HU)
    assert (g.wins[0].doublings, g.wins[0].payment) == (1, 1)
    assert transfers(g) == [(3, 1, 1, "dianpao")]


D3_HANDS = {0: "11s 44s 66s 88s 33p 9p", 1: "3468p 245678s", 2: "256p 1235679s", 3: "12478p 13579s"}


def test_d3_qinghu_nobody_claims_the_single():
    g = _game(D3_HANDS)
    assert _qinghu("9p") in g.legal_actions(0) and discard(T("9p")) in g.legal_actions(0)
    g.step(0, _qinghu("9p"))
    w = g.wins[0]
    assert (w.seat, w.how, w.tile, w.from_seat, w.doublings, w.payment) == (0, "qinghu", T("9p"), None, 2, 3)
    assert transfers(g) == [(1, 0, 3, "zimo"), (2, 0, 3, "zimo"), (3, 0, 3, "zimo")]
    assert g.discards[0] == [T("9p")] and g.view(1).qinghu == (True, False, False, False)
    assert g.current == 1 and not g.active[0]
    g.validate()


def test_d4_qinghu_caught_and_the_requester_must_request_again():
    hands = {0: "11s 44s 66s 88s 33p 9p", 1: "1456p 135678s", 2: "123s 456p 78p 55s", 3: "1234578p 379s"}
    g = _game(hands, "2s 2p")
    g.step(0, _qinghu("9p"))
    assert g.pending == (2,) and g.legal_actions(2) == [HU, PASS]  # no pong or kong on a 请胡 single
    g.step(2, HU)
    w = g.wins[0]
    assert (w.seat, w.from_seat, w.how, w.doublings, w.payment) == (2, 0, "dianpao", 3, 4)  # 小胡 0 + 请胡炮 3
    assert transfers(g) == [(0, 2, 4, "dianpao")]
    auto(g, until=turn_of(0))
    # committed: no plain discard, no kong; the only action is the 请胡 of the new single
    assert g.drawn_tile == T("2p") and g.legal_actions(0) == [_qinghu("2p")]
    g.step(0, _qinghu("2p"))
    assert g.wins[-1].seat == 0 and g.wins[-1].how == "qinghu"


def test_d5_baohu_player_deals_in():
    hands = {0: "35679p 234789s", 1: "123p 456p 789p 6s", 2: "12567p 23468s", 3: "234p 567s 88s 34s"}
    g = _game(hands, "5s")
    g.step(0, discard(g.drawn_tile))
    assert g.phase == Phase.DECLARE and g.legal_actions(1) == [BAOHU, PASS]
    g.step(1, BAOHU)
    assert g.view(3).baohu == (False, True, False, False)
    assert g.drawn_tile == T("5s") and g.legal_actions(1) == [discard(T("5s"))]  # 报胡: the drawn tile goes
    g.step(1, discard(T("5s")))
    assert g.pending == (3,) and g.legal_actions(3) == [HU, PASS]
    g.step(3, HU)
    assert (g.wins[0].doublings, g.wins[0].payment) == (2, 2)  # 断幺九 1 + 报胡 penalty 1
    assert transfers(g) == [(1, 3, 2, "dianpao")]


# ---- 报胡 ---------------------------------------------------------------------------------------------------------
def test_baohu_seat_may_not_pong_kongs_only_when_still_ready_and_forfeits_by_passing_a_win():
    hands = {0: "123459p 23679s", 1: "234p 567p 111s 8p", 2: "267p 2456789s", 3: "345679p 2456s"}
    g = _game(hands, "9s 1s 8p 8p 3p")
    g.step(0, discard(T("9s")))
    g.step(1, BAOHU)
    assert g.drawn_tile == T("9s") and g.legal_actions(1) == [discard(T("9s"))]
    g.step(1, discard(T("9s")))
    g.step(2, discard(T("1s")))
    # a 报胡 seat never pongs; its kong keeps the hand ready (waiting on 8p), so it is offered
    assert g.pending == (1,) and g.legal_actions(1) == [kong(T("1s")), PASS]
    g.step(1, PASS)
    g.step(3, discard(T("8p")))
    assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]
    g.step(1, PASS)  # a 报胡 seat that passes a win can no longer win this hand
    assert g.vstate.forfeit[1] and any(ev["type"] == "baohu_forfeit" and ev["seat"] == 1 for ev in g.events)
    assert g.current == 0 and g.drawn_tile == T("8p")
    g.step(0, discard(T("8p")))
    assert g.phase == Phase.SELF and g.current == 1  # not offered again
    assert g.legal_actions(1) == [discard(T("3p"))]


def test_dealer_declares_baohu_with_its_first_discard():
    hands = {0: "123p 456p 789p 6s 9s", 1: "12589p 15789s", 2: "23469p 13789s", 3: "269p 2345679s"}
    g = _game(hands)
    legal = g.legal_actions(0)
    assert BAOHU in legal
    g.step(0, BAOHU)
    # only the discards that keep the ten tiles ready remain
    assert set(g.legal_actions(0)) == {discard(T("6s")), discard(T("9s"))}
    g.step(0, discard(T("9s")))
    assert g.vstate.baohu[0] and g.view(2).baohu[0]


# ---- 小胡 ---------------------------------------------------------------------------------------------------------
def test_xiaohu_cannot_win_on_an_ordinary_discard_but_can_on_a_baohu_discard():
    # S3 holds a 小胡 (0 fan) waiting on 5s
    hands = {0: "35679p 234789s", 1: "123p 456p 789p 6s", 2: "12567p 23468s", 3: "123p 567s 99s 34s"}
    g = _game(hands, "5s")
    g.step(0, discard(T("3p")))
    g.step(1, PASS)  # no 报胡: S1's 5s discard is an ordinary discard
    g.step(1, discard(T("5s")))
    assert g.phase == Phase.SELF and g.current == 2  # S3 is not offered 小胡
    g = _game(hands, "5s")
    g.step(0, discard(T("3p")))
    g.step(1, BAOHU)
    g.step(1, discard(T("5s")))
    assert g.pending == (3,) and g.legal_actions(3) == [HU, PASS]
    g.step(3, HU)
    assert (g.wins[0].doublings, g.wins[0].payment) == (1, 1)  # 0 + 报胡 penalty 1
    assert transfers(g) == [(1, 3, 1, "dianpao")]


# ---- kongs, 查叫 ----------------------------------------------------------------------------------------------------
def test_kong_pays_xi_from_every_active_seat():
    hands = {0: "5p 13789p 23469s", 1: "555p 1s 3s 6s 9s 2p 4p 7p", 2: "12789p 35678s", 3: "14789p 13589s"}
    g = _game(hands, "3p")
    g.step(0, discard(T("5p")))
    assert g.legal_actions(1) == [kong(T("5p")), PONG, PASS]
    g.step(1, kong(T("5p")))
    assert transfers(g) == [(0, 1, 1, "xi"), (2, 1, 1, "xi"), (3, 1, 1, "xi")]


def test_chajiao_counts_only_waits_that_win_on_a_discard():
    hands = {
        0: "234p 567p 345s 6s 9p",  # ready: 断幺九 on 3s / 6s (1 fan)
        1: "123p 789p 123s 5s",  # a 小胡-only wait: not ready
        2: "456p 123s 789s 9p",  # 素卡: 卡 needs a self-draw: not ready
        3: "123s 789s 11p 46p",  # 硬卡 on 5p: ready
    }
    g = _game(hands)
    g.step(0, discard(T("9p")))
    auto(g)
    assert g.exhausted and not g.wins
    end = [t for t in transfers(g) if t[3] == "chadajiao"]
    assert end == [(1, 0, 1, "chadajiao"), (1, 3, 1, "chadajiao"), (2, 0, 1, "chadajiao"), (2, 3, 1, "chadajiao")]


def test_duankagen_hands_replay_and_validate():
    import json

    from envs.engine.replay import replay
    from tests.engine.test_game_properties import play_random

    kinds = set()
    for seed in range(8):
        g = play_random("duankagen", seed, check_every=3)
        kinds |= {ev["type"] for ev in g.events}
        assert replay(json.loads(json.dumps(g.events))).snapshot() == g.snapshot()
    assert {"baohu", "kong"} <= kinds
