"""Duplicate evaluation (复式评测) of agents: one-vs-three on shared walls, round robins, confidence intervals.

Protocol
--------
A set of walls is derived from one integer seed: wall ``w`` is dealt by ``Game(cfg, seed=hand_seed(seed, w))``
(:func:`envs.core.wall.hand_seed`), which fixes the tiles, the dealer and the 换三张 direction.  In a **one-vs-three**
match the challenger plays every wall once from every seat against copies of the opponent (with two players:
both seats, one copy), so luck of the deal cancels between the challenger and the field.  A **round robin** plays
one-vs-three for every ordered pair of distinct agents on the same walls.

Games are driven through the engine directly (:class:`envs.engine.game.Game`) with the AEC environment's own encoder
(:class:`envs.engine.observation.ObservationEncoder`, :func:`envs.engine.observation.legal_mask`, 换三张 as three picks
in the ``exchange_picked`` plane) and the same turn order (``game.pending[0]`` acts), so an agent sees exactly what the
AEC environment would show it.  Agents receive read-only numpy copies and never a reference to the engine.
Each agent is built fresh for every hand from its specification and a seed derived from
``(seed, matchup, wall, rotation, seat)``, so results are identical with 1 or N worker processes.

Reported per matchup (challenger vs field)
------------------------------------------
* ``points``: mean points per hand in base units (``score / base_unit``) with a 95 % t-interval clustered by wall
  (the per-wall means over the rotations are the independent samples);
* ``win_rate`` (hands with at least one win), ``self_draw_rate`` (hands with a self-drawn win),
  ``deal_in_rate`` (hands in which the agent discarded, or lost a robbed kong, into a win), ``avg_doublings``
  (mean doublings — han in 赤羽 — over the agent's wins);
* at exhaustion (荒庄; denominator: exhausted hands): ``pig_rate`` (花猪: never won and still holding a void-suit
  tile) and ``not_ready_rate`` (never won, not a pig, no wait);
* ``faults`` of outside bots (see :mod:`agents.external`), ``failures`` (a bot that could not be used or whose
  fallback played more than ``max_fallback`` of its decisions) and ``bot_stderr`` (the last stderr lines of a
  bot whose fallback played);
* ``wall_means`` / ``wall_deal_in``: the challenger's per-wall mean points and deal-in rate, so that two matchups
  on the same walls can be compared seat for seat (:func:`paired_difference`).

The same statistics are given for the field (the opponents' seats, pooled).

Rating
------
A round robin also reports a **Bradley-Terry rating** on the Elo scale.  Every wall of a one-vs-three match is a
game between the two agents: the challenger wins it when its per-wall mean is positive, loses when negative, ties
count half.  Both directions of each pair are pooled; each pair also gets half a win each way as a prior (this keeps
ratings finite when one agent wins every wall).  Strengths ``p`` maximise the Bradley-Terry likelihood
(minorise-maximise iterations, Hunter 2004) and are reported as ``1500 + 400 * log10(p / geometric_mean(p))``.

Command line
------------
``chuanma eval --variant hongzhong --challenger value --opponent greedy --walls 400 --workers 2 --out runs/eval``
writes ``eval.json``, ``eval.md`` and ``eval.png`` into ``--out``; ``--round-robin random greedy value defensive``
plays a round robin instead; ``--ray [ADDRESS]`` plays the walls as Ray tasks (:mod:`training.evaluation.distributed`)
with the same results.  ``--seat-baseline`` also plays every opponent against itself on the same walls and
reports each challenger seat for seat against the opponent's own play (:func:`seat_for_seat`).  Outside bots
(``external:COMMAND``) are judged as well as scored: ``--bot-timeout``, ``--bot-fallback``, ``--bot-max-timeouts``
(timeouts in a row that declare a bot dead), ``--bot-on-dead fail|fallback`` and ``--bot-max-fallback`` (the largest
share of a bot's decisions its fallback may play) set the limits; a bot that cannot start, dies that way or passes
the share fails the run (exit status 1, the reasons and the bot's last stderr lines on stderr, the rows marked
``[FAILED]``), and its stderr is saved in ``OUT/bots/`` (:func:`bot_log_path`).  Ctrl-C / SIGTERM stop every worker
and bot and write the finished walls to ``eval.partial.json`` (exit status 130 / 143).  Agent names
follow :mod:`agents.registry` (``greedy``, ``value:hongzhong_policy=shagui_when_stable``,
``external:python3 agents/examples/random_bot.py`` ...).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import math
import multiprocessing
import multiprocessing.util
import os
import re
import signal
import statistics
import tempfile
import textwrap
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.actions import ACTION_SPACE_SIZE, action_name, engine_action
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import hand_seed
from envs.engine.game import Game
from envs.engine.observation import ObservationEncoder, legal_mask
from envs.engine.replay_file import build_replay, hand_record, save_replay
from envs.scoring.settlement import is_pig, ready_value
from training.evaluation.cores import WALLS_PER_WORKER, default_workers, share_cores

__all__ = [
    "EvaluationFailed",
    "EvaluationInterrupted",
    "HandStats",
    "IllegalAgentAction",
    "MatchResult",
    "bot_log_path",
    "bot_mark",
    "bradley_terry",
    "fault_summary",
    "one_vs_three",
    "paired_difference",
    "play_hand",
    "prepare_out",
    "register_cli",
    "replay_name",
    "round_robin",
    "run_cli",
    "run_matchups",
    "save_hand_replay",
    "significant",
    "t_interval",
    "to_markdown",
]


class IllegalAgentAction(RuntimeError):
    """An agent returned an action its legal mask does not allow (outside bots are protected by their fallback)."""


# ---- playing one hand --------------------------------------------------------------------------------------------
def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def play_hand(
    cfg: RuleConfig,
    seed: Any,
    agents: Sequence[Any],
    *,
    encoder: ObservationEncoder | None = None,
    agent_data: dict[int, list[dict[str, Any]]] | None = None,
) -> Game:
    """Play one hand dealt by ``Game(cfg, seed=seed)`` with ``agents[seat]`` deciding for each seat.

    Each agent's ``reset(seat, cfg)`` is called first (when it has one).  Agents that define ``feed_events`` (outside
    bots) receive the events their seat may see (:meth:`envs.engine.game.Game.events_for`) before every decision.
    ``agent_data``: a dict to fill for a replay file (:func:`envs.engine.replay_file.hand_record`); the game then
    records its event log, and each ``action`` event's index maps to the entries of the agent calls behind it
    (``chosen`` and what the agent's ``decision_info()`` reports, e.g. a policy's ``probs``; agents without
    ``decision_info`` record nothing).  Returns the finished game.
    """
    n = cfg.num_players
    if len(agents) != n:
        raise ValueError(f"need one agent per seat ({n}), got {len(agents)}")
    feeders = [getattr(a, "feed_events", None) for a in agents]
    wants_events = any(f is not None for f in feeders) or agent_data is not None
    game = Game(cfg, seed=seed, record_events=wants_events)
    infos = [getattr(a, "decision_info", None) if agent_data is not None else None for a in agents]
    behind: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    enc = encoder or ObservationEncoder.from_config(cfg)
    for seat, agent in enumerate(agents):
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seat, cfg)
    delivered = [0] * n
    picks: list[list[int]] = [[] for _ in range(n)]
    while not game.is_over:
        seat = game.pending[0]
        view = game.view(seat)
        mine = picks[seat]
        obs = _frozen(enc.encode(view, exchange_picks=mine))
        mask = _frozen(legal_mask(view, mine))
        feed = feeders[seat]
        if feed is not None:
            events = game.events_for(seat)
            feed(events[delivered[seat] :])
            delivered[seat] = len(events)
        action = agents[seat].act(obs, mask)
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise IllegalAgentAction(f"{agents[seat]!r} (seat {seat}) returned {action!r}, not an action id") from None
        if not 0 <= a < ACTION_SPACE_SIZE or not mask[a]:
            legal = ", ".join(action_name(int(i)) for i in np.flatnonzero(mask))
            shown = action_name(a) if 0 <= a < ACTION_SPACE_SIZE else str(a)
            raise IllegalAgentAction(f"{agents[seat]!r} (seat {seat}) chose illegal {shown}; legal: {legal}")
        info = infos[seat]
        if info is not None:
            extra = info()
            if extra:
                behind[seat].append({"chosen": action_name(a), **extra})
        action = engine_action(a, mine)
        if action is None:  # a 换三张 pick before the third
            continue
        before = len(game.events)
        game.step(seat, action)
        if agent_data is not None and behind[seat]:
            index = next(i for i in range(before, len(game.events)) if game.events[i]["type"] == "action")
            agent_data[index] = behind[seat]
            behind[seat] = []
    for seat, feed in enumerate(feeders):
        if feed is not None:
            events = game.events_for(seat)
            feed(events[delivered[seat] :])
            end = getattr(agents[seat], "end_hand", None)
            if end is not None:
                end(list(game.scores))
    return game


@dataclass(frozen=True, slots=True)
class HandStats:
    """One seat's outcome of one hand (points in base units)."""

    points: float
    won: bool
    self_draw: bool
    deal_in: bool
    doublings: tuple[int, ...]
    exhausted: bool
    pig: bool
    not_ready: bool

    def record(self) -> dict[str, Any]:
        """The fields as a dict: what ``dataclasses.asdict`` gives, without its deep copies (every field is
        immutable); the evaluators store one per seat and hand."""
        return {name: getattr(self, name) for name in self.__slots__}


def seat_stats(game: Game, seat: int) -> HandStats:
    """The :class:`HandStats` of ``seat`` in a finished ``game``."""
    cfg = game.cfg
    result = game.result
    if result is None:
        raise ValueError("the hand is not over")
    mine = [w for w in result.wins if w.seat == seat]
    won = bool(mine)
    pig = not_ready = False
    if result.exhausted and not won:
        end = game.player_end(seat)
        pig = is_pig(cfg, end)
        not_ready = not pig and ready_value(cfg, end) is None
    return HandStats(
        points=result.scores[seat] / cfg.base_unit,
        won=won,
        self_draw=any(w.from_seat is None for w in mine),
        deal_in=any(w.from_seat == seat for w in result.wins),
        doublings=tuple(w.doublings for w in mine),
        exhausted=result.exhausted,
        pig=pig,
        not_ready=not_ready,
    )


# ---- seeds and tasks ---------------------------------------------------------------------------------------------
def wall_seed(seed: int, wall: int) -> bytes:
    """The deal seed of wall ``wall`` of an evaluation seeded with ``seed``."""
    return hand_seed(seed, wall)


def agent_seed(seed: int, matchup: int, wall: int, rotation: int, seat: int) -> int:
    """A 63-bit seed for one agent in one hand (SHA-256 of the coordinates; independent of the worker count)."""
    text = f"chuanma/eval/agent/v1/{seed}/{matchup}/{wall}/{rotation}/{seat}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class _Task:
    cfg: RuleConfig
    seed: int
    matchup: int
    wall: int
    challenger: str
    opponent: str
    external: tuple[tuple[str, Any], ...] = ()
    bot_log_dir: str | None = None
    replay_dir: str | None = None
    replay_sample: int | None = None


_WORKER_AGENTS: dict[tuple, Any] = {}
_SKIP: Any = None  # per matchup, nonzero once it failed: a shared array in worker processes, a bytearray in-process


def replay_name(matchup: int, challenger: str, opponent: str, wall: int, rotation: int) -> str:
    """The replay file name of one hand of an evaluation: ``m0-value-vs-greedy-wall0003-seat1.json`` (the seat the
    challenger played)."""

    def slug(spec: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("._")[:40] or "agent"

    return f"m{matchup}-{slug(challenger)}-vs-{slug(opponent)}-wall{wall:04d}-seat{rotation}.json"


def save_hand_replay(
    path: str | Path,
    game: Game,
    players: Sequence[str],
    agent_data: dict[int, list[dict[str, Any]]] | None,
    *,
    source: str,
) -> Path:
    """Write the replay file of one finished hand played by :func:`play_hand` (``agent_data`` as it filled it)."""
    doc = build_replay(game.cfg, [hand_record(game, 0, agent_data)], players=players, source=source)
    return save_replay(path, doc)


def bot_log_path(folder: str | Path, spec: str) -> Path:
    """The file in ``folder`` that an outside bot's stderr is appended to: ``<folder>/<spec as a file name>.stderr``
    (every process of the bot writes there, each line prefixed with its process id)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", spec.removeprefix("external:")).strip("._")[:60] or "bot"
    digest = hashlib.sha256(spec.encode()).hexdigest()[:8]
    return Path(folder) / f"{slug}-{digest}.stderr"


def _agent_for(
    spec: str, seat: int, seed: int, cfg: RuleConfig, external: dict[str, Any], log_dir: str | None = None
) -> Any:
    from agents.registry import make_agent, parse_spec

    parsed = parse_spec(spec)
    if parsed.kind in ("external", "policy", "pretrained", "sb3"):  # processes and networks: kept for the run
        key = (spec, seat, tuple(sorted(external.items())))
        agent = _WORKER_AGENTS.get(key)
        if agent is None:
            options = {}
            if parsed.kind == "external":
                options = dict(external)
                if log_dir is not None:
                    options["stderr"] = bot_log_path(log_dir, spec)
            agent = make_agent(parsed, seed, variant=cfg, **options)
            _WORKER_AGENTS[key] = agent
            if parsed.kind == "external":
                multiprocessing.util.Finalize(agent, agent.close, exitpriority=10)
        return agent
    return make_agent(parsed, seed, variant=cfg)


def _close_worker_agents(*, kill: bool = False, spec: str | None = None) -> None:
    """Close (or kill) the outside bots of this process: all of them, or those of one ``spec``."""
    for key in [k for k in _WORKER_AGENTS if spec is None or k[0] == spec]:
        agent = _WORKER_AGENTS.pop(key)
        stop = getattr(agent, "kill" if kill else "close", None)
        if stop is not None:
            stop()


def _init_worker(skip: Any, workers: int) -> None:
    """Pool initializer: the shared skip flags and this worker's share of the cores (:func:`share_cores`); Ctrl-C is
    the parent's to handle, SIGTERM stops the bots first."""
    global _SKIP
    _SKIP = skip
    share_cores(workers)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_terminated)


def _worker_terminated(signum: int, frame: Any) -> None:
    _close_worker_agents(kill=True)
    os._exit(128 + signum)


def _fault_counts(agent: Any) -> dict[str, int]:
    faults = getattr(agent, "faults", None)
    return dict(faults) if faults else {}


def _play_wall(task: _Task) -> list[dict[str, Any]]:
    """Every rotation of one wall of one matchup: one record per hand (spawn-safe top-level worker function).

    A matchup already failed is skipped (one ``skipped`` record); an outside bot that cannot be used
    (:class:`agents.external.BotError`) gives one ``failure`` record and the wall's hands are dropped."""
    from agents.external import BotError

    if _SKIP is not None and _SKIP[task.matchup]:
        return [{"matchup": task.matchup, "wall": task.wall, "skipped": True}]
    cfg = task.cfg
    n = cfg.num_players
    external = dict(task.external)
    encoder = ObservationEncoder.from_config(cfg)
    out = []
    try:
        for rotation in range(n):
            agents = []
            for seat in range(n):
                spec = task.challenger if seat == rotation else task.opponent
                seed = agent_seed(task.seed, task.matchup, task.wall, rotation, seat)
                agents.append(_agent_for(spec, seat, seed, cfg, external, task.bot_log_dir))
            before = [_fault_counts(a) for a in agents]
            save = task.replay_dir is not None and (task.replay_sample is None or task.wall < task.replay_sample)
            data: dict[int, list[dict[str, Any]]] | None = {} if save else None
            game = play_hand(cfg, wall_seed(task.seed, task.wall), agents, encoder=encoder, agent_data=data)
            if save:
                specs = [task.challenger if seat == rotation else task.opponent for seat in range(n)]
                name = replay_name(task.matchup, task.challenger, task.opponent, task.wall, rotation)
                save_hand_replay(Path(str(task.replay_dir)) / name, game, specs, data, source="eval")
            seats = []
            for seat in range(n):
                after = _fault_counts(agents[seat])
                delta = {k: v - before[seat].get(k, 0) for k, v in after.items() if v - before[seat].get(k, 0)}
                entry: dict[str, Any] = {"stats": seat_stats(game, seat).record(), "faults": delta}
                if delta.get("fallback") and hasattr(agents[seat], "stderr_tail"):
                    entry["stderr_tail"] = agents[seat].stderr_tail()[-10:]
                seats.append(entry)
            out.append({"matchup": task.matchup, "wall": task.wall, "rotation": rotation, "seats": seats})
    except BotError as exc:
        _close_worker_agents(kill=True, spec=exc.bot)
        failure = {"bot": exc.bot, "kind": exc.kind, "message": str(exc)}
        return [{"matchup": task.matchup, "wall": task.wall, "failure": failure}]
    return out


def _play_wall_on_ray(task: _Task) -> list[dict[str, Any]]:
    """:func:`_play_wall` in a Ray worker, whose outside bots are closed after the wall (a Ray worker process
    outlives the evaluation)."""
    try:
        return _play_wall(task)
    finally:
        _close_worker_agents(spec=task.challenger)
        _close_worker_agents(spec=task.opponent)


def _run_tasks(
    tasks: list[_Task],
    workers: int,
    progress: bool,
    desc: str,
    records: list[dict[str, Any]],
    skip_for: dict[str, list[int]],
    ray_address: str | None = None,
) -> None:
    """Play ``tasks``, appending every wall's records to ``records`` as it finishes (so that an interrupted run
    keeps the walls already played).  A failure record of a bot marks every matchup in ``skip_for[bot]``
    to be skipped; on an exception (an interrupt) the workers and the bots are stopped at once."""
    global _SKIP
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=desc, unit="wall", dynamic_ncols=True)
    matchups = 1 + max(t.matchup for t in tasks)

    def collect(recs: list[dict[str, Any]], skip: Any) -> None:
        records.extend(recs)
        for rec in recs:
            if "failure" in rec:
                for m in skip_for.get(rec["failure"]["bot"], [rec["matchup"]]):
                    skip[m] = 1
        if bar is not None:
            bar.update(1)

    try:
        if ray_address is not None:  # Ray tasks (training/evaluation/distributed.py)
            from training.evaluation.distributed import run_on_ray

            flags = bytearray(matchups)
            run_on_ray(
                _play_wall_on_ray,
                tasks,
                lambda recs: collect(recs, flags),
                address=ray_address,
                skipped=lambda t: (
                    [{"matchup": t.matchup, "wall": t.wall, "skipped": True}] if flags[t.matchup] else None
                ),
            )
        elif workers <= 1:
            _SKIP = bytearray(matchups)
            clean = False
            try:
                for task in tasks:
                    collect(_play_wall(task), _SKIP)
                clean = True
            finally:
                _SKIP = None
                _close_worker_agents(kill=not clean)
        else:
            ctx = multiprocessing.get_context("spawn")
            skip = ctx.Array("b", matchups)
            with ctx.Pool(workers, initializer=_init_worker, initargs=(skip, workers)) as pool:  # exits by terminate()
                # one wall per task (no chunks): an interrupt keeps every finished wall
                for recs in pool.imap_unordered(_play_wall, tasks):
                    collect(recs, skip)
                pool.close()  # let the workers exit normally: their finalizers close outside bots
                pool.join()
    finally:
        if bar is not None:
            bar.close()
    records.sort(key=lambda r: (r["matchup"], r["wall"], r.get("rotation", -1)))


# ---- statistics --------------------------------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else 1.0 + aa / tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else 1.0 + aa / tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t (bisection on :func:`t_cdf`; ``0 < p < 1``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


def t_interval(samples: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the two-sided t-interval of the mean of independent ``samples``.

    With fewer than two samples the interval is undefined: both bounds are NaN (reported as ``n/a``, never
    significant; :func:`significant`).
    """
    xs = [float(x) for x in samples]
    if not xs:
        raise ValueError("t_interval needs at least one sample")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return mean, math.nan, math.nan
    sd = statistics.stdev(xs)
    half = t_quantile(0.5 + level / 2.0, len(xs) - 1) * sd / math.sqrt(len(xs))
    return mean, mean - half, mean + half


def significant(low: float, high: float) -> bool:
    """Whether an interval excludes zero: it must be a real interval (finite bounds, ``low < high``), so an
    undefined interval (too few walls) or a zero-width one (every wall gave the same value) never is."""
    finite = low is not None and high is not None and math.isfinite(low) and math.isfinite(high)
    return finite and low < high and (low > 0 or high < 0)


def _rates(stats: list[dict[str, Any]]) -> dict[str, Any]:
    hands = len(stats)
    wins = [d for s in stats for d in s["doublings"]]
    exhausted = [s for s in stats if s["exhausted"]]
    return {
        "hands": hands,
        "win_rate": sum(s["won"] for s in stats) / hands if hands else math.nan,
        "self_draw_rate": sum(s["self_draw"] for s in stats) / hands if hands else math.nan,
        "deal_in_rate": sum(s["deal_in"] for s in stats) / hands if hands else math.nan,
        "avg_doublings": statistics.fmean(wins) if wins else math.nan,
        "exhausted_hands": len(exhausted),
        "pig_rate": sum(s["pig"] for s in exhausted) / len(exhausted) if exhausted else math.nan,
        "not_ready_rate": sum(s["not_ready"] for s in exhausted) / len(exhausted) if exhausted else math.nan,
    }


@dataclass
class MatchResult:
    """Summary of one one-vs-three matchup (see the module docstring for every field)."""

    challenger: str
    opponent: str
    walls: int
    hands: int
    points: float
    ci_low: float
    ci_high: float
    challenger_rates: dict[str, Any]
    field_rates: dict[str, Any]
    field_points: float
    wall_means: list[float] = field(repr=False)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    wall_deal_in: list[float] = field(default_factory=list, repr=False)
    field_wall_deal_in: list[float] = field(default_factory=list, repr=False)
    failures: dict[str, str] = field(default_factory=dict)
    bot_stderr: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @property
    def significant(self) -> bool:
        """The 95 % interval excludes zero (see :func:`significant`)."""
        return significant(self.ci_low, self.ci_high)

    def fallback_share(self, spec: str) -> float:
        """The share of outside bot ``spec``'s decisions in this matchup that its fallback played (0 when it has
        no faults)."""
        counts = self.faults.get(spec, {})
        return counts.get("fallback", 0) / counts["decisions"] if counts.get("decisions") else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(records: list[dict[str, Any]], challenger: str, opponent: str) -> MatchResult:
    """Aggregate the hand records of one matchup (all rotations of every wall)."""
    by_wall: dict[int, list[float]] = {}
    deal_ins: dict[int, list[float]] = {}
    field_deal_ins: dict[int, list[float]] = {}
    mine: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    faults: dict[str, Counter] = {}
    failures: dict[str, str] = {}
    tails: dict[str, list[str]] = {}
    for rec in records:
        if "failure" in rec:
            failures.setdefault(rec["failure"]["bot"], rec["failure"]["message"])
            continue
        if "seats" not in rec:  # a wall skipped after a failure
            continue
        rot = rec["rotation"]
        for seat, entry in enumerate(rec["seats"]):
            spec = challenger if seat == rot else opponent
            if entry["faults"]:
                faults.setdefault(spec, Counter()).update(entry["faults"])
            if entry.get("stderr_tail"):
                tails[spec] = entry["stderr_tail"]
            (mine if seat == rot else theirs).append(entry["stats"])
            if seat == rot:
                by_wall.setdefault(rec["wall"], []).append(entry["stats"]["points"])
                deal_ins.setdefault(rec["wall"], []).append(float(entry["stats"]["deal_in"]))
            else:
                field_deal_ins.setdefault(rec["wall"], []).append(float(entry["stats"]["deal_in"]))
    wall_means = [statistics.fmean(v) for _, v in sorted(by_wall.items())]
    mean, low, high = t_interval(wall_means) if wall_means else (math.nan, math.nan, math.nan)
    return MatchResult(
        challenger=challenger,
        opponent=opponent,
        walls=len(wall_means),
        hands=len(mine),
        points=mean,
        ci_low=low,
        ci_high=high,
        challenger_rates=_rates(mine),
        field_rates=_rates(theirs),
        field_points=statistics.fmean(s["points"] for s in theirs) if theirs else math.nan,
        wall_means=wall_means,
        faults={k: dict(v) for k, v in faults.items()},
        wall_deal_in=[statistics.fmean(v) for _, v in sorted(deal_ins.items())],
        field_wall_deal_in=[statistics.fmean(v) for _, v in sorted(field_deal_ins.items())],
        failures=failures,
        bot_stderr=tails,
    )


def field_difference(result: MatchResult, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the challenger's deal-in rate minus the field's, per wall, within one matchup.

    Each wall gives one paired sample: the challenger's deal-in rate over its rotations minus the opponents'
    deal-in rate over all their seats on the same wall (so luck of the deal cancels); the t-interval is over the
    walls.  A negative interval means the challenger deals in less often than the opponents at its own tables.
    """
    return _paired_interval(
        result.wall_deal_in,
        result.field_wall_deal_in,
        level,
        "field_difference needs per-wall deal-in rates of the challenger and the field (a result loaded from an "
        "older eval.json has none)",
    )


def _paired_interval(xs: Sequence[float], ys: Sequence[float], level: float, need: str) -> tuple[float, float, float]:
    """The t-interval of the per-wall differences ``xs - ys``; ``need`` says what was expected when they do not
    pair up."""
    if len(xs) != len(ys) or not xs:
        raise ValueError(f"{need}; got {len(xs)} and {len(ys)} walls")
    return t_interval([x - y for x, y in zip(xs, ys)], level)


def paired_difference(
    a: MatchResult, b: MatchResult, statistic: str = "points", level: float = 0.95
) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``a - b`` per wall for two matchups played on the same walls (same ``seed`` and
    ``walls``): the challengers compared seat for seat, e.g. a defender against greedy's own play in the same seats.

    ``statistic``: ``"points"`` (the per-wall means of points per hand) or ``"deal_in"`` (the per-wall deal-in
    rate of the challenger).  The t-interval is over the walls' paired differences.
    """
    fields = {"points": "wall_means", "deal_in": "wall_deal_in"}
    if statistic not in fields:
        raise ValueError(f"statistic must be one of {sorted(fields)}, got {statistic!r}")
    return _paired_interval(
        getattr(a, fields[statistic]),
        getattr(b, fields[statistic]),
        level,
        f"paired_difference needs two matchups on the same walls ({statistic!r} values)",
    )


def seat_for_seat(matches: Sequence[MatchResult], level: float = 0.95) -> list[dict[str, Any]]:
    """Each challenger against its opponent's own play in the same seats (座位对比).

    For every matchup ``C`` vs ``O`` (``C != O``) whose walls were also played by ``O`` vs ``O`` (the opponent in
    the challenger's seat, the same walls and opponents), one row: the paired per-wall differences of points and of
    deal-in rate, ``C`` minus ``O``'s own play, with their intervals (:func:`paired_difference`).  Matchups without
    such a baseline are skipped; ``chuanma eval --seat-baseline`` adds the baselines.
    """
    own = {m.opponent: m for m in matches if m.challenger == m.opponent}
    rows = []
    for m in matches:
        base = own.get(m.opponent)
        if m.challenger == m.opponent or base is None or base.walls != m.walls:
            continue
        points = paired_difference(m, base, "points", level)
        deal_in = paired_difference(m, base, "deal_in", level)
        rows.append(
            {
                "challenger": m.challenger,
                "opponent": m.opponent,
                "walls": m.walls,
                "deal_in": m.challenger_rates["deal_in_rate"],
                "opponent_own_deal_in": base.challenger_rates["deal_in_rate"],
                "points_difference": list(points),
                "deal_in_difference": list(deal_in),
            }
        )
    return rows


def _tasks(
    cfg: RuleConfig, pairs: list[tuple[str, str]], walls: int, seed: int, external: dict, log_dir: str | None
) -> list[_Task]:
    ext = tuple(sorted(external.items()))
    return [
        _Task(cfg, seed, m, w, challenger, opponent, ext, log_dir)
        for m, (challenger, opponent) in enumerate(pairs)
        for w in range(walls)
    ]


def _check_run(walls: int, workers: int, seed: int) -> None:
    if isinstance(walls, bool) or not isinstance(walls, int) or walls < 1:
        raise ValueError(f"walls must be a positive int, got {walls!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")


def _check_specs(specs: Sequence[str]) -> None:
    from agents.registry import parse_spec

    for spec in specs:
        parse_spec(spec)


class EvaluationFailed(RuntimeError):
    """An outside bot could not be used (it did not start, or was declared dead) or its fallback played more than
    the allowed share of its decisions.  ``messages``: one per failure; ``results``: every matchup, the intact ones
    complete and the failed ones over the walls they finished, with :attr:`MatchResult.failures` set."""

    def __init__(self, messages: Sequence[str], results: list[MatchResult]) -> None:
        super().__init__("\n".join(messages))
        self.messages = list(messages)
        self.results = results


class EvaluationInterrupted(KeyboardInterrupt):
    """The evaluation was interrupted (Ctrl-C; ``chuanma eval`` also maps SIGTERM here).  ``results`` summarise
    the walls finished before it (every matchup, possibly with zero walls); ``walls_done`` of ``walls_total``."""

    def __init__(self, results: list[MatchResult], walls_done: int, walls_total: int) -> None:
        super().__init__(f"evaluation interrupted after {walls_done} of {walls_total} walls")
        self.results = results
        self.walls_done = walls_done
        self.walls_total = walls_total


def fault_summary(counts: dict[str, int]) -> str:
    """An outside bot's fault counts as one readable phrase, e.g. ``"96 decisions, fallback played 3 (3.1 %):
    timeout 1, garbage 2"``."""
    decisions = counts.get("decisions", 0)
    fallback = counts.get("fallback", 0)
    share = f" ({100 * fallback / decisions:.1f} %)" if decisions else ""
    text = f"{decisions} decisions, fallback played {fallback}{share}"
    kinds = [
        f"{k} {counts[k]}" for k in ("timeout", "garbage", "illegal", "crash", "flood", "restarts") if counts.get(k)
    ]
    if counts.get("dead"):
        kinds.append("declared dead")
    return text + (": " + ", ".join(kinds) if kinds else "")


def _judge_bots(results: list[MatchResult], records: list[dict[str, Any]], max_fallback: float) -> list[str]:
    """Mark the failed matchups (in place) and return one message per failure."""
    failed: dict[str, str] = {}
    for rec in records:
        if "failure" in rec:
            failed.setdefault(rec["failure"]["bot"], rec["failure"]["message"])
    incomplete = {rec["matchup"] for rec in records if "skipped" in rec or "failure" in rec}
    messages = []
    for m, res in enumerate(results):
        where = f"{res.challenger} vs {res.opponent}"
        for spec in dict.fromkeys((res.challenger, res.opponent)):
            if spec in res.failures:
                messages.append(f"{where}: {res.failures[spec]}")
            elif m in incomplete and spec in failed:
                res.failures[spec] = f"not played to the end: {failed[spec].splitlines()[0]}"
                messages.append(f"{where}: {res.failures[spec]}")
            elif spec in res.faults and res.fallback_share(spec) > max_fallback:
                counts = res.faults[spec]
                text = (
                    f"the fallback played {100 * res.fallback_share(spec):.1f} % of the decisions of outside bot "
                    f"{spec!r}, more than the allowed {100 * max_fallback:g} % ({fault_summary(counts)})"
                )
                tail = res.bot_stderr.get(spec)
                if tail:
                    text += "\nlast lines of its stderr:\n" + "\n".join(f"    {line}" for line in tail)
                res.failures[spec] = text
                messages.append(f"{where}: {text}")
    return messages


def one_vs_three(
    variant: str | RuleConfig,
    challenger: str,
    opponent: str,
    *,
    walls: int = 100,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    external: dict[str, Any] | None = None,
    max_fallback: float = 0.05,
    bot_log_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
    ray_address: str | None = None,
    engine: str = "python",
) -> MatchResult:
    """Duplicate one-vs-three (one-vs-one with two players) of ``challenger`` against copies of ``opponent``
    (``engine``: as :func:`run_matchups`)."""
    return run_matchups(
        variant,
        [(challenger, opponent)],
        walls=walls,
        seed=seed,
        workers=workers,
        progress=progress,
        external=external,
        max_fallback=max_fallback,
        bot_log_dir=bot_log_dir,
        replay_dir=replay_dir,
        replay_sample=replay_sample,
        ray_address=ray_address,
        engine=engine,
    )[0]


def run_matchups(
    variant: str | RuleConfig,
    pairs: Sequence[tuple[str, str]],
    *,
    walls: int = 100,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    external: dict[str, Any] | None = None,
    max_fallback: float = 0.05,
    bot_log_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
    engine: str = "python",
    ray_address: str | None = None,
) -> list[MatchResult]:
    """One-vs-three for each ``(challenger, opponent)`` pair, all on the same walls, in one pool of workers.

    ``engine``: ``"python"`` (hand by hand), ``"compiled"`` or ``"auto"`` (many walls at once on the compiled engine,
    the same results: :func:`training.evaluation.fast.choose_engine` decides; the ``workers`` processes each play a
    share of the walls batched).

    ``external``: options of every outside bot (:class:`agents.external.ExternalAgent`: ``timeout``, ``fallback``,
    ``max_timeouts``, ``on_dead`` ...).  ``bot_log_dir``: the folder their stderr is saved in
    (:func:`bot_log_path`).  ``replay_dir``: a folder for a replay file of every hand (:func:`replay_name`), or of
    the first ``replay_sample`` walls of each matchup (every seat).  Raises :class:`EvaluationFailed` when an outside
    bot could not start, was declared dead, or its fallback played more than ``max_fallback`` (a share, 0-1) of
    its decisions in a matchup; the other matchups are played to the end all the same.  Raises
    :class:`EvaluationInterrupted` on Ctrl-C, after
    stopping the workers and the bots, with the walls finished so far.  ``ray_address``: play the walls as Ray tasks
    on that cluster instead of ``workers`` processes (``"local"``, ``"auto"``, ``"HOST:PORT"``;
    :mod:`training.evaluation.distributed`): the same results.
    """
    cfg = load_variant(variant)
    _check_run(walls, workers, seed)
    if isinstance(max_fallback, bool) or not isinstance(max_fallback, (int, float)) or not 0 <= max_fallback <= 1:
        raise ValueError(f"max_fallback must be a share between 0 and 1, got {max_fallback!r}")
    pairs = [(str(a), str(b)) for a, b in pairs]
    if not pairs:
        raise ValueError("give at least one (challenger, opponent) pair")
    _check_specs([x for pair in pairs for x in pair])
    if replay_sample is not None and (isinstance(replay_sample, bool) or replay_sample < 0):
        raise ValueError(f"replay_sample must be a non-negative number of walls, got {replay_sample!r}")
    if engine != "python":
        from training.evaluation import fast

        specs = [x for pair in pairs for x in pair]
        chosen = fast.choose_engine(engine, cfg, specs, replays=replay_dir is not None, ray=ray_address is not None)
        if chosen == "compiled":
            return fast.run_matchups_batched(cfg, pairs, walls=walls, seed=seed, progress=progress, workers=workers)
    tasks = _tasks(cfg, pairs, walls, seed, external or {}, None if bot_log_dir is None else str(bot_log_dir))
    if replay_dir is not None:
        Path(replay_dir).mkdir(parents=True, exist_ok=True)
        tasks = [dataclasses.replace(t, replay_dir=str(replay_dir), replay_sample=replay_sample) for t in tasks]
    skip_for = {spec: [m for m, pair in enumerate(pairs) if spec in pair] for pair in pairs for spec in pair}
    records: list[dict[str, Any]] = []

    def results() -> list[MatchResult]:
        return [summarize([r for r in records if r["matchup"] == m], a, b) for m, (a, b) in enumerate(pairs)]

    try:
        _run_tasks(tasks, workers, progress, "matchups", records, skip_for, ray_address)
    except KeyboardInterrupt:
        done = len({(r["matchup"], r["wall"]) for r in records if "seats" in r})
        raise EvaluationInterrupted(results(), done, len(tasks)) from None
    out = results()
    messages = _judge_bots(out, records, max_fallback)
    if messages:
        raise EvaluationFailed(messages, out)
    return out


def bradley_terry(names: Sequence[str], wins: dict[tuple[str, str], float], *, prior: float = 0.5) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings from ``wins[(a, b)]`` = games ``a`` won against ``b`` (ties count half).

    ``prior`` wins are added each way for every pair that met.  Ratings are ``1500 + 400 log10(p / gmean(p))``.
    """
    names = list(names)
    idx = {a: i for i, a in enumerate(names)}
    k = len(names)
    w = np.zeros((k, k))
    for (a, b), v in wins.items():
        w[idx[a], idx[b]] += v
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    p = np.ones(k)
    for _ in range(10_000):
        total = w.sum(axis=1)
        denom = np.array(
            [sum(games[i, j] / (p[i] + p[j]) for j in range(k) if j != i and games[i, j]) for i in range(k)]
        )
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), p)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < 1e-12:
            p = new
            break
        p = new
    return {a: 1500.0 + 400.0 * math.log10(p[idx[a]]) for a in names}


@dataclass
class RoundRobinResult:
    """Every ordered matchup of a round robin plus the ratings."""

    agents: list[str]
    matches: list[MatchResult]
    ratings: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"agents": self.agents, "matches": [m.to_dict() for m in self.matches], "ratings": self.ratings}


def round_robin(
    variant: str | RuleConfig,
    agents: Sequence[str],
    *,
    walls: int = 100,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    external: dict[str, Any] | None = None,
    max_fallback: float = 0.05,
    bot_log_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    replay_sample: int | None = None,
    engine: str = "python",
    ray_address: str | None = None,
) -> RoundRobinResult:
    """One-vs-three for every ordered pair of distinct ``agents`` on the same walls, plus Bradley-Terry ratings
    (the outside-bot options and exceptions are those of :func:`run_matchups`)."""
    cfg = load_variant(variant)
    _check_run(walls, workers, seed)
    agents = list(agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise ValueError(f"a round robin needs at least two distinct agents, got {agents}")
    _check_specs(agents)
    pairs = [(a, b) for a in agents for b in agents if a != b]
    matches = run_matchups(
        cfg,
        pairs,
        walls=walls,
        seed=seed,
        workers=workers,
        progress=progress,
        external=external,
        max_fallback=max_fallback,
        bot_log_dir=bot_log_dir,
        replay_dir=replay_dir,
        replay_sample=replay_sample,
        engine=engine,
        ray_address=ray_address,
    )
    wins: dict[tuple[str, str], float] = {}
    for res in matches:
        a, b = res.challenger, res.opponent
        for x in res.wall_means:
            if x > 0:
                wins[(a, b)] = wins.get((a, b), 0.0) + 1.0
            elif x < 0:
                wins[(b, a)] = wins.get((b, a), 0.0) + 1.0
            else:
                wins[(a, b)] = wins.get((a, b), 0.0) + 0.5
                wins[(b, a)] = wins.get((b, a), 0.0) + 0.5
    return RoundRobinResult(agents, matches, bradley_terry(agents, wins))


# ---- reports -----------------------------------------------------------------------------------------------------
def _fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _interval(low: float, high: float, *, signed: bool = True) -> str:
    """``[low, high]`` with a ``*`` when it excludes zero; ``[n/a]`` when undefined (fewer than two walls)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return "[n/a]"
    if not signed:
        return f"[{_fmt(low)}, {_fmt(high)}]"
    return f"[{low:+.3f}, {high:+.3f}]{' *' if significant(low, high) else ''}"


def bot_mark(match: MatchResult, spec: str) -> str:
    """The table's mark of an outside bot ``spec`` in ``match``: ``" [FAILED]"``, ``" [fallback 3.1 %]"`` (any
    share above zero) or ``""``."""
    if spec in match.failures:
        share = match.fallback_share(spec)
        return f" [FAILED; fallback {100 * share:.1f} %]" if share else " [FAILED]"
    share = match.fallback_share(spec)
    return f" [fallback {100 * share:.1f} %]" if share > 0 else ""


def to_markdown(matches: Sequence[MatchResult], *, variant: str, ratings: dict[str, float] | None = None) -> str:
    """A markdown table of matchups (and ratings, when given)."""
    lines = [
        f"Variant `{variant}`; points per hand in base units, 95 % t-interval clustered by wall.",
        "",
        "| challenger | opponent | walls | hands | points/hand | 95% CI | win | self-draw | deal-in | avg dbl "
        "| pig@exh | not-ready@exh | field deal-in | deal-in − field, 95% CI |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for m in matches:
        c = m.challenger_rates
        gap = "n/a"
        if len(m.wall_deal_in) == len(m.field_wall_deal_in) >= 2:
            d, lo, hi = field_difference(m)
            gap = f"{d:+.3f} {_interval(lo, hi)}"
        star = " *" if m.significant and not m.failures else ""
        lines.append(
            f"| {m.challenger}{bot_mark(m, m.challenger)} | {m.opponent}{bot_mark(m, m.opponent)} | {m.walls} | "
            f"{m.hands} | {_fmt(m.points)} | "
            f"{_interval(m.ci_low, m.ci_high, signed=False)}{star} | {_fmt(c['win_rate'])} | "
            f"{_fmt(c['self_draw_rate'])} | {_fmt(c['deal_in_rate'])} | {_fmt(c['avg_doublings'], 2)} | "
            f"{_fmt(c['pig_rate'])} | {_fmt(c['not_ready_rate'])} | {_fmt(m.field_rates['deal_in_rate'])} | {gap} |"
        )
    seats = seat_for_seat(matches)
    if seats:
        lines += [
            "",
            "Seat for seat: each challenger against its opponent's own play in the same seats, on the same walls "
            "(paired by wall, 95% CI).",
            "",
            "| challenger | opponent | walls | points − opponent's own | deal-in | opponent's own deal-in "
            "| deal-in − opponent's own |",
            "|---|---|---:|---|---:|---:|---|",
        ]
        by_pair = {(m.challenger, m.opponent): m for m in matches}
        for r in seats:
            (pd, plo, phi), (dd, dlo, dhi) = r["points_difference"], r["deal_in_difference"]
            mark = bot_mark(by_pair[(r["challenger"], r["opponent"])], r["challenger"])
            lines.append(
                f"| {r['challenger']}{mark} | {r['opponent']} | {r['walls']} | {pd:+.3f} {_interval(plo, phi)} "
                f"| {_fmt(r['deal_in'])} | {_fmt(r['opponent_own_deal_in'])} | {dd:+.3f} {_interval(dlo, dhi)} |"
            )
    if any(m.faults or m.failures for m in matches):
        lines += ["", "Outside bots:", ""]
        for m in matches:
            for spec in dict.fromkeys((m.challenger, m.opponent)):
                if spec in m.faults or spec in m.failures:
                    role = f"vs {m.opponent}" if spec == m.challenger else f"as the opponents of {m.challenger}"
                    parts = [fault_summary(m.faults[spec])] if spec in m.faults else []
                    if spec in m.failures:
                        parts.append(f"FAILED: {m.failures[spec].splitlines()[0]}")
                    lines.append(f"- `{spec}` {role}: {'; '.join(parts)}.")
    if ratings:
        lines += ["", "| agent | Bradley-Terry rating (Elo scale) |", "|---|---:|"]
        for name, r in sorted(ratings.items(), key=lambda kv: -kv[1]):
            lines.append(f"| {name} | {r:.0f} |")
    lines.append("")
    lines.append(
        "`*`: the interval excludes zero (n/a: fewer than two walls).  *deal-in − field*: the challenger's deal-in "
        "rate minus the opponents' at the same tables, paired by wall."
    )
    if any(bot_mark(m, spec) for m in matches for spec in (m.challenger, m.opponent)):
        lines.append(
            "`[fallback x %]`: the share of an outside bot's decisions that its fallback played — that part of the "
            "row is not the bot's play; `[FAILED]`: the bot could not be used (see above)."
        )
    return "\n".join(lines) + "\n"


def plot(matches: Sequence[MatchResult], path: str | Path, *, title: str) -> None:
    """A PNG bar chart of points per hand with the 95 % intervals (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [
        "\n".join(
            textwrap.wrap(f"{m.challenger}{bot_mark(m, m.challenger)}", 24)
            + textwrap.wrap(f"vs {m.opponent}{bot_mark(m, m.opponent)}", 24)
        )
        for m in matches
    ]
    means = [m.points for m in matches]
    lo = [m.points - m.ci_low if math.isfinite(m.ci_low) else 0 for m in matches]
    hi = [m.ci_high - m.points if math.isfinite(m.ci_high) else 0 for m in matches]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(matches) + 1.5), 3.8), dpi=120)
    colors = ["tab:green" if m.ci_low > 0 else "tab:red" if m.ci_high < 0 else "tab:gray" for m in matches]
    ax.bar(range(len(matches)), means, yerr=[lo, hi], capsize=4, color=colors)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(matches)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("challenger points / hand (base units)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---- command line ------------------------------------------------------------------------------------------------
def register_cli(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to a ``chuanma`` argument parser (sets ``func`` to :func:`run_cli`)."""
    from agents.registry import GRAMMAR

    p = subparsers.add_parser(
        "eval",
        help="duplicate evaluation: one-vs-three or round robin",
        description="Duplicate evaluation of agents on shared walls (see training/evaluation/evaluate.py).",
        epilog=GRAMMAR,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--variant", default="hongzhong", help="preset name or YAML path (default hongzhong)")
    p.add_argument("--challenger", help="agent that plays every seat of every wall (e.g. value)")
    p.add_argument("--opponent", help="agent whose copies fill the other seats (e.g. greedy)")
    p.add_argument(
        "--matchup",
        nargs=2,
        action="append",
        metavar=("CHALLENGER", "OPPONENT"),
        help="a one-vs-three pair (repeatable; all pairs share the walls)",
    )
    p.add_argument("--round-robin", nargs="+", metavar="AGENT", help="play every ordered pair of these agents")
    p.add_argument(
        "--walls", type=int, default=100, help="number of walls, each played once per seat (default %(default)s)"
    )
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (walls and agent seeds derive from it)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"worker processes (default: one per core, at most one per {WALLS_PER_WORKER} walls or matches; the "
        "results do not depend on it)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the walls as Ray tasks: alone, on a Ray instance started here; 'auto', the cluster of "
        "'ray start'; or HOST:PORT (the same numbers as without --ray)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="folder for eval.json, eval.md, eval.png and bots/ (outside bots' stderr); checked before playing",
    )
    p.add_argument("--bot-timeout", type=float, default=5.0, help="seconds an outside bot may take per decision")
    p.add_argument("--bot-fallback", default="first", help="outside-bot fallback: first, random or an agent name")
    p.add_argument(
        "--bot-max-fallback",
        type=float,
        default=0.05,
        metavar="SHARE",
        help="fail (exit 1) when the fallback plays more than this share of an outside bot's decisions in a "
        "matchup (0-1, default 0.05)",
    )
    p.add_argument(
        "--bot-max-timeouts",
        type=int,
        default=3,
        metavar="N",
        help="an outside bot that times out N decisions in a row is declared dead (default 3)",
    )
    p.add_argument(
        "--bot-on-dead",
        choices=("fail", "fallback"),
        default="fail",
        help="a dead outside bot stops its matchup and fails the run (default), or its fallback plays the rest",
    )
    p.add_argument(
        "--seat-baseline",
        action="store_true",
        help="also play each opponent against itself on the same walls and report every challenger seat for seat "
        "against the opponent's own play",
    )
    p.add_argument(
        "--save-replays", metavar="DIR", default=None, help="write a replay file of each hand into DIR (chuanma replay)"
    )
    p.add_argument(
        "--replay-sample",
        type=int,
        metavar="N",
        default=None,
        help="with --save-replays: only the first N walls of each matchup (every seat)",
    )
    p.add_argument(
        "--engine",
        choices=("auto", "compiled", "python"),
        default="auto",
        help="compiled: many walls at once on the compiled engine, batched agents, --workers processes each playing "
        "a share of the walls (the same numbers; training/evaluation/fast.py); python: hand by hand; auto (default): "
        "compiled when every agent is batchable, the rules are compiled and --ray is not given",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    from training.evaluation.matches import add_match_arguments

    add_match_arguments(p)
    p.set_defaults(func=run_cli)
    return p


def prepare_out(path: str | Path) -> Path:
    """Create the output folder ``path`` and check that files can be written there, before anything is played;
    ``ValueError`` names the problem (a file in the way, no permission)."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(path)!r} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {str(path)!r}: cannot create the folder ({exc.strerror or exc})") from None
    try:
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"--out {str(path)!r}: cannot write into the folder ({exc.strerror or exc})") from None
    return out


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[list[int]]:
    """While active, SIGTERM raises :class:`KeyboardInterrupt` like Ctrl-C; the list yielded records the signals."""
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, old)


def _write_results(
    out: Path, payload: dict[str, Any], table: str, matches: Sequence[MatchResult], title: str, *, stem: str = "eval"
) -> None:
    text = json.dumps(_finite(payload), indent=2, allow_nan=False)
    (out / f"{stem}.json").write_text(text + "\n", encoding="utf-8")
    (out / f"{stem}.md").write_text(table, encoding="utf-8")
    if stem == "eval":
        plot(matches, out / "eval.png", title=title)


def run_cli(args: argparse.Namespace) -> int:
    """Run ``chuanma eval``; prints the markdown table and writes the files under ``--out``.

    Exit status: 0, or 1 when an outside bot failed (:class:`EvaluationFailed`: the table and files are still
    written, the failed rows marked, the reasons on stderr), 130 on Ctrl-C and 143 on SIGTERM (the walls finished
    so far go to ``eval.partial.json`` / ``eval.partial.md``)."""
    import sys

    external = {
        "timeout": args.bot_timeout,
        "fallback": args.bot_fallback,
        "max_timeouts": args.bot_max_timeouts,
        "on_dead": args.bot_on_dead,
    }
    if not args.bot_timeout > 0:
        raise ValueError(f"--bot-timeout must be a positive number of seconds, got {args.bot_timeout!r}")
    if args.bot_max_timeouts < 1:
        raise ValueError(f"--bot-max-timeouts must be at least 1, got {args.bot_max_timeouts!r}")
    if not 0 <= args.bot_max_fallback <= 1:
        raise ValueError(f"--bot-max-fallback must be a share between 0 and 1, got {args.bot_max_fallback!r}")
    cfg = load_variant(args.variant)
    if args.workers is None:
        count = args.matches if args.matches is not None else args.walls
        args.workers = default_workers(max(1, count))  # a count below 1 is refused below, by name
    if args.matches is not None or args.room is not None:  # whole matches (training/evaluation/matches.py)
        from training.evaluation.matches import run_match_cli

        return run_match_cli(args, cfg)
    progress = not args.no_progress
    given = [bool(args.round_robin), bool(args.matchup), bool(args.challenger or args.opponent)]
    if sum(given) != 1:
        raise ValueError("give exactly one of --challenger/--opponent, --matchup (repeatable) or --round-robin")
    if args.round_robin and args.seat_baseline:
        raise ValueError("--seat-baseline applies to --matchup / --challenger runs, not to --round-robin")
    if not args.round_robin and (args.matchup is None and (not args.challenger or not args.opponent)):
        raise ValueError("give --challenger and --opponent (or --matchup A B, or --round-robin AGENT AGENT ...)")
    if args.replay_sample is not None and args.save_replays is None:
        raise ValueError("--replay-sample needs --save-replays DIR")
    out = prepare_out(args.out) if args.out else None
    engine = _resolve_engine(args, cfg)
    common = {
        "engine": engine,
        "walls": args.walls,
        "seed": args.seed,
        "workers": args.workers,
        "progress": progress,
        "external": external,
        "max_fallback": args.bot_max_fallback,
        "bot_log_dir": None if out is None else out / "bots",
        "replay_dir": args.save_replays,
        "replay_sample": args.replay_sample,
        "ray_address": args.ray,
    }
    ratings = None
    failure: EvaluationFailed | None = None
    title = f"{cfg.name}: duplicate one-vs-three, {args.walls} walls"
    with _sigterm_as_interrupt() as received:
        try:
            if args.round_robin:
                rr = round_robin(cfg, args.round_robin, **common)
                matches, ratings, payload = rr.matches, rr.ratings, rr.to_dict()
            else:
                if args.matchup:
                    pairs = [tuple(m) for m in args.matchup]
                else:
                    pairs = [(args.challenger, args.opponent)]
                if args.seat_baseline:
                    pairs += [(o, o) for o in dict.fromkeys(o for _, o in pairs) if (o, o) not in pairs]
                matches = run_matchups(cfg, pairs, **common)
                payload = {"matches": [m.to_dict() for m in matches], "seat_for_seat": seat_for_seat(matches)}
        except EvaluationFailed as exc:
            failure = exc
            matches = exc.results
            payload = {"matches": [m.to_dict() for m in matches], "failed": exc.messages}
        except EvaluationInterrupted as exc:
            name = "SIGTERM" if received else "SIGINT"
            where = ""
            if out is not None:
                payload = {
                    "partial": True,
                    "interrupted_by": name,
                    "walls_finished": exc.walls_done,
                    "walls_requested": exc.walls_total,
                    "matches": [m.to_dict() for m in exc.results],
                    "variant": cfg.name,
                    "seed": args.seed,
                }
                note = (
                    f"**Partial result**: interrupted by {name} after {exc.walls_done} of {exc.walls_total} walls "
                    "(each matchup's row covers the walls it finished).\n\n"
                )
                table = note + to_markdown(exc.results, variant=cfg.name)
                _write_results(out, payload, table, exc.results, title, stem="eval.partial")
                where = f"; the finished walls are in {out / 'eval.partial.json'} (partial)"
            print(
                f"chuanma eval: interrupted by {name} after {exc.walls_done} of {exc.walls_total} walls{where}",
                file=sys.stderr,
            )
            return 143 if received else 130
    payload.update(
        {
            "variant": cfg.name,
            "walls": args.walls,
            "seed": args.seed,
            "protocol": "one-vs-three duplicate",
            "engine": engine,
        }
    )
    table = to_markdown(matches, variant=cfg.name, ratings=ratings)
    print(table)
    if out is not None:
        _write_results(out, payload, table, matches, title)
    if failure is not None:
        print("chuanma eval: error: an outside bot failed; its rows are marked [FAILED]", file=sys.stderr)
        for message in failure.messages:
            print("  " + message.replace("\n", "\n  "), file=sys.stderr)
        return 1
    return 0


def _resolve_engine(args: argparse.Namespace, cfg: RuleConfig) -> str:
    """The engine ``--engine`` picks for this run (:func:`training.evaluation.fast.choose_engine`)."""
    engine = getattr(args, "engine", "python")
    if engine == "python":
        return engine
    from training.evaluation.fast import choose_engine

    specs = list(args.round_robin or [x for pair in (args.matchup or []) for x in pair])
    specs += [s for s in (args.challenger, args.opponent) if s]
    return choose_engine(
        engine,
        cfg,
        specs,
        replays=args.save_replays is not None,
        ray=getattr(args, "ray", None) is not None,
    )


def _finite(x: Any) -> Any:
    """``x`` with NaN and infinities replaced by ``None`` (strict JSON has neither)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def iter_walls(seed: int, walls: int) -> Iterator[bytes]:
    """The deal seeds of an evaluation (for replaying a wall outside the evaluator)."""
    for w in range(walls):
        yield wall_seed(seed, w)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.evaluation.evaluate [eval options]``: the ``chuanma eval`` command without the
    dispatcher."""
    import sys

    from training.evaluation import (
        evaluate,  # the importable module (not __main__), so worker processes can unpickle tasks
    )

    parser = argparse.ArgumentParser(prog="python -m training.evaluation.evaluate")
    sub = parser.add_subparsers(dest="command", required=True)
    evaluate.register_cli(sub)
    args = parser.parse_args(["eval", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
