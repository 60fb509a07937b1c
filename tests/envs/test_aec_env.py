"""The PettingZoo AEC environment sichuan_mahjong_v0: conformance, exact masks, rewards, leaving winners, options."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import sichuan_mahjong_v0
from envs.core import actions as A
from envs.core.rule_config import PRESETS, load_variant
from envs.engine.game import Game, UnsupportedRule
from envs.engine.observation import OBS_SHAPE, decode, phase_of
from envs.engine.view import Phase
from tests.helpers.aec import SUPPORTED, flat_greedy

DECODED = [A.decode(i) for i in range(A.ACTION_SPACE_SIZE)]


def make(variant, **kwargs):
    try:
        return sichuan_mahjong_v0.env(variant=variant, **{"match": False, **kwargs})  # single hands, 赤羽 too
    except UnsupportedRule as exc:
        pytest.skip(f"engine does not support {variant}: {exc}")


def run_hand(env, rng, policy="greedy", on_step=None):
    """Play one hand to the end; returns the summed rewards per agent (from ``last()``)."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    raw = env.unwrapped
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if policy == "greedy":
            action = flat_greedy(raw, agent, rng)
        else:
            ids = np.flatnonzero(obs["action_mask"])
            action = int(ids[int(rng.integers(ids.size))])
        if on_step is not None:
            on_step(agent, obs, action)
        env.step(action)
    return total


# ---- conformance --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", PRESETS)
def test_pettingzoo_api(variant):
    env = make(variant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about all-zero masks of waiting agents
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("variant", PRESETS)
def test_pettingzoo_seed(variant):
    make(variant)  # skip unsupported variants
    seed_test(lambda: sichuan_mahjong_v0.env(variant=variant, match=False), num_cycles=200)


@pytest.mark.parametrize("variant", PRESETS)
def test_pettingzoo_render(variant):
    make(variant)
    render_test(
        lambda render_mode=None: sichuan_mahjong_v0.env(variant=variant, render_mode=render_mode, match=False),
        custom_tests={"ansi": lambda text: isinstance(text, str) and "phase" in text},
    )


def test_unsupported_rules_fail_at_construction():
    with pytest.raises(UnsupportedRule, match="piao"):
        Game(load_variant("yibin", piao=True), seed=0)
    with pytest.raises(UnsupportedRule, match="piao"):
        sichuan_mahjong_v0.raw_env(variant="yibin", rules={"piao": True})


def test_metadata_spaces_and_lazy_import():
    env = sichuan_mahjong_v0.raw_env(variant="chengdu")
    assert env.metadata["name"] == "sichuan_mahjong_v0" and env.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = env.observation_space("player_0")
    assert space["observation"].shape == OBS_SHAPE and space["action_mask"].shape == (A.ACTION_SPACE_SIZE,)
    assert env.action_space("player_3").n == A.ACTION_SPACE_SIZE
    assert sichuan_mahjong_v0.raw_env(variant="two_player").possible_agents == ["player_0", "player_1"]
    code = (
        "import sys, envs.engine.game, envs.engine.observation;"
        "assert 'pettingzoo' not in sys.modules, 'engine imported pettingzoo';"
        "assert 'gymnasium' not in sys.modules; from envs import sichuan_mahjong_v0; assert 'pettingzoo' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- masks are exact ----------------------------------------------------------------------------------------------
def _check_mask_exact(env, agent, obs, rng, probes: int | None = 8):
    """Every masked id is accepted by the engine (on a copy); unmasked ids are refused by the engine and the env.

    ``probes`` unmasked ids (all of them when None) are stepped on an engine copy; every unmasked id must be absent
    from the engine's legal list.
    """
    raw = env.unwrapped
    game = raw.game
    seat = raw.agent_name_mapping[agent]
    mask = obs["action_mask"]
    ids = np.flatnonzero(mask)
    assert ids.size > 0
    picks = raw.backend.picks(seat)
    if game.phase == Phase.EXCHANGE:
        # a masked pick must extend the picks towards some triple the engine accepts; an unmasked one towards none
        for k in range(34):
            ok = False
            for triple in (a.tiles for a in game.legal_actions(seat)):
                rest = list(triple)
                try:
                    for p in [*picks, k]:
                        rest.remove(p)
                except ValueError:
                    continue
                g = game.copy()
                g.step(seat, A.exchange(triple))
                ok = True
                break
            assert ok == bool(mask[A.EXCHANGE_BASE + k]), (picks, k)
        assert not mask[: A.EXCHANGE_BASE].any() and not mask[A.EXCHANGE_BASE + 34 :].any()
        return
    for i in ids:
        game.copy().step(seat, A.decode(int(i)))
    legal = set(game.legal_actions(seat))
    unmasked = [int(i) for i in np.flatnonzero(mask == 0) if not A.EXCHANGE_BASE <= i < A.EXCHANGE_BASE + 34]
    assert not any(DECODED[i] in legal for i in unmasked)
    if probes is not None:
        unmasked = [unmasked[j] for j in rng.choice(len(unmasked), size=min(probes, len(unmasked)), replace=False)]
    probe = game.copy()
    for i in unmasked:
        try:
            probe.step(seat, DECODED[i])
        except ValueError:
            continue
        raise AssertionError(f"the engine accepted unmasked action {A.action_name(i)} of {agent}")
    # the env itself refuses an unmasked id with a message naming it and the legal ones
    bad = int(rng.choice(np.flatnonzero(mask == 0)))
    with pytest.raises(ValueError, match=rf"illegal action {bad} \(.*\) for {agent}.*legal: .*{int(ids[0])} \("):
        env.step(bad)


@pytest.mark.parametrize("variant", SUPPORTED)
def test_masks_are_exact(variant):
    env = make(variant)
    rng = np.random.default_rng(7)
    decisions = 0
    seed = 0
    while decisions < 2000:
        env.reset(seed=seed)
        seed += 1

        def check(agent, obs, action):
            nonlocal decisions
            decisions += 1
            _check_mask_exact(env, agent, obs, rng)
            # the agents that are not to act see an all-zero mask
            for other in env.agents:
                if other != agent:
                    assert env.unwrapped.observe(other)["action_mask"].sum() == 0

        run_hand(env, rng, policy="random" if seed % 2 else "greedy", on_step=check)


@pytest.mark.slow
@pytest.mark.parametrize("variant", SUPPORTED)
def test_masks_are_exact_long(variant):
    env = make(variant)
    rng = np.random.default_rng(70)
    for seed in range(100, 160):
        env.reset(seed=seed)
        run_hand(env, rng, on_step=lambda agent, obs, action: _check_mask_exact(env, agent, obs, rng, probes=None))


def test_illegal_actions_raise_clear_errors():
    env = sichuan_mahjong_v0.raw_env(variant="chengdu")
    env.reset(seed=3)
    agent = env.agent_selection
    with pytest.raises(ValueError, match=r"illegal action 0 \(discard 1m\) for player_\d in phase exchange; legal: "):
        env.step(0)
    with pytest.raises(ValueError, match="illegal action 'x'"):
        env.step("x")
    with pytest.raises(ValueError, match="illegal action None"):
        env.step(None)
    assert env.agent_selection == agent  # nothing changed
    wrapped = sichuan_mahjong_v0.env(variant="chengdu")
    wrapped.reset(seed=3)
    with pytest.raises(ValueError, match=rf"illegal action {A.ACTION_SPACE_SIZE}\b.*; legal: "):  # out of range
        wrapped.step(A.ACTION_SPACE_SIZE)
    with pytest.raises(ValueError, match=r"illegal action -1\b"):
        wrapped.step(-1)


# ---- simultaneous decisions, exchange picks -----------------------------------------------------------------------
def test_exchange_takes_three_turns_and_answers_stay_private():
    env = sichuan_mahjong_v0.raw_env(variant="chengdu")
    env.reset(seed=12)
    game = env.game
    first = env.agent_selection
    seat = env.agent_name_mapping[first]
    before = game.hand_of(seat)
    picks = []
    for _ in range(3):
        assert env.agent_selection == first and game.phase == Phase.EXCHANGE
        obs = env.observe(first)
        assert decode(obs["observation"])["exchange_picked"].sum() == len(picks)
        k = int(np.flatnonzero(obs["action_mask"])[0]) - A.EXCHANGE_BASE
        picks.append(k)
        env.step(A.EXCHANGE_BASE + k)
    assert env.agent_selection != first
    nxt = env.agent_selection
    # the next seat sees nothing of the first seat's choice
    view = game.view(env.agent_name_mapping[nxt])
    assert view.exchange_given == () and view.exchange_offset is None
    assert game.hand_of(seat) == before  # the engine resolves only when every seat has answered
    for agent in env.agent_iter():
        if game.phase != Phase.EXCHANGE:
            break
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert sorted(game.view(seat).exchange_given) == sorted(picks)


def test_claim_window_asks_each_claimant_in_turn():
    env = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    rng = np.random.default_rng(1)
    seen_multi = 0
    for seed in range(40):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, _, _ = env.last()
            if term:
                env.step(None)
                continue
            game = env.game
            if game.phase == Phase.CLAIM and len(game.pending) > 1:
                seen_multi += 1
                waiting = [env.possible_agents[s] for s in game.pending[1:]]
                assert all(env.observe(a)["action_mask"].sum() == 0 for a in waiting)
                # answering PASS here moves to the next claimant without resolving the window
                before = len(game.pending)
                if obs["action_mask"][A.PASS_ID]:
                    env.step(A.PASS_ID)
                    assert game.phase == Phase.CLAIM and len(game.pending) == before - 1
                    continue
            env.step(flat_greedy(env, agent, rng))
        if seen_multi >= 3:
            break
    assert seen_multi >= 1


# ---- rewards and leaving winners ----------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", SUPPORTED)
@pytest.mark.parametrize("mode", ["delta", "terminal"])
def test_rewards_sum_to_hand_scores(variant, mode):
    cfg = load_variant(variant)
    env = make(variant, reward_mode=mode, reward_scale=0.5, normalize_reward=True)
    rng = np.random.default_rng(3)
    nonzero = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a departed agent whose score changes would warn
        for seed in range(6):
            env.reset(seed=seed)
            total = run_hand(env, rng)
            scores = env.unwrapped.game.scores
            for i, agent in enumerate(env.possible_agents):
                assert total[agent] == pytest.approx(scores[i] / cfg.base_unit * 0.5)
            nonzero += any(scores)
    assert nonzero > 0


def test_delta_rewards_follow_transfers():
    env = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    rng = np.random.default_rng(9)
    env.reset(seed=24)
    steps_with_transfers = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(flat_greedy(env, agent, rng))
        transfers = env.infos[env.agents[0]]["transfers"] if env.agents else []
        if transfers:
            steps_with_transfers += 1
            delta = dict.fromkeys(range(4), 0)
            for payer, receiver, amount, _ in transfers:
                delta[payer] -= amount
                delta[receiver] += amount
            for a in env.agents:
                assert env.rewards[a] == delta[env.agent_name_mapping[a]]
    assert steps_with_transfers > 0


def test_winners_leave_through_termination():
    env = sichuan_mahjong_v0.env(variant="chengdu")
    rng = np.random.default_rng(0)
    left_early = 0
    for seed in range(30):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, _, info = env.last()
            raw = env.unwrapped
            if term:
                seat = raw.agent_name_mapping[agent]
                if not raw.game.is_over:
                    left_early += 1
                    assert raw.game.won[seat] and not raw.game.active[seat]
                    assert obs["action_mask"].sum() == 0
                env.step(None)
                assert agent not in env.agents
                continue
            env.step(flat_greedy(raw, agent, rng))
        assert "result" in info and info["result"]["scores"] == list(raw.game.scores)
        if left_early >= 2:
            break
    assert left_early >= 1


def test_winner_waits_while_a_kong_refund_is_possible():
    """A winner who paid a kong payment to a seat that may still be refunded stays in ``agents`` until settled."""
    env = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    rng = np.random.default_rng(0)
    waited = 0
    for seed in range(60):
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            env.step(flat_greedy(env, agent, rng))
            game = env.game
            for a in env.agents:
                s = env.agent_name_mapping[a]
                if not game.active[s] and not game.is_over:
                    assert env.terminations[a] == env.backend.score_final(s)
                    waited += not env.terminations[a]
        if waited:
            break
    assert waited > 0


# ---- reset options and seeding --------------------------------------------------------------------------------------
def test_reset_seed_sequence_and_fixed_start():
    env = sichuan_mahjong_v0.raw_env(variant="chengdu")
    env.reset(seed=5)
    g5 = env.game
    assert g5.events[0]["wall"] == Game("chengdu", seed=5).events[0]["wall"]
    env.reset()
    second = env.game.events[0]["wall"]
    env.reset(seed=5)
    env.reset()
    assert env.game.events[0]["wall"] == second != g5.events[0]["wall"]
    wall = list(g5.events[0]["wall"])
    env.reset(options={"wall": wall, "dealer": 2, "exchange_offset": 3})
    assert env.game.dealer == 2 and env.game.exchange_offset == 3 and env.game.events[0]["wall"] == wall
    env.reset(seed=1, options={"rules": {"exchange_mode": "none"}})
    assert env.game.phase == Phase.DINGQUE and env.cfg.exchange_mode == "swap3"
    assert phase_of(env.observe(env.agent_selection)["observation"]) is Phase.DINGQUE
    with pytest.warns(UserWarning, match=r"ignoring unknown reset option\(s\) \['walls'\]"):
        env.reset(options={"walls": wall})
    with pytest.raises(ValueError, match="num_players"):
        env.reset(options={"rules": {"num_players": 3}})
    with pytest.raises(ValueError, match="reward_mode"):
        sichuan_mahjong_v0.raw_env(reward_mode="sparse")
    assert sichuan_mahjong_v0.raw_env(variant="chengdu", rules={"cap_doublings": 4}).cfg.cap_doublings == 4


def test_infos_hide_other_players_private_events():
    env = sichuan_mahjong_v0.raw_env(variant="chengdu")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        agent = env.agent_selection
        env.step(flat_greedy(env, agent, rng))
        for a in env.agents:
            seat = env.agent_name_mapping[a]
            for ev in env.infos[a]["events"]:
                assert "visible_to" not in ev and "redact" not in ev
                if ev["type"] == "draw":
                    assert ev["seat"] == seat or "tile" not in ev
                if ev["type"] == "action" and ev.get("phase") != "self":
                    assert ev["seat"] == seat or "action" not in ev


def test_observations_are_fresh_arrays():
    env = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    env.reset(seed=0)
    agent = env.agent_selection
    o1 = env.observe(agent)
    o1["observation"][:] = 9
    o1["action_mask"][:] = 0
    o2 = env.observe(agent)
    assert o2["observation"].max() <= 4 and o2["action_mask"].sum() > 0
