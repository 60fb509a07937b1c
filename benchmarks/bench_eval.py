"""Benchmark: duplicate evaluation, hand by hand on the Python engine vs batched on the compiled engine.

Runs ``chuanma eval --variant V --challenger C --opponent O --walls N`` both ways in one process — the Python evaluator
(:func:`training.evaluation.evaluate.run_matchups`, ``--workers 1``) and the batched one
(:func:`training.evaluation.fast.run_matchups_batched`) — checks that the two results are equal and prints walls/s of
each and their ratio as one JSON object.  The numba engine is compiled (and the batched path warmed on a few walls)
before the clock starts.  On the batched path the baselines are the compiled ones (:mod:`agents.compiled`, the same
decisions), so the ratio measures the engine, the batching and the compiled agents together.

``--workers W`` plays both ways with W processes (the Python evaluator's worker pool, and W processes each playing
a share of the walls batched), as ``chuanma eval --workers W`` does.

``--batched-workers W1 W2 ...`` plays the batched path alone, once with each number of processes in turn (a network
challenger, whose Python evaluation would take long: ``--challenger pretrained:chengdu``), and prints walls/s of
each and whether the results are equal.

Usage: ``python benchmarks/bench_eval.py [--variant hongzhong] [--challenger value] [--opponent greedy]
[--walls 100] [--seed 0] [--slots 256] [--workers 1] [--batched-workers W ...]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.evaluation import evaluate, fast
from training.evaluation.cores import available_cores


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="hongzhong")
    parser.add_argument("--challenger", default="value")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--walls", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slots", type=int, default=256, help="hands played at once on the batched path")
    parser.add_argument("--workers", type=int, default=1, help="processes of each path")
    parser.add_argument(
        "--batched-workers", type=int, nargs="+", default=None, help="the batched path alone, with each process count"
    )
    args = parser.parse_args(argv)
    pairs = [(args.challenger, args.opponent)]
    fast.run_matchups_batched(args.variant, pairs, walls=2, seed=args.seed + 1, slots=args.slots)  # compile, warm
    if args.batched_workers:
        return _batched_workers(args, pairs)
    start = time.perf_counter()
    old = evaluate.run_matchups(
        args.variant, pairs, walls=args.walls, seed=args.seed, engine="python", workers=args.workers
    )
    t_old = time.perf_counter() - start
    start = time.perf_counter()
    new = fast.run_matchups_batched(
        args.variant, pairs, walls=args.walls, seed=args.seed, slots=args.slots, workers=args.workers
    )
    t_new = time.perf_counter() - start
    out = {
        "benchmark": "bench_eval",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "variant": args.variant,
        "challenger": args.challenger,
        "opponent": args.opponent,
        "walls": args.walls,
        "workers": args.workers,
        "python_engine": {"seconds": round(t_old, 3), "walls_per_s": round(args.walls / t_old, 2)},
        "batched_compiled": {"seconds": round(t_new, 3), "walls_per_s": round(args.walls / t_new, 2)},
        "ratio": round(t_old / t_new, 2),
        "equal_results": [m.to_dict() for m in old] == [m.to_dict() for m in new],
        "points": old[0].points,
    }
    print(json.dumps(out, indent=2))
    return out


def _batched_workers(args: argparse.Namespace, pairs: list[tuple[str, str]]) -> dict:
    """The batched path once with each process count of ``--batched-workers``, in the order given."""
    runs, results = [], []
    for workers in args.batched_workers:
        start = time.perf_counter()
        res = fast.run_matchups_batched(
            args.variant, pairs, walls=args.walls, seed=args.seed, slots=args.slots, workers=workers
        )
        seconds = time.perf_counter() - start
        runs.append({"workers": workers, "seconds": round(seconds, 3), "walls_per_s": round(args.walls / seconds, 2)})
        results.append([m.to_dict() for m in res])
    out = {
        "benchmark": "bench_eval",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cores": available_cores(),
        "variant": args.variant,
        "challenger": args.challenger,
        "opponent": args.opponent,
        "walls": args.walls,
        "batched_workers": runs,
        "equal_results": all(r == results[0] for r in results),
        "points": res[0].points,
    }
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
