"""Positions for the compiled-agent differential tests: every decision of seeded hands where value, defensive,
greedy and random seats play together (so that value-seeking hands, ready hands and late walls all occur)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from agents.defensive import DefensiveAgent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.value import ValueAgent
from envs import sichuan_mahjong_v0
from envs.core.rule_config import load_variant


def play_positions(
    variant: str, hands: int, seed: int, seat_agent: Callable[[int, int], Any]
) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of ``hands`` seeded single hands of ``variant``, seat ``i`` of hand
    ``h`` played by ``seat_agent(h, i)``."""
    cfg = load_variant(variant)
    env = sichuan_mahjong_v0.env(variant=variant, match=False)  # single hands (chiyu plays matches by default)
    obs_out, mask_out = [], []
    for h in range(hands):
        env.reset(seed=seed + h)
        agents = {}
        for i, a in enumerate(env.possible_agents):
            agents[a] = seat_agent(h, i)
            agents[a].reset(i, cfg)
        for a in env.agent_iter():
            o, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs_out.append(o["observation"])
            mask_out.append(o["action_mask"])
            env.step(agents[a].act(o["observation"], o["action_mask"]))
    return np.stack(obs_out), np.stack(mask_out)


@lru_cache(maxsize=16)
def record(variant: str, hands: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of ``hands`` seeded hands (read-only arrays, cached)."""
    kinds = (ValueAgent, DefensiveAgent, GreedyAgent, ValueAgent)

    def seat_agent(h: int, i: int) -> Any:
        j = (i + h) % 4
        return RandomAgent(seed=seed + 10 * h + i) if j == 2 and h % 3 == 2 else kinds[j]()

    obs, masks = play_positions(variant, hands, seed, seat_agent)
    obs.setflags(write=False)
    masks.setflags(write=False)
    return obs, masks


def many(variant: str, at_least: int = 10_000, seed: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """At least ``at_least`` positions of ``variant``, ten seeded hands at a time from ``seed`` on (the slow tests)."""
    chunks_obs, chunks_masks = [], []
    total = 0
    while total < at_least:
        obs, masks = record(variant, hands=10, seed=seed)
        chunks_obs.append(obs)
        chunks_masks.append(masks)
        total += obs.shape[0]
        seed += 10
    return np.concatenate(chunks_obs), np.concatenate(chunks_masks)
