"""Greedy baseline (牌效率智能体): play for speed — lowest shanten, then the most live effective tiles.

Decisions, phase by phase (everything is read from the observation; see :mod:`agents.features`):

* **换三张** — over every same-suit triple of natural tiles (wildcards are never passed), keep the ten or eleven tiles
  whose best void-suit plan has the lowest shanten; ties prefer leaving fewer tiles in that void suit, then more
  pairs.  The AEC environment asks for the triple as three picks; the plan is made once per hand and the picks
  shown in the ``exchange_picked`` plane are honoured.
* **定缺** — the suit whose removal leaves the lowest shanten (void tiles count as dead weight, see
  :func:`agents.handeval.shanten_dead`); ties: fewer tiles in the suit, fewer pairs there, lower suit index.
* **报胡 question** (断卡根 declare phase) — :mod:`agents.variant_play`: 报胡 when ready with at least
  ``baohu_min_live`` live winning tiles, else PASS.
* **Own turn** — HU whenever legal.  Then the variant actions of :mod:`agents.variant_play`: 提 (宜宾) and 红中杠
  (武汉) whenever legal, 赖子杠 (武汉) with more 赖子 than a small win allows or when it does not slow the hand, 请胡
  (断卡根) whenever legal, the dealer's 报胡 like the 报胡 question.  A kong (暗杠 / 补杠) when it does not worsen the
  shanten.  Then void-suit tiles go first (the engine's mask already forces this where ``must_discard_void_first``;
  the agent does it everywhere).  Otherwise the discard that minimises the shanten, then maximises the live
  effective tiles (copies of useful kinds not visible to the agent, from the ``visible`` plane); ties discard
  terminals before middle tiles, then tiles with more visible copies.  Wildcards (红中) count as wildcards and are
  never discarded unless they are the only legal discards or ``hongzhong_policy`` says so.  In 武汉 a ready hand's
  winning tiles count only when the completed hand has a 2-5-8 pair (将, the small-win pair,
  :func:`agents.handeval.has_jiang_pair`); a hand ready by shape alone counts as one step from ready.
* **Claims** — HU whenever legal; an exposed kong when the shanten after it is not worse; else, among a pong, a 飞
  (宜宾) and the 吃 positions (武汉) whose shanten right after the claim is not worse (a 飞 must make the hand
  strictly faster, :mod:`agents.variant_play`), the one whose best discard leaves the fastest, widest hand (ties:
  pong, 飞, 吃); else PASS.

``variant_actions = False`` plays the common actions only (the agent as it was before the variant rules were taught;
kept to measure them).

Red-dragon knob (``hongzhong_policy``): ``"keep_all"`` (default) never discards a 红中 voluntarily and takes every
win; ``"shagui_when_stable"`` discards the last 红中 for 杀鬼 (hard win, +1 doubling) when the hand without it is
ready with at least ``shagui_min_live`` live winning tiles — **declining the soft win** the 红中 completes on the
own turn (a ready hand plus a 红中 is always complete, so a knob that waited for "no win available" would never
act).  Discard wins (点炮) are always taken.  A 红中 is never discarded while holding three (the fourth is
an instant win).  :class:`agents.value.ValueAgent` adds ``"shagui_by_value"``.
"""

from __future__ import annotations

import itertools

import numpy as np

from agents.base import BaseAgent, legal_ids
from agents.features import Seen, read
from agents.handeval import dead_mask_for, has_jiang_pair, shanten_dead, suit_mask, useful_tiles
from agents.variant_play import VariantPlay
from envs.core.actions import DINGQUE_BASE, EXCHANGE_BASE, HU_ID, KONG_BASE, PASS_ID, PONG_ID
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.engine.observation import SLICES
from envs.engine.view import Phase

__all__ = ["HONGZHONG_POLICIES", "GreedyAgent"]

HONGZHONG_POLICIES = ("keep_all", "shagui_when_stable")
_WILD_ROW = SLICES["wild_kinds"].start
_SEAT_ROWS = SLICES["seat_present"]
_DISCARD_PREF = tuple(0 if k % 9 in (0, 8) else 1 if k % 9 in (1, 7) else 2 for k in range(NUM_KINDS))


def _infer_variant(obs: np.ndarray) -> RuleConfig:
    """A preset matching the table when ``reset`` was never called: 红中 if the wildcard plane is set, else by size."""
    if obs[_WILD_ROW].any():
        return load_variant("hongzhong")
    if round(float(obs[_SEAT_ROWS, 0].sum())) == 2:
        return load_variant("two_player")
    return load_variant("chengdu")


class GreedyAgent(VariantPlay, BaseAgent):
    """Shanten-then-effective-tiles baseline; see the module docstring for every decision."""

    name = "greedy"
    policies: tuple[str, ...] = HONGZHONG_POLICIES

    def __init__(
        self,
        *,
        hongzhong_policy: str = "keep_all",
        shagui_min_live: int = 4,
        variant_actions: bool = True,
        baohu_min_live: int = 2,
    ) -> None:
        super().__init__()
        if hongzhong_policy not in self.policies:
            raise ValueError(f"hongzhong_policy must be one of {list(self.policies)}, got {hongzhong_policy!r}")
        for name, v in (("shagui_min_live", shagui_min_live), ("baohu_min_live", baohu_min_live)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be a non-negative int, got {v!r}")
        if not isinstance(variant_actions, bool):
            raise ValueError(f"variant_actions must be true or false, got {variant_actions!r}")
        self.hongzhong_policy = hongzhong_policy
        self.shagui_min_live = shagui_min_live
        self.variant_actions = variant_actions
        self.baohu_min_live = baohu_min_live
        self.cfg: RuleConfig | None = None
        self._suited = (1 << NUM_SUITED) - 1
        self._in_play: tuple[int, ...] = tuple(range(NUM_SUITED))
        self._exchange_plan: tuple[bytes, tuple[int, ...]] | None = None
        self._jiang = False

    # ---- setup ---------------------------------------------------------------------------------------------------
    def reset(self, seat: int, variant: RuleConfig) -> None:
        super().reset(seat, variant)
        self._configure(load_variant(variant))

    def _configure(self, cfg: RuleConfig) -> None:
        self.cfg = cfg
        self._in_play = tuple(cfg.kinds)
        self._suited = sum(1 << k for k in cfg.kinds if k < NUM_SUITED)
        self._exchange_plan = None
        self._jiang = cfg.fan_table == "wuhan"  # a small win needs a 2-5-8 pair (将, RULES §4.8)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        ids = legal_ids(legal_mask)
        if ids.size == 1:
            return int(ids[0])
        if self.cfg is None:
            self._configure(_infer_variant(observation))
        seen = read(observation, in_play=self._in_play)
        phase = seen.phase
        if phase == Phase.EXCHANGE:
            return self._exchange(seen, legal_mask, ids)
        if phase == Phase.DINGQUE:
            return self._dingque(seen, legal_mask, ids)
        if phase == Phase.DECLARE:
            return self._declare(seen, legal_mask, ids)
        if legal_mask[HU_ID]:
            if phase == Phase.SELF and self.hongzhong_policy != "keep_all":
                red = self._decline_soft_win(seen, [int(k) for k in ids if k < KONG_BASE])
                if red is not None:
                    return red
            return HU_ID
        if phase == Phase.SELF:
            return self._self_turn(seen, legal_mask, ids)
        return self._claim(seen, legal_mask, ids)

    # ---- shared helpers ------------------------------------------------------------------------------------------
    def _dead(self, seen: Seen) -> int:
        return dead_mask_for(seen.void)

    def _allowed(self, seen: Seen) -> int:
        return self._suited & ~self._dead(seen)

    def _shanten(self, seen: Seen, counts: list[int], *, wilds: int | None = None, melded: bytes | None = None) -> int:
        return shanten_dead(
            counts,
            seen.wilds if wilds is None else wilds,
            dead=self._dead(seen),
            allowed=self._suited,
            melded=seen.melded if melded is None else melded,
        )

    def _useful(self, seen: Seen, counts: list[int], *, wilds: int | None = None) -> tuple[int, tuple[int, ...]]:
        return useful_tiles(
            counts,
            seen.wilds if wilds is None else wilds,
            dead=self._dead(seen),
            allowed=self._suited,
            melded=seen.melded,
        )

    @staticmethod
    def _meld_added(melded: bytes, kind: int, copies: int) -> bytes:
        m = bytearray(melded or bytes(NUM_KINDS))
        m[kind] = copies
        return bytes(m)

    def _wild_live(self, seen: Seen) -> int:
        return sum(seen.live[k] for k in seen.wild_kinds)

    # ---- 换三张 ---------------------------------------------------------------------------------------------------
    def _exchange(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int:
        picks = [k for k in range(NUM_KINDS) for _ in range(seen.exchange_picked[k])]
        key = bytes(seen.hand)
        plan = self._exchange_plan
        if plan is None or plan[0] != key or not _contains(plan[1], picks):
            plan = (key, self._best_triple(seen, picks))
            self._exchange_plan = plan
        rest = list(plan[1])
        for k in picks:
            rest.remove(k)
        for k in rest:
            if mask[EXCHANGE_BASE + k]:
                return EXCHANGE_BASE + k
        return int(ids[0])

    def _best_triple(self, seen: Seen, picks: list[int]) -> tuple[int, ...]:
        counts = seen.counts
        best_key: tuple | None = None
        best: tuple[int, ...] = ()
        suits = [s for s in range(3) if self._suited >> (9 * s) & 1]
        for s in suits:
            if any(k // 9 != s or k >= NUM_SUITED for k in picks):
                continue
            tiles = [k for k in range(9 * s, 9 * s + 9) for _ in range(counts[k])]
            if len(tiles) < 3:
                continue
            for triple in sorted(set(itertools.combinations(tiles, 3))):
                if not _contains(triple, picks):
                    continue
                rest = list(counts)
                for k in triple:
                    rest[k] -= 1
                key = (*self._exchange_key(seen, rest), triple)
                if best_key is None or key < best_key:
                    best_key, best = key, triple
        return best

    def _exchange_key(self, seen: Seen, rest: list[int]) -> tuple:
        """Sort key of the tiles kept after passing a triple (lower is better)."""
        best = None
        for v in range(3):
            if not self._suited >> (9 * v) & 1:
                continue
            dead = suit_mask(v)
            s = shanten_dead(rest, seen.wilds, dead=dead, allowed=self._suited & ~dead)
            in_void = sum(rest[9 * v : 9 * v + 9])
            pairs = sum(1 for k in range(NUM_SUITED) if rest[k] >= 2 and not dead >> k & 1)
            key = (s, in_void, -pairs)
            if best is None or key < best:
                best = key
        return best if best is not None else (0, 0, 0)

    # ---- 定缺 -----------------------------------------------------------------------------------------------------
    def _dingque(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int:
        counts = seen.counts
        best_key = None
        choice = int(ids[0])
        for s in range(3):
            if not mask[DINGQUE_BASE + s]:
                continue
            dead = suit_mask(s)
            sh = shanten_dead(counts, seen.wilds, dead=dead, allowed=self._suited & ~dead, melded=seen.melded)
            kinds = range(9 * s, 9 * s + 9)
            key = (sh, sum(counts[k] for k in kinds), sum(counts[k] >= 2 for k in kinds), s)
            if best_key is None or key < best_key:
                best_key, choice = key, DINGQUE_BASE + s
        return choice

    # ---- own turn ------------------------------------------------------------------------------------------------
    def _self_turn(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int:
        legal_discards = [int(k) for k in ids if k < KONG_BASE]
        kongs = [int(k) - KONG_BASE for k in ids if KONG_BASE <= k < PONG_ID]
        if seen.won and kongs:  # a frozen 血流 hand: the engine only offers kongs that keep the waits
            return KONG_BASE + kongs[0]
        special = self._variant_self_action(seen, mask, ids)
        if special is not None:
            return special
        if kongs:
            s_now = self._shanten(seen, seen.counts)
            for k in kongs:
                if self._kong_ok(seen, k, s_now):
                    return KONG_BASE + k
        dead = self._dead(seen)
        void_discards = [k for k in legal_discards if dead >> k & 1]
        if void_discards:
            return self._void_discard(seen, void_discards)
        if not legal_discards:
            return int(ids[0])
        return self._choose_discard(seen, legal_discards)

    def _kong_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        """Own-turn kong (暗杠 or 补杠) that keeps the shanten of the 14-tile hand."""
        c = list(seen.counts)
        if k in seen.pongs:  # 补杠: the fourth copy leaves the hand, the set count is unchanged
            c[k] -= 1
        else:  # 暗杠: four copies become a set
            c[k] -= 4
        return self._shanten(seen, c, melded=self._meld_added(seen.melded, k, 4)) <= max(s_now, 0) + self._kong_slack(
            seen
        )

    def _kong_slack(self, seen: Seen) -> int:
        """Shanten a kong may cost (0 for the greedy agent: a kong must not slow the hand)."""
        return 0

    def _void_discard(self, seen: Seen, kinds: list[int]) -> int:
        """Which void-suit tile to throw first: singles before pairs, then the most visible (safest) kind."""
        return min(kinds, key=lambda k: (seen.counts[k], -seen.visible[k], k))

    def _wild_discard_kinds(self, seen: Seen, legal: list[int]) -> list[int]:
        """Wildcard kinds this agent is willing to discard now (the ``hongzhong_policy``)."""
        wild_legal = [k for k in legal if k in seen.wild_kinds]
        if not wild_legal or seen.wilds != 1 or self.hongzhong_policy == "keep_all":
            return []
        if self.hongzhong_policy == "shagui_when_stable":
            s, waits = self._useful(seen, seen.counts, wilds=0)
            if s == 0 and sum(seen.live[t] for t in waits) >= self.shagui_min_live:
                return wild_legal
        return []

    def _decline_soft_win(self, seen: Seen, legal: list[int]) -> int | None:
        """The 红中 to discard instead of taking a soft win (one that uses the 红中), or ``None`` to win now.

        ``shagui_when_stable``: holding exactly one 红中 whose hand without it is ready with at least
        ``shagui_min_live`` live winning tiles, throw the 红中 and wait for a hard win (杀鬼, one more doubling).
        """
        kinds = self._wild_discard_kinds(seen, legal)
        return kinds[0] if kinds else None

    def _discard_candidates(self, seen: Seen, legal: list[int]) -> list[int]:
        natural = [k for k in legal if k not in seen.wild_kinds]
        return natural if natural else list(legal)

    def _choose_discard(self, seen: Seen, legal: list[int]) -> int:
        wild_now = self._wild_discard_kinds(seen, legal)
        if wild_now:
            return wild_now[0]
        options = self._discard_options(seen, self._discard_candidates(seen, legal))
        return min(options, key=lambda o: o[0])[1]

    def _discard_options(self, seen: Seen, kinds: list[int]) -> list[tuple[tuple, int]]:
        """``(sort key, kind)`` of each candidate discard: shanten, then minus live effective tiles, then taste."""
        c = list(seen.counts)
        wilds = seen.wilds
        shanten_of: dict[int, int] = {}
        for k in kinds:
            if k in seen.wild_kinds:
                shanten_of[k] = self._shanten(seen, c, wilds=wilds - 1)
                continue
            c[k] -= 1
            shanten_of[k] = self._shanten(seen, c)
            c[k] += 1
        if self._jiang:  # Wuhan: ready by shape only (no wait gives a 2-5-8 pair) is one step from a small win
            for k in kinds:
                if shanten_of[k] == 0 and not self._live_useful(seen, c, k):
                    shanten_of[k] = 1
        s_min = min(shanten_of.values())
        wild_live = self._wild_live(seen)
        out = []
        for k in kinds:
            s = shanten_of[k]
            u = 0
            if s == s_min:
                u = self._live_useful(seen, c, k, jiang=s == 0) + (wild_live if s >= 0 else 0)
            out.append(((s, -u, _DISCARD_PREF[k], -seen.visible[k], k), k))
        return out

    def _live_useful(self, seen: Seen, counts: list[int], k: int, *, jiang: bool = True) -> int:
        """Live effective tiles of the hand after discarding ``k`` (``counts`` is restored).  In Wuhan the winning
        tiles of a ready hand count only when the completed hand has a 2-5-8 pair (将; with ``jiang``)."""
        wilds = seen.wilds
        if k in seen.wild_kinds:
            wilds -= 1
        else:
            counts[k] -= 1
        s, useful = self._useful(seen, counts, wilds=wilds)
        if self._jiang and jiang and s == 0:
            useful = tuple(t for t in useful if self._jiang_wait(counts, wilds, t, seen.melded))
        if k not in seen.wild_kinds:
            counts[k] += 1
        live = seen.live
        return sum(live[t] for t in useful)

    def _jiang_wait(self, counts: list[int], wilds: int, t: int, melded: bytes) -> bool:
        counts[t] += 1
        ok = has_jiang_pair(counts, wilds, allowed=self._suited, melded=melded)
        counts[t] -= 1
        return ok

    # ---- claims --------------------------------------------------------------------------------------------------
    def _claim(self, seen: Seen, mask: np.ndarray, ids: np.ndarray) -> int:
        k = seen.claim_tile
        if k is None:
            return PASS_ID if mask[PASS_ID] else int(ids[0])
        s_now = self._shanten(seen, seen.counts)
        if mask[KONG_BASE + k] and self._claim_kong_ok(seen, k, s_now):
            return KONG_BASE + k
        meld = self._meld_claim(seen, mask, k, s_now)
        if meld is not None:
            return meld
        return PASS_ID if mask[PASS_ID] else int(ids[0])

    def _claim_kong_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        c = list(seen.counts)
        c[k] -= 3
        return self._shanten(seen, c, melded=self._meld_added(seen.melded, k, 4)) <= s_now + self._kong_slack(seen)

    def _pong_shanten(self, seen: Seen, k: int) -> int:
        """Shanten of the 3k+2 hand right after ponging ``k`` (before its discard)."""
        c = list(seen.counts)
        c[k] -= 2
        return self._shanten(seen, c, melded=self._meld_added(seen.melded, k, 3))

    def _pong_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        # a complete hand right after a pong still has to discard: it is then ready (shanten 0)
        return max(self._pong_shanten(seen, k), 0) <= s_now


def _contains(triple: tuple[int, ...] | list[int], picks: list[int]) -> bool:
    rest = list(triple)
    for k in picks:
        if k not in rest:
            return False
        rest.remove(k)
    return True
