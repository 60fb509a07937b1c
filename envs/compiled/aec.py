"""The AEC environment on the compiled engine (编译 AEC 环境): ``sichuan_mahjong_v0.raw_env(engine="compiled")``.

:class:`CompiledRawEnv` is :class:`envs.sichuan_mahjong_v0.raw_env` with the hand played by the numba kernel
(:mod:`envs.compiled.kernel`) on one state row instead of :class:`envs.engine.game.Game`: the same agents, turns,
observations, masks, rewards, terminations, infos, seeds, reset options and errors, for the variants the compiled
engine plays (:mod:`envs.compiled.support`: every preset and its scoring / settlement options; a flag it does not
play raises :class:`~envs.engine.game.UnsupportedRule` naming it).

What it computes only when asked:

* ``infos[agent]["events"]`` and ``infos[agent]["result"]`` (the engine's event log and hand result) come from the
  Python engine replaying the hand's decisions (:class:`envs.compiled.shadow.HandReplay`) the first time a value of
  that info is read (:class:`~envs.compiled.shadow.LazyInfo`); ``"seat"``, ``"transfers"`` and ``"scores"`` are
  computed at every step.  A loop that reads the events every step pays the Python engine's cost for them.
* ``env.game`` is that replayed :class:`~envs.engine.game.Game`, brought up to the current decision when read (for
  inspection and rendering; stepping it yourself would leave the replay behind the kernel).

``tests/envs/test_compiled_aec.py`` plays the two environments side by side on the same seeds and compares everything
they return at every step.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from envs.compiled import kernel as K
from envs.compiled._cache import announce_compile
from envs.compiled.dealing import seeded_start
from envs.compiled.encode import encode_row
from envs.compiled.layout import ACTIVE, OVER, PHASE, STATE_SIZE, WALL_LEN, WON
from envs.compiled.ledger import Ledger
from envs.compiled.shadow import HandReplay, LazyInfo
from envs.compiled.support import check_supported, rule_vector, win_table
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig
from envs.core.wall import tile_multiset
from envs.engine.game import Game
from envs.engine.observation import OBS_SHAPE, PHASES
from envs.sichuan_mahjong_v0 import _event_forms, _events_from_forms, _result_dict, raw_env

__all__ = ["CompiledRawEnv"]


class CompiledRawEnv(raw_env):
    """``raw_env`` on the compiled engine (see the module docstring); made by ``raw_env(..., engine="compiled")``."""

    def __init__(self, *args: Any, engine: str = "compiled", **kwargs: Any) -> None:
        if engine != "compiled":
            raise ValueError(f"CompiledRawEnv plays engine='compiled', got engine={engine!r}")
        super().__init__(*args, engine=engine, **kwargs)
        check_supported(self.cfg)
        announce_compile(K.deal, K.apply_action, K.legal_mask, encode_row)
        self._table = win_table()
        self._row = np.zeros(STATE_SIZE, dtype=np.int32)
        events, counts = K.empty_events(1)
        self._ev, self._count = events[0], counts  # one row's event buffer and its count (a 1-element array)
        self._wall = np.zeros(WALL_LEN, dtype=np.int32)
        self._hand_rules: dict[RuleConfig, tuple[np.ndarray, np.ndarray]] = {}  # cfg -> (rule vector, tiles)
        self._rules = rule_vector(self.cfg)
        self._base_unit = float(self.cfg.base_unit)
        self._ledger = Ledger(self.cfg, self._table)
        self._replay: HandReplay | None = None

    # ---- the hand --------------------------------------------------------------------------------------------
    @property
    def game(self) -> Game | None:
        """The hand on the Python engine, replayed up to the current decision (None before the first reset)."""
        return None if self._replay is None else self._replay.game()

    @game.setter
    def game(self, value: None) -> None:  # raw_env.__init__ / close clear it
        if value is not None:
            raise AttributeError("the compiled environment's game is its replay of the hand; it cannot be set")
        self._replay = None

    def _start_hand(self, cfg: RuleConfig, hand: Any, fixed: dict[str, Any]) -> list[int]:
        known = self._hand_rules.get(cfg)
        if known is None:
            check_supported(cfg)
            known = self._hand_rules[cfg] = (rule_vector(cfg), np.asarray(tile_multiset(cfg), dtype=np.int32))
        self._rules, tiles = known
        self._base_unit = float(cfg.base_unit)
        wall = self._wall
        if fixed:  # a fixed start (tests, puzzles): the engine checks and completes it
            game = Game(cfg, **fixed) if "wall" in fixed else Game(cfg, seed=hand, **fixed)
            wall[: cfg.num_tiles] = game._wall
            dealer, offset = game.dealer, game.exchange_offset or 0
            self._replay = HandReplay(lambda: game, cfg.num_players)
        else:
            dealer, offset = seeded_start(cfg, hand, tiles, wall)
            self._replay = HandReplay(functools.partial(Game, cfg, seed=hand), cfg.num_players)
        self._observer = None
        ledger = self._ledger = Ledger(cfg, self._table)
        ledger.transfers = []
        count = self._count
        count[0] = 0
        K.deal(self._row, wall[: cfg.num_tiles], dealer, offset, self._rules, self._table, self._ev, count)
        if count[0]:  # four 红中 can win at the deal
            ledger.settle(self._row, self._ev, count, self._rules)
        return list(ledger.scores)

    # ---- stepping --------------------------------------------------------------------------------------------
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat, action_id = self._begin_step(agent, action)
        decided = self._replay.record(seat, action_id)
        row, ledger, count = self._row, self._ledger, self._count
        count[0] = 0
        K.apply_action(row, seat, action_id, self._rules, self._table, self._ev, count)  # picks go to the row
        if not decided:  # a 换三张 pick before the third: nothing to settle
            self._after_pick()
            return
        transfers = ledger.transfers
        transfers.clear()
        if count[0]:
            ledger.settle(row, self._ev, count, self._rules)
        self._after_engine_step(transfers)
        if self.render_mode == "human":
            self.render()

    def _phase_name(self) -> str:
        return PHASES[self._row[PHASE]].value

    def _after_engine_step(self, new_transfers: list) -> None:
        row = self._row
        over = bool(row[OVER])
        rows = [(t.payer, t.receiver, t.amount, t.reason) for t in new_transfers]
        scores = list(self._ledger.scores)
        fill = functools.partial(_deferred, self._replay, self._replay.steps, over)
        lazy = ("events", "result") if over else ("events",)

        def info(seat: int) -> dict[str, Any]:
            values = {"seat": seat, "events": None, "transfers": rows[:], "scores": scores[:]}
            return LazyInfo(values, functools.partial(fill, seat), lazy)

        active = row[ACTIVE : ACTIVE + len(scores)].tolist()
        self._update_agents(scores, active, over, -1 if over else int(K.acting_seat(row)), info)

    def _info_with(self, agent: str, extra: dict[str, Any]) -> dict[str, Any]:
        info = self.infos[agent]
        return info.extended(extra) if isinstance(info, LazyInfo) else {**info, **extra}

    def _end_info(self, seat: int, extra: dict[str, Any]) -> dict[str, Any]:
        info = {**extra, "seat": seat, "scores": list(self._scores)}
        if not self._row[OVER]:
            return info
        replay = self._replay
        return LazyInfo(info, lambda: {"result": _result_dict(replay.game().result)}, ("result",))

    def _score_final(self, seat: int) -> bool:
        return self._ledger.score_final(seat, self._row[WON : WON + self.cfg.num_players])

    # ---- observations ----------------------------------------------------------------------------------------
    def _encode(self, seat: int) -> np.ndarray:
        obs = np.empty(OBS_SHAPE, dtype=np.float32)
        encode_row(self._row, seat, self._base_unit, obs)
        return obs

    def _legal_mask(self, seat: int) -> np.ndarray:
        mask = self._masks.get(seat)
        if mask is None:
            mask = self._masks[seat] = np.empty(ACTION_SPACE_SIZE, dtype=np.int8)
            K.legal_mask(self._row, seat, self._rules, self._table, mask)
        return mask

    def reference_observe(self, agent: str) -> dict[str, np.ndarray]:
        """:meth:`raw_env.reference_observe` on the replayed ``Game`` (the Python encoder of ``Game.view``)."""
        seat = self.agent_name_mapping[agent]
        self._picks[seat] = self._replay.picks(seat)  # the picks the engine has not received yet
        return super().reference_observe(agent)

    def close(self) -> None:
        self._replay = None


def _deferred(replay: HandReplay, step: int, over: bool, seat: int) -> dict[str, Any]:
    """The deferred values of ``seat``'s info at ``step``: the events it may see and, at the end, the result."""
    out: dict[str, Any] = {"events": _events_from_forms(_event_forms(replay.events_of(step)), seat)}
    if over:
        out["result"] = _result_dict(replay.game_at(step).result)
    return out
