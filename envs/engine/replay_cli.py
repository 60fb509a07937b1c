"""``chuanma replay FILE [--html OUT.html] [--mjai OUT.jsonl]``: check a replay file against the engine, then export.

The file is read (:func:`envs.engine.replay_file.load_replay`) and every hand played again through the engine
(:func:`envs.engine.replay_file.verify_replay`); a file the engine does not reproduce is refused (exit status 2,
the first difference on stderr) and nothing is written.  A checked file can be written as the browser viewer page
(:mod:`envs.engine.replay_view`) and as mjai-style JSON lines (:mod:`envs.engine.mjai`).
"""

from __future__ import annotations

import argparse
import json

__all__ = ["register_cli", "run_cli"]


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "replay",
        help="check a replay file against the engine; export it as a viewer page or mjai JSON lines",
        description="Check a replay file (chuanma simulate/eval --save-replays) by playing it again through the "
        "engine, then optionally write the browser viewer page or an mjai-style export.",
    )
    p.add_argument("file", help="a replay file (.json)")
    p.add_argument("--html", metavar="OUT.html", default=None, help="write the self-contained viewer page")
    p.add_argument("--mjai", metavar="OUT.jsonl", default=None, help="write mjai-style JSON lines")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_cli)


def run_cli(args: argparse.Namespace) -> int:
    from envs.engine.replay_file import check_replay_file

    doc, games = check_replay_file(args.file)
    summary = {
        "file": args.file,
        "format_version": doc["format_version"],
        "rules_version": doc["rules_version"],
        "variant": doc["variant"],
        "players": doc["players"],
        "hands": len(games),
        "events": sum(len(h["events"]) for h in doc["hands"]),
        "scores": [list(g.scores) for g in games],
        "verified": True,
    }
    if args.html:
        from envs.engine.replay_view import write_html

        summary["html"] = str(write_html(doc, args.html))
    if args.mjai:
        from envs.engine.mjai import write_mjai

        summary["mjai"] = str(write_mjai(doc, args.mjai))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    print(
        f"{args.file}: {doc['variant']}, {len(games)} hand(s), {summary['events']} events: the engine reproduces "
        f"every event (format {doc['format_version']}, rules {doc['rules_version']})"
    )
    for i, scores in enumerate(summary["scores"]):
        print(f"  hand {i + 1}: scores " + " ".join(f"S{s} {v:+d}" for s, v in enumerate(scores)))
    for key in ("html", "mjai"):
        if key in summary:
            print(f"  wrote {summary[key]}")
    return 0
