"""Compiled hand values (编译版番数估计): :mod:`agents.valuation` in numba, for the compiled value agents.

* :func:`values_vector` — :class:`agents.valuation.VariantValues` of a configuration as a float64 vector (``V_*``
  entries), measured by the Python scorer once per configuration and passed to every compiled call (never frozen in
  numba's cache).
* :func:`payment`, :func:`plan_doublings`, :func:`win_value`, :func:`discard_win_income`,
  :func:`completion_probability` — the same arithmetic in
  the same operation order as the Python functions, so the floats agree to the last bit.
* :class:`WaitScorer` and :func:`wait_payment` — the discard-win payment of one wait of a ready hand by the engine's
  compiled scorer of the variant (:mod:`envs.compiled.score`, ``score_dkg``, ``score_yibin``, ``score_wuhan``): the
  value of :func:`agents.valuation.wait_payments` (Wuhan: :func:`agents.valuation.wuhan_wait_payments`), including
  its zero for a context the Python scorer refuses (a fifth copy counting the melds, a wrong hand size).

``tests/agents/test_compiled_valuation.py`` compares every function with the Python one on positions of every preset.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.valuation import RON_SHARE, SELF_DRAW_SHARE, TYPICAL_USEFUL, VariantValues
from envs.compiled.score import rule_vector, score_counts, workspace
from envs.compiled.score_dkg import rule_vector_dkg, score_dkg, workspace_dkg
from envs.compiled.score_wuhan import laizi_kind, rule_vector_wuhan, score_wuhan, workspace_wuhan
from envs.compiled.score_yibin import rule_vector_yibin, score_yibin, workspace_yibin
from envs.core.rule_config import RuleConfig

__all__ = [
    "PLAN_BASE",
    "PLAN_FLUSH",
    "PLAN_PAIRS",
    "PLAN_TRIPLETS",
    "WaitScorer",
    "completion_probability",
    "completion_probability_into",
    "discard_win_income",
    "payment",
    "plan_doublings",
    "values_vector",
    "wait_payment",
    "wait_payment_memo",
    "win_value",
]

# ---- the values vector ------------------------------------------------------------------------------------------
V_BASE, V_FLUSH, V_PAIRS, V_TRIPLETS, V_FLUSH_PAIRS, V_FLUSH_TRIPLETS = 0, 1, 2, 3, 4, 5  # doublings per plan key
V_SHAGUI = 6
V_MAHJONGSOUL = 7
V_BASE_UNIT = 8
V_CAP = 9  # cap of a payment (inf: none)
V_ZIMO = 10  # 0 none, 1 jiadi, 2 jiafan / factor
V_PINGHU = 11  # allow_pinghu_on_discard
V_UNIT = 12
V_RON_ALL = 13
V_SMALL_BASE = 14  # Wuhan: wuhan_small_base (payment of a small win), else 1
NUM_VALUES = 15

PLAN_BASE, PLAN_PAIRS, PLAN_TRIPLETS, PLAN_FLUSH = 0, 1, 2, 3  # plan_doublings' plan argument
TYPICAL = np.array(
    [TYPICAL_USEFUL[p] for p in ("standard", "flush", "pairs", "triplets")], dtype=np.float64
)  # completion_probability's plan index: 0 standard, 1 flush, 2 pairs, 3 triplets
_PLAN_KEYS = ("base", "flush", "pairs", "triplets", "flush_pairs", "flush_triplets")
_ZIMO_CODE = {"jiadi": 1, "jiafan": 2, "factor": 2}


def values_vector(cfg: RuleConfig) -> np.ndarray:
    """The ``V_*`` vector of :meth:`agents.valuation.VariantValues.of` ``(cfg)``."""
    v = VariantValues.of(cfg)
    out = np.zeros(NUM_VALUES, dtype=np.float64)
    for i, key in enumerate(_PLAN_KEYS):
        out[i] = v.doublings[key]
    out[V_SHAGUI] = v.shagui
    out[V_MAHJONGSOUL] = v.mahjongsoul
    out[V_BASE_UNIT] = v.base_unit
    out[V_CAP] = v.cap_payment
    out[V_ZIMO] = _ZIMO_CODE.get(v.zimo_bonus, 0)
    out[V_PINGHU] = v.allow_pinghu_on_discard
    out[V_UNIT] = v.unit
    out[V_RON_ALL] = v.ron_all_pay
    out[V_SMALL_BASE] = cfg.wuhan_small_base if cfg.fan_table == "wuhan" else 1
    return out


@njit(cache=True)
def payment(v, doublings):  # pragma: no cover - compiled
    """:meth:`VariantValues.payment`."""
    if v[V_MAHJONGSOUL]:
        return min(v[V_BASE_UNIT] * 2.0 ** max(doublings - 1.0, 0.0), v[V_CAP])
    return min(v[V_UNIT] * 2.0**doublings, v[V_CAP])


@njit(cache=True)
def plan_doublings(v, plan, flush, roots, wild):  # pragma: no cover - compiled
    """:meth:`VariantValues.plan_doublings` (``plan``: ``PLAN_*``)."""
    if plan == PLAN_PAIRS:
        key = V_FLUSH_PAIRS if flush else V_PAIRS
    elif plan == PLAN_TRIPLETS:
        key = V_FLUSH_TRIPLETS if flush else V_TRIPLETS
    elif plan == PLAN_FLUSH or flush:
        key = V_FLUSH
    else:
        key = V_BASE
    d = v[key] + roots
    if wild:
        d -= v[V_SHAGUI]
    return d


@njit(cache=True)
def win_value(v, pay, payers, pinghu):  # pragma: no cover - compiled
    """:func:`agents.valuation.win_value`."""
    z = v[V_ZIMO]
    if z == 2:
        zimo = min(2 * pay, v[V_CAP]) if not v[V_MAHJONGSOUL] else 2 * pay
    elif z == 1:
        zimo = pay + (v[V_BASE_UNIT] if v[V_MAHJONGSOUL] else 1.0)
    else:
        zimo = pay
    ron = 0.0 if pinghu and not v[V_PINGHU] else discard_win_income(v, pay, payers)
    return SELF_DRAW_SHARE * zimo * max(payers, 1) + (1.0 - SELF_DRAW_SHARE) * ron


@njit(cache=True)
def discard_win_income(v, pay, payers):  # pragma: no cover - compiled
    """:func:`agents.valuation.discard_win_income`."""
    if v[V_RON_ALL] and payers:
        return min(2 * pay, v[V_CAP]) + (payers - 1) * pay
    return pay


@njit(cache=True)
def completion_probability(shanten, useful, unseen, draws, plan, claim_seats, claims_every_step, extra, hazard):
    # pragma: no cover - compiled
    """:func:`agents.valuation.completion_probability` (``plan``: 0 standard, 1 flush, 2 pairs, 3 triplets)."""
    steps = max(shanten + 1, 1)
    rates = np.empty(steps, dtype=np.float64)
    dist = np.empty(steps + 1, dtype=np.float64)
    return completion_probability_into(shanten, useful, unseen, draws, plan, claim_seats, claims_every_step, extra,
                                       hazard, rates, dist)  # fmt: skip


@njit(cache=True)
def completion_probability_into(shanten, useful, unseen, draws, plan, claim_seats, claims_every_step, extra, hazard,
                                rates, dist):  # fmt: skip  # pragma: no cover - compiled
    """:func:`completion_probability` with its two rows in the scratch arrays ``rates`` and ``dist`` (float64 of at
    least ``shanten + 1`` and ``shanten + 2``; fresh ones when they are shorter)."""
    if shanten < 0:
        return 1.0
    n = int(draws)
    if n <= 0 or unseen <= 0:
        return 0.0
    steps = shanten + 1
    if rates.shape[0] < steps or dist.shape[0] < steps + 1:
        rates = np.empty(steps, dtype=np.float64)
        dist = np.empty(steps + 1, dtype=np.float64)
    for i in range(steps):
        level = shanten - i
        u = useful if level == shanten else TYPICAL[plan, min(level, TYPICAL.shape[1] - 1)]
        p = min(0.95, (u + extra) / unseen)
        trials = 1.0 + (RON_SHARE * claim_seats if level == 0 or claims_every_step else 0.0)
        rates[i] = 1.0 - (1.0 - p) ** trials
    dist[: steps + 1] = 0.0
    dist[0] = 1.0
    keep = 1.0 - hazard
    for _ in range(n):
        done = dist[steps]
        for j in range(steps - 1, -1, -1):
            moved = dist[j] * rates[j]
            dist[j] -= moved
            dist[j + 1] += moved
        if hazard != 0.0:
            for j in range(steps):
                dist[j] *= keep
        if dist[steps] - done < 1e-9:
            if dist[steps] > 0.999:
                break
            rest = 0.0
            for j in range(steps):
                rest += dist[j]
            if rest < 1e-6:
                break
    return dist[steps]


# ---- wait payments by the compiled scorers ---------------------------------------------------------------------
SC_SICHUAN, SC_DKG, SC_YIBIN, SC_WUHAN = 0, 1, 2, 3
_PAY_SLOTS = 1 << 14


class WaitScorer:
    """The compiled scorer of one configuration for :func:`wait_payment`: ``kind`` (``SC_*``), the rule vector and
    the scratch arrays of every scorer (:meth:`args`), plus the Wuhan pricing constants."""

    def __init__(self, cfg: RuleConfig) -> None:
        self.cfg = cfg
        zero = np.zeros(1, dtype=np.int64)
        if cfg.fan_table == "wuhan":
            self.kind, rules = SC_WUHAN, rule_vector_wuhan(cfg)
        elif cfg.fan_table == "yibin":
            self.kind, rules = SC_YIBIN, rule_vector_yibin(cfg)
        elif cfg.fan_table.startswith("dkg"):
            self.kind, rules = SC_DKG, rule_vector_dkg(cfg)
        else:
            self.kind, rules = SC_SICHUAN, rule_vector(cfg)
        self.rules = np.asarray(rules, dtype=np.int64) if len(rules) else zero
        # Wuhan: own factor F of a hand with no kong (open or not) and with k exposed kongs (wuhan_factor)
        self.wuhan = np.zeros(3, dtype=np.int64)
        if cfg.fan_table == "wuhan":
            self.wuhan[0] = cfg.wuhan_minggang_factor
            self.wuhan[1] = 1 if cfg.wuhan_open_mode == "kaikou" else 0
            self.wuhan[2] = cfg.hand_size
        else:
            self.wuhan[2] = cfg.hand_size
        self.work = (workspace(), workspace_dkg(), workspace_yibin(), workspace_wuhan())
        # a direct-mapped memo of this configuration's payments (wait_payment_memo): packed keys and the payments
        self.memo = (np.full((_PAY_SLOTS, 3), -1, dtype=np.int64), np.zeros(_PAY_SLOTS, dtype=np.float64))

    def args(self) -> tuple:
        """``(kind, rules, wuhan constants, workspaces, payment memo)``: the scorer arguments of
        :func:`wait_payment_memo` (the first four: of :func:`wait_payment`)."""
        return (self.kind, self.rules, self.wuhan, self.work, self.memo)


@njit(cache=True)
def _wuhan_own_factor(melds, n_melds, consts):  # pragma: no cover - compiled
    """:func:`envs.scoring.wuhan_settlement.wuhan_factor` of melds that are pongs, exposed kongs and 吃 runs."""
    n_open = n_melds
    if consts[1]:
        factor = 2 if n_open else 1
    else:
        factor = 1 << n_open
    for i in range(n_melds):
        if melds[3 * i] == 2:
            factor *= consts[0]
    return factor


@njit(cache=True)
def wait_payment(hand, melds, n_melds, void, indicator, t, v, kind, rules, consts, work):  # pragma: no cover
    """Discard-win payment of the wait ``t`` of the ready 3k+1 hand ``hand`` (34 physical counts, wildcards
    included) with ``n_melds`` own melds (``(kind, tile, from_seat)`` triples, kinds 1 pong, 2 kong, 6 吃): the value
    :func:`agents.valuation.wait_payments` gives (Wuhan: :func:`agents.valuation.wuhan_wait_payments`).  ``hand`` is
    restored."""
    if hand[t] >= 4:
        return 0.0
    hand[t] += 1
    # the Python scorer raises (the agents then price the wait 0) on a kind past four copies counting the melds and
    # on a hand of the wrong size
    bad = False
    total = 0
    for k in range(34):
        total += hand[k]
    for i in range(n_melds):
        mk = melds[3 * i]
        tile = melds[3 * i + 1]
        total += 3
        if mk == 6:
            for j in range(3):
                if hand[tile + j] + 1 > 4:
                    bad = True
        elif hand[tile] + (3 if mk == 1 else 4) > 4:
            bad = True
    if total != consts[2] + 1:
        bad = True
    pay = 0.0
    if not bad:
        if kind == SC_SICHUAN:
            w = work[0]
            ok, p, _ = score_counts(hand, melds, n_melds, t, void, False, False, False, False, False, False, False,
                                    rules, w[0], w[1], w[2], w[3], w[4], w[5])  # fmt: skip
            if ok:
                pay = float(p)
        elif kind == SC_DKG:
            ok, p, _ = score_dkg(hand, melds, n_melds, t, False, False, False, False, False, False, False, False,
                                 False, 0, False, False, False, rules, work[1][0])  # fmt: skip
            if ok:
                pay = float(p)
        elif kind == SC_YIBIN:
            w = work[2]
            mw = np.full(2 * max(n_melds, 1), -1, dtype=np.int32)
            ok, p, _ = score_yibin(hand, melds, mw, n_melds, t, void, indicator, False, False, False, False, False,
                                   False, False, False, rules, w[0], w[1], w[2], w[3], w[4], w[5], w[6],
                                   w[7])  # fmt: skip
            if ok:
                pay = float(p)
        else:
            w = work[3]
            ok, mult, _, _ = score_wuhan(hand, melds, n_melds, t, indicator, False, False, False, False, 0, 0, False,
                                         rules, w[0], w[1], w[2], w[3], w[4], w[5], w[6])  # fmt: skip
            if ok:
                own = _wuhan_own_factor(melds, n_melds, consts)
                open_factor = 2 if own > 1 and n_melds > 0 else 1
                m = mult / own * open_factor
                pay = min(v[V_UNIT] * m / v[V_SMALL_BASE], v[V_CAP])
            elif n_melds == 0 and hand[31] == 0 and t != laizi_kind(indicator):
                pay = payment(v, v[V_BASE] - v[V_SHAGUI])  # refused only for 开口: a small soft win
    hand[t] -= 1
    return pay


@njit(cache=True)
def _payment_key(hand, melds, n_melds, void, indicator, t):  # pragma: no cover - compiled
    """``(ok, w0, w1, w2)``: the inputs of :func:`wait_payment` packed exactly (counts 0-7, up to five melds of the
    hand's meld kinds); ``ok`` is False for inputs the words do not hold (they are scored every time)."""
    ok = 0 <= t < 34 and -1 <= void < 7 and -1 <= indicator < 63 and 0 <= n_melds <= 5
    w0 = np.int64(0)
    w1 = np.int64(0)
    for k in range(34):
        c = hand[k]
        if c < 0 or c > 7:
            ok = False
        if k < 21:
            w0 |= np.int64(c & 7) << (3 * k)
        else:
            w1 |= np.int64(c & 7) << (3 * (k - 21))
    w1 |= np.int64(t & 63) << 39
    w1 |= np.int64((void + 1) & 7) << 45
    w1 |= np.int64((indicator + 1) & 63) << 48
    w2 = np.int64(n_melds)
    for i in range(min(n_melds, 5)):
        mk = melds[3 * i]
        tile = melds[3 * i + 1]
        if mk < 0 or mk > 7 or tile < 0 or tile > 33 or melds[3 * i + 2] != -1:
            ok = False
        w2 |= np.int64((mk & 7) | ((tile & 63) << 3)) << (3 + 9 * i)
    return ok, w0, w1, w2


@njit(cache=True, inline="always")
def wait_payment_memo(hand, melds, n_melds, void, indicator, t, v, kind, rules, consts, work, memo):
    # pragma: no cover - compiled
    """:func:`wait_payment` behind a direct-mapped memo of one configuration (:attr:`WaitScorer.memo`): the full
    input is packed into the key and compared whole, so a hit is always the exact payment.  A ready hand is priced
    again and again (every discard that keeps it, every claim that looks at it), and its scoring is the dearest part
    of a hand's value."""
    keys, vals = memo
    ok, w0, w1, w2 = _payment_key(hand, melds, n_melds, void, indicator, t)
    if not ok:
        return wait_payment(hand, melds, n_melds, void, indicator, t, v, kind, rules, consts, work)
    h = (np.uint64(w0) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(w1) * np.uint64(0xC2B2AE3D27D4EB4F))
    h = (h ^ (h >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(w2)
    h = (h ^ (h >> np.uint64(31))) * np.uint64(0xC2B2AE3D27D4EB4F)
    i = np.int64(h >> np.uint64(40)) & (keys.shape[0] - 1)
    if keys[i, 0] == w0 and keys[i, 1] == w1 and keys[i, 2] == w2:
        return vals[i]
    pay = wait_payment(hand, melds, n_melds, void, indicator, t, v, kind, rules, consts, work)
    keys[i, 0] = w0
    keys[i, 1] = w1
    keys[i, 2] = w2
    vals[i] = pay
    return pay
