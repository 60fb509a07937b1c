"""The match mechanism without an environment (RULES.md §11): rooms as data, bankroll payments (输光为止, 退税 and
呼叫转移 when short), busts and refills, placements, conservation of chips, and provably fair dealing."""

from __future__ import annotations

import random

import pytest

from envs.core.fair import FairDeal, match_seed, verify_match
from envs.core.rooms import load_room, room_names
from envs.core.rule_config import load_variant
from envs.engine.match import Match, MatchLedger, MatchRules, match_rules
from envs.scoring.settlement import Transfer

HZ = load_variant("hongzhong")


# ---- rooms --------------------------------------------------------------------------------------------------------
def test_the_six_rooms_load_by_name_and_alias():
    expected = {
        "初级场": (400, 2000, 100000),
        "平民场": (1000, 5000, 300000),
        "官甲场": (3000, 20000, None),
        "土豪场": (9000, 50000, None),
        "富商场": (30000, 150000, None),
        "尊爵场": (80000, 400000, None),
    }
    assert room_names() == list(expected)
    for name, values in expected.items():
        room = load_room(name)
        assert (room.base, room.min_entry, room.max_entry) == values and room.variant == "hongzhong"
        assert load_room(room.alias) == room == load_room(room.alias.upper())


@pytest.mark.parametrize(
    ("stack", "message"),
    [
        (1999, r"stack in 初级场 \(beginner\) must be in 2000..100000 chips, got 1999"),
        (100001, r"must be in 2000..100000 chips, got 100001"),
        (-5, r"2000..100000, got the negative -5"),
        (2500.5, r"whole number of chips in 2000..100000, got 2500.5"),
        (True, r"got the bool True"),
        ("3000", r"got '3000'"),
    ],
)
def test_a_bad_stack_names_the_value_and_the_range(stack, message):
    with pytest.raises(ValueError, match=message):
        MatchRules.for_room("初级场", HZ, stack)


def test_an_unknown_room_and_bad_flags_are_refused_by_name():
    with pytest.raises(ValueError, match=r"unknown room '中级场'; known rooms: 初级场 \(beginner\)"):
        load_room("中级场")
    with pytest.raises(ValueError, match=r"stacks needs one stack per seat \(4\)"):
        MatchRules.for_room("beginner", HZ, [2000, 2000])
    with pytest.raises(ValueError, match="short_payment must be one of"):
        MatchRules.for_room("beginner", HZ, 2000, short_payment="borrow")
    with pytest.raises(ValueError, match="a room plays chip stacks"):
        MatchRules.for_room("beginner", load_variant("chiyu"), 2000)
    with pytest.raises(ValueError, match="sets no hands_per_match"):
        match_rules(HZ, match=True)
    with pytest.raises(ValueError, match="pass room= too"):
        match_rules(HZ, stacks=2000)
    assert load_room("官甲场").check_stack(10**9) == 10**9  # 无上限


# ---- bankroll payments --------------------------------------------------------------------------------------------
def _ledger(stacks, **flags) -> MatchLedger:
    return MatchLedger(MatchRules.for_room("初级场", HZ, stacks, **flags), first_dealer=0)


def test_a_short_payer_pays_what_is_left_and_the_winner_receives_only_that():
    led = _ledger([2000, 2000, 2000, 2000])
    change = led.apply([Transfer(1, 0, 16, "dianpao")])  # 16 units x 底分 400 = 6 400 chips owed
    assert change == [2000, -2000, 0, 0] and led.standing == [4000, 0, 2000, 2000]
    assert led.apply([Transfer(1, 2, 1, "zimo")]) == [0, 0, 0, 0]  # nothing left to pay
    led.finish_hand(next_dealer=0, bankrupt=False)
    assert led.over and led.busted == [False, True, False, False]


def test_owing_lets_a_stack_go_negative():
    led = _ledger(2000, short_payment="owe")
    assert led.apply([Transfer(1, 0, 16, "dianpao")]) == [6400, -6400, 0, 0]
    assert led.standing[1] == -4400 and led.conserved()


def test_a_refund_returns_at_most_the_kong_chips_received():
    """退税 when the kong payer could pay only part: with ``refund_cap = received`` only what was paid comes back;
    with ``stack`` the nominal refund moves as far as the refunding stack allows."""
    for cap, refunded in (("received", 400), ("stack", 1200)):
        led = _ledger([2000, 2000, 2000, 2000], refund_cap=cap)
        led.apply([Transfer(1, 0, 4, "dianpao")])  # seat 1: 2000 - 1600 = 400
        led.apply([Transfer(1, 2, 3, "kong_exposed")])  # owes 1200, pays its 400
        assert led.standing[1] == 0 and led.standing[2] == 2400
        led.apply([Transfer(2, 1, 3, "tuishui")])  # seat 2 refunds
        assert led.standing[1] == refunded and led.conserved()


def test_a_call_transfer_passes_on_at_most_the_kong_chips_held():
    led = _ledger([2000, 2000, 2000, 2000])
    led.apply([Transfer(1, 0, 2, "kong_exposed")])  # seat 0 holds 800 kong chips
    led.apply([Transfer(0, 3, 5, "hujiao_zhuanyi")])  # nominal 2 000; only the 800 held move
    assert led.standing == [2000, 1200, 2000, 2800]


def test_refill_tops_a_busted_seat_up_and_counts_the_chips():
    led = _ledger([2000, 3000, 2000, 2000], on_bust="refill", bust_at="empty")
    led.apply([Transfer(1, 0, 10, "zimo")])  # 4 000 owed, 3 000 paid
    assert not led.finish_hand(next_dealer=0, bankrupt=False)
    assert led.standing == [5000, 3000, 2000, 2000] and led.refills == [0, 3000, 0, 0] and led.conserved()


def test_placements_break_ties_by_turn_order_from_the_first_dealer():
    rules = MatchRules.for_room("初级场", HZ, 2000, placement="linear")
    led = MatchLedger(rules, first_dealer=2)
    led.standing[:] = [2000, 2400, 2000, 1600]
    assert led.placements() == [2, 0, 1, 3]  # seats 2 and 0 tie: seat 2 (the first dealer) ranks higher
    assert led.placement_rewards() == pytest.approx([-1 / 3, 1.0, 1 / 3, -1.0])


def _random_transfer(rng: random.Random, n: int) -> Transfer:
    payer = rng.randrange(n)
    receiver = rng.choice([s for s in range(n) if s != payer])
    reason = rng.choice(
        ["dianpao", "zimo", "kong_exposed", "kong_concealed", "kong_added", "hujiao_zhuanyi", "huazhu", "tuishui"]
    )
    return Transfer(payer, receiver, rng.choice([1, 2, 4, 8, 16, 32, 64, 256]), reason)


@pytest.mark.parametrize("flags", [{}, {"refund_cap": "stack"}, {"on_bust": "refill"}, {"short_payment": "owe"}])
def test_chips_are_conserved_over_ten_thousand_random_hands(flags):
    """Property: at every transfer of 10 000 random hands (random payers, reasons and amounts up to 256 units, in
    matches that end on busts) the stacks add up to the starts plus the refills, and a capped stack never goes
    below zero."""
    rng = random.Random(29)
    capped = flags.get("short_payment", "pay_what_is_left") == "pay_what_is_left"
    hands = 0
    while hands < 10_000:
        led = _ledger([rng.randrange(2000, 100001) for _ in range(4)], **flags)
        while not led.over and hands < 10_000:
            for _ in range(rng.randrange(1, 12)):
                change = led.apply([_random_transfer(rng, 4)])
                assert sum(change) == 0 and led.conserved()
                assert not capped or min(led.standing) >= 0
            led.finish_hand(next_dealer=rng.randrange(4), bankrupt=False)
            hands += 1
            if led.hands_played > 200:
                break
    assert hands == 10_000


# ---- provably fair dealing ----------------------------------------------------------------------------------------
def _fair_match():
    server, players = "server-secret-7", ("p0-abc", "p1-def", "p2-ghi", "p3-jkl")
    commits = FairDeal.commit(server, players)
    seed = match_seed(server, players)
    dealer = FairDeal.first_dealer(seed, HZ.num_players)
    m = Match(HZ, seed, dealer=dealer, rules=MatchRules.for_room("初级场", HZ, 2000, hands=3))
    rng, walls = random.Random(5), []
    while True:
        g = m.game
        walls.append(tuple(g.events[0]["wall"]))
        while not g.is_over:
            legal = g.legal_actions(g.pending[0])
            g.step(g.pending[0], legal[rng.randrange(len(legal))])
        if m.is_over:
            break
        m.next_hand()
    return FairDeal(commits[0], commits[1], server, players, dealer, tuple(walls))


def test_a_finished_match_verifies_and_a_tampered_one_does_not():
    deal = _fair_match()
    assert len(deal.walls) >= 1 and verify_match(deal, HZ)
    wall = list(deal.walls[-1])
    wall[0], wall[-1] = wall[-1], wall[0]
    if wall == list(deal.walls[-1]):  # the two ends hold the same kind: swap with a different one
        j = next(i for i, t in enumerate(wall) if t != wall[0])
        wall[0], wall[j] = wall[j], wall[0]
    tampered = FairDeal(**{**deal.__dict__, "walls": (*deal.walls[:-1], tuple(wall))})
    assert not verify_match(tampered, HZ)
    assert not verify_match(FairDeal(**{**deal.__dict__, "player_seeds": ("p0-abc", "x", "p2-ghi", "p3-jkl")}), HZ)
    assert not verify_match(FairDeal(**{**deal.__dict__, "server_seed": "another"}), HZ)
    assert not verify_match(FairDeal(**{**deal.__dict__, "dealer": (deal.dealer + 1) % 4}), HZ)


def test_every_seed_moves_the_match_seed():
    base = match_seed("s", ("a", "b"))
    assert match_seed("s", ("a", "c")) != base != match_seed("t", ("a", "b"))
    assert match_seed("s", ("ab",)) != match_seed("s", ("a", "b"))  # length-prefixed: no ambiguity


def test_chips_are_conserved_over_ten_thousand_hands_of_real_settlements():
    """Property: 10 000 hands whose transfers are those of real 红中 hands (random legal play on the engine, seats
    permuted at random) keep every bankroll match's chips conserved at every transfer, under every flag."""
    from envs.engine.game import Game

    rng = random.Random(27)
    pool = []
    for seed in range(120):
        g = Game(HZ, seed=seed, record_events=False)
        while not g.is_over:
            legal = g.legal_actions(g.pending[0])
            g.step(g.pending[0], legal[rng.randrange(len(legal))])
        pool.append(list(g.transfers))
    reasons = {t.reason for hand in pool for t in hand}
    assert {"zimo", "dianpao", "kong_exposed", "kong_concealed"} <= reasons and "tuishui" in reasons
    flag_sets = [{}, {"refund_cap": "stack"}, {"on_bust": "refill", "bust_at": "empty"}, {"short_payment": "owe"}]
    hands = 0
    while hands < 10_000:
        flags = flag_sets[hands % len(flag_sets)]
        led = _ledger([rng.randrange(2000, 20001, 400) for _ in range(4)], hands=50, **flags)
        while not led.over:
            perm = rng.sample(range(4), 4)
            for t in rng.choice(pool):
                led.apply([Transfer(perm[t.payer], perm[t.receiver], t.amount, t.reason)])
                assert led.conserved()
            led.finish_hand(next_dealer=0, bankrupt=False)
            hands += 1
    assert hands >= 10_000


class _DealWins:
    """A table whose first two hands end at their deal (a four-红中 instant win: seat 1 pays seat 0 one unit)."""

    def __init__(self) -> None:
        self.deals = 0

    def deal(self, cfg, seed, fixed):
        self.deals += 1
        return [Transfer(1, 0, 1, "instant")] if self.is_over() else []

    def is_over(self) -> bool:
        return self.deals <= 2

    def hand_end(self):
        return 0, False


def test_hands_that_end_at_their_deal_are_closed_at_once():
    from envs.engine.match import TableMatch

    table = _DealWins()
    match = TableMatch(table, HZ, MatchRules.for_room("初级场", HZ, 4000, hands=5), seed=1, dealer=0)
    led = match.ledger
    assert table.deals == 3 and led.hands_played == 2 and led.hand_index == 2 and not table.is_over()
    assert led.standing == [4800, 3200, 4000, 4000] and led.conserved()
