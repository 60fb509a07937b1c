"""The compiled own-turn and claim decisions of the value and defensive agents (agents/compiled/value_play.py)
equal ValueAgent / DefensiveAgent.act on positions recorded from seeded hands of every preset (the rows those
decisions answer: no win to take, no variant action, more than one legal action)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import legal_ids
from agents.compiled import value_play as vp
from agents.compiled.greedy import BatchGreedyAgent
from agents.compiled.value import BatchValueAgent
from agents.compiled.value_plans import R_DEAD, R_INDICATOR, R_LAIZI, R_UNSEEN, R_VOID, R_WILD_LIVE, ValueKit
from agents.defensive import DefensiveAgent
from agents.features import read
from agents.value import ValueAgent
from envs.core.actions import HU_ID, KONG_BASE, PONG_ID
from envs.core.rule_config import PRESETS, load_variant
from envs.engine.view import Phase
from tests.agents.compiled_positions import record

AGENTS: dict[str, Any] = {
    "value": lambda: ValueAgent(),
    "defensive": lambda: DefensiveAgent(),
    "value_options": lambda: ValueAgent(hongzhong_policy="shagui_when_stable", slack=1, pong_keep=1.2, kong_slack=0),
    "defensive_speed": lambda: DefensiveAgent(steer="speed", live_slack=2, fold_risk="0.1/0.05/0.02"),
    "defensive_safe": lambda: DefensiveAgent(safe_first_shanten=1, danger_weight=3.0, push_wall=40),
}


def compare(variant: str, agent: Any, obs: np.ndarray, masks: np.ndarray) -> tuple[int, list[str]]:
    """``(rows compared, mismatches)`` of the compiled own-turn / claim decisions against ``agent.act``."""
    cfg = load_variant(variant)
    agent.reset(0, cfg)
    setup = vp.ValueSetup.of_agent(agent, cfg).args()
    rows = ValueKit(cfg).rows(obs)
    n = 0
    bad = []
    for b in range(obs.shape[0]):
        mask = masks[b]
        ids = legal_ids(mask)
        if ids.size <= 1 or mask[HU_ID]:
            continue
        seen = read(obs[b], in_play=tuple(cfg.kinds))
        if seen.phase == Phase.SELF:
            kongs = [k for k in ids if KONG_BASE <= k < PONG_ID]
            if seen.won and kongs:
                continue
            if agent._variant_self_action(seen, mask, ids) is not None:
                continue
            got = vp.own_turn(mask, vp.position(rows, b), setup)
        elif seen.phase in (Phase.CLAIM, Phase.ROB):
            got = vp.claim(mask, vp.position(rows, b), setup)
        else:
            continue
        if got < 0:
            got = int(ids[0])
        want = agent.act(obs[b], mask)
        n += 1
        if got != want:
            bad.append(f"row {b} ({seen.phase}): compiled {got}, python {want}")
    return n, bad


@pytest.mark.parametrize("name", list(AGENTS))
@pytest.mark.parametrize("variant", PRESETS)
def test_decisions_equal(variant: str, name: str) -> None:
    obs, masks = record(variant, hands=2, seed=11)
    n, bad = compare(variant, AGENTS[name](), obs, masks)
    assert n > 30
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("variant", ["chengdu", "wuhan", "two_player"])
def test_rows_without_opponents_keep_every_field_the_greedy_play_reads(variant: str) -> None:
    """``ValueKit(opponents=False)`` (the greedy agent's) reads no opponent and leaves the rest of the rows as the
    full rows have them (the payers, counted from the opponents, are what the greedy play never reads)."""
    cfg = load_variant(variant)
    obs, _ = record(variant, hands=1, seed=11)
    full = ValueKit(cfg).rows(obs)
    light = ValueKit(cfg, opponents=False).rows(obs)
    assert full.n_opp.min() > 0 and full.disc.any()
    assert not light.n_opp.any() and not light.opp.any() and not light.disc.any() and not light.revealed.any()
    np.testing.assert_array_equal(light.row_k, full.row_k)
    np.testing.assert_array_equal(light.chis, full.chis)
    for r in (R_DEAD, R_UNSEEN, R_WILD_LIVE, R_VOID, R_INDICATOR, R_LAIZI):
        np.testing.assert_array_equal(light.row_i[:, r], full.row_i[:, r])
    assert not BatchGreedyAgent(cfg).kit.opponents
    assert BatchValueAgent(cfg).kit.opponents
