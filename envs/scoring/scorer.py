"""Scoring (计分): the value and payment of one win (RULES.md §2.11.1, §2.13, §4, §10).

Public API
----------
``score_hand(variant, concealed, melds, win_tile, *, self_drawn, void_suit, after_kong, robbing_kong, last_tile,
benjin) -> ScoreResult`` scores one win given as strings; it validates the input (``ValueError`` naming the problem)
and calls :func:`score_win`, the engine's entry point, which takes a :class:`WinContext` of counts and structured
:class:`~envs.core.melds.Meld` values (defined in :mod:`envs.core.win_context`, re-exported here).  Engine helpers:
:func:`can_win` (is this a legal win, fast), :func:`winning_tiles`, :func:`discard_values`,
:func:`best_discard_value` and :func:`chajiao_value` (查大叫 values), :func:`wild_kinds`.

How a win is scored (§2.13)
---------------------------
1. 四红中 (``hongzhong``, ``hz_four_red_instant``): four 红中 among the concealed tiles and the winning tile are an
   instant win worth a fixed ``hz_tiandihu_fixed`` (8) doublings whatever else the hand holds (payment 256).
2. A hand holding a tile of the declared void suit (concealed or melded) is not a win.  A wildcard cannot be won
   on a discard or a robbed kong (a discarded 红中 is dead, AMB-68; 听用 are never discarded).
3. Every interpretation — wildcard assignment × decomposition — is enumerated by :mod:`envs.scoring.interpret` and
   valued by the variant's fan table (:mod:`envs.scoring.patterns`); the best one counts (highest multiplier, then
   payment).
4. 天胡/地胡 (engine flags ``tianhu``/``dihu``) are fixed-value hands per ``tiandihu``: ``cap`` (天胡 = cap, 6
   doublings when uncapped; 地胡 one less = half), ``fixed8`` (``hz_tiandihu_fixed``), ``cap_plus_1``, ``fixed3``;
   a fixed hand replaces every other fan, is not capped and gets no self-draw bonus.  ``ms6`` is a 6-han *base
   pattern* of the Mahjong Soul table (its bonuses, the point cap and the tsumo bonus still apply).
5. Self-draw (§2.11.1): ``zimo_bonus = "jiafan"`` adds one doubling (breakdown ``zi_mo``); ``"jiadi"`` adds one
   base unit per payer after the cap (``zimo_jiadi_after_cap``; before it otherwise) — in Mahjong Soul
   ``tsumo_bonus_points``.  A 点杠花 paid as a discard (``WinContext.paid_as_discard``) gets no bonus.
6. Payment per payer at base 1 (``base_unit``, i.e. points in 赤羽): ``min(2^d, 2^cap_doublings)`` (+ 加底);
   Mahjong Soul: ``min(1000·2^(h-1), point_cap)`` (+ 1000 on tsumo).
7. ``allow_pinghu_on_discard = false`` (two-player): a hand worth 0 doublings won on a discard or a robbed kong is
   not a legal win.
8. 断卡根 (``dkg_wiki``, ``dkg_wanghu``; 10-tile hands): additive fan (网狐: the highest base + extras) including
   卡/硬卡, 报胡, 请胡 (``WinContext.qinghu``: the five pairs after the single is discarded), 请胡炮 and the payer's
   报胡 penalty; a hand without fan of its own (小胡) is refused (``reason = "min_fan"``) outside
   ``dkg_xiaohu_exceptions``; payment = tier units (``dkg_tier_units``; 网狐 2^(f-1) under ``cap_doublings``)
   × base, + ``dkg_zimo_units`` base per payer on a self-draw.  :func:`dkg_payments` prices every payer.
9. Wuhan (``wuhan``): no win while holding 红中 or before opening (开口); no seven pairs; 将一色/风一色 also in any
   arrangement (乱将/乱风); small wins need a 2-5-8 pair and at most one 赖子; big wins add 10 each; the result
   carries base × M(W) of the winner and :func:`envs.scoring.wuhan_settlement.wuhan_settlement` turns it into per-loser
   amounts.

``ScoreResult.doublings`` is the uncapped total in the table's unit: doublings, han for ``mahjongsoul``, bonus
doublings for ``wiki_xueliu`` (whose base is an S2 multiplier, see ``multiplier``).  ``breakdown`` maps the pattern
keys of :data:`envs.scoring.patterns.PATTERN_NAMES_ZH` to their values; for doubling and han tables they sum to
``doublings``.

>>> r = score_hand("chengdu", "345m 678s 789s 2s", ["pong 5m"], "2s", self_drawn=True, void_suit="p")
>>> r.doublings, r.payment, r.breakdown
(1, 3, {'ping_hu': 0, 'gen': 1})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from envs.core.melds import Meld, MeldKind, parse_meld
from envs.core.rule_config import DKG_TABLES, RuleConfig, load_variant
from envs.core.tiles import COPIES, NUM_KINDS, NUM_SUITED, RED, kind_of, parse_tiles, tile_code
from envs.core.win_context import WinContext, check_dkg_flags, check_flags
from envs.scoring.interpret import HandSpec, Interpretation, Shape, interpretations, is_complete, uniform_reading
from envs.scoring.patterns import FAN_TABLES, PATTERN_NAMES_ZH, FanTable, PatternContext, Valuation, evaluate
from envs.scoring.wuhan_settlement import apply_wuhan_caps, laizi_indicators, laizi_of

SUIT_LETTER_TO_INDEX = {"m": 0, "p": 1, "s": 2}


# ---- data types ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """Value of one win.

    ``doublings``: uncapped total (doublings; han in 赤羽), None when not a win.  ``payment``: what each payer pays at
    base 1 (cap and self-draw bonus applied; 赤羽: points), 0 when not a win.  ``breakdown``: pattern key -> value.
    ``multiplier``: raw uncapped multiplier of the base unit.  ``capped``: the cap lowered the payment.
    ``fixed``: name of a fixed-value hand (``si_hong_zhong``, ``tian_hu``, ``di_hu``) or None.
    ``interpretation``: the chosen reading (None for fixed hands that need none, and for non-wins).
    ``reason``: why a hand is not a win (``"incomplete"``, ``"void_suit"``, ``"wild_not_claimable"``,
    ``"min_fan_on_discard"``; 断卡根 ``"min_fan"`` (小胡); Wuhan ``"hongzhong_in_hand"``, ``"not_open"``,
    ``"small_win_pair"``, ``"small_win_laizi"``), else ``""``.

    断卡根: ``doublings`` is the fan total (with the payer's 报胡 penalty when ``payer_baohu``), ``multiplier`` its
    tier units (网狐: 2^(f-1)), ``payment`` = units × base (+ ``dkg_zimo_units`` base on a self-draw); ``capped`` when
    the fan passes the top tier.  Wuhan: ``multiplier`` = base × M(W) (``doublings`` = the winner's factor doublings,
    the breakdown lists the base rows in points and the factors in doublings); ``payment`` is what each loser pays
    when no loser has factors of their own or dealt in — the caps of
    :func:`envs.scoring.wuhan_settlement.apply_wuhan_caps` applied to three equal raw amounts (so 金顶/钻顶 apply) — and
    the real per-loser amounts come from
    :func:`envs.scoring.wuhan_settlement.wuhan_settlement`.
    """

    is_win: bool
    doublings: int | None
    payment: int
    breakdown: dict[str, int] = field(default_factory=dict)
    multiplier: int = 0
    capped: bool = False
    fixed: str | None = None
    interpretation: Interpretation | None = None
    reason: str = ""

    @property
    def breakdown_zh(self) -> dict[str, int]:
        """The breakdown with Chinese pattern names."""
        return {PATTERN_NAMES_ZH.get(k, k): v for k, v in self.breakdown.items()}


def _no_win(reason: str) -> ScoreResult:
    return ScoreResult(False, None, 0, {}, reason=reason)


# ---- wildcards -------------------------------------------------------------------------------------------------


def tingyong_kinds(benjin: int, count: int = 8) -> tuple[int, int]:
    """听用 of a Yibin 本金 kind: its rank neighbours in the same suit, wrapping 1<->9 (5s -> 4s, 6s; 1m -> 2m, 9m)."""
    if not isinstance(benjin, int) or not 0 <= benjin < NUM_SUITED:
        raise ValueError(f"本金 must be a suited tile (1m-9s), got {benjin!r}")
    if count != 8:
        raise ValueError(f"yibin_tingyong_count = {count} is not supported by the scorer; only 8 (the two neighbours)")
    suit, rank = divmod(benjin, 9)
    return tuple(sorted((suit * 9 + (rank - 1) % 9, suit * 9 + (rank + 1) % 9)))  # type: ignore[return-value]


def wild_kinds(cfg: RuleConfig, indicator: int | None = None) -> tuple[int, ...]:
    """Kinds acting as wildcards in this hand: (31,) for 红中, the 听用 pair for Yibin, the 赖子 for Wuhan, ()."""
    if cfg.wild == "none":
        return ()
    if cfg.wild == "hongzhong":
        return (RED,)
    if cfg.wild == "tingyong":
        if indicator is None:
            raise ValueError(f"variant {cfg.name!r} needs the 本金 indicator tile (benjin=...) to know its 听用")
        return tingyong_kinds(indicator, cfg.yibin_tingyong_count)
    if indicator is None:
        raise ValueError(f"variant {cfg.name!r} needs the 赖子 indicator tile (WinContext.indicator) or laizi=...")
    return (laizi_of(indicator),)


def _allowed_mask(cfg: RuleConfig, void_suit: int | None) -> int:
    """Kinds a wildcard may represent: the variant's suited kinds outside the void suit (never 红中 itself).

    A Wuhan 赖子 may represent any kind of the variant except 中, honors and itself included.  Memoised on the
    fields it reads.
    """
    key = (cfg.suits, cfg.extra_tiles, cfg.wild, void_suit)
    mask = _ALLOWED_MASKS.get(key)
    if mask is None:
        if len(_ALLOWED_MASKS) >= 256:
            _ALLOWED_MASKS.clear()
        mask = _ALLOWED_MASKS[key] = _compute_allowed_mask(cfg, void_suit)
    return mask


_ALLOWED_MASKS: dict[tuple, int] = {}  # one entry per (tile set, wildcard rule, void suit): a handful in practice


def _compute_allowed_mask(cfg: RuleConfig, void_suit: int | None) -> int:
    mask = 0
    for k in cfg.kinds:
        if cfg.wild == "laizi":
            if k != RED:
                mask |= 1 << k
        elif k < NUM_SUITED and (void_suit is None or k // 9 != void_suit):
            mask |= 1 << k
    return mask


# ---- the engine entry point ------------------------------------------------------------------------------------


def _check_copies(counts: Sequence[int], ctx: WinContext, fifth_ok: bool) -> None:
    """No kind may appear more than four times among the concealed tiles, nor among them and the melds' tiles
    (wildcards held in melds count as their own kind); under ``fifth_ok`` the winning tile may be a fifth copy."""
    if not fifth_ok and max(counts) > COPIES:
        raise ValueError(f"WinContext.concealed counts must be 0-4, got {counts}")
    if not ctx.melds:
        return
    for k, n in enumerate(_own_copies(counts, ctx.melds)):
        if n > COPIES and not (fifth_ok and k == ctx.win_tile and n == COPIES + 1):
            raise ValueError(
                f"WinContext holds {n} copies of {tile_code(k)} in its concealed tiles and melds; a kind has 4 copies"
            )


def _prepare(cfg: RuleConfig, ctx: WinContext, *, fifth_ok: bool = False) -> ScoreResult | HandSpec:
    """Either a final answer (四红中, not a win) or the enumeration spec of the hand.

    ``fifth_ok``: the winning tile may be a fifth copy (查大叫 with ``ready_excludes_fifth_tile = false``).
    """
    _check_variant_context(cfg, ctx)
    wilds = wild_kinds(cfg, ctx.indicator)
    counts = ctx.concealed
    _check_copies(counts, ctx, fifth_ok)
    if sum(counts) + 3 * len(ctx.melds) != cfg.hand_size + 1:
        raise ValueError(
            f"a winning hand holds {cfg.hand_size + 1} tiles counting each meld as 3: got {sum(counts)} concealed "
            f"(including the winning tile) and {len(ctx.melds)} meld(s)"
        )
    if cfg.wild == "hongzhong" and cfg.hz_four_red_instant and counts[RED] >= 4:
        d = cfg.hz_tiandihu_fixed
        return ScoreResult(True, d, (1 << d) * cfg.base_unit, {"si_hong_zhong": d}, 1 << d, fixed="si_hong_zhong")
    wuhan = cfg.fan_table == "wuhan"
    if wuhan and counts[RED]:
        return _no_win("hongzhong_in_hand")
    claimable = cfg.wild == "hongzhong" and cfg.hz_red_discard_claimable and not ctx.robbing_kong
    if ctx.win_tile in wilds and not ctx.self_drawn and not claimable:
        return _no_win("wild_not_claimable")
    void = ctx.void_suit
    if void is not None:
        lo, hi = void * 9, void * 9 + 9
        if any(counts[k] for k in range(lo, hi) if k not in wilds):
            return _no_win("void_suit")
        if any(lo <= k < hi for m in ctx.melds for k in m.natural()) or any(
            lo <= m.tile < hi for m in ctx.melds if m.wilds
        ):
            return _no_win("void_suit")
    if wuhan and all(m.is_concealed for m in ctx.melds):
        return _no_win("not_open")
    naturals = list(counts)
    n_wild = 0
    own = [0] * NUM_KINDS
    for k in wilds:
        n_wild += naturals[k]
        own[k] = naturals[k]
        naturals[k] = 0
    pairs_only = 0
    if ctx.qinghu:
        odd = [k for k in range(NUM_KINDS) if naturals[k] % 2]
        if len(odd) != 1 or n_wild:
            return _no_win("incomplete")
        naturals[odd[0]] -= 1  # the single is discarded when 请胡 is announced
        pairs_only = (cfg.hand_size) // 2
    if cfg.fan_table == "yibin":
        marked = ctx.indicator
    elif wuhan:
        marked = wilds[0] if wilds else None
    else:
        marked = None
    table = FAN_TABLES[cfg.fan_table]
    return HandSpec(
        naturals=tuple(naturals),
        wilds=n_wild,
        melds=ctx.melds,
        allowed_mask=_allowed_mask(cfg, void) if wilds else 0,
        sets=(cfg.hand_size - 1) // 3,
        four_copy_limit=not cfg.wild_ignores_four_copy_limit,
        soft_gen=cfg.wild_counts_for_gen,
        marked_kind=marked,
        seven_pairs=not wuhan,
        flag_mask=table.reads,
        wild_own=tuple(own),
        pairs_only=pairs_only,
    )


def _check_variant_context(cfg: RuleConfig, ctx: WinContext) -> None:
    """Bad input: 断卡根 / Wuhan context flags outside their variant, impossible 请胡 / 报胡 combinations."""
    dkg = cfg.fan_table in DKG_TABLES
    if not dkg:
        for name in ("baohu", "qinghu", "on_qinghu_discard", "payer_baohu"):
            if getattr(ctx, name):
                raise ValueError(f"{name} is a 断卡根 flag (fan_table dkg_wiki / dkg_wanghu), not for {cfg.name!r}")
    if cfg.fan_table != "wuhan" and (ctx.red_kongs or ctx.laizi_kongs):
        raise ValueError(f"red_kongs / laizi_kongs (红中杠 / 赖子杠) exist only in Wuhan, not in {cfg.name!r}")
    if cfg.fan_table == "wuhan" and any(RED in m.represented() for m in ctx.melds):
        raise ValueError("红中 can never be ponged or konged in Wuhan (playing it out is a 红中杠)")
    if ctx.qinghu and ctx.melds:
        raise ValueError("请胡 (qinghu) needs a hand without melds: five pairs of concealed tiles")
    if ctx.baohu and ctx.qinghu and not cfg.dkg_erheyi:
        raise ValueError("报胡 cannot be combined with 请胡 (dkg_erheyi = false)")


def _fixed_hand(cfg: RuleConfig, ctx: WinContext) -> tuple[str, int] | None:
    """天胡/地胡 as a fixed-value hand per ``tiandihu`` (None when scored through the table or disabled)."""
    if not (ctx.tianhu or ctx.dihu) or cfg.tiandihu == "off":
        return None
    if FAN_TABLES[cfg.fan_table].own_tiandihu:
        return None
    name = "tian_hu" if ctx.tianhu else "di_hu"
    top = cfg.cap_doublings if cfg.cap_doublings is not None else 6
    mode = cfg.tiandihu
    if mode == "ms6":
        return None if cfg.fan_table == "mahjongsoul" else (name, 6)
    if mode == "cap":
        return name, top if ctx.tianhu else top - 1
    if mode == "fixed8":
        return name, cfg.hz_tiandihu_fixed
    if mode == "cap_plus_1":
        return name, top + 1
    return name, cfg.dkg_tiandihu_fixed  # "fixed3"


def _payment(cfg: RuleConfig, multiplier: int, zimo_units: bool, extra_units: int) -> tuple[int, bool]:
    """Per-payer payment (§2.11.1) and whether the cap bound."""
    unit = cfg.base_unit
    raw = multiplier * unit
    cap_amount: int | None = None
    if cfg.cap_doublings is not None:
        cap_amount = (1 << cfg.cap_doublings) * unit
    if cfg.fan_table == "mahjongsoul":
        cap_amount = cfg.point_cap if cap_amount is None else min(cap_amount, cfg.point_cap)
    capped = cap_amount is not None and raw > cap_amount
    value = min(raw, cap_amount) if cap_amount is not None else raw
    if zimo_units and cfg.zimo_bonus == "jiadi":
        bonus = cfg.tsumo_bonus_units
        if cfg.zimo_jiadi_after_cap or cap_amount is None:
            value += bonus
        else:
            value = min(raw + bonus, cap_amount)
    return value + extra_units * unit, capped


def _fixed_result(
    cfg: RuleConfig, name: str, value: int, interp: Interpretation | None, ctx: WinContext
) -> ScoreResult:
    table = FAN_TABLES[cfg.fan_table]
    if table.unit == "fan":  # 断卡根: the fixed fan (+ the payer's 报胡 penalty), paid by tier
        breakdown = {name: value}
        if ctx.payer_baohu and cfg.dkg_baohu_penalty:
            breakdown["bao_hu_fa"] = cfg.dkg_baohu_penalty
        total = sum(breakdown.values())
        assert table.price is not None
        units = table.price(cfg, total)
        payment, capped = _fan_payment(cfg, total, units, zimo=False)
        return ScoreResult(True, total, payment, breakdown, units, capped, fixed=name, interpretation=interp)
    multiplier = 1 << (value - 1 if cfg.fan_table == "mahjongsoul" else value)
    payment = multiplier * cfg.base_unit
    if cfg.fan_table == "mahjongsoul":
        payment = min(payment, cfg.point_cap)
    return ScoreResult(True, value, payment, {name: value}, multiplier, fixed=name, interpretation=interp)


def score_win(cfg: RuleConfig | str, ctx: WinContext) -> ScoreResult:
    """Score one win (the engine's entry point; see the module docstring for the rules applied)."""
    return _score(load_variant(cfg), ctx)


def _score(cfg: RuleConfig, ctx: WinContext, *, enforce_min: bool = True, four_copy_limit: bool = True) -> ScoreResult:
    prepared = _prepare(cfg, ctx, fifth_ok=not four_copy_limit)
    if isinstance(prepared, ScoreResult):
        return prepared
    spec = prepared if four_copy_limit else dataclasses.replace(prepared, four_copy_limit=False)
    readings = interpretations(spec)
    if cfg.fan_table == "wuhan":
        readings += _uniform_readings(spec)
    if not readings:
        return _no_win("incomplete")
    fixed = _fixed_hand(cfg, ctx)
    if fixed is not None:
        return _fixed_result(cfg, fixed[0], fixed[1], readings[0], ctx)
    table = FAN_TABLES[cfg.fan_table]
    wild_tiles = spec.wilds + sum(m.wilds for m in ctx.melds)
    zimo = ctx.self_drawn and not ctx.paid_as_discard
    best: tuple[tuple[int, int, int], ScoreResult] | None = None
    refused = ""
    for reading in readings:
        x = PatternContext(reading.shape, reading.flags, reading.gen, ctx, wild_tiles, spec.sets)
        val = evaluate(cfg, table, x)
        if val.reason:
            refused = refused or val.reason
            continue
        result = _priced(cfg, table, val, zimo, reading)
        key = (result.multiplier, result.payment, result.doublings or 0)
        if best is None or key > best[0]:
            best = (key, result)
    if best is None:
        return _no_win(refused)
    result = best[1]
    doubling_table = table.unit in ("doublings", "han", "multiplier")
    if (
        enforce_min
        and doubling_table
        and not cfg.allow_pinghu_on_discard
        and not ctx.self_drawn
        and result.multiplier < 2
    ):
        return _no_win("min_fan_on_discard")
    return result


def _uniform_readings(spec: HandSpec) -> list[Interpretation]:
    """Wuhan 乱将 / 乱风: the any-arrangement readings of 将一色 and 风一色 (when the hand qualifies)."""
    out = []
    for shape, kinds in ((Shape.LUAN_JIANG, _JIANG_KINDS), (Shape.LUAN_FENG, _FENG_KINDS)):
        reading = uniform_reading(spec, shape, kinds)
        if reading is not None:
            out.append(reading)
    return out


_JIANG_KINDS = frozenset(k for k in range(NUM_SUITED) if k % 9 in (1, 4, 7))
_FENG_KINDS = frozenset({27, 28, 29, 30, 32, 33})


def _fan_payment(cfg: RuleConfig, fan: int, units: int, *, zimo: bool) -> tuple[int, bool]:
    """断卡根 payment per payer: tier units (or 2^(f-1) under ``cap_doublings``) × base, + self-draw base units."""
    capped = False
    if cfg.fan_table == "dkg_wiki":
        capped = fan > len(cfg.dkg_tier_units)
    elif cfg.cap_doublings is not None and units > 1 << cfg.cap_doublings:
        units, capped = 1 << cfg.cap_doublings, True
    payment = units * cfg.base_unit
    if zimo and units and cfg.zimo_bonus == "jiadi":
        payment += cfg.tsumo_bonus_units
    return payment, capped


def _priced(cfg: RuleConfig, table: FanTable, val: Valuation, zimo: bool, reading: Interpretation) -> ScoreResult:
    doublings, multiplier, breakdown = val.doublings, val.multiplier, val.breakdown
    if table.unit == "fan":
        payment, capped = _fan_payment(cfg, doublings, multiplier, zimo=zimo)
        return ScoreResult(True, doublings, payment, breakdown, multiplier, capped, None, reading)
    if table.unit == "wuhan":
        amount = apply_wuhan_caps(cfg, [multiplier] * (cfg.num_players - 1))[0]
        return ScoreResult(True, doublings, amount * cfg.base_unit, breakdown, multiplier, amount != multiplier,
                           None, reading)  # fmt: skip
    if zimo and cfg.zimo_bonus == "jiafan":
        breakdown = {**breakdown, "zi_mo": 1}
        doublings += 1
        multiplier *= 2
    payment, capped = _payment(cfg, multiplier, zimo, val.extra_units)
    return ScoreResult(True, doublings, payment, breakdown, multiplier, capped, None, reading)


def can_win(cfg: RuleConfig | str, ctx: WinContext) -> bool:
    """Whether ``ctx`` is a legal win (structure, void suit, dead wildcards, two-player minimum); fast path cached."""
    cfg = load_variant(cfg)
    prepared = _prepare(cfg, ctx)
    if isinstance(prepared, ScoreResult):
        return prepared.is_win
    if not is_complete(prepared) and cfg.fan_table != "wuhan":
        return False
    if _has_win_rules(cfg):
        return _score(cfg, ctx).is_win
    if cfg.allow_pinghu_on_discard or ctx.self_drawn:
        return True
    return _score(cfg, ctx).is_win


def _has_win_rules(cfg: RuleConfig) -> bool:
    """Tables whose legality needs the fan evaluation (断卡根 小胡, Wuhan small-win rules and 乱将/乱风 shapes)."""
    return FAN_TABLES[cfg.fan_table].admits is not None or cfg.fan_table == "wuhan"


# ---- waits and 查大叫 values -------------------------------------------------------------------------------------


def _own_copies(concealed: Sequence[int], melds: Iterable[Meld]) -> list[int]:
    counts = list(concealed)
    for meld in melds:
        for k in meld.natural():
            counts[k] += 1
        for k in meld.wild_kinds:
            counts[k] += 1
    return counts


def _with_tile(concealed: Sequence[int], tile: int) -> tuple[int, ...]:
    counts = list(concealed)
    counts[tile] += 1
    return tuple(counts)


def winning_tiles(
    cfg: RuleConfig | str,
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    *,
    void_suit: int | None = None,
    indicator: int | None = None,
) -> tuple[int, ...]:
    """Kinds whose self-draw would complete the 13-equivalent hand ``concealed`` (34 physical counts).

    A kind of which the player already holds four copies (hand and melds) is skipped when
    ``ready_excludes_fifth_tile`` (AMB-74).  In 断卡根 and Wuhan a wait must make a *legal* self-draw win (the 小胡
    rule, the small-win pair and 赖子 rules, 开口, no 红中); a 报胡 player's waits are tested with :func:`can_win`
    and ``baohu=True``.
    """
    cfg = load_variant(cfg)
    own = _own_copies(concealed, melds)
    out = []
    for t in cfg.kinds:
        if own[t] >= COPIES and cfg.ready_excludes_fifth_tile:
            continue
        ctx = WinContext(
            _with_tile(concealed, t), t, tuple(melds), self_drawn=True, void_suit=void_suit, indicator=indicator
        )
        if _structural_win(cfg, ctx, fifth=own[t] >= COPIES):
            out.append(t)
    return tuple(out)


def _structural_win(cfg: RuleConfig, ctx: WinContext, *, fifth: bool = False) -> bool:
    if _has_win_rules(cfg):
        return _score(cfg, ctx, four_copy_limit=not fifth).is_win
    prepared = _prepare(cfg, ctx, fifth_ok=fifth)
    if isinstance(prepared, ScoreResult):
        return prepared.is_win
    if fifth:  # a fifth copy is only a shape question (虚听 with ready_excludes_fifth_tile = false)
        prepared = dataclasses.replace(prepared, four_copy_limit=False)
    return is_complete(prepared)


def discard_values(
    cfg: RuleConfig | str,
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    *,
    void_suit: int | None = None,
    indicator: int | None = None,
    is_dealer: bool = False,
    candidates: int | None = None,
) -> dict[int, ScoreResult]:
    """For every wait ``t`` of the 13-equivalent hand: its value as a plain discard win (查大叫, §2.11.2).

    No self-draw bonus and no situational fans; wildcard kinds are skipped (they cannot be won on a discard) and so
    are kinds held four times when ``ready_excludes_fifth_tile``.  The two-player minimum is not applied: readiness
    is a question of shape (a 平胡 wait is worth 1).  ``candidates``: a bitmask of the kinds worth scoring (a
    superset of the waits, e.g. from :func:`envs.scoring.judge.waits_mask`; a kind held four times is tried anyway, as a
    shape mask leaves it out); default every kind.
    """
    cfg = load_variant(cfg)
    wilds = wild_kinds(cfg, indicator)
    own = _own_copies(concealed, melds)
    out: dict[int, ScoreResult] = {}
    for t in cfg.kinds:
        if t in wilds:
            continue
        fifth = own[t] >= COPIES
        if fifth and cfg.ready_excludes_fifth_tile:
            continue
        if candidates is not None and not fifth and not candidates >> t & 1:
            continue
        ctx = WinContext(
            _with_tile(concealed, t), t, tuple(melds), void_suit=void_suit, indicator=indicator, is_dealer=is_dealer
        )
        result = _score(cfg, ctx, enforce_min=False, four_copy_limit=not fifth)
        if result.is_win:
            out[t] = result
    return out


def best_discard_value(
    cfg: RuleConfig | str,
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    *,
    void_suit: int | None = None,
    indicator: int | None = None,
) -> ScoreResult | None:
    """The most valuable discard win over all waits (None when not ready): the 查大叫 value with ``chadajiao = max``."""
    values = discard_values(cfg, concealed, melds, void_suit=void_suit, indicator=indicator)
    if not values:
        return None
    return max(values.values(), key=lambda r: (r.payment, r.multiplier))


def chajiao_value(
    cfg: RuleConfig | str,
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    *,
    void_suit: int | None = None,
    indicator: int | None = None,
) -> int | None:
    """Per-payer 查大叫 amount of a ready hand following ``chadajiao`` (max or min over waits); None if not ready."""
    cfg = load_variant(cfg)
    values = discard_values(cfg, concealed, melds, void_suit=void_suit, indicator=indicator)
    if not values:
        return None
    payments = [r.payment for r in values.values()]
    return max(payments) if cfg.chadajiao == "max" else min(payments)


# ---- the string API --------------------------------------------------------------------------------------------


def _parse_void(cfg: RuleConfig, void_suit: object) -> int | None:
    if void_suit is None:
        return None
    if isinstance(void_suit, str) and void_suit in SUIT_LETTER_TO_INDEX:
        index = SUIT_LETTER_TO_INDEX[void_suit]
    elif isinstance(void_suit, int) and not isinstance(void_suit, bool) and void_suit in (0, 1, 2):
        index = void_suit
    else:
        raise ValueError(f"void_suit must be 'm', 'p', 's' or None, got {void_suit!r}")
    if not cfg.dingque:
        raise ValueError(f"variant {cfg.name!r} has no 定缺 (dingque = false): void_suit must be None")
    if "mps"[index] not in cfg.suits:
        raise ValueError(f"void_suit {'mps'[index]!r} is not a suit of variant {cfg.name!r} (suits {cfg.suits!r})")
    return index


def _check_kind(cfg: RuleConfig, kind: int, where: str, kinds: frozenset[int] | None = None) -> None:
    if kind in (kinds if kinds is not None else cfg.kinds):
        return
    if kind == RED:
        raise ValueError(f"{where}: 红中 (5z) is not a tile of variant {cfg.name!r} (no red-dragon wildcards)")
    raise ValueError(f"{where}: {tile_code(kind)} is not a tile of variant {cfg.name!r}")


def _parse_meld_list(cfg: RuleConfig, melds: object, wilds: tuple[int, ...], kinds: frozenset[int]) -> tuple[Meld, ...]:
    if melds is None:
        return ()
    if isinstance(melds, (str, Meld)):
        melds = [melds]
    if not isinstance(melds, (list, tuple)):
        raise ValueError(f"melds must be a list of strings like 'pong 5m', got {type(melds).__name__}")
    out = []
    for item in melds:
        meld = item if isinstance(item, Meld) else parse_meld(item)
        label = f"meld {str(item)!r}"
        if meld.kind is MeldKind.CHI and not cfg.allow_chi:
            raise ValueError(f"{label}: chi (吃) is not allowed in variant {cfg.name!r}")
        if meld.kind is MeldKind.FEI:
            if cfg.wild != "tingyong":
                raise ValueError(f"{label}: fei (飞) melds exist only in Yibin, not in variant {cfg.name!r}")
            if meld.wilds > cfg.yibin_fei_max_wild:
                raise ValueError(f"{label}: a fei may hold at most {cfg.yibin_fei_max_wild} 听用 (yibin_fei_max_wild)")
            bad = [k for k in meld.wild_kinds if k not in wilds]
            if bad:
                names = ", ".join(tile_code(k) for k in wilds)
                raise ValueError(f"{label}: {tile_code(bad[0])} is not a 听用 of this hand (听用: {names})")
        if meld.tile < 0:
            raise ValueError(f"{label}: the meld's tile must be known to score the hand")
        for k in meld.represented():
            _check_kind(cfg, k, label, kinds)
        if meld.tile in wilds or (meld.kind is MeldKind.CHI and any(k in wilds for k in meld.represented())):
            wild = next(k for k in meld.represented() if k in wilds)
            raise ValueError(
                f"{label}: {tile_code(wild)} is a wildcard in variant {cfg.name!r} and cannot be melded"
                + (" (wild_in_melds = false)" if not cfg.wild_in_melds else "")
            )
        if cfg.fan_table == "wuhan" and RED in meld.represented():
            raise ValueError(f"{label}: 红中 can never be ponged or konged in Wuhan (playing it out is a 红中杠)")
        out.append(meld)
    return tuple(out)


def score_hand(
    variant: str | RuleConfig,
    concealed: str,
    melds: Sequence[str | Meld] | None,
    win_tile: str | int,
    *,
    self_drawn: bool = False,
    void_suit: str | None = None,
    after_kong: bool = False,
    robbing_kong: bool = False,
    last_tile: bool = False,
    benjin: str | None = None,
    laizi: str | None = None,
    is_dealer: bool = False,
    baohu: bool = False,
    qinghu: bool = False,
    on_qinghu_discard: bool = False,
    payer_baohu: bool = False,
    red_kongs: int = 0,
    laizi_kongs: int = 0,
) -> ScoreResult:
    """Score one win given as strings (RULES.md §10).

    ``concealed``: the concealed tiles **before** the winning tile (``hand_size - 3·len(melds)`` of them);
    ``melds``: e.g. ``["pong 5m", "kong 9s", "ankong 3p", "bukong 7s"]`` (kong = 直杠 exposed from a discard;
    ``"chi 345m"`` in Wuhan, ``"fei 7m 4s"`` in Yibin); ``win_tile``: the winning tile; ``void_suit``:
    ``"m"``/``"p"``/``"s"``/None; ``benjin``: the Yibin 本金 tile (required in Yibin, refused elsewhere).

    Wuhan: ``laizi`` is the 赖子 kind itself (e.g. ``"6p"`` when the indicator is ``5p``; required, refused
    elsewhere) — the indicator is not needed for scoring, so the string API does not count its removed copy;
    ``is_dealer`` (庄家 x2 on a small win), ``red_kongs`` / ``laizi_kongs`` (the winner's 红中杠 / 赖子杠);
    ``last_tile`` with ``self_drawn`` is a 海底-phase draw.  ``payment`` is what a loser without factors of their
    own pays (see :class:`ScoreResult`; per-loser amounts: :func:`envs.scoring.wuhan_settlement.wuhan_settlement`).

    断卡根: ``baohu`` (the winner declared 报胡, +2), ``qinghu`` (a successful 请胡 self-draw: ``concealed`` +
    ``win_tile`` are the eleven tiles after the draw — five pairs and the single that was discarded),
    ``on_qinghu_discard`` (winning on a 请胡 discard, +3), ``payer_baohu`` (price the payment of a payer who declared
    报胡: +1 fan; on a discard win the payer is the discarder; per-payer amounts of a self-draw:
    :func:`dkg_payments`).

    Bad input raises ``ValueError`` naming the problem; a legal hand that is not complete (or holds a void-suit
    tile, or breaks a variant's minimum) gives ``is_win = False`` with ``reason``.
    """
    cfg = load_variant(variant)
    void = _parse_void(cfg, void_suit)
    for name, value in (
        ("self_drawn", self_drawn),
        ("after_kong", after_kong),
        ("robbing_kong", robbing_kong),
        ("last_tile", last_tile),
        ("is_dealer", is_dealer),
        ("baohu", baohu),
        ("qinghu", qinghu),
        ("on_qinghu_discard", on_qinghu_discard),
        ("payer_baohu", payer_baohu),
    ):
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    for name, value in (("red_kongs", red_kongs), ("laizi_kongs", laizi_kongs)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= COPIES:
            raise ValueError(f"{name} must be an integer 0-4, got {value!r}")
    check_flags(self_drawn, after_kong, robbing_kong, last_tile)
    check_dkg_flags(self_drawn, robbing_kong, qinghu, on_qinghu_discard)
    indicator: int | None = None
    if cfg.wild == "tingyong":
        if benjin is None:
            raise ValueError(f"variant {cfg.name!r} needs benjin= (the 本金 indicator tile, e.g. benjin='5s')")
        indicator = kind_of(benjin) if isinstance(benjin, str) else benjin
        if not isinstance(indicator, int) or indicator not in cfg.kinds or indicator >= NUM_SUITED:
            raise ValueError(f"benjin {benjin!r} must be a suited tile of variant {cfg.name!r}")
    elif benjin is not None:
        raise ValueError(f"benjin is only used in Yibin (wild = 'tingyong'); variant {cfg.name!r} has no 本金")
    if cfg.wild == "laizi":
        if laizi is None:
            raise ValueError(f"variant {cfg.name!r} needs laizi= (the 赖子 tile, e.g. laizi='6p' for indicator 5p)")
        laizi_kind = kind_of(laizi) if isinstance(laizi, str) else laizi
        if not isinstance(laizi_kind, int) or isinstance(laizi_kind, bool) or laizi_kind not in cfg.kinds:
            raise ValueError(f"laizi {laizi!r} must be a tile of variant {cfg.name!r}")
        indicator = laizi_indicators(laizi_kind)[0]
    elif laizi is not None:
        raise ValueError(f"laizi is only used in Wuhan (wild = 'laizi'); variant {cfg.name!r} has no 赖子")
    wilds = wild_kinds(cfg, indicator)

    kinds = frozenset(cfg.kinds)
    tiles = parse_tiles(concealed)
    for k in tiles:
        _check_kind(cfg, k, f"concealed {concealed!r}", kinds)
    if isinstance(win_tile, str):
        win = kind_of(win_tile)
    elif isinstance(win_tile, int) and not isinstance(win_tile, bool) and 0 <= win_tile < NUM_KINDS:
        win = win_tile
    else:
        raise ValueError(f"win_tile must be one tile such as '5m', got {win_tile!r}")
    _check_kind(cfg, win, "win_tile", kinds)
    meld_list = _parse_meld_list(cfg, melds, wilds, kinds)

    expected = cfg.hand_size - 3 * len(meld_list)
    if expected < 1 or len(tiles) != expected:
        raise ValueError(
            f"wrong tile count: {len(tiles)} concealed tile(s) and {len(meld_list)} meld(s); a hand holds "
            f"{cfg.hand_size} tiles before the winning tile, so expected {cfg.hand_size} - 3×{len(meld_list)} = "
            f"{expected} concealed tiles"
        )
    counts = [0] * NUM_KINDS
    for k in tiles:
        counts[k] += 1
    counts[win] += 1
    physical = _own_copies(counts, meld_list)
    if indicator is not None and cfg.indicator_removed_from_wall and cfg.wild == "tingyong":
        physical[indicator] += 1
    physical[RED] += red_kongs
    if cfg.wild == "laizi":
        physical[wilds[0]] += laizi_kongs
    for k, n in enumerate(physical):
        if n > COPIES:
            extra = ""
            if k == indicator and cfg.indicator_removed_from_wall and cfg.wild == "tingyong":
                extra = " (the 本金 indicator is one copy)"
            elif (k == RED and red_kongs) or (cfg.wild == "laizi" and k == wilds[0] and laizi_kongs):
                extra = " (counting the tiles played out as 红中杠 / 赖子杠)"
            raise ValueError(
                f"{tile_code(k)} appears {n} times across the concealed tiles, melds and winning tile{extra}; "
                "a kind has only 4 copies"
            )
    ctx = WinContext(
        concealed=tuple(counts),
        win_tile=win,
        melds=meld_list,
        self_drawn=self_drawn,
        after_kong=after_kong,
        robbing_kong=robbing_kong,
        last_tile=last_tile,
        void_suit=void,
        indicator=indicator,
        is_dealer=is_dealer,
        baohu=baohu,
        qinghu=qinghu,
        on_qinghu_discard=on_qinghu_discard,
        payer_baohu=payer_baohu,
        red_kongs=red_kongs,
        laizi_kongs=laizi_kongs,
    )
    return score_win(cfg, ctx)


def dkg_payments(cfg: RuleConfig | str, ctx: WinContext, payer_baohu: Sequence[bool]) -> list[int] | None:
    """断卡根: what each payer of one win pays (base units), given which payers declared 报胡; None if not a win.

    ``payer_baohu[i]`` says whether payer ``i`` declared 报胡 (a discard win has one payer, the discarder).  A
    payer who declared 报胡 pays with +``dkg_baohu_penalty`` fan.  With ``dkg_xiaohu_zimo_vs_baohu`` a 小胡 may
    self-draw while a payer declared 报胡: that payer pays (1 fan) and the others pay 0.  ``ctx.payer_baohu`` is
    ignored (set per payer here).
    """
    cfg = load_variant(cfg)
    if cfg.fan_table not in DKG_TABLES:
        raise ValueError(f"dkg_payments needs a 断卡根 fan table, got {cfg.fan_table!r}")
    flags = list(payer_baohu)
    if any(not isinstance(f, bool) for f in flags) or not flags:
        raise ValueError(f"payer_baohu must be a non-empty list of True/False, got {payer_baohu!r}")
    if not ctx.self_drawn and len(flags) != 1:
        raise ValueError(f"a discard win has one payer (the discarder), got {len(flags)} payer flags")
    results = {flag: score_win(cfg, dataclasses.replace(ctx, payer_baohu=flag)) for flag in set(flags)}
    if not any(r.is_win for r in results.values()):
        return None
    return [results[flag].payment if results[flag].is_win else 0 for flag in flags]


__all__ = [
    "ScoreResult",
    "WinContext",
    "best_discard_value",
    "can_win",
    "chajiao_value",
    "discard_values",
    "dkg_payments",
    "score_hand",
    "score_win",
    "tingyong_kinds",
    "wild_kinds",
    "winning_tiles",
]
