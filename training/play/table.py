"""A table (牌桌) where a person plays one seat against agents: the game logic behind ``chuanma play``.

:class:`PlayTable` holds a :class:`~envs.engine.match.Match` on the Python engine and one agent
(:func:`agents.registry.make_agent`) per other seat.  After every change it lets the agents decide until the person
has a decision to make or the hand is over, so the person only ever faces their own decisions.  The person's
decisions arrive as structured engine actions (:func:`envs.engine.game.action_from_dict`) and are checked against
the engine's legal actions for the person's seat: an action not in that list is refused with
:class:`IllegalAction` and the game is unchanged.

:meth:`PlayTable.state` is what the page shows, built from the person's :class:`~envs.engine.view.PlayerView` and the
events that seat may see (:meth:`envs.engine.game.Game.events_for`): own hand, every seat's discards and melds,
declared void suits, the wall count, the hand's and the match's scores, the legal actions with labels, and at the
hand's end the settlement (every win with its fan breakdown, every transfer).  Nothing another seat holds
concealed is in it.

Agents decide as in :func:`training.evaluation.evaluate.play_hand`: the observation tensor and legal mask of their
seat, 换三张 as three picks, ``reset(seat, rules)`` before each hand and the visible events for outside bots.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.registry import make_agent
from envs.core.actions import ACTION_SPACE_SIZE, Action, ActionType, action_name, engine_action
from envs.core.melds import HIDDEN_TILE, Meld
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_SUITED, rank_of, suit_of
from envs.engine.game import Game, action_to_dict
from envs.engine.match import Match
from envs.engine.observation import ObservationEncoder, legal_mask
from envs.engine.render import render_event
from envs.engine.view import Phase
from envs.scoring.patterns import PATTERN_NAMES_ZH

__all__ = ["DEFAULT_HANDS", "IllegalAction", "PlayTable", "action_label", "tile_name"]

DEFAULT_HANDS = 4
"""Hands in a game when neither the rules (``hands_per_match``) nor the caller set a number."""

LOG_LINES = 40
"""How many of the latest event lines :meth:`PlayTable.state` carries."""

_SUITS_ZH = "万筒条"
_NUMERALS_ZH = "一二三四五六七八九"
_HONORS_ZH = "东南西北中发白"
_HOW_ZH = {
    "zimo": "自摸",
    "dianpao": "点炮",
    "qianggang": "抢杠",
    "instant": "四红中",
    "qinghu": "请胡",
}
REASONS_ZH = {
    "dianpao": "点炮 win on a discard",
    "qianggang": "抢杠 robbing a kong",
    "zimo": "自摸 self-draw",
    "instant": "四红中 four red dragons",
    "kong_exposed": "直杠 exposed kong",
    "kong_concealed": "暗杠 concealed kong",
    "kong_added": "补杠 added kong",
    "xi": "喜 kong bonus",
    "hujiao_zhuanyi": "呼叫转移 kong income handed over",
    "huazhu": "查花猪 pig penalty",
    "chadajiao": "查大叫 not ready",
    "tuishui": "退税 kong refund",
}
"""Readable names of the settlement's transfer reasons (:data:`envs.scoring.settlement.REASONS`); other reasons are
shown as they are."""


_GLYPHS = re.compile("[\U0001f000-\U0001f02f]")
_UNLOGGED = ("hand_start", "action")  # the log-only header, and decisions whose effect has its own event


class IllegalAction(ValueError):
    """The person sent an action that is not legal for their seat now (the game is unchanged)."""


class AgentFault(RuntimeError):
    """An agent returned an action id its legal mask does not allow."""


def tile_name(kind: int) -> str:
    """Short Chinese name of a tile kind: ``5万``, ``9条``, ``中``."""
    if kind < NUM_SUITED:
        return f"{rank_of(kind)}{_SUITS_ZH[suit_of(kind)]}"
    return _HONORS_ZH[kind - NUM_SUITED]


def action_label(action: Action, claim_tile: int | None = None) -> str:
    """Button text of an engine action, Chinese first: ``打 5万``, ``碰 3筒``, ``胡``, ``过 pass``."""
    t, k = action.type, action.tile
    if t == ActionType.DISCARD:
        return f"打 {tile_name(k)}"
    if t == ActionType.KONG:
        return f"杠 {tile_name(k)}"
    if t == ActionType.PONG:
        return "碰" + (f" {tile_name(claim_tile)}" if claim_tile is not None else "")
    if t == ActionType.HU:
        return "胡" + (f" {tile_name(claim_tile)}" if claim_tile is not None else " 自摸")
    if t == ActionType.PASS:
        return "过 pass"
    if t == ActionType.EXCHANGE:
        return "换 " + " ".join(tile_name(x) for x in action.tiles)
    if t == ActionType.DINGQUE:
        return f"缺 {_SUITS_ZH[k]}"
    if t == ActionType.CHI:
        return "吃 " + ("low", "middle", "high")[k]
    if t == ActionType.FEI:
        return "飞" + (f" {tile_name(claim_tile)}" if claim_tile is not None else "")
    if t == ActionType.TI:
        return f"提 {tile_name(k)}"
    if t == ActionType.BAOHU:
        return "报胡"
    if t == ActionType.QINGHU_DISCARD:
        return f"请胡 打 {tile_name(k)}"
    if t == ActionType.RED_KONG:
        return "红中杠"
    if t == ActionType.LAIZI_KONG:
        return "赖子杠"
    return str(action)  # pragma: no cover - every ActionType is named above


def _meld_tiles(meld: Meld) -> list[int]:
    """The tiles a meld shows, in order (``-1`` for the hidden tiles of a concealed kong)."""
    if meld.tile == HIDDEN_TILE:
        return [HIDDEN_TILE] * 4
    if meld.wild_kinds:  # a 飞 shows its natural tiles and the 听用 inside it
        return [*meld.natural(), *meld.wild_kinds]
    return list(meld.represented())


class PlayTable:
    """A game of several hands: the person at ``seat``, an agent (spec string) at every other seat.

    ``opponents`` holds one spec for all other seats or one per other seat (in seat order).  ``hands`` is the length of
    the game (default: the rules' ``hands_per_match``, else :data:`DEFAULT_HANDS`); a points match (赤羽) also ends
    when a seat goes bankrupt.  ``external`` keyword options reach outside bots (``timeout``, ``fallback`` ...).
    """

    def __init__(
        self,
        variant: RuleConfig | str,
        opponents: Sequence[str],
        *,
        seat: int = 0,
        seed: int = 0,
        hands: int | None = None,
        **external: Any,
    ) -> None:
        cfg = load_variant(variant)
        n = cfg.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} for variant {cfg.name!r}, got {seat!r}")
        specs = [opponents] if isinstance(opponents, str) else list(opponents)
        if len(specs) == 1:
            specs = specs * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(
                f"variant {cfg.name!r} has {n - 1} opponent seat(s): give one opponent spec for all or one per seat, "
                f"got {len(specs)}: {specs!r}"
            )
        limit = cfg.hands_per_match
        if hands is None:
            hands = limit if limit is not None else DEFAULT_HANDS
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise ValueError(f"hands must be a positive number of hands, got {hands!r}")
        if limit is not None and hands > limit:
            raise ValueError(f"variant {cfg.name!r} plays at most {limit} hands (hands_per_match), got hands={hands}")
        self.cfg = cfg
        self.seat = seat
        self.seed = seed
        self.hands = hands
        self.names: list[str] = []
        self.agents: dict[int, Any] = {}
        others = iter(specs)
        try:
            for s in range(n):
                if s == seat:
                    self.names.append("you")
                    continue
                spec = next(others)
                self.agents[s] = make_agent(spec, seed * 1009 + s, variant=cfg, **external)  # a seed per seat
                self.names.append(spec)
        except BaseException:
            self.close()
            raise
        self.encoder = ObservationEncoder.from_config(cfg)
        self.match = Match(cfg, seed)
        self.games: list[Game] = []  # every hand dealt so far, the current one last
        self._start_hand()

    # ---- the game ---------------------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        """The hand being played (or just finished)."""
        return self.match.game

    @property
    def hand_index(self) -> int:
        return self.match.hand_index

    @property
    def is_over(self) -> bool:
        """The current hand is over and no further hand will be dealt."""
        return self.game.is_over and (self.match.is_over or self.hand_index + 1 >= self.hands)

    def legal_actions(self) -> list[Action]:
        """The person's legal actions now (empty while it is not their decision)."""
        g = self.game
        if g.is_over or self.seat not in g.pending:
            return []
        return g.legal_actions(self.seat)

    def act(self, action: Action) -> None:
        """Play the person's ``action``, then let the agents decide until the person's next decision.

        :class:`IllegalAction` (naming the legal actions) when ``action`` is not legal for the person now.
        """
        legal = self.legal_actions()
        if action not in legal:
            if not legal:
                why = "the hand is over" if self.game.is_over else "it is not your decision now"
                raise IllegalAction(f"{_action_text(action)} refused: {why}")
            shown = ", ".join(str(a) for a in legal)
            raise IllegalAction(f"{_action_text(action)} is not legal now; legal: {shown}")
        self.game.step(self.seat, action)
        self._run_agents()

    def next_hand(self) -> None:
        """Deal the next hand; ``ValueError`` while the hand is being played or when the game is over."""
        if not self.game.is_over:
            raise ValueError(f"hand {self.hand_index + 1} is still being played")
        if self.is_over:
            raise ValueError(f"the game is over after {self.hand_index + 1} hand(s); no further hand is dealt")
        self.match.next_hand()
        self._start_hand()

    def finished_games(self) -> list[Game]:
        """The hands played to their end, in order."""
        return [g for g in self.games if g.is_over]

    def close(self) -> None:
        """Stop the agents that own processes (outside bots)."""
        for agent in self.agents.values():
            stop = getattr(agent, "close", None)
            if stop is not None:
                stop()

    # ---- the agents -------------------------------------------------------------------------------------------
    def _start_hand(self) -> None:
        self.games.append(self.game)
        self._picks: dict[int, list[int]] = {s: [] for s in self.agents}
        self._delivered: dict[int, int] = dict.fromkeys(self.agents, 0)
        for s, agent in self.agents.items():
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset(s, self.cfg)
        self._run_agents()

    def _feed(self, seat: int) -> None:
        feed = getattr(self.agents[seat], "feed_events", None)
        if feed is not None:
            events = self.game.events_for(seat)
            feed(events[self._delivered[seat] :])
            self._delivered[seat] = len(events)

    def _run_agents(self) -> None:
        g = self.game
        while not g.is_over:
            waiting = [s for s in g.pending if s != self.seat]
            if not waiting:
                return
            self._agent_decides(waiting[0])
        for s, agent in self.agents.items():
            if getattr(agent, "feed_events", None) is not None:
                self._feed(s)
                end = getattr(agent, "end_hand", None)
                if end is not None:
                    end(list(g.scores))

    def _agent_decides(self, seat: int) -> None:
        g = self.game
        picks = self._picks[seat]
        view = g.view(seat)
        obs = self.encoder.encode(view, exchange_picks=picks)
        mask = legal_mask(view, picks)
        obs.setflags(write=False)
        mask.setflags(write=False)
        self._feed(seat)
        choice = self.agents[seat].act(obs, mask)
        try:
            a = int(choice)
        except (TypeError, ValueError):
            raise AgentFault(
                f"agent {self.names[seat]!r} (seat {seat}) returned {choice!r}, not an action id"
            ) from None
        if not 0 <= a < ACTION_SPACE_SIZE or not mask[a]:
            legal = ", ".join(action_name(int(i)) for i in np.flatnonzero(mask))
            raise AgentFault(f"agent {self.names[seat]!r} (seat {seat}) chose illegal action id {a}; legal: {legal}")
        action = engine_action(a, picks)
        if action is not None:  # None: a 换三张 pick before the third
            g.step(seat, action)

    # ---- what the page shows ----------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The person's view of the table as JSON-ready data (see the module docstring)."""
        g = self.game
        me = self.seat
        view = g.view(me)
        n = self.cfg.num_players
        points = self.match.points
        claim = view.claim_tile if view.phase in (Phase.CLAIM, Phase.ROB) else None
        players = []
        for s in range(n):
            revealed = view.revealed_hands[s]
            players.append(
                {
                    "seat": s,
                    "name": self.names[s],
                    "dealer": s == view.dealer,
                    "void": view.void_suits[s],
                    "won": view.won[s],
                    "active": view.active[s],
                    "score": view.scores[s],
                    "points": points[s],
                    "concealed": sum(g.hands[s]),  # how many tiles a seat holds is public
                    "revealed": _expand(revealed) if revealed is not None else None,
                    "melds": [
                        {"kind": m.kind.value, "tiles": _meld_tiles(m), "from_seat": m.from_seat} for m in view.melds[s]
                    ],
                    "discards": [
                        {"tile": k, "claimed": bool(c)} for k, c in zip(view.discards[s], g.discard_claimed[s])
                    ],
                }
            )
        hand = _expand(view.hand)
        drawn = view.drawn_tile if view.to_act and view.phase == Phase.SELF else None
        if drawn is not None and drawn in hand:
            hand.remove(drawn)
        else:
            drawn = None
        legal = [
            {"index": i, "label": action_label(a, claim), "action": action_to_dict(a)}
            for i, a in enumerate(self.legal_actions())
        ]
        events = g.events_for(me)
        return {
            "type": "state",
            "variant": self.cfg.name,
            "description": self.cfg.description,
            "num_players": n,
            "seat": me,
            "seed": self.seed,
            "hand_number": self.hand_index + 1,
            "hands": self.hands,
            "phase": view.phase.value,
            "to_act": bool(legal),
            "current": view.current,
            "dealer": view.dealer,
            "claim_tile": claim,
            "claim_from": view.claim_from if claim is not None else None,
            "wall_remaining": view.wall_remaining,
            "wild_kinds": list(view.wild_kinds),
            "indicator": view.indicator,
            "exchange_given": list(view.exchange_given),
            "exchange_received": list(view.exchange_received),
            "players": players,
            "hand": hand,
            "drawn": drawn,
            "legal": legal,
            "log": [_log_line(e, n) for e in events if e.get("type") not in _UNLOGGED][-LOG_LINES:],
            "hand_over": g.is_over,
            "game_over": self.is_over,
            "settlement": self._settlement(events) if g.is_over else None,
            "finished_hands": len(self.finished_games()),
        }

    def _settlement(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        g = self.game
        assert g.result is not None
        wins = []
        for e in events:
            if e.get("type") != "win":
                continue
            breakdown = e.get("breakdown") or {}
            wins.append(
                {
                    "seat": e["seat"],
                    "tile": e["tile"],
                    "from_seat": e.get("from_seat"),
                    "how": e["how"],
                    "how_zh": _HOW_ZH.get(e["how"], e["how"]),
                    "doublings": e.get("doublings"),
                    "payment": e.get("payment"),
                    "fans": [
                        {"name": k, "name_zh": PATTERN_NAMES_ZH.get(k, k), "value": v} for k, v in breakdown.items()
                    ],
                    "hand": e.get("hand"),
                }
            )
        transfers = [
            {
                "payer": t.payer,
                "receiver": t.receiver,
                "amount": t.amount,
                "reason": t.reason,
                "reason_text": REASONS_ZH.get(t.reason, t.reason),
            }
            for t in g.result.transfers
        ]
        return {
            "exhausted": g.result.exhausted,
            "bankrupt": g.result.bankrupt,
            "wins": wins,
            "transfers": transfers,
            "scores": list(g.result.scores),
            "points": list(self.match.points),
        }


def _log_line(event: dict[str, Any], num_players: int) -> str:
    """One event as text without the Unicode tile glyphs (the page draws tiles itself; many fonts lack them)."""
    return " ".join(_GLYPHS.sub("", render_event(event, num_players)).split())


def _expand(counts: Sequence[int]) -> list[int]:
    return [k for k, c in enumerate(counts) for _ in range(c)]


def _action_text(action: Action) -> str:
    try:
        return f"{action} ({action_label(action)})"
    except (AttributeError, IndexError, TypeError, ValueError):  # not an action, or tiles out of range
        return repr(action)
