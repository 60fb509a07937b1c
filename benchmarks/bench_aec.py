"""Benchmark: AEC decisions per second of ``sichuan_mahjong_v0`` with random masked actions, per variant.

Measures the raw env and the wrapped env (PettingZoo's ``OrderEnforcingWrapper``) for every preset of
:data:`envs.core.rule_config.PRESETS` (a preset the engine refuses with ``UnsupportedRule`` is reported as skipped).  A
"decision" is one ``step`` of an agent with a non-empty mask (dead-agent ``None`` steps are not counted, but their
time is).  Each step also builds the observation and the mask through ``last()``, as a training loop would.  For
reference, in the same run: RLCard's ``mahjong`` env (random legal actions) and PettingZoo's ``connect_four_v3``
when they can be imported (reported as skipped otherwise; ``connect_four_v3`` needs ``pygame``).

Usage: ``python benchmarks/bench_aec.py [--decisions 20000] [--variants hongzhong chengdu] [--seed 0]
[--engine python|compiled]`` (``compiled``: ``raw_env(engine="compiled")``; the presets it does not play are skipped).
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs import sichuan_mahjong_v0
from envs.core.rule_config import PRESETS
from envs.engine.game import UnsupportedRule


def play_random(env, decisions: int, rng: np.random.Generator) -> int:
    """Random masked play of an AEC env (already reset) for ``decisions`` decisions; returns the hands finished.

    Dead-agent ``None`` steps are played but not counted; a finished hand is followed by a reset."""
    done = hands = 0
    while done < decisions:
        if not env.agents:
            hands += 1
            env.reset()
            continue
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        done += 1
    return hands


def play_user_loop(env, decisions: int, seed: int) -> int:
    """The README's loop as users write it, on one env reused across hands: ``reset(seed=...)``, then
    ``agent_iter()`` / ``last()`` / a random legal action from the mask (``action_space(agent).sample(mask)``) /
    ``step``, until ``decisions`` decisions are played (the hand in progress is finished); returns the decisions."""
    done = hand = 0
    while done < decisions:
        env.reset(seed=seed + hand)
        for agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(obs["action_mask"])
                done += 1
            env.step(action)
        hand += 1
    return done


def run_user_loop(env, decisions: int, seed: int) -> dict:
    """:func:`play_user_loop` timed."""
    start = time.perf_counter()
    done = play_user_loop(env, decisions, seed)
    elapsed = time.perf_counter() - start
    return {"decisions": done, "seconds": round(elapsed, 3), "decisions_per_s": round(done / elapsed, 1)}


def run_aec(env, decisions: int, seed: int) -> dict:
    """Random masked play for ``decisions`` decisions; returns throughput numbers."""
    env.reset(seed=seed)
    start = time.perf_counter()
    hands = play_random(env, decisions, np.random.default_rng(seed))
    elapsed = time.perf_counter() - start
    return {
        "decisions": decisions,
        "hands_finished": hands,
        "seconds": round(elapsed, 3),
        "decisions_per_s": round(decisions / elapsed, 1),
    }


def bench_rlcard(decisions: int, seed: int) -> dict:
    try:
        import rlcard  # type: ignore[import-not-found]
    except ImportError:
        return {"skipped": "rlcard is not installed"}
    env = rlcard.make("mahjong", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    state, _ = env.reset()
    while steps < decisions:
        if env.is_over():
            state, _ = env.reset()
            continue
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[rng.integers(len(legal))])
        steps += 1
    elapsed = time.perf_counter() - start
    return {"decisions": steps, "seconds": round(elapsed, 3), "decisions_per_s": round(steps / elapsed, 1)}


def bench_connect_four(decisions: int, seed: int) -> dict:
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # connect_four imports pygame at module level
        return {"skipped": f"connect_four_v3 cannot be imported: {exc}"}
    return run_aec(connect_four_v3.env(), decisions, seed)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20000, help="decisions per measurement")
    parser.add_argument("--variants", nargs="*", default=list(PRESETS), help="variant presets to measure")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--engine", choices=["python", "compiled"], default="python", help="the engine under the env (raw_env(engine=))"
    )
    args = parser.parse_args(argv)
    out: dict = {
        "benchmark": "bench_aec",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "decisions": args.decisions,
        "engine": args.engine,
        "variants": {},
    }
    for name in args.variants:
        try:
            raw = sichuan_mahjong_v0.raw_env(variant=name, engine=args.engine, match=False)
        except UnsupportedRule as exc:
            out["variants"][name] = {"skipped": str(exc)}
            continue
        wrapped = sichuan_mahjong_v0.env(variant=name, engine=args.engine, match=False)
        out["variants"][name] = {
            "raw": run_aec(raw, args.decisions, args.seed),
            "wrapped": run_aec(wrapped, args.decisions, args.seed),
            "user_loop": run_user_loop(wrapped, args.decisions, args.seed),
        }
    rl = out["rlcard_mahjong"] = bench_rlcard(args.decisions, args.seed)
    if "decisions_per_s" in rl:
        out["user_loop_vs_rlcard"] = {
            name: round(v["user_loop"]["decisions_per_s"] / rl["decisions_per_s"], 2)
            for name, v in out["variants"].items()
            if "user_loop" in v
        }
    out["connect_four_v3"] = bench_connect_four(args.decisions, args.seed)
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
