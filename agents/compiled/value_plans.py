"""Compiled plan values (编译版计划估值): :meth:`agents.value.ValueAgent.hand_value` and its plan shanten in numba.

* :func:`pairs_shanten`, :func:`triplets_shanten` — :mod:`agents.handeval`'s closed-form 七对 / 对对胡 shanten.
* :func:`hand_value` — the expected income of a 3k+1 concealed hand over the plans (standard, 清一色, 七对, 对对胡,
  断幺九 with ``duanyao_plan``) plus the readiness at exhaustion, the same floats as the Python agent (the operations
  run in the same order).

The per-position inputs come as a :class:`ValueRow` of arrays built by :func:`value_row` (one call per decision
row: what :class:`agents.features.Seen` and the agent's configuration give ``hand_value``), the per-configuration
ones as the ``cfg_i`` / ``cfg_f`` vectors of :func:`config_vectors`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from agents.compiled.danger import NUM_O, OPP_ROWS, read_opponents
from agents.compiled.danger import ready_probability as _ready_probability
from agents.compiled.decode import Decoded, decode_batch, in_play_mask
from agents.compiled.shanten_memo import NEAR, shanten_cached, useful_tiles
from agents.compiled.valuation import (
    PLAN_BASE,
    PLAN_FLUSH,
    PLAN_PAIRS,
    PLAN_TRIPLETS,
    V_BASE,
    V_PINGHU,
    V_SHAGUI,
    WaitScorer,
    completion_probability_into,
    payment,
    plan_doublings,
    values_vector,
    wait_payment_memo,
    win_value,
)
from agents.valuation import VariantValues
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED
from envs.engine.observation import SLICES

__all__ = [
    "ValueKit",
    "ValueRows",
    "config_vectors",
    "hand_value",
    "pairs_shanten",
    "triplets_shanten",
]

# cfg_i entries
CI_SUITED, CI_WUHAN, CI_PAIRS_PLAN, CI_MAX_OFF_SUIT, CI_CONTINUATION, CI_TRIPLET_KINDS, CI_NUM_TILES = range(7)
CI_HZ_CLAIMABLE = 7
CI_MAX_LAIZI = 8  # wuhan_small_win_max_laizi
NUM_CI = 9
CONT_XUEZHAN, CONT_XUELIU, CONT_SINGLE = 0, 1, 2
# cfg_f entries
CF_READY_VALUE, CF_EXIT_WEIGHT, CF_SIMPLES = 0, 1, 2
NUM_CF = 3
PLAN_SIMPLES = 4
PLAN_NAMES = ("standard", "pairs", "triplets", "flush", "simples")
"""``hand_value``'s plan index (``PLAN_*`` of :mod:`agents.compiled.valuation`; 0 is the standard plan)."""
_CHI_ROW = SLICES["chis"].start  # own 吃 tiles (slot 0)
_HONOR_BITS = sum(1 << k for k in range(NUM_SUITED, NUM_KINDS) if k != RED)
TERMINAL_BITS = sum(1 << k for k in range(NUM_SUITED) if k % 9 in (0, 8))  # the 1s and 9s (幺九牌)
_CONTINUATION = {"xuezhan": CONT_XUEZHAN, "xueliu": CONT_XUELIU, "single": CONT_SINGLE}


def config_vectors(
    cfg: RuleConfig, *, max_off_suit: int, ready_value: float, exit_weight: float, simples_bonus: float = 0.0
) -> tuple:
    """``(cfg_i, cfg_f)``: the configuration and the value options ``hand_value`` reads (``simples_bonus``: the
    doublings of the 断幺九 plan, 0 when the plan is off)."""
    wuhan = cfg.fan_table == "wuhan"
    ci = np.zeros(NUM_CI, dtype=np.int64)
    ci[CI_SUITED] = sum(1 << k for k in cfg.kinds if k < NUM_SUITED)
    ci[CI_WUHAN] = wuhan
    ci[CI_PAIRS_PLAN] = not wuhan
    ci[CI_MAX_OFF_SUIT] = max_off_suit
    ci[CI_CONTINUATION] = _CONTINUATION[cfg.continuation]
    ci[CI_TRIPLET_KINDS] = ((1 << NUM_SUITED) - 1) | (_HONOR_BITS if wuhan else 0)
    ci[CI_NUM_TILES] = cfg.num_tiles
    ci[CI_HZ_CLAIMABLE] = cfg.hz_red_discard_claimable
    ci[CI_MAX_LAIZI] = cfg.wuhan_small_win_max_laizi
    cf = np.array([ready_value, exit_weight, simples_bonus], dtype=np.float64)
    return ci, cf


@njit(cache=True)
def pairs_shanten(counts, wilds, dead, live):  # pragma: no cover - compiled
    """:func:`agents.handeval.pairs_shanten`."""
    pairs = 0
    singles = 0
    fresh = 0
    for k in range(27):
        if (dead >> k) & 1:
            continue
        c = counts[k]
        if c >= 2:
            pairs += 2 if c == 4 else 1
        if c & 1:
            if live[k] > 0:
                singles += 1
        elif c == 0 and live[k] >= 2:
            fresh += 1
    need = 7 - pairs
    if need <= 0:
        return -1
    used = min(need, singles)
    rest = need - used
    cost = used + 2 * rest if rest <= fresh else used + 2 * fresh + 3 * (rest - fresh)
    cost = max(0, cost - wilds)
    return cost - 1


@njit(cache=True)
def triplets_shanten(counts, wilds, n_sets, dead, live, kinds):  # pragma: no cover - compiled
    """:func:`agents.handeval.triplets_shanten` over the kinds of the bit mask ``kinds``."""
    used = np.zeros(34, dtype=np.bool_)
    chosen = 0
    cost = 0
    for x in range(3):  # trip_costs sorted by (cost, kind), the first n_sets taken
        for k in range(34):
            if chosen >= n_sets:
                break
            if not (kinds >> k) & 1 or (dead >> k) & 1:
                continue
            c = counts[k]
            if c and c + live[k] >= 3 and 3 - min(c, 3) == x:
                used[k] = True
                chosen += 1
                cost += x
    cost += 3 * (n_sets - chosen)
    pair = 2
    found = False
    for x in range(2):
        for k in range(34):
            if not (kinds >> k) & 1 or (dead >> k) & 1 or used[k]:
                continue
            c = counts[k]
            if c and c + live[k] >= 2 and 2 - min(c, 2) == x:
                pair = x
                found = True
                break
        if found:
            break
    cost += pair
    cost = max(0, cost - wilds)
    return cost - 1


@njit(cache=True)
def _flush_suit(counts, meld_kinds, n_meld_kinds, dead, max_off_suit):  # pragma: no cover - compiled
    """``ValueAgent._flush_suit``: the dominant suit or -1."""
    for i in range(n_meld_kinds):
        if meld_kinds[i] >= 27:
            return -1
    per = np.zeros(3, dtype=np.int64)
    for k in range(27):
        if counts[k] and not (dead >> k) & 1:
            per[k // 9] += counts[k]
    for i in range(n_meld_kinds):
        per[meld_kinds[i] // 9] += 3
    suit = 0
    for s in range(1, 3):
        if per[s] > per[suit]:
            suit = s
    for i in range(n_meld_kinds):
        if meld_kinds[i] // 9 != suit:
            return -1
    off = 0
    for k in range(34):
        if (k >= 27 or k // 9 != suit) and not (dead >> k) & 1:
            off += counts[k]
    return suit if off <= max_off_suit else -1


def hand_value_work() -> tuple:
    """The scratch arrays :func:`hand_value` fills instead of allocating per call: useful kinds (int64), own pongs
    (bool), meld kinds, wait payments, the scorer's melds and hand (int32), and the completion model's two rows."""
    return (
        np.zeros(64, dtype=np.int64),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(16, dtype=np.int64),
        np.zeros(NUM_KINDS, dtype=np.float64),
        np.zeros(3 * 16, dtype=np.int32),
        np.zeros(NUM_KINDS, dtype=np.int32),
        np.zeros((2, 32), dtype=np.float64),
    )


@njit(cache=True, inline="always")
def _plan_worth(shanten, useful_live, d, plan, claims_every_step, v, payers, unseen, draws, wild_live, hazard,
                exit_value, fwork):  # fmt: skip  # pragma: no cover - compiled
    """A plan's expected income (``ValueAgent.hand_value``'s ``worth``): the chance to complete it from ``shanten``
    with ``useful_live`` live useful tiles, times what its win of ``d`` doublings pays and saves."""
    p = completion_probability_into(
        shanten, useful_live, unseen, draws, plan, payers, claims_every_step, wild_live, hazard, fwork[0], fwork[1]
    )
    return p * (win_value(v, payment(v, d), payers, False) + exit_value)


@njit(cache=True, inline="always")
def hand_value(counts, wilds, melded, n_melds, chis, n_chis, row_i, row_k, row_f, v, ci, cf, scorer, table, work):
    # pragma: no cover - compiled
    """``ValueAgent.hand_value``: ``(value, live useful tiles of the standard plan, plan index)`` of the 3k+1 hand
    ``counts`` (34 natural counts, restored on return) with ``wilds`` wildcards, ``melded`` meld copies and
    ``n_melds`` melds; ``chis`` holds the ``n_chis`` lowest kinds of the own 吃 runs (Wuhan).  ``row_*``: the
    decision row (:func:`agents.compiled.value_row.value_row`), ``v``: the values vector, ``ci`` / ``cf``: the
    configuration, ``scorer``: :meth:`agents.compiled.valuation.WaitScorer.args`, ``table``: a shanten memo
    (:func:`agents.compiled.shanten_memo.new_memo`), ``work``: the scratch arrays of :func:`hand_value_work`."""
    dead = row_i[R_DEAD]
    live = row_k[K_LIVE]
    wuhan = ci[CI_WUHAN] != 0
    suited = ci[CI_SUITED]
    payers = row_i[R_PAYERS]
    draws = row_f[F_DRAWS]
    unseen = row_i[R_UNSEEN]
    wild_live = row_i[R_WILD_LIVE]
    hazard = row_f[F_HAZARD]
    exit_value = row_f[F_EXIT]
    # own melds: the seen pongs plus a meld just made by a hypothetical pong, the seen kongs
    buf, is_pong, meld_kinds, pays, melds, hand, fwork = work
    is_pong[:] = False
    nmk = 0
    for k in range(34):
        if row_k[K_PONGS, k] or (melded[k] and not row_k[K_KONGS, k]):
            is_pong[k] = True
            meld_kinds[nmk] = k
            nmk += 1
    for k in range(34):
        if row_k[K_KONGS, k]:
            meld_kinds[nmk] = k
            nmk += 1
    n_own = nmk
    if wuhan:
        for i in range(n_chis):
            meld_kinds[nmk] = chis[i]
            nmk += 1
    roots = 0
    if not wuhan:
        for k in range(27):
            if counts[k] + melded[k] == 4:
                roots += 1
    suits = 0
    for k in range(34):
        if counts[k]:
            suits |= 1 << min(k // 9, 3)
    for i in range(nmk):
        suits |= 1 << min(meld_kinds[i] // 9, 3)
    n_suits = 0
    for s in range(4):
        n_suits += (suits >> s) & 1
    one_suit = n_suits <= 1
    has_wild = wilds > 0

    # standard plan
    useful = buf[0:34]
    s, nu = useful_tiles(counts, wilds, dead, suited, melded, suited & ~dead, NEAR, table, useful)
    if wuhan and s >= 0:  # honor kinds whose draw lowers the shanten (ValueAgent._honor_useful)
        for t in range(27, 34):
            c = counts[t]
            if t == 31 or not c or c + melded[t] >= 4 or (dead >> t) & 1:
                continue
            counts[t] += 1
            if shanten_cached(counts, wilds, dead, suited, melded, table) < s:
                useful[nu] = t
                nu += 1
            counts[t] -= 1
    pays[:] = 0.0
    melds[:] = 0
    n_m = 0
    hand[:] = 0
    have_pays = False
    if s == 0:
        for i in range(n_own):
            k = meld_kinds[i]
            melds[3 * n_m] = 1 if is_pong[k] else 2
            melds[3 * n_m + 1] = k
            melds[3 * n_m + 2] = -1
            n_m += 1
        if wuhan:
            for i in range(n_chis):
                melds[3 * n_m] = 6
                melds[3 * n_m + 1] = chis[i]
                melds[3 * n_m + 2] = -1
                n_m += 1
            for k in range(34):
                hand[k] = counts[k]
            if row_i[R_LAIZI] >= 0:
                hand[row_i[R_LAIZI]] += wilds
        else:
            for k in range(34):
                hand[k] = counts[k]
            left = wilds
            for w in range(34):  # the wildcards back under their physical kinds
                if row_k[K_WILD, w]:
                    hand[w] = min(row_k[K_HAND, w], left)
                    left -= hand[w]
        kind, rules, consts, scoring, pay_memo = scorer
        for i in range(nu):
            t = useful[i]
            pays[t] = wait_payment_memo(hand, melds, n_m, row_i[R_VOID], row_i[R_INDICATOR], t, v, kind, rules, consts,
                                        scoring, pay_memo)  # fmt: skip
        have_pays = True
        if wuhan:  # only waits that the scorer accepts (a 2-5-8 pair, or a big win) count
            n_legal = 0
            for i in range(nu):
                if pays[useful[i]] > 0:
                    useful[n_legal] = useful[i]
                    n_legal += 1
            if n_legal:
                nu = n_legal
            else:
                s = 1  # ready by shape only
    u_live = 0
    for i in range(nu):
        u_live += live[useful[i]]
    best = 0.0
    plan = PLAN_BASE
    if s == 0 and have_pays:
        base_pay = payment(v, v[V_BASE] - v[V_SHAGUI] * has_wild)
        pinghu = True
        total = 0
        for i in range(nu):
            t = useful[i]
            if pays[t] > base_pay:
                pinghu = False
            total += live[t]
        if total:
            acc = 0.0
            for i in range(nu):
                t = useful[i]
                acc += live[t] * (pays[t] if pays[t] != 0.0 else base_pay)
            avg = acc / total
            seats = 0 if pinghu and not v[V_PINGHU] else payers
            p = completion_probability_into(
                0, total, unseen, draws, 0, seats, False, wild_live, hazard, fwork[0], fwork[1]
            )
            best = p * (win_value(v, avg, payers, pinghu) + exit_value)
    elif s > 0:
        d = plan_doublings(v, PLAN_BASE, one_suit, roots, has_wild)
        p = completion_probability_into(
            s, u_live, unseen, draws, 0, payers, False, wild_live, hazard, fwork[0], fwork[1]
        )
        best = p * (win_value(v, payment(v, d), payers, d == v[V_BASE]) + exit_value)
    else:
        best = win_value(v, payment(v, v[V_BASE]), payers, False) + exit_value

    if s > 0:
        # 清一色: the dominant suit
        fs = _flush_suit(counts, meld_kinds, nmk, dead, ci[CI_MAX_OFF_SUIT])
        if fs >= 0 and not one_suit:
            fmask = np.int64(0x1FF) << (9 * fs)
            others = np.int64((1 << 34) - 1) if wuhan else suited
            fu = buf[34:64]
            sf, nf = useful_tiles(counts, wilds, (others & ~fmask) | dead, fmask, melded, fmask, NEAR, table, fu)
            if 0 <= sf <= s + 2:
                d = plan_doublings(v, PLAN_BASE, True, roots, has_wild)
                uf = 0
                for i in range(nf):
                    uf += live[fu[i]]
                val = _plan_worth(sf, uf, d, 1, False, v, payers, unseen, draws, wild_live, hazard, exit_value, fwork)
                if val > best:
                    best, plan = val, PLAN_FLUSH
        n_tiles = wilds
        for k in range(34):
            n_tiles += counts[k]
        # 七对
        if ci[CI_PAIRS_PLAN] and n_melds == 0 and n_tiles == 13:
            s7 = pairs_shanten(counts, wilds, dead, live)
            if 0 <= s7 <= s + 1:
                u7 = 0
                for k in range(27):
                    if counts[k] & 1 and not (dead >> k) & 1:
                        u7 += live[k]
                d = plan_doublings(v, PLAN_PAIRS, one_suit, roots, has_wild)
                val = _plan_worth(s7, u7, d, 2, False, v, payers, unseen, draws, wild_live, hazard, exit_value, fwork)
                if val > best:
                    best, plan = val, PLAN_PAIRS
        # 对对胡 (never with a 吃 run)
        n_sets = (n_tiles - 1) // 3
        kinds = ci[CI_TRIPLET_KINDS]
        st = -1 if (wuhan and n_chis) else triplets_shanten(counts, wilds, n_sets, dead, live, kinds)
        if 0 <= st <= s + 1:
            ut = 0
            for k in range(34):
                if (kinds >> k) & 1 and 0 < counts[k] < 3 and not (dead >> k) & 1:
                    ut += live[k]
            d = plan_doublings(v, PLAN_TRIPLETS, one_suit, roots, has_wild)
            val = _plan_worth(st, ut, d, 3, True, v, payers, unseen, draws, wild_live, hazard, exit_value, fwork)
            if val > best:
                best, plan = val, PLAN_TRIPLETS
        # 断幺九: every 1 and 9 dead, no meld of a terminal
        if cf[CF_SIMPLES] > 0 and not (wuhan and n_chis):
            simple_melds = True
            for i in range(nmk):
                mk = meld_kinds[i]
                if mk >= 27 or mk % 9 == 0 or mk % 9 == 8:
                    simple_melds = False
            if simple_melds:
                tdead = dead | np.int64(TERMINAL_BITS)
                allowed = suited & ~np.int64(TERMINAL_BITS)
                ss = shanten_cached(counts, wilds, tdead, allowed, melded, table)
                if 0 <= ss <= s + 1:  # the useful tiles only for a plan within reach (a dead tile is a slow shanten)
                    su = buf[34:64]
                    ss, ns = useful_tiles(counts, wilds, tdead, allowed, melded, allowed & ~tdead, NEAR, table, su)
                    d = plan_doublings(v, PLAN_BASE, one_suit, roots, has_wild) + cf[CF_SIMPLES]
                    us = 0
                    for i in range(ns):
                        us += live[su[i]]
                    val = _plan_worth(
                        ss, us, d, 0, False, v, payers, unseen, draws, wild_live, hazard, exit_value, fwork
                    )
                    if val > best:
                        best, plan = val, PLAN_SIMPLES
    # readiness at exhaustion
    if cf[CF_READY_VALUE] > 0 and payers:
        p_ready = (
            1.0
            if s <= 0
            else completion_probability_into(
                s - 1, u_live, unseen, draws, 0, 0, False, wild_live, 0.0, fwork[0], fwork[1]
            )
        )
        best += p_ready * cf[CF_READY_VALUE] * payers
    return best, u_live, plan


# ---- the decision row ------------------------------------------------------------------------------------------
R_DEAD, R_PAYERS, R_UNSEEN, R_WILD_LIVE, R_VOID, R_INDICATOR, R_LAIZI = range(7)
NUM_R = 7
K_LIVE, K_HAND, K_WILD, K_PONGS, K_KONGS = range(5)
NUM_K = 5
F_DRAWS, F_HAZARD, F_EXIT = range(3)
NUM_F = 3


@njit(cache=True)
def value_row(hand, melded, wild, void, live, wall, indicator, chi_row, n_opp, opp, ci, cf, v, row_i, row_k, row_f,
              chis):  # fmt: skip  # pragma: no cover - compiled
    """Fill the decision row of ``hand_value`` from one decoded observation (:mod:`agents.compiled.decode` fields,
    ``chi_row``: the own ``chis`` plane, ``opp``: :func:`agents.compiled.danger.read_opponents`); returns the number
    of own 吃 runs written to ``chis`` (Wuhan only: ``ValueAgent._read_chis``)."""
    dead = np.int64(0) if void < 0 else np.int64(0x1FF) << (9 * void)
    active = 1
    unseen = 0
    wild_live = 0
    laizi = -1
    for k in range(34):
        unseen += live[k]
        if wild[k]:
            wild_live += live[k]
            if laizi < 0:
                laizi = k
        row_k[K_LIVE, k] = live[k]
        row_k[K_HAND, k] = hand[k]
        row_k[K_WILD, k] = wild[k]
        row_k[K_PONGS, k] = 1 if 0 < melded[k] < 4 else 0
        row_k[K_KONGS, k] = 1 if melded[k] == 4 else 0
    hz = 0.0
    for i in range(n_opp):
        if opp[i, 0]:  # O_ACTIVE
            active += 1
            hz += 0.04 + 0.15 * _ready_probability(opp[i])
    payers = active - 1
    cont = ci[CI_CONTINUATION]
    hazard = 0.0
    if cont == CONT_SINGLE or (cont == CONT_XUEZHAN and payers == 1):
        hazard = min(0.5, hz)
    exit_value = 0.0
    if cont != CONT_XUELIU and payers:
        exit_value = cf[CF_EXIT_WEIGHT] * payers * payment(v, v[V_BASE] + 1)
    row_i[R_DEAD] = dead
    row_i[R_PAYERS] = payers
    row_i[R_UNSEEN] = max(1, unseen)
    row_i[R_WILD_LIVE] = wild_live
    row_i[R_VOID] = void
    row_i[R_INDICATOR] = indicator
    row_i[R_LAIZI] = laizi
    row_f[F_DRAWS] = wall / max(active, 1)
    row_f[F_HAZARD] = hazard
    row_f[F_EXIT] = exit_value
    n_chis = 0
    if ci[CI_WUHAN]:
        left = np.zeros(27, dtype=np.int64)
        for k in range(27):
            left[k] = np.int64(np.rint(chi_row[k]))
        for k in range(27):
            while left[k] > 0 and k % 9 <= 6:
                chis[n_chis] = k
                n_chis += 1
                for j in range(3):
                    left[k + j] -= 1
    return n_chis


class ValueKit:
    """What ``hand_value`` needs per configuration (values vector, ``cfg_i`` / ``cfg_f``, the wait scorer) and
    :meth:`rows`, the decision rows of a batch of observations."""

    def __init__(
        self,
        cfg: RuleConfig,
        *,
        max_off_suit: int = 4,
        exhaustion_weight: float | None = None,
        exit_weight: float = 1.0,
        opponents: bool = True,
    ) -> None:
        """``opponents=False``: :meth:`rows` leaves the opponents unread (no opponent rows, ``n_opp`` 0, so the
        hand-value rows count no payers): for the greedy agent, which reads neither."""
        self.cfg = cfg
        self.opponents = bool(opponents)
        self.values = values_vector(cfg)
        weight = exhaustion_weight
        if weight is None:  # ValueAgent._configure
            weight = 0.0 if cfg.fan_table == "wuhan" else 1.0 if cfg.continuation == "xueliu" else 0.3
        ready_value = weight * VariantValues.of(cfg).payment(VariantValues.of(cfg).doublings["base"] + 1)
        self.ci, self.cf = config_vectors(
            cfg, max_off_suit=max_off_suit, ready_value=ready_value, exit_weight=float(exit_weight)
        )
        self.scorer = WaitScorer(cfg).args()
        self.in_play = in_play_mask(tuple(cfg.kinds))

    def rows(self, observations: np.ndarray) -> ValueRows:
        """Decode ``(B, C, 34)`` observations into the arrays ``hand_value`` and the danger model read."""
        d = decode_batch(observations, self.in_play)
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        if obs.ndim == 2:
            obs = obs[None]
        n = obs.shape[0]
        out = ValueRows(
            decoded=d,
            n_opp=np.zeros(n, dtype=np.int64),
            opp=np.zeros((n, 3, NUM_O), dtype=np.int64),
            disc=np.zeros((n, 3, NUM_KINDS), dtype=np.int64),
            opp_melded=np.zeros((n, 3, NUM_KINDS), dtype=np.int64),
            revealed=np.zeros((n, 3, NUM_KINDS), dtype=np.int64),
            row_i=np.zeros((n, NUM_R), dtype=np.int64),
            row_k=np.zeros((n, NUM_K, NUM_KINDS), dtype=np.int64),
            row_f=np.zeros((n, NUM_F), dtype=np.float64),
            chis=np.zeros((n, 8), dtype=np.int64),
            n_chis=np.zeros(n, dtype=np.int64),
        )
        _fill_rows(obs, self.opponents, OPP_ROWS, _CHI_ROW, d.hand, d.melded, d.wild, d.void, d.live, d.wall,
                   d.indicator, self.ci, self.cf, self.values, out.n_opp, out.opp, out.disc, out.opp_melded,
                   out.revealed, out.row_i, out.row_k, out.row_f, out.chis, out.n_chis)  # fmt: skip
        return out


@dataclass(frozen=True)
class ValueRows:
    """Per batch row: the decoded observation, the opponents (:func:`agents.compiled.danger.read_opponents`) and the
    decision row of ``hand_value`` (``row_i``, ``row_k``, ``row_f``, the own 吃 runs)."""

    decoded: Decoded
    n_opp: np.ndarray
    opp: np.ndarray
    disc: np.ndarray
    opp_melded: np.ndarray
    revealed: np.ndarray
    row_i: np.ndarray
    row_k: np.ndarray
    row_f: np.ndarray
    chis: np.ndarray
    n_chis: np.ndarray


@njit(cache=True, nogil=True)
def _fill_rows(obs, opponents, opp_rows, chi_row, hand, melded, wild, void, live, wall, indicator, ci, cf, v, n_opp,
               opp, disc, opp_melded, revealed, row_i, row_k, row_f, chis, n_chis):  # fmt: skip  # pragma: no cover
    for b in range(obs.shape[0]):
        if opponents:
            n_opp[b] = read_opponents(obs[b], opp_rows, opp[b], disc[b], opp_melded[b], revealed[b])
        n_chis[b] = value_row(hand[b], melded[b], wild[b], void[b], live[b], wall[b], indicator[b], obs[b, chi_row],
                              n_opp[b], opp[b], ci, cf, v, row_i[b], row_k[b], row_f[b], chis[b])  # fmt: skip
