"""The compiled observation encoder (:mod:`envs.compiled.encode`) over mirrored rows (:mod:`envs.compiled.mirror`)
gives exactly :meth:`ObservationEncoder.encode` of the mirrored game's view, bit for bit.

* seeded games of ``"chengdu"`` played by a biased random policy (so that wins, kongs and pass locks are common),
  with the 换三张 triples picked one tile at a time as the batched env does: every seat is compared at every
  decision point (partial picks, half-answered 定缺 and claim windows, after wins, at the end of the hand);
* scripted deals for what random play hardly reaches: robbing an added kong (抢杠, by two seats at once), a passed
  rob, a discard won by two seats (一炮多响);
* :func:`encode_rows` on a batch, the score scale, and a few fields of :func:`state_of_game` by hand.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from envs.compiled import layout as L
from envs.compiled.encode import encode_row, encode_rows, new_observations, score_value
from envs.compiled.mirror import state_of_game
from envs.core.actions import HU, PASS, PONG, Action, ActionType, exchange
from envs.core.melds import MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of as T
from envs.engine.game import Game
from envs.engine.observation import OBS_SHAPE, ObservationEncoder, _score_value, exchange_pick_kinds
from envs.engine.view import Phase
from envs.scoring.shanten import shanten
from tests.helpers.game import auto, scripted_game
from tests.helpers.scripted_deals import add_the_7p_kong, c11_after_discard, pong_the_7p

CFG = load_variant("chengdu")
ENC = ObservationEncoder.from_config(CFG)
BASE = float(CFG.base_unit)
GAMES = 40
ROB2_HANDS = {  # S1 and S3 both wait on 7p when S2 adds its kong (tests/engine/test_game_rules.py)
    0: "7p 1479m 258m 1479s 25s",
    1: "123m 456m 345p 68p 11m",
    2: "77p 129p 1234568s 9s",
    3: "234p 456p 345s 68p 99s",
}


# ---- playing -----------------------------------------------------------------------------------------------------
def _choose(game: Game, seat: int, legal: list[Action], rng: np.random.Generator) -> Action:
    """A random policy leaning towards play that makes the rare situations common: HU (80%: the rest passes and
    locks), kongs (80%), pongs (70%), and discards that keep the shanten low (90%); otherwise uniform."""
    types = {a.type for a in legal}
    if ActionType.HU in types and rng.random() < 0.8:
        return HU
    kongs = [a for a in legal if a.type == ActionType.KONG]
    if kongs and rng.random() < 0.8:
        return kongs[rng.integers(len(kongs))]
    if ActionType.PONG in types and rng.random() < 0.7:
        return PONG
    discards = [a for a in legal if a.type == ActionType.DISCARD]
    if discards and rng.random() < 0.9:
        hand = game.hands[seat]
        best, best_value = discards[0], float("inf")
        for a in discards:
            hand[a.tile] -= 1
            value = shanten(hand) + 0.5 * rng.random()
            hand[a.tile] += 1
            if value < best_value:
                best, best_value = a, value
        return best
    return legal[rng.integers(len(legal))]


def _step(game: Game, picks: list[list[int]], rng: np.random.Generator) -> None:
    """One decision of a random pending seat: a 换三张 pick (the triple goes to the engine on the third) or an
    action of :func:`_choose`."""
    pending = game.pending
    seat = pending[rng.integers(len(pending))]
    legal = game.legal_actions(seat)
    if game.phase is Phase.EXCHANGE:
        kinds = exchange_pick_kinds([a.tiles for a in legal], picks[seat])
        picks[seat].append(kinds[rng.integers(len(kinds))])
        if len(picks[seat]) == 3:
            game.step(seat, exchange(picks[seat]))
            picks[seat] = []
    else:
        game.step(seat, _choose(game, seat, legal, rng))


# ---- comparing ---------------------------------------------------------------------------------------------------
def _situations(game: Game, picks: list[list[int]]) -> list[str]:
    """Names of the situations of this decision point (to show that the comparisons reached them)."""
    phase = game.phase
    answered = len(game._decisions)
    names = [phase.value]
    if phase is Phase.EXCHANGE and any(0 < len(p) < 3 for p in picks):
        names.append("partial_picks")
    if phase is not Phase.SELF and phase is not Phase.END and answered:
        names.append(f"{phase.value}_answered")
    if game.wins and not game.is_over:
        names.append("after_win")
    if any(game._hu_lock):
        names.append("hu_lock")
    if any(game._pong_lock):
        names.append("pong_lock")
    return names


def _compare(
    game: Game, picks: list[list[int]] | None, out: np.ndarray, seen: Counter, refs: list | None = None
) -> np.ndarray:
    """Every seat's compiled observation of the mirrored row equals the reference; returns the row (and appends
    each seat's reference to ``refs`` when given)."""
    picks = picks or [[] for _ in range(L.NP)]
    row = state_of_game(game, picks)
    for seat in range(L.NP):
        ref = ENC.encode(game.view(seat), exchange_picks=picks[seat])
        if refs is not None:
            refs.append(ref)
        out.fill(np.nan)
        encode_row(row, seat, BASE, out)
        if not np.array_equal(out, ref):
            bad = np.argwhere(out != ref)
            np.testing.assert_array_equal(
                out, ref, err_msg=f"seat {seat}, phase {game.phase.value}, first cells {bad[:6].tolist()}"
            )
    seen.update(_situations(game, picks))
    return row


def _tally_hand(game: Game, seen: Counter) -> None:
    seen.update(f"win_{w.how}" for w in game.wins)
    seen.update(f"meld_{m.kind.value}" for melds in game.melds for m in melds)
    if game._first_win_event is not None and len(game._first_win_event[0]) > 1:
        seen["multi_win"] += 1
    if game.exhausted:
        seen["exhausted"] += 1


def _play_out(game: Game, rng: np.random.Generator, out: np.ndarray, seen: Counter, keep: list | None = None) -> None:
    """Play ``game`` to its end, comparing every seat before each decision and at the end; every 20th decision
    point goes into ``keep`` (when given) as ``(row, seat, reference)`` of one seat."""
    picks: list[list[int]] = [[] for _ in range(L.NP)]
    for i in itertools.count():
        refs: list[np.ndarray] = []
        row = _compare(game, picks, out, seen, refs)
        if keep is not None and i % 20 == 0:
            seat = i // 20 % L.NP
            keep.append((row, seat, refs[seat]))
        if game.is_over:
            break
        _step(game, picks, rng)
    _tally_hand(game, seen)


# ---- tests -------------------------------------------------------------------------------------------------------
def test_random_games_match_the_reference_encoder():
    seen: Counter = Counter()
    out = np.empty(OBS_SHAPE, dtype=np.float32)
    kept: list[tuple[np.ndarray, int, np.ndarray]] = []
    for seed in range(GAMES):
        rng = np.random.default_rng(seed)
        game = Game(CFG, seed=seed, record_events=False)
        _play_out(game, rng, out, seen, kept)
    required = (
        "exchange", "partial_picks", "exchange_answered", "dingque", "dingque_answered", "self", "claim",
        "claim_answered", "after_win", "end", "hu_lock", "pong_lock", "win_zimo", "win_dianpao", "meld_pong",
        "meld_kong", "meld_ankong", "meld_bukong", "exhausted",
    )  # fmt: skip
    missing = [name for name in required if not seen[name]]
    assert not missing, f"random games never reached {missing}: {dict(seen)}"
    assert seen["end"] == GAMES and len(kept) > 100

    # the batched encoder: half of the rows, listed in a shuffled order, written in place; the others untouched
    state = np.stack([row for row, _, _ in kept])
    order = np.random.default_rng(0).permutation(len(kept))[: len(kept) // 2]
    seats = np.array([kept[i][1] for i in order], dtype=np.int64)
    batch = new_observations(len(kept))
    batch.fill(np.nan)
    encode_rows(state, order, seats, BASE, batch)
    for i in order:
        np.testing.assert_array_equal(batch[i], kept[i][2], err_msg=f"batch row {i}")
    untouched = np.setdiff1d(np.arange(len(kept)), order)
    assert np.isnan(batch[untouched]).all()


@pytest.mark.parametrize(("s1", "s3"), [(HU, HU), (PASS, HU), (PASS, PASS)])
def test_robbing_an_added_kong(s1, s3):
    """S2 adds a kong of 7p on which S1 and S3 wait: rob window, one answer in, then the rob (by one or two seats,
    the set-aside tile counted once) or the completed kong; then random play to the end."""
    seen: Counter = Counter()
    out = np.empty(OBS_SHAPE, dtype=np.float32)
    g = scripted_game(CFG, ROB2_HANDS, "5m 9m 4m 7p", offset=2, voids="psmm")
    pong_the_7p(g, 2)
    add_the_7p_kong(g, 2)
    assert g.phase is Phase.ROB and g.pending == (3, 1)
    row = _compare(g, None, out, seen)
    assert row[L.PHASE] == L.PH_ROB and row[L.CLAIM_TILE] == T("7p") and row[L.CLAIM_FROM] == 2
    assert [row[L.OPTIONS + s] for s in range(4)] == [0, L.O_HU | L.O_PASS, 0, L.O_HU | L.O_PASS]
    g.step(1, s1)
    row = _compare(g, None, out, seen)
    assert row[L.DECISION + 1] == (L.O_HU if s1 is HU else L.O_PASS)
    assert row[L.PENDING : L.PENDING + 4].tolist() == [0, 0, 0, 1]
    g.step(3, s3)
    row = _compare(g, None, out, seen)
    robbers = [s for s, a in ((1, s1), (3, s3)) if a is HU]
    assert row[L.SHOWN_WIN_TILES + T("7p")] == (1 if robbers else 0)
    assert row[L.FIRST_WIN_SEATS] == sum(1 << s for s in robbers)
    assert row[L.FIRST_WIN_PAYER] == (2 if robbers else -1)
    assert row[L.HU_LOCK + 1 * L.NK + T("7p")] == (s1 is PASS)
    at = L.MELDS + 2 * L.MAX_MELDS * L.MELD_FIELDS  # S2's first meld: the robbed kong stays a pong
    assert row[at : at + 3].tolist() == [L.M_PONG if robbers else L.M_BUKONG, T("7p"), 0]
    _play_out(g, np.random.default_rng(7), out, seen)
    assert seen["rob"] >= 2 and seen["rob_answered"] >= 1
    assert seen["win_qianggang"] == len(robbers)


def test_a_discard_won_by_two_seats():
    seen: Counter = Counter()
    out = np.empty(OBS_SHAPE, dtype=np.float32)
    g = c11_after_discard(CFG)
    assert g.phase is Phase.CLAIM and g.pending == (1, 3)
    _compare(g, None, out, seen)
    g.step(3, HU)
    _compare(g, None, out, seen)
    g.step(1, HU)
    row = _compare(g, None, out, seen)
    assert row[L.FIRST_WIN_SEATS] == 0b1010 and row[L.FIRST_WIN_PAYER] == 0 and row[L.NUM_WINS] == 2
    assert row[L.SHOWN_WIN_TILES : L.SHOWN_WIN_TILES + L.NK].sum() == 0  # the tile stays among the discards
    _play_out(g, np.random.default_rng(11), out, seen)
    assert seen["multi_win"] == 1


@pytest.mark.parametrize("base_unit", [1.0, 1000.0])
def test_score_value_matches_the_reference(base_unit):
    scores = [*range(-3000, 3001), 65535, 65536, -70000, 10**6, -(10**7)]
    for s in scores:
        assert score_value(s, base_unit) == _score_value(s, base_unit), s


def test_state_of_game_fields():
    g = Game(CFG, seed=5, record_events=False)
    dealer = g.dealer
    row = state_of_game(g)
    assert row.dtype == np.int32 and row.shape == (L.STATE_SIZE,)
    assert row[L.PHASE] == L.PH_EXCHANGE and row[L.DEALER] == dealer and row[L.CURRENT] == dealer
    assert row[L.FRONT] == 53 and row[L.BACK] == 108 and row[L.DRAWN] == -1 and row[L.WILD] == -1
    assert row[L.WALL : L.WALL + len(g._wall)].tolist() == g._wall
    hands = row[L.HANDS : L.HANDS + L.NP * L.NK].reshape(L.NP, L.NK)
    assert hands.tolist() == g.hands and hands.sum(1).tolist() == [14 if s == dealer else 13 for s in range(4)]
    assert row[L.PENDING : L.PENDING + 4].tolist() == [1, 1, 1, 1]
    assert row[L.EX_OFFSET] == g.exchange_offset and row[L.EX_DONE] == 0
    assert row[L.VOID : L.VOID + 4].tolist() == [-1] * 4 and row[L.NUM_MELDS : L.NUM_MELDS + 4].tolist() == [0] * 4
    assert row[L.MELDS : L.MELDS + 3].tolist() == [L.M_NONE, -1, -1]

    # 换三张: seat a answered, seat b picked two tiles so far
    a, b = dealer, (dealer + 1) % 4
    triple = g.legal_actions(a)[0].tiles
    g.step(a, exchange(triple))
    pick2 = list(g.legal_actions(b)[-1].tiles[:2])
    picks = [[] for _ in range(4)]
    picks[b] = pick2
    row = state_of_game(g, picks)
    assert row[L.PICK_COUNT + a] == 3 and row[L.PICKS + 3 * a : L.PICKS + 3 * a + 3].tolist() == list(triple)
    assert row[L.PICK_COUNT + b] == 2 and row[L.PICKS + 3 * b : L.PICKS + 3 * b + 3].tolist() == [*pick2, -1]
    assert row[L.PENDING + a] == 0 and row[L.PENDING + b] == 1 and row[L.GIVEN + 3 * a] == -1
    with pytest.raises(ValueError, match="picks"):
        state_of_game(g, [[1] if s == a else [] for s in range(4)])

    # after the exchange: GIVEN / RECEIVED hold the triples, no picks left; 定缺 with one answer in
    for s in g.pending:
        g.step(s, g.legal_actions(s)[0])
    row = state_of_game(g)
    assert row[L.PHASE] == L.PH_DINGQUE and row[L.EX_DONE] == 1
    assert row[L.PICK_COUNT : L.PICK_COUNT + 4].tolist() == [0] * 4 and (row[L.PICKS : L.PICKS + 12] == -1).all()
    assert row[L.GIVEN + 3 * a : L.GIVEN + 3 * a + 3].tolist() == list(triple)
    off = g.exchange_offset
    assert row[L.RECEIVED + 3 * ((a + off) % 4) : L.RECEIVED + 3 * ((a + off) % 4) + 3].tolist() == list(triple)
    g.step(b, g.legal_actions(b)[2])
    row = state_of_game(g)
    assert row[L.DINGQUE_CHOICE : L.DINGQUE_CHOICE + 4].tolist() == [2 if s == b else -1 for s in range(4)]
    assert row[L.VOID_REVEALED] == 0

    # play starts: the dealer holds the drawn tile
    for s in g.pending:
        g.step(s, g.legal_actions(s)[0])
    row = state_of_game(g)
    assert row[L.PHASE] == L.PH_SELF and row[L.DRAWN] == g.drawn_tile and row[L.VOID_REVEALED] == 1
    assert row[L.DINGQUE_CHOICE : L.DINGQUE_CHOICE + 4].tolist() == [-1] * 4
    assert row[L.VOID : L.VOID + 4].tolist() == g.void and row[L.FIRST_ACTION] == 1
    assert row[L.FIRST_DRAW_PENDING : L.FIRST_DRAW_PENDING + 4].tolist() == [int(s != dealer) for s in range(4)]
    assert row[L.OPTIONS : L.OPTIONS + 4].tolist() == [0] * 4


def test_state_of_game_melds_and_locks():
    g = scripted_game(CFG, ROB2_HANDS, "5m 9m 4m 7p", offset=2, voids="psmm")
    pong_the_7p(g, 2)
    auto(g, until=lambda g: g.phase is Phase.SELF and g.current == 2)  # S2 draws the fourth 7p
    row = state_of_game(g)
    assert row[L.NUM_MELDS + 2] == 1 and g.melds[2][0].kind is MeldKind.PONG
    at = L.MELDS + 2 * L.MAX_MELDS * L.MELD_FIELDS
    assert row[at : at + 3].tolist() == [L.M_PONG, T("7p"), 0]
    assert row[L.DISCARDS + T("7p")] == 1 and row[L.LAST_DISCARD] == g.discards[0][-1]
    assert row[L.DISCARD_COUNT] == g._discard_count and row[L.DRAWN] == T("7p")
    for s in range(4):
        locked = [k for k in range(L.NK) if g._pong_lock[s] >> k & 1]
        assert np.flatnonzero(row[L.PONG_LOCK + s * L.NK : L.PONG_LOCK + (s + 1) * L.NK]).tolist() == locked


def test_state_of_game_rejects_other_variants():
    with pytest.raises(ValueError, match="compiled engine does not play .*wild_in_melds"):
        state_of_game(Game(load_variant("wuhan", wild_in_melds=True), seed=1, record_events=False))
