"""The single-agent gymnasium env: checkers, the learner's own reward against a scripted game, MaskablePPO smoke."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from envs.core import actions as A
from envs.engine.game import Game
from envs.engine.observation import OBS_SHAPE, legal_mask
from envs.engine.view import Phase
from envs.single_agent import SingleAgentEnv


def scripted(observation: np.ndarray, mask: np.ndarray) -> int:
    """Deterministic policy from the mask alone: win when possible, else the lowest legal id."""
    if mask[A.HU_ID]:
        return A.HU_ID
    return int(np.flatnonzero(mask)[0])


class ScriptedAgent:
    """The same policy as an object with ``act`` and ``reset`` (the agents.base interface)."""

    def __init__(self) -> None:
        self.resets: list[int] = []

    def reset(self, seat, variant) -> None:
        self.resets.append(seat)

    def act(self, observation, legal_mask):
        return scripted(observation, legal_mask)


def replay_scores(variant: str, seed, learner: int) -> tuple[list[int], list[int]]:
    """Play the hand with the engine alone, everyone scripted; the learner's score at each of its decisions, and the
    final scores."""
    game = Game(variant, seed=seed)
    picks: dict[int, list[int]] = {s: [] for s in range(game.cfg.num_players)}
    at_decisions = []
    while not game.is_over:
        seat = game.pending[0]
        if seat == learner:
            at_decisions.append(game.scores[learner])
        mask = legal_mask(game.view(seat), picks[seat])
        action = scripted(None, mask)
        if game.phase == Phase.EXCHANGE:
            picks[seat].append(action - A.EXCHANGE_BASE)
            if len(picks[seat]) == 3:
                game.step(seat, A.exchange(picks.pop(seat)))
                picks[seat] = []
            continue
        game.step(seat, A.decode(action))
    return at_decisions, list(game.scores)


def test_gymnasium_and_sb3_checkers_pass():
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv("chengdu", illegal_action="penalty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec" (gymnasium) and "2-D observation" (SB3) recommendations
        check_env(env)
        sb3_check_env(env)
    obs, info = env.reset(seed=0)
    assert obs.shape == OBS_SHAPE and env.observation_space.contains(obs)
    assert env.action_masks().dtype == bool and env.action_masks().any()
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))


@pytest.mark.parametrize(
    ("variant", "seed", "learner"),
    [
        ("hongzhong", 24, 1),
        ("hongzhong", 1, 3),
        ("chengdu", 2, 1),
        ("xueliu", 3, 1),
        ("chiyu", 2, 1),
        ("two_player", 1, 0),
    ],
)
def test_reward_is_the_learners_own_score_change(variant, seed, learner):
    n = 2 if variant == "two_player" else 4
    opponents = [ScriptedAgent(), scripted, ScriptedAgent()][: n - 1]  # the seats after the learner, in turn order
    env = SingleAgentEnv(variant, opponents, seat=learner, match=False)
    obs, info = env.reset(seed=seed)
    assert info["skipped_hands"] == 0
    assert opponents[0].resets == [(learner + 1) % n]
    if n == 4:
        assert opponents[2].resets == [(learner + 3) % n]
    rewards = []
    done = False
    while not done:
        mask = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(scripted(obs, mask))
        rewards.append(reward)
        done = terminated or truncated
    assert terminated and not truncated
    at_decisions, final = replay_scores(variant, seed, learner)
    # one reward per learner decision: the score change from that decision to the next (or to the end)
    expected = [b - a for a, b in zip(at_decisions, [*at_decisions[1:], final[learner]])]
    assert rewards == pytest.approx(expected)
    assert sum(rewards) == pytest.approx(final[learner]) == pytest.approx(env.aec.game.scores[learner])
    # the test can tell the learner's reward from any other seat's
    assert all(final[s] != final[learner] for s in range(n) if s != learner)
    # hongzhong 24: the learner wins and leaves before the hand ends; its episode ends there, reward complete
    assert env.aec.game.is_over == ((variant, seed) != ("hongzhong", 24))


def test_reward_options_are_applied():
    env = SingleAgentEnv(
        "chiyu", scripted, seat=1, reward_mode="terminal", normalize_reward=True, reward_scale=2.0, match=False
    )
    obs, _ = env.reset(seed=4)
    rewards, done = [], False
    while not done:
        obs, reward, terminated, truncated, _ = env.step(scripted(obs, env.action_masks()))
        rewards.append(reward)
        done = terminated or truncated
    assert all(r == 0 for r in rewards[:-1])
    assert rewards[-1] == pytest.approx(env.aec.game.scores[1] / 1000 * 2.0)


def test_random_seat_and_reset_are_deterministic():
    env = SingleAgentEnv("hongzhong", seat="random")
    seats = set()
    for seed in range(8):
        o1, _ = env.reset(seed=seed)
        s1 = env.seat
        a1 = [int(np.flatnonzero(env.action_masks())[0])]
        o1b, r1, *_ = env.step(a1[0])
        o2, _ = env.reset(seed=seed)
        assert env.seat == s1 and np.array_equal(o1, o2)
        o2b, r2, *_ = env.step(a1[0])
        assert np.array_equal(o1b, o2b) and r1 == r2
        seats.add(s1)
    assert len(seats) > 1


def test_illegal_actions():
    env = SingleAgentEnv("chengdu")
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} \("):
        env.step(illegal)
    env = SingleAgentEnv("chengdu", illegal_action="penalty", illegal_penalty=-0.5, max_illegal=3)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for i in range(3):
        obs2, reward, terminated, truncated, info = env.step(illegal)
        assert reward == -0.5 and info["illegal_action"] and np.array_equal(obs, obs2) and not terminated
        assert truncated == (i == 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(illegal)
    with pytest.raises(ValueError, match="opponent policies"):
        SingleAgentEnv("chengdu", [scripted, scripted])
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv("two_player", seat=2)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("chengdu", illegal_action="ignore")


def test_maskable_ppo_learns_without_error():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = SingleAgentEnv("hongzhong", seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=192)
    obs, _ = env.reset(seed=99)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
