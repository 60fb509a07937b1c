"""Hand values for the value-seeking agents (番数估计): plan values, wait values and completion probabilities.

* :class:`VariantValues` — what each *plan* is worth in a variant, measured once by scoring canonical example
  hands with :func:`envs.scoring.scorer.score_hand` (so every fan table, cap and non-stacking rule is the scorer's own):
  ``base`` (平胡), ``flush`` (清一色), ``pairs`` (七对), ``triplets`` (对对胡) and the flush composites (清七对, 清对),
  plus the 杀鬼 (hard win) bonus of the 红中 table.  Roots (根) add one doubling each.
* :meth:`VariantValues.simples_bonus` — the doublings 断幺九 (all simples) adds to a hand, where the scorer pays it.
* :func:`wait_payments` — the exact discard-win payment of each wait of a ready hand (cached).
* :func:`win_value` — the expected income of a win worth a payment ``m`` (self-draw share, payers, 加底/加番).
* :func:`completion_probability` — the chance to make ``shanten + 1`` useful draws before the wall runs out,
  a binomial tail with a per-draw success rate ``useful / unseen``.
* 武汉 Wuhan (RULES.md §4.8.3) is priced from its own spec, not from canonical hands (a closed hand never wins
  there): a plan's "doublings" are ``log2`` of the winner's side of ``base × M(W)`` — 开口 ×2 (a win needs an open
  meld) and 硬胡 ×2 (a hand holding a 赖子 is priced soft: ``shagui`` = 1), a small win ``wuhan_small_base``, each
  big win (清一色, 碰碰胡 ...) ``wuhan_big_base`` (two big wins add up); the winner's own 杠 / 红中杠 / 赖子杠 factors
  multiply every plan alike and are left out.  A payment is per loser: ``WUHAN_LOSER_FACTOR`` × ``2^d`` (the
  loser's own factors: a typical loser has opened, ×2, and made one kong or 红中杠, ×2), capped at the 封顶
  ``wuhan_caps[0]``; a self-draw doubles it (``zimo_bonus = "factor"``) and every loser pays, a discard win
  doubles the discarder's share and, with ``wuhan_discard_all_pay``, the others pay too.
  :func:`wuhan_wait_payments` prices each wait of a ready hand with the engine's scorer (big wins and 硬胡 exact).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS
from envs.scoring.scorer import ScoreResult, WinContext, score_hand, score_win
from envs.scoring.wuhan_settlement import wuhan_factor

__all__ = [
    "VariantValues",
    "completion_probability",
    "discard_win_income",
    "own_melds",
    "wait_payments",
    "win_value",
    "wuhan_wait_payments",
]

SELF_DRAW_SHARE = 0.4
"""Rough share of wins that are self-drawn (used to weigh 自摸 income against discard wins)."""

_CANONICAL: dict[str, tuple[str, str]] = {
    # plan -> (13 concealed tiles, winning tile); void suit 条 (s), won on a discard, no roots
    "base": ("123m 456m 789m 234p 5p", "5p"),
    "flush": ("123m 456m 789m 234m 6m", "6m"),
    "pairs": ("11m 33m 55m 77m 22p 44p 6p", "6p"),
    "triplets": ("111m 555m 999m 444p 7p", "7p"),
    "flush_pairs": ("11m 33m 55m 77m 22m 44m 6m", "6m"),
    "flush_triplets": ("111m 555m 999m 444m 7m", "7m"),
    "base_wild": ("123m 456m 789m 23p 5p 5z", "5p"),
    "simples": ("234m 456m 678m 234p 5p", "5p"),
}


@dataclass(frozen=True)
class VariantValues:
    """Doublings of each plan in one variant and the payment rule (see the module docstring)."""

    doublings: dict[str, int]
    shagui: int  # doublings lost when the winning hand holds a 红中 (杀鬼 / hard-win bonus), 0 elsewhere
    mahjongsoul: bool
    base_unit: int
    cap_payment: float
    zimo_bonus: str
    allow_pinghu_on_discard: bool
    unit: float = 1.0  # payment of 0 doublings in base units (Wuhan: the typical loser factor, else 1)
    ron_all_pay: bool = False  # every loser pays on a discard win, the discarder double (Wuhan)

    @classmethod
    def of(cls, cfg: RuleConfig) -> VariantValues:
        """Measure the plan values of ``cfg`` (cached per configuration)."""
        return _values(cfg)

    def payment(self, doublings: int) -> float:
        """Payment per payer of a discard win worth ``doublings`` (han in 赤羽), capped like the scorer."""
        if self.mahjongsoul:
            return float(min(self.base_unit * 2 ** max(doublings - 1, 0), self.cap_payment))
        return float(min(self.unit * 2**doublings, self.cap_payment))

    def simples_bonus(self) -> int:
        """Doublings that 断幺九 (all simples, every tile rank 2-8) adds to a hand, measured on the canonical hands: 1
        in 红中, 0 where the fan table does not score it (成都's default) and where the canonical 14-tile hands cannot
        measure it (断卡根's 10-tile hands, although its table pays 断幺九; 武汉, priced from its own spec)."""
        return max(0, self.doublings.get("simples", 0) - self.doublings["base"])

    def plan_doublings(self, plan: str, *, flush: bool, roots: int, wild: bool) -> int:
        """Doublings of ``plan`` ("base", "pairs", "triplets" or "flush"), made a full flush when ``flush``."""
        key = plan
        if flush and plan in ("pairs", "triplets"):
            key = "flush_" + plan
        elif flush and plan == "base":
            key = "flush"
        d = self.doublings[key] + roots
        if wild:
            d -= self.shagui
        return d


_DEFAULT_DOUBLINGS = {
    "base": 0,
    "flush": 2,
    "pairs": 2,
    "triplets": 1,
    "flush_pairs": 4,
    "flush_triplets": 3,
    "simples": 0,
}
"""Chengdu values, used for a plan the variant's scorer cannot value from the canonical 14-tile hands (e.g. the
10-tile hands of 断卡根)."""


def _canonical_doublings(cfg: RuleConfig, plan: str) -> int | None:
    tiles, win = _CANONICAL[plan]
    extra = {"benjin": "5s"} if cfg.wild == "tingyong" else {}  # 听用 4s/6s: outside the canonical hands
    try:
        r = score_hand(cfg, tiles, [], win, void_suit="s" if cfg.dingque and "s" in cfg.suits else None, **extra)
    except ValueError:
        return None
    return int(r.doublings) if r.is_win and r.doublings is not None else None


WUHAN_LOSER_FACTOR = 4.0
"""Typical own factor of a Wuhan loser (×2 开口, ×2 for one kong / 红中杠): the unit of a Wuhan payment."""


def _wuhan_values(cfg: RuleConfig) -> VariantValues:
    """Plan values of the Wuhan fan table (RULES.md §4.8.3; see the module docstring)."""
    base = 2.0  # 开口 ×2 and 硬胡 ×2 on the winner's side
    big = math.log2(cfg.wuhan_big_base / cfg.wuhan_small_base)
    two_big = math.log2(2 * cfg.wuhan_big_base / cfg.wuhan_small_base)
    doublings = {
        "base": base,
        "flush": base + big,  # 清一色
        "triplets": base + big,  # 碰碰胡
        "flush_triplets": base + two_big,  # both
        "pairs": base,  # seven pairs never wins in Wuhan (the plan is off there)
        "flush_pairs": base,
    }
    return VariantValues(
        doublings=doublings,
        shagui=1,  # 软胡 loses the 硬胡 doubling
        mahjongsoul=False,
        base_unit=cfg.base_unit,
        cap_payment=float(cfg.wuhan_caps[0]),
        zimo_bonus=cfg.zimo_bonus,
        allow_pinghu_on_discard=True,
        unit=WUHAN_LOSER_FACTOR * cfg.wuhan_small_base,
        ron_all_pay=cfg.wuhan_discard_all_pay,
    )


@lru_cache(maxsize=32)
def _values(cfg: RuleConfig) -> VariantValues:
    if cfg.fan_table == "wuhan":
        return _wuhan_values(cfg)
    doublings = {}
    measured = cfg.hand_size == 13 and all(s in cfg.suits for s in "mp")
    for plan, default in _DEFAULT_DOUBLINGS.items():
        d = _canonical_doublings(cfg, plan) if measured else None
        doublings[plan] = default if d is None else d
    shagui = 0
    if cfg.wild == "hongzhong" and measured:
        d = _canonical_doublings(cfg, "base_wild")
        if d is not None:
            shagui = max(0, doublings["base"] - d)
    mahjongsoul = cfg.fan_table == "mahjongsoul"
    if mahjongsoul:
        cap = float(cfg.point_cap)
    elif cfg.cap_doublings is None:
        cap = math.inf
    else:
        cap = float(2**cfg.cap_doublings)
    return VariantValues(
        doublings=doublings,
        shagui=shagui,
        mahjongsoul=mahjongsoul,
        base_unit=cfg.base_unit,
        cap_payment=cap,
        zimo_bonus=cfg.zimo_bonus,
        allow_pinghu_on_discard=cfg.allow_pinghu_on_discard,
    )


def win_value(values: VariantValues, payment: float, payers: int, *, pinghu: bool = False) -> float:
    """Expected income of a win whose discard-win payment is ``payment``: a self-draw (share
    :data:`SELF_DRAW_SHARE`) is paid by ``payers`` players with the variant's bonus, a discard win by one (in
    Wuhan by every loser, the discarder double)."""
    if values.zimo_bonus in ("jiafan", "factor"):  # +1 doubling / Wuhan's self-draw ×2 on the winner's side
        zimo = min(2 * payment, values.cap_payment) if not values.mahjongsoul else 2 * payment
    elif values.zimo_bonus == "jiadi":
        zimo = payment + (values.base_unit if values.mahjongsoul else 1)
    else:
        zimo = payment
    ron = 0.0 if pinghu and not values.allow_pinghu_on_discard else discard_win_income(values, payment, payers)
    return SELF_DRAW_SHARE * zimo * max(payers, 1) + (1.0 - SELF_DRAW_SHARE) * ron


def discard_win_income(values: VariantValues, payment: float, payers: int) -> float:
    """Income of a discard win (点炮) whose payment is ``payment``: the discarder's, in Wuhan every loser's (the
    discarder double)."""
    if values.ron_all_pay and payers:
        return min(2 * payment, values.cap_payment) + (payers - 1) * payment
    return payment


TYPICAL_USEFUL: dict[str, tuple[int, ...]] = {
    # live useful tiles a hand of each plan typically has at shanten 0, 1, 2, 3, 4+ (two suits after 定缺)
    "standard": (5, 15, 27, 40, 50),
    "flush": (5, 12, 18, 24, 28),
    "pairs": (3, 8, 13, 18, 22),
    "triplets": (4, 8, 12, 16, 20),
}
"""Useful-tile counts assumed for the steps after the first (the first step uses the hand's real count)."""

RON_SHARE = 0.6
"""How much one opponent discard is worth compared with an own draw when waiting (discards are not random)."""


def completion_probability(
    shanten: int,
    useful: float,
    unseen: int,
    draws: float,
    *,
    plan: str = "standard",
    claim_seats: int = 0,
    claims_every_step: bool = False,
    extra: float = 0.0,
    hazard: float = 0.0,
) -> float:
    """Chance to complete a hand ``shanten`` steps from ready within ``draws`` own turns.

    Each own turn the current step succeeds with probability ``useful / unseen``; the first step uses the hand's
    ``useful`` count, later steps the plan's :data:`TYPICAL_USEFUL`.  On the final step (waiting) the discards of
    ``claim_seats`` opponents also count, each worth :data:`RON_SHARE` of a draw; with ``claims_every_step``
    (all-triplets plans: pongs) they count on every step.  ``extra`` useful tiles (live wildcards) help every
    step.  ``hazard`` is the chance per turn that the hand ends before the
    agent completes (an opponent's win ends a two-player hand).  Computed exactly over the turns (small dynamic
    program).
    """
    if shanten < 0:
        return 1.0
    n = int(draws)
    if n <= 0 or unseen <= 0:
        return 0.0
    typical = TYPICAL_USEFUL.get(plan, TYPICAL_USEFUL["standard"])
    rates = []
    for level in range(shanten, -1, -1):
        u = useful if level == shanten else typical[min(level, len(typical) - 1)]
        p = min(0.95, (u + extra) / unseen)
        trials = 1.0 + (RON_SHARE * claim_seats if level == 0 or claims_every_step else 0.0)
        rates.append(1.0 - (1.0 - p) ** trials)
    # dist[j] = probability that j steps are done
    steps = len(rates)
    dist = [1.0] + [0.0] * steps
    keep = 1.0 - hazard
    for _ in range(n):
        done = dist[steps]
        for j in range(steps - 1, -1, -1):
            moved = dist[j] * rates[j]
            dist[j] -= moved
            dist[j + 1] += moved
        if hazard:
            for j in range(steps):
                dist[j] *= keep
        if dist[steps] - done < 1e-9 and (dist[steps] > 0.999 or sum(dist[:steps]) < 1e-6):
            break
    return dist[steps]


def own_melds(pongs: list[int], kongs: list[int]) -> tuple[Meld, ...]:
    """Meld objects of the observer's own pongs and kongs (kong types do not change any preset's value)."""
    return tuple(Meld(MeldKind.PONG, k) for k in pongs) + tuple(Meld(MeldKind.KONG, k) for k in kongs)


_SCORE_CACHE: dict[tuple, ScoreResult | None] = {}


def _score_wait(
    cfg: RuleConfig, hand: list[int], melds: tuple[Meld, ...], t: int, void: int | None, indicator: int | None
) -> ScoreResult | None:
    """The engine scorer's result for the ready ``3k+1`` hand ``hand`` completed by a discarded ``t`` (memoised);
    None when ``t`` would be a fifth copy or the scorer needs context the observation lacks."""
    key = (cfg, bytes(hand), melds, void, indicator, t)
    if key in _SCORE_CACHE:
        return _SCORE_CACHE[key]
    counts = list(hand)
    counts[t] += 1
    result = None
    if counts[t] <= 4 and len(counts) == NUM_KINDS:
        try:
            result = score_win(cfg, WinContext(tuple(counts), t, melds, void_suit=void, indicator=indicator))
        except ValueError:  # a variant whose scorer needs context the observation lacks
            result = None
    if len(_SCORE_CACHE) > 200_000:
        _SCORE_CACHE.clear()
    _SCORE_CACHE[key] = result
    return result


def wait_payments(
    cfg: RuleConfig,
    hand: list[int],
    melds: tuple[Meld, ...],
    void: int | None,
    waits: tuple[int, ...],
    *,
    indicator: int | None = None,
) -> dict[int, float]:
    """Discard-win payment of each wait ``t`` of the ready ``3k+1`` hand ``hand`` (34 counts, wildcards included).

    A wait that does not score as a win (e.g. a dead pattern) gets 0.
    """
    out = {}
    for t in waits:
        r = _score_wait(cfg, hand, melds, t, void, indicator)
        out[t] = float(r.payment) if r is not None and r.is_win else 0.0
    return out


def wuhan_wait_payments(
    cfg: RuleConfig,
    values: VariantValues,
    hand: list[int],
    melds: tuple[Meld, ...],
    waits: tuple[int, ...],
    *,
    indicator: int | None,
) -> dict[int, float]:
    """Wuhan: the per-loser payment (:meth:`VariantValues.payment` scale) of a discard win on each wait of the ready
    ``3k+1`` hand ``hand`` (34 physical counts, 赖子 included), priced by the engine's scorer: the winner's
    ``base × M(W)`` without its own kong factors (big wins, 硬胡 and the dealer's small-win ×2 exact).

    A wait that is not a win is 0 (no 2-5-8 pair for a small win, too many 赖子); while the hand has no open meld
    (开口, required to win) every wait that the scorer refuses only for that reason is priced as a small soft win.
    """
    out = {}
    own = wuhan_factor(cfg, melds)
    open_factor = 2 if own > 1 and any(not m.is_concealed for m in melds) else 1
    for t in waits:
        r = _score_wait(cfg, hand, melds, t, None, indicator)
        pay = 0.0
        if r is not None and r.is_win:
            m = r.multiplier / own * open_factor  # base × 开口 × 硬胡 (× dealer small win)
            pay = float(min(values.unit * m / cfg.wuhan_small_base, values.cap_payment))
        elif r is not None and r.reason == "not_open":
            pay = values.payment(values.doublings["base"] - values.shagui)
        out[t] = pay
    return out
