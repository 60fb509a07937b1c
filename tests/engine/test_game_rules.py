"""Rules of the hand state machine (RULES.md §2.2-§2.10): construction, deal, 换三张, 定缺, pass locks (P1), the void
suit (P2), forced wins, 红中 rules, 天胡/地胡, views, copies, events and errors."""

from __future__ import annotations

import json

import pytest

from envs.core.actions import HU, PASS, PONG, Action, ActionType, dingque, discard, exchange, kong
from envs.core.rule_config import load_variant
from envs.core.tiles import RED, kind_of
from envs.core.wall import shuffled_wall
from envs.engine.game import Game, UnsupportedRule, draw_exchange_offset
from envs.engine.replay import replay
from envs.engine.view import Phase
from tests.helpers.game import auto, build_wall, scripted_game, transfers, turn_of
from tests.helpers.scripted_deals import (
    C9_HANDS,
    add_the_7p_kong,
    c9_kong_discard_win,
    c9_until_kong,
    c11_after_discard,
    pong_the_7p,
)


def T(code: str) -> int:
    return kind_of(code)


# ---- construction and deal ---------------------------------------------------------------------------------------
def test_deal_order_dealer_first_then_turn_order():
    cfg = load_variant("chengdu")
    wall = shuffled_wall(cfg, 3)
    g = Game(cfg, wall=wall, dealer=2, exchange_offset=1)
    hs = cfg.hand_size
    slices = {
        2: wall[: hs + 1],
        3: wall[hs + 1 : 2 * hs + 1],
        0: wall[2 * hs + 1 : 3 * hs + 1],
        1: wall[3 * hs + 1 : 4 * hs + 1],
    }
    for seat, tiles in slices.items():
        assert list(g.hand_of(seat)) == [tiles.count(k) for k in range(34)]
    assert g.wall_remaining == 108 - 53 == 55
    assert g.live_wall() == wall[53:]
    assert g.phase == Phase.EXCHANGE and g.pending == (2, 3, 0, 1)


@pytest.mark.parametrize(("variant", "remaining"), [("hongzhong", 59), ("two_player", 81), ("xueliu", 55)])
def test_wall_sizes_after_the_deal(variant, remaining):
    assert Game(variant, seed=1).wall_remaining == remaining


def test_construction_errors():
    with pytest.raises(ValueError, match="seed="):
        Game("chengdu")
    with pytest.raises(ValueError, match="exactly the 108 tiles"):
        Game("chengdu", wall=[0] * 108, dealer=0, exchange_offset=1)
    wall = shuffled_wall(load_variant("chengdu"), 1)
    with pytest.raises(ValueError, match="dealer must be a seat"):
        Game("chengdu", wall=wall, dealer=4, exchange_offset=1)
    with pytest.raises(ValueError, match="exchange_offset"):
        Game("chengdu", wall=wall, dealer=0)
    with pytest.raises(ValueError, match="impossible for exchange_direction 'next'"):
        Game("hongzhong", wall=shuffled_wall(load_variant("hongzhong"), 1), dealer=0, exchange_offset=2)
    with pytest.raises(UnsupportedRule, match="yibin_tingyong_count = 4"):
        Game(load_variant("yibin", yibin_tingyong_count=4), seed=1)
    with pytest.raises(UnsupportedRule, match="piao"):
        Game(load_variant("yibin", piao=True), seed=1)
    with pytest.raises(UnsupportedRule, match="allow_chi"):
        Game(load_variant("chengdu", allow_chi=True), seed=1)


def test_seeded_games_are_reproducible():
    a, b = Game("chengdu", seed=99), Game("chengdu", seed=99)
    assert a.snapshot() == b.snapshot() and a.exchange_offset == b.exchange_offset
    assert Game("chengdu", seed=100).snapshot() != a.snapshot()


# ---- 换三张 ------------------------------------------------------------------------------------------------------
def test_exchange_actions_are_three_tiles_of_one_suit_held():
    g = Game("chengdu", seed=5)
    for seat in range(4):
        hand = g.hand_of(seat)
        acts = g.legal_actions(seat)
        assert acts and all(a.type == ActionType.EXCHANGE and len(a.tiles) == 3 for a in acts)
        for a in acts:
            assert len({k // 9 for k in a.tiles}) == 1
            assert all(a.tiles.count(k) <= hand[k] for k in a.tiles)
        suits_ok = {s for s in range(3) if sum(hand[s * 9 : s * 9 + 9]) >= 3}
        assert {a.tiles[0] // 9 for a in acts} == suits_ok
        assert len(set(acts)) == len(acts)


def test_hongzhong_never_passes_red_dragons():
    for seed in range(30):
        g = Game("hongzhong", seed=seed)
        for seat in range(4):
            assert all(RED not in a.tiles for a in g.legal_actions(seat))


def test_exchange_moves_tiles_and_reveals_the_direction_after_commit():
    g = Game("chengdu", seed=11)
    before = [list(g.hand_of(s)) for s in range(4)]
    picks = {s: g.legal_actions(s)[0].tiles for s in range(4)}
    for s in (0, 1, 2):
        g.step(s, exchange(picks[s]))
        assert g.view(s).exchange_offset is None and g.view(s).exchange_given == picks[s]
    assert g.pending == (3,)
    g.step(3, exchange(picks[3]))
    off = g.exchange_offset
    assert g.phase == Phase.DINGQUE and g.view(0).exchange_offset == off
    for s in range(4):
        giver = (s - off) % 4
        expected = list(before[s])
        for k in picks[s]:
            expected[k] -= 1
        for k in picks[giver]:
            expected[k] += 1
        assert list(g.hand_of(s)) == expected
        assert g.view(s).exchange_received == picks[giver]


@pytest.mark.parametrize(
    ("direction", "offsets"), [("random3", {1, 2, 3}), ("random2_parity", {1, 3}), ("previous", {3}), ("next", {1})]
)
def test_exchange_direction_draws(direction, offsets):
    cfg = load_variant("chengdu", exchange_direction=direction)
    seen = {draw_exchange_offset(cfg, seed) for seed in range(60)}
    assert seen == offsets


def test_two_player_opposite_direction():
    cfg = load_variant("two_player", exchange_mode="swap3")
    assert Game(cfg, seed=3).exchange_offset == 1


# ---- 定缺 --------------------------------------------------------------------------------------------------------
def test_dingque_is_simultaneous_and_public_after_the_last_declaration():
    g = Game("chengdu", seed=4)
    for s in range(4):
        g.step(s, g.legal_actions(s)[0])
    assert g.phase == Phase.DINGQUE and g.legal_actions(1) == [dingque(0), dingque(1), dingque(2)]
    g.step(0, dingque(2))
    assert g.view(0).own_void == 2 and g.view(1).void_suits == (None,) * 4 and g.view(1).own_void is None
    for s in (1, 2, 3):
        g.step(s, dingque(s - 1))
    assert g.view(3).void_suits == (2, 0, 1, 2)
    assert g.phase == Phase.SELF and g.current == g.dealer


# ---- step errors -------------------------------------------------------------------------------------------------
def test_illegal_actions_raise_value_error_naming_action_and_legal_set():
    g = Game("chengdu", seed=4, dealer=0)
    with pytest.raises(ValueError, match=r"illegal action discard 1m for seat 0 in phase exchange; legal: \[exchange"):
        g.step(0, discard(0))
    bad = exchange((0, 9, 18))
    with pytest.raises(ValueError, match="illegal action exchange"):
        g.step(0, bad)
    with pytest.raises(ValueError, match="must be an envs.core.actions.Action"):
        g.step(0, 5)  # type: ignore[arg-type]
    g.step(0, g.legal_actions(0)[0])
    with pytest.raises(ValueError, match=r"seat 0 has no decision now .*pending seats \[1, 2, 3\]"):
        g.step(0, g.legal_actions(1)[0])


# ---- P1: pass locks ----------------------------------------------------------------------------------------------
P_HANDS = {
    0: "2s 5s 666s 8s 9s 1479m 258m",
    1: "123m 456m 789m 34s 55s",
    2: "1368p 2479p 1358p 2s",
    3: "25s 1368p 2479p 57p 6m",
}
P_DRAWS = "9p 3m 1m 6s 3m 9p 7p"  # S1, S2, S3, S0 (6s), S0's replacement (3m) or S1 (9p) ...


def _p1(cfg, s3_discard="2s"):
    g = scripted_game(cfg, P_HANDS, P_DRAWS, offset=2, voids="ppms")
    g.step(0, discard(T("9s")))
    auto(g, until=turn_of(3))
    g.step(3, discard(T(s3_discard)))
    return g


@pytest.mark.parametrize("lock", ["same_tile", "any_tile", "none"])
def test_p1_pass_hu_lock(lock):
    cfg = load_variant("chengdu", pass_hu_lock=lock)
    g = _p1(cfg)
    assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]
    g.step(1, PASS)
    locked = {"same_tile": (T("2s"),), "any_tile": tuple(cfg.kinds), "none": ()}[lock]
    assert g.view(1).pass_hu_locked == locked
    assert g.current == 0 and g.drawn_tile == T("6s")
    same = g.copy()
    same.step(0, discard(T("2s")))
    if lock == "none":
        assert same.pending == (1,) and same.legal_actions(1) == [HU, PASS]
    else:  # not offered: the window does not even open, S1 draws
        assert same.phase == Phase.SELF and same.current == 1
    other = g.copy()
    other.step(0, discard(T("5s")))
    expected = [PONG, PASS] if lock == "any_tile" else [HU, PONG, PASS]
    assert other.legal_actions(1) == expected
    # any draw clears the lock: S1 passes, draws, discards; S2 discards 2s and S1 may win again
    other.step(1, PASS)
    assert other.current == 1 and other.view(1).pass_hu_locked == () and other.view(1).pass_pong_locked == ()
    other.step(1, discard(other.drawn_tile))
    auto(other, until=turn_of(2))
    other.step(2, discard(T("2s")))
    assert other.legal_actions(1) == [HU, PASS]


def test_pass_hu_allow_higher_offers_a_more_valuable_win():
    for higher in (False, True):
        cfg = load_variant("chengdu", pass_hu_allow_higher=higher)
        g = _p1(cfg)
        g.step(1, PASS)
        assert g.drawn_tile == T("6s")
        g.step(0, kong(T("6s")))
        assert g.drawn_tile == T("3m")
        g.step(0, discard(T("2s")))  # 杠上炮: worth 1 doubling, the declined win was worth 0
        if higher:
            assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]
            g.step(1, HU)
            assert transfers(g)[-2:] == [(0, 1, 2, "dianpao"), (0, 1, 6, "hujiao_zhuanyi")]
        else:
            assert g.phase == Phase.SELF and g.current == 1


def test_pass_pong_lock_until_next_draw():
    for flag in (True, False):
        cfg = load_variant("chengdu", pass_hu_lock="none", pass_pong_lock=flag)
        g = _p1(cfg, s3_discard="5s")
        assert g.legal_actions(1) == [HU, PONG, PASS]
        g.step(1, PASS)
        assert g.view(1).pass_pong_locked == ((T("5s"),) if flag else ())
        g.step(0, discard(T("5s")))
        assert g.legal_actions(1) == ([HU, PASS] if flag else [HU, PONG, PASS])


def test_forced_win_in_the_last_tiles():
    cfg = load_variant("chengdu", forced_hu_last_n=60)
    g = _p1(cfg)
    assert g.legal_actions(1) == [HU]


# ---- P2: the void suit ---------------------------------------------------------------------------------------------
P2_HANDS = {
    0: "9m 1368p 2479p 1358p 6p",
    1: "1368p 2479s 1358s 7s",
    2: "99m 123s 456s 789s 12p",
    3: "2479p 1368s 2468s 5s",
}


def test_p2_void_suit_rules():
    cfg = load_variant("chengdu")
    g = scripted_game(cfg, P2_HANDS, "9s 3p", offset=2, voids="mmmm")
    g.step(0, discard(T("9m")))  # S2 holds 99m but may not pong its void suit
    assert g.phase == Phase.SELF and g.current == 1
    auto(g, until=turn_of(2))
    assert g.drawn_tile == T("3p")  # 99m 123s 456s 789s 123p is complete in shape ...
    assert g.legal_actions(2) == [discard(T("9m"))]  # ... but holds a void tile: no win, must discard 万
    assert g.view(2).legal_actions == (discard(T("9m")),)


def test_chiyu_lets_void_tiles_stay():
    cfg = load_variant("chiyu")
    g = scripted_game(cfg, P2_HANDS, "9s 3p", offset=2, voids="mmmm")
    g.step(0, discard(T("9m")))
    auto(g, until=turn_of(2))
    acts = g.legal_actions(2)
    assert HU not in acts and discard(T("1s")) in acts and discard(T("9m")) in acts


# ---- 红中 --------------------------------------------------------------------------------------------------------
RED_HANDS = {
    0: "5z 1469m 14789p 2358p",
    1: "55z 123m 456m 78s 99s 4s",
    2: "1368m 1368p 2468s 9s",
    3: "2479m 12357p 2679p",
}


@pytest.mark.parametrize("claimable", [False, True])
def test_discarded_red_dragon_is_dead_unless_configured(claimable):
    cfg = load_variant("hongzhong", hz_red_discard_claimable=claimable)
    g = scripted_game(cfg, RED_HANDS, offset=1, voids="spps")
    g.step(0, discard(RED))  # S1 holds two 红中: never a pong; with the flag, a win (红中 as 6s/9s ...)
    if claimable:
        assert g.legal_actions(1) == [HU, PASS]
    else:
        assert g.phase == Phase.SELF and g.current == 1


def test_red_dragons_are_never_konged():
    cfg = load_variant("hongzhong", hz_four_red_instant=False)
    hands = {0: "5555z 1469m 1479p 36p", 1: RED_HANDS[2], 2: "123m 456m 78s 99s 3p 6p 9p", 3: RED_HANDS[3]}
    g = scripted_game(cfg, hands, offset=1, voids="spps")
    assert not g.wins and kong(RED) not in g.legal_actions(0) and discard(RED) in g.legal_actions(0)


# ---- 天胡 / 地胡 ---------------------------------------------------------------------------------------------------
TIAN_HANDS = {
    0: "123m 456m 789m 123s 55s",
    1: "123p 456p 789p 12s 44s",
    2: "1368m 2479m 1358p 6p",
    3: "2479p 1368p 2468m 6m",
}


@pytest.mark.parametrize(("mode", "each"), [("off", 2), ("cap", 8)])
def test_tianhu(mode, each):
    cfg = load_variant("chengdu", tiandihu=mode)
    g = scripted_game(cfg, TIAN_HANDS, "3s", offset=2, voids="pmss")
    assert g.legal_actions(0)[0] == HU
    g.step(0, HU)
    assert transfers(g) == [(q, 0, each, "zimo") for q in (1, 2, 3)]
    assert g.wins[0].how == "zimo" and g.current == 1


@pytest.mark.parametrize(("mode", "each"), [("off", 2), ("cap", 4)])
def test_dihu_on_the_first_draw(mode, each):
    cfg = load_variant("chengdu", tiandihu=mode)
    g = scripted_game(cfg, TIAN_HANDS, "3s", offset=2, voids="pmss")
    g.step(0, discard(T("5s")))
    assert g.phase == Phase.SELF and g.current == 1 and g.drawn_tile == T("3s")
    g.step(1, HU)
    assert transfers(g) == [(q, 1, each, "zimo") for q in (0, 2, 3)]


def test_hongzhong_tianhu_is_fixed_eight_doublings():
    cfg = load_variant("hongzhong")
    g = scripted_game(cfg, TIAN_HANDS, offset=1, voids="pmss")
    g.step(0, HU)
    assert transfers(g) == [(q, 0, 256, "zimo") for q in (1, 2, 3)]


# ---- continuation ------------------------------------------------------------------------------------------------
def test_blood_battle_ends_at_n_minus_one_winners():
    cfg = load_variant("chengdu")
    g = c11_after_discard(cfg)
    g.step(1, HU)
    g.step(3, HU)
    assert not g.is_over and g.active == [True, False, True, False]
    auto(g)
    assert g.is_over
    assert g.exhausted or sum(g.won) == 3


def test_single_continuation_ends_at_the_first_win():
    cfg = load_variant("chengdu", continuation="single")
    g = c11_after_discard(cfg)
    g.step(1, HU)
    g.step(3, HU)
    assert g.is_over and not g.exhausted and len(g.wins) == 2 and g.result.next_dealer == 0


# ---- views, events, copies, replay ---------------------------------------------------------------------------------
def test_view_hides_other_hands_and_the_wall():
    g = Game("chengdu", seed=21)
    v = g.view(1)
    assert v.hand == g.hand_of(1) and v.seat == 1 and v.to_act
    assert all(h is None for h in v.revealed_hands)
    text = repr(v)
    assert "wall=" not in text
    assert v.wall_remaining == 55 and v.exchange_offset is None
    with pytest.raises(ValueError, match="seat must be"):
        g.view(4)


def test_events_for_redacts_other_seats_private_information():
    g = Game("chengdu", seed=21)
    auto_pick = {s: g.legal_actions(s)[0] for s in range(4)}
    for s in range(4):
        g.step(s, auto_pick[s])
    mine = g.events_for(0)
    assert all(ev["type"] != "hand_start" for ev in mine)
    deals = [ev for ev in mine if ev["type"] == "deal"]
    assert [("tiles" in ev) for ev in deals] == [ev["seat"] == 0 for ev in deals]
    actions = [ev for ev in mine if ev["type"] == "action"]
    assert [("action" in ev) for ev in actions] == [ev["seat"] == 0 for ev in actions]
    json.dumps(g.events)


def test_copy_is_independent():
    g = Game("xueliu", seed=2)
    c = g.copy()
    c.step(c.pending[0], c.legal_actions(c.pending[0])[0])
    assert g.snapshot() != c.snapshot()
    assert g.snapshot() == Game("xueliu", seed=2).snapshot()


def test_replay_rebuilds_the_final_state():
    g = c9_kong_discard_win(load_variant("chengdu"))
    auto(g)
    r = replay(json.loads(json.dumps(g.events)))
    assert r.snapshot() == g.snapshot() and r.is_over
    with pytest.raises(ValueError, match="hand_start"):
        replay(g.events[1:])
    broken = list(g.events)
    i = next(i for i, ev in enumerate(broken) if ev["type"] == "action" and ev["phase"] == "self")
    broken[i] = {**broken[i], "action": {"type": "DISCARD", "tile": 33, "tiles": []}}
    with pytest.raises(ValueError, match="cannot be replayed"):
        replay(broken)


def test_structured_action_equality_is_used_for_legality():
    g = Game("chengdu", seed=4, dealer=0)
    tiles = g.legal_actions(0)[0].tiles
    assert tiles[0] != tiles[-1]
    g.step(0, Action(ActionType.EXCHANGE, tiles=tuple(reversed(tiles))))  # unsorted picks are normalised
    assert g.pending == (1, 2, 3) and g.view(0).exchange_given == tiles


# ---- kong variations -----------------------------------------------------------------------------------------------
def test_replacement_from_the_back_of_the_wall():
    cfg = load_variant("chengdu", kong_draw_from="back")
    g = c9_until_kong(cfg)
    wall = build_wall(cfg, C9_HANDS, "9m 5s", offset=2).wall  # the wall c9_until_kong dealt
    assert g.events[0]["wall"] == wall
    remaining = g.wall_remaining
    g.step(1, kong(T("9m")))
    assert g.drawn_tile == wall[-1] and g.wall_remaining == remaining - 1
    assert g.live_wall() == wall[108 - remaining + 0 : -1]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("xi_each_1", [(0, 1, 1, "xi"), (2, 1, 1, "xi"), (3, 1, 1, "xi")]),
        ("none", []),
        ("standard", [(0, 1, 2, "kong_concealed"), (2, 1, 2, "kong_concealed"), (3, 1, 2, "kong_concealed")]),
    ],
)
def test_kong_payment_modes(mode, expected):
    g = c9_until_kong(load_variant("chengdu", kong_payment=mode))
    g.step(1, kong(T("9m")))
    assert transfers(g) == expected


def test_hidden_concealed_kongs():
    g = c9_until_kong(load_variant("chengdu", reveal_concealed_kong=False))
    g.step(1, kong(T("9m")))
    assert g.view(1).melds[1][0].tile == T("9m")
    assert g.view(0).melds[1][0].tile == -1
    seen = g.events_for(0)
    assert all(ev.get("tile") != T("9m") for ev in seen if ev["type"] == "kong")
    assert all("action" not in ev for ev in seen if ev["type"] == "action" and ev["seat"] == 1)
    assert replay(g.events).snapshot() == g.snapshot()


def test_dealer_first_turn_drawn_tile_is_the_fourteenth_dealt_tile():
    cfg = load_variant("chengdu", exchange_mode="none")
    wall = shuffled_wall(cfg, 12)
    g = Game(cfg, wall=wall, dealer=0)
    for s in range(4):
        g.step(s, g.legal_actions(s)[0])
    assert g.phase == Phase.SELF and g.drawn_tile == wall[13]


ROB2_HANDS = {  # S1 and S3 both wait on 7p when S2 adds its kong
    0: "7p 1479m 258m 1479s 25s",
    1: "123m 456m 345p 68p 11m",
    2: "77p 129p 1234568s 9s",
    3: "234p 456p 345s 68p 99s",
}


@pytest.mark.parametrize("multi", [True, False])
def test_several_robbers(multi):
    cfg = load_variant("chengdu", multi_ron=multi)
    g = scripted_game(cfg, ROB2_HANDS, "5m 9m 4m 7p", offset=2, voids="psmm")
    pong_the_7p(g, 2)
    add_the_7p_kong(g, 2)
    assert g.phase == Phase.ROB and g.pending == (3, 1)
    g.step(1, HU)
    g.step(3, HU)
    if multi:
        assert transfers(g) == [(2, 3, 2, "qianggang"), (2, 1, 2, "qianggang")]
        assert g.current == 2  # winners scanned from S2: S3, S1; next active after S1 is S2
    else:
        assert transfers(g) == [(2, 3, 2, "qianggang")]
        assert g.current == 0


# ---- dealer succession -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["first_winner", "first_winner_ms", "rotate"])
def test_a_hand_without_winner_keeps_the_dealer(rule):
    cfg = load_variant("chengdu", dealer_rule=rule)
    g = Game(cfg, seed=31, dealer=2)
    for s in list(g.pending):
        g.step(s, g.legal_actions(s)[0])
    for s in list(g.pending):
        g.step(s, g.legal_actions(s)[0])
    auto(g)  # the tsumogiri policy never wins
    assert g.exhausted and not g.wins and g.result.next_dealer == 2


@pytest.mark.parametrize(
    ("rule", "multi_ron_dealer", "expected"),
    [("first_winner", "discarder", 0), ("first_winner", "first_in_order", 1), ("first_winner_ms", "discarder", 1),
     ("rotate", "discarder", 1)],
)  # fmt: skip
def test_next_dealer_after_a_multi_ron(rule, multi_ron_dealer, expected):
    cfg = load_variant("chengdu", dealer_rule=rule, multi_ron_dealer=multi_ron_dealer, continuation="single")
    g = c11_after_discard(cfg)
    g.step(1, HU)
    g.step(3, HU)
    assert g.is_over and g.result.next_dealer == expected
