"""Duplicate evaluation of a learned policy (策略评测) against rule-based baselines, for training runs.

:func:`evaluate_agent` plays the protocol of :mod:`training.evaluation.evaluate` (one-vs-three on walls derived from a
seed, every wall from every seat, opponents built fresh per hand from :func:`training.evaluation.evaluate.agent_seed`)
with an in-memory challenger agent, so a learner can be evaluated mid-training without writing a file; the result is a
:class:`training.evaluation.evaluate.MatchResult`, identical to ``one_vs_three(cfg, "policy:PATH", opponent, ...)`` for
a deterministic policy.  :func:`evaluate_checkpoint` runs that file-based path, which can use several worker processes.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.registry import make_agent
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.observation import ObservationEncoder
from training.evaluation.evaluate import (
    MatchResult,
    agent_seed,
    one_vs_three,
    play_hand,
    replay_name,
    save_hand_replay,
    seat_stats,
    summarize,
    wall_seed,
)


def evaluate_agent(
    agent: Any,
    variant: str | RuleConfig,
    opponent: str,
    *,
    walls: int,
    seed: int,
    name: str = "learner",
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
) -> MatchResult:
    """One-vs-three duplicate evaluation of ``agent`` (an object with ``act``) against copies of ``opponent``.

    ``replay_dir``: a folder for a replay file of every hand (:func:`training.evaluation.evaluate.replay_name`), or
    of the first ``replay_sample`` walls (every seat); the agent's ``decision_info()`` (a policy's probabilities) is
    saved with each of its decisions."""
    cfg = load_variant(variant)
    if walls < 1:
        raise ValueError(f"walls must be a positive int, got {walls!r}")
    if replay_sample is not None and (isinstance(replay_sample, bool) or replay_sample < 0):
        raise ValueError(f"replay_sample must be a non-negative number of walls, got {replay_sample!r}")
    n = cfg.num_players
    encoder = ObservationEncoder.from_config(cfg)
    records = []
    for wall in range(walls):
        for rotation in range(n):
            seats = [
                agent
                if seat == rotation
                else make_agent(opponent, agent_seed(seed, 0, wall, rotation, seat), variant=cfg)
                for seat in range(n)
            ]
            save = replay_dir is not None and (replay_sample is None or wall < replay_sample)
            data: dict[int, list[dict[str, Any]]] | None = {} if save else None
            game = play_hand(cfg, wall_seed(seed, wall), seats, encoder=encoder, agent_data=data)
            if replay_dir is not None and data is not None:
                players = [name if seat == rotation else opponent for seat in range(n)]
                path = Path(replay_dir) / replay_name(0, name, opponent, wall, rotation)
                save_hand_replay(path, game, players, data, source="train-eval")
            records.append(
                {
                    "matchup": 0,
                    "wall": wall,
                    "rotation": rotation,
                    "seats": [{"stats": asdict(seat_stats(game, s)), "faults": {}} for s in range(n)],
                }
            )
    return summarize(records, name, opponent)


def evaluate_checkpoint(
    path: str | Path,
    variant: str | RuleConfig,
    opponent: str,
    *,
    walls: int,
    seed: int,
    workers: int = 1,
    progress: bool = False,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
    engine: str = "auto",
) -> MatchResult:
    """:func:`training.evaluation.evaluate.one_vs_three` of the checkpoint at ``path`` (``policy:PATH``) against
    ``opponent`` (``replay_dir``, ``replay_sample``: replay files, as there; ``engine``: ``auto`` plays the walls
    batched on the compiled engine where it can, the same results as the Python evaluator's)."""
    return one_vs_three(
        variant,
        f"policy:{path}",
        opponent,
        walls=walls,
        seed=seed,
        workers=workers,
        progress=progress,
        replay_dir=replay_dir,
        replay_sample=replay_sample,
        engine=engine,
    )


def result_row(result: MatchResult, step: int) -> dict[str, Any]:
    """A compact JSON-safe summary of one evaluation point."""

    def clean(x: float) -> float | None:
        return None if x is None or not math.isfinite(x) else float(x)

    return {
        "step": step,
        "opponent": result.opponent,
        "walls": result.walls,
        "hands": result.hands,
        "points": clean(result.points),
        "ci_low": clean(result.ci_low),
        "ci_high": clean(result.ci_high),
        "win_rate": clean(result.challenger_rates["win_rate"]),
        "deal_in_rate": clean(result.challenger_rates["deal_in_rate"]),
        "field_points": clean(result.field_points),
    }
