"""BC data collected on the batched compiled engine (training/bc.py collect_batched) equals the AEC env's."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.rule_config import load_variant


@pytest.mark.parametrize(
    ("teacher", "kwargs"),
    [
        ("random", {}),
        ("random", {"hand_features": True, "advisor": "greedy"}),
        ("greedy", {"hand_features": True, "advisor": "greedy"}),  # the teacher's own actions are the advice
    ],
)
def test_bc_data_batched_equals_aec(teacher: str, kwargs: dict) -> None:
    """BC data collected 16 hands at a time on the compiled engine equals the AEC environment's, row for row."""
    from training.bc import collect_decisions

    cfg = load_variant("hongzhong")
    options = {"reward_scale": 0.05, "normalize_reward": True}
    a = collect_decisions(cfg, teacher, 400, 7, env_options=options, batched=False, **kwargs)
    b = collect_decisions(cfg, teacher, 400, 7, env_options=options, batched=True, slots=16, **kwargs)
    assert a.hands == b.hands > 1
    for name in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
