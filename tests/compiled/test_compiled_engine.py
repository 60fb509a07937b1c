"""The compiled engine (envs.compiled) against the Python engine (envs.engine.game.Game), decision by decision.

Differential tests: the same wall, dealer and 换三张 offset are dealt to a :class:`~envs.engine.game.Game` and to a
kernel row; at every decision both must name the same acting seat and the same legal mask, the same action goes to both,
the kernel's events are settled by the ledger, and then the whole row must equal the Game mirrored into the layout
(:func:`envs.compiled.mirror.state_of_game`: hands, melds, discards, locks, windows, wins, scores ...) and the
compiled observation of the acting seat must equal the Python encoder's.  Games are played by uniformly random and
by win-seeking policies, on the ``chengdu`` preset and on every rule flag the kernel reads, plus scripted deals for
the rare paths (天胡 without a drawn tile).  ``tests/envs/test_compiled_vector_env.py`` compares the batched envs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from envs.compiled import kernel as K
from envs.compiled import layout as L
from envs.compiled import win_check as H
from envs.compiled.encode import encode_row
from envs.compiled.ledger import Ledger
from envs.compiled.mirror import state_of_game
from envs.compiled.support import check_supported, rule_vector, unsupported, win_table
from envs.core.actions import (
    BAOHU_ID,
    CHI_BASE,
    DINGQUE_BASE,
    EXCHANGE_BASE,
    FEI_ID,
    HU_ID,
    KONG_BASE,
    LAIZI_KONG_ID,
    PASS_ID,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
    decode,
    exchange,
)
from envs.core.rule_config import load_variant
from envs.core.tiles import parse_counts, parse_tiles
from envs.core.wall import tile_multiset
from envs.engine.game import Game, UnsupportedRule
from envs.engine.observation import SLICES, ObservationEncoder, game_mask
from envs.engine.view import Phase
from envs.scoring.shanten import shanten
from tests.engine.test_game_settlement import BANKRUPTCY_CASES
from tests.helpers.compiled import seat0_row
from tests.helpers.game import scripted_game
from tests.helpers.scripted_deals import r5_policy, r5_script

CFG = load_variant("chengdu")
TABLE = win_table()
Chooser = Callable[[Game, int, np.ndarray, np.random.Generator], int]


# ---- policies ---------------------------------------------------------------------------------------------------
def uniform(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    return int(ids[rng.integers(len(ids))])


def win_seeking(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    """HU (80%: the rest passes and locks), kongs (80%), pongs (70%), discards keeping the shanten low (90%)."""
    legal = set(ids.tolist())
    if HU_ID in legal and rng.random() < 0.8:
        return HU_ID
    kongs = [a for a in ids if KONG_BASE <= a < KONG_BASE + 34]
    if kongs and rng.random() < 0.8:
        return int(kongs[rng.integers(len(kongs))])
    if PONG_ID in legal and rng.random() < 0.7:
        return PONG_ID
    discards = [int(a) for a in ids if a < 34]
    if discards and game.phase is Phase.SELF and rng.random() < 0.9:
        hand = game.hands[seat]
        best, best_value = discards[0], float("inf")
        for k in discards:
            hand[k] -= 1
            value = shanten(hand) + 0.5 * rng.random()
            hand[k] += 1
            if value < best_value:
                best, best_value = k, value
        return best
    return uniform(game, seat, ids, rng)


# ---- the lockstep driver ---------------------------------------------------------------------------------------------
def _field_diff(want: np.ndarray, got: np.ndarray) -> list[str]:
    out = []
    for name, (start, length) in L.FIELDS.items():
        a, b = want[start : start + length], got[start : start + length]
        if not np.array_equal(a, b):
            out.append(f"{name}: python {a.tolist()} compiled {b.tolist()}")
    return out


def lockstep(game: Game, choose: Chooser, rng: np.random.Generator, seen: Counter) -> None:
    """Play ``game`` to its end with ``choose``, the kernel in step; assert equality after every decision."""
    cfg = game.cfg
    rules = rule_vector(cfg)
    encoder = ObservationEncoder.from_config(cfg)
    row = np.zeros(L.STATE_SIZE, dtype=np.int32)
    events, counts = K.empty_events(1)
    wall = np.asarray(game._wall, dtype=np.int32)
    K.deal(row, wall, game.dealer, game.exchange_offset or 0, rules, TABLE, events[0], counts[0:1])
    ledger = Ledger(cfg, TABLE)
    ledger.settle(row, events[0], counts[0:1], rules)
    picks: list[list[int]] = [[] for _ in range(game.n)]
    mask = np.zeros(183, dtype=np.int8)
    obs = np.zeros((106, 34), dtype=np.float32)
    base = float(cfg.base_unit)
    diff = _field_diff(state_of_game(game, picks), row)
    assert not diff, f"after the deal: {diff}"
    step = 0
    while not game.is_over:
        seat = game.pending[0]
        assert K.acting_seat(row) == seat, f"step {step}: acting seat"
        want = game_mask(game, seat, picks[seat])
        K.legal_mask(row, seat, rules, TABLE, mask)
        assert np.array_equal(want, mask), f"step {step}: masks {np.flatnonzero(want)} vs {np.flatnonzero(mask)}"
        encode_row(row, seat, base, obs)
        np.testing.assert_array_equal(obs, encoder.encode(game.view(seat), exchange_picks=picks[seat]))
        a = choose(game, seat, np.flatnonzero(want), rng)
        seen[f"{game.phase.value}:{_kind(a)}"] += 1
        if EXCHANGE_BASE <= a < EXCHANGE_BASE + 34:
            picks[seat].append(a - EXCHANGE_BASE)
            if len(picks[seat]) == 3:
                game.step(seat, exchange(picks[seat]))
                picks[seat] = []
        else:
            game.step(seat, decode(a))
        counts[0] = 0
        K.apply_action(row, seat, a, rules, TABLE, events[0], counts[0:1])
        seen.update(f"event:{int(e)}" for e in events[0, : counts[0], K.E_TYPE])
        ledger.settle(row, events[0], counts[0:1], rules)
        step += 1
        diff = _field_diff(state_of_game(game, picks), row)
        assert not diff, f"step {step}, seat {seat}, action {a} ({decode(a) if a < EXCHANGE_BASE else a}): {diff}"
    assert ledger.scores == list(game.scores)
    seen.update(f"win:{w.how}" for w in game.wins)
    seen.update(f"transfer:{t.reason}" for t in game.transfers)
    seen["exhausted" if game.exhausted else "ended_by_wins"] += 1


def _kind(a: int) -> str:
    if a < 34:
        return "discard"
    if a < 68:
        return "kong"
    if a == BAOHU_ID:
        return "baohu"
    if QINGHU_BASE <= a < QINGHU_BASE + 34:
        return "qinghu"
    if a == FEI_ID:
        return "fei"
    if CHI_BASE <= a < CHI_BASE + 3:
        return "chi"
    if a in (RED_KONG_ID, LAIZI_KONG_ID):
        return "red_kong" if a == RED_KONG_ID else "laizi_kong"
    if TI_BASE <= a < TI_BASE + 34:
        return "ti"
    return {PONG_ID: "pong", HU_ID: "hu", PASS_ID: "pass"}.get(a, "exchange" if a < DINGQUE_BASE else "dingque")


def play_many(cfg, seeds, choose: Chooser) -> Counter:
    seen: Counter = Counter()
    for seed in seeds:
        lockstep(Game(cfg, seed=seed, record_events=False), choose, np.random.default_rng(seed), seen)
    return seen


# ---- the preset --------------------------------------------------------------------------------------------------
def test_random_play_matches_the_python_engine():
    seen = play_many(CFG, range(60), uniform)
    assert seen["exhausted"] > 0 and seen["self:kong"] > 0 and seen["claim:pong"] > 0, dict(seen)
    assert seen["transfer:tuishui"] > 0 and seen["transfer:huazhu"] + seen["transfer:chadajiao"] > 0, dict(seen)


def test_win_seeking_play_matches_the_python_engine():
    """Wins of every kind, 一炮多响, 呼叫转移, refunds, 查大叫 and the pass locks all happen (asserted)."""
    seen = play_many(CFG, range(1000, 1240), win_seeking)
    for name in (
        "win:zimo", "win:dianpao", "claim:pass", "claim:kong", "self:kong", "transfer:kong_exposed",
        "transfer:kong_concealed", "transfer:kong_added", "transfer:hujiao_zhuanyi", "transfer:chadajiao",
        "transfer:tuishui", "exhausted", "ended_by_wins",
    ):  # fmt: skip
        assert seen[name] > 0, f"never reached {name}: {dict(seen)}"


def test_xueliu_matches_the_python_engine():
    """血流成河: winners play on with frozen, revealed hands (kongs only when they keep the waits) until exhaustion."""
    seen = play_many(load_variant("xueliu"), range(2000, 2120), win_seeking)
    seen += play_many(load_variant("xueliu"), range(2200, 2230), uniform)
    for name in ("win:zimo", "win:dianpao", "self:kong", "claim:kong", "transfer:chadajiao", "exhausted"):
        assert seen[name] > 0, f"never reached {name}: {dict(seen)}"
    assert seen["ended_by_wins"] == 0


def test_chiyu_and_bankruptcies_match_the_python_engine():
    """赤羽之战 (points from 50000, a bankrupt seat ends the hand) and 成都 from 4 points, where payments often
    bankrupt a seat mid-hand: the kernel stops after each payment, the ledger ends the hand or lets it go on."""
    seen = play_many(load_variant("chiyu"), range(4000, 4060), win_seeking)
    low = load_variant("chengdu", start_points=4)
    bankrupt = 0
    for seed in range(4100, 4180):
        game = Game(low, seed=seed, record_events=False)
        lockstep(game, win_seeking, np.random.default_rng(seed), seen)
        bankrupt += game.bankrupt and not finished_by_wins(game)
    assert bankrupt >= 10 and seen["win:zimo"] and seen["win:dianpao"], (bankrupt, dict(seen))


@pytest.mark.parametrize(
    ("hands", "start", "exhausted", "bankrupt", "broke_at"),
    [c[1:] for c in BANKRUPTCY_CASES],
    ids=[c[0] for c in BANKRUPTCY_CASES],
)
def test_bankruptcy_at_every_settlement_step_matches_the_python_engine(hands, start, exhausted, bankrupt, broke_at):
    """RULES' R5 (赤羽) from low start points: a kong payment, a self-draw, or the draw's 查花猪 / 查大叫 / 退税
    leaves a seat below zero — both engines end the hand at the same point with the same ``bankrupt`` flag (the
    layout's ``BANKRUPT``, compared with ``Game.bankrupt`` after every decision)."""
    script = r5_script(load_variant("chiyu", start_points=start), hands)
    game = script.game()
    policy = r5_policy(script)
    lockstep(game, lambda g, seat, ids, rng: policy(g, seat, ids), np.random.default_rng(0), Counter())
    assert (game.exhausted, game.bankrupt) == (exhausted, bankrupt)


def finished_by_wins(game: Game) -> bool:
    return sum(game.won) >= game.n - 1


def test_hongzhong_matches_the_python_engine():
    """红中: four wildcards (wins, waits and pig checks through them), dead 红中 discards, no pong / kong of 红中."""
    cfg = load_variant("hongzhong")
    seen = play_many(cfg, range(3000, 3150), win_seeking)
    seen += play_many(cfg, range(3200, 3240), uniform)
    for name in ("win:zimo", "win:dianpao", "claim:pass", "self:kong", "transfer:chadajiao", "exhausted"):
        assert seen[name] > 0, f"never reached {name}: {dict(seen)}"


def test_two_player_matches_the_python_engine():
    """两人麻将: two seats (turns, deals, claims and 查大叫 among them), 平胡 refused on a discard (the kernel asks the
    compiled scorer), cap 4."""
    cfg = load_variant("two_player")
    seen = play_many(cfg, range(5000, 5100), win_seeking)
    seen += play_many(cfg, range(5200, 5220), uniform)
    for name in ("win:zimo", "win:dianpao", "claim:pong", "self:kong", "transfer:chadajiao", "exhausted"):
        assert seen[name] > 0, f"never reached {name}: {dict(seen)}"


@pytest.mark.parametrize(
    "flags",
    [
        {"num_players": 3, "allow_pinghu_on_discard": True},
        {"exchange_mode": "swap3", "exchange_direction": "opposite", "multi_ron": False},
        {"num_players": 3, "exchange_mode": "swap3", "exchange_direction": "random3", "start_points": 6},
    ],
    ids=["three_seats", "two_seats_exchange", "three_seats_exchange_bankruptcy"],
)
def test_smaller_tables_match_the_python_engine(flags):
    cfg = load_variant("two_player", **flags)
    assert not unsupported(cfg)
    play_many(cfg, range(40), win_seeking)
    play_many(cfg, range(40, 50), uniform)


@pytest.mark.parametrize(("hand", "offered"), [("123m456m789m2345p", False), ("111m444m777m222p5p", True)])
def test_two_player_pinghu_cannot_win_on_a_discard(hand, offered):
    """A plain 平胡 waiting on the dealer's 5p is not offered HU on it (no fan: ``allow_pinghu_on_discard``);
    a 对对胡 is."""
    cfg = load_variant("two_player")
    game = Game(cfg, wall=_dealt(cfg, {0: "5p", 1: hand}), dealer=0)
    first_look = []

    def scripted(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
        if game.phase is Phase.DINGQUE:
            return DINGQUE_BASE + 2  # both void 条: seat 1 holds none
        if seat == 0 and not first_look:
            return parse_tiles("5p")[0]  # the dealer's first discard
        if seat == 1 and not first_look:
            first_look.append(game.phase is Phase.CLAIM and HU_ID in ids)
        return uniform(game, seat, ids, rng)

    lockstep(game, scripted, np.random.default_rng(0), Counter())
    assert first_look == [offered]


def test_hongzhong_with_two_suits_and_ten_tiles_matches_the_python_engine():
    """The 红中 wildcards stand only for tiles of the suits in play (and not the void suit)."""
    cfg = load_variant("hongzhong", suits="sp", hand_size=10, exchange_mode="none")
    seen = play_many(cfg, range(30), win_seeking)
    assert seen["win:zimo"] and seen["win:dianpao"] and seen["transfer:huazhu"], dict(seen)


def duankagen_seeking(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    """断卡根: 报胡 (70%) and 请胡 (60%) whenever offered, else :func:`win_seeking`."""
    if BAOHU_ID in ids and rng.random() < 0.7:
        return BAOHU_ID
    requests = [int(a) for a in ids if QINGHU_BASE <= a < QINGHU_BASE + 34]
    if requests and rng.random() < 0.6:
        return requests[0]
    return win_seeking(game, seat, ids, rng)


def play_duankagen(cfg, seeds, choose: Chooser) -> Counter:
    seen: Counter = Counter()
    for seed in seeds:
        game = Game(cfg, seed=seed, record_events=False)
        lockstep(game, choose, np.random.default_rng(seed), seen)
        seen["baohu_declared"] += sum(game.vstate.baohu)
        seen["forfeited"] += sum(game.vstate.forfeit)
        seen["qinghu_requested"] += sum(game.vstate.qinghu)
        seen["qinghu_caught"] += sum(w.how == "dianpao" and game.vstate.qinghu[w.from_seat] for w in game.wins)
    return seen


def test_duankagen_matches_the_python_engine():
    """断卡根: 报胡 before the first draw and the dealer's BAOHU, forfeits, 请胡 (won by its requester or caught), the
    小胡 rule (the kernel asks the Python scorer before offering a win), 报胡 penalties, 赔喜 and 查叫."""
    cfg = load_variant("duankagen")
    seen = play_duankagen(cfg, range(6000, 6300), duankagen_seeking)
    seen += play_duankagen(cfg, range(6400, 6420), uniform)
    for name in (
        "declare:baohu", "declare:pass", "self:baohu", "self:qinghu", "forfeited", "win:zimo", "win:dianpao",
        "transfer:xi", "transfer:chadajiao", "exhausted", "ended_by_wins",
    ):  # fmt: skip
        assert seen[name] > 0, f"never reached {name}: {dict(seen)}"


def test_dianganghua_paid_as_a_discard_shows_its_winning_tile():
    """点杠花 with ``dianganghua = "dianpao"`` (paid by the kong's discarder, ``WinInfo.from_seat`` set) is still a
    self-drawn tile set aside face up: every observation counts it as visible, so the visible (own hand included)
    and hidden copies add up to the whole set (the Python encoder once skipped it: ``from_seat`` was not None)."""
    cfg = load_variant("chengdu", dianganghua="dianpao", exchange_mode="none", dingque=False)
    game = Game(cfg, wall=_dealt(cfg, {0: "5s", 1: "555s123m456m789m1p"}, first_draws="1p"), dealer=0)
    encoder = ObservationEncoder.from_config(cfg)
    checked = []

    def scripted(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
        if game.wins and not checked:  # the first decision after the win
            for q in range(cfg.num_players):
                visible = encoder.encode(game.view(q))[SLICES["visible"].start]
                others = sum(sum(game.hand_of(p)) for p in range(cfg.num_players) if p != q)
                assert visible.sum() + others + game.wall_remaining == cfg.num_tiles, q  # own hand included
            checked.append(True)
        if seat == 0 and not game.discards[0]:
            return parse_tiles("5s")[0]
        for a in (HU_ID, KONG_BASE + parse_tiles("5s")[0]):
            if seat == 1 and a in ids:
                return a
        return passive(game, seat, ids, rng)

    lockstep(game, scripted, np.random.default_rng(0), Counter())
    win = game.wins[0]
    assert (win.seat, win.how, win.from_seat, win.tile) == (1, "zimo", 0, parse_tiles("1p")[0])
    assert checked


@pytest.mark.parametrize("caught", [True, False])
def test_duankagen_qinghu_single_caught_or_won_by_its_requester(caught):
    """The dealer's five pairs and a single: it plays ``QINGHU_DISCARD`` on its first action; seat 1, waiting on the
    single with a 小胡, may win on it (请胡炮); when it passes, the requester wins 请胡 and plays on committed."""
    cfg = load_variant("duankagen")
    game = Game(cfg, wall=_dealt(cfg, {0: "1133557799s2p", 1: "234s456p789p2p"}), dealer=0)
    played = []

    def scripted(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
        if not played:
            assert seat == 0 and QINGHU_BASE + parse_tiles("2p")[0] in ids, ids
            played.append(seat)
            return QINGHU_BASE + parse_tiles("2p")[0]
        if len(played) == 1:
            played.append(seat)
            assert game.phase is Phase.CLAIM and sorted(ids) == [HU_ID, PASS_ID], ids
            return HU_ID if caught else PASS_ID
        return passive(game, seat, ids, rng)

    lockstep(game, scripted, np.random.default_rng(0), Counter())
    first = game.wins[0]
    assert (first.seat, first.how, first.from_seat) == ((1, "dianpao", 0) if caught else (0, "qinghu", None))


@pytest.mark.parametrize(
    "flags",
    [
        {"fan_table": "dkg_wanghu", "cap_doublings": 5, "dkg_qinghu_catch_bonus": 2, "dkg_zimo_units": 2},
        {"dkg_xiaohu_zimo_vs_baohu": True, "dianganghua": "dianpao", "chadajiao": "min"},
        {"dkg_zimo_plus_one_fan": True, "dkg_xiaohu_exceptions": [], "claims_on_last_discard": "all"},
        {"dkg_tier_units": list(range(1, 18)), "dkg_xiaohu_zimo_vs_baohu": True},  # past the compiled scorer
    ],
    ids=["wanghu", "xiaohu_zimo_vs_baohu", "no_exceptions", "python_verdict"],
)
def test_duankagen_options_match_the_python_engine(flags):
    """Each flag set through the compiled 断卡根 scorer (kernel V_DKG), the last through the Python scorer's
    verdict (V_PYTHON: a configuration the compiled scorer does not cover)."""
    cfg = load_variant("duankagen", **flags)
    assert not unsupported(cfg)
    want = K.V_PYTHON if "dkg_tier_units" in flags else K.V_DKG
    assert rule_vector(cfg)[K.R_VERDICT] == want
    play_duankagen(cfg, range(60), duankagen_seeking)


def _dealt(cfg, hands: dict[int, str], first_draws: str = "") -> list[int]:
    """A wall dealing ``hands`` (dealer 0; each seat topped up from the unused tiles in kind order) whose first
    draws after the deal are ``first_draws``."""
    rest = list(tile_multiset(cfg))  # ascending kinds
    given = {q: parse_tiles(h) for q, h in hands.items()}
    for k in [k for tiles in given.values() for k in tiles] + parse_tiles(first_draws):
        rest.remove(k)
    wall = []
    for q in range(cfg.num_players):
        own = given.get(q, [])
        size = cfg.hand_size + (1 if q == 0 else 0)
        wall += own + [rest.pop(0) for _ in range(size - len(own))]
    return wall + parse_tiles(first_draws) + rest


def passive(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    """Pass every claim, never win: discards and picks at random."""
    if PASS_ID in ids:
        return PASS_ID
    playable = [a for a in ids if a != HU_ID and not KONG_BASE <= a < KONG_BASE + 34]
    return int(playable[rng.integers(len(playable))])


@pytest.mark.parametrize(
    "flags",
    [{}, {"hz_four_red_ends_hand": True}, {"exchange_mode": "none", "dingque": False}, {"hz_four_red_instant": False}],
    ids=["instant", "ends_hand", "at_the_deal", "no_instant"],
)
def test_four_red_dragons(flags):
    """Four 红中 win at once (how ``instant``): dealt to the dealer (before its first action; at the deal itself
    without 换三张 / 定缺), or completed by a seat's draw; plain hands without the rule."""
    cfg = load_variant("hongzhong", **flags)
    instant = cfg.hz_four_red_instant
    exchange = 1 if cfg.exchange_mode == "swap3" else None
    seen: Counter = Counter()
    game = Game(cfg, wall=_dealt(cfg, {0: "5555z"}), dealer=0, exchange_offset=exchange)
    lockstep(game, win_seeking, np.random.default_rng(1), seen)
    assert (game.wins[0].how == "instant" and game.wins[0].seat == 0) == instant
    if instant and cfg.hz_four_red_ends_hand:
        assert len(game.wins) == 1 and not game.exhausted
    game = Game(cfg, wall=_dealt(cfg, {1: "555z"}, first_draws="5z"), dealer=0, exchange_offset=exchange)
    lockstep(game, passive, np.random.default_rng(2), seen)
    assert (seen["win:instant"] == 2) == instant, dict(seen)


@pytest.mark.slow
def test_many_more_games_match_the_python_engine():
    seen = play_many(CFG, range(5000, 7000), win_seeking)
    seen += play_many(CFG, range(8000, 9000), uniform)
    seen += play_many(load_variant("xueliu"), range(9000, 10000), win_seeking)
    seen += play_many(load_variant("hongzhong"), range(10000, 11500), win_seeking)
    seen += play_many(load_variant("chiyu"), range(12000, 12500), win_seeking)
    seen += play_many(load_variant("chengdu", start_points=6), range(13000, 13500), win_seeking)
    assert seen["win:qianggang"] > 0 and seen["transfer:hujiao_zhuanyi"] > 0, dict(seen)


# ---- every flag the kernel reads, and the Python-side options ------------------------------------------------------
FLAG_SETS = [
    {"multi_ron": False},
    {"kong_draw_from": "back", "kong_on_last_tile": True},
    {"claims_on_last_discard": "all"},
    {"pass_hu_lock": "none", "pass_pong_lock": False},
    {"after_rob_next": "after_robbed", "dihu_definition": "include_first_discard", "tiandihu": "cap"},
    {"exchange_mode": "none", "must_discard_void_first": False},
    {"dingque": False, "exchange_direction": "next"},
    {"hujiao_zhuanyi": "split", "dianganghua": "dianpao", "refund_kong_if_not_ready": False},
    {"huazhu_definition": "three_suits", "chadajiao": "min", "kong_payment": "mahjongsoul", "base_unit": 1000},
    {"fan_table": "mahjongsoul", "cap_doublings": 5, "zimo_bonus": "jiafan"},
    {"reveal_winner_hand": True},
    {"continuation": "xueliu", "xueliu_kong_requires_same_waits": False, "kong_draw_from": "back"},
    {"suits": "sp", "hand_size": 10, "exchange_mode": "none", "dingque": False, "must_discard_void_first": False},
    {"suits": "mp"},  # 定缺 between the two suits in play
    {"suits": "ps", "hand_size": 7, "exchange_mode": "none"},
    {"continuation": "single", "multi_ron": False},  # the first win ends the hand
]


@pytest.mark.parametrize("flags", FLAG_SETS, ids=lambda f: ",".join(f))
def test_rule_flags_match_the_python_engine(flags):
    cfg = load_variant("chengdu", **flags)
    assert not unsupported(cfg)
    play_many(cfg, range(30), win_seeking)
    play_many(cfg, range(30, 40), uniform)


# ---- scripted: 天胡 without a drawn tile ----------------------------------------------------------------------------
def _wall(hands: dict[int, str]) -> list[int]:
    """Seats 0-3 dealt ``hands`` (dealer 0: its 14th tile last), the rest of the 108 tiles after them."""
    rest = [k for k in range(27) for _ in range(4)]
    wall = []
    for seat in range(L.NP):
        tiles = parse_tiles(hands[seat])
        for k in tiles:
            rest.remove(k)
        wall += tiles
    return wall + rest


def test_tianhu_after_the_exchange_took_the_last_dealt_tile():
    """The dealer passes its 14th dealt tile in 换三张 and receives a complete hand: HU with no drawn tile, valued
    with its best tile (the ledger chooses it as Game._self_win_choice does)."""
    cfg = load_variant("chengdu", tiandihu="fixed8")
    hands = {0: "123m456m789m11p239s", 1: "1114445556667s", 2: "7778888s122356p", 3: "234p567p888p9p999m"}
    game = Game(cfg, wall=_wall(hands), dealer=0, exchange_offset=1)
    plan = {0: [2 * 9 + 1, 2 * 9 + 2, 2 * 9 + 8], 3: [10, 11, 12]}  # 2s 3s 9s out; 2p 3p 4p to the dealer
    tianhu = []

    def scripted(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
        if game.phase is Phase.EXCHANGE and seat in plan:
            return EXCHANGE_BASE + plan[seat].pop(0)
        if game.phase is Phase.DINGQUE:
            return DINGQUE_BASE + (2 if seat == 0 else int(ids[0]) - DINGQUE_BASE)
        if game.phase is Phase.SELF and seat == 0 and HU_ID in ids and game.drawn_tile is None:
            tianhu.append(game.hand_of(0))
            return HU_ID
        return uniform(game, seat, ids, rng)

    seen: Counter = Counter()
    lockstep(game, scripted, np.random.default_rng(0), seen)
    assert tianhu == [tuple(parse_counts("123m456m789m11p234p"))]
    win = game.wins[0]
    assert (win.seat, win.how, win.from_seat) == (0, "zimo", None)


# ---- 宜宾 Yibin: 本金 / 听用, 飞 / 提, 过胡 with the higher-win exception, forced wins -------------------------------
def yibin_seeking(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    """飞 (70%) and 提 (70%) when offered, else :func:`win_seeking`."""
    legal = set(ids.tolist())
    if FEI_ID in legal and rng.random() < 0.7:
        return FEI_ID
    ti = [int(a) for a in ids if TI_BASE <= a < TI_BASE + 34]
    if ti and rng.random() < 0.7:
        return ti[0]
    return win_seeking(game, seat, ids, rng)


def play_mixed(cfg, seeds, choose: Chooser) -> Counter:
    """Every third game uniformly random, the others with ``choose``."""
    seen: Counter = Counter()
    for seed in seeds:
        policy = uniform if seed % 3 == 0 else choose
        lockstep(Game(cfg, seed=seed, record_events=False), policy, np.random.default_rng(seed), seen)
    return seen


def test_yibin_matches_the_python_engine():
    """The 本金 flip and its 听用 wildcards (never discarded, no suit), 飞 claims and 提, pongs refused when only 听用
    would remain, 过胡 locks that give way to a higher win, the last four tiles' forced wins, 查大叫 with 听用."""
    cfg = load_variant("yibin")
    seen = play_mixed(cfg, range(150), yibin_seeking)
    for key in ("claim:fei", "self:ti", "claim:pass", "win:zimo", "win:dianpao", "transfer:chadajiao"):
        assert seen[key] >= 3, (key, seen)
    assert seen["exhausted"] >= 20 and seen["ended_by_wins"] >= 20, seen


@pytest.mark.parametrize(
    "flags",
    [
        {"yibin_fei_max_wild": 2, "indicator_removed_from_wall": False},
        {"forced_hu_last_n": 12, "multi_ron": False},
        {"continuation": "xueliu"},  # frozen kongs keep the waits counted with the 听用
    ],
    ids=lambda f: ",".join(f),
)
def test_yibin_options_match_the_python_engine(flags):
    seen = play_mixed(load_variant("yibin", **flags), range(40), yibin_seeking)
    assert seen["claim:fei"] >= 3 and seen["self:ti"] >= 1, seen


@pytest.mark.parametrize(
    ("variant", "flags"),
    [
        ("chengdu", {"pass_hu_allow_higher": True}),
        ("chengdu", {"forced_hu_last_n": 8}),
        ("hongzhong", {"pass_hu_allow_higher": True, "forced_hu_last_n": 4}),
    ],
    ids=lambda v: v if isinstance(v, str) else ",".join(v),
)
def test_higher_wins_and_forced_wins_match_the_python_engine(variant, flags):
    """过胡 with the higher-win exception (the compiled scorer values each offer) and forced wins, Yibin's rules,
    on other tables."""
    seen = play_many(load_variant(variant, **flags), range(40), win_seeking)
    assert seen["claim:pass"] >= 5 and seen["claim:hu"] >= 5, seen


# ---- 武汉 Wuhan: 赖子, 吃, 红中杠 / 赖子杠, the 海底 phase, one winner, hidden 暗杠 ----------------------------------
def wuhan_seeking(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
    """吃 (60%), 红中杠 / 赖子杠 (70%) when offered, else :func:`win_seeking`."""
    legal = set(ids.tolist())
    chis = [int(a) for a in ids if CHI_BASE <= a < CHI_BASE + 3]
    if chis and rng.random() < 0.6:
        return chis[int(rng.integers(len(chis)))]
    for a in (RED_KONG_ID, LAIZI_KONG_ID):
        if a in legal and rng.random() < 0.7:
            return a
    return win_seeking(game, seat, ids, rng)


def test_wuhan_matches_the_python_engine():
    """The 赖子 flip, 吃 by the next seat, 红中杠 / 赖子杠 and their replacement draws, kongs right after a claim, must
    open and no 红中 to win, the 海底 draws, one winner paid by all three others (factors, caps, 承包)."""
    seen = play_mixed(load_variant("wuhan"), range(160), wuhan_seeking)
    for key in ("claim:chi", "self:red_kong", "self:laizi_kong", "win:zimo", "win:dianpao", "transfer:dianpao"):
        assert seen[key] >= 5, (key, seen)
    assert seen["exhausted"] >= 20 and seen["ended_by_wins"] >= 20, seen


@pytest.mark.parametrize(("first", "chis"), [("4p", []), ("4m", [1])])
def test_wuhan_chi_never_uses_the_laizi(first, chis):
    """RULES §4.8.1: no 吃 with the 赖子.  S1 holds 5p and the 赖子 6p (indicator 5p): S0's 4p offers no chi (the
    4-5-6 would hold the 赖子) and S1 just draws; S0's 4m offers the 3-4-5 (S1 holds 3m 5m).  Both engines agree on
    every mask."""
    hands = {
        0: "4m 4p 1m 9m 1p 9p 1s 9s 2s 3s 5z 7z 1z 2z",
        1: "35m 5p 6p 7s 8s 9s 1z 3z 4z 5z 6z 7z",
        2: "35m 35p 1s 2s 4s 5s 8s 1z 3z 7z 4z",
        3: "2m 4m 6m 8m 1p 3p 5s 7s 9s 6z 7z 2z 3z",
    }
    game = scripted_game(load_variant("wuhan"), hands, "5p")
    offered: list[list[int]] = []

    def scripted(game: Game, seat: int, ids: np.ndarray, rng: np.random.Generator) -> int:
        if seat == 0 and not game.discards[0]:
            return parse_tiles(first)[0]
        if seat == 1 and not offered and game.discards[0]:
            offered.append([int(a) - CHI_BASE for a in ids if CHI_BASE <= a < CHI_BASE + 3])
        return passive(game, seat, ids, rng)

    lockstep(game, scripted, np.random.default_rng(0), Counter())
    assert offered == [chis]


@pytest.mark.parametrize(
    "flags",
    [
        {"laizi_discard_is_gang": False},
        {"reveal_concealed_kong": True, "wuhan_haidi_tiles": 8},
        {"wuhan_haidi_tiles": 0, "kong_draw_from": "front"},
        {"wuhan_open_mode": "koukou", "wuhan_discard_all_pay": False},
        {"allow_chi": False},
    ],
    ids=lambda f: ",".join(f),
)
def test_wuhan_options_match_the_python_engine(flags):
    cfg = load_variant("wuhan", **flags)
    seen = play_mixed(cfg, range(40), wuhan_seeking)
    assert seen["ended_by_wins"] >= 5, seen
    if cfg.allow_chi:
        assert seen["claim:chi"] >= 10, seen
    else:
        assert seen["claim:chi"] == 0 and seen["claim:pong"] >= 10, seen


# ---- what it refuses ---------------------------------------------------------------------------------------------
def test_the_supported_presets_and_refused_flags():
    for variant in ("chengdu", "xueliu", "hongzhong", "chiyu", "two_player", "duankagen", "yibin", "wuhan"):
        assert unsupported(load_variant(variant)) == [], variant
    with pytest.raises(UnsupportedRule, match="compiled engine does not play .*dead_wait_counts_as_ready"):
        check_supported(load_variant("chengdu", dead_wait_counts_as_ready=False))
    problems = unsupported(load_variant("chengdu", allow_pinghu_on_discard=False, fan_table="wiki_xueliu"))
    assert any("allow_pinghu_on_discard" in p for p in problems), problems
    problems = unsupported(load_variant("chengdu", pass_hu_allow_higher=True, fan_table="wiki_xueliu"))
    assert any("pass_hu_allow_higher" in p for p in problems), problems
    assert any("wild_in_melds" in p for p in unsupported(load_variant("yibin", wild_in_melds=True)))


# ---- the wildcard win check against the Python judge -----------------------------------------------------------


def test_wildcard_wins_and_waits_equal_the_judge():
    """Near-complete 红中 hands with 1-4 wildcards, pongs and kongs, a void suit: ``kernel.is_win`` equals
    ``judge.is_win`` and ``kernel.wins_on`` equals ``judge.waits_mask``, hand by hand (thousands of hands, both
    answers common)."""
    from envs.core.melds import Meld, MeldKind
    from envs.scoring import judge

    cfg = load_variant("hongzhong")
    rng = np.random.default_rng(7)
    kinds = {L.M_PONG: MeldKind.PONG, L.M_KONG: MeldKind.KONG}
    answers: Counter = Counter()
    for _ in range(4000):
        n_melds = int(rng.integers(0, 3))
        void = int(rng.integers(-1, 3))
        suits = [s for s in range(3) if s != void]
        melds, counts = [], [0] * 34
        for _ in range(n_melds):
            kind = L.M_PONG if rng.random() < 0.7 else L.M_KONG
            tile = int(rng.choice(suits)) * 9 + int(rng.integers(9))
            if any(t == tile for _, t in melds):
                continue
            melds.append((kind, tile))
        size = 14 - 3 * len(melds)

        def copies(k: int, counts=counts, melds=melds) -> int:
            return counts[k] + sum(4 if m == L.M_KONG else 3 for m, t in melds if t == k)

        wilds = int(rng.integers(1, 5))
        counts[31] = wilds
        while sum(counts) < size:  # runs and pairs of mostly two suits, so that many hands win
            s = int(rng.choice(suits))
            r = int(rng.integers(9))
            for k in [s * 9 + r] * 2 if rng.random() < 0.4 else [s * 9 + min(r, 6) + d for d in range(3)]:
                if sum(counts) < size and copies(k) < 4:
                    counts[k] += 1
        for _ in range(int(rng.integers(0, 3))):  # noise: a natural tile replaced by a random kind with room
            held = np.flatnonzero(counts[:27])
            if held.size:
                counts[int(rng.choice(held))] -= 1
                room = [
                    k for k in range(27) if counts[k] + sum(4 if m == L.M_KONG else 3 for m, t in melds if t == k) < 4
                ]
                counts[int(rng.choice(room))] += 1
        if rng.random() < 0.5:  # one tile less: a 3k+1 hand for the waits
            k = int(rng.choice(np.flatnonzero(counts[:27]))) if any(counts[:27]) else 31
            counts[k] -= 1
        row = seat0_row(counts, melds, void, 31)
        meld_objs = [Meld(kinds[m], t) for m, t in melds]
        v = None if void < 0 else void
        if sum(counts) % 3 == 2:
            want = judge.is_win(cfg, counts, meld_objs, v)
            assert H.is_win(row, 0, TABLE) == want, (counts, melds, void)
            answers[f"win:{want}"] += 1
        else:
            mask = judge.waits_mask(cfg, list(counts), meld_objs, v)
            held_void = v is not None and any(counts[v * 9 : v * 9 + 9])
            got = sum(1 << k for k in range(34) if H.wins_on(row, 0, k, TABLE))
            assert got == (0 if held_void else mask), (counts, melds, void)
            answers[f"waits:{bool(mask)}"] += 1
    assert len(answers) == 4 and min(answers.values()) > 300, dict(answers)
