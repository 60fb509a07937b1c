"""A tiny network shape for tests that build, save and load policies quickly."""

from __future__ import annotations

from typing import Any

TINY_NET: dict[str, Any] = {
    "features_dim": 16,
    "channels": 4,
    "honor_channels": 2,
    "broadcast_dim": 8,
    "pi_layers": (16,),
    "vf_layers": (16,),
}
