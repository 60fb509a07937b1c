"""The compiled win checks (envs.compiled.win_check) against brute force and the Python judge, on many random hands.

:func:`envs.compiled.win_check.wild_win` prunes its search (the suits without wildcards first, a wildcard's candidate
ranks near the suit's natural tiles, the two-wildcard pair taken at once) and :func:`envs.compiled.win_check.is_win`
answers through it; the reference here is the plain search they replace — every split of the wildcards over the
suits, every multiset of ranks per suit within the four-copy room, written in Python — and ``envs.scoring.judge``.
Hands are random (most incomplete), near-complete (built from sets and pairs, so that many win), with 0-4 wildcards,
pongs and kongs (which cap the copies a wildcard may stand for) and a void suit.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import numpy as np
import pytest

from envs.compiled import layout as L
from envs.compiled import win_check as H
from envs.compiled.support import win_table
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import load_variant
from envs.scoring import judge
from tests.helpers.compiled import seat0_row

TABLE = win_table()
RED = 31  # 红中, the hongzhong preset's wildcard kind
KONG_KINDS = (L.M_KONG, L.M_ANKONG, L.M_BUKONG)


# ---- the reference: the plain search ------------------------------------------------------------------------------
def _meld_copies(melds: list[tuple[int, int]], k: int) -> int:
    return sum(3 if kind == L.M_PONG else 4 for kind, tile in melds if tile == k)


def _suit_completes(counts: list[int], melds: list[tuple[int, int]], suit: int, added: int) -> bool:
    """Some multiset of ``added`` ranks of ``suit`` within each kind's room completes the suit (suit table)."""
    key = sum(counts[suit * 9 + r] * 5**r for r in range(9))
    room = [4 - counts[suit * 9 + r] - _meld_copies(melds, suit * 9 + r) for r in range(9)]
    for ranks in combinations_with_replacement(range(9), added):
        if all(ranks.count(r) <= room[r] for r in set(ranks)) and TABLE[key + sum(5**r for r in ranks)]:
            return True
    return False


def ref_is_win(counts: list[int], melds: list[tuple[int, int]], void: int, wild: int) -> bool:
    """The 3k+2 hand ``counts`` (34 kinds, ``wild``: the wildcard kind or -1) is complete."""
    w = counts[wild] if wild >= 0 else 0
    n = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
    odd = [k for k in range(27) if counts[k] & 1]
    pairs_fit = len(odd) <= w and (w - len(odd)) % 2 == 0 and all(k // 9 != void for k in odd)
    if not melds and sum(n) + w == 14 and pairs_fit:
        return True  # 七对 (without wildcards: every kind even)
    for a0 in range(w + 1):
        for a1 in range(w - a0 + 1):
            split = (a0, a1, w - a0 - a1)
            if void >= 0 and split[void]:
                continue
            rest = [(n[s] + split[s]) % 3 for s in range(3)]
            if 1 in rest or rest.count(2) != 1:
                continue
            if all(_suit_completes(counts, melds, s, split[s]) for s in range(3)):
                return True
    return False


def ref_waits(counts: list[int], melds: list[tuple[int, int]], void: int, wild: int) -> int:
    """``wins_on`` of every kind: no void tile held, kinds outside the void suit with a copy left."""
    if void >= 0 and any(counts[void * 9 : void * 9 + 9]):
        return 0
    mask = 0
    for k in range(27):
        if k // 9 == void or counts[k] + _meld_copies(melds, k) >= 4:
            continue
        counts[k] += 1
        if ref_is_win(counts, melds, void, wild):
            mask |= 1 << k
        counts[k] -= 1
    return mask


def ref_may_be_ready(counts: list[int], melds: list[tuple[int, int]], void: int, wild: int) -> bool:
    for k in range(27):
        if k // 9 == void:
            continue
        if counts[k] >= 4:
            return True
        counts[k] += 1
        ok = ref_is_win(counts, melds, void, wild)
        counts[k] -= 1
        if ok:
            return True
    return False


# ---- random hands ----------------------------------------------------------------------------------------------------


def random_hand(
    rng: np.random.Generator, size_mod: int, reds: bool = True
) -> tuple[list[int], list[tuple[int, int]], int]:
    """Counts (3k+2 when ``size_mod`` is 2, else 3k+1), melds and void: random tiles, or sets and pairs of mostly
    two suits with some noise; 0-4 红中 (``reds``); pongs and kongs."""
    void = int(rng.integers(-1, 3))
    suits = [s for s in range(3) if s != void]
    melds: list[tuple[int, int]] = []
    for _ in range(int(rng.integers(0, 4))):
        tile = int(rng.choice(suits)) * 9 + int(rng.integers(9))
        if all(t != tile for _, t in melds):
            melds.append((L.M_PONG if rng.random() < 0.6 else int(rng.choice(KONG_KINDS)), tile))
    size = 14 - 3 * len(melds) - (0 if size_mod == 2 else 1)
    counts = [0] * 34
    if reds:
        counts[RED] = min(int(rng.choice([0, 0, 1, 1, 1, 2, 2, 3, 4])), size)

    def fits(k: int) -> bool:
        return counts[k] + _meld_copies(melds, k) < 4

    if rng.random() < 0.5:  # near-complete: runs and pairs, then noise
        while sum(counts) < size:
            s = int(rng.choice(suits))
            r = int(rng.integers(9))
            for k in [s * 9 + r] * 2 if rng.random() < 0.4 else [s * 9 + min(r, 6) + d for d in range(3)]:
                if sum(counts) < size and fits(k):
                    counts[k] += 1
        for _ in range(int(rng.integers(0, 3))):
            held = [k for k in range(27) if counts[k]]
            if held:
                counts[int(rng.choice(held))] -= 1
                counts[int(rng.choice([k for k in range(27) if fits(k)]))] += 1
    else:  # random tiles, sometimes of the void suit too
        kinds = [k for k in range(27) if rng.random() < 0.9 or k // 9 != void]
        while sum(counts) < size:
            k = int(rng.choice(kinds))
            if fits(k):
                counts[k] += 1
    return counts, melds, void


@pytest.mark.parametrize("wild", [RED, -1])
def test_is_win_wins_on_and_ready_equal_the_plain_search(wild: int) -> None:
    """``is_win`` (3k+2), ``wins_on`` / ``waits_mask`` and ``may_be_ready`` (3k+1) equal the plain search on thousands
    of random hands, with and without wildcards."""
    rng = np.random.default_rng(11 if wild >= 0 else 12)
    answers: Counter = Counter()
    for _ in range(3000):
        counts, melds, void = random_hand(rng, 2, reds=wild >= 0)
        row = seat0_row(counts, melds, void, wild)
        want = ref_is_win(counts, melds, void, wild)
        assert H.is_win(row, 0, TABLE) == want, (counts, melds, void)
        answers[f"win:{want}:{counts[RED] if wild >= 0 else 0}"] += 1
        counts, melds, void = random_hand(rng, 1, reds=wild >= 0)
        row = seat0_row(counts, melds, void, wild)
        mask = ref_waits(counts, melds, void, wild)
        got = sum(1 << k for k in range(34) if H.wins_on(row, 0, k, TABLE))
        assert got == mask, (counts, melds, void)
        if not (void >= 0 and any(counts[void * 9 : void * 9 + 9])):
            assert H.waits_mask(row, 0, TABLE) == mask, (counts, melds, void)
        ready = ref_may_be_ready(counts, melds, void, wild)
        assert H.may_be_ready(row, 0, TABLE) == ready, (counts, melds, void)
        assert H.ready_candidates(row, 0b1011, TABLE) & 1 == ready and H.ready_candidates(row, 0b1010, TABLE) & 1 == 0
        answers[f"waits:{bool(mask)}"] += 1
        assert row[L.HANDS : L.HANDS + L.NK].tolist() == counts  # the checks leave the row as they found it
    wins = [key for key in answers if key.startswith("win:True")]
    assert answers["waits:True"] > 300 and answers["waits:False"] > 300, dict(answers)
    assert sum(answers[k] for k in wins) > 150, dict(answers)
    if wild >= 0:  # wins with one to four wildcards
        assert {k.rsplit(":", 1)[1] for k in wins} >= {"1", "2", "3", "4"}, dict(answers)


def test_plain_waits_equal_the_is_win_scan() -> None:
    """``plain_waits`` (the wildcard-free waits with the suit keys read once) equals adding each kind and asking
    ``is_win``, on pair-heavy hands (七对 waits), honor triplets and pairs, melds, the void suit and kinds held four
    times; both kinds of answer occur often."""
    rng = np.random.default_rng(13)
    answers: Counter = Counter()
    for n in range(4000):
        counts = [0] * L.NK
        melds: list[tuple[int, int]] = []
        void = int(rng.integers(-1, 3))
        if n % 3 == 0:  # six pairs and a single: 七对 waits
            kinds = rng.choice(L.NSUITED if n % 2 else L.NK, size=7, replace=False)
            for k in kinds[:6]:
                counts[int(k)] = 2
            counts[int(kinds[6])] += 1
        else:
            n_melds = int(rng.integers(0, 3))
            for _ in range(n_melds):
                melds.append((int(rng.choice([L.M_PONG, L.M_KONG])), int(rng.integers(L.NK))))
            for _ in range(4 - n_melds):  # sets and a pair less one tile: often ready, not always
                k = int(rng.integers(L.NSUITED + 3 if n % 5 == 0 else L.NSUITED))
                run = k < L.NSUITED and k % 9 < 7 and rng.random() < 0.6
                for d in (0, 1, 2) if run else (0, 0, 0):
                    counts[k + d] += 1
            pair = int(rng.integers(L.NSUITED))
            counts[pair] += 2
            held = [k for k in range(L.NK) if counts[k]]
            counts[held[int(rng.integers(len(held)))]] -= 1
            if max(counts) > 4 or any(counts[t] for _, t in melds):
                continue
        row = seat0_row(counts, melds, void, -1)
        want = 0
        for k in range(L.NSUITED):
            copies = max([3 if m == L.M_PONG else 4 for m, t in melds if t == k] or [0])
            if (void >= 0 and k // 9 == void) or counts[k] + copies >= 4:
                continue
            row[L.HANDS + k] += 1
            if H.is_win(row, 0, TABLE):
                want |= 1 << k
            row[L.HANDS + k] -= 1
        assert H.plain_waits(row, 0, TABLE) == want == H.waits_mask(row, 0, TABLE), (counts, melds, void)
        answers[f"{n % 3 == 0}:{bool(want)}"] += 1
    assert min(answers.values()) > 100 and len(answers) == 4, dict(answers)


def test_suit_completes_equals_every_multiset_of_ranks() -> None:
    """:func:`hand.suit_completes` (pruned candidates) equals trying every multiset of ranks, for 0-4 added tiles,
    suits of 0-11 tiles and rooms capped by melds."""
    rng = np.random.default_rng(5)
    seen: Counter = Counter()
    for _ in range(6000):
        counts = [0] * 34
        melds: list[tuple[int, int]] = []
        for _ in range(int(rng.integers(0, 3))):
            tile = int(rng.integers(9))
            if all(t != tile for _, t in melds):
                melds.append((L.M_PONG if rng.random() < 0.5 else L.M_KONG, tile))
        spread = int(rng.integers(3, 10))  # tiles over the first ``spread`` ranks: clustered or not
        n = min(int(rng.integers(0, 12)), sum(4 - _meld_copies(melds, r) for r in range(spread)))
        while sum(counts[:9]) < n:
            r = int(rng.integers(spread))
            if counts[r] + _meld_copies(melds, r) < 4:
                counts[r] += 1
        row = seat0_row(counts, melds, -1, RED)
        for added in range(5):
            if (n + added) % 3 == 1:
                continue
            want = _suit_completes(counts, melds, 0, added)
            assert H.suit_completes(row, 0, 0, added, TABLE) == want, (counts[:9], melds, added)
            seen[(added, want)] += 1
    assert all(seen[(a, b)] > 50 for a in range(1, 5) for b in (True, False)), dict(seen)


def test_wildcard_hands_equal_the_judge() -> None:
    """The same random hands against ``envs.scoring.judge.is_win`` / ``judge.waits_mask`` of the hongzhong preset."""
    cfg = load_variant("hongzhong")
    kinds = {L.M_PONG: MeldKind.PONG, L.M_KONG: MeldKind.KONG, L.M_ANKONG: MeldKind.ANKONG, L.M_BUKONG: MeldKind.BUKONG}
    rng = np.random.default_rng(3)
    answers: Counter = Counter()
    for _ in range(1500):
        for size_mod in (2, 1):
            counts, melds, void = random_hand(rng, size_mod)
            row = seat0_row(counts, melds, void, RED)
            objs = [Meld(kinds[m], t) for m, t in melds]
            v = None if void < 0 else void
            if size_mod == 2:
                want = judge.is_win(cfg, list(counts), objs, v)
                assert H.is_win(row, 0, TABLE) == want, (counts, melds, void)
                answers[f"win:{want}"] += 1
            else:
                mask = judge.waits_mask(cfg, list(counts), objs, v)
                if v is not None and any(counts[v * 9 : v * 9 + 9]):
                    mask = 0  # wins_on: a seat holding its void suit never wins
                got = sum(1 << k for k in range(34) if H.wins_on(row, 0, k, TABLE))
                assert got == mask, (counts, melds, void)
                answers[f"waits:{bool(mask)}"] += 1
    assert len(answers) == 4 and min(answers.values()) > 150, dict(answers)


def test_tingyong_hands_equal_the_judge() -> None:
    """宜宾's 听用 (two suited kinds standing for any suited kind outside the void suit, no suit of their own) and 飞
    melds (natural copies cap the wildcards, the three copies they stand for rule out a wait): ``is_win`` /
    ``wins_on`` / ``holds_void`` against ``envs.scoring.judge`` with the hand's wildcard kinds."""
    cfg = load_variant("yibin")
    kinds = {L.M_PONG: MeldKind.PONG, L.M_KONG: MeldKind.KONG, L.M_ANKONG: MeldKind.ANKONG, L.M_BUKONG: MeldKind.BUKONG}
    rng = np.random.default_rng(11)
    answers: Counter = Counter()
    for _ in range(1200):
        benjin = int(rng.integers(27))
        suit, rank = divmod(benjin, 9)
        wilds = tuple(sorted((suit * 9 + (rank + 8) % 9, suit * 9 + (rank + 1) % 9)))
        for size_mod in (2, 1):
            counts, melds, void = random_hand(rng, size_mod, reds=False)
            if any(t in wilds for _, t in melds):
                continue
            for _ in range(int(rng.integers(0, 4))):  # some naturals become 听用 (physical counts stay within four)
                held = [k for k in range(27) if counts[k] and k not in wilds]
                w = wilds[int(rng.integers(2))]
                if held and counts[w] < 4:
                    counts[held[int(rng.integers(len(held)))]] -= 1
                    counts[w] += 1
            meld_wilds: list[tuple[int, ...]] = []
            objs = []
            for i, (m, t) in enumerate(melds):
                in_feis = sum(1 for mw in meld_wilds if mw)
                if m == L.M_PONG and rng.random() < 0.5 and counts[wilds[0]] + in_feis < 4:
                    melds[i] = (L.M_FEI, t)  # a 飞: one natural copy less, one 听用 in the meld
                    meld_wilds.append((wilds[0],))
                    objs.append(Meld(MeldKind.FEI, t, 1, wild_kinds=(wilds[0],)))
                else:
                    meld_wilds.append(())
                    objs.append(Meld(kinds[m], t))
            row = seat0_row(counts, melds, void, wilds[0], wilds[1], meld_wilds)
            v = None if void < 0 else void
            holds = v is not None and any(counts[k] for k in range(v * 9, v * 9 + 9) if k not in wilds)
            assert H.holds_void(row, 0) == holds, (counts, melds, void, wilds)
            if size_mod == 2:
                want = judge.is_win(cfg, list(counts), objs, v, wilds)
                assert H.is_win(row, 0, TABLE) == want, (counts, melds, void, wilds)
                answers[f"win:{want}"] += 1
            else:
                mask = 0 if holds else judge.waits_mask(cfg, list(counts), objs, v, wilds)
                got = sum(1 << k for k in range(34) if H.wins_on(row, 0, k, TABLE))
                assert got == mask, (counts, melds, void, wilds)
                answers[f"waits:{bool(mask)}"] += 1
            answers["fei"] += L.M_FEI in [m for m, _ in melds]
            answers["tingyong"] += counts[wilds[0]] + counts[wilds[1]] > 0
            answers["five or more"] += counts[wilds[0]] + counts[wilds[1]] >= 5  # past the 红中 search's four
    assert len(answers) == 7 and min(answers.values()) > 50, dict(answers)


def _wuhan_hand(rng: np.random.Generator, size_mod: int, laizi: int) -> tuple[list[int], list[tuple[int, int]]]:
    """A Wuhan hand: honors among the tiles, 0-3 赖子, now and then a 红中, 吃 / 碰 / 杠 melds; sets and pairs (some
    all 将 or all 风) with noise, so that many hands win."""
    melds: list[tuple[int, int]] = []
    counts = [0] * 34

    def used(k: int) -> int:
        return counts[k] + sum(
            (1 if t <= k <= t + 2 else 0) if m == L.M_CHI else ((3 if m == L.M_PONG else 4) if t == k else 0)
            for m, t in melds
        )

    for _ in range(int(rng.integers(0, 4))):
        if rng.random() < 0.5:
            low = int(rng.integers(3)) * 9 + int(rng.integers(7))
            if laizi not in range(low, low + 3) and all(used(k) < 4 for k in range(low, low + 3)):
                melds.append((L.M_CHI, low))
        else:
            tile = int(rng.integers(34))
            if tile not in (laizi, RED) and used(tile) == 0:
                melds.append((L.M_PONG if rng.random() < 0.6 else int(rng.choice(KONG_KINDS)), tile))
    size = 14 - 3 * len(melds) - (0 if size_mod == 2 else 1)

    counts[laizi] = min(int(rng.choice([0, 0, 1, 1, 2, 3])), size)
    if rng.random() < 0.15:
        counts[RED] += 1
    pool = [1, 4, 7, 10, 13, 16, 19, 22, 25] if rng.random() < 0.15 else list(range(34))
    if rng.random() < 0.1:
        pool = [27, 28, 29, 30, 32, 33]
    while sum(counts) < size:
        k = int(rng.choice(pool))
        if k < 27 and k % 9 <= 6 and rng.random() < 0.5 and pool[0] == 0:
            group = [k, k + 1, k + 2]
        else:
            group = [k] * int(rng.integers(1, 4))
        for t in group:
            if sum(counts) < size and used(t) < 4 and t != laizi:
                counts[t] += 1
    return counts, melds


def test_wuhan_hands_equal_the_judge() -> None:
    """Wuhan: honors (triplets and the pair only), the 赖子 standing for any kind but 中 (a suited or an honor kind
    itself), 吃 melds, 乱将 / 乱风 hands complete in any arrangement, 红中 only ever natural: ``is_win`` / ``wins_on``
    against ``envs.scoring.judge`` with the hand's 赖子."""
    cfg = load_variant("wuhan")
    kinds = {
        L.M_PONG: MeldKind.PONG,
        L.M_KONG: MeldKind.KONG,
        L.M_ANKONG: MeldKind.ANKONG,
        L.M_BUKONG: MeldKind.BUKONG,
        L.M_CHI: MeldKind.CHI,
    }
    rng = np.random.default_rng(5)
    answers: Counter = Counter()
    for _ in range(1500):
        laizi = int(rng.choice([k for k in range(34) if k != RED]))
        for size_mod in (2, 1):
            counts, melds = _wuhan_hand(rng, size_mod, laizi)
            row = seat0_row(counts, melds, -1, laizi)
            row[L.WUHAN] = 1
            objs = [Meld(kinds[m], t) for m, t in melds]
            if size_mod == 2:
                want = judge.is_win(cfg, list(counts), objs, None, (laizi,))
                assert H.is_win(row, 0, TABLE) == want, (counts, melds, laizi)
                answers[f"win:{want}"] += 1
            else:
                mask = judge.waits_mask(cfg, list(counts), objs, None, (laizi,))
                got = sum(1 << k for k in range(34) if H.wins_on(row, 0, k, TABLE))
                assert got == mask, (counts, melds, laizi)
                answers[f"waits:{bool(mask)}"] += 1
                answers["honor waits"] += mask >> 27 != 0
            answers["honors"] += any(counts[27:])
            answers["laizi"] += counts[laizi] > 0
            answers["chi"] += L.M_CHI in [m for m, _ in melds]
    assert len(answers) == 8 and min(answers.values()) > 50, dict(answers)
