"""Defensive baseline (防守智能体): value play, minus the expected cost of dealing in; folds when a discard is risky.

On top of :class:`agents.value.ValueAgent`:

* every candidate discard of the best shanten scores ``value - danger_weight × danger`` where ``danger`` is the
  expected loss of :func:`agents.danger.danger_by_kind` (public information only: void suits, discards, melds,
  passed tiles, wins, revealed 血流 hands, the wall; chances fitted on greedy self-play);
* **risk folding** (弃和, Sichuan wildcard variants by default): when the chosen push discard deals in with chance
  above ``fold_risk`` (a threshold per shanten of the hand: ready / one step / two or more steps; default
  ``0.2 / 0.1 / 0.05`` in 红中, ``0.3 / 0.15 / 0.08`` with 宜宾's eight 听用) and some discard is at most
  ``fold_ratio`` (0.5) as risky, the agent throws the least risky tile instead, even when that costs readiness
  (wildcards are kept unless nothing else can be discarded).  Tuning walls (seed 1): in 红中 and 宜宾 this cut the
  deal-in rate below the greedy field's at a small cost in points; in 成都 and 血流 (no wildcards, cheaper hands) any
  folding threshold lost points, and in 武汉 folding at the 红中 thresholds lost -13.3 points per hand against greedy
  (150 walls, interval [-30.6, +3.9]; -2.4 without folding), so there ``fold_risk`` defaults to ``"off"``;
* **late push/fold**: once the wall holds at most ``push_wall`` tiles, a hand that is not ready also weighs
  discards one step slower (their estimate includes the readiness they give up);
* **late fold** of far hands: when the best shanten is at least ``fold_shanten`` (2), the live wall is at most
  ``fold_wall_fraction`` of its size after the deal, and some active opponent is likely ready (``P(ready) >=
  fold_threat``), the agent discards the safest tile (ties: lower shanten, higher value) and declines pongs;
* **safe first** (``safe_first_shanten``, off by default): when the hand is at least ``safe_first_shanten``
  steps from ready, only the discards whose deal-in chance is within ``SAFE_FIRST_MARGIN`` (0.01) of the safest
  candidate compete, by value then as usual (a hand that is not ready wins less often, so its tile choice buys
  safety before value). An experiment knob for the 红中 deal-in question (training/BASELINES.md): with 1, tuning
  walls (红中, 300 walls each against greedy; deal-in minus the greedy field's, points per hand) gave seed 1
  -0.038 and +0.77 (off: -0.024 and +0.89), seed 3 -0.014 and +0.83 (off: -0.016 and +0.93), seed 4 -0.036 and
  -0.16 (off: -0.027 and +0.26); on the held-out seed-2026 walls (500) 0.355 against the field's 0.351 and +0.69
  [+0.01, +1.37] (off: 0.358 / 0.351 and +0.96 [+0.24, +1.67]): a little safety for points, so it is not the
  default. From two steps away 0.330 (seed 1; off 0.333), also for ready hands 0.328 at +0.22 points. Other
  levers tried for 红中 (seed 1, 300 walls): ``danger_weight`` 3 / 8 (deal-in 0.328 / 0.327), ``exit_weight`` 2 /
  4 (0.333 / 0.335), ``kong_slack`` 0 (0.331), ``pong_keep`` 1.3 (0.331), valuing only the standard plan while
  an opponent is likely ready (0.330-0.334, fewer points);
* **speed steer** (``steer="speed"``; default ``"value"``): the push discard follows greedy's speed order instead of
  the value estimate — best shanten, then most live effective tiles — and danger only picks among the discards as
  fast as the fastest (live effective tiles within ``live_slack``, default 0), least deal-in chance first, then
  expected loss, then greedy's order; risk and late folding apply as usual.  The idea: the value play is
  slower than greedy in 红中 (more discards per hand), so a defender with greedy's speed and safer tile choice
  should deal in less.  Measured against greedy (红中, 300 walls each; deal-in minus the greedy field's, points per
  hand), it does not: seed 1 -0.028 / -0.45, seed 3 +0.003 / -0.30, seed 4 -0.024 / +0.30 (``"value"``: -0.024 /
  +0.89, -0.016 / +0.93, -0.027 / +0.26); ``live_slack`` 2 / 5 on seed 1: -0.028 / -0.29, -0.021 / -0.29.  It
  wins a little more often (0.71-0.73 against 0.69-0.71) but loses the value play's doublings (1.21-1.27 against
  1.46-1.61 per win; -0.84 ± 0.35 points per hand paired against ``"value"`` over the 900 walls) and deals in
  about as often, so it is an option, not the default (training/BASELINES.md, third round).  A hybrid that took
  the value estimate among the as-fast discards (``live_slack`` 6) gave -0.026 / +0.74, -0.016 / +0.36, -0.029 /
  +0.68: no better than ``"value"``, not kept.
* void-suit tiles (which must go first) are thrown safest first.

The value options (``hongzhong_policy``, ``slack``, ``exit_weight`` ...) are those of :class:`ValueAgent`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from agents.danger import danger_by_kind, danger_from, deal_in_by_kind, expected_wilds, ready_estimate
from agents.features import Seen
from agents.value import ValueAgent
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS

if TYPE_CHECKING:
    from agents.value import _Option

__all__ = ["DefensiveAgent"]


WILD_FOLD_RISK = (0.2, 0.1, 0.05)
"""Default ``fold_risk`` in the wildcard variants: ready, one step and two or more steps from ready."""
TINGYONG_FOLD_RISK = (0.3, 0.15, 0.08)
"""Default ``fold_risk`` with 宜宾's eight 听用 (every estimate runs higher with twice the wildcards)."""
OFF = (math.inf,)
SAFE_FIRST_MARGIN = 0.01
"""``safe_first_shanten``: discards whose deal-in chance is within this of the safest one count as equally safe."""
STEERS = ("value", "speed")
"""``steer``: what picks the push discard before danger — the value estimate, or the greedy speed order."""


def _parse_fold_risk(text: str) -> tuple[float, ...]:
    """``"0.2/0.1/0.05"`` -> ``(0.2, 0.1, 0.05)``; ``"off"`` -> never fold on risk."""
    if not isinstance(text, str):
        raise ValueError(f"fold_risk must be a string like '0.2/0.1/0.05' or 'off', got {text!r}")
    if text.strip().lower() == "off":
        return OFF
    try:
        out = tuple(float(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(
            f"fold_risk must be numbers separated by '/' (e.g. '0.2/0.1/0.05') or 'off', got {text!r}"
        ) from None
    if not out or any(not x >= 0.0 for x in out):
        raise ValueError(f"fold_risk thresholds must be non-negative, got {text!r}")
    return out


class DefensiveAgent(ValueAgent):
    """Value play with danger-weighted discards and late folding (see the module docstring)."""

    name = "defensive"

    def __init__(
        self,
        *,
        danger_weight: float = 1.0,
        fold_shanten: int = 2,
        fold_wall_fraction: float = 0.15,
        fold_threat: float = 0.3,
        push_wall: int = 20,
        fold_risk: str | None = None,
        fold_ratio: float = 0.5,
        safe_first_shanten: int | str | None = "off",
        steer: str = "value",
        live_slack: int = 0,
        **value_options: Any,
    ) -> None:
        """``value_options``: every option of :class:`agents.value.ValueAgent` (and of the greedy base)."""
        super().__init__(**value_options)
        if not 0.0 <= float(danger_weight) <= 100.0:
            raise ValueError(f"danger_weight must be in [0, 100], got {danger_weight!r}")
        if isinstance(fold_shanten, bool) or not isinstance(fold_shanten, int) or fold_shanten < 0:
            raise ValueError(f"fold_shanten must be a non-negative int, got {fold_shanten!r}")
        if not 0.0 <= float(fold_wall_fraction) <= 1.0:
            raise ValueError(f"fold_wall_fraction must be in [0, 1], got {fold_wall_fraction!r}")
        if not 0.0 <= float(fold_threat) <= 1.0:
            raise ValueError(f"fold_threat must be in [0, 1], got {fold_threat!r}")
        self.danger_weight = float(danger_weight)
        self.fold_shanten = fold_shanten
        self.fold_wall_fraction = float(fold_wall_fraction)
        self.fold_threat = float(fold_threat)
        if isinstance(push_wall, bool) or not isinstance(push_wall, int) or push_wall < 0:
            raise ValueError(f"push_wall must be a non-negative int, got {push_wall!r}")
        self.push_wall = push_wall
        self.fold_risk_spec = fold_risk
        self._fold_risk_given = None if fold_risk is None else _parse_fold_risk(fold_risk)
        self.fold_risk: tuple[float, ...] = self._fold_risk_given or OFF
        if not 0.0 <= float(fold_ratio) <= 1.0:
            raise ValueError(f"fold_ratio must be in [0, 1], got {fold_ratio!r}")
        self.fold_ratio = float(fold_ratio)
        given = safe_first_shanten
        if given is None or (isinstance(given, str) and given.strip().lower() == "off"):
            given = math.inf
        elif isinstance(given, bool) or not isinstance(given, int) or given < 0:
            raise ValueError(f"safe_first_shanten must be a non-negative int, 'off' or None (off), got {given!r}")
        self.safe_first_shanten: float = given
        if steer not in STEERS:
            raise ValueError(f"steer must be one of {list(STEERS)}, got {steer!r}")
        self.steer = steer
        if isinstance(live_slack, bool) or not isinstance(live_slack, int) or live_slack < 0:
            raise ValueError(f"live_slack must be a non-negative int (live effective tiles), got {live_slack!r}")
        if live_slack and steer != "speed":
            raise ValueError(
                f"live_slack only applies with steer='speed' (got steer={steer!r}, live_slack={live_slack})"
            )
        self.live_slack = live_slack

    def _configure(self, cfg: RuleConfig) -> None:
        super()._configure(cfg)
        if self._fold_risk_given is not None:
            self.fold_risk = self._fold_risk_given
        else:  # measured: folding pays in the wildcard variants only (see the module docstring)
            self.fold_risk = (
                TINGYONG_FOLD_RISK if cfg.wild == "tingyong" else WILD_FOLD_RISK if cfg.wild == "hongzhong" else OFF
            )

    # ---- helpers -------------------------------------------------------------------------------------------------
    def _danger(self, seen: Seen) -> list[float]:
        assert self.cfg is not None and self._values is not None
        return danger_by_kind(seen, self.cfg, self._values)

    def _initial_wall(self) -> int:
        cfg = self.cfg
        assert cfg is not None
        return cfg.num_tiles - cfg.num_players * cfg.hand_size - 1

    def folding(self, seen: Seen, best_shanten: int) -> bool:
        """Whether the hand is too far and the wall too late to keep pushing against a likely-ready opponent."""
        if best_shanten < self.fold_shanten:
            return False
        if seen.wall > self.fold_wall_fraction * self._initial_wall():
            return False
        wilds = expected_wilds(self.cfg, seen.wild_kinds)
        return any(ready_estimate(o, wilds) >= self.fold_threat for o in seen.opponents)

    # ---- discards ------------------------------------------------------------------------------------------------
    def threat(self, seen: Seen) -> float:
        """Expected number of ready active opponents (:func:`agents.danger.ready_estimate`)."""
        assert self.cfg is not None
        wilds = expected_wilds(self.cfg, seen.wild_kinds)
        return sum(ready_estimate(o, wilds) for o in seen.opponents if o.active)

    def _void_discard(self, seen: Seen, kinds: list[int]) -> int:
        danger = self._danger(seen)
        return min(kinds, key=lambda k: (danger[k], seen.counts[k], -seen.visible[k], k))

    def _choose_discard(self, seen: Seen, legal: list[int]) -> int:
        assert self.cfg is not None and self._values is not None
        wild_now = self._wild_discard_kinds(seen, legal)
        cands = self._discard_candidates(seen, legal)
        if self.hongzhong_policy == "shagui_by_value" and seen.wilds == 1:
            cands += [k for k in legal if k in seen.wild_kinds and k not in cands]
        late = seen.wall <= self.push_wall
        options = self.evaluate_discards(seen, cands, every=late)
        rows = deal_in_by_kind(seen, self.cfg)
        risk = [sum(col) for col in zip(*rows)] if rows else [0.0] * NUM_KINDS
        danger = danger_from(seen, rows, self._values)
        s_min = min(o.shanten for o in options)
        if self.folding(seen, s_min):
            safe = [o for o in options if o.kind not in seen.wild_kinds] or options
            return min(safe, key=lambda o: (danger[o.kind], o.shanten, -o.value, o.kind)).kind
        if wild_now and danger[wild_now[0]] <= min(danger[o.kind] for o in options):
            return wild_now[0]
        if self.steer == "speed":
            best = self._fastest_safest(seen, cands, options, risk, danger)
        else:
            best = self._value_push(seen, options, s_min, late, risk, danger)
        limit = self.fold_risk[min(max(s_min, 0), len(self.fold_risk) - 1)]
        if risk[best.kind] > limit:
            safe = [o for o in options if o.kind not in seen.wild_kinds] or options
            alt = min(safe, key=lambda o: (risk[o.kind], o.shanten, -o.value, o.kind))
            if risk[alt.kind] < risk[best.kind] * self.fold_ratio:
                return alt.kind
        return best.kind

    def _fastest_safest(
        self, seen: Seen, cands: list[int], options: list[_Option], risk: list[float], danger: list[float]
    ) -> _Option:
        """``steer="speed"``: greedy's speed order (shanten, then live effective tiles), danger only among the
        discards as fast as the fastest (live tiles within ``live_slack``); ties in the greedy order."""
        keys = {k: key for key, k in self._discard_options(seen, cands)}
        fastest = min(keys.values())
        s_min, u_max = fastest[0], -fastest[1]
        pool = [o for o in options if keys[o.kind][0] == s_min and -keys[o.kind][1] >= u_max - self.live_slack]
        return min(pool, key=lambda o: (risk[o.kind], danger[o.kind], keys[o.kind]))

    def _value_push(
        self, seen: Seen, options: list[_Option], s_min: int, late: bool, risk: list[float], danger: list[float]
    ) -> _Option:
        """``steer="value"``: the value estimate minus ``danger_weight`` × danger (see the module docstring)."""
        w = self.danger_weight
        # never give up a ready hand (查大叫 makes readiness worth more than most deal-ins: measured); a slower
        # discard is weighed only late in the wall and only by a hand that is not ready yet
        pool = options if late and s_min >= 1 else [o for o in options if o.shanten == s_min]
        if s_min >= self.safe_first_shanten:
            # a hand that is not ready: the least risky discards first, value only among those
            low = min(risk[o.kind] for o in pool)
            pool = [o for o in pool if risk[o.kind] <= low + SAFE_FIRST_MARGIN]
        return max(
            pool,
            key=lambda o: (o.value - w * danger[o.kind], -o.shanten, o.useful, self._taste(seen, o.kind)),
        )

    # ---- claims --------------------------------------------------------------------------------------------------
    def _pong_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        if self.folding(seen, s_now):
            return False
        return super()._pong_ok(seen, k, s_now)

    def __repr__(self) -> str:
        return (
            f"DefensiveAgent(hongzhong_policy={self.hongzhong_policy!r}, danger_weight={self.danger_weight}, "
            f"steer={self.steer!r})"
        )
