"""Settlement (结算): point transfers for wins, kongs, call transfer and the end-of-hand checks (RULES.md §2.7, §2.11).

Every movement of points is a :class:`Transfer` ``(payer, receiver, amount, reason)``; ``amount`` is in points, i.e.
rule units × ``cfg.base_unit`` (1 in the Chengdu family, 1000 in 赤羽).  All functions here are pure: they take the
facts of the hand and return the transfers; the engine applies them in event order (§2.11.4), so every hand is
zero-sum by construction.

Reasons (``Transfer.reason``):

=================  ==========================================================================================
``dianpao``        点炮 discard win: the discarder pays (§2.11.1); also 点杠花 paid as a discard (AMB-27)
``qianggang``      抢杠 win: the robbed kong player pays as a discarder (§2.7.4)
``zimo``           自摸 self-draw win: every other active player pays (§2.11.1)
``instant``        the four-红中 instant win (§4.3): paid like a self-draw
``kong_exposed``   直杠 payment (§2.7.2); ``kong_concealed`` 暗杠, ``kong_added`` 补杠 (刮风下雨)
``xi``             断卡根's 赔喜 kong payment (AMB-53): never transferred nor refunded
``hujiao_zhuanyi`` 呼叫转移 call transfer of kong income to the 杠上炮 winner(s) (§2.7.5)
``huazhu``         查花猪 flower-pig penalty (§2.11.2 step 1)
``chadajiao``      查大叫 not-ready player pays a ready player (§2.11.2 step 2)
``tuishui``        退税 kong refund by a not-ready player (§2.11.3)
=================  ==========================================================================================

End-of-hand checks (:func:`end_of_hand_transfers`, §2.11.2-§2.11.4), only when the wall is exhausted and at least
two players never won.  With ``R`` = those players:

* **花猪 pig** (§2.4, AMB-28): ``declared_void`` — holds a natural tile of the declared void suit (concealed or in a
  meld; wildcards belong to no suit); ``three_suits`` — holds natural tiles of all three suits.  No pigs without 定缺.
* **ready** 有叫 (AMB-31, AMB-74): not a pig and some kind ``t`` completes the hand (:func:`ready_waits`), where ``t``
  with four own copies (concealed + melds) is excluded when ``ready_excludes_fifth_tile``; a dead wait (死叫, all
  copies visible) still counts when ``dead_wait_counts_as_ready``, otherwise ``t`` needs an unseen copy.
* **value** (§2.11.2): the best (``chadajiao = "max"``) or smallest (``"min"``) payment of the hand as a discard win
  on a winning ``t`` — no self-draw bonus, no situational bonus — capped like any win.
* 查花猪: ``flat`` — each pig pays each non-pig in R ``huazhu_multiplier × base`` (capped at the win cap only with
  ``huazhu_penalty_capped``); ``ms_max_8`` (赤羽, §4.6, R5) — each pig pays every other player in R
  ``max(huazhu_min_points, value(receiver) if ready else 0)``.
* 查大叫: each not-ready non-pig in R pays each ready player in R ``value(ready)``.  Pigs never pay it.
* 退税: with ``refund_kong_if_not_ready``, each not-ready player in R (pigs included) returns every kong payment still
  held (not passed on by 呼叫转移) to its original payer.

Order of the returned list: 查花猪, 查大叫 (each by ascending payer, then receiver seat), then 退税 by ascending
refunding seat, its records in the given order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from envs.core.melds import Meld
from envs.core.rule_config import RuleConfig
from envs.core.tiles import COPIES, NUM_KINDS, NUM_SUITED, RED
from envs.scoring import judge
from envs.scoring.scorer import discard_values, wild_kinds
from envs.scoring.shanten import ALL_MASK, SUITED_MASK, waits

KONG_REASONS = {"zhigang": "kong_exposed", "angang": "kong_concealed", "bugang": "kong_added"}
"""Transfer reason of each kong type's payment."""

REASONS = (
    "dianpao", "qianggang", "zimo", "instant", *KONG_REASONS.values(), "xi", "hujiao_zhuanyi", "huazhu",
    "chadajiao", "tuishui",
)  # fmt: skip
"""Every ``Transfer.reason`` this module produces (see the module docstring)."""

KongType = Literal["zhigang", "angang", "bugang"]
WinHow = Literal["dianpao", "qianggang", "zimo", "instant"]


def _check_seat(name: str, seat: Any, n: int | None = None) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0 or (n is not None and seat >= n):
        expected = f"0-{n - 1}" if n is not None else "a non-negative int"
        raise ValueError(f"{name} must be a seat index {expected}, got {seat!r}")
    return seat


@dataclass(frozen=True, slots=True)
class Transfer:
    """One payment of ``amount`` points (units × base) from ``payer`` to ``receiver``, for ``reason``."""

    payer: int
    receiver: int
    amount: int
    reason: str

    def __post_init__(self) -> None:
        _check_seat("Transfer.payer", self.payer)
        _check_seat("Transfer.receiver", self.receiver)
        if self.payer == self.receiver:
            raise ValueError(f"a transfer needs two different seats, got payer = receiver = {self.payer}")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount <= 0:
            raise ValueError(f"Transfer.amount must be a positive int, got {self.amount!r}")
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError(f"Transfer.reason must be a non-empty string, got {self.reason!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able mapping ``{"payer", "receiver", "amount", "reason"}``."""
        return {"payer": self.payer, "receiver": self.receiver, "amount": self.amount, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transfer:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(data["payer"], data["receiver"], data["amount"], data["reason"])
        except (KeyError, TypeError):
            raise ValueError(f"transfer mapping needs payer, receiver, amount and reason, got {data!r}") from None


def net_scores(transfers: Iterable[Transfer], num_players: int) -> list[int]:
    """Per-seat net of a list of transfers (sums to zero)."""
    net = [0] * num_players
    for t in transfers:
        net[t.payer] -= t.amount
        net[t.receiver] += t.amount
    return net


@dataclass(frozen=True, slots=True)
class KongPayment:
    """A kong payment received: ``payer`` paid ``amount`` points to ``owner`` (§2.7.2).

    ``transferred`` is set once the income has been passed on by 呼叫转移 (§2.7.5); such income is not refunded.
    Under ``hujiao_zhuanyi = "split"`` the whole income of the kong counts as transferred: the remainder of the
    split stays with the kong player and is not refunded either (a decision; RULES.md is silent).
    """

    owner: int
    payer: int
    amount: int
    transferred: bool = False

    def __post_init__(self) -> None:
        _check_seat("KongPayment.owner", self.owner)
        _check_seat("KongPayment.payer", self.payer)
        if self.owner == self.payer:
            raise ValueError(f"kong income needs two different seats, got owner = payer = {self.owner}")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount <= 0:
            raise ValueError(f"KongPayment.amount must be a positive int, got {self.amount!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able mapping ``{"owner", "payer", "amount", "transferred"}``."""
        return {"owner": self.owner, "payer": self.payer, "amount": self.amount, "transferred": self.transferred}

    def transferred_copy(self) -> KongPayment:
        """The same record marked as passed on by 呼叫转移."""
        return KongPayment(self.owner, self.payer, self.amount, True)


# ---- per-event payments ------------------------------------------------------------------------------------


def kong_transfers(
    cfg: RuleConfig,
    owner: int,
    kong_type: KongType,
    *,
    active: Sequence[int],
    discarder: int | None = None,
    immediate: bool = True,
) -> list[Transfer]:
    """刮风下雨 kong payments (§2.7.2) for a kong that took effect (an added kong only after its rob window).

    ``active`` are the seats still in the hand (the owner may be listed; it never pays itself).  ``discarder`` is
    the seat whose discard was konged (直杠 only).  ``immediate`` says whether an added kong used the tile just drawn.

    * ``standard``: 直杠 2 from the discarder; 暗杠 2 from each other active; 补杠 1 from each other active, only when
      ``immediate`` if ``bugang_pay_requires_immediate``.
    * ``mahjongsoul`` (§4.6): the same amounts in points (2000 / 2000 / 1000 at base 1000); 补杠 pays only when
      immediate.
    * ``xi_each_1`` (断卡根 赔喜, AMB-53): every kong, 1 from each other player still in the hand (reason ``xi``).
    * ``none`` (宜宾) and ``factor`` (Wuhan, scored at the win): no transfer.

    Record the kong transfers with :func:`kong_records` for 呼叫转移 and 退税.
    """
    _check_seat("owner", owner, cfg.num_players)
    if kong_type not in ("zhigang", "angang", "bugang"):
        raise ValueError(f"kong_type must be 'zhigang', 'angang' or 'bugang', got {kong_type!r}")
    others = _others(cfg, owner, active)
    base = cfg.base_unit
    mode = cfg.kong_payment
    if mode in ("none", "factor"):
        return []
    if mode == "xi_each_1":
        return [Transfer(p, owner, base, "xi") for p in others]
    if kong_type == "zhigang":
        if discarder is None:
            raise ValueError("an exposed kong (zhigang) needs the discarder's seat")
        _check_seat("discarder", discarder, cfg.num_players)
        if discarder == owner:
            raise ValueError(f"the discarder of a zhigang cannot be its owner (seat {owner})")
        return [Transfer(discarder, owner, 2 * base, KONG_REASONS[kong_type])]
    if kong_type == "angang":
        return [Transfer(p, owner, 2 * base, KONG_REASONS[kong_type]) for p in others]
    needs_immediate = mode == "mahjongsoul" or cfg.bugang_pay_requires_immediate
    if needs_immediate and not immediate:
        return []
    return [Transfer(p, owner, base, KONG_REASONS[kong_type]) for p in others]


def kong_records(transfers: Iterable[Transfer]) -> list[KongPayment]:
    """The transferable / refundable records of kong payments (§2.7.2: "recorded as (kong_owner, payer, amount)").

    Only the three kong reasons count; 赔喜 ``xi`` is neither transferred nor refunded (AMB-53).
    """
    kong_reasons = set(KONG_REASONS.values())
    return [KongPayment(t.receiver, t.payer, t.amount) for t in transfers if t.reason in kong_reasons]


def paid_as_discard(cfg: RuleConfig, how: WinHow, kong_discarder: int | None) -> bool:
    """Whether a win is settled as a discard win although self-drawn: 点杠花 with ``dianganghua = "dianpao"``.

    The engine scores such a win with ``WinContext(paid_as_discard=True)`` (no self-draw bonus) and passes the same
    ``kong_discarder`` to :func:`win_transfers`.
    """
    return how == "zimo" and kong_discarder is not None and cfg.dianganghua == "dianpao"


def win_transfers(
    cfg: RuleConfig,
    winner: int,
    how: WinHow,
    payment: int,
    *,
    discarder: int | None = None,
    active: Sequence[int] = (),
    kong_discarder: int | None = None,
) -> list[Transfer]:
    """Per-win payments (§2.11.1): who pays the scored ``payment``.

    ``payment`` is :attr:`envs.scoring.scorer.ScoreResult.payment`, the points each payer pays with the cap and the
    self-draw bonus (自摸加底 / 加番) already applied by the scorer.

    * ``dianpao`` / ``qianggang``: ``discarder`` (the robbed kong player for 抢杠) pays ``payment``.
    * ``zimo`` / ``instant`` (four 红中): each other seat of ``active`` (seats still in the hand) pays ``payment``.
    * 点杠花 (AMB-27): a kong bloom right after an exposed kong on ``kong_discarder``'s discard.  With ``dianganghua =
      "zimo"`` it is paid like any self-draw; with ``"dianpao"`` only ``kong_discarder`` pays, as a discard win
      (reason ``dianpao``; score it with ``paid_as_discard``, see :func:`paid_as_discard`).

    The reason of each transfer is ``how`` (``dianpao``, ``qianggang``, ``zimo``, ``instant``).
    """
    _check_seat("winner", winner, cfg.num_players)
    _check_amount("payment", payment)
    if how in ("dianpao", "qianggang"):
        if discarder is None:
            raise ValueError(f"a {how} win needs the discarder's seat")
        _check_seat("discarder", discarder, cfg.num_players)
        if discarder == winner:
            raise ValueError(f"the discarder cannot be the winner (seat {winner})")
        return [Transfer(discarder, winner, payment, how)] if payment else []
    if how not in ("zimo", "instant"):
        raise ValueError(f"how must be 'dianpao', 'qianggang', 'zimo' or 'instant', got {how!r}")
    if kong_discarder is not None:
        _check_seat("kong_discarder", kong_discarder, cfg.num_players)
        if kong_discarder == winner:
            raise ValueError(f"the kong discarder cannot be the winner (seat {winner})")
    if paid_as_discard(cfg, how, kong_discarder):
        return [Transfer(kong_discarder, winner, payment, "dianpao")] if payment else []  # type: ignore[arg-type]
    if not payment:
        return []
    return [Transfer(p, winner, payment, how) for p in _others(cfg, winner, active)]


def call_transfer(
    cfg: RuleConfig, kong_player: int, winners: Sequence[int], income: Sequence[KongPayment]
) -> list[Transfer]:
    """呼叫转移 (§2.7.5, AMB-26): a 杠上炮 discarder passes the income of the kong(s) of that turn to the winner(s).

    ``income`` are the kong player's records of the kongs declared in that turn (already-transferred records are
    ignored).  ``full_each``: every winner receives the whole income (with several winners the discarder pays the
    extra copies from their own score); ``split``: each winner receives ``income // len(winners)``, the remainder
    stays with the kong player; ``none``: nothing.  After a non-empty result the caller marks those records
    ``transferred`` (:func:`mark_transferred`) so that 退税 does not refund them again.
    """
    _check_seat("kong_player", kong_player, cfg.num_players)
    if not winners:
        raise ValueError("call_transfer needs at least one winner")
    seen: set[int] = set()
    for w in winners:
        _check_seat("winner", w, cfg.num_players)
        if w == kong_player or w in seen:
            raise ValueError(f"winners {list(winners)} must be distinct seats other than the kong player {kong_player}")
        seen.add(w)
    for rec in income:
        if rec.owner != kong_player:
            raise ValueError(f"kong income {rec} does not belong to the kong player (seat {kong_player})")
    total = sum(rec.amount for rec in income if not rec.transferred)
    mode = cfg.hujiao_zhuanyi
    if mode == "none" or total == 0:
        return []
    each = total if mode == "full_each" else total // len(winners)
    if each == 0:
        return []
    return [Transfer(kong_player, w, each, "hujiao_zhuanyi") for w in winners]


def mark_transferred(income: Iterable[KongPayment]) -> list[KongPayment]:
    """The same records with ``transferred = True`` (after a 呼叫转移)."""
    return [r.transferred_copy() for r in income]


# ---- end of hand --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerEnd:
    """One player's state at the end of the hand, as the end-of-hand checks need it.

    ``concealed`` is the 34-count vector of the concealed tiles, wildcard tiles counted under their own kind (红中 at
    31), as in :class:`envs.engine.view.PlayerView` and :class:`envs.scoring.scorer.WinContext`; ``void_suit`` the
    declared 缺 suit (0 万, 1 筒, 2 条) or ``None``; ``indicator`` the Yibin 本金 kind when the variant flips one (it
    names the 听用).
    """

    seat: int
    won_ever: bool
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    void_suit: int | None = None
    indicator: int | None = None

    def __post_init__(self) -> None:
        _check_seat("PlayerEnd.seat", self.seat)
        counts = tuple(self.concealed)
        if len(counts) != NUM_KINDS or any(
            isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= 4 for c in counts
        ):
            raise ValueError(f"PlayerEnd.concealed must be 34 counts in 0-4, got {self.concealed!r}")
        object.__setattr__(self, "concealed", counts)
        melds = tuple(self.melds)
        if any(not isinstance(m, Meld) for m in melds):
            raise ValueError(f"PlayerEnd.melds must be Meld objects, got {self.melds!r}")
        object.__setattr__(self, "melds", melds)
        if self.void_suit is not None and self.void_suit not in (0, 1, 2):
            raise ValueError(f"PlayerEnd.void_suit must be 0, 1, 2 or None, got {self.void_suit!r}")


def is_pig(cfg: RuleConfig, player: PlayerEnd) -> bool:
    """花猪 flower pig (§2.4, AMB-28) at the end of the hand; never without 定缺.  Wildcards belong to no suit."""
    if not cfg.dingque:
        return False
    wilds = set(wild_kinds(cfg, player.indicator))
    suits_held = {k // 9 for k in range(NUM_SUITED) if player.concealed[k] and k not in wilds}
    suits_held |= {k // 9 for m in player.melds for k in m.natural() if 0 <= k < NUM_SUITED}
    if cfg.huazhu_definition == "three_suits":
        return suits_held >= {0, 1, 2}
    return player.void_suit is not None and player.void_suit in suits_held


def ready_waits(cfg: RuleConfig, player: PlayerEnd, *, live: Sequence[int] | None = None) -> dict[int, int]:
    """Kinds ``t`` that make ``player`` 有叫 ready (§2.11.2), mapped to the discard-win payment in points.

    Empty for a pig.  Values come from :func:`envs.scoring.scorer.discard_values` (plain discard win: no self-draw
    bonus, no situational fan, capped; wildcard kinds skipped; a kind held four times skipped when
    ``ready_excludes_fifth_tile``).  ``live`` (34 counts of the copies this player cannot see) is required when
    ``dead_wait_counts_as_ready`` is false: then a wait needs an unseen copy.
    """
    if not cfg.dead_wait_counts_as_ready and (live is None or len(live) != NUM_KINDS):
        raise ValueError("dead_wait_counts_as_ready is false: pass live (34 counts of unseen copies)")
    if is_pig(cfg, player) or not _may_be_ready(cfg, player):
        return {}
    values = discard_values(
        cfg,
        player.concealed,
        player.melds,
        void_suit=player.void_suit,
        indicator=player.indicator,
        candidates=wait_candidates(cfg, player),
    )
    out = {}
    for t, result in values.items():
        if live is not None and not cfg.dead_wait_counts_as_ready and live[t] <= 0:
            continue
        out[t] = result.payment
    return out


def wait_candidates(cfg: RuleConfig, player: PlayerEnd) -> int:
    """Bitmask of the kinds the scorer has to try for ``player``'s waits: the shape waits of
    :func:`envs.scoring.judge.waits_mask`, a superset of the scorer's wins (kinds held four times, which that mask
    leaves out, are tried by :func:`envs.scoring.scorer.discard_values` anyway when a fifth copy may count)."""
    return judge.waits_mask(
        cfg, list(player.concealed), player.melds, player.void_suit, wild_kinds(cfg, player.indicator)
    )


# fan tables whose wins all have the standard or seven-pairs shape (no Wuhan 乱将 / 乱风 readings)
_SHAPE_TABLES = frozenset({"chengdu", "wiki_xueliu", "hongzhong", "mahjongsoul"})


def _may_be_ready(cfg: RuleConfig, player: PlayerEnd) -> bool:
    """A cheap necessary condition of 有叫: False only when no tile can complete the hand's shape.

    :func:`envs.scoring.scorer.discard_values` scores every kind in full; most hands at exhaustion wait on nothing, and
    the table-driven :func:`envs.scoring.shanten.waits` proves that in a few microseconds.  The check is deliberately
    looser than the scorer (wildcards may stand for any suited kind, no meld copy caps), so a False here means the
    scorer finds no win either.  Whenever a rule could make the scorer looser than this check (other wildcards or fan
    tables, a fifth copy that may count, wildcards past the four-copy limit, four 红中), it answers True and the
    scorer decides.
    """
    if cfg.fan_table not in _SHAPE_TABLES or cfg.wild not in ("none", "hongzhong") or cfg.wild_ignores_four_copy_limit:
        return True
    if any(m.wilds for m in player.melds):
        return True
    counts = list(player.concealed)
    wilds = 0
    if cfg.wild == "hongzhong":
        wilds, counts[RED] = counts[RED], 0
        if wilds >= COPIES:
            return True
    if not cfg.ready_excludes_fifth_tile:
        own = counts[:]
        for m in player.melds:
            for k in m.represented():
                own[k] += 1
        if max(own) >= COPIES:
            return True
    try:
        return bool(waits(counts, wilds, allowed_mask=SUITED_MASK, candidates_mask=ALL_MASK))
    except ValueError:  # not a 3k+1 hand: let the scorer report the problem
        return True


def ready_value(cfg: RuleConfig, player: PlayerEnd, *, live: Sequence[int] | None = None) -> int | None:
    """The 查大叫 value in points of a ready player (max or min over waits per ``chadajiao``); ``None`` if not ready."""
    waits = ready_waits(cfg, player, live=live)
    if not waits:
        return None
    return max(waits.values()) if cfg.chadajiao == "max" else min(waits.values())


def end_of_hand_transfers(
    cfg: RuleConfig,
    players: Sequence[PlayerEnd],
    kong_payments: Sequence[KongPayment] = (),
    *,
    wall_exhausted: bool = True,
    live: Sequence[Sequence[int]] | None = None,
) -> list[Transfer]:
    """查花猪, 查大叫 and 退税 (§2.11.2-§2.11.4) for a finished hand; ``[]`` unless exhausted with >= 2 non-winners.

    ``players`` holds one :class:`PlayerEnd` per seat, in seat order; ``kong_payments`` every kong payment record of
    the hand (:func:`kong_records`), those passed on by 呼叫转移 marked ``transferred``.  ``live`` (per seat, 34 counts
    of the copies that seat cannot see) is needed only when ``dead_wait_counts_as_ready`` is false.
    """
    if len(players) != cfg.num_players or [p.seat for p in players] != list(range(cfg.num_players)):
        raise ValueError(f"players must hold one PlayerEnd per seat 0-{cfg.num_players - 1} in seat order")
    if live is not None and len(live) != cfg.num_players:
        raise ValueError(f"live must hold one 34-count vector per seat, got {len(live)}")
    for rec in kong_payments:
        if not isinstance(rec, KongPayment) or rec.owner >= cfg.num_players or rec.payer >= cfg.num_players:
            raise ValueError(f"kong_payments must be KongPayment records between seats of the table, got {rec!r}")
    rest = [p for p in players if not p.won_ever]
    if not wall_exhausted or len(rest) < 2:
        return []
    pig = {p.seat: is_pig(cfg, p) for p in rest}
    value: dict[int, int | None] = {}
    for p in rest:
        value[p.seat] = None if pig[p.seat] else ready_value(cfg, p, live=None if live is None else live[p.seat])
    return settle_end_of_hand(cfg, [p.seat for p in rest], pig, value, kong_payments)


def score_final(cfg: RuleConfig, seat: int, kong_payments: Iterable[KongPayment], won: Sequence[bool]) -> bool:
    """Whether a seat that left the hand (血战 winner) can no longer gain or lose points.

    The only later change is a 退税 refund (§2.11.3): with ``refund_kong_if_not_ready`` a player who never won
    returns, at exhaustion, the kong payments it still holds — so a seat that paid such a payment (not passed on by
    呼叫转移) to a player who has not won (``won[owner]`` false) is not final yet.
    """
    if not cfg.refund_kong_if_not_ready:
        return True
    return not any(rec.payer == seat and not rec.transferred and not won[rec.owner] for rec in kong_payments)


def settle_end_of_hand(
    cfg: RuleConfig,
    rest: Sequence[int],
    pig: Mapping[int, bool],
    value: Mapping[int, int | None],
    kong_payments: Sequence[KongPayment] = (),
) -> list[Transfer]:
    """The three steps of :func:`end_of_hand_transfers` once each non-winner's standing is known: ``rest`` are the
    seats that never won (at least two), ``pig[s]`` whether seat ``s`` is a 花猪 and ``value[s]`` its 查大叫
    value (``None``: not ready; a pig is never ready).  Callers that know the standings another way (the compiled
    engine, when no seat can be a pig or ready) use it directly."""
    out: list[Transfer] = []
    # 1. 查花猪
    for p in rest:
        if not pig[p]:
            continue
        for q in rest:
            if q == p:
                continue
            if cfg.huazhu_penalty == "ms_max_8":
                amount = max(cfg.huazhu_min_points, value[q] or 0)
            elif pig[q]:
                continue
            else:
                amount = cfg.huazhu_multiplier * cfg.base_unit
                if cfg.huazhu_penalty_capped:
                    amount = min(amount, _cap_points(cfg))
            if amount > 0:
                out.append(Transfer(p, q, amount, "huazhu"))
    # 2. 查大叫
    for p in rest:
        if pig[p] or value[p] is not None:
            continue
        for q in rest:
            v = value[q]
            if v:
                out.append(Transfer(p, q, v, "chadajiao"))
    # 3. 退税
    if cfg.refund_kong_if_not_ready:
        for p in rest:
            if value[p] is not None:
                continue
            for rec in kong_payments:
                if rec.owner == p and not rec.transferred:
                    out.append(Transfer(p, rec.payer, rec.amount, "tuishui"))
    return out


# ---- helpers ------------------------------------------------------------------------------------------------


def _check_amount(name: str, amount: Any) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"{name} must be a non-negative int (points), got {amount!r}")


def _others(cfg: RuleConfig, seat: int, active: Sequence[int]) -> list[int]:
    out = sorted(set(active) - {seat})
    for p in out:
        _check_seat("active seat", p, cfg.num_players)
    return out


def _cap_points(cfg: RuleConfig) -> int:
    """The largest payment of one win in points (for ``huazhu_penalty_capped``)."""
    if cfg.fan_table == "mahjongsoul":
        return cfg.point_cap
    if cfg.cap_doublings is None:
        return 1 << 62
    return (1 << cfg.cap_doublings) * cfg.base_unit
