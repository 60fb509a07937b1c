"""Privileged planes (envs.engine.privileged): what the rules hide from a seat, for a training critic.  Checked
against the engine's own full-information accessors, by tile conservation at the deal, and equal on both engines
(single hands and matches) step by step."""

from __future__ import annotations

import numpy as np
import pytest

from envs import sichuan_mahjong_v0
from envs.core.rule_config import load_variant
from envs.core.tiles import NUM_KINDS
from envs.core.wall import tile_multiset
from envs.engine.game import Game
from envs.engine.privileged import NEXT_DRAWS, OTHER_SEAT_ROWS, PRIVILEGED_SHAPE, privileged_planes
from envs.vector_env import VectorEnv

PRESETS = ["chengdu", "xueliu", "hongzhong", "chiyu", "two_player", "duankagen", "yibin", "wuhan"]


@pytest.mark.parametrize("variant", PRESETS)
def test_planes_read_the_hidden_hands_and_the_wall(variant: str) -> None:
    cfg = load_variant(variant)
    n = cfg.num_players
    for seed in range(3):
        game = Game(cfg, seed=seed)
        wall = game.live_wall()
        for seat in range(n):
            p = privileged_planes(game, seat)
            assert p.shape == PRIVILEGED_SHAPE and p.dtype == np.float32
            for r in range(OTHER_SEAT_ROWS):
                expected = game.hand_of((seat + 1 + r) % n) if r < n - 1 else (0,) * NUM_KINDS
                np.testing.assert_array_equal(p[r] * 4, expected)
            # at the deal every tile is in a hand, the live wall, behind its end or face up (本金 / 赖子 indicator)
            behind = np.bincount(np.asarray(game._wall[game._back :], dtype=np.int64), minlength=NUM_KINDS)
            if game.indicator is not None and cfg.indicator_removed_from_wall:
                behind[game.indicator] += 1
            total = np.asarray(game.hand_of(seat)) + 4 * p[: OTHER_SEAT_ROWS + 1].sum(axis=0) + behind
            np.testing.assert_array_equal(total, np.bincount(tile_multiset(cfg), minlength=NUM_KINDS))
            for j in range(NEXT_DRAWS):
                row = p[OTHER_SEAT_ROWS + 1 + j]
                assert row.sum() == 1 and int(np.argmax(row)) == wall[j]


def _play_both(variant: str, steps: int, **options) -> int:
    """Both engines, the same random legal actions; the privileged planes of every acting seat equal at every step
    (and equal to the Python engine's own reading of its games outside match mode).  Returns how many new hands
    were dealt (a slot's live wall grew)."""
    ref = VectorEnv(variant, 4, seed=5, self_play=True, **options)
    fast = VectorEnv(variant, 4, seed=5, self_play=True, engine="compiled", **options)
    ref.reset()
    fast.reset()
    rng = np.random.default_rng(1)
    dealt = 0
    wall = np.full(4, np.inf)
    for t in range(steps):
        a = ref.privileged_observations()
        live = a[:, OTHER_SEAT_ROWS].sum(axis=1)
        dealt += int((live > wall).sum())
        wall = live
        np.testing.assert_array_equal(a, fast.privileged_observations(), err_msg=f"step {t}")
        if not options.get("match"):
            for i, game in enumerate(ref.games):
                np.testing.assert_array_equal(a[i], privileged_planes(game, int(ref.acting_seats[i])))
        np.testing.assert_array_equal(fast.privileged_observations([2, 0]), a[[2, 0]])
        actions = ref.sample_actions(rng)
        ref.step(actions)
        fast.step(actions)
    return dealt


@pytest.mark.parametrize("variant", PRESETS)
def test_both_engines_give_the_same_planes(variant: str) -> None:
    assert _play_both(variant, 250) >= 1


def test_both_engines_give_the_same_planes_in_matches() -> None:
    assert _play_both("chiyu", 200, match=True) >= 1


def test_bad_seats_and_calls_before_a_deal_are_refused() -> None:
    game = Game(load_variant("two_player"), seed=0)
    with pytest.raises(ValueError, match="seat 2"):
        privileged_planes(game, 2)
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv("chengdu", 2, seed=0, engine="compiled").privileged_observations()


def test_the_aec_env_gives_each_agent_its_planes_on_both_engines() -> None:
    envs = [sichuan_mahjong_v0.raw_env(variant="hongzhong", engine=e) for e in ("python", "compiled")]
    for env in envs:
        env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        for seat, agent in enumerate(envs[0].possible_agents):
            planes = envs[0].privileged_observation(agent)
            np.testing.assert_array_equal(planes, privileged_planes(envs[0].game, seat))
            np.testing.assert_array_equal(planes, envs[1].privileged_observation(agent))
        _, _, term, trunc, _ = envs[0].last()
        mask = envs[0].observe(envs[0].agent_selection)["action_mask"]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(mask)))
        for env in envs:
            env.step(action)
    with pytest.raises(ValueError, match="unknown agent"):
        envs[1].privileged_observation("player_9")
