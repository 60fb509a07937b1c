"""The self-play trainer (自我对弈训练器): :class:`Trainer` runs the training of one variant with ``MaskablePPO``.

The command line is :mod:`training.train` (``chuanma train``).

A run
-----
1. The run directory (``runs/<name>/`` unless ``--run-dir``) receives ``config.yaml`` (the resolved configuration,
   loadable again) and ``run.json`` (package, observation and action-layout versions, library versions, seed, rules).
2. Optional behaviour-cloning warm start (:mod:`training.bc`, ``bc.decisions > 0``).
3. The initial policy becomes the first snapshot of the self-play pool (:class:`training.selfplay.SnapshotPool`)
   and, when periodic evaluations are on, is evaluated (step 0).
4. PPO runs in segments of ``schedule.segment_steps`` learner steps.  Each segment starts by reseeding everything
   from ``(seed, segment)`` — sb3's global torch / numpy generators, every environment (``seed + i``) and therefore
   the opponent draws — and resetting the environments; the learning rate is set for the segment (linear anneal).
   After a segment: a snapshot joins the pool every ``pool.snapshot_every`` segments, a duplicate evaluation against
   ``eval.opponents`` runs every ``eval.every`` segments, a checkpoint is written every ``schedule.checkpoint_every``
   segments (and at the end).
5. Final duplicate evaluation (``eval.final_deals`` walls per opponent, on walls of ``eval.seed + 1``: not the
   walls of the periodic evaluations), ``final.zip`` (policy-only checkpoint for
   :meth:`agents.policy.PolicyAgent.load`), ``report.json``, ``report.md`` and ``learning_curve.png``.

Checkpoints (``checkpoints/step_<N>/``) hold the ``MaskablePPO`` zip (weights, optimizer, counters; with the chuanma
metadata), ``state.json`` (segment, step, metrics history, evaluations), ``pool.json`` and, with ``ppo.critic:
hidden``, ``critic.pt`` (:mod:`training.hidden_critic`: the training-only critic and its optimizer).  Because
every segment starts from a state that depends only on the checkpoint, a resumed run reproduces the uninterrupted
one exactly: same step count, same pool, same weights.

Logs: TensorBoard under ``tb/`` (sb3's rollout/train scalars: episode reward and length, entropy, policy / value
losses, KL, clip fraction; plus ``eval/*`` points), ``metrics.jsonl`` and ``evals.jsonl``; a tqdm bar with ETA, and
one line per phase on stdout (the plan, BC collection and fitting, each segment, each evaluation, the final files),
with or without the bars (:func:`say`).
"""

from __future__ import annotations

import json
import math
import platform
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HumanOutputFormat, KVWriter, Logger, TensorBoardOutputFormat
from stable_baselines3.common.utils import ConstantSchedule
from tqdm.auto import tqdm

from agents.policy import CHECKPOINT_MODEL, FINAL_POLICY, CheckpointMeta, PolicyAgent, save_policy, write_meta
from envs import __version__ as PACKAGE_VERSION
from envs.core.actions import ACTION_LAYOUT_VERSION
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.observation import OBS_VERSION
from training.evaluation.cores import one_blas_thread
from training.evaluation.evaluate import MatchResult
from training.evaluation.evaluate_policy import evaluate_agent, evaluate_checkpoint, result_row
from training.hidden_critic import CRITIC_FILE, HiddenCritic
from training.publish import git_commit
from training.selfplay import SnapshotPool, env_options, make_training_vec_env
from training.train_config import TrainConfig, dump_train_config, load_train_config, match_options
from training.wall_reference import WallReference

RUNS_DIR = Path("runs")
CHECKPOINT_DIR = "checkpoints"
MODEL_FILE = CHECKPOINT_MODEL
STATE_FILE = "state.json"


def say(message: str) -> None:
    """One line of a run's progress on stdout (through tqdm, so that an open progress bar stays intact)."""
    tqdm.write(message, file=sys.stdout)
    sys.stdout.flush()


def plan(cfg: TrainConfig) -> str:
    """What a run will do, in one line (the budget options of ``chuanma train`` name each part)."""
    bc = f"BC {cfg.bc.decisions} decisions from {cfg.bc.teacher}" if cfg.bc.decisions else "no BC"
    periodic = (
        f"evaluation every {cfg.eval.every} segments ({cfg.eval.deals} walls)" if cfg.eval.every else "no periodic eval"
    )
    opponents = ", ".join(cfg.eval.opponents)
    return (
        f"{cfg.name} ({cfg.variant}): {cfg.total_steps} steps in segments of {cfg.schedule.segment_steps}, {bc}, "
        f"{periodic}, final evaluation {cfg.eval.final_deals} walls per opponent ({opponents})"
    )


def segment_seed(seed: int, segment: int) -> int:
    """The seed of one training segment (31-bit, derived from the run seed and the segment index)."""
    return int(np.random.SeedSequence([seed, segment, 0x5E6]).generate_state(1)[0] >> 1)


@dataclass
class RunState:
    """Counters and histories of a run (``state.json`` of a checkpoint)."""

    segment: int = 0
    num_timesteps: int = 0
    wall_time_s: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)
    evals: list[dict[str, Any]] = field(default_factory=list)
    bc: dict[str, Any] | None = None
    decisions: int = 0  # batched trainer: every seat's decisions played by the self-play tables (all players)

    def to_dict(self) -> dict[str, Any]:
        return {
            "segment": self.segment,
            "num_timesteps": self.num_timesteps,
            "wall_time_s": self.wall_time_s,
            "history": self.history,
            "evals": self.evals,
            "bc": self.bc,
            "decisions": self.decisions,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        return cls(
            segment=int(d["segment"]),
            num_timesteps=int(d["num_timesteps"]),
            wall_time_s=float(d.get("wall_time_s", 0.0)),
            history=list(d.get("history", [])),
            evals=list(d.get("evals", [])),
            bc=d.get("bc"),
            decisions=int(d.get("decisions", 0)),
        )


class _HistoryWriter(KVWriter):
    """Keeps every dumped row of sb3's logger (rollout/*, train/*, time/*) in the run state."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
        row = {"step": int(step)}
        for k, v in key_values.items():
            if isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool):
                row[k] = float(v)
        if len(row) > 1:
            self.rows.append(row)

    def close(self) -> None:
        pass


class _ProgressCallback(BaseCallback):
    """tqdm progress over the whole run (steps, ETA, recent episode reward; time left when a deadline is set)."""

    def __init__(self, bar: tqdm | None, deadline: float | None = None) -> None:
        super().__init__()
        self.bar = bar
        self.deadline = deadline

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        buf = self.model.ep_info_buffer
        if self.bar is None:
            return
        postfix = {}
        if buf:
            postfix["ep_rew"] = f"{np.mean([e['r'] for e in buf]):+.3f}"
        if self.deadline is not None:
            postfix["time_left"] = f"{max(0.0, self.deadline - time.monotonic()):.0f}s"
        self.bar.set_postfix(postfix, refresh=False)


class Trainer:
    """One training run in ``run_dir`` (see the module docstring).  Use :meth:`create` or :meth:`resume`."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, state: RunState, model: MaskablePPO, pool: SnapshotPool):
        self.cfg = cfg
        self.run_dir = run_dir
        self.state = state
        self.model = model
        self.pool = pool
        self.rules: RuleConfig = load_variant(cfg.variant, **cfg.env.rules)
        self.net = cfg.net_spec()
        self._snapshot_agents: dict[int, PolicyAgent] = {}  # batched trainer: loaded snapshots, kept across segments
        self._wall_reference: WallReference | None = None  # batched trainer with env.reward_baseline, kept likewise
        self.critic: HiddenCritic | None = None  # ppo.critic: hidden (made after BC, saved with every checkpoint)
        self._counted = 0
        self.rollout_timing: dict[str, float] = {}  # batched trainer: seconds per part, this process (benchmarks)
        self._configure_logger()

    # ---- construction ----------------------------------------------------------------------------------------
    @classmethod
    def create(cls, cfg: TrainConfig, run_dir: str | Path | None = None, *, progress: bool | None = None) -> Trainer:
        """A new run: writes the run directory, builds the model, runs the BC warm start, seeds the pool."""
        torch.set_num_threads(cfg.torch_threads)
        run_dir = Path(run_dir) if run_dir is not None else RUNS_DIR / cfg.name
        if (run_dir / CHECKPOINT_DIR).exists() and any((run_dir / CHECKPOINT_DIR).iterdir()):
            raise ValueError(
                f"run directory {str(run_dir)!r} already holds checkpoints; resume it with --resume {run_dir} "
                f"or choose another --run-dir"
            )
        run_dir.mkdir(parents=True, exist_ok=True)
        say(f"train {plan(cfg)}; run directory {run_dir}")
        if cfg.ppo.critic == "hidden" and cfg.ppo.gae_lambda < 1:
            say(
                f"warning: ppo.critic hidden with ppo.gae_lambda {cfg.ppo.gae_lambda} bootstraps the advantages from "
                "a critic that reads hidden tiles, which biases them; gae_lambda 1.0 keeps it a plain baseline "
                "(README, training/RESULTS.md)"
            )
        (run_dir / "config.yaml").write_text(dump_train_config(cfg), encoding="utf-8")
        rules = load_variant(cfg.variant, **cfg.env.rules)
        (run_dir / "run.json").write_text(json.dumps(run_metadata(cfg, rules), indent=2, ensure_ascii=False) + "\n")
        vec_env, algorithm = _env_and_algorithm(cfg)
        p = cfg.ppo
        model = algorithm(
            MaskableActorCriticPolicy,
            vec_env,
            learning_rate=p.learning_rate,
            n_steps=p.n_steps,
            batch_size=p.batch_size,
            n_epochs=p.n_epochs,
            gamma=p.gamma,
            gae_lambda=p.gae_lambda,
            clip_range=p.clip_range,
            clip_range_vf=p.clip_range_vf,
            normalize_advantage=p.normalize_advantage,
            ent_coef=p.ent_coef,
            vf_coef=p.vf_coef,
            max_grad_norm=p.max_grad_norm,
            target_kl=p.target_kl,
            policy_kwargs=cfg.net_spec().policy_kwargs(),
            seed=cfg.seed,
            device=learner_device(cfg.device),
            verbose=0,
        )
        state = RunState()
        pool = SnapshotPool(run_dir / "pool", cfg.pool.max_size)
        trainer = cls(cfg, run_dir, state, model, pool)
        show = cfg.logging.progress_bar if progress is None else progress
        if cfg.bc.decisions > 0:
            trainer._warm_start(show)
        trainer.critic = trainer._new_critic()
        pool.add(model.policy, trainer.meta(0))
        if cfg.eval.every:
            trainer.evaluate(cfg.eval.deals)  # the starting point (after BC) of the evaluation curve
        trainer.save_checkpoint()
        return trainer

    @classmethod
    def resume(cls, run_dir: str | Path, *, total_steps: int | None = None, ray_address: str | None = None) -> Trainer:
        """Continue the run in ``run_dir`` from its newest checkpoint (``total_steps`` may extend the budget;
        ``ray_address``: play the rollouts on that Ray cluster, :mod:`training.distributed`)."""
        run_dir = Path(run_dir)
        ckpt = latest_checkpoint(run_dir)
        if ckpt is None:
            raise ValueError(f"run directory {str(run_dir)!r} has no complete checkpoint to resume from")
        cfg = load_train_config(run_dir / "config.yaml")
        if total_steps is not None:
            cfg = cfg.replace(total_steps=total_steps)
            (run_dir / "config.yaml").write_text(dump_train_config(cfg), encoding="utf-8")
        if ray_address is not None:
            cfg = cfg.replace(**{"distributed.backend": "ray", "distributed.address": ray_address})
            (run_dir / "config.yaml").write_text(dump_train_config(cfg), encoding="utf-8")
        torch.set_num_threads(cfg.torch_threads)
        state = RunState.from_dict(json.loads((ckpt / STATE_FILE).read_text()))
        pool = SnapshotPool.load(run_dir / "pool", ckpt / "pool.json")
        pool.max_size = cfg.pool.max_size
        vec_env, algorithm = _env_and_algorithm(cfg)
        model = algorithm.load(ckpt / MODEL_FILE, env=vec_env, device=learner_device(cfg.device))
        if model.num_timesteps != state.num_timesteps:
            raise ValueError(
                f"checkpoint {str(ckpt)!r} is inconsistent: model step {model.num_timesteps}, state step "
                f"{state.num_timesteps}"
            )
        trainer = cls(cfg, run_dir, state, model, pool)
        trainer.critic = trainer._new_critic()
        if trainer.critic is not None:
            trainer.critic.load(ckpt / CRITIC_FILE)
        say(f"resume {run_dir} at step {state.num_timesteps}: {plan(cfg)}")
        trainer._reopen_last_boundary()
        return trainer

    def _new_critic(self) -> HiddenCritic | None:
        """The hidden critic of ``ppo.critic: hidden`` (None otherwise), copied from the policy as it is now."""
        if self.cfg.ppo.critic != "hidden":
            return None
        return HiddenCritic(self.model.policy, learning_rate=self.cfg.ppo.critic_learning_rate, seed=self.cfg.seed)

    def _reopen_last_boundary(self) -> None:
        """A finished run extended by ``total_steps``: do what its last segment boundary skipped because the run
        ended there (the pool snapshot, the periodic evaluation), as the longer run without the stop does."""
        cfg, state = self.cfg, self.state
        if self.done or state.segment == 0:
            return
        step = state.num_timesteps
        if state.segment % cfg.pool.snapshot_every == 0 and all(s.id != step for s in self.pool.snapshots):
            self.pool.add(self.model.policy, self.meta(step))
        if cfg.eval.every and state.segment % cfg.eval.every == 0 and all(e["step"] != step for e in state.evals):
            self.evaluate(cfg.eval.deals)

    def _configure_logger(self) -> None:
        outputs: list[KVWriter] = [_HistoryWriter(self.state.history)]
        if self.cfg.logging.tensorboard:
            outputs.append(TensorBoardOutputFormat(str(self.run_dir / "tb")))
        if self.cfg.logging.verbose:
            outputs.append(HumanOutputFormat(sys.stdout))
        self.model.set_logger(Logger(str(self.run_dir), outputs))

    def meta(self, step: int) -> CheckpointMeta:
        return CheckpointMeta.for_variant(self.rules, self.net, seed=self.cfg.seed, step=step, run=self.cfg.name)

    # ---- behaviour cloning -----------------------------------------------------------------------------------
    def _warm_start(self, progress: bool) -> None:
        from training.bc import collect_decisions, train_bc

        b = self.cfg.bc
        t0 = time.perf_counter()
        data = collect_decisions(
            self.rules,
            b.teacher,
            b.decisions,
            self.cfg.seed,
            env_options=env_options(self.cfg),
            progress=progress,
            hand_features=self.cfg.net.hand_features,
            advisor=self.cfg.net.advisor,
            reference=self._reference(),  # the critic learns the returns PPO will give it
        )
        t1 = time.perf_counter()
        say(f"BC: {len(data)} decisions of {b.teacher} in {data.hands} hands ({t1 - t0:.1f} s)")
        report = train_bc(
            self.model.policy,
            data,
            epochs=b.epochs,
            batch_size=b.batch_size,
            learning_rate=b.learning_rate,
            value_coef=b.value_coef,
            label_smoothing=b.label_smoothing,
            seed=self.cfg.seed,
            progress=progress,
        )
        t2 = time.perf_counter()
        say(
            f"BC: {b.epochs} epochs ({t2 - t1:.1f} s), accuracy {report.train_accuracy:.3f} on the training "
            f"decisions, {report.heldout_accuracy:.3f} held out"
        )
        self.state.bc = {**report.to_dict(), "collect_s": t1 - t0, "train_s": t2 - t1, "teacher": b.teacher}
        self.state.wall_time_s += t2 - t0

    # ---- the loop --------------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.state.num_timesteps >= self.cfg.total_steps

    def train(
        self,
        *,
        max_segments: int | None = None,
        deadline: float | None = None,
        progress: bool | None = None,
    ) -> RunState:
        """Train until ``total_steps`` (or ``max_segments`` more segments, or the ``time.monotonic()`` deadline is
        passed at a segment boundary); checkpoints as configured and always at the end."""
        cfg = self.cfg
        show = cfg.logging.progress_bar if progress is None else progress
        bar = tqdm(
            total=None if deadline is not None else cfg.total_steps,  # a deadline run shows the time left instead
            initial=self.state.num_timesteps,
            desc=f"train {cfg.name}",
            unit="step",
            disable=not show,
            dynamic_ncols=True,
        )
        callback = _ProgressCallback(bar, deadline)
        segments = 0
        try:
            while not self.done:
                if max_segments is not None and segments >= max_segments:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
                self._run_segment(callback)
                segments += 1
        finally:
            bar.close()
        self.save_checkpoint()
        return self.state

    def _run_segment(self, callback: BaseCallback) -> None:
        if self.cfg.trainer == "batched":
            self._run_batched_segment(callback)
            return
        cfg = self.cfg
        model = self.model
        t0 = time.perf_counter()
        seg = self.state.segment
        seed = segment_seed(cfg.seed, seg)
        model.set_random_seed(seed)  # python / numpy / torch global generators, action space, env seeds (seed + i)
        model._last_obs = None  # type: ignore[assignment]  # reset the environments at the segment start
        lr = self.learning_rate_at(self.state.num_timesteps)
        model.learning_rate = lr
        model.lr_schedule = ConstantSchedule(lr)
        model.env.env_method("set_pool", self.pool.entries())
        remaining = cfg.total_steps - self.state.num_timesteps
        steps = min(cfg.schedule.segment_steps, -(-remaining // cfg.rollout_steps) * cfg.rollout_steps)
        start = self.state.num_timesteps
        model.learn(total_timesteps=steps, callback=callback, reset_num_timesteps=False)
        model.logger.dump(model.num_timesteps)  # flush the losses of the segment's last update
        self._end_segment(seg, start, t0)

    def _reference(self) -> WallReference | None:
        """The wall reference of ``env.reward_baseline`` (None without one), made once per run."""
        name = self.cfg.env.reward_baseline
        if name and self._wall_reference is None:
            self._wall_reference = WallReference(self.rules, name)
        return self._wall_reference

    def _run_batched_segment(self, callback: BaseCallback) -> None:
        """One segment of the ``trainer: batched`` path: :class:`training.rollout.SelfPlayRollout` tables and the
        :func:`training.ppo.ppo_update` of the same policy (every generator reseeded from the segment seed)."""
        from training.ppo import ppo_update
        from training.rollout import SelfPlayRollout

        cfg, model = self.cfg, self.model
        t0 = time.perf_counter()
        seg = self.state.segment
        seed = segment_seed(cfg.seed, seg)
        model.set_random_seed(seed)
        rng = np.random.default_rng([seed, 0x9F0])
        lr = self.learning_rate_at(self.state.num_timesteps)
        rollout = SelfPlayRollout(
            self.rules,
            model.policy,
            self.cfg.net_input(self.rules),
            num_envs=cfg.env.num_envs,
            seed=seed,
            snapshots=self.pool.entries(),
            baselines=cfg.pool.baselines,
            baseline_share=cfg.pool.baseline_share,
            latest_share=cfg.pool.latest_share,
            deterministic_snapshots=cfg.pool.deterministic,
            env_options=env_options(cfg),
            agents=self._snapshot_agents,
            gamma=cfg.ppo.gamma,
            gae_lambda=cfg.ppo.gae_lambda,
            reference=self._reference(),
            critic=self.critic,
        )
        start = self.state.num_timesteps
        goal = min(cfg.schedule.segment_steps, cfg.total_steps - start)
        done = 0
        try:
            while done < goal:
                t_roll = time.perf_counter()
                torch.set_num_threads(1)  # the rollout's forward passes are small batches: more threads only wait
                try:
                    # the snapshots' forward passes are numpy products: no idle OpenBLAS thread may spin beside the
                    # update's torch threads (benchmarks/README.md)
                    with one_blas_thread():
                        batch = rollout.collect(cfg.rollout_steps)
                finally:
                    torch.set_num_threads(cfg.torch_threads)
                t_upd = time.perf_counter()
                stats = ppo_update(model.policy, batch, cfg.ppo, lr, rng, critic=self.critic)
                t_end = time.perf_counter()
                done += len(batch)
                model.num_timesteps += len(batch)
                self.state.decisions += rollout.decisions - self._counted
                self._counted = rollout.decisions
                for key, value in stats.items():
                    model.logger.record(key, value)
                if rollout.episodes:
                    model.logger.record("rollout/ep_rew_mean", float(np.mean(rollout.episodes[-100:])))
                model.logger.record("time/rollout_s", t_upd - t_roll)
                model.logger.record("time/update_s", t_end - t_upd)
                self.rollout_timing["rollout"] = self.rollout_timing.get("rollout", 0.0) + t_upd - t_roll
                self.rollout_timing["update"] = self.rollout_timing.get("update", 0.0) + t_end - t_upd
                model.logger.record("time/samples_per_s", len(batch) / max(t_end - t_roll, 1e-9))
                model.logger.dump(model.num_timesteps)
                if callback is not None and isinstance(callback, _ProgressCallback) and callback.bar is not None:
                    callback.bar.update(len(batch))
        finally:
            rollout.close()
            self._counted = 0
            for key, value in rollout.timing.items():
                self.rollout_timing[key] = self.rollout_timing.get(key, 0.0) + value
        self._end_segment(seg, start, t0)

    def _end_segment(self, seg: int, start: int, t0: float) -> None:
        cfg, model = self.cfg, self.model
        self.state.segment = seg + 1
        self.state.num_timesteps = int(model.num_timesteps)
        self.state.wall_time_s += time.perf_counter() - t0
        say(
            f"PPO ({cfg.trainer}): segment {seg + 1}, steps {start}-{self.state.num_timesteps} of {cfg.total_steps} "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        if self.state.segment % cfg.pool.snapshot_every == 0 and not self.done:
            self.pool.add(model.policy, self.meta(self.state.num_timesteps))
        if cfg.eval.every and self.state.segment % cfg.eval.every == 0 and not self.done:
            self.evaluate(cfg.eval.deals)
        if self.state.segment % cfg.schedule.checkpoint_every == 0 and not self.done:
            self.save_checkpoint()

    def learning_rate_at(self, step: int) -> float:
        p = self.cfg.ppo
        frac = min(1.0, step / self.cfg.total_steps)
        return p.learning_rate + (p.learning_rate_final - p.learning_rate) * frac

    # ---- evaluation ------------------------------------------------------------------------------------------
    def agent(self) -> PolicyAgent:
        """The current learner as a deterministic agent (a frozen copy)."""
        step = self.state.num_timesteps
        return PolicyAgent.from_policy(self.model.policy, self.net, self.meta(step), name=f"learner@{step}")

    def evaluate(self, walls: int) -> list[dict[str, Any]]:
        """Duplicate evaluation of the current learner against every ``eval.opponents``; logged and recorded."""
        t0 = time.perf_counter()
        step = self.state.num_timesteps
        if self.cfg.plays_matches:
            rows = self.evaluate_matches(walls, self.cfg.eval.seed)
            self.state.evals.extend(rows)
            self.state.wall_time_s += time.perf_counter() - t0
            return rows
        rows = []
        for opponent in self.cfg.eval.opponents:
            res = self._evaluate_learner(opponent, walls)
            row = result_row(res, step)
            rows.append(row)
            say(f"eval at step {step} vs {opponent}: {res.points:+.2f} points per hand over {walls} walls")
            self.model.logger.record(f"eval/vs_{opponent}_points", res.points)
            self.model.logger.record(f"eval/vs_{opponent}_win_rate", res.challenger_rates["win_rate"])
        self.model.logger.dump(step)
        self.state.evals.extend(rows)
        self.state.wall_time_s += time.perf_counter() - t0
        return rows

    def _evaluate_learner(self, opponent: str, walls: int) -> MatchResult:
        """The current learner one-vs-three against ``opponent`` on the periodic walls: batched on the compiled
        engine where :func:`training.evaluation.fast.choose_engine` allows, else hand by hand (the same result)."""
        from training.evaluation import fast

        if fast.choose_engine("auto", self.rules, [opponent]) == "compiled":
            (res,) = fast.run_matchups_batched(
                self.rules, [("learner", opponent)], walls=walls, seed=self.cfg.eval.seed,
                agents={"learner": self.agent()},
            )  # fmt: skip
            return res
        return evaluate_agent(self.agent(), self.rules, opponent, walls=walls, seed=self.cfg.eval.seed)

    def evaluate_matches(self, matches: int, seed: int) -> list[dict[str, Any]]:
        """A learner trained on matches (``env.match`` / ``env.room``) is evaluated by whole matches
        (:func:`training.evaluation.matches.evaluate_matches`, duplicate over the seat rotations); each row carries
        ``points`` = the mean final points (chips per 100 hands in a room) with its interval, and ``placement`` /
        ``bust_rate``."""
        from envs.engine.match import match_rules
        from training.evaluation.matches import evaluate_matches
        from training.train_config import match_options

        options = match_options(self.cfg)
        options["hands"] = options.pop("match_hands")
        rules = match_rules(self.rules, **options)
        assert rules is not None  # plays_matches: the config names a match
        step = self.state.num_timesteps
        rows = []
        for opponent in self.cfg.eval.opponents:
            report, _ = evaluate_matches(self.rules, rules, self.agent(), opponent, matches=matches, seed=seed)
            final, low, high = report.final
            rows.append(
                {
                    "step": step,
                    "opponent": opponent,
                    "matches": matches,
                    "hands": report.hands,
                    "points": float(final),
                    "ci_low": float(low) if np.isfinite(low) else None,
                    "ci_high": float(high) if np.isfinite(high) else None,
                    "placement": float(report.placement[0]),
                    "bust_rate": float(report.bust_rate[0]),
                }
            )
            say(
                f"eval at step {step} vs {opponent}: placement {report.placement[0]:.3f}, "
                f"{'chips/100 hands' if report.bankroll else 'final points'} {final:+.1f} over {matches} matches"
            )
            self.model.logger.record(f"eval/vs_{opponent}_points", final)
            self.model.logger.record(f"eval/vs_{opponent}_placement", report.placement[0])
        self.model.logger.dump(step)
        return rows

    # ---- checkpoints -----------------------------------------------------------------------------------------
    def save_checkpoint(self) -> Path:
        """Write ``checkpoints/step_<N>/`` (atomically: a temporary folder renamed when complete)."""
        step = self.state.num_timesteps
        root = self.run_dir / CHECKPOINT_DIR
        final = root / f"step_{step:012d}"
        tmp = root / f".tmp_step_{step:012d}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        self.model.save(tmp / MODEL_FILE)
        write_meta(tmp / MODEL_FILE, self.meta(step))
        if self.critic is not None:
            self.critic.save(tmp / CRITIC_FILE)
        (tmp / STATE_FILE).write_text(json.dumps(self.state.to_dict(), indent=1, default=_json_default))
        self.pool.save(tmp / "pool.json")
        self.pool.save()
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
        self._write_logs()
        for old in sorted(p for p in root.iterdir() if p.name.startswith("step_"))[
            : -self.cfg.schedule.keep_checkpoints
        ]:
            shutil.rmtree(old)
        return final

    def _write_logs(self) -> None:
        with open(self.run_dir / "metrics.jsonl", "w", encoding="utf-8") as f:
            for row in self.state.history:
                f.write(json.dumps(row, default=_json_default) + "\n")
        with open(self.run_dir / "evals.jsonl", "w", encoding="utf-8") as f:
            for row in self.state.evals:
                f.write(json.dumps(row, default=_json_default) + "\n")

    def close(self) -> None:
        """Close the environments (stops the Ray rollout workers of a distributed run)."""
        self.model.env.close()

    # ---- the end ---------------------------------------------------------------------------------------------
    def finish(
        self,
        *,
        final_walls: int | None = None,
        workers: int = 1,
        progress: bool = False,
        replay_dir: str | Path | None = None,
        replay_sample: int | None = None,
    ) -> dict[str, Any]:
        """Write ``final.zip``, run the final evaluation and write ``report.json`` / ``report.md`` /
        ``learning_curve.png``; returns the report.  ``replay_dir``: replay files of the final evaluation's hands
        (all, or the first ``replay_sample`` walls per opponent), with the policy's action probabilities."""
        from training.report import write_report

        step = self.state.num_timesteps
        final_path = save_policy(self.run_dir / FINAL_POLICY, self.model.policy, self.meta(step))
        walls = self.cfg.eval.final_deals if final_walls is None else final_walls
        final_results = []
        t0 = time.perf_counter()
        if walls > 0 and self.cfg.plays_matches:  # by whole matches, recorded with the periodic evaluations
            self.state.evals.extend(self.evaluate_matches(walls, self.cfg.eval.final_seed))
        elif walls > 0:
            for opponent in self.cfg.eval.opponents:
                if replay_dir is not None and workers == 1:  # replay files name the policy "learner"
                    res = evaluate_agent(
                        self.agent(), self.rules, opponent, walls=walls, seed=self.cfg.eval.final_seed,
                        replay_dir=replay_dir, replay_sample=replay_sample,
                    )  # fmt: skip
                else:  # batched on the compiled engine where it can (the same results)
                    res = evaluate_checkpoint(
                        final_path, self.rules, opponent, walls=walls, seed=self.cfg.eval.final_seed,
                        workers=workers, progress=progress, replay_dir=replay_dir, replay_sample=replay_sample,
                    )  # fmt: skip
                final_results.append(res)
                say(f"final evaluation vs {opponent}: {res.points:+.2f} points per hand over {walls} walls")
        eval_s = time.perf_counter() - t0
        self.state.wall_time_s += eval_s
        self.save_checkpoint()
        report = write_report(self, final_results, final_path, eval_s)
        say(f"wrote {final_path}, {self.run_dir / 'report.md'} and {report['learning_curve']}")
        return report


def learner_device(device: str) -> str:
    """The torch device of the learner for a ``device`` option: ``auto`` is ``cuda`` when a CUDA device is present,
    else ``cpu``; ``cuda`` without one is refused."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for but torch finds no CUDA device; use --device cpu or auto")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be one of ['auto', 'cpu', 'cuda'], got {device!r}")
    return device


def _model_env(cfg: TrainConfig) -> Any:
    """The environment the ``MaskablePPO`` object is built on: the training envs (``trainer: sb3``), or one
    learner-mode table giving the spaces (``trainer: batched``, whose rollouts are :mod:`training.rollout`)."""
    if cfg.trainer == "sb3":
        return make_training_vec_env(cfg)
    from agents.learned.net_input import NetInputVecEnv
    from envs.vector_env import VectorEnv

    rules = load_variant(cfg.variant, **cfg.env.rules)
    venv = VectorEnv(rules, 1, **{"match": False, **match_options(cfg)})  # single hands or the run's match
    net_input = cfg.net_input(rules)
    return venv if net_input.bare else NetInputVecEnv(venv, net_input)


def _env_and_algorithm(cfg: TrainConfig) -> tuple[Any, type[MaskablePPO]]:
    """The environments and the PPO class of a run: local, or Ray rollout workers (``distributed.backend``)."""
    if cfg.distributed.backend == "ray":
        from training.distributed import DistributedMaskablePPO, make_ray_vec_env

        return make_ray_vec_env(cfg), DistributedMaskablePPO
    return _model_env(cfg), MaskablePPO


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The newest complete ``checkpoints/step_<N>`` folder of a run, or None."""
    root = Path(run_dir) / CHECKPOINT_DIR
    if not root.is_dir():
        return None
    done = sorted(p for p in root.iterdir() if p.name.startswith("step_") and (p / STATE_FILE).is_file())
    return done[-1] if done else None


def run_metadata(cfg: TrainConfig, rules: RuleConfig) -> dict[str, Any]:
    """What ``run.json`` records: versions, seed, rules."""
    import sb3_contrib
    import stable_baselines3

    return {
        "name": cfg.name,
        "package_version": PACKAGE_VERSION,
        "obs_version": OBS_VERSION,
        "action_layout_version": ACTION_LAYOUT_VERSION,
        "seed": cfg.seed,
        "variant": rules.name,
        "variant_config": rules.to_dict(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "torch_threads": cfg.torch_threads,
        "device": cfg.device,
        "commit": git_commit(),
    }


def _json_default(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    raise TypeError(f"not JSON-serialisable: {x!r}")
