"""The match observation (比赛观测) ``chuanma-v1-match``: the ``chuanma-v1`` tensor of
:mod:`envs.engine.observation` with the match's planes appended (RULES.md §11.2).

An environment in match mode (a points match or a room's bankroll match) returns ``(NUM_PLANES + 11, 34)``
observations: rows ``0 .. NUM_PLANES - 1`` are ``chuanma-v1`` unchanged, then:

=======  =====================  ====  ==========  =====================================================================
rows     name                   n     range       meaning
=======  =====================  ====  ==========  =====================================================================
106      ``match_hand``         1     {0,1}       column k = 1 while more than k hands of the match are finished
107      ``match_hands_left``   1     {0,1}       column k = 1 while more than k hands follow this one (an unbounded
                                                  match: all ones)
108-111  ``match_standing``     4     -2-2        per seat slot, broadcast: the seat's points or chips now (this hand
                                                  included), sign(x) * log2(1 + |x| / unit) / 8, clipped to [-2, 2]
112-115  ``match_change``       4     -2-2        per seat slot, broadcast: the seat's change since the match began,
                                                  same scale
116      ``match_kind``         1     {0,1}       column 0: a bankroll match (chips; busts), column 1: a points match
                                                  ending below zero, column 2: a placement reward is paid
=======  =====================  ====  ==========  =====================================================================

``unit`` is the variant's ``base_unit`` in a points match and the room's 底分 in a bankroll match.  Seat slots are
those of ``chuanma-v1`` (slot ``k``: ``k`` turns after the observer).  What a seat sees of the match is public: every
standing is announced at the table.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.tiles import NUM_KINDS
from envs.engine.match import MatchLedger
from envs.engine.observation import MAX_SEATS, NUM_PLANES, OBS_VERSION, SCORE_CLIP, SCORE_LOG_DIVISOR, PlaneGroup

__all__ = ["MATCH_OBS_SHAPE", "MATCH_OBS_VERSION", "MATCH_PLANES", "encode_match", "match_bounds"]

MATCH_OBS_VERSION = f"{OBS_VERSION}-match"

MATCH_PLANES: tuple[PlaneGroup, ...] = (
    PlaneGroup("match_hand", 1, 0, 1, "hands finished, thermometer"),
    PlaneGroup("match_hands_left", 1, 0, 1, "hands after this one, thermometer"),
    PlaneGroup("match_standing", MAX_SEATS, -SCORE_CLIP, SCORE_CLIP, "signed-log standing per seat slot"),
    PlaneGroup("match_change", MAX_SEATS, -SCORE_CLIP, SCORE_CLIP, "signed-log match change per seat slot"),
    PlaneGroup("match_kind", 1, 0, 1, "bankroll / points below zero / placement reward"),
)
MATCH_ROWS = sum(g.rows for g in MATCH_PLANES)
MATCH_OBS_SHAPE = (NUM_PLANES + MATCH_ROWS, NUM_KINDS)
_HAND, _LEFT, _STANDING, _CHANGE, _KIND = (NUM_PLANES + k for k in (0, 1, 2, 6, 10))


def match_bounds() -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of the match rows (shape ``(MATCH_ROWS, 34)``)."""
    low = np.empty((MATCH_ROWS, NUM_KINDS), dtype=np.float32)
    high = np.empty_like(low)
    row = 0
    for g in MATCH_PLANES:
        low[row : row + g.rows] = g.low
        high[row : row + g.rows] = g.high
        row += g.rows
    return low, high


def _signed_log(x: float, unit: float) -> float:
    if not x:
        return 0.0
    return math.copysign(min(math.log2(1.0 + abs(x) / unit) / SCORE_LOG_DIVISOR, SCORE_CLIP), x)


def encode_match(ledger: MatchLedger, seat: int, hand_obs: np.ndarray) -> np.ndarray:
    """A new ``chuanma-v1-match`` tensor: ``hand_obs`` (``chuanma-v1`` of ``seat``) with the match rows of
    ``ledger`` seen from ``seat``."""
    out = np.zeros(MATCH_OBS_SHAPE, dtype=np.float32)
    out[:NUM_PLANES] = hand_obs
    rules = ledger.rules
    out[_HAND, : min(ledger.hand_index, NUM_KINDS)] = 1.0
    if rules.hands is None:
        out[_LEFT] = 1.0
    else:
        out[_LEFT, : max(min(rules.hands - ledger.hand_index - 1, NUM_KINDS), 0)] = 1.0
    n = ledger.num_players
    unit = float(rules.unit)
    for s in range(n):
        slot = (s - seat) % n
        out[_STANDING + slot] = _signed_log(ledger.standing[s], unit)
        out[_CHANGE + slot] = _signed_log(ledger.standing[s] - rules.start[s], unit)
    out[_KIND, 0] = float(rules.bankroll)
    out[_KIND, 1] = float(not rules.bankroll and rules.start[0] > 0)
    out[_KIND, 2] = float(rules.placement is not None)
    return out
