"""Behaviour cloning with label smoothing (``train_bc``'s ``label_smoothing``, the key ``bc.label_smoothing``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned.advice import ADVICE_VERSION
from agents.policy import NetSpec, build_policy
from envs.core.rule_config import load_variant
from tests.helpers.nets import TINY_NET
from training.train_config import TrainConfigError, load_train_config


def _fit(data, smoothing: float):
    from training.bc import train_bc

    torch.manual_seed(0)
    policy = build_policy(NetSpec(**TINY_NET, advisor="greedy", advice=ADVICE_VERSION))
    report = train_bc(policy, data, epochs=30, batch_size=50, learning_rate=1e-2, value_coef=0.0, seed=1,
                      label_smoothing=smoothing)  # fmt: skip
    obs = torch.as_tensor(data.observations.astype(np.float32))
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=data.masks).distribution
    return report, dist.probs.numpy()


def test_label_smoothing_spreads_the_policy_over_the_legal_actions() -> None:
    """The network reads the teacher's choice (advice planes), so it can clone it exactly.  With ε = 0.3 the cloned
    policy still puts its most probability on the teacher's action, but keeps about
    ε / legal actions on each other legal action, several times what plain cloning leaves them; illegal
    actions stay at zero."""
    from training.bc import collect_decisions

    data = collect_decisions(load_variant("chengdu"), "greedy", 200, 5, batched=True, advisor="greedy")
    plain_report, plain = _fit(data, 0.0)
    smooth_report, smooth = _fit(data, 0.3)
    rows = np.arange(len(data))
    assert smooth_report.train_accuracy >= 0.9 and plain_report.train_accuracy >= 0.9
    others = data.masks.copy()
    others[rows, data.actions] = False
    n_legal = data.masks.sum(axis=1)
    share_plain = (plain * others).sum(axis=1).mean()
    share_smooth = (smooth * others).sum(axis=1).mean()
    expected = (0.3 * (n_legal - 1) / n_legal).mean()  # the smoothed target's mass off the teacher's action
    assert 0.5 * expected < share_smooth < 1.5 * expected
    assert share_smooth > 2.5 * share_plain
    assert smooth[~data.masks].max() < 1e-6


def test_label_smoothing_out_of_range_is_refused(tmp_path) -> None:
    from training.bc import collect_decisions, train_bc

    data = collect_decisions(load_variant("chengdu"), "greedy", 20, 5, batched=False)
    with pytest.raises(ValueError, match="label_smoothing"):
        train_bc(build_policy(NetSpec(**TINY_NET)), data, epochs=1, batch_size=8, learning_rate=1e-3, value_coef=0.5,
                 seed=0, label_smoothing=-0.1)  # fmt: skip
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nvariant: chengdu\nbc:\n  label_smoothing: 1.5\n")
    with pytest.raises(TrainConfigError, match=r"bad\.yaml: key 'bc\.label_smoothing' = 1\.5 must lie in \[0, 1\]"):
        load_train_config(path)
