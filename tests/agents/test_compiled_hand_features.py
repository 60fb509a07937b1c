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
