"""Dealing a hand on the compiled engine (发牌): the wall, dealer and 换三张 direction ``Game`` draws for a seed.

:func:`seeded_start` reads the hand's seeded streams (:mod:`envs.wall`) the way ``Game(cfg, seed=...)`` does: the
wall's Fisher-Yates shuffle runs compiled (:func:`envs.compiled.batch.shuffle`) over the stream's words, the same
draws as :func:`envs.wall.shuffled_wall`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.compiled import batch
from envs.config import RuleConfig
from envs.game import draw_exchange_offset
from envs.wall import DOMAIN_DEALER, DOMAIN_WALL, SeedStream, shuffled_wall

__all__ = ["seeded_start"]


def seeded_start(cfg: RuleConfig, hand: Any, tiles: np.ndarray, wall: np.ndarray) -> tuple[int, int]:
    """Write the wall of hand seed ``hand`` into ``wall[:cfg.num_tiles]`` (``tiles``: the variant's tiles in
    ascending order, ``int32``) and return ``(dealer, exchange offset)`` (offset 0 without 换三张) — what
    ``Game(cfg, seed=hand)`` deals."""
    out = wall[: cfg.num_tiles]
    out[:] = tiles
    data = SeedStream(hand, DOMAIN_WALL).word_bytes(cfg.num_tiles - 1)
    if batch.shuffle(out, np.frombuffer(data, dtype=">u8").astype(np.uint64)) < 0:
        out[:] = shuffled_wall(cfg, hand)  # a rejection streak used up the words read ahead
    dealer = SeedStream(hand, DOMAIN_DEALER).randbelow(cfg.num_players)
    offset = draw_exchange_offset(cfg, hand) if cfg.exchange_mode == "swap3" else 0
    return dealer, offset
