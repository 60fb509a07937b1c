"""The compiled shanten (agents/compiled/shanten.py) equals agents.handeval.shanten_dead (and so
envs.scoring.shanten) on seeded random hands: wildcards, dead void suits, melds, two- and three-suit kind sets."""

from __future__ import annotations

import numpy as np

from agents.compiled.shanten import SUIT_TABLE
from agents.compiled.shanten import shanten_dead as compiled_shanten
from agents.handeval import shanten_dead, suit_mask


def test_compiled_shanten_equals_handeval() -> None:
    rng = np.random.default_rng(0)
    for i in range(1500):
        size = int(rng.choice([13, 14, 10, 11, 7, 8, 4, 5]))
        n_suits = 3 if i % 3 else 2
        pool = [k for k in range(9 * n_suits) for _ in range(4)]
        wilds = int(rng.integers(0, 4)) if i % 2 else 0
        counts = [0] * 34
        for t in rng.choice(pool, size - wilds, replace=False):
            counts[int(t)] += 1
        dead = suit_mask(int(rng.integers(0, 3))) if i % 4 == 0 else 0
        allowed = (1 << (9 * n_suits)) - 1
        melded = b""
        if size < 13 and i % 5 == 0:
            m = [0] * 34
            k = int(rng.integers(0, 27))
            m[k] = (3 if counts[k] <= 1 else 0) if i % 2 else (4 if counts[k] == 0 else 0)
            melded = bytes(m)
        expected = shanten_dead(counts, wilds, dead=dead, allowed=allowed, melded=melded)
        got = compiled_shanten(
            np.array(counts, dtype=np.int8),
            wilds,
            dead,
            allowed,
            np.frombuffer(melded or bytes(34), dtype=np.uint8).astype(np.int8),
            SUIT_TABLE,
        )
        assert got == expected, (counts, wilds, dead, allowed, list(melded))
