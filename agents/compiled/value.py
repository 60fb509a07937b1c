"""Compiled value baseline (编译版价值智能体): :class:`agents.value.ValueAgent`'s decisions for a whole batch.

:class:`BatchValueAgent` answers ``act_batch(observations, masks)`` with one numba call for all rows: the own turn,
claims and 抢杠 (:mod:`agents.compiled.value_play`: kongs, void tiles, the value estimate of every discard, the pong /
飞 / 吃 value test, wins, the discard wins that ``pass_win`` declines and the 红中 policy) and the phases the value
agent plays as the greedy agent does (:mod:`agents.compiled.opening`: 换三张, 定缺, the 报胡 question and the own-turn
variant actions 提, 红中杠, 赖子杠, 请胡 and the dealer's 报胡).  Every row gets the Python agent's decision
(``tests/agents/test_compiled_value.py``).

Options are the Python agent's (:class:`agents.value.ValueAgent`, :class:`agents.defensive.DefensiveAgent`): the
Python constructor checks them, and every one of them is read by the compiled code (:class:`~agents.compiled.
value_play.ValueOptions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.compiled.borrow import borrowed
from agents.compiled.opening import declare, dingque, exchange, variant_self_action
from agents.compiled.shanten import fill_suit_table
from agents.compiled.shanten_memo import thread_memo
from agents.compiled.value_plans import CI_MAX_LAIZI, CI_SUITED, ValueKit
from agents.compiled.value_play import (
    IW_COUNTS,
    IW_HAND,
    IW_MELDED,
    IW_VISIBLE,
    IW_WILD,
    OF_PASS_WIN,
    OI_BAOHU_MIN_LIVE,
    OI_POLICY,
    OI_VARIANT_ACTIONS,
    POLICY_KEEP_ALL,
    ValueSetup,
    claim,
    own_turn,
    waiting_is_worth_more,
    wild_discard_kind,
)
from agents.value import ValueAgent
from envs.core.actions import ACTION_SPACE_SIZE, HU_ID, KONG_BASE, PASS_ID
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.engine.observation import OBS_SHAPE, PHASES
from envs.engine.view import Phase

__all__ = ["BatchValueAgent"]

_PHASES = np.array(
    [PHASES.index(p) for p in (Phase.SELF, Phase.EXCHANGE, Phase.DINGQUE, Phase.DECLARE)], dtype=np.int64
)
_IDS = np.array([HU_ID, KONG_BASE, PASS_ID], dtype=np.int64)


@njit(cache=True, nogil=True)
def _act_rows(masks, phase, counts, wilds, melded, n_melds, visible, wall, hand, wild, opened, chis, n_chis, row_i,
              row_k, row_f, n_opp, opp, disc, opp_melded, revealed, claim_tile, won, picked, phases, ids, setup,
              out):  # fmt: skip  # pragma: no cover - compiled
    """``ValueAgent.act`` / ``DefensiveAgent.act`` of every row."""
    # the caller's arrays, without reference counts on every call (agents.compiled.borrow)
    setup = borrowed(setup)
    masks, chis, row_i, row_k, row_f, opp, disc, opp_melded, revealed = borrowed(
        (masks, chis, row_i, row_k, row_f, opp, disc, opp_melded, revealed)
    )
    ci, memo, oi, iw = setup[1], setup[4], setup[6], setup[10]
    suited = ci[CI_SUITED]
    hu, kong_base, passing = ids[0], ids[1], ids[2]
    legal = np.empty(34, dtype=np.int64)
    for b in range(masks.shape[0]):
        mask = masks[b]
        n_ids = 0
        first = -1
        for a in range(mask.shape[0]):
            if mask[a]:
                n_ids += 1
                if first < 0:
                    first = a
        if n_ids == 1:
            out[b] = first
            continue
        ph = phase[b]
        if ph == phases[1]:
            r = exchange(mask, picked[b].astype(np.int64), counts[b].astype(np.int64), wilds[b], suited, memo,
                         setup[8])  # fmt: skip
            out[b] = first if r < 0 else r
            continue
        if ph == phases[2]:
            r = dingque(mask, counts[b].astype(np.int64), wilds[b], melded[b].astype(np.int64), suited, memo, setup[8])
            out[b] = first if r < 0 else r
            continue
        c_b, m_b, v_b, h_b, w_b = iw[IW_COUNTS], iw[IW_MELDED], iw[IW_VISIBLE], iw[IW_HAND], iw[IW_WILD]
        for k in range(34):  # the decisions change these (and restore them): int64 copies in the scratch rows
            c_b[k] = counts[b, k]
            m_b[k] = melded[b, k]
            v_b[k] = visible[b, k]
            h_b[k] = hand[b, k]
            w_b[k] = wild[b, k]
        pos = (c_b, wilds[b], m_b, n_melds[b], v_b, wall[b], h_b, w_b, opened[b], chis[b], n_chis[b], row_i[b],
               row_k[b], row_f[b], n_opp[b], opp[b], disc[b], opp_melded[b], revealed[b], claim_tile[b],
               won[b])  # fmt: skip
        if ph == phases[3]:
            r = declare(mask, pos, setup, oi[OI_VARIANT_ACTIONS] != 0, oi[OI_BAOHU_MIN_LIVE])
            out[b] = first if r < 0 else r
            continue
        if mask[hu]:
            out[b] = hu
            if ph == phases[0] and oi[OI_POLICY] != POLICY_KEEP_ALL:  # the soft win the 红中 policy declines
                n = 0
                for k in range(34):
                    if mask[k]:
                        legal[n] = k
                        n += 1
                red = wild_discard_kind(legal, n, pos, setup)
                if red >= 0:
                    out[b] = red
            elif (ph != phases[0] and setup[7][OF_PASS_WIN] > 0.0 and mask[passing] and claim_tile[b] >= 0
                  and waiting_is_worth_more(pos, setup)):  # fmt: skip
                out[b] = passing  # the discard win the agent declines (pass_win)
            continue
        if ph == phases[0]:
            frozen_kong = -1
            if won[b]:  # a frozen 血流 hand: the engine only offers kongs that keep the waits
                for k in range(34):
                    if mask[kong_base + k]:
                        frozen_kong = kong_base + k
                        break
            if frozen_kong >= 0:
                out[b] = frozen_kong
                continue
            if oi[OI_VARIANT_ACTIONS]:
                special = variant_self_action(mask, pos, setup, ci[CI_MAX_LAIZI], oi[OI_BAOHU_MIN_LIVE])
                if special >= 0:
                    out[b] = special
                    continue
            r = own_turn(mask, pos, setup)
        else:
            r = claim(mask, pos, setup)
        out[b] = first if r < 0 else r


class BatchValueAgent:
    """The value baseline (or, ``kind="defensive"``, the defensive one) for a batch of decision rows of one rule
    set: ``act_batch(observations, masks)``, ``act(observation, mask)`` and ``reset(seat, variant)``.

    The compiled call releases the GIL; an instance keeps scratch rows, so it serves one thread at a time (one
    instance per thread), with the calling thread's shanten memo (:func:`agents.compiled.shanten_memo.thread_memo`).
    """

    python_class: type[ValueAgent] = ValueAgent

    def __init__(self, cfg: str | RuleConfig, **options: Any) -> None:
        self.options = dict(options)
        self.python = self.python_class(**options)  # checks every option (ValueError names the bad one)
        self.name = self.python.name
        self.cfg: RuleConfig | None = None
        fill_suit_table()  # the suit profiles of every hand now, not one dynamic programme per new suit code
        self._configure(load_variant(cfg))

    def _configure(self, cfg: RuleConfig) -> None:
        self.cfg = cfg
        self.python.reset(0, cfg)
        self.kit = ValueKit(cfg, max_off_suit=self.python.max_off_suit, exhaustion_weight=self.python.exhaustion_weight,
                            exit_weight=self.python.exit_weight)  # fmt: skip
        self.setup = ValueSetup.of_agent(self.python, cfg).args()

    def reset(self, seat: int, variant: str | RuleConfig) -> None:
        """Configure for ``variant`` (the agent keeps no per-hand state)."""
        cfg = load_variant(variant)
        if cfg is not self.cfg and cfg != self.cfg:
            self._configure(cfg)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        """One decision (a batch of one row)."""
        return int(self.act_batch(observation[None], np.asarray(legal_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` ``(B, C, 34)`` and legal ``masks`` ``(B, 183)``."""
        obs = np.asarray(observations)
        if obs.ndim == 3 and obs.shape[1:] == MATCH_OBS_SHAPE:  # a match observation: its chuanma-v1 rows
            obs = obs[:, : OBS_SHAPE[0]]
        if obs.ndim != 3 or obs.shape[1:] != OBS_SHAPE:
            raise ValueError(f"observations must have shape (B, {OBS_SHAPE[0]}, {OBS_SHAPE[1]}), got {obs.shape}")
        m = np.asarray(masks)
        if m.shape != (obs.shape[0], ACTION_SPACE_SIZE):
            raise ValueError(f"masks must have shape ({obs.shape[0]}, {ACTION_SPACE_SIZE}), got {m.shape}")
        if not m.any(axis=1).all():
            raise ValueError("a legal-action mask is empty: there is no decision to make")
        memo = thread_memo()
        if self.setup[4] is not memo:  # the calling thread's memo (an instance serves one thread at a time)
            self.setup = (*self.setup[:4], memo, *self.setup[5:])
        rows = self.kit.rows(obs)
        d = rows.decoded
        out = np.empty(obs.shape[0], dtype=np.int64)
        _act_rows(m.astype(np.bool_), d.phase, d.counts, d.wilds, d.melded, d.n_melds, d.visible, d.wall, d.hand,
                  d.wild, d.opened, rows.chis, rows.n_chis, rows.row_i, rows.row_k, rows.row_f, rows.n_opp, rows.opp,
                  rows.disc, rows.opp_melded, rows.revealed, d.claim_tile, d.won, d.exchange_picked, _PHASES, _IDS,
                  self.setup, out)  # fmt: skip
        return out

    def __repr__(self) -> str:
        return f"BatchValueAgent({self.name!r}, {self.options!r})"
