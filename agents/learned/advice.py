"""Advisor planes (顾问特征): a rule-based agent's choice as extra input planes of a learned policy.

A network trained with ``net.advisor: <agent>`` sees, beside the observation (and the hand-feature planes), the
action that the named rule-based agent would take at the same decision, computed from the same observation and
legal mask.  The policy can copy the advice where it is good and learn where to depart from it: *residual* policy
learning over a baseline.  Behaviour cloning of the same agent then starts PPO from (nearly) the advisor's own play
even where its rules are hard for a small network to reproduce (武汉's discard choice weighs every wait's payment
under the Wuhan fan table: cloned without advice, the network agreed with the ``value`` agent on 0.70 of decisions
and lost to greedy, training/RESULTS.md).

Planes (version :data:`ADVICE_VERSION`, :data:`ADVICE_PLANES` rows, every value in ``{0, 1}``):

====  ====================  ======================================================================================
row   name                  meaning
====  ====================  ======================================================================================
0     ``advice_tile``       one-hot at the tile kind the advised action names (打牌 / 杠 / 换三张 pick / 提 / 请胡
                            discard); zero for actions without a kind
1-18  ``advice_<group>``    broadcast rows, one per action group of :data:`GROUPS`: the advised action's group is 1
====  ====================  ======================================================================================

Row 0 and the group together name the flat action id exactly (:func:`decode`).  A decision with no legal action
(an observation after the end of a hand) gets zero planes.  The advice is the advisor agent's code, not weights: a
checkpoint records the advisor's name and :data:`ADVICE_VERSION`, and plays with the advisor of the installed
version of :mod:`agents`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.registry import AgentSpec, make_agent, parse_spec
from envs.core.actions import (
    ACTION_SPACE_SIZE,
    BAOHU_ID,
    CHI_BASE,
    DINGQUE_BASE,
    EXCHANGE_BASE,
    FEI_ID,
    HU_ID,
    KONG_BASE,
    LAIZI_KONG_ID,
    PASS_ID,
    PONG_ID,
    QINGHU_BASE,
    RED_KONG_ID,
    TI_BASE,
)
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS

__all__ = [
    "ADVICE_BROADCAST_ROWS",
    "ADVICE_PLANES",
    "ADVICE_VERSION",
    "ADVISORS",
    "GROUPS",
    "Advisor",
    "check_advisor",
    "decode",
    "encode",
    "encode_batch",
]

ADVICE_VERSION = "chuanma-advice-v1"
ADVISORS: tuple[str, ...] = ("greedy", "value", "defensive", "arbiter")
"""Agents that can advise: the deterministic rule-based baselines and the arbiter (:mod:`agents.arbiter`;
agents.registry names), with default options or with the options of a specification such as
``defensive:danger_weight=2`` (:func:`check_advisor`)."""

GROUPS: tuple[str, ...] = (
    "discard",
    "kong",
    "pong",
    "hu",
    "pass",
    "exchange",
    "dingque_m",
    "dingque_p",
    "dingque_s",
    "chi_low",
    "chi_middle",
    "chi_high",
    "fei",
    "ti",
    "baohu",
    "qinghu",
    "red_kong",
    "laizi_kong",
)
"""Action groups of the flat layout (envs.core.actions), one broadcast advice row each."""

ADVICE_PLANES = 1 + len(GROUPS)
ADVICE_BROADCAST_ROWS: tuple[int, ...] = tuple(range(1, ADVICE_PLANES))
"""Rows of the advice block that are broadcast planes (relative to the block)."""

_TILE_RANGES = {"discard": 0, "kong": KONG_BASE, "exchange": EXCHANGE_BASE, "ti": TI_BASE, "qinghu": QINGHU_BASE}
_SINGLE_IDS = {
    "pong": PONG_ID,
    "hu": HU_ID,
    "pass": PASS_ID,
    "dingque_m": DINGQUE_BASE,
    "dingque_p": DINGQUE_BASE + 1,
    "dingque_s": DINGQUE_BASE + 2,
    "chi_low": CHI_BASE,
    "chi_middle": CHI_BASE + 1,
    "chi_high": CHI_BASE + 2,
    "fei": FEI_ID,
    "baohu": BAOHU_ID,
    "red_kong": RED_KONG_ID,
    "laizi_kong": LAIZI_KONG_ID,
}


def _tables() -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], int]]:
    group = np.full(ACTION_SPACE_SIZE, -1, dtype=np.int64)
    kind = np.full(ACTION_SPACE_SIZE, -1, dtype=np.int64)
    for g, name in enumerate(GROUPS):
        if name in _TILE_RANGES:
            base = _TILE_RANGES[name]
            group[base : base + NUM_KINDS] = g
            kind[base : base + NUM_KINDS] = np.arange(NUM_KINDS)
        else:
            group[_SINGLE_IDS[name]] = g
    if (group < 0).any():  # every flat id belongs to one group
        raise AssertionError(f"action ids without an advice group: {np.flatnonzero(group < 0).tolist()}")
    ids = {(int(group[a]), int(kind[a])): a for a in range(ACTION_SPACE_SIZE)}
    return group, kind, ids


_GROUP_OF, _KIND_OF, _ID_OF = _tables()


def encode(action_id: int, out: np.ndarray) -> np.ndarray:
    """Write the advice planes of flat action ``action_id`` into ``out`` (``(ADVICE_PLANES, 34)``, zeroed here)."""
    encode_batch(np.array([action_id]), out[None])
    return out


def encode_batch(action_ids: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`encode` of every action of ``action_ids`` ``(B,)`` into ``out[i]`` (``(B, ADVICE_PLANES, 34)``, zeroed
    here), in one go."""
    actions = np.asarray(action_ids, dtype=np.int64)
    bad = np.flatnonzero((actions < 0) | (actions >= ACTION_SPACE_SIZE))
    if bad.size:
        raise ValueError(f"action id {int(actions[bad[0]])} is outside the flat layout [0, {ACTION_SPACE_SIZE})")
    out[:] = 0.0
    _write(out, np.arange(actions.shape[0]), actions)
    return out


def _write(out: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> None:
    """Set the advice planes of ``actions[i]`` in ``out[rows[i]]`` (``out``: ``(B, ADVICE_PLANES, 34)``, zeroed)."""
    kinds = _KIND_OF[actions]
    tiled = kinds >= 0
    out[rows[tiled], 0, kinds[tiled]] = 1.0
    out[rows, 1 + _GROUP_OF[actions], :] = 1.0


def decode(planes: np.ndarray) -> int | None:
    """The flat action id encoded by advice ``planes`` (``None`` for zero planes: no decision)."""
    planes = np.asarray(planes)
    groups = np.flatnonzero(planes[1:, 0])
    if groups.size == 0:
        return None
    kinds = np.flatnonzero(planes[0])
    g = int(groups[0])
    k = int(kinds[0]) if kinds.size else -1
    try:
        return _ID_OF[(g, k)]
    except KeyError:
        raise ValueError(f"advice planes name group {GROUPS[g]!r} with tile kind {k}: no such action") from None


def check_advisor(text: str) -> AgentSpec:
    """The agent specification of advisor ``text``: a name of :data:`ADVISORS`, alone or with options of that agent
    (``defensive:danger_weight=2``, ``value:late_wall=8``); ``ValueError`` names what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"an advisor is a baseline specification such as 'value', got {text!r}")
    if text.partition(":")[0].strip() not in ADVISORS:
        raise ValueError(
            f"unknown advisor {text!r}; expected one of {list(ADVISORS)}, alone or with options (NAME:key=value,...)"
        )
    spec = parse_spec(text)
    make_agent(spec)  # the agent's own checks: unknown options and values out of range are refused by name
    return spec


class Advisor:
    """The advice planes of one variant and advisor agent (see the module docstring)."""

    def __init__(self, variant: str | RuleConfig, name: str) -> None:
        self.spec = check_advisor(name)
        self.cfg = load_variant(variant)
        self.name = name
        self.agent = make_agent(self.spec)
        self.agent.reset(0, self.cfg)  # the baselines read everything else from the observation
        self._batch: Any = None  # the compiled baseline of planes_batch, made when first used

    def planes(self, observation: np.ndarray, legal_mask: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The ``(ADVICE_PLANES, 34)`` float32 planes of the advisor's action (zero when nothing is legal)."""
        if out is None:
            out = np.zeros((ADVICE_PLANES, NUM_KINDS), dtype=np.float32)
        if not np.any(legal_mask):
            out[:] = 0.0
            return out
        return encode(int(self.agent.act(observation, legal_mask)), out)

    def planes_batch(self, observations: np.ndarray, masks: np.ndarray, out: np.ndarray) -> np.ndarray:
        """:meth:`planes` of every row of a batch into ``out`` ``(B, ADVICE_PLANES, 34)``: the advisor's actions of
        the whole batch come from one call of its compiled baseline (:mod:`agents.compiled`, the same decisions)."""
        if self._batch is None:
            from agents.compiled import make_batch_agent

            self._batch = make_batch_agent(self.spec.kind, self.cfg, **self.spec.options)
        out[:] = 0.0
        rows = np.flatnonzero(np.asarray(masks).any(axis=1))
        if rows.size:
            actions = self._batch.act_batch(np.asarray(observations)[rows], np.asarray(masks)[rows])
            _write(out, rows, actions)
        return out
