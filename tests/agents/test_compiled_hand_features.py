"""The compiled hand-feature planes (agents/compiled/hand_features.py) equal agents.learned.hand_features on
positions recorded from seeded hands of every preset."""

from __future__ import annotations

import numpy as np
import pytest

from agents.compiled.hand_features import BatchHandFeatures
from agents.learned.hand_features import HandFeatures
from envs.core.rule_config import PRESETS
from tests.agents.test_compiled_decode import record


@pytest.mark.parametrize("variant", PRESETS)
def test_batch_planes_equal_python(variant: str) -> None:
    obs, _masks = record(variant, hands=2, seed=7)
    got = BatchHandFeatures(variant).planes(obs)
    py = HandFeatures(variant)
    for b in range(obs.shape[0]):
        np.testing.assert_array_equal(got[b], py.planes(obs[b]), err_msg=f"row {b}")


@pytest.mark.parametrize("variant", ["hongzhong", "wuhan"])
def test_build_batch_equals_build(variant: str) -> None:
    from agents.learned.net_input import NetInput

    obs, masks = record(variant, hands=1, seed=3)
    net = NetInput(variant, hand_features=True, advisor="greedy")
    batch = net.build_batch(obs, masks)
    for b in range(obs.shape[0]):
        np.testing.assert_array_equal(batch[b], net.build(obs[b], masks[b]), err_msg=f"row {b}")
    with pytest.raises(ValueError, match="legal-action masks"):
        net.build_batch(obs)


@pytest.mark.parametrize("advisor", ["", "greedy"])
def test_feature_blocks_are_the_rows_after_the_observation(advisor: str) -> None:
    """``feature_blocks`` gives :meth:`build`'s rows after the observation (hand planes written in place when they are
    the only block), into ``out`` when given; an ``out`` of another shape or dtype is refused."""
    from agents.learned.net_input import NetInput

    obs, masks = record("chengdu", hands=1, seed=4)
    net = NetInput("chengdu", hand_features=True, advisor=advisor)
    blocks = net.feature_blocks(obs, masks)
    assert blocks.shape == (obs.shape[0], net.rows - net.obs_rows, 34) and blocks.dtype == np.float32
    assert blocks.any()
    for b in range(obs.shape[0]):
        np.testing.assert_array_equal(blocks[b], net.build(obs[b], masks[b])[net.obs_rows :], err_msg=f"row {b}")
    out = np.full_like(blocks, 7.0)
    assert net.feature_blocks(obs, masks, out=out) is out
    np.testing.assert_array_equal(out, blocks)
    with pytest.raises(ValueError, match="out must be float32"):
        net.feature_blocks(obs, masks, out=out.astype(np.float16))
    with pytest.raises(ValueError, match="out must be float32"):
        net.feature_blocks(obs, masks, out=out[:-1])


def test_plane_count_matches() -> None:
    from agents.compiled import hand_features as compiled
    from agents.learned import hand_features as python

    assert compiled.HAND_FEATURE_PLANES == python.HAND_FEATURE_PLANES
