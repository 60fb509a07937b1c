"""The arbiter (仲裁智能体): ``value``'s decision, or ``defensive``'s discard where the two differ and a gate fitted on
rollouts says it is the better one.

``value`` (攻) and ``defensive`` (守) choose the same action at most decisions; where they discard different tiles the
arbiter asks a linear *gate* for the one-step advantage of ``defensive``'s discard over ``value``'s, and plays
``defensive``'s when the estimate is above the gate's margin.  The gate reads only the observation and the two
candidate discards (:func:`gate_features`: the wall, the players still in the hand, the own hand size and melds,
and for each candidate tile how many copies are visible, how many opponents still in the hand discarded it, whether
it is an honor or a terminal, their differences and their products with the wall).  Its weights are fitted by
:mod:`training.arbiter` on pairs of rollouts from ``value`` self-play positions where the two agents disagree: each
position played on with ``value``'s discard and with ``defensive``'s, every seat ``value`` from there, on the same
wall (the advantage is the deciding seat's points from the second minus the first).

A gate belongs to one preset (:class:`Gate`, a JSON file; the shipped ones are in ``agents/gates/``).  The arbiter
of a hand whose rules have no shipped gate is refused by name unless a gate file is given (``arbiter:gate=PATH``).
The compiled twin (:class:`agents.compiled.arbiter.BatchArbiterAgent`) makes the same decisions for a batch.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.defensive import DefensiveAgent
from agents.value import ValueAgent
from envs.core.actions import DISCARD_BASE
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED
from envs.engine.match_observation import MATCH_OBS_SHAPE
from envs.engine.observation import OBS_SHAPE, decode

__all__ = ["GATE_FEATURES", "GATE_FORMAT", "ArbiterAgent", "Gate", "choose", "gate_features", "shipped_gates"]

GATE_FORMAT = "chuanma-arbiter-gate-v1"

_TILE = ("visible", "discarded_by", "honor", "terminal")
GATE_FEATURES: tuple[str, ...] = (
    "wall",
    "opponents_in",
    "hand_size",
    "melds",
    *(f"{who}_{n}" for who in ("value", "defensive", "diff") for n in _TILE),
    *(f"wall*{who}_{n}" for who in ("value", "defensive", "diff") for n in _TILE),
)
"""The gate's inputs, in order (:func:`gate_features`)."""


def _tile_columns(views: dict[str, np.ndarray], tiles: np.ndarray, opponents: np.ndarray) -> np.ndarray:
    rows = np.arange(tiles.shape[0])
    visible = views["visible"][rows, tiles]
    discarded = (views["discards"][rows, :, tiles] > 0) & opponents  # (n, 4): by each opponent still in the hand
    honor = tiles >= NUM_SUITED
    rank = tiles % 9
    terminal = ~honor & ((rank == 0) | (rank == 8))
    return np.stack([visible, discarded.sum(axis=1), honor, terminal], axis=1).astype(np.float64)


def gate_features(observations: np.ndarray, value_tiles: np.ndarray, defensive_tiles: np.ndarray) -> np.ndarray:
    """The ``(n, len(GATE_FEATURES))`` gate inputs of ``n`` observations (``(n, 106, 34)``, a match observation's
    chuanma-v1 rows) and the tile kinds ``value`` and ``defensive`` discard there."""
    obs = np.asarray(observations, dtype=np.float32)
    if obs.ndim == 3 and obs.shape[1:] == MATCH_OBS_SHAPE:
        obs = obs[:, : OBS_SHAPE[0]]
    if obs.ndim != 3 or obs.shape[1:] != OBS_SHAPE:
        raise ValueError(f"observations must have shape (n, {OBS_SHAPE[0]}, {OBS_SHAPE[1]}), got {obs.shape}")
    value_tiles = np.asarray(value_tiles, dtype=np.int64)
    defensive_tiles = np.asarray(defensive_tiles, dtype=np.int64)
    for name, t in (("value_tiles", value_tiles), ("defensive_tiles", defensive_tiles)):
        if t.shape != (obs.shape[0],) or (t.size and (t.min() < 0 or t.max() >= NUM_KINDS)):
            raise ValueError(f"{name} must be {obs.shape[0]} tile kinds in 0..{NUM_KINDS - 1}")
    views = decode(obs)
    opponents = views["active"][:, :, 0] > 0
    opponents[:, 0] = False  # slot 0 is the observer
    wall = views["wall"][:, 0].astype(np.float64) * 136 / 100
    base = np.stack([wall, opponents.sum(axis=1), views["hand_size"][:, 0], views["melds_count"][:, 0]], axis=1).astype(
        np.float64
    )
    v = _tile_columns(views, value_tiles, opponents)
    d = _tile_columns(views, defensive_tiles, opponents)
    tiles = np.concatenate([v, d, v - d], axis=1)
    return np.concatenate([base, tiles, wall[:, None] * tiles], axis=1)


@dataclass(frozen=True)
class Gate:
    """A fitted gate of one preset: ``estimate = bias + weights · (features - mean) / scale``; the arbiter plays
    ``defensive``'s discard where ``estimate > margin`` (points per hand, base units).  ``fit``: how it was fitted
    (rollout pairs, seeds, ridge strength, the one-step gain measured on held-out pairs)."""

    variant: str
    bias: float
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    margin: float = 0.0
    fit: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        n = len(GATE_FEATURES)
        for name in ("weights", "mean", "scale"):
            values = getattr(self, name)
            if len(values) != n:
                raise ValueError(f"gate {name} has {len(values)} entries, the gate features are {n}")
        numbers = (self.bias, self.margin, *self.weights, *self.mean, *self.scale)
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in numbers):
            raise ValueError("a gate's numbers must all be finite")
        if min(self.scale) <= 0:
            raise ValueError("a gate's scales must be positive")

    def estimate(self, features: np.ndarray) -> np.ndarray:
        """The estimated advantage of ``defensive``'s discard for each row of ``features``."""
        z = (np.asarray(features, dtype=np.float64) - np.asarray(self.mean)) / np.asarray(self.scale)
        return self.bias + z @ np.asarray(self.weights)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": GATE_FORMAT,
            "variant": self.variant,
            "features": list(GATE_FEATURES),
            "bias": self.bias,
            "weights": list(self.weights),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "margin": self.margin,
            "fit": self.fit,
        }

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_dict(cls, d: Any, source: str = "gate") -> Gate:
        if not isinstance(d, dict) or d.get("format") != GATE_FORMAT:
            raise ValueError(f"{source}: not a {GATE_FORMAT} file")
        if d.get("features") != list(GATE_FEATURES):
            raise ValueError(
                f"{source}: fitted on other features than this version's arbiter; fit it again "
                "(chuanma arbiter --variant VARIANT --out FILE)"
            )
        try:
            return cls(
                variant=str(d["variant"]),
                bias=float(d["bias"]),
                weights=tuple(float(x) for x in d["weights"]),
                mean=tuple(float(x) for x in d["mean"]),
                scale=tuple(float(x) for x in d["scale"]),
                margin=float(d.get("margin", 0.0)),
                fit=dict(d.get("fit") or {}),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{source}: malformed gate ({e})") from None

    @classmethod
    def load(cls, path: str | Path) -> Gate:
        """A gate file; ``ValueError`` says what is wrong with it."""
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"no gate file {str(p)!r}")
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{p}: not a gate file ({e})") from None
        return cls.from_dict(d, str(p))

    @classmethod
    def shipped(cls, variant: str) -> Gate:
        """The gate shipped for preset ``variant`` (``agents/gates/<variant>.json``)."""
        names = shipped_gates()
        if variant not in names:
            raise ValueError(
                f"no arbiter gate is shipped for rules {variant!r} (shipped: {', '.join(names) or 'none'}); fit one "
                "with `chuanma arbiter --variant VARIANT --out FILE` and play arbiter:gate=FILE"
            )
        text = resources.files("agents.gates").joinpath(f"{variant}.json").read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text), f"agents/gates/{variant}.json")


def shipped_gates() -> list[str]:
    """The presets with a shipped gate."""
    return sorted(p.name[:-5] for p in resources.files("agents.gates").iterdir() if p.name.endswith(".json"))


def choose(
    gate: Gate, observations: np.ndarray, value_actions: np.ndarray, defensive_actions: np.ndarray
) -> np.ndarray:
    """The arbiter's action of each row: ``value``'s, or ``defensive``'s where both are discards of different tiles
    and the gate's estimate is above its margin."""
    va = np.asarray(value_actions, dtype=np.int64)
    da = np.asarray(defensive_actions, dtype=np.int64)
    out = va.copy()
    discards = (va >= DISCARD_BASE) & (va < DISCARD_BASE + NUM_KINDS) & (da >= DISCARD_BASE)
    rows = np.flatnonzero(discards & (da < DISCARD_BASE + NUM_KINDS) & (va != da))
    if rows.size:
        features = gate_features(np.asarray(observations)[rows], va[rows] - DISCARD_BASE, da[rows] - DISCARD_BASE)
        go = rows[gate.estimate(features) > gate.margin]
        out[go] = da[go]
    return out


class ArbiterAgent(BaseAgent):
    """``value`` or ``defensive`` at each decision, as the gate of the hand's preset says (module docstring).

    ``gate``: a gate file to use instead of the shipped gate of the hand's rules; ``margin``: the gate's margin
    instead of the file's (a larger one departs from ``value`` less often)."""

    name = "arbiter"

    def __init__(self, gate: str = "", margin: float | None = None) -> None:
        super().__init__()
        if margin is not None and (
            isinstance(margin, bool) or not isinstance(margin, (int, float)) or not math.isfinite(margin)
        ):
            raise ValueError(f"arbiter: margin must be a finite number, got {margin!r}")
        if not isinstance(gate, str):
            raise ValueError(f"arbiter: gate must be a file path, got {gate!r}")
        self.margin = margin
        self.fixed = Gate.load(gate) if gate else None
        self.value = ValueAgent()
        self.defensive = DefensiveAgent()
        self.gate: Gate | None = None

    def gate_of(self, cfg: RuleConfig) -> Gate:
        """The gate this agent plays ``cfg`` with; ``ValueError`` when it has none for those rules."""
        gate = self.fixed if self.fixed is not None else Gate.shipped(cfg.name)
        if gate.variant != cfg.name:
            raise ValueError(f"arbiter: the gate was fitted for {gate.variant!r}, the hand plays {cfg.name!r}")
        if self.margin is not None:
            gate = replace(gate, margin=float(self.margin))
        return gate

    def reset(self, seat: int, variant: RuleConfig | str) -> None:
        cfg = load_variant(variant)
        super().reset(seat, cfg)
        if self.gate is None or self.gate.variant != cfg.name:
            self.gate = self.gate_of(cfg)
        self.value.reset(seat, cfg)
        self.defensive.reset(seat, cfg)

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        if self.gate is None:
            raise RuntimeError("arbiter: call reset(seat, variant) before act (the gate is the rules' own)")
        va = self.value.act(observation, legal_mask)
        da = self.defensive.act(observation, legal_mask)
        return int(choose(self.gate, np.asarray(observation)[None], np.array([va]), np.array([da]))[0])

    def __repr__(self) -> str:
        return f"ArbiterAgent(gate={'file' if self.fixed else 'shipped'}, margin={self.margin!r})"
