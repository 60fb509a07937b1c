"""Danger estimates (放铳风险) from public information: how likely a discard of each kind deals into a win.

Everything comes from the observation (:class:`agents.features.Seen`); per opponent slot:

* **Out of the hand** (血战 winner, ``active`` plane 0): no danger.
* **Revealed hand** (血流 frozen winner, ``revealed_hands`` plane): its waits are computed exactly
  (:func:`envs.hand.waits` with its void suit and melds); a wait kind is dangerous with certainty.
* **Otherwise** the danger of kind ``t`` is ``P(ready) × P(t is a wait | ready) × stake``:

  - ``P(ready)`` is a logistic curve in the opponent's number of discards, shifted earlier by each meld (fitted
    to greedy self-play: about 0.15 after 4 discards, 0.5 after 7, 0.8 after 11), divided by 3 when its last
    discard was of its own void suit (it may still hold void tiles, and a hand holding one cannot win);
  - ``P(t is a wait | ready)`` starts at 2 / 18 (two wait kinds among the 18 kinds of two suits) and is scaled by
    the rank (terminals 0.65, 2 and 8 0.85, middle tiles 1.0), by ``1 + 2.5 w`` where ``w`` is the number of
    wildcards the opponent is expected to hold (live wildcards × 13 / unseen tiles: a wildcard widens the waits), by
    how many copies of ``t`` are visible (pair
    waits need copies: 2 visible 0.9, 3 visible 0.75, 4 visible 0.6), by 0.55 when the opponent discarded ``t``
    itself (it let the tile go; Sichuan has no 振听 so this is only evidence), and by 1.5 for the suit an
    opponent with at least six non-void discards has not discarded at all (a likely 清一色);
  - it is **zero** for the opponent's declared void suit (a hand holding it cannot win) and for wildcards whose
    discard cannot be claimed (红中 with ``hz_red_discard_claimable`` off);
  - ``stake`` is the payment of a discard win one doubling above 平胡 in the variant, doubled for an opponent
    with two or more melds (对对胡 / 金钩钓 are common there).
"""

from __future__ import annotations

import math

from agents.features import Opponent, Seen
from agents.valuation import VariantValues
from envs.config import RuleConfig
from envs.hand import kinds_mask, mask_excluding_suit, waits
from envs.tiles import NUM_KINDS, NUM_SUITED

__all__ = ["danger_by_kind", "ready_probability"]

BASE_HIT = 2.0 / 18.0
WILD_HIT = 2.5
"""Extra hit rate per wildcard an opponent is expected to hold (fitted on greedy 红中 self-play)."""
_RANK = tuple(0.65 if k % 9 in (0, 8) else 0.85 if k % 9 in (1, 7) else 1.0 for k in range(NUM_SUITED))
_VISIBLE = (1.0, 1.0, 0.9, 0.75, 0.6)


def ready_probability(opp: Opponent) -> float:
    """Estimated chance that ``opp`` is ready now (see the module docstring)."""
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


def danger_by_kind(seen: Seen, cfg: RuleConfig, values: VariantValues) -> list[float]:
    """Expected loss (payment units) of discarding one tile of each kind now: a list of 34 floats."""
    danger = [0.0] * NUM_KINDS
    base_stake = values.payment(values.doublings["base"] + 1)
    # wildcards widen waits: scale the hit rate by the wildcards an opponent is expected to hold
    unseen = max(1, seen.unseen)
    wild_scale = 1.0 + WILD_HIT * sum(seen.live[k] for k in seen.wild_kinds) * 13 / unseen
    dead_wild = () if cfg.hz_red_discard_claimable else seen.wild_kinds
    for opp in seen.opponents:
        if not opp.active:
            continue
        stake = base_stake * (2.0 if len(opp.pongs) + len(opp.kongs) + opp.hidden_kongs >= 2 else 1.0)
        if opp.revealed is not None:
            for t in _revealed_waits(opp, cfg, seen.wild_kinds):
                if t not in dead_wild:
                    danger[t] += stake
            continue
        ready = ready_probability(opp)
        if ready <= 0.0:
            continue
        non_void = [opp.discards[k] for k in range(NUM_SUITED) if opp.void is None or k // 9 != opp.void]
        per_suit = [sum(opp.discards[9 * s : 9 * s + 9]) for s in range(3)]
        flush_suit = None
        if sum(non_void) >= 6:
            empty = [s for s in range(3) if s != opp.void and per_suit[s] == 0 and any(seen.live[9 * s : 9 * s + 9])]
            if len(empty) == 1:
                flush_suit = empty[0]
        for t in range(NUM_SUITED):
            if opp.void is not None and t // 9 == opp.void:
                continue
            hit = BASE_HIT * wild_scale * _RANK[t] * _VISIBLE[min(seen.visible[t], 4)]
            if opp.discards[t]:
                hit *= 0.55
            if flush_suit is not None and t // 9 == flush_suit:
                hit *= 1.5
            danger[t] += ready * hit * stake
    for k in dead_wild:
        danger[k] = 0.0
    return danger
