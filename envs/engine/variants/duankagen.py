"""断卡根 Duankagen (RULES.md §4.5): 报胡 (declared ready), 请胡 (five-pair request), the 小胡 minimum and 查叫.

The fan table, tiers, 卡 / 硬卡 and the 小胡 rule are the scorer's (:mod:`envs.scoring.scorer`, ``dkg_wiki`` /
``dkg_wanghu``); this module plays the declarations and prices each payer.

* **报胡.**  A non-dealer whose 10-tile hand is ready (some tile completes its shape) is asked before its first
  draw (:class:`~envs.engine.view.Phase` DECLARE: ``BAOHU`` or ``PASS``; only without melds).  The dealer may play
  ``BAOHU`` as its first action when some discard leaves it ready, and must then make such a discard.  A 报胡 seat
  may not pong; on its turn it may only win, kong when its hand stays ready (also an exposed kong on a discard),
  or discard the drawn tile.  Declining any offered win (self-draw, discard or rob) forfeits winning for the rest
  of the hand.  Its own win scores 报胡 (+``dkg_baohu_win_bonus``); while it has not won, it pays another seat's
  self-draw, and a win on its own discard, with +``dkg_baohu_penalty`` fan (per payer, so a self-draw may cost
  the payers different amounts).  A 报胡 seat cannot 请胡 (``dkg_erheyi`` = true is refused).
* **请胡.**  On its turn a seat without melds and without 报胡 whose eleven tiles are five pairs and one single (four
  of a kind = two pairs) may play ``QINGHU_DISCARD k`` with the single ``k``.  The other seats may only win on it
  (no pong or kong), with any hand, 小胡 included, at +``dkg_qinghu_catch_bonus`` (请胡炮); the requester pays each
  as a discarder and plays on, committed: on each later turn its only actions are a win and the 请胡 of its new
  single.  When nobody wins on the single, the requester wins 请胡 as a self-draw (``WinInfo.how = "qinghu"``; the
  single is the winning tile; every other active seat pays, 报胡 payers with their penalty).
* **小胡.**  A win must score a fan of its own (the scorer refuses ``min_fan``), except on a 报胡 seat's discard and
  on a 请胡 discard (``dkg_xiaohu_exceptions``); with ``dkg_xiaohu_zimo_vs_baohu`` a 小胡 may self-draw when a
  payer declared 报胡, and then only the 报胡 payers pay.
* **Kongs** pay 赔喜 (``kong_payment = "xi_each_1"``, the core's settlement).  The last discard of the wall can only be
  won (``claims_on_last_discard``).
* **查叫** at exhaustion with at least two seats that never won: each of them that is not ready pays each ready one
  that one's best discard-win payment (``chadajiao``).  Ready means some tile makes a legal *discard* win: 小胡-only
  waits, pure 请胡 waits and 素卡 waits do not count; a 报胡 seat's waits are valued with its 报胡 fan; a seat that
  forfeited by passing a win is not ready.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from envs.core.actions import BAOHU, HU, PASS, PONG, Action, ActionType, discard
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS
from envs.engine.variants.base import Rescore, SettledWin, VariantRules, VariantState
from envs.scoring import judge
from envs.scoring.scorer import ScoreResult
from envs.scoring.settlement import Transfer

if TYPE_CHECKING:  # pragma: no cover
    from envs.engine.game import Game

__all__ = ["DuankagenRules", "DuankagenState", "chajiao_transfers", "ready_value", "request_single"]


class DuankagenState(VariantState):
    """报胡 / 请胡 state of one hand."""

    __slots__ = ("baohu", "baohu_discard", "forfeit", "kongs_at_baohu", "qinghu", "qinghu_seat")

    def __init__(self, n: int) -> None:
        self.baohu = [False] * n  # declared 报胡
        self.baohu_discard = False  # the dealer declared 报胡 this turn and owes the discard that keeps it ready
        self.forfeit = [False] * n  # a 报胡 seat that passed a win can no longer win
        self.kongs_at_baohu = [0] * n  # kongs the seat had when it declared (网狐 counts the later ones)
        self.qinghu = [False] * n  # announced 请胡 at least once (committed to the five pairs)
        self.qinghu_seat: int | None = None  # whose 请胡 single is being answered now


def request_single(counts: list[int] | tuple[int, ...]) -> int | None:
    """The single of five pairs + one tile (a four of a kind counts as two pairs), or None for any other hand."""
    if sum(counts) != 11:  # the common answer, without the scan
        return None
    odd = [k for k in range(NUM_KINDS) if counts[k] % 2]
    if len(odd) != 1:
        return None
    return odd[0]


def _ready_after(game: Game, seat: int, removed: dict[int, int], melds: list[Meld]) -> bool:
    """Whether ``seat``'s hand less ``removed`` with ``melds`` waits on some tile (shape)."""
    h = list(game.hands[seat])
    for k, c in removed.items():
        h[k] -= c
    return bool(judge.waits_mask(game.cfg, h, melds, game.void[seat], game.wild_kinds))


class DuankagenRules(VariantRules):
    """断卡根: 报胡, 请胡 and per-payer 报胡 penalties; the scorer enforces the 小胡 rule."""

    name = "duankagen"
    win_rules = True

    def unsupported(self, cfg: RuleConfig) -> list[str]:
        out = []
        if cfg.dkg_erheyi:
            out.append("dkg_erheyi = true (报请胡, the 二合一 rule)")
        if cfg.continuation == "xueliu":
            out.append("continuation = 'xueliu' with a 断卡根 table")
        if cfg.dingque or cfg.wild != "none":
            out.append("定缺 or wildcards with a 断卡根 table")
        return out

    def new_state(self, game: Game) -> DuankagenState:
        return DuankagenState(game.n)

    # ---- 报胡 -------------------------------------------------------------------------------------------------
    def pre_draw(self, game: Game, seat: int) -> bool:
        st: DuankagenState = game.vstate
        st.qinghu_seat = None
        if (
            seat != game.dealer
            and game.first_draw_pending(seat)
            and not st.baohu[seat]
            and not game.melds[seat]
            and game.seat_waits(seat)
        ):
            game.open_declaration(seat)
            return True
        return False

    def declare_actions(self, game: Game, seat: int) -> list[Action]:
        return [BAOHU, PASS]

    def declare_step(self, game: Game, seat: int, action: Action) -> None:
        if action == BAOHU:
            self._declare(game, seat)

    def _declare(self, game: Game, seat: int) -> None:
        st: DuankagenState = game.vstate
        st.baohu[seat] = True
        st.kongs_at_baohu[seat] = sum(m.is_kong for m in game.melds[seat])
        game.emit("baohu", seat=seat)

    # ---- own turn ---------------------------------------------------------------------------------------------
    def self_actions(self, game: Game, seat: int, acts: list[Action]) -> list[Action]:
        st: DuankagenState = game.vstate
        h = game.hands[seat]
        if st.baohu_discard:  # the dealer's 报胡 discard: only discards that keep the hand ready
            return [a for a in acts if a.type == ActionType.DISCARD and _ready_after(game, seat, {a.tile: 1}, [])]
        single = request_single(h) if not game.melds[seat] else None
        if st.qinghu[seat] and single is not None:  # committed: win, or request again
            return [a for a in acts if a == HU] + [Action(ActionType.QINGHU_DISCARD, single)]
        if st.baohu[seat]:
            return [a for a in acts if a == HU or self._baohu_kong_ok(game, seat, a) or a == discard(game.drawn_tile)]
        if (
            seat == game.dealer
            and game.first_action
            and any(a.type == ActionType.DISCARD and _ready_after(game, seat, {a.tile: 1}, []) for a in acts)
        ):
            acts.append(BAOHU)
        if single is not None:
            acts.append(Action(ActionType.QINGHU_DISCARD, single))
        return acts

    def _baohu_kong_ok(self, game: Game, seat: int, a: Action) -> bool:
        """A 报胡 seat's kong keeps the hand ready."""
        if a.type != ActionType.KONG:
            return False
        k = a.tile
        melds = game.melds[seat]
        if game.hands[seat][k] == 4:
            return _ready_after(game, seat, {k: 4}, [*melds, Meld(MeldKind.ANKONG, k)])
        added = [Meld(MeldKind.BUKONG, k) if m.kind is MeldKind.PONG and m.tile == k else m for m in melds]
        return _ready_after(game, seat, {k: 1}, added)

    def before_self_step(self, game: Game, seat: int, action: Action, legal: list[Action]) -> None:
        st: DuankagenState = game.vstate
        if st.baohu[seat] and HU in legal and action != HU:
            self._forfeit(game, seat)
        if action.type == ActionType.DISCARD:
            st.baohu_discard = False

    def _forfeit(self, game: Game, seat: int) -> None:
        st: DuankagenState = game.vstate
        if not st.forfeit[seat]:
            st.forfeit[seat] = True
            game.emit("baohu_forfeit", seat=seat)

    def self_step(self, game: Game, seat: int, action: Action) -> None:
        st: DuankagenState = game.vstate
        if action == BAOHU:  # the dealer, with its first discard
            self._declare(game, seat)
            st.baohu_discard = True
            game.continue_turn(seat)
            return
        assert action.type == ActionType.QINGHU_DISCARD
        st.qinghu[seat] = True
        st.qinghu_seat = seat
        game.play_discard(seat, action.tile, event="qinghu")

    # ---- claims ---------------------------------------------------------------------------------------------
    def meld_options(self, game: Game, q: int, k: int, discarder: int, opts: list[Action]) -> None:
        st: DuankagenState = game.vstate
        if st.qinghu_seat == discarder or st.qinghu[q]:  # a 请胡 single is only won; a requester keeps its pairs
            opts[:] = [a for a in opts if a == HU]
        elif st.baohu[q]:
            if PONG in opts:
                opts.remove(PONG)
            for a in [a for a in opts if a.type == ActionType.KONG]:
                if not _ready_after(game, q, {k: 3}, [*game.melds[q], Meld(MeldKind.KONG, k, from_seat=discarder)]):
                    opts.remove(a)

    def window_resolved(self, game: Game) -> None:
        st: DuankagenState = game.vstate
        for q, opts in game.window_options().items():
            if st.baohu[q] and HU in opts and game.decision_of(q) != HU:
                self._forfeit(game, q)

    def after_unclaimed(self, game: Game, seat: int, k: int) -> bool:
        st: DuankagenState = game.vstate
        if st.qinghu_seat != seat:
            return False
        st.qinghu_seat = None
        game.settle_request_win(seat)
        return True

    # ---- wins -----------------------------------------------------------------------------------------------
    def may_win(self, game: Game, seat: int) -> bool:
        return not game.vstate.forfeit[seat]

    def win_context(self, game: Game, seat: int, how: str, payer: int | None) -> dict[str, Any]:
        st: DuankagenState = game.vstate
        ctx: dict[str, Any] = {"baohu": st.baohu[seat]}
        if st.baohu[seat]:
            later = sum(m.is_kong for m in game.melds[seat]) - st.kongs_at_baohu[seat]
            ctx["kongs_after_baohu"] = min(later, 4)
        if how == "qinghu":
            ctx["qinghu"] = True
        elif payer is not None:
            ctx["payer_baohu"] = st.baohu[payer]
            ctx["on_qinghu_discard"] = how == "dianpao" and st.qinghu_seat == payer
        return ctx

    def self_win_ok(self, game: Game, seat: int, result: ScoreResult, rescore: Rescore) -> bool:
        if result.is_win:
            return True
        if not game.cfg.dkg_xiaohu_zimo_vs_baohu:
            return False
        st: DuankagenState = game.vstate
        payers = [p for p in range(game.n) if p != seat and game.active[p] and st.baohu[p]]
        return bool(payers) and rescore(payer_baohu=True).is_win

    def settle_win(self, game: Game, win: SettledWin) -> list[Transfer]:
        seat, result, payer, feeder = win.seat, win.result, win.payer, win.feeder
        reason = "zimo" if win.how == "qinghu" else win.how
        if payer is not None or (feeder is not None and game.cfg.dianganghua == "dianpao"):
            who = payer if payer is not None else feeder
            assert who is not None
            amount = result.payment if payer is not None else win.rescore(payer_baohu=game.vstate.baohu[who]).payment
            return [Transfer(who, seat, amount, "dianpao" if payer is None else reason)] if amount else []
        st: DuankagenState = game.vstate
        penalised: ScoreResult | None = None
        out = []
        for p in win.active:
            if p == seat:
                continue
            if st.baohu[p]:
                if penalised is None:
                    penalised = win.rescore(payer_baohu=True)
                amount = penalised.payment if penalised.is_win else 0
            else:
                amount = result.payment if result.is_win else 0
            if amount:
                out.append(Transfer(p, seat, amount, reason))
        return out

    def view_fields(self, game: Game, seat: int) -> dict[str, Any]:
        st: DuankagenState = game.vstate
        return {"baohu": tuple(st.baohu), "qinghu": tuple(st.qinghu)}

    # ---- exhaustion -----------------------------------------------------------------------------------------
    def end_transfers(self, game: Game) -> list[Transfer]:
        """查叫: the not-ready seats that never won pay each ready one its best (``chadajiao``) discard-win value."""
        rest = [s for s in range(game.n) if not game.won[s]]
        if len(rest) < 2:
            return []
        st: DuankagenState = game.vstate
        value = {
            s: None
            if st.forfeit[s]
            else ready_value(
                game.cfg, game.hands[s], game.melds[s], game.seat_waits(s), dealer=s == game.dealer, baohu=st.baohu[s]
            )
            for s in rest
        }
        return chajiao_transfers(value)


def ready_value(
    cfg: RuleConfig, hand: Sequence[int], melds: Sequence[Meld], waits: int, *, dealer: bool, baohu: bool
) -> int | None:
    """查叫 value of a seat that has not forfeited: over its shape ``waits`` (a kind bitmask), the payment of a legal
    *discard* win (with its 报胡 fan) — the max, or the min with ``chadajiao = "min"``; None when no wait is one
    (小胡-only, pure 请胡 and 素卡 waits do not count)."""
    payments = []
    for t in range(NUM_KINDS):
        if waits >> t & 1:
            counts = list(hand)
            counts[t] += 1
            r = judge.score(cfg, counts, melds, t, void=None, dealer=dealer, self_drawn=False, baohu=baohu)
            if r.is_win:
                payments.append(r.payment)
    if not payments:
        return None
    return max(payments) if cfg.chadajiao == "max" else min(payments)


def chajiao_transfers(value: dict[int, int | None]) -> list[Transfer]:
    """查叫 payments among the seats that never won (``value``: each one's :func:`ready_value`, None = not ready):
    each seat that is not ready pays each ready one that one's value."""
    out = []
    for p, own in value.items():
        if own is not None:
            continue
        for q, v in value.items():
            if v:
                out.append(Transfer(p, q, v, "chadajiao"))
    return out
