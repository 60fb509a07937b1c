"""The compiled hand values (agents/compiled/valuation.py, value_plans.py) equal agents.valuation and
ValueAgent.hand_value bit for bit on positions recorded from seeded hands of every preset."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.compiled import valuation as cv
from agents.compiled import value_plans as vp
from agents.compiled.shanten_memo import MEMO
from agents.features import read
from agents.handeval import pairs_shanten, triplets_shanten
from agents.valuation import VariantValues, completion_probability, win_value
from agents.value import ValueAgent
from envs.core.rule_config import PRESETS, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.engine.view import Phase
from tests.agents.compiled_positions import record


def test_completion_probability_equal() -> None:
    plans = ("standard", "flush", "pairs", "triplets")
    for s, u, unseen, draws, plan, seats, every, extra, hazard in itertools.product(
        (-1, 0, 1, 3, 6), (0, 3, 11.0), (1, 40, 90), (0.0, 2.5, 7.0, 20.0), range(4), (0, 1, 3), (False, True),
        (0, 3), (0.0, 0.07, 0.5),
    ):  # fmt: skip
        want = completion_probability(
            s, u, unseen, draws, plan=plans[plan], claim_seats=seats, claims_every_step=every, extra=extra,
            hazard=hazard,
        )  # fmt: skip
        assert cv.completion_probability(s, u, unseen, draws, plan, seats, every, extra, hazard) == want


@pytest.mark.parametrize("variant", PRESETS)
def test_payment_and_win_value_equal(variant: str) -> None:
    cfg = load_variant(variant)
    values = VariantValues.of(cfg)
    v = cv.values_vector(cfg)
    for d in range(-2, 12):
        assert cv.payment(v, float(d)) == values.payment(d)
        for plan, name in ((0, "base"), (1, "pairs"), (2, "triplets"), (3, "flush")):
            for flush, roots, wild in itertools.product((False, True), (0, 2), (False, True)):
                want = values.plan_doublings(name, flush=flush, roots=roots, wild=wild)
                assert cv.plan_doublings(v, plan, flush, roots, wild) == want
        for payers, pinghu in itertools.product(range(4), (False, True)):
            pay = values.payment(d)
            assert cv.win_value(v, pay, payers, pinghu) == win_value(values, pay, payers, pinghu=pinghu)


def test_plan_shanten_equal() -> None:
    rng = np.random.default_rng(5)
    for _ in range(3000):
        counts = [0] * NUM_KINDS
        for k in rng.choice(NUM_SUITED * 4, size=int(rng.integers(10, 15)), replace=False):
            counts[int(k) // 4] += 1
        live = [int(x) for x in rng.integers(0, 5, NUM_KINDS)]
        wilds = int(rng.integers(0, 3))
        dead = 0x1FF << (9 * int(rng.integers(0, 3))) if rng.random() < 0.7 else 0
        c = np.array(counts, dtype=np.int64)
        lv = np.array(live, dtype=np.int64)
        assert vp.pairs_shanten(c, wilds, dead, lv) == pairs_shanten(counts, wilds, dead, live)
        n_sets = (sum(counts) + wilds - 1) // 3
        for kinds in (range(NUM_SUITED), [*range(NUM_SUITED), 27, 28, 29, 30, 32, 33]):
            mask = sum(1 << k for k in kinds)
            want = triplets_shanten(counts, wilds, n_sets, dead, live, kinds)
            assert vp.triplets_shanten(c, wilds, n_sets, dead, lv, mask) == want


def _agent(variant: str) -> ValueAgent:
    agent = ValueAgent()
    agent.reset(0, load_variant(variant))
    return agent


@pytest.mark.parametrize("variant", PRESETS)
def test_hand_value_equal(variant: str) -> None:
    """Every candidate discard of every own turn and the pong hands of every claim: the same (value, live useful
    tiles, plan) as ``ValueAgent.hand_value``."""
    cfg = load_variant(variant)
    obs, _masks = record(variant, hands=2, seed=11)
    kit = vp.ValueKit(cfg)
    rows = kit.rows(obs)
    agent = _agent(variant)
    work = vp.hand_value_work()
    checked = 0
    for b in range(obs.shape[0]):
        seen = read(obs[b], in_play=tuple(cfg.kinds))
        if seen.phase not in (Phase.SELF, Phase.CLAIM):
            continue
        if agent._wuhan:
            agent._read_chis(obs[b])
        counts = np.array(seen.counts, dtype=np.int64)
        melded = np.array(list(seen.melded or bytes(NUM_KINDS)), dtype=np.int64)
        hands: list[tuple[list[int], int, bytes, int]] = []
        if (sum(seen.counts) + seen.wilds) % 3 == 2:
            for k in range(NUM_KINDS):
                if seen.counts[k]:
                    c = list(seen.counts)
                    c[k] -= 1
                    hands.append((c, seen.wilds, seen.melded, seen.n_melds))
            if seen.wilds:
                hands.append((list(seen.counts), seen.wilds - 1, seen.melded, seen.n_melds))
        else:
            hands.append((list(seen.counts), seen.wilds, seen.melded, seen.n_melds))
            k = seen.claim_tile
            if k is not None and seen.counts[k] >= 2:
                c = list(seen.counts)
                c[k] -= 2
                m = agent._meld_added(seen.melded, k, 3)
                for d in range(NUM_KINDS):
                    if c[d] and d not in seen.wild_kinds:
                        c2 = list(c)
                        c2[d] -= 1
                        hands.append((c2, seen.wilds, m, seen.n_melds + 1))
        for c, wilds, m, n_melds in hands:
            want = agent.hand_value(seen, c, wilds, m, n_melds)
            counts = np.array(c, dtype=np.int64)
            melded = np.array(list(m or bytes(NUM_KINDS)), dtype=np.int64)
            got = vp.hand_value(
                counts, wilds, melded, n_melds, rows.chis[b], rows.n_chis[b], rows.row_i[b], rows.row_k[b],
                rows.row_f[b], kit.values, kit.ci, kit.cf, kit.scorer, MEMO, work,
            )  # fmt: skip
            assert (got[0], got[1], vp.PLAN_NAMES[got[2]]) == want, f"row {b}: {c} wilds {wilds}"
            checked += 1
    assert checked > 100


def test_shanten_memo_exact() -> None:
    """The memo answers exactly what the compiled shanten computes, on hits and on slots reused by other hands."""
    from agents.compiled.shanten import shanten_dead
    from agents.compiled.shanten_memo import new_memo, shanten_cached

    memo = new_memo(slots=64)  # small: most slots are overwritten many times
    rng = np.random.default_rng(9)
    hands = []
    for _ in range(400):
        c = np.zeros(NUM_KINDS, dtype=np.int64)
        for k in rng.choice(NUM_SUITED * 4, size=int(rng.choice([10, 13])), replace=False):
            c[int(k) // 4] += 1
        m = np.zeros(NUM_KINDS, dtype=np.int64)
        if rng.random() < 0.3:
            m[int(rng.integers(0, NUM_SUITED))] = 3
        hands.append((c, int(rng.integers(0, 3)), int(0x1FF << (9 * int(rng.integers(0, 3))))))
        hands[-1] = (*hands[-1], m)
    for _ in range(3):
        for c, wilds, dead, m in hands:
            want = shanten_dead(c, wilds, dead, (1 << NUM_SUITED) - 1, m, memo[0])
            assert shanten_cached(c, wilds, dead, (1 << NUM_SUITED) - 1, m, memo) == want


def test_memo_probe_misses_until_stored_and_never_keeps_what_its_words_cannot_hold() -> None:
    """memo_probe answers MISS for a hand the memo lacks and, once memo_store kept a value in its slot, that value
    (other dead or allowed masks stay misses); a hand whose counts its words cannot hold (``ok`` false) gets slot
    -1, which memo_store ignores."""
    from agents.compiled.shanten_memo import MISS, memo_probe, memo_store, memo_words, new_memo

    memo = new_memo(slots=64)
    c = np.zeros(NUM_KINDS, dtype=np.int64)
    c[[0, 1, 2, 9, 9, 18]] = 1
    m = np.zeros(NUM_KINDS, dtype=np.int64)
    ok, w0, w1, w4, w5 = memo_words(c, 0, m)
    assert ok
    slot, got = memo_probe(memo, ok, w0, w1, 0, 511, w4, w5)
    assert got == MISS and slot >= 0
    memo_store(memo, slot, w0, w1, 0, 511, w4, w5, 3)
    assert memo_probe(memo, ok, w0, w1, 0, 511, w4, w5) == (slot, 3)
    assert memo_probe(memo, ok, w0, w1, 0, 1023, w4, w5)[1] == MISS
    assert memo_probe(memo, ok, w0, w1, 1 << 20, 511, w4, w5)[1] == MISS
    big = c.copy()
    big[5] = 8  # more copies than a word holds
    ok, *words = memo_words(big, 0, m)
    assert not ok and memo_probe(memo, ok, *words[:2], 0, 511, *words[2:]) == (-1, MISS)
    before = memo[1].copy()
    memo_store(memo, -1, *words[:2], 0, 511, *words[2:], 2)
    assert np.array_equal(memo[1], before)


def test_compiled_useful_tiles_equal_handeval() -> None:
    """The compiled useful tiles (有效牌), whose drawn hands are looked up by the held hand's key plus one count, list
    the kinds :func:`agents.handeval.useful_tiles` lists: wildcards, void suits, melds and a one-suit candidate set,
    with a small memo whose slots are overwritten; a hand asked again at once is answered from the memo's useful
    table, which then writes nothing."""
    from agents.compiled.shanten_memo import NEAR, memo_words, new_memo, useful_tiles
    from agents.handeval import useful_tiles as python_useful

    memo = new_memo(slots=64)
    rng = np.random.default_rng(11)
    out = np.empty(NUM_KINDS, dtype=np.int64)
    cases = []
    for i in range(600):
        c = np.zeros(NUM_KINDS, dtype=np.int64)
        wilds = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        for k in rng.choice(NUM_SUITED * 4, size=int(rng.choice([13, 10, 7])) - wilds, replace=False):
            c[int(k) // 4] += 1
        m = np.zeros(NUM_KINDS, dtype=np.int64)
        if i % 4 == 1:
            k = int(rng.integers(0, NUM_SUITED))
            if c[k] <= 1:
                m[k] = 3
        dead = int(0x1FF << (9 * int(rng.integers(0, 3)))) if i % 5 == 0 else 0
        allowed = (1 << NUM_SUITED) - 1
        cand = allowed & ~dead if i % 7 else int(0x1FF << (9 * int(rng.integers(0, 3))))
        want = python_useful(
            [int(x) for x in c], wilds, dead=dead, allowed=allowed, melded=bytes(int(x) for x in m), candidates=cand
        )
        cases.append((c, wilds, dead, allowed, m, cand, want))
    checked = 0
    for _ in range(2):
        for c, wilds, dead, allowed, m, cand, want in cases:
            for again in (False, True):
                before = c.copy()
                ok, w0, w1, w4, w5 = memo_words(c, wilds, m)
                key = np.array([w0, w1, dead, allowed, w4, w5, cand], dtype=np.int64)
                table = memo[3].copy()
                kept = bool((table == key).all(axis=1).any())
                s, n = useful_tiles(c, wilds, dead, allowed, m, cand, NEAR, memo, out)
                assert (s, tuple(int(t) for t in out[:n])) == want, (list(before), wilds, dead, cand)
                assert np.array_equal(c, before)  # the counts are restored
                if kept:  # answered from the useful table: nothing written
                    assert np.array_equal(memo[3], table)
                else:  # computed, and its answer kept
                    assert ok and (memo[3] == key).all(axis=1).any()
                assert kept or not again  # asked again at once, the answer comes from the table
                checked += n > 0
    assert checked > 1200


def test_compiled_discard_shanten_kept_per_hand() -> None:
    """The shanten after each discard, kept per hand in the memo's discard table, equals the compiled shanten of the
    hand with that tile fewer, on first asking, on asking again and on slots another hand took over; a wildcard
    discard is the hand with one wildcard fewer."""
    from agents.compiled.shanten import shanten_dead
    from agents.compiled.shanten_memo import discard_shanten, memo_words, new_memo

    memo = new_memo(slots=16)
    rng = np.random.default_rng(5)
    allowed = (1 << NUM_SUITED) - 1
    wild = np.zeros(NUM_KINDS, dtype=np.int64)
    wild[31] = 1  # 红中
    out = np.empty(NUM_KINDS, dtype=np.int64)
    cases = []
    for i in range(200):
        c = np.zeros(NUM_KINDS, dtype=np.int64)
        wilds = int(rng.integers(0, 3)) if i % 2 else 0
        for k in rng.choice(NUM_SUITED * 4, size=14 - wilds, replace=False):
            c[int(k) // 4] += 1
        m = np.zeros(NUM_KINDS, dtype=np.int64)
        dead = int(0x1FF << (9 * int(rng.integers(0, 3)))) if i % 3 == 0 else 0
        cands = np.array([k for k in range(NUM_KINDS) if c[k]] + ([31] if wilds else []), dtype=np.int64)
        want = []
        for k in cands:
            if k == 31:
                want.append(shanten_dead(c, wilds - 1, dead, allowed, m, memo[0]))
                continue
            c[k] -= 1
            want.append(shanten_dead(c, wilds, dead, allowed, m, memo[0]))
            c[k] += 1
        cases.append((c, wilds, m, cands, dead, want))
    for _ in range(3):
        for c, wilds, m, cands, dead, want in cases:
            before = c.copy()
            discard_shanten(c, wilds, m, cands, len(cands), dead, allowed, wild, memo, out)
            assert list(out[: len(cands)]) == want
            assert np.array_equal(c, before)
            _, w0, w1, w4, w5 = memo_words(c, wilds, m)
            key = np.array([w0, w1, dead, allowed, w4, w5], dtype=np.int64)
            assert (memo[5] == key).all(axis=1).any()  # the hand's row is kept for the next asking


def test_discard_useful_equals_discard_shanten_and_useful_tiles() -> None:
    """discard_useful gives the shanten after each discard and, for the discards of the least shanten, the useful
    tiles of the hand after it, as :func:`agents.handeval.useful_tiles` lists them (wildcards, void suits held or
    not, melds, honors, honor discards), on first asking, from the memo when asked again and with a small memo whose
    slots other hands take over; it refuses (False) a candidate the hand does not hold and a hand holding a dead
    tile, and restores the counts."""
    from agents.compiled.shanten import shanten_dead as compiled_shanten
    from agents.compiled.shanten_memo import discard_useful, new_memo
    from agents.handeval import useful_tiles as python_useful

    memo = new_memo(slots=32)
    rng = np.random.default_rng(23)
    allowed = (1 << NUM_SUITED) - 1
    out_s = np.empty(NUM_KINDS, dtype=np.int64)
    out_bits = np.empty(NUM_KINDS, dtype=np.int64)
    cases = []
    for i in range(240):
        n_melds = int(rng.integers(0, 3)) if i % 3 else 0
        m = np.zeros(NUM_KINDS, dtype=np.int64)
        for k in rng.choice(NUM_SUITED, size=n_melds, replace=False):
            m[int(k)] = 3 if rng.random() < 0.7 else 4
        wilds = int(rng.integers(0, 3)) if i % 4 == 1 else 0
        kinds = NUM_KINDS if i % 5 == 2 else NUM_SUITED
        g = int(rng.integers(0, 3))
        dead = int(0x1FF << (9 * g)) if i % 3 == 0 else 0
        void_held = not (dead and i % 2)  # else the void suit is empty: the hand the own turn discards from
        pool = [k for k in range(kinds) if void_held or k // 9 != g for _ in range(4 - int(m[k]))]
        c = np.zeros(NUM_KINDS, dtype=np.int64)
        for k in rng.choice(pool, size=14 - 3 * n_melds - wilds, replace=False):
            c[int(k)] += 1
        cands = np.array([k for k in range(NUM_KINDS) if c[k]], dtype=np.int64)
        cases.append((c, wilds, m, cands, dead))
    answered = refused = honors = 0
    for _ in range(3):
        for c, wilds, m, cands, dead in cases:
            before = c.copy()
            ok = discard_useful(c, wilds, m, cands, len(cands), dead, allowed, memo, out_s, out_bits)
            assert np.array_equal(c, before)
            holds_dead = any(c[k] for k in range(NUM_SUITED) if (dead >> k) & 1)
            assert ok == (not holds_dead and len(cands) > 0)
            if not ok:
                refused += 1
                continue
            want_s = []
            for k in cands:
                c[k] -= 1
                want_s.append(compiled_shanten(c, wilds, dead, allowed, m, memo[0]))
                c[k] += 1
            assert list(out_s[: len(cands)]) == want_s
            for i, k in enumerate(cands):
                if want_s[i] != min(want_s):
                    assert out_bits[i] == 0
                    continue
                c[k] -= 1
                s, useful = python_useful([int(x) for x in c], wilds, dead=dead, allowed=allowed,
                                          melded=bytes(int(x) for x in m))  # fmt: skip
                c[k] += 1
                assert s == want_s[i]
                assert [t for t in range(NUM_KINDS) if (int(out_bits[i]) >> t) & 1] == list(useful), (list(c), k)
                honors += k >= NUM_SUITED
            answered += 1
    c, wilds, m, cands, dead = next(case for case in cases if case[4] == 0)
    missing = np.array([int(np.argmin(c[:NUM_SUITED]))], dtype=np.int64)
    assert c[missing[0]] == 0 and not discard_useful(c, wilds, m, missing, 1, dead, allowed, memo, out_s, out_bits)
    assert answered > 400 and refused > 30 and honors > 20


def test_each_thread_has_a_memo_of_its_own() -> None:
    """The main thread's memo is MEMO; another thread gets one of its own (its own memo and scratch tables, never
    the main thread's arrays, and the process's full suit table, which is only read), the same on every call in that
    thread."""
    import threading

    from agents.compiled.shanten_memo import thread_memo

    assert thread_memo() is MEMO
    seen: list[tuple] = []

    def ask() -> None:
        seen.extend((thread_memo(), thread_memo()))

    for _ in range(2):
        worker = threading.Thread(target=ask)
        worker.start()
        worker.join()
    first, again, other, _ = seen
    assert first is again and other is not first
    for memo in (first, other):
        assert memo is not MEMO
        assert not any(np.shares_memory(a, b) for a, b in zip(memo[0][1:], MEMO[0][1:]))
        assert not any(np.shares_memory(a, b) for a, b in zip(memo[1:], MEMO[1:]))
        assert memo[0][0] is MEMO[0][0] and (MEMO[0][0][:, 0, 0] >= 0).all()  # the full suit table, shared


def test_memo_words_plus_one_tile_is_the_drawn_hand() -> None:
    from agents.compiled.shanten_memo import add_tile, memo_words

    rng = np.random.default_rng(3)
    for _ in range(200):
        c = rng.integers(0, 4, NUM_KINDS).astype(np.int64)
        m = np.where(rng.random(NUM_KINDS) < 0.1, 3, 0).astype(np.int64)
        ok, w0, w1, w4, w5 = memo_words(c, 2, m)
        t = int(rng.integers(0, NUM_KINDS))
        c[t] += 1
        assert ok and (*add_tile(w0, w1, t, 1), w4, w5) == memo_words(c, 2, m)[1:]


@pytest.mark.parametrize("variant", ["chengdu", "hongzhong", "duankagen", "yibin", "wuhan"])
def test_payment_memo_is_exact(variant: str) -> None:
    """``wait_payment_memo`` (two slots: hits, and slots other hands overwrote) gives ``wait_payment``'s payment of
    every wait of ready hands with and without a pong, asked three times over."""
    cfg = load_variant(variant)
    kind, rules, consts, work, _ = cv.WaitScorer(cfg).args()
    v = cv.values_vector(cfg)
    memo = (np.full((2, 3), -1, dtype=np.int64), np.zeros(2, dtype=np.float64))
    rng = np.random.default_rng(3)
    cases = []
    for i in range(80):
        hand = np.zeros(NUM_KINDS, dtype=np.int32)
        melds = np.full(3 * 16, -1, dtype=np.int32)
        n_melds = 0
        for j in range(4):
            if rng.random() < 0.5:
                k = int(rng.integers(0, NUM_SUITED))
                if hand[k] == 0 and j == 0 and i % 2:
                    melds[0:3] = (1, k, -1)  # a pong
                    n_melds = 1
                elif hand[k] <= 1:
                    hand[k] += 3
            else:
                k = int(rng.integers(0, 7)) + 9 * int(rng.integers(0, 3))
                if max(hand[k : k + 3]) < 4:
                    hand[k : k + 3] += 1
        k = int(rng.integers(0, NUM_SUITED))
        if hand[k] <= 2:
            hand[k] += 2
        held = [t for t in range(NUM_KINDS) if hand[t]]
        t = int(rng.choice(held))
        hand[t] -= 1
        cases.append((hand, melds, n_melds, t))
    priced = 0
    for _ in range(3):
        for hand, melds, n_melds, t in cases:
            want = cv.wait_payment(hand, melds, n_melds, -1, -1, t, v, kind, rules, consts, work)
            got = cv.wait_payment_memo(hand, melds, n_melds, -1, -1, t, v, kind, rules, consts, work, memo)
            assert got == want, (variant, hand.tolist(), n_melds, t)
            priced += want > 0
    assert priced >= 3  # at least one priced wait on each pass
