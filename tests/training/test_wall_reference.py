"""Duplicate rewards (training/wall_reference.py, ``env.reward_baseline``): the reference walls score what the
readable agents score on the Python engine, the rollout lowers each seat's hand by exactly its reference, and the
configurations that cannot use it are refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.registry import make_agent
from envs import sichuan_mahjong_v0
from envs.backend import make_batch
from envs.compiled.layout import HANDS
from envs.core.rule_config import load_variant
from envs.vector_env import make_vec_env
from training.train_config import TrainConfigError, load_train_config
from training.trainer import Trainer
from training.wall_reference import WallReference

from .test_batched_trainer import TINY
from .test_rollout import _rollout


def _python_scores(variant: str, agent: str, hand: int) -> list[int]:
    """Every seat of wall ``hand`` played by the readable agent ``agent`` (seat ``q`` seeded ``hand + q``)."""
    rules = load_variant(variant)
    env = sichuan_mahjong_v0.raw_env(variant=variant, engine="python")
    env.reset(seed=hand)
    players = {}
    for q, name in enumerate(env.possible_agents):
        players[name] = make_agent(agent, seed=hand + q, variant=rules)
        players[name].reset(q, rules)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else players[name].act(obs["observation"], obs["action_mask"]))
    return list(env.scores)


@pytest.mark.parametrize(("variant", "agent"), [("chengdu", "value"), ("hongzhong", "greedy"), ("xueliu", "value")])
def test_reference_walls_score_what_the_python_agents_score(variant: str, agent: str) -> None:
    ref = WallReference(load_variant(variant), agent)
    hands = [11, 12, 13, 14]
    ref.add(hands[:3])  # one batch; the fourth is played alone when asked
    assert 11 in ref and 14 not in ref
    for hand in hands:
        assert ref.take(hand).tolist() == _python_scores(variant, agent, hand)
    assert 11 not in ref  # taken walls are forgotten
    assert ref.walls_played == 4


def test_upcoming_hands_are_the_walls_the_slots_deal() -> None:
    venv = make_vec_env("chengdu", 3, engine="compiled", self_play=True, seed=40)
    venv.reset()
    ahead = [venv.upcoming_hands(i, 3) for i in range(3)]
    assert [a[0] for a in ahead] == [40, 41, 42]
    fresh = make_batch("compiled", venv.cfg, 1)

    def dealt(i: int) -> int | bytes:
        """Slot ``i``'s current wall seed, checked against a fresh deal of that seed (every seat's hand)."""
        hand = venv.upcoming_hands(i)[0]
        fresh.deal(0, hand)
        np.testing.assert_array_equal(
            venv.backend.state[i, HANDS : HANDS + 4 * 34], fresh.state[0, HANDS : HANDS + 4 * 34]
        )
        return hand

    seen = [[dealt(i)] for i in range(3)]
    rng = np.random.default_rng(0)
    while min(len(s) for s in seen) < 3:
        _, _, dones, _ = venv.step(venv.sample_actions(rng))
        for i in np.flatnonzero(dones).tolist():
            seen[i].append(dealt(i))
    assert [s[:3] for s in seen] == ahead
    with pytest.raises(ValueError, match="count must be positive"):
        venv.upcoming_hands(0, 0)
    match = make_vec_env("chiyu", 2, engine="compiled", self_play=True, match=True)
    match.reset()
    with pytest.raises(ValueError, match="match"):
        match.upcoming_hands(0)


def test_rollout_rewards_are_the_hand_minus_the_reference() -> None:
    """Every seat is the learner: per hand, a seat's rewards add up to its score minus the reference agent's score in
    that seat on the same wall; the logged episode returns stay the plain points."""
    r = _rollout("chengdu", seed=9, engine="compiled", reference=WallReference(load_variant("chengdu"), "value"),
                 reference_ahead=2)  # fmt: skip
    rules = r.rules
    factor = 0.1 / rules.base_unit
    n = rules.num_players
    check = WallReference(rules, "value")
    hands = [r.venv.upcoming_hands(i)[0] for i in range(r.num_envs)]
    samples: dict[tuple[int, int], list[int]] = {(i, q): [] for i in range(r.num_envs) for q in range(n)}
    finished = []
    for _ in range(300):
        seats = r.venv.acting_seats.copy()
        k0 = r.store.size
        r.step()
        for i in range(r.num_envs):
            samples[(i, int(seats[i]))].append(k0 + i)
        for i, info in enumerate(r.infos):
            if "final_scores" in info:
                per_seat = {q: samples.pop((i, q)) for q in range(n)}
                finished.append((info["final_scores"], check.take(hands[i]), per_seat))
                hands[i] = r.venv.upcoming_hands(i)[0]
                for q in range(n):
                    samples[(i, q)] = []
    assert len(finished) >= 3
    assert r.timing["reference"] > 0
    assert r.reference is not None and r.reference.walls_played >= len(finished)
    s = r.store
    moved = 0
    for scores, reference, per_seat in finished:
        for q, ks in per_seat.items():
            if ks:
                assert sum(s.rewards[k] for k in ks) == pytest.approx((scores[q] - reference[q]) * factor, abs=1e-5)
                moved += reference[q] != 0
    assert moved  # some references are not zero: the check can tell the two rewards apart
    plain = sorted(scores[q] * factor for scores, _, per in finished for q in per if per[q])
    assert sorted(r.episodes) == pytest.approx(plain, abs=1e-5)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"trainer": "sb3"}, "needs 'trainer: batched'"),
        ({"env.match": True}, "single hands"),
        ({"env.reward_baseline": "nobody"}, "env.reward_baseline"),
    ],
)
def test_configs_that_cannot_use_a_reward_baseline_are_refused(extra: dict, words: str) -> None:
    cfg = load_train_config("chiyu").replace(**{**TINY, "env.reward_baseline": "value"})
    with pytest.raises(TrainConfigError, match=words):
        cfg.replace(**extra)


def test_a_run_with_a_reward_baseline_trains_and_resumes_exactly(tmp_path: Path) -> None:
    longer = {"total_steps": 512, "schedule.segment_steps": 256}  # hands of the learner end in both segments
    cfg = load_train_config("chengdu").replace(
        **{**TINY, **longer, "env.engine": "compiled", "env.reward_baseline": "value"}
    )
    whole = Trainer.create(cfg, tmp_path / "whole", progress=False)
    whole.train(progress=False)
    assert whole.rollout_timing["reference"] > 0
    report = whole.finish()
    assert "rewards relative to `value` on the same wall" in report["markdown"]
    assert report["rollout_timing_s"]["reference"] == whole.rollout_timing["reference"]
    split = Trainer.create(cfg, tmp_path / "split", progress=False)
    split.train(max_segments=1, progress=False)
    resumed = Trainer.resume(tmp_path / "split")
    resumed.train(progress=False)
    for a, b in zip(whole.model.policy.parameters(), resumed.model.policy.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    plain = Trainer.create(cfg.replace(**{"env.reward_baseline": ""}), tmp_path / "plain", progress=False)
    plain.train(progress=False)
    differs = any(
        not np.array_equal(a.detach().numpy(), b.detach().numpy())
        for a, b in zip(whole.model.policy.parameters(), plain.model.policy.parameters())
    )
    assert differs  # the reference changes what the learner is taught


@pytest.mark.parametrize("batched", [True, False])
def test_bc_returns_are_relative_to_the_reference(batched: bool) -> None:
    """Behaviour-cloning targets with a reference: the same decisions, each return lowered by the reference agent's
    points in the deciding seat on that hand's wall (so the critic starts on the returns PPO gives it)."""
    from training.bc import collect_decisions

    rules = load_variant("chengdu")
    options = {"reward_scale": 0.1, "normalize_reward": True}
    plain = collect_decisions(rules, "greedy", 300, 4, env_options=options, batched=batched)
    relative = collect_decisions(
        rules, "greedy", 300, 4, env_options=options, batched=batched, reference=WallReference(rules, "value")
    )
    np.testing.assert_array_equal(relative.actions, plain.actions)
    assert relative.hand_seeds == plain.hand_seeds and plain.seats is not None and plain.hand_of is not None
    check = WallReference(rules, "value")
    points = {h: check.take(plain.hand_seeds[h]) for h in sorted(set(plain.hand_of.tolist()))}
    lowered = np.asarray([points[h][q] for h, q in zip(plain.hand_of, plain.seats)]) * 0.1 / rules.base_unit
    np.testing.assert_allclose(relative.returns, plain.returns - lowered, atol=1e-5)
    assert not np.allclose(relative.returns, plain.returns)
