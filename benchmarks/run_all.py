"""All throughput benchmarks in one run: our engine, the AEC env (raw and wrapped), the batched env, scoring, PPO
training samples, and the tools users would pick instead (RLCard's mahjong env, the ``mahjong`` package).

Every figure is a rate (units per CPU second of this process, ``time.process_time``, one core) measured
``--repeat`` times; the report gives the median and the spread (min-max).  The cases take turns within each round
(in rotating order), so a busy machine slows them alike, and the goal ratios are computed from medians measured in
the same run.  Random legal play everywhere (seeded), so the figures measure the environments, not a policy.

==========================  =========================================================================================
case                        unit (what one "unit" is)
==========================  =========================================================================================
``engine/<variant>``        decisions of ``envs.engine.game.Game`` (``legal_actions`` + ``step``, events off); hands/s
too ``aec_raw/<variant>``       AEC decisions of ``sichuan_mahjong_v0.raw_env`` (``last()`` with observation and mask,
                            then ``step``); dead-agent steps are not counted, their time is
``aec_wrapped/<variant>``   the same through ``sichuan_mahjong_v0.env`` (PettingZoo's OrderEnforcing wrapper;
                            the raw env checks actions itself)
``aec_compiled_raw/<v>``    ``aec_raw`` on the compiled engine (``raw_env(engine="compiled")``, every preset)
``aec_compiled_wrapped/<v>``  ``aec_wrapped`` on the compiled engine
``batched_selfplay/<v>``    decisions of ``envs.vector_env.VectorEnv(self_play=True)``, 64 slots: every decision of
                            every seat, with its observation and mask in the batch arrays
``batched_learner/<v>``     learner steps of ``VectorEnv`` (64 slots, random opponents played inside)
``batched_compiled/<v>``    the ``batched_selfplay`` case on the compiled engine (``VectorEnv(engine="compiled")``,
                            every preset)
``batched_compiled_learner/<v>``  the ``batched_learner`` case on the compiled engine
``engine_compiled/<v>``     decisions of the compiled engine without observations: 64 hands, each step the legal
                            masks, a random legal action per hand, the kernel's step, the money and new deals
``scoring/<variant>``       ``envs.scoring.scorer.score_win`` calls on complete hands (红中: 1-2 wildcards)
``hand/<fn>``               ``envs.scoring.shanten`` calls (``is_winning`` on 14 tiles, ``shanten`` on 13) and the
``mahjong``
                            package's ``Agari.is_agari`` / ``Shanten.calculate_shanten`` on the same hands
``train/<vec>``             environment samples per second of ``MaskablePPO.learn`` on ``chengdu`` (rollouts + updates,
                            MlpPolicy 64x64, 8 envs, torch on one thread) with ``VectorEnv`` (``batched``), the
                            compiled ``CompiledVectorEnv`` (``compiled``), ``DummyVecEnv(SingleAgentEnv)``
                            (``dummy``) or the same on the compiled engine (``dummy_compiled``)
``rlcard_mahjong``          ``rlcard.make("mahjong")`` steps (each step: one decision and the next state)
==========================  =========================================================================================

Goals (ratios of medians, same run): engine decisions/s >= 20x RLCard steps/s; raw AEC >= 4x; wrapped AEC >= 2x;
batched env (self-play decisions/s) >= 50x — each for both engines (``engine``, ``engine_compiled``; ``aec_raw``,
``aec_compiled_raw``; ``aec_wrapped``, ``aec_compiled_wrapped``; ``batched_selfplay``, ``batched_compiled``).

Usage: ``python benchmarks/run_all.py [--repeat 5] [--quick] [--variants ...] [--only engine aec_raw ...]
[--no-training] [--out PATH]``.
Prints the JSON report, writes the markdown report to ``--out`` and the JSON next to it (``.json``).  Without
``--out``, a full run (every case of every preset, the standard sizes) writes the tracked ``benchmarks/RESULTS.md``
and a quick or partial run (``--quick``, ``--only``, ``--variants``, ``--no-training``) writes
``runs/benchmarks/RESULTS.md`` (untracked), so a smoke run never replaces the published figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.core.rule_config import ENGINE_PRESETS, load_variant  # noqa: E402
from envs.engine.game import Game  # noqa: E402

VARIANTS = ENGINE_PRESETS  # every preset the engine plays
GOALS = {
    "engine": 20.0,
    "engine_compiled": 20.0,
    "aec_raw": 4.0,
    "aec_wrapped": 2.0,
    "aec_compiled_raw": 4.0,
    "aec_compiled_wrapped": 2.0,
    "batched_selfplay": 50.0,
    "batched_compiled": 50.0,
}

Case = Callable[[int], tuple[float, float]]  # rep -> (units, cpu seconds)

PUBLISHED_OUT = ROOT / "benchmarks" / "RESULTS.md"  # the tracked report of the latest full run
SCRATCH_OUT = ROOT / "runs" / "benchmarks" / "RESULTS.md"  # quick and partial runs (runs/ is not tracked)


def is_full_run(args: argparse.Namespace) -> bool:
    """Whether a run measures every case of every preset at the standard sizes (what the tracked report holds)."""
    return not args.quick and args.only is None and not args.no_training and list(args.variants) == list(VARIANTS)


def default_out(args: argparse.Namespace) -> Path:
    """Where the report goes without ``--out``: the tracked report for a full run, else the scratch one."""
    return PUBLISHED_OUT if is_full_run(args) else SCRATCH_OUT


# ---- our engine and environments ------------------------------------------------------------------------------------
def engine_case(variant: str, hands: int) -> Case:
    cfg = load_variant(variant)

    def run(rep: int) -> tuple[float, float]:
        steps = 0
        t0 = time.process_time()
        for h in range(hands):
            seed = rep * 100_000 + h
            rng = random.Random(seed)
            g = Game(cfg, seed=seed, record_events=False)
            while not g.is_over:
                seat = g.pending[0]
                g.step(seat, rng.choice(g.legal_actions(seat)))
                steps += 1
        return steps, time.process_time() - t0

    run.hands = hands  # type: ignore[attr-defined]
    return run


def aec_case(variant: str, decisions: int, wrapped: bool, engine: str = "python") -> Case:
    from bench_aec import play_random

    from envs import sichuan_mahjong_v0

    make = sichuan_mahjong_v0.env if wrapped else sichuan_mahjong_v0.raw_env
    env = make(variant=variant, engine=engine)

    def run(rep: int) -> tuple[float, float]:
        env.reset(seed=rep)
        t0 = time.process_time()
        play_random(env, decisions, np.random.default_rng(rep))
        return decisions, time.process_time() - t0

    return run


def batched_case(variant: str, steps: int, self_play: bool, num_envs: int = 64, engine: str = "python") -> Case:
    from envs.vector_env import make_vec_env

    venv = make_vec_env(variant, num_envs, seed=0, self_play=self_play, engine=engine)
    venv.reset()

    def run(rep: int) -> tuple[float, float]:
        rng = np.random.default_rng(rep)
        t0 = time.process_time()
        for _ in range(steps):
            venv.step(venv.sample_actions(rng))  # a uniformly random legal action per slot
        return steps * num_envs, time.process_time() - t0

    return run


def compiled_engine_case(variant: str, steps: int, num_envs: int = 64) -> Case:
    """The compiled engine alone: legal masks, a random legal action and one kernel step per hand, the ledger's
    money and the next deals of the hands that ended (the compiled ``VectorEnv``'s backend calls without its
    observations)."""
    from envs.vector_env import make_vec_env

    venv = make_vec_env(variant, num_envs, seed=0, self_play=True, engine="compiled")
    venv.reset()
    backend = venv.backend
    rows = np.arange(num_envs, dtype=np.int64)
    seats = np.zeros(num_envs, dtype=np.int64)
    masks = np.zeros((num_envs, 183), dtype=np.int8)

    def run(rep: int) -> tuple[float, float]:
        rng = np.random.default_rng(rep)
        t0 = time.process_time()
        for _ in range(steps):
            backend.acting_seats(rows, seats)
            backend.masks(rows, seats, masks)
            actions = backend.pick_legal(masks, rng.random(num_envs))  # what sample_actions does
            backend.step(rows, seats, actions)
            for i in np.flatnonzero(backend.over()).tolist():
                venv._new_hand(i, None)
        return steps * num_envs, time.process_time() - t0

    return run


def _complete_hand(rng: random.Random, suits: tuple[int, int]) -> list[int]:
    while True:
        tiles: list[int] = []
        for _ in range(4):
            s = rng.choice(suits)
            r = rng.randrange(9)
            tiles += [s * 9 + r] * 3 if r > 6 or rng.random() < 0.3 else [s * 9 + r, s * 9 + r + 1, s * 9 + r + 2]
        p = rng.choice(suits) * 9 + rng.randrange(9)
        tiles += [p, p]
        if max(tiles.count(k) for k in set(tiles)) <= 4:
            return tiles


def scoring_case(variant: str, calls: int) -> Case:
    from envs.core.tiles import RED
    from envs.scoring.scorer import WinContext, score_win

    cfg = load_variant(variant)
    rng = random.Random(7)
    contexts = []
    while len(contexts) < calls:
        suits = tuple(rng.sample(range(3), 2))
        tiles = _complete_hand(rng, suits)  # type: ignore[arg-type]
        counts = [0] * 34
        for k in tiles:
            counts[k] += 1
        win = rng.choice(tiles)
        if cfg.wild == "hongzhong":
            for _ in range(rng.randrange(1, 3)):
                k = rng.choice([t for t in range(27) if counts[t] and t != win])
                counts[k] -= 1
                counts[RED] += 1
        void = ({0, 1, 2} - set(suits)).pop()
        contexts.append(WinContext(tuple(counts), win, void_suit=void, self_drawn=rng.random() < 0.5))

    def run(rep: int) -> tuple[float, float]:
        t0 = time.process_time()
        for ctx in contexts:
            score_win(cfg, ctx)
        return len(contexts), time.process_time() - t0

    return run


def _hand_sample(n: int, size: int, seed: int = 0) -> list[list[int]]:
    """Half uniformly random suited hands, half near-complete ones (0-3 tiles swapped), as 34-count lists."""
    rng = random.Random(seed)
    wall = [k for k in range(27) for _ in range(4)]
    out = []
    while len(out) < n:
        if len(out) % 2:
            tiles = _complete_hand(rng, tuple(rng.sample(range(3), 2)))  # type: ignore[arg-type]
            for _ in range(rng.randrange(4)):
                tiles[rng.randrange(14)] = rng.randrange(27)
        else:
            tiles = rng.sample(wall, 14)
        tiles = tiles[:size]
        counts = [0] * 34
        for k in tiles:
            counts[k] += 1
        if max(counts) <= 4:
            out.append(counts)
    return out


def hand_cases(calls: int) -> dict[str, Case]:
    from envs.scoring.shanten import is_winning, shanten

    wins, ready = _hand_sample(calls, 14), _hand_sample(calls, 13, seed=1)

    def timed(fn: Callable, hands: list) -> Case:
        def run(rep: int) -> tuple[float, float]:
            t0 = time.process_time()
            for h in hands:
                fn(h)
            return len(hands), time.process_time() - t0

        return run

    cases = {"hand/is_winning": timed(is_winning, wins), "hand/shanten": timed(shanten, ready)}
    try:
        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError:
        return cases
    agari, sh = Agari(), Shanten()
    cases["mahjong/is_agari"] = timed(agari.is_agari, wins)
    cases["mahjong/calculate_shanten"] = timed(sh.calculate_shanten, ready)
    return cases


def rlcard_case(steps: int) -> Case | str:
    try:
        import rlcard
    except ImportError:
        return "rlcard is not installed (pip install 'chuanma[bench]')"
    env = rlcard.make("mahjong", config={"seed": 0})

    def run(rep: int) -> tuple[float, float]:
        rng = np.random.default_rng(rep)
        state, _ = env.reset()
        done = 0
        t0 = time.process_time()
        while done < steps:
            if env.is_over():
                state, _ = env.reset()
                continue
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.integers(len(legal))])
            done += 1
        return done, time.process_time() - t0

    return run


def training_cases(variant: str, timesteps: int) -> dict[str, Case] | str:
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError:
        return "stable-baselines3 / sb3-contrib are not installed (pip install 'chuanma[train]')"
    from envs.compiled.support import unsupported
    from envs.single_agent import SingleAgentEnv
    from envs.vector_env import ENGINES, make_vec_env

    torch.set_num_threads(1)
    num_envs = 8

    def make(kind: str):
        if kind in ENGINES:
            return make_vec_env(variant, num_envs, seed=0, reward_scale=0.05, engine=kind)
        engine = "compiled" if kind == "dummy_compiled" else "python"
        env = DummyVecEnv(
            [lambda: SingleAgentEnv(variant, reward_scale=0.05, engine=engine, match=False) for _ in range(num_envs)]
        )
        env.seed(0)
        return env

    def case(kind: str) -> Case:
        def run(rep: int) -> tuple[float, float]:
            model = MaskablePPO(
                "MlpPolicy",
                make(kind),
                n_steps=timesteps // num_envs,
                batch_size=256,
                n_epochs=1,
                seed=rep,
                device="cpu",
                policy_kwargs={"net_arch": [64, 64]},
            )
            t0 = time.process_time()
            model.learn(total_timesteps=timesteps)
            return model.num_timesteps, time.process_time() - t0

        return run

    out = {"train/batched": case("python"), "train/dummy": case("dummy")}
    if not unsupported(load_variant(variant)):
        out["train/compiled"] = case("compiled")
        out["train/dummy_compiled"] = case("dummy_compiled")
    return out


# ---- harness --------------------------------------------------------------------------------------------------------
def run_rounds(cases: dict[str, Case], repeat: int, log: Callable[[str], None]) -> dict[str, list[float]]:
    """``repeat`` rounds; in each, every case runs once (rotating order).  One warm-up call per case first."""
    names = list(cases)
    if not names:
        return {}
    for name in names:
        cases[name](repeat)  # warm-up, with seeds no measured repetition uses
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            units, seconds = cases[name](r)
            rates[name].append(units / max(seconds, 1e-9))
        log(f"round {r + 1}/{repeat} done")
    return rates


def summarise(rates: list[float]) -> dict[str, float]:
    med = statistics.median(rates)
    return {
        "median": round(med, 1),
        "min": round(min(rates), 1),
        "max": round(max(rates), 1),
        "spread_pct": round(100 * (max(rates) - min(rates)) / med, 1) if med else 0.0,
        "n": len(rates),
    }


def machine_info() -> dict[str, object]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info: dict[str, object] = {"python": platform.python_version(), "cpu": cpu, "cores": os.cpu_count()}
    if hasattr(os, "getloadavg"):
        info["load_average_at_start"] = [round(x, 2) for x in os.getloadavg()]
    for pkg in ("numpy", "pettingzoo", "stable_baselines3", "sb3_contrib", "torch", "rlcard", "mahjong"):
        try:
            module = __import__(pkg)
            info[pkg] = getattr(module, "__version__", "?")
        except ImportError:
            info[pkg] = None
    return info


def build_report(
    args: argparse.Namespace,
    rates: dict[str, list[float]],
    stats: dict[str, dict],
    skipped: dict[str, str],
    extra: dict,
) -> dict:
    rl = stats.get("rlcard_mahjong", {}).get("median")
    ratios: dict[str, dict] = {}
    if rl:
        for kind, goal in GOALS.items():
            for name, s in stats.items():
                if name.startswith(kind + "/"):
                    ratio = s["median"] / rl
                    ratios[name] = {"ratio": round(ratio, 2), "goal": goal, "met": ratio >= goal}
        # the wrappers' own cost per decision (median of the per-round differences, raw and wrapped ran in the
        # same round), next to RLCard's whole step
        for v in args.variants:
            raw, wrapped = rates.get(f"aec_raw/{v}"), rates.get(f"aec_wrapped/{v}")
            if raw and wrapped:
                diffs = [1e6 / w - 1e6 / r for r, w in zip(raw, wrapped)]
                extra.setdefault("wrapper_overhead_us", {})[v] = round(statistics.median(diffs), 1)
        extra["rlcard_step_us"] = round(1e6 / rl, 1)
    for a, b in (("hand/is_winning", "mahjong/is_agari"), ("hand/shanten", "mahjong/calculate_shanten")):
        if a in stats and b in stats:
            extra.setdefault("hand_vs_mahjong", {})[a] = round(stats[a]["median"] / stats[b]["median"], 2)
    for kind in ("batched", "compiled", "dummy_compiled"):
        if f"train/{kind}" in stats and "train/dummy" in stats:
            extra.setdefault("train_speedup", {})[kind] = round(
                stats[f"train/{kind}"]["median"] / stats["train/dummy"]["median"], 2
            )
    return {
        "benchmark": "run_all",
        "repeat": args.repeat,
        "quick": args.quick,
        "machine": machine_info(),
        "rates": stats,
        "goal_ratios_vs_rlcard": ratios,
        "derived": extra,
        "skipped": skipped,
    }


def markdown(report: dict) -> str:
    stats, ratios, derived = report["rates"], report["goal_ratios_vs_rlcard"], report["derived"]
    m = report["machine"]
    lines = [
        "# Benchmark results",
        "",
        f"`python benchmarks/run_all.py{' --quick' if report['quick'] else ''} --repeat {report['repeat']}` — "
        f"{m['cpu']}, {m['cores']} cores, Python {m['python']}; load average at start "
        f"{m.get('load_average_at_start')} (other processes were running: CPU-time rates, one core).",
        "",
        "Rates are per CPU second of the benchmark process; median of the repetitions and the min-max spread.",
        "",
        "| case | unit | median /s | min | max | spread | vs RLCard | goal |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    units = {
        "engine": "decisions",
        "aec_raw": "decisions",
        "aec_wrapped": "decisions",
        "aec_compiled_raw": "decisions",
        "aec_compiled_wrapped": "decisions",
        "batched_selfplay": "decisions",
        "batched_learner": "learner steps",
        "batched_compiled": "decisions",
        "batched_compiled_learner": "learner steps",
        "engine_compiled": "decisions",
        "scoring": "score_win calls",
        "hand": "calls",
        "mahjong": "calls",
        "train": "samples",
        "rlcard_mahjong": "steps",
    }
    for name, s in stats.items():
        kind = name.split("/")[0]
        r = ratios.get(name)
        goal = f"{r['goal']:g}x: {'met' if r['met'] else 'NOT met'}" if r else ""
        vs = f"{r['ratio']:.1f}x" if r else ""
        lines.append(
            f"| {name} | {units.get(kind, '')} | {s['median']:,.0f} | {s['min']:,.0f} | {s['max']:,.0f} | "
            f"{s['spread_pct']:.0f}% | {vs} | {goal} |"
        )
    if "engine_hands_per_s" in derived:
        lines += ["", "Engine hands per second (median): " + ", ".join(
            f"{v} {h:,.1f}" for v, h in derived["engine_hands_per_s"].items()
        )]  # fmt: skip
    if "wrapper_overhead_us" in derived:
        lines += [
            "",
            f"PettingZoo wrapper cost per decision (wrapped - raw, µs): {derived['wrapper_overhead_us']}; "
            f"one RLCard step: {derived['rlcard_step_us']} µs.",
        ]
    if "hand_vs_mahjong" in derived:
        lines += ["", f"envs.scoring.shanten vs the mahjong package (speed ratio): {derived['hand_vs_mahjong']}"]
    if "train_speedup" in derived:
        lines += [
            "",
            "MaskablePPO samples/s over DummyVecEnv(SingleAgentEnv) (batched: VectorEnv, compiled: CompiledVectorEnv, "
            f"dummy_compiled: DummyVecEnv(SingleAgentEnv(engine='compiled'))): "
            f"{derived['train_speedup']}",
        ]
    if report["skipped"]:
        lines += ["", "Skipped: " + "; ".join(f"{k}: {v}" for k, v in report["skipped"].items())]
    met = [n for n, r in ratios.items() if r["met"]]
    missed = [n for n, r in ratios.items() if not r["met"]]
    lines += ["", f"Goals met: {', '.join(met) or 'none'}.", f"Goals not met: {', '.join(missed) or 'none'}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="repetitions per case (median and spread over them)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run, about a minute)")
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS))
    ap.add_argument("--no-training", action="store_true", help="skip the MaskablePPO samples/s cases")
    ap.add_argument("--only", nargs="*", default=None, help="run only the cases whose names start with these")
    ap.add_argument(
        "--out",
        default=None,
        help="markdown report, the JSON beside it ('' = none; default: benchmarks/RESULTS.md for a full run, "
        "runs/benchmarks/RESULTS.md for a quick or partial one)",
    )
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = str(default_out(args))
    q = args.quick
    log = (lambda msg: print(msg, file=sys.stderr, flush=True)) if sys.stderr else (lambda msg: None)

    if args.out:  # before measuring: a report that cannot be written would lose the whole run
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    cases: dict[str, Case] = {}
    skipped: dict[str, str] = {}

    def want(name: str) -> bool:
        return args.only is None or name.startswith(tuple(args.only)) or any(p.startswith(name) for p in args.only)

    for v in args.variants:
        if want(f"engine/{v}"):
            cases[f"engine/{v}"] = engine_case(v, 8 if q else 30)
    if want("aec"):
        try:
            import pettingzoo  # noqa: F401
        except ImportError:
            skipped["aec"] = "pettingzoo is not installed"
        else:
            for v in args.variants:
                for kind, wrapped in (("aec_raw", False), ("aec_wrapped", True)):
                    if want(f"{kind}/{v}"):
                        cases[f"{kind}/{v}"] = aec_case(v, 500 if q else 2500, wrapped=wrapped)
            for v in args.variants:
                if _compiled_unsupported(v):
                    continue
                for kind, wrapped in (("aec_compiled_raw", False), ("aec_compiled_wrapped", True)):
                    if want(f"{kind}/{v}"):
                        cases[f"{kind}/{v}"] = aec_case(v, 1000 if q else 8000, wrapped=wrapped, engine="compiled")
    for v in args.variants:
        if want(f"batched_selfplay/{v}"):
            cases[f"batched_selfplay/{v}"] = batched_case(v, 8 if q else 40, self_play=True)
        if want(f"batched_learner/{v}"):
            cases[f"batched_learner/{v}"] = batched_case(v, 4 if q else 20, self_play=False)
    compiled = [v for v in args.variants if not _compiled_unsupported(v)]
    for v in compiled:
        if want(f"engine_compiled/{v}"):
            cases[f"engine_compiled/{v}"] = compiled_engine_case(v, 40 if q else 400)
        if want(f"batched_compiled/{v}"):
            cases[f"batched_compiled/{v}"] = batched_case(v, 40 if q else 400, self_play=True, engine="compiled")
        if want(f"batched_compiled_learner/{v}"):
            cases[f"batched_compiled_learner/{v}"] = batched_case(
                v, 20 if q else 200, self_play=False, engine="compiled"
            )
    for v in ("chengdu", "hongzhong"):
        if want(f"scoring/{v}"):
            cases[f"scoring/{v}"] = scoring_case(v, 300 if q else 1500)
    if want("hand") or want("mahjong"):
        cases.update({k: c for k, c in hand_cases(1000 if q else 5000).items() if want(k)})
    if want("rlcard_mahjong"):
        rl = rlcard_case(500 if q else 2500)
        if isinstance(rl, str):
            skipped["rlcard_mahjong"] = rl
        else:
            cases["rlcard_mahjong"] = rl
    from envs.scoring.shanten import shanten

    shanten([1] * 13 + [0] * 21)  # build the shared hand tables now, not inside the first case that needs them
    log(f"{len(cases)} cases x {args.repeat} rounds")
    rates = run_rounds(cases, args.repeat, log)
    if not args.no_training and want("train"):
        train = training_cases("chengdu", 512 if q else 2048)
        if isinstance(train, str):
            skipped["train"] = train
        else:
            rates.update(run_rounds({k: c for k, c in train.items() if want(k)}, max(1, min(args.repeat, 3)), log))
    stats = {name: summarise(r) for name, r in rates.items()}
    extra: dict = {}
    hands = {}
    for v in args.variants:
        s = stats.get(f"engine/{v}")
        if s:
            # hands/s from the same runs: decisions/s divided by the mean decisions per hand of the sample
            per_hand = _decisions_per_hand(v, 8 if q else 30)
            hands[v] = round(s["median"] / per_hand, 1)
    extra["engine_hands_per_s"] = hands
    report = build_report(args, rates, stats, skipped, extra)
    print(json.dumps(report, indent=2))
    if args.out:
        out = Path(args.out)
        out.write_text(markdown(report))
        out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
        log(f"wrote {out} and {out.with_suffix('.json')}")
    return report


def _compiled_unsupported(variant: str) -> bool:
    try:
        from envs.compiled.support import unsupported
    except ImportError:  # numba is not installed
        return True
    return bool(unsupported(load_variant(variant)))


def _decisions_per_hand(variant: str, hands: int) -> float:
    """Mean decisions per hand of the engine case's hands (repetition 0's seeds)."""
    cfg = load_variant(variant)
    steps = 0
    for h in range(hands):
        rng = random.Random(h)
        g = Game(cfg, seed=h, record_events=False)
        while not g.is_over:
            seat = g.pending[0]
            g.step(seat, rng.choice(g.legal_actions(seat)))
            steps += 1
    return steps / hands


if __name__ == "__main__":
    main()
