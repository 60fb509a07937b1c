"""Tests of envs/scoring/settlement.py: transfers for wins, kongs, call transfer and the end-of-hand checks (RULES.md
§2.11)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core.melds import parse_meld, parse_melds
from envs.core.rule_config import load_variant
from envs.core.tiles import parse_counts
from envs.core.wall import shuffled_wall
from envs.scoring.scorer import score_hand
from envs.scoring.settlement import (
    KongPayment,
    PlayerEnd,
    Transfer,
    call_transfer,
    end_of_hand_transfers,
    is_pig,
    kong_records,
    kong_transfers,
    mark_transferred,
    net_scores,
    paid_as_discard,
    ready_value,
    ready_waits,
    win_transfers,
)

CHENGDU = load_variant("chengdu")
CHIYU = load_variant("chiyu")
EMPTY = (0,) * 34


def player(seat, concealed="", melds=(), void=None, won=False, indicator=None):
    return PlayerEnd(
        seat=seat,
        won_ever=won,
        concealed=tuple(parse_counts(concealed)) if concealed else EMPTY,
        melds=parse_melds(list(melds)),
        void_suit=void,
        indicator=indicator,
    )


def as_tuples(transfers):
    return [(t.payer, t.receiver, t.amount, t.reason) for t in transfers]


# ---- Transfer ---------------------------------------------------------------------------------------------------


def test_transfer_json_round_trip():
    t = Transfer(2, 0, 16, "huazhu")
    d = t.to_dict()
    assert d == {"payer": 2, "receiver": 0, "amount": 16, "reason": "huazhu"}
    assert Transfer.from_dict(json.loads(json.dumps(d))) == t


@pytest.mark.parametrize(
    ("args", "match"),
    [((1, 1, 2, "hu"), "different"), ((0, 1, 0, "hu"), "positive"), ((0, 1, -3, "hu"), "positive"),
     ((0, 1, 2.0, "hu"), "positive"), ((-1, 1, 2, "hu"), "payer"), ((0, True, 2, "hu"), "receiver"),
     ((0, 1, 2, ""), "reason")],
)  # fmt: skip
def test_transfer_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        Transfer(*args)


def test_transfer_from_dict_rejects_missing_keys():
    with pytest.raises(ValueError, match="payer, receiver"):
        Transfer.from_dict({"payer": 0, "receiver": 1})


# ---- kong payments ----------------------------------------------------------------------------------------------


def test_standard_kong_payments():
    assert as_tuples(kong_transfers(CHENGDU, 2, "zhigang", active=[0, 1, 2, 3], discarder=0)) == [
        (0, 2, 2, "kong_exposed")
    ]
    assert as_tuples(kong_transfers(CHENGDU, 1, "angang", active=[0, 1, 2, 3])) == [
        (0, 1, 2, "kong_concealed"), (2, 1, 2, "kong_concealed"), (3, 1, 2, "kong_concealed")]  # fmt: skip
    # only active players pay (a 血战 winner has left, AMB-70)
    assert as_tuples(kong_transfers(CHENGDU, 1, "angang", active=[1, 3])) == [(3, 1, 2, "kong_concealed")]
    assert as_tuples(kong_transfers(CHENGDU, 3, "bugang", active=[0, 1, 2, 3])) == [
        (0, 3, 1, "kong_added"), (1, 3, 1, "kong_added"), (2, 3, 1, "kong_added")]  # fmt: skip
    assert kong_transfers(CHENGDU, 3, "bugang", active=[0, 1, 2, 3], immediate=False) == []
    lax = CHENGDU.replace(bugang_pay_requires_immediate=False)
    assert len(kong_transfers(lax, 3, "bugang", active=[0, 1, 2, 3], immediate=False)) == 3


def test_mahjongsoul_kong_payments_in_points():
    assert as_tuples(kong_transfers(CHIYU, 2, "zhigang", active=[0, 1, 2, 3], discarder=3)) == [
        (3, 2, 2000, "kong_exposed")
    ]
    assert {t.amount for t in kong_transfers(CHIYU, 0, "angang", active=[0, 1, 2, 3])} == {2000}
    assert {t.amount for t in kong_transfers(CHIYU, 0, "bugang", active=[0, 1, 2, 3])} == {1000}
    # from hand: 0 even if the flag is relaxed (E2: only the immediate 补杠 pays)
    relaxed = CHIYU.replace(bugang_pay_requires_immediate=False)
    assert kong_transfers(relaxed, 0, "bugang", active=[0, 1, 2, 3], immediate=False) == []


def test_no_kong_payments_and_xi():
    none = CHENGDU.replace(kong_payment="none")
    assert kong_transfers(none, 0, "angang", active=[0, 1, 2, 3]) == []
    factor = CHENGDU.replace(kong_payment="factor")
    assert kong_transfers(factor, 0, "zhigang", active=[0, 1, 2, 3], discarder=1) == []
    xi = CHENGDU.replace(kong_payment="xi_each_1")
    # 赔喜: every kind of kong, 1 base from every other player still in the hand, and it is never refundable
    got = kong_transfers(xi, 0, "zhigang", active=[0, 2, 3], discarder=2)
    assert as_tuples(got) == [(2, 0, 1, "xi"), (3, 0, 1, "xi")]
    assert kong_records(got) == []


def test_kong_income_records():
    got = kong_transfers(CHENGDU, 1, "angang", active=[0, 1, 2, 3])
    assert kong_records(got) == [KongPayment(1, 0, 2), KongPayment(1, 2, 2), KongPayment(1, 3, 2)]


def test_kong_bad_input():
    with pytest.raises(ValueError, match="discarder"):
        kong_transfers(CHENGDU, 1, "zhigang", active=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="kong_type"):
        kong_transfers(CHENGDU, 1, "mingang", active=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="owner"):
        kong_transfers(CHENGDU, 4, "angang", active=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="active seat"):
        kong_transfers(CHENGDU, 1, "angang", active=[0, 1, 7])
    with pytest.raises(ValueError, match="cannot be its owner"):
        kong_transfers(CHENGDU, 1, "zhigang", active=[0, 1], discarder=1)


# ---- win payments and 呼叫转移 -------------------------------------------------------------------------------------


def test_discard_and_self_draw_wins():
    assert as_tuples(win_transfers(CHENGDU, 1, "dianpao", 4, discarder=3)) == [(3, 1, 4, "dianpao")]
    assert as_tuples(win_transfers(CHENGDU, 0, "qianggang", 2, discarder=3)) == [(3, 0, 2, "qianggang")]
    # C2: self-draw worth 3 (2 + 加底) from every other active player
    assert as_tuples(win_transfers(CHENGDU, 2, "zimo", 3, active=[0, 1, 2, 3])) == [
        (0, 2, 3, "zimo"), (1, 2, 3, "zimo"), (3, 2, 3, "zimo")]  # fmt: skip
    assert len(win_transfers(CHENGDU, 2, "instant", 256, active=[1, 2])) == 1


def test_dianganghua_modes_c14():
    """C14: kong bloom after S2's exposed kong on S0's discard; 根 1 + 杠上开花 1 -> d = 2."""
    zimo = score_hand("chengdu", "123m 567m 2s", ["kong 9m", "pong 4s"], "2s", self_drawn=True, after_kong=True,
                      void_suit="p")  # fmt: skip
    assert not paid_as_discard(CHENGDU, "zimo", 0)
    assert as_tuples(win_transfers(CHENGDU, 2, "zimo", zimo.payment, active=[0, 1, 2, 3], kong_discarder=0)) == [
        (0, 2, 5, "zimo"), (1, 2, 5, "zimo"), (3, 2, 5, "zimo")]  # fmt: skip
    cfg = CHENGDU.replace(dianganghua="dianpao")
    assert paid_as_discard(cfg, "zimo", 0) and not paid_as_discard(cfg, "zimo", None)
    assert as_tuples(win_transfers(cfg, 2, "zimo", 4, active=[0, 1, 2, 3], kong_discarder=0)) == [(0, 2, 4, "dianpao")]


def test_win_bad_input():
    with pytest.raises(ValueError, match="discarder"):
        win_transfers(CHENGDU, 1, "dianpao", 4)
    with pytest.raises(ValueError, match="discarder cannot be the winner"):
        win_transfers(CHENGDU, 1, "dianpao", 4, discarder=1)
    with pytest.raises(ValueError, match="how must be"):
        win_transfers(CHENGDU, 1, "ron", 4, discarder=0)
    with pytest.raises(ValueError, match="payment"):
        win_transfers(CHENGDU, 1, "zimo", -1, active=[0, 1])
    with pytest.raises(ValueError, match="kong discarder"):
        win_transfers(CHENGDU, 1, "zimo", 4, active=[0, 1], kong_discarder=1)


def test_c9_kong_discard_win_with_call_transfer():
    """C9: S1 暗杠 9m (2 each), discards 5s, S2 wins 杠上炮 (payment 2) and receives the 6 kong points."""
    kong = kong_transfers(CHENGDU, 1, "angang", active=[0, 1, 2, 3])
    income = kong_records(kong)
    win = score_hand("chengdu", "234m 567m 234s 67s 99s", [], "5s", after_kong=True, void_suit="p")
    assert win.payment == 2
    hu = win_transfers(CHENGDU, 2, "dianpao", win.payment, discarder=1)
    zz = call_transfer(CHENGDU, 1, [2], income)
    assert as_tuples(hu + zz) == [(1, 2, 2, "dianpao"), (1, 2, 6, "hujiao_zhuanyi")]
    assert net_scores(kong + hu + zz, 4) == [-2, -2, 6, -2]
    # 赤羽 has no call transfer: only the win is paid
    assert call_transfer(CHENGDU.replace(hujiao_zhuanyi="none"), 1, [2], income) == []


def test_call_transfer_full_each_and_split():
    income = [KongPayment(1, 0, 1), KongPayment(1, 2, 1), KongPayment(1, 3, 1)]  # an immediate 补杠: 3 in all
    full = call_transfer(CHENGDU, 1, [2, 3], income)
    assert as_tuples(full) == [(1, 2, 3, "hujiao_zhuanyi"), (1, 3, 3, "hujiao_zhuanyi")]
    split = call_transfer(CHENGDU.replace(hujiao_zhuanyi="split"), 1, [2, 3], income)
    assert as_tuples(split) == [(1, 2, 1, "hujiao_zhuanyi"), (1, 3, 1, "hujiao_zhuanyi")]  # remainder 1 stays
    one = call_transfer(CHENGDU.replace(hujiao_zhuanyi="split"), 1, [0, 2], [KongPayment(1, 3, 2)])
    assert [t.amount for t in one] == [1, 1]
    tiny = call_transfer(CHENGDU.replace(hujiao_zhuanyi="split"), 1, [0, 2, 3], [KongPayment(1, 3, 2)])
    assert tiny == []  # 2 // 3 = 0: nothing moves
    # already transferred income is not passed on twice
    assert call_transfer(CHENGDU, 1, [2], mark_transferred(income)) == []
    assert all(r.transferred for r in mark_transferred(income))


def test_call_transfer_bad_input():
    income = [KongPayment(1, 0, 2)]
    with pytest.raises(ValueError, match="at least one winner"):
        call_transfer(CHENGDU, 1, [], income)
    with pytest.raises(ValueError, match="distinct"):
        call_transfer(CHENGDU, 1, [1], income)
    with pytest.raises(ValueError, match="distinct"):
        call_transfer(CHENGDU, 1, [2, 2], income)
    with pytest.raises(ValueError, match="does not belong"):
        call_transfer(CHENGDU, 2, [3], income)


# ---- end of hand ------------------------------------------------------------------------------------------------


C12_KONGS = [KongPayment(2, 0, 2), KongPayment(2, 1, 2), KongPayment(2, 3, 2)]  # S2's 暗杠, before S0's win


def c12_players():
    return [
        player(0, won=True),
        player(1, "234s 567s 888s 11s 99s", void=1),
        player(2, "1p 3p 7p 9p 2s 4s 6s 8s 1s 9s", ["ankong 5p"], void=0),
        player(3, "123m 456m 789m 55p 23s", void=2),
    ]


def test_c12_exhaustive_draw_chengdu():
    players = c12_players()
    assert [is_pig(CHENGDU, p) for p in players] == [False, False, False, True]
    assert ready_waits(CHENGDU, players[1]) == {18: 4, 26: 4}
    assert ready_value(CHENGDU, players[2]) is None
    got = end_of_hand_transfers(CHENGDU, players, C12_KONGS)
    assert as_tuples(got) == [
        (3, 1, 16, "huazhu"), (3, 2, 16, "huazhu"), (2, 1, 4, "chadajiao"),
        (2, 0, 2, "tuishui"), (2, 1, 2, "tuishui"), (2, 3, 2, "tuishui"),
    ]  # fmt: skip
    assert net_scores(got, 4) == [2, 22, 6, -30]


def test_checks_need_exhaustion_and_two_non_winners():
    players = c12_players()
    assert end_of_hand_transfers(CHENGDU, players, wall_exhausted=False) == []
    players[1] = player(1, "234s 567s 888s 11s 99s", void=1, won=True)
    players[2] = player(2, "1p 3p 7p 9p 2s 4s 6s 8s 1s 9s", ["ankong 5p"], void=0, won=True)
    assert end_of_hand_transfers(CHENGDU, players) == []


def test_r5_exhaustive_draw_mahjong_soul():
    """R5: S1 ready for 3 han (4 000); S2 not ready with a 大明杠 paid by S3; S3 holds a void tile (ms_max_8)."""
    players = [
        player(0, won=True),
        player(1, "234s 567s 888s 11s 99s", void=1),
        player(2, "1p 3p 7p 9p 2s 4s 6s 8s 1s 9s", [parse_meld("kong 5p", from_seat=3)], void=0),
        player(3, "123m 456m 789m 55p 23s", void=2),
    ]  # fmt: skip
    assert ready_value(CHIYU, players[1]) == 4000
    got = end_of_hand_transfers(CHIYU, players, [KongPayment(2, 3, 2000)])
    assert as_tuples(got) == [
        (3, 1, 8000, "huazhu"), (3, 2, 8000, "huazhu"), (2, 1, 4000, "chadajiao"), (2, 3, 2000, "tuishui"),
    ]  # fmt: skip
    assert net_scores(got, 4) == [0, 12000, 2000, -14000]


def test_ms_pig_pays_receiver_value_when_larger_and_other_pigs():
    # S1's hand is worth more than 8 000 (清七对 5 han = 16 000); two pigs pay each other the minimum
    players = [
        player(0, "11s 22s 33s 55s 66s 77s 9s", void=1),
        player(1, "123m 456m 789m 55p 23s", void=2),
        player(2, "123s 456s 789s 11p 2p 3p 4p", void=1),
        player(3, won=True),
    ]
    got = end_of_hand_transfers(CHIYU, players)
    assert as_tuples(got) == [
        (1, 0, 16000, "huazhu"), (1, 2, 8000, "huazhu"), (2, 0, 16000, "huazhu"), (2, 1, 8000, "huazhu"),
    ]  # fmt: skip


def test_flat_pig_penalty_multiplier_and_cap():
    players = c12_players()
    capped = CHENGDU.replace(huazhu_penalty_capped=True)
    assert [t.amount for t in end_of_hand_transfers(capped, players) if t.reason == "huazhu"] == [8, 8]
    big = CHENGDU.replace(huazhu_multiplier=64)
    assert [t.amount for t in end_of_hand_transfers(big, players) if t.reason == "huazhu"] == [64, 64]
    uncapped = CHENGDU.replace(huazhu_penalty_capped=True, cap_doublings=None)
    assert [t.amount for t in end_of_hand_transfers(uncapped, players) if t.reason == "huazhu"] == [16, 16]


def test_flat_pigs_do_not_pay_each_other_nor_chadajiao():
    players = [
        player(0, "123m 456m 789m 55p 23s", void=2),  # pig
        player(1, "123s 456s 789s 11p 2p 3p 4p", void=1),  # pig
        player(2, "234s 567s 888s 11s 99s", void=1),  # ready 4
        player(3, won=True),
    ]
    got = end_of_hand_transfers(CHENGDU, players)
    assert as_tuples(got) == [(0, 2, 16, "huazhu"), (1, 2, 16, "huazhu")]


def test_chadajiao_max_and_min():
    nine_gates = player(0, "1112345678999s", void=0)  # waits 1s-9s: 1s and 9s make a 根 (8), the others 4
    assert ready_waits(CHENGDU, nine_gates) == {18: 8, 19: 4, 20: 4, 21: 4, 22: 4, 23: 4, 24: 4, 25: 4, 26: 8}
    not_ready = player(1, "159m 258s 369s 1234s", void=1)
    players = [nine_gates, not_ready, player(2, won=True), player(3, won=True)]
    assert as_tuples(end_of_hand_transfers(CHENGDU, players)) == [(1, 0, 8, "chadajiao")]
    low = CHENGDU.replace(chadajiao="min")
    assert as_tuples(end_of_hand_transfers(low, players)) == [(1, 0, 4, "chadajiao")]


def test_fifth_tile_wait_is_not_ready_by_default():
    """AMB-74: a hand whose only wait is a fifth copy of a kind it holds four times is not ready."""
    p = player(0, "1111m 456m 789m 234s", void=1)
    assert ready_value(CHENGDU, p) is None
    assert ready_value(CHENGDU.replace(ready_excludes_fifth_tile=False), p) == 1


def test_dead_wait_flag():
    p = player(1, "234s 567s 888s 11s 99s", void=1)
    with pytest.raises(ValueError, match="live"):
        ready_value(CHENGDU.replace(dead_wait_counts_as_ready=False), p)
    strict = CHENGDU.replace(dead_wait_counts_as_ready=False)
    live = [1] * 34
    assert ready_value(strict, p, live=live) == 4
    live[18] = live[26] = 0  # every copy of 1s and 9s is visible: a dead wait (死叫)
    assert ready_value(strict, p, live=live) is None
    live[26] = 1
    assert ready_waits(strict, p, live=live) == {26: 4}
    assert ready_value(CHENGDU, p, live=[0] * 34) == 4  # default: dead waits count


def test_refund_flag_and_transferred_income():
    players = c12_players()
    no_refund = CHENGDU.replace(refund_kong_if_not_ready=False)
    assert all(t.reason != "tuishui" for t in end_of_hand_transfers(no_refund, players, C12_KONGS))
    assert all(t.reason != "tuishui" for t in end_of_hand_transfers(CHENGDU, players, mark_transferred(C12_KONGS)))
    partly = [C12_KONGS[0].transferred_copy(), *C12_KONGS[1:]]
    assert [t.receiver for t in end_of_hand_transfers(CHENGDU, players, partly) if t.reason == "tuishui"] == [1, 3]


def test_ready_player_keeps_kong_income_and_pig_refunds():
    players = [
        player(0, "234s 567s 888s 11s 99s", void=1),  # ready: keeps its kong income
        player(1, "123m 456m 789m 55p 23s", void=2),  # pig: refunds
        player(2, won=True),
        player(3, won=True),
    ]
    got = end_of_hand_transfers(CHENGDU, players, [KongPayment(0, 3, 2), KongPayment(1, 2, 2)])
    assert as_tuples(got) == [(1, 0, 16, "huazhu"), (1, 2, 2, "tuishui")]


def test_pig_definitions():
    melded = player(0, "234s 567s 11s 9s", ["pong 5p"], void=1)  # a void-suit tile in a meld
    assert is_pig(CHENGDU, melded)
    three = player(0, "123m 456p 789s 11s 99s", void=0)
    assert is_pig(CHENGDU, three)
    assert is_pig(CHENGDU.replace(huazhu_definition="three_suits"), three)
    two = player(0, "123m 456m 789s 11s 99s", void=1)
    assert not is_pig(CHENGDU, two)
    assert is_pig(CHENGDU, player(0, "123m 456m 789s 11s 99s", void=0))
    assert not is_pig(CHENGDU.replace(huazhu_definition="three_suits"), player(0, "123m 456m 789s 11s 99s", void=0))
    assert not is_pig(CHENGDU.replace(dingque=False), three)


def test_wild_red_dragon_is_not_a_void_tile():
    hz = load_variant("hongzhong")
    p = player(0, "234m 567m 11s 789s 4s 5z", void=1)
    assert not is_pig(hz, p)
    assert ready_value(hz, p) is not None


def test_yibin_tingyong_is_not_a_void_tile():
    yb = load_variant("yibin")
    # 本金 5p -> 听用 4p and 6p; declared void 筒: holding 听用 is not a pig (Y1 shape), a natural 3p is
    p = player(0, "111m 234m 567m 89m 4p 6p", void=1, indicator=13)
    assert not is_pig(yb, p)
    assert ready_value(yb, p) is not None
    assert is_pig(yb, player(0, "111m 234m 567m 89m 3p 6p", void=1, indicator=13))


def test_end_of_hand_bad_input():
    with pytest.raises(ValueError, match="one PlayerEnd per seat"):
        end_of_hand_transfers(CHENGDU, c12_players()[:3])
    players = c12_players()
    with pytest.raises(ValueError, match="one PlayerEnd per seat"):
        end_of_hand_transfers(CHENGDU, [players[1], players[0], players[2], players[3]])
    with pytest.raises(ValueError, match="live"):
        end_of_hand_transfers(CHENGDU, players, live=[[0] * 34])
    with pytest.raises(ValueError, match="concealed"):
        PlayerEnd(0, False, (0,) * 33)
    with pytest.raises(ValueError, match="concealed"):
        PlayerEnd(0, False, (5,) + (0,) * 33)
    with pytest.raises(ValueError, match="void_suit"):
        PlayerEnd(0, False, EMPTY, void_suit=3)
    with pytest.raises(ValueError, match="kong_payments"):
        end_of_hand_transfers(CHENGDU, players, [KongPayment(5, 0, 2)])
    with pytest.raises(ValueError, match="kong_payments"):
        end_of_hand_transfers(CHENGDU, players, [(2, 0, 2)])
    with pytest.raises(ValueError, match="melds"):
        PlayerEnd(0, False, EMPTY, melds=("pong 5m",))
    with pytest.raises(ValueError, match="amount"):
        KongPayment(1, 0, 0)
    with pytest.raises(ValueError, match="different"):
        KongPayment(1, 1, 2)


# ---- property: random end states ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    won=st.lists(st.booleans(), min_size=4, max_size=4),
    voids=st.lists(st.integers(0, 2), min_size=4, max_size=4),
    incomes=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 4), st.booleans()), max_size=6),
    variant=st.sampled_from(["chengdu", "chiyu"]),
)
def test_end_of_hand_properties(seed, won, voids, incomes, variant):
    cfg = load_variant(variant)
    wall = shuffled_wall(cfg, seed)
    records = [KongPayment(o, p, a * cfg.base_unit, tr) for o, p, a, tr in incomes if o != p]
    players = []
    for s in range(4):
        counts = [0] * 34
        for k in wall[13 * s : 13 * s + 13]:
            counts[k] += 1
        players.append(PlayerEnd(s, won[s], tuple(counts), (), voids[s]))
    got = end_of_hand_transfers(cfg, players, records)
    assert sum(net_scores(got, 4)) == 0
    rest = {s for s in range(4) if not won[s]}
    if len(rest) < 2:
        assert got == []
        return
    values = {s: ready_value(cfg, players[s]) for s in rest}
    for t in got:
        assert t.payer in rest and t.amount > 0
        assert values[t.payer] is None  # a ready player never pays
        if t.reason == "tuishui":
            assert any(r.owner == t.payer and r.payer == t.receiver and not r.transferred for r in records)
        else:
            assert t.receiver in rest
        if t.reason == "chadajiao":
            assert not is_pig(cfg, players[t.payer]) and t.amount == values[t.receiver]
        if t.reason == "huazhu":
            assert is_pig(cfg, players[t.payer])
    pairs = Counter((t.payer, t.receiver, t.reason) for t in got if t.reason != "tuishui")
    assert max(pairs.values(), default=1) == 1
