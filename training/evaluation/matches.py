"""Match evaluation (比赛评测): ``chuanma eval --matches N`` (points matches, 赤羽) and ``chuanma eval --room 初级场``
(a room's bankroll matches), duplicate-style (RULES.md §11).

Protocol: match ``m`` is dealt from the match seed :func:`envs.core.wall.hand_seed` ``(seed, m)`` — its walls, first
dealer and 换三张 dice — and played once per rotation: the challenger at seat ``r`` (``r = 0 .. n-1``), copies of the
opponent at the other seats. Hands follow each other as :class:`envs.engine.match.TableMatch` deals them (dealer rule,
carried points or chips, bankruptcy or busts end the match), on the engine ``--engine`` names (``python`` or
``compiled``; ``auto``, the default, is the Python engine here). Agents see the ``chuanma-v1`` observation of each hand
(the baseline agents' layout), a policy trained on matches the ``chuanma-v1-match`` one (RULES.md §11.2); they
are built for every match from a seed of ``(seed, match, rotation, seat)`` and reset for their seat at every hand.

Reported for the challenger, each with a 95 % t-interval whose samples are the per-match means over the rotations
(luck of the deal cancels inside a match), clipped to the values the quantity can take:

* points matches: ``placement`` (mean rank, 1 = first), ``final_points`` (mean final total) and ``bankrupt_rate``
  (share of matches in which the challenger fell below zero);
* bankroll matches: ``chips_per_100`` (chips won per 100 hands played) and ``bust_rate`` (share of matches in which
  the challenger busted), with ``placement`` too.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.policy import PolicyAgent
from envs.backend import make_table
from envs.core.rule_config import RuleConfig
from envs.core.wall import hand_seed
from envs.engine.match import ON_BUST, MatchRules, TableMatch, match_rules
from envs.engine.match_observation import encode_match
from training.evaluation.cores import share_cores
from training.evaluation.evaluate import t_interval

__all__ = ["MatchReport", "add_match_arguments", "evaluate_matches", "play_match", "run_match_cli"]


def add_match_arguments(p: argparse.ArgumentParser) -> None:
    """The options of match evaluation on ``chuanma eval``."""
    g = p.add_argument_group("matches (RULES.md §11; training/evaluation/matches.py)")
    g.add_argument("--matches", type=int, help="play N whole matches per rotation (points matches, e.g. chiyu)")
    g.add_argument("--room", help="play bankroll matches in this room (初级场 / beginner ...; --walls matches)")
    g.add_argument("--stack", type=int, help="each seat's starting stack in a room (default 10x the minimum entry)")
    g.add_argument("--match-hands", type=int, help="hands per match (default: the variant's; rooms: 16)")
    g.add_argument("--on-bust", choices=ON_BUST, default="end", help="room: a bust ends the match or is refilled")


@dataclass(frozen=True)
class MatchReport:
    """The challenger's results (see the module docstring); each interval is ``(mean, low, high)``."""

    challenger: str
    opponent: str
    matches: int
    bankroll: bool
    placement: tuple[float, float, float]
    final: tuple[float, float, float]
    """Points matches: the final total; bankroll matches: chips won per 100 hands."""
    bust_rate: tuple[float, float, float]
    hands: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_text(self, unit: str) -> str:
        def fmt(name: str, v: tuple[float, float, float], digits: int) -> str:
            return f"{name} {v[0]:.{digits}f} [{v[1]:.{digits}f}, {v[2]:.{digits}f}]"

        head = f"{self.challenger} vs {self.opponent}: {self.matches} matches x every seat, {self.hands} hands"
        money = fmt("chips/100 hands" if self.bankroll else f"final {unit}", self.final, 1)
        bust = fmt("bust rate" if self.bankroll else "bankruptcy rate", self.bust_rate, 3)
        return f"{head}\n  {fmt('placement', self.placement, 3)}  {money}  {bust}  (95% intervals)"


def play_match(
    cfg: RuleConfig,
    rules: MatchRules,
    seed: Any,
    specs: Sequence[str | BaseAgent],
    agent_seed: int,
    engine: str = "python",
) -> dict[str, Any]:
    """Play one match of ``specs[seat]`` agents (an agent spec, or an agent object played as it is); returns its
    summary (``MatchLedger.summary``) and hands."""
    from agents.registry import make_agent, parse_spec

    agents: list[Any] = []
    for s, spec in enumerate(specs):
        if isinstance(spec, BaseAgent):
            agents.append(spec)
            continue
        p = parse_spec(spec)
        if p.kind == "external":
            raise ValueError("match evaluation plays built-in and policy agents; outside bots (external:) need events")
        agents.append(make_agent(p, agent_seed * 8 + s, variant=cfg))
    reads_match = [isinstance(a, PolicyAgent) and a.net.match for a in agents]
    table = make_table(engine, cfg)
    match = TableMatch(table, cfg, rules, seed)
    hand = -1
    while not match.over:
        led = match.ledger
        if led.hand_index != hand:  # a new hand: every agent is reset for its seat
            hand = led.hand_index
            for s, a in enumerate(agents):
                reset = getattr(a, "reset", None)
                if reset is not None:
                    reset(s, cfg)
        seat = table.acting_seat()
        obs, mask = table.observe(seat), table.legal_mask(seat)
        if reads_match[seat]:
            obs = encode_match(led, seat, obs)
        obs.setflags(write=False)
        mask.setflags(write=False)
        action = int(agents[seat].act(obs, mask))
        if not 0 <= action < mask.shape[0] or not mask[action]:
            raise ValueError(f"{specs[seat]} (seat {seat}) chose illegal action {action}")
        match.step(seat, action)
    out = match.ledger.summary()
    out["hands"] = match.ledger.hands_played
    return out


def _one(task: tuple[RuleConfig, MatchRules, int, int, str | BaseAgent, str, str]) -> list[dict[str, Any]]:
    cfg, rules, seed, m, challenger, opponent, engine = task
    n = cfg.num_players
    rows = []
    for r in range(n):
        specs: list[str | BaseAgent] = [challenger if s == r else opponent for s in range(n)]
        agent_seed = (seed * 100003 + m) * 8 + r
        summary = play_match(cfg, rules, hand_seed(seed, m), specs, agent_seed=agent_seed, engine=engine)
        summary["seat"] = r
        rows.append(summary)
    return rows


def evaluate_matches(
    cfg: RuleConfig,
    rules: MatchRules,
    challenger: str | BaseAgent,
    opponent: str,
    *,
    matches: int,
    seed: int = 0,
    workers: int = 1,
    engine: str = "python",
) -> tuple[MatchReport, list[list[dict[str, Any]]]]:
    """Play ``matches`` matches from every rotation (module docstring); returns the report and every match's rows.
    ``challenger``: an agent spec, or an agent object (the learner during training; ``workers`` 1)."""
    if matches < 1:
        raise ValueError(f"the number of matches must be at least 1, got {matches}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    tasks = [(cfg, rules, seed, m, challenger, opponent, engine) for m in range(matches)]
    if workers == 1:
        per_match = [_one(t) for t in tasks]
    else:
        with multiprocessing.get_context("spawn").Pool(workers, initializer=share_cores, initargs=(workers,)) as pool:
            per_match = pool.map(_one, tasks)
    placement, money, bust = [], [], []
    hands = 0
    for rows in per_match:
        ranks, values, busts = [], [], []
        chips = played = 0
        for row in rows:
            s = row["seat"]
            ranks.append(row["placements"][s] + 1)
            values.append(row["standing"][s])
            chips += row["standing"][s] - row["start"][s] - row["refills"][s]
            played += row["hands"]
            busts.append(float(row["busted"][s]))
        hands += played
        placement.append(float(np.mean(ranks)))
        money.append(100.0 * chips / played if rules.bankroll else float(np.mean(values)))
        bust.append(float(np.mean(busts)))
    report = MatchReport(
        challenger=challenger if isinstance(challenger, str) else challenger.name,
        opponent=opponent,
        matches=matches,
        bankroll=rules.bankroll,
        placement=_interval(placement, 1.0, float(cfg.num_players)),
        final=_interval(money),
        bust_rate=_interval(bust, 0.0, 1.0),
        hands=hands,
    )
    return report, per_match


def _interval(samples: list[float], low: float = -np.inf, high: float = np.inf) -> tuple[float, float, float]:
    """Mean and 95 % t-interval of ``samples``, the interval clipped to the values the quantity can take."""
    if len(samples) < 2:
        return (samples[0], float("nan"), float("nan"))
    mean, lo, hi = t_interval(samples)
    return (mean, max(lo, low), min(hi, high))


def run_match_cli(args: argparse.Namespace, cfg: RuleConfig) -> int:
    """``chuanma eval --matches N`` / ``--room ROOM``: prints the report and writes ``matches.json`` under ``--out``."""
    if not args.challenger or not args.opponent:
        raise ValueError("--matches / --room evaluate one pair: give --challenger and --opponent")
    if args.room is None and (args.stack is not None or args.on_bust != "end"):
        raise ValueError("--stack and --on-bust belong to a room: give --room")
    hands = args.match_hands
    if args.room is not None:
        hands = 16 if hands is None else hands
        rules = match_rules(cfg, room=args.room, stacks=args.stack, hands=hands, bankroll={"on_bust": args.on_bust})
    else:
        rules = match_rules(cfg, match=True, hands=hands)
    assert rules is not None
    count = args.matches if args.matches is not None else args.walls
    engine = getattr(args, "engine", None) or "python"
    if engine == "auto":  # the batched evaluator plays single hands; matches run table by table on the Python engine
        engine = "python"
    report, rows = evaluate_matches(
        cfg, rules, args.challenger, args.opponent, matches=count, seed=args.seed, workers=args.workers, engine=engine
    )
    where = f"room {rules.room.name}, stacks {list(rules.start)}" if rules.room else f"from {rules.start[0]} points"
    print(f"{cfg.name}: duplicate matches ({where}, up to {rules.hands or 'unbounded'} hands)")
    print(report.to_text("points"))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        payload = {"variant": cfg.name, "seed": args.seed, "report": report.to_dict(), "matches": rows}
        (out / "matches.json").write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0
