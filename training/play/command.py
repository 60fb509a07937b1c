"""``chuanma play``: start the play server on 127.0.0.1 and open the page in the browser.

``chuanma play --variant hongzhong --opponents value [--seat 0] [--seed S] [--hands N] [--port 0] [--no-browser]``.
``--opponents`` takes agent specs (:mod:`agents.registry`: ``random``, ``greedy``, ``value``, ``defensive``,
``policy:PATH``, ``external:COMMAND``): once for every other seat, or repeated once per other seat.  Without
``--seed`` the game's seed is drawn from the operating system and printed (and shown on the page), so a game can be
dealt again with ``--seed``.
"""

from __future__ import annotations

import argparse
import secrets
import sys

__all__ = ["register_cli", "run_cli"]


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("play", help="play one seat against agents in the browser (a local web page)")
    p.add_argument("--variant", default="hongzhong", help="preset name or YAML path (default hongzhong)")
    p.add_argument(
        "--opponents",
        action="append",
        metavar="SPEC",
        help="agent spec of the other seats: once for all of them or once per seat in seat order (default value)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: drawn at random and printed)")
    p.add_argument("--hands", type=int, default=None, help="hands in the game (default: the rules' or 4)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in a browser; print its address")
    p.add_argument("--bot-timeout", type=float, default=None, help="seconds an outside bot may think per decision")
    p.set_defaults(func=run_cli)


def run_cli(args: argparse.Namespace) -> int:
    try:
        from training.play import server
    except ImportError as exc:
        raise ValueError(f"chuanma play needs the 'play' extra (pip install 'chuanma[play]'): {exc}") from None
    from training.play.table import PlayTable

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    external = {"timeout": args.bot_timeout} if args.bot_timeout is not None else {}
    table = PlayTable(
        args.variant, args.opponents or ["value"], seat=args.seat, seed=seed, hands=args.hands, **external
    )
    others = ", ".join(f"seat {s}: {name}" for s, name in enumerate(table.names) if s != table.seat)
    print(
        f"chuanma play: {table.cfg.name}, {table.hands} hand(s), seed {seed}; you are seat {table.seat}; {others}",
        file=sys.stderr,
    )
    server.serve(table, port=args.port, open_browser=not args.no_browser)
    return 0
