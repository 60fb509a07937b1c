"""The compiled danger estimates (agents/compiled/danger.py) equal agents.danger bit for bit on positions recorded
from seeded hands of every preset."""

from __future__ import annotations

import numpy as np
import pytest

from agents.compiled import danger as cd
from agents.compiled.shanten import SHANTEN_TABLES
from agents.compiled.value_plans import ValueKit
from agents.danger import (
    danger_from,
    deal_in_by_kind,
    expected_wilds,
    passed_kinds,
    ready_estimate,
    ready_probability,
    wait_probability,
)
from agents.features import read
from agents.valuation import VariantValues
from envs.core.rule_config import PRESETS, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from tests.agents.compiled_positions import record


@pytest.mark.parametrize("variant", PRESETS)
def test_danger_equal(variant: str) -> None:
    cfg = load_variant(variant)
    obs, _masks = record(variant, hands=2, seed=11)
    kit = ValueKit(cfg)
    rows = kit.rows(obs)
    values = VariantValues.of(cfg)
    suited = sum(1 << k for k in cfg.kinds if k < NUM_SUITED)
    out = np.zeros((3, NUM_KINDS), dtype=np.float64)
    danger = np.zeros(NUM_KINDS, dtype=np.float64)
    d = rows.decoded
    for b in range(obs.shape[0]):
        seen = read(obs[b], in_play=tuple(cfg.kinds))
        n = int(rows.n_opp[b])
        assert n == len(seen.opponents)
        wilds = expected_wilds(cfg, seen.wild_kinds)
        assert cd.expected_wilds(len(seen.wild_kinds), cfg.num_tiles) == wilds
        passed = passed_kinds(seen)
        for i, o in enumerate(seen.opponents):
            opp, disc = rows.opp[b, i], rows.disc[b, i]
            assert disc.tolist() == o.discards
            assert cd.ready_probability(opp) == ready_probability(o)
            assert cd.ready_estimate(opp, disc, wilds) == ready_estimate(o, wilds)
            for t in range(NUM_SUITED):
                want = wait_probability(seen, o, t, wilds_held=0.7, passed=t in passed[i])
                assert cd.wait_probability(seen.visible[t], opp, disc, t, 0.7, t in passed[i]) == want
        want_rows = deal_in_by_kind(seen, cfg)
        cd.deal_in_by_kind(n, rows.opp[b], rows.disc[b], rows.opp_melded[b], rows.revealed[b], d.hand[b],
                           d.wild[b], d.live[b], d.visible[b], cfg.hz_red_discard_claimable, cfg.num_tiles, suited,
                           SHANTEN_TABLES, out)  # fmt: skip
        for i in range(n):
            assert out[i].tolist() == want_rows[i], f"row {b} opponent {i}"
        cd.danger_from(n, rows.opp[b], out, kit.values, danger)
        assert danger.tolist() == danger_from(seen, want_rows, values), f"row {b}"


def test_revealed_hands_occur() -> None:
    """The 血流 positions include revealed (frozen) hands, so their exact waits are compared above."""
    obs, _masks = record("xueliu", hands=2, seed=11)
    rows = ValueKit(load_variant("xueliu")).rows(obs)
    assert rows.opp[:, :, cd.O_REVEALED].any()
