"""Test helpers for the observation / AEC / single-agent tests: seeded engine policies that reach wins often."""

from __future__ import annotations

import numpy as np

from envs.core import actions as A
from envs.core.rule_config import ENGINE_PRESETS
from envs.core.tiles import NUM_KINDS, RED
from envs.engine.game import Game
from envs.engine.view import Phase
from envs.scoring.shanten import shanten

SUPPORTED = ENGINE_PRESETS
"""Presets the engine plays today (:data:`envs.core.rule_config.ENGINE_PRESETS`)."""


def greedy_action(game: Game, seat: int, rng: np.random.Generator) -> A.Action:
    """Always win; kong and pong most of the time; discard towards the lowest shanten (ties at random)."""
    legal = game.legal_actions(seat)
    types = {a.type for a in legal}
    if A.ActionType.HU in types:
        return A.HU
    if game.phase == Phase.EXCHANGE or game.phase == Phase.DINGQUE:
        return legal[int(rng.integers(len(legal)))]
    melds = [a for a in legal if a.type in (A.ActionType.KONG, A.ActionType.PONG)]
    if melds and rng.random() < 0.7:
        return melds[int(rng.integers(len(melds)))]
    discards = [a for a in legal if a.type == A.ActionType.DISCARD]
    if not discards:
        return legal[int(rng.integers(len(legal)))]
    void = game.void[seat]
    void_discards = [a for a in discards if void is not None and a.tile // 9 == void and a.tile < 27]
    if void_discards:
        return void_discards[int(rng.integers(len(void_discards)))]
    hand = list(game.hand_of(seat))
    wild = game.cfg.wild == "hongzhong"
    best: list[A.Action] = []
    best_value = NUM_KINDS
    for a in discards:
        hand[a.tile] -= 1
        counts = hand[:]
        wilds = 0
        if wild:
            wilds, counts[RED] = counts[RED], 0
        if void is not None:
            for k in range(void * 9, void * 9 + 9):
                counts[k] = 0
        try:
            value = shanten(counts, wilds) if sum(counts) % 3 else NUM_KINDS
        except ValueError:
            value = NUM_KINDS
        hand[a.tile] += 1
        if value < best_value:
            best, best_value = [a], value
        elif value == best_value:
            best.append(a)
    return best[int(rng.integers(len(best)))]


def random_action(game: Game, seat: int, rng: np.random.Generator) -> A.Action:
    legal = game.legal_actions(seat)
    return legal[int(rng.integers(len(legal)))]


def play(game: Game, rng: np.random.Generator, policy=greedy_action, max_steps: int = 10_000):
    """Yield ``(seat, action)`` after applying each decision until the hand ends."""
    for _ in range(max_steps):
        if game.is_over:
            return
        seat = game.pending[0]
        action = policy(game, seat, rng)
        game.step(seat, action)
        yield seat, action
    raise AssertionError("hand did not end")


def flat_greedy(obs_mask_env, agent: str, rng: np.random.Generator) -> int:
    """Flat action id of :func:`greedy_action` for ``agent`` of a raw AEC env (exchange picks: the first allowed)."""
    env = obs_mask_env
    seat = env.agent_name_mapping[agent]
    game = env.game
    mask = env.observe(agent)["action_mask"]
    if game.phase == Phase.EXCHANGE:
        ids = np.flatnonzero(mask)
        return int(ids[int(rng.integers(ids.size))])
    action = greedy_action(game, seat, rng)
    flat = A.encode(action)
    assert mask[flat], f"greedy action {action} is not in the mask"
    return flat
