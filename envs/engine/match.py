"""Matches (比赛): hands in sequence — 赤羽's four-hand points match, a room's bankroll match (RULES.md §11) and a
plain "N hands" points match — with one mechanism (RULES.md §2.12, §11.2).

* :class:`MatchRules` — what a match is: its length, the starting points or stacks, and for a bankroll match the
  chips per point (the room's 底分), the bust threshold and the flags of §11.3 (short payments, 退税 / 呼叫转移 when
  short, refills); optionally a placement reward table.
* :class:`MatchLedger` — the match's money, engine-free: every hand's transfers in order (capped for a bankroll
  match), the standings, the hand index and dealer, busts and refills, the end of the match and the placements.
  Chips are conserved at every transfer: ``sum(standing) == sum(start) + sum(refills)``.
* :class:`TableMatch` — a match played on an engine backend (:class:`envs.backend.TableBackend`, either engine): it
  deals hand ``i`` from :func:`envs.core.wall.hand_seed` ``(match_seed, i)`` with the dealer the ledger names and
  the points the seats carry (赤羽's bankruptcy inside a hand), and feeds the ledger.
* :class:`Match` — a match on :class:`envs.engine.game.Game` objects (the play table, the tests), on the same ledger.

The first dealer is drawn from the ``"dealer"`` stream of the match seed (RULES.md §2.12 "First hand: random")
unless ``dealer=`` is given; the next dealer is the finished hand's ``next_dealer`` (:func:`next_dealer`).

>>> m = Match("chiyu", seed=1)
>>> m.hand_index, m.points
(0, (50000, 50000, 50000, 50000))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from envs.core.rooms import Room, load_room
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import DOMAIN_DEALER, Seed, SeedStream, hand_seed
from envs.engine.game import Game, HandResult
from envs.scoring.settlement import KONG_REASONS, Transfer

if TYPE_CHECKING:  # annotations only: the backends sit above this layer
    from envs.backend import TableBackend

__all__ = [
    "ON_BUST",
    "PLACEMENT_TABLES",
    "REFUND_CAPS",
    "SHORT_PAYMENTS",
    "Match",
    "MatchLedger",
    "MatchRules",
    "TableMatch",
    "match_rules",
    "next_dealer",
    "placement_table",
]

SHORT_PAYMENTS = ("pay_what_is_left", "owe")
"""§11.3 ``short_payment``: a payer short of chips pays what is left (输光为止, the winner gets only that), or owes
(the stack goes negative and the full amount moves)."""
REFUND_CAPS = ("received", "stack")
"""§11.3 ``refund_cap``: 退税 / 呼叫转移 move at most the kong chips actually received (and still held) and the stack
(``received``), or only the stack limits them (``stack``)."""
ON_BUST = ("end", "refill")
"""§11.3 ``on_bust``: a busted seat ends the match, or is refilled with its starting stack (chips counted)."""
BUST_AT = ("below_minimum", "empty")
"""§11.3 ``bust_at``: a seat busts when its stack is below the room's minimum entry after a hand, or only when it is
empty (0 chips)."""

_KONG_PAY = frozenset(KONG_REASONS.values())


def placement_table(name_or_values: str | Sequence[float], num_players: int) -> tuple[float, ...]:
    """A placement reward per rank (first place first): a name of :data:`PLACEMENT_TABLES` or explicit values."""
    if isinstance(name_or_values, str):
        if name_or_values not in PLACEMENT_TABLES:
            raise ValueError(f"unknown placement table {name_or_values!r}; known: {sorted(PLACEMENT_TABLES)}")
        return PLACEMENT_TABLES[name_or_values](num_players)
    values = tuple(float(v) for v in name_or_values)
    if len(values) != num_players:
        raise ValueError(f"a placement table needs one value per seat ({num_players}), got {list(values)}")
    return values


def _linear(n: int) -> tuple[float, ...]:
    return tuple(1.0 - 2.0 * r / (n - 1) for r in range(n))


def _winner(n: int) -> tuple[float, ...]:
    return (1.0,) + (0.0,) * (n - 1)


PLACEMENT_TABLES = {"linear": _linear, "winner": _winner}
"""Named placement reward tables (§11.4): ``linear`` (+1 first ... -1 last, evenly spaced), ``winner`` (+1 first)."""


@dataclass(frozen=True)
class MatchRules:
    """What a match is (RULES.md §11.2-§11.4); build one with :meth:`points` or :meth:`for_room`."""

    hands: int | None
    """Hands in the match (None: unbounded, the caller stops it)."""
    start: tuple[int, ...]
    """Each seat's starting points (a points match) or stack in chips (a bankroll match)."""
    bankroll: bool = False
    """A room's bankroll match: chips, capped payments, busts (§11.3); else a points match (§2.12)."""
    chips_per_point: int = 1
    """Chips per engine point: the room's 底分 / the variant's ``base_unit``."""
    minimum: int = 0
    """The bust threshold of a bankroll match: the room's minimum entry."""
    short_payment: str = "pay_what_is_left"
    refund_cap: str = "received"
    on_bust: str = "end"
    bust_at: str = "below_minimum"
    placement: tuple[float, ...] | None = None
    """Reward per rank at the end of the match (first place first); None: no placement reward."""
    room: Room | None = None
    unit: int = 1
    """The observation's scale of standings (points: the variant's ``base_unit``; chips: the room's 底分)."""

    def __post_init__(self) -> None:
        for name, allowed in (
            ("short_payment", SHORT_PAYMENTS),
            ("refund_cap", REFUND_CAPS),
            ("on_bust", ON_BUST),
            ("bust_at", BUST_AT),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {list(allowed)}, got {getattr(self, name)!r}")
        if self.hands is not None and (isinstance(self.hands, bool) or not isinstance(self.hands, int)):
            raise ValueError(f"hands must be a positive int or None, got {self.hands!r}")
        if self.hands is not None and self.hands < 1:
            raise ValueError(f"hands must be a positive int or None, got {self.hands!r}")
        if self.placement is not None and len(self.placement) != len(self.start):
            raise ValueError(f"placement needs one value per seat ({len(self.start)}), got {list(self.placement)}")

    @classmethod
    def points(
        cls,
        cfg: RuleConfig,
        *,
        hands: int | None = None,
        placement: str | Sequence[float] | None = None,
    ) -> MatchRules:
        """A points match of ``cfg``: every seat starts at ``cfg.start_points`` (赤羽: 50 000, a seat below zero ends
        the match), ``hands`` (default ``cfg.hands_per_match``)."""
        n = cfg.num_players
        return cls(
            hands=cfg.hands_per_match if hands is None else hands,
            start=(cfg.start_points,) * n,
            placement=None if placement is None else placement_table(placement, n),
            unit=cfg.base_unit,
        )

    @classmethod
    def for_room(
        cls,
        room: str | Room,
        cfg: RuleConfig,
        stacks: int | Sequence[int] | None = None,
        *,
        hands: int | None = None,
        short_payment: str = "pay_what_is_left",
        refund_cap: str = "received",
        on_bust: str = "end",
        bust_at: str = "below_minimum",
        placement: str | Sequence[float] | None = None,
    ) -> MatchRules:
        """A bankroll match in ``room`` (name or alias): ``stacks`` one per seat or one for all (default: 10 × the
        minimum entry, inside the limits), each checked against the room's entry limits (``ValueError`` naming it)."""
        room = load_room(room)
        n = cfg.num_players
        if cfg.start_points:
            raise ValueError(
                f"a room plays chip stacks; variant {cfg.name!r} has start_points={cfg.start_points} (a points match):"
                " use start_points=0"
            )
        if room.base % cfg.base_unit:
            raise ValueError(f"{room.name}'s 底分 {room.base} is not a whole multiple of base_unit {cfg.base_unit}")
        if stacks is None:
            default = room.min_entry * 10
            stacks = default if room.max_entry is None else min(default, room.max_entry)
        if isinstance(stacks, (list, tuple)):
            if len(stacks) != n:
                raise ValueError(f"stacks needs one stack per seat ({n}), got {list(stacks)!r}")
            start = tuple(room.check_stack(s, f"stack of seat {i}") for i, s in enumerate(stacks))
        else:
            start = (room.check_stack(stacks),) * n
        return cls(
            hands=hands,
            start=start,
            bankroll=True,
            chips_per_point=room.base // cfg.base_unit,
            minimum=room.min_entry,
            short_payment=short_payment,
            refund_cap=refund_cap,
            on_bust=on_bust,
            bust_at=bust_at,
            placement=None if placement is None else placement_table(placement, n),
            room=room,
            unit=room.base,
        )


def match_rules(
    cfg: RuleConfig,
    *,
    match: bool = False,
    hands: int | None = None,
    placement: str | Sequence[float] | None = None,
    room: str | Room | None = None,
    stacks: int | Sequence[int] | None = None,
    bankroll: Mapping[str, str] | None = None,
) -> MatchRules | None:
    """The :class:`MatchRules` of an environment's options (None: single hands).  ``room`` plays a bankroll match
    (``stacks``; ``bankroll``: the §11.3 flags ``short_payment``, ``refund_cap``, ``on_bust``, ``bust_at``);
    ``match`` a points match of ``hands`` hands (default ``cfg.hands_per_match``; a variant without one needs
    ``hands``).  Options that only a match reads raise ``ValueError`` without one."""
    flags = dict(bankroll or {})
    if room is not None:
        unknown = sorted(set(flags) - {"short_payment", "refund_cap", "on_bust", "bust_at"})
        if unknown:
            raise ValueError(f"unknown bankroll flag(s) {unknown}; known: short_payment, refund_cap, on_bust, bust_at")
        return MatchRules.for_room(room, cfg, stacks, hands=hands, placement=placement, **flags)
    if stacks is not None or flags:
        raise ValueError("stacks and bankroll flags belong to a room's bankroll match: pass room= too")
    if not match:
        if hands is not None or placement is not None:
            raise ValueError("match_hands and placement belong to a match: pass match=True (or room=)")
        return None
    if hands is None and cfg.hands_per_match is None:
        raise ValueError(
            f"variant {cfg.name!r} sets no hands_per_match: a match of it needs match_hands (a positive int)"
        )
    return MatchRules.points(cfg, hands=hands, placement=placement)


def next_dealer(
    cfg: RuleConfig, dealer: int, winners: Sequence[int], payer: int | None, *, bankrupt: bool = False
) -> int:
    """The dealer of the next hand (RULES.md §2.12) from the first win event of the hand (``winners``, the paying
    discarder or None for a self-draw; no winners: the dealer stays)."""
    if not winners:
        return dealer
    rule = cfg.dealer_rule
    n = cfg.num_players
    if rule == "rotate":
        return (dealer + 1) % n
    if len(winners) == 1:
        return winners[0]
    assert payer is not None
    if rule == "first_winner" and cfg.multi_ron_dealer == "discarder":
        return payer
    return min(winners, key=lambda q: (q - payer) % n)


@dataclass
class MatchLedger:
    """The money and course of one match (see the module docstring); engine-free."""

    rules: MatchRules
    first_dealer: int
    standing: list[int] = field(init=False)
    """Each seat's points or chips now (the current hand's transfers so far included)."""
    hand_start: list[int] = field(init=False)
    refills: list[int] = field(init=False)
    hand_index: int = 0
    dealer: int = field(init=False)
    over: bool = False
    busted: list[bool] = field(init=False)
    hands_played: int = 0
    _kong_held: dict[tuple[int, int], int] = field(init=False)  # (payer, receiver) -> kong chips still held
    _held: list[int] = field(init=False)  # per seat: kong chips received and still held this hand

    def __post_init__(self) -> None:
        n = len(self.rules.start)
        self.standing = list(self.rules.start)
        self.hand_start = list(self.standing)
        self.refills = [0] * n
        self.dealer = self.first_dealer
        self.busted = [False] * n
        self._kong_held = {}
        self._held = [0] * n

    @property
    def num_players(self) -> int:
        return len(self.standing)

    def match_points(self) -> list[int]:
        """Each seat's total before the current hand: what a points match carries into the engine's hand for its
        bankruptcy check (a bankroll match plays its hands with ``start_points = 0`` and does not pass them)."""
        return list(self.hand_start)

    def apply(self, transfers: Iterable[Transfer]) -> list[int]:
        """Move the money of ``transfers`` (in order; engine points) and return each seat's change."""
        rules = self.rules
        change = [0] * self.num_players
        standing = self.standing
        capped = rules.bankroll and rules.short_payment == "pay_what_is_left"
        by_received = rules.bankroll and rules.refund_cap == "received"
        for tr in transfers:
            amount = tr.amount * rules.chips_per_point
            payer, receiver, reason = tr.payer, tr.receiver, tr.reason
            if by_received and reason == "tuishui":
                amount = min(amount, self._kong_held.get((receiver, payer), 0))
            elif by_received and reason == "hujiao_zhuanyi":
                amount = min(amount, self._held[payer])
            if capped:
                amount = min(amount, max(standing[payer], 0))
            if amount <= 0:
                continue
            standing[payer] -= amount
            standing[receiver] += amount
            change[payer] -= amount
            change[receiver] += amount
            if reason in _KONG_PAY:
                key = (payer, receiver)
                self._kong_held[key] = self._kong_held.get(key, 0) + amount
                self._held[receiver] += amount
            elif reason in ("tuishui", "hujiao_zhuanyi"):
                self._release(payer, amount, receiver if reason == "tuishui" else None)
        return change

    def _release(self, seat: int, amount: int, refunded_to: int | None) -> None:
        """``seat`` passed on ``amount`` of its kong chips (退税 to ``refunded_to`` first, else oldest payers first)."""
        self._held[seat] = max(self._held[seat] - amount, 0)
        order = [refunded_to] if refunded_to is not None else []
        order += [p for (p, r) in list(self._kong_held) if r == seat and p != refunded_to]
        for p in order:
            key = (p, seat)
            take = min(self._kong_held.get(key, 0), amount)
            if take:
                self._kong_held[key] -= take
                amount -= take
            if not amount:
                return

    def finish_hand(self, next_dealer: int, bankrupt: bool) -> bool:
        """Close the current hand (``next_dealer`` and the engine's ``bankrupt`` flag of its result): busts and
        refills (§11.3), the end of the match; True when the match is over."""
        rules = self.rules
        self.hands_played += 1
        over = bool(bankrupt)  # a points match: the engine ended the hand on a seat below zero (§2.11.4)
        if rules.bankroll:
            for s, stack in enumerate(self.standing):
                if stack < rules.minimum if rules.bust_at == "below_minimum" else stack <= 0:
                    if rules.on_bust == "refill":
                        self.refills[s] += rules.start[s] - stack
                        self.standing[s] = rules.start[s]
                    else:
                        self.busted[s] = True
                        over = True
        elif rules.start[0] > 0:
            self.busted = [p < 0 for p in self.standing]
        if rules.hands is not None and self.hands_played >= rules.hands:
            over = True
        self.over = over
        if not over:
            self.hand_index += 1
            self.dealer = next_dealer
            self.hand_start = list(self.standing)
            self._kong_held.clear()
            self._held = [0] * self.num_players
        return over

    def placements(self) -> list[int]:
        """Each seat's rank (0: first) by standing; a tie goes to the seat nearer the first dealer in turn order."""
        n = self.num_players
        order = sorted(range(n), key=lambda s: (-self.standing[s], (s - self.first_dealer) % n))
        ranks = [0] * n
        for rank, s in enumerate(order):
            ranks[s] = rank
        return ranks

    def placement_rewards(self) -> list[float]:
        """Each seat's placement reward (0 without a placement table)."""
        table = self.rules.placement
        if table is None:
            return [0.0] * self.num_players
        return [table[r] for r in self.placements()]

    def conserved(self) -> bool:
        """Chips (points) are conserved: the standings add up to the starts plus the refills."""
        return sum(self.standing) == sum(self.rules.start) + sum(self.refills)

    def summary(self) -> dict[str, Any]:
        """The match as plain data (for infos and reports)."""
        out: dict[str, Any] = {
            "hand": self.hand_index,
            "dealer": self.dealer,
            "standing": list(self.standing),
            "start": list(self.rules.start),
            "busted": list(self.busted),
            "refills": list(self.refills),
            "over": self.over,
        }
        if self.over:
            out["placements"] = self.placements()
        return out


class TableMatch:
    """A match played on an engine backend ``table`` (see the module docstring); the caller steps the hands."""

    def __init__(
        self,
        table: TableBackend,
        cfg: RuleConfig,
        rules: MatchRules,
        seed: Seed,
        *,
        dealer: int | None = None,
    ) -> None:
        self.table = table
        self.cfg = cfg
        self.rules = rules
        self.seed = seed
        n = cfg.num_players
        if len(rules.start) != n:
            raise ValueError(f"the match rules seat {len(rules.start)} players, the variant {n}")
        self.ledger = MatchLedger(rules, _first_dealer(seed, n, dealer))
        self._deal()
        if table.is_over():  # the first hand ended at its deal (four 红中 without 换三张)
            self.end_hand()

    def _deal(self) -> list[int]:
        led = self.ledger
        fixed: dict[str, Any] = {"dealer": led.dealer}
        if not self.rules.bankroll:
            fixed["match_points"] = led.match_points()
        dealt = self.table.deal(self.cfg, hand_seed(self.seed, led.hand_index), fixed)
        return led.apply(dealt or ())

    @property
    def over(self) -> bool:
        return self.ledger.over

    def step(self, seat: int, action: int) -> list[int] | None:
        """``seat``'s flat action id in the current hand; None for a 换三张 pick before the third, else the seats'
        changes in points or chips — of the hand's end and the next deal too, when the step ended a hand."""
        transfers = self.table.step(seat, action)
        if transfers is None:
            return None
        change = self.ledger.apply(transfers)
        if self.table.is_over():
            change = [a + b for a, b in zip(change, self.end_hand())]
        return change

    def end_hand(self) -> list[int]:
        """The current hand is over: close it in the ledger and deal the next unless the match is over; returns
        the changes made at the new deal (and at any deal that ended its hand at once)."""
        change = [0] * self.cfg.num_players
        while True:  # a hand can end at its deal (four 红中 without 换三张): then it is closed at once too
            following, bankrupt = self.table.hand_end()
            if self.ledger.finish_hand(following, bankrupt):
                return change
            change = [a + b for a, b in zip(change, self._deal())]
            if not self.table.is_over():
                return change


def _first_dealer(seed: Seed, n: int, dealer: int | None) -> int:
    if dealer is None:
        return SeedStream(seed, DOMAIN_DEALER).randbelow(n)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
    return dealer


class Match:
    """A match on :class:`~envs.engine.game.Game` objects; ``game`` is the hand being played.  Its money and end
    are a :class:`MatchLedger` (``rules``: default :meth:`MatchRules.points` of ``cfg``)."""

    def __init__(
        self,
        cfg: RuleConfig | str,
        seed: Seed,
        *,
        dealer: int | None = None,
        record_events: bool = True,
        rules: MatchRules | None = None,
    ) -> None:
        self.cfg = load_variant(cfg)
        self.seed = seed
        self.rules = MatchRules.points(self.cfg) if rules is None else rules
        self.record_events = record_events
        self.ledger = MatchLedger(self.rules, _first_dealer(seed, self.cfg.num_players, dealer))
        self.results: list[HandResult] = []
        self.game = self._new_game()

    @property
    def hand_index(self) -> int:
        """The index of :attr:`game` in the match (0-based)."""
        return self._index

    def _new_game(self) -> Game:
        led = self.ledger
        self._index = led.hand_index
        points = None if self.rules.bankroll else led.match_points()
        game = Game(
            self.cfg,
            hand_seed(self.seed, led.hand_index),
            dealer=led.dealer,
            match_points=points,
            record_events=self.record_events,
        )
        self._applied = len(game.transfers)
        led.apply(game.transfers)
        return game

    def _sync(self) -> None:
        transfers = self.game.transfers
        if len(transfers) > self._applied:
            self.ledger.apply(transfers[self._applied :])
            self._applied = len(transfers)

    @property
    def points(self) -> tuple[int, ...]:
        """Running totals including the current hand's transfers so far (chips in a bankroll match)."""
        self._sync()
        return tuple(self.ledger.standing)

    def _record(self) -> None:
        g = self.game
        self._sync()
        if g.is_over and len(self.results) <= self.hand_index and not self.ledger.over:
            assert g.result is not None
            self.results.append(g.result)
            self.ledger.finish_hand(g.result.next_dealer, g.result.bankrupt)

    @property
    def is_over(self) -> bool:
        """The current hand is over and no further hand will be played."""
        if not self.game.is_over:
            return False
        self._record()
        return self.ledger.over

    def step(self, seat: int, action) -> None:
        """Forward a decision to the current hand (see :meth:`envs.engine.game.Game.step`)."""
        self.game.step(seat, action)

    def next_hand(self) -> Game:
        """Deal the next hand with the next dealer once the current one is over; returns the new :attr:`game`.

        ``ValueError`` while the current hand is still being played or when the match is over.
        """
        if not self.game.is_over:
            raise ValueError(f"hand {self.hand_index} is still being played (phase {self.game.phase.value})")
        if self.is_over:
            raise ValueError(f"the match is over after hand {self.hand_index}; no further hand is dealt")
        self.game = self._new_game()
        return self.game

    def final_points(self) -> tuple[int, ...]:
        """Totals of a finished match (``ValueError`` before the match is over)."""
        if not self.is_over:
            raise ValueError("the match is not over yet")
        return tuple(self.ledger.standing)
