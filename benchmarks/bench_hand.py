"""Benchmark: hand evaluation throughput of :mod:`envs.scoring.shanten` (win check, waits, shanten), and the ``mahjong``
package.

A fixed seeded sample of hands: half uniformly random tiles from the 108 suited tiles, half near-complete (a
complete hand with 0-3 tiles swapped), as 14-tile hands for the win check and 13-tile hands for waits and shanten.
The wildcard sample turns 1-4 tiles of each hand into 红中 wildcards (mask: suited kinds minus a void suit); the meld
sample moves one set into a pong (``meld_counts``, so the 4-copy caps apply).

Every timing is the best of ``--repeat`` CPU-time passes after one warm-up pass over a *different* sample of the
same kind, so memoised suit lookups and combinations are warm but no hand's answer is cached; compared functions
take turns pass by pass.  No-wildcard calls are made directly (``fn(counts)``, for both libraries alike); the
wildcard and meld calls go through a small wrapper passing the keyword arguments.  When ``mahjong`` is importable,
``Agari.is_agari`` and ``Shanten.calculate_shanten`` (and its regular-hand part) run on the same no-wildcard
hands, with speed ratios.

Usage: ``python benchmarks/bench_hand.py [--hands 5000] [--repeat 5] [--seed 0]``.  Prints one JSON object.
Goals: win check >= 2x and shanten >= 10x the ``mahjong`` package.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.scoring import shanten as hand
from envs.scoring.shanten import is_winning, mask_excluding_suit, shanten, waits

Hand = tuple[list[int], int, list[int] | None]  # counts, wilds, meld counts


def _complete(rng: random.Random, pong_first: bool = False) -> list[int]:
    """Tiles of a random complete suited hand (4 sets + pair); a triplet first when ``pong_first``."""
    while True:
        tiles: list[int] = []
        for i in range(4):
            k = rng.randrange(27)
            triplet = (pong_first and i == 0) or k % 9 > 6 or rng.random() < 0.3
            tiles += [k, k, k] if triplet else [k, k + 1, k + 2]
        p = rng.randrange(27)
        tiles += [p, p]
        if max(tiles.count(k) for k in set(tiles)) <= 4:
            return tiles


def sample(rng: random.Random, n: int, *, drop_one: bool, wild: bool = False, meld: bool = False) -> list[Hand]:
    """``n`` hands in the mix described in the module docstring (14 tiles, 13 when ``drop_one``; 3 fewer with
    the pong of ``meld``)."""
    wall = [k for k in range(27) for _ in range(4)]
    out: list[Hand] = []
    while len(out) < n:
        melds = None
        if meld:
            tiles = _complete(rng, pong_first=True)
            melds = [0] * 34
            melds[tiles[0]] = 3
            tiles = tiles[3:]
        elif len(out) % 2 == 0:
            tiles = rng.sample(wall, 14)
        else:
            tiles = _complete(rng)
        if meld or len(out) % 2:
            for _ in range(rng.randrange(4)):
                tiles[rng.randrange(len(tiles))] = rng.randrange(27)
        rng.shuffle(tiles)
        if drop_one:
            tiles.pop()
        if wild:
            del tiles[len(tiles) - rng.randrange(1, 5) :]
        counts = [0] * 34
        for k in tiles:
            counts[k] += 1
        own = counts if melds is None else [c + m for c, m in zip(counts, melds)]
        if max(own) <= 4:
            out.append((counts, 14 - drop_one - 3 * meld - len(tiles), melds))
    return out


def _pass_seconds(fn: Callable, args: list) -> float:
    start = time.process_time()
    for a in args:
        fn(a)
    return time.process_time() - start


def rates(fns: list[Callable], args: list, warm: list, repeat: int) -> list[float]:
    """Calls per second of each ``fn(arg)``: one warm-up pass over ``warm`` each, then ``repeat`` rounds in which
    the functions take turns, in rotating order (so a busy machine slows them alike); the best pass of each counts.
    CPU time of this process (``time.process_time``), so time spent descheduled is not counted."""
    for fn in fns:
        for a in warm:
            fn(a)
    best = [float("inf")] * len(fns)
    for round_ in range(repeat):
        order = list(range(len(fns)))
        shift = round_ % len(fns)  # rotate who goes first: the first pass of a round tends to be slower
        for i in order[shift:] + order[:shift]:
            best[i] = min(best[i], _pass_seconds(fns[i], args))
    return [len(args) / max(b, 1e-9) for b in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    hand._init()
    load_seconds = time.perf_counter() - start

    mask = mask_excluding_suit(1)
    rng = random.Random(args.seed)
    sets = {}
    for name, drop_one, wild, meld in [
        ("h14", False, False, False),
        ("h13", True, False, False),
        ("h14_wild", False, True, False),
        ("h13_wild", True, True, False),
        ("h13_meld", True, False, True),
        ("h13_meld_wild", True, True, True),
    ]:
        kind = {"drop_one": drop_one, "wild": wild, "meld": meld}
        sets[name] = (sample(rng, args.hands, **kind), sample(rng, args.hands, **kind))

    def run(fns: list[Callable], name: str, plain: bool = False) -> list[int]:
        """``plain``: call ``fn(counts)`` directly (no wrapper), else ``fn(hand)``."""
        hands, warm = sets[name]
        if plain:
            hands, warm = [h[0] for h in hands], [h[0] for h in warm]
        return [round(r) for r in rates(fns, hands, warm, args.repeat)]

    def win(h: Hand) -> bool:
        return is_winning(h[0], h[1], allowed_mask=mask, meld_counts=h[2])

    def wait(h: Hand) -> list[int]:
        return waits(h[0], h[1], allowed_mask=mask, meld_counts=h[2])

    def sh(h: Hand) -> int:
        return shanten(h[0], h[1], allowed_mask=mask, meld_counts=h[2])

    def sh_regular(counts: list[int]) -> int:
        return shanten(counts, seven_pairs=False)

    try:
        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError:
        Agari = Shanten = None

    ours: dict[str, int] = {}
    theirs: dict[str, int] = {}
    if Agari is not None and Shanten is not None:
        ours["is_winning"], theirs["is_agari"] = run([is_winning, Agari.is_agari], "h14", plain=True)
        ours["shanten"], theirs["calculate_shanten"] = run([shanten, Shanten.calculate_shanten], "h13", plain=True)
        ours["shanten_regular_only"], theirs["calculate_shanten_for_regular_hand"] = run(
            [sh_regular, Shanten.calculate_shanten_for_regular_hand], "h13", plain=True
        )
    else:
        ours["is_winning"], ours["shanten"] = run([is_winning], "h14", True)[0], run([shanten], "h13", True)[0]
        ours["shanten_regular_only"] = run([sh_regular], "h13", plain=True)[0]
    ours["waits"] = run([waits], "h13", plain=True)[0]
    ours["is_winning_wild"] = run([win], "h14_wild")[0]
    ours["waits_wild"] = run([wait], "h13_wild")[0]
    ours["shanten_wild"] = run([sh], "h13_wild")[0]
    ours["shanten_meld"] = run([sh], "h13_meld")[0]
    ours["waits_meld"] = run([wait], "h13_meld")[0]
    ours["shanten_meld_wild"] = run([sh], "h13_meld_wild")[0]

    result: dict[str, object] = {
        "benchmark": "hand",
        "python": platform.python_version(),
        "hands_per_sample": args.hands,
        "repeat": args.repeat,
        "seed": args.seed,
        "table_load_seconds": round(load_seconds, 3),
        "ours_per_second": ours,
        "win_rate_in_h14_sample": round(sum(is_winning(h[0]) for h in sets["h14"][0]) / len(sets["h14"][0]), 3),
    }
    if not theirs:
        result["mahjong"] = "skipped: package not installed"
    else:
        result["mahjong_per_second"] = theirs
        ratios = {
            "is_winning_vs_is_agari": round(ours["is_winning"] / theirs["is_agari"], 2),
            "shanten_vs_calculate_shanten": round(ours["shanten"] / theirs["calculate_shanten"], 2),
            "regular_shanten_vs_regular": round(
                ours["shanten_regular_only"] / theirs["calculate_shanten_for_regular_hand"], 2
            ),
        }
        result["ratios"] = ratios
        result["goals_met"] = {
            "win_check_2x": ratios["is_winning_vs_is_agari"] >= 2,
            "shanten_10x": ratios["shanten_vs_calculate_shanten"] >= 10,
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
