"""A compact masked PPO update (带掩码的近端策略优化), CleanRL-style, for the ``trainer: batched`` path.

:func:`ppo_update` runs the clipped-surrogate update of sb3-contrib's ``MaskablePPO.train`` on one
:class:`training.rollout.Batch` with the same network object (an sb3 ``MaskableActorCriticPolicy`` and its
optimizer), so checkpoints keep the ``MaskablePPO`` zip format:

* ``n_epochs`` passes over the batch in shuffled minibatches of ``batch_size`` (the shuffle from ``rng``);
* per minibatch: advantages normalised (``normalize_advantage``), policy loss
  ``-min(A r, A clip(r, 1 - eps, 1 + eps))`` with ``r = exp(log p - log p_old)``, value loss ``MSE(returns, V)``
  (``V`` clipped around the old value when ``clip_range_vf``), entropy bonus ``ent_coef``, ``vf_coef`` on the value
  loss, gradients clipped to ``max_grad_norm``;
* the update stops early when the approximate KL of a minibatch exceeds ``1.5 * target_kl`` (sb3's rule).

With a :class:`training.hidden_critic.HiddenCritic` (``ppo.critic: hidden``) the batch's values and advantages
come from that critic: each minibatch also fits it to the returns (its own optimizer; clipped around the old
values when ``clip_range_vf``), and the policy's value head, which no longer gives the old values, is fitted to the
same returns without clipping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from training.hidden_critic import HiddenCritic
from training.rollout import Batch
from training.train_config import PPOConfig

__all__ = ["evaluate_actions", "masked_log_probs", "ppo_update"]


def masked_log_probs(policy: Any, inputs: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Values and the log-probabilities of every action under the legal ``masks`` (``bool``), in one forward pass:
    illegal logits are set to -1e8 as sb3-contrib's masking does, so an illegal action's log-probability is about
    -1e8 (finite)."""
    features = policy.extract_features(inputs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    logits = policy.action_net(latent_pi)
    logits = torch.where(masks, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
    return policy.value_net(latent_vf), torch.log_softmax(logits, dim=-1)


def evaluate_actions(
    policy: Any, inputs: torch.Tensor, actions: torch.Tensor, masks: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Values, log-probabilities of ``actions`` and entropies under the legal ``masks``: what sb3-contrib's
    ``MaskableActorCriticPolicy.evaluate_actions`` computes (illegal logits set to -1e8, their entropy terms 0),
    without building a ``torch.distributions`` object per minibatch."""
    values, log_p = masked_log_probs(policy, inputs, masks)
    chosen = log_p.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
    entropy = -torch.where(masks, log_p * log_p.exp(), torch.zeros((), dtype=log_p.dtype, device=log_p.device)).sum(-1)
    return values, chosen, entropy


def ppo_update(
    policy: Any,
    batch: Batch,
    p: PPOConfig,
    learning_rate: float,
    rng: np.random.Generator,
    critic: HiddenCritic | None = None,
) -> dict[str, float]:
    """One PPO update of ``policy`` (and of the hidden ``critic`` when given) on ``batch``; returns the mean losses
    (sb3's ``train/*`` names, plus ``train/critic_loss`` with a critic)."""
    device = policy.device
    for group in policy.optimizer.param_groups:
        group["lr"] = learning_rate
    policy.set_training_mode(True)
    inputs = torch.as_tensor(batch.inputs, device=device)
    masks = torch.as_tensor(batch.masks, device=device, dtype=torch.bool)
    actions = torch.as_tensor(batch.actions, device=device)
    old_logp = torch.as_tensor(batch.log_probs, device=device)
    old_values = torch.as_tensor(batch.values, device=device)
    advantages = torch.as_tensor(batch.advantages, device=device)
    returns = torch.as_tensor(batch.returns, device=device)
    if critic is not None:
        if batch.privileged is None:
            raise ValueError("a hidden critic needs the batch's privileged planes (SelfPlayRollout(critic=...))")
        hidden = torch.as_tensor(batch.privileged, device=device)
        critic.train()
    K = len(batch)
    pg_losses, vf_losses, ent_losses, clip_fracs, kls, critic_losses = [], [], [], [], [], []
    stopped = False
    for _ in range(p.n_epochs):
        order = torch.as_tensor(rng.permutation(K), device=device)
        for start in range(0, K, p.batch_size):
            mb = order[start : start + p.batch_size]
            values, logp, entropy = evaluate_actions(policy, inputs[mb], actions[mb], masks[mb])
            values = values.flatten()
            adv = advantages[mb]
            if p.normalize_advantage and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            ratio = torch.exp(logp - old_logp[mb])
            pg_loss = -torch.min(adv * ratio, adv * torch.clamp(ratio, 1 - p.clip_range, 1 + p.clip_range)).mean()
            if critic is not None:
                critic_values = critic(inputs[mb], hidden[mb]).flatten()
                if p.clip_range_vf is not None:
                    critic_values = old_values[mb] + torch.clamp(
                        critic_values - old_values[mb], -p.clip_range_vf, p.clip_range_vf
                    )
                critic_loss = F.mse_loss(returns[mb], critic_values)
                critic.fit_step(critic_loss, p.max_grad_norm)
                critic_losses.append(critic_loss.item())
            elif p.clip_range_vf is not None:
                values = old_values[mb] + torch.clamp(values - old_values[mb], -p.clip_range_vf, p.clip_range_vf)
            vf_loss = F.mse_loss(returns[mb], values)
            ent_loss = -torch.mean(entropy)
            loss = pg_loss + p.ent_coef * ent_loss + p.vf_coef * vf_loss
            with torch.no_grad():
                log_ratio = logp - old_logp[mb]
                kl = torch.mean((torch.exp(log_ratio) - 1) - log_ratio).item()
            pg_losses.append(pg_loss.item())
            vf_losses.append(vf_loss.item())
            ent_losses.append(ent_loss.item())
            clip_fracs.append(torch.mean((torch.abs(ratio - 1) > p.clip_range).float()).item())
            kls.append(kl)
            if p.target_kl is not None and kl > 1.5 * p.target_kl:
                stopped = True
                break
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), p.max_grad_norm)
            policy.optimizer.step()
        if stopped:
            break
    policy.set_training_mode(False)
    if critic is not None:
        critic.eval()
    var_y = float(np.var(batch.returns))
    explained = float("nan") if var_y == 0 else 1.0 - float(np.var(batch.returns - batch.values)) / var_y
    stats = {
        "train/policy_gradient_loss": float(np.mean(pg_losses)),
        "train/value_loss": float(np.mean(vf_losses)),
        "train/entropy_loss": float(np.mean(ent_losses)),
        "train/clip_fraction": float(np.mean(clip_fracs)),
        "train/approx_kl": float(np.mean(kls)),
        "train/explained_variance": explained,
        "train/learning_rate": float(learning_rate),
        "train/samples": float(K),
    }
    if critic is not None:
        stats["train/critic_loss"] = float(np.mean(critic_losses))
    return stats
