"""Final report of a training run (训练报告): ``report.json``, ``report.md`` and ``learning_curve.png``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from training.evaluation.evaluate import MatchResult, to_markdown
from training.evaluation.evaluate_policy import result_row

if TYPE_CHECKING:  # pragma: no cover
    from training.trainer import Trainer


def _finite(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def plot_learning_curve(history: list[dict[str, Any]], evals: list[dict[str, Any]], path: Path, *, title: str) -> None:
    """Two panels: mean training episode reward per rollout, and the evaluation points (with 95 % intervals)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=110)
    rows = [r for r in history if "rollout/ep_rew_mean" in r]
    if rows:
        ax1.plot([r["step"] for r in rows], [r["rollout/ep_rew_mean"] for r in rows], color="tab:blue", linewidth=1)
    ax1.axhline(0.0, color="black", linewidth=0.6)
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel("episode reward (self-play pool)")
    ax1.set_title("training reward", fontsize=10)
    for opponent in sorted({e["opponent"] for e in evals}):
        pts = [e for e in evals if e["opponent"] == opponent and e["points"] is not None]
        if not pts:
            continue
        xs = [e["step"] for e in pts]
        ys = [e["points"] for e in pts]
        lo = [e["points"] - e["ci_low"] if e["ci_low"] is not None else 0.0 for e in pts]
        hi = [e["ci_high"] - e["points"] if e["ci_high"] is not None else 0.0 for e in pts]
        ax2.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {opponent}")
    ax2.axhline(0.0, color="black", linewidth=0.6)
    ax2.set_xlabel("learner steps")
    ax2.set_ylabel("points / hand (base units)")
    ax2.set_title("duplicate evaluation (95% CI)", fontsize=10)
    if evals:
        ax2.legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _path(cfg: Any) -> str:
    """The training path in words."""
    if cfg.trainer == "batched":
        base = cfg.env.reward_baseline
        relative = f", rewards relative to `{base}` on the same wall" if base else ""
        hidden = cfg.ppo.critic == "hidden"
        critic = ", advantages from a critic that sees the hidden hands and the wall" if hidden else ""
        return f"batched self-play tables on the {cfg.env.engine} engine, training/ppo.py updates{relative}{critic}"
    return f"MaskablePPO over {cfg.env.vec_env} envs on the {cfg.env.engine} engine"


def write_report(trainer: Trainer, final: list[MatchResult], final_path: Path, eval_s: float) -> dict[str, Any]:
    """Write the report files of ``trainer``'s run; returns the report (with its markdown under ``markdown``)."""
    cfg = trainer.cfg
    state = trainer.state
    run_dir = trainer.run_dir
    step = state.num_timesteps
    final_rows = [result_row(r, step) for r in final]
    evals = [*state.evals, *final_rows]
    curve = run_dir / "learning_curve.png"
    plot_learning_curve(state.history, evals, curve, title=f"{cfg.name} ({trainer.rules.name}), {step} steps")
    last = next((r for r in reversed(state.history) if "rollout/ep_rew_mean" in r), {})
    lines = [
        f"# Training report: `{cfg.name}`",
        "",
        f"* variant `{trainer.rules.name}`, seed {cfg.seed}, {step} learner steps in {state.segment} segments",
        f"* trainer `{cfg.trainer}` ({_path(cfg)}), trained on {step} learner decisions"
        + (f" ({state.decisions} decisions of every seat played)" if state.decisions else ""),
        f"* wall time {state.wall_time_s:.0f} s (final evaluation {eval_s:.0f} s)",
        f"* self-play pool: {len(trainer.pool)} snapshots (steps {[s.id for s in trainer.pool.snapshots]}), "
        f"baseline share {cfg.pool.baseline_share}, share of the other seats the learner plays itself "
        f"{cfg.pool.latest_share}",
    ]
    if trainer.rollout_timing:
        parts = ", ".join(f"{k} {v:.0f} s" for k, v in trainer.rollout_timing.items())
        lines.append(f"* seconds per part of the batched path (this process): {parts}")
    if state.bc:
        b = state.bc
        lines.append(
            f"* BC warm start from `{b['teacher']}`: {b['decisions']} decisions ({b['hands']} hands), "
            f"held-out agreement {b['heldout_accuracy']:.3f}, {b['collect_s'] + b['train_s']:.0f} s"
        )
    if last:
        lines.append(f"* last training episode reward (reward units) {last['rollout/ep_rew_mean']:+.3f}")
    lines += ["", f"Checkpoint: `{final_path}`  ", f"Learning curve: `{curve}`", ""]
    if final:
        lines.append(to_markdown(final, variant=trainer.rules.name))
    else:
        lines.append("(no final evaluation)")
    markdown = "\n".join(lines) + "\n"
    report = {
        "name": cfg.name,
        "variant": trainer.rules.name,
        "seed": cfg.seed,
        "steps": step,
        "trainer": cfg.trainer,
        "trained_decisions": step,
        "table_decisions": state.decisions,
        "segments": state.segment,
        "wall_time_s": state.wall_time_s,
        "final_eval_s": eval_s,
        "rollout_timing_s": dict(trainer.rollout_timing),  # batched trainer, this process: rollout parts, updates
        "bc": state.bc,
        "pool": trainer.pool.entries(),
        "final_eval": [{k: _finite(v) for k, v in r.items()} for r in final_rows],
        # per-wall values of the final evaluation, so that another policy evaluated on the same walls (same eval
        # seed and final_deals) can be compared seat for seat with training.evaluation.evaluate.paired_difference
        "final_walls": [
            {
                "opponent": r.opponent,
                "eval_seed": cfg.eval.final_seed,
                "wall_means": r.wall_means,
                "wall_deal_in": r.wall_deal_in,
                "field_wall_deal_in": r.field_wall_deal_in,
            }
            for r in final
        ],
        "evals": state.evals,
        "checkpoint": str(final_path),
        "learning_curve": str(curve),
        "markdown": markdown,
    }
    (run_dir / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (run_dir / "report.md").write_text(markdown, encoding="utf-8")
    return report
