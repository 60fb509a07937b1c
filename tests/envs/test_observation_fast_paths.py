"""The fast observation / mask / info paths give exactly what the reference paths give.

* :class:`GameObserver` (incremental) against
  ``ObservationEncoder.encode(game.view(seat))``: bit-identical tensors for every seat at every decision point of
  seeded random games of every preset, with the observer asked in several patterns (every seat at every step, only
  the acting seat, now and then);
* :func:`game_mask` against :func:`legal_mask` of the view;
* the AEC env's ``observe`` against its ``reference_observe`` (the view path), with the 换三张 pick sequence;
* the per-step event filtering of the AEC infos against :func:`_events_for`.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import sichuan_mahjong_v0 as aec
from envs.core.rule_config import ENGINE_PRESETS
from envs.engine.game import Game
from envs.engine.observation import GameObserver, ObservationEncoder, game_mask, legal_mask

PRESETS = ("chengdu", "xueliu", "hongzhong", "yibin", "duankagen", "chiyu", "two_player", "wuhan")


def test_every_preset_is_covered():
    assert set(PRESETS) == set(ENGINE_PRESETS)


def _observe_pattern(seed: int, game: Game, rng: random.Random) -> list[int]:
    """Seats to observe now: all (pattern 0), the acting seat (1), or the acting seat now and then (2)."""
    if game.is_over:
        return list(range(game.n))
    pattern = seed % 3
    if pattern == 0:
        return list(range(game.n))
    if pattern == 1 or rng.random() < 0.3:
        return [game.pending[0]]
    return []


@pytest.mark.parametrize("variant", PRESETS)
def test_fast_encoders_and_masks_match_the_view_path(variant):
    checked = 0
    for seed in range(9):
        g = Game(variant, seed=seed)
        enc = ObservationEncoder.from_config(g.cfg)
        observer = GameObserver(enc, g)
        rng = random.Random(seed)
        out = np.full(enc.shape, np.nan, dtype=np.float32)
        while True:
            for s in _observe_pattern(seed, g, rng):
                view = g.view(s)
                ref = enc.encode(view)
                assert ref.tobytes() == observer.encode(s).tobytes(), (variant, seed, s, g.phase)
                assert observer.encode(s, out) is out and out.tobytes() == ref.tobytes()
                if view.legal_actions and view.phase.value != "exchange":
                    assert np.array_equal(game_mask(g, s), legal_mask(view))
                checked += 1
            if g.is_over:
                break
            seat = g.pending[0]
            g.step(seat, rng.choice(g.legal_actions(seat)))
    assert checked > 300


def test_observer_rejects_a_game_of_another_table_size():
    g = Game("two_player", seed=1)
    with pytest.raises(ValueError, match="2-player table, encoder for 4"):
        GameObserver(ObservationEncoder(4), g)
    with pytest.raises(ValueError, match="out must be float32"):
        GameObserver(ObservationEncoder(2), g).encode(0, np.zeros((3, 3), dtype=np.float32))


def test_observer_returns_fresh_arrays():
    g = Game("chengdu", seed=3)
    observer = GameObserver(ObservationEncoder(4), g)
    a = observer.encode(0)
    a[:] = 7.0
    b = observer.encode(0)
    assert not np.shares_memory(a, b) and b.max() <= 4.0


@pytest.mark.parametrize("variant", PRESETS)
def test_aec_observe_matches_the_reference_observe(variant):
    env = aec.raw_env(variant, match=False)
    steps = 0
    for seed in range(4):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            for agent in env.agents:
                fast, ref = env.observe(agent), env.reference_observe(agent)
                assert fast["observation"].tobytes() == ref["observation"].tobytes(), (variant, seed, agent)
                assert fast["action_mask"].tobytes() == ref["action_mask"].tobytes(), (variant, seed, agent)
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
    assert steps > 100


@pytest.mark.parametrize("variant", ("chengdu", "xueliu", "duankagen", "wuhan"))
def test_step_event_forms_match_events_for(variant):
    """Infos: the events each seat sees, built once per step, equal the reference filter and are fresh dicts."""
    g = Game(variant, seed=5)
    rng = random.Random(5)
    cursor = 0
    while not g.is_over:
        seat = g.pending[0]
        g.step(seat, rng.choice(g.legal_actions(seat)))
        new = g.events[cursor:]
        cursor = len(g.events)
        forms = aec._event_forms(new)
        per_seat = [aec._events_from_forms(forms, s) for s in range(g.n)]
        for s in range(g.n):
            assert per_seat[s] == aec._events_for(new, s)
            assert all(ev is not orig for ev in per_seat[s] for orig in new)
        ids = [id(ev) for evs in per_seat for ev in evs]
        assert len(ids) == len(set(ids))  # no dict shared between seats (or with the engine's log)


@pytest.mark.parametrize("variant", PRESETS)
def test_vector_env_rows_match_the_view_path(variant):
    """The batched env (incremental observers, view-free masks): every row equals the view path's tensor and mask."""
    from envs.vector_env import VectorEnv

    venv = VectorEnv(variant, 4, seed=11, self_play=True)
    venv.reset()
    enc = ObservationEncoder.from_config(venv.cfg)
    rng = np.random.default_rng(3)
    for _ in range(120):
        for i, (g, seat) in enumerate(zip(venv.games, venv.seats)):
            view = g.view(seat)
            picks = venv.backend.picks(i, seat)
            assert venv.obs[i].tobytes() == enc.encode(view, exchange_picks=picks).tobytes()
            assert np.array_equal(venv.masks[i], legal_mask(view, picks))
        venv.step((rng.random(venv.masks.shape) * venv.masks).argmax(axis=1))


@pytest.mark.parametrize("variant", ("chengdu", "xueliu", "yibin", "wuhan"))
def test_vector_env_learner_rows_and_terminal_observations_match_the_view_path(variant):
    from envs.vector_env import VectorEnv

    venv = VectorEnv(variant, 3, seed=5)
    venv.reset()
    enc = ObservationEncoder.from_config(venv.cfg)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(150):
        games, seats = list(venv.games), list(venv.seats)
        for i, (g, seat) in enumerate(zip(games, seats)):
            assert (
                venv.obs[i].tobytes() == enc.encode(g.view(seat), exchange_picks=venv.backend.picks(i, seat)).tobytes()
            )
        _, _, dones, infos = venv.step((rng.random(venv.masks.shape) * venv.masks).argmax(axis=1))
        for i in np.flatnonzero(dones):
            terminal = infos[i]["terminal_observation"]
            assert terminal.tobytes() == enc.encode(games[i].view(seats[i])).tobytes()
            ended += 1
    assert ended >= 3


def test_aec_infos_at_the_end_are_equal_and_not_shared():
    """The hand result is built once per step and copied per agent: equal contents, no shared containers."""
    env = aec.raw_env("xueliu")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while not env.game.is_over:
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    results = [env.infos[a]["result"] for a in env.agents]
    assert len(results) >= 2 and all(r == results[0] for r in results)
    assert results[0] == aec._result_dict(env.game.result)

    def containers(x, acc):
        if isinstance(x, (dict, list)):
            acc.add(id(x))
            for v in x.values() if isinstance(x, dict) else x:
                containers(v, acc)
        return acc

    seen = [containers(r, set()) for r in results]
    assert all(not (seen[i] & seen[j]) for i in range(len(seen)) for j in range(i + 1, len(seen)))


class _ReferenceSingleAgent:
    """SingleAgentEnv's opponent loop as first written: every opponent decision observed through ``observe``."""

    @staticmethod
    def advance(self) -> float:
        aec = self.aec
        me = self.agent
        while aec.agents:
            agent = aec.agent_selection
            if agent == me:
                if aec.terminations[me]:
                    aec.step(None)
                break
            if aec.terminations[agent]:
                aec.step(None)
            else:
                obs = aec.observe(agent)
                seat = aec.agent_name_mapping[agent]
                policy = self._opponents[(seat - self.seat) % self.cfg.num_players - 1]
                aec.step(self._act(policy, obs["observation"], obs["action_mask"]))
        self._done = me not in aec.agents
        score = aec.game.scores[self.seat]
        if aec.reward_mode == "delta":
            reward = (score - self._score) * aec.reward_factor
        else:
            reward = score * aec.reward_factor if self._done else 0.0
        self._score = score
        return float(reward)


@pytest.mark.parametrize("variant", ("chengdu", "hongzhong", "yibin", "wuhan"))
def test_single_agent_random_opponents_match_the_observing_loop(variant, monkeypatch):
    from envs.single_agent import SingleAgentEnv

    def run(reference: bool) -> list:
        env = SingleAgentEnv(variant, match=False)
        if reference:
            monkeypatch.setattr(env, "_advance", lambda: _ReferenceSingleAgent.advance(env))
        rng = np.random.default_rng(9)
        obs, info = env.reset(seed=4)
        trace = [(obs.tobytes(), info["action_mask"].tobytes(), info.get("skipped_hands"))]
        for _ in range(150):
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            trace.append((obs.tobytes(), reward, terminated, truncated, info["action_mask"].tobytes(), info["scores"]))
            if terminated or truncated:
                obs, info = env.reset()
                trace.append((obs.tobytes(), info["action_mask"].tobytes(), info.get("skipped_hands")))
        return trace

    assert run(reference=False) == run(reference=True)
