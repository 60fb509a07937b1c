"""The AEC environment on the compiled engine (``raw_env(engine="compiled")``) against the Python one, step by step.

Both environments play the same seeds with the same actions (chosen on the Python side: win-seeking or uniform);
after every step everything PettingZoo exposes must be equal: the agent to act, the agents, ``last()`` (observation,
mask, reward, flags, info with its events and result), every agent's observation, rewards, cumulative rewards,
terminations and infos.  Further tests cover what the compiled environment computes lazily (``LazyInfo``, the
replayed ``game``), its options, errors, PettingZoo's API test and pickling.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from envs import sichuan_mahjong_v0
from envs.engine.game import UnsupportedRule
from envs.lazy_info import LazyInfo
from tests.helpers.aec import flat_greedy

COMPILED = ("chengdu", "xueliu", "hongzhong", "chiyu", "two_player", "duankagen", "yibin", "wuhan")


def _same_step(py, cc, *, read_infos: bool = True) -> None:
    assert cc.agents == py.agents
    assert cc.agent_selection == py.agent_selection
    assert cc.rewards == py.rewards
    assert cc._cumulative_rewards == py._cumulative_rewards
    assert cc.terminations == py.terminations and cc.truncations == py.truncations
    if read_infos:
        assert cc.infos == py.infos
    if not py.agents:
        return
    a = py.agent_selection
    o1, r1, t1, u1, i1 = py.last()
    o2, r2, t2, u2, i2 = cc.last()
    np.testing.assert_array_equal(o2["observation"], o1["observation"])
    np.testing.assert_array_equal(o2["action_mask"], o1["action_mask"])
    assert (r2, t2, u2) == (r1, t1, u1)
    if read_infos:
        assert i2 == i1
    for other in py.agents:
        if other != a:
            np.testing.assert_array_equal(cc.observe(other)["observation"], py.observe(other)["observation"])
            assert not cc.observe(other)["action_mask"].any()


def _play_pair(variant, seed, policy, *, read_infos=True, hands=1, **kwargs):
    kwargs.setdefault("match", False)  # single hands (赤羽 plays matches by default)
    py = sichuan_mahjong_v0.raw_env(variant=variant, **kwargs)
    cc = sichuan_mahjong_v0.raw_env(variant=variant, engine="compiled", **kwargs)
    assert type(cc) is sichuan_mahjong_v0.raw_env and cc.backend.engine == "compiled"
    rng = np.random.default_rng(seed)
    steps = 0
    for h in range(hands):
        py.reset(seed=seed if h == 0 else None)
        cc.reset(seed=seed if h == 0 else None)
        _same_step(py, cc, read_infos=read_infos)
        while py.agents:
            agent = py.agent_selection
            if py.terminations[agent] or py.truncations[agent]:
                action = None
            elif policy == "greedy":
                action = flat_greedy(py, agent, rng)
            else:
                ids = np.flatnonzero(py.observe(agent)["action_mask"])
                action = int(ids[int(rng.integers(ids.size))])
            py.step(action)
            cc.step(action)
            steps += 1
            _same_step(py, cc, read_infos=read_infos)
        assert cc.game.scores == py.game.scores
    return py, cc, steps


@pytest.mark.parametrize("variant", COMPILED)
@pytest.mark.parametrize("policy", ["greedy", "uniform"])
def test_compiled_aec_equals_python_aec(variant, policy):
    for seed in range(3):
        _play_pair(variant, 100 + seed, policy, hands=2)


@pytest.mark.parametrize(
    ("variant", "kwargs"),
    [
        ("chengdu", {"reward_mode": "terminal"}),
        ("hongzhong", {"normalize_reward": True, "reward_scale": 2.0}),
        ("chiyu", {"rules": {"start_points": 20}}),  # bankruptcies mid-hand
        ("xueliu", {"rules": {"multi_ron": False, "pass_hu_lock": "none"}}),
    ],
)
def test_compiled_aec_options_equal_python(variant, kwargs):
    for seed in range(3):
        _play_pair(variant, 7 + seed, "greedy", hands=2, **kwargs)


def test_unread_infos_are_filled_later_exactly():
    """Infos nobody reads during the hand give, read afterwards, what the Python environment gave at that step."""
    py = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    cc = sichuan_mahjong_v0.raw_env(variant="hongzhong", engine="compiled")
    rng = np.random.default_rng(5)
    saved = []
    py.reset(seed=3)
    cc.reset(seed=3)
    while py.agents:
        agent = py.agent_selection
        action = None if py.terminations[agent] else flat_greedy(py, agent, rng)
        py.step(action)
        cc.step(action)
        saved.append((copy.deepcopy(py.infos), dict(cc.infos)))  # the outer dict is reused; its values not
    last = next(infos for _, infos in reversed(saved) if infos)  # the step that ended the hand
    final = next(iter(last.values()))
    assert isinstance(final, LazyInfo)
    assert final["result"]["scores"] == list(py.game.scores)  # the replay goes to the end
    for py_infos, cc_infos in reversed(saved):  # earlier steps come from the replay's log
        assert cc_infos == py_infos


def test_unread_infos_keep_their_hand_after_the_next_reset():
    """An info of one hand read only after the environment dealt the next hand still gives that hand's events."""
    py = sichuan_mahjong_v0.raw_env(variant="chengdu")
    cc = sichuan_mahjong_v0.raw_env(variant="chengdu", engine="compiled")
    rng = np.random.default_rng(1)
    saved = []
    for seed in (8, 9):
        py.reset(seed=seed)
        cc.reset(seed=seed)
        saved.append((copy.deepcopy(py.infos), dict(cc.infos)))
        for _ in range(12):
            agent = py.agent_selection
            action = None if py.terminations[agent] else flat_greedy(py, agent, rng)
            py.step(action)
            cc.step(action)
            saved.append((copy.deepcopy(py.infos), dict(cc.infos)))
    assert sum(len(info["events"]) for py_infos, _ in saved for info in py_infos.values()) > 40
    for py_infos, cc_infos in saved:
        assert cc_infos == py_infos


def test_lazy_info_behaves_as_a_dict():
    calls = []

    def fill():
        calls.append(1)
        return {"events": [{"type": "x"}]}

    def fresh():
        return LazyInfo({"seat": 1, "events": None}, fill, ("events",))

    want = {"seat": 1, "events": [{"type": "x"}]}
    info = fresh()
    # keys, and the values of the other keys, cost nothing (wrappers read and write those every step)
    assert len(info) == 2 and "events" in info and list(info.keys()) == ["seat", "events"]
    assert info["seat"] == 1 and info.get("episode") is None and info.get("seat") == 1
    info["terminal_observation"] = 0
    assert info.pop("terminal_observation") == 0 and info.setdefault("episode", 5) == 5
    del info["episode"]
    assert not calls
    assert json.loads(json.dumps(info)) == want
    assert calls == [1]
    for make in (
        lambda i: dict(i),
        lambda i: {**i},
        lambda i: i.copy(),
        lambda i: pickle.loads(pickle.dumps(i)),
        lambda i: dict(i.items()),
        lambda i: dict(zip(i.keys(), i.values())),
        lambda i: i | {},
    ):
        out = make(fresh())
        assert out == want
        assert type(out) is dict
    assert fresh() == want
    assert want == fresh()  # the reflected comparison
    assert fresh()["events"] == want["events"] and fresh().get("events") == want["events"]
    assert fresh().pop("events") == want["events"]
    assert repr(fresh()) == repr(want)
    info = fresh()
    info["events"] = "mine"  # writing a deferred key computes it first, so the write is kept
    assert info["events"] == "mine"
    for clone in (copy.copy, copy.deepcopy):  # sb3's DummyVecEnv deep-copies the infos of every step
        calls.clear()
        original = fresh()
        twin = clone(original)
        assert isinstance(twin, LazyInfo) and twin is not original and not calls
        assert twin == want and original == want and len(calls) == 2
    extended = fresh().extended({"action_mask": 1})
    calls.clear()
    assert isinstance(extended, LazyInfo) and extended["action_mask"] == 1 and not calls
    assert extended == {**want, "action_mask": 1} and calls == [1]
    with pytest.raises(TypeError):
        hash(fresh())


def test_pettingzoo_api_on_the_compiled_engine():
    for variant in ("hongzhong", "chiyu"):
        env = sichuan_mahjong_v0.env(variant=variant, engine="compiled")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=300)


def test_errors_and_construction():
    with pytest.raises(UnsupportedRule, match="compiled engine.*wild_in_melds"):
        sichuan_mahjong_v0.raw_env(variant="wuhan", engine="compiled", rules={"wild_in_melds": True})
    with pytest.raises(ValueError, match="engine must be one of"):
        sichuan_mahjong_v0.raw_env(variant="chengdu", engine="numba")
    env = sichuan_mahjong_v0.raw_env(variant="chengdu", engine="compiled")
    env.reset(seed=1)
    with pytest.raises(UnsupportedRule, match="num_players|hand_size|allow_chi"):
        env.reset(seed=1, options={"rules": {"allow_chi": True}})
    py = sichuan_mahjong_v0.raw_env(variant="chengdu")
    py.reset(seed=1)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(py.observe(py.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError) as want:
        py.step(illegal)
    with pytest.raises(ValueError) as got:
        env.step(illegal)
    assert str(got.value) == str(want.value)
    for bad in (None, -1, 183, "3", 2.5):
        with pytest.raises(ValueError, match="illegal action"):
            env.step(bad)
    with pytest.raises(AttributeError, match="replay"):
        env.game = py.game
    clone = pickle.loads(pickle.dumps(env))
    assert type(clone) is sichuan_mahjong_v0.raw_env and clone.engine == "compiled" and clone.cfg == env.cfg
    assert clone.backend.engine == "compiled"


def test_fixed_start_and_per_hand_rules_match_python():
    py = sichuan_mahjong_v0.raw_env(variant="hongzhong")
    cc = sichuan_mahjong_v0.raw_env(variant="hongzhong", engine="compiled")
    py.reset(seed=11)
    wall = list(py.game.events[0]["wall"])
    options = [
        {"wall": wall, "dealer": 2},
        {"dealer": 1, "exchange_offset": 1},
        {"rules": {"hz_four_red_instant": False, "cap_doublings": 2}},
    ]
    rng = np.random.default_rng(0)
    for opts in options:
        py.reset(seed=4, options=opts)
        cc.reset(seed=4, options=opts)
        _same_step(py, cc)
        while py.agents:
            agent = py.agent_selection
            action = None if py.terminations[agent] else flat_greedy(py, agent, rng)
            py.step(action)
            cc.step(action)
            _same_step(py, cc)


def test_replayed_game_follows_the_kernel():
    cc = sichuan_mahjong_v0.raw_env(variant="xueliu", engine="compiled", render_mode="ansi")
    cc.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(60):
        agent = cc.agent_selection
        if cc.terminations[agent]:
            cc.step(None)
            continue
        cc.step(flat_greedy(cc, agent, rng))
        if not cc.agents:
            break
    ref = cc.reference_observe(cc.agent_selection)
    now = cc.observe(cc.agent_selection)
    np.testing.assert_array_equal(now["observation"], ref["observation"])
    np.testing.assert_array_equal(now["action_mask"], ref["action_mask"])
    assert cc.render()


@pytest.mark.parametrize("ends", [True, False])
def test_four_red_at_the_deal_matches_python(ends):
    """Without 换三张 / 定缺, four 红中 dealt to the dealer win at the deal (and may end the hand there)."""
    rules = {"exchange_mode": "none", "dingque": False, "hz_four_red_ends_hand": ends}
    py, _, steps = _play_pair("hongzhong", 12079, "greedy", rules=rules)
    assert py.game.wins[0].how == "instant"
    assert (steps == 4) == ends  # four dead steps when the hand ended at the deal


def _same_gym_info(got, want):
    got, want = dict(got), dict(want)
    np.testing.assert_array_equal(got.pop("action_mask"), want.pop("action_mask"))
    assert got == want


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_single_agent_env_on_the_compiled_engine(variant):
    """``SingleAgentEnv(..., engine="compiled")`` gives what the Python-engine one gives, infos included."""
    from envs.single_agent import SingleAgentEnv

    py = SingleAgentEnv(variant, seat="random")
    cc = SingleAgentEnv(variant, seat="random", engine="compiled")
    rng = np.random.default_rng(0)
    for episode in range(4):
        o1, i1 = py.reset(seed=episode)
        o2, i2 = cc.reset(seed=episode)
        np.testing.assert_array_equal(o2, o1)
        _same_gym_info(i2, i1)
        done = False
        while not done:
            mask = py.action_masks()
            np.testing.assert_array_equal(cc.action_masks(), mask)
            action = int(rng.choice(np.flatnonzero(mask)))
            o1, r1, t1, u1, i1 = py.step(action)
            o2, r2, t2, u2, i2 = cc.step(action)
            np.testing.assert_array_equal(o2, o1)
            assert (r2, t2, u2) == (r1, t1, u1)
            _same_gym_info(i2, i1)
            done = t1 or u1
        assert ("result" in i2) == (not cc.aec.agents or cc.aec.game.is_over)
