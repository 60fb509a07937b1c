"""The arbiter (agents/arbiter.py, agents/compiled/arbiter.py) and the fitting of its gate (training/arbiter.py):
the gate's features on a hand-built observation, the two extreme gates, the batch twin against the Python agent,
gate files refused by name, and the rollout pairs (deterministic, the value copy ends as the main hand)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.arbiter import GATE_FEATURES, ArbiterAgent, Gate, choose, gate_features, shipped_gates
from agents.compiled import COMPILED_BASELINES, make_batch_agent
from agents.defensive import DefensiveAgent
from agents.learned.advice import check_advisor
from agents.registry import make_agent
from agents.value import ValueAgent
from envs.core.rule_config import load_variant
from envs.engine.observation import OBS_SHAPE, SLICES
from tests.agents.compiled_positions import record
from training.arbiter import RolloutPairs, fit_gate, rollout_pairs

N = len(GATE_FEATURES)


def constant_gate(variant: str, bias: float) -> Gate:
    """A gate whose estimate is ``bias`` everywhere."""
    return Gate(variant, bias, (0.0,) * N, (0.0,) * N, (1.0,) * N)


def gate_file(tmp_path: Path, gate: Gate) -> str:
    return str(gate.save(tmp_path / f"{gate.variant}-{gate.bias:+}.json"))


def test_features_of_a_hand_built_observation() -> None:
    obs = np.zeros((1, *OBS_SHAPE), dtype=np.float32)
    rows = {name: sl.start for name, sl in SLICES.items()}  # first row of each named plane group
    obs[0, rows["wall"]] = 50 / 136
    obs[0, rows["active"] : rows["active"] + 3] = 1.0  # observer and two opponents in; slot 3 has left
    obs[0, rows["hand_size"]] = 11 / 14
    obs[0, rows["melds_count"]] = 1 / 4
    obs[0, rows["visible"], 0] = 3  # 1 万: three copies seen
    obs[0, rows["discards"] + 1, 0] = 1  # discarded by opponent 1 (in the hand)
    obs[0, rows["discards"] + 3, 0] = 1  # and by opponent 3, who has left: not counted
    obs[0, rows["visible"], 13] = 1  # 5 筒
    x = gate_features(obs, np.array([0]), np.array([13]))[0]
    f = dict(zip(GATE_FEATURES, x))
    assert f["wall"] == pytest.approx(0.5)
    assert f["opponents_in"] == 2
    assert f["hand_size"] == pytest.approx(11 / 14)
    assert f["melds"] == pytest.approx(0.25)
    assert (f["value_visible"], f["value_discarded_by"], f["value_honor"], f["value_terminal"]) == (3, 1, 0, 1)
    assert (f["defensive_visible"], f["defensive_discarded_by"], f["defensive_terminal"]) == (1, 0, 0)
    assert f["diff_visible"] == 2
    assert f["wall*diff_visible"] == pytest.approx(1.0)
    honor = gate_features(obs, np.array([31]), np.array([13]))[0]
    assert dict(zip(GATE_FEATURES, honor))["value_honor"] == 1
    with pytest.raises(ValueError, match="tile kinds"):
        gate_features(obs, np.array([34]), np.array([13]))
    with pytest.raises(ValueError, match="shape"):
        gate_features(obs[:, :10], np.array([0]), np.array([13]))


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_extreme_gates_play_value_or_defensive(tmp_path: Path, variant: str) -> None:
    cfg = load_variant(variant)
    obs, masks = record(variant, hands=2, seed=31)
    value, defensive = ValueAgent(), DefensiveAgent()
    value.reset(0, cfg)
    defensive.reset(0, cfg)
    never = ArbiterAgent(gate=gate_file(tmp_path, constant_gate(cfg.name, -1.0)))
    always = ArbiterAgent(gate=gate_file(tmp_path, constant_gate(cfg.name, +1.0)))
    never.reset(0, cfg)
    always.reset(0, cfg)
    departures = 0
    for o, m in zip(obs, masks):
        v, d = value.act(o, m), defensive.act(o, m)
        assert never.act(o, m) == v
        both_discard = v < 34 and d < 34
        assert always.act(o, m) == (d if both_discard else v)
        departures += both_discard and v != d
    assert departures > 0  # the positions do hold disagreements


def test_batch_twin_equals_python(tmp_path: Path) -> None:
    data = rollout_pairs("chengdu", 400, 3)
    path = gate_file(tmp_path, fit_gate(data, "chengdu"))
    cfg = load_variant("chengdu")
    obs, masks = record("chengdu", hands=3, seed=41)
    python = ArbiterAgent(gate=path)
    python.reset(0, cfg)
    batch = make_batch_agent("arbiter", cfg, gate=path)
    got = batch.act_batch(obs, masks)
    assert [python.act(o, m) for o, m in zip(obs, masks)] == got.tolist()
    assert batch.act(obs[5], masks[5]) == got[5]
    assert "arbiter" in COMPILED_BASELINES


def test_choose_departs_only_between_discards() -> None:
    gate = constant_gate("chengdu", 1.0)
    obs = np.zeros((3, *OBS_SHAPE), dtype=np.float32)
    va = np.array([3, 3, 140])
    da = np.array([5, 3, 7])
    assert choose(gate, obs, va, da).tolist() == [5, 3, 140]


def test_gate_files_refused_by_name(tmp_path: Path) -> None:
    good = constant_gate("chengdu", 0.5).to_dict()
    cases = {
        "not a chuanma-arbiter-gate-v1": {**good, "format": "other"},
        "other features": {**good, "features": ["wall"]},
        "entries": {**good, "weights": [0.0]},
        "finite": {**good, "bias": float("nan")},
        "positive": {**good, "scale": [0.0] * N},
        "malformed": {k: v for k, v in good.items() if k != "bias"},
    }
    for message, d in cases.items():
        p = tmp_path / "g.json"
        p.write_text(json.dumps(d))
        with pytest.raises(ValueError, match=message):
            Gate.load(p)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="not a gate file"):
        Gate.load(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="no gate file"):
        ArbiterAgent(gate=str(tmp_path / "missing.json"))
    assert Gate.load(gate_file(tmp_path, constant_gate("chengdu", 0.5))) == constant_gate("chengdu", 0.5)


def test_rules_without_a_gate_refused(tmp_path: Path) -> None:
    missing = next(v for v in ("wuhan", "xueliu", "duankagen") if v not in shipped_gates())
    agent = ArbiterAgent()
    with pytest.raises(ValueError, match=f"no arbiter gate is shipped for rules '{missing}'"):
        agent.reset(0, load_variant(missing))
    with pytest.raises(ValueError, match="no arbiter gate"):
        make_batch_agent("arbiter", missing)
    other = ArbiterAgent(gate=gate_file(tmp_path, constant_gate("chengdu", 0.0)))
    with pytest.raises(ValueError, match="fitted for 'chengdu'"):
        other.reset(0, load_variant("hongzhong"))
    with pytest.raises(RuntimeError, match="reset"):
        ArbiterAgent().act(np.zeros(OBS_SHAPE, dtype=np.float32), np.ones(183, dtype=np.int8))
    with pytest.raises(ValueError, match="margin"):
        ArbiterAgent(margin=float("inf"))


def test_spec_advisor_and_margin(tmp_path: Path) -> None:
    path = gate_file(tmp_path, constant_gate("chengdu", 0.3))
    agent = make_agent(f"arbiter:gate={path},margin=0.5")
    agent.reset(1, load_variant("chengdu"))
    assert agent.gate.margin == 0.5 and agent.gate.bias == 0.3  # the estimate 0.3 is below the margin: value
    assert check_advisor(f"arbiter:gate={path}").kind == "arbiter"
    with pytest.raises(ValueError, match="no option"):
        make_agent("arbiter:danger_weight=2")


def test_rollout_pairs_replay_and_value_copy_ends_as_main_hand() -> None:
    a = rollout_pairs("chengdu", 300, 5, tables=16, branches=64)
    b = rollout_pairs("chengdu", 300, 5, tables=16, branches=64)
    assert isinstance(a, RolloutPairs) and len(a) == 300 and a.hands > 0
    assert np.array_equal(a.advantages, b.advantages) and np.array_equal(a.observations, b.observations)
    assert np.array_equal(a.value_finals, a.main_finals)  # the main hand went on with value's discard
    assert np.all(a.value_tiles != a.defensive_tiles)
    assert np.any(a.advantages != 0)
    unit = load_variant("chengdu").base_unit
    assert np.allclose(a.advantages * unit, np.round(a.advantages * unit))  # whole points over the base unit
    with pytest.raises(ValueError, match="branches"):
        rollout_pairs("chengdu", 10, 5, branches=1)
    with pytest.raises(ValueError, match="pairs"):
        rollout_pairs("chengdu", 0, 5)


def test_fit_gate_recovers_a_planted_rule() -> None:
    """Advantages that are +1 exactly where value's tile is more visible than defensive's, -1 elsewhere: the gate
    picks defensive's discard on the first kind and value's on the second."""
    a = rollout_pairs("chengdu", 400, 7, tables=16, branches=64)
    x = gate_features(a.observations, a.value_tiles, a.defensive_tiles)
    planted = np.where(x[:, GATE_FEATURES.index("diff_visible")] > 0, 1.0, -1.0)
    data = RolloutPairs(a.observations, a.value_tiles, a.defensive_tiles, planted, a.value_finals, a.main_finals,
                        a.hands)  # fmt: skip
    gate = fit_gate(data, "chengdu", ridge=1.0)
    picks = gate.estimate(x) > 0
    assert np.mean(picks == (planted > 0)) > 0.9
    assert gate.fit["heldout_gain"] > 0 and gate.fit["pairs"] == 400
    with pytest.raises(ValueError, match="at least 10"):
        fit_gate(RolloutPairs(a.observations[:3], a.value_tiles[:3], a.defensive_tiles[:3], planted[:3],
                              a.value_finals[:3], a.main_finals[:3], 1), "chengdu")  # fmt: skip
    with pytest.raises(ValueError, match="holdout"):
        fit_gate(data, "chengdu", holdout=1.0)
