"""Publishing a trained policy into the package (发布预训练策略): ``chuanma publish RUN_DIR``.

A finished run of ``chuanma train`` (its ``final.zip``, ``config.yaml``, ``run.json`` and ``report.json``) becomes
the shipped policy of its variant (:mod:`agents.pretrained`):

1. the policy is loaded as :meth:`agents.policy.PolicyAgent.load` loads it (a checkpoint that does not fit this
   package is refused there);
2. it is evaluated one-vs-three, duplicate style, against every baseline of :data:`CARD_OPPONENTS` on held-out walls
   (:data:`PUBLISH_SEED`: walls used neither by the baselines' tuning, seeds 1 and 2026 of training/BASELINES.md, nor
   by any training run's periodic and final evaluations, seeds ``eval.seed`` and ``eval.seed + 1``);
3. ``agents/pretrained/<variant>.zip`` (the checkpoint), ``agents/pretrained/<variant>.md`` (the model card: the
   configuration, the command, the commit, the hardware, wall time and decisions seen, and the evaluation table with
   95 % intervals) and ``agents/pretrained/<variant>.json`` (the evaluation rows, read by
   :func:`agents.pretrained.evaluation`) are written.

``chuanma eval --variant V --challenger pretrained:V --opponent value --walls N --seed PUBLISH_SEED`` reproduces a
row of the card.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from training.evaluation.cores import WALLS_PER_WORKER, default_workers

__all__ = [
    "CARD_OPPONENTS",
    "PUBLISH_SEED",
    "PUBLISH_WALLS",
    "card_json",
    "git_commit",
    "opponent_walls",
    "publish",
    "readme_table",
    "register_cli",
    "walls_text",
]

CARD_OPPONENTS: tuple[str, ...] = ("random", "greedy", "value", "defensive")
PUBLISH_SEED = 314159  # the held-out walls of every model card
PUBLISH_WALLS = 500


def git_commit(folder: Path | None = None) -> str:
    """The git commit of ``folder``'s checkout (default: this package's), or ``"unknown"`` outside a git checkout."""
    folder = folder or Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


def _hardware(device: str) -> str:
    cpu = platform.processor() or platform.machine()
    return f"{os.cpu_count()} CPU cores ({cpu}), learner device {device}, {platform.system()} {platform.release()}"


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: publish needs a finished run of chuanma train")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def model_card(
    name: str,
    run: dict[str, Any],
    report: dict[str, Any],
    config_text: str,
    table: str,
    *,
    walls: Mapping[str, int],
    seed: int,
    command: str,
    commit: str,
    hardware: str,
) -> str:
    """The markdown model card of a published policy."""
    bc = report.get("bc") or {}
    bc_line = (
        f"behaviour-cloning warm start from `{bc['teacher']}` on {bc['decisions']:,} decisions, then "
        if bc.get("teacher")
        else ""
    )
    decisions = int(report.get("table_decisions") or 0)
    steps = int(report.get("steps", 0))
    trainer = report.get("trainer")
    lines = [
        f"# Pretrained policy `{name}`",
        "",
        f"Loads with `PolicyAgent.pretrained({name!r})` or the agent specification `pretrained:{name}`.",
        "",
        "## Training",
        "",
        f"* variant `{report.get('variant', name)}`, observation `{run.get('obs_version')}`, action layout "
        f"`{run.get('action_layout_version')}`, package {run.get('package_version')}",
        (
            f"* {bc_line}{steps:,} self-play learner decisions (trainer `{trainer}`)"
            + (f"; {decisions:,} decisions of every seat played" if decisions else "")
            if steps or not bc.get("teacher")
            else f"* behaviour cloning alone: `{bc['teacher']}` on {bc['decisions']:,} decisions, no self-play PPO "
            "(`total_steps: 0`)"
        ),
        f"* wall time {float(report.get('wall_time_s', 0.0)) / 60:.1f} min on {hardware}",
        f"* command: `{command}`",
        f"* commit: `{commit}`",
        "",
        "## Evaluation",
        "",
        f"One-vs-three duplicate evaluation on held-out walls of seed {seed} ({walls_text(walls)} walls), every wall "
        f"played from every seat rotation; points per hand, 95 % intervals. Reproduce a row with `chuanma eval "
        f"--variant {name} --challenger pretrained:{name} --opponent OPPONENT --walls WALLS --seed {seed}`.",
        "",
        table.strip(),
        "",
        "## Configuration",
        "",
        "```yaml",
        config_text.strip(),
        "```",
        "",
    ]
    return "\n".join(lines)


def publish(
    run_dir: str | Path,
    *,
    name: str | None = None,
    walls: int = PUBLISH_WALLS,
    seed: int = PUBLISH_SEED,
    workers: int | None = None,
    engine: str = "auto",
    out_dir: str | Path | None = None,
    command: str | None = None,
    opponents: Sequence[str] = CARD_OPPONENTS,
    walls_for: Mapping[str, int] | None = None,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Evaluate the final policy of ``run_dir`` and write ``<name>.zip`` and ``<name>.md`` into ``out_dir`` (default:
    the package's ``agents/pretrained``); returns both paths.  ``name`` defaults to the run's variant.

    ``walls``: held-out walls per opponent; ``walls_for``: another number for some of ``opponents`` (a small edge over
    ``value`` needs tens of thousands of walls, one over ``random`` a few hundred).  Every opponent's walls are the
    first of the same sequence (``seed``).  ``workers``: evaluation processes, by default
    :func:`training.evaluation.cores.default_workers` of each evaluation's walls (the results do not depend on it)."""
    from agents.policy import FINAL_POLICY, PolicyAgent
    from agents.pretrained import PRETRAINED_DIR
    from training.evaluation.evaluate import run_matchups, to_markdown

    run_dir = Path(run_dir)
    report = _read_json(run_dir / "report.json")
    run = _read_json(run_dir / "run.json")
    config_path = run_dir / "config.yaml"
    if not config_path.is_file():
        raise FileNotFoundError(f"{config_path} does not exist: publish needs a finished run of chuanma train")
    variant = str(report.get("variant") or run.get("variant"))
    name = name or variant
    if name != variant:
        raise ValueError(f"a pretrained policy is named by its variant: run {str(run_dir)!r} trained {variant!r}")
    final = run_dir / FINAL_POLICY
    PolicyAgent.load(final, variant=variant)  # refuses a checkpoint that does not fit this package
    spec = f"policy:{final}"
    counts = opponent_walls(opponents, walls, walls_for)
    start = time.perf_counter()
    by_opponent: dict[str, Any] = {}
    for n in dict.fromkeys(counts.values()):  # one evaluation per number of walls, its opponents together
        same = [opponent for opponent, m in counts.items() if m == n]
        done = run_matchups(
            variant,
            [(spec, o) for o in same],
            walls=n,
            seed=seed,
            workers=default_workers(n) if workers is None else workers,
            engine=engine,
            progress=progress,
        )
        by_opponent.update(zip(same, done))
    results = [by_opponent[opponent] for opponent in counts]
    for result in results:
        result.challenger = f"pretrained:{name}"
    table = to_markdown(results, variant=variant)
    eval_s = time.perf_counter() - start
    out = Path(out_dir) if out_dir is not None else PRETRAINED_DIR
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / f"{name}.zip"
    shutil.copyfile(final, checkpoint)
    device = str(run.get("device") or "cpu")
    card = model_card(
        name,
        run,
        report,
        config_path.read_text(encoding="utf-8"),
        table + f"\n\n(evaluation {eval_s:.0f} s)",
        walls=counts,
        seed=seed,
        command=command or f"chuanma train --config {config_path}",
        commit=str(run.get("commit") or git_commit()),
        hardware=_hardware(device),
    )
    card_file = out / f"{name}.md"
    card_file.write_text(card, encoding="utf-8")
    rows = [
        {
            "opponent": r.opponent,
            "walls": r.walls,
            "hands": r.hands,
            "points": round(r.points, 4),
            "ci_low": round(r.ci_low, 4),
            "ci_high": round(r.ci_high, 4),
            "wall_means": [round(float(x), 6) for x in r.wall_means],
        }
        for r in results
    ]
    summary = {"name": name, "variant": variant, "seed": seed, "walls": max(counts.values()), "rows": rows}
    (out / f"{name}.json").write_text(card_json(summary), encoding="utf-8")
    return checkpoint, card_file


def card_json(summary: Mapping[str, Any]) -> str:
    """The card's JSON text: one line per key and per evaluation row (its per-wall means on that line), so that
    hundreds of thousands of walls stay a few MB."""
    head = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in summary.items() if k != "rows")
    rows = ",\n".join("    " + json.dumps(r, separators=(",", ":")) for r in summary["rows"])
    return "{\n" + head + ',\n  "rows": [\n' + rows + "\n  ]\n}\n"


def opponent_walls(opponents: Sequence[str], walls: int, walls_for: Mapping[str, int] | None) -> dict[str, int]:
    """The held-out walls of each of ``opponents``: ``walls``, or ``walls_for[opponent]``; an entry of ``walls_for``
    that is not one of ``opponents``, or a count that is not a positive int, is refused."""
    walls_for = dict(walls_for or {})
    unknown = sorted(set(walls_for) - set(opponents))
    if unknown:
        raise ValueError(f"walls_for names {unknown}, which are not among the card's opponents {list(opponents)}")
    counts = {opponent: walls_for.get(opponent, walls) for opponent in opponents}
    for opponent, n in counts.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"the walls against {opponent!r} must be a positive int, got {n!r}")
    return counts


def walls_text(counts: Mapping[str, int]) -> str:
    """``"1000"`` when every opponent has that many walls, else the opponents grouped by their walls:
    ``"random, greedy: 1000; value, defensive: 20000"``."""
    groups: dict[int, list[str]] = {}
    for opponent, n in counts.items():
        groups.setdefault(n, []).append(opponent)
    if len(groups) == 1:
        return str(next(iter(groups)))
    return "; ".join(f"{', '.join(opponents)}: {n}" for n, opponents in groups.items())


def readme_table() -> str:
    """The README's table of the shipped policies: one row per preset, points per hand and 95 % interval against each
    of :data:`CARD_OPPONENTS` (``*``: the interval excludes zero; three decimals where the interval is narrower than
    0.1), from their published evaluations."""
    from agents.pretrained import available, evaluation

    lines = [
        "| policy | walls (seed) | " + " | ".join(f"vs {o}" for o in CARD_OPPONENTS) + " |",
        "|---|---|" + "---|" * len(CARD_OPPONENTS),
    ]
    for name in available():
        data = evaluation(name)
        by = {r["opponent"]: r for r in data["rows"]}
        cells = []
        for opponent in CARD_OPPONENTS:
            r = by.get(opponent)
            if r is None:
                cells.append("–")
                continue
            mark = "*" if r["ci_low"] > 0 or r["ci_high"] < 0 else ""
            d = 3 if r["ci_high"] - r["ci_low"] < 0.1 else 2  # a narrow interval shows its third decimal
            cells.append(f"{r['points']:+.{d}f} [{r['ci_low']:+.{d}f}, {r['ci_high']:+.{d}f}]{mark}")
        counts = {r["opponent"]: int(r["walls"]) for r in data["rows"]}
        lines.append(f"| `pretrained:{name}` | {walls_text(counts)} ({data['seed']}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _walls_for(item: str) -> tuple[str, int]:
    """``OPPONENT=N`` of ``--walls-for``."""
    opponent, sep, count = item.partition("=")
    if not sep or not opponent or not count.strip().isdigit():
        raise ValueError(f"--walls-for takes OPPONENT=N (e.g. value=20000), got {item!r}")
    return opponent.strip(), int(count)


def _cmd_publish(args: argparse.Namespace) -> int:
    checkpoint, card = publish(
        args.run_dir,
        walls=args.walls,
        seed=args.seed,
        workers=args.workers,
        engine=args.engine,
        out_dir=args.out,
        command=args.command_text,
        walls_for=dict(_walls_for(item) for item in args.walls_for),
        progress=not args.quiet,
    )
    print(card.read_text(encoding="utf-8"))
    print(f"wrote {checkpoint} and {card}")
    return 0


def register_cli(sub: Any) -> None:
    p = sub.add_parser(
        "publish",
        help="evaluate a finished training run and ship its policy as agents/pretrained/<variant>.zip + model card",
    )
    p.add_argument("run_dir", help="a finished run directory of chuanma train (final.zip, report.json, config.yaml)")
    p.add_argument("--walls", type=int, default=PUBLISH_WALLS, help=f"held-out walls per opponent ({PUBLISH_WALLS})")
    p.add_argument(
        "--walls-for",
        action="append",
        default=[],
        metavar="OPPONENT=N",
        help="another number of walls against one opponent (repeatable), e.g. --walls-for value=20000",
    )
    p.add_argument("--seed", type=int, default=PUBLISH_SEED, help=f"seed of the held-out walls ({PUBLISH_SEED})")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"evaluation worker processes (default: one per core, at most one per {WALLS_PER_WORKER} walls)",
    )
    p.add_argument("--engine", default="auto", choices=("auto", "compiled", "python"), help="evaluation engine")
    p.add_argument("--out", default=None, help="output folder (default: the package's agents/pretrained)")
    p.add_argument("--command", dest="command_text", default=None, help="the training command to print on the card")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_publish)
