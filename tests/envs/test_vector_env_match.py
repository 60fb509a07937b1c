"""VectorEnv in match mode (envs.match_backend): whole matches per episode on both engines, equal to the
single-agent env's matches, money conserved, bad room input refused."""

from __future__ import annotations

import numpy as np
import pytest

from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.single_agent import SingleAgentEnv
from envs.vector_env import VectorEnv


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_learner_mode_equals_single_agent_matches(engine: str) -> None:
    n, seed = 2, 11
    venv = VectorEnv("chiyu", n, seed=seed, match=True, placement="linear", engine=engine)
    envs = [SingleAgentEnv("chiyu", match=True, placement="linear") for _ in range(n)]
    obs = venv.reset()
    assert obs.shape == (n, *MATCH_OBS_SHAPE)
    ref = [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]
    for i in range(n):
        np.testing.assert_array_equal(obs[i], ref[i])
    ended = 0
    for _ in range(300):
        acts = _first_legal(venv.masks)
        obs, rewards, dones, infos = venv.step(acts)
        for i, env in enumerate(envs):
            o, r, done, _, _info = env.step(int(acts[i]))
            assert rewards[i] == pytest.approx(r)
            assert bool(dones[i]) == done
            if done:
                ended += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], o)
                assert infos[i]["match"]["over"] and "placements" in infos[i]["match"]
                assert infos[i]["match"]["standing"] == list(env.aec.match.standing)
                o, _ = env.reset()
            np.testing.assert_array_equal(obs[i], o)
    assert ended >= 2


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_self_play_rooms_conserve_chips(engine: str) -> None:
    venv = VectorEnv("hongzhong", 3, seed=3, self_play=True, room="初级场", stacks=4000, engine=engine)
    venv.reset()
    rng = np.random.default_rng(0)
    totals = np.zeros((3, 4))
    matches = 0
    for _ in range(600):
        _, rewards, dones, infos = venv.step(venv.sample_actions(rng))
        totals += rewards
        assert rewards.sum(axis=1) == pytest.approx(0.0)  # zero-sum at every step
        for i in np.flatnonzero(dones):
            m = infos[i]["match"]
            matches += 1
            assert m["over"]
            assert sum(m["standing"]) == sum(m["start"]) + sum(m["refills"])
            np.testing.assert_allclose(totals[i], [s - b for s, b in zip(m["standing"], m["start"])])
            totals[i] = 0
    assert matches >= 1


def test_engines_agree_match_by_match() -> None:
    out = []
    for engine in ("python", "compiled"):
        venv = VectorEnv("chiyu", 2, seed=30, self_play=True, match=True, engine=engine)
        venv.reset()
        rng = np.random.default_rng(1)
        finals = []
        for _ in range(400):
            _, _, dones, infos = venv.step(venv.sample_actions(rng))
            finals += [
                (int(i), infos[i]["match"]["standing"], infos[i]["match"]["hand"]) for i in np.flatnonzero(dones)
            ]
        out.append(finals)
    assert out[0] == out[1] and out[0]


def test_bad_room_input_is_refused() -> None:
    with pytest.raises(ValueError, match="Tier|room|初级场"):
        VectorEnv("hongzhong", 2, room="no such room")
    with pytest.raises(ValueError, match="100000|100,000|stack"):
        VectorEnv("hongzhong", 2, room="初级场", stacks=10**9)
    with pytest.raises(ValueError, match="stack"):
        VectorEnv("hongzhong", 2, room="初级场", stacks=-5)
    with pytest.raises(ValueError, match="room"):
        VectorEnv("hongzhong", 2, stacks=5000)
