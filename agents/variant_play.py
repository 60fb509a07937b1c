"""Variant actions of the rule-based agents (变体动作): 吃 / 红中杠 / 赖子杠, 飞 / 提, 报胡 / 请胡.

:class:`VariantPlay` is a mixin of :class:`agents.greedy.GreedyAgent` (and so of the value and defensive agents):
it decides the variant-only ranges of the flat layout (:mod:`envs.core.actions`) from the observation alone, with the
host agent's shanten (:meth:`GreedyAgent._shanten`, dead tiles and wildcards included).  Every rule is described
with the rule it serves (RULES.md section in brackets):

* **红中杠** (``RED_KONG``, §4.8) — whenever legal.  A 红中 can never be used in a win and a seat holding one is
  never offered a win, so it is dead weight; playing it out draws a replacement (the hand keeps its size) and
  doubles the seat's factor.  It comes before any other own-turn action except a win (which a 红中 forbids anyway).
* **赖子杠** (``LAIZI_KONG``, §4.8) — when the hand holds more 赖子 than a small win allows
  (``wuhan_small_win_max_laizi``, one by default), or when the hand without the 赖子 has a shanten no worse than
  after the best ordinary discard (the kong is then a free draw, a ×2 factor, and a chance of 硬胡 ×2).
* **吃** (``CHI c``, §4.8) — like a pong: when the shanten right after the chi (before its discard) is not worse
  than now.  Among the acceptable claims (pong, 飞, each chi position) the agent takes the one whose best discard
  leaves the lowest shanten, then the most live effective tiles; ties prefer pong, then 飞, then chi.  Opening
  (开口) is required to win in Wuhan, which the shanten rule serves: a chi or pong that keeps the hand as fast is
  always taken.
* **飞** (``FEI``, §4.4) — a claim with one natural tile and one 听用, taken only when the hand after its best
  discard is strictly faster (lower shanten) than now: a 听用 in hand widens every wait, so spending it on a meld
  must pay.  Measured on 150 seed-1 walls against greedy copies that 飞 whenever the shanten is not worse and the
  live effective tiles do not drop: this rule +0.26 points per hand, 飞 only to get ready +0.20, the plain pong
  rule -0.11, never 飞 +0.02 (intervals about ±0.35).  A pong that is as good is preferred (it keeps the 听用).
* **提** (``TI k``, §4.4) — whenever legal: the drawn natural tile replaces the 听用 of the 飞 meld and the 听用
  comes back to the hand, where it can stand for any tile — never worse than the natural tile it replaces.
* **报胡** (``BAOHU``, §4.5) — declared when the ten-tile hand is ready with at least ``baohu_min_live`` live
  winning tiles (a non-dealer in the declare phase; the dealer as its first action when some discard leaves it
  ready so).  报胡 adds two fan to the own win, which also lets a 小胡 (no-fan) hand win at all, at the price of a
  locked hand and a one-fan penalty on the seat's payments.
* **请胡** (``QINGHU_DISCARD k``, §4.5) — whenever legal (five pairs and a single, no melds): the request wins
  请胡 as a self-draw (two fan, +1 base from each payer) unless someone wins on the single, and a hand of five
  pairs is otherwise far from three sets and a pair.

``variant_actions = False`` turns all of this off (the agent then plays the common actions only and passes the
报胡 question), which is how the gain of these rules is measured.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from agents.features import Seen
from envs.core.actions import (
    BAOHU_ID,
    CHI_BASE,
    FEI_ID,
    KONG_BASE,
    LAIZI_KONG_ID,
    PASS_ID,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
)
from envs.core.tiles import NUM_KINDS

if TYPE_CHECKING:  # pragma: no cover
    from envs.core.rule_config import RuleConfig

__all__ = ["VariantPlay", "chi_tiles"]


def chi_tiles(k: int, position: int) -> tuple[int, int]:
    """The two hand tiles a ``CHI position`` on the discard ``k`` uses (position 0/1/2: ``k`` is the low / middle /
    high tile of the run)."""
    low = k - position
    a, b = (low + i for i in range(3) if low + i != k)
    return a, b


class VariantPlay:
    """Mixin deciding the variant actions; the host provides ``cfg``, ``_shanten``, ``_useful``, ``_pong_ok``,
    ``_meld_added`` and ``_discard_options`` (see :class:`agents.greedy.GreedyAgent`)."""

    cfg: RuleConfig | None
    variant_actions: bool
    baohu_min_live: int

    # ---- own turn -------------------------------------------------------------------------------------------------
    def _variant_self_action(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int | None:
        """The variant action to play now on the own turn (提, 红中杠, 赖子杠, 请胡, the dealer's 报胡) or None."""
        if not self.variant_actions:
            return None
        for i in ids:
            if TI_BASE <= i < TI_BASE + NUM_KINDS:
                return int(i)
        if mask[RED_KONG_ID]:
            return RED_KONG_ID
        discards = [int(k) for k in ids if k < KONG_BASE and k not in seen.wild_kinds]
        if mask[LAIZI_KONG_ID] and self._laizi_kong_ok(seen, discards):
            return LAIZI_KONG_ID
        for i in ids:
            if QINGHU_BASE <= i < QINGHU_BASE + NUM_KINDS:
                return int(i)
        if mask[BAOHU_ID] and self._ready_discard_live(seen, discards) >= self.baohu_min_live:
            return BAOHU_ID
        return None

    def _laizi_kong_ok(self, seen: Seen, discards: list[int]) -> bool:
        """赖子杠 when the hand holds more 赖子 than a small win allows, or when playing one out (a 3k+1 hand, before
        the replacement draw) is no slower than the best ordinary discard."""
        assert self.cfg is not None
        if seen.wilds > self.cfg.wuhan_small_win_max_laizi:
            return True
        s_kong = self._shanten(seen, seen.counts, wilds=seen.wilds - 1)
        c = list(seen.counts)
        for k in discards:
            c[k] -= 1
            s = self._shanten(seen, c)
            c[k] += 1
            if s < s_kong:
                return False
        return True

    def _ready_discard_live(self, seen: Seen, discards: list[int]) -> int:
        """Most live winning tiles over the discards that leave the hand ready (0 when none does)."""
        best = 0
        c = list(seen.counts)
        for k in discards:
            c[k] -= 1
            s, waits = self._useful(seen, c)
            if s == 0:
                best = max(best, sum(seen.live[t] for t in waits))
            c[k] += 1
        return best

    # ---- declare phase (报胡) ---------------------------------------------------------------------------------------
    def _declare(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int:
        """报胡 when the ready ten-tile hand has at least ``baohu_min_live`` live winning tiles, else PASS."""
        if self.variant_actions and mask[BAOHU_ID]:
            s, waits = self._useful(seen, seen.counts)
            if s == 0 and sum(seen.live[t] for t in waits) >= self.baohu_min_live:
                return BAOHU_ID
        return PASS_ID if mask[PASS_ID] else int(ids[0])

    # ---- claims ----------------------------------------------------------------------------------------------------
    def _meld_claim(self, seen: Seen, mask: np.ndarray, k: int, s_now: int) -> int | None:
        """The best acceptable meld claim on the discard ``k`` (pong, 飞, 吃) or None."""
        options: list[tuple[int, int, list[int], int, bytes]] = []  # (rank, action, counts, wilds, melded) after
        if mask[PONG_ID] and self._pong_ok(seen, k, s_now):
            c = list(seen.counts)
            c[k] -= 2
            options.append((0, PONG_ID, c, seen.wilds, self._meld_added(seen.melded, k, 3)))
        if self.variant_actions:
            if mask[FEI_ID] and self._fei_ok(seen, k, s_now):
                c, wilds = self._fei_hand(seen, k)
                options.append((1, FEI_ID, c, wilds, self._meld_added(seen.melded, k, min(3, 4 - c[k]))))
            for position in range(3):
                if mask[CHI_BASE + position] and self._chi_ok(seen, k, position, s_now):
                    c = self._chi_counts(seen, k, position)
                    options.append((2, CHI_BASE + position, c, seen.wilds, seen.melded))
        if not options:
            return None
        if len(options) == 1:
            return options[0][1]
        return min(options, key=lambda o: self._after_claim_key(seen, o[2], o[3], o[4], o[0]))[1]

    def _after_claim_key(self, seen: Seen, counts: list[int], wilds: int, melded: bytes, rank: int) -> tuple:
        """Sort key of a claimed hand (3k+2 tiles): the best discard's shanten and minus live effective tiles."""
        after = replace(seen, counts=counts, wilds=wilds, melded=melded)
        kinds = [t for t in range(NUM_KINDS) if counts[t]]
        if not kinds:
            return (0, 0, rank)
        best = min(key for key, _ in self._discard_options(after, kinds))
        return (best[0], best[1], rank)

    @staticmethod
    def _chi_counts(seen: Seen, k: int, position: int) -> list[int]:
        c = list(seen.counts)
        for t in chi_tiles(k, position):
            c[t] -= 1
        return c

    @staticmethod
    def _fei_hand(seen: Seen, k: int) -> tuple[list[int], int]:
        """Natural counts and 听用 left after a 飞 of ``k``: one natural ``k`` when held (the engine's rule), the rest
        of the triplet's two hand tiles from the 听用."""
        c = list(seen.counts)
        naturals = 1 if c[k] else 0
        c[k] -= naturals
        return c, seen.wilds - (2 - naturals)

    def _fei_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        """飞 only when the hand, its best discard made, is strictly faster (a lower shanten) than now: the 听用 it
        spends widens every wait while in the hand (measured: the pong rule "not slower" lost to no 飞 at all)."""
        c, wilds = self._fei_hand(seen, k)
        if wilds < 0:
            return False
        melded = self._meld_added(seen.melded, k, min(3, 4 - c[k]))  # natural copies left for the hand: at most 4
        return self._after_claim_key(seen, c, wilds, melded, 0)[0] < s_now

    def _chi_ok(self, seen: Seen, k: int, position: int, s_now: int) -> bool:
        """吃 when the shanten right after it is not worse than now (the pong rule)."""
        return max(self._shanten(seen, self._chi_counts(seen, k, position)), 0) <= s_now
