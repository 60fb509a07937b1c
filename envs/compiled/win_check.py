"""Hand evaluation on a state row (牌型判断): win checks, waits, and the end-of-hand pre-checks of the compiled engine.

The numba counterparts of :func:`envs.scoring.judge.is_win` / :func:`envs.scoring.judge.waits_mask` for the variants the
compiled engine plays (three suits, optionally the 红中 wildcards): a suit's tiles are complete when the suit table of
:mod:`envs.scoring._suit_tables` (``support.win_table``) says so; with wildcards the multisets of identities within the
four-copy limit (counting the seat's melds) are tried per suit, the candidates pruned where that cannot change the
answer (:func:`fills`).  ``tests/compiled/test_compiled_engine.py`` compares them with ``envs.scoring.judge`` hand by
hand and through whole games, ``tests/compiled/test_compiled_win_check.py`` with the plain search and
``envs.scoring.judge`` on random hands.
"""

# ruff: noqa: SIM110 - plain loops and comparisons compile best in numba (no generators)
from __future__ import annotations

import numpy as np
from numba import njit

from envs.compiled.layout import (
    HANDS,
    M_CHI,
    M_FEI,
    M_PONG,
    MAX_MELDS,
    MELD_FIELDS,
    MELD_WILDS,
    MELDS,
    NK,
    NP,
    NSUITED,
    NUM_MELDS,
    VOID,
    WILD,
    WILD2,
    WUHAN,
)

P5 = np.array([5**r for r in range(10)], dtype=np.int64)  # suit key digits
RED = 31  # 红中: Wuhan never lets a wildcard stand for it
JIANG_MASK = sum(1 << k for k in range(NSUITED) if k % 9 in (1, 4, 7))  # 将: the 2 / 5 / 8 of every suit
FENG_MASK = sum(1 << k for k in (27, 28, 29, 30, 32, 33))  # 风: the winds, 发 and 白


@njit(cache=True)
def holds_void(s, seat):
    """``Game._holds_void``: the seat holds a tile of its declared void suit."""
    v = s[VOID + seat]
    if v < 0:
        return False
    h = HANDS + seat * NK + v * 9
    for r in range(9):
        if s[h + r] and not is_wild(s, v * 9 + r):  # a 听用 belongs to no suit
            return True
    return False


@njit(cache=True)
def is_wild(s, k):
    """``k`` is one of the hand's wildcard kinds (红中; Yibin's two 听用 once the 本金 is flipped)."""
    return k == s[WILD] or k == s[WILD2]


@njit(cache=True)
def natural_meld_copies(s, m):
    """The natural tiles of the meld at row offset ``m``: a pong's 3, a kong's 4, a 飞's 3 less its 听用."""
    kind = s[m]
    if kind == M_PONG:
        return 3
    if kind == M_FEI:
        i = (m - MELDS) // MELD_FIELDS
        return 3 - (s[MELD_WILDS + 2 * i] >= 0) - (s[MELD_WILDS + 2 * i + 1] >= 0)
    return 4


@njit(cache=True)
def meld_copies(s, seat, k):
    """The most copies of ``k`` one of the seat's melds stands for (a 飞 three, its 听用 standing for ``k``; a 吃 one):
    with the hand's copies, four rule ``k`` out as a wait (``judge.waits_mask``, meld by meld)."""
    n = 0
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        t = s[m + 1]
        if s[m] == M_CHI:
            if t <= k <= t + 2:
                n = max(n, 1)
        elif t == k:
            n = max(n, 3 if s[m] == M_PONG or s[m] == M_FEI else 4)
    return n


@njit(cache=True)
def suit_key(s, h, suit):
    key = 0
    for r in range(9):
        key += s[h + suit * 9 + r] * P5[r]
    return key


@njit(cache=True)
def is_win(s, seat, table):
    """``judge.is_win``: the seat's concealed tiles (3k+2) form four sets and a pair (honors: triplets and the pair),
    or 七对 — with its wildcards (红中, Yibin's 听用, Wuhan's 赖子) standing for kinds outside its void suit (never for
    Wuhan's 中), no kind past four copies counting its melds' natural tiles; in Wuhan also a 乱将 / 乱风 hand.  The
    wildcard counts leave their kinds while the wildcards are placed."""
    h = HANDS + seat * NK
    if s[WUHAN] and uniform(s, seat):
        return True
    wild = s[WILD]
    if wild >= 0:
        wild2 = s[WILD2]
        c1 = s[h + wild]
        c2 = s[h + wild2] if wild2 >= 0 else 0
        if c1 + c2:
            s[h + wild] = 0
            if wild2 >= 0:
                s[h + wild2] = 0
            ok = wild_win(s, seat, c1 + c2, table)
            s[h + wild] = c1
            if wild2 >= 0:
                s[h + wild2] = c2
            return ok
    total = 0
    odd = 0
    for k in range(NK):
        c = s[h + k]
        total += c
        odd += c & 1
    if total == 14 and odd == 0:
        return True
    pairs = 0
    for k in range(NSUITED, NK):  # honors: triplets, or the pair
        c = s[h + k]
        if c == 1 or c == 4:
            return False
        if c == 2:
            pairs += 1
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
def uniform(s, seat):
    """Wuhan 乱将 / 乱风 (``judge._uniform_mask``): every natural tile of the hand and every meld's kinds lie in the
    将 kinds (2 / 5 / 8) or all in the 风 kinds (winds, 发, 白) — complete in any arrangement."""
    h = HANDS + seat * NK
    jiang = True
    feng = True
    for k in range(NK):
        if s[h + k] and not is_wild(s, k):
            jiang = jiang and JIANG_MASK >> k & 1 == 1
            feng = feng and FENG_MASK >> k & 1 == 1
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        t = s[m + 1]
        for d in range(3 if s[m] == M_CHI else 1):
            jiang = jiang and JIANG_MASK >> (t + d) & 1 == 1
            feng = feng and FENG_MASK >> (t + d) & 1 == 1
    return jiang or feng


@njit(cache=True)
def suit_rooms(s, seat, suit):
    """The copies a wildcard may still stand for of each kind of ``suit`` — four less the seat's natural copies in
    hand and melds, 0 at least — packed three bits per rank (rank ``r`` at bit ``3r``)."""
    h = HANDS + seat * NK + suit * 9
    melded = 0  # meld copies per rank, packed the same way
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        r = s[m + 1] - suit * 9
        if s[m] == M_CHI:  # one copy of each kind of the run
            for d in range(3):
                if 0 <= r + d < 9:
                    melded += 1 << (3 * (r + d))
        elif 0 <= r < 9:
            melded += natural_meld_copies(s, m) << (3 * r)
    rooms = 0
    for r in range(9):
        left = 4 - s[h + r] - (melded >> (3 * r) & 7)
        rooms |= max(left, 0) << (3 * r)
    return rooms


@njit(cache=True)
def suit_held(s, h, suit):
    """Bit ``r`` set when the hand at ``h`` holds rank ``r`` of ``suit``."""
    held = 0
    for r in range(9):
        held |= min(s[h + suit * 9 + r], 1) << r
    return held


@njit(cache=True)
def fills_many(key, rooms, added, table):
    """:func:`fills` for any number of wildcards (Yibin holds up to eight 听用): every multiset of ``added`` ranks
    within the rooms, in nondecreasing rank order, depth first."""
    room = np.empty(9, dtype=np.int64)
    for q in range(9):
        room[q] = rooms >> (3 * q) & 7
    ranks = np.zeros(added, dtype=np.int64)
    cur = key
    d = 0
    while d >= 0:
        r = ranks[d]
        if r > 8:  # this depth is exhausted: take back the rank placed one level up and try the next one there
            d -= 1
            if d >= 0:
                room[ranks[d]] += 1
                cur -= P5[ranks[d]]
                ranks[d] += 1
            continue
        if room[r] == 0:
            ranks[d] = r + 1
            continue
        room[r] -= 1
        cur += P5[r]
        if d == added - 1:
            if table[cur]:
                return True
            room[r] += 1
            cur -= P5[r]
            ranks[d] = r + 1
        else:
            d += 1
            ranks[d] = r
    return False


@njit(cache=True)
def fills(key, held, rooms, added, table):
    """Some ``added`` (1-8) ranks, rank ``r`` at most ``rooms``' three bits at ``3r`` times, added to suit key
    ``key`` (``held``: its held ranks, bit ``r``) make it complete (sets, or sets and a pair) by the suit table.

    Every multiset of ranks is tried, with fewer candidates for one or two: a wildcard that shares its set or pair
    with a natural tile stands within two ranks of it; one that does not shares it with wildcards only, which with
    two wildcards means the two are the pair and the natural tiles sets on their own (then any rank with room for
    two completes the suit).  More than four wildcards (Yibin's 听用) go to :func:`fills_many`."""
    if added > 4:
        return fills_many(key, rooms, added, table)
    if added <= 2:
        near = (held | held << 1 | held << 2 | held >> 1 | held >> 2) & 0x1FF
        if added == 2 and table[key] == 1:
            for r in range(9):
                if rooms >> (3 * r) & 7 >= 2:
                    return True
    else:
        near = 0x1FF
    for r1 in range(9):
        if not near >> r1 & 1 or rooms >> (3 * r1) & 7 == 0:
            continue
        k1 = key + P5[r1]
        if added == 1:
            if table[k1]:
                return True
            continue
        rooms1 = rooms - (1 << (3 * r1))
        for r2 in range(r1, 9):
            if not near >> r2 & 1 or rooms1 >> (3 * r2) & 7 == 0:
                continue
            k2 = k1 + P5[r2]
            if added == 2:
                if table[k2]:
                    return True
                continue
            rooms2 = rooms1 - (1 << (3 * r2))
            for r3 in range(r2, 9):
                if rooms2 >> (3 * r3) & 7 == 0:
                    continue
                k3 = k2 + P5[r3]
                if added == 3:
                    if table[k3]:
                        return True
                    continue
                rooms3 = rooms2 - (1 << (3 * r3))
                for r4 in range(r3, 9):
                    if rooms3 >> (3 * r4) & 7 and table[k3 + P5[r4]]:
                        return True
    return False


@njit(cache=True)
def suit_completes(s, seat, suit, added, table):
    """Some ``added`` (0-8) wildcards standing for kinds of ``suit`` (within :func:`suit_rooms`) complete the suit's
    tiles (sets, or sets and a pair) by the suit table (:func:`fills`)."""
    h = HANDS + seat * NK
    key = suit_key(s, h, suit)
    if added == 0:
        return table[key] != 0
    return fills(key, suit_held(s, h, suit), suit_rooms(s, seat, suit), added, table)


@njit(cache=True)
def wild_win(s, seat, w, table):
    """:func:`is_win` of a hand holding ``w`` wildcards (their kinds already emptied; ``hand.is_winning`` with
    ``allowed_mask`` = the kinds outside the void suit, no 中 in Wuhan, and the melds' copy caps): 七对, or the
    honors made triplets (one of them perhaps the pair) with some wildcards and the rest split over the suits (none
    in the void suit) so that every suit completes (:func:`suit_completes`), the pair in exactly one of them unless
    an honor holds it.  Wildcards standing alone for an honor set are not tried: a suit with room takes them
    instead."""
    h = HANDS + seat * NK
    v = s[VOID + seat]
    n0 = n1 = n2 = 0
    key0 = key1 = key2 = 0
    odd0 = odd1 = odd2 = 0
    for r in range(9):
        c0 = s[h + r]
        c1 = s[h + 9 + r]
        c2 = s[h + 18 + r]
        n0 += c0
        n1 += c1
        n2 += c2
        key0 += c0 * P5[r]
        key1 += c1 * P5[r]
        key2 += c2 * P5[r]
        odd0 += c0 & 1
        odd1 += c1 & 1
        odd2 += c2 & 1
    # honors: every held kind a triplet (trips: the wildcards that takes), or one of them the pair
    n_h = 0
    odd_h = 0
    odd_red = False
    trips = 0
    forced_pair = -1  # an honor kind that can only be the pair (no room for its triplet)
    pair_costs = 0  # bit c: some honor kind makes the pair for c wildcards less than its triplet needs
    for k in range(NSUITED, NK):
        c = s[h + k]
        if c == 0:
            continue
        n_h += c
        odd_h += c & 1
        room = 0 if (s[WUHAN] and k == RED) else 4 - c - meld_copies(s, seat, k)
        if c & 1 and room == 0:
            odd_red = True  # no wildcard can pair it (七对)
        trip = 3 - c
        if c == 4 or (trip > room and (c == 3 or 2 - c > room)):
            trips = -1  # neither a triplet nor a pair
        elif trips >= 0:
            if trip > room:
                if forced_pair >= 0:
                    trips = -1
                forced_pair = k
                trips += 2 - c
            else:
                trips += trip
                if c < 3 and 2 - c <= room:
                    pair_costs |= 1 << (trip - (2 - c))
    if s[NUM_MELDS + seat] == 0 and n0 + n1 + n2 + n_h + w == 14:  # 七对: every odd kind gets a wildcard
        odd = odd0 + odd1 + odd2 + odd_h
        void_odd = (v == 0 and odd0 > 0) or (v == 1 and odd1 > 0) or (v == 2 and odd2 > 0) or odd_red
        if not void_odd and odd <= w and (w - odd) % 2 == 0:
            return True
    if trips < 0:
        return False
    done = 0  # bit suit * 9 + added: asked; good: and it said yes
    good = 0
    for option in range(4):  # 0: the pair in a suit; 1-3: an honor pair saving option - 1 wildcards
        if option == 0:
            if forced_pair >= 0:
                continue
            rest = w - trips
            pairs_needed = 1
        else:
            saving = option - 1
            if forced_pair >= 0:
                if saving != 0:
                    continue
                rest = w - trips
            elif pair_costs >> saving & 1:
                rest = w - trips + saving
            else:
                continue
            pairs_needed = 0
        if rest < 0:
            continue
        for a0 in range(rest + 1):
            for a1 in range(rest - a0 + 1):
                a2 = rest - a0 - a1
                if (v == 0 and a0 > 0) or (v == 1 and a1 > 0) or (v == 2 and a2 > 0):
                    continue
                m0, m1, m2 = (n0 + a0) % 3, (n1 + a1) % 3, (n2 + a2) % 3
                if m0 == 1 or m1 == 1 or m2 == 1 or (m0 == 2) + (m1 == 2) + (m2 == 2) != pairs_needed:
                    continue
                # the suits without wildcards first: one table lookup each
                if (a0 == 0 and table[key0] == 0) or (a1 == 0 and table[key1] == 0) or (a2 == 0 and table[key2] == 0):
                    continue
                fits = True
                for suit, key, a in ((0, key0, a0), (1, key1, a1), (2, key2, a2)):
                    if a == 0:
                        continue
                    bit = 1 << (suit * 9 + a)
                    if not done & bit:
                        done |= bit
                        if fills(key, suit_held(s, h, suit), suit_rooms(s, seat, suit), a, table):
                            good |= bit
                    if not good & bit:
                        fits = False
                        break
                if fits:
                    return True
    return False


@njit(cache=True)
def wild_held(s, seat):
    """The seat holds one of the hand's wildcards."""
    h = HANDS + seat * NK
    return (s[WILD] >= 0 and s[h + s[WILD]] > 0) or (s[WILD2] >= 0 and s[h + s[WILD2]] > 0)


@njit(cache=True)
def natural_copies(s, seat, k):
    """The natural copies of ``k`` in all the seat's melds (a 吃 holds one of each kind of its run)."""
    n = 0
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        m = base + i * MELD_FIELDS
        t = s[m + 1]
        if s[m] == M_CHI:
            if t <= k <= t + 2:
                n += 1
        elif t == k:
            n += natural_meld_copies(s, m)
    return n


@njit(cache=True)
def wins_on(s, seat, k, table):
    """Whether ``k`` completes the seat's 3k+1 hand (``Game._seat_waits`` bit ``k``)."""
    if holds_void(s, seat):
        return False
    v = s[VOID + seat]
    if is_wild(s, k) or (k >= NSUITED and not (s[WUHAN] and k != RED)):  # no wildcard, 红中 or absent honor
        return False
    if v >= 0 and k < NSUITED and k // 9 == v:
        return False
    h = HANDS + seat * NK + k
    held = s[h]
    melded = meld_copies(s, seat, k)
    if melded and held + melded >= 4:  # held four times counting one meld (judge.waits_mask's candidates)
        return False
    if s[WUHAN]:  # a 乱将 / 乱风 hand waits on every kind of its set, past the copy caps (judge: uniform bits)
        s[h] += 1
        ok = uniform(s, seat)
        s[h] -= 1
        if ok:
            return True
    if held >= 4:
        return False
    if wild_held(s, seat) and held + 1 + natural_copies(s, seat, k) > 4:
        return False  # with wildcards the melds' natural copies cap the kind (judge: binding meld counts)
    s[HANDS + seat * NK + k] += 1
    ok = is_win(s, seat, table)
    s[HANDS + seat * NK + k] -= 1
    return ok


@njit(cache=True)
def waits_mask(s, seat, table):
    """``judge.waits_mask`` (no wildcards): bit ``k`` set when ``k`` completes the seat's 3k+1 hand's shape; kinds of
    the void suit and kinds the seat holds four times (hand and melds) are never waits."""
    if s[WILD] < 0 and s[WILD2] < 0 and not s[WUHAN]:
        return plain_waits(s, seat, table)
    v = s[VOID + seat]
    h = HANDS + seat * NK
    mask = 0
    for k in range(NK if s[WUHAN] else NSUITED):  # Wuhan's honors may be waits, never 中
        if (v >= 0 and k // 9 == v) or s[h + k] + meld_copies(s, seat, k) >= 4 or is_wild(s, k) or k == RED:
            continue
        s[h + k] += 1
        if is_win(s, seat, table):
            mask |= 1 << k
        s[h + k] -= 1
    return mask


@njit(cache=True)
def plain_waits(s, seat, table):
    """:func:`waits_mask` of a hand without wildcards outside Wuhan: :func:`is_win` of the hand plus each candidate
    kind, with the hand's tile count, parity, honors and suit keys read once (a candidate changes one suit's key)."""
    v = s[VOID + seat]
    h = HANDS + seat * NK
    total = 0
    odd = 0
    for k in range(NK):
        c = s[h + k]
        total += c
        odd += c & 1
    honors_ok = True  # honors never change: triplets, or the pair
    honor_pairs = 0
    for k in range(NSUITED, NK):
        c = s[h + k]
        if c == 1 or c == 4:
            honors_ok = False
        elif c == 2:
            honor_pairs += 1
    key0, key1, key2 = suit_key(s, h, 0), suit_key(s, h, 1), suit_key(s, h, 2)
    mask = 0
    for k in range(NSUITED):
        if (v >= 0 and k // 9 == v) or s[h + k] + meld_copies(s, seat, k) >= 4:
            continue
        if total == 13 and odd + (1 if s[h + k] & 1 == 0 else -1) == 0:  # 七对 with the added copy
            mask |= 1 << k
            continue
        if not honors_ok:
            continue
        pairs = honor_pairs
        ok = True
        suit = k // 9
        for t in range(3):
            key = key0 if t == 0 else (key1 if t == 1 else key2)
            if t == suit:
                key += P5[k % 9]
            if key == 0:
                continue
            code = table[key]
            if code == 0:
                ok = False
                break
            if code == 2:
                pairs += 1
        if ok and pairs == 1:
            mask |= 1 << k
    return mask


# ---- end of hand: what the settlement may find -------------------------------------------------------------------
@njit(cache=True)
def may_be_ready(s, seat, table):
    """Some kind outside the void suit completes the hand of a seat that holds no void tile, ignoring the meld copies:
    a superset of the settlement's 有叫 (its waits are :func:`envs.scoring.judge.waits_mask`'s, never of the void
    suit)."""
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
def ready_candidates(s, seats, table):
    """The seats of the bit set ``seats`` for which :func:`may_be_ready` holds, as a bit set (one call for the
    end-of-hand standings of every seat)."""
    out = 0
    for q in range(NP):
        if seats >> q & 1 and may_be_ready(s, q, table):
            out |= 1 << q
    return out


@njit(cache=True)
def is_pig(s, seat, three_suits):
    """:func:`envs.scoring.settlement.is_pig` of a variant with 定缺 (``three_suits``: ``huazhu_definition`` is
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
        if s[h + k] and not is_wild(s, k):  # 听用 belong to no suit
            held |= 1 << (k // 9)
    base = MELDS + seat * MAX_MELDS * MELD_FIELDS
    for i in range(s[NUM_MELDS + seat]):
        held |= 1 << (s[base + i * MELD_FIELDS + 1] // 9)
    return held
