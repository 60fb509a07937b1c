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


def test_bc_data_batched_with_more_tables_than_hands_needed() -> None:
    """With 64 tables for ~5 hands of decisions, the hands past the last one needed are never dealt or are
    abandoned, and the data (rows, seats, hand ids, walls) still equals the AEC environment's."""
    from training.bc import collect_decisions

    cfg = load_variant("chengdu")
    a = collect_decisions(cfg, "greedy", 250, 3, batched=False)
    b = collect_decisions(cfg, "greedy", 250, 3, batched=True, slots=64)
    assert a.hands == b.hands > 1
    assert a.hand_seeds == b.hand_seeds
    for name in ("observations", "masks", "actions", "returns", "seats", "hand_of"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
