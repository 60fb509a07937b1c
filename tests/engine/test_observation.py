"""The chuanma-v1 observation encoder: plane table, known positions, hidden information, seat invariance, masks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.core import actions as A
from envs.core.melds import MeldKind
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS, RED, parse_tiles, to_counts
from envs.core.wall import tile_multiset
from envs.engine import observation as O
from envs.engine.game import Game
from envs.engine.view import Phase
from tests.helpers.aec import play


def random_step(game: Game, rng: np.random.Generator) -> tuple[int, A.Action]:
    """Apply a uniformly random legal action of the first pending seat; returns (seat, action)."""
    seat = game.pending[0]
    legal = game.legal_actions(seat)
    action = legal[int(rng.integers(len(legal)))]
    game.step(seat, action)
    return seat, action


def truth_visible(game: Game, seat: int) -> np.ndarray:
    """Copies of each kind that ``seat`` can see, computed from the full state: every copy minus the hidden ones."""
    total = np.array(to_counts(tile_multiset(game.cfg)))
    hidden = np.array(to_counts(game.live_wall()))
    view = game.view(seat)
    for other in range(game.cfg.num_players):
        if other == seat:
            continue
        if view.revealed_hands[other] is None:
            hidden += np.array(game.hand_of(other))
        else:  # a revealed (血流 frozen) hand hides only its owner's fresh draw
            hidden += np.array(game.hand_of(other)) - np.array(view.revealed_hands[other])
        for meld, seen in zip(game.melds[other], view.melds[other]):
            if seen.tile < 0:
                hidden[meld.tile] += 4
    return total - hidden


# ---- the plane table ---------------------------------------------------------------------------------------------
def test_docstring_table_matches_planes():
    rows = re.findall(r"^(\d+)(?:-(\d+))?\s+``(\w+)``\s+(\d+)\s", O.__doc__, flags=re.M)
    assert [r[2] for r in rows] == [g.name for g in O.PLANES]
    for first, last, name, count in rows:
        sl = O.SLICES[name]
        assert (sl.start, sl.stop - 1) == (int(first), int(last or first)), name
        assert sl.stop - sl.start == int(count), name
    assert f"``C`` = :data:`NUM_PLANES` = {O.NUM_PLANES}" in O.__doc__
    assert O.OBS_SHAPE == (O.NUM_PLANES, NUM_KINDS)


def test_decode_returns_views_and_rejects_bad_shapes():
    arr = np.zeros(O.OBS_SHAPE, dtype=np.float32)
    v = O.decode(arr)
    v["discards"][1, 4] = 3.0
    assert arr[O.SLICES["discards"].start + 1, 4] == 3.0
    assert v["wall"].shape == (NUM_KINDS,) and v["hand"].shape == (4, NUM_KINDS)
    batch = np.zeros((5, *O.OBS_SHAPE), dtype=np.float32)
    assert O.decode(batch)["void_suits"].shape == (5, 4, NUM_KINDS)
    with pytest.raises(ValueError, match="shape"):
        O.decode(np.zeros((10, 34)))
    with pytest.raises(ValueError, match="num_players"):
        O.ObservationEncoder(5)


# ---- a known position ---------------------------------------------------------------------------------------------
def known_game() -> Game:
    """Chengdu, dealer 0, exchange to the next seat, wall in a known order."""
    cfg = load_variant("chengdu")
    wall = tile_multiset(cfg)
    # dealer (seat 0): 1112345678999m (14 tiles of 万 incl. 4 copies of 1m? no: three 1m) + 1p
    dealer = parse_tiles("1112345678999m 1p")
    rest = list(wall)
    for k in dealer:
        rest.remove(k)
    return Game(cfg, wall=dealer + rest, dealer=0, exchange_offset=1)


def test_known_position_planes():
    g = known_game()
    enc = O.ObservationEncoder(4)
    obs = enc.encode(g.view(0))
    v = O.decode(obs)
    expected = np.array(to_counts(parse_tiles("1112345678999m 1p")))
    assert np.array_equal(O.hand_counts(obs), expected)
    assert v["hand"].sum() == 14 and v["hand"][2].sum() == 2 and v["hand"][3].sum() == 0  # 111m and 999m
    assert O.phase_of(obs) is Phase.EXCHANGE and v["to_act"].min() == 1
    assert O.wall_remaining(obs) == 108 - 53 == g.wall_remaining
    assert v["wall_countdown"].sum() == 34
    assert v["seat_present"][:, 0].tolist() == [1, 1, 1, 1] and v["active"][:, 0].tolist() == [1, 1, 1, 1]
    assert v["dealer"][:, 0].tolist() == [1, 0, 0, 0]
    assert np.array_equal(v["visible"], expected)  # nothing else is visible yet
    assert v["discards"].sum() == 0 and v["exchange_direction"].sum() == 0  # direction hidden before commit
    assert float(v["hand_size"][0]) == pytest.approx(14 / 14)
    # seat 1 sees the dealer in slot 3 (上家)
    assert O.decode(enc.encode(g.view(1)))["dealer"][:, 0].tolist() == [0, 0, 0, 1]

    # exchange: the dealer gives 123m, the others the first legal triple
    g.step(0, A.exchange(parse_tiles("123m")))
    for s in (1, 2, 3):
        g.step(s, g.legal_actions(s)[0])
    v = O.decode(enc.encode(g.view(0)))
    assert v["exchange_given"].sum() == 3 and v["exchange_given"][0] == 1
    assert v["exchange_received"].sum() == 3
    assert v["exchange_direction"][:, 0].tolist() == [1, 0, 0]  # offset 1: to the next seat
    assert O.phase_of(enc.encode(g.view(0))) is Phase.DINGQUE

    for s in range(4):
        g.step(s, A.dingque(1 if s == 0 else 2))
    v = O.decode(enc.encode(g.view(0)))
    assert np.flatnonzero(v["void_suits"][0]).tolist() == list(range(9, 18))
    assert all(np.flatnonzero(v["void_suits"][r]).tolist() == list(range(18, 27)) for r in (1, 2, 3))
    assert O.phase_of(enc.encode(g.view(0))) is Phase.SELF

    # the dealer must discard its void 筒 first; after the discard every other seat sees it in slot 3
    legal = g.legal_actions(0)
    assert all(a.type in (A.ActionType.DISCARD, A.ActionType.HU, A.ActionType.KONG) for a in legal)
    discard = next(a for a in legal if a.type == A.ActionType.DISCARD)
    g.step(0, discard)
    for seat in range(4):
        v = O.decode(enc.encode(g.view(seat)))
        slot = (0 - seat) % 4
        assert v["discards"].sum() == 1 and v["discards"][slot, discard.tile] == 1
        assert v["last_discard"][slot, discard.tile] == 1
        assert np.array_equal(v["visible"], truth_visible(g, seat))


# ---- played games: bounds, visible counts, sums -----------------------------------------------------------------
# (variant, hand seeds); hongzhong 24 and xueliu 226 contain a 抢杠 win, xueliu hands reveal frozen winners' hands
PLAYED = [
    ("chengdu", (1000, 1001, 1002)),
    ("xueliu", (226, 1000)),
    ("hongzhong", (24, 1000)),
    ("chiyu", (1000, 1001)),
    ("two_player", (1000, 1001, 1002)),
    ("yibin", (1000, 1001)),
    ("duankagen", (1000, 1009)),
    ("wuhan", (1001, 1002)),
]


def check_view_encoding(g: Game, enc: O.ObservationEncoder, seat: int) -> None:
    cfg = g.cfg
    low, high = O.observation_bounds()
    view = g.view(seat)
    obs = enc.encode(view)
    assert obs.dtype == np.float32 and obs.shape == O.OBS_SHAPE
    bad = np.argwhere((obs < low) | (obs > high))
    assert bad.size == 0, f"out-of-bounds cells {bad[:5].tolist()}"
    v = O.decode(obs)
    n = cfg.num_players
    assert np.array_equal(O.hand_counts(obs), np.array(view.hand))
    assert np.array_equal(v["visible"], truth_visible(g, seat))
    for r in range(n):
        s = (seat + r) % n
        assert v["discards"][r].sum() == len(view.discards[s])
        assert bool(v["won"][r, 0]) == view.won[s] and bool(v["active"][r, 0]) == view.active[s]
        assert v["win_tiles"][r].sum() == sum(w.seat == s for w in view.wins)
        groups = {
            "pongs": (MeldKind.PONG, MeldKind.FEI),
            "exposed_kongs": (MeldKind.KONG,),
            "concealed_kongs": (MeldKind.ANKONG,),
            "added_kongs": (MeldKind.BUKONG,),
        }
        for name, meld_kinds in groups.items():  # a concealed kong of hidden kind (tile -1) has no cell
            assert v[name][r].sum() == sum(m.kind in meld_kinds and m.tile >= 0 for m in view.melds[s]), name
        assert v["chis"][r].sum() == 3 * sum(m.kind is MeldKind.CHI for m in view.melds[s])
        assert bool(v["baohu"][r, 0]) == bool(view.baohu and view.baohu[s])
        assert bool(v["qinghu"][r, 0]) == bool(view.qinghu and view.qinghu[s])
        if view.revealed_hands[s] is not None and s != seat:
            assert v["revealed_hands"][r].tolist() == list(view.revealed_hands[s])
    assert v["seat_present"][:, 0].sum() == n and v["seat_present"][n:].sum() == 0
    assert O.phase_of(obs) is view.phase
    assert bool(v["to_act"][0]) == view.to_act == (seat in g.pending)
    if view.claim_tile is not None:
        assert v["claim_tile"].sum() == 1 and v["claim_tile"][view.claim_tile] == 1
        assert bool(v["claim_is_rob"][0]) == (view.phase is Phase.ROB)
        assert v["current"][(view.claim_from - seat) % n, 0] == 1
    else:
        assert v["claim_tile"].sum() == 0


@pytest.mark.parametrize(("variant", "seeds"), PLAYED)
def test_played_games_are_consistent(variant, seeds):
    cfg = load_variant(variant)
    enc = O.ObservationEncoder.from_config(cfg)
    wins = robs = reveals = 0
    for seed in seeds:
        g = Game(cfg, seed=seed)
        for _ in play(g, np.random.default_rng(seed)):
            robs += g.phase is Phase.ROB
            for s in range(cfg.num_players):
                check_view_encoding(g, enc, s)
            reveals += any(r is not None for r in g.view(0).revealed_hands)
        wins += len(g.wins)
        assert O.phase_of(enc.encode(g.view(0))) is Phase.END
    assert wins > 0
    if variant in ("hongzhong", "xueliu"):
        assert robs > 0
    if variant == "xueliu":
        assert reveals > 0


def test_out_buffer_is_overwritten():
    g = Game("hongzhong", seed=5)
    enc = O.ObservationEncoder(4)
    out = np.full(O.OBS_SHAPE, 7.0, dtype=np.float32)
    res = enc.encode(g.view(2), out)
    assert res is out
    assert np.array_equal(out, enc.encode(g.view(2)))
    with pytest.raises(ValueError, match="float32"):
        enc.encode(g.view(2), np.zeros(O.OBS_SHAPE, dtype=np.float64))
    with pytest.raises(ValueError, match="encoder for 2 players"):
        O.ObservationEncoder(2).encode(g.view(0))


# ---- hidden information -----------------------------------------------------------------------------------------
def _play_tsumogiri(game: Game, me: int, steps: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Every other seat discards its drawn tile and passes every claim; ``me`` plays by ``rng``.

    Returns ``me``'s observation after every step.  No seat but ``me`` ever reveals a concealed tile.
    """
    enc = O.ObservationEncoder(game.cfg.num_players)
    seen = [enc.encode(game.view(me))]
    for _ in range(steps):
        if game.is_over:
            break
        seat = game.pending[0]
        legal = game.legal_actions(seat)
        if seat == me:
            options = [a for a in legal if a.type in (A.ActionType.DISCARD, A.ActionType.PASS)]
            action = options[int(rng.integers(len(options)))]
        elif game.phase == Phase.SELF:
            action = A.discard(game.drawn_tile)
        else:
            action = A.PASS
        game.step(seat, action)
        seen.append(enc.encode(game.view(me)))
    return seen


@pytest.mark.parametrize("me", [0, 2])
def test_hidden_tiles_do_not_change_the_observation(me):
    """Two games that differ only in other players' concealed tiles and the undrawn wall look the same to ``me``."""
    cfg = load_variant("chengdu", exchange_mode="none", dingque=False)
    n, hs = 4, cfg.hand_size
    wall = list(Game(cfg, seed=21)._wall)
    dealer = 0
    # deal slices: dealer 0..13, seat 1 14..26, seat 2 27..39, seat 3 40..52; play draws from 53
    starts = {0: 0, 1: hs + 1, 2: 2 * hs + 1, 3: 3 * hs + 1}
    others = [s for s in range(n) if s != me]
    a, b = others[0], others[1]
    a_tiles = wall[starts[a] : starts[a] + (hs + (a == dealer))]
    b_tiles = wall[starts[b] : starts[b] + (hs + (b == dealer))]
    # swap one tile between the concealed hands of two other seats (a kind that differs), and reverse the wall's tail
    ia = next(i for i, k in enumerate(a_tiles) if k not in b_tiles)
    ib = next(i for i, k in enumerate(b_tiles) if k not in a_tiles)
    wall2 = list(wall)
    wall2[starts[a] + ia], wall2[starts[b] + ib] = b_tiles[ib], a_tiles[ia]
    steps = 60
    tail = n * hs + 1 + steps  # tiles after this point are never drawn within ``steps`` steps
    wall2[tail:] = wall2[tail:][::-1]
    assert wall2 != wall and sorted(wall2) == sorted(wall)

    g1 = Game(cfg, wall=wall, dealer=dealer)
    g2 = Game(cfg, wall=wall2, dealer=dealer)
    assert g1.hand_of(a) != g2.hand_of(a)
    seen1 = _play_tsumogiri(g1, me, steps, np.random.default_rng(3))
    seen2 = _play_tsumogiri(g2, me, steps, np.random.default_rng(3))
    assert len(seen1) == len(seen2) > 30
    for o1, o2 in zip(seen1, seen2):
        assert np.array_equal(o1, o2)
    # sanity: the hidden difference is real -- seat a's own observation differs
    enc = O.ObservationEncoder(n)
    assert not np.array_equal(enc.encode(g1.view(a)), enc.encode(g2.view(a)))


# ---- seat invariance --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["chengdu", "hongzhong", "two_player"])
def test_rotating_the_table_rotates_nothing_in_the_observation(variant):
    """Same wall, dealer d vs d+1: seat s of game 1 and seat s+1 of game 2 see identical tensors at every step."""
    cfg = load_variant(variant)
    n = cfg.num_players
    wall = list(Game(cfg, seed=8)._wall)
    offset = {"exchange_offset": 1} if cfg.exchange_mode == "swap3" else {}
    g1 = Game(cfg, wall=wall, dealer=0, **offset)
    g2 = Game(cfg, wall=wall, dealer=1, **offset)
    enc = O.ObservationEncoder(n)
    rng = np.random.default_rng(5)
    steps = 0
    while not g1.is_over and steps < 400:
        assert tuple((p + 1) % n for p in g1.pending) == g2.pending
        for s in range(n):
            assert np.array_equal(enc.encode(g1.view(s)), enc.encode(g2.view((s + 1) % n))), (steps, s)
        seat, action = random_step(g1, rng)
        g2.step((seat + 1) % n, action)
        steps += 1
    assert g2.is_over == g1.is_over
    assert steps > 50


# ---- legal masks ------------------------------------------------------------------------------------------------
def test_legal_mask_matches_legal_actions():
    g = Game("chengdu", seed=4)
    rng = np.random.default_rng(2)
    while not g.is_over:
        seat = g.pending[0]
        view = g.view(seat)
        if g.phase != Phase.EXCHANGE:
            mask = O.legal_mask(view)
            assert mask.dtype == np.int8 and mask.shape == (A.ACTION_SPACE_SIZE,)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(A.encode(a) for a in view.legal_actions)
        random_step(g, rng)
    assert O.legal_mask(g.view(0)).sum() == 0


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_exchange_pick_masks(variant):
    for seed in range(5):
        g = Game(variant, seed=seed)
        for seat in range(4):
            view = g.view(seat)
            hand = view.hand
            first = np.flatnonzero(O.legal_mask(view))
            expected = [
                k for s in range(3) if sum(hand[s * 9 : s * 9 + 9]) >= 3 for k in range(s * 9, s * 9 + 9) if hand[k]
            ]
            assert [k - A.EXCHANGE_BASE for k in first] == expected
            assert A.EXCHANGE_BASE + RED not in first
            k1 = expected[-1]
            second = [k - A.EXCHANGE_BASE for k in np.flatnonzero(O.legal_mask(view, [k1]))]
            suit = k1 // 9
            assert second == [k for k in range(suit * 9, suit * 9 + 9) if hand[k] - (k == k1) > 0]
            k2 = second[0]
            third = [k - A.EXCHANGE_BASE for k in np.flatnonzero(O.legal_mask(view, [k1, k2]))]
            assert third == [k for k in range(suit * 9, suit * 9 + 9) if hand[k] - (k == k1) - (k == k2) > 0]
            with pytest.raises(ValueError, match="three exchange picks"):
                O.legal_mask(view, [k1, k2, third[0]])
    g = Game("chengdu", seed=0)
    g.step(0, g.legal_actions(0)[0])
    with pytest.raises(ValueError, match="no 换三张 decision"):
        O.legal_mask(g.view(0), [1])
