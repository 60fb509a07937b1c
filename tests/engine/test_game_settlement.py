"""Scripted games for the settlement examples of RULES.md §7 (C9-C15, X1, X2, H5, R5, E1, E2, C2/C13).

Each test deals a fixed wall (tests/helpers/game.py: the hands after 换三张 plus the draw order), plays the scripted
decisions (every other decision by the tsumogiri / pass policy) and asserts the exact transfers.  Seats S0-S3; the
dealer is S0 unless stated.
"""

from __future__ import annotations

import pytest

from envs.core.actions import HU, PASS, PONG, discard, kong
from envs.core.melds import MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of
from envs.engine.view import Phase
from tests.helpers.game import auto, build_wall, pong, scripted_game, start, transfers, turn_of, window_for
from tests.helpers.scripted_deals import (
    C9_HANDS,
    R5_HANDS,
    R5_READY_HANDS,
    add_the_7p_kong,
    c9_kong_discard_win,
    c9_until_kong,
    c11_after_discard,
    pong_the_7p,
    r5_game,
)


def T(code: str) -> int:
    return kind_of(code)


KONG_AN, KONG_ZHI, KONG_BU = "kong_concealed", "kong_exposed", "kong_added"


# ---- C9: kong, 杠上炮 and 呼叫转移 -----------------------------------------------------------------------------------
def test_c9_kong_discard_win_with_full_call_transfer():
    g = c9_kong_discard_win(load_variant("chengdu"))
    assert transfers(g) == [
        (0, 1, 2, KONG_AN),
        (2, 1, 2, KONG_AN),
        (3, 1, 2, KONG_AN),
        (1, 2, 2, "dianpao"),
        (1, 2, 6, "hujiao_zhuanyi"),
    ]
    assert g.scores == [-2, -2, 6, -2]
    win = g.wins[0]
    assert (win.seat, win.from_seat, win.how, win.doublings, win.payment) == (2, 1, "dianpao", 1, 2)
    # the next draw belongs to the first active seat after the winner
    assert g.phase == Phase.SELF and g.current == 3
    # the transferred kong income is never refunded
    assert all(r.transferred for r in g.kong_payments)


def test_c9_without_call_transfer():
    g = c9_kong_discard_win(load_variant("chengdu", hujiao_zhuanyi="none"))
    assert transfers(g)[3:] == [(1, 2, 2, "dianpao")]
    assert not any(r.transferred for r in g.kong_payments)


@pytest.mark.parametrize(("mode", "each"), [("full_each", 6), ("split", 3), ("none", 0)])
def test_call_transfer_with_two_winners(mode, each):
    cfg = load_variant("chengdu", hujiao_zhuanyi=mode)
    hands = C9_HANDS | {3: "234p 567p 789p 34s 11p"}  # S3 also waits on 5s
    g = c9_until_kong(cfg, hands)
    g.step(1, kong(T("9m")))
    g.step(1, discard(T("5s")))
    assert g.pending == (2, 3)
    g.step(3, HU)
    g.step(2, HU)
    moved = [(1, 2, each, "hujiao_zhuanyi"), (1, 3, each, "hujiao_zhuanyi")] if each else []
    assert transfers(g)[3:] == [(1, 2, 2, "dianpao"), (1, 3, 2, "dianpao"), *moved]
    assert all(r.transferred for r in g.kong_payments) == (mode != "none")


# ---- C10: robbing an added kong ----------------------------------------------------------------------------------
C10_HANDS = {
    0: "123m 456m 345p 68p 11m 7p",
    1: "1379m 258m 1379s 25s",
    2: "24689m 2468s 135s 7s",
    3: "77p 129p 1234568s 9s",
}


def _c10(cfg):
    g = scripted_game(cfg, C10_HANDS, "9m 4m 5m 7p", offset=2, voids="sppm")
    pong_the_7p(g, 3)
    before = len(g.transfers)
    add_the_7p_kong(g, 3)
    assert g.phase == Phase.ROB and g.pending == (0,) and g.claim_tile == T("7p")
    return g, before


def test_c10_robbing_the_kong():
    g, before = _c10(load_variant("chengdu"))
    g.step(0, HU)
    g.validate()
    assert transfers(g, before) == [(3, 0, 2, "qianggang")]
    assert g.wins[-1].how == "qianggang" and g.wins[-1].doublings == 1
    assert [m.kind for m in g.melds[3]] == [MeldKind.PONG]  # the kong is void: the meld stays a pong
    assert g.hands[3][T("7p")] == 0 and T("7p") in g.set_aside
    assert g.current == 1 and g.phase == Phase.SELF  # first active seat after the robber


ROB_HANDS = {  # C10 with the kong player moved to S2, so that the two next-drawer rules differ
    0: "123m 456m 345p 68p 11m 7p",
    1: "1379m 258m 1379s 25s",
    2: "77p 129p 1234568s 9s",
    3: "24689m 2468s 135s 7s",
}


@pytest.mark.parametrize(("rule", "next_seat"), [("after_last_winner", 1), ("after_robbed", 3)])
def test_next_drawer_after_a_rob(rule, next_seat):
    cfg = load_variant("chengdu", after_rob_next=rule)
    g = scripted_game(cfg, ROB_HANDS, "5m 9m 4m 7p", offset=2, voids="spmp")
    pong_the_7p(g, 2)
    add_the_7p_kong(g, 2)
    assert g.phase == Phase.ROB and g.pending == (0,)
    g.step(0, HU)
    assert transfers(g) == [(2, 0, 2, "qianggang")]
    assert g.phase == Phase.SELF and g.current == next_seat


def test_c10_passing_the_rob_completes_the_kong_with_payment():
    g, before = _c10(load_variant("chengdu"))
    g.step(0, PASS)
    assert [m.kind for m in g.melds[3]] == [MeldKind.BUKONG]
    assert transfers(g, before) == [(0, 3, 1, KONG_BU), (1, 3, 1, KONG_BU), (2, 3, 1, KONG_BU)]
    assert g.phase == Phase.SELF and g.current == 3  # replacement draw
    assert g.view(0).pass_hu_locked == (T("7p"),)  # passing a rob locks like passing a discard


@pytest.mark.parametrize(("requires_immediate", "each"), [(True, 0), (False, 1)])
def test_added_kong_from_the_hand_pays_only_without_the_immediacy_rule(requires_immediate, each):
    cfg = load_variant("chengdu", bugang_pay_requires_immediate=requires_immediate)
    g = scripted_game(cfg, C10_HANDS, "9m 4m 5m 7p", offset=2, voids="sppm")
    pong_the_7p(g, 3)
    auto(g, until=turn_of(3))
    g.step(3, discard(T("1s")))  # keeps the fourth 7p for a later turn
    auto(g, until=turn_of(3))
    assert g.drawn_tile != T("7p") and kong(T("7p")) in g.legal_actions(3)
    before = len(g.transfers)
    g.step(3, kong(T("7p")))
    for seat in g.pending:  # S0 may rob again (its lock was cleared by its draw); it passes
        g.step(seat, PASS)
    assert [m.kind for m in g.melds[3]] == [MeldKind.BUKONG]
    assert transfers(g, before) == ([(q, 3, 1, KONG_BU) for q in (0, 1, 2)] if each else [])


# ---- C11: one discard, two winners -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "next_dealer"), [("chengdu", 0), ("chiyu", 1)]
)  # discarder (S2 rule) / first winner in turn order after the discarder (Mahjong Soul)
def test_c11_multi_ron_next_drawer_and_dealer(variant, next_dealer):
    cfg = load_variant(variant)
    g = c11_after_discard(cfg)
    assert set(g.pending) == {1, 3}
    g.step(3, HU)
    g.step(1, HU)
    g.validate()
    unit = cfg.base_unit
    if variant == "chengdu":
        assert transfers(g) == [(0, 1, 1, "dianpao"), (0, 3, 4, "dianpao")]
    else:  # 赤羽: 平胡 1 han = 1000, 清一色 3 han = 4000
        assert transfers(g) == [(0, 1, 1 * unit, "dianpao"), (0, 3, 4 * unit, "dianpao")]
    assert g.current == 0 and g.phase == Phase.SELF  # winners S1, S3 scanned from S0: next active after S3 is S0
    auto(g)
    assert g.result is not None and g.result.next_dealer == next_dealer


def test_single_ron_takes_the_first_claimant_after_the_discarder():
    cfg = load_variant("chengdu", multi_ron=False)
    g = c11_after_discard(cfg)
    g.step(3, HU)
    g.step(1, HU)
    assert transfers(g) == [(0, 1, 1, "dianpao")]
    assert not g.won[3] and g.view(3).pass_hu_locked == ()  # declaring HU is not passing
    assert g.current == 2


# ---- C12: exhaustion with a pig, a not-ready player and a refund --------------------------------------------------
def _exhaustion_wall(cfg, hands, fixed, pig_seat, pig_suit, rotation, offset):
    """Fixed draws first, then ``rotation`` seats draw in turn: the pig only tiles of its void suit."""
    probe = build_wall(cfg, hands, fixed, offset=offset)
    used = len(probe.wall) - (cfg.num_tiles - cfg.num_players * cfg.hand_size - 1 - len(fixed.split()))
    rest = probe.wall[used:]
    suit = [k for k in rest if k // 9 == pig_suit and k < 27]
    other = [k for k in rest if not (k // 9 == pig_suit and k < 27)]
    order = []
    i = 0
    while suit or other:
        seat = rotation[i % len(rotation)]
        pool = suit if (seat == pig_seat and suit) or not other else other
        order.append(pool.pop(0))
        i += 1
    return build_wall(cfg, hands, fixed, offset=offset, tail=order)


C12_HANDS = {
    0: "123m 456m 789m 12p 99p 7s",
    1: "234s 567s 888s 11s 99s",
    2: "555p 11p 44p 77p 88p 2s 6s",
    3: "1122m 3344m 556m 29s",
}


def test_c12_exhaustion_pig_not_ready_and_refund():
    cfg = load_variant("chengdu")
    s = _exhaustion_wall(cfg, C12_HANDS, "1m 5p 2m 3s 3p", pig_seat=3, pig_suit=2, rotation=(1, 2, 3), offset=2)
    g = s.game()
    start(g, s, "spms")
    g.step(0, discard(T("7s")))  # void tile first
    auto(g, until=turn_of(2))
    g.step(2, kong(T("5p")))
    assert transfers(g) == [(0, 2, 2, KONG_AN), (1, 2, 2, KONG_AN), (3, 2, 2, KONG_AN)]
    auto(g, until=turn_of(0))
    assert g.drawn_tile == T("3p")
    g.step(0, HU)
    assert transfers(g)[3:] == [(1, 0, 2, "zimo"), (2, 0, 2, "zimo"), (3, 0, 2, "zimo")]
    n_before = len(g.transfers)
    auto(g)
    assert g.is_over and g.exhausted and g.wall_remaining == 0
    assert g.hands[3][T("2s")] == 1 and g.hands[3][T("9s")] == 1  # the pig kept its two 条
    assert transfers(g, n_before) == [
        (3, 1, 16, "huazhu"),
        (3, 2, 16, "huazhu"),
        (2, 1, 4, "chadajiao"),
        (2, 0, 2, "tuishui"),
        (2, 1, 2, "tuishui"),
        (2, 3, 2, "tuishui"),
    ]
    end = [0] * 4
    for p, r, a, _ in transfers(g, n_before):
        end[p] -= a
        end[r] += a
    assert end == [2, 22, 6, -30]  # RULES.md C12 net of the end-of-hand settlement
    assert sum(g.scores) == 0
    assert g.result.next_dealer == 0


# ---- C2 / C13: root from a pong plus the fourth tile, self-draw (加底 / 加番) ---------------------------------------
C2_HANDS = {
    0: "5m 1479p 258p 1479s 25s",
    1: "1368p 1368s 2468s 9s",
    2: "55m 345m 678s 789s 2s 9m",
    3: "2469m 2469p 135p 78m",
}


@pytest.mark.parametrize(("bonus", "each"), [("jiadi", 3), ("jiafan", 4)])
def test_c2_c13_self_draw_bonus(bonus, each):
    cfg = load_variant("chengdu", zimo_bonus=bonus)
    g = scripted_game(cfg, C2_HANDS, "1p 1s 3s 2s", offset=2, voids="mmps")
    g.step(0, discard(T("5m")))
    pong(g, 2)
    g.step(2, discard(T("9m")))
    auto(g, until=turn_of(2))
    assert g.drawn_tile == T("2s") and HU in g.legal_actions(2)
    g.step(2, HU)
    assert transfers(g) == [(0, 2, each, "zimo"), (1, 2, each, "zimo"), (3, 2, each, "zimo")]


# ---- C14: kong bloom after an exposed kong (点杠花) ----------------------------------------------------------
C14_HANDS = {
    0: "4s 1368m 1368p 2468p 5m",
    1: "1479p 2358p 1379s 5s",
    2: "999m 44s 123m 567m 2s 8m",
    3: "5p 69p 7p 5599s 6s 1478s",
}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("zimo", [(0, 2, 5, "zimo"), (1, 2, 5, "zimo"), (3, 2, 5, "zimo")]),
        ("dianpao", [(0, 2, 4, "dianpao")]),
    ],
)
def test_c14_dianganghua(mode, expected):
    cfg = load_variant("chengdu", dianganghua=mode)
    g = scripted_game(cfg, C14_HANDS, "1s 9m 2s", offset=2, voids="smpm")
    g.step(0, discard(T("4s")))
    pong(g, 2)
    g.step(2, discard(T("8m")))
    auto(g, until=window_for(2))
    assert g.claim_tile == T("9m") and g.claim_from == 0
    assert kong(T("9m")) in g.legal_actions(2)
    g.step(2, kong(T("9m")))
    assert transfers(g) == [(0, 2, 2, KONG_ZHI)]
    assert g.drawn_tile == T("2s") and HU in g.legal_actions(2)
    g.step(2, HU)
    assert transfers(g)[1:] == expected
    assert g.wins[0].doublings == 2


# ---- C15: 海底捞月 and the last discard --------------------------------------------------------------------------
C15_HANDS = {  # dealer S2: the 55th play draw goes to S1
    0: "22m 1357m 1469p 258p",
    1: "111m 234m 567s 789s 6s",
    2: "2468m 12578p 34679p",
    3: "1368p 2479p 1258s 4s",
}


def _c15_last_draw(cfg, hands=C15_HANDS, voids="spsm"):
    """C15 played until the last tile of the wall is drawn (by S1)."""
    g = scripted_game(cfg, hands, offset=2, last="6s", dealer=2, voids=voids)
    auto(g, until=lambda g: g.wall_remaining == 0 and g.phase == Phase.SELF)
    return g


def test_c15_last_tile_self_draw():
    cfg = load_variant("chengdu")
    g = _c15_last_draw(cfg)
    assert g.current == 1 and g.drawn_tile == T("6s")
    assert not any(a.type.name == "KONG" for a in g.legal_actions(1))  # no kong on the last tile
    before = len(g.transfers)
    g.step(1, HU)
    win = g.wins[-1]
    assert win.how == "zimo" and win.doublings == 1
    active = [q for q in range(4) if q != 1 and not g.won[q]]
    assert transfers(g, before) == [(q, 1, 3, "zimo") for q in active]


HAIDI_PAO_HANDS = dict(C15_HANDS) | {0: "22s 123m 456m 789m 78s"}  # S0 waits on 6s/9s


def test_last_discard_win_is_haidi_pao():
    cfg = load_variant("chengdu")
    g = _c15_last_draw(cfg, HAIDI_PAO_HANDS, voids="ppsm")
    assert g.current == 1
    g.step(1, discard(T("6s")))
    assert g.legal_actions(0) == [HU, PASS]  # HU only: no pong/kong on the last discard
    g.step(0, HU)
    events = [ev for ev in g.events if ev["type"] == "win"]
    assert events[-1]["breakdown"] == {"ping_hu": 0, "hai_di_pao": 1}
    assert (1, 0, 2, "dianpao") in transfers(g)
    assert g.exhausted  # the wall is empty: the hand ends with the end-of-hand checks among S1, S2, S3


@pytest.mark.parametrize("claims", ["hu_only", "all"])
def test_the_last_discard_can_only_be_won(claims):
    cfg = load_variant("chengdu", claims_on_last_discard=claims)
    g = _c15_last_draw(cfg)
    g.step(1, discard(T("2m")))  # S0 holds 22m
    if claims == "hu_only":
        assert g.is_over and g.exhausted
    else:
        assert g.phase == Phase.CLAIM and g.legal_actions(0) == [PONG, PASS]


# ---- X1 / X2: 血流 ---------------------------------------------------------------------------------------------
X1_HANDS = {
    0: "1469m 1479p 258p 17s 3p",
    1: "123s 456s 789s 22m 45m",
    2: "13578m 1258p 3469p",
    3: "1278m 9m 2468p 3579p",
}


def _xueliu_first_win(hands, draws, voids, tile):
    """血流: S2 discards ``tile`` on its first turn and S1 (the only claimant) wins on it."""
    g = scripted_game(load_variant("xueliu"), hands, draws, offset=2, voids=voids)
    auto(g, until=turn_of(2))
    g.step(2, discard(T(tile)))
    assert g.pending == (1,)
    g.step(1, HU)
    return g


def test_x1_repeated_wins_in_blood_flow():
    g = _xueliu_first_win(X1_HANDS, "1p 7m 8m 9p 2p 6m 8p 3m", "spsm", "3m")
    assert transfers(g) == [(2, 1, 1, "dianpao")]
    assert g.frozen[1] and g.active[1] and g.view(0).revealed_hands[1] == tuple(g.hands[1])
    assert T("3m") in g.set_aside and sum(g.hands[1]) == 13
    assert g.current == 2  # next active seat after the winner
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("6m") and g.legal_actions(1)[0] == HU
    own = g.view(1).revealed_hands[1]
    assert g.view(0).revealed_hands[1] == (*own[:5], 0, *own[6:])
    assert sum(g.view(0).revealed_hands[1]) == 13  # the drawn tile stays private until it is played
    g.step(1, HU)
    assert transfers(g)[1:] == [(0, 1, 2, "zimo"), (2, 1, 2, "zimo"), (3, 1, 2, "zimo")]
    auto(g, until=turn_of(3))
    assert g.drawn_tile == T("3m")
    g.step(3, discard(T("3m")))
    assert g.pending == (1,) and g.legal_actions(1) == [HU, PASS]  # a frozen hand never pongs
    g.step(1, HU)
    assert transfers(g)[4:] == [(3, 1, 1, "dianpao")]
    assert [w.seat for w in g.wins] == [1, 1, 1]
    g.validate()


def test_x1_frozen_seat_only_discards_its_draw():
    g = _xueliu_first_win(X1_HANDS, "1p 7m 8m 9p 2p 6m 8p 3m", "spsm", "3m")
    frozen = list(g.hands[1])
    auto(g, until=turn_of(1))
    g.step(1, discard(T("6m")))  # declining a self-draw is allowed and locks nothing
    assert g.hands[1] == frozen
    assert g.view(1).pass_hu_locked == ()


X2_HANDS_OK = {
    0: "1469m 1479p 258p 78s 3p",
    1: "111s 456s 789s 22m 45m",
    2: "23578m 1258p 3469p",
    3: "1278m 9m 2468p 3579p",
}


def test_x2_kong_after_winning_keeps_the_waits():
    g = _xueliu_first_win(X2_HANDS_OK, "2p 7m 8m 9p 4p 1s 6p", "spss", "3m")
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("1s")
    assert g.legal_actions(1) == [kong(T("1s")), discard(T("1s"))]
    before = len(g.transfers)
    g.step(1, kong(T("1s")))
    assert transfers(g, before) == [(0, 1, 2, KONG_AN), (2, 1, 2, KONG_AN), (3, 1, 2, KONG_AN)]
    assert g.current == 1 and g.drawn_tile == T("6p")
    assert g.legal_actions(1) == [discard(T("6p"))]


X2_HANDS_NO = {
    0: "1469m 1479p 258p 78s 3p",
    1: "1113s 456s 789m 234m",
    2: "2s 1258p 3469p 89s 7s 5s",
    3: "13578m 2468p 3579p",
}


def test_x2_kong_that_changes_the_waits_is_refused():
    g = _xueliu_first_win(X2_HANDS_NO, "2p 6s 6m 9p 4p 1s", "spms", "2s")
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("1s")
    assert g.legal_actions(1) == [discard(T("1s"))]


# ---- H5: four 红中 ------------------------------------------------------------------------------------------------
H5_HANDS = {
    0: "1469m 1479p 258p 17s 3p",
    1: "1368m 1368p 2468s 9s",
    2: "555z 123m 456m 78s 99s",
    3: "2479m 12357p 2679p",
}


@pytest.mark.parametrize("ends", [False, True])
def test_h5_four_red_dragons_instant_win(ends):
    cfg = load_variant("hongzhong", hz_four_red_ends_hand=ends)
    g = scripted_game(cfg, H5_HANDS, "1m 5z", offset=1, voids="spps")
    auto(g, until=lambda g: g.wins or g.is_over)
    assert transfers(g) == [(0, 2, 256, "instant"), (1, 2, 256, "instant"), (3, 2, 256, "instant")]
    w = g.wins[0]
    assert (w.seat, w.how, w.from_seat, w.doublings, w.tile) == (2, "instant", None, 8, 31)
    assert g.is_over == ends
    if not ends:
        assert g.current == 3 and not g.active[2]


def test_h5_dealer_dealt_four_red_wins_at_the_start():
    cfg = load_variant("hongzhong")
    hands = {0: "5555z 1469m 147p 25s 8s", 1: H5_HANDS[1], 2: "123m 456m 78s 99s 3p 6p 9p", 3: H5_HANDS[3]}
    g = scripted_game(cfg, hands, offset=1, voids="spps")
    assert g.wins and g.wins[0].seat == 0 and g.wins[0].how == "instant"
    assert g.current == 1 and g.phase == Phase.SELF


def test_h5_non_dealer_dealt_four_red_wins_at_its_first_draw():
    cfg = load_variant("hongzhong")
    hands = {0: H5_HANDS[0], 1: "5555z 1368m 147p 25s", 2: "123m 456m 78s 99s 3p 6p 9p", 3: H5_HANDS[3]}
    g = scripted_game(cfg, hands, "1m", offset=1, voids="spps")
    assert not g.wins
    auto(g, until=lambda g: g.wins or g.is_over)
    assert g.wins[0].seat == 1 and g.wins[0].tile == T("1m") and g.wins[0].payment == 256


# ---- R5: 赤羽 exhaustion -------------------------------------------------------------------------------------------
def test_r5_mahjong_soul_exhaustion():
    cfg = load_variant("chiyu")
    g = scripted_game(cfg, R5_HANDS, "1m 3m 5p 7p 8s 3p", offset=2, voids="spss")
    g.step(0, discard(T("7s")))
    auto(g, until=turn_of(3))
    assert g.drawn_tile == T("5p")
    g.step(3, discard(T("5p")))
    assert kong(T("5p")) in g.legal_actions(2)
    g.step(2, kong(T("5p")))
    assert transfers(g) == [(3, 2, 2000, KONG_ZHI)]
    auto(g, until=turn_of(0))
    g.step(0, HU)
    n_before = len(g.transfers)
    auto(g)
    assert g.exhausted and g.hands[3][T("2s")] == 1
    assert transfers(g, n_before) == [
        (3, 1, 8000, "huazhu"),
        (3, 2, 8000, "huazhu"),
        (2, 1, 4000, "chadajiao"),
        (2, 3, 2000, "tuishui"),
    ]


# ---- bankruptcy (赤羽, RULES §2.11.4): every settlement step can leave a seat below zero and end the match -----------
# (id, hands, start_points, the hand ran to the draw, bankrupt, reason of the transfer after which a seat first stood
# below zero); R5: kong 3->2 2000, self-draw 2000 from each, 查花猪 3->1 / 3->2 8000, 查大叫 2->1 4000, 退税 2->3 2000;
# R5_READY_HANDS: the same play, then 查大叫 2->1 4000 and 2->3 16000, 退税 2->3 2000.
BANKRUPTCY_CASES = [
    ("kong", R5_HANDS, 1000, False, True, KONG_ZHI),  # S3: 1000 - 2000, the hand ends at once
    ("win", R5_HANDS, 3000, False, True, "zimo"),  # S3: 3000 - 2000 - 2000 at the self-draw, ends at once
    ("huazhu", R5_HANDS, 10000, True, True, "huazhu"),  # S3: 10000 - 4000 - 16000 + 2000 = -8000
    ("chadajiao", R5_READY_HANDS, 10000, True, True, "chadajiao"),  # S2: 10000 - 20000 - 2000 = -12000
    ("tuishui", R5_READY_HANDS, 21000, True, True, "tuishui"),  # S2: 21000 - 20000 = 1000, then - 2000 = -1000
    # the draw's transfers settle together: S3 dips to -2000 after 查花猪, its 退税 brings it back to 0
    ("pig-back-to-zero", R5_HANDS, 18000, True, False, "huazhu"),
    ("refund-to-zero", R5_READY_HANDS, 22000, True, False, None),  # S2 ends at exactly 0: not below zero
]


def _first_below_zero(start: int, transfers) -> str | None:
    totals = [start] * 4
    for t in transfers:
        totals[t.payer] -= t.amount
        totals[t.receiver] += t.amount
        if min(totals) < 0:
            return t.reason
    return None


@pytest.mark.parametrize(
    ("hands", "start", "exhausted", "bankrupt", "broke_at"),
    [c[1:] for c in BANKRUPTCY_CASES],
    ids=[c[0] for c in BANKRUPTCY_CASES],
)
def test_every_settlement_step_can_end_a_points_match(hands, start, exhausted, bankrupt, broke_at):
    g = r5_game(load_variant("chiyu", start_points=start), hands)
    assert (g.is_over, g.exhausted, g.bankrupt, g.result.bankrupt) == (True, exhausted, bankrupt, bankrupt)
    assert _first_below_zero(start, g.transfers) == broke_at
    assert (min(start + s for s in g.scores) < 0) == bankrupt and sum(g.scores) == 0
    if not exhausted:  # in play the hand stops at the payment that broke the seat
        assert g.transfers[-1].reason == broke_at
    end = [e for e in g.events if e["type"] == "hand_end"]
    assert len(end) == 1 and end[0]["bankrupt"] == bankrupt


def test_bankruptcy_at_the_draw_reads_the_match_totals():
    """``match_points`` (the totals before this hand) decide, not ``start_points``: S2 holding 21 000 going into R5's
    ready variant ends at -1 000 after its 退税, the others hold plenty."""
    cfg = load_variant("chiyu")
    g = r5_game(cfg, R5_READY_HANDS, match_points=[50000, 50000, 21000, 50000])
    assert g.exhausted and g.bankrupt
    assert r5_game(cfg, R5_READY_HANDS, match_points=[50000, 50000, 22000, 50000]).bankrupt is False


# ---- E1 / E2: two players ----------------------------------------------------------------------------------------
E_HANDS = {0: "2s 1469m 1479p 258p 3p 7s", 1: "123m 456m 789m 34s 55s"}


def test_e1_no_basic_win_on_a_discard_and_no_lock():
    cfg = load_variant("two_player")
    g = scripted_game(cfg, E_HANDS, "2p 6p 5s", voids="sp")
    g.step(0, discard(T("2s")))
    assert g.phase == Phase.SELF and g.current == 1  # S1 was not offered the 0-doubling win
    assert g.view(1).pass_hu_locked == ()
    g.step(1, discard(g.drawn_tile))
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("5s")
    g.step(1, HU)
    assert transfers(g) == [(0, 1, 2, "zimo")]
    assert g.is_over and not g.exhausted and g.result.next_dealer == 1


def test_e2_flush_on_a_discard():
    cfg = load_variant("two_player")
    hands = {0: "1s 1469m 1479p 258p 3p 7s", 1: "123s 345s 666s 789s 1m"}
    hands[1] = "123s 345s 666s 789s 1s"
    hands[0] = "1s 1469m 1479p 258p 3p 7p"
    g = scripted_game(cfg, hands, voids="sm")
    g.step(0, discard(T("1s")))
    assert g.legal_actions(1) == [HU, PONG, PASS]
    g.step(1, HU)
    assert transfers(g) == [(0, 1, 4, "dianpao")]
    assert g.is_over
