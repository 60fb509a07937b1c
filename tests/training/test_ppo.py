"""The compact masked PPO update (training/ppo.py) computes what sb3-contrib's masked policy computes."""

from __future__ import annotations

import torch

from agents.learned.hand_features import HAND_FEATURES_VERSION
from agents.policy import NetSpec, build_policy
from tests.helpers.nets import TINY_NET
from training.ppo import evaluate_actions

TINY = TINY_NET


def test_evaluate_actions_equals_sb3_contribs_masked_evaluation_with_its_gradients():
    torch.manual_seed(0)
    policy = build_policy(NetSpec(**TINY, hand_features=HAND_FEATURES_VERSION))
    inputs = torch.rand((64, *policy.observation_space.shape))
    masks = torch.rand((64, 183)) < 0.05
    masks[torch.arange(64), torch.randint(0, 183, (64,))] = True
    masks[0] = False
    masks[0, 7] = True  # a single legal action: log-probability 0, entropy 0
    actions = torch.stack([torch.multinomial(m.float(), 1)[0] for m in masks])
    values, logp, entropy = evaluate_actions(policy, inputs, actions, masks)
    ref_values, ref_logp, ref_entropy = policy.evaluate_actions(inputs, actions, action_masks=masks)
    torch.testing.assert_close(values, ref_values)
    torch.testing.assert_close(logp, ref_logp)
    torch.testing.assert_close(entropy, ref_entropy)
    assert logp[0].item() == 0.0 and abs(entropy[0].item()) < 1e-7
    mine = torch.autograd.grad((logp.sum() + entropy.sum() + values.sum()), list(policy.parameters()))
    ref = torch.autograd.grad((ref_logp.sum() + ref_entropy.sum() + ref_values.sum()), list(policy.parameters()))
    for a, b in zip(mine, ref):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
