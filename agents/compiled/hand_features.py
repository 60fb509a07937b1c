"""Compiled hand-feature planes (编译版牌效率特征): :class:`agents.learned.hand_features.HandFeatures`, batched.

:class:`BatchHandFeatures` decodes the rows with :mod:`agents.compiled.decode` and fills the
:data:`agents.learned.hand_features.HAND_FEATURE_PLANES` planes of every row in one numba call, with the shanten of
:mod:`agents.compiled.shanten` through the memo of :mod:`agents.compiled.shanten_memo`: the same values as the
Python planes (``tests/agents/test_compiled_hand_features.py``), including the 武汉 将 rule (a ready hand whose
waits give no 2-5-8 pair counts as one step from ready).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.compiled.borrow import borrowed
from agents.compiled.decode import decode_batch, in_play_mask
from agents.compiled.shanten import fill_suit_table, shanten_caps
from agents.compiled.shanten_memo import NEAR, discard_shanten, shanten_cached, thread_memo, useful_tiles
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.engine.observation import PHASES
from envs.engine.view import Phase

__all__ = ["HAND_FEATURE_PLANES", "BatchHandFeatures"]

HAND_FEATURE_PLANES = 6
"""Rows written, the layout of :data:`agents.learned.hand_features.HAND_FEATURE_PLANES` (this package does not import
:mod:`agents.learned`, which imports it; a test checks the two are equal)."""

_DUMMIES = np.array([27, 28, 29, 30, 32, 33], dtype=np.int64)
_JIANG = np.array([k for k in range(NUM_SUITED) if k % 9 in (1, 4, 7)], dtype=np.int64)
_PHASE_IDS = np.array([PHASES.index(p) for p in (Phase.SELF, Phase.CLAIM, Phase.ROB)], dtype=np.int64)


@njit(cache=True)
def _has_jiang(counts, wilds, allowed, melded, dummies, jiang, table):  # pragma: no cover - compiled
    """:func:`agents.handeval.has_jiang_pair`."""
    spare = -1
    for i in range(6):
        d = dummies[i]
        if counts[d] == 0 and melded[d] == 0:
            spare = d
            break
    if spare < 0:
        return False
    for i in range(jiang.shape[0]):
        p = jiang[i]
        for use in range(2):
            need = 2 - use
            if counts[p] < need or wilds < use:
                continue
            counts[p] -= need
            counts[spare] += 2
            done = shanten_caps(counts, wilds - use, allowed, melded, False, table) < 0
            counts[p] += need
            counts[spare] -= 2
            if done:
                return True
    return False


@njit(cache=True)
def _live_useful(counts, wilds, is_wild, k, dead, allowed, melded, live, wuhan, jiang, consts, memo, buf):
    # pragma: no cover - compiled
    """Live effective tiles after discarding ``k`` (``GreedyAgent._live_useful``); ``counts`` is restored."""
    near, dummies, jiang_kinds = consts
    w = wilds
    if is_wild:
        w -= 1
    else:
        counts[k] -= 1
    s, n = useful_tiles(counts, w, dead, allowed, melded, allowed & ~dead, near, memo, buf)
    total = 0
    for i in range(n):
        t = buf[i]
        if wuhan and jiang and s == 0:
            counts[t] += 1
            ok = _has_jiang(counts, w, allowed, melded, dummies, jiang_kinds, memo[0])
            counts[t] -= 1
            if not ok:
                continue
        total += live[t]
    if not is_wild:
        counts[k] += 1
    return total


@njit(cache=True, nogil=True)
def _planes(phase, hand, counts, wilds, wild, void, melded, live, claim, suited, wuhan, phase_ids, consts, memo, out):
    # pragma: no cover - compiled
    consts, memo = borrowed((consts, memo))  # the caller's arrays, without reference counts on every call
    n_rows = hand.shape[0]
    buf = np.empty(34, dtype=np.int64)
    sh = np.empty(34, dtype=np.int64)
    held = np.empty(34, dtype=np.int64)
    held_sh = np.empty(34, dtype=np.int64)
    for b in range(n_rows):
        o = out[b]
        ph = phase[b]
        if ph != phase_ids[0] and ph != phase_ids[1] and ph != phase_ids[2]:
            continue
        c = counts[b].astype(np.int64)
        m = melded[b].astype(np.int64)
        lv = live[b]
        w = wilds[b]
        dead = np.int64(0) if void[b] < 0 else np.int64(0x1FF) << (9 * void[b])
        tiles = w
        for k in range(34):
            tiles += c[k]
        if tiles % 3 == 2:
            n_held = 0
            for k in range(34):
                sh[k] = 1 << 20
                if hand[b, k]:
                    held[n_held] = k
                    n_held += 1
            if n_held == 0:
                continue
            discard_shanten(c, w, m, held, n_held, dead, suited, wild[b], memo, held_sh)
            for i in range(n_held):
                sh[held[i]] = held_sh[i]
            if wuhan:
                for k in range(34):
                    if hand[b, k] and sh[k] == 0:
                        u = _live_useful(c, w, wild[b, k] != 0, k, dead, suited, m, lv, wuhan, True, consts, memo, buf)
                        if u == 0:
                            sh[k] = 1
            s_min = 1 << 20
            for k in range(34):
                if hand[b, k] and sh[k] < s_min:
                    s_min = sh[k]
            wild_live = 0
            for k in range(34):
                if wild[b, k]:
                    wild_live += lv[k]
            for k in range(34):
                if hand[b, k] == 0:
                    continue
                s = sh[k]
                o[0, k] = min((s + 1) / 8.0, 1.0)
                if s == s_min:
                    u = _live_useful(c, w, wild[b, k] != 0, k, dead, suited, m, lv, wuhan, s == 0, consts, memo, buf)
                    if s >= 0:
                        u += wild_live
                    o[1, k] = 1.0
                    o[2, k] = min(u / 40.0, 1.0)
            v = min((s_min + 1) / 8.0, 1.0)
            for k in range(34):
                o[4, k] = v
            continue
        s_now, n = useful_tiles(c, w, dead, suited, m, suited & ~dead, consts[0], memo, buf)
        for i in range(n):
            o[3, buf[i]] = 1.0
        v = min((s_now + 1) / 8.0, 1.0)
        for k in range(34):
            o[4, k] = v
        k = claim[b]
        if k >= 0 and ph == phase_ids[1] and c[k] >= 2:
            c[k] -= 2
            old = m[k]
            m[k] = 3
            s_pong = shanten_cached(c, w, dead, suited, m, memo)
            m[k] = old
            c[k] += 2
            if max(s_pong, 0) <= s_now:
                o[5, k] = 1.0


class BatchHandFeatures:
    """The hand-feature planes of a batch of observations of one variant (one compiled call a batch)."""

    def __init__(self, variant: str | RuleConfig) -> None:
        self.cfg = load_variant(variant)
        self._in_play = in_play_mask(tuple(self.cfg.kinds))
        self._suited = int(sum(1 << k for k in self.cfg.kinds if k < NUM_SUITED))
        self._wuhan = self.cfg.fan_table == "wuhan"
        fill_suit_table()  # the suit profiles of every hand now, not one dynamic programme per new suit code

    def planes(self, observations: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(B, HAND_FEATURE_PLANES, 34)`` float32 planes of ``(B, C, 34)`` observations (into ``out`` if given)."""
        d = decode_batch(observations, self._in_play)
        n = d.phase.shape[0]
        if out is None:
            out = np.zeros((n, HAND_FEATURE_PLANES, NUM_KINDS), dtype=np.float32)
        else:
            if out.shape != (n, HAND_FEATURE_PLANES, NUM_KINDS) or out.dtype != np.float32:
                raise ValueError(f"out must be float32 of shape {(n, HAND_FEATURE_PLANES, NUM_KINDS)}, got {out.shape}")
            out[:] = 0.0
        _planes(
            d.phase,
            d.hand,
            d.counts,
            d.wilds,
            d.wild,
            d.void,
            d.melded,
            d.live.astype(np.int64),
            d.claim_tile,
            np.int64(self._suited),
            self._wuhan,
            _PHASE_IDS,
            (NEAR, _DUMMIES, _JIANG),
            thread_memo(),
            out,
        )
        return out
