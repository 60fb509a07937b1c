"""Batched duplicate evaluation (批量复式评测): many walls at once on the compiled engine, the same numbers.

:func:`run_matchups_batched` plays what :func:`training.evaluation.evaluate.run_matchups` plays — every rotation of
every wall of every matchup, wall ``w`` dealt from ``wall_seed(seed, w)``, the agent of seat ``q`` in rotation ``r``
made from ``agent_seed(seed, matchup, w, r, q)`` — but ``slots`` hands at a time on one
:class:`envs.compiled.backend.CompiledBatch` (the batch protocol of :mod:`envs.backend` that
:class:`envs.vector_env.VectorEnv` drives in self-play mode: every seat's decision is a step).  Each step asks every
*batch agent* once for all the seats it plays in that step (:meth:`BatchSeats.act`).  The hand records have the
format of the Python evaluator's, so the same :func:`~training.evaluation.evaluate.summarize` turns them into
:class:`~training.evaluation.evaluate.MatchResult` — equal to the Python evaluator's for the same walls, agents and
seed (``tests/training/test_fast_eval.py``).

Batch agents
------------
:func:`batch_agent` is the one place where an agent specification becomes a :class:`BatchSeats`:

* a policy checkpoint (``policy:PATH``; deterministic): one :class:`agents.policy.PolicyAgent` per run, as the Python
  evaluator keeps, asked through its ``act_batch`` (one forward pass for all its seats);
* ``greedy``, ``value``, ``defensive`` (any options) and ``compiled:NAME``: the compiled baseline of
  :mod:`agents.compiled`, asked once per step for all its seats (the Python agent's decisions, tested row by row);
* an object with ``act_batch(observations, masks)``: asked once per step;
* any other registry agent (``random`` ...): one fresh agent per seat and hand made with the Python evaluator's seed
  and ``reset(seat, cfg)``, each asked through ``act`` in a loop — every random stream and per-hand state exactly as
  the Python evaluator has them.

Outside bots (``external:``) are not batchable (they read the event stream): :func:`choose_engine` keeps them, and
replay files, on the Python evaluator.

Hand statistics
---------------
Scores come from the state rows; every win (seat, who paid as the discarder, doublings) is recorded by the hand's
ledger as it settles (:class:`_StatsLedger`: the doublings ``Ledger._priced`` reports for the win, the discarder as
``Game`` records it — a 杠上花 paid as a discard names the kong's discarder); at an exhaustive draw the seats that
never won are judged by :func:`envs.scoring.settlement.is_pig` and :func:`~envs.scoring.settlement.ready_value` on
their end state, as :func:`training.evaluation.evaluate.seat_stats` does. Every fan table reports the doublings
``Game.wins`` keeps (断卡根, which prices a win per payer: the price with the event's own 报胡). A configuration with a
flag the compiled engine does not play is refused by :func:`compiled_refusal`, and ``auto`` stays on the Python
evaluator for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from envs.compiled import kernel as K
from envs.compiled.backend import CompiledBatch
from envs.compiled.ledger import Ledger
from envs.compiled.support import unsupported
from envs.core.actions import ACTION_SPACE_SIZE, action_name
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.observation import OBS_SHAPE
from envs.scoring.settlement import is_pig, paid_as_discard, ready_value
from training.evaluation.cores import WALLS_PER_WORKER, one_blas_thread, share_cores
from training.evaluation.evaluate import (
    EvaluationInterrupted,
    HandStats,
    IllegalAgentAction,
    MatchResult,
    agent_seed,
    summarize,
    wall_seed,
)

__all__ = [
    "EVAL_ENGINES",
    "BatchSeats",
    "batch_agent",
    "batchable",
    "choose_engine",
    "compiled_refusal",
    "run_matchups_batched",
]

EVAL_ENGINES = ("auto", "compiled", "python")


# ---- batch agents ------------------------------------------------------------------------------------------------
class BatchSeats(Protocol):
    """The seats one agent specification plays in a batch of hands."""

    stateless: bool
    """Whether the agent keeps nothing from one decision to the next: a row with one legal action then plays it
    without asking, and a caller may leave such rows out of :meth:`act`."""

    def new_hand(self, slot: int, seat: int, seed: int) -> None:
        """A new hand in ``slot`` where this agent plays ``seat``; ``seed``: the Python evaluator's agent seed."""
        ...

    def act(self, observations: np.ndarray, masks: np.ndarray, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """One action per row (row ``j``: ``seats[j]`` of slot ``slots[j]``)."""
        ...


class _Shared:
    """A stateless batch agent (``act_batch(observations, masks)``): one call for every seat it plays that has a
    choice (a row with one legal action plays it without asking: a stateless agent has nothing else to do)."""

    stateless = True

    def __init__(self, agent: Any, cfg: RuleConfig) -> None:
        self.agent = agent
        self.cfg = cfg
        self._reset = getattr(agent, "reset", None)

    def new_hand(self, slot: int, seat: int, seed: int) -> None:
        if self._reset is not None:
            self._reset(seat, self.cfg)  # a policy checks the variant and builds its feature planes once

    def act(self, observations: np.ndarray, masks: np.ndarray, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        legal = np.asarray(masks).astype(bool)
        out = np.argmax(legal, axis=1).astype(np.int64)  # the legal action of a row with one
        choose = np.flatnonzero(legal.sum(axis=1) > 1)
        if 0 < choose.size == out.size:  # every row has a choice: the rows as given, no copy
            out[:] = self.agent.act_batch(observations, masks)
        elif choose.size:
            out[choose] = np.asarray(self.agent.act_batch(observations[choose], masks[choose]), dtype=np.int64)
        return out


class _Looped:
    """Any registry agent asked one decision at a time: a fresh instance per seat and hand made with the Python
    evaluator's seed, or (``keep``: networks, which the Python evaluator keeps for the run) one instance per seat."""

    stateless = False  # an agent may keep what it saw: it is asked at every decision, as in the Python evaluator

    def __init__(self, make: Callable[[int], Any], cfg: RuleConfig, *, keep: bool = False) -> None:
        self.make = make
        self.cfg = cfg
        self.keep = keep
        self.kept: dict[int, Any] = {}
        self.agents: dict[tuple[int, int], Any] = {}

    def new_hand(self, slot: int, seat: int, seed: int) -> None:
        if self.keep:
            agent = self.kept.get(seat)
            if agent is None:
                agent = self.kept[seat] = self.make(seed)
        else:
            agent = self.make(seed)
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seat, self.cfg)
        self.agents[(slot, seat)] = agent

    def act(self, observations: np.ndarray, masks: np.ndarray, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        agents = self.agents
        out = np.empty(len(slots), dtype=np.int64)
        for j, (i, q) in enumerate(zip(slots.tolist(), seats.tolist())):
            out[j] = agents[(i, q)].act(observations[j], masks[j])
        return out


def batchable(spec: str) -> bool:
    """Whether :func:`batch_agent` can play ``spec`` (every registry agent but outside bots)."""
    from agents.registry import parse_spec

    return parse_spec(spec).kind != "external"


def batch_agent(spec: str | Any, cfg: RuleConfig) -> BatchSeats:
    """The :class:`BatchSeats` of an agent specification (or of an object with ``act_batch``): see the module
    docstring.  This is the one place where batch agents are made."""
    if not isinstance(spec, str):
        if not hasattr(spec, "act_batch"):
            raise ValueError(f"{spec!r} has no act_batch(observations, masks)")
        return _Shared(spec, cfg)
    from agents.registry import make_agent, parse_spec

    parsed = parse_spec(spec)
    if parsed.kind == "external":
        raise ValueError(
            f"{spec!r}: outside bots are not batchable (they read the event stream); use the Python engine"
        )
    compiled = importlib.import_module("agents.compiled")
    if parsed.kind == "compiled":  # compiled baselines answer a whole batch (agents.compiled)
        return _Shared(compiled.make_batch_agent(parsed.argument, cfg, **parsed.options), cfg)
    if parsed.kind in compiled.COMPILED_BASELINES:  # the same decisions as the Python agent (tested row by row)
        return _Shared(compiled.make_batch_agent(parsed.kind, cfg, **parsed.options), cfg)
    if parsed.kind in ("policy", "pretrained", "sb3"):  # networks: kept for the run, as in evaluate.py
        network = make_agent(parsed, 0, variant=cfg)
        if hasattr(network, "act_batch"):  # PolicyAgent: deterministic, one forward pass for all its seats
            return _Shared(network, cfg)
        return _Looped(lambda seed: make_agent(parsed, seed, variant=cfg), cfg, keep=True)
    return _Looped(lambda seed: make_agent(parsed, seed, variant=cfg), cfg)


# ---- engine choice -----------------------------------------------------------------------------------------------
def compiled_refusal(cfg: RuleConfig) -> str | None:
    """Why the batched evaluator cannot play ``cfg`` (None: it can)."""
    flags = unsupported(cfg)
    if flags:
        return f"the compiled engine does not play {', '.join(flags)}"
    return None


def choose_engine(
    engine: str,
    cfg: RuleConfig,
    specs: Sequence[str],
    *,
    replays: bool = False,
    ray: bool = False,
) -> str:
    """``"compiled"`` or ``"python"`` for ``--engine`` ``engine``: ``auto`` is compiled when every agent is batchable,
    no replay files are asked for, the rules are played by the batched evaluator and the walls are not played as Ray
    tasks (``ray``), which play hand by hand (worker processes each play their share of the walls batched, see
    :func:`run_matchups_batched`); ``compiled`` refuses (``ValueError`` naming the reason) where ``auto`` would fall
    back."""
    if engine not in EVAL_ENGINES:
        raise ValueError(f"engine must be one of {list(EVAL_ENGINES)}, got {engine!r}")
    if engine == "python":
        return "python"
    reasons = []
    bots = [s for s in dict.fromkeys(specs) if not batchable(s)]
    if bots:
        reasons.append(f"outside bots are not batchable ({', '.join(bots)})")
    if replays:
        reasons.append("replay files are written by the Python evaluator")
    if ray:
        reasons.append("--ray plays the walls as Ray tasks, hand by hand")
    refusal = compiled_refusal(cfg)
    if refusal:
        reasons.append(refusal)
    if not reasons:
        return "compiled"
    if engine == "compiled":
        raise ValueError(f"--engine compiled: {'; '.join(reasons)} (use --engine python or auto)")
    return "python"


# ---- hand statistics ---------------------------------------------------------------------------------------------
class _StatsLedger(Ledger):
    """A ledger that also records each win as ``(seat, from_seat, doublings)`` (``Game.wins``)."""

    __slots__ = ("_last", "wins")

    def __init__(self, cfg: RuleConfig, table: np.ndarray) -> None:
        super().__init__(cfg, table)
        self.wins: list[tuple[int, int | None, int]] = []
        self._last = 0

    def copy(self) -> _StatsLedger:
        new = super().copy()
        assert isinstance(new, _StatsLedger)
        new.wins = list(self.wins)
        new._last = self._last
        return new

    def _priced(self, doublings: int) -> None:
        self._last = doublings  # the price of the win being settled (Ledger._win calls it once per win)

    def _win(self, row: np.ndarray, ev: np.ndarray) -> None:
        super()._win(row, ev)
        payer, feeder = int(ev[K.E_PAYER]), int(ev[K.E_FEEDER])
        frm: int | None = payer if payer >= 0 else None
        if (
            frm is None
            and int(ev[K.E_HOW]) == K.HOW_ZIMO
            and paid_as_discard(self.cfg, "zimo", feeder if feeder >= 0 else None)
        ):
            frm = feeder
        self.wins.append((int(ev[K.E_SEAT]), frm, self._last))


class _StatsBatch(CompiledBatch):
    """:class:`CompiledBatch` whose hands keep a :class:`_StatsLedger`."""

    ledger_type = _StatsLedger  # records a win at the deal too

    def hand_stats(self, i: int) -> list[HandStats]:
        """Every seat's :class:`HandStats` of slot ``i``'s finished hand (``evaluate.seat_stats``)."""
        from envs.compiled.layout import EXHAUSTED, SCORES, WON

        cfg = self.cfg
        row = self.state[i]
        ledger = self._ledgers[i]
        assert isinstance(ledger, _StatsLedger)
        exhausted = bool(row[EXHAUSTED])
        out = []
        for q in range(cfg.num_players):
            mine = [w for w in ledger.wins if w[0] == q]
            won = bool(mine)
            pig = not_ready = False
            if exhausted and not won:
                assert not row[WON + q]
                end = Ledger._player_end(row, q)
                pig = is_pig(cfg, end)
                not_ready = not pig and ready_value(cfg, end) is None
            out.append(
                HandStats(
                    points=int(row[SCORES + q]) / cfg.base_unit,
                    won=won,
                    self_draw=any(w[1] is None for w in mine),
                    deal_in=any(w[1] == q for w in ledger.wins),
                    doublings=tuple(w[2] for w in mine),
                    exhausted=exhausted,
                    pig=pig,
                    not_ready=not_ready,
                )
            )
        return out


# ---- playing -----------------------------------------------------------------------------------------------------
def run_matchups_batched(
    variant: str | RuleConfig,
    pairs: Sequence[tuple[str, str]],
    *,
    walls: int = 100,
    seed: int = 0,
    slots: int = 256,
    progress: bool = False,
    agents: dict[str, Any] | None = None,
    workers: int = 1,
) -> list[MatchResult]:
    """One-vs-three of each ``(challenger, opponent)`` pair on ``walls`` walls, ``slots`` hands at a time on the
    compiled engine (see the module docstring); the result of :func:`training.evaluation.evaluate.run_matchups`.

    ``agents``: ready batch agents by specification (objects with ``act_batch``), used instead of
    :func:`batch_agent`'s (one process).  ``workers``: at most this many processes, each playing a share of the
    walls batched, one per :data:`~training.evaluation.cores.WALLS_PER_WORKER` walls (the same results: every
    hand's seeds follow from its wall).  Ctrl-C raises :class:`~training.evaluation.evaluate.EvaluationInterrupted`
    with the walls whose every rotation finished."""
    cfg = load_variant(variant)
    refusal = compiled_refusal(cfg)
    if refusal:
        raise ValueError(f"{cfg.name}: {refusal}")
    pairs = [(str(a), str(b)) for a, b in pairs]
    if not pairs:
        raise ValueError("give at least one (challenger, opponent) pair")
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        raise ValueError(f"slots must be a positive int, got {slots!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if workers > 1 and agents:
        raise ValueError("ready batch agents (agents=...) are played in this process; use workers=1")
    workers = min(workers, max(1, walls // WALLS_PER_WORKER))
    if workers > 1:
        records = _play_in_workers(cfg, pairs, walls, seed, slots, workers, progress)
    else:
        with one_blas_thread():  # a policy's forward passes on at most ``slots`` rows (benchmarks/README.md)
            records = _play(cfg, pairs, range(walls), seed, slots, progress, agents, total_walls=walls)
    return _results(records, pairs)


def _play(
    cfg: RuleConfig,
    pairs: list[tuple[str, str]],
    wall_range: range,
    seed: int,
    slots: int,
    progress: bool,
    agents: dict[str, Any] | None,
    *,
    total_walls: int,
) -> list[dict[str, Any]]:
    """The hand records of every rotation of the walls ``wall_range`` of every matchup, batched in this process."""
    n = cfg.num_players
    hands = [(m, w, r) for m in range(len(pairs)) for w in wall_range for r in range(n)]
    made: dict[str, Any] = {}

    def seats_of(spec: str) -> BatchSeats:  # one BatchSeats per specification, shared by the matchups
        if spec not in made:
            given = (agents or {}).get(spec)
            made[spec] = batch_agent(spec if given is None else given, cfg)
        return made[spec]

    players = [[seats_of(a if q == r else b) for q in range(n)] for a, b in pairs for r in range(n)]
    # players[m * n + r][q]: the batch agent of seat q in rotation r of matchup m
    size = max(1, min(slots, len(hands)))
    backend = _StatsBatch(cfg, size)
    slot_hand = [-1] * size
    records: list[dict[str, Any]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(hands), desc="hands (batched)", unit="hand", dynamic_ncols=True)
    nxt = 0

    def finish(i: int) -> None:
        m, w, r = hands[slot_hand[i]]
        seats = [{"stats": s.record(), "faults": {}} for s in backend.hand_stats(i)]
        records.append({"matchup": m, "wall": w, "rotation": r, "seats": seats})
        slot_hand[i] = -1
        if bar is not None:
            bar.update(1)

    def deal(i: int) -> None:
        nonlocal nxt
        while nxt < len(hands):
            h = nxt
            nxt += 1
            m, w, r = hands[h]
            slot_hand[i] = h
            backend.deal(i, wall_seed(seed, w))
            for q, player in enumerate(players[m * n + r]):
                player.new_hand(i, q, agent_seed(seed, m, w, r, q))
            if not backend.is_over(i):
                return
            finish(i)  # over at the deal (four 红中)

    obs = np.zeros((size, *OBS_SHAPE), dtype=np.float32)
    masks = np.zeros((size, ACTION_SPACE_SIZE), dtype=np.int8)
    seats = np.full(size, -1, dtype=np.int64)
    actions = np.zeros(size, dtype=np.int64)
    try:
        for i in range(size):
            deal(i)
        while True:
            rows = np.asarray([i for i in range(size) if slot_hand[i] >= 0], dtype=np.int64)
            if not rows.size:
                break
            backend.observe_next(rows, seats, True, obs, masks)
            groups: dict[int, tuple[BatchSeats, list[int]]] = {}
            for i in rows.tolist():
                m, _, r = hands[slot_hand[i]]
                player = players[m * n + r][int(seats[i])]
                groups.setdefault(id(player), (player, []))[1].append(i)
            for player, members in groups.values():
                idx = np.asarray(members, dtype=np.int64)
                chosen = player.act(obs[idx], masks[idx], idx, seats[idx])
                actions[idx] = chosen
            bad = backend.first_illegal(masks[rows], actions[rows])
            if bad >= 0:
                i = int(rows[bad])
                a, q = int(actions[i]), int(seats[i])
                legal = ", ".join(action_name(int(k)) for k in np.flatnonzero(masks[i]))
                shown = action_name(a) if 0 <= a < ACTION_SPACE_SIZE else str(a)
                m, _, r = hands[slot_hand[i]]
                spec = pairs[m][0] if q == r else pairs[m][1]
                raise IllegalAgentAction(f"{spec!r} (seat {q}) chose illegal {shown}; legal: {legal}")
            backend.step(rows, seats[rows], actions[rows])
            for i in rows.tolist():
                if backend.is_over(i):
                    finish(i)
                    deal(i)
    except KeyboardInterrupt:
        _interrupted(records, pairs, n, total_walls)
    finally:
        if bar is not None:
            bar.close()
    return records


def _interrupted(records: list[dict[str, Any]], pairs: list[tuple[str, str]], n: int, total_walls: int) -> None:
    """Raise :class:`EvaluationInterrupted` with the walls of ``records`` whose every rotation finished."""
    done_walls = _complete_walls(records, n)
    kept = [r for r in records if (r["matchup"], r["wall"]) in done_walls]
    raise EvaluationInterrupted(_results(kept, pairs), len(done_walls), len(pairs) * total_walls) from None


def _init_worker(workers: int) -> None:
    """Worker initializer: Ctrl-C is the parent's to handle; this worker's share of the cores (:func:`share_cores`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    share_cores(workers)


def _play_chunk(task: tuple[RuleConfig, list[tuple[str, str]], int, int, int, int]) -> list[dict[str, Any]]:
    """Worker: the records of walls ``[lo, hi)`` (:func:`_play`)."""
    cfg, pairs, lo, hi, seed, slots = task
    return _play(cfg, pairs, range(lo, hi), seed, slots, False, None, total_walls=hi - lo)


def _play_in_workers(
    cfg: RuleConfig, pairs: list[tuple[str, str]], walls: int, seed: int, slots: int, workers: int, progress: bool
) -> list[dict[str, Any]]:
    """The records of every wall, played by ``workers`` spawned processes in chunks of walls (each chunk batched;
    four chunks a worker, at least 16 walls a chunk, so that an interrupted run keeps the finished ones)."""
    import multiprocessing

    size = max(16, -(-walls // (4 * workers)))
    tasks = [(cfg, pairs, lo, min(walls, lo + size), seed, slots) for lo in range(0, walls, size)]
    records: list[dict[str, Any]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=walls * len(pairs), desc="walls (batched)", unit="wall", dynamic_ncols=True)
    ctx = multiprocessing.get_context("spawn")
    processes = min(workers, len(tasks))
    pool = ctx.Pool(processes, initializer=_init_worker, initargs=(processes,))
    try:
        for chunk in pool.imap_unordered(_play_chunk, tasks):
            records.extend(chunk)
            if bar is not None:
                bar.update(len(chunk) // cfg.num_players)
        pool.close()
    except KeyboardInterrupt:
        pool.terminate()
        _interrupted(records, pairs, cfg.num_players, walls)
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
        if bar is not None:
            bar.close()
    return records


def _complete_walls(records: list[dict[str, Any]], n: int) -> set[tuple[int, int]]:
    count: dict[tuple[int, int], int] = {}
    for rec in records:
        key = (rec["matchup"], rec["wall"])
        count[key] = count.get(key, 0) + 1
    return {k for k, v in count.items() if v == n}


def _results(records: list[dict[str, Any]], pairs: Sequence[tuple[str, str]]) -> list[MatchResult]:
    records = sorted(records, key=lambda r: (r["matchup"], r["wall"], r["rotation"]))
    return [summarize([r for r in records if r["matchup"] == m], a, b) for m, (a, b) in enumerate(pairs)]
