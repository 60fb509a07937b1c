"""Fitting the arbiter's gate (仲裁门控拟合) from rollout pairs on the compiled engine.

:func:`rollout_pairs` plays ``value`` self-play hands, ``tables`` at a time.  At every decision where ``value`` and
``defensive`` would discard different tiles (as long as ``branches`` spare tables are free), the table is copied twice,
one copy plays ``value``'s discard and the other ``defensive``'s, and both are played to the end with ``value`` in
every seat, on the same wall: the pair's *advantage* is the deciding seat's final points in the second copy minus
the first (base units), an unbiased sample of the one-step advantage of ``defensive``'s discard (the hidden tiles
are the true ones, a draw from their posterior).  The main hand goes on with ``value``'s action, so the first copy
ends as the main hand does.

:func:`fit_gate` fits :class:`agents.arbiter.Gate` by ridge regression of the advantages on
:func:`agents.arbiter.gate_features` (standardised), measures the one-step gain of the fitted gate on a held-out
share of the pairs (``fit["heldout_gain"]``: the mean over held-out pairs of the advantage where the gate picks
``defensive`` and 0 elsewhere, with its standard error), then refits on every pair.  ``chuanma arbiter`` runs
both and writes the gate file; training/RESULTS.md has the measured runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm.auto import tqdm

from envs.core.actions import ACTION_SPACE_SIZE, DISCARD_BASE
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS
from envs.engine.observation import OBS_SHAPE

if TYPE_CHECKING:  # the agents and the compiled engine load when a function runs (``chuanma --help`` stays quick)
    from agents.arbiter import Gate

__all__ = ["RolloutPairs", "fit_gate", "register_cli", "rollout_pairs"]


@dataclass(frozen=True)
class RolloutPairs:
    """Disagreements of ``value`` and ``defensive`` with the advantage of ``defensive``'s discard (base units)."""

    observations: np.ndarray  # (n, 106, 34) float16: the deciding seat's observation
    value_tiles: np.ndarray  # (n,) int64
    defensive_tiles: np.ndarray  # (n,) int64
    advantages: np.ndarray  # (n,) float64
    value_finals: np.ndarray  # (n,) int64: the deciding seat's final points after value's discard
    main_finals: np.ndarray  # (n,) int64: the same seat's final points in the main hand
    hands: int  # main hands finished

    def __len__(self) -> int:
        return int(self.advantages.shape[0])


def _seeds(seed: int):
    seq = np.random.SeedSequence([seed, 0xA7B1])
    while True:
        yield int(seq.spawn(1)[0].generate_state(1)[0])


def rollout_pairs(
    variant: str | RuleConfig,
    pairs: int,
    seed: int,
    *,
    tables: int = 128,
    branches: int = 768,
    progress: bool = False,
) -> RolloutPairs:
    """``pairs`` rollout pairs from ``value`` self-play hands dealt from ``seed`` (module docstring)."""
    from envs.compiled.backend import CompiledBatch
    from training.evaluation.fast import batch_agent

    for name, v in (("pairs", pairs), ("tables", tables), ("branches", branches)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if branches < 2:
        raise ValueError("branches must be at least 2 (a pair plays two tables)")
    rules = load_variant(variant)
    main = CompiledBatch(rules, tables)  # the compiled engine: a table is one state row and its ledger
    br = CompiledBatch(rules, branches)
    value = batch_agent("value", rules)
    defensive = batch_agent("defensive", rules)
    walls = _seeds(seed)
    live = np.zeros(tables, dtype=bool)
    pair_of_main: list[list[int]] = [[] for _ in range(tables)]  # pairs started in the main hand now in slot i

    def deal(i: int) -> None:
        while True:
            main.deal(i, next(walls))
            if not main.is_over(i):
                live[i] = True
                return

    for i in range(tables):
        deal(i)
    free = list(range(branches))[::-1]
    owner = np.full(branches, -1, dtype=np.int64)  # branch slot -> pair
    role = np.zeros(branches, dtype=np.int64)  # branch slot -> 0: plays value's discard, 1: defensive's
    seat_of: list[int] = []
    obs_rec = np.empty((pairs, *OBS_SHAPE), dtype=np.float16)  # untouched pages cost nothing
    tiles_rec: list[tuple[int, int]] = []
    finals: list[list[int | None]] = []  # the seat's final points: [value copy, defensive copy, main hand]
    obs = np.zeros((tables, *OBS_SHAPE), dtype=np.float32)
    masks = np.zeros((tables, ACTION_SPACE_SIZE), dtype=np.int8)
    seats = np.zeros(tables, dtype=np.int64)
    b_obs = np.zeros((branches, *OBS_SHAPE), dtype=np.float32)
    b_masks = np.zeros((branches, ACTION_SPACE_SIZE), dtype=np.int8)
    b_seats = np.zeros(branches, dtype=np.int64)
    b_live = np.zeros(branches, dtype=bool)
    started = complete = hands = 0
    bar = tqdm(total=pairs, desc="rollout pairs", unit="pair", disable=not progress, leave=False)
    while complete < pairs or any(pair_of_main):  # (the main hands of the last pairs end too)
        rows = np.flatnonzero(live)
        if rows.size:
            main.observe_next(rows, seats, True, obs, masks)
            r_obs, r_masks, r_seats = obs[rows], masks[rows], seats[rows]
            va = value.act(r_obs, r_masks, rows, r_seats)
            choice = np.flatnonzero(r_masks.sum(axis=1) > 1)
            if choice.size and started < pairs:
                da = defensive.act(r_obs[choice], r_masks[choice], rows[choice], r_seats[choice])
                for j, d in zip(choice.tolist(), da.tolist()):
                    v = int(va[j])
                    if v == d or not (DISCARD_BASE <= v < DISCARD_BASE + NUM_KINDS):
                        continue
                    if not (DISCARD_BASE <= d < DISCARD_BASE + NUM_KINDS) or len(free) < 2 or started >= pairs:
                        continue
                    i, q = int(rows[j]), int(r_seats[j])
                    pid = started
                    started += 1
                    for r, action in enumerate((v, d)):
                        slot = free.pop()  # a copy of the table: its state row and its ledger
                        br.copy_hand(main, i, slot)
                        br.step(np.array([slot]), np.array([q]), np.array([action]))
                        owner[slot] = pid
                        role[slot] = r
                        b_live[slot] = True
                    seat_of.append(q)
                    obs_rec[pid] = obs[i]
                    tiles_rec.append((v - DISCARD_BASE, d - DISCARD_BASE))
                    finals.append([None, None, None])
                    pair_of_main[i].append(pid)
            main.step(rows, r_seats, va)
            over = main.over()
            for i in rows[over[rows]].tolist():
                scores = main.scores(i)
                for pid in pair_of_main[i]:
                    finals[pid][2] = scores[seat_of[pid]]
                pair_of_main[i] = []
                hands += 1
                live[i] = False
                if started < pairs:
                    deal(i)
        b_rows = np.flatnonzero(b_live)
        if b_rows.size:
            over = br.over()
            for slot in b_rows[over[b_rows]].tolist():
                pid = int(owner[slot])
                f = finals[pid]
                f[role[slot]] = br.scores(slot)[seat_of[pid]]
                b_live[slot] = False
                owner[slot] = -1
                free.append(slot)
                if f[0] is not None and f[1] is not None:
                    complete += 1
                    bar.update(1)
            b_rows = b_rows[~over[b_rows]]
            if b_rows.size:
                br.observe_next(b_rows, b_seats, True, b_obs, b_masks)
                actions = value.act(b_obs[b_rows], b_masks[b_rows], b_rows, b_seats[b_rows])
                br.step(b_rows, b_seats[b_rows], actions)
        elif not rows.size:
            break
    bar.close()
    value_finals = np.asarray([f[0] for f in finals], dtype=np.int64)
    defensive_finals = np.asarray([f[1] for f in finals], dtype=np.int64)
    tiles = np.asarray(tiles_rec, dtype=np.int64).reshape(-1, 2)
    return RolloutPairs(
        observations=obs_rec[:started],
        value_tiles=tiles[:, 0],
        defensive_tiles=tiles[:, 1],
        advantages=(defensive_finals - value_finals) / float(rules.base_unit),
        value_finals=value_finals,
        main_finals=np.asarray([f[2] for f in finals], dtype=np.int64),
        hands=hands,
    )


def fit_gate(
    data: RolloutPairs, variant: str | RuleConfig, *, ridge: float = 10.0, holdout: float = 0.3, seed: int = 0
) -> Gate:
    """The gate of ``data`` (module docstring): ridge regression with strength ``ridge`` on standardised features;
    ``holdout``: the share of pairs held out to measure the fitted gate's one-step gain before the final fit."""
    from agents.arbiter import Gate, gate_features

    rules = load_variant(variant)
    if len(data) < 10:
        raise ValueError(f"a gate needs at least 10 rollout pairs, got {len(data)}")
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must be in (0, 1), got {holdout!r}")
    if not np.isfinite(ridge) or ridge < 0:
        raise ValueError(f"ridge must be a non-negative number, got {ridge!r}")
    step = 50_000  # the features of a slice of pairs at a time (the observations are read as float32)
    x = np.concatenate([
        gate_features(data.observations[k : k + step], data.value_tiles[k : k + step],
                      data.defensive_tiles[k : k + step])
        for k in range(0, len(data), step)
    ])  # fmt: skip
    y = np.asarray(data.advantages, dtype=np.float64)

    def solve(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mean = x[idx].mean(axis=0)
        scale = x[idx].std(axis=0)
        scale[scale <= 1e-9] = 1.0  # a constant feature (honors in a game without them)
        z = np.concatenate([np.ones((idx.size, 1)), (x[idx] - mean) / scale], axis=1)
        reg = ridge * np.eye(z.shape[1])
        reg[0, 0] = 0.0  # the bias is not shrunk
        return np.linalg.solve(z.T @ z + reg, z.T @ y[idx]), mean, scale

    order = np.random.default_rng([seed, 0x6A7E]).permutation(len(y))
    cut = round((1.0 - holdout) * len(y))
    train, test = order[:cut], order[cut:]
    w, mean, scale = solve(train)
    estimate = w[0] + ((x[test] - mean) / scale) @ w[1:]
    gain = np.where(estimate > 0.0, y[test], 0.0)
    w, mean, scale = solve(np.arange(len(y)))
    return Gate(
        variant=rules.name,
        bias=float(w[0]),
        weights=tuple(float(v) for v in w[1:]),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        margin=0.0,
        fit={
            "pairs": len(y),
            "hands": data.hands,
            "ridge": ridge,
            "mean_advantage": float(y.mean()),
            "heldout_pairs": int(test.size),
            "heldout_gain": float(gain.mean()),
            "heldout_gain_se": float(gain.std() / np.sqrt(test.size)),
            "heldout_defensive_share": float((estimate > 0.0).mean()),
        },
    )


def _cmd_arbiter(args: argparse.Namespace) -> int:
    t = time.perf_counter()
    data = rollout_pairs(args.variant, args.pairs, args.seed, progress=not args.quiet)
    gate = fit_gate(data, args.variant, ridge=args.ridge)
    gate = replace(gate, fit={**gate.fit, "seed": args.seed, "seconds": round(time.perf_counter() - t, 1)})
    gate.save(args.out)
    f = gate.fit
    print(
        f"{args.variant}: {f['pairs']} rollout pairs from {f['hands']} hands in {f['seconds']:.0f} s; mean advantage "
        f"of defensive's discard {f['mean_advantage']:+.4f}; held-out one-step gain of the gate "
        f"{f['heldout_gain']:+.4f} ± {f['heldout_gain_se']:.4f} per disagreement (defensive on "
        f"{f['heldout_defensive_share']:.2f}); gate written to {args.out}",
        file=sys.stdout,
    )
    return 0


def register_cli(sub: Any) -> None:
    p = sub.add_parser(
        "arbiter",
        help="fit the arbiter's gate of a preset from rollout pairs on the compiled engine (agents/gates/)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--variant", required=True, help="the preset (its rules)")
    p.add_argument("--pairs", type=int, default=800_000, help="rollout pairs (800000: about 30 minutes of one core)")
    p.add_argument("--seed", type=int, default=12, help="seed of the self-play hands (12)")
    p.add_argument("--ridge", type=float, default=10.0, help="ridge strength of the fit (10)")
    p.add_argument("--out", required=True, help="the gate file to write (the shipped ones: agents/gates/PRESET.json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_arbiter)
