#!/usr/bin/env python3
"""A complete outside bot for the ``chuanma-bot/1`` protocol (see agents/external.py): uniform random legal moves.

It imports nothing from chuanma, only the standard library, so it is a template for bots in any language:
read one JSON object per line from stdin, answer every ``decide`` with one line ``{"id": ..., "action": ...}``
on stdout (flushed; the ``id`` echoes the request's, so the evaluator matches every reply to its decision), ignore
the other messages, exit at end of input.  Stdout carries replies only: logs go to stderr (``chuanma eval --out``
saves them under ``OUT/bots/``).

    chuanma eval --variant hongzhong --challenger "external:python3 agents/examples/random_bot.py" --opponent greedy

Options: ``--seed N`` (default 0) seeds the choices; ``--prefer-drawn`` discards the tile just drawn when that is
legal (it shows how to read a named plane of the observation).
"""

import argparse
import json
import random
import sys


def choose(message, rng, prefer_drawn):
    legal = [entry["id"] for entry in message["legal"]]
    if prefer_drawn:
        drawn = message["observation"]["drawn_tile"]  # 34 numbers, 1 on the tile just drawn
        for kind, flag in enumerate(drawn):
            if flag and kind in legal:  # ids 0-33 are "discard kind"
                return kind
    return rng.choice(legal)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prefer-drawn", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"random_bot: seed {args.seed}", file=sys.stderr, flush=True)  # a log line: stderr, never stdout
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if message.get("type") != "decide":
            continue  # hello, new_hand, end_hand: nothing to answer
        action = choose(message, rng, args.prefer_drawn)
        sys.stdout.write(json.dumps({"id": message["id"], "action": action}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
