"""Sichuan mahjong (川麻) — PettingZoo AEC environment ``sichuan_mahjong_v0``.

One episode is one hand of a Sichuan-family variant (成都 血战到底, 血流成河, 红中, 宜宾, 赤羽之战, two-player ...),
played by the pure rules engine :class:`envs.engine.game.Game`.  Every engine decision is an AEC turn.

>>> from envs import sichuan_mahjong_v0
>>> env = sichuan_mahjong_v0.env(variant="hongzhong")
>>> env.reset(seed=7)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Construction
------------
``env(variant="hongzhong", render_mode=None, **options)`` returns the raw env wrapped in PettingZoo's
``OrderEnforcingWrapper``; ``raw_env(...)`` is the bare environment.  (PettingZoo's ``AssertOutOfBoundsWrapper`` is
not used: the raw env itself refuses every action outside the space or the mask with a ``ValueError`` naming the
legal actions, and the wrapper's bare ``assert`` would repeat that check at every step.)
``variant`` is a preset name of :data:`envs.core.rule_config.PRESETS`, a YAML path or a
:class:`~envs.core.rule_config.RuleConfig`; a configuration the engine does not play (optional rules such as Yibin's
只和自摸 or 漂) raises ``envs.engine.game.UnsupportedRule`` here.

Options:

* ``rules`` — a mapping of rule-flag overrides applied to the variant (``{"cap_doublings": 4}``).
* ``reward_mode`` — ``"delta"`` (default): every agent receives its score change as it happens (kong payments, wins,
  end-of-hand settlement); ``"terminal"``: an agent receives its whole hand score once, when it leaves (a 血战
  winner) or when the hand ends.  Either way an agent's rewards sum to its hand score.
* ``engine`` — ``"python"`` (default): the hand is played by :class:`envs.engine.game.Game`; ``"compiled"``: by the
  numba kernel of :mod:`envs.compiled` (several times faster), for every preset and the rule flags it plays (a flag it
  does not play raises ``UnsupportedRule`` naming it).  The environment drives either through the backend protocol
  of :mod:`envs.backend` (``env.backend``).  Everything it returns is the same (``tests/envs/test_compiled_aec.py``);
  on the compiled engine, ``infos[agent]["events"]`` / ``["result"]`` and ``env.game`` are produced on first read
  by replaying the hand on the Python engine (:class:`envs.lazy_info.LazyInfo`), so a loop that never reads them
  never pays for them (pickling an info, as sb3's ``SubprocVecEnv`` does to send it between processes, reads
  them).
* ``reward_scale`` — rewards are ``score change / base_unit * reward_scale`` when ``normalize_reward`` is true
  (default false: ``score change * reward_scale``, in the variant's points).

Matches (RULES.md §11; one mechanism, :mod:`envs.engine.match`):

* ``match`` — True: one episode is a whole points match (赤羽: 4 hands from 50 000 points, a seat below zero ends it;
  any other preset with ``match_hands``); False: single hands; default: the variant's own setting (on for a variant
  with ``hands_per_match``, 赤羽; off for the others); ``match_hands`` — the number of hands (default the variant's
  ``hands_per_match``).
* ``room`` — a room of :mod:`envs.core.rooms` (``"初级场"`` or ``"beginner"`` ...): one episode is a bankroll match;
  ``stacks`` — one stack or one per seat, inside the room's entry limits; ``bankroll`` — the flags of RULES.md §11.3
  (``short_payment``, ``refund_cap``, ``on_bust``, ``bust_at``).
* ``placement`` — a placement reward table (``"linear"``, ``"winner"`` or one value per rank), paid at the end.

In a match the dealer rule picks each next dealer and points or chips carry over; rewards are the changes of each
seat's standing (``normalize_reward``: per ``base_unit``, or per 底分 in a room), so they add up to the match result
(plus the placement reward); ``infos[agent]["match"]`` holds the match's state (hand, dealer, standings, busts,
refills, and the placements at the end).  A 血战 winner stays in ``agents`` until the match ends; the match ends
after its hands, at a bankruptcy or at a bust, and every agent then terminates (PettingZoo's finished-agent
mechanism).  Observations are ``chuanma-v1-match`` (:mod:`envs.engine.match_observation`): ``(117, 34)``.  Reset
option ``dealer`` sets the first dealer; ``wall``, ``exchange_offset`` and ``rules`` fix one hand and are refused.

Illegal actions are an error, not a penalty: stepping an action whose mask entry is 0 raises ``ValueError`` naming
the action and the legal ones (no ``TerminateIllegalWrapper``: a learner must use the mask).

Agents, turns and simultaneous decisions
----------------------------------------
Agents are ``player_0`` … ``player_{n-1}`` (seat numbers of the engine).  The engine's pending seats take their turns
one after another (the engine's order).  Simultaneous decisions — 换三张, 定缺, claim windows on a discard and rob
windows on an added kong — are collected one agent at a time; an agent never sees another agent's answer (the
engine resolves the decision when the last pending seat has answered).  换三张 takes **three** consecutive turns of
the same agent (one ``EXCHANGE_PICK k`` each); the picks so far are shown in the ``exchange_picked`` plane.

A 血战 winner leaves the hand through PettingZoo's finished-agent mechanism: it is terminated, steps once with
``None`` and is removed from ``agents`` — as soon as its hand score is final.  The one way a departed winner's score
can still change is a 退税 refund (RULES.md §2.11.3): a winner who paid kong money to a player who has not won stays
in ``agents``, without decisions, until that player wins or the hand ends, so that rewards always add up to the
hand score.  When the hand ends every remaining agent terminates.  Nothing truncates.

Actions (``Discrete(183)``, the flat layout of :mod:`envs.core.actions`)
------------------------------------------------------------------

=========  ========================  ==============================================================
ids        action                    meaning
=========  ========================  ==============================================================
0-33       ``DISCARD k``             打牌 discard one tile of kind k
34-67      ``KONG k``                杠 暗杠 / 补杠 on own turn, 直杠 on a discard
68         ``PONG``                  碰 the discard
69         ``HU``                    胡 自摸 / 点炮 / 抢杠
70         ``PASS``                  过 decline the claim or the rob
71-104     ``EXCHANGE_PICK k``       换三张 pick one tile of kind k (three turns)
105-107    ``DINGQUE s``             定缺 void suit 万 / 筒 / 条
108-182    reserved                  吃 / 飞 / 提 / 报胡 / 请胡 / 红中杠 / 赖子杠 of other variants
=========  ========================  ==============================================================

Observations
------------
``{"observation": float32 (106, 34), "action_mask": int8 (183,)}``; the tensor is ``chuanma-v1`` of
:mod:`envs.engine.observation` (its docstring has the full plane table; ``envs.engine.observation.decode`` gives named
views). The mask is all zeros for an agent that is not ``agent_selection``.

Infos
-----
``infos[agent]`` holds ``"seat"``, ``"events"`` (the engine events of the last step that this seat may see: other
seats' private events are dropped or redacted, see ``Game.events_for``), ``"transfers"`` (the payments of the last
step as ``(payer, receiver, amount, reason)`` tuples, public information), ``"scores"`` (hand scores of every seat)
and, once the hand is over, ``"result"`` (the engine's ``HandResult`` as plain JSON-able data).

reset
-----
``reset(seed=None, options=None)``.  ``seed`` (int, bytes or str) deals the hand ``Game(cfg, seed=seed)``; a reset
without a seed plays the next hand of the current seed sequence (hand ``i`` uses ``envs.core.wall.hand_seed(seed, i)``;
the sequence starts at seed 0 if no seed was ever given): the environment never reads the clock or OS entropy.
``options`` may hold a fixed start for tests and puzzles — ``"wall"`` (kinds in draw order), ``"dealer"``,
``"exchange_offset"`` — passed to the engine, and ``"rules"`` (flag overrides for this hand only; the table size
cannot change).  Other keys are ignored with a ``UserWarning`` (PettingZoo's ``api_test`` passes arbitrary options).

Version history
---------------
* ``sichuan_mahjong_v0`` — first release: observation ``chuanma-v0``, action layout ``chuanma-actions-v0``;
  observation ``chuanma-v1`` since 断卡根 and Wuhan (new planes, same API).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from envs.backend import ENGINES, HandLog, TableBackend, make_table
from envs.core.actions import ACTION_SPACE_SIZE, action_name
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import hand_seed
from envs.engine.game import Game
from envs.engine.match import MatchLedger, MatchRules, TableMatch, match_rules
from envs.engine.match_observation import MATCH_OBS_SHAPE, encode_match, match_bounds
from envs.engine.observation import OBS_SHAPE, ObservationEncoder, legal_mask, observation_bounds
from envs.engine.render import render_view
from envs.lazy_info import LazyInfo
from envs.scoring.settlement import Transfer

ENV_NAME = "sichuan_mahjong_v0"
REWARD_MODES = ("delta", "terminal")
_GAME_OPTIONS = ("wall", "dealer", "exchange_offset")
_RESET_OPTIONS = (*_GAME_OPTIONS, "rules")


_MASK_SHAPE = (ACTION_SPACE_SIZE,)


class _ActionSpace(spaces.Discrete):
    """``Discrete(183)`` whose ``contains`` answers a plain ``int`` without numpy (wrappers such as PettingZoo's
    ``AssertOutOfBoundsWrapper`` ask it at every step); every other value takes ``Discrete.contains``."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:  # what Discrete.contains computes for an int: start <= x < start + n
            start = int(self.start)
            return start <= x < start + int(self.n)
        return super().contains(x)

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> Any:
        """``Discrete.sample``; a legal mask (``int8`` 0/1 of shape ``(183,)``) takes a short path that draws what
        ``Discrete.sample(mask)`` draws from the same generator (one ``integers(len(legal))``, as
        ``Generator.choice`` of the legal ids)."""
        if probability is None and type(mask) is np.ndarray and mask.dtype == np.int8 and mask.shape == _MASK_SHAPE:
            ids = mask.nonzero()[0]
            if ids.size and not mask.tobytes().translate(None, b"\x00\x01"):  # every entry 0 or 1
                return self.start + self.dtype.type(ids[self.np_random.integers(ids.size)])
        return super().sample(mask, probability)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing ``agent_iter`` iterator reading the raw env's ``agents`` and ``agent_selection``
    directly (the same checks)."""

    def __next__(self) -> str:
        env = self.env
        raw = env.env  # type: ignore[attr-defined]
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"  # type: ignore[attr-defined]
        env._has_updated = False  # type: ignore[attr-defined]
        return raw.agent_selection


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks on a short path for the calls of every step:
    ``agent_iter``, ``last`` and ``step`` reach the raw env directly instead of through the wrapper's attribute
    forwarding."""

    def agent_iter(self, max_iter: int = 2**63) -> _Iterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # what the wrapper raises for agent_selection before reset
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:  # the wrapper's errors and warnings
            super().step(action)

    def __str__(self) -> str:
        return str(self.env)


def env(variant: str | RuleConfig = "hongzhong", render_mode: str | None = None, **options: Any) -> AECEnv:
    """The wrapped environment: :class:`raw_env` inside PettingZoo's ``OrderEnforcingWrapper`` (the raw env checks
    actions itself; see the module docstring)."""
    return _OrderEnforcing(raw_env(variant=variant, render_mode=render_mode, **options))


class raw_env(AECEnv, EzPickle):
    """The bare AEC environment (see the module docstring), on the engine backend ``engine`` names
    (``env.backend``, :mod:`envs.backend`)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": ENV_NAME,
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str | RuleConfig = "hongzhong",
        render_mode: str | None = None,
        *,
        rules: Mapping[str, Any] | None = None,
        reward_mode: str = "delta",
        reward_scale: float = 1.0,
        normalize_reward: bool = False,
        engine: str = "python",
        match: bool | None = None,
        match_hands: int | None = None,
        placement: str | Sequence[float] | None = None,
        room: str | None = None,
        stacks: int | Sequence[int] | None = None,
        bankroll: Mapping[str, str] | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            variant=variant,
            render_mode=render_mode,
            rules=rules,
            reward_mode=reward_mode,
            reward_scale=reward_scale,
            normalize_reward=normalize_reward,
            engine=engine,
            match=match,
            match_hands=match_hands,
            placement=placement,
            room=room,
            stacks=stacks,
            bankroll=bankroll,
        )
        super().__init__()
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
        self.engine = engine
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {list(REWARD_MODES)}, got {reward_mode!r}")
        if not np.isfinite(reward_scale):
            raise ValueError(f"reward_scale must be a finite number, got {reward_scale!r}")
        self.cfg: RuleConfig = load_variant(variant, **dict(rules or {}))
        self.hand_cfg: RuleConfig = self.cfg  # the rules of the current hand (reset option "rules" may change them)
        self.backend: TableBackend = make_table(engine, self.cfg)  # UnsupportedRule now rather than at a reset
        if match is None:  # the variant's own setting: 赤羽 (hands_per_match) plays matches
            match = self.cfg.hands_per_match is not None
        self.match_rules: MatchRules | None = match_rules(
            self.cfg,
            match=match,
            hands=match_hands,
            placement=placement,
            room=room,
            stacks=stacks,
            bankroll=bankroll,
        )
        self._match: TableMatch | None = None
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.reward_scale = float(reward_scale)
        self.normalize_reward = bool(normalize_reward)
        self._reward_factor = self.reward_scale / (self._reward_unit(self.cfg) if normalize_reward else 1)
        n = self.cfg.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoder = ObservationEncoder.from_config(self.cfg)  # the reference path's (reference_observe)
        low, high = observation_bounds()
        shape = OBS_SHAPE
        if self.match_rules is not None:  # chuanma-v1-match: the match rows appended
            mlow, mhigh = match_bounds()
            low, high, shape = np.concatenate([low, mlow]), np.concatenate([high, mhigh]), MATCH_OBS_SHAPE
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(ACTION_SPACE_SIZE,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: _ActionSpace(ACTION_SPACE_SIZE) for a in self.possible_agents}
        self._seed_base: Any = 0
        self._hand_index = -1
        self._scores: list[int] = [0] * n
        self._masks: dict[int, np.ndarray] = {}  # legal masks of the current decision point, per seat

    # ---- spaces ----------------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- the hand --------------------------------------------------------------------------------------------
    @property
    def game(self) -> Game | None:
        """The hand on the Python engine (None before the first reset or after :meth:`close`); on the compiled
        engine, the Python engine's replay of the hand brought up to the current decision (for inspection and
        rendering: stepping it yourself would leave the replay behind the kernel)."""
        log = self.backend.log
        return None if log is None else log.game()

    @game.setter
    def game(self, value: Game) -> None:
        raise AttributeError(
            "raw_env.game is the hand of the engine backend (on the compiled engine, its replay on the Python "
            "engine); it cannot be set: reset() deals a hand"
        )

    def _reward_unit(self, cfg: RuleConfig) -> int:
        """What a normalised reward divides by: the room's 底分 in a bankroll match, else the variant's base_unit."""
        rules = self.match_rules
        return rules.unit if rules is not None and rules.bankroll else cfg.base_unit

    @property
    def match(self) -> MatchLedger | None:
        """The match being played (match mode; None otherwise or before the first reset)."""
        return None if self._match is None else self._match.ledger

    def placement_reward(self, seat: int) -> float:
        """``seat``'s placement reward once the match is over (RULES.md §11.4; 0 before, without a table or
        outside match mode); the AEC rewards pay it with the match's last step."""
        led = self.match
        if led is None or not led.over or led.rules.placement is None:
            return 0.0
        return led.placement_rewards()[seat]

    @property
    def reward_factor(self) -> float:
        """Points of score change per unit of reward: ``reward_scale`` (per ``base_unit`` when normalised)."""
        return self._reward_factor

    # ---- episode ---------------------------------------------------------------------------------------------
    def reset(self, seed: Any = None, options: dict[str, Any] | None = None) -> None:
        options = dict(options or {})
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:  # ignored, as PettingZoo's api_test requires, but never silently
            warnings.warn(
                f"ignoring unknown reset option(s) {unknown}; known options are {list(_RESET_OPTIONS)}",
                UserWarning,
                stacklevel=2,
            )
        if seed is not None:
            self._seed_base, self._hand_index = seed, 0
            hand = seed
        else:
            self._hand_index += 1
            hand = self._seed_base if self._hand_index == 0 else hand_seed(self._seed_base, self._hand_index)
        if self.match_rules is not None:
            self._reset_match(hand, options)
            return
        cfg = self.cfg
        if options.get("rules"):
            cfg = cfg.replace(**dict(options["rules"]))
            if cfg.num_players != self.cfg.num_players:
                raise ValueError(
                    f"reset option 'rules' cannot change num_players ({self.cfg.num_players} -> {cfg.num_players}); "
                    "make a new environment instead"
                )
        # the hand's rules decide the score scale of the observation and of normalised rewards
        self._encoder = ObservationEncoder.from_config(cfg)
        self._reward_factor = self.reward_scale / (cfg.base_unit if self.normalize_reward else 1)
        self.hand_cfg = cfg
        backend = self.backend
        backend.deal(cfg, hand, {k: options[k] for k in _GAME_OPTIONS if k in options})
        self._start_episode(backend.scores())  # after the deal (four 红中 can win there)

    def _start_episode(self, scores: list[int]) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._scores = scores
        self._skip_agent_selection = None
        self._masks.clear()
        self._after_engine_step(())
        if self.render_mode == "human":
            self.render()

    def _reset_match(self, seed: Any, options: dict[str, Any]) -> None:
        """Match mode: one episode is a whole match of seed ``seed`` (RULES.md §11.2); option ``dealer``: the first
        dealer (a fixed wall or per-hand rules do not apply to a match)."""
        fixed = sorted(k for k in ("wall", "exchange_offset", "rules") if options.get(k) is not None)
        if fixed:
            raise ValueError(f"reset options {fixed} fix one hand; a match deals its own (only 'dealer' applies)")
        rules = self.match_rules
        assert rules is not None
        self.hand_cfg = self.cfg
        self._encoder = ObservationEncoder.from_config(self.cfg)
        self._match = TableMatch(self.backend, self.cfg, rules, seed, dealer=options.get("dealer"))
        self._start_episode(self._match_scores())

    def _match_scores(self) -> list[int]:
        """Each seat's change since the match began (points or chips): what match-mode rewards add up to."""
        led = self._match.ledger
        return [s - start for s, start in zip(led.standing, led.rules.start)]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat, action_id = self._begin_step(agent, action)
        transfers = self.backend.step(seat, action_id)
        if transfers is None:  # a 换三张 pick before the third: the engine has not moved
            self._after_pick()
            return
        if self._match is not None:
            self._match.ledger.apply(transfers)
        self._after_engine_step(transfers)
        if self.render_mode == "human":
            self.render()

    def _begin_step(self, agent: str, action: Any) -> tuple[int, int]:
        """Check ``agent``'s action against its mask (``ValueError`` naming the legal ones) and clear the step's
        rewards (PettingZoo's ``_clear_rewards``); returns ``(seat, action id)``."""
        seat = self.agent_name_mapping[agent]
        mask = self.legal_mask(seat)
        action_id = _as_id(action)
        if action_id is None or not mask[action_id]:
            legal = ", ".join(f"{i} ({action_name(i)})" for i in np.flatnonzero(mask))
            shown = f"{action_id} ({action_name(action_id)})" if action_id is not None else repr(action)
            phase = self.backend.phase().value
            raise ValueError(f"illegal action {shown} for {agent} in phase {phase}; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0
        self._masks.clear()
        return seat, action_id

    def _after_pick(self) -> None:
        """A 换三张 pick before the third: the engine has not moved (no events, no payments)."""
        self._accumulate_rewards()
        scores = self._scores if self._match is None else self.backend.scores()  # the hand scores
        self.infos = {
            a: {"seat": self.agent_name_mapping[a], "events": [], "transfers": [], "scores": scores[:]}
            for a in self.agents
        }
        if self.render_mode == "human":
            self.render()

    def _after_engine_step(self, transfers: Sequence[Transfer]) -> None:
        """Rewards, terminations, infos and the next agent after the engine moved (``transfers``: its payments).

        The step's events and, at the end, the hand result come from the backend's :class:`~envs.backend.HandLog`:
        read now when they are cheap (the Python engine's own log), else on first read of each info
        (:class:`~envs.lazy_info.LazyInfo`: the compiled engine's replay)."""
        backend = self.backend
        over = backend.is_over()
        hand_info = self._step_info(transfers, over)
        match = self._match
        if match is None:
            scores, active = backend.scores(), backend.active()
            self._update_agents(scores, active, over, -1 if over else backend.acting_seat(), hand_info)
            return
        # match mode: the step's infos come from the hand just played; then the next hand is dealt (RULES.md §11.2)
        if over and match.ledger.hands_played <= match.ledger.hand_index:
            match.end_hand()
        led = match.ledger
        summary = led.summary()

        def info(seat: int) -> dict[str, Any]:
            out = hand_info(seat)
            extra = {"match": _plain(summary)}
            return out.extended(extra) if isinstance(out, LazyInfo) else {**out, **extra}

        n = self.cfg.num_players
        self._update_agents(self._match_scores(), [True] * n, led.over, -1 if led.over else backend.acting_seat(), info)
        if led.over and led.rules.placement is not None:  # the placement reward, paid once at the end (§11.4)
            for agent, bonus in zip(self.possible_agents, led.placement_rewards()):
                if agent in self.rewards:
                    self.rewards[agent] += bonus
                    self._cumulative_rewards[agent] += bonus

    def _step_info(self, transfers: Sequence[Transfer], over: bool) -> Callable[[int], dict[str, Any]]:
        """The per-seat info builder of the step that made ``transfers`` (``over``: the hand has ended)."""
        backend = self.backend
        rows = [(t.payer, t.receiver, t.amount, t.reason) for t in transfers]  # built once, copied per agent
        scores = backend.scores()
        log = backend.log
        if backend.defers_events:
            fill = functools.partial(_deferred, log, backend.steps, over)
            lazy = ("events", "result") if over else ("events",)

            def info(seat: int) -> dict[str, Any]:
                values = {"seat": seat, "events": None, "transfers": rows[:], "scores": scores[:]}
                return LazyInfo(values, functools.partial(fill, seat), lazy)

        else:
            new_events = log.events_of(backend.steps)
            forms = _event_forms(new_events) if new_events else None
            result = _result_dict(log.game().result) if over else None  # built once; each agent gets its own copy

            def info(seat: int) -> dict[str, Any]:
                seen = []  # _events_from_forms(forms, seat), inlined: fresh dicts per seat
                if forms:
                    for vis, shown, hidden in forms:
                        if vis is None or seat in vis:
                            seen.append(shown.copy())
                        elif hidden is not None:
                            seen.append(hidden.copy())
                out = {"seat": seat, "events": seen, "transfers": rows[:], "scores": scores[:]}
                if over:
                    out["result"] = _plain(result)
                return out

        return info

    def _update_agents(
        self, scores: list[int], active: Sequence[bool], over: bool, next_seat: int, info: Callable[[int], dict]
    ) -> None:
        """PettingZoo's bookkeeping after the hand moved: rewards from the score changes, terminations of the
        agents leaving, ``info(seat)`` per agent, and the next ``agent_selection`` (``next_seat``: the engine's
        first pending seat, -1 when the hand is over)."""
        prev = self._scores
        delta = self.reward_mode == "delta"
        factor = self._reward_factor
        mapping = self.agent_name_mapping
        score_final = self.backend.score_final
        rewards, terminations, infos = self.rewards, self.terminations, self.infos
        for agent in self.agents:
            seat = mapping[agent]
            leaving = over or (not active[seat] and score_final(seat))
            if delta:
                rewards[agent] = (scores[seat] - prev[seat]) * factor
            elif leaving and not terminations[agent]:
                rewards[agent] = scores[seat] * factor
            if leaving:
                terminations[agent] = True
            infos[agent] = info(seat)
        if scores != prev:
            for seat, score in enumerate(scores):
                if score != prev[seat] and self.possible_agents[seat] not in rewards:
                    warnings.warn(
                        f"seat {seat} left the hand but its score changed ({prev[seat]} -> {score}); "
                        "the change cannot be paid as a reward",
                        RuntimeWarning,
                        stacklevel=4,
                    )
            self._scores = list(scores)
        cumulative = self._cumulative_rewards
        for agent, reward in rewards.items():  # PettingZoo's _accumulate_rewards
            cumulative[agent] += reward
        if not over:
            self.agent_selection = self.possible_agents[next_seat]
        elif self.agents:
            self.agent_selection = self.agents[0]
        for agent in self.agents:  # PettingZoo's _deads_step_first
            if terminations[agent] or self.truncations[agent]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = agent
                break

    @property
    def scores(self) -> list[int]:
        """The hand scores of every seat now (points; a copy); in match mode each seat's change since the match
        began (points or chips), what its rewards add up to."""
        return list(self._scores)

    def info_with(self, agent: str, extra: dict[str, Any]) -> dict[str, Any]:
        """A new dict: ``infos[agent]`` with the keys of ``extra`` added (for wrappers such as
        :class:`envs.single_agent.SingleAgentEnv`; values read on first use stay so)."""
        info = self.infos[agent]
        return info.extended(extra) if isinstance(info, LazyInfo) else {**info, **extra}

    def end_info(self, seat: int, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` with ``seat``, the hand scores and, once the hand is over, its ``result`` (the info of a seat
        that has left ``agents``)."""
        info = {**extra, "seat": seat, "scores": self.backend.scores()}
        backend = self.backend
        if not backend.is_over():
            return info
        log = backend.log
        if backend.defers_events:
            return LazyInfo(info, lambda: {"result": _result_dict(log.game().result)}, ("result",))
        info["result"] = _result_dict(log.game().result)
        return info

    # ---- observations ----------------------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        obs = self.backend.observe(seat)
        if self._match is not None:
            obs = encode_match(self._match.ledger, seat, obs)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = self.legal_mask(seat).copy()
        else:
            mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def privileged_observation(self, agent: str) -> np.ndarray:
        """What the rules hide from ``agent`` now, as tile planes (:mod:`envs.engine.privileged`: the other seats'
        concealed hands, the live wall and its next draws; a new ``(8, 34)`` float32 array) — for a critic during
        training (an asymmetric actor-critic), never for the policy that acts."""
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; the agents are {list(self.agent_name_mapping)}")
        return self.backend.privileged(self.agent_name_mapping[agent])

    def legal_mask(self, seat: int) -> np.ndarray:
        """The seat's legal mask now, cached until the next action (do not modify it: ``observe`` and
        :meth:`action_mask` return copies)."""
        mask = self._masks.get(seat)
        if mask is None:
            mask = self._masks[seat] = self.backend.legal_mask(seat)
        return mask

    def reference_observe(self, agent: str) -> dict[str, np.ndarray]:
        """:meth:`observe` the slow way, through ``Game.view`` of :attr:`game` (the reference the fast paths are
        tested against)."""
        seat = self.agent_name_mapping[agent]
        view = self.game.view(seat)
        picks = self.backend.picks(seat)
        obs = self._encoder.encode(view, exchange_picks=picks)
        if self._match is not None:
            obs = encode_match(self._match.ledger, seat, obs)
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = legal_mask(view, picks)
        else:
            mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The ``int8`` legal-action mask of ``agent`` (default: the agent to act)."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    # ---- rendering -------------------------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _render_text(self) -> str:
        game = self.game
        if game is None:
            return "(no hand: call reset() first)"
        seat = self.agent_name_mapping.get(self.agent_selection, 0) if self.agents else 0
        return render_view(game.view(seat))

    def close(self) -> None:
        self.backend.close()


def _deferred(log: HandLog, step: int, over: bool, seat: int) -> dict[str, Any]:
    """The deferred values of ``seat``'s info at ``step`` of the hand of ``log``: the events it may see and, at the
    end, the result."""
    out: dict[str, Any] = {"events": _events_from_forms(_event_forms(log.events_of(step)), seat)}
    if over:
        out["result"] = _result_dict(log.game().result)
    return out


def _events_for(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The engine events ``seat`` may see (the ``visible_to`` / ``redact`` convention of :mod:`envs.engine.game`),
    copied."""
    out = []
    for ev in events:
        vis = ev.get("visible_to")
        if vis is None:
            out.append(dict(ev))
        elif seat in vis:
            out.append({k: v for k, v in ev.items() if k not in ("visible_to", "redact")})
        elif ev.get("redact"):
            drop = set(ev["redact"]) | {"visible_to", "redact"}
            out.append({k: v for k, v in ev.items() if k not in drop})
    return out


def _event_forms(events: list[dict[str, Any]]) -> list[tuple[Any, dict[str, Any], dict[str, Any] | None]]:
    """Per event: who sees it, the form they see and the redacted form the others see (None: nothing); built once
    per step, copied per seat by :func:`_events_from_forms` (the result of :func:`_events_for`)."""
    out = []
    for ev in events:
        vis = ev.get("visible_to")
        if vis is None:
            out.append((None, ev, None))
            continue
        shown = {k: v for k, v in ev.items() if k not in ("visible_to", "redact")}
        hidden = None
        if ev.get("redact"):
            drop = set(ev["redact"]) | {"visible_to", "redact"}
            hidden = {k: v for k, v in ev.items() if k not in drop}
        out.append((vis, shown, hidden))
    return out


def _events_from_forms(forms: list[tuple[Any, dict[str, Any], dict[str, Any] | None]], seat: int) -> list[dict]:
    """:func:`_events_for` of one step's events for ``seat`` from :func:`_event_forms` (fresh dicts per seat)."""
    out = []
    for vis, shown, hidden in forms:
        if vis is None or seat in vis:
            out.append(dict(shown))
        elif hidden is not None:
            out.append(dict(hidden))
    return out


def _as_id(action: Any) -> int | None:
    """The flat id of an action given as an int / numpy integer, or None when it is not one in range."""
    try:
        a = operator.index(action)
    except TypeError:
        return None
    return a if 0 <= a < ACTION_SPACE_SIZE else None


def _result_dict(result: Any) -> dict[str, Any]:
    """The engine's hand result as plain JSON-able data (lists, dicts, numbers, strings)."""
    return _plain(dataclasses.asdict(result))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
