"""Hand-evaluation feature planes (牌效率特征) appended to the observation for the learned policies.

A small network learns tile efficiency slowly: which discard keeps the shanten (向听数) and how many live tiles
improve the hand afterwards is a combinatorial question that the rule-based agents answer exactly with the
table-driven evaluator of :mod:`agents.handeval`.  :class:`HandFeatures` computes those answers **from the
observation alone** (through :func:`agents.features.read`, like every baseline) and returns them as extra planes
over the 34 kinds, so the policy can learn *when* to follow tile efficiency instead of *how* to compute it.

Planes (version :data:`HAND_FEATURES_VERSION`, ``HAND_FEATURE_PLANES`` rows, every value in ``[0, 1]``):

====  ======================  ================================================================================
row   name                    meaning
====  ======================  ================================================================================
0     ``discard_shanten``     own turn (3k+2 concealed tiles): for each kind held, (shanten after discarding
                              it + 1) / 8, clipped; 0 for kinds not held and outside the own turn
1     ``discard_best``        own turn: 1 where discarding the kind reaches the lowest shanten
2     ``discard_live``        own turn: live effective tiles after discarding the kind (lowest-shanten kinds
                              only) / 40, clipped
3     ``useful``              a waiting hand (3k+1 tiles): 1 for kinds whose draw lowers the shanten
4     ``shanten_now``         broadcast: (shanten + 1) / 8 of the hand (own turn: the lowest after a discard)
5     ``claim_keeps``         claim window: 1 at the claimed kind when a pong of it keeps the shanten
====  ======================  ================================================================================

Row 4 is constant along the tile axis (a broadcast plane); the others are tile planes.  Outside the own turn and
the claim window (换三张, 定缺, 报胡 declarations, the end) every plane is zero.  Shanten counts the void suit's
tiles as dead weight and uses the variant's wildcards, exactly as :class:`agents.greedy.GreedyAgent` does.

Training turns them on with ``net.hand_features: true`` (the checkpoint's network specification records the
version, and :class:`agents.policy.PolicyAgent` computes the planes itself when it plays): the training envs give
:mod:`agents.learned.net_input` inputs and the behaviour-cloning data carries them.
"""

from __future__ import annotations

import numpy as np

from agents.features import read
from agents.greedy import GreedyAgent
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS
from envs.engine.view import Phase

__all__ = [
    "HAND_BROADCAST_ROWS",
    "HAND_FEATURES_VERSION",
    "HAND_FEATURE_PLANES",
    "HandFeatures",
]

HAND_FEATURES_VERSION = "chuanma-hand-v1"
HAND_FEATURE_PLANES = 6
HAND_BROADCAST_ROWS: tuple[int, ...] = (4,)
"""Rows of the hand-feature block that are broadcast planes (relative to the block)."""

_SHANTEN_SCALE = 8.0
_LIVE_SCALE = 40.0


class _Evaluator(GreedyAgent):
    """The greedy agent's tile-efficiency helpers, reused as a feature computer (it never acts)."""


class HandFeatures:
    """Computes the :data:`HAND_FEATURE_PLANES` planes of one observation for one variant (see the module docstring).

    Results are memoised through :mod:`agents.handeval`'s caches, so repeated positions are cheap.
    """

    def __init__(self, variant: str | RuleConfig) -> None:
        self.cfg = load_variant(variant)
        self._eval = _Evaluator()
        self._eval._configure(self.cfg)

    def planes(self, observation: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The ``(HAND_FEATURE_PLANES, 34)`` float32 planes of ``observation`` (written into ``out`` when given)."""
        if out is None:
            out = np.zeros((HAND_FEATURE_PLANES, NUM_KINDS), dtype=np.float32)
        else:
            out[:] = 0.0
        ev = self._eval
        seen = read(observation, in_play=ev._in_play)
        if seen.phase not in (Phase.SELF, Phase.CLAIM, Phase.ROB):
            return out
        tiles = sum(seen.counts) + seen.wilds
        if tiles % 3 == 2:
            kinds = [k for k in range(NUM_KINDS) if seen.hand[k]]
            if not kinds:
                return out
            options = ev._discard_options(seen, kinds)
            s_min = min(key[0] for key, _ in options)
            for (s, neg_live, *_rest), k in options:
                out[0, k] = min((s + 1) / _SHANTEN_SCALE, 1.0)
                if s == s_min:
                    out[1, k] = 1.0
                    out[2, k] = min(-neg_live / _LIVE_SCALE, 1.0)
            out[4, :] = min((s_min + 1) / _SHANTEN_SCALE, 1.0)
            return out
        s_now, useful = ev._useful(seen, seen.counts)
        for k in useful:
            out[3, k] = 1.0
        out[4, :] = min((s_now + 1) / _SHANTEN_SCALE, 1.0)
        k = seen.claim_tile
        if k is not None and seen.phase is Phase.CLAIM and seen.counts[k] >= 2 and ev._pong_ok(seen, k, s_now):
            out[5, k] = 1.0
        return out
