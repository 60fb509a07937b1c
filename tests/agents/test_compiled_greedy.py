"""The compiled greedy baseline (agents/compiled/greedy.py) makes the Python agent's decisions row by row on
positions recorded from seeded hands of every preset (every phase), for the default options and each option value
that changes play; the slow test compares at least 10,000 positions per preset.  Also: the compiled baselines by
name (``make_batch_agent``, the ``compiled:NAME`` specification) and the refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.compiled import COMPILED_BASELINES, make_batch_agent
from agents.compiled.greedy import BatchGreedyAgent
from agents.greedy import GreedyAgent
from agents.registry import make_agent, parse_spec
from envs.core.rule_config import PRESETS, load_variant
from tests.agents.compiled_positions import many, record

OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "shagui": {"hongzhong_policy": "shagui_when_stable", "shagui_min_live": 2},
    "plain": {"variant_actions": False, "baohu_min_live": 0},
}


def mismatches(agent: Any, python: GreedyAgent, obs: np.ndarray, masks: np.ndarray) -> list[int]:
    got = agent.act_batch(obs, masks)
    return [b for b in range(obs.shape[0]) if got[b] != python.act(obs[b], masks[b])]


@pytest.mark.parametrize("case", list(OPTIONS))
@pytest.mark.parametrize("variant", PRESETS)
def test_batch_equals_python(variant: str, case: str) -> None:
    obs, masks = record(variant, hands=2, seed=23)
    options = OPTIONS[case]
    python = GreedyAgent(**options)
    python.reset(0, load_variant(variant))
    bad = mismatches(BatchGreedyAgent(variant, **options), python, obs, masks)
    assert not bad, f"{len(bad)} of {obs.shape[0]} rows differ, first {bad[:10]}"


def test_compiled_baselines_by_name_and_spec() -> None:
    assert sorted(COMPILED_BASELINES) == ["arbiter", "defensive", "greedy", "value"]
    cfg = load_variant("chengdu")
    obs, masks = record("chengdu", hands=1, seed=5)
    spec = parse_spec("compiled:greedy:variant_actions=false")
    assert (spec.kind, spec.argument, spec.options) == ("compiled", "greedy", {"variant_actions": False})
    agent = make_agent("compiled:greedy:variant_actions=false", variant=cfg)
    python = GreedyAgent(variant_actions=False)
    python.reset(0, cfg)
    assert [agent.act(o, m) for o, m in zip(obs[:40], masks[:40])] == [
        python.act(o, m) for o, m in zip(obs[:40], masks[:40])
    ]
    value = make_batch_agent("value", "chengdu", slack=1)
    assert value.act_batch(obs[:3], masks[:3]).shape == (3,)


def test_what_is_not_compiled_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no compiled baseline 'random'"):
        make_batch_agent("random", "chengdu")
    with pytest.raises(ValueError, match=r"compiled 'greedy' has no option\(s\) \['fold_risk'\]"):
        make_batch_agent("greedy", "chengdu", fold_risk="off")
    with pytest.raises(ValueError, match="hongzhong_policy"):
        make_batch_agent("greedy", "chengdu", hongzhong_policy="shagui_by_value")
    with pytest.raises(ValueError, match="needs a baseline name"):
        parse_spec("compiled:")
    with pytest.raises(ValueError, match="needs the variant"):
        make_agent("compiled:greedy")


def test_match_observations_are_read_by_their_first_rows() -> None:
    from envs.engine.match_observation import MATCH_OBS_SHAPE

    obs, masks = record("chiyu", hands=1, seed=3)
    wide = np.zeros((obs.shape[0], *MATCH_OBS_SHAPE), dtype=np.float32)
    wide[:, : obs.shape[1]] = obs
    agent = BatchGreedyAgent("chiyu")
    np.testing.assert_array_equal(agent.act_batch(wide, masks), agent.act_batch(obs, masks))


@pytest.mark.slow
@pytest.mark.parametrize("variant", PRESETS)
def test_batch_equals_python_many(variant: str) -> None:
    """At least 10,000 recorded positions per preset (the agreement is printed)."""
    obs, masks = many(variant)
    python = GreedyAgent()
    python.reset(0, load_variant(variant))
    bad = mismatches(BatchGreedyAgent(variant), python, obs, masks)
    print(f"{variant} greedy: {obs.shape[0] - len(bad)} of {obs.shape[0]} positions equal")
    assert not bad, f"{len(bad)} of {obs.shape[0]} rows differ, first {bad[:10]}"
