"""Simulation (模拟): random legal play over many hands, with per-variant statistics (``chuanma simulate``).

Every decision is drawn uniformly from the engine's legal actions by a :class:`random.Random` seeded from the
run seed and the hand index, and every hand's wall comes from :func:`envs.core.wall.hand_seed`, so a run is reproducible
from ``--seed``.  The statistics describe the rules under random play (a sanity check of the engine and a feel for
a variant's dynamics), not good play:

=====================  ==============================================================================
statistic              meaning
=====================  ==============================================================================
``hands``              hands played
``wins_per_hand``      wins per hand (血流 players can win several times)
``win_types``          share of wins by how: ``zimo`` 自摸, ``dianpao`` 点炮, ``qianggang`` 抢杠, ``instant`` 四红中
``avg_doublings``      mean doublings (han in 赤羽) of the wins
``exhaustive_draws``   share of hands that reached the end of the wall (荒庄)
``pigs_per_hand``      花猪 found per hand at exhaustion (查花猪)
``chajiao_per_hand``   查大叫 payments per hand (non-ready player → ready player)
``kongs_per_hand``     kongs that took effect, per hand
``decisions_per_hand`` engine decisions per hand (every seat's answer counts)
=====================  ==============================================================================
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.core.rule_config import PRESETS, RuleConfig, load_variant
from envs.core.wall import hand_seed
from envs.engine.game import Game
from envs.engine.replay_file import build_replay, hand_record, save_replay

_KONG_KINDS = ("kong", "ankong", "bukong")


@dataclass
class SimulationStats:
    """Aggregated statistics of random legal play for one variant (see the module docstring)."""

    variant: str
    hands: int = 0
    wins: int = 0
    win_types: Counter = field(default_factory=Counter)
    doublings_sum: int = 0
    exhaustive: int = 0
    pigs: int = 0
    chajiao: int = 0
    kongs: int = 0
    decisions: int = 0

    def summary(self) -> dict[str, Any]:
        h = max(self.hands, 1)
        w = max(self.wins, 1)
        return {
            "variant": self.variant,
            "hands": self.hands,
            "wins_per_hand": round(self.wins / h, 4),
            "win_types": {k: round(v / w, 4) for k, v in sorted(self.win_types.items())},
            "avg_doublings": round(self.doublings_sum / w, 4) if self.wins else None,
            "exhaustive_draws": round(self.exhaustive / h, 4),
            "pigs_per_hand": round(self.pigs / h, 4),
            "chajiao_per_hand": round(self.chajiao / h, 4),
            "kongs_per_hand": round(self.kongs / h, 4),
            "decisions_per_hand": round(self.decisions / h, 2),
        }


def play_random_hand(
    cfg: RuleConfig, seed: bytes | int, rng: random.Random, *, record_events: bool = False
) -> tuple[Game, int]:
    """Play one hand with uniformly random legal decisions; returns the finished game and its decision count
    (``record_events``: keep the event log, e.g. to save a replay; the decisions do not depend on it)."""
    game = Game(cfg, seed, record_events=record_events)
    decisions = 0
    while not game.is_over:
        for seat in game.pending:
            actions = game.legal_actions(seat)
            game.step(seat, actions[rng.randrange(len(actions))])
            decisions += 1
            if game.is_over:
                break
    return game, decisions


def replay_name(variant: str, seed: int, hand: int) -> str:
    """The file name of hand ``hand`` of a simulation run seeded ``seed``: ``chengdu-seed0-hand0003.json``."""
    return f"{variant}-seed{seed}-hand{hand:04d}.json"


def simulate(
    variant: str | RuleConfig,
    games: int,
    seed: int = 0,
    *,
    progress: bool = False,
    save_replays: str | Path | None = None,
    replay_sample: int | None = None,
) -> SimulationStats:
    """Play ``games`` hands of random legal play and collect :class:`SimulationStats`.

    ``save_replays``: a folder that receives a replay file (:mod:`envs.engine.replay_file`) of every hand, or of the
    first ``replay_sample`` hands; named by :func:`replay_name`.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if replay_sample is not None and (isinstance(replay_sample, bool) or replay_sample < 0):
        raise ValueError(f"replay_sample must be a non-negative number of hands, got {replay_sample!r}")
    cfg = load_variant(variant)
    stats = SimulationStats(cfg.name)
    hands = range(games)
    if progress:
        from tqdm import tqdm

        hands = tqdm(hands, desc=f"simulate {cfg.name}", unit="hand")
    for i in hands:
        hseed = hand_seed(seed, i)
        folder = None if save_replays is None or (replay_sample is not None and i >= replay_sample) else save_replays
        game, decisions = play_random_hand(cfg, hseed, random.Random(hseed), record_events=folder is not None)
        if folder is not None:
            doc = build_replay(cfg, [hand_record(game)], players=["random"] * cfg.num_players, source="simulate")
            save_replay(Path(folder) / replay_name(cfg.name, seed, i), doc)
        result = game.result
        stats.hands += 1
        stats.decisions += decisions
        stats.wins += len(result.wins)
        for win in result.wins:
            stats.win_types[win.how] += 1
            stats.doublings_sum += win.doublings
        stats.exhaustive += int(result.exhausted)
        stats.pigs += len({t.payer for t in result.transfers if t.reason == "huazhu"})
        stats.chajiao += sum(1 for t in result.transfers if t.reason == "chadajiao")
        stats.kongs += sum(1 for melds in game.melds for m in melds if m.kind.value in _KONG_KINDS)
    return stats


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("simulate", help="random legal play with per-variant statistics")
    p.add_argument(
        "--variant",
        action="append",
        help="preset name or YAML path (repeatable; default: every preset the engine plays)",
    )
    p.add_argument("--games", type=int, default=200, help="hands per variant (default 200)")
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table (no progress bar)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--save-replays", metavar="DIR", default=None, help="write a replay file of each hand into DIR (chuanma replay)"
    )
    p.add_argument(
        "--replay-sample", type=int, metavar="N", default=None, help="with --save-replays: only the first N hands"
    )
    p.set_defaults(func=run_cli)


def _engine_presets() -> list[str]:
    from envs.engine.game import UnsupportedRule

    names = []
    for name in PRESETS:
        try:
            Game(name, seed=0, record_events=False)
        except UnsupportedRule:
            continue
        names.append(name)
    return names


def run_cli(args: argparse.Namespace) -> int:
    variants = args.variant or _engine_presets()
    if args.replay_sample is not None and args.save_replays is None:
        raise ValueError("--replay-sample needs --save-replays DIR")
    progress = not (args.json or args.no_progress)
    summaries = [
        simulate(
            v,
            args.games,
            args.seed,
            progress=progress,
            save_replays=args.save_replays,
            replay_sample=args.replay_sample,
        ).summary()
        for v in variants
    ]
    if args.json:
        print(json.dumps(summaries, ensure_ascii=False, indent=2))
        return 0
    cols = (
        "hands",
        "wins_per_hand",
        "avg_doublings",
        "exhaustive_draws",
        "pigs_per_hand",
        "chajiao_per_hand",
        "kongs_per_hand",
        "decisions_per_hand",
    )
    print("| variant | " + " | ".join(cols) + " | win types |")
    print("|---" * (len(cols) + 2) + "|")
    for s in summaries:
        types = ", ".join(f"{k} {v:.0%}" for k, v in s["win_types"].items())
        print(f"| {s['variant']} | " + " | ".join(str(s[c]) for c in cols) + f" | {types} |")
    return 0


__all__ = ["SimulationStats", "play_random_hand", "register_cli", "replay_name", "run_cli", "simulate"]
