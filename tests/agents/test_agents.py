"""Rule-based agents: legality on every variant, hidden information, greedy efficiency, defence, red-dragon knobs."""

from __future__ import annotations

import gc
import random

import numpy as np
import pytest

from agents.base import Agent
from agents.danger import danger_by_kind, ready_probability
from agents.defensive import DefensiveAgent
from agents.features import read
from agents.greedy import GreedyAgent
from agents.handeval import pairs_shanten, shanten_dead, suit_mask, triplets_shanten, useful_tiles
from agents.random_agent import RandomAgent
from agents.registry import make_agent, parse_spec
from agents.valuation import VariantValues, completion_probability
from agents.value import ValueAgent
from envs.core.actions import (
    ACTION_SPACE_SIZE,
    DINGQUE_BASE,
    EXCHANGE_BASE,
    HU_ID,
    PASS_ID,
    PONG_ID,
    ActionType,
    action_name,
    exchange,
)
from envs.core.actions import decode as decode_action
from envs.core.rule_config import PRESETS, load_variant
from envs.core.tiles import NUM_KINDS, parse_counts
from envs.engine.game import Game, UnsupportedRule
from envs.engine.observation import OBS_SHAPE, PHASES, ObservationEncoder, decode, legal_mask
from envs.engine.view import Phase, PlayerView
from envs.scoring.shanten import mask_excluding_suit
from envs.scoring.shanten import shanten as hand_shanten
from training.evaluation.evaluate import play_hand


def _supported() -> list[str]:
    out = []
    for name in PRESETS:
        try:
            Game(name, seed=0)
        except UnsupportedRule:
            continue
        out.append(name)
    return out


SUPPORTED = _supported()


def _all_agents(seed: int = 0) -> list:
    return [
        RandomAgent(seed),
        GreedyAgent(),
        GreedyAgent(hongzhong_policy="shagui_when_stable", shagui_min_live=1),
        ValueAgent(),
        ValueAgent(hongzhong_policy="keep_all", slack=1),
        DefensiveAgent(),
    ]


# ---- a hand-made observation --------------------------------------------------------------------------------------
def make_obs(
    hand: str,
    *,
    void: int | None = None,
    phase: Phase = Phase.SELF,
    wall: int = 40,
    n_players: int = 4,
    opponents: tuple[dict, ...] = (),
    claim: str | None = None,
    wild: bool = False,
) -> np.ndarray:
    """An observation with the given own hand (and opponents: dicts with discards, void, active, pongs)."""
    obs = np.zeros(OBS_SHAPE, dtype=np.float32)
    v = decode(obs)
    counts = parse_counts(hand)
    for k, c in enumerate(counts):
        for i in range(c):
            v["hand"][i][k] = 1
    visible = np.array(counts, dtype=np.float32)
    v["phase"][PHASES.index(phase)] = 1
    v["to_act"][:] = 1
    v["wall"][:] = wall / 136.0
    v["wall_countdown"][: min(wall, NUM_KINDS)] = 1
    for r in range(n_players):
        v["seat_present"][r] = 1
        v["active"][r] = 1
    if void is not None:
        v["void_suits"][0][9 * void : 9 * void + 9] = 1
    for slot, opp in enumerate(opponents, start=1):
        disc = parse_counts(opp.get("discards", ""))
        v["discards"][slot] = disc
        visible += disc
        if opp.get("void") is not None:
            s = opp["void"]
            v["void_suits"][slot][9 * s : 9 * s + 9] = 1
        if not opp.get("active", True):
            v["active"][slot] = 0
            v["won"][slot] = 1
        pongs = parse_counts(opp.get("pongs", ""))
        for k, c in enumerate(pongs):
            if c:
                v["pongs"][slot][k] = 1
                visible[k] += 3
    if wild:
        v["wild_kinds"][31] = 1
    if claim is not None:
        k = parse_counts(claim).index(1)
        v["claim_tile"][k] = 1
        visible[k] += 1
    v["visible"][:] = visible
    return obs


def discard_mask(hand: str, void: int | None = None) -> np.ndarray:
    counts = parse_counts(hand)
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    held_void = [k for k in range(27) if counts[k] and void is not None and k // 9 == void]
    for k in held_void or [k for k in range(NUM_KINDS) if counts[k]]:
        mask[k] = 1
    return mask


# ---- legality everywhere -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", SUPPORTED)
def test_agents_return_legal_actions_on_random_positions(variant: str) -> None:
    """Random play visits many positions; every agent (and knob setting) answers each with a legal action."""
    cfg = load_variant(variant)
    enc = ObservationEncoder.from_config(cfg)
    rng = np.random.default_rng(7)
    agents = _all_agents()
    checked = 0
    for hand in range(3):
        game = Game(cfg, seed=1000 + hand, record_events=False)
        for seat in range(cfg.num_players):
            for a in agents:
                a.reset(seat, cfg)
        picks: list[list[int]] = [[] for _ in range(cfg.num_players)]
        while not game.is_over:
            seat = game.pending[0]
            view = game.view(seat)
            obs = enc.encode(view, exchange_picks=picks[seat])
            mask = legal_mask(view, picks[seat])
            for a in agents:
                a.seat = seat
                choice = a.act(obs.copy(), mask.copy())
                assert isinstance(choice, int), (a, choice)
                assert mask[choice], f"{a!r} chose illegal {action_name(choice)} in {view.phase}"
                checked += 1
            action = int(rng.choice(np.flatnonzero(mask)))
            if view.phase == Phase.EXCHANGE and decode_action(action).type == ActionType.EXCHANGE:
                picks[seat].append(action - EXCHANGE_BASE)
                if len(picks[seat]) < 3:
                    continue
                engine_action = exchange(picks[seat])
                picks[seat] = []
            else:
                engine_action = decode_action(action)
            game.step(seat, engine_action)
    assert checked > 500


@pytest.mark.parametrize("variant", SUPPORTED)
def test_agents_play_whole_hands_through_the_driver(variant: str) -> None:
    cfg = load_variant(variant)
    n = cfg.num_players
    for spec in ("greedy", "value", "defensive"):
        agents = [make_agent(spec, seed=s) for s in range(n)]
        game = play_hand(cfg, 11, agents)
        assert game.is_over
        assert sum(game.scores) == 0


class _Spy:
    """Wraps an agent and checks what it is given: read-only plain arrays, never the engine."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls = 0

    def reset(self, seat, variant) -> None:
        self.inner.reset(seat, variant)

    def act(self, observation, legal_mask) -> int:
        self.calls += 1
        for arr in (observation, legal_mask):
            assert type(arr) is np.ndarray
            assert not arr.flags.writeable
            assert arr.base is None or type(arr.base) is np.ndarray
        with pytest.raises(ValueError):
            observation[0, 0] = 1.0  # agents cannot write into the observation
        return self.inner.act(observation, legal_mask)


def _reaches(obj, types, depth=0, seen=None) -> bool:
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 6:
        return False
    seen.add(id(obj))
    if isinstance(obj, types):
        return True
    if isinstance(obj, dict):
        return any(_reaches(k, types, depth + 1, seen) or _reaches(v, types, depth + 1, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_reaches(x, types, depth + 1, seen) for x in obj)
    if hasattr(obj, "__dict__"):
        return _reaches(vars(obj), types, depth + 1, seen)
    if hasattr(obj, "__slots__"):
        return any(_reaches(getattr(obj, s, None), types, depth + 1, seen) for s in obj.__slots__)
    return False


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_agents_never_hold_engine_state(variant: str) -> None:
    cfg = load_variant(variant)
    for make in (GreedyAgent, ValueAgent, DefensiveAgent, lambda: RandomAgent(3)):
        spies = [_Spy(make()) for _ in range(cfg.num_players)]
        game = play_hand(cfg, 5, spies)
        assert all(s.calls > 0 for s in spies)
        for spy in spies:
            assert not _reaches(spy.inner, (Game, PlayerView))
            assert not any(isinstance(r, Game) for r in gc.get_referents(spy.inner))
        assert game.is_over


def test_agents_satisfy_the_protocol() -> None:
    for a in _all_agents():
        assert isinstance(a, Agent)


def test_random_agent_is_seeded_and_uniform() -> None:
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    mask[[3, 7, 20]] = 1
    obs = np.zeros(OBS_SHAPE, dtype=np.float32)
    a, b = RandomAgent(5), RandomAgent(5)
    xs = [a.act(obs, mask) for _ in range(300)]
    assert xs == [b.act(obs, mask) for _ in range(300)]
    assert set(xs) == {3, 7, 20}
    assert min(xs.count(k) for k in (3, 7, 20)) > 60
    with pytest.raises(ValueError, match="explicit seed"):
        RandomAgent(None)
    with pytest.raises(ValueError, match="empty"):
        a.act(obs, np.zeros(ACTION_SPACE_SIZE, dtype=np.int8))


# ---- greedy --------------------------------------------------------------------------------------------------------
def test_greedy_discards_the_isolated_tile_to_get_ready() -> None:
    hand = "123m 456m 789m 11p 35p 9p"  # discarding 9p leaves a ready hand (kanchan 4p)
    agent = GreedyAgent()
    agent.reset(0, load_variant("chengdu"))
    choice = agent.act(make_obs(hand, void=2), discard_mask(hand))
    assert action_name(choice) == "discard 9p"


def test_greedy_prefers_more_live_effective_tiles() -> None:
    # every candidate below keeps one-shanten; discarding 9p keeps the most live effective tiles (26) ...
    hand = "123346789m 44459p"
    agent = GreedyAgent()
    agent.reset(0, load_variant("chengdu"))
    mask = discard_mask(hand, 2)
    assert action_name(agent.act(make_obs(hand, void=2), mask)) == "discard 9p"
    # ... until the 3m, 6m and 9m it counts on are all visible: then discarding 9m keeps more live tiles
    seen_opp = ({"discards": "33m 666m 999m", "void": 2},)
    assert action_name(agent.act(make_obs(hand, void=2, opponents=seen_opp), mask)) == "discard 9m"


def _brute_discards(counts: list[int], void: int, live: list[int]) -> tuple[int, dict[int, tuple[int, int]]]:
    """(best shanten, {discard: (shanten, live useful)}) computed directly with envs.scoring.shanten."""
    allowed = mask_excluding_suit(void)
    out = {}
    for d in range(27):
        if not counts[d]:
            continue
        c = list(counts)
        c[d] -= 1
        s = hand_shanten(c, 0, allowed_mask=allowed)
        u = 0
        for t in range(27):
            if t // 9 == void or c[t] >= 4:
                continue
            c[t] += 1
            if hand_shanten(c, 0, allowed_mask=allowed) < s:
                u += live[t]
            c[t] -= 1
        out[d] = (s, u)
    return min(s for s, _ in out.values()), out


def test_greedy_matches_brute_force_shanten_and_effective_tiles_on_random_hands() -> None:
    rng = random.Random(3)
    agent = GreedyAgent()
    agent.reset(0, load_variant("chengdu"))
    for _ in range(40):
        void = rng.randrange(3)
        pool = [k for k in range(27) if k // 9 != void for _ in range(4)]
        tiles = rng.sample(pool, 14)
        counts = [0] * NUM_KINDS
        for t in tiles:
            counts[t] += 1
        hand = " ".join(f"{k % 9 + 1}{'mps'[k // 9]}" for k in tiles)
        obs = make_obs(hand, void=void)
        choice = agent.act(obs, discard_mask(hand, void))
        live = [4 - c for c in counts]
        best, table = _brute_discards(counts, void, live)
        s, u = table[choice]
        assert s == best
        assert u == max(uu for ss, uu in table.values() if ss == best)


def test_greedy_discards_void_tiles_first_and_wins_when_it_can() -> None:
    agent = GreedyAgent()
    agent.reset(0, load_variant("chiyu"))  # chiyu does not force void discards: the agent still plays them first
    hand = "123m 456m 789m 11p 35p 9s"
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    for k in range(NUM_KINDS):
        if parse_counts(hand)[k]:
            mask[k] = 1
    assert action_name(agent.act(make_obs(hand, void=2), mask)) == "discard 9s"
    mask[HU_ID] = 1
    assert agent.act(make_obs("123m 456m 789m 11p 345p", void=2), mask) == HU_ID


def test_greedy_dingque_and_exchange() -> None:
    cfg = load_variant("chengdu")
    agent = GreedyAgent()
    agent.reset(0, cfg)
    hand = "1123456m 2456p 19s"  # 条 holds two unconnected tiles: the cheapest suit to drop
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    mask[DINGQUE_BASE : DINGQUE_BASE + 3] = 1
    assert agent.act(make_obs(hand, phase=Phase.DINGQUE), mask) == DINGQUE_BASE + 2
    # exchange: three picks of one suit; the 筒 suit is the weakest with at least three tiles
    hand = "1123456m 2589p 14s"
    counts = parse_counts(hand)
    picks: list[int] = []
    for _ in range(3):
        obs = make_obs(hand, phase=Phase.EXCHANGE)
        decode(obs)["exchange_picked"][:] = np.bincount(picks, minlength=NUM_KINDS) if picks else 0
        mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
        for k in range(27):
            same_suit = not picks or k // 9 == picks[0] // 9
            if counts[k] > picks.count(k) and sum(counts[9 * (k // 9) : 9 * (k // 9) + 9]) >= 3 and same_suit:
                mask[EXCHANGE_BASE + k] = 1
        a = agent.act(obs, mask)
        assert mask[a]
        picks.append(a - EXCHANGE_BASE)
    assert {k // 9 for k in picks} == {1}  # the weak 筒 tiles go, the connected 万 stay


def test_greedy_pongs_when_not_slower_and_passes_otherwise() -> None:
    agent = GreedyAgent()
    agent.reset(0, load_variant("chengdu"))
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    mask[[PONG_ID, PASS_ID]] = 1
    # one-shanten with a pair of 9p: the pong leaves a ready hand
    obs = make_obs("123m 456m 789m 99p 1p 5p", void=2, phase=Phase.CLAIM, claim="9p")
    assert agent.act(obs, mask) == PONG_ID
    # here the 55m pair is worth more inside 4556677m than as a pong: the pong would slow the hand
    obs = make_obs("145566779m 6899p", void=2, phase=Phase.CLAIM, claim="5m")
    assert agent.act(obs, mask) == PASS_ID


def test_red_dragon_knobs() -> None:
    cfg = load_variant("hongzhong")
    # the 红中 completes the hand (as 1p or 4p): a soft self-drawn win is on offer; without the 红中 the hand is
    # ready on 1p and 4p (six live copies)
    hand = "123m 456m 789m 11p 23p 5z"
    mask = discard_mask(hand)
    mask[HU_ID] = 1
    obs = make_obs(hand, void=2, wild=True)
    decode(obs)["drawn_tile"][31] = 1
    keep = GreedyAgent(hongzhong_policy="keep_all")
    keep.reset(0, cfg)
    assert keep.act(obs, mask) == HU_ID
    shagui = GreedyAgent(hongzhong_policy="shagui_when_stable", shagui_min_live=4)
    shagui.reset(0, cfg)
    assert action_name(shagui.act(obs, mask)) == "discard 5z"  # declines the soft win for 杀鬼
    picky = GreedyAgent(hongzhong_policy="shagui_when_stable", shagui_min_live=7)  # only 6 live waits
    picky.reset(0, cfg)
    assert picky.act(obs, mask) == HU_ID
    # without a win on offer the knob still throws the last 红中 of a stable hand
    mask[HU_ID] = 0
    assert action_name(shagui.act(obs, mask)) == "discard 5z"
    # three 红中 are never thrown (the fourth wins instantly)
    three = "123m 456m 789m 1p 2p 555z"
    assert action_name(shagui.act(make_obs(three, void=2, wild=True), discard_mask(three))) != "discard 5z"
    # the value agent's own policy takes every win; it also accepts the greedy knob
    mask[HU_ID] = 1
    value = ValueAgent(hongzhong_policy="shagui_by_value")
    value.reset(0, cfg)
    assert value.act(obs, mask) == HU_ID
    value_knob = ValueAgent(hongzhong_policy="shagui_when_stable")
    value_knob.reset(0, cfg)
    assert action_name(value_knob.act(obs, mask)) == "discard 5z"
    with pytest.raises(ValueError, match="hongzhong_policy"):
        GreedyAgent(hongzhong_policy="shagui_by_value")


def _discard_win_offer(hand: str, wall: int, *, winners: int = 0) -> np.ndarray:
    """A 红中 claim of 3p that completes ``hand`` (void 筒 / 万 for the others), with ``winners`` opponents gone."""
    opponents = tuple({"void": 1, "active": slot >= winners} for slot in range(3))
    void = 2 if "m" in hand else 0
    return make_obs(hand, void=void, phase=Phase.CLAIM, claim="3p", wall=wall, wild=True, opponents=opponents)


def test_pass_win_declines_a_discard_win_worth_less_than_waiting() -> None:
    # 234p 567p 789p 245p + 红中 waits on 2p 3p 5p 6p (the 红中 fills the rest): the discard win on 3p pays 清一色
    # (2 doublings) from the discarder alone; a self-draw pays one more doubling from every active opponent
    cfg = load_variant("hongzhong")
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    mask[[HU_ID, PASS_ID]] = 1
    flush, plain = "234p 567p 789p 245p 5z", "234m 567m 789p 245p 5z"
    waiting = ValueAgent(pass_win=1.5)
    waiting.reset(0, cfg)
    assert waiting.act(_discard_win_offer(flush, 50), mask) == PASS_ID  # long wall, three payers
    assert waiting.act(_discard_win_offer(flush, 4), mask) == HU_ID  # the last draws: win now
    assert waiting.act(_discard_win_offer(flush, 50, winners=2), mask) == HU_ID  # one payer left
    assert waiting.act(_discard_win_offer(plain, 50), mask) == HU_ID  # a cheap hand: what leaving saves dominates
    taker = ValueAgent()
    taker.reset(0, cfg)
    assert taker.act(_discard_win_offer(flush, 50), mask) == HU_ID  # the default takes every win
    own_turn = _discard_win_offer(flush, 50)
    decode(own_turn)["phase"][:] = 0
    decode(own_turn)["phase"][PHASES.index(Phase.SELF)] = 1
    self_draw = discard_mask(flush)
    self_draw[HU_ID] = 1
    assert waiting.act(own_turn, self_draw) == HU_ID  # a self-draw is never declined
    for bad in (-0.5, 11):
        with pytest.raises(ValueError, match="pass_win"):
            ValueAgent(pass_win=bad)


# ---- value and defence --------------------------------------------------------------------------------------------
def test_value_agent_prefers_the_more_valuable_wait() -> None:
    # discarding 3p waits on 6p with 7777p kept (a 根: twice the payment); discarding a 7p waits on 4p without it.
    # Both waits have four live copies, so the greedy agent only breaks the tie by taste.
    cfg = load_variant("chengdu")
    hand = "234789m 11357777p"
    value = ValueAgent()
    value.reset(0, cfg)
    assert action_name(value.act(make_obs(hand, void=2), discard_mask(hand, 2))) == "discard 3p"
    greedy = GreedyAgent()
    greedy.reset(0, cfg)
    assert action_name(greedy.act(make_obs(hand, void=2), discard_mask(hand, 2))) == "discard 7p"


@pytest.mark.parametrize(
    "hand, simple_pick", [("22345889m 445678p", "discard 9m"), ("244678m 11224578p", "discard 1p")]
)
def test_duanyao_plan_plays_for_all_simples_where_it_scores(hand: str, simple_pick: str) -> None:
    # both discards leave a one-shanten hand; the default estimate keeps the terminal (more useful tiles), the 断幺九
    # plan throws it where 断幺九 doubles the hand (红中) and changes nothing where the fan table does not pay it (成都)
    obs, mask = make_obs(hand, void=2, wall=50), discard_mask(hand, 2)
    for variant, plan_pick in (("hongzhong", simple_pick), ("chengdu", None)):
        cfg = load_variant(variant)
        default = ValueAgent()
        default.reset(0, cfg)
        plan = ValueAgent(duanyao_plan=True)
        plan.reset(0, cfg)
        assert VariantValues.of(cfg).simples_bonus() == (1 if variant == "hongzhong" else 0)
        picked = action_name(default.act(obs, mask))
        assert picked != simple_pick
        assert action_name(plan.act(obs, mask)) == (plan_pick or picked)
    with pytest.raises(ValueError, match="duanyao_plan"):
        ValueAgent(duanyao_plan=1)  # type: ignore[arg-type]


def test_defensive_throws_the_safe_tile_against_a_ready_opponent() -> None:
    cfg = load_variant("chengdu")
    hand = "123m 456m 789m 22m 5m 5s 8s"  # 5m, 5s and 8s each leave a one-shanten hand
    opponents = (
        {"discards": "1p 2p 3p 4p 1p 2p 3p 4p 5p 6p 9m", "void": 2},  # eleven discards: very likely ready; void 条
        {"active": False, "discards": "7p"},
        {"active": False, "discards": "8p"},
    )
    obs = make_obs(hand, void=1, opponents=opponents, wall=30)
    seen = read(obs, in_play=cfg.kinds)
    assert ready_probability(seen.opponents[0]) > 0.8
    assert ready_probability(seen.opponents[1]) == 0.0
    danger = danger_by_kind(seen, cfg, VariantValues.of(cfg))
    assert danger[22] == danger[25] == 0.0  # 5s, 8s: the opponent's void suit
    assert danger[4] > 0.1  # 5m
    defensive = DefensiveAgent()
    defensive.reset(0, cfg)
    assert defensive.act(obs, discard_mask(hand)) in (22, 25)


def test_defensive_folds_far_hands_late() -> None:
    cfg = load_variant("chengdu")
    hand = "1358m 2469m 1359s 77s"  # far from ready
    opponents = ({"discards": "1111p 2222p 333p 9s", "void": 1},)
    obs = make_obs(hand, void=1, opponents=opponents, wall=6, n_players=2)
    agent = DefensiveAgent()
    agent.reset(0, cfg)
    seen = read(obs, in_play=cfg.kinds)
    danger = danger_by_kind(seen, cfg, VariantValues.of(cfg))
    choice = agent.act(obs, discard_mask(hand))
    assert danger[choice] == min(danger[k] for k in range(NUM_KINDS) if parse_counts(hand)[k])


# ---- hand evaluation helpers ---------------------------------------------------------------------------------------
def test_shanten_dead_counts_each_void_tile_as_a_replacement() -> None:
    counts = parse_counts("123m 456m 789m 11p 3s 5s 7s")  # three sets, a pair and three void 条 tiles
    void = suit_mask(2)
    # the three dead tiles must be replaced by a fourth set: three tiles away from complete, i.e. shanten 2
    assert shanten_dead(counts, 0, dead=void, allowed=(1 << 27) - 1 & ~void) == 2
    # counted as ordinary tiles, 357s is one tile from a set: shanten 0
    assert shanten_dead(counts, 0) == 0
    s13, useful = useful_tiles(parse_counts("123m 456m 789m 11p 34p"), 0)
    assert s13 == 0 and set(useful) == {10, 13}


def test_plan_shanten_closed_forms() -> None:
    live = [4] * NUM_KINDS
    assert pairs_shanten(parse_counts("11m 22m 33m 44m 55m 66m 7m"), 0, 0, live) == 0
    assert pairs_shanten(parse_counts("11m 22m 33m 44m 55m 6m 7m"), 1, 0, live) == 0
    assert pairs_shanten(parse_counts("1111m 22m 33m 44m 55m 6m"), 0, 0, live) == 0  # four copies = two pairs
    assert triplets_shanten(parse_counts("111m 222m 333m 44m 5m"), 0, 4, 0, live) == 1
    dead_live = list(live)
    dead_live[4] = 0  # every other 5m is visible: the single can never pair
    assert triplets_shanten(parse_counts("111m 222m 333m 44m 5m"), 0, 4, 0, dead_live) == 2
    assert completion_probability(-1, 0, 10, 0) == 1.0
    assert completion_probability(0, 0, 50, 10) == 0.0
    p1 = completion_probability(0, 8, 60, 10)
    p2 = completion_probability(1, 8, 60, 10)
    assert 0 < p2 < p1 < 1


def test_variant_values_follow_the_scorer() -> None:
    chengdu = VariantValues.of(load_variant("chengdu"))
    assert chengdu.doublings["flush"] == 2 and chengdu.doublings["pairs"] == 2 and chengdu.payment(5) == 8
    hz = VariantValues.of(load_variant("hongzhong"))
    assert hz.shagui == 1 and hz.payment(6) == 64
    ms = VariantValues.of(load_variant("chiyu"))
    assert ms.payment(1) == 1000 and ms.payment(9) == 32000


def test_registry_parses_options_and_rejects_bad_specs() -> None:
    agent = make_agent("value:hongzhong_policy=shagui_when_stable,slack=1")
    assert isinstance(agent, ValueAgent) and agent.slack == 1
    assert parse_spec("external:python bot.py --x 1").argument == "python bot.py --x 1"
    with pytest.raises(ValueError, match="unknown agent"):
        parse_spec("grandmaster")
    with pytest.raises(ValueError, match="no option"):
        make_agent("greedy:speed=3")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("greedy:fast")
