"""Replay documents for tests: one hand of random legal play, or of the greedy baseline (which wins often)."""

from __future__ import annotations

import random
from typing import Any

from envs.core.rule_config import load_variant
from envs.engine.replay_file import build_replay, hand_record
from envs.engine.simulate import play_random_hand


def random_replay(variant: str, seed: int) -> dict[str, Any]:
    """A replay document of one hand of uniformly random legal play."""
    cfg = load_variant(variant)
    game, _ = play_random_hand(cfg, seed, random.Random(seed), record_events=True)
    return build_replay(cfg, [hand_record(game)], players=["random"] * cfg.num_players, source="test")


def greedy_replay(variant: str, seed: int) -> dict[str, Any]:
    """A replay document of one hand of four greedy agents (chengdu seed 0: three wins; xueliu seed 0: sixteen)."""
    from agents.registry import make_agent
    from training.evaluation.evaluate import play_hand

    cfg = load_variant(variant)
    agents = [make_agent("greedy", s, variant=cfg) for s in range(cfg.num_players)]
    data: dict[int, list[dict[str, Any]]] = {}
    game = play_hand(cfg, seed, agents, agent_data=data)
    return build_replay(cfg, [hand_record(game, 0, data)], players=["greedy"] * cfg.num_players, source="test")
