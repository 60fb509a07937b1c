"""``chuanma compile``: compile the numba engine ahead of its first use (预编译).

The compiled engine (:mod:`envs.compiled`) is compiled by numba the first time it runs after an install or a change
of its sources, and cached on disk for every later process (:mod:`envs.compiled._cache`).  That first use takes
minutes of one CPU core.  ``chuanma compile`` pays it up front, for example while building a container image or
before starting several worker processes that would otherwise each compile the same functions at once: it plays a
few decisions of every rule preset through the entry points the environments call (the AEC environment's table and
the batched environment's batch), which compiles them or loads them from the cache, and reports which it was.

``bash dev.sh test`` runs it in the background while the linters run, so the test workers start from the cache.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from envs.compiled import kernel as K
from envs.compiled._cache import is_cached
from envs.compiled.encode import encode_row
from envs.core.rule_config import PRESETS


@dataclass(frozen=True)
class CompileReport:
    """What :func:`compile_engine` did: seconds spent, whether every entry point of the engine (``was_cached``) and
    of the compiled agents (``agents_were_cached``) was cached before, presets played."""

    seconds: float
    was_cached: bool
    presets: tuple[str, ...]
    agents_were_cached: bool

    def line(self) -> str:
        def how(cached: bool) -> str:
            return "loaded from the on-disk cache" if cached else "compiled and cached"

        return (
            f"compiled engine {how(self.was_cached)}, compiled agents {how(self.agents_were_cached)}, "
            f"in {self.seconds:.1f} s ({len(self.presets)} preset{'' if len(self.presets) == 1 else 's'} played)"
        )


def _entry_points() -> tuple[object, ...]:
    from envs.compiled import batch

    return (K.deal, K.apply_action, K.legal_mask, encode_row, batch.step_rows, batch.masks_rows, batch.observe_rows)


def _agent_entry_points() -> tuple[object, ...]:
    from agents.compiled import hand_features, value, value_plans

    return (value._act_rows, value_plans._fill_rows, hand_features._planes)


def agents_cached() -> bool:
    """Whether every entry point of the compiled agents (the baselines, the hand-feature planes) is compiled in this
    process or cached on disk."""
    return all(is_cached(d) for d in _agent_entry_points())


def engine_cached() -> bool:
    """Whether every entry point of the compiled engine is compiled in this process or cached on disk (so that the
    first use costs no compilation)."""
    return all(is_cached(d) for d in _entry_points())


_NUMBA_AGENTS = ("greedy", "value", "defensive")
"""The compiled baselines with numba code of their own (the arbiter plays the compiled value and defensive)."""


def compile_engine(presets: tuple[str, ...] = tuple(PRESETS), decisions: int = 64) -> CompileReport:
    """Compile (or load) the compiled engine's entry points by playing ``decisions`` random legal decisions of every
    preset in ``presets`` in the AEC environment and in a two-table batched environment (self-play mode, and the
    learner mode with random opponents), both on the compiled engine, and the compiled hand-feature planes of the
    agents (:class:`agents.compiled.hand_features.BatchHandFeatures`) and the compiled baselines
    (:func:`agents.compiled.make_batch_agent`) on the positions of the self-play tables."""
    from agents.compiled import make_batch_agent
    from agents.compiled.hand_features import BatchHandFeatures
    from envs import sichuan_mahjong_v0
    from envs.vector_env import make_vec_env

    unknown = sorted(set(presets) - set(PRESETS))
    if unknown:
        raise ValueError(f"unknown presets {unknown}; the presets are {sorted(PRESETS)}")
    if decisions < 1:
        raise ValueError(f"decisions must be at least 1, got {decisions}")
    start = time.perf_counter()
    was_cached = engine_cached()
    agents_were_cached = agents_cached()
    rng = np.random.default_rng(0)
    for name in presets:
        env = sichuan_mahjong_v0.env(variant=name, engine="compiled")
        env.reset(seed=0)
        for _ in range(decisions):
            if not env.agents:
                env.reset()
            obs, _, terminated, truncated, _ = env.last()
            ids = np.flatnonzero(obs["action_mask"])
            env.step(None if terminated or truncated else int(ids[rng.integers(ids.size)]))
        env.close()
        for self_play in (False, True):
            venv = make_vec_env(name, 2, engine="compiled", seed=0, self_play=self_play)
            obs = venv.reset()
            for _ in range(decisions):
                masks = venv.action_masks()
                obs, *_ = venv.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in masks]))
            if self_play:
                BatchHandFeatures(name).planes(obs)
                for agent in _NUMBA_AGENTS:  # numba compiles a whole function at once
                    make_batch_agent(agent, name).act_batch(obs, venv.action_masks())
            venv.close()
    return CompileReport(time.perf_counter() - start, was_cached, tuple(presets), agents_were_cached)


def register_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``compile`` subcommand to a ``chuanma`` argument parser."""
    p = subparsers.add_parser(
        "compile",
        help="compile the numba engine now (first use after an install takes minutes; then it is cached)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--variant", action="append", default=None, help="a preset to play (repeatable; default: all)")
    p.set_defaults(func=_run_cli)
    return p


def _run_cli(args: argparse.Namespace) -> int:
    report = compile_engine(tuple(args.variant) if args.variant else tuple(PRESETS))
    print(report.line())
    return 0
