"""Batched self-play environments (批量自我对弈): the ``env.vec_env: batched`` option of a training config.

:func:`make_batched_vec_env` returns one :class:`envs.vector_env.VectorEnv` holding ``env.num_envs`` hands in
place of ``DummyVecEnv`` over :class:`training.selfplay.SelfPlayEnv`: the same learner seat draw, rewards and
opponent mix, with the opponents of all hands played inside one process and a snapshot's decisions in all hands
evaluated as one numpy batch.

:class:`SelfPlayPool` is the opponent pool it plays against (the ``opponents_for`` protocol of
:class:`~envs.vector_env.VectorEnv`): for every hand and every opponent seat, a rule-based baseline with
probability ``pool.baseline_share`` (a fresh agent, seeded from the slot's generator), else a snapshot (the newest
with probability ``pool.latest_share``, else one drawn uniformly), as :class:`~training.selfplay.SelfPlayEnv` does.
``set_pool`` and ``snapshot_agent`` are reached through ``VecEnv.env_method`` as with ``SelfPlayEnv``.

Differences from ``DummyVecEnv(SelfPlayEnv)``: one snapshot agent serves every slot (so its sampling draws from
its own generator, reseeded with the environment by ``VectorEnv.seed``), and a hand skipped because it ended before
the learner's first decision gets its own opponent draw.  Runs are as reproducible as with ``DummyVecEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from agents.learned.net_input import NetInputVecEnv
from agents.policy import PolicyAgent
from agents.registry import make_agent
from envs.core.rule_config import load_variant
from envs.vector_env import make_vec_env
from training.selfplay import Snapshot, env_options
from training.train_config import TrainConfig


class BatchedPolicy:
    """A :class:`~agents.policy.PolicyAgent` with ``act_batch``: one forward pass for a batch of decisions.

    Row by row the same choice rule as ``PolicyAgent.act`` (a single legal id is played without a draw; masked
    argmax when deterministic, else a sample of the masked softmax from the agent's generator).
    """

    def __init__(self, agent: PolicyAgent) -> None:
        self.agent = agent
        self.name = agent.name

    def reset(self, seat: int, variant: Any) -> None:
        self.agent.reset(seat, variant)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        return self.agent.act(observation, legal_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> list[int]:
        agent = self.agent
        logits = agent.logits(np.asarray(observations, dtype=np.float32), masks)
        out = []
        for row, mask in zip(logits, masks):
            ids = np.flatnonzero(mask)
            if ids.size == 0:
                raise ValueError("the legal-action mask is empty: there is no decision to make")
            if ids.size == 1:
                out.append(int(ids[0]))
                continue
            values = row[ids].astype(np.float64)
            if agent.deterministic:
                out.append(int(ids[int(np.argmax(values))]))
            else:
                p = np.exp(values - values.max())
                out.append(int(ids[int(agent.rng.choice(ids.size, p=p / p.sum()))]))
        return out

    def __repr__(self) -> str:
        return f"BatchedPolicy({self.agent!r})"


class SelfPlayPool:
    """The opponent mix of a training config, drawn per hand and seat (see the module docstring)."""

    def __init__(
        self,
        cfg: Any,
        *,
        baselines: tuple[str, ...] = ("greedy", "random"),
        baseline_share: float = 0.3,
        latest_share: float = 0.5,
        deterministic: bool = False,
    ) -> None:
        self.cfg = load_variant(cfg)
        self.baseline_names = tuple(baselines)
        self.baseline_share = float(baseline_share)
        self.latest_share = float(latest_share)
        self.deterministic = deterministic
        self._pool: list[Snapshot] = []
        self._agents: dict[int, BatchedPolicy] = {}
        self._seed = 0

    # ---- the VectorEnv pool protocol -------------------------------------------------------------------------
    def opponents_for(self, slot: int, rng: np.random.Generator) -> list[Any]:
        """The opponents of slot ``slot``'s next hand, one per other seat."""
        return [self._draw(rng) for _ in range(self.cfg.num_players - 1)]

    def seed(self, seed: int) -> None:
        """Reseed the snapshot agents' sampling generators (called by ``VectorEnv.seed``)."""
        self._seed = int(seed)
        for snap_id, agent in self._agents.items():
            agent.agent.rng = np.random.default_rng([self._seed, snap_id])

    # ---- reached through env_method --------------------------------------------------------------------------
    def set_pool(self, entries: list[dict[str, Any]]) -> None:
        """Replace the snapshot list (``SnapshotPool.entries()``); snapshot files are loaded once and cached."""
        self._pool = [Snapshot(int(e["id"]), str(e["path"])) for e in entries]
        keep = {s.id for s in self._pool}
        self._agents = {k: v for k, v in self._agents.items() if k in keep}

    def pool_ids(self) -> list[int]:
        return [s.id for s in self._pool]

    def snapshot_agent(self, snap_id: int) -> PolicyAgent:
        """The cached agent of one snapshot (loaded from its file on first use)."""
        return self._batched(snap_id).agent

    # ---- internals -------------------------------------------------------------------------------------------
    def _batched(self, snap_id: int) -> BatchedPolicy:
        agent = self._agents.get(snap_id)
        if agent is None:
            snap = next((s for s in self._pool if s.id == snap_id), None)
            if snap is None:
                raise ValueError(f"snapshot {snap_id} is not in the pool {self.pool_ids()}")
            loaded = PolicyAgent.load(snap.path, variant=self.cfg, deterministic=self.deterministic)
            loaded.rng = np.random.default_rng([self._seed, snap_id])
            agent = self._agents[snap_id] = BatchedPolicy(loaded)
        return agent

    def _draw(self, rng: np.random.Generator) -> Any:
        if not self._pool or rng.random() < self.baseline_share:
            if not self.baseline_names:
                raise ValueError("the self-play pool is empty and no baselines are configured")
            name = self.baseline_names[int(rng.integers(len(self.baseline_names)))]
            return make_agent(name, seed=int(rng.integers(2**63)))
        if rng.random() < self.latest_share:
            snap = self._pool[-1]
        else:
            snap = self._pool[int(rng.integers(len(self._pool)))]
        return self._batched(snap.id)


def make_batched_vec_env(cfg: TrainConfig) -> VecEnv:
    """``cfg.env.num_envs`` self-play hands in one :class:`~envs.vector_env.VectorEnv` (``vec_env: batched``),
    wrapped by :class:`~agents.learned.net_input.NetInputVecEnv` when ``net.hand_features`` or ``net.advisor``."""
    options = env_options(cfg)
    rules = options.pop("rules", None)
    engine = options.pop("engine")
    variant = load_variant(cfg.variant, **(rules or {}))
    pool = SelfPlayPool(
        variant,
        baselines=cfg.pool.baselines,
        baseline_share=cfg.pool.baseline_share,
        latest_share=cfg.pool.latest_share,
        deterministic=cfg.pool.deterministic,
    )
    venv = make_vec_env(
        variant, cfg.env.num_envs, engine=engine, opponents=pool, seat="random", seed=cfg.seed, **options
    )
    net_input = cfg.net_input(variant)
    return venv if net_input.bare else NetInputVecEnv(venv, net_input)
