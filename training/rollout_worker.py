"""A self-play rollout worker (采样工作者): one Ray actor of a distributed run (:mod:`training.distributed`).

:class:`RolloutWorker` holds ``tables_per_worker`` self-play hands in one batched environment
(:func:`training.batched.make_batched_vec_env`, on the run's ``env.engine``), a CPU copy of the learner's policy
and the opponent pool, whose snapshot files it receives as bytes through the Ray object store and keeps in a
folder of its own (so the workers need no shared file system).  :meth:`RolloutWorker.rollout` loads the weights
the learner broadcast, plays ``n_steps`` decisions in every hand exactly as ``MaskablePPO.collect_rollouts``
does (masked sampling, the value and log-probability of each action, bootstrapping a truncated episode) and
returns the arrays the learner's rollout buffer takes.  The class is plain Python: Ray makes it an actor.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.utils import obs_as_tensor

from training.batched import make_batched_vec_env
from training.train_config import TrainConfig

_CPU = torch.device("cpu")


class RolloutWorker:
    """``tables`` self-play hands with a CPU copy of the policy (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, tables: int) -> None:
        torch.set_num_threads(1)
        local = dataclasses.replace(cfg, env=dataclasses.replace(cfg.env, num_envs=tables))
        self.gamma = cfg.ppo.gamma
        self.env = make_batched_vec_env(local)
        self.policy = MaskableActorCriticPolicy(
            self.env.observation_space,
            self.env.action_space,
            lambda _: 0.0,
            **cfg.net_spec().policy_kwargs(),
        )
        self.policy.set_training_mode(False)
        self.obs: Any = None  # the current observations of the hands (None before the first reset)
        self.starts = np.ones(tables, dtype=bool)
        self.folder = Path(tempfile.mkdtemp(prefix="chuanma-pool-"))
        self.files: dict[int, str] = {}

    def spaces(self) -> tuple[Any, Any]:
        return self.env.observation_space, self.env.action_space

    def set_pool(self, snapshots: list[tuple[int, Any]]) -> list[int]:
        """The pool as ``(id, file bytes)`` pairs, the bytes given or as a Ray object reference (fetched only for a
        snapshot this worker does not hold yet)."""
        for snap_id, data in snapshots:
            if snap_id not in self.files:
                if not isinstance(data, bytes):
                    import ray

                    data = ray.get(data)
                path = self.folder / f"snap_{snap_id:010d}.zip"
                path.write_bytes(data)
                self.files[snap_id] = str(path)
        self.env.env_method("set_pool", [{"id": i, "path": self.files[i]} for i, _ in snapshots])
        return sorted(self.files)

    def seed(self, seed: int) -> None:
        """Seed the hands (slot ``i``: ``seed + i``), the opponents and the policy's sampling."""
        self.env.seed(seed)
        torch.manual_seed(seed)

    def reset(self) -> Any:
        self.obs = self.env.reset()
        self.starts = np.ones(self.env.num_envs, dtype=bool)
        return self.obs

    def step(self, actions: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = self.env.step(actions)
        self.obs, self.starts = obs, dones
        return obs, rewards, dones, infos

    def env_method(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        return self.env.env_method(name, *args, **kwargs)

    def get_attr(self, name: str) -> list[Any]:
        return self.env.get_attr(name)

    def rollout(self, weights: dict[str, torch.Tensor], n_steps: int) -> dict[str, Any]:
        """``n_steps`` decisions in every hand with ``weights``; arrays shaped ``(n_steps, tables, ...)``."""
        self.policy.load_state_dict(weights)
        if self.obs is None:
            self.reset()
        rows: dict[str, list[Any]] = {k: [] for k in ("obs", "actions", "rewards", "starts", "values", "log_probs")}
        rows["masks"] = []
        episodes: list[dict[str, Any]] = []
        for _ in range(n_steps):
            masks = np.stack(self.env.env_method("action_masks"))
            with torch.no_grad():
                actions, values, log_probs = self.policy(obs_as_tensor(self.obs, _CPU), action_masks=masks)
            acts = actions.numpy()
            obs, rewards, dones, infos = self.env.step(acts)
            rewards = np.asarray(rewards, dtype=np.float32).copy()
            for i, done in enumerate(dones):
                info = infos[i]
                if "episode" in info:
                    episodes.append(dict(info["episode"]))
                if done and info.get("terminal_observation") is not None and info.get("TimeLimit.truncated", False):
                    terminal = self.policy.obs_to_tensor(info["terminal_observation"])[0]
                    with torch.no_grad():
                        rewards[i] += self.gamma * float(self.policy.predict_values(terminal)[0])
            rows["obs"].append(self.obs)
            rows["actions"].append(acts)
            rows["rewards"].append(rewards)
            rows["starts"].append(self.starts)
            rows["values"].append(values.numpy().reshape(-1))
            rows["log_probs"].append(log_probs.numpy().reshape(-1))
            rows["masks"].append(masks)
            self.obs, self.starts = obs, dones
        with torch.no_grad():
            last_values = self.policy.predict_values(obs_as_tensor(self.obs, _CPU)).numpy().reshape(-1)
        out: dict[str, Any] = {k: np.stack(v) for k, v in rows.items()}
        out.update(last_obs=self.obs, last_dones=np.asarray(self.starts), last_values=last_values, episodes=episodes)
        return out

    def close(self) -> None:
        self.env.close()
        shutil.rmtree(self.folder, ignore_errors=True)
