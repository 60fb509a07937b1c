"""武汉 红中赖子杠 Wuhan (RULES.md §4.8): the 赖子 successor rule, per-player factors, caps and per-loser payments.

:func:`envs.scoring.scorer.score_hand` / :func:`~envs.scoring.scorer.score_win` value a Wuhan win from the winner's side
only: ``ScoreResult.multiplier`` = base × M(W), with base = ``wuhan_small_base`` (小胡) or ``wuhan_big_base`` per big
win, and M(W) = F(W) × [2 if self-draw] × [2 if 硬胡] × [2 if small win by the dealer].  What each loser pays also
depends on the loser (AMB-77: every player's own 开口/杠 factors sit on their own side), so it is computed here:

    M(L)   = F(L) × [2 if L dealt in (放冲: discarded the winning tile, or had the robbed 蓄杠)] × [2 if small win and L
             is the dealer]
    raw(L) = base × M(W) × M(L)
    F(X)   = open(X) × angang^#暗杠 × minggang^#明杠 × hongzhong^#红中杠 × laizi^#赖子杠     (``wuhan_*_factor``)
             open(X) = 2 if X has a chi/pong/明杠 (开口翻) | 2^#open melds (口口翻) | 1 otherwise

Caps (:func:`apply_wuhan_caps`, ``wuhan_caps`` = [封顶, 金顶, 钻顶], ``wuhan_cap_thresholds``): when every loser's raw
amount reaches the 钻顶 threshold each pays the 钻顶 amount, else when all reach the 金顶 threshold each pays the 金顶
amount, else each pays ``min(raw, 封顶)``.  承包 liability (:func:`wuhan_settlement`): one loser pays the sum of the
capped amounts and the others pay nothing — (1) the loser who dealt in to a 全求人 while not ready, (2) for a
清一色, the loser who supplied the tile of the winner's third open meld, (3) the loser whose 蓄杠 was robbed; the
first rule that applies decides.

>>> laizi_of(13), laizi_of(30), laizi_of(31), laizi_of(8)  # 5p -> 6p, 北 -> 发, 中 -> 发, 9m -> 1m
(14, 32, 32, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED
from envs.scoring.patterns import WUHAN

if TYPE_CHECKING:  # pragma: no cover
    from envs.scoring.scorer import ScoreResult

__all__ = [
    "WuhanSide",
    "apply_wuhan_caps",
    "laizi_indicators",
    "laizi_of",
    "wuhan_factor",
    "wuhan_loser_multiplier",
    "wuhan_settlement",
]

_HONOR_NEXT = {27: 28, 28: 29, 29: 30, 30: 32, 31: 32, 32: 33, 33: 27}
"""Honor successor: 东→南→西→北→发→白→东, skipping 中 (中 → 发)."""


def laizi_of(indicator: int) -> int:
    """赖子 of a flipped indicator: the next rank in its suit (9 wraps to 1) or the next honor skipping 中."""
    if isinstance(indicator, bool) or not isinstance(indicator, int) or not 0 <= indicator < NUM_KINDS:
        raise ValueError(f"赖子 indicator must be a tile kind 0-33, got {indicator!r}")
    if indicator < NUM_SUITED:
        suit, rank = divmod(indicator, 9)
        return suit * 9 + (rank + 1) % 9
    return _HONOR_NEXT[indicator]


def laizi_indicators(laizi: int) -> tuple[int, ...]:
    """Indicators whose 赖子 is ``laizi`` (发 has two: 北 and 中).  红中 is never a 赖子: ``ValueError``."""
    if isinstance(laizi, bool) or not isinstance(laizi, int) or not 0 <= laizi < NUM_KINDS:
        raise ValueError(f"赖子 must be a tile kind 0-33, got {laizi!r}")
    if laizi == RED:
        raise ValueError("红中 (5z) is never the 赖子: the successor rule skips 中")
    return tuple(k for k in range(NUM_KINDS) if laizi_of(k) == laizi)


@dataclass(frozen=True, slots=True)
class WuhanSide:
    """One loser at a Wuhan win: their own factors and role (AMB-77).

    ``melds``: the loser's melds (chi/pong/明杠 open the hand; 暗杠, 明杠 multiply).  ``red_kongs`` / ``laizi_kongs``:
    红中杠 / 赖子杠 the loser made this hand.  ``is_dealer``: x2 on a small win.  ``discarded``: the loser discarded the
    winning tile (放冲, x2).  ``kong_robbed``: the winner robbed this loser's 蓄杠 (counts as dealing in, x2, and makes
    the loser liable).  ``ready``: whether the loser was ready (听牌) when dealing in (承包 for 全求人 needs not ready).
    ``fed_third_meld``: the loser supplied the tile of the winner's third open meld (承包 for 清一色).
    """

    melds: tuple[Meld, ...] = ()
    red_kongs: int = 0
    laizi_kongs: int = 0
    is_dealer: bool = False
    discarded: bool = False
    kong_robbed: bool = False
    ready: bool = True
    fed_third_meld: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "melds", tuple(self.melds))
        for meld in self.melds:
            if not isinstance(meld, Meld):
                raise ValueError(f"WuhanSide.melds must hold Meld values, got {meld!r}")
            if meld.kind is MeldKind.FEI:
                raise ValueError("a fei (飞) meld does not exist in Wuhan")
        for name in ("red_kongs", "laizi_kongs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 4:
                raise ValueError(f"WuhanSide.{name} must be an integer 0-4, got {value!r}")
        for name in ("is_dealer", "discarded", "kong_robbed", "ready", "fed_third_meld"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"WuhanSide.{name} must be True or False, got {getattr(self, name)!r}")

    @property
    def dealt_in(self) -> bool:
        """放冲: discarded the winning tile or had the robbed kong."""
        return self.discarded or self.kong_robbed


def wuhan_factor(cfg: RuleConfig | str, melds: Sequence[Meld] = (), red_kongs: int = 0, laizi_kongs: int = 0) -> int:
    """F(X) of one player: open factor × 暗杠, 明杠, 红中杠 and 赖子杠 factors (RULES.md §4.8.3)."""
    cfg = load_variant(cfg)
    open_count = sum(1 for m in melds if not m.is_concealed)
    if cfg.wuhan_open_mode == "kaikou":
        factor = 2 if open_count else 1
    else:
        factor = 1 << open_count
    for meld in melds:
        if meld.kind is MeldKind.ANKONG:
            factor *= cfg.wuhan_angang_factor
        elif meld.kind in (MeldKind.KONG, MeldKind.BUKONG):
            factor *= cfg.wuhan_minggang_factor
    factor *= cfg.wuhan_hongzhong_gang_factor**red_kongs
    factor *= cfg.wuhan_laizi_gang_factor**laizi_kongs
    return factor


def wuhan_loser_multiplier(cfg: RuleConfig | str, side: WuhanSide, *, small_win: bool) -> int:
    """M(L) = F(L) × [2 if L dealt in] × [2 if small win and L is the dealer]."""
    cfg = load_variant(cfg)
    m = wuhan_factor(cfg, side.melds, side.red_kongs, side.laizi_kongs)
    if side.dealt_in:
        m *= 2
    if small_win and side.is_dealer:
        m *= 2
    return m


def _reaches(cfg: RuleConfig, value: int, threshold: int) -> bool:
    return value >= threshold if cfg.wuhan_cap_threshold_inclusive else value > threshold


def apply_wuhan_caps(cfg: RuleConfig | str, raws: Sequence[int], *, tiers: bool = True) -> list[int]:
    """Capped amounts of the losers' raw amounts (封顶 / 金顶 / 钻顶, applied to all of them together).

    ``tiers = False`` applies only the plain cap (used when not every loser pays by factors).
    """
    cfg = load_variant(cfg)
    cap, gold, diamond = cfg.wuhan_caps
    gold_at, diamond_at = cfg.wuhan_cap_thresholds
    raws = list(raws)
    if any(isinstance(r, bool) or not isinstance(r, int) or r < 0 for r in raws):
        raise ValueError(f"raw amounts must be non-negative integers, got {raws!r}")
    if tiers and raws:
        if all(_reaches(cfg, r, diamond_at) for r in raws):
            return [diamond] * len(raws)
        if all(_reaches(cfg, r, gold_at) for r in raws):
            return [gold] * len(raws)
    return [min(r, cap) for r in raws]


def wuhan_settlement(cfg: RuleConfig | str, result: ScoreResult, losers: Sequence[WuhanSide]) -> list[int]:
    """What each loser pays (in points of ``base_unit``) for one Wuhan win, caps and 承包 liability applied.

    ``result``: the winner's :class:`~envs.scoring.scorer.ScoreResult` from the ``wuhan`` table (its ``multiplier`` is
    base × M(W)); ``losers``: the other players in any order (the answer follows that order).  All losers pay
    (``wuhan_discard_all_pay``, AMB-64); with ``wuhan_discard_all_pay = false`` a discard win is paid as in E3: a
    small win by the dealer-in only, a big win by the dealer-in as usual and by the others at ``wuhan_big_base`` ×
    M(W) × M(L) (陪冲); either way only the plain cap applies, never 金顶 / 钻顶 (RULES §7.8 W2's note).
    """
    cfg = load_variant(cfg)
    if cfg.fan_table != "wuhan":
        raise ValueError(f"wuhan_settlement needs fan_table 'wuhan', got {cfg.fan_table!r}")
    if not result.is_win:
        raise ValueError("wuhan_settlement needs a winning ScoreResult (is_win = True)")
    breakdown = result.breakdown
    base_names = {fan.name for fan in WUHAN.base} | {"ping_hu"}
    known = base_names | {fan.name for fan in WUHAN.bonus} | {"zhuang_jia"}
    base = sum(v for name, v in breakdown.items() if name in base_names)
    doublings = sum(v for name, v in breakdown.items() if name not in base_names)
    if set(breakdown) - known or base <= 0 or result.multiplier != base << doublings:
        raise ValueError("the ScoreResult does not come from the wuhan table (no base x M(W) multiplier)")
    losers = list(losers)
    if len(losers) != cfg.num_players - 1:
        raise ValueError(f"a Wuhan win has {cfg.num_players - 1} losers, got {len(losers)}")
    if any(not isinstance(side, WuhanSide) for side in losers):
        raise ValueError("losers must be WuhanSide values")
    dealt = [i for i, side in enumerate(losers) if side.dealt_in]
    if len(dealt) > 1:
        raise ValueError(f"only one loser can deal in (discarded or kong_robbed), got losers {dealt}")
    if sum(side.is_dealer for side in losers) > 1:
        raise ValueError("at most one loser is the dealer")
    if sum(side.fed_third_meld for side in losers) > 1:
        raise ValueError("only one loser can have supplied the winner's third open meld")
    small = "ping_hu" in breakdown
    winner_m = 1 << result.doublings
    discard_win = bool(dealt)
    e3_discard = discard_win and not cfg.wuhan_discard_all_pay  # RULES §7.8 W2's note: the plain cap only
    raws = []
    for i, side in enumerate(losers):
        m_loser = wuhan_loser_multiplier(cfg, side, small_win=small)
        raw = result.multiplier * m_loser
        if e3_discard and i not in dealt:
            raw = 0 if small else cfg.wuhan_big_base * winner_m * m_loser
        raws.append(raw)
    amounts = apply_wuhan_caps(cfg, raws, tiers=not e3_discard)
    liable = _liable(breakdown, losers, dealt)
    if liable is not None:
        total = sum(amounts)
        amounts = [total if i == liable else 0 for i in range(len(losers))]
    return [a * cfg.base_unit for a in amounts]


def _liable(breakdown: dict[str, int], losers: list[WuhanSide], dealt: list[int]) -> int | None:
    """Index of the loser under 承包 (rules 1-3 of §4.8.3, first match), or None."""
    if "quan_qiu_ren" in breakdown and dealt and not losers[dealt[0]].ready:
        return dealt[0]
    if "qing_yi_se" in breakdown:
        fed = [i for i, side in enumerate(losers) if side.fed_third_meld]
        if fed:
            return fed[0]
    robbed = [i for i, side in enumerate(losers) if side.kong_robbed]
    if robbed:
        return robbed[0]
    return None
