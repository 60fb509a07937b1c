"""武汉 红中赖子杠 Wuhan in the engine (RULES.md §4.8, §7.8): W1-W4 as scripted games with exact transfers; 吃 from
the previous seat only, 红中杠 / 赖子杠, the 海底 phase, 截胡 and must-open.

Scripts: the wall deals the hands (dealer 14, others 13), then the indicator (``5p`` → 赖子 ``6p`` unless stated),
then the play draws; kong replacements come from the back of the wall (``last=``: the last tile listed is the first
replacement).  Seats that only pass or throw tiles usually hold a 红中, so they can never win.
"""

from __future__ import annotations

from envs.core.actions import HU, LAIZI_KONG, PASS, PONG, RED_KONG, Action, ActionType, discard, kong
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of
from envs.engine.game import Game
from envs.engine.view import Phase
from tests.helpers.game import scripted_game, transfers

WUHAN = load_variant("wuhan")
T = kind_of


def chi(c: int) -> Action:
    return Action(ActionType.CHI, c)


def _game(hands: dict[int, str], draws: str, *, indicator: str = "5p", last: str = "", dealer: int = 0) -> Game:
    return scripted_game(WUHAN, hands, f"{indicator} {draws}", last=last, dealer=dealer)


def _throw(g: Game, seat: int, tile: str | None = None) -> None:
    assert g.phase == Phase.SELF and g.current == seat, (g.phase, g.current, seat)
    g.step(seat, discard(T(tile) if tile else g.drawn_tile))


# ---- W1-W4 ----------------------------------------------------------------------------------------------------------
def test_w1_small_self_draw_win_against_factors_of_every_loser():
    hands = {
        0: "4m 1m 7m 9m 1p 4p 9p 1s 3s 5s 9s 5z 7z 3z",
        1: "35m 678s 234p 789p 2m 1z",
        2: "11z 5z 2m 5m 8m 2p 5p 8p 2s 5s 8s 7z",
        3: "2222z 3m 6m 1p 3p 7p 3s 6s 7s 5z",
    }
    g = _game(hands, "7z 6z 2m", last="4z 3z")
    assert g.indicator == T("5p") and g.wild_kinds == (T("6p"),)
    g.step(0, discard(T("4m")))
    assert g.pending == (1,) and g.legal_actions(1) == [chi(1), chi(2), PASS]  # 3m_5m or 2m3m
    g.step(1, chi(1))
    assert g.melds[1] == [Meld(MeldKind.CHI, T("3m"), from_seat=0, claimed=T("4m"))]
    _throw(g, 1, "1z")
    g.step(2, PONG)
    assert RED_KONG in g.legal_actions(2)  # a kong right after a pong is allowed in Wuhan
    g.step(2, RED_KONG)
    assert g.drawn_tile == T("3z") and g.discards[2] == [T("5z")]
    _throw(g, 2)
    assert g.drawn_tile == T("7z") and kong(T("2z")) in g.legal_actions(3)
    g.step(3, kong(T("2z")))
    assert g.view(0).melds[3] == (Meld(MeldKind.ANKONG, -1),)  # 暗杠 hidden from the others
    _throw(g, 3)
    _throw(g, 0)
    assert g.current == 1 and g.drawn_tile == T("2m") and g.legal_actions(1)[0] == HU
    g.step(1, HU)
    assert g.is_over and g.result.next_dealer == 1
    assert sorted(transfers(g)) == [(0, 1, 16, "zimo"), (2, 1, 32, "zimo"), (3, 1, 32, "zimo")]
    assert g.scores[1] == 80


def test_w2_two_big_wins_on_a_discard_by_the_dealer():
    hands = {
        0: "22s 77s 444s 999s 5s 1z 3z 4z",
        1: "11z 2s 7s 1m 4m 7m 1p 4p 9p 3s 5z 6z",
        2: "5s 2m 5m 8m 2p 8p 1s 9s 5z 3z 4z 6m 9m",
        3: "3m 7m 9m 1p 3p 7p 9p 2s 6s 8s 5z 1z 7z",
    }
    g = _game(hands, "7z 2z 6z")
    g.step(0, discard(T("1z")))
    g.step(1, PONG)
    _throw(g, 1, "2s")
    assert g.pending == (0,)
    g.step(0, PONG)
    _throw(g, 0, "3z")
    _throw(g, 1, "7s")
    g.step(0, PONG)
    _throw(g, 0, "4z")
    _throw(g, 1)
    _throw(g, 2, "5s")
    assert g.pending == (0,) and g.legal_actions(0) == [HU, PASS]
    g.step(0, HU)
    w = g.wins[0]
    assert (w.seat, w.from_seat, w.how) == (0, 2, "dianpao")
    assert sorted(transfers(g)) == [(1, 0, 160, "dianpao"), (2, 0, 160, "dianpao"), (3, 0, 80, "dianpao")]
    assert g.scores[0] == 400


def test_w3_golden_cap_and_full_flush_liability():
    """§7.8 W3 prices the three losers at 320 / 640 / 320 raw, all >= 300: 金顶 400 each.  In play the third open
    meld of a 清一色 always has a supplier, so 承包 rule 2 makes that seat (here S2, who fed the 6m pong) pay the
    three capped amounts, 1 200."""
    hands = {
        0: "1m 3m 2m 5m 8m 2p 4p 8p 1s 3s 5s 7s 9s 5z",
        1: "2z 2z 4z 7m 1p 3p 5p 9p 2s 4s 6s 8s 5z",
        2: "6m 4m 7p 8p 9p 1s 3s 5s 7s 9s 2s 4s 5z",
        3: "11m 333m 66m 999m 8m 2z 3z",
    }
    g = _game(hands, "1z 1z 6z 6z 7z 1z 6z 7z 3z 8m", last="7z")
    g.step(0, discard(T("1m")))
    g.step(3, PONG)
    _throw(g, 3, "2z")
    g.step(1, PONG)
    _throw(g, 1, "4z")
    _throw(g, 2)
    _throw(g, 3)
    _throw(g, 0, "3m")
    assert g.legal_actions(3) == [kong(T("3m")), PONG, PASS]
    g.step(3, kong(T("3m")))  # 冲杠: a replacement from the back, no payment now
    assert g.drawn_tile == T("7z") and not g.transfers
    _throw(g, 3)
    _throw(g, 0)
    _throw(g, 1)
    _throw(g, 2, "6m")
    g.step(3, PONG)
    _throw(g, 3, "3z")
    _throw(g, 0)
    _throw(g, 1)
    _throw(g, 2)
    assert g.current == 3 and g.drawn_tile == T("8m")
    g.step(3, HU)
    assert transfers(g) == [(2, 3, 1200, "zimo")]


def test_w4_liability_for_quan_qiu_ren():
    """§7.8 W4 as RULES gives it: 赖子 6p, S1 chis 123m and 789p (never a run holding the 赖子) from S0."""
    hands = {
        0: "2m 8p 5m 7z 7z 5z 1m 8m 9p 2s 4s 8s 1p 3s",
        1: "1m 3m 7p 9p 77s 33p 5m 1z 2z 3z 7z",
        2: "7s 3p 5z 4m 7m 9m 2p 7p 1s 2s 5s 8s 3z",
        3: "9999s 5z 1m 3m 6m 8m 1p 7p 9p 3s",
    }
    g = _game(hands, "3z 9m 9p 1s 9m", last="1z")  # indicator 5p: 赖子 6p
    assert g.wild_kinds == (T("6p"),)
    g.step(0, discard(T("2m")))
    g.step(1, chi(1))
    _throw(g, 1, "1z")
    _throw(g, 2)
    g.step(3, kong(T("9s")))
    _throw(g, 3)
    _throw(g, 0, "8p")
    assert chi(1) in g.legal_actions(1)
    g.step(1, chi(1))
    assert g.melds[1][-1] == Meld(MeldKind.CHI, T("7p"), from_seat=0, claimed=T("8p"))
    _throw(g, 1, "2z")
    _throw(g, 2, "7s")
    g.step(1, PONG)
    _throw(g, 1, "3z")
    _throw(g, 2, "3p")
    g.step(1, PONG)
    _throw(g, 1, "7z")
    g.step(0, PONG)
    _throw(g, 0, "5m")
    assert g.pending == (1,) and HU in g.legal_actions(1)
    g.step(1, HU)
    assert g.wins[0].how == "dianpao" and "quan_qiu_ren" in next(e for e in g.events if e["type"] == "win")["breakdown"]
    assert transfers(g) == [(0, 1, 360, "dianpao")]  # S0 dealt in while not ready: it pays for all three


# ---- rules ----------------------------------------------------------------------------------------------------------
JIEHU_HANDS = {
    0: "1z 5m 1m 9m 1p 9p 1s 9s 7p 8p 2s 3s 5z 7z",
    1: "1z 1z 2z 234s 567s 22p 4m 6m",
    2: "2z 2z 3z 345p 789s 88s 3m 4m",
    3: "1m 7m 9m 1p 3p 7p 9p 2s 6s 8s 5z 6z 3z",
}


def test_jiehu_only_the_first_claimant_after_the_discarder_wins():
    g = _game(JIEHU_HANDS, "7z 4z")
    g.step(0, discard(T("1z")))
    g.step(1, PONG)
    _throw(g, 1, "2z")
    g.step(2, PONG)
    _throw(g, 2, "3z")
    _throw(g, 3)
    _throw(g, 0, "5m")
    assert g.pending == (1, 2)
    assert g.legal_actions(1) == [HU, chi(1), PASS] and g.legal_actions(2) == [HU, PASS]  # chi: S1 only
    g.step(2, HU)
    g.step(1, HU)
    assert [w.seat for w in g.wins] == [1] and g.is_over  # 截胡: S1 comes first after the discarder
    assert {t[0] for t in transfers(g)} == {0, 2, 3} and all(t[1] == 1 for t in transfers(g))
    assert g.result.next_dealer == 1  # the dealer passes on after a win
    h = _game(JIEHU_HANDS, "7z 4z")
    h.step(0, discard(T("1z")))
    h.step(1, PONG)
    _throw(h, 1, "2z")
    h.step(2, PONG)
    _throw(h, 2, "3z")
    _throw(h, 3)
    _throw(h, 0, "5m")
    h.step(1, PASS)
    h.step(2, HU)
    assert [w.seat for w in h.wins] == [2]


def test_chi_only_from_the_previous_seat_and_never_with_the_laizi():
    hands = {
        0: "4m 4p 1m 9m 1p 9p 1s 9s 2s 3s 5z 7z 1z 2z",
        1: "35m 5p 6p 7s 8s 9s 1z 3z 4z 5z 6z 7z",
        2: "35m 35p 1s 2s 4s 5s 8s 1z 3z 7z 4z",
        3: "2m 4m 6m 8m 1p 3p 5s 7s 9s 6z 7z 2z 3z",
    }
    g = _game(hands, "")
    g.step(0, discard(T("4m")))
    assert g.pending == (1,) and g.legal_actions(1) == [chi(1), PASS]  # S2 holds 3m 5m too, but is not next
    g.step(1, PASS)
    assert g.phase == Phase.SELF and g.current == 1
    g = _game(hands, "")
    g.step(0, discard(T("4p")))  # S1 holds 5p and the 赖子 6p: no 4-5-6 with a 赖子
    assert g.phase == Phase.SELF and g.current == 1


def test_red_and_laizi_kongs_are_played_out_and_draw_from_the_back():
    hands = {
        0: "5z 6p 1m 4m 7m 1p 4p 9p 2s 5s 8s 1z 3z 7z",
        1: "2m 5m 8m 2p 5p 8p 3s 6s 9s 2z 4z 6z 7z",
        2: "3m 6m 9m 3p 7p 1s 4s 7s 1z 2z 3z 4z 6z",
        3: "1m 4m 7m 1p 4p 7p 2s 5s 8s 1z 2z 3z 4z",
    }
    g = _game(hands, "", last="9s 9m")
    legal = g.legal_actions(0)
    assert RED_KONG in legal and LAIZI_KONG in legal
    assert discard(T("5z")) not in legal and discard(T("6p")) not in legal
    back = g.live_wall()[-1]
    g.step(0, RED_KONG)
    assert g.drawn_tile == back == T("9m") and g.discards[0] == [T("5z")] and g.phase == Phase.SELF
    g.step(0, LAIZI_KONG)
    assert g.drawn_tile == T("9s") and g.discards[0] == [T("5z"), T("6p")]
    assert g.vstate.red_kongs[0] == 1 and g.vstate.laizi_kongs[0] == 1 and not g.transfers
    assert [e["type"] for e in g.events if e["type"] in ("red_kong", "laizi_kong")] == ["red_kong", "laizi_kong"]
    g.validate()
    _throw(g, 0)
    assert g.phase == Phase.SELF and g.current == 1  # nobody could claim anything


def test_must_open_before_winning():
    hands = dict(JIEHU_HANDS)
    hands[1] = "234s 567s 22p 4m 6m 345p"
    g = _game(hands, "7z 5m")
    g.step(0, discard(T("5m")))
    assert g.pending == (1,) and g.legal_actions(1) == [chi(1), PASS]  # a closed hand is never offered HU
    g.step(1, PASS)
    assert g.drawn_tile == T("7z")
    g = _game(hands, "5m")
    g.step(0, discard(T("1z")))
    assert g.current == 1 and g.drawn_tile == T("5m") and HU not in g.legal_actions(1)


def test_haidi_phase_draw_only_and_a_drawn_hand_pays_nothing():
    for seed in range(3):
        g = Game("wuhan", seed=seed)
        windows_in_haidi = kongs_in_haidi = 0
        while not g.is_over:
            seat = g.pending[0]
            legal = g.legal_actions(seat)
            if g.phase == Phase.SELF and g.wall_remaining < 4:
                assert set(legal) <= {HU, discard(g.drawn_tile)} and discard(g.drawn_tile) in legal
            if g.phase == Phase.SELF and g.wall_remaining <= 4:
                kongs_in_haidi += any(a.type in (ActionType.KONG, ActionType.RED_KONG) for a in legal)
            if g.phase == Phase.CLAIM and g.wall_remaining <= 4:
                windows_in_haidi += 1
            action = PASS if PASS in legal else next(a for a in legal if a.type != ActionType.HU)
            g.step(seat, action)
        assert g.exhausted and not g.wins and g.scores == [0, 0, 0, 0]
        assert windows_in_haidi == 0 and kongs_in_haidi == 0
        assert g.result.next_dealer == g.dealer  # a drawn hand keeps the dealer


def test_wuhan_hands_replay_and_validate():
    import json

    from envs.engine.replay import replay
    from tests.engine.test_game_properties import play_random

    kinds = set()
    for seed in range(6):
        g = play_random("wuhan", seed, check_every=3)
        kinds |= {ev["type"] for ev in g.events}
        assert replay(json.loads(json.dumps(g.events))).snapshot() == g.snapshot()
    assert {"chi", "red_kong", "laizi_kong", "indicator"} <= kinds


def test_robbing_an_added_kong_makes_the_kong_player_liable():
    hands = {
        0: "5s 1m 4m 7m 1p 4p 7p 9p 8s 9s 5z 3z 4z 7z",
        1: "55s 1z 2m 5m 8m 2p 5p 3p 1s 9s 5z 6z",
        2: "1z 1z 234m 678p 22s 4s 6s 2z",
        3: "3m 6m 9m 3p 8p 1s 3s 7s 8s 5z 1z 2z 3z",
    }
    g = _game(hands, "4z 6z 5s")
    g.step(0, discard(T("5s")))
    g.step(1, PONG)
    _throw(g, 1, "1z")
    g.step(2, PONG)
    _throw(g, 2, "2z")
    _throw(g, 3)
    _throw(g, 0)
    assert g.drawn_tile == T("5s") and kong(T("5s")) in g.legal_actions(1)
    g.step(1, kong(T("5s")))
    assert g.phase == Phase.ROB and g.pending == (2,) and g.legal_actions(2) == [HU, PASS]
    g.step(2, HU)
    w = g.wins[0]
    assert (w.seat, w.from_seat, w.how) == (2, 1, "qianggang")
    # 抢杠 big win 10 x M(S2) 4: S1 160 (robbed x2, open x2), S0 40, S3 40; S1 pays them all (承包)
    assert transfers(g) == [(1, 2, 240, "qianggang")]
    assert g.melds[1] == [Meld(MeldKind.PONG, T("5s"), from_seat=0)]  # the robbed kong stays a pong
