"""The batched env on the compiled engine (CompiledVectorEnv) equals the batched env on the Python engine (VectorEnv)
step by step: observations, masks, rewards, dones, infos (terminal observations, episodes, scores, seats), in
self-play and learner mode, with random, rule-based, batch-friendly and pooled opponents.  VectorEnv itself is
checked against the AEC env and the single-agent wrapper in tests/envs/test_vector_env.py."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from envs.core.rule_config import load_variant
from envs.engine.game import UnsupportedRule
from envs.engine.observation import OBS_SHAPE
from envs.vector_env import CompiledVectorEnv, VectorEnv, make_vec_env

pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import VecEnv


def _same_info(a: dict, b: dict, where: str) -> None:
    assert a.keys() == b.keys(), where
    for key, value in a.items():
        other = b[key]
        if key == "terminal_observation":
            np.testing.assert_array_equal(value, other, err_msg=where)
        elif key == "episode":
            assert {k: v for k, v in value.items() if k != "t"} == {k: v for k, v in other.items() if k != "t"}, where
        else:
            assert value == other, f"{where}: {key}"


def _compare(
    steps: int,
    n: int = 6,
    seed: int = 11,
    python_opponents=None,
    compiled_opponents=None,
    variant: str = "chengdu",
    **options,
) -> int:
    """Step both envs with the same random legal actions; returns the number of episodes that ended."""
    ref = VectorEnv(variant, n, seed=seed, opponents=python_opponents, **options)
    fast = CompiledVectorEnv(variant, n, seed=seed, opponents=compiled_opponents, **options)
    np.testing.assert_array_equal(ref.reset(), fast.reset())
    assert ref.reset_infos == fast.reset_infos
    rng = np.random.default_rng(seed)
    ended = 0
    for t in range(steps):
        np.testing.assert_array_equal(ref.masks, fast.masks, err_msg=f"step {t}: masks")
        np.testing.assert_array_equal(ref.acting_seats, fast.acting_seats, err_msg=f"step {t}: seats")
        assert ref.seats == fast.seats
        actions = ref.sample_actions(rng)
        a, b = ref.step(actions), fast.step(actions)
        for x, y, name in zip(a[:3], b[:3], ("observations", "rewards", "dones")):
            np.testing.assert_array_equal(x, y, err_msg=f"step {t}: {name}")
        for i, (x, y) in enumerate(zip(a[3], b[3])):
            _same_info(x, y, f"step {t}, slot {i}")
        ended += int(a[2].sum())
    return ended


@pytest.mark.parametrize("reward_mode", ["delta", "terminal"])
def test_self_play_equals_the_python_batched_env(reward_mode):
    assert _compare(500, self_play=True, reward_mode=reward_mode) >= 6


def test_learner_mode_with_random_opponents_equals_the_python_batched_env():
    assert _compare(250, seat="random", reward_scale=0.1) >= 6


@pytest.mark.parametrize("variant", ["xueliu", "hongzhong", "chiyu", "two_player", "duankagen", "yibin", "wuhan"])
@pytest.mark.parametrize("self_play", [True, False])
def test_other_presets_equal_the_python_batched_env(variant, self_play):
    assert _compare(300 if self_play else 150, n=4, variant=variant, self_play=self_play) >= 2


def test_hands_won_at_the_deal_are_skipped_like_the_python_batched_env():
    """Without 换三张 / 定缺 and with hz_four_red_ends_hand, four 红中 dealt to the dealer end the hand at the deal:
    the slot deals its next hand (skipped_hands), as VectorEnv does; the rewards of such hands match too."""
    rules = {"exchange_mode": "none", "dingque": False, "hz_four_red_ends_hand": True}
    seed = 12079  # its first hand deals the four 红中 to the dealer
    for self_play in (True, False):
        _compare(40, n=3, seed=seed, variant="hongzhong", self_play=self_play, rules=rules)
        venv = CompiledVectorEnv("hongzhong", 1, seed=seed, self_play=self_play, rules=rules)
        venv.reset()
        assert venv.reset_infos[0]["skipped_hands"] == 1


def test_learner_mode_fixed_seat_terminal_rewards_points_scale():
    assert _compare(150, n=4, seat=2, reward_mode="terminal", normalize_reward=True) >= 2


class _LowestLegal:
    """Deterministic batch-friendly opponent: the smallest legal id of every row."""

    def __init__(self) -> None:
        self.calls = self.rows = 0

    def act_batch(self, observations, masks):
        assert observations.shape[1:] == OBS_SHAPE and observations.shape[0] == masks.shape[0]
        self.calls += 1
        self.rows += len(masks)
        return masks.argmax(axis=1)


def test_rule_based_and_batched_opponents_equal_the_python_batched_env():
    """Greedy baselines (they read every observation), a batch policy and the slot's random draws, per seat."""

    def opponents():
        return [make_agent("greedy", seed=1), _LowestLegal(), None]

    ref, fast = opponents(), opponents()
    assert _compare(200, n=5, python_opponents=ref, compiled_opponents=fast) >= 2
    assert fast[1].rows == ref[1].rows and fast[1].rows > fast[1].calls


class _Pool:
    def __init__(self) -> None:
        self.drawn = 0

    def opponents_for(self, slot, rng):
        self.drawn += 1
        return [None, make_agent("defensive", seed=slot) if rng.random() < 0.5 else None, None]


def test_opponent_pool_equals_the_python_batched_env():
    ref, fast = _Pool(), _Pool()
    assert _compare(150, n=4, python_opponents=ref, compiled_opponents=fast) >= 2
    assert ref.drawn == fast.drawn > 4


def test_sb3_api_errors_and_refused_variants():
    venv = make_vec_env("chengdu", 3, seed=0, engine="compiled")
    assert isinstance(venv, CompiledVectorEnv) and isinstance(venv, VecEnv)
    with pytest.raises(RuntimeError, match=r"CompiledVectorEnv.step\(\) before reset\(\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    obs = venv.reset()
    assert obs.shape == (3, *OBS_SHAPE) and venv.action_masks().shape == (3, 183)
    assert venv.get_attr("seat") == venv.seats
    bad = venv.sample_actions()
    bad[1] = int(np.flatnonzero(venv.masks[1] == 0)[0])
    with pytest.raises(ValueError, match="illegal action .* slot 1"):
        venv.step(bad)
    with pytest.raises(ValueError, match="expected 3 actions"):
        venv.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(AttributeError, match="no envs.engine.game.Game"):
        venv.get_attr("game")
    venv.step(venv.sample_actions())  # still usable after the refused steps
    with pytest.raises(UnsupportedRule, match="dead_wait_counts_as_ready"):
        CompiledVectorEnv(load_variant("chengdu", dead_wait_counts_as_ready=False), 2)
    with pytest.raises(UnsupportedRule, match="allow_chi = true outside fan_table 'wuhan'"):
        make_vec_env(load_variant("chengdu", allow_chi=True), 2, engine="compiled")
    assert isinstance(make_vec_env("wuhan", 2, engine="compiled"), CompiledVectorEnv)
    with pytest.raises(ValueError, match="engine"):
        make_vec_env("chengdu", 2, engine="numba")
    assert type(make_vec_env("chengdu", 2)) is VectorEnv


def test_first_use_says_that_it_compiles(monkeypatch, caplog):
    """The message of a first use (a kernel function neither compiled nor cached), once per process; none once
    the kernel is compiled (then also on disk)."""
    import logging

    from envs.compiled import _cache, batch

    class _Never:  # a kernel function numba has neither compiled in this process nor cached on disk
        signatures = ()
        targetctx = batch.step_rows.targetctx

        class _cache:
            class _cache_file:
                @staticmethod
                def _load_index():
                    return {}

    monkeypatch.setattr(_cache, "_announced", False)
    with caplog.at_level(logging.WARNING, logger="envs.compiled"):
        assert _cache.is_cached(_Never) is False
        assert _cache.announce_compile(batch.step_rows, _Never)
        assert not _cache.announce_compile(_Never)  # said once per process
    assert "envs.compiled: compiling the numba kernel" in caplog.text and "CPU core" in caplog.text
    monkeypatch.setattr(_cache, "_announced", False)
    make_vec_env("chengdu", 2, seed=0, engine="compiled").reset()
    for function in (batch.step_rows, batch.masks_rows):
        assert _cache.is_cached(function) and _cache.on_disk(function)
    assert not _cache.announce_compile(batch.step_rows, batch.masks_rows)


def test_a_batch_that_never_asks_for_masks_is_not_told_of_a_compile(monkeypatch):
    """The batch announces a compile only for the entry points every user of it calls (deal, step, observe_next):
    the evaluator and the BC collector never compile ``masks_rows``, which must not make every one of their processes
    announce a compile of minutes."""
    from envs.compiled import backend as compiled_backend

    asked = []
    monkeypatch.setattr(compiled_backend, "announce_compile", lambda *d: asked.append({f.__name__ for f in d}))
    compiled_backend.CompiledBatch(load_variant("chengdu"), 1)
    assert asked == [{"deal", "step_rows", "observe_rows"}]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"vec_env": "dummy", "engine": "compiled", "rules": {"allow_chi": True}}, "allow_chi"),
        (
            {"vec_env": "batched", "engine": "compiled", "rules": {"dead_wait_counts_as_ready": False}},
            "dead_wait_counts_as_ready",
        ),
        ({"vec_env": "batched", "engine": "cuda"}, "engine"),
    ],
)
def test_training_config_refuses_what_the_compiled_engine_cannot_play(tmp_path, env, message):
    import yaml

    from training.train_config import TrainConfigError, load_train_config

    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"name": "bad", "variant": "chengdu", "env": env}))
    with pytest.raises(TrainConfigError, match=message):
        load_train_config(path)


def test_sample_actions_are_uniform_legal_and_the_same_on_both_engines():
    """``sample_actions``: slot i plays its floor(u_i * n_i)-th legal action (numba on the compiled engine, numpy on
    the Python one), so one generator state gives the same legal actions on both, each legal action equally often."""
    ref = VectorEnv("chengdu", 16, seed=3, self_play=True)
    fast = CompiledVectorEnv("chengdu", 16, seed=3, self_play=True)
    for venv in (ref, fast):
        with pytest.raises(RuntimeError, match="slot 0 has no legal action"):
            venv.sample_actions()
    ref.reset()
    fast.reset()
    for t in range(60):
        a, b = ref.sample_actions(np.random.default_rng(t)), fast.sample_actions(np.random.default_rng(t))
        np.testing.assert_array_equal(a, b)
        assert fast.masks[np.arange(16), b].all()
        kept = (ref.obs, ref.obs.copy(), fast.obs, fast.obs.copy())
        assert ref.step(a)[0] is ref.obs and fast.step(b)[0] is fast.obs
        np.testing.assert_array_equal(kept[0], kept[1])  # a new array per step: the previous one is left alone
        np.testing.assert_array_equal(kept[2], kept[3])
    for venv in (ref, fast):  # a grid of uniforms hits every legal action of every slot exactly once
        counts = venv.masks.sum(axis=1)
        for i in range(16):
            n = int(counts[i])
            u = np.full(16, 0.0)
            picked = []
            for j in range(n):
                u[i] = (j + 0.5) / n
                picked.append(int(venv._pick_legal(u)[i]))
            assert picked == np.flatnonzero(venv.masks[i]).tolist()
