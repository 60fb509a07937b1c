"""Speed of the rule-based agents: decisions per second on positions recorded from greedy self-play (prints JSON).

    python benchmarks/bench_agents.py [--variants chengdu hongzhong] [--hands 6]

For every variant the positions (observation, mask) of a few greedy self-play hands are recorded, then each agent
answers all of them; ``cold`` starts from empty caches and memos, as a new process has them (the agents'
hand-evaluation caches and the memos of :mod:`envs.scoring.shanten` on the Python side, the shanten memos on the
compiled side; each side's suit table stays full), ``warm`` repeats the same positions.  ``hand_features`` compares,
on the same positions and in the same run, the Python hand-feature planes
(:class:`agents.learned.hand_features.HandFeatures`, one position a call) with the compiled batch
(:class:`agents.compiled.hand_features.BatchHandFeatures`, all positions in one call; the first call of a process
that compiles is excluded); each comparison is the median of ``--repeats`` timed runs of each side.  ``compiled``
does the same for the compiled greedy, value and defensive baselines (:mod:`agents.compiled`): the Python agent
one position a call against ``act_batch`` over all positions in one call (``equal``: the same decisions, as
``tests/agents/test_compiled_value.py`` and ``tests/agents/test_compiled_greedy.py`` check).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents.compiled.hand_features import BatchHandFeatures
from agents.compiled.shanten import SHANTEN_TABLES, clear_tables, fill_suit_table
from agents.handeval import clear_caches
from agents.learned.hand_features import HandFeatures
from agents.registry import make_agent
from envs.core.rule_config import load_variant
from envs.engine.observation import ObservationEncoder
from envs.scoring.shanten import clear_memos
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


def _record(cfg, seeds: range) -> list:
    """The positions ``(observation, mask)`` of greedy self-play hands on the walls of ``seeds``."""
    positions: list = []
    enc = ObservationEncoder.from_config(cfg)
    for seed in seeds:
        play_hand(cfg, seed, [_Recorder(positions) for _ in range(cfg.num_players)], encoder=enc)
    return positions


def bench(variant: str, hands: int, agents: list[str], compiled: list[str], repeats: int) -> dict:
    cfg = load_variant(variant)
    positions = _record(cfg, range(500, 500 + hands))
    others = _record(cfg, range(900, 900 + hands))  # the warm-up hands of the "steady" comparison
    out = {"variant": variant, "positions": len(positions)}
    for spec in agents:
        agent = make_agent(spec, seed=0)
        agent.reset(0, cfg)
        _empty_python()
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
    out["hand_features"] = _bench_hand_features(cfg, positions, repeats)
    out["compiled"] = {name: _bench_compiled(cfg, positions, others, name, repeats) for name in compiled}
    return out


def _timed(run, before=None) -> float:
    """The wall time of one call of ``run`` (``before`` called untimed ahead of it)."""
    if before is not None:
        before()
    t = time.perf_counter()
    run()
    return time.perf_counter() - t


def _compare(python, compiled, modes, n: int, unit: str, repeats: int) -> dict:
    """Per mode ``(label, before the Python run, before the compiled run)``: the median rates of ``python`` and
    ``compiled`` over ``n`` ``unit`` and their ratio, from ``repeats`` timed runs of each side taken in turns (so
    that a slow spell of a shared machine falls on both sides)."""
    result = {}
    for label, before_py, before_c in modes:
        t_py, t_c = [], []
        for _ in range(repeats):
            t_py.append(_timed(python, before_py))
            t_c.append(_timed(compiled, before_c))
        py, c = float(np.median(t_py)), float(np.median(t_c))
        result[label] = {
            f"python_{unit}_per_s": round(n / py, 1),
            f"compiled_{unit}_per_s": round(n / c, 1),
            "ratio": round(py / c, 1),
        }
    return result


def _empty_python() -> None:
    """A cold start of the Python code: the agents' hand-evaluation caches and the shanten module's memos (profile
    products, capped suits, honor groups) emptied, as in a new process; its suit table stays, as the compiled one
    does."""
    clear_caches()
    clear_memos()


def _empty_compiled() -> None:
    """A cold start of the compiled code: its shanten and useful-tiles memos emptied, the suit table full again (as
    every process has it once a compiled agent or the feature planes are made, ``fill_suit_table``)."""
    from agents.compiled.shanten_memo import MEMO, clear_memo

    clear_tables(SHANTEN_TABLES)
    fill_suit_table()
    clear_memo(MEMO)


def _bench_compiled(cfg, positions: list, others: list, name: str, repeats: int) -> dict:
    """Python ``name`` against its compiled batch agent on ``positions``, three ways, each side the same way: ``cold``
    (every cache and memo emptied first), ``steady`` (emptied, then the positions of ``others``, other hands, answered
    untimed: new positions met with the caches a run builds up) and ``warm`` (the same positions again: lookups)."""
    from agents.compiled import make_batch_agent

    obs = np.stack([o for o, _ in positions])
    masks = np.stack([m for _, m in positions])
    other_obs = np.stack([o for o, _ in others])
    other_masks = np.stack([m for _, m in others])
    batch = make_batch_agent(name, cfg)
    batch.act_batch(obs[:1], masks[:1])  # compile (or load the cache) outside the timing
    py = make_agent(name, seed=0)
    py.reset(0, cfg)
    want = [py.act(o, m) for o, m in positions]
    got = batch.act_batch(obs, masks)

    def python() -> None:
        for o, m in positions:
            py.act(o, m)

    def compiled() -> None:
        batch.act_batch(obs, masks)

    def python_after_others() -> None:
        _empty_python()
        for o, m in others:
            py.act(o, m)

    def compiled_after_others() -> None:
        _empty_compiled()
        batch.act_batch(other_obs, other_masks)

    modes = (
        ("cold", _empty_python, _empty_compiled),
        ("steady", python_after_others, compiled_after_others),
        ("warm", None, None),
    )
    return {
        "equal": bool(np.array_equal(got, want)),
        **_compare(python, compiled, modes, len(obs), "decisions", repeats),
    }


def _bench_hand_features(cfg, positions: list, repeats: int) -> dict:
    obs = np.stack([o for o, _ in positions])
    py = HandFeatures(cfg)
    batch = BatchHandFeatures(cfg)
    batch.planes(obs[:1])  # compile (or load the cache) outside the timing

    def python() -> None:
        for o in obs:
            py.planes(o)

    def compiled() -> None:
        batch.planes(obs)

    modes = (("cold", _empty_python, _empty_compiled), ("warm", None, None))
    return _compare(python, compiled, modes, len(obs), "positions", repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["chengdu", "hongzhong", "two_player"])
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--agents", nargs="+", default=["random", "greedy", "value", "defensive"])
    parser.add_argument(
        "--compiled", nargs="*", default=["greedy", "value", "defensive"], choices=["greedy", "value", "defensive"]
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each compiled comparison (median)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    runs = [bench(v, args.hands, args.agents, args.compiled, args.repeats) for v in args.variants]
    print(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
