"""Danger estimates (放铳风险) from public information: how likely a discard of each kind deals into a win.

Everything comes from the observation (:class:`agents.features.Seen`); per opponent slot:

* **Out of the hand** (血战 winner, ``active`` plane 0): no danger.
* **Revealed hand** (血流 frozen winner, ``revealed_hands`` plane): its waits are computed exactly
  (:func:`envs.scoring.shanten.waits` with its void suit and melds); a wait kind is dangerous with certainty.
* **Otherwise** the danger of kind ``t`` is ``P(ready) × P(t is a wait | ready) × stake``, two logistic models
  fitted on greedy self-play (150 walls each of 成都, 红中 and 宜宾, seed-7 walls, every own turn of every seat,
  the opponents' true waits as labels):

  - :func:`ready_estimate` (``P(ready)``, AUC 0.87-0.90): the opponent's discards (steeply up to four, then
    slower), melds, the wildcards a hand holds on average in the variant (raising the estimate once a hand has
    discarded seven or more tiles), fewer
    when its last discard was of its own void suit (it still holds void tiles and cannot win) and when many of its
    discards were void tiles (a hand that spent its turns on its void suit is slow);
  - :func:`wait_probability` (``P(t is a wait | ready)``, AUC 0.69-0.71): rank (terminals and 2/8 are waited on
    less), copies of ``t`` visible, whether the opponent discarded ``t`` itself (Sichuan has no 振听, but a hand
    rarely waits on what it threw: 0.7 % of such tiles were waits), whether ``t`` was discarded by a later seat
    after the opponent's own last discard (**passed**: its hand has not changed since and it did not win on that
    tile, so it cannot win on it before its next draw; under ``pass_hu_lock`` a deliberate pass also locks the
    kind), neighbours and 筋 (``t ± 3``) it discarded, how much of that suit it discarded (a suit it never
    discards after six discards: a likely 清一色), the wildcards it is expected to hold now, its melds in the suit;
  - it is **zero** for the opponent's declared void suit (a hand holding it cannot win) and for wildcards whose
    discard cannot be claimed (红中 with ``hz_red_discard_claimable`` off);
  - ``stake`` is the payment of a discard win one doubling above 平胡 in the variant, doubled for an opponent
    with two or more melds (对对胡 / 金钩钓 are common there).

:func:`ready_probability` is the older hand-set curve in the number of discards that
:class:`agents.value.ValueAgent` uses for its end-of-hand hazard.
"""

from __future__ import annotations

import math

from agents.features import Opponent, Seen
from agents.valuation import VariantValues
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.scoring.shanten import kinds_mask, mask_excluding_suit, waits

__all__ = [
    "danger_by_kind",
    "danger_from",
    "deal_in_by_kind",
    "expected_wilds",
    "passed_kinds",
    "ready_estimate",
    "ready_probability",
    "wait_probability",
]

# P(ready) logistic weights: bias, discards, melds, expected wildcards, discards x wildcards, last discard void,
# min(discards, 4), void-suit discards, melds x wildcards
_READY_W = (-3.461, 0.569, 0.086, -0.285, 0.043, -0.532, 0.481, -0.648, 0.273)
# P(wait | ready) logistic weights (see wait_probability)
_W_BIAS = -1.516
_W_TERMINAL = -0.686
_W_TWO_EIGHT = -0.380
_W_VISIBLE = (0.0, 0.0, -0.343, -0.643, -0.937)  # cumulative: >= 2, >= 3, >= 4 copies visible
_W_DISCARDED = -3.000
_W_NEIGHBOUR = -0.241  # per copy of t +- 1 it discarded (at most 3)
_W_NEXT = -0.070  # per copy of t +- 2 (at most 3)
_W_SUJI = -0.432  # per copy of t +- 3 (at most 2)
_W_SUIT_SHARE = -0.142  # share of its non-void discards in t's suit
_W_FLUSH = 0.021
_W_WILDS = 0.562  # per wildcard it is expected to hold now
_W_PONG_SUIT = -0.177
_W_LENGTH = 0.881  # non-void discards / 12 (at most 1)
_W_PASSED = -2.813
_RANK_W = tuple(_W_TERMINAL if k % 9 in (0, 8) else _W_TWO_EIGHT if k % 9 in (1, 7) else 0.0 for k in range(NUM_SUITED))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -40 else 0.0


def ready_probability(opp: Opponent) -> float:
    """Hand-set chance that ``opp`` is ready now (logistic in its discards and melds; the value agent's hazard)."""
    if not opp.active:
        return 0.0
    if opp.revealed is not None:
        return 1.0
    melds = len(opp.pongs) + len(opp.kongs) + opp.hidden_kongs
    x = (opp.n_discards - 6.5 + 0.8 * melds) / 2.0
    p = 1.0 / (1.0 + math.exp(-x))
    if opp.void is not None and opp.last_discard is not None and opp.last_discard // 9 == opp.void:
        p /= 3.0
    return p


def expected_wilds(cfg: RuleConfig, wild_kinds: tuple[int, ...]) -> float:
    """Wildcards a 13-tile hand holds on average in the variant (four copies of each wild kind among all tiles)."""
    return len(wild_kinds) * 4 * 13 / max(1, cfg.num_tiles)


def ready_estimate(opp: Opponent, wilds: float = 0.0) -> float:
    """Fitted chance that ``opp`` is ready now; ``wilds`` = :func:`expected_wilds` of the variant."""
    if not opp.active:
        return 0.0
    if opp.revealed is not None:
        return 1.0
    melds = len(opp.pongs) + len(opp.kongs) + opp.hidden_kongs
    nd = opp.n_discards
    void = opp.void
    last_void = void is not None and opp.last_discard is not None and opp.last_discard < NUM_SUITED
    last_void = last_void and opp.last_discard // 9 == void
    void_discards = sum(opp.discards[9 * void : 9 * void + 9]) if void is not None else 0
    w = _READY_W
    x = (
        w[0]
        + w[1] * nd
        + w[2] * melds
        + w[3] * wilds
        + w[4] * nd * wilds
        + w[5] * last_void
        + w[6] * min(nd, 4)
        + w[7] * void_discards
        + w[8] * melds * wilds
    )
    return _sigmoid(x)


def passed_kinds(seen: Seen) -> list[set[int]]:
    """Per opponent (same order as ``seen.opponents``): kinds discarded after its own last discard.

    At the observer's turn the seats after an opponent in turn order discarded after it (their ``last_discard``);
    the opponent's concealed hand has not changed since, and it did not win on those tiles.
    """
    out: list[set[int]] = []
    opps = seen.opponents
    for i, opp in enumerate(opps):
        later = {o.last_discard for o in opps[i + 1 :] if o.active and o.last_discard is not None}
        if opp.last_discard is None:
            later = set()
        out.append(later)
    return out


def wait_probability(seen: Seen, opp: Opponent, t: int, *, wilds_held: float = 0.0, passed: bool = False) -> float:
    """Fitted chance that suited kind ``t`` is one of a **ready** ``opp``'s waits (0 for its void suit)."""
    if opp.void is not None and t // 9 == opp.void:
        return 0.0
    disc = opp.discards
    s, i = divmod(t, 9)
    nb1 = (disc[t - 1] if i > 0 else 0) + (disc[t + 1] if i < 8 else 0)
    nb2 = (disc[t - 2] if i > 1 else 0) + (disc[t + 2] if i < 7 else 0)
    suji = (disc[t - 3] if i > 2 else 0) + (disc[t + 3] if i < 6 else 0)
    suit_d = sum(disc[9 * s : 9 * s + 9])
    void_d = sum(disc[9 * opp.void : 9 * opp.void + 9]) if opp.void is not None else 0
    nonvoid = opp.n_discards - void_d
    x = (
        _W_BIAS
        + _RANK_W[t]
        + _W_VISIBLE[min(seen.visible[t], 4)]
        + (_W_DISCARDED if disc[t] else 0.0)
        + _W_NEIGHBOUR * min(nb1, 3)
        + _W_NEXT * min(nb2, 3)
        + _W_SUJI * min(suji, 2)
        + _W_SUIT_SHARE * suit_d / max(nonvoid, 1)
        + (_W_FLUSH if nonvoid >= 6 and suit_d == 0 else 0.0)
        + _W_WILDS * wilds_held
        + _W_PONG_SUIT * sum(1 for k in opp.pongs if k < NUM_SUITED and k // 9 == s)
        + _W_LENGTH * min(nonvoid, 12) / 12
        + (_W_PASSED if passed else 0.0)
    )
    return _sigmoid(x)


def _revealed_waits(opp: Opponent, cfg: RuleConfig, wild_kinds: tuple[int, ...]) -> set[int]:
    counts = list(opp.revealed or [0] * NUM_KINDS)
    wilds = 0
    for k in wild_kinds:
        wilds += counts[k]
        counts[k] = 0
    melded = [0] * NUM_KINDS
    for k in opp.pongs:
        melded[k] += 3
    for k in opp.kongs:
        melded[k] += 4
    suited = kinds_mask(k for k in cfg.kinds if k < NUM_SUITED)
    allowed = mask_excluding_suit(opp.void, suited)
    try:
        return set(waits(counts, wilds, allowed_mask=allowed, meld_counts=melded if any(melded) else None))
    except ValueError:  # not a 3k+1 concealed hand (should not happen for a frozen hand)
        return set()


def deal_in_by_kind(seen: Seen, cfg: RuleConfig) -> list[list[float]]:
    """Per opponent (same order as ``seen.opponents``): the chance that a discard of each of the 34 kinds deals in."""
    unseen = max(1, seen.unseen)
    held = sum(seen.live[k] for k in seen.wild_kinds) * 13 / unseen
    game_wilds = expected_wilds(cfg, seen.wild_kinds)
    dead_wild = () if cfg.hz_red_discard_claimable else seen.wild_kinds
    passed = passed_kinds(seen)
    out = []
    for i, opp in enumerate(seen.opponents):
        row = [0.0] * NUM_KINDS
        out.append(row)
        if not opp.active:
            continue
        if opp.revealed is not None:
            for t in _revealed_waits(opp, cfg, seen.wild_kinds):
                if t not in dead_wild:
                    row[t] = 1.0
            continue
        ready = ready_estimate(opp, game_wilds)
        for t in range(NUM_SUITED):
            if t in seen.wild_kinds or (not seen.live[t] and not seen.hand[t]):
                continue
            row[t] = ready * wait_probability(seen, opp, t, wilds_held=held, passed=t in passed[i])
    return out


def danger_by_kind(seen: Seen, cfg: RuleConfig, values: VariantValues) -> list[float]:
    """Expected loss (payment units) of discarding one tile of each kind now: a list of 34 floats."""
    return danger_from(seen, deal_in_by_kind(seen, cfg), values)


def danger_from(seen: Seen, rows: list[list[float]], values: VariantValues) -> list[float]:
    """:func:`danger_by_kind` from the per-opponent chances of :func:`deal_in_by_kind`."""
    danger = [0.0] * NUM_KINDS
    base_stake = values.payment(values.doublings["base"] + 1)
    for opp, row in zip(seen.opponents, rows):
        if not opp.active:
            continue
        stake = base_stake * (2.0 if len(opp.pongs) + len(opp.kongs) + opp.hidden_kongs >= 2 else 1.0)
        for t in range(NUM_KINDS):
            if row[t]:
                danger[t] += row[t] * stake
    return danger
