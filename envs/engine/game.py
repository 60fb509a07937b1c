"""Game (牌局): the pure rules engine of one hand of the Sichuan family (RULES.md §2, §4).

Supported variants: all eight presets — ``chengdu`` (血战到底), ``xueliu`` (血流成河), ``hongzhong`` (红中), ``yibin``
(宜宾: 本金 / 听用, 飞 / 提), ``duankagen`` (断卡根: 报胡 / 请胡), ``chiyu`` (赤羽之战), ``two_player`` (二人) and
``wuhan`` (武汉 红中赖子杠: 吃, 赖子, 红中杠 / 赖子杠, 海底) — plus any :class:`~envs.core.rule_config.RuleConfig` built
from their flags.  The optional flags listed in ``_UNSUPPORTED_FLAGS``, and flag combinations no rule set uses, are
refused with :class:`UnsupportedRule` at construction (``_check_supported`` names each problem).

The core state machine below is shared by every rule set; the mechanics of one rule set (extra own-turn actions,
extra claims, special payments) live in :mod:`envs.engine.variants` behind a small set of hooks
(:class:`envs.engine.variants.base.VariantRules`), and per-hand variant state in ``Game.vstate``.

Public API
----------
``Game(cfg, seed=None, *, wall=None, dealer=None, exchange_offset=None, match_points=None, record_events=True)``;
``phase`` (:class:`~envs.engine.view.Phase`), ``pending`` (seats awaited now), ``legal_actions(seat)``, ``step(seat,
action)``, ``is_over``, ``view(seat)`` (:class:`~envs.engine.view.PlayerView`), ``transfers``, ``scores``, ``wins``,
``events`` / ``events_for(seat)``, ``result`` (:class:`HandResult` once over), ``copy()``, ``snapshot()``,
``validate()``, ``indicator`` / ``wild_kinds`` (本金 / 赖子 and the hand's wildcards); full-information helpers for
tests and tools: ``hand_of(seat)``, ``live_wall()``, ``hands``, ``melds``, ``discards``, ``current``,
``drawn_tile``, ``claim_tile``/``claim_from``, ``kong_payments``, ``vstate`` (variant state: 报胡 / 请胡 flags,
红中杠 counts).  The methods after "helpers for the variant hooks" are for :mod:`envs.engine.variants` only.

The specifications in this implementation
-----------------------------------------
* **Wall and deal** (§2.1).  The wall is a list of kinds in draw order; index 0 is drawn first, kong replacement
  tiles come from the front (``kong_draw_from = "front"``) or the back.  **Deal order:** the dealer takes the first
  ``hand_size + 1`` tiles of the wall, then each following seat in turn order (dealer+1, dealer+2, ...) takes the
  next ``hand_size`` tiles.  Play draws continue from ``n * hand_size + 1``.  ``Game(cfg, seed=s)`` shuffles the
  wall with :func:`envs.core.wall.shuffled_wall` and draws the dealer (when not given) from the ``"dealer"`` stream;
  ``Game(cfg, wall=[...], dealer=d)`` starts from a fixed wall (the whole tile multiset, validated).  The dealer's
  14th tile (``wall[hand_size]``) plays the part of the drawn tile of its first turn (``drawn_tile``) when the
  dealer still holds that kind after 换三张, else ``drawn_tile`` is None on that turn.
* **换三张** (§2.3).  Every seat passes three tiles of one suit in which it holds at least three (wildcards never;
  the dealer chooses from 14).  Direction as ``exchange_offset``: the receiver is ``(giver + offset) % n``.
  ``next`` = 1, ``previous`` = n-1, ``opposite`` = n/2; ``random3`` draws uniformly among these three (two for
  n = 2: only ``opposite``); ``random2_parity`` rolls two dice, odd total = next, even = previous.  The draw uses
  the ``"exchange"`` stream of the hand seed (or ``exchange_offset=`` for scripted hands) and is revealed only after
  every seat has committed.
* **定缺** (§2.4): simultaneous, public after the last declaration.  Wildcards belong to no suit: holding a
  听用 of the void suit is not holding a void tile.
* **Indicator** (§2.1, §2.2): with ``wild = "tingyong"`` (本金) or ``"laizi"`` (赖子) the wall's next tile is
  flipped when play starts (after 定缺), is public (``indicator``, event ``indicator``) and leaves the live wall
  (``indicator_removed_from_wall``; otherwise it stays the next tile to draw).  It names the hand's wildcards
  (``wild_kinds``): the 听用 are its two rank neighbours, the 赖子 its successor (skipping 中).
* **Declarations** (断卡根 报胡): before a seat's turn-start draw a variant may ask it a question (phase
  ``declare``, only that seat pending); its answer is applied and the seat then draws.
* **Decisions.**  ``pending`` lists the seats whose answer is awaited.  Exchange, 定缺, claim windows and rob
  windows are simultaneous: every pending seat answers (in any order), then the engine resolves; a seat that has
  answered leaves ``pending``.  Claim and rob windows ask only seats with an option other than PASS.  In the self
  phase only the current seat is pending.  Order: exchange and 定缺 from the dealer in turn order; windows in turn
  order after the discarder (or the kong player).
* **Self phase** (§2.5): HU (自摸; also the dealer's first action, 天胡), KONG k (暗杠 with four concealed copies,
  补杠 on an own pong), DISCARD k, plus the variant's own actions (Yibin 提).  Right after a pong or 飞 the claimer
  may only discard.  While a seat holds tiles of its void suit and ``must_discard_void_first`` is on, only void
  tiles may be discarded.  No kong of the void suit or of a wildcard; no kong while the live wall is empty
  (``kong_on_last_tile = false``; with ``true`` a kong on an empty wall pays and then the hand ends exhausted,
  there being no replacement tile).  听用 are never discarded: a concealed hand of only 听用 has no discard, is
  complete, and HU is its only action.
* **Claims** (§2.5.1): HU > KONG = PONG = 飞 (Yibin) > 吃 (Wuhan).  With ``multi_ron`` every HU claimant wins, else
  the first in turn order after the discarder (截胡).  Meld claims of one rank cannot collide except two 飞 of one
  kind: the first claimant in turn order after the discarder takes the tile.  When the wall is empty and
  ``claims_on_last_discard = "hu_only"`` the last discard can only be won.  A discarded 红中 is dead unless
  ``hz_red_discard_claimable``.
* **Yibin 飞 / 提** (§4.4, :mod:`envs.engine.variants.yibin`): 飞 claims a discard with one natural copy and one 听用
  (the lowest 听用 kind held); a pong or 飞 that would leave only 听用 in the hand is not offered.  提 swaps the drawn
  natural tile into an own 飞 meld of its kind; the 听用 comes back as the turn's drawn tile and the turn goes on.
* **Wuhan** (§4.8, :mod:`envs.engine.variants.wuhan`): 吃 only by the discarder's next seat and never with 红中 / 赖子;
  红中 and 赖子 are never discarded but played out as 红中杠 / 赖子杠 (into the river, unclaimable, a replacement
  from the back); kongs also right after a chi or pong; no instant kong payments; while the live wall holds at
  most ``wuhan_haidi_tiles`` tiles nothing can be claimed or konged and a seat that draws may only win or lay the
  tile down; a seat holding 红中 or without an open meld is never offered a win; one winner, paid by all three
  others per :func:`envs.scoring.wuhan_settlement.wuhan_settlement` (factors, caps, 承包); no 查叫 on a drawn hand.
* **断卡根 报胡 / 请胡** (§4.5, :mod:`envs.engine.variants.duankagen`): a 报胡 seat only discards its drawn tile, wins,
  or kongs keeping its hand ready, never pongs, and forfeits winning by declining a win; its payments carry the 报胡
  penalty per payer.  A 请胡 (``QINGHU_DISCARD``) single may only be won (请胡炮); when nobody does, the requester
  wins it as a self-draw (``WinInfo.how = "qinghu"``: the single leaves the river and is set aside).  Wins whose
  legality needs fan (小胡) are offered only when the scorer accepts them.
* **Who draws next** (§2.5.2): after an unclaimed discard the next active seat; after a pong the claimer discards;
  after an exposed kong the claimer draws a replacement; after discard wins the next active seat after the last
  winner (winners scanned in turn order from the discarder); after a rob per ``after_rob_next``; after a self-draw
  win the next active seat after the winner.
* **Pass locks** (§2.8).  Declining an offered HU on a discard or rob (by PASS or by claiming PONG/KONG instead)
  locks HU on that kind (``same_tile``) or on every kind (``any_tile``) until the seat's own next draw (turn-start
  or replacement); with ``pass_hu_allow_higher`` a win worth strictly more doublings than the declined one is still
  offered.  Passing an offered PONG or 飞 locks both on that kind until the next draw.  A discard win that is *not
  offered* (two-player 平胡 on a discard, ``allow_pinghu_on_discard = false``) is not a pass.
* **Forced wins**: while the live wall holds at most ``forced_hu_last_n`` tiles, a seat that can win has HU as its
  only legal action.
* **Kongs** (§2.7): payments as they happen (``kong_payment``: ``standard`` — 直杠 2 from the discarder, 暗杠 2 from
  each other active seat, 补杠 1 from each other active seat and only with the tile just drawn when
  ``bugang_pay_requires_immediate``; ``mahjongsoul`` — the same amounts, which with ``base_unit`` 1000 are 赤羽's
  2000/2000/1000; ``xi_each_1`` — 1 from each other active seat for any kong; ``none``).  Amounts are multiplied
  by ``base_unit``.  A 补杠 first opens a rob window (抢杠胡): robbed, the kong is void, the tile goes to the
  robber(s) and the kong player pays each as a discarder.
* **杠上开花 / 点杠花 / 杠上炮 / 呼叫转移** (§2.7.3, §2.7.5).  A self-draw on a replacement tile is 杠上开花; when
  the kong that produced the replacement was an exposed kong and ``dianganghua = "dianpao"``, only the seat that
  discarded the kong tile pays, at the discard-win value (its :class:`~envs.engine.view.WinInfo` has how ``"zimo"`` and
  ``from_seat`` = that payer).  A discard that ends a turn in which its discarder made
  a kong is 杠上炮: the discarder pays as usual and hands over the kong income of that turn (``full_each``: the
  full amount to every winner; ``split``: shared equally, the remainder stays; ``none``).  Handed-over kong
  income is never refunded.
* **Last tile** (§2.9): a self-draw that empties the live wall is 海底捞月; a win on the discard made by the seat
  that drew the last tile is 海底炮.
* **天胡 / 地胡** (context passed to scoring): 天胡 = the dealer wins on its very first action; 地胡 = a non-dealer
  self-draws on its first turn-start draw before any pong or kong by anyone (with ``dihu_definition =
  "include_first_discard"`` also a win on the dealer's first discard).  Scoring decides what they are worth
  (``tiandihu``).
* **红中 instant win** (§4.3): a seat holding four 红中 after any draw (the dealer: when play starts) wins at once,
  automatically (how = ``"instant"``); the drawn tile (the dealer: a 红中) is the winning tile.  With
  ``hz_four_red_ends_hand`` the hand then ends.
* **Continuation** (§2.10): 血战 — winners leave, the hand ends at ``n - 1`` winners or exhaustion; 血流 — winners
  stay with a frozen, revealed hand (the winning tile set aside): they draw and may only win, kong the drawn tile
  when the set of winning tiles stays the same (``xueliu_kong_requires_same_waits``), or discard the drawn tile;
  they may win on discards and robs and make an exposed kong under the same condition, but never pong;
  ``single`` — the hand ends at the first win (several winners on one discard with ``multi_ron``).
* **Winning tiles.**  A winner's concealed hand keeps its 13-tile-equivalent shape; every winning tile is set aside
  (once per discard, even when several players win on it) — this is what ``validate`` counts.
* **Settlement** (§2.11): every win is scored by :mod:`envs.scoring.scorer` (``ScoreResult.payment`` points per payer,
  ``base_unit`` included); kong payments, wins and 呼叫转移 go through :mod:`envs.scoring.settlement`; at
  exhaustion with at least two seats that never won, :func:`envs.scoring.settlement.end_of_hand_transfers` runs 查花猪,
  查大叫 and 退税.  Every transfer is a :class:`~envs.scoring.settlement.Transfer`; each hand's transfers sum to zero.
* **Points matches** (``start_points > 0``, 赤羽): a seat whose match total drops below zero ends the hand at once
  (``result.bankrupt``) and with it the match.  At an exhaustive draw 查花猪, 查大叫 and 退税 settle together and a seat
  they leave below zero marks the hand ``bankrupt`` too (a seat only passing below zero between them does not).

Events (``Game.events``) are JSON-serialisable dicts in order.  Events another seat may not see carry
``visible_to`` (a list of seats; ``[]`` = log only, e.g. the wall) and ``redact`` (keys hidden from the other
seats); :meth:`Game.events_for` gives one seat's view of the log.  :func:`envs.engine.replay.replay` rebuilds a game
from its log.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

from envs.core.actions import FEI, HU, PASS, PONG, Action, ActionType, dingque, discard, exchange, kong
from envs.core.melds import HIDDEN_TILE, Meld, MeldKind
from envs.core.rule_config import DKG_TABLES, RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED, format_tiles
from envs.core.wall import DOMAIN_DEALER, DOMAIN_EXCHANGE, Seed, SeedStream, shuffled_wall, tile_multiset
from envs.engine.variants import rules_for
from envs.engine.view import Phase, PlayerView, WinInfo
from envs.scoring import judge
from envs.scoring.scorer import wild_kinds as scoring_wild_kinds
from envs.scoring.settlement import (
    KONG_REASONS,
    KongPayment,
    PlayerEnd,
    Transfer,
    call_transfer,
    kong_transfers,
    mark_transferred,
    paid_as_discard,
)

__all__ = [
    "Game",
    "HandResult",
    "UnsupportedRule",
    "action_from_dict",
    "action_to_dict",
    "draw_exchange_offset",
    "engine_problems",
    "exchange_offsets",
    "seed_from_json",
    "seed_to_json",
]


class UnsupportedRule(ValueError):
    """The configuration asks for a rule (or a combination of rules) this engine does not implement."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of a finished hand."""

    wins: tuple[WinInfo, ...]
    transfers: tuple[Transfer, ...]
    scores: tuple[int, ...]  # per seat net of the hand (points)
    exhausted: bool  # the wall ran out (荒庄); the end-of-hand checks ran when >= 2 seats never won
    next_dealer: int
    bankrupt: bool = False  # a points match (赤羽): a seat fell below zero in this hand (at once, or at the draw)


_SUIT_KINDS = tuple(tuple(range(s * 9, s * 9 + 9)) for s in range(3))
_KONG_TYPE = {MeldKind.KONG: "zhigang", MeldKind.ANKONG: "angang", MeldKind.BUKONG: "bugang"}
_KONG_PAY_REASONS = frozenset(KONG_REASONS.values())


_UNSUPPORTED_FLAGS = (
    ("exchange_mode", "redraw_up_to_3", "the old Chengdu 换牌 redraw"),
    ("yibin_zimo_only", True, "the optional Yibin 只和自摸 rule"),
    ("yibin_min_fan_rule", True, "the optional Yibin 碰/飞后2番起和 rule"),
    ("piao", True, "the optional Yibin 漂 side bets"),
)


def engine_problems(cfg: RuleConfig) -> list[str]:
    """The rules of ``cfg`` the engine does not play (empty when it plays them all); the compiled engine refuses
    them too."""
    problems = [f"{key} = {value!r} ({what})" for key, value, what in _UNSUPPORTED_FLAGS if getattr(cfg, key) == value]
    if cfg.wild == "hongzhong" and cfg.wild_in_melds:
        problems.append("wild_in_melds = true with 红中 wildcards")
    if cfg.wild == "tingyong" and cfg.yibin_tingyong_count != 8:
        problems.append(f"yibin_tingyong_count = {cfg.yibin_tingyong_count} (only the 8 neighbours of the 本金)")
    if cfg.wild == "tingyong" and cfg.fan_table in (*DKG_TABLES, "wuhan"):
        problems.append(f"wild = 'tingyong' with fan_table {cfg.fan_table!r}")
    if cfg.allow_chi and cfg.fan_table != "wuhan":
        problems.append("allow_chi = true outside fan_table 'wuhan' (吃 is a Wuhan rule)")
    if cfg.kong_payment == "factor" and cfg.fan_table != "wuhan":
        problems.append("kong_payment = 'factor' outside fan_table 'wuhan'")
    if (cfg.wild == "laizi") != (cfg.fan_table == "wuhan"):
        problems.append("wild = 'laizi' and fan_table 'wuhan' only together (赖子, 红中杠 and the factor settlement)")
    return problems + rules_for(cfg).unsupported(cfg)


def _check_supported(cfg: RuleConfig) -> None:
    """Refuse (:class:`UnsupportedRule`) configurations whose rules the engine does not play."""
    problems = engine_problems(cfg)
    if problems:
        raise UnsupportedRule(f"variant {cfg.name!r}: this engine does not implement " + "; ".join(problems))


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON form of an action: ``{"type": "DISCARD", "tile": 4, "tiles": []}``."""
    return {"type": action.type.name, "tile": action.tile, "tiles": list(action.tiles)}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Inverse of :func:`action_to_dict`; ``ValueError`` for a malformed entry."""
    try:
        return Action(ActionType[data["type"]], int(data.get("tile", -1)), tuple(int(t) for t in data.get("tiles", ())))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed action entry {data!r}: {exc}") from None


def seed_to_json(seed: Seed | None) -> Any:
    """JSON form of a seed (bytes become ``{"hex": ...}``)."""
    if seed is None or isinstance(seed, (int, str)):
        return seed
    return {"hex": bytes(seed).hex()}


def seed_from_json(data: Any) -> Seed | None:
    """Inverse of :func:`seed_to_json`."""
    if isinstance(data, dict):
        return bytes.fromhex(data["hex"])
    return data


def exchange_offsets(cfg: RuleConfig) -> tuple[int, ...]:
    """The 换三张 offsets (receiver = giver + offset) that ``cfg.exchange_direction`` can produce."""
    n = cfg.num_players
    nxt, prev, opp = 1 % n, (n - 1) % n, n // 2
    d = cfg.exchange_direction
    if d == "next":
        return (nxt,)
    if d == "previous":
        return (prev,)
    if d == "opposite":
        if n % 2:
            raise ValueError(f"exchange_direction 'opposite' needs an even number of players, got {n}")
        return (opp,)
    if d == "random3":
        return tuple(sorted({nxt, prev} | ({opp} if n % 2 == 0 else set())))
    return tuple(sorted({nxt, prev}))  # random2_parity


def draw_exchange_offset(cfg: RuleConfig, seed: Seed) -> int:
    """Roll a hand's 换三张 offset from the ``"exchange"`` stream of its seed (see the module docstring)."""
    stream = SeedStream(seed, DOMAIN_EXCHANGE)
    n = cfg.num_players
    if cfg.exchange_direction == "random2_parity":
        dice = stream.randbelow(6) + stream.randbelow(6) + 2
        return 1 % n if dice % 2 else (n - 1) % n
    options = exchange_offsets(cfg)
    return options[0] if len(options) == 1 else stream.choice(options)


class Game:
    """One hand of Sichuan mahjong: the state machine of RULES.md §2.2 (see the module docstring).

    >>> g = Game("chengdu", seed=7, dealer=0)
    >>> g.phase.value, g.pending
    ('exchange', (0, 1, 2, 3))
    >>> for seat in g.pending:
    ...     g.step(seat, g.legal_actions(seat)[0])
    >>> g.phase.value, g.exchange_offset in (1, 2, 3)
    ('dingque', True)
    """

    # ---- construction ---------------------------------------------------------------------------------------
    def __init__(
        self,
        cfg: RuleConfig | str,
        seed: Seed | None = None,
        *,
        wall: list[int] | tuple[int, ...] | None = None,
        dealer: int | None = None,
        exchange_offset: int | None = None,
        match_points: list[int] | tuple[int, ...] | None = None,
        record_events: bool = True,
    ) -> None:
        cfg = load_variant(cfg)
        _check_supported(cfg)
        self.cfg = cfg
        self._rules = rules_for(cfg)
        n = self.n = cfg.num_players
        self.seed = seed
        if wall is None:
            if seed is None:
                raise ValueError("Game needs seed= (to shuffle the wall) or wall= (a fixed wall in draw order)")
            wall_list = shuffled_wall(cfg, seed)
        else:
            try:
                wall_list = [int(k) for k in wall]
            except (TypeError, ValueError):
                raise ValueError(f"wall must be a sequence of tile kinds 0-33, got {wall!r}") from None
            if sorted(wall_list) != tile_multiset(cfg):
                raise ValueError(
                    f"wall must hold exactly the {cfg.num_tiles} tiles of variant {cfg.name!r} "
                    f"(got {len(wall_list)} tiles: {format_tiles(k for k in wall_list if 0 <= k < NUM_KINDS)})"
                )
        if dealer is None:
            if seed is None:
                raise ValueError("Game needs dealer= when no seed is given")
            dealer = SeedStream(seed, DOMAIN_DEALER).randbelow(n)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        self.dealer = dealer
        self.exchange_offset: int | None = None
        if cfg.exchange_mode == "swap3":
            allowed = exchange_offsets(cfg)
            if exchange_offset is None:
                if len(allowed) == 1:
                    exchange_offset = allowed[0]
                elif seed is None:
                    raise ValueError(
                        f"exchange_direction {cfg.exchange_direction!r} is random: pass exchange_offset= "
                        f"(one of {list(allowed)}) or seed= with a fixed wall"
                    )
                else:
                    exchange_offset = draw_exchange_offset(cfg, seed)
            if exchange_offset not in allowed:
                raise ValueError(
                    f"exchange_offset {exchange_offset!r} is impossible for exchange_direction "
                    f"{cfg.exchange_direction!r} with {n} players; expected one of {list(allowed)}"
                )
            self.exchange_offset = exchange_offset
        elif exchange_offset is not None:
            raise ValueError(f"exchange_offset given but variant {cfg.name!r} has no 换三张 (exchange_mode none)")
        if match_points is None:
            match_points = [cfg.start_points] * n
        if len(match_points) != n:
            raise ValueError(f"match_points needs one total per seat ({n}), got {list(match_points)!r}")
        self.match_points_before = tuple(int(p) for p in match_points)
        self._bankruptcy = cfg.start_points > 0
        self.record_events = record_events

        # -- tiles --
        self._wall = wall_list  # never mutated: copies share it
        self._front = 0
        self._back = len(wall_list)
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(n)]
        self.melds: list[list[Meld]] = [[] for _ in range(n)]
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.discard_claimed: list[list[bool]] = [[] for _ in range(n)]
        self.set_aside: list[int] = []  # winning tiles (once per discard)
        self.void: list[int | None] = [None] * n
        self._void_revealed = False
        self._wild_kinds: tuple[int, ...] = judge.default_wilds(cfg)
        self.indicator: int | None = None  # the flipped 本金 / 赖子 indicator, once play starts
        self._blocked: tuple[int, ...] = self._wild_kinds  # kinds nobody may pong or kong
        self._undiscardable: tuple[int, ...] = ()  # kinds that are never DISCARDed (听用; Wuhan 红中 / 赖子)
        # -- players --
        self.won: list[bool] = [False] * n
        self.active: list[bool] = [True] * n
        self.frozen: list[bool] = [False] * n
        self._waits: list[int | None] = [None] * n  # cached waits bitmask of a 3k+1 hand (None = stale)
        # -- pass locks --
        self._hu_lock: list[dict[int, int]] = [{} for _ in range(n)]  # kind -> doublings of the declined win
        self._hu_lock_any: list[int] = [-1] * n  # any_tile: doublings of the best declined win, -1 = no lock
        self._pong_lock: list[int] = [0] * n  # bitmask of kinds
        # -- turn --
        self.phase = Phase.EXCHANGE
        self._pending: tuple[int, ...] = ()
        self.current = dealer
        self.drawn_tile: int | None = None
        self._after_pong = False
        self._after_kong = False  # the current drawn tile is a kong replacement
        self._drew_last = False  # the current seat's last draw emptied the live wall (海底)
        self._kong_feeder: int | None = None  # discarder of the exposed kong whose replacement is the drawn tile
        self._turn_kongs = 0  # kongs made by the current seat in this turn (杠上炮)
        self._turn_income: list[int] = []  # indices into kong_payments of this turn's kong payments (呼叫转移)
        self._first_action = True  # no play action yet (天胡)
        self._first_draw_pending = [s != dealer for s in range(n)]  # 地胡
        self._dihu_draw = False  # the drawn tile is a non-dealer's first draw with no meld before it
        self._meld_made = False
        self._discard_count = 0
        # -- simultaneous decisions --
        self._decisions: dict[int, Action] = {}
        self._options: dict[int, tuple[Action, ...]] = {}
        self._hu_values: dict[int, int] = {}
        self.claim_tile: int | None = None
        self.claim_from: int | None = None
        # -- exchange --
        self.exchange_given: list[tuple[int, ...]] = [() for _ in range(n)]
        self.exchange_received: list[tuple[int, ...]] = [() for _ in range(n)]
        self._exchange_done = False
        # -- results --
        self.wins: list[WinInfo] = []
        self._first_win_event: tuple[tuple[int, ...], int | None] | None = None  # (winners, payer)
        self.transfers: list[Transfer] = []
        self.scores: list[int] = [0] * n
        self.kong_payments: list[KongPayment] = []
        self.is_over = False
        self.exhausted = False
        self.bankrupt = False
        self.result: HandResult | None = None
        self.events: list[dict[str, Any]] = []
        self._legal_cache: dict[int, list[Action]] = {}
        self.vstate = self._rules.new_state(self)  # variant state (报胡, 红中杠 counts ...), copied with the game

        if record_events:  # building these arguments costs more than the rest of the bookkeeping
            self._emit(
                "hand_start",
                visible_to=[],
                variant=cfg.name,
                config=cfg.to_dict(),
                dealer=dealer,
                seed=seed_to_json(seed),
                wall=list(wall_list),
                exchange_offset=self.exchange_offset,
                match_points=list(self.match_points_before),
            )
        self._deal()

    # ---- public read-only helpers ---------------------------------------------------------------------------
    @property
    def pending(self) -> tuple[int, ...]:
        """Seats whose decision is awaited now (seats that already answered a simultaneous decision are removed)."""
        if not self._decisions:
            return self._pending
        return tuple(s for s in self._pending if s not in self._decisions)

    @property
    def wall_remaining(self) -> int:
        """Tiles left in the live wall."""
        return self._back - self._front

    @property
    def wild_kinds(self) -> tuple[int, ...]:
        """Kinds acting as wildcards in this hand (红中; the 听用 or the 赖子 once the indicator is flipped)."""
        return self._wild_kinds

    @property
    def rules(self):
        """The :class:`~envs.engine.variants.base.VariantRules` of this hand's rule set."""
        return self._rules

    @property
    def after_claim(self) -> bool:
        """The current seat claimed a pong / 飞 / 吃 this turn and has not drawn since."""
        return self._after_pong

    def hand_of(self, seat: int) -> tuple[int, ...]:
        """Concealed counts of a seat — full information, not for agents (use :meth:`view`)."""
        return tuple(self.hands[seat])

    def live_wall(self) -> list[int]:
        """The remaining live wall, front (next draw) first — full information, not for agents."""
        return self._wall[self._front : self._back]

    # ---- deal and pre-play phases ---------------------------------------------------------------------------
    def _deal(self) -> None:
        cfg, n = self.cfg, self.n
        pos = 0
        for i in range(n):
            seat = (self.dealer + i) % n
            size = cfg.hand_size + (1 if i == 0 else 0)
            h = self.hands[seat]
            for k in self._wall[pos : pos + size]:
                h[k] += 1
            pos += size
            if self.record_events:
                self._emit("deal", visible_to=[seat], redact=("tiles",), seat=seat, tiles=self._kinds(seat))
        self._front = pos
        if cfg.exchange_mode == "swap3":
            self._set_phase(Phase.EXCHANGE, self._from_dealer())
        else:
            self._exchange_done = True
            self._after_exchange()

    def _after_exchange(self) -> None:
        if self.cfg.dingque:
            self._set_phase(Phase.DINGQUE, self._from_dealer())
        else:
            self._start_play()

    def _from_dealer(self) -> tuple[int, ...]:
        return tuple((self.dealer + i) % self.n for i in range(self.n))

    def _start_play(self) -> None:
        self._flip_indicator()
        self._blocked = self._rules.blocked_kinds(self)
        self._undiscardable = self._rules.undiscardable(self)
        self._emit("play_start", dealer=self.dealer, wall_remaining=self.wall_remaining)
        self._reset_turn(self.dealer)
        last_dealt = self._wall[self.cfg.hand_size]  # the dealer's 14th tile plays the part of a drawn tile
        self.drawn_tile = last_dealt if self.hands[self.dealer][last_dealt] else None
        self._enter_self(self.dealer)
        self._rules.on_start_play(self)
        if self._four_red(self.dealer):
            self._instant_win(self.dealer, RED)

    def _flip_indicator(self) -> None:
        """本金 / 赖子 (§2.1, §2.2 INDICATOR): the next wall tile is flipped face up; it names this hand's wildcards
        and leaves the live wall (``indicator_removed_from_wall``; otherwise it stays the next tile to draw)."""
        if self.cfg.wild not in ("tingyong", "laizi"):
            return
        k = self._wall[self._front]
        if self.cfg.indicator_removed_from_wall:
            self._front += 1
        self.indicator = k
        self._wild_kinds = scoring_wild_kinds(self.cfg, k)
        for s in range(self.n):
            self._hand_changed(s)
        self._emit("indicator", tile=k, wild_kinds=list(self._wild_kinds))

    # ---- small state helpers --------------------------------------------------------------------------------
    def _set_phase(self, phase: Phase, pending: tuple[int, ...]) -> None:
        self.phase = phase
        self._pending = pending
        self._decisions = {}
        self._legal_cache = {}

    def _enter_self(self, seat: int) -> None:
        self.current = seat
        self.claim_tile = None
        self.claim_from = None
        self._set_phase(Phase.SELF, (seat,))

    def _kinds(self, seat: int) -> list[int]:
        h = self.hands[seat]
        return [k for k in range(NUM_KINDS) for _ in range(h[k])]

    def _emit(self, type_: str, *, visible_to: list[int] | None = None, redact: tuple[str, ...] = (), **fields) -> None:
        if not self.record_events:
            return
        ev: dict[str, Any] = {"type": type_, **fields}
        if visible_to is not None:
            ev["visible_to"] = visible_to
            if redact:
                ev["redact"] = list(redact)
        self.events.append(ev)

    def _next_active(self, seat: int) -> int:
        n = self.n
        for i in range(1, n + 1):
            q = (seat + i) % n
            if self.active[q]:
                return q
        raise AssertionError("no active seat left")  # pragma: no cover - the hand ends first

    def _holds_void(self, seat: int) -> bool:
        """Whether ``seat`` holds a tile of its void suit (wildcards such as 听用 belong to no suit)."""
        v = self.void[seat]
        if v is None:
            return False
        h = self.hands[seat]
        base = v * 9
        if not any(h[base : base + 9]):
            return False
        wild = self._wild_kinds
        return any(h[k] for k in range(base, base + 9) if k not in wild)

    def _kind_blocked(self, seat: int, k: int) -> bool:
        """Kinds ``seat`` may never pong or kong: its void suit, the wildcards (and Wuhan 红中)."""
        v = self.void[seat]
        return k in self._blocked or (v is not None and k < NUM_SUITED and k // 9 == v)

    def _seat_waits(self, seat: int) -> int:
        w = self._waits[seat]
        if w is None:
            if self._holds_void(seat):
                w = 0
            else:
                w = judge.waits_mask(self.cfg, self.hands[seat], self.melds[seat], self.void[seat], self._wild_kinds)
            self._waits[seat] = w
        return w

    def _hand_changed(self, seat: int) -> None:
        self._waits[seat] = None

    # ---- helpers for the variant hooks (envs.engine.variants) ------------------------------------------------------
    def hand_changed(self, seat: int) -> None:
        """Drop cached facts about ``seat``'s hand after a hook changed it."""
        self._waits[seat] = None

    def emit(self, type_: str, **fields: Any) -> None:
        """Record a public event."""
        self._emit(type_, **fields)

    def seat_waits(self, seat: int) -> int:
        """Bitmask of the kinds that complete ``seat``'s 3k+1 hand (shape only; 0 while it holds void tiles)."""
        return self._seat_waits(seat)

    def pong_locked(self, seat: int, k: int) -> bool:
        """过碰: ``seat`` passed a pong (or 飞) of ``k`` and has not drawn since."""
        return bool(self._pong_lock[seat] >> k & 1)

    def add_claimed_meld(self, q: int, meld: Meld, *, event: str, **fields: Any) -> None:
        """``q`` claimed the discard into ``meld`` (pong, 飞, 吃; the hook already took the hand's tiles): record
        it; ``q`` then plays without drawing (discard, or a kong where the variant allows it)."""
        self._reset_turn(q)
        self._meld_made = True
        self.claim_tile = self.claim_from = None
        self._hand_changed(q)
        self.melds[q].append(meld)
        self._emit(event, seat=q, tile=meld.tile, from_seat=meld.from_seat, **fields)
        self.drawn_tile = None
        self._after_pong = True
        self._enter_self(q)

    @property
    def first_action(self) -> bool:
        """No play action has been taken yet in this hand (the dealer's first decision: 天胡, 报胡)."""
        return self._first_action

    def first_draw_pending(self, seat: int) -> bool:
        """``seat`` (not the dealer) has not made its first turn-start draw yet."""
        return self._first_draw_pending[seat]

    def window_options(self) -> dict[int, tuple[Action, ...]]:
        """The options of the open claim / rob window, per asked seat."""
        return self._options

    def decision_of(self, seat: int) -> Action | None:
        """``seat``'s answer in the current simultaneous decision (None before it answered)."""
        return self._decisions.get(seat)

    def play_discard(self, seat: int, k: int, *, event: str) -> None:
        """``seat`` discards ``k`` as a variant's special play named ``event`` (断卡根 请胡); claims follow."""
        self._discard(seat, k, event=event)

    def play_kong_tile(self, seat: int, k: int, *, event: str) -> None:
        """``seat`` plays ``k`` out as a kong of one tile (Wuhan 红中杠 / 赖子杠): face up into its river, never
        claimable; then a replacement draw (杠上开花 possible) and the turn goes on."""
        self._first_action = False
        self.hands[seat][k] -= 1
        self._hand_changed(seat)
        self.discards[seat].append(k)
        self.discard_claimed[seat].append(False)
        self._emit(event, seat=seat, tile=k)
        self._turn_kongs += 1
        self._kong_feeder = None
        self._replacement_draw(seat)

    def continue_turn(self, seat: int) -> None:
        """``seat`` decides again in the same turn (after a hook changed its hand, e.g. 提)."""
        self._first_action = False
        self._enter_self(seat)

    def _four_red(self, seat: int) -> bool:
        return self.cfg.wild == "hongzhong" and self.cfg.hz_four_red_instant and self.hands[seat][RED] == 4

    def _claims_open(self) -> bool:
        """Pong/kong claims are possible on a discard now (not on the last discard under ``hu_only``)."""
        return self.wall_remaining > 0 or self.cfg.claims_on_last_discard == "all"

    def _kong_possible(self) -> bool:
        return self.wall_remaining > 0 or self.cfg.kong_on_last_tile

    def _forced(self) -> bool:
        n = self.cfg.forced_hu_last_n
        return n > 0 and self.wall_remaining <= n

    # ---- legal actions --------------------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Legal actions of ``seat`` now (a fresh list); ``[]`` when the seat has nothing to decide."""
        return list(self._legal(seat))

    def _legal(self, seat: int) -> list[Action]:
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        if self.is_over or seat not in self._pending or seat in self._decisions:
            acts: list[Action] = []
        elif self.phase == Phase.SELF:
            acts = self._self_actions(seat)
        elif self.phase in (Phase.CLAIM, Phase.ROB):
            acts = list(self._options[seat])
        elif self.phase == Phase.EXCHANGE:
            acts = self._exchange_actions(seat)
        elif self.phase == Phase.DECLARE:
            acts = self._rules.declare_actions(self, seat)
        else:  # DINGQUE
            acts = [dingque(s) for s, c in enumerate("mps") if c in self.cfg.suits]
        self._legal_cache[seat] = acts
        return acts

    def _exchange_actions(self, seat: int) -> list[Action]:
        h = self.hands[seat]
        wild = self._wild_kinds
        out: list[Action] = []
        for s, letter in enumerate("mps"):
            if letter not in self.cfg.suits:
                continue
            kinds = [k for k in _SUIT_KINDS[s] if h[k] and k not in wild]
            if sum(h[k] for k in kinds) < 3:
                continue
            for i, a in enumerate(kinds):
                for j in range(i, len(kinds)):
                    b = kinds[j]
                    for c in kinds[j:]:
                        if (
                            h[a] >= 1 + (a == b) + (a == c)
                            and h[b] >= (a == b) + 1 + (b == c)
                            and h[c] >= (a == c) + (b == c) + 1
                        ):
                            out.append(exchange((a, b, c)))
        return out

    def _can_self_win(self, seat: int) -> bool:
        if self._after_pong or self._holds_void(seat) or not self._rules.may_win(self, seat):
            return False
        if not judge.is_win(self.cfg, self.hands[seat], self.melds[seat], self.void[seat], self._wild_kinds):
            return False
        if self._rules.win_rules:  # the shape is there; the variant's minimums decide
            return self._self_win_choice(seat) is not None
        return True

    def _self_win_choice(self, seat: int) -> tuple[int, Any] | None:
        """The winning tile and :class:`~envs.scoring.scorer.ScoreResult` of ``seat``'s self-draw win now, or None.

        The winning tile is the drawn tile; on the dealer's first action (天胡) the hand is valued with its best
        tile as the winning tile.
        """
        feeder = self._kong_feeder if self._after_kong else None
        dianpao = paid_as_discard(self.cfg, "zimo", feeder)
        t = self.drawn_tile
        if t is not None:
            candidates: tuple[int, ...] | range = (t,)
        else:
            candidates = range(NUM_KINDS)
        best = None
        for k in candidates:
            if not self.hands[seat][k]:
                continue
            r = self._score_on(seat, k, "zimo", None, paid_as_discard=dianpao)
            rescore = functools.partial(self._score_on, seat, k, "zimo", None)
            if self._rules.self_win_ok(self, seat, r, rescore) and (
                best is None or (r.payment, r.doublings or 0) > best[0]
            ):
                best = ((r.payment, r.doublings or 0), k, r)
        return None if best is None else (best[1], best[2])

    def _self_actions(self, seat: int) -> list[Action]:
        h = self.hands[seat]
        acts: list[Action] = []
        if self._can_self_win(seat):
            if self._forced():
                return [HU]
            acts.append(HU)
        t = self.drawn_tile
        if self.frozen[seat]:
            assert t is not None  # a frozen seat never pongs, so it always holds a drawn tile
            if self._kong_possible() and self._frozen_kong_ok(seat, t, claim=False):
                acts.append(kong(t))
            acts.append(discard(t))
            return acts
        if (not self._after_pong or self._rules.kong_after_claim) and self._kong_possible():
            pongs = 0
            for m in self.melds[seat]:
                if m.kind is MeldKind.PONG:
                    pongs |= 1 << m.tile
            if pongs or 4 in h:  # otherwise no kind can be konged: skip the scan
                for k in range(NUM_KINDS):
                    c = h[k]
                    if c and (c == 4 or pongs >> k & 1) and not self._kind_blocked(seat, k):
                        acts.append(kong(k))
        bad = self._undiscardable
        if self.cfg.must_discard_void_first and self._holds_void(seat):
            base = self.void[seat] * 9  # type: ignore[operator]
            acts.extend(discard(k) for k in range(base, base + 9) if h[k] and k not in bad)
        elif bad:
            acts += [discard(k) for k in range(NUM_KINDS) if h[k] and k not in bad]
        else:
            acts += [discard(k) for k in range(NUM_KINDS) if h[k]]
        return self._rules.self_actions(self, seat, acts)

    def _frozen_kong_ok(self, seat: int, k: int, *, claim: bool) -> bool:
        """血流: may frozen ``seat`` kong ``k`` (its drawn tile, or a discard when ``claim``) keeping its waits?"""
        if self._kind_blocked(seat, k):
            return False
        h = self.hands[seat]
        melds = self.melds[seat]
        cfg = self.cfg
        if claim:
            if h[k] != 3:
                return False
            if not cfg.xueliu_kong_requires_same_waits:
                return True
            before = self._seat_waits(seat)
            h[k] -= 3
            after = judge.waits_mask(cfg, h, [*melds, Meld(MeldKind.KONG, k)], self.void[seat], self._wild_kinds)
            h[k] += 3
            return after == before
        if any(m.kind is MeldKind.PONG and m.tile == k for m in melds):
            return True  # 补杠 of the drawn tile: the frozen concealed hand itself is unchanged
        if h[k] != 4:
            return False
        if not cfg.xueliu_kong_requires_same_waits:
            return True
        h[k] -= 1
        before = judge.waits_mask(cfg, h, melds, self.void[seat], self._wild_kinds)
        h[k] -= 3
        after = judge.waits_mask(cfg, h, [*melds, Meld(MeldKind.ANKONG, k)], self.void[seat], self._wild_kinds)
        h[k] += 4
        return after == before

    # ---- step -----------------------------------------------------------------------------------------------
    def step(self, seat: int, action: Action) -> None:
        """Apply ``seat``'s decision.  ``ValueError`` naming the action and the legal set when it is not legal."""
        if self.is_over:
            raise ValueError(f"the hand is over; seat {seat} cannot play {action}")
        if not isinstance(action, Action):
            raise ValueError(f"action must be an envs.core.actions.Action, got {type(action).__name__}: {action!r}")
        if seat not in self._pending or seat in self._decisions:
            raise ValueError(
                f"seat {seat!r} has no decision now (phase {self.phase.value}, pending seats {list(self.pending)}); "
                f"cannot play {action}"
            )
        if action.type == ActionType.EXCHANGE:
            action = exchange(action.tiles)
        legal = self._legal(seat)
        for a in legal:  # the shared action instances match on identity, before any field comparison
            if a is action:
                break
        else:
            if action not in legal:
                more = f", ... ({len(legal)} in all)" if len(legal) > 40 else ""
                shown = ", ".join(str(a) for a in legal[:40]) + more
                raise ValueError(
                    f"illegal action {action} for seat {seat} in phase {self.phase.value}; legal: [{shown}]"
                )
        self._legal_cache = {}
        phase = self.phase
        private = phase != Phase.SELF or (
            action.type == ActionType.KONG and not self.cfg.reveal_concealed_kong and self.hands[seat][action.tile] == 4
        )
        if self.record_events:
            self._emit(
                "action",
                visible_to=[seat] if private else None,
                redact=("action",) if private else (),
                seat=seat,
                phase=phase.value,
                action=action_to_dict(action),
            )
        if phase == Phase.SELF:
            self._rules.before_self_step(self, seat, action, legal)
            self._self_step(seat, action)
            return
        if phase == Phase.DECLARE:
            self._rules.declare_step(self, seat, action)
            self._begin_draw(seat)
            return
        self._decisions[seat] = action
        if len(self._decisions) < len(self._pending):
            return
        if phase == Phase.EXCHANGE:
            self._resolve_exchange()
        elif phase == Phase.DINGQUE:
            self._resolve_dingque()
        elif phase == Phase.CLAIM:
            self._resolve_claims()
        else:
            self._resolve_rob()

    # ---- exchange and 定缺 ----------------------------------------------------------------------------------
    def _resolve_exchange(self) -> None:
        n, off = self.n, self.exchange_offset
        assert off is not None
        given = {s: self._decisions[s].tiles for s in range(n)}
        for s in range(n):
            for k in given[s]:
                self.hands[s][k] -= 1
        for s in range(n):
            r = (s + off) % n
            for k in given[s]:
                self.hands[r][k] += 1
            self.exchange_given[s] = given[s]
            self.exchange_received[r] = given[s]
        for s in range(n):
            self._hand_changed(s)
            self._emit(
                "exchange",
                visible_to=[s],
                redact=("given", "received"),
                seat=s,
                given=list(given[s]),
                received=list(self.exchange_received[s]),
                from_seat=(s - off) % n,
            )
        self._exchange_done = True
        self._emit("exchange_direction", offset=off)
        self._after_exchange()

    def _resolve_dingque(self) -> None:
        for s in range(self.n):
            self.void[s] = self._decisions[s].tile
            self._hand_changed(s)
        self._void_revealed = True
        self._emit("dingque", voids=list(self.void))
        self._start_play()

    # ---- self phase -----------------------------------------------------------------------------------------
    def _self_step(self, seat: int, action: Action) -> None:
        t = action.type
        if t == ActionType.HU:
            self._self_win(seat)
        elif t == ActionType.KONG:
            self._first_action = False
            if self.hands[seat][action.tile] == 4:
                self._concealed_kong(seat, action.tile)
            else:
                self._declare_added_kong(seat, action.tile)
        elif t == ActionType.DISCARD:
            self._discard(seat, action.tile)
        else:
            self._rules.self_step(self, seat, action)

    def _discard(self, seat: int, k: int, *, event: str = "discard") -> None:
        """``seat`` plays ``k`` face up (``event`` names it: a plain discard, or a variant's special play such as
        the 请胡 single); the other seats may claim it."""
        self._first_action = False
        self.hands[seat][k] -= 1
        self._hand_changed(seat)
        self.discards[seat].append(k)
        self.discard_claimed[seat].append(False)
        self._discard_count += 1
        self.drawn_tile = None
        self._after_pong = False
        self._emit(event, seat=seat, tile=k)
        options, values = self._claim_options(seat, k)
        if options:
            self._open_window(Phase.CLAIM, seat, k, options, values)
        else:
            self._after_unclaimed(seat, k)

    def _after_unclaimed(self, seat: int, k: int) -> None:
        """Nobody won or claimed ``seat``'s discard ``k``: the next seat draws (unless a variant decides)."""
        if not self._rules.after_unclaimed(self, seat, k):
            self._next_turn(self._next_active(seat))

    def _claim_options(self, seat: int, k: int) -> tuple[dict[int, tuple[Action, ...]], dict[int, int]]:
        """Each other active seat's options on the discard ``k`` (only seats with something besides PASS) and the
        doublings of the offered wins (see :meth:`_hu_offer`)."""
        options: dict[int, tuple[Action, ...]] = {}
        values: dict[int, int] = {}
        cfg = self.cfg
        if k == RED and cfg.wild == "hongzhong" and not cfg.hz_red_discard_claimable:
            return options, values  # a discarded 红中 is dead (AMB-68)
        if self._rules.discard_dead(self, seat, k):
            return options, values
        claims_open = self._claims_open()
        kong_ok = claims_open and self._kong_possible()
        forced = self._forced()
        for i in range(1, self.n):
            q = (seat + i) % self.n
            if not self.active[q]:
                continue
            opts: list[Action] = []
            value = self._hu_offer(q, k, seat, robbing=False)
            if value is not None:
                values[q] = value
                if forced:
                    options[q] = (HU,)
                    continue
                opts.append(HU)
            if claims_open and not self._kind_blocked(q, k):
                c = self.hands[q][k]
                if self.frozen[q]:
                    if kong_ok and c == 3 and self._frozen_kong_ok(q, k, claim=True):
                        opts.append(kong(k))
                else:
                    if kong_ok and c == 3:
                        opts.append(kong(k))
                    if c >= 2 and not (self._pong_lock[q] >> k & 1):
                        opts.append(PONG)
                    self._rules.meld_options(self, q, k, seat, opts)
            if opts:
                opts.append(PASS)
                options[q] = tuple(opts)
        return options, values

    def _open_window(
        self, phase: Phase, seat: int, k: int, options: dict[int, tuple[Action, ...]], values: dict[int, int]
    ) -> None:
        self._options = options
        self._hu_values = values
        self.claim_tile = k
        self.claim_from = seat
        n = self.n
        self._set_phase(phase, tuple(sorted(options, key=lambda q: (q - seat) % n)))

    def _hu_offer(self, q: int, k: int, payer: int, *, robbing: bool) -> int | None:
        """Whether q is offered HU on ``k`` (a discard, or a robbed kong tile): None if not, else the win's
        doublings when some rule needs them (pass locks with ``pass_hu_allow_higher``), otherwise 0."""
        if not self._rules.may_win(self, q):  # cheap and pure: asked before any wait (Wuhan: not open yet)
            return None
        waits = self._waits[q]
        if waits is None and not judge.may_wait_on(self.cfg, self.hands[q], self.melds[q], self._wild_kinds, k):
            return None  # k cannot complete q's hand: no need for the seat's whole waits mask yet
        if not (self._seat_waits(q) >> k & 1):
            return None
        cfg = self.cfg
        locked = -1
        if cfg.pass_hu_lock == "same_tile":
            locked = self._hu_lock[q].get(k, -1)
        elif cfg.pass_hu_lock == "any_tile":
            locked = self._hu_lock_any[q]
        if locked >= 0 and not cfg.pass_hu_allow_higher:
            return None
        if cfg.allow_pinghu_on_discard and not cfg.pass_hu_allow_higher and not self._rules.win_rules:
            return 0
        result = self._score_on(q, k, "qianggang" if robbing else "dianpao", payer)
        if not result.is_win:  # e.g. a 0-doubling discard win with allow_pinghu_on_discard = false
            return None
        d = result.doublings or 0
        if locked >= 0 and d <= locked:
            return None
        return d

    # ---- turns ----------------------------------------------------------------------------------------------
    def _reset_turn(self, seat: int) -> None:
        self.current = seat
        self._after_kong = False
        self._after_pong = False
        self._kong_feeder = None
        self._turn_kongs = 0
        self._turn_income = []
        self._dihu_draw = False
        self._drew_last = False

    def _clear_locks(self, seat: int) -> None:
        if self._hu_lock[seat]:
            self._hu_lock[seat] = {}
        self._hu_lock_any[seat] = -1
        self._pong_lock[seat] = 0

    def _draw_tile(self, seat: int, *, replacement: bool) -> int:
        if replacement and self.cfg.kong_draw_from == "back":
            self._back -= 1
            t = self._wall[self._back]
        else:
            t = self._wall[self._front]
            self._front += 1
        self.hands[seat][t] += 1
        self._hand_changed(seat)
        self.drawn_tile = t
        self._drew_last = self._front == self._back
        self._clear_locks(seat)
        self._emit("draw", visible_to=[seat], redact=("tile",), seat=seat, tile=t, replacement=replacement)
        return t

    def _next_turn(self, seat: int) -> None:
        """``seat`` starts its turn with a draw (or the hand ends exhausted)."""
        self.claim_tile = self.claim_from = None
        if self.wall_remaining == 0:
            self._end_hand(exhausted=True)
            return
        self._reset_turn(seat)
        if self._rules.pre_draw(self, seat):
            return  # a declaration comes first (断卡根 报胡); its answer calls _begin_draw
        self._begin_draw(seat)

    def open_declaration(self, seat: int) -> None:
        """Ask ``seat`` a pre-draw declaration (:class:`~envs.engine.view.Phase` DECLARE; the variant lists the
        actions)."""
        self.current = seat
        self._set_phase(Phase.DECLARE, (seat,))

    def _begin_draw(self, seat: int) -> None:
        first = self._first_draw_pending[seat]
        self._first_draw_pending[seat] = False
        self._dihu_draw = first and not self._meld_made
        t = self._draw_tile(seat, replacement=False)
        self._enter_self(seat)
        if self._four_red(seat):
            self._instant_win(seat, t)

    def _replacement_draw(self, seat: int) -> None:
        if self.wall_remaining == 0:  # only with kong_on_last_tile = true: no replacement exists
            self._end_hand(exhausted=True)
            return
        self._dihu_draw = False
        self._after_pong = False
        t = self._draw_tile(seat, replacement=True)
        self._after_kong = True
        self._enter_self(seat)
        if self._four_red(seat):
            self._instant_win(seat, t)

    # ---- kongs ----------------------------------------------------------------------------------------------
    def _concealed_kong(self, seat: int, k: int) -> None:
        self.hands[seat][k] -= 4
        self._hand_changed(seat)
        self.melds[seat].append(Meld(MeldKind.ANKONG, k))
        self._meld_made = True
        self._emit("kong", seat=seat, kind=MeldKind.ANKONG.value, tile=self._public_kong_tile(k))
        self._kong_feeder = None
        self._pay_kong(seat, MeldKind.ANKONG, feeder=None, immediate=True)
        if not self.is_over:
            self._replacement_draw(seat)

    def _public_kong_tile(self, k: int) -> int:
        return k if self.cfg.reveal_concealed_kong else HIDDEN_TILE

    def _declare_added_kong(self, seat: int, k: int) -> None:
        options: dict[int, tuple[Action, ...]] = {}
        values: dict[int, int] = {}
        forced = self._forced()
        for i in range(1, self.n):
            q = (seat + i) % self.n
            if not self.active[q]:
                continue
            v = self._hu_offer(q, k, seat, robbing=True)
            if v is not None:
                values[q] = v
                options[q] = (HU,) if forced else (HU, PASS)
        self._emit("kong_declared", seat=seat, tile=k)
        if options:
            self._open_window(Phase.ROB, seat, k, options, values)
        else:
            self._complete_added_kong(seat, k)

    def _complete_added_kong(self, seat: int, k: int) -> None:
        immediate = k == self.drawn_tile
        self.hands[seat][k] -= 1
        self._hand_changed(seat)
        melds = self.melds[seat]
        for i, m in enumerate(melds):
            if m.kind is MeldKind.PONG and m.tile == k:
                melds[i] = Meld(MeldKind.BUKONG, k, from_seat=m.from_seat)
                break
        self._meld_made = True
        self._emit("kong", seat=seat, kind=MeldKind.BUKONG.value, tile=k)
        self._kong_feeder = None
        self._pay_kong(seat, MeldKind.BUKONG, feeder=None, immediate=immediate)
        if not self.is_over:
            self._replacement_draw(seat)

    def _pay_kong(self, owner: int, kind: MeldKind, *, feeder: int | None, immediate: bool) -> None:
        self._turn_kongs += 1
        active = [q for q in range(self.n) if self.active[q]]
        for tr in kong_transfers(
            self.cfg, owner, _KONG_TYPE[kind], active=active, discarder=feeder, immediate=immediate
        ):
            if tr.reason in _KONG_PAY_REASONS:
                self.kong_payments.append(KongPayment(tr.receiver, tr.payer, tr.amount))
                self._turn_income.append(len(self.kong_payments) - 1)
            self._apply(tr)
        self._check_bankrupt()

    def _apply(self, tr: Transfer) -> None:
        self.transfers.append(tr)
        self.scores[tr.payer] -= tr.amount
        self.scores[tr.receiver] += tr.amount
        self._emit("transfer", payer=tr.payer, receiver=tr.receiver, amount=tr.amount, reason=tr.reason)

    def _below_zero(self) -> bool:
        """A points match (赤羽) has a seat whose match total (before this hand, plus this hand's score) is below 0."""
        mp = self.match_points_before
        return self._bankruptcy and any(mp[s] + self.scores[s] < 0 for s in range(self.n))

    def _check_bankrupt(self) -> None:
        if not self.is_over and self._below_zero():
            self.bankrupt = True
            self._end_hand(exhausted=False)

    # ---- claim and rob windows ------------------------------------------------------------------------------
    def _apply_pass_locks(self) -> None:
        cfg = self.cfg
        k = self.claim_tile
        assert k is not None
        for q, opts in self._options.items():
            choice = self._decisions.get(q)
            if choice != HU and HU in opts and cfg.pass_hu_lock != "none":
                v = self._hu_values.get(q, 0)
                if cfg.pass_hu_lock == "same_tile":
                    lock = self._hu_lock[q]
                    if lock.get(k, -1) < v:
                        lock[k] = v
                elif self._hu_lock_any[q] < v:
                    self._hu_lock_any[q] = v
            if choice == PASS and cfg.pass_pong_lock and (PONG in opts or FEI in opts):
                self._pong_lock[q] |= 1 << k
        self._rules.window_resolved(self)

    def _hu_claimants(self, from_seat: int) -> list[int]:
        n = self.n
        order = sorted(self._decisions, key=lambda q: (q - from_seat) % n)
        winners = [q for q in order if self._decisions[q] == HU]
        if winners and not self.cfg.multi_ron:
            winners = winners[:1]
        return winners

    def _resolve_claims(self) -> None:
        k, p = self.claim_tile, self.claim_from
        assert k is not None and p is not None
        self._apply_pass_locks()
        winners = self._hu_claimants(p)
        if winners:
            self._emit("claims_resolved", tile=k, from_seat=p, winners=winners, claimer=None, claim=None)
            self.discard_claimed[p][-1] = True
            self._discard_wins(winners, p, k, how="dianpao")
            return
        claim = self._meld_claim(p)
        if claim is not None:
            q, a = claim
            self._emit("claims_resolved", tile=k, from_seat=p, winners=[], claimer=q, claim=a.type.name)
            self.discard_claimed[p][-1] = True
            self._claim_meld(q, p, k, a)
            return
        self._emit("claims_resolved", tile=k, from_seat=p, winners=[], claimer=None, claim=None)
        self._after_unclaimed(p, k)

    def _meld_claim(self, p: int) -> tuple[int, Action] | None:
        """The meld claim that takes the discard (§2.5.1): KONG = PONG = 飞 before 吃, ties in turn order after the
        discarder ``p`` (two seats can both 飞 one kind)."""
        n = self.n
        best = None
        for q, a in self._decisions.items():
            if a.type in (ActionType.KONG, ActionType.PONG, ActionType.FEI, ActionType.CHI):
                key = (a.type == ActionType.CHI, (q - p) % n)
                if best is None or key < best[0]:
                    best = (key, q, a)
        return None if best is None else (best[1], best[2])

    def _claim_meld(self, q: int, p: int, k: int, a: Action) -> None:
        h = self.hands[q]
        if a.type == ActionType.KONG:
            self._reset_turn(q)
            self._meld_made = True
            self.claim_tile = self.claim_from = None
            h[k] -= 3
            self._hand_changed(q)
            self.melds[q].append(Meld(MeldKind.KONG, k, from_seat=p))
            self._emit("kong", seat=q, kind=MeldKind.KONG.value, tile=k, from_seat=p)
            self._pay_kong(q, MeldKind.KONG, feeder=p, immediate=True)
            if not self.is_over:
                self._kong_feeder = p
                self._replacement_draw(q)
        elif a.type == ActionType.PONG:
            h[k] -= 2
            self.add_claimed_meld(q, Meld(MeldKind.PONG, k, from_seat=p), event="pong")
        else:
            self._rules.claim_meld(self, q, p, k, a)

    def _resolve_rob(self) -> None:
        k, p = self.claim_tile, self.claim_from
        assert k is not None and p is not None
        self._apply_pass_locks()
        winners = self._hu_claimants(p)
        self._emit("rob_resolved", tile=k, from_seat=p, winners=winners)
        if winners:
            self._discard_wins(winners, p, k, how="qianggang")
        else:
            self.claim_tile = self.claim_from = None
            self._complete_added_kong(p, k)

    # ---- wins -----------------------------------------------------------------------------------------------
    def _context(self, seat: int, how: str, payer: int | None) -> dict[str, bool]:
        """Situation flags of a win (RULES.md §10) for :func:`envs.scoring.judge.score`."""
        first_win = not self.won[seat]
        if how in ("zimo", "instant"):
            tianhu = seat == self.dealer and self._first_action and first_win
            return {
                "self_drawn": True,
                "robbing_kong": False,
                "after_kong": self._after_kong,
                "last_tile": self._drew_last,
                "tianhu": tianhu,
                "dihu": not tianhu and self._dihu_draw and first_win,
            }
        if how == "qianggang":
            return {"self_drawn": False, "robbing_kong": True}
        if how == "qinghu":  # 断卡根 请胡: nobody took the single; a self-draw win without 天胡/地胡
            return {"self_drawn": True, "robbing_kong": False, "last_tile": self._drew_last}
        dihu = (
            self.cfg.dihu_definition == "include_first_discard"
            and payer == self.dealer
            and self._discard_count == 1
            and not self._meld_made
            and first_win
        )
        return {
            "self_drawn": False,
            "robbing_kong": False,
            "after_kong": self._turn_kongs > 0 and payer == self.current,
            "last_tile": self._drew_last and payer == self.current,
            "dihu": dihu,
        }

    def _score_on(self, q: int, k: int, how: str, payer: int | None, **overrides: Any):
        """Score q's win on ``k``; for a claim (``how`` dianpao/qianggang) or a 请胡 (``qinghu``: the single lies
        among the discards) ``k`` is not in q's hand.

        ``overrides`` replace context fields (``paid_as_discard``, variant fields such as ``payer_baohu``).
        """
        h = self.hands[q]
        if how in ("dianpao", "qianggang", "qinghu"):
            counts = h[:]
            counts[k] += 1
        else:
            counts = h
        ctx = self._context(q, how, payer)
        ctx.update(self._rules.win_context(self, q, how, payer))
        ctx.update(overrides)
        return judge.score(self.cfg, counts, self.melds[q], k, void=self.void[q], dealer=q == self.dealer, **ctx)

    def _record_win(self, seat: int, tile: int, from_seat: int | None, how: str, result, pay: int) -> None:
        self.wins.append(
            WinInfo(
                seat=seat,
                tile=tile,
                from_seat=from_seat,
                how=how,
                doublings=result.doublings or 0,
                payment=pay,
                order=len(self.wins),
            )
        )
        self._emit(
            "win",
            seat=seat,
            tile=tile,
            from_seat=from_seat,
            how=how,
            doublings=result.doublings or 0,
            payment=pay,
            breakdown=dict(result.breakdown),
            hand=self._kinds(seat) if self._reveals_hand() else None,
        )

    def _reveals_hand(self) -> bool:
        return self.cfg.reveal_winner_hand or self.cfg.continuation == "xueliu"

    def _mark_won(self, seat: int) -> None:
        self.won[seat] = True
        if self.cfg.continuation == "xueliu":
            self.frozen[seat] = True
        else:
            self.active[seat] = False
        self._hand_changed(seat)

    def _self_win(self, seat: int) -> None:
        choice = self._self_win_choice(seat)
        assert choice is not None, "HU was offered without a winning self-draw"
        self._settle_self_draw(seat, choice[0], how="zimo")

    def _instant_win(self, seat: int, tile: int) -> None:
        self._settle_self_draw(seat, tile, how="instant")

    def settle_request_win(self, seat: int) -> None:
        """断卡根 请胡: nobody won on ``seat``'s announced single, so ``seat`` wins with it as a self-draw (how
        ``"qinghu"``): the single leaves the river (marked claimed) and is set aside as the winning tile."""
        t = self.discards[seat][-1]
        self.discard_claimed[seat][-1] = True
        self._settle_self_draw(seat, t, "qinghu")

    def _settle_self_draw(self, seat: int, t: int, how: str) -> None:
        """Settle ``seat``'s self-draw win on ``t`` (in its hand; for ``qinghu`` the discarded single)."""
        cfg = self.cfg
        feeder = self._kong_feeder if (how == "zimo" and self._after_kong) else None
        dianpao = paid_as_discard(cfg, how, feeder)  # type: ignore[arg-type]
        result = self._score_on(seat, t, how, None, paid_as_discard=dianpao)
        assert result.is_win or self._rules.self_win_ok(
            self, seat, result, functools.partial(self._score_on, seat, t, how, None)
        ), f"seat {seat}: a self-draw win on {t} that the scorer refuses ({result.reason})"
        active = [q for q in range(self.n) if self.active[q]]
        transfers = self._rules.win_transfers(
            self,
            seat,
            how,
            result,
            payer=None,
            active=active,
            feeder=feeder,
            rescore=functools.partial(self._score_on, seat, t, how, None, paid_as_discard=dianpao),
        )
        if how != "qinghu":
            self.hands[seat][t] -= 1
            self._hand_changed(seat)
        self.set_aside.append(t)
        self._record_win(seat, t, feeder if dianpao else None, how, result, result.payment)
        for tr in transfers:
            self._apply(tr)
        if self._first_win_event is None:
            self._first_win_event = ((seat,), None)
        self._first_action = False
        self._mark_won(seat)
        self._check_bankrupt()
        if self.is_over:
            return
        if self._hand_finished_by_wins() or (how == "instant" and cfg.hz_four_red_ends_hand):
            self._end_hand(exhausted=False)
            return
        self._next_turn(self._next_active(seat))

    def _discard_wins(self, winners: list[int], payer: int, k: int, how: str) -> None:
        cfg = self.cfg
        robbing = how == "qianggang"
        results = [self._score_on(q, k, how, payer) for q in winners]
        transfers = []
        for q, result in zip(winners, results):
            assert result.is_win, f"seat {q}: a win on {k} that the scorer refuses ({result.reason})"
            transfers.append(
                self._rules.win_transfers(
                    self,
                    q,
                    how,
                    result,
                    payer=payer,
                    active=[s for s in range(self.n) if self.active[s]],
                    feeder=None,
                    rescore=lambda q=q, **o: self._score_on(q, k, how, payer, **o),
                )
            )
        self.claim_tile = self.claim_from = None
        if robbing:
            self.hands[payer][k] -= 1
            self._hand_changed(payer)
        self.set_aside.append(k)
        income = [self.kong_payments[i] for i in self._turn_income]
        hujiao = not robbing and payer == self.current and self._turn_kongs > 0
        for q, result, trs in zip(winners, results, transfers):
            self._record_win(q, k, payer, how, result, result.payment)
            for tr in trs:
                self._apply(tr)
        if hujiao and income:
            moved = call_transfer(cfg, payer, winners, income)
            for tr in moved:
                self._apply(tr)
            if moved:
                for i, rec in zip(self._turn_income, mark_transferred(income)):
                    self.kong_payments[i] = rec
        if self._first_win_event is None:
            self._first_win_event = (tuple(winners), payer)
        self._first_action = False
        for q in winners:
            self._mark_won(q)
        self._check_bankrupt()
        if self.is_over:
            return
        if self._hand_finished_by_wins():
            self._end_hand(exhausted=False)
            return
        if robbing and cfg.after_rob_next == "after_robbed":
            self._next_turn(self._next_active(payer))
        else:
            self._next_turn(self._next_active(winners[-1]))

    def _hand_finished_by_wins(self) -> bool:
        c = self.cfg.continuation
        if c == "single":
            return True
        if c == "xuezhan":
            return sum(self.won) >= self.n - 1
        return False

    # ---- end of hand ----------------------------------------------------------------------------------------
    def _next_dealer(self) -> int:
        ev = self._first_win_event
        if ev is None or (self.bankrupt and not self.wins):
            return self.dealer
        rule = self.cfg.dealer_rule
        if rule == "rotate":
            return (self.dealer + 1) % self.n
        winners, payer = ev
        if len(winners) == 1:
            return winners[0]
        assert payer is not None
        if rule == "first_winner" and self.cfg.multi_ron_dealer == "discarder":
            return payer
        n = self.n
        return min(winners, key=lambda q: (q - payer) % n)

    def player_end(self, seat: int) -> PlayerEnd:
        """The :class:`~envs.scoring.settlement.PlayerEnd` summary of ``seat`` used by the end-of-hand checks."""
        return PlayerEnd(
            seat=seat,
            won_ever=self.won[seat],
            concealed=tuple(self.hands[seat]),
            melds=tuple(self.melds[seat]),
            void_suit=self.void[seat],
            indicator=self.indicator,
        )

    def _end_hand(self, *, exhausted: bool) -> None:
        self.exhausted = exhausted
        self.is_over = True
        if exhausted:
            for tr in self._rules.end_transfers(self):
                self._apply(tr)
            # 查花猪 / 查大叫 / 退税 settle together; a seat they leave below zero ends the match (RULES §2.11.4)
            self.bankrupt = self._below_zero()
        self._set_phase(Phase.END, ())
        self.claim_tile = self.claim_from = None
        self.drawn_tile = None
        self.result = HandResult(
            wins=tuple(self.wins),
            transfers=tuple(self.transfers),
            scores=tuple(self.scores),
            exhausted=exhausted,
            next_dealer=self._next_dealer(),
            bankrupt=self.bankrupt,
        )
        self._emit(
            "hand_end",
            exhausted=exhausted,
            bankrupt=self.bankrupt,
            scores=list(self.scores),
            next_dealer=self.result.next_dealer,
        )

    # ---- views, copies, checks ------------------------------------------------------------------------------
    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now (RULES.md §2.14): own tiles and public information only."""
        n = self.n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        hide_kongs = not self.cfg.reveal_concealed_kong
        if hide_kongs and any(m.kind is MeldKind.ANKONG for s in range(n) if s != seat for m in self.melds[s]):
            melds = tuple(
                tuple(
                    Meld(MeldKind.ANKONG, HIDDEN_TILE) if s != seat and m.kind is MeldKind.ANKONG else m
                    for m in self.melds[s]
                )
                for s in range(n)
            )
        else:  # nothing to hide (the common case)
            melds = tuple(map(tuple, self.melds))
        reveal = self._reveals_hand() and any(self.won)
        own_void = self.void[seat]
        if own_void is None and self.phase == Phase.DINGQUE and seat in self._decisions:
            own_void = self._decisions[seat].tile
        given = self.exchange_given[seat]
        if not given and self.phase == Phase.EXCHANGE and seat in self._decisions:
            given = self._decisions[seat].tiles
        if self.cfg.pass_hu_lock == "any_tile":
            hu_locked = tuple(self.cfg.kinds) if self._hu_lock_any[seat] >= 0 else ()
        elif self.cfg.pass_hu_lock == "same_tile":
            hu_locked = tuple(sorted(self._hu_lock[seat]))
        else:
            hu_locked = ()
        pong_mask = self._pong_lock[seat]
        in_window = self.phase in (Phase.CLAIM, Phase.ROB)
        return PlayerView(
            seat=seat,
            num_players=n,
            variant=self.cfg.name,
            phase=self.phase,
            to_act=seat in self.pending,
            dealer=self.dealer,
            current=self.current,
            hand=tuple(self.hands[seat]),
            drawn_tile=self.drawn_tile if self.phase == Phase.SELF and seat == self.current else None,
            melds=melds,
            discards=tuple(map(tuple, self.discards)),
            void_suits=tuple(self.void) if self._void_revealed else (None,) * n,
            own_void=own_void,
            won=tuple(self.won),
            active=tuple(self.active),
            wins=tuple(self.wins),
            revealed_hands=tuple(self._revealed(s, seat) if self.won[s] else None for s in range(n))
            if reveal
            else (None,) * n,
            claim_tile=self.claim_tile if in_window else None,
            claim_from=self.claim_from if in_window else None,
            exchange_given=tuple(given),
            exchange_received=tuple(self.exchange_received[seat]),
            exchange_offset=self.exchange_offset if self._exchange_done else None,
            wall_remaining=self.wall_remaining,
            scores=tuple(self.scores),
            match_points=tuple(map(operator.add, self.match_points_before, self.scores)),
            wild_kinds=self._wild_kinds,
            indicator=self.indicator,
            pass_hu_locked=hu_locked,
            pass_pong_locked=tuple(k for k in range(NUM_KINDS) if pong_mask >> k & 1) if pong_mask else (),
            legal_actions=tuple(self._legal(seat)),
            **self._rules.view_fields(self, seat),
        )

    def _revealed(self, seat: int, viewer: int) -> tuple[int, ...]:
        """A revealed (血流 frozen) hand as ``viewer`` sees it: the tile its owner just drew stays private."""
        h = list(self.hands[seat])
        t = self.drawn_tile
        if seat != viewer and seat == self.current and self.phase == Phase.SELF and t is not None:
            h[t] -= 1
        return tuple(h)

    def copy(self) -> Game:
        """An independent copy (for search): containers are copied, immutable parts (config, wall, melds) shared."""
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.hands = [h[:] for h in self.hands]
        g.melds = [m[:] for m in self.melds]
        g.discards = [d[:] for d in self.discards]
        g.discard_claimed = [d[:] for d in self.discard_claimed]
        g.set_aside = self.set_aside[:]
        g.void = self.void[:]
        g.won = self.won[:]
        g.active = self.active[:]
        g.frozen = self.frozen[:]
        g._waits = self._waits[:]
        g._hu_lock = [dict(d) for d in self._hu_lock]
        g._hu_lock_any = self._hu_lock_any[:]
        g._pong_lock = self._pong_lock[:]
        g._turn_income = self._turn_income[:]
        g._first_draw_pending = self._first_draw_pending[:]
        g._decisions = dict(self._decisions)
        g._options = dict(self._options)
        g._hu_values = dict(self._hu_values)
        g.exchange_given = self.exchange_given[:]
        g.exchange_received = self.exchange_received[:]
        g.wins = self.wins[:]
        g.transfers = self.transfers[:]
        g.scores = self.scores[:]
        g.kong_payments = self.kong_payments[:]
        g.events = self.events[:]
        g._legal_cache = {}
        if self.vstate is not None:
            g.vstate = self.vstate.copy()
        return g

    def snapshot(self) -> dict[str, Any]:
        """The full state as plain data (for equality checks, e.g. of a replayed game)."""
        return {
            "dealer": self.dealer,
            "phase": self.phase.value,
            "pending": list(self.pending),
            "decisions": {s: action_to_dict(a) for s, a in sorted(self._decisions.items())},
            "current": self.current,
            "drawn_tile": self.drawn_tile,
            "wall": [self._front, self._back],
            "hands": [list(h) for h in self.hands],
            "melds": [[str(m) for m in ms] for ms in self.melds],
            "discards": [list(d) for d in self.discards],
            "discard_claimed": [list(d) for d in self.discard_claimed],
            "set_aside": list(self.set_aside),
            "void": list(self.void),
            "won": list(self.won),
            "active": list(self.active),
            "frozen": list(self.frozen),
            "hu_lock": [sorted(d.items()) for d in self._hu_lock],
            "hu_lock_any": list(self._hu_lock_any),
            "pong_lock": list(self._pong_lock),
            "claim": [self.claim_tile, self.claim_from],
            "wins": [list(w.__getattribute__(f) for f in WinInfo.__slots__) for w in self.wins],
            "transfers": [t.to_dict() for t in self.transfers],
            "scores": list(self.scores),
            "kong_payments": [r.to_dict() for r in self.kong_payments],
            "is_over": self.is_over,
            "exhausted": self.exhausted,
            "bankrupt": self.bankrupt,
            "indicator": self.indicator,
            "variant_state": None if self.vstate is None else self.vstate.snapshot(),
        }

    def events_for(self, seat: int) -> list[dict[str, Any]]:
        """The event log as ``seat`` may see it: private events of others are dropped or redacted."""
        out = []
        for ev in self.events:
            vis = ev.get("visible_to")
            if vis is None:
                out.append(ev)
                continue
            if seat in vis:
                drop: tuple[str, ...] = ()
            elif ev.get("redact"):
                drop = tuple(ev["redact"])
            else:
                continue
            out.append({k: v for k, v in ev.items() if k not in drop and k not in ("visible_to", "redact")})
        return out

    def validate(self) -> None:
        """Check internal consistency; raises ``AssertionError`` describing the first problem found.

        Tile conservation (hands + melds + unclaimed discards + live wall + set-aside winning tiles = the full tile
        multiset), hand sizes for the phase, meld legality, pending seats, zero-sum scores.
        """
        cfg, n = self.cfg, self.n
        counts = [0] * NUM_KINDS
        for s in range(n):
            for k in range(NUM_KINDS):
                c = self.hands[s][k]
                assert c >= 0, f"seat {s} holds {c} copies of kind {k}"
                counts[k] += c
            for m in self.melds[s]:
                for k in m.natural():
                    counts[k] += 1
                for k in m.wild_kinds:
                    counts[k] += 1
            for k, claimed in zip(self.discards[s], self.discard_claimed[s]):
                if not claimed:
                    counts[k] += 1
            assert len(self.discards[s]) == len(self.discard_claimed[s]), f"seat {s}: discard flags out of step"
        for k in self._wall[self._front : self._back]:
            counts[k] += 1
        for k in self.set_aside:
            counts[k] += 1
        if self.indicator is not None and self.cfg.indicator_removed_from_wall:
            counts[self.indicator] += 1
        full = [0] * NUM_KINDS
        for k in tile_multiset(cfg):
            full[k] += 1
        assert counts == full, f"tiles not conserved: have {format_tiles(_expand(counts))} vs {cfg.num_tiles} tiles"
        assert 0 <= self._front <= self._back <= len(self._wall), "wall pointers out of range"
        for s in range(n):
            size = sum(self.hands[s]) + 3 * len(self.melds[s])
            extra = (self.phase in (Phase.SELF, Phase.ROB) and s == self.current) or (
                self.phase in (Phase.EXCHANGE, Phase.DINGQUE) and s == self.dealer
            )
            expected = cfg.hand_size + (1 if extra else 0)
            assert size == expected, (
                f"seat {s} holds {size} tile-equivalents in phase {self.phase.value}, expected {expected}"
            )
            pongs = set()
            for m in self.melds[s]:
                assert m.kind is not MeldKind.CHI or cfg.allow_chi, f"seat {s}: chi {m} without allow_chi"
                assert m.kind is not MeldKind.FEI or cfg.wild == "tingyong", f"seat {s}: 飞 {m} outside Yibin"
                assert all(w in self._wild_kinds for w in m.wild_kinds), f"seat {s}: {m} holds a non-wildcard"
                for k in m.represented():
                    assert k in cfg.kinds and k not in self._blocked, f"seat {s}: illegal meld {m}"
                v = self.void[s]
                assert v is None or m.tile >= NUM_SUITED or m.tile // 9 != v, f"seat {s}: meld {m} of its void suit"
                if m.kind is not MeldKind.CHI:
                    assert m.tile not in pongs, f"seat {s}: two melds of kind {m.tile}"
                    pongs.add(m.tile)
            if cfg.continuation == "xuezhan":
                assert self.active[s] == (not self.won[s]), f"seat {s}: active flag disagrees with won"
            if self.frozen[s]:
                assert self.won[s] and cfg.continuation == "xueliu", f"seat {s}: frozen without a 血流 win"
        assert sum(self.scores) == 0, f"scores {self.scores} are not zero-sum"
        net = [0] * n
        for t in self.transfers:
            net[t.payer] -= t.amount
            net[t.receiver] += t.amount
        assert net == self.scores, f"scores {self.scores} differ from the transfers' net {net}"
        pend = self.pending
        if self.is_over:
            assert self.phase == Phase.END and not pend, "a finished hand has pending seats"
        else:
            assert pend, f"phase {self.phase.value} has no pending seat"
            for s in pend:
                assert self.active[s], f"pending seat {s} is not active"
                assert self._legal(s), f"pending seat {s} has no legal action"
            if self.phase == Phase.SELF:
                assert pend == (self.current,), "self phase must await exactly the current seat"
        assert len(self.set_aside) <= len(self.wins), "more set-aside tiles than wins"


def _expand(counts: list[int]) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]
