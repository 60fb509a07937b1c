"""Behaviour-cloning warm start (行为克隆): imitate a rule-based teacher before PPO.

:func:`collect_decisions` plays whole hands of the AEC environment with the teacher in every seat and records each
decision that has more than one legal action: the observation, the legal mask, the teacher's action and the
return-to-go of the deciding seat (its hand score change from that decision to the end of the hand, in reward
units: ``/ base_unit * reward_scale``, the same as the learner's PPO rewards).  :func:`train_bc` fits the policy
network with cross-entropy on the masked logits plus ``value_coef`` times the squared error of the value head, so
PPO starts from a sensible policy *and* critic.
"""

from __future__ import annotations

import mmap
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from numba import njit
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from tqdm.auto import tqdm

from agents.learned.net_input import NetInput
from agents.registry import make_agent
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.observation import OBS_SHAPE
from envs.sichuan_mahjong_v0 import raw_env
from training.evaluation.cores import available_cores
from training.ppo import masked_log_probs
from training.wall_reference import WallReference, agent_seed


@dataclass
class Decisions:
    """Recorded teacher decisions (observations stored as float16 to halve the memory)."""

    observations: (
        np.ndarray
    )  # (N, rows, 34) float16: the network input (agents.learned.net_input), see collect_decisions
    masks: np.ndarray  # (N, 183) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32
    hands: int
    seats: np.ndarray  # (N,) int64: the deciding seat
    hand_seeds: list[int]  # the wall seed of each hand played, in order (hand_seeds(seed))
    hand_of: np.ndarray  # (N,) int64: the index into hand_seeds of each decision's hand

    def __len__(self) -> int:
        return int(self.actions.shape[0])


@dataclass(frozen=True)
class BCReport:
    decisions: int
    hands: int
    epochs: int
    train_accuracy: float
    heldout_accuracy: float
    final_policy_loss: float
    final_value_loss: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def hand_seeds(seed: int) -> Iterator[int]:
    """The wall seeds of the teacher hands of ``seed``, in the order both collectors deal them."""
    seeds = np.random.SeedSequence([seed, 0xBC])
    while True:
        yield int(seeds.spawn(1)[0].generate_state(1)[0])


def collect_decisions(
    cfg: RuleConfig,
    teacher: str,
    num_decisions: int,
    seed: int,
    *,
    env_options: dict[str, Any] | None = None,
    progress: bool = False,
    hand_features: bool = False,
    advisor: str = "",
    batched: bool | None = None,
    slots: int = 128,
    reference: WallReference | None = None,
    threads: int | None = None,
) -> Decisions:
    """Play teacher-only hands (seeds derived from ``seed``) until ``num_decisions`` decisions are recorded.

    ``hand_features`` / ``advisor``: record the network input of a policy with ``net.hand_features`` /
    ``net.advisor`` (:mod:`agents.learned.net_input`) instead of the bare observation.
    ``batched``: play ``slots`` hands at once on the compiled engine with the teacher asked once per step for all
    its seats (:func:`collect_batched`, the same decisions, in ``threads`` lanes side by side); ``None`` (default):
    whenever the compiled engine plays the rules, else hand by hand on the AEC environment.  ``reference``: the
    returns are relative to the reference agent's points on the same wall (the trainer's ``env.reward_baseline``,
    :mod:`training.wall_reference`).
    """
    if num_decisions <= 0:
        raise ValueError(f"num_decisions must be positive, got {num_decisions}")
    options = {"match": False, **dict(env_options or {})}  # teacher hands: single hands, 赤羽 included
    if options["match"] or options.get("room"):
        raise ValueError("behaviour-cloning data is recorded from single hands; env_options name a match")
    if batched is None:
        from envs.compiled.support import unsupported

        batched = not unsupported(load_variant(cfg, **dict(options.get("rules") or {})))
    if batched:
        return collect_batched(
            cfg,
            teacher,
            num_decisions,
            seed,
            env_options=options,
            progress=progress,
            hand_features=hand_features,
            advisor=advisor,
            slots=slots,
            reference=reference,
            threads=threads,
        )
    env = raw_env(variant=cfg, **options)
    factor = env.reward_factor
    n = env.cfg.num_players
    features = NetInput(env.cfg, hand_features=hand_features, advisor=advisor)
    obs_buf = np.zeros((num_decisions, features.rows, OBS_SHAPE[1]), dtype=np.float16)
    mask_buf = np.zeros((num_decisions, ACTION_SPACE_SIZE), dtype=bool)
    act_buf = np.zeros(num_decisions, dtype=np.int64)
    ret_buf = np.zeros(num_decisions, dtype=np.float32)
    seat_buf = np.zeros(num_decisions, dtype=np.int64)
    hand_buf = np.zeros(num_decisions, dtype=np.int64)
    walls = hand_seeds(seed)
    dealt: list[int] = []
    count = 0
    hands = 0
    bar = tqdm(total=num_decisions, desc="BC data", unit="dec", disable=not progress, leave=False)
    while count < num_decisions:
        hand_seed = next(walls)
        dealt.append(hand_seed)
        env.reset(seed=hand_seed)
        teachers = [make_agent(teacher, seed=agent_seed(hand_seed, s)) for s in range(n)]
        for s, t in enumerate(teachers):
            t.reset(s, env.hand_cfg)
        start = count
        seats: list[int] = []
        score_then: list[int] = []
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            o = env.observe(agent)
            seat = env.agent_name_mapping[agent]
            mask = o["action_mask"]
            action = teachers[seat].act(o["observation"], mask)
            if count < num_decisions and int(mask.sum()) > 1:
                known = action if features.advisor is not None and features.advisor.name == teacher else None
                features.build(o["observation"], mask, out=obs_buf[count], advice=known)
                mask_buf[count] = mask.astype(bool)
                act_buf[count] = action
                seats.append(seat)
                score_then.append(env.scores[seat])
                count += 1
            env.step(action)
        final = np.asarray(env.scores, dtype=np.float64)
        if reference is not None and seats:
            final = final - reference.take(hand_seed)
        for i, (seat, then) in enumerate(zip(seats, score_then)):
            ret_buf[start + i] = (final[seat] - then) * factor
            seat_buf[start + i] = seat
            hand_buf[start + i] = hands
        hands += 1
        bar.update(count - start)
    bar.close()
    return Decisions(obs_buf, mask_buf, act_buf, ret_buf, hands, seat_buf, dealt[:hands], hand_buf)


def collect_batched(
    cfg: RuleConfig,
    teacher: str,
    num_decisions: int,
    seed: int,
    *,
    env_options: dict[str, Any] | None = None,
    progress: bool = False,
    hand_features: bool = False,
    advisor: str = "",
    slots: int = 128,
    reference: WallReference | None = None,
    threads: int | None = None,
) -> Decisions:
    """:func:`collect_decisions` on the compiled engine, ``slots`` hands at a time (批量采集): the same hands (seeds),
    teachers (one per seat and hand, seeded as there, made by :func:`training.evaluation.fast.batch_agent`, the place
    where compiled teachers answer a whole batch), observations, masks, actions and returns, in the same order — the
    hands finish out of order and are put back in order.  No hand is dealt, and a hand in play is abandoned, once
    the hands before it have recorded ``num_decisions`` decisions between them (their counts only grow, so it could
    never be used).  ``env_options``: the AEC env's (``reward_scale``, ``normalize_reward`` and ``rules`` matter here;
    the engine is the compiled one).

    ``threads``: lanes of play side by side (并行通道), each in a thread of its own with its own ``slots`` tables,
    teacher and network input, taking the next hand to deal from one shared sequence; the compiled calls (tables,
    teacher, feature planes) release the GIL, so two lanes keep two cores busy.  ``None``: one lane per CPU core this
    process may use, at most :data:`MAX_LANES`.  The data does not depend on it: a hand's decisions are its own, and
    they are put in order by hand."""
    from envs.backend import make_batch
    from training.evaluation.fast import batch_agent

    if num_decisions <= 0:
        raise ValueError(f"num_decisions must be positive, got {num_decisions}")
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        raise ValueError(f"slots must be a positive int, got {slots!r}")
    lanes = lane_count(threads)
    options = dict(env_options or {})
    rules = load_variant(cfg, **dict(options.get("rules") or {}))
    factor = float(options.get("reward_scale", 1.0)) / (rules.base_unit if options.get("normalize_reward") else 1)
    n = rules.num_players
    rows_per_input = NetInput(rules, hand_features=hand_features, advisor=advisor).rows
    bar = tqdm(total=num_decisions, desc="BC data", unit="dec", disable=not progress, leave=False)
    book = _HandBook(seed, num_decisions, bar)
    store = _RowStore(rows_per_input, num_decisions + num_decisions // 4 + lanes * slots)

    def lane() -> None:
        """Play hands from ``book`` on a batch of this lane's own until none is left to deal, recording each decision
        with a choice in ``store``."""
        features = NetInput(rules, hand_features=hand_features, advisor=advisor)
        known_advice = features.advisor is not None and features.advisor.name == teacher
        backend = make_batch("compiled", rules, slots)
        player = batch_agent(teacher, rules)
        slot_hand = np.full(slots, -1, dtype=np.int64)

        def deal(i: int) -> None:
            while (got := book.next_hand()) is not None:
                h, hand = got
                backend.deal(i, hand)
                for q in range(n):
                    player.new_hand(i, q, agent_seed(hand, q))
                slot_hand[i] = h
                if not backend.is_over(i):
                    return
                book.finish(h, backend.scores(i))
            slot_hand[i] = -1

        obs = np.zeros((slots, *OBS_SHAPE), dtype=np.float32)
        masks = np.zeros((slots, ACTION_SPACE_SIZE), dtype=np.int8)
        seats = np.zeros(slots, dtype=np.int64)
        for i in range(slots):
            deal(i)
        while not book.stopped:
            rows = np.flatnonzero(slot_hand >= 0)
            if not rows.size:
                break
            backend.observe_next(rows, seats, True, obs, masks)
            every = rows.size == slots  # every slot in play: the buffers themselves, no copy of the rows
            legal = masks if every else masks[rows]
            chosen = np.flatnonzero(legal.sum(axis=1) > 1)  # decisions with a choice are recorded
            at = rows[chosen]
            seen, seen_masks = obs[at], masks[at]
            if player.stateless:  # a row without a choice plays its one action unasked; the teacher reads `seen`
                actions = legal.argmax(axis=1)
                if chosen.size:
                    actions[chosen] = player.act(seen, seen_masks, at, seats[at])
            else:
                actions = player.act(obs if every else obs[rows], legal, rows, seats[rows])
            bad = backend.first_illegal(legal, actions)
            if bad >= 0:
                raise ValueError(f"teacher {teacher!r} chose an illegal action {int(actions[bad])}")
            if chosen.size:
                advice = actions[chosen] if known_advice else None
                blocks = features.feature_blocks(seen, seen_masks, advice=advice)
                hands, who = slot_hand[at], seats[at]
                store.add(seen, blocks, seen_masks, actions[chosen], who, hands, backend.seat_scores(at, who))
                book.record(hands)
            backend.step(rows, seats[rows], actions)
            last = book.last_needed()
            hands = slot_hand[rows]
            over = backend.over()[rows]
            leaving = (hands > last) | over
            for i, h, ended in zip(rows[leaving].tolist(), hands[leaving].tolist(), over[leaving].tolist()):
                if h > last:  # the hands before it hold enough decisions: it can never be used
                    slot_hand[i] = -1
                elif ended:
                    book.finish(h, backend.scores(i))
                    slot_hand[i] = -1
                    deal(i)

    _run_lanes(lane, lanes, book)
    bar.close()
    prefix = book.prefix
    recorded = book.recorded
    kept = book.dealt[:prefix]
    if reference is not None:
        reference.add(hand for h, hand in enumerate(kept) if recorded[h])  # the walls in one batch
    hands = store.hands[: store.size]
    # the decisions of the finished prefix, hand by hand, each hand's in the order it made them (a hand is played
    # by one lane, which records its steps in order)
    order = np.flatnonzero(hands < prefix)
    order = order[np.argsort(hands[order], kind="stable")][:num_decisions]
    if order.size < num_decisions:
        raise RuntimeError(f"BC data: {order.size} decisions recorded, {num_decisions} asked for")
    points = np.array([book.finals[h] for h in range(prefix)], dtype=np.float64)
    if reference is not None:
        for h in range(prefix):
            if recorded[h]:
                points[h] -= reference.take(kept[h])
    hands, who, then = hands[order], store.seats[order], store.then[order]
    returns = ((points[hands, who] - then) * factor).astype(np.float32)
    acts, mask_buf = store.actions[order], store.masks[order]
    obs_buf = store.rows_in_order(order)
    return Decisions(obs_buf, mask_buf, acts, returns, prefix, who, kept, hands)


MAX_LANES = 2
"""The most lanes :func:`collect_batched` plays by default: beyond two, the lanes' Python (the steps' bookkeeping,
which holds the GIL) is what they wait for."""


LANE_SWITCH_INTERVAL = 5e-5
"""The interpreter's thread switch interval (seconds) while lanes play, put back after.  A lane whose compiled call
returns waits for the GIL until the lane running Python gives it up, by default after 5 ms; at every return of
every step that left two 红中 lanes at 16 000-25 000 decisions a second from one run to the next on two cores, at
1 ms 17 000-24 000, at 50 µs 22 700-24 600 (``benchmarks/README.md``)."""


def lane_count(threads: int | None) -> int:
    """The number of lanes of ``threads`` (see :func:`collect_batched`)."""
    if threads is None:
        return max(1, min(MAX_LANES, available_cores()))
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    return threads


class _HandBook:
    """The hands of one batched collection, shared by its lanes (every method takes the lock): the next hand to deal,
    the decisions each hand has recorded, the final scores of the finished hands and the finished prefix."""

    def __init__(self, seed: int, num_decisions: int, bar: Any) -> None:
        self.lock = threading.Lock()
        self.walls = hand_seeds(seed)
        self.num_decisions = num_decisions
        self.bar = bar
        self.dealt: list[int] = []  # the wall seed of every hand dealt, by hand number
        self.recorded = np.zeros(64, dtype=np.int64)  # decisions recorded by each hand dealt, by hand number
        self.total = 0  # decisions recorded by every hand dealt
        self.finals: dict[int, list[int]] = {}  # the final scores of each finished hand
        self.prefix = 0  # hands 0 .. prefix - 1 are finished
        self.prefix_decisions = 0  # and recorded this many decisions between them
        self.stopped = False  # a lane failed: the others stop

    def next_hand(self) -> tuple[int, int] | None:
        """``(hand number, wall seed)`` of the next hand to deal, or None once enough decisions are recorded."""
        with self.lock:
            if self.total >= self.num_decisions or self.stopped:
                return None
            h = len(self.dealt)
            if h == self.recorded.size:
                self.recorded = np.concatenate((self.recorded, np.zeros_like(self.recorded)))
            hand = next(self.walls)
            self.dealt.append(hand)
            return h, hand

    def record(self, hands: np.ndarray) -> None:
        """One decision recorded by each of ``hands`` (hand numbers, repeats allowed)."""
        with self.lock:
            np.add.at(self.recorded, hands, 1)
            self.total += hands.size

    def finish(self, h: int, scores: list[int]) -> None:
        """Hand ``h`` is over with ``scores``; the finished prefix grows."""
        with self.lock:
            self.finals[h] = scores
            while self.prefix in self.finals and self.prefix_decisions < self.num_decisions:
                got = int(self.recorded[self.prefix])
                self.prefix_decisions += got
                self.prefix += 1
                self.bar.update(min(got, self.num_decisions - self.bar.n))

    def last_needed(self) -> int:
        """:func:`_last_needed` of the hands now."""
        with self.lock:
            return _last_needed(self.recorded, len(self.dealt), self.prefix, self.prefix_decisions, self.num_decisions)


def _run_lanes(lane: Callable[[], None], lanes: int, book: _HandBook) -> None:
    """Run ``lane`` ``lanes`` times side by side (the first in this thread); an error of any lane (an interrupt
    included) stops the others at their next step and is raised."""

    def guarded() -> None:
        try:
            lane()
        except BaseException:
            book.stopped = True
            raise

    interval, torch_threads = sys.getswitchinterval(), torch.get_num_threads()
    # the rows' float16 conversion (_RowStore.add) on one torch thread: more threads fault the row buffer's fresh
    # pages side by side, which the kernel serialises (one 成都 lane: 0.33-0.39 s of 1.5 s, against 0.07-0.11 s)
    torch.set_num_threads(1)
    try:
        if lanes == 1:
            guarded()
            return
        sys.setswitchinterval(min(interval, LANE_SWITCH_INTERVAL))
        with ThreadPoolExecutor(max_workers=lanes - 1, thread_name_prefix="bc-lane") as pool:
            others = [pool.submit(guarded) for _ in range(lanes - 1)]
            guarded()  # on an error the pool's exit waits for the others, which stop at their next step
            for f in others:
                f.result()
    finally:
        sys.setswitchinterval(interval)
        torch.set_num_threads(torch_threads)


class _RowStore:
    """The decisions the lanes of one collection record, in the order they arrive (each ``add`` under a lock): the
    network input rows as float16, masks, actions, seats, hand numbers and the seat's score at the decision.  One
    preallocated buffer of rows (grown when full), put in order in place at the end (:meth:`rows_in_order`), so
    that the collection touches the memory of its rows once: a VM pays for the first touch of fresh memory, about
    3.6 ms a megabyte on the development VM (``benchmarks/README.md``)."""

    def __init__(self, rows: int, capacity: int) -> None:
        self.lock = threading.Lock()
        self.size = 0
        self.inputs = _small_page_array((capacity, rows, OBS_SHAPE[1]), np.float16)  # untouched pages cost nothing
        self.masks = np.empty((capacity, ACTION_SPACE_SIZE), dtype=bool)
        self.actions = np.empty(capacity, dtype=np.int64)
        self.seats = np.empty(capacity, dtype=np.int64)
        self.hands = np.empty(capacity, dtype=np.int64)
        self.then = np.empty(capacity, dtype=np.int64)

    def add(self, observations: np.ndarray, blocks: np.ndarray, masks: np.ndarray, actions: np.ndarray,
            seats: np.ndarray, hands: np.ndarray, then: np.ndarray) -> None:  # fmt: skip
        """Record a step's decisions: their network inputs are ``observations`` ``(n, C, 34)`` followed by
        ``blocks`` ``(n, rows - C, 34)`` (:meth:`agents.learned.net_input.NetInput.feature_blocks`), both float32,
        converted into the row buffer in place; the rest ``(n, ...)``."""
        n, c = observations.shape[:2]
        with self.lock:
            k = self.size
            if k + n > self.inputs.shape[0]:
                self._grow(2 * (k + n))
            rows = self.inputs[k : k + n]
            _float16_into(observations, rows[:, :c])
            if blocks.shape[1]:
                _float16_into(blocks, rows[:, c:])
            self.masks[k : k + n] = masks
            self.actions[k : k + n] = actions
            self.seats[k : k + n] = seats
            self.hands[k : k + n] = hands
            self.then[k : k + n] = then
            self.size = k + n

    def _grow(self, capacity: int) -> None:
        for name in ("inputs", "masks", "actions", "seats", "hands", "then"):
            old = getattr(self, name)
            make = _small_page_array if name == "inputs" else np.empty
            new = make((capacity, *old.shape[1:]), old.dtype)
            new[: self.size] = old[: self.size]
            setattr(self, name, new)

    def rows_in_order(self, order: np.ndarray) -> np.ndarray:
        """The input rows ``order`` (distinct indices of recorded rows) as the first ``len(order)`` rows of the
        buffer, moved there in place (a view; the rows after them are left in some order)."""
        perm = np.empty(self.size, dtype=np.int64)
        perm[: order.size] = order
        unused = np.ones(self.size, dtype=bool)
        unused[order] = False
        perm[order.size :] = np.flatnonzero(unused)
        flat = self.inputs[: self.size].reshape(self.size, -1).view(np.uint16)
        _permute_rows(flat, perm, np.empty(flat.shape[1], dtype=np.uint16))
        return self.inputs[: order.size]


def _small_page_array(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An uninitialised array of ``shape`` in fresh anonymous memory that the kernel backs with small pages (Linux:
    ``madvise(MADV_NOHUGEPAGE)``; elsewhere ``np.empty``).  numpy asks for transparent huge pages for large arrays,
    and where the kernel then compacts memory on the first touch of each 2 MB (``defrag`` ``madvise``, the common
    default) the rows of a BC collection took 0.06-0.42 s to store from one run to the next against a steady 0.08 s
    on small pages (one 成都 lane, 20 000 decisions, ``benchmarks/README.md``)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    advice = getattr(mmap, "MADV_NOHUGEPAGE", None)
    if advice is None or size == 0 or not hasattr(mmap, "MAP_ANONYMOUS"):
        return np.empty(shape, dtype=dtype)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(advice)
    return np.frombuffer(memory, dtype=dtype).reshape(shape)  # the array keeps the mapping alive


@njit(cache=True, nogil=True)
def _permute_rows(rows, perm, tmp):  # pragma: no cover - compiled
    """``rows[i] = old rows[perm[i]]`` for every ``i``, in place, one cycle of ``perm`` (a permutation) at a time."""
    done = np.zeros(perm.shape[0], dtype=np.bool_)
    for start in range(perm.shape[0]):
        if done[start] or perm[start] == start:
            done[start] = True
            continue
        tmp[:] = rows[start]
        j = start
        while True:
            done[j] = True
            k = perm[j]
            if k == start:
                rows[j] = tmp
                break
            rows[j] = rows[k]
            j = k


def _float16_into(rows: np.ndarray, out: np.ndarray) -> None:
    """``rows`` as float16 into ``out`` (a view of the same shape, strides of its own), the values
    ``rows.astype(np.float16)`` gives (both round to nearest even), converted by torch: numpy converts one value at a
    time, about twelve times slower."""
    torch.from_numpy(out).copy_(torch.from_numpy(np.ascontiguousarray(rows, dtype=np.float32)))


def _last_needed(recorded: np.ndarray, dealt: int, prefix: int, prefix_decisions: int, num_decisions: int) -> int:
    """The last hand that may still be needed: the first, from the finished prefix on, by which the hands in order
    have recorded ``num_decisions`` decisions so far (``recorded``: by hand number; a hand's count only grows), or
    every hand dealt when none has."""
    reached = np.flatnonzero(prefix_decisions + np.cumsum(recorded[prefix:dealt]) >= num_decisions)
    return prefix + int(reached[0]) if reached.size else dealt


def _accuracy(policy: MaskableActorCriticPolicy, data: Decisions, idx: np.ndarray, batch: int) -> float:
    if idx.size == 0:
        return float("nan")
    correct = 0
    with torch.no_grad():
        for i in range(0, idx.size, batch):
            b = idx[i : i + batch]
            obs = torch.as_tensor(data.observations[b].astype(np.float32))
            dist = policy.get_distribution(obs, action_masks=data.masks[b])
            pred = dist.distribution.probs.argmax(dim=1).numpy()
            correct += int((pred == data.actions[b]).sum())
    return correct / idx.size


def train_bc(
    policy: MaskableActorCriticPolicy,
    data: Decisions,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
    heldout_share: float = 0.1,
    progress: bool = False,
    label_smoothing: float = 0.0,
) -> BCReport:
    """Fit ``policy`` in place to the teacher's decisions (its own Adam optimizer; PPO's is left untouched).

    ``label_smoothing`` ε: the policy's target is the teacher's action with weight ``1 - ε`` and every legal action
    with weight ``ε / legal actions`` (标签平滑), so that the cloned policy keeps sampling the other legal actions
    now and then and PPO sees what they lead to; the policy's most likely action is still the teacher's."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing!r}")
    rng = np.random.default_rng([seed, 0xBC1])
    n = len(data)
    order = rng.permutation(n)
    n_held = int(n * heldout_share) if n >= 20 else 0
    held, train = order[:n_held], order[n_held:]
    params = [p for p in policy.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    policy.set_training_mode(True)
    policy_loss = value_loss = float("nan")
    bar = tqdm(total=epochs * max(1, -(-train.size // batch_size)), desc="BC", unit="batch", disable=not progress)
    for _epoch in range(epochs):
        perm = train[rng.permutation(train.size)]
        for i in range(0, perm.size, batch_size):
            b = perm[i : i + batch_size]
            obs = torch.as_tensor(data.observations[b].astype(np.float32))
            actions = torch.as_tensor(data.actions[b])
            allowed = torch.as_tensor(data.masks[b])
            values, log_probs = masked_log_probs(policy, obs, allowed)
            legal = allowed.to(log_probs.dtype)
            spread = (log_probs * legal).sum(dim=1) / legal.sum(dim=1)  # mean log-probability of the legal
            taught = log_probs.gather(1, actions[:, None])[:, 0]
            p_loss = -((1.0 - label_smoothing) * taught + label_smoothing * spread).mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(data.returns[b]))
            loss = p_loss + value_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            policy_loss, value_loss = p_loss.item(), v_loss.item()
            bar.update(1)
            bar.set_postfix(ce=f"{policy_loss:.3f}")
    bar.close()
    policy.set_training_mode(False)
    return BCReport(
        decisions=n,
        hands=data.hands,
        epochs=epochs,
        train_accuracy=_accuracy(policy, data, train[: min(train.size, 5000)], 512),
        heldout_accuracy=_accuracy(policy, data, held, 512),
        final_policy_loss=policy_loss,
        final_value_loss=value_loss,
    )
