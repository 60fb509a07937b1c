"""Feature extractor (特征提取) for the ``chuanma-v1`` tile planes, shared by the policy and value heads.

The observation is ``(106, 34)``: planes over the 34 tile kinds (with ``net.hand_features`` / ``net.advisor`` the
:mod:`agents.learned.hand_features` / :mod:`agents.learned.advice` planes follow it, see :func:`input_rows`).  Some
planes are about tiles (hand, discards, melds ...), the others are *broadcast* facts (phase, wall size, scores ...)
repeated in every column.  The extractor treats them differently:

* **suited tiles** — the 27 suited columns are reshaped to ``(3 suits, 9 ranks)`` and every suit goes through the
  same two 1-D convolutions along the rank axis (kernel 3), so runs (顺子) and neighbours are visible and the three
  suits share weights; the suit identity is kept by the position in the flattened output.
* **honors** — the 7 honor columns (only 红中 is used by the Sichuan variants) go through a per-kind 1x1 projection.
* **broadcast facts** — one value per broadcast plane (column 0) through a small linear layer.

The three parts are concatenated and projected to ``features_dim``.  With the defaults the extractor has about
0.25 M parameters: small enough to train on two CPU cores.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.learned.advice import ADVICE_BROADCAST_ROWS, ADVICE_PLANES
from agents.learned.hand_features import HAND_BROADCAST_ROWS, HAND_FEATURE_PLANES
from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.engine.observation import OBS_SHAPE, SLICES

BROADCAST_PLANES: tuple[str, ...] = (
    "exchange_direction",
    "hidden_kongs",
    "won",
    "active",
    "baohu",
    "qinghu",
    "seat_present",
    "dealer",
    "current",
    "claim_is_rob",
    "phase",
    "to_act",
    "wall",
    "scores",
    "hand_size",
    "melds_count",
)
"""Planes of the observation whose value is the same in every column (read from column 0)."""


def _rows(names: tuple[str, ...]) -> list[int]:
    return [r for name in names for r in range(SLICES[name].start, SLICES[name].stop)]


BROADCAST_ROWS: tuple[int, ...] = tuple(_rows(BROADCAST_PLANES))
TILE_ROWS: tuple[int, ...] = tuple(r for r in range(OBS_SHAPE[0]) if r not in set(BROADCAST_ROWS))
NUM_SUITED = 27
MATCH_BROADCAST_ROWS: tuple[int, ...] = tuple(range(OBS_SHAPE[0] + 2, OBS_SHAPE[0] + 10))
"""Rows of the ``chuanma-v1-match`` planes read from column 0: ``match_standing`` and ``match_change``; the hand
thermometers and ``match_kind`` are read as tile rows."""
MATCH_TILE_ROWS: tuple[int, ...] = tuple(
    r for r in range(OBS_SHAPE[0], MATCH_OBS_SHAPE[0]) if r not in set(MATCH_BROADCAST_ROWS)
)


def input_rows(
    hand_features: bool, advisor: bool = False, match: bool = False
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """``(rows, tile rows, broadcast rows)`` of the network input (:mod:`agents.learned.net_input`): the observation
    (``chuanma-v1``, or ``chuanma-v1-match`` when ``match``), then the :mod:`agents.learned.hand_features` planes when
    ``hand_features``, then the :mod:`agents.learned.advice` planes when ``advisor``."""
    rows, tiles, broadcast = OBS_SHAPE[0], list(TILE_ROWS), list(BROADCAST_ROWS)
    if match:
        rows, tiles, broadcast = (
            MATCH_OBS_SHAPE[0],
            tiles + list(MATCH_TILE_ROWS),
            broadcast + list(MATCH_BROADCAST_ROWS),
        )
    for on, size, block_broadcast in (
        (hand_features, HAND_FEATURE_PLANES, HAND_BROADCAST_ROWS),
        (advisor, ADVICE_PLANES, ADVICE_BROADCAST_ROWS),
    ):
        if on:
            tiles += [rows + r for r in range(size) if r not in block_broadcast]
            broadcast += [rows + r for r in block_broadcast]
            rows += size
    return rows, tuple(tiles), tuple(broadcast)


NUM_HONORS = OBS_SHAPE[1] - NUM_SUITED


class TilePlaneExtractor(BaseFeaturesExtractor):
    """Suit-shared 1-D convolutions over the tile planes plus a broadcast-feature branch (see the module docstring).

    ``channels``: convolution channels per rank position; ``honor_channels``: projection width per honor kind;
    ``broadcast_dim``: width of the broadcast branch; ``features_dim``: output width; ``hand_features`` /
    ``advisor``: the input carries the :mod:`agents.learned.hand_features` / :mod:`agents.learned.advice` planes after
    the observation (see :func:`input_rows`); ``match``: the observation is ``chuanma-v1-match`` (RULES.md §11.2).
    """

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        features_dim: int = 256,
        channels: int = 32,
        honor_channels: int = 8,
        broadcast_dim: int = 64,
        hand_features: bool = False,
        advisor: bool = False,
        match: bool = False,
    ) -> None:
        n_rows, tile_rows, broadcast_rows = input_rows(hand_features, advisor, match)
        if tuple(observation_space.shape) != (n_rows, OBS_SHAPE[1]):
            blocks = [name for on, name in ((hand_features, "hand-feature"), (advisor, "advice")) if on]
            base = "match observation" if match else "observation"
            what = f"{base} + {' + '.join(blocks)} planes" if blocks else f"{base}s"
            raise ValueError(
                f"TilePlaneExtractor expects {what} of shape {(n_rows, OBS_SHAPE[1])}, got {observation_space}"
            )
        for name, value in (
            ("features_dim", features_dim),
            ("channels", channels),
            ("honor_channels", honor_channels),
            ("broadcast_dim", broadcast_dim),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"TilePlaneExtractor: {name} must be a positive integer, got {value!r}")
        super().__init__(observation_space, features_dim)
        self.register_buffer("tile_rows", torch.tensor(tile_rows, dtype=torch.long), persistent=False)
        self.register_buffer("broadcast_rows", torch.tensor(broadcast_rows, dtype=torch.long), persistent=False)
        n_tile = len(tile_rows)
        self.channels = channels
        self.suit_conv = nn.Sequential(
            nn.Conv1d(n_tile, channels, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv1d(channels, channels, kernel_size=3, padding=1),
            nn.ReLU(),
        )
        self.honor_proj = nn.Sequential(nn.Conv1d(n_tile, honor_channels, kernel_size=1), nn.ReLU())
        self.broadcast = nn.Sequential(nn.Linear(len(broadcast_rows), broadcast_dim), nn.ReLU())
        width = 3 * 9 * channels + NUM_HONORS * honor_channels + broadcast_dim
        self.head = nn.Sequential(nn.Linear(width, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        batch = observations.shape[0]
        tiles = observations.index_select(1, self.tile_rows)  # (B, T, 34)
        suited = tiles[:, :, :NUM_SUITED].reshape(batch, -1, 3, 9).permute(0, 2, 1, 3)  # (B, 3, T, 9)
        suited = self.suit_conv(suited.reshape(batch * 3, -1, 9)).reshape(batch, -1)  # (B, 3 * C * 9)
        honors = self.honor_proj(tiles[:, :, NUM_SUITED:]).reshape(batch, -1)
        broadcast = self.broadcast(observations[:, :, 0].index_select(1, self.broadcast_rows))
        return self.head(torch.cat((suited, honors, broadcast), dim=1))


_NP_ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0, out=x),
    "tanh": lambda x: np.tanh(x, out=x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
}


class NumpyActor:
    """The actor half of a policy (extractor + policy MLP + action logits) evaluated with numpy.

    A copy of the weights is taken at construction, so the actor never changes when the source network trains
    (self-play snapshots).  Batch-1 inference in numpy costs a fraction of torch's per-call overhead, which
    dominates for a network this small; :meth:`logits` matches the torch policy to float32 rounding.
    """

    def __init__(
        self,
        state_dict: dict[str, Any],
        activation: str = "relu",
        prefix: str = "features_extractor.",
        *,
        hand_features: bool = False,
        advisor: bool = False,
        match: bool = False,
    ) -> None:
        if activation not in _NP_ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_NP_ACTIVATIONS)}, got {activation!r}")

        def get(name: str) -> np.ndarray:
            value = state_dict[name]
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            return np.array(value, dtype=np.float32, copy=True)

        w1, w2 = get(prefix + "suit_conv.0.weight"), get(prefix + "suit_conv.2.weight")
        # convolutions as im2col matmuls in (rows, rank, channel) layout: column index = (tap, in-channel)
        self.c1_w = np.ascontiguousarray(w1.transpose(2, 1, 0).reshape(-1, w1.shape[0]))
        self.c1_b = get(prefix + "suit_conv.0.bias")
        self.c2_w = np.ascontiguousarray(w2.transpose(2, 1, 0).reshape(-1, w2.shape[0]))
        self.c2_b = get(prefix + "suit_conv.2.bias")
        self.h_w = np.ascontiguousarray(get(prefix + "honor_proj.0.weight")[:, :, 0])
        self.h_b = get(prefix + "honor_proj.0.bias")
        self.b_w = np.ascontiguousarray(get(prefix + "broadcast.0.weight").T)
        self.b_b = get(prefix + "broadcast.0.bias")
        self.f_w = np.ascontiguousarray(get(prefix + "head.0.weight").T)
        self.f_b = get(prefix + "head.0.bias")
        self.mlp: list[tuple[np.ndarray, np.ndarray]] = []
        i = 0
        while f"mlp_extractor.policy_net.{i}.weight" in state_dict:
            self.mlp.append(
                (
                    np.ascontiguousarray(get(f"mlp_extractor.policy_net.{i}.weight").T),
                    get(f"mlp_extractor.policy_net.{i}.bias"),
                )
            )
            i += 2
        self.a_w = np.ascontiguousarray(get("action_net.weight").T)
        self.a_b = get("action_net.bias")
        self.activation = _NP_ACTIVATIONS[activation]
        _, tile_rows, broadcast_rows = input_rows(hand_features, advisor, match)
        self._tile_rows = np.array(tile_rows)
        self._broadcast_rows = np.array(broadcast_rows)

    @staticmethod
    def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Kernel-3, padding-1 convolution along axis 1 of ``x`` (N, 9, C_in) -> (N, 9, C_out), then ReLU."""
        n, length, c = x.shape
        padded = np.zeros((n, length + 2, c), dtype=np.float32)
        padded[:, 1:-1] = x
        cols = np.concatenate((padded[:, :-2], padded[:, 1:-1], padded[:, 2:]), axis=2)
        out = cols @ w
        out += b
        return np.maximum(out, 0.0, out=out)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits ``(B, 183)`` of a batch of network inputs ``(B, rows, 34)`` (see :func:`input_rows`)."""
        obs = np.asarray(observations, dtype=np.float32)
        batch = obs.shape[0]
        tiles = obs[:, self._tile_rows]  # (B, T, 34)
        suited = tiles[:, :, :NUM_SUITED].reshape(batch, -1, 3, 9).transpose(0, 2, 3, 1).reshape(batch * 3, 9, -1)
        suited = self._conv(self._conv(suited, self.c1_w, self.c1_b), self.c2_w, self.c2_b)  # (B*3, 9, C)
        suited = suited.transpose(0, 2, 1).reshape(batch, -1)  # torch order: (suit, channel, rank)
        honors = np.einsum("oi,bik->bok", self.h_w, tiles[:, :, NUM_SUITED:]) + self.h_b[:, None]
        honors = np.maximum(honors, 0.0, out=honors).reshape(batch, -1)
        broadcast = obs[:, self._broadcast_rows, 0] @ self.b_w + self.b_b
        np.maximum(broadcast, 0.0, out=broadcast)
        x = np.concatenate((suited, honors, broadcast), axis=1) @ self.f_w + self.f_b
        np.maximum(x, 0.0, out=x)
        for w, b in self.mlp:
            x = self.activation(x @ w + b)
        return x @ self.a_w + self.a_b


def count_parameters(module: nn.Module) -> int:
    """Number of trainable parameters."""
    return int(sum(p.numel() for p in module.parameters() if p.requires_grad))


def check_broadcast_rows(observation: np.ndarray) -> bool:
    """True when every broadcast plane of ``observation`` is constant along the tile axis (a layout sanity check)."""
    planes = np.asarray(observation)[list(BROADCAST_ROWS)]
    return bool(np.all(planes == planes[:, :1]))
