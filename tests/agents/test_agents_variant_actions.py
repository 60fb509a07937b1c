"""The rule-based agents play the variant actions (agents/variant_play.py): 红中杠 / 赖子杠 / 吃 in 武汉, 飞 / 提 in
宜宾, 报胡 / 请胡 in 断卡根 — on scripted positions (taken and declined) and over seeded whole hands.

Positions come from the engine's fixed-start walls (tests/helpers/game.py); the agent sees only the observation and
the mask of its seat, exactly as in the AEC environment.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.defensive import DefensiveAgent
from agents.greedy import GreedyAgent
from agents.handeval import has_jiang_pair
from agents.registry import make_agent
from agents.value import ValueAgent
from agents.variant_play import chi_tiles
from envs.core.actions import (
    BAOHU_ID,
    CHI_BASE,
    FEI_ID,
    HU_ID,
    LAIZI_KONG_ID,
    PASS_ID,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
    action_name,
    decode,
    discard,
)
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, parse_counts
from envs.engine.game import Game
from envs.engine.observation import ObservationEncoder, legal_mask
from envs.engine.view import Phase
from envs.scoring.shanten import shanten
from tests.helpers.game import auto, build_wall, start, turn_of
from training.evaluation.evaluate import play_hand

T = kind_of
WUHAN = load_variant("wuhan")
YIBIN = load_variant("yibin")
DKG = load_variant("duankagen")
AGENTS = (GreedyAgent, ValueAgent, DefensiveAgent)


def decide(agent, game: Game, seat: int) -> tuple[int, np.ndarray]:
    """The agent's choice for ``seat`` at the game's current decision (and the mask it was given)."""
    agent.reset(seat, game.cfg)
    view = game.view(seat)
    obs = ObservationEncoder.from_config(game.cfg).encode(view)
    mask = legal_mask(view)
    choice = agent.act(obs, mask)
    assert mask[choice], f"{agent!r} chose illegal {action_name(choice)}"
    return choice, mask


# ---- 武汉: 红中杠, 赖子杠, 吃 ------------------------------------------------------------------------------------
_WUHAN_OTHERS = {
    1: "3m 7m 9m 1p 3p 7p 9p 2s 6s 8s 5z 1z 7z",
    2: "5s 2m 5m 8m 2p 8p 1s 9s 5z 3z 4z 6m 9m",
    3: "1m 4m 7m 1p 4p 9p 3s 7s 9s 1z 2z 3z 4z",
}


def _wuhan_dealer(hand: str) -> Game:
    """A Wuhan hand where the dealer (seat 0) holds ``hand`` (14 tiles); indicator 5p, so the 赖子 is 6p."""
    return build_wall(WUHAN, {0: hand, **_WUHAN_OTHERS}, "5p 7z 6z 2z").game()


@pytest.mark.parametrize("cls", AGENTS)
def test_red_kong_is_played_whenever_legal(cls) -> None:
    g = _wuhan_dealer("123m 456m 789m 11p 44s 5z")
    choice, _ = decide(cls(), g, 0)
    assert choice == RED_KONG_ID
    # the common actions only: the 红中 stays in the hand, which can then never win
    assert decide(GreedyAgent(variant_actions=False), g, 0)[0] < 34


@pytest.mark.parametrize("cls", AGENTS)
def test_laizi_kong_with_more_laizi_than_a_small_win_allows(cls) -> None:
    g = _wuhan_dealer("123m 456m 789m 11p 4s 6p 6p")
    assert g.wild_kinds == (T("6p"),)
    choice, _ = decide(cls(), g, 0)
    assert choice == LAIZI_KONG_ID


@pytest.mark.parametrize("cls", AGENTS)
def test_laizi_kong_when_the_laizi_is_spare_but_not_when_it_is_needed(cls) -> None:
    # four sets, a 9s and the 赖子: without the 赖子 the hand is as ready (9s single wait) -> play it out (a free
    # replacement draw and a x2 factor)
    g = _wuhan_dealer("123m 456m 789m 123p 9s 6p")
    choice, _ = decide(cls(), g, 0)
    assert choice == LAIZI_KONG_ID
    # here the 赖子 fills a gap: without it the hand is slower than after discarding the lone 1z
    hand = "123m 456m 79m 22p 55s 1z 6p"
    c = parse_counts(hand)
    c[T("6p")] -= 1
    c[T("1z")] -= 1
    assert shanten(c, 1) < shanten(parse_counts("123m 456m 79m 22p 55s 1z"), 0)
    g = _wuhan_dealer(hand)
    choice, _ = decide(cls(), g, 0)
    assert choice == T("1z")


def test_greedy_wuhan_discard_keeps_a_wait_with_a_2_5_8_pair() -> None:
    # 7s leaves 11s 55s (shanpon: the 1s wins with the pair 55s); 5s leaves 11s 57s (6s wins only by shape: 11s is
    # no 将 pair, so no small win)
    g = _wuhan_dealer("123m 456m 789p 11s 55s 7s")
    assert decide(GreedyAgent(), g, 0)[0] == T("7s")


def test_has_jiang_pair() -> None:
    assert has_jiang_pair(parse_counts("123m 456m 789p 234s 55s"), 0)
    assert not has_jiang_pair(parse_counts("123m 456m 789p 234s 11s"), 0)
    assert has_jiang_pair(parse_counts("123m 456m 789p 234s 5s"), 1)  # a wildcard completes the 将
    assert not has_jiang_pair(parse_counts("11223344556677m"), 0)  # seven pairs is not a Wuhan hand


def _wuhan_chi(seat1: str) -> Game:
    """The dealer throws 4m; seat 1 (its 下家) holds ``seat1`` and may chi."""
    others = dict(_WUHAN_OTHERS)
    others[1] = seat1
    g = build_wall(WUHAN, {0: "4m 1m 7m 9m 1p 4p 9p 1s 3s 5s 9s 5z 7z 3z", **{s: others[s] for s in (1, 2, 3)}}, "5p")
    g = g.game()
    g.step(0, discard(T("4m")))
    assert g.pending[0] == 1 and g.phase == Phase.CLAIM
    return g


@pytest.mark.parametrize("cls", AGENTS)
def test_chi_when_it_makes_the_hand_faster(cls) -> None:
    g = _wuhan_chi("35m 678s 234p 789p 2m 1z")  # 1-shanten; chi 3m4m5m (or 2m3m4m) leaves it ready
    choice, mask = decide(cls(), g, 1)
    assert mask[CHI_BASE + 1] and mask[CHI_BASE + 2]
    assert choice in (CHI_BASE + 1, CHI_BASE + 2)
    assert decide(GreedyAgent(variant_actions=False), g, 1)[0] == PASS_ID


@pytest.mark.parametrize("cls", AGENTS)
def test_no_chi_that_breaks_two_sets(cls) -> None:
    # ready (333m 555m 111z + 99p, waiting 6s/9s); the only chi takes 3m and 5m out of two triplets: one step slower
    hand = "333m 555m 111z 99p 78s"
    g = _wuhan_chi(hand)
    choice, mask = decide(cls(), g, 1)
    assert mask[CHI_BASE + 1] and not mask[PONG_ID]
    c = parse_counts(hand)
    for t in chi_tiles(T("4m"), 1):
        c[t] -= 1
    assert shanten(c, 0) > shanten(parse_counts(hand), 0)
    assert choice == PASS_ID


def test_chi_tiles() -> None:
    assert chi_tiles(T("4m"), 0) == (T("5m"), T("6m"))
    assert chi_tiles(T("4m"), 1) == (T("3m"), T("5m"))
    assert chi_tiles(T("4m"), 2) == (T("2m"), T("3m"))


# ---- 宜宾: 飞, 提 ----------------------------------------------------------------------------------------------------
_Y4_HANDS = {
    0: "123456789p 12379s",
    1: "7m 4s 1m 3m 5m 9m 2s 3s 8s 9s 1s 5s 8m",
    2: "123456789p 2m 4m 6m 8m",
    3: "1m 2m 3m 4m 5m 6m 2s 3s 5s 7s 8s 9s 9m",
}


def _yibin_fei(seat1: str | None = None) -> Game:
    """RULES §7.4 Y4: seat 3 throws 7m; seat 1 (one 7m and the 听用 4s, void 筒) may 飞 it (and nothing else)."""
    hands = dict(_Y4_HANDS)
    if seat1 is not None:
        hands[1] = seat1
    script = build_wall(YIBIN, hands, "5s 2p 3p 7m 4p 5p 6p 7m")
    g = script.game()
    start(g, script, "mppp")
    g.step(0, discard(T("1p")))
    auto(g, until=turn_of(3))
    g.step(3, discard(T("7m")))
    assert g.pending == (1,)
    return g


@pytest.mark.parametrize("cls", AGENTS)
def test_fei_when_it_makes_the_hand_faster_and_ti_when_the_natural_tile_comes(cls) -> None:
    # 12345m 7m 88m 123s 9s and the 听用 4s: the 飞 of 7m turns a lone 7m and the 听用 into a set, and the hand
    # after its best discard is one step faster
    g = _yibin_fei("12345788m 12349s")
    choice, mask = decide(cls(), g, 1)
    assert mask[FEI_ID] and not mask[PONG_ID] and choice == FEI_ID
    g.step(1, decode(choice))
    g.step(1, decode(decide(cls(), g, 1)[0]))
    auto(g, until=turn_of(1))
    assert g.drawn_tile == T("7m")
    choice, mask = decide(cls(), g, 1)
    assert choice == TI_BASE + T("7m")  # the 听用 comes back to the hand
    assert decide(GreedyAgent(variant_actions=False), g, 1)[0] < 34


@pytest.mark.parametrize(
    "hand",
    [
        "1356789m 477889s",  # the 飞 is one step slower (the pong rule)
        "123667899m 3347s",  # as fast: not worth the 听用
    ],
)
@pytest.mark.parametrize("cls", AGENTS)
def test_fei_declined_unless_it_makes_the_hand_faster(cls, hand: str) -> None:
    g = _yibin_fei(hand)
    c = parse_counts(hand)
    c[T("4s")] -= 1
    after = list(c)
    after[T("7m")] -= 1
    assert shanten(after, 0) >= shanten(c, 1)
    choice, mask = decide(cls(), g, 1)
    assert mask[FEI_ID] and not mask[HU_ID] and choice == PASS_ID


def test_fei_with_three_natural_copies_in_hand_stays_consistent() -> None:
    # seat 1 holds 777m and the 听用 4s; after a 飞 of 7m (one natural + the 听用) two 7m stay in the hand next to a
    # meld shown as a pong: the agents must still count at most four copies of 7m
    hands = dict(_Y4_HANDS)
    hands[1] = "777m 4s 1m 3m 5m 9m 2s 3s 8s 9s 1s"
    script = build_wall(YIBIN, hands, "5s 2p 3p 7m 4p 5p 6p 8m")
    g = script.game()
    start(g, script, "mppp")
    g.step(0, discard(T("1p")))
    auto(g, until=turn_of(3))
    g.step(3, discard(T("7m")))
    for cls in AGENTS:
        _, mask = decide(cls(), g, 1)
        assert mask[FEI_ID] and mask[PONG_ID]
    g.step(1, decode(FEI_ID))
    assert g.hand_of(1)[T("7m")] == 2
    for cls in AGENTS:
        choice, _ = decide(cls(), g, 1)
        assert choice < 34


# ---- 断卡根: 报胡, 请胡 ----------------------------------------------------------------------------------------
_D2_HANDS = {0: "1478p 1234678s", 1: "46p 123s 789s 22p", 2: "14689p 12567s", 3: "12348p 14578s"}


@pytest.mark.parametrize("cls", AGENTS)
def test_baohu_when_ready_with_live_waits(cls) -> None:
    g = build_wall(DKG, _D2_HANDS, "3p 9p 5p").game()
    g.step(0, discard(T("1s")))
    assert g.phase == Phase.DECLARE and g.pending == (1,)
    assert decide(cls(), g, 1)[0] == BAOHU_ID  # ready (46p waits on 5p: four live copies)
    assert decide(GreedyAgent(variant_actions=False), g, 1)[0] == PASS_ID


@pytest.mark.parametrize("cls", [GreedyAgent, ValueAgent])
def test_baohu_declined_with_too_few_live_waits(cls) -> None:
    g = build_wall(DKG, _D2_HANDS, "3p 9p 5p").game()
    g.step(0, discard(T("1s")))
    assert decide(cls(baohu_min_live=4), g, 1)[0] == BAOHU_ID
    assert decide(cls(baohu_min_live=5), g, 1)[0] == PASS_ID


@pytest.mark.parametrize("cls", AGENTS)
def test_dealer_declares_baohu_with_a_ready_discard(cls) -> None:
    hands = {0: "123p 456p 789p 6s 9s", 1: "12589p 15789s", 2: "23469p 13789s", 3: "269p 2345679s"}
    g = build_wall(DKG, hands).game()
    choice, _ = decide(cls(), g, 0)
    assert choice == BAOHU_ID
    g.step(0, decode(choice))
    choice, _ = decide(cls(), g, 0)
    assert choice in (T("6s"), T("9s"))


@pytest.mark.parametrize("cls", AGENTS)
def test_qinghu_is_requested(cls) -> None:
    hands = {0: "11s 44s 66s 88s 33p 9p", 1: "3468p 245678s", 2: "256p 1235679s", 3: "12478p 13579s"}
    g = build_wall(DKG, hands).game()
    choice, _ = decide(cls(), g, 0)
    assert choice == QINGHU_BASE + T("9p")
    assert decide(GreedyAgent(variant_actions=False), g, 0)[0] < 34


# ---- whole hands ---------------------------------------------------------------------------------------------------
class _Counting:
    """Wraps an agent: checks every choice against the mask and counts the variant actions it plays."""

    def __init__(self, inner, counts: Counter) -> None:
        self.inner = inner
        self.counts = counts

    def reset(self, seat, variant) -> None:
        self.inner.reset(seat, variant)

    def act(self, observation, mask) -> int:
        choice = self.inner.act(observation, mask)
        assert mask[choice], f"{self.inner!r} chose illegal {action_name(choice)}"
        if choice >= CHI_BASE:
            self.counts[action_name(choice).split()[0]] += 1
        return choice


_EXPECTED = {
    "wuhan": {"red_kong", "laizi_kong", "chi"},
    "yibin": {"fei", "ti"},
    "duankagen": {"baohu", "qinghu_discard"},
}
# (first hand seed, hands); the 断卡根 range holds a 请胡 shape (five pairs and a single: rare) for every agent
_HANDS = {"wuhan": (700, 8), "yibin": (700, 12), "duankagen": (790, 40)}


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["greedy", "value", "defensive"])
@pytest.mark.parametrize("variant", sorted(_EXPECTED))
def test_agents_use_the_variant_actions_in_seeded_hands(variant: str, spec: str) -> None:
    cfg = load_variant(variant)
    counts: Counter = Counter()
    first, hands = _HANDS[variant]
    for h in range(first, first + hands):
        agents = [_Counting(make_agent(spec, seed=s), counts) for s in range(cfg.num_players)]
        game = play_hand(cfg, h, agents)
        assert game.is_over and sum(game.scores) == 0
    assert _EXPECTED[variant] <= set(counts), dict(counts)
