"""The compiled value and defensive baselines (agents/compiled/value.py, defensive.py) make the Python agents'
decisions row by row on positions recorded from seeded hands of every preset (every phase), for the default options
and option values that change play; the slow test compares at least 10,000 positions per preset."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.compiled.defensive import BatchDefensiveAgent
from agents.compiled.value import BatchValueAgent
from agents.value import ValueAgent
from envs.core.actions import HU_ID, PASS_ID
from envs.core.rule_config import PRESETS, load_variant
from envs.engine.observation import SLICES
from tests.agents.compiled_positions import many, record

_CLAIM_ROWS = SLICES["claim_tile"]

CASES: dict[str, tuple[type[BatchValueAgent], dict[str, Any]]] = {
    "value": (BatchValueAgent, {}),
    "defensive": (BatchDefensiveAgent, {}),
    "value_options": (
        BatchValueAgent,
        {
            "hongzhong_policy": "shagui_when_stable",
            "slack": 1,
            "pong_keep": 1.2,
            "kong_slack": 0,
            "late_wall": 30,
            "max_off_suit": 2,
            "exhaustion_weight": 2.0,
            "exit_weight": 0.5,
            "shagui_min_live": 2,
        },
    ),
    "value_duanyao": (BatchValueAgent, {"duanyao_plan": True}),
    "value_pass_win": (BatchValueAgent, {"pass_win": 1.2}),
    "defensive_pass_win": (BatchDefensiveAgent, {"pass_win": 1.5}),
    "defensive_duanyao": (BatchDefensiveAgent, {"duanyao_plan": True}),
    "value_plain": (BatchValueAgent, {"hongzhong_policy": "keep_all", "variant_actions": False}),
    "defensive_speed": (BatchDefensiveAgent, {"steer": "speed", "live_slack": 2, "fold_risk": "0.1/0.05/0.02"}),
    "defensive_safe": (
        BatchDefensiveAgent,
        {
            "safe_first_shanten": 1,
            "danger_weight": 3.0,
            "push_wall": 40,
            "fold_shanten": 1,
            "fold_wall_fraction": 0.5,
            "fold_threat": 0.1,
            "fold_ratio": 0.9,
            "fold_risk": "0.05",
        },
    ),
}


def mismatches(agent: BatchValueAgent, python: ValueAgent, obs: np.ndarray, masks: np.ndarray) -> list[int]:
    """Rows where the batch answer differs from ``python.act``."""
    got = agent.act_batch(obs, masks)
    return [b for b in range(obs.shape[0]) if got[b] != python.act(obs[b], masks[b])]


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("variant", PRESETS)
def test_batch_equals_python(variant: str, case: str) -> None:
    cls, options = CASES[case]
    obs, masks = record(variant, hands=2, seed=23)
    agent = cls(variant, **options)
    python = cls.python_class(**options)
    python.reset(0, load_variant(variant))
    bad = mismatches(agent, python, obs, masks)
    assert not bad, f"{len(bad)} of {obs.shape[0]} rows differ, first {bad[:10]}"


def test_act_and_reset() -> None:
    obs, masks = record("chengdu", hands=1, seed=23)
    agent = BatchValueAgent("hongzhong")
    agent.reset(2, "chengdu")
    python = ValueAgent()
    python.reset(2, load_variant("chengdu"))
    for b in range(0, obs.shape[0], 7):
        assert agent.act(obs[b], masks[b]) == python.act(obs[b], masks[b])


def test_bad_input_refused() -> None:
    with pytest.raises(ValueError, match="slack"):
        BatchValueAgent("chengdu", slack=-1)
    with pytest.raises(ValueError, match="live_slack"):
        BatchDefensiveAgent("chengdu", live_slack=2)
    with pytest.raises(TypeError):
        BatchValueAgent("chengdu", danger_weight=2.0)
    agent = BatchValueAgent("chengdu")
    obs, masks = record("chengdu", hands=1, seed=23)
    with pytest.raises(ValueError, match="shape"):
        agent.act_batch(obs[:, :10], masks)
    with pytest.raises(ValueError, match="empty"):
        agent.act_batch(obs[:1], np.zeros_like(masks[:1]))


def equal_on_many(variant: str, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batch answers of agent ``name`` on at least 10,000 recorded positions of ``variant`` (observations, masks,
    answers), each checked against the Python agent's (the agreement is printed)."""
    cls, options = CASES[name]
    obs, masks = many(variant)
    agent = cls(variant, **options)
    python = cls.python_class(**options)
    python.reset(0, load_variant(variant))
    got = agent.act_batch(obs, masks)
    bad = [b for b in range(obs.shape[0]) if got[b] != python.act(obs[b], masks[b])]
    print(f"{variant} {name}: {obs.shape[0] - len(bad)} of {obs.shape[0]} positions equal")
    assert not bad, f"{len(bad)} of {obs.shape[0]} rows differ, first {bad[:10]}"
    return obs, masks, got


@pytest.mark.slow
@pytest.mark.parametrize("name", ["value", "defensive"])
@pytest.mark.parametrize("variant", PRESETS)
def test_batch_equals_python_many(variant: str, name: str) -> None:
    """At least 10,000 recorded positions per preset."""
    equal_on_many(variant, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["value_duanyao", "defensive_duanyao"])
def test_duanyao_plan_equals_python_many(name: str) -> None:
    """The 断幺九 plan on at least 10,000 recorded 红中 positions (the preset whose fan table pays it)."""
    equal_on_many("hongzhong", name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["value_pass_win", "defensive_pass_win"])
@pytest.mark.parametrize("variant", ["hongzhong", "chengdu", "yibin"])
def test_pass_win_equals_python_many(variant: str, name: str) -> None:
    """The discard wins ``pass_win`` declines, on at least 10,000 recorded positions (some of them declined)."""
    obs, masks, got = equal_on_many(variant, name)
    offers = masks[:, HU_ID].astype(bool) & masks[:, PASS_ID].astype(bool) & (obs[:, _CLAIM_ROWS].sum(axis=(1, 2)) > 0)
    declined = int((offers & (got == PASS_ID)).sum())
    print(f"{variant} {name}: {declined} of {int(offers.sum())} discard wins declined")
    assert declined > 0
