"""A critic that sees hidden information (全知评论家), for training only: the ``ppo.critic: hidden`` option.

PPO's advantages are the returns minus a critic's estimate of them; the better the estimate, the less noise in the
policy gradient.  A mahjong hand's outcome depends mostly on what a seat cannot see — the other hands and the order
of the wall — so the policy's own value head (which reads the observation only) explains little of it.
:class:`HiddenCritic` also reads the acting seat's privileged planes (:mod:`envs.engine.privileged`: the other
seats' concealed hands, the live wall and its next draws).  It is used during training only: the rollout asks it
for the values GAE needs and the PPO update fits it to the returns, while the policy that acts — and every
checkpoint or shipped policy — reads the observation and the legal mask alone.

Its value is the policy's value path plus a correction:

``V(x, h) = value_head(value_latent(features(x))) + correction([features(x), encoder(h)])``

where ``features``, ``value_latent`` and ``value_head`` start as copies of the policy's feature extractor and value
layers (after behaviour cloning they already estimate the returns), ``encoder`` embeds the privileged planes and the
last layer of ``correction`` starts at zero, so the critic starts as the policy's own value estimate and learns
what the hidden information adds.  It has its own Adam optimizer (``ppo.critic_learning_rate``) and is saved with
every checkpoint of the run (``critic.pt``), so a resumed run continues exactly.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import torch
from torch import nn

from envs.engine.privileged import PRIVILEGED_SHAPE

__all__ = ["CRITIC_FILE", "HiddenCritic"]

CRITIC_FILE = "critic.pt"
CRITIC_FORMAT = 1


class HiddenCritic(nn.Module):
    """The training-only critic of a policy (see the module docstring).

    ``policy``: the sb3 ``MaskableActorCriticPolicy`` being trained (its layers are copied, not shared);
    ``seed``: the initialisation of the new layers; ``hidden_dim``: their width."""

    def __init__(self, policy: Any, *, learning_rate: float, seed: int, hidden_dim: int = 128) -> None:
        super().__init__()
        if not policy.share_features_extractor:
            raise ValueError("HiddenCritic copies a policy whose actor and critic share one feature extractor")
        self.features = copy.deepcopy(policy.features_extractor)
        self.value_latent = copy.deepcopy(policy.mlp_extractor.value_net)
        self.value_head = copy.deepcopy(policy.value_net)
        features_dim = int(policy.features_extractor.features_dim)
        with torch.random.fork_rng(devices=[]):  # the new layers' initialisation from ``seed`` alone
            torch.manual_seed(seed)
            self.encoder = nn.Sequential(
                nn.Flatten(), nn.Linear(PRIVILEGED_SHAPE[0] * PRIVILEGED_SHAPE[1], hidden_dim), nn.ReLU()
            )
            self.correction = nn.Sequential(
                nn.Linear(features_dim + hidden_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1)
            )
        last = self.correction[-1]
        assert isinstance(last, nn.Linear)
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        self.to(policy.device)
        self.device = policy.device
        self.optimizer = torch.optim.Adam(self.parameters(), lr=learning_rate)

    def forward(self, inputs: torch.Tensor, privileged: torch.Tensor) -> torch.Tensor:
        """Values ``(B, 1)`` of network inputs ``(B, rows, 34)`` with their privileged planes ``(B, 8, 34)``."""
        features = self.features(inputs)
        base = self.value_head(self.value_latent(features))
        return base + self.correction(torch.cat((features, self.encoder(privileged)), dim=1))

    def fit_step(self, loss: torch.Tensor, max_grad_norm: float) -> None:
        """One optimizer step on ``loss`` (gradients clipped to ``max_grad_norm``)."""
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.parameters(), max_grad_norm)
        self.optimizer.step()

    # ---- checkpoints ---------------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Weights and optimizer state into ``path`` (``critic.pt`` of a checkpoint)."""
        torch.save(
            {
                "format": CRITIC_FORMAT,
                "privileged_shape": list(PRIVILEGED_SHAPE),
                "weights": self.state_dict(),
                "optimizer": self.optimizer.state_dict(),
            },
            path,
        )

    def load(self, path: str | Path) -> None:
        """Restore what :meth:`save` wrote; a missing, corrupt or mismatched file is a ``ValueError`` that names it."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(
                f"{str(path)!r} is missing: a run with 'ppo.critic: hidden' keeps its critic in every checkpoint"
            )
        try:
            data = torch.load(path, map_location=self.device, weights_only=True)
        except Exception as exc:  # torch raises several types for a damaged file
            raise ValueError(
                f"{str(path)!r} is not a readable critic checkpoint ({type(exc).__name__}: {exc})"
            ) from None
        if not isinstance(data, dict) or data.get("format") != CRITIC_FORMAT:
            raise ValueError(f"{str(path)!r} is not a critic checkpoint of format {CRITIC_FORMAT}")
        if list(data.get("privileged_shape", [])) != list(PRIVILEGED_SHAPE):
            raise ValueError(
                f"{str(path)!r} reads privileged planes of shape {data.get('privileged_shape')}, this version "
                f"{list(PRIVILEGED_SHAPE)}: start the run again"
            )
        try:
            self.load_state_dict(data["weights"])
            self.optimizer.load_state_dict(data["optimizer"])
        except (KeyError, RuntimeError, ValueError) as exc:
            raise ValueError(f"{str(path)!r} does not fit this run's network ({exc})") from None
