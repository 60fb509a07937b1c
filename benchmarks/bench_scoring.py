"""Scoring speed: ``score_hand`` calls per second with and without wildcards (prints JSON).

A seeded sample of complete winning hands (two suits, void declared, 0-2 melds) is scored repeatedly:

* ``chengdu_no_wild`` — plain hands;
* ``hongzhong_wild`` — 1-4 of the concealed tiles replaced by 红中;
* ``yibin_wild`` — 1-8 of the concealed tiles replaced by 听用 (本金 5s: 4s, 6s; void 筒 or 万);
* ``duankagen`` — 10-tile hands over 条/筒 (3 sets + pair, 0-1 pongs), self-draw or discard (小胡 refusals count);
* ``wuhan_laizi`` — open hands with honors (1-2 pongs) and 0-2 concealed tiles replaced by the 赖子 6p;
* ``score_win`` / ``can_win`` — the engine entry points on the plain hands (no string parsing); ``can_win`` is
  measured with its completeness cache warm (repeated positions) and cold (cleared before every call).

Usage: ``python benchmarks/bench_scoring.py [--hands 300] [--seed 7] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.core.melds import parse_meld
from envs.core.rule_config import load_variant
from envs.core.tiles import kind_of, tile_code
from envs.scoring.interpret import clear_completeness_cache
from envs.scoring.scorer import WinContext, can_win, score_hand, score_win


def complete_hand(rng: random.Random, suits: list[int]) -> tuple[list[int], list[str], int] | None:
    """A random complete hand over ``suits``: (concealed kinds without the winning tile, melds, winning kind)."""
    counts = [0] * 34
    tiles: list[int] = []
    melds: list[str] = []
    n_melds = rng.choice([0, 0, 0, 1, 2])
    for index in range(4):
        suit = rng.choice(suits)
        if index < n_melds or rng.random() < 0.35:
            k = suit * 9 + rng.randrange(9)
            if counts[k] > 1:
                return None
            counts[k] += 3
            if index < n_melds:
                melds.append(f"pong {tile_code(k)}")
            else:
                tiles += [k] * 3
        else:
            k = suit * 9 + rng.randrange(7)
            if any(counts[k + j] > 3 for j in range(3)):
                return None
            for j in range(3):
                counts[k + j] += 1
            tiles += [k, k + 1, k + 2]
    k = rng.choice([s * 9 + r for s in suits for r in range(9)])
    if counts[k] > 2:
        return None
    tiles += [k, k]
    win = rng.choice(tiles)
    tiles.remove(win)
    return tiles, melds, win


def sample(rng: random.Random, n: int, wild: tuple[int, ...], max_wilds: int, reserved: int | None = None) -> list:
    out = []
    while len(out) < n:
        void = rng.choice([0, 1]) if wild != (31,) else rng.randrange(3)
        suits = [s for s in range(3) if s != void]
        hand = complete_hand(rng, suits)
        if hand is None:
            continue
        tiles, melds, win = hand
        if wild:
            if any(parse_meld(m).tile in wild for m in melds):
                continue
            n_wild = rng.randint(1, min(max_wilds, len(tiles)))
            for i, pos in enumerate(rng.sample(range(len(tiles)), n_wild)):
                tiles[pos] = wild[i % len(wild)]
        physical = [tiles.count(k) + (k == win) + 3 * sum(parse_meld(m).tile == k for m in melds) for k in range(34)]
        if reserved is not None:
            physical[reserved] += 1
        if max(physical) > 4:
            continue
        self_drawn = rng.random() < 0.5 or win in wild
        out.append((" ".join(tile_code(k) for k in tiles), melds, tile_code(win), "mps"[void], self_drawn))
    return out


def variant_hands(
    rng: random.Random, n: int, kinds: list[int], sets: int, melds: tuple[int, int], wild: int | None, max_wilds: int
) -> list:
    """Complete hands of ``sets`` sets over ``kinds`` (no 定缺): (concealed, melds, win, self_drawn)."""
    out = []
    while len(out) < n:
        counts = [0] * 34
        tiles: list[int] = []
        meld_strs: list[str] = []
        n_melds = rng.randint(*melds)
        ok = True
        for index in range(sets):
            k = rng.choice(kinds)
            if index < n_melds or rng.random() < 0.35 or k >= 27 or k % 9 > 6:
                if counts[k] > 1 or (wild is not None and k == wild):
                    ok = False
                    break
                counts[k] += 3
                if index < n_melds:
                    meld_strs.append(f"pong {tile_code(k)}")
                else:
                    tiles += [k] * 3
            else:
                if any(counts[k + j] > 3 for j in range(3)) or (wild is not None and wild in (k, k + 1, k + 2)):
                    ok = False
                    break
                for j in range(3):
                    counts[k + j] += 1
                tiles += [k, k + 1, k + 2]
        k = rng.choice(kinds)
        if not ok or counts[k] > 2:
            continue
        tiles += [k, k]
        win = rng.choice(tiles)
        tiles.remove(win)
        if wild is not None:
            for pos in rng.sample(range(len(tiles)), rng.randint(0, max_wilds)):
                tiles[pos] = wild
        melded = [parse_meld(m).tile for m in meld_strs]
        physical = [tiles.count(k) + (k == win) + 3 * melded.count(k) for k in range(34)]
        if max(physical) > 4:
            continue
        self_drawn = rng.random() < 0.5 or win == wild
        out.append((" ".join(tile_code(k) for k in tiles), meld_strs, tile_code(win), self_drawn))
    return out


def rate(fn, items: list, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chengdu = load_variant("chengdu")
    hongzhong = load_variant("hongzhong")
    yibin = load_variant("yibin")
    plain = sample(rng, args.hands, (), 0)
    reds = sample(rng, args.hands, (31,), 4)
    tingyong = sample(rng, args.hands, (kind_of("4s"), kind_of("6s")), 8, reserved=kind_of("5s"))
    duankagen = load_variant("duankagen")
    wuhan = load_variant("wuhan")
    dkg_hands = variant_hands(rng, args.hands, list(range(9, 27)), 3, (0, 1), None, 0)
    wuhan_kinds = [k for k in range(34) if k != 31]
    wuhan_hands = variant_hands(rng, args.hands, wuhan_kinds, 4, (1, 2), kind_of("6p"), 2)

    def variant_call(cfg, **kw):
        def call(item):
            concealed, melds, win, self_drawn = item
            return score_hand(cfg, concealed, melds, win, self_drawn=self_drawn, **kw)

        return call

    def hand_call(cfg, benjin=None):
        def call(item):
            concealed, melds, win, void, self_drawn = item
            return score_hand(cfg, concealed, melds, win, self_drawn=self_drawn, void_suit=void, benjin=benjin)

        return call

    contexts = []
    for concealed, melds, win, void, self_drawn in plain:
        counts = [0] * 34
        for k in [*(kind_of(t) for t in concealed.split()), kind_of(win)]:
            counts[k] += 1
        contexts.append(
            WinContext(
                tuple(counts),
                kind_of(win),
                tuple(parse_meld(m) for m in melds),
                self_drawn=self_drawn,
                void_suit="mps".index(void),
            )
        )

    def cold_can_win(ctx: WinContext) -> bool:
        clear_completeness_cache()
        return can_win(chengdu, ctx)

    results = {
        "benchmark": "score_hand",
        "seed": args.seed,
        "hands": args.hands,
        "python": platform.python_version(),
        "calls_per_s": {
            "chengdu_no_wild": round(rate(hand_call(chengdu), plain, args.repeat)),
            "hongzhong_wild_1_4": round(rate(hand_call(hongzhong), reds, args.repeat)),
            "yibin_wild_1_8": round(rate(hand_call(yibin, "5s"), tingyong, args.repeat)),
            "duankagen": round(rate(variant_call(duankagen), dkg_hands, args.repeat)),
            "wuhan_laizi_0_2": round(rate(variant_call(wuhan, laizi="6p"), wuhan_hands, args.repeat)),
            "score_win_no_wild": round(rate(lambda ctx: score_win(chengdu, ctx), contexts, args.repeat)),
            "can_win_no_wild_cached": round(rate(lambda ctx: can_win(chengdu, ctx), contexts, args.repeat)),
            "can_win_no_wild_cold": round(rate(cold_can_win, contexts, args.repeat)),
        },
        "wins": {
            "chengdu_no_wild": sum(hand_call(chengdu)(i).is_win for i in plain),
            "hongzhong_wild_1_4": sum(hand_call(hongzhong)(i).is_win for i in reds),
            "yibin_wild_1_8": sum(hand_call(yibin, "5s")(i).is_win for i in tingyong),
            "duankagen": sum(variant_call(duankagen)(i).is_win for i in dkg_hands),
            "wuhan_laizi_0_2": sum(variant_call(wuhan, laizi="6p")(i).is_win for i in wuhan_hands),
        },
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
