"""Compiled value and defensive play (编译版价值 / 防守决策): the decisions :class:`agents.value.ValueAgent` and
:class:`agents.defensive.DefensiveAgent` make on the own turn and on a claim, in numba.

One decision row is a *position* tuple (:func:`position`: the decoded observation, the opponents and the
``hand_value`` row of :class:`agents.compiled.value_plans.ValueRows`) and a *setup* tuple (:class:`ValueSetup`:
values vector, configuration, wait scorer, shanten memo, action ids and the agent options as arrays — nothing of a
rule set or an option is frozen into numba's cache).  The functions mirror the Python methods one for one:

=============================  ==================================================================================
compiled                       Python
=============================  ==================================================================================
:func:`live_useful`            ``GreedyAgent._live_useful`` with ``ValueAgent._jiang_wait`` (武汉 big wins count)
:func:`discard_keys`           ``GreedyAgent._discard_options`` (speed order keys)
:func:`evaluate_discards`      ``ValueAgent.evaluate_discards``
:func:`choose_discard`         ``ValueAgent._choose_discard`` / ``DefensiveAgent._choose_discard``
:func:`void_discard`           ``GreedyAgent._void_discard`` / ``DefensiveAgent._void_discard``
:func:`kong_ok`                ``GreedyAgent._kong_ok`` with the value agent's ``kong_slack``
:func:`claim`                  ``GreedyAgent._claim`` with the value / defensive pong, 飞 and 吃 tests
:func:`waiting_is_worth_more`  ``ValueAgent._waiting_is_worth_more`` (the discard wins ``pass_win`` declines)
=============================  ==================================================================================

The phases the value agents take from the greedy agent unchanged (换三张, 定缺, 报胡, the own-turn variant actions)
are not here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from agents.compiled.danger import danger_from, deal_in_by_kind, expected_wilds, ready_estimate
from agents.compiled.hand_features import _DUMMIES, _JIANG, _has_jiang
from agents.compiled.opening import OPENING_ACTIONS
from agents.compiled.shanten_memo import MEMO, NEAR, discard_shanten, discard_useful, shanten_cached, useful_tiles
from agents.compiled.valuation import WaitScorer, discard_win_income, values_vector, wait_payment_memo
from agents.compiled.value_plans import (
    CI_HZ_CLAIMABLE,
    CI_NUM_TILES,
    CI_SUITED,
    CI_WUHAN,
    F_EXIT,
    K_PONGS,
    R_DEAD,
    R_INDICATOR,
    R_LAIZI,
    R_PAYERS,
    R_WILD_LIVE,
    ValueRows,
    config_vectors,
    hand_value,
    hand_value_work,
)
from envs.core.actions import CHI_BASE, FEI_ID, HU_ID, KONG_BASE, PASS_ID, PONG_ID
from envs.core.rule_config import RuleConfig

__all__ = ["ValueOptions", "ValueSetup", "choose_discard", "claim", "position"]

# action ids (passed as an array)
A_HU, A_PASS, A_KONG, A_PONG, A_FEI, A_CHI = range(6)
ACTIONS = np.array([HU_ID, PASS_ID, KONG_BASE, PONG_ID, FEI_ID, CHI_BASE], dtype=np.int64)

# integer options
(
    OI_SLACK,
    OI_LATE_WALL,
    OI_KONG_SLACK,
    OI_POLICY,
    OI_SHAGUI_MIN_LIVE,
    OI_VARIANT_ACTIONS,
    OI_DEFENSIVE,
    OI_FOLD_SHANTEN,
    OI_PUSH_WALL,
    OI_SAFE_FIRST,
    OI_STEER,
    OI_LIVE_SLACK,
    OI_INITIAL_WALL,
    OI_N_FOLD_RISK,
    OI_BAOHU_MIN_LIVE,
    OI_GREEDY,
) = range(16)
NUM_OI = 16
# float options (fold_risk thresholds from OF_FOLD_RISK on)
(
    OF_PONG_KEEP,
    OF_DANGER_WEIGHT,
    OF_FOLD_WALL_FRACTION,
    OF_FOLD_THREAT,
    OF_FOLD_RATIO,
    OF_PASS_WIN,
    OF_FOLD_RISK,
) = range(7)
POLICY_KEEP_ALL, POLICY_WHEN_STABLE, POLICY_BY_VALUE = 0, 1, 2
_POLICIES = {"keep_all": POLICY_KEEP_ALL, "shagui_when_stable": POLICY_WHEN_STABLE, "shagui_by_value": POLICY_BY_VALUE}
_NEVER = 1 << 30  # safe_first_shanten "off"
SAFE_FIRST_MARGIN = 0.01
_PREF = np.array([0 if k % 9 in (0, 8) else 1 if k % 9 in (1, 7) else 2 for k in range(34)], dtype=np.int64)
_TASTE = np.array([2 if k % 9 in (0, 8) else 1 if k % 9 in (1, 7) else 0 for k in range(34)], dtype=np.int64)
# scratch rows of the setup (ValueSetup.args: setup[10] int64, setup[11] float64), one per array a decision fills,
# so that nothing is allocated per decision; each function owns its rows, and no two functions that are active at the
# same time share one
(
    IW_COUNTS,
    IW_MELDED,
    IW_VISIBLE,
    IW_HAND,
    IW_WILD,
    IW_LEGAL,
    IW_VOID,
    IW_CANDS,
    IW_OUT_S,
    IW_OUT_U,
    IW_EVAL_BUF,
    IW_KEYS_BUF,
    IW_GREEDY_S,
    IW_GREEDY_U,
    IW_FAST_S,
    IW_FAST_U,
    IW_AFTER_CANDS,
    IW_AFTER_S,
    IW_AFTER_U,
    IW_CLAIM_C,
    IW_CLAIM_M,
    IW_KEEP_NOW,
    IW_KEEP_CHIS,
    IW_KEEP_C,
    IW_KONG_C,
    IW_KONG_M,
    IW_WILD_BUF,
    IW_KEYS_BITS,
) = range(28)
NUM_IW = 28
FW_OUT_V, FW_DANGER, FW_RISK, FW_ROWS = 0, 1, 2, 3  # FW_ROWS .. FW_ROWS + 2: the danger rows of the opponents
NUM_FW = 6


@dataclass(frozen=True)
class ValueOptions:
    """The play options of a value or defensive agent as the compiled functions read them (``oi`` ints, ``of``
    floats; :meth:`of_agent` reads them off a configured Python agent)."""

    oi: np.ndarray
    of: np.ndarray

    @classmethod
    def of_agent(cls, agent: Any, cfg: RuleConfig) -> ValueOptions:
        """The options of a :class:`agents.value.ValueAgent` (or :class:`agents.defensive.DefensiveAgent`) whose
        ``_configure(cfg)`` ran."""
        a = agent
        oi = np.zeros(NUM_OI, dtype=np.int64)
        oi[OI_SLACK] = a.slack
        oi[OI_LATE_WALL] = a.late_wall
        oi[OI_KONG_SLACK] = a.kong_slack
        oi[OI_POLICY] = _POLICIES[a.hongzhong_policy]
        oi[OI_SHAGUI_MIN_LIVE] = a.shagui_min_live
        oi[OI_VARIANT_ACTIONS] = a.variant_actions
        oi[OI_BAOHU_MIN_LIVE] = a.baohu_min_live
        oi[OI_INITIAL_WALL] = cfg.num_tiles - cfg.num_players * cfg.hand_size - 1
        of = [float(a.pong_keep), 0.0, 0.0, 0.0, 0.0, float(a.pass_win)]
        risk: tuple[float, ...] = (math.inf,)
        if hasattr(a, "danger_weight"):
            oi[OI_DEFENSIVE] = 1
            oi[OI_FOLD_SHANTEN] = a.fold_shanten
            oi[OI_PUSH_WALL] = a.push_wall
            sf = a.safe_first_shanten
            oi[OI_SAFE_FIRST] = _NEVER if math.isinf(sf) else int(sf)
            oi[OI_STEER] = 1 if a.steer == "speed" else 0
            oi[OI_LIVE_SLACK] = a.live_slack
            of[OF_DANGER_WEIGHT] = a.danger_weight
            of[OF_FOLD_WALL_FRACTION] = a.fold_wall_fraction
            of[OF_FOLD_THREAT] = a.fold_threat
            of[OF_FOLD_RATIO] = a.fold_ratio
            risk = tuple(a.fold_risk)
        oi[OI_N_FOLD_RISK] = len(risk)
        return cls(oi=oi, of=np.array([*of, *risk], dtype=np.float64))

    @classmethod
    def of_greedy(cls, agent: Any, cfg: RuleConfig) -> ValueOptions:
        """The options of a :class:`agents.greedy.GreedyAgent` (``OI_GREEDY``: the greedy agent's discard order,
        its 将 rule, no kong slack and no value test on claims)."""
        oi = np.zeros(NUM_OI, dtype=np.int64)
        oi[OI_POLICY] = _POLICIES[agent.hongzhong_policy]
        oi[OI_SHAGUI_MIN_LIVE] = agent.shagui_min_live
        oi[OI_VARIANT_ACTIONS] = agent.variant_actions
        oi[OI_BAOHU_MIN_LIVE] = agent.baohu_min_live
        oi[OI_INITIAL_WALL] = cfg.num_tiles - cfg.num_players * cfg.hand_size - 1
        oi[OI_GREEDY] = 1
        oi[OI_N_FOLD_RISK] = 1
        return cls(oi=oi, of=np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, math.inf], dtype=np.float64))


class ValueSetup:
    """Everything the compiled decisions read besides the position, for one configuration and one agent's options:
    :meth:`args` is the setup tuple."""

    def __init__(self, cfg: RuleConfig, options: ValueOptions, *, max_off_suit: int, ready_value: float,
                 exit_weight: float, simples_bonus: float = 0.0) -> None:  # fmt: skip
        self.cfg = cfg
        self.values = values_vector(cfg)
        self.ci, self.cf = config_vectors(
            cfg, max_off_suit=max_off_suit, ready_value=ready_value, exit_weight=exit_weight,
            simples_bonus=simples_bonus,
        )  # fmt: skip
        self.scorer = WaitScorer(cfg).args()
        self.options = options
        self.work = hand_value_work()
        self.iwork = np.zeros((NUM_IW, 34), dtype=np.int64)
        self.fwork = np.zeros((NUM_FW, 34), dtype=np.float64)

    @classmethod
    def of_agent(cls, agent: Any, cfg: RuleConfig) -> ValueSetup:
        """The setup of a Python value / defensive agent configured for ``cfg`` (its ``_configure`` ran)."""
        return cls(
            cfg,
            ValueOptions.of_agent(agent, cfg),
            max_off_suit=agent.max_off_suit,
            ready_value=agent._ready_value,
            exit_weight=agent.exit_weight,
            simples_bonus=float(agent._simples_bonus),
        )

    def args(self) -> tuple:
        """``(values, cfg_i, cfg_f, scorer, shanten memo, actions, options_i, options_f, opening actions, hand-value
        scratch, int scratch rows, float scratch rows)``."""
        return (self.values, self.ci, self.cf, self.scorer, MEMO, ACTIONS, self.options.oi, self.options.of,
                OPENING_ACTIONS, self.work, self.iwork, self.fwork)  # fmt: skip


def position(rows: ValueRows, b: int) -> tuple:
    """The position tuple of batch row ``b`` (fresh int64 copies of the hand arrays the decisions modify)."""
    d = rows.decoded
    return (
        d.counts[b].astype(np.int64),
        int(d.wilds[b]),
        d.melded[b].astype(np.int64),
        int(d.n_melds[b]),
        d.visible[b].astype(np.int64),
        d.wall[b],
        d.hand[b].astype(np.int64),
        d.wild[b].astype(np.int64),
        int(d.opened[b]),
        rows.chis[b],
        rows.n_chis[b],
        rows.row_i[b],
        rows.row_k[b],
        rows.row_f[b],
        rows.n_opp[b],
        rows.opp[b],
        rows.disc[b],
        rows.opp_melded[b],
        rows.revealed[b],
        d.claim_tile[b],
        d.won[b],
    )


# ---- speed helpers (the greedy agent's, with the value agent's 将 rule) -----------------------------------------
@njit(cache=True)
def _shanten(counts, wilds, dead, suited, melded, table):  # pragma: no cover - compiled
    return shanten_cached(counts, wilds, dead, suited, melded, table)


@njit(cache=True)
def jiang_wait(counts, wilds, t, melded, pos, setup):  # pragma: no cover - compiled
    """``ValueAgent._jiang_wait``: the wait ``t`` of the 3k+1 hand gives a 2-5-8 pair, or wins as a Wuhan big win."""
    v = setup[0]
    ci = setup[1]
    scorer = setup[3]
    table = setup[4]
    row_i = pos[11]
    counts[t] += 1
    ok = _has_jiang(counts, wilds, ci[CI_SUITED], melded, _DUMMIES, _JIANG, table[0])
    counts[t] -= 1
    if ok:
        return True
    if not ci[CI_WUHAN] or setup[6][OI_GREEDY]:  # the greedy agent counts a 2-5-8 pair only
        return False
    chis, n_chis = pos[9], pos[10]
    hand = np.zeros(34, dtype=np.int32)
    for k in range(34):
        hand[k] = counts[k]
    if row_i[R_LAIZI] >= 0:
        hand[row_i[R_LAIZI]] += wilds
    melds = np.zeros(3 * 16, dtype=np.int32)
    n = 0
    for mk in (3, 4):
        for k in range(34):
            if melded[k] == mk:
                melds[3 * n] = 1 if mk == 3 else 2
                melds[3 * n + 1] = k
                melds[3 * n + 2] = -1
                n += 1
    for i in range(n_chis):
        melds[3 * n] = 6
        melds[3 * n + 1] = chis[i]
        melds[3 * n + 2] = -1
        n += 1
    kind, rules, consts, work, memo = scorer
    return wait_payment_memo(hand, melds, n, -1, row_i[R_INDICATOR], t, v, kind, rules, consts, work, memo) > 0


@njit(cache=True, inline="always")
def live_useful(counts, wilds, melded, k, jiang, pos, setup, buf):  # pragma: no cover - compiled
    """``GreedyAgent._live_useful`` (value agent's 将 rule): live effective tiles after discarding ``k`` (``counts``
    is restored).  Inlined where it is called, as are the memo lookups it makes: a compiled call that passes the
    position or setup tuples on pays a reference count on every array they hold, on every call."""
    ci = setup[1]
    if ci[CI_WUHAN] and jiang:
        return _live_useful_jiang(counts, wilds, melded, k, pos, setup, buf)
    wild = pos[7]
    live = pos[12][0]
    w = wilds
    if wild[k]:
        w -= 1
    else:
        counts[k] -= 1
    dead = pos[11][R_DEAD]
    suited = ci[CI_SUITED]
    _, n = useful_tiles(counts, w, dead, suited, melded, suited & ~dead, NEAR, setup[4], buf)
    total = 0
    for i in range(n):
        total += live[buf[i]]
    if not wild[k]:
        counts[k] += 1
    return total


@njit(cache=True)
def _live_useful_jiang(counts, wilds, melded, k, pos, setup, buf):  # pragma: no cover - compiled
    """:func:`live_useful` of a Wuhan hand: a ready hand's waits count only with a 2-5-8 pair (or a big win)."""
    ci = setup[1]
    table = setup[4]
    row_i, row_k = pos[11], pos[12]
    wild = pos[7]
    live = row_k[0]
    w = wilds
    if wild[k]:
        w -= 1
    else:
        counts[k] -= 1
    dead = row_i[R_DEAD]
    suited = ci[CI_SUITED]
    s, n = useful_tiles(counts, w, dead, suited, melded, suited & ~dead, NEAR, table, buf)
    total = 0
    for i in range(n):
        t = buf[i]
        if s == 0 and not jiang_wait(counts, w, t, melded, pos, setup):
            continue
        total += live[t]
    if not wild[k]:
        counts[k] += 1
    return total


@njit(cache=True)
def _discard_split(counts, wilds, melded, cands, n, dead, suited, wild, table, out_s, masks):
    # pragma: no cover - compiled
    """The shanten after discarding each ``cands[i]`` into ``out_s[i]``; True when, every candidate a natural tile,
    one split also gave the useful kinds of each discard of the least shanten as the bit masks ``masks[i]``
    (:func:`discard_useful`), False when only the shanten were asked (:func:`discard_shanten`)."""
    natural = True
    for i in range(n):
        if wild[cands[i]]:
            natural = False
    if natural and discard_useful(counts, wilds, melded, cands, n, dead, suited, table, out_s, masks):
        return True
    discard_shanten(counts, wilds, melded, cands, n, dead, suited, wild, table, out_s)
    return False


@njit(cache=True)
def discard_keys(counts, wilds, melded, cands, n, pos, setup, out_s, out_u):  # pragma: no cover - compiled
    """``GreedyAgent._discard_options``: per candidate ``cands[i]`` its shanten ``out_s[i]`` and live effective
    tiles ``out_u[i]`` (0 unless the shanten is the best); the full key is ``(s, -u, pref, -visible, k)``."""
    ci = setup[1]
    table = setup[4]
    row_i = pos[11]
    wild = pos[7]
    dead = row_i[R_DEAD]
    suited = ci[CI_SUITED]
    buf = setup[10][IW_KEYS_BUF]
    masks = setup[10][IW_KEYS_BITS]
    wild_live = row_i[R_WILD_LIVE]
    # masks[i]: the useful kinds after discarding cands[i] as a bit mask, for the discards of the least shanten
    bits = _discard_split(counts, wilds, melded, cands, n, dead, suited, wild, table, out_s, masks)
    s_bits = out_s[0]
    for i in range(n):
        s_bits = min(s_bits, out_s[i])
        out_u[i] = 0
    if ci[CI_WUHAN]:  # ready by shape only (no wait gives a 2-5-8 pair) is one step from a small win
        for i in range(n):
            if out_s[i] == 0:
                if bits:
                    u = _jiang_live(counts, wilds, melded, cands[i], masks[i], pos, setup)
                else:
                    u = live_useful(counts, wilds, melded, cands[i], True, pos, setup, buf)
                out_u[i] = u if u else -1  # kept for below (-1: one step from ready now)
                if u == 0:
                    out_s[i] = 1
    s_min = out_s[0]
    for i in range(n):
        s_min = min(s_min, out_s[i])
    live = pos[12][0]
    for i in range(n):
        kept = out_u[i]
        out_u[i] = 0
        if out_s[i] != s_min:
            continue
        if out_s[i] == 0 and ci[CI_WUHAN]:
            u = kept
        elif bits and (out_s[i] == s_bits or kept < 0):
            u = 0
            for t in range(34):
                if (masks[i] >> t) & 1:
                    u += live[t]
        else:
            u = live_useful(counts, wilds, melded, cands[i], out_s[i] == 0, pos, setup, buf)
        out_u[i] = u + (wild_live if out_s[i] >= 0 else 0)


@njit(cache=True)
def _jiang_live(counts, wilds, melded, k, mask, pos, setup):  # pragma: no cover - compiled
    """:func:`live_useful` with the 将 rule of a discard ``k`` that leaves the hand ready, from the bit ``mask`` of
    its waits (``counts`` is restored)."""
    live = pos[12][0]
    counts[k] -= 1
    total = 0
    for t in range(34):
        if (mask >> t) & 1 and jiang_wait(counts, wilds, t, melded, pos, setup):
            total += live[t]
    counts[k] += 1
    return total


@njit(cache=True)
def _key_less(s1, u1, k1, s2, u2, k2, visible):  # pragma: no cover - compiled
    """``(s, -u, pref, -visible, k)`` of kind ``k1`` below that of ``k2``."""
    if s1 != s2:
        return s1 < s2
    if u1 != u2:
        return u1 > u2
    if _PREF[k1] != _PREF[k2]:
        return _PREF[k1] < _PREF[k2]
    if visible[k1] != visible[k2]:
        return visible[k1] > visible[k2]
    return k1 < k2


@njit(cache=True)
def after_claim_key(counts, wilds, melded, pos, setup):  # pragma: no cover - compiled
    """``VariantPlay._after_claim_key`` without the rank: ``(shanten, -live)`` of the best discard of the claimed
    3k+2 hand."""
    cands = setup[10][IW_AFTER_CANDS]
    n = 0
    for t in range(34):
        if counts[t]:
            cands[n] = t
            n += 1
    if n == 0:
        return 0, 0
    out_s = setup[10][IW_AFTER_S]
    out_u = setup[10][IW_AFTER_U]
    discard_keys(counts, wilds, melded, cands, n, pos, setup, out_s, out_u)
    bs, bu = out_s[0], -out_u[0]
    for i in range(1, n):
        if out_s[i] < bs or (out_s[i] == bs and -out_u[i] < bu):
            bs, bu = out_s[i], -out_u[i]
    return bs, bu


# ---- value estimates ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _hand_value(counts, wilds, melded, n_melds, chis, n_chis, pos, setup):  # pragma: no cover - compiled
    v = setup[0]
    ci = setup[1]
    cf = setup[2]
    scorer = setup[3]
    table = setup[4]
    return hand_value(counts, wilds, melded, n_melds, chis, n_chis, pos[11], pos[12], pos[13], v, ci, cf, scorer,
                      table, setup[9])  # fmt: skip


@njit(cache=True)
def evaluate_discards(cands, n, every, pos, setup, out_s, out_u, out_v):  # pragma: no cover - compiled
    """``ValueAgent.evaluate_discards``: per candidate its shanten, the standard plan's live useful tiles and the
    estimate (-1 beyond the speed slack unless ``every``)."""
    ci = setup[1]
    table = setup[4]
    oi = setup[6]
    counts, wilds, melded, n_melds = pos[0], pos[1], pos[2], pos[3]
    wall = pos[5]
    wild = pos[7]
    row_i = pos[11]
    dead = row_i[R_DEAD]
    suited = ci[CI_SUITED]
    buf = setup[10][IW_EVAL_BUF]
    masks = setup[10][IW_KEYS_BITS]
    # one split for the shanten after each discard and the useful tiles after each of the least shanten (the memo
    # then answers the standard plan's useful tiles of every estimate below)
    bits = _discard_split(counts, wilds, melded, cands, n, dead, suited, wild, table, out_s, masks)
    if ci[CI_WUHAN]:
        for i in range(n):
            if out_s[i] != 0:
                continue
            if bits:  # a discard that leaves the hand ready has the least shanten: its waits are masks[i]
                u = _jiang_live(counts, wilds, melded, cands[i], masks[i], pos, setup)
            else:
                u = live_useful(counts, wilds, melded, cands[i], True, pos, setup, buf)
            if u == 0:
                out_s[i] = 1
    s_min = out_s[0]
    for i in range(n):
        s_min = min(s_min, out_s[i])
    slack = oi[OI_SLACK] if wall >= oi[OI_LATE_WALL] else 0
    for i in range(n):
        k = cands[i]
        s = out_s[i]
        if s > s_min + slack and not every:
            out_u[i] = 0
            out_v[i] = -1.0
            continue
        w = wilds
        if wild[k]:
            w -= 1
        else:
            counts[k] -= 1
        val, useful, _ = _hand_value(counts, w, melded, n_melds, pos[9], pos[10], pos, setup)
        if not wild[k]:
            counts[k] += 1
        out_u[i] = useful
        out_v[i] = val


@njit(cache=True)
def waiting_is_worth_more(pos, setup):  # pragma: no cover - compiled
    """``ValueAgent._waiting_is_worth_more``: decline the discard win on the claimed tile when the ready hand's
    estimate is above ``pass_win`` × the win's income now plus its exit value."""
    t = pos[19]
    row_i = pos[11]
    row_f = pos[13]
    # the estimate first: it prices every wait of the ready hand (the claimed tile is one) into the scratch row
    wait, _, _ = _hand_value(pos[0], pos[1], pos[2], pos[3], pos[9], pos[10], pos, setup)
    pay = setup[9][3][t]
    if pay <= 0.0:
        return False
    payers = row_i[R_PAYERS]
    now = discard_win_income(setup[0], pay, payers) + row_f[F_EXIT]
    return wait > setup[7][OF_PASS_WIN] * now


@njit(cache=True)
def _taste_less(k1, k2, visible):  # pragma: no cover - compiled
    """``ValueAgent._taste`` of ``k1`` below that of ``k2``."""
    if _TASTE[k1] != _TASTE[k2]:
        return _TASTE[k1] < _TASTE[k2]
    if visible[k1] != visible[k2]:
        return visible[k1] < visible[k2]
    return k1 > k2


@njit(cache=True)
def _better(v1, s1, u1, k1, v2, s2, u2, k2, visible):  # pragma: no cover - compiled
    """``(value, -shanten, useful, taste)`` of option 1 above that of option 2."""
    if v1 != v2:
        return v1 > v2
    if s1 != s2:
        return s1 < s2
    if u1 != u2:
        return u1 > u2
    return _taste_less(k2, k1, visible)


# ---- discards ----------------------------------------------------------------------------------------------------
@njit(cache=True)
def wild_discard_kind(legal, n_legal, pos, setup):  # pragma: no cover - compiled
    """``GreedyAgent._wild_discard_kinds`` (value: none under ``shagui_by_value``): the first wildcard kind to
    discard now, or -1."""
    ci = setup[1]
    table = setup[4]
    oi = setup[6]
    counts, wilds, melded = pos[0], pos[1], pos[2]
    wild = pos[7]
    first = -1
    for i in range(n_legal):
        if wild[legal[i]]:
            first = legal[i]
            break
    if first < 0 or wilds != 1 or oi[OI_POLICY] != POLICY_WHEN_STABLE:
        return -1
    row_i, row_k = pos[11], pos[12]
    dead = row_i[R_DEAD]
    suited = ci[CI_SUITED]
    buf = setup[10][IW_WILD_BUF]
    s, n = useful_tiles(counts, 0, dead, suited, melded, suited & ~dead, NEAR, table, buf)
    if s != 0:
        return -1
    total = 0
    for i in range(n):
        total += row_k[0, buf[i]]
    return first if total >= oi[OI_SHAGUI_MIN_LIVE] else -1


@njit(cache=True)
def _danger(pos, setup, rows, danger):  # pragma: no cover - compiled
    """``deal_in_by_kind`` into ``rows`` and ``danger_from`` into ``danger``."""
    v = setup[0]
    ci = setup[1]
    table = setup[4]
    row_k = pos[12]
    deal_in_by_kind(pos[14], pos[15], pos[16], pos[17], pos[18], pos[6], pos[7], row_k[0], pos[4],
                    ci[CI_HZ_CLAIMABLE] != 0, ci[CI_NUM_TILES], ci[CI_SUITED], table[0], rows)  # fmt: skip
    danger_from(pos[14], pos[15], rows, v, danger)


@njit(cache=True)
def void_discard(kinds, n, pos, setup):  # pragma: no cover - compiled
    """``GreedyAgent._void_discard`` (defensive: safest first)."""
    oi = setup[6]
    counts, visible = pos[0], pos[4]
    danger = setup[11][FW_DANGER]
    danger[:] = 0.0
    if oi[OI_DEFENSIVE]:
        rows = setup[11][FW_ROWS : FW_ROWS + 3]
        rows[:] = 0.0
        _danger(pos, setup, rows, danger)
    best = kinds[0]
    for i in range(1, n):
        k = kinds[i]
        if danger[k] != danger[best]:
            if danger[k] < danger[best]:
                best = k
            continue
        if counts[k] != counts[best]:
            if counts[k] < counts[best]:
                best = k
            continue
        if visible[k] != visible[best]:
            if visible[k] > visible[best]:
                best = k
            continue
        if k < best:
            best = k
    return best


@njit(cache=True)
def folding(best_shanten, pos, setup):  # pragma: no cover - compiled
    """``DefensiveAgent.folding``."""
    ci = setup[1]
    oi = setup[6]
    of = setup[7]
    if best_shanten < oi[OI_FOLD_SHANTEN]:
        return False
    if pos[5] > of[OF_FOLD_WALL_FRACTION] * oi[OI_INITIAL_WALL]:
        return False
    wild = pos[7]
    n_wild = 0
    for k in range(34):
        if wild[k]:
            n_wild += 1
    wilds = expected_wilds(n_wild, ci[CI_NUM_TILES])
    threat = False
    for i in range(pos[14]):  # any() over a generator does not compile
        if ready_estimate(pos[15][i], pos[16][i], wilds) >= of[OF_FOLD_THREAT]:
            threat = True
            break
    return threat


@njit(cache=True)
def choose_discard(legal, n_legal, pos, setup):  # pragma: no cover - compiled
    """``ValueAgent._choose_discard``, (``OI_DEFENSIVE``) ``DefensiveAgent._choose_discard`` or (``OI_GREEDY``)
    ``GreedyAgent._choose_discard`` over the legal discard kinds ``legal[:n_legal]``."""
    oi = setup[6]
    of = setup[7]
    wild, visible = pos[7], pos[4]
    defensive = oi[OI_DEFENSIVE] != 0
    wild_now = wild_discard_kind(legal, n_legal, pos, setup)
    if wild_now >= 0 and not defensive:
        return wild_now
    cands = setup[10][IW_CANDS]
    n = 0
    for i in range(n_legal):
        if not wild[legal[i]]:
            cands[n] = legal[i]
            n += 1
    if n == 0:
        for i in range(n_legal):
            cands[n] = legal[i]
            n += 1
    if oi[OI_GREEDY]:  # GreedyAgent._choose_discard: the least (shanten, -live useful, pref, -visible, kind)
        g_s = setup[10][IW_GREEDY_S]
        g_u = setup[10][IW_GREEDY_U]
        discard_keys(pos[0], pos[1], pos[2], cands, n, pos, setup, g_s, g_u)
        b = 0
        for i in range(1, n):
            if _key_less(g_s[i], g_u[i], cands[i], g_s[b], g_u[b], cands[b], visible):
                b = i
        return cands[b]
    if oi[OI_POLICY] == POLICY_BY_VALUE and pos[1] == 1:
        for i in range(n_legal):
            k = legal[i]
            if wild[k]:
                dup = False
                for j in range(n):
                    if cands[j] == k:
                        dup = True
                if not dup:
                    cands[n] = k
                    n += 1
    out_s = setup[10][IW_OUT_S]
    out_u = setup[10][IW_OUT_U]
    out_v = setup[11][FW_OUT_V]
    late = pos[5] <= oi[OI_PUSH_WALL]
    evaluate_discards(cands, n, defensive and late, pos, setup, out_s, out_u, out_v)
    if not defensive:
        b = 0
        for i in range(1, n):
            if _better(out_v[i], out_s[i], out_u[i], cands[i], out_v[b], out_s[b], out_u[b], cands[b], visible):
                b = i
        return cands[b]
    rows = setup[11][FW_ROWS : FW_ROWS + 3]
    rows[:] = 0.0
    danger = setup[11][FW_DANGER]
    danger[:] = 0.0
    _danger(pos, setup, rows, danger)
    risk = setup[11][FW_RISK]
    for t in range(34):
        r = 0.0
        for i in range(pos[14]):
            r += rows[i, t]
        risk[t] = r
    s_min = out_s[0]
    for i in range(n):
        s_min = min(s_min, out_s[i])
    if folding(s_min, pos, setup):
        b = _min_safe(cands, n, out_s, out_v, danger, wild)
        return cands[b]
    if wild_now >= 0:
        low = danger[cands[0]]
        for i in range(n):
            low = min(low, danger[cands[i]])
        if danger[wild_now] <= low:
            return wild_now
    if oi[OI_STEER] == 1:
        b = _fastest_safest(cands, n, risk, danger, pos, setup)
    else:
        b = _value_push(cands, n, out_s, out_u, out_v, s_min, late, risk, danger, pos, setup)
    nr = oi[OI_N_FOLD_RISK]
    limit = of[OF_FOLD_RISK + min(max(s_min, 0), nr - 1)]
    if risk[cands[b]] > limit:
        a = _min_safe(cands, n, out_s, out_v, risk, wild)
        if risk[cands[a]] < risk[cands[b]] * of[OF_FOLD_RATIO]:
            return cands[a]
    return cands[b]


@njit(cache=True)
def _min_safe(cands, n, out_s, out_v, score, wild):  # pragma: no cover - compiled
    """Index of the least ``(score, shanten, -value, kind)`` among the natural candidates (all when none)."""
    any_natural = False
    for i in range(n):
        if not wild[cands[i]]:
            any_natural = True
    b = -1
    for i in range(n):
        k = cands[i]
        if any_natural and wild[k]:
            continue
        if b < 0:
            b = i
            continue
        kb = cands[b]
        if score[k] != score[kb]:
            if score[k] < score[kb]:
                b = i
            continue
        if out_s[i] != out_s[b]:
            if out_s[i] < out_s[b]:
                b = i
            continue
        if out_v[i] != out_v[b]:
            if out_v[i] > out_v[b]:
                b = i
            continue
        if k < kb:
            b = i
    return b


@njit(cache=True)
def _value_push(cands, n, out_s, out_u, out_v, s_min, late, risk, danger, pos, setup):  # pragma: no cover
    """``DefensiveAgent._value_push``: index of the chosen option."""
    oi = setup[6]
    of = setup[7]
    visible = pos[4]
    w = of[OF_DANGER_WEIGHT]
    pool = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        pool[i] = (late and s_min >= 1) or out_s[i] == s_min
    if s_min >= oi[OI_SAFE_FIRST]:
        low = math.inf
        for i in range(n):
            if pool[i]:
                low = min(low, risk[cands[i]])
        for i in range(n):
            if pool[i] and not risk[cands[i]] <= low + SAFE_FIRST_MARGIN:
                pool[i] = False
    b = -1
    for i in range(n):
        if not pool[i]:
            continue
        if b < 0:
            b = i
            continue
        vi = out_v[i] - w * danger[cands[i]]
        vb = out_v[b] - w * danger[cands[b]]
        if _better(vi, out_s[i], out_u[i], cands[i], vb, out_s[b], out_u[b], cands[b], visible):
            b = i
    return b


@njit(cache=True)
def _fastest_safest(cands, n, risk, danger, pos, setup):  # pragma: no cover - compiled
    """``DefensiveAgent._fastest_safest``: index of the chosen option."""
    oi = setup[6]
    visible = pos[4]
    ks = setup[10][IW_FAST_S]
    ku = setup[10][IW_FAST_U]
    discard_keys(pos[0], pos[1], pos[2], cands, n, pos, setup, ks, ku)
    f = 0
    for i in range(1, n):
        if _key_less(ks[i], ku[i], cands[i], ks[f], ku[f], cands[f], visible):
            f = i
    s_min, u_max = ks[f], ku[f]
    b = -1
    for i in range(n):
        if not (ks[i] == s_min and ku[i] >= u_max - oi[OI_LIVE_SLACK]):
            continue
        if b < 0:
            b = i
            continue
        ki, kb = cands[i], cands[b]
        if risk[ki] != risk[kb]:
            if risk[ki] < risk[kb]:
                b = i
            continue
        if danger[ki] != danger[kb]:
            if danger[ki] < danger[kb]:
                b = i
            continue
        if _key_less(ks[i], ku[i], ki, ks[b], ku[b], kb, visible):
            b = i
    return b


# ---- kongs and claims --------------------------------------------------------------------------------------------
@njit(cache=True)
def _kong_slack(pos, setup):  # pragma: no cover - compiled
    oi = setup[6]
    return oi[OI_KONG_SLACK] if pos[5] >= 2 * oi[OI_LATE_WALL] else 0


@njit(cache=True)
def kong_ok(k, s_now, pos, setup):  # pragma: no cover - compiled
    """``GreedyAgent._kong_ok`` (own-turn 暗杠 / 补杠) with the value agent's kong slack."""
    ci = setup[1]
    table = setup[4]
    counts, wilds, melded = pos[0], pos[1], pos[2]
    row_i, row_k = pos[11], pos[12]
    c = setup[10][IW_KONG_C]
    c[:] = counts
    if row_k[K_PONGS, k]:
        c[k] -= 1
    else:
        c[k] -= 4
    m = setup[10][IW_KONG_M]
    m[:] = melded
    m[k] = 4
    s = _shanten(c, wilds, row_i[R_DEAD], ci[CI_SUITED], m, table)
    return s <= max(s_now, 0) + _kong_slack(pos, setup)


@njit(cache=True)
def own_turn(mask, pos, setup):  # pragma: no cover - compiled
    """``GreedyAgent._self_turn`` after the variant actions: an own kong that keeps the hand, the void tiles, then
    :func:`choose_discard`; -1 when no discard and no kong applies (the caller plays the first legal action)."""
    ci = setup[1]
    table = setup[4]
    act = setup[5]
    counts, wilds, melded = pos[0], pos[1], pos[2]
    row_i = pos[11]
    dead = row_i[R_DEAD]
    kong_base = act[A_KONG]
    has_kong = False
    for k in range(34):
        if mask[kong_base + k]:
            has_kong = True
    if has_kong:
        s_now = _shanten(counts, wilds, dead, ci[CI_SUITED], melded, table)
        for k in range(34):
            if mask[kong_base + k] and kong_ok(k, s_now, pos, setup):
                return kong_base + k
    legal = setup[10][IW_LEGAL]
    n = 0
    void = setup[10][IW_VOID]
    nv = 0
    for k in range(34):
        if mask[k]:
            legal[n] = k
            n += 1
            if (dead >> k) & 1:
                void[nv] = k
                nv += 1
    if nv:
        return void_discard(void, nv, pos, setup)
    if n == 0:
        return -1
    return choose_discard(legal, n, pos, setup)


@njit(cache=True)
def _claim_keeps_value(counts, wilds, melded, chi_low, pos, setup):  # pragma: no cover - compiled
    """``ValueAgent._claim_keeps_value`` of the claimed 3k+2 hand ``counts`` (``chi_low`` >= 0: the 吃 run made);
    always true for the greedy agent."""
    ci = setup[1]
    of = setup[7]
    if setup[6][OI_GREEDY]:
        return True
    if ci[CI_WUHAN] and not pos[8]:
        return True
    c0 = setup[10][IW_KEEP_NOW]
    c0[:] = pos[0]
    now, _, _ = _hand_value(c0, pos[1], pos[2], pos[3], pos[9], pos[10], pos, setup)
    need = of[OF_PONG_KEEP] * now
    if need <= 0.0:  # the best value after the claim is at least 0
        return True
    chis = setup[10][IW_KEEP_CHIS]
    chis[: pos[9].shape[0]] = pos[9]
    n_chis = pos[10]
    if chi_low >= 0:
        chis[n_chis] = chi_low
        n_chis += 1
    wild = pos[7]
    c = setup[10][IW_KEEP_C]
    c[:] = counts
    for d in range(34):  # the Python agent's max over the discards, stopped at the first that is enough
        if c[d] <= 0 or wild[d]:
            continue
        c[d] -= 1
        val, _, _ = _hand_value(c, wilds, melded, pos[3] + 1, chis, n_chis, pos, setup)
        c[d] += 1
        if val >= need:
            return True
    return False


@njit(cache=True)
def claim(mask, pos, setup):  # pragma: no cover - compiled
    """``GreedyAgent._claim`` with the value agent's pong / 飞 / 吃 tests (and the defensive agent's folding):
    an exposed kong, the best acceptable meld claim, else PASS (the first legal action when PASS is not legal)."""
    ci = setup[1]
    table = setup[4]
    act = setup[5]
    oi = setup[6]
    counts, wilds, melded = pos[0], pos[1], pos[2]
    row_i = pos[11]
    dead = row_i[R_DEAD]
    suited = ci[CI_SUITED]
    k = pos[19]
    passing = act[A_PASS] if mask[act[A_PASS]] else -1
    if k < 0:
        return passing
    s_now = _shanten(counts, wilds, dead, suited, melded, table)
    if mask[act[A_KONG] + k]:
        c = setup[10][IW_CLAIM_C]
        c[:] = counts
        c[k] -= 3
        m = setup[10][IW_CLAIM_M]
        m[:] = melded
        m[k] = 4
        if _shanten(c, wilds, dead, suited, m, table) <= s_now + _kong_slack(pos, setup):
            return act[A_KONG] + k
    fold = oi[OI_DEFENSIVE] != 0 and folding(s_now, pos, setup)
    # the acceptable meld claims (the Python agent's options): the pong, the 飞 (its key, which its test needs) and
    # the 吃 of each position (bit p of ``chi_ok``)
    pong_ok = False
    fei_ok = False
    fs, fu = 0, 0
    chi_ok = 0
    n_ok = 0
    if mask[act[A_PONG]] and not fold:
        c, m = _claimed(counts, melded, k, 2, 3, setup)
        if max(_shanten(c, wilds, dead, suited, m, table), 0) <= s_now and _claim_keeps_value(c, wilds, m, -1, pos,
                                                                                               setup):  # fmt: skip
            pong_ok = True
            n_ok += 1
    if oi[OI_VARIANT_ACTIONS]:
        if mask[act[A_FEI]]:
            nat = 1 if counts[k] else 0
            w = wilds - (2 - nat)
            if w >= 0:
                c, m = _claimed(counts, melded, k, nat, min(3, 4 - (counts[k] - nat)), setup)
                fs, fu = after_claim_key(c, w, m, pos, setup)
                if fs < s_now and _claim_keeps_value(c, w, m, -1, pos, setup):
                    fei_ok = True
                    n_ok += 1
        for p in range(3):
            if not mask[act[A_CHI] + p]:
                continue
            c = _chi_claimed(counts, k, p, setup)
            if max(_shanten(c, wilds, dead, suited, melded, table), 0) > s_now:
                continue
            if pos[8] and not _claim_keeps_value(c, wilds, melded, k - p, pos, setup):
                continue
            chi_ok |= 1 << p
            n_ok += 1
    if n_ok == 0:
        return passing
    if n_ok == 1:  # a single acceptable claim is taken without comparing the hands after it
        if pong_ok:
            return act[A_PONG]
        if fei_ok:
            return act[A_FEI]
        for p in range(3):
            if (chi_ok >> p) & 1:
                return act[A_CHI] + p
    # several: the least (shanten, -live) of the best discard after each, then pong before 飞 before 吃
    best = -1
    bs, bu = 0, 0
    if pong_ok:
        c, m = _claimed(counts, melded, k, 2, 3, setup)
        bs, bu = after_claim_key(c, wilds, m, pos, setup)
        best = act[A_PONG]
    if fei_ok and (best < 0 or fs < bs or (fs == bs and fu < bu)):
        best, bs, bu = act[A_FEI], fs, fu
    for p in range(3):
        if not (chi_ok >> p) & 1:
            continue
        c = _chi_claimed(counts, k, p, setup)
        s, u = after_claim_key(c, wilds, melded, pos, setup)
        if best < 0 or s < bs or (s == bs and u < bu):
            best, bs, bu = act[A_CHI] + p, s, u
    return best


@njit(cache=True, inline="always")
def _claimed(counts, melded, k, taken, meld, setup):  # pragma: no cover - compiled
    """The hand after a pong or 飞 of the discard ``k`` in the claim scratch rows: ``taken`` natural copies of ``k``
    out of ``counts``, ``melded[k]`` set to ``meld``."""
    c = setup[10][IW_CLAIM_C]
    c[:] = counts
    c[k] -= taken
    m = setup[10][IW_CLAIM_M]
    m[:] = melded
    m[k] = meld
    return c, m


@njit(cache=True, inline="always")
def _chi_claimed(counts, k, p, setup):  # pragma: no cover - compiled
    """The hand after the 吃 of the discard ``k`` at position ``p`` (the run from ``k - p``) in the claim scratch."""
    c = setup[10][IW_CLAIM_C]
    c[:] = counts
    low = k - p
    for j in range(3):
        if low + j != k:
            c[low + j] -= 1
    return c
