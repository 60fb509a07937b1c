"""Batched self-play rollouts (批量自我对弈采样): the ``trainer: batched`` path of a training config.

:class:`SelfPlayRollout` plays ``env.num_envs`` tables of :class:`envs.vector_env.VectorEnv` in its self-play mode
(every seat's decision is a step, with every seat's reward).  Before each hand a table's seats are given players:

* one seat, drawn uniformly, is the **learner** (the policy being trained);
* every other seat is a rule-based **baseline** with probability ``pool.baseline_share`` (drawn uniformly from
  ``pool.baselines``), else, with probability ``pool.latest_share``, the learner itself (the newest snapshot of
  the pool is the learner's weights at the segment start: its seats are played by the current weights and become
  training samples too), else a **snapshot** drawn uniformly from the pool.  With an empty pool every other seat is
  a baseline.

One step of the batch asks each kind of player once: the learner for all its seats in one torch forward, each
frozen snapshot for all the seats it holds in one forward, each baseline for its seats through one
``act_batch(observations, masks)`` call (:func:`training.opponents.batch_baseline`).  Every player sees only its
seat's observation (the row the environment encodes for the acting seat).

Samples
-------
Every learner decision is a training sample of the *seat stream* ``(table, seat)``. Its reward is everything the
environment paid that seat from that decision until the seat's next decision (or the end of the hand), plus, for the
first decision of a hand, what the seat was paid before it (the single-agent env's rule); the last decision of a
seat in a hand is the end of its episode (``done``). With a wall ``reference``
(:class:`training.wall_reference.WallReference`, the config's ``env.reward_baseline``) the last reward of each
seat's hand is lowered by what the reference agent scored in that seat on the same wall (the hand's walls are played
ahead, ``reference_ahead`` hands per table at a time); the logged episode returns stay the points the seat won. A
sample is *closed* once its reward is known; GAE runs backwards over each stream's closed samples, bootstrapping
from the value of the next decision when that one is still open. Samples still open at the end of a rollout are
carried into the next one (their hands continue).

Everything random comes from ``seed``: the environment (slot ``i`` from ``seed + i``), the seat draws, the
snapshots' sampling and the baselines' draws; the learner samples from torch's global generator (reseeded by the
trainer at each segment start).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.learned.net_input import NetInput
from agents.policy import PolicyAgent
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig
from envs.engine.privileged import PRIVILEGED_SHAPE
from envs.vector_env import make_vec_env
from training.hidden_critic import HiddenCritic
from training.opponents import batch_baseline
from training.wall_reference import WallReference

__all__ = ["LEARNER", "Batch", "SelfPlayRollout", "stream_gae"]

LEARNER = -1  # the player code of a learner seat; snapshots are 0 .. S-1, baselines S .. S+B-1


@dataclass
class Batch:
    """The closed samples of one rollout, ready for a PPO update (flat arrays, one row per sample)."""

    inputs: np.ndarray  # (K, rows, 34) float32 network inputs
    masks: np.ndarray  # (K, 183) bool
    actions: np.ndarray  # (K,) int64
    log_probs: np.ndarray  # (K,) float32, under the policy that acted
    values: np.ndarray  # (K,) float32
    advantages: np.ndarray  # (K,) float32 (GAE per seat stream)
    returns: np.ndarray  # (K,) float32 (advantages + values)
    privileged: np.ndarray | None = None  # (K, 8, 34) float32 with a hidden critic: its input, never the policy's

    def __len__(self) -> int:
        return int(self.actions.shape[0])


class _Store:
    """Growable sample storage with the per-stream links the rewards and GAE need."""

    def __init__(self, rows: int, privileged_rows: int = 0) -> None:
        self.rows = rows
        self.privileged_rows = privileged_rows
        self.size = 0
        self._alloc(1024)

    def _alloc(self, cap: int) -> None:
        self.cap = cap
        self.inputs = np.zeros((cap, self.rows, 34), dtype=np.float32)
        self.privileged = np.zeros((cap, self.privileged_rows, 34), dtype=np.float32)
        self.masks = np.zeros((cap, ACTION_SPACE_SIZE), dtype=bool)
        self.actions = np.zeros(cap, dtype=np.int64)
        self.log_probs = np.zeros(cap, dtype=np.float32)
        self.values = np.zeros(cap, dtype=np.float32)
        self.rewards = np.zeros(cap, dtype=np.float64)
        self.dones = np.zeros(cap, dtype=bool)
        self.closed = np.zeros(cap, dtype=bool)
        self.next = np.full(cap, -1, dtype=np.int64)

    _FIELDS = ("inputs", "privileged", "masks", "actions", "log_probs", "values", "rewards", "dones", "closed", "next")

    def reserve(self, extra: int) -> None:
        if self.size + extra <= self.cap:
            return
        old = {f: getattr(self, f) for f in self._FIELDS}
        self._alloc(max(2 * self.cap, 2 * (self.size + extra)))
        for f, a in old.items():
            getattr(self, f)[: self.size] = a[: self.size]

    def keep(self, idx: np.ndarray) -> np.ndarray:
        """Keep only the samples ``idx`` (in order); returns the map old index -> new index (-1: dropped)."""
        remap = np.full(self.size + 1, -1, dtype=np.int64)  # remap[-1] (index -1) stays -1
        remap[idx] = np.arange(idx.size)
        for f in self._FIELDS:
            a = getattr(self, f)
            a[: idx.size] = a[idx]
        self.next[: idx.size] = remap[self.next[: idx.size]]
        self.size = int(idx.size)
        return remap


def stream_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    nxt: np.ndarray,
    closed: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> np.ndarray:
    """GAE of the closed samples of interleaved seat streams (0 for the open ones).

    Sample ``k`` (closed) is followed in its stream by ``nxt[k]`` (a later index) unless ``dones[k]``:
    ``delta_k = r_k + gamma V(nxt_k) (1 - done_k) - V_k`` and ``A_k = delta_k + gamma lambda A(nxt_k)`` when the next
    sample is closed too, else ``A_k = delta_k`` (bootstrapped from the next decision's value)."""
    adv = np.zeros(len(rewards), dtype=np.float64)
    lam = gamma * gae_lambda
    for k in np.flatnonzero(closed)[::-1].tolist():
        if dones[k]:
            adv[k] = rewards[k] - values[k]
            continue
        j = int(nxt[k])
        delta = rewards[k] + gamma * values[j] - values[k]
        adv[k] = delta + lam * adv[j] if closed[j] else delta
    return adv


class SelfPlayRollout:
    """Batched self-play tables for one training segment (see the module docstring).

    ``policy``: the learner (an sb3 ``MaskableActorCriticPolicy``, on any device); ``snapshots``: the pool's
    ``(id, path)`` entries, oldest first; ``agents``: a cache ``id -> PolicyAgent`` shared across segments.
    """

    def __init__(
        self,
        rules: RuleConfig,
        policy: Any,
        net_input: NetInput,
        *,
        num_envs: int,
        seed: int,
        snapshots: list[dict[str, Any]],
        baselines: tuple[str, ...],
        baseline_share: float,
        latest_share: float,
        deterministic_snapshots: bool = False,
        env_options: dict[str, Any] | None = None,
        agents: dict[int, PolicyAgent] | None = None,
        gamma: float = 0.99,
        gae_lambda: float = 0.95,
        reference: WallReference | None = None,
        reference_ahead: int = 4,
        critic: HiddenCritic | None = None,
    ) -> None:
        options = dict(env_options or {})
        options.pop("rules", None)
        engine = options.pop("engine", "python")
        self.rules = rules
        self.policy = policy
        self.net_input = net_input
        self.gamma = float(gamma)
        self.gae_lambda = float(gae_lambda)
        self.venv = make_vec_env(rules, num_envs, engine=engine, self_play=True, seed=seed, **options)
        self.n = rules.num_players
        self.num_envs = num_envs
        self.rng = np.random.default_rng([seed, 0x5E17])
        cache = agents if agents is not None else {}
        self.snapshots: list[PolicyAgent] = []
        for entry in snapshots:
            sid = int(entry["id"])
            if sid not in cache:
                cache[sid] = PolicyAgent.load(entry["path"], variant=rules)
            self.snapshots.append(cache[sid])
        self.deterministic_snapshots = deterministic_snapshots
        self.baselines = [batch_baseline(name, rules, seed + 1 + j) for j, name in enumerate(baselines)]
        if not self.baselines and not self.snapshots:
            raise ValueError("the self-play pool is empty and no baselines are configured")
        self.baseline_share = float(baseline_share)
        self.latest_share = float(latest_share)
        self.players = np.zeros((num_envs, self.n), dtype=np.int64)
        self.critic = critic
        self.store = _Store(net_input.rows, PRIVILEGED_SHAPE[0] if critic is not None else 0)
        self.open = np.full((num_envs, self.n), -1, dtype=np.int64)  # open sample of each seat stream
        self.acc = np.zeros((num_envs, self.n), dtype=np.float64)  # reward of each stream since its open sample
        self.ep_return = np.zeros((num_envs, self.n), dtype=np.float64)
        self.episodes: list[float] = []  # learner-seat returns of the hands finished (for the logs)
        self.decisions = 0  # every seat's decisions played
        # seconds spent per part of a step (benchmarks/bench_training.py reports them)
        self.timing = dict.fromkeys(
            ("net_input", "learner", "critic", "snapshots", "baselines", "env", "reference", "bookkeeping"), 0.0
        )
        self.obs = self.venv.reset()
        self.infos: list[dict[str, Any]] = []  # the environment's infos of the last step
        self.reference = reference
        self.reference_ahead = int(reference_ahead)
        self.hands = [self.venv.upcoming_hands(i)[0] for i in range(num_envs)] if reference is not None else []
        if reference is not None:
            self._prefetch_references()
        for i in range(num_envs):
            self._draw_players(i)

    # ---- seats ---------------------------------------------------------------------------------------------------
    def _draw_players(self, i: int) -> None:
        """The players of table ``i``'s next hand (module docstring)."""
        rng = self.rng
        row = self.players[i]
        learner = int(rng.integers(self.n))
        S = len(self.snapshots)
        for q in range(self.n):
            if q == learner:
                row[q] = LEARNER
            elif not S or rng.random() < self.baseline_share:
                if not self.baselines:
                    raise ValueError("the self-play pool is empty and no baselines are configured")
                row[q] = S + int(rng.integers(len(self.baselines)))
            elif rng.random() < self.latest_share:
                row[q] = LEARNER
            else:
                row[q] = int(rng.integers(S))

    # ---- one step of every table ---------------------------------------------------------------------------------
    def step(self) -> int:
        """One decision in every table; returns how many learner samples it added."""
        venv = self.venv
        N = self.num_envs
        seats = venv.acting_seats.copy()
        masks = venv.masks
        obs = self.obs
        who = self.players[np.arange(N), seats]
        actions = np.zeros(N, dtype=np.int64)
        rows = np.flatnonzero(who == LEARNER)
        store = self.store
        timing = self.timing
        clock = time.perf_counter
        if rows.size:
            store.reserve(rows.size)
            k0 = store.size
            ks = np.arange(k0, k0 + rows.size)
            m = masks[rows].astype(bool)
            t0 = clock()
            x = self.net_input.build_batch(obs[rows], m)
            t1 = clock()
            device = self.policy.device
            with torch.no_grad():
                a, v, lp = self.policy.forward(torch.as_tensor(x, device=device), action_masks=m)
            timing["net_input"] += t1 - t0
            timing["learner"] += clock() - t1
            if self.critic is not None:  # the values GAE uses come from the critic that also sees hidden tiles
                t2 = clock()
                hidden = venv.privileged_observations(rows)
                with torch.no_grad():
                    v = self.critic(torch.as_tensor(x, device=device), torch.as_tensor(hidden, device=device))
                store.privileged[ks] = hidden
                timing["critic"] += clock() - t2
            a_np = a.cpu().numpy().astype(np.int64)
            actions[rows] = a_np
            store.inputs[ks] = x
            store.masks[ks] = m
            store.actions[ks] = a_np
            store.log_probs[ks] = lp.cpu().numpy()
            store.values[ks] = v.cpu().numpy().reshape(-1)
            store.rewards[ks] = 0.0
            store.dones[ks] = False
            store.closed[ks] = False
            store.next[ks] = -1
            store.size = k0 + rows.size
            qs = seats[rows]
            prev = self.open[rows, qs]
            had = prev >= 0
            p = prev[had]
            store.rewards[p] = self.acc[rows[had], qs[had]]
            store.closed[p] = True
            store.next[p] = ks[had]
            self.acc[rows[had], qs[had]] = 0.0
            self.open[rows, qs] = ks
        S = len(self.snapshots)
        for code in np.unique(who[who != LEARNER]).tolist():
            sel = np.flatnonzero(who == code)
            t0 = clock()
            if code < S:
                actions[sel] = self._snapshot_actions(self.snapshots[code], obs[sel], masks[sel])
                timing["snapshots"] += clock() - t0
            else:
                actions[sel] = self.baselines[code - S].act_batch(obs[sel], masks[sel])
                timing["baselines"] += clock() - t0
        t0 = clock()
        self.obs, rewards, dones, self.infos = venv.step(actions)
        t1 = clock()
        timing["env"] += t1 - t0
        self.decisions += N
        self.acc += rewards
        learner_seats = self.players == LEARNER
        self.ep_return += np.where(learner_seats, rewards, 0.0)
        for i in np.flatnonzero(dones).tolist():
            ref = self._reference(i)
            for q in range(self.n):
                k_open = int(self.open[i, q])
                if k_open >= 0:
                    store.rewards[k_open] = self.acc[i, q] - ref[q]
                    store.dones[k_open] = True
                    store.closed[k_open] = True
                if learner_seats[i, q] and k_open >= 0:
                    self.episodes.append(float(self.ep_return[i, q]))
            self.open[i] = -1
            self.acc[i] = 0.0
            self.ep_return[i] = 0.0
            self._draw_players(i)
        timing["bookkeeping"] += clock() - t1
        return int(rows.size)

    def _reference(self, i: int) -> np.ndarray:
        """The wall reference of table ``i``'s finished hand (zeros without ``reference``); notes the next hand."""
        if self.reference is None:
            return np.zeros(self.n)
        ref = self.reference.take(self.hands[i]) * self.venv.reward_factor
        self.hands[i] = self.venv.upcoming_hands(i)[0]
        if self.hands[i] not in self.reference:
            self._prefetch_references()
        return ref

    def _prefetch_references(self) -> None:
        """Play the reference walls of every table's next ``reference_ahead`` hands in one batch."""
        assert self.reference is not None
        t0 = time.perf_counter()
        self.reference.add(h for i in range(self.num_envs) for h in self.venv.upcoming_hands(i, self.reference_ahead))
        self.timing["reference"] += time.perf_counter() - t0

    def _snapshot_actions(self, agent: PolicyAgent, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A frozen snapshot's actions for a batch: masked argmax, or a sample of the masked softmax (Gumbel-max
        from the rollout's generator); a row with one legal action plays it without a forward pass."""
        legal = masks.astype(bool)
        actions = np.argmax(legal, axis=1)
        choose = np.flatnonzero(legal.sum(axis=1) > 1)
        if choose.size:
            logits = agent.logits(obs[choose], masks[choose]).astype(np.float64)
            logits = np.where(legal[choose], logits, -np.inf)
            if not self.deterministic_snapshots:
                logits = logits + self.rng.gumbel(size=logits.shape)
            actions[choose] = np.argmax(logits, axis=1)
        return actions

    # ---- a rollout -----------------------------------------------------------------------------------------------
    def collect(self, min_samples: int) -> Batch:
        """Step every table until at least ``min_samples`` samples are closed; returns them with their GAE (the open
        ones stay for the next call)."""
        store = self.store
        store.reserve(min_samples + 2 * self.num_envs * self.n)
        while int(store.closed[: store.size].sum()) < min_samples:
            self.step()
        size = store.size
        closed = store.closed[:size]
        values = store.values[:size].astype(np.float64)
        adv = stream_gae(
            store.rewards[:size], values, store.dones[:size], store.next[:size], closed, self.gamma, self.gae_lambda
        )
        idx = np.flatnonzero(closed)
        batch = Batch(
            inputs=store.inputs[idx],
            masks=store.masks[idx],
            actions=store.actions[idx],
            log_probs=store.log_probs[idx],
            values=store.values[idx],
            advantages=adv[idx].astype(np.float32),
            returns=(adv[idx] + values[idx]).astype(np.float32),
            privileged=store.privileged[idx] if self.critic is not None else None,
        )
        remap = store.keep(np.flatnonzero(~closed))
        self.open = np.where(self.open >= 0, remap[self.open], -1)
        return batch

    def close(self) -> None:
        self.venv.close()
