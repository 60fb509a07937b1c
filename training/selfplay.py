"""Self-play environments (自我对弈): the learner's seat against frozen snapshots of itself and rule-based baselines.

* :class:`SnapshotPool` — the frozen past snapshots of the learner, as immutable policy files on disk
  (``runs/<name>/pool/snap_<step>.zip``) plus their list; it is part of the run state and of every checkpoint.
* :class:`SelfPlayEnv` — :class:`envs.single_agent.SingleAgentEnv` whose opponent seats are re-drawn at the start
  of every hand: each seat independently plays a rule-based baseline with probability ``pool.baseline_share``,
  else a snapshot (the newest with probability ``pool.latest_share``, else one drawn uniformly).  Snapshot agents
  hold a numpy copy of the weights, so nothing the learner does can change them.  All draws come from the env's
  own generator, seeded by ``reset(seed=...)``.
* :func:`make_training_vec_env` — the seam for vectorisation: ``num_envs`` :class:`SelfPlayEnv` in an sb3
  ``DummyVecEnv`` or ``SubprocVecEnv`` (a batched environment can replace it behind the same signature).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from agents.base import Agent
from agents.policy import CheckpointMeta, PolicyAgent, save_policy
from agents.registry import make_agent
from envs.core.rule_config import RuleConfig, load_variant
from envs.single_agent import SingleAgentEnv
from training.train_config import TrainConfig, match_options

POOL_FILE = "pool.json"


@dataclass(frozen=True)
class Snapshot:
    """One frozen past learner: ``id`` (the training step it was taken at) and its policy file."""

    id: int
    path: str


class SnapshotPool:
    """The self-play pool of a run directory: up to ``max_size`` snapshots, oldest dropped first."""

    def __init__(self, directory: str | Path, max_size: int) -> None:
        if max_size <= 0:
            raise ValueError(f"pool max_size must be positive, got {max_size}")
        self.directory = Path(directory)
        self.max_size = max_size
        self.snapshots: list[Snapshot] = []

    def add(self, policy: Any, meta: CheckpointMeta) -> Snapshot:
        """Write ``policy``'s current weights to a new, never-modified file and add it (dropping the oldest)."""
        step = meta.step
        if any(s.id == step for s in self.snapshots):
            raise ValueError(f"the pool already holds a snapshot of step {step}")
        path = save_policy(self.directory / f"snap_{step:010d}.zip", policy, meta)
        snap = Snapshot(step, str(path))
        self.snapshots.append(snap)
        while len(self.snapshots) > self.max_size:
            self.snapshots.pop(0)  # its file stays on disk (it may be referenced by an older checkpoint)
        return snap

    def entries(self) -> list[dict[str, Any]]:
        return [{"id": s.id, "path": s.path} for s in self.snapshots]

    def save(self, path: str | Path | None = None) -> Path:
        """Write the pool file; snapshots are named relative to the pool folder, so a run directory can be moved
        or resumed from another working directory."""
        path = Path(path) if path is not None else self.directory / POOL_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        snaps = [{"id": s.id, "file": self._relative(s.path)} for s in self.snapshots]
        path.write_text(json.dumps({"max_size": self.max_size, "snapshots": snaps}, indent=2))
        return path

    def _relative(self, path: str) -> str:
        p = Path(path)
        try:
            return p.resolve().relative_to(self.directory.resolve()).as_posix()
        except ValueError:  # a snapshot outside the pool folder keeps its own path
            return str(p)

    def _resolve(self, entry: dict[str, Any]) -> str:
        if "file" in entry:
            p = Path(entry["file"])
            return str(p if p.is_absolute() else self.directory / p)
        # pool files written before snapshots were stored relative to the folder hold a path from the run's working
        # directory: this pool folder's file of that name when there is one (a moved or copied run), else the path
        p = Path(entry["path"])
        own = self.directory / p.name
        return str(own if own.is_file() else p)

    @classmethod
    def load(cls, directory: str | Path, path: str | Path | None = None) -> SnapshotPool:
        path = Path(path) if path is not None else Path(directory) / POOL_FILE
        try:
            data = json.loads(Path(path).read_text())
            pool = cls(directory, int(data["max_size"]))
            pool.snapshots = [Snapshot(int(e["id"]), pool._resolve(e)) for e in data["snapshots"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"self-play pool file {str(path)!r} is missing or invalid ({exc})") from None
        for s in pool.snapshots:
            if not Path(s.path).is_file():
                raise ValueError(f"self-play pool file {str(path)!r} names a missing snapshot {s.path!r}")
        return pool

    def __len__(self) -> int:
        return len(self.snapshots)


class _Seat:
    """A stable opponent object for one seat whose actual player is swapped at each hand."""

    def __init__(self) -> None:
        self.player: Agent | None = None

    def reset(self, seat: int, cfg: RuleConfig) -> None:
        if hasattr(self.player, "reset"):
            self.player.reset(seat, cfg)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        return int(self.player.act(observation, legal_mask))


class SelfPlayEnv(gymnasium.Wrapper):
    """The learner's seat against opponents re-drawn every hand (see the module docstring).

    ``variant``: rules; ``baselines``/``baseline_share``/``latest_share``/``deterministic``: the opponent mix
    (as :class:`training.train_config.PoolConfig`); ``env_options``: options of the AEC env (reward scale ...).
    Call :meth:`set_pool` with the pool's entries before the first reset when ``baseline_share < 1``.
    """

    def __init__(
        self,
        variant: str | RuleConfig,
        *,
        baselines: tuple[str, ...] = ("greedy", "random"),
        baseline_share: float = 0.3,
        latest_share: float = 0.5,
        deterministic: bool = False,
        **env_options: Any,
    ) -> None:
        cfg = load_variant(variant)
        self._seats = [_Seat() for _ in range(cfg.num_players - 1)]
        super().__init__(SingleAgentEnv(cfg, self._seats, seat="random", **env_options))
        self.cfg = self.env.cfg  # the rules in force, rule overrides of env_options included
        self.baseline_names = tuple(baselines)
        self.baseline_share = float(baseline_share)
        self.latest_share = float(latest_share)
        self.deterministic = deterministic
        self._rng = np.random.default_rng(0)
        self._pool: list[Snapshot] = []
        self._agents: dict[int, PolicyAgent] = {}
        self.current_opponents: list[str] = []

    def set_pool(self, entries: list[dict[str, Any]]) -> None:
        """Replace the snapshot list (``SnapshotPool.entries()``); snapshot files are loaded once and cached."""
        self._pool = [Snapshot(int(e["id"]), str(e["path"])) for e in entries]
        keep = {s.id for s in self._pool}
        self._agents = {k: v for k, v in self._agents.items() if k in keep}

    def pool_ids(self) -> list[int]:
        return [s.id for s in self._pool]

    def snapshot_agent(self, snap_id: int) -> PolicyAgent:
        """The cached agent of one snapshot (loaded from its file on first use)."""
        agent = self._agents.get(snap_id)
        if agent is None:
            snap = next((s for s in self._pool if s.id == snap_id), None)
            if snap is None:
                raise ValueError(f"snapshot {snap_id} is not in the pool {self.pool_ids()}")
            agent = PolicyAgent.load(snap.path, variant=self.cfg, deterministic=self.deterministic)
            self._agents[snap_id] = agent
        return agent

    def _draw(self) -> tuple[Agent, str]:
        rng = self._rng
        if not self._pool or rng.random() < self.baseline_share:
            if not self.baseline_names:
                raise ValueError("the self-play pool is empty and no baselines are configured")
            name = self.baseline_names[int(rng.integers(len(self.baseline_names)))]
            return make_agent(name, seed=int(rng.integers(2**63))), name
        if rng.random() < self.latest_share:
            snap = self._pool[-1]
        else:
            snap = self._pool[int(rng.integers(len(self._pool)))]
        agent = self.snapshot_agent(snap.id)
        agent.rng = rng  # sampling snapshots draw from this env's seeded stream
        return agent, f"snap_{snap.id}"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng([int(seed), 0x5E1F])
        self.current_opponents = []
        for seat in self._seats:
            seat.player, label = self._draw()
            self.current_opponents.append(label)
        obs, info = self.env.reset(seed=seed, options=options)
        info["opponents"] = list(self.current_opponents)
        return obs, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def env_options(cfg: TrainConfig) -> dict[str, Any]:
    """Options of the AEC env for a training config."""
    options: dict[str, Any] = {
        "reward_mode": cfg.env.reward_mode,
        "reward_scale": cfg.env.reward_scale,
        "normalize_reward": True,
        "engine": cfg.env.engine,
    }
    if cfg.env.rules:
        options["rules"] = dict(cfg.env.rules)
    options["match"] = False  # single hands (every preset, 赤羽 included) unless env.match / env.room
    options.update(match_options(cfg))  # whole matches per episode (RULES.md §11.2)
    return options


def make_selfplay_env(cfg: TrainConfig) -> gymnasium.Env:
    """One monitored :class:`SelfPlayEnv` for ``cfg`` (observations with the hand-feature / advice planes when
    ``net.hand_features`` / ``net.advisor``: :mod:`agents.learned.net_input`; whole ``chuanma-v1-match``
    observations when ``env.match`` / ``env.room``)."""
    env: gymnasium.Env = SelfPlayEnv(
        load_variant(cfg.variant),
        baselines=cfg.pool.baselines,
        baseline_share=cfg.pool.baseline_share,
        latest_share=cfg.pool.latest_share,
        deterministic=cfg.pool.deterministic,
        **env_options(cfg),
    )
    rules = env.cfg
    net_input = cfg.net_input(rules)
    if not net_input.bare:
        from agents.learned.net_input import NetInputObservation

        env = NetInputObservation(env, net_input)
    return Monitor(env)


class _EnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to the workers)."""

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg

    def __call__(self) -> gymnasium.Env:
        import torch

        torch.set_num_threads(1)
        return make_selfplay_env(self.cfg)


def make_training_vec_env(cfg: TrainConfig) -> VecEnv:
    """``cfg.env.num_envs`` self-play environments behind sb3's ``VecEnv`` interface (the vectorisation seam)."""
    if cfg.env.vec_env == "batched":  # every hand in one envs.vector_env.VectorEnv (training/batched.py)
        from training.batched import make_batched_vec_env

        return make_batched_vec_env(cfg)
    factories = [_EnvFactory(cfg) for _ in range(cfg.env.num_envs)]
    if cfg.env.vec_env == "subproc":
        return SubprocVecEnv(factories, start_method="spawn")
    return DummyVecEnv(factories)
