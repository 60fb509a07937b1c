"""Speed of the rule-based agents: decisions per second on positions recorded from greedy self-play (prints JSON).

    python benchmarks/bench_agents.py [--variants chengdu hongzhong] [--hands 6]

For every variant the positions (observation, mask) of a few greedy self-play hands are recorded, then each agent
answers all of them; ``cold`` starts from empty hand-evaluation caches, ``warm`` repeats the same positions.
``hand_features`` compares, on the same positions and in the same run, the Python hand-feature planes
(:class:`agents.learned.hand_features.HandFeatures`, one position a call) with the compiled batch
(:class:`agents.compiled.hand_features.BatchHandFeatures`, all positions in one call; ``cold`` also empties its suit
memo; the first call of a process that compiles is excluded).  ``compiled`` does the same for the compiled greedy,
value and defensive baselines (:mod:`agents.compiled`): the Python agent one position a call against ``act_batch``
over all positions in one call (the decisions are equal, ``tests/agents/test_compiled_value.py``,
``tests/agents/test_compiled_greedy.py``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents.compiled.hand_features import BatchHandFeatures
from agents.compiled.shanten import SHANTEN_TABLES, clear_tables
from agents.handeval import clear_caches
from agents.learned.hand_features import HandFeatures
from agents.registry import make_agent
from envs.core.rule_config import load_variant
from envs.engine.observation import ObservationEncoder
from training.evaluation.evaluate import play_hand


class _Recorder:
    def __init__(self, positions: list) -> None:
        self.inner = make_agent("greedy")
        self.positions = positions

    def reset(self, seat, variant) -> None:
        self.inner.reset(seat, variant)

    def act(self, observation, legal_mask) -> int:
        self.positions.append((observation, legal_mask))
        return self.inner.act(observation, legal_mask)


def bench(variant: str, hands: int, agents: list[str], compiled: list[str]) -> dict:
    cfg = load_variant(variant)
    positions: list = []
    enc = ObservationEncoder.from_config(cfg)
    for h in range(hands):
        play_hand(cfg, 500 + h, [_Recorder(positions) for _ in range(cfg.num_players)], encoder=enc)
    out = {"variant": variant, "positions": len(positions)}
    for spec in agents:
        agent = make_agent(spec, seed=0)
        agent.reset(0, cfg)
        clear_caches()
        t = time.perf_counter()
        for obs, mask in positions:
            agent.act(obs, mask)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        for obs, mask in positions:
            agent.act(obs, mask)
        warm = time.perf_counter() - t
        out[spec] = {
            "cold_decisions_per_s": round(len(positions) / cold, 1),
            "warm_decisions_per_s": round(len(positions) / warm, 1),
        }
    out["hand_features"] = _bench_hand_features(cfg, positions)
    out["compiled"] = {name: _bench_compiled(cfg, positions, name) for name in compiled}
    return out


def _bench_compiled(cfg, positions: list, name: str) -> dict:
    from agents.compiled import make_batch_agent
    from agents.compiled.shanten_memo import MEMO, clear_memo

    obs = np.stack([o for o, _ in positions])
    masks = np.stack([m for _, m in positions])
    batch = make_batch_agent(name, cfg)
    batch.act_batch(obs[:1], masks[:1])  # compile (or load the cache) outside the timing
    py = make_agent(name, seed=0)
    py.reset(0, cfg)
    result = {}
    for label in ("cold", "warm"):
        if label == "cold":
            clear_caches()
        t = time.perf_counter()
        want = [py.act(o, m) for o, m in positions]
        t_py = time.perf_counter() - t
        if label == "cold":
            clear_caches()
            clear_tables(SHANTEN_TABLES)
            clear_memo(MEMO)  # the compiled shanten and useful-tiles memos
        t = time.perf_counter()
        got = batch.act_batch(obs, masks)
        t_c = time.perf_counter() - t
        result[label] = {
            "python_decisions_per_s": round(len(obs) / t_py, 1),
            "compiled_decisions_per_s": round(len(obs) / t_c, 1),
            "ratio": round(t_py / t_c, 1),
            "equal": bool(np.array_equal(got, want)),
        }
    return result


def _bench_hand_features(cfg, positions: list) -> dict:
    obs = np.stack([o for o, _ in positions])
    py = HandFeatures(cfg)
    batch = BatchHandFeatures(cfg)
    batch.planes(obs[:1])  # compile (or load the cache) outside the timing
    result = {}
    for label in ("cold", "warm"):
        if label == "cold":
            clear_caches()
            clear_tables(SHANTEN_TABLES)
        t = time.perf_counter()
        for o in obs:
            py.planes(o)
        t_py = time.perf_counter() - t
        if label == "cold":
            clear_caches()
        t = time.perf_counter()
        batch.planes(obs)
        t_c = time.perf_counter() - t
        result[label] = {
            "python_positions_per_s": round(len(obs) / t_py, 1),
            "compiled_positions_per_s": round(len(obs) / t_c, 1),
            "ratio": round(t_py / t_c, 1),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["chengdu", "hongzhong", "two_player"])
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--agents", nargs="+", default=["random", "greedy", "value", "defensive"])
    parser.add_argument(
        "--compiled", nargs="*", default=["greedy", "value", "defensive"], choices=["greedy", "value", "defensive"]
    )
    args = parser.parse_args()
    print(json.dumps([bench(v, args.hands, args.agents, args.compiled) for v in args.variants], indent=2))


if __name__ == "__main__":
    main()
