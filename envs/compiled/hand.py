"""Hand evaluation on a state row (牌型判断): win checks, waits, and the end-of-hand pre-checks of the compiled engine.

The numba counterparts of :func:`envs.judge.is_win` / :func:`envs.judge.waits_mask` for the variants the compiled
engine plays (three suits, optionally the 红中 wildcards): a suit's tiles are complete when the suit table of
:mod:`envs._suit_tables` (``support.win_table``) says so; with wildcards every multiset of identities within the
four-copy limit (counting the seat's melds) is tried per suit.  ``tests/test_compiled_engine.py`` compares them
with ``envs.judge`` hand by hand and through whole games.
"""

# ruff: noqa: SIM110 - plain loops and comparisons compile best in numba (no generators)
from __future__ import annotations

import numpy as np
from numba import njit

from envs.compiled.layout import (
    HANDS,
    M_PONG,
    MAX_MELDS,
    MELD_FIELDS,
    MELDS,
    NK,
    NSUITED,
    NUM_MELDS,
    VOID,
    WILD,
)

P5 = np.array([5**r for r in range(10)], dtype=np.int64)  # suit key digits


@njit(cache=True)
def holds_void(s, seat):
    """``Game._holds_void``: the seat holds a tile of its declared void suit."""
    v = s[VOID + seat]
    if v < 0:
        return False
    h = HANDS + seat * NK + v * 9
    for r in range(9):
        if s[h + r]:
            return True
    return False


@njit(cache=True)
def meld_copies(s, seat, k):
    """Copies of ``k`` in the seat's melds."""
    n = 0
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        if s[m + 1] == k:
            n += 3 if s[m] == M_PONG else 4
    return n


@njit(cache=True)
def suit_key(s, h, suit):
    key = 0
    for r in range(9):
        key += s[h + suit * 9 + r] * P5[r]
    return key


@njit(cache=True)
def suit_count(s, h, suit):
    n = 0
    for r in range(9):
        n += s[h + suit * 9 + r]
    return n


@njit(cache=True)
def is_win(s, seat, table):
    """``judge.is_win``: the seat's concealed tiles (3k+2) form four sets and a pair, or 七对 — with its 红中
    wildcards standing for suited kinds outside its void suit, no kind past four copies counting its melds."""
    h = HANDS + seat * NK
    wild = s[WILD]
    if wild >= 0 and s[h + wild]:
        return wild_win(s, seat, s[h + wild], table)
    total = 0
    odd = 0
    for k in range(NSUITED):
        c = s[h + k]
        total += c
        odd += c & 1
    if total == 14 and odd == 0:
        return True
    pairs = 0
    for suit in range(3):
        key = suit_key(s, h, suit)
        if key == 0:
            continue
        code = table[key]
        if code == 0:
            return False
        if code == 2:
            pairs += 1
    return pairs == 1


@njit(cache=True)
def room(s, seat, k):
    """Copies of ``k`` a wildcard may still stand for: four less the seat's natural copies in hand and melds."""
    return 4 - s[HANDS + seat * NK + k] - meld_copies(s, seat, k)


@njit(cache=True)
def suit_completes(s, seat, suit, added, table):
    """Some ``added`` (0-4) wildcards standing for kinds of ``suit`` (within :func:`room`) complete the suit's tiles
    (sets, or sets and a pair): every multiset of ranks is tried against the suit table."""
    key = suit_key(s, HANDS + seat * NK, suit)
    if added == 0:
        return table[key] != 0
    base = suit * 9
    for r1 in range(9):
        if room(s, seat, base + r1) < 1:
            continue
        k1 = key + P5[r1]
        if added == 1:
            if table[k1]:
                return True
            continue
        for r2 in range(r1, 9):
            if room(s, seat, base + r2) < 1 + (r2 == r1):
                continue
            k2 = k1 + P5[r2]
            if added == 2:
                if table[k2]:
                    return True
                continue
            for r3 in range(r2, 9):
                if room(s, seat, base + r3) < 1 + (r3 == r2) + (r3 == r1):
                    continue
                k3 = k2 + P5[r3]
                if added == 3:
                    if table[k3]:
                        return True
                    continue
                for r4 in range(r3, 9):
                    if room(s, seat, base + r4) < 1 + (r4 == r3) + (r4 == r2) + (r4 == r1):
                        continue
                    if table[k3 + P5[r4]]:
                        return True
    return False


@njit(cache=True)
def wild_win(s, seat, w, table):
    """:func:`is_win` of a hand holding ``w`` wildcards (``hand.is_winning`` with ``allowed_mask`` = the suited
    kinds outside the void suit and the melds' copy caps)."""
    h = HANDS + seat * NK
    v = s[VOID + seat]
    n0, n1, n2 = suit_count(s, h, 0), suit_count(s, h, 1), suit_count(s, h, 2)
    if s[NUM_MELDS + seat] == 0 and n0 + n1 + n2 + w == 14:  # 七对: every odd kind gets a wildcard
        odd = 0
        ok = True
        for k in range(NSUITED):
            if s[h + k] & 1:
                odd += 1
                if v >= 0 and k // 9 == v:
                    ok = False
        if ok and odd <= w and (w - odd) % 2 == 0:
            return True
    done = 0  # bit suit * 5 + added: suit_completes asked; good: and it said yes
    good = 0
    for a0 in range(w + 1):
        for a1 in range(w - a0 + 1):
            a2 = w - a0 - a1
            pairs = 0
            fits = True
            for suit, n, a in ((0, n0, a0), (1, n1, a1), (2, n2, a2)):
                r = (n + a) % 3
                if r == 1 or (a > 0 and suit == v):
                    fits = False
                    break
                pairs += r == 2
            if not fits or pairs != 1:
                continue
            for suit, a in ((0, a0), (1, a1), (2, a2)):
                bit = 1 << (suit * 5 + a)
                if not done & bit:
                    done |= bit
                    if suit_completes(s, seat, suit, a, table):
                        good |= bit
                if not good & bit:
                    fits = False
                    break
            if fits:
                return True
    return False


@njit(cache=True)
def wins_on(s, seat, k, table):
    """Whether ``k`` completes the seat's 3k+1 hand (``Game._seat_waits`` bit ``k``)."""
    if holds_void(s, seat):
        return False
    v = s[VOID + seat]
    if k >= NSUITED or (v >= 0 and k // 9 == v):  # the wildcard (红中) is never a wait
        return False
    if s[HANDS + seat * NK + k] + meld_copies(s, seat, k) >= 4:
        return False
    s[HANDS + seat * NK + k] += 1
    ok = is_win(s, seat, table)
    s[HANDS + seat * NK + k] -= 1
    return ok


@njit(cache=True)
def waits_mask(s, seat, table):
    """``judge.waits_mask`` (no wildcards): bit ``k`` set when ``k`` completes the seat's 3k+1 hand's shape; kinds of
    the void suit and kinds the seat holds four times (hand and melds) are never waits."""
    v = s[VOID + seat]
    h = HANDS + seat * NK
    mask = 0
    for k in range(NSUITED):
        if (v >= 0 and k // 9 == v) or s[h + k] + meld_copies(s, seat, k) >= 4:
            continue
        s[h + k] += 1
        if is_win(s, seat, table):
            mask |= 1 << k
        s[h + k] -= 1
    return mask


# ---- end of hand: what the settlement may find -------------------------------------------------------------------
@njit(cache=True)
def may_be_ready(s, seat, table):
    """Some kind outside the void suit completes the hand of a seat that holds no void tile, ignoring the meld copies:
    a superset of the settlement's 有叫 (its waits are :func:`envs.judge.waits_mask`'s, never of the void suit)."""
    h = HANDS + seat * NK
    v = s[VOID + seat]
    for k in range(NSUITED):
        if v >= 0 and k // 9 == v:
            continue
        if s[h + k] >= 4:  # a fifth copy: the table has no key for it, let the settlement decide
            return True
        s[h + k] += 1
        ok = is_win(s, seat, table)
        s[h + k] -= 1
        if ok:
            return True
    return False


@njit(cache=True)
def is_pig(s, seat, three_suits):
    """:func:`envs.settlement.is_pig` of a variant with 定缺 (``three_suits``: ``huazhu_definition`` is
    ``"three_suits"``, else ``"declared_void"``): the suits of the seat's natural tiles in hand and melds (红中 is
    no suit) hold all three suits, or its declared void suit."""
    if three_suits:
        return suits_held(s, seat) == 7
    return void_held(s, seat)


@njit(cache=True)
def void_held(s, seat):
    v = s[VOID + seat]
    return v >= 0 and suits_held(s, seat) >> v & 1 == 1


@njit(cache=True)
def suits_held(s, seat):
    """Bit per suit (1 万, 2 筒, 4 条) of the suited tiles in the seat's hand and melds."""
    held = 0
    h = HANDS + seat * NK
    for k in range(NSUITED):
        if s[h + k]:
            held |= 1 << (k // 9)
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        held |= 1 << (s[base + i * MELD_FIELDS + 1] // 9)
    return held
