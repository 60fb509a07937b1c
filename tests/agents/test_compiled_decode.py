"""The compiled batch decoder (agents/compiled/decode.py) reads every field exactly as agents.features.read does, on
positions recorded from seeded hands of every preset (the Python engine, greedy and random seats mixed)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.compiled.decode import decode_batch, in_play_mask
from agents.features import read
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from envs.core.rule_config import PRESETS, load_variant
from envs.engine.observation import PHASES
from tests.agents.compiled_positions import play_positions


def record(variant: str, hands: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of ``hands`` seeded hands (greedy and random seats mixed)."""
    return play_positions(
        variant,
        hands,
        seed,
        lambda h, i: GreedyAgent() if i % 2 == h % 2 else RandomAgent(seed=seed + 10 * h + i),
    )


@pytest.mark.parametrize("variant", PRESETS)
def test_decode_matches_read(variant: str) -> None:
    obs, _masks = record(variant, hands=2)
    kinds = tuple(load_variant(variant).kinds)
    d = decode_batch(obs, in_play_mask(kinds))
    for b in range(obs.shape[0]):
        s = read(obs[b], in_play=kinds)
        assert PHASES[d.phase[b]] == s.phase
        assert d.hand[b].tolist() == s.hand
        assert d.counts[b].tolist() == s.counts
        assert d.wilds[b] == s.wilds
        assert tuple(np.flatnonzero(d.wild[b]).tolist()) == s.wild_kinds
        assert (None if d.void[b] < 0 else d.void[b]) == s.void
        assert bytes(d.melded[b].astype(np.uint8)) == (s.melded or bytes(34))
        assert d.n_melds[b] == s.n_melds
        assert d.visible[b].tolist() == s.visible
        assert d.live[b].tolist() == s.live
        assert d.wall[b] == s.wall
        assert d.n_players[b] == s.n_players
        assert d.exchange_picked[b].tolist() == s.exchange_picked
        assert (None if d.claim_tile[b] < 0 else d.claim_tile[b]) == s.claim_tile
        assert (None if d.drawn_tile[b] < 0 else d.drawn_tile[b]) == s.drawn_tile
        assert bool(d.won[b]) == s.won
        assert (None if d.indicator[b] < 0 else d.indicator[b]) == s.indicator
        assert d.chi_runs[b] == s.chi_runs
        assert bool(d.opened[b]) == s.opened


def test_decode_rejects_bad_shape() -> None:
    with pytest.raises(ValueError, match="observations must have shape"):
        decode_batch(np.zeros((2, 5, 34), dtype=np.float32))


def test_every_field_has_one_numba_type_whatever_the_batch_size() -> None:
    """Every field is C-contiguous for one row and for many, so a compiled function reading them is typed once (a
    column view of many rows and a single row would be two specializations, the second loaded in mid-play)."""
    from dataclasses import fields

    from numba import typeof

    obs, _masks = record("hongzhong", hands=1)
    one, many = decode_batch(obs[:1]), decode_batch(obs[:5])
    for f in fields(one):
        a, b = getattr(one, f.name), getattr(many, f.name)
        assert a.flags.c_contiguous and b.flags.c_contiguous, f.name
        assert typeof(a) == typeof(b), f.name
        assert typeof(b).layout == "C", f.name
        assert np.array_equal(a[0], b[0]), f.name
