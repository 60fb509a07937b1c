"""Benchmark: engine throughput of :class:`envs.engine.game.Game` — whole hands played by a seeded random policy.

For every variant, ``--hands`` hands (seeds 0, 1, ...) are played by a random legal policy biased towards wins and
kongs (so that the settlement paths run), with the event log on (default) or off.  Reported per variant: decisions
per second, hands per second, the share of time spent in the end-of-hand checks (查花猪/查大叫/退税, which score
every waiting tile of every non-winner), and ``Game.copy`` cost.  Timings are CPU time of the best of ``--repeat``
passes.

Usage: ``python benchmarks/bench_game.py [--hands 50] [--repeat 3] [--no-events]``.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.core.actions import HU, PASS, PONG, ActionType
from envs.engine import game as game_module
from envs.engine.game import Game
from envs.engine.view import Phase

VARIANTS = ("chengdu", "xueliu", "hongzhong", "chiyu", "two_player")


def choose(g: Game, seat: int, rng: random.Random):
    legal = g.legal_actions(seat)
    if HU in legal and rng.random() < 0.8:
        return HU
    kongs = [a for a in legal if a.type == ActionType.KONG]
    if kongs and rng.random() < 0.6:
        return rng.choice(kongs)
    if PONG in legal and rng.random() < 0.4:
        return PONG
    if g.phase in (Phase.CLAIM, Phase.ROB) and rng.random() < 0.7:
        return PASS
    return rng.choice(legal)


def play(variant: str, hands: int, events: bool) -> tuple[int, float, float]:
    """Decisions made, CPU seconds in total and CPU seconds in the end-of-hand checks."""
    end_time = 0.0
    original = game_module.end_of_hand_transfers

    def timed(*args, **kwargs):
        nonlocal end_time
        t = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            end_time += time.process_time() - t

    game_module.end_of_hand_transfers = timed
    try:
        steps = 0
        t0 = time.process_time()
        for seed in range(hands):
            rng = random.Random(seed)
            g = Game(variant, seed=seed, record_events=events)
            while not g.is_over:
                seat = g.pending[0]
                g.step(seat, choose(g, seat, rng))
                steps += 1
        return steps, time.process_time() - t0, end_time
    finally:
        game_module.end_of_hand_transfers = original


def copy_cost(variant: str, n: int = 2000) -> float:
    """Microseconds per ``Game.copy`` in the middle of a hand."""
    rng = random.Random(1)
    g = Game(variant, seed=1)
    for _ in range(60):
        if g.is_over:
            break
        seat = g.pending[0]
        g.step(seat, choose(g, seat, rng))
    t = time.process_time()
    for _ in range(n):
        g.copy()
    return (time.process_time() - t) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-events", action="store_true", help="play with record_events=False")
    args = ap.parse_args()
    out: dict[str, object] = {
        "benchmark": "bench_game",
        "python": platform.python_version(),
        "hands": args.hands,
        "events": not args.no_events,
        "variants": {},
    }
    for variant in VARIANTS:
        best = None
        for _ in range(args.repeat):
            steps, total, end = play(variant, args.hands, not args.no_events)
            if best is None or total < best[1]:
                best = (steps, total, end)
        steps, total, end = best  # type: ignore[misc]
        out["variants"][variant] = {  # type: ignore[index]
            "decisions": steps,
            "decisions_per_s": round(steps / total),
            "hands_per_s": round(args.hands / total, 1),
            "end_of_hand_share": round(end / total, 3),
            "copy_us": round(copy_cost(variant), 1),
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
