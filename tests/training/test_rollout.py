"""Batched self-play rollouts (training/rollout.py): per-seat rewards, episode boundaries, GAE, hidden information."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from agents.learned.net_input import NetInput
from agents.policy import NetSpec, build_policy
from envs.core.rule_config import load_variant
from envs.engine.observation import OBS_SHAPE
from training.opponents import batch_baseline
from training.rollout import LEARNER, SelfPlayRollout, stream_gae

C = OBS_SHAPE[0]


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Batches of a few rows: torch's thread pool only costs time here (as the trainer's torch_threads: 1)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _rollout(
    variant: str, *, num_envs: int = 3, all_learner: bool = True, seed: int = 5, engine: str = "python", **extra: Any
) -> SelfPlayRollout:
    rules = load_variant(variant)
    torch.manual_seed(0)
    policy = build_policy(NetSpec(features_dim=32, channels=4, honor_channels=2, broadcast_dim=8))
    rollout = SelfPlayRollout(
        rules,
        policy,
        NetInput(rules),
        num_envs=num_envs,
        seed=seed,
        snapshots=[],
        baselines=("random",),
        baseline_share=1.0,
        latest_share=0.5,
        env_options={"reward_mode": "delta", "reward_scale": 0.1, "normalize_reward": True, "engine": engine},
        **extra,
    )
    if all_learner:  # the learner plays itself at every seat
        rollout.players[:] = LEARNER
        rollout._draw_players = lambda i: rollout.players[i].fill(LEARNER)  # type: ignore[method-assign]
    return rollout


def test_stream_gae_hand_checked() -> None:
    # stream A: samples 0 -> 2 -> 3 (3 ends the episode); stream B: sample 1 -> 4 (4 still open)
    rewards = np.array([1.0, 0.5, 0.0, 2.0, 0.0])
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    dones = np.array([False, False, False, True, False])
    nxt = np.array([2, 4, 3, -1, -1])
    closed = np.array([True, True, True, True, False])
    g, lam = 0.9, 0.8
    adv = stream_gae(rewards, values, dones, nxt, closed, g, lam)
    a3 = 2.0 - 0.4
    a2 = 0.0 + g * 0.4 - 0.3 + g * lam * a3
    a0 = 1.0 + g * 0.3 - 0.1 + g * lam * a2
    a1 = 0.5 + g * 0.5 - 0.2  # bootstrapped: its next sample is still open
    assert adv == pytest.approx([a0, a1, a2, a3, 0.0])


@pytest.mark.parametrize("variant", ["hongzhong", "chengdu"])
def test_per_seat_rewards_and_episode_ends(variant: str) -> None:
    """Every seat of every table is a learner stream: per hand, a seat's samples are its decisions in order, only the
    last one ends the episode, and their rewards add up to the seat's final score (reward_mode delta)."""
    r = _rollout(variant, engine="compiled")
    rules = r.rules
    factor = 0.1 / rules.base_unit
    n = rules.num_players
    hand_samples: dict[tuple[int, int], list[int]] = {(i, q): [] for i in range(r.num_envs) for q in range(n)}
    finished = []
    for _ in range(200):
        seats = r.venv.acting_seats.copy()
        expected = [r.venv.backend.observation(i, int(seats[i])) for i in range(r.num_envs)]
        k0 = r.store.size
        added = r.step()
        assert added == r.num_envs  # every decision is the learner's
        for i in range(r.num_envs):
            k = k0 + i
            # hidden information: the learner's input is exactly the acting seat's own observation
            np.testing.assert_array_equal(r.store.inputs[k][:C], expected[i])
            hand_samples[(i, int(seats[i]))].append(k)
        for i, info in enumerate(r.infos):
            if "final_scores" in info:
                finished.append((i, info["final_scores"], {q: hand_samples.pop((i, q)) for q in range(n)}))
                for q in range(n):
                    hand_samples[(i, q)] = []
    assert len(finished) >= 2
    s = r.store
    for _, scores, per_seat in finished:
        for q, ks in per_seat.items():
            if not ks:  # a seat that never decided in the hand has no sample
                continue
            assert all(s.closed[k] for k in ks)
            assert [bool(s.dones[k]) for k in ks] == [False] * (len(ks) - 1) + [True]
            assert [int(s.next[k]) for k in ks[:-1]] == ks[1:]
            assert sum(s.rewards[k] for k in ks) == pytest.approx(scores[q] * factor, abs=1e-5)


def test_collect_carries_open_samples() -> None:
    r = _rollout("hongzhong", all_learner=True)
    batch = r.collect(40)
    assert len(batch) >= 40
    assert np.all(np.isfinite(batch.advantages)) and np.all(np.isfinite(batch.returns))
    # the samples still open are the newest decision of each seat stream that has decided in its current hand
    s = r.store
    assert not s.closed[: s.size].any()
    opened = r.open[r.open >= 0]
    assert sorted(opened.tolist()) == list(range(s.size))


def test_players_follow_the_pool_shares() -> None:
    r = _rollout("hongzhong", num_envs=400, all_learner=False)
    # empty pool: one learner seat per table, the others baselines
    assert np.all((r.players == LEARNER).sum(axis=1) == 1)
    assert np.all(r.players[r.players != LEARNER] == 0)


def test_batch_baseline_answers_like_the_agent() -> None:
    rules = load_variant("hongzhong")
    r = _rollout("hongzhong", all_learner=True)
    obs, masks = r.obs, r.venv.masks
    player = batch_baseline("greedy", rules, seed=0)
    from agents.registry import make_agent

    agent = make_agent("greedy", seed=0)
    agent.reset(0, rules)  # type: ignore[attr-defined]
    expected = [agent.act(o, m) for o, m in zip(obs, masks)]
    assert player.act_batch(obs, masks).tolist() == expected


def test_snapshots_and_pool_shares(tmp_path) -> None:
    from agents.policy import CheckpointMeta, save_policy

    rules = load_variant("hongzhong")
    net = NetSpec(features_dim=32, channels=4, honor_channels=2, broadcast_dim=8)
    torch.manual_seed(1)
    path = save_policy(tmp_path / "snap.zip", build_policy(net), CheckpointMeta.for_variant(rules, net, seed=0, step=0))
    policy = build_policy(net)

    def make(num_envs: int, baseline_share: float, latest_share: float) -> SelfPlayRollout:
        return SelfPlayRollout(
            rules, policy, NetInput(rules), num_envs=num_envs, seed=3, snapshots=[{"id": 0, "path": str(path)}],
            baselines=("random",), baseline_share=baseline_share, latest_share=latest_share,
            env_options={"reward_scale": 0.1, "normalize_reward": True},
        )  # fmt: skip

    mix = make(1, 0.5, 0.5)
    draws = []
    for _ in range(400):  # the players of 400 hands of table 0
        mix._draw_players(0)
        draws.append(mix.players[0].copy())
    seats = np.array(draws)
    assert np.all((seats == LEARNER).sum(axis=1) >= 1)
    share = {code: float((seats == code).sum()) / 1200 for code in (LEARNER, 0, 1)}  # 3 opponent seats a hand
    assert abs(share[1] - 0.5) < 0.06  # baselines (code S + 0 = 1)
    assert abs(share[0] - 0.25) < 0.05  # the snapshot
    assert abs(share[LEARNER] - 1 / 3 - 0.25) < 0.05  # the drawn seat, plus the "newest snapshot" seats
    solo = make(4, 0.0, 0.0)  # one learner seat per table, the snapshot at the other three
    assert np.all((solo.players == LEARNER).sum(axis=1) == 1) and np.all(solo.players[solo.players != LEARNER] == 0)
    added = 0
    for _ in range(30):
        learner_turns = int((solo.players[np.arange(4), solo.venv.acting_seats] == LEARNER).sum())
        assert solo.step() == learner_turns  # a sample for each learner decision, none for the snapshot's
        added += learner_turns
    assert 0 < added < 30 * 4 and solo.store.size == added
