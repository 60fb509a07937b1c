"""Distributed self-play on a Ray cluster (分布式自我对弈): the ``distributed: {backend: ray}`` section of a training
config and ``chuanma train --ray [ADDRESS]``.

What a distributed run does
---------------------------
* :class:`RayVecEnv` is the learner's ``VecEnv``: ``distributed.workers`` Ray actors
  (:class:`training.rollout_worker.RolloutWorker`), each with ``distributed.tables_per_worker`` hands of the batched
  self-play environment, a CPU copy of the policy and the opponent pool.  Hand ``j`` of the run is hand
  ``j mod tables_per_worker`` of worker ``j // tables_per_worker``; seeds, resets, ``set_pool`` and the other
  ``VecEnv`` calls reach every worker.
* :class:`DistributedMaskablePPO` is ``MaskablePPO`` whose rollouts are played by the workers: at every update the
  learner puts its weights into the object store once, every worker plays ``ppo.n_steps`` decisions in each of its
  hands with them, and the learner gathers the samples (in worker order) into its rollout buffer and runs the PPO
  update.  Snapshots joining the pool are sent to every worker as file bytes (no shared file system needed).
* A worker that dies (its process killed, its node lost) is replaced by a new actor at the next call that reaches
  it: the new one gets the pool, a seed derived from the segment seed, the worker index and the number of
  replacements so far, and fresh hands; the interrupted rollout is played again by it and the run goes on
  (:attr:`RayVecEnv.replaced` counts them).
* Checkpoints are those of a local run; ``chuanma train --resume RUN_DIR [--ray ADDRESS]`` starts new workers on
  the cluster and continues from the newest one.

Reproducibility
---------------
Every segment reseeds the workers from ``(seed, segment)`` (worker ``w`` seeds its hands with
``segment_seed + w * tables_per_worker + i`` and its policy's sampling with ``segment_seed + w *
tables_per_worker``), and the learner gathers the samples in worker order, so a run with the same configuration,
the same number of workers and tables and no replaced worker is the same run again, and a resumed run continues as
the uninterrupted one.  It is **not** the run of ``backend: local``: the hands are split over other environments
and the policy samples from other generators.  A replaced worker plays fresh hands from a new seed, so a run with a
replacement is not the same as one without.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from training.evaluation.distributed import local_init_options
from training.rollout_worker import RolloutWorker
from training.train_config import TrainConfig


def _ray() -> Any:
    try:
        import ray
    except ImportError:  # pragma: no cover - the test extra installs it
        raise ValueError("distributed.backend 'ray' needs the Ray package: pip install 'chuanma[ray]'") from None
    return ray


def replacement_seed(seed: int, worker: int, replaced: int) -> int:
    """The seed of a replacement worker (31-bit, from the last seed, the worker index and the replacement count)."""
    text = f"chuanma/train/replacement/v1/{seed}/{worker}/{replaced}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") >> 1


class RayVecEnv(VecEnv):
    """The self-play hands of ``distributed.workers`` Ray actors behind sb3's ``VecEnv`` (module docstring)."""

    def __init__(self, cfg: TrainConfig) -> None:
        ray = _ray()
        d = cfg.distributed
        self.owns_ray = not ray.is_initialized()
        if self.owns_ray:
            try:
                if d.address == "local":
                    ray.init(**local_init_options())
                else:
                    ray.init(address=d.address, log_to_driver=False)
            except ConnectionError as exc:
                raise ValueError(f"cannot join the Ray cluster at {d.address!r}: {exc}") from None
        self.cfg = cfg
        self.tables = d.tables_per_worker
        self._actor_class = ray.remote(num_cpus=d.cpus_per_worker, max_restarts=0)(RolloutWorker)
        self.actors = [self._spawn() for _ in range(d.workers)]
        self.replaced = 0
        self._seed = cfg.seed
        self._pool: list[dict[str, Any]] = []
        self._snapshot_refs: dict[int, Any] = {}
        self._actions: np.ndarray | None = None
        observation_space, action_space = ray.get(self.actors[0].spaces.remote())
        super().__init__(d.workers * self.tables, observation_space, action_space)

    # ---- workers --------------------------------------------------------------------------------------------
    def _spawn(self) -> Any:
        return self._actor_class.remote(self.cfg, self.tables)

    def _pool_message(self) -> list[tuple[int, Any]]:
        """The pool as ``(id, object reference of the file's bytes)`` pairs (each file put once)."""
        ray = _ray()
        out = []
        for entry in self._pool:
            snap_id = int(entry["id"])
            if snap_id not in self._snapshot_refs:
                self._snapshot_refs[snap_id] = ray.put(Path(entry["path"]).read_bytes())
            out.append((snap_id, self._snapshot_refs[snap_id]))
        return out

    def _replace(self, w: int) -> None:
        """A new actor in place of dead worker ``w``: the pool, a derived seed and fresh hands."""
        ray = _ray()
        self.replaced += 1
        actor = self.actors[w] = self._spawn()
        ray.get(actor.set_pool.remote(self._pool_message()))
        seed = replacement_seed(self._seed, w, self.replaced)
        ray.get(actor.seed.remote(seed))
        ray.get(actor.reset.remote())

    def _call(self, method: str, *args: Any, per_worker: Sequence[tuple[Any, ...]] | None = None) -> list[Any]:
        """``method`` on every worker (``per_worker[w]``: worker ``w``'s own arguments), results in worker order;
        a dead worker is replaced and asked again."""
        ray = _ray()

        def submit(w: int) -> Any:
            own = per_worker[w] if per_worker is not None else args
            return getattr(self.actors[w], method).remote(*own)

        refs = [submit(w) for w in range(len(self.actors))]
        out = []
        for w, ref in enumerate(refs):
            while True:
                try:
                    out.append(ray.get(ref))
                    break
                except ray.exceptions.RayActorError:
                    self._replace(w)
                    ref = submit(w)
        return out

    def rollouts(self, weights: dict[str, torch.Tensor], n_steps: int) -> list[dict[str, Any]]:
        """Every worker's :meth:`RolloutWorker.rollout` with ``weights`` (put into the object store once)."""
        ref = _ray().put({k: v.detach().cpu() for k, v in weights.items()})
        return self._call("rollout", ref, n_steps)

    # ---- VecEnv ---------------------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        return np.concatenate(self._call("reset"))

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed worker ``w``'s hand ``i`` with ``seed + w * tables_per_worker + i`` (sb3 semantics: slot ``j``
        gets ``seed + j``)."""
        if seed is None:
            raise ValueError("RayVecEnv.seed needs an int seed")
        self._seed = int(seed)
        self._call("seed", per_worker=[(self._seed + w * self.tables,) for w in range(len(self.actors))])
        return [self._seed + j for j in range(self.num_envs)]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait without step_async")
        t = self.tables
        parts = self._call("step", per_worker=[(self._actions[w * t : (w + 1) * t],) for w in range(len(self.actors))])
        self._actions = None
        obs, rewards, dones, infos = zip(*parts)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for p in infos for i in p]

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "set_pool":  # the snapshot files travel to the workers as bytes
            (entries,) = method_args
            self._pool = [dict(e) for e in entries]
            self._call("set_pool", self._pool_message())
            return [None] * self.num_envs
        results = [r for part in self._call("env_method", method_name, *method_args, **method_kwargs) for r in part]
        return [results[i] for i in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        results = [r for part in self._call("get_attr", attr_name) for r in part]
        return [results[i] for i in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"RayVecEnv does not set attributes of its workers' environments ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def close(self) -> None:
        ray = _ray()
        if not ray.is_initialized():
            return
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self.owns_ray:
            ray.shutdown()


class DistributedMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose rollouts the workers of a :class:`RayVecEnv` play (module docstring)."""

    def collect_rollouts(  # type: ignore[override]
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: Any,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        if not isinstance(env, RayVecEnv):
            raise TypeError(f"DistributedMaskablePPO collects its rollouts from a RayVecEnv, got {type(env).__name__}")
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()
        parts = env.rollouts(self.policy.state_dict(), n_rollout_steps)

        def joined(key: str) -> np.ndarray:
            return np.concatenate([p[key] for p in parts], axis=1)

        obs, actions, rewards, starts = joined("obs"), joined("actions"), joined("rewards"), joined("starts")
        values, log_probs, masks = joined("values"), joined("log_probs"), joined("masks")
        for t in range(n_rollout_steps):
            self.num_timesteps += env.num_envs
            if not callback.on_step():
                return False
            rollout_buffer.add(
                obs[t],
                actions[t].reshape(-1, 1),
                rewards[t],
                starts[t],
                torch.as_tensor(values[t]),
                torch.as_tensor(log_probs[t]),
                action_masks=masks[t],
            )
        for p in parts:
            self.ep_info_buffer.extend(p["episodes"])
        dones = np.concatenate([p["last_dones"] for p in parts])
        self._last_obs = np.concatenate([p["last_obs"] for p in parts])
        self._last_episode_starts = dones
        last_values = torch.as_tensor(np.concatenate([p["last_values"] for p in parts]))
        rollout_buffer.compute_returns_and_advantage(last_values=last_values, dones=dones)
        callback.on_rollout_end()
        return True


def make_ray_vec_env(cfg: TrainConfig) -> RayVecEnv:
    """The :class:`RayVecEnv` of a ``distributed.backend: ray`` config."""
    return RayVecEnv(cfg)
