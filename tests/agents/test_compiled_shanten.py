"""The compiled shanten (agents/compiled/shanten.py) equals agents.handeval.shanten_dead (and so
envs.scoring.shanten) on seeded random hands: wildcards, dead void suits, melds, two- and three-suit kind sets."""

from __future__ import annotations

import numpy as np

from agents.compiled.shanten import SHANTEN_TABLES
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
            SHANTEN_TABLES,
        )
        assert got == expected, (counts, wilds, dead, allowed, list(melded))


def _seven_pairs_by_definition(counts: list[int], wilds: int, allowed: int) -> int:
    """Least uncovered missing tiles over every seven-pairs target (0, 1 or 2 pairs per kind, seven in all), the
    wildcards covering missing tiles of allowed kinds: a dynamic programme over the kinds."""
    inf = 1 << 20
    best = {(0, 0): 0}  # (pairs, wildcards used) -> least uncovered missing tiles
    for k, c in enumerate(counts):
        nxt: dict[tuple[int, int], int] = {}
        for (m, u), v in best.items():
            for x in range(3):
                if m + x > 7:
                    break
                miss = max(2 * x - c, 0)
                use = min(miss, wilds - u) if (allowed >> k) & 1 else 0
                key = (m + x, u + use)
                nxt[key] = min(nxt.get(key, inf), v + miss - use)
        best = nxt
    return min(v for (m, _), v in best.items() if m == 7)


def test_compiled_seven_pairs_is_the_definition() -> None:
    """The closed-form 七对 distance (cheapest pair steps, split between wildcard-allowed kinds and the others) equals
    the definition on pair-heavy hands with wildcards and partial allowed masks."""
    from agents.compiled.shanten import _seven_pairs

    rng = np.random.default_rng(5)
    for i in range(3000):
        counts = [0] * 34
        kinds = rng.choice(34 if i % 2 else 27, size=int(rng.integers(3, 9)), replace=False)
        left = int(rng.integers(8, 15))
        for k in kinds:
            take = min(int(rng.integers(1, 5)), left)
            counts[int(k)] = take
            left -= take
        wilds = int(rng.integers(0, 5))
        allowed = int(rng.integers(0, 1 << 34)) if i % 3 == 0 else (1 << 27) - 1
        got = _seven_pairs(np.array(counts, dtype=np.int64), wilds, allowed)
        assert got == _seven_pairs_by_definition(counts, wilds, allowed), (counts, wilds, hex(allowed))


def test_compiled_shanten_reuses_capped_profiles_exactly() -> None:
    """Hands with melds in one to three suits and dead tiles (more than the six dummies hold, too), asked twice
    through tables whose capped memo has four slots: every answer, from a fresh computation, a hit or a slot another
    suit overwrote, equals the Python definition."""
    from agents.compiled.shanten import new_tables

    tables = new_tables(capped_slots=4)
    rng = np.random.default_rng(11)
    cases = []
    for i in range(600):
        n_melds = int(rng.integers(0, 4))
        size = 13 - 3 * n_melds + (i % 2)
        wilds = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        melded = [0] * 34
        for k in rng.choice(27, size=n_melds, replace=False):
            melded[int(k)] = 3 if rng.random() < 0.7 else 4
        pool = [k for k in range(27) for _ in range(4 - melded[k])]
        counts = [0] * 34
        for t in rng.choice(pool, size - wilds, replace=False):
            counts[int(t)] += 1
        dead = suit_mask(int(rng.integers(0, 3))) if i % 2 else 0
        cases.append((counts, wilds, dead, melded))
    for _ in range(2):
        for counts, wilds, dead, melded in cases:
            allowed = (1 << 27) - 1
            expected = shanten_dead(counts, wilds, dead=dead, allowed=allowed, melded=bytes(melded))
            got = compiled_shanten(np.array(counts, dtype=np.int64), wilds, dead, allowed,
                                   np.array(melded, dtype=np.int64), tables)  # fmt: skip
            assert got == expected, (counts, wilds, hex(dead), melded)


def _random_hand(rng: np.random.Generator, n_melds: int, tiles: int, *, honors: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, melded)``: ``n_melds`` pongs or kongs of suited kinds and ``tiles`` concealed tiles drawn from the
    copies they leave (suited kinds, or every kind with ``honors``; no wildcard stands for an honor)."""
    melded = np.zeros(34, dtype=np.int64)
    for k in rng.choice(27, size=n_melds, replace=False):
        melded[int(k)] = 3 if rng.random() < 0.7 else 4
    pool = [k for k in range(34 if honors else 27) for _ in range(4 - int(melded[k]))]
    counts = np.zeros(34, dtype=np.int64)
    for t in rng.choice(pool, tiles, replace=False):
        counts[int(t)] += 1
    return counts, melded


def test_split_hand_answers_one_tile_more_or_less_exactly() -> None:
    """split_hand / split_shanten equal shanten_dead on the hand and on every hand one suited tile away: melds,
    dead suits (with more dead tiles than dummies), honors, with and without wildcards, partly allowed suits
    (refused: NO_SPLIT)."""
    from agents.compiled.shanten import NO_SPLIT, new_tables, split_hand, split_shanten

    tables = new_tables(capped_slots=8)
    rng = np.random.default_rng(17)
    checked = refused = honors = 0
    for i in range(500):
        n_melds = int(rng.integers(0, 3))
        size = 13 - 3 * n_melds + (i % 2)
        wilds = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        counts, melded = _random_hand(rng, n_melds, size - wilds, honors=i % 5 == 1)
        dead = suit_mask(int(rng.integers(0, 3))) if i % 2 else 0
        allowed = (1 << 27) - 1 if i % 7 else (1 << 27) - 1 - (1 << int(rng.integers(0, 27)))
        base = split_hand(counts, wilds, dead, allowed, melded, tables)
        honors += bool(counts[27:].any())
        want = compiled_shanten(counts, wilds, dead, allowed, melded, SHANTEN_TABLES)
        if base == NO_SPLIT:
            refused += 1
            assert i % 7 == 0
            continue
        assert base == want
        for t in range(27):
            for d in (1, -1):
                got = split_shanten(t, d, tables)
                if (dead >> t) & 1 or not 0 <= counts[t] + d <= 4 - melded[t]:
                    assert got == NO_SPLIT
                    continue
                if got == NO_SPLIT:  # the number of sets would change
                    continue
                counts[t] += d
                assert got == compiled_shanten(counts, wilds, dead, allowed, melded, SHANTEN_TABLES), (t, d)
                counts[t] -= d
                checked += 1
    assert refused > 0 and checked > 5000 and honors > 50


def test_a_discard_then_a_draw_answer_exactly() -> None:
    """discard_begin / draw_after equal shanten_dead on the split 3k+2 hand with one tile fewer (a suited kind or an
    honor) and then on that hand with each suited tile more, the latter capped at a bound (the same suit or another;
    melds, whose suits are bounded from the uncapped table first, dead suits with more dead tiles than dummies, honors,
    seven-pair hands, with and without wildcards); refused (NO_SPLIT) for a dead discard or draw, an honor discard
    beside a dead suit, a draw past its cap, a second discard before discard_end and a split that does not apply; after
    discard_end the split answers its own hand again."""
    from agents.compiled.shanten import (
        NO_SPLIT,
        discard_begin,
        discard_end,
        draw_after,
        new_tables,
        split_hand,
        split_shanten,
    )

    tables = new_tables(capped_slots=8)
    arrays = (tables[0], tables[1], tables[2], tables[5], tables[6], tables[7], tables[8])
    rng = np.random.default_rng(31)
    discards = draws = refused = seven = bounded = honors = 0
    for i in range(300):
        n_melds = int(rng.integers(0, 3)) if i % 3 else 0
        size = 14 - 3 * n_melds
        wilds = int(rng.integers(0, 3)) if i % 4 == 0 else 0
        counts, melded = _random_hand(rng, n_melds, size - wilds, honors=i % 5 == 1)
        dead = suit_mask(int(rng.integers(0, 3))) if i % 2 else 0
        allowed = (1 << 27) - 1 if i % 9 else (1 << 27) - 1 - (1 << int(rng.integers(0, 27)))
        if split_hand(counts, wilds, dead, allowed, melded, tables) == NO_SPLIT:
            assert all(discard_begin(d, *arrays) == NO_SPLIT for d in range(34))
            refused += 1
            continue
        seven += n_melds == 0 and not any(counts[k] for k in range(27) if (dead >> k) & 1)
        for d in range(34):
            if counts[d] == 0 or (dead >> d) & 1 or (d >= 27 and dead):  # an honor beside a dead suit: refused
                assert discard_begin(d, *arrays) == NO_SPLIT
                continue
            got = discard_begin(d, *arrays)
            counts[d] -= 1
            assert got == compiled_shanten(counts, wilds, dead, allowed, melded, SHANTEN_TABLES), (d,)
            assert discard_begin((d + 1) % 34, *arrays) == NO_SPLIT  # one discard at a time
            for t in range(27):
                below = 100 if t % 2 else got  # the shanten itself, or the shanten capped at the discard's
                s2 = draw_after(t, below, *arrays)
                if (dead >> t) & 1 or counts[t] + 1 > 4 - melded[t]:
                    assert s2 == NO_SPLIT
                    continue
                counts[t] += 1
                want = compiled_shanten(counts, wilds, dead, allowed, melded, SHANTEN_TABLES)
                assert s2 == min(want, below), (d, t, below)
                counts[t] -= 1
                draws += 1
                bounded += n_melds > 0 and below == got and want == below  # a draw that does not lower it
            counts[d] += 1
            discard_end(tables[6], tables[7], tables[8])
            discards += 1
            honors += d >= 27
            for t in range(27):  # the split answers its own hand again
                for step in (1, -1):
                    if (dead >> t) & 1 or not 0 <= counts[t] + step <= 4 - melded[t]:
                        continue
                    counts[t] += step
                    s1 = compiled_shanten(counts, wilds, dead, allowed, melded, SHANTEN_TABLES)
                    counts[t] -= step
                    assert split_shanten(t, step, tables) == s1, (d, t, step)
    assert draws > 20000 and discards > 1500 and refused > 0 and seven > 50 and bounded > 500 and honors > 50


def test_split_suit_shanten_answers_a_suit_replaced_exactly() -> None:
    """split_suit_shanten equals shanten_dead on the split hand with one suit's counts replaced by any others of as
    many tiles (dead suits, melds elsewhere, wildcards, seven-pair hands); refused (NO_SPLIT) for a suit with a
    dead or capped kind, another tile count, seven pairs, or a hand the split does not apply to."""
    from agents.compiled.shanten import NO_SPLIT, new_tables, split_hand, split_suit_shanten

    tables = new_tables(capped_slots=8)
    rng = np.random.default_rng(29)
    checked = refused = 0
    for i in range(400):
        n_melds = int(rng.integers(0, 2)) if i % 3 else 0
        size = 13 - 3 * n_melds + (i % 2) - 3 * (i % 5 == 0)
        wilds = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        melded = np.zeros(34, dtype=np.int64)
        for k in rng.choice(27, size=n_melds, replace=False):
            melded[int(k)] = 3
        pool = [k for k in range(27) for _ in range(4 - int(melded[k]))]
        counts = np.zeros(34, dtype=np.int64)
        for t in rng.choice(pool, size - wilds, replace=False):
            counts[int(t)] += 1
        dead = suit_mask(int(rng.integers(0, 3))) if i % 2 else 0
        allowed = (1 << 27) - 1
        if split_hand(counts, wilds, dead, allowed, melded, tables) == NO_SPLIT:
            continue
        dead_held = sum(int(counts[k]) for k in range(27) if (dead >> k) & 1)  # each becomes a capped dummy
        seven = n_melds == 0 and dead_held == 0 and size >= 13  # four sets and a pair: seven pairs count too
        for g in range(3):
            lo = 9 * g
            held = int(counts[lo : lo + 9].sum())
            blocked = seven or (dead >> lo) & 1 or melded[lo : lo + 9].any()
            for _ in range(12):
                new = np.zeros(9, dtype=np.int64)
                extra = int(rng.integers(-1, 2)) if i % 4 == 0 else 0  # another tile count now and then
                for t in rng.choice([r for r in range(9) for _ in range(4)], max(0, held + extra), replace=False):
                    new[int(t)] += 1
                code = int(sum(int(new[r]) * 5 ** (8 - r) for r in range(9)))
                got = split_suit_shanten(g, code, tables)
                if blocked or new.sum() != held:
                    assert got == NO_SPLIT
                    refused += 1
                    continue
                hand = counts.copy()
                hand[lo : lo + 9] = new
                assert got == compiled_shanten(hand, wilds, dead, allowed, melded, SHANTEN_TABLES), (hand, g)
                checked += 1
    assert checked > 3000 and refused > 300


def test_a_filled_suit_table_holds_what_first_use_computes() -> None:
    """fill_suit_table fills every suit code once (a second call writes nothing), each row the suit's dynamic
    programme (seeded codes of every size); on seeded hands in every suit, a table filled on first use holds the
    same rows, and shanten through either equals handeval."""
    from agents.compiled.shanten import _UNSET, _group, _store, fill_suit_table, new_tables

    filled, lazy = new_tables(), new_tables()
    assert fill_suit_table(filled) == 5**9 and fill_suit_table(filled) == 0
    caps, work, row = np.full(9, 4, dtype=np.int64), np.empty((5, 2), dtype=np.int64), np.empty((5, 2), dtype=np.int8)
    sizes = set()
    for code in np.random.default_rng(5).integers(0, 5**9, 3000):
        c = np.array([int(code) // 5 ** (8 - i) % 5 for i in range(9)], dtype=np.int64)
        sizes.add(int(c.sum()))
        _group(c, caps, 0, 9, 4, work)
        _store(work, row)
        np.testing.assert_array_equal(filled[0][code], row, err_msg=str(c))
    assert min(sizes) <= 8 and max(sizes) >= 28
    rng = np.random.default_rng(17)
    for _ in range(400):
        counts = [0] * 34
        for t in rng.choice([k for k in range(27) for _ in range(4)], 13, replace=False):
            counts[int(t)] += 1
        hand = np.array(counts, dtype=np.int8)
        zero = np.zeros(34, dtype=np.int8)
        expected = shanten_dead(counts, 0, dead=0, allowed=(1 << 27) - 1)
        assert compiled_shanten(hand, 0, 0, (1 << 27) - 1, zero, filled) == expected
        assert compiled_shanten(hand, 0, 0, (1 << 27) - 1, zero, lazy) == expected
    seen = lazy[0][:, 0, 0] != _UNSET
    assert seen.sum() > 300
    np.testing.assert_array_equal(lazy[0][seen], filled[0][seen])
