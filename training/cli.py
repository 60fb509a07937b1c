"""The ``chuanma`` command line.

Subcommands (each module registers its own parser; heavy imports happen only when a subcommand runs):

* ``chuanma variants`` — list the rule presets and their main flags.
* ``chuanma score VARIANT CONCEALED [--melds ...] --win TILE [flags]`` — score one win with its breakdown.
* ``chuanma simulate --variant V --games N --seed S [--json] [--save-replays DIR]`` — random legal play statistics.
* ``chuanma replay FILE [--html OUT.html] [--mjai OUT.jsonl]`` — check a replay file against the engine; export it.
* ``chuanma eval ...`` — duplicate evaluation of agents (see :mod:`training.evaluation.evaluate`).
* ``chuanma train --config configs/train/<variant>.yaml`` — self-play training (see :mod:`training.train`).
* ``chuanma play --variant V --opponents SPEC`` — play one seat against agents in the browser (see
  :mod:`training.play`).
* ``chuanma publish RUN_DIR`` — evaluate a finished run and ship its policy with a model card (see
  :mod:`training.publish`).
* ``chuanma arbiter --variant V --out FILE`` — fit the arbiter's gate of a preset from rollout pairs (see
  :mod:`training.arbiter`).
* ``chuanma main`` — the README's main job: train briefly on the default variant, evaluate against the baselines.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

# (subcommand, module that defines ``register_cli(subparsers)``); each parser sets ``func``.
_SUBCOMMAND_MODULES: tuple[str, ...] = (
    "envs.engine.simulate",
    "envs.engine.replay_cli",
    "training.evaluation.evaluate",
    "training.train",
    "training.main_job",
    "training.publish",
    "training.arbiter",
    "training.precompile",
    "training.play.command",
)


def _cmd_variants(args: argparse.Namespace) -> int:
    from envs.core.rule_config import PRESETS, load_variant

    rows = []
    for name in PRESETS:
        cfg = load_variant(name)
        rows.append(
            {
                "name": name,
                "players": cfg.num_players,
                "tiles": cfg.num_tiles,
                "continuation": cfg.continuation,
                "cap_doublings": cfg.cap_doublings,
                "zimo_bonus": cfg.zimo_bonus,
                "description": cfg.description,
            }
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for r in rows:
            print(f"{r['name']:<11} {r['players']}p {r['tiles']:>3} tiles  {r['description']}")
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from envs.scoring.scorer import score_hand

    r = score_hand(
        args.variant,
        args.concealed,
        args.melds,
        args.win,
        self_drawn=args.self_drawn,
        void_suit=args.void,
        after_kong=args.after_kong,
        robbing_kong=args.robbing_kong,
        last_tile=args.last_tile,
        benjin=args.benjin,
        laizi=args.laizi,
        is_dealer=args.dealer,
        baohu=args.baohu,
        qinghu=args.qinghu,
        on_qinghu_discard=args.on_qinghu_discard,
        payer_baohu=args.payer_baohu,
        red_kongs=args.red_kongs,
        laizi_kongs=args.laizi_kongs,
    )
    out = {
        "is_win": r.is_win,
        "doublings": r.doublings,
        "payment": r.payment,
        "breakdown": r.breakdown,
        "breakdown_zh": r.breakdown_zh,
    }
    if not r.is_win:
        out["reason"] = r.reason
    print(json.dumps(out, ensure_ascii=False, indent=None if args.json else 2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chuanma", description="川麻 chuanma: Sichuan mahjong RL environment")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("variants", help="list the rule presets")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_variants)

    p = sub.add_parser("score", help="score one win (RULES.md §10 flags)")
    p.add_argument("variant", help="preset name or YAML path")
    p.add_argument("concealed", help="concealed tiles before the winning tile, e.g. '123m 456m 789m 234s 5s'")
    p.add_argument("--melds", nargs="*", default=[], help="melds like 'pong 5m' 'kong 9s' 'ankong 3p' 'bukong 7s'")
    p.add_argument("--win", required=True, help="the winning tile, e.g. 5s")
    p.add_argument("--void", choices=["m", "p", "s"], default=None, help="declared void suit")
    p.add_argument("--self-drawn", action="store_true")
    p.add_argument("--after-kong", action="store_true")
    p.add_argument("--robbing-kong", action="store_true")
    p.add_argument("--last-tile", action="store_true")
    p.add_argument("--benjin", default=None, help="Yibin 本金 indicator tile")
    p.add_argument("--laizi", default=None, help="Wuhan 赖子 tile (the wildcard kind itself)")
    p.add_argument("--dealer", action="store_true", help="the winner is the dealer (Wuhan small-win factor)")
    p.add_argument("--baohu", action="store_true", help="断卡根: the winner declared 报胡")
    p.add_argument("--qinghu", action="store_true", help="断卡根: the win is a 请胡 self-draw")
    p.add_argument("--on-qinghu-discard", action="store_true", help="断卡根: winning on a 请胡 discard (请胡炮)")
    p.add_argument("--payer-baohu", action="store_true", help="断卡根: the payer declared 报胡 (penalty fan)")
    p.add_argument("--red-kongs", type=int, default=0, help="Wuhan: the winner's 红中杠 count")
    p.add_argument("--laizi-kongs", type=int, default=0, help="Wuhan: the winner's 赖子杠 count")
    p.add_argument("--json", action="store_true", help="one-line JSON")
    p.set_defaults(func=_cmd_score)

    for module_name in _SUBCOMMAND_MODULES:
        module = importlib.import_module(module_name)
        module.register_cli(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"chuanma {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"chuanma {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
