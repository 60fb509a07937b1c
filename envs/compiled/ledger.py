"""The compiled engine's money (账本): kong payments, wins and the end of hand, settled in Python.

The kernel records what happened (:mod:`envs.compiled.kernel` ``EV_*`` events); a :class:`Ledger` per hand turns
each event into transfers with the functions the Python engine calls at the same point
(:func:`envs.scoring.judge.score`, :mod:`envs.scoring.settlement`), keeps the kong payment records for 呼叫转移 and
退税, and writes the scores back into the state row, where the observation reads them.  Events are rare (a few per
hand), so this costs little next to the decisions — except the scorer itself (红中 hands: every wildcard reading), so
where
:class:`envs.compiled.score.CompiledScorer` covers the configuration (the ``chengdu``, ``hongzhong`` and
``mahjongsoul`` fan tables) a win's payment and a ready hand's 查大叫 value come from its numba functions (equal to
the Python ones, see ``tests/compiled/test_compiled_score.py``); other configurations keep calling the Python scorer.
On a 断卡根 table it prices each payer as ``DuankagenRules.settle_win`` does (报胡 penalties) and settles 查叫 as its
``end_transfers``, with :class:`envs.compiled.score_dkg.CompiledDkgScorer` where that covers the configuration.
:func:`win_verdict` is the Python scorer's verdict the kernel asks for a configuration no compiled scorer covers.
"""

from __future__ import annotations

import numpy as np

from envs.compiled import config_numbers
from envs.compiled import kernel as K
from envs.compiled import win_check as H
from envs.compiled.layout import (
    BANKRUPT,
    BAOHU,
    CONT,
    DEALER,
    FORFEIT,
    HANDS,
    INDICATOR,
    LAIZI_KONGS,
    MAX_MELDS,
    MELD_CLAIMED,
    MELD_FIELDS,
    MELD_WILDS,
    MELDS,
    NK,
    NP,
    NUM_MELDS,
    RED_KONGS,
    SCORES,
    SHOWN_WIN_TILES,
    VOID,
    WIN_TILES,
    WON,
)
from envs.compiled.score import NOT_READY, CompiledScorer
from envs.compiled.score_dkg import CompiledDkgScorer
from envs.compiled.score_wuhan import WF_QUAN_QIU_REN, CompiledWuhanScorer
from envs.compiled.score_yibin import NOT_READY as YIBIN_NOT_READY
from envs.compiled.score_yibin import CompiledYibinScorer
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import DKG_TABLES, RuleConfig
from envs.engine.variants.duankagen import chajiao_transfers
from envs.engine.variants.duankagen import ready_value as dkg_ready_value
from envs.scoring import judge
from envs.scoring.scorer import ScoreResult, winning_tiles
from envs.scoring.settlement import (
    KONG_REASONS,
    KongPayment,
    PlayerEnd,
    Transfer,
    call_transfer,
    kong_transfers,
    paid_as_discard,
    ready_value,
    score_final,
    settle_end_of_hand,
    win_transfers,
)
from envs.scoring.wuhan_settlement import WuhanSide, wuhan_settlement

_MELD_KIND = {
    1: MeldKind.PONG,
    2: MeldKind.KONG,
    3: MeldKind.ANKONG,
    4: MeldKind.BUKONG,
    5: MeldKind.FEI,
    6: MeldKind.CHI,
}
_KONG_TYPE = {2: "zhigang", 3: "angang", 4: "bugang"}
_KONG_PAY_REASONS = frozenset(KONG_REASONS.values())
_HOW = {
    K.HOW_ZIMO: "zimo",
    K.HOW_DIANPAO: "dianpao",
    K.HOW_QIANGGANG: "qianggang",
    K.HOW_INSTANT: "instant",
    K.HOW_QINGHU: "qinghu",
}
_SELF_DRAWN = (K.HOW_ZIMO, K.HOW_INSTANT, K.HOW_QINGHU)


Scorer = CompiledScorer | CompiledDkgScorer | CompiledYibinScorer | CompiledWuhanScorer
_SCORERS: dict[int, tuple[RuleConfig, Scorer | None]] = {}


def _scorer(cfg: RuleConfig) -> Scorer | None:
    """The compiled scorer of ``cfg`` (:class:`CompiledDkgScorer` for a 断卡根 table, :class:`CompiledYibinScorer`
    for 宜宾's, :class:`CompiledWuhanScorer` for 武汉's), None where none covers it; memoised on the configuration
    object (a ledger is made per hand)."""
    hit = _SCORERS.get(id(cfg))
    if hit is None or hit[0] is not cfg:
        if len(_SCORERS) >= 64:
            _SCORERS.clear()
        kind: type[Scorer] = CompiledScorer
        if cfg.fan_table in DKG_TABLES:
            kind = CompiledDkgScorer
        elif cfg.fan_table == "yibin":
            kind = CompiledYibinScorer
        elif cfg.fan_table == "wuhan":
            kind = CompiledWuhanScorer
        hit = _SCORERS[id(cfg)] = (cfg, kind.for_config(cfg))  # holds cfg: its id is not reused
    return hit[1]


def _situation(cfg: RuleConfig, ev: np.ndarray) -> dict[str, bool | int]:
    """The :func:`envs.scoring.judge.score` context of a win event: ``Game._context`` (+ ``paid_as_discard`` of a
    点杠花) and, on a 断卡根 table, ``DuankagenRules.win_context``."""
    how, flags = int(ev[K.E_HOW]), int(ev[K.E_FLAGS])
    robbing = how == K.HOW_QIANGGANG
    feeder = int(ev[K.E_FEEDER])
    if how == K.HOW_QINGHU:  # 请胡: a self-draw without 天胡 / 地胡 / 杠上开花
        situation: dict[str, bool | int] = {
            "self_drawn": True, "robbing_kong": False, "after_kong": False, "tianhu": False, "dihu": False,
            "last_tile": bool(flags & K.F_LAST_TILE), "paid_as_discard": False,
        }  # fmt: skip
    else:
        situation = {
            "self_drawn": how in _SELF_DRAWN,
            "robbing_kong": robbing,
            "after_kong": not robbing and bool(flags & K.F_AFTER_KONG),
            "last_tile": not robbing and bool(flags & K.F_LAST_TILE),
            "tianhu": not robbing and bool(flags & K.F_TIANHU),
            "dihu": not robbing and bool(flags & K.F_DIHU),
            "paid_as_discard": how == K.HOW_ZIMO and paid_as_discard(cfg, "zimo", None if feeder < 0 else feeder),
        }
    if cfg.wild in ("tingyong", "laizi"):  # YibinRules / WuhanRules.win_context
        situation["indicator"] = int(ev[K.E_INDICATOR])
    if cfg.fan_table == "wuhan":
        situation["red_kongs"] = int(ev[K.E_RED_KONGS])
        situation["laizi_kongs"] = int(ev[K.E_LAIZI_KONGS])
    if cfg.fan_table in DKG_TABLES:
        vf = int(ev[K.E_VFLAGS])
        situation["baohu"] = bool(vf & K.VF_BAOHU)
        if vf & K.VF_BAOHU:
            situation["kongs_after_baohu"] = int(ev[K.E_KAB])
        if how == K.HOW_QINGHU:
            situation["qinghu"] = True
        elif int(ev[K.E_PAYER]) >= 0:
            situation["payer_baohu"] = bool(vf & K.VF_PAYER_BAOHU)
            situation["on_qinghu_discard"] = bool(vf & K.VF_ON_QINGHU)
    return situation


def _judge(cfg: RuleConfig, ev: np.ndarray, tile: int, **overrides: bool) -> ScoreResult:
    """``Game._score_on`` with the Python scorer, from a win event (``overrides`` replace context fields)."""
    counts = ev[K.E_COUNTS : K.E_COUNTS + NK].tolist()
    n = int(ev[K.E_NUM_MELDS])
    melds = _melds(ev[K.E_MELDS : K.E_MELDS + MELD_FIELDS * n].tolist(), ev[K.E_MELD_WILDS : K.E_MELD_WILDS + 2 * n])
    void = int(ev[K.E_VOID])
    seat, dealer = int(ev[K.E_SEAT]), int(ev[K.E_DEALER])
    ctx = {**_situation(cfg, ev), **overrides}
    return judge.score(cfg, counts, melds, tile, void=None if void < 0 else void, dealer=seat == dealer, **ctx)


def win_value(cfg_id: int, ev: np.ndarray) -> int:
    """-1 when the win of event row ``ev`` (its shape complete) is not legal, else its doublings (``doublings or
    0``) — ``Game``'s ``win_rules`` path: the scorer accepts it, or (``DuankagenRules.self_win_ok``,
    ``dkg_xiaohu_zimo_vs_baohu``) a 小胡 self-draw scores against a payer who declared 报胡.  The compiled kernel
    asks it (``kernel.win_value``) with the number of :mod:`envs.compiled.config_numbers`."""
    cfg = config_numbers.config(cfg_id)
    tile = int(ev[K.E_TILE])
    r = _judge(cfg, ev, tile)
    if r.is_win:
        return r.doublings or 0
    if int(ev[K.E_HOW]) in _SELF_DRAWN and cfg.fan_table in DKG_TABLES and cfg.dkg_xiaohu_zimo_vs_baohu:
        others = int(ev[K.E_BAOHU]) & int(ev[K.E_ACTIVE]) & ~(1 << int(ev[K.E_SEAT]))
        if others and _judge(cfg, ev, tile, payer_baohu=True).is_win:
            return 0
    return -1


def win_verdict(cfg_id: int, ev: np.ndarray) -> bool:
    """Whether the win of event row ``ev`` is legal (:func:`win_value` >= 0)."""
    return win_value(cfg_id, ev) >= 0


def _seats(mask: int) -> list[int]:
    return [q for q in range(NP) if mask >> q & 1]  # a smaller table's empty slots are never set


def _melds(values: list[int], wilds: np.ndarray | None = None, claimed: np.ndarray | None = None) -> tuple[Meld, ...]:
    """Melds from ``(kind, tile, from_seat)`` triples (a plain list of ints; ``Game`` builds them the same way), for
    飞 melds the pairs of their 听用 kinds (``wilds``: 2 entries per meld, -1 for none), for 吃 melds their claimed
    kinds when known (``claimed``: one per meld)."""
    out = []
    for i in range(0, len(values), MELD_FIELDS):
        kind, tile, src = values[i : i + MELD_FIELDS]
        if kind == 5:  # 飞
            j = 2 * (i // MELD_FIELDS)
            assert wilds is not None
            wk = tuple(int(w) for w in wilds[j : j + 2] if w >= 0)
            out.append(Meld(MeldKind.FEI, tile, len(wk), None if src < 0 else src, wk))
        elif kind == 6 and claimed is not None:  # 吃
            out.append(Meld(MeldKind.CHI, tile, from_seat=None if src < 0 else src, claimed=int(claimed[i // 3])))
        else:
            out.append(Meld(_MELD_KIND[kind], tile, from_seat=None if src < 0 else src))
    return tuple(out)


class Ledger:
    """Scores and kong payment records of one hand of the compiled engine."""

    __slots__ = (
        "cfg",
        "dkg",
        "kong_events",
        "kong_payments",
        "match_points",
        "scorer",
        "scores",
        "table",
        "transfers",
    )

    def __init__(self, cfg: RuleConfig, table: np.ndarray) -> None:
        self.cfg = cfg
        self.dkg = cfg.fan_table in DKG_TABLES  # 断卡根 pricing (per payer) and 查叫
        self.scorer = _scorer(cfg)  # None: the Python scorer and settlement
        self.table = table  # the kernel's win table (support.win_table)
        self.scores = [0] * cfg.num_players
        self.kong_payments: list[KongPayment] = []
        self.kong_events: list[list[int]] = []  # per kong event: indices into kong_payments
        self.transfers: list[Transfer] | None = None  # a list: every transfer is appended (the AEC env's infos)
        self.match_points = [cfg.start_points] * cfg.num_players  # each seat's match total before the hand

    def __getstate__(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        config_numbers.number(self.cfg)  # the kernel may ask this process's Python scorer about it (kernel.win_ok)

    def copy(self) -> Ledger:
        """A copy of this hand's ledger that shares nothing mutable with it (a branch of the hand)."""
        new = object.__new__(type(self))
        for name in Ledger.__slots__:
            setattr(new, name, getattr(self, name))
        new.scores = list(self.scores)
        new.kong_payments = list(self.kong_payments)
        new.kong_events = [list(e) for e in self.kong_events]
        new.transfers = None if self.transfers is None else list(self.transfers)
        new.match_points = list(self.match_points)
        return new

    def _apply(self, tr: Transfer) -> None:
        self.scores[tr.payer] -= tr.amount
        self.scores[tr.receiver] += tr.amount
        if self.transfers is not None:
            self.transfers.append(tr)

    def _settle_events(self, row: np.ndarray, events: np.ndarray, count: int) -> None:
        """Settle the first ``count`` events of ``events`` in order and write the scores into ``row``."""
        for j in range(count):
            ev = events[j]
            kind = ev[K.E_TYPE]
            if kind == K.EV_KONG:
                self._kong(ev)
            elif kind == K.EV_WIN:
                self._win(row, ev)
            elif kind == K.EV_CALL:
                self._call(ev)
            elif kind == K.EV_END:
                if ev[K.E_HOW]:
                    self._exhausted(row)
                # Game.bankrupt: a seat below zero when the hand ends (a payment in play ends the hand at once; the
                # draw's 查花猪 / 查大叫 / 退税 settle together)
                row[BANKRUPT] = self.bankrupt()
        row[SCORES : SCORES + len(self.scores)] = self.scores

    def settle(self, row: np.ndarray, events: np.ndarray, counts: np.ndarray, rules: np.ndarray) -> None:
        """Settle the ``counts[0]`` events the kernel recorded for ``row``; where it stopped after a payment
        (``start_points > 0``: ``kernel.stop``), end the hand if a seat went bankrupt, else let the kernel go on —
        until it stops no more (``counts`` is the one-element count of the row's event buffer ``events``)."""
        while True:
            n = int(counts[0])
            counts[0] = 0
            if n:
                self._settle_events(row, events, n)
            if not row[CONT]:
                return
            if self.bankrupt():
                K.end_bankrupt(row, events, counts)
            else:
                K.resume(row, rules, self.table, events, counts)

    def bankrupt(self) -> bool:
        """``Game._below_zero``: some seat's points (its match total before the hand plus this hand's score) are below
        zero, in a points match (``start_points > 0``)."""
        return self.cfg.start_points > 0 and any(p + score < 0 for p, score in zip(self.match_points, self.scores))

    def _kong(self, ev: np.ndarray) -> None:
        """``Game._pay_kong``."""
        feeder = int(ev[K.E_FEEDER])
        records = []
        for tr in kong_transfers(
            self.cfg,
            int(ev[K.E_SEAT]),
            _KONG_TYPE[int(ev[K.E_HOW])],
            active=_seats(int(ev[K.E_ACTIVE])),
            discarder=None if feeder < 0 else feeder,
            immediate=bool(ev[K.E_FLAGS]),
        ):
            if tr.reason in _KONG_PAY_REASONS:
                self.kong_payments.append(KongPayment(tr.receiver, tr.payer, tr.amount))
                records.append(len(self.kong_payments) - 1)
            self._apply(tr)
        self.kong_events.append(records)

    def _score(self, ev: np.ndarray, tile: int) -> tuple[bool, int, int]:
        """``Game._score_on`` from the event's snapshot of the winner: ``(is_win, payment, doublings)``."""
        if isinstance(self.scorer, CompiledScorer):
            return self.scorer.score(
                ev[K.E_COUNTS : K.E_COUNTS + NK],
                ev[K.E_MELDS : K.E_MELDS + MELD_FIELDS * MAX_MELDS],
                int(ev[K.E_NUM_MELDS]),
                tile,
                void=int(ev[K.E_VOID]),
                **_situation(self.cfg, ev),  # type: ignore[arg-type]
            )
        if isinstance(self.scorer, CompiledYibinScorer):
            return self.scorer.score(
                ev[K.E_COUNTS : K.E_COUNTS + NK],
                ev[K.E_MELDS : K.E_MELDS + MELD_FIELDS * MAX_MELDS],
                ev[K.E_MELD_WILDS : K.E_MELD_WILDS + 2 * MAX_MELDS],
                int(ev[K.E_NUM_MELDS]),
                tile,
                void=int(ev[K.E_VOID]),
                **_situation(self.cfg, ev),  # type: ignore[arg-type]
            )
        r = _judge(self.cfg, ev, tile)
        return r.is_win, r.payment, r.doublings or 0

    def _priced(self, doublings: int) -> None:
        """A hook: the win being settled was priced with ``doublings`` (what ``Game.wins`` records; 断卡根: the price
        with the event's own 报胡, not a per-payer repricing); nothing to keep here."""

    def _win(self, row: np.ndarray, ev: np.ndarray) -> None:
        """``Game._settle_self_draw`` (自摸, four 红中, 请胡) / ``Game._discard_wins`` (one winner)."""
        cfg = self.cfg
        seat, how, tile = int(ev[K.E_SEAT]), int(ev[K.E_HOW]), int(ev[K.E_TILE])
        if tile < 0:  # 天胡 without a drawn tile: the best tile of the hand (Game._self_win_choice)
            best = None
            for k in range(NK):
                if ev[K.E_COUNTS + k]:
                    is_win, payment, doublings = self._score(ev, k)
                    if is_win and (best is None or (payment, doublings) > best[0]):
                        best = ((payment, doublings), k)
            assert best is not None, "HU was offered without a winning self-draw"
            tile = best[1]
            row[HANDS + seat * NK + tile] -= 1
            row[SHOWN_WIN_TILES + tile] += 1
            row[WIN_TILES + seat * NK + tile] += 1
        if self.dkg:
            trs = self._dkg_transfers(ev, tile)
        elif cfg.fan_table == "wuhan":
            trs = self._wuhan_transfers(row, ev, tile)
        else:
            is_win, payment, doublings = self._score(ev, tile)
            assert is_win, f"seat {seat}: a win on {tile} that the scorer refuses"
            self._priced(doublings)
            payer = int(ev[K.E_PAYER])
            if payer >= 0:
                trs = win_transfers(cfg, seat, _HOW[how], payment, discarder=payer)
            else:
                feeder = int(ev[K.E_FEEDER])
                trs = win_transfers(
                    cfg,
                    seat,
                    _HOW[how],
                    payment,
                    active=_seats(int(ev[K.E_ACTIVE])),
                    kong_discarder=None if feeder < 0 else feeder,
                )
        for tr in trs:
            self._apply(tr)

    def _wuhan_transfers(self, row: np.ndarray, ev: np.ndarray, tile: int) -> list[Transfer]:
        """``WuhanRules.settle_win``: each of the three others pays
        :func:`envs.scoring.wuhan_settlement.wuhan_settlement` of the win, their own factors (melds, 红中杠 / 赖子杠,
        dealer) from the row, 放冲 / 抢杠 and the 承包 facts from the win (:class:`CompiledWuhanScorer` where it covers
        the configuration, else the Python scorer and settlement)."""
        cfg = self.cfg
        seat, how, payer = int(ev[K.E_SEAT]), int(ev[K.E_HOW]), int(ev[K.E_PAYER])
        losers = [p for p in range(cfg.num_players) if p != seat]
        winner_melds = self._row_melds(row, seat)
        opened = [m for m in winner_melds if not m.is_concealed]
        third_from = opened[2].from_seat if len(opened) >= 3 else None
        indicator = int(row[INDICATOR])
        scorer = self.scorer
        if isinstance(scorer, CompiledWuhanScorer):
            ok, mult, dbl, flags = scorer.score(
                ev[K.E_COUNTS : K.E_COUNTS + NK],
                ev[K.E_MELDS : K.E_MELDS + MELD_FIELDS * MAX_MELDS],
                int(ev[K.E_NUM_MELDS]),
                tile,
                indicator=int(ev[K.E_INDICATOR]),
                self_drawn=how in _SELF_DRAWN,
                robbing_kong=how == K.HOW_QIANGGANG,
                after_kong=how != K.HOW_QIANGGANG and bool(int(ev[K.E_FLAGS]) & K.F_AFTER_KONG),
                last_tile=how in _SELF_DRAWN and bool(int(ev[K.E_FLAGS]) & K.F_LAST_TILE),
                red_kongs=int(ev[K.E_RED_KONGS]),
                laizi_kongs=int(ev[K.E_LAIZI_KONGS]),
                is_dealer=seat == int(ev[K.E_DEALER]),
            )
            assert ok, f"seat {seat}: a win on {tile} that the scorer refuses"
            qqr = bool(flags & WF_QUAN_QIU_REN)
            self._priced(int(dbl))
        else:
            result = _judge(cfg, ev, tile)
            assert result.is_win, f"seat {seat}: a win on {tile} that the scorer refuses ({result.reason})"
            qqr = "quan_qiu_ren" in result.breakdown
            self._priced(result.doublings or 0)
        sides = []
        for p in losers:
            melds = self._row_melds(row, p)
            discarded = how == K.HOW_DIANPAO and p == payer
            ready = True
            if discarded and qqr:  # 承包 of a 全求人 falls on a dealer-in who was not ready
                hand = row[HANDS + p * NK : HANDS + (p + 1) * NK].tolist()
                ready = bool(winning_tiles(cfg, hand, melds, indicator=indicator))
            sides.append(
                WuhanSide(
                    melds=melds,
                    red_kongs=min(int(row[RED_KONGS + p]), 4),
                    laizi_kongs=min(int(row[LAIZI_KONGS + p]), 4),
                    is_dealer=p == int(row[DEALER]),
                    discarded=discarded,
                    kong_robbed=how == K.HOW_QIANGGANG and p == payer,
                    ready=ready,
                    fed_third_meld=third_from == p,
                )
            )
        if isinstance(scorer, CompiledWuhanScorer):
            amounts = scorer.settle_sides(mult, dbl, flags, sides)
        else:
            amounts = wuhan_settlement(cfg, result, sides)
        return [Transfer(p, seat, a, _HOW[how]) for p, a in zip(losers, amounts) if a]

    @staticmethod
    def _row_melds(row: np.ndarray, q: int) -> tuple[Meld, ...]:
        """Seat ``q``'s melds as ``Game`` holds them (飞 with their 听用, 吃 with their claimed tile)."""
        n = int(row[NUM_MELDS + q])
        base = MELDS + q * MAX_MELDS * MELD_FIELDS
        wilds = MELD_WILDS + q * MAX_MELDS * 2
        claimed = MELD_CLAIMED + q * MAX_MELDS
        return _melds(
            row[base : base + n * MELD_FIELDS].tolist(), row[wilds : wilds + 2 * n], row[claimed : claimed + n]
        )

    def _dkg_transfers(self, ev: np.ndarray, tile: int) -> list[Transfer]:
        """``DuankagenRules.settle_win``: the payer of a discard win (or of a 点杠花 paid as a discard) pays the win
        priced with its own 报胡; on a self-draw (请胡 included) each other active seat pays, a 报胡 seat with its
        penalty."""
        cfg = self.cfg
        seat, how = int(ev[K.E_SEAT]), int(ev[K.E_HOW])
        payer, feeder = int(ev[K.E_PAYER]), int(ev[K.E_FEEDER])
        baohu = int(ev[K.E_BAOHU])
        is_win, payment = self._dkg_price(ev, tile, -1)
        assert is_win or win_verdict(config_numbers.number(cfg), ev), f"seat {seat}: a win the scorer refuses"
        reason = "zimo" if how == K.HOW_QINGHU else _HOW[how]
        if payer >= 0 or (feeder >= 0 and cfg.dianganghua == "dianpao"):
            who = payer if payer >= 0 else feeder
            amount = payment if payer >= 0 else self._dkg_price(ev, tile, baohu >> who & 1)[1]
            return [Transfer(who, seat, amount, reason if payer >= 0 else "dianpao")] if amount else []
        penalised: tuple[bool, int] | None = None
        out = []
        for p in _seats(int(ev[K.E_ACTIVE])):
            if p == seat:
                continue
            if baohu >> p & 1:
                if penalised is None:
                    penalised = self._dkg_price(ev, tile, 1)
                amount = penalised[1] if penalised[0] else 0
            else:
                amount = payment if is_win else 0
            if amount:
                out.append(Transfer(p, seat, amount, reason))
        return out

    def _dkg_price(self, ev: np.ndarray, tile: int, payer_baohu: int) -> tuple[bool, int]:
        """``(is_win, payment)`` of a 断卡根 win event, the payer's 报胡 from the event (``payer_baohu`` -1) or
        replaced (0 / 1): the compiled 断卡根 scorer (``kernel.dkg_score_event``) where it covers the table."""
        scorer = self.scorer
        if isinstance(scorer, CompiledDkgScorer):
            ok, pay, fan = K.dkg_score_event(ev, tile, payer_baohu, self.cfg.dianganghua == "dianpao", scorer.rules,
                                             *scorer.work)  # fmt: skip
            if payer_baohu < 0:
                self._priced(int(fan))
            return bool(ok), int(pay)
        r = _judge(self.cfg, ev, tile) if payer_baohu < 0 else _judge(self.cfg, ev, tile, payer_baohu=payer_baohu == 1)
        if payer_baohu < 0:
            self._priced(r.doublings or 0)
        return r.is_win, r.payment

    def _call(self, ev: np.ndarray) -> None:
        """呼叫转移 of the payer's kongs of that turn (``Game._discard_wins``)."""
        payer, turn_kongs = int(ev[K.E_PAYER]), int(ev[K.E_COUNT])
        n = self.cfg.num_players
        winners = [(payer + i) % n for i in range(1, n) if int(ev[K.E_ACTIVE]) >> ((payer + i) % n) & 1]
        indices = [i for rec in self.kong_events[len(self.kong_events) - turn_kongs :] for i in rec]
        income = [self.kong_payments[i] for i in indices]
        if not income:
            return
        moved = call_transfer(self.cfg, payer, winners, income)
        for tr in moved:
            self._apply(tr)
        if moved:
            for i in indices:
                self.kong_payments[i] = self.kong_payments[i].transferred_copy()

    def _exhausted(self, row: np.ndarray) -> None:
        """查花猪 / 查大叫 / 退税 (``VariantRules.end_transfers``): the standings of the seats that never won by
        :func:`hand.is_pig` (``envs.scoring.settlement.is_pig`` on the row) and
        :func:`envs.scoring.settlement.ready_value`, asked only of the seats the kernel cannot rule out
        (:func:`hand.may_be_ready`, by :func:`hand.ready_candidates`), then
        :func:`envs.scoring.settlement.settle_end_of_hand` — what :func:`envs.scoring.settlement.end_of_hand_transfers`
        does."""
        cfg, table = self.cfg, self.table
        rest = [q for q in range(cfg.num_players) if not row[WON + q]]
        if len(rest) < 2 or cfg.fan_table == "wuhan":  # WuhanRules.end_transfers: a drawn hand pays nothing
            return
        if self.dkg:
            self._dkg_chajiao(row, rest)
            return
        pig: dict[int, bool] = {}
        value: dict[int, int | None] = {}
        dingque, three_suits = cfg.dingque, cfg.huazhu_definition == "three_suits"
        candidates = H.ready_candidates(row, sum(1 << q for q in rest), table)
        for q in rest:
            pig[q] = dingque and bool(H.is_pig(row, q, three_suits))
            if pig[q] or not candidates >> q & 1:
                value[q] = None
                continue
            value[q] = self._ready(row, q)
        for tr in settle_end_of_hand(cfg, rest, pig, value, self.kong_payments):
            self._apply(tr)

    def _dkg_chajiao(self, row: np.ndarray, rest: list[int]) -> None:
        """``DuankagenRules.end_transfers`` (查叫): each seat of ``rest`` that is not ready pays each ready one that
        one's best (``chadajiao``) discard-win payment — with its 报胡 fan; a seat that forfeited is not ready.  Only
        the seats the kernel cannot rule out (:func:`hand.may_be_ready`) are valued."""
        value: dict[int, int | None] = dict.fromkeys(rest)
        candidates = H.ready_candidates(row, sum(1 << q for q in rest if not row[FORFEIT + q]), self.table)
        for q in rest:
            if candidates >> q & 1:
                value[q] = self._dkg_ready(row, q)
        for tr in chajiao_transfers(value):
            self._apply(tr)

    def _dkg_ready(self, row: np.ndarray, q: int) -> int | None:
        """:func:`envs.engine.variants.duankagen.ready_value` of seat ``q`` (not forfeited): the compiled ``ready_dkg``
        where it covers the configuration."""
        scorer = self.scorer
        base = MELDS + q * MAX_MELDS * MELD_FIELDS
        n_melds = int(row[NUM_MELDS + q])
        if isinstance(scorer, CompiledDkgScorer):
            v = scorer.ready(
                row[HANDS + q * NK : HANDS + (q + 1) * NK], row[base : base + MAX_MELDS * MELD_FIELDS], n_melds,
                bool(row[BAOHU + q]),
            )  # fmt: skip
            return None if v < 0 else v
        return dkg_ready_value(
            self.cfg,
            row[HANDS + q * NK : HANDS + (q + 1) * NK].tolist(),
            _melds(row[base : base + MELD_FIELDS * n_melds].tolist()),
            int(H.waits_mask(row, q, self.table)),
            dealer=q == int(row[DEALER]),
            baohu=bool(row[BAOHU + q]),
        )

    def _ready(self, row: np.ndarray, q: int) -> int | None:
        """:func:`envs.scoring.settlement.ready_value` of seat ``q`` (the compiled one where it covers the hand)."""
        if isinstance(self.scorer, CompiledScorer):
            n = int(row[NUM_MELDS + q])
            base = MELDS + q * MAX_MELDS * MELD_FIELDS
            value = self.scorer.ready(
                row[HANDS + q * NK : HANDS + (q + 1) * NK], row[base : base + MAX_MELDS * MELD_FIELDS], n,
                int(row[VOID + q]),
            )  # fmt: skip
            return None if value == NOT_READY else value
        if isinstance(self.scorer, CompiledYibinScorer):
            n = int(row[NUM_MELDS + q])
            base = MELDS + q * MAX_MELDS * MELD_FIELDS
            wilds = MELD_WILDS + q * MAX_MELDS * 2
            value = self.scorer.ready(
                row[HANDS + q * NK : HANDS + (q + 1) * NK], row[base : base + MAX_MELDS * MELD_FIELDS],
                row[wilds : wilds + MAX_MELDS * 2], n, int(row[VOID + q]), int(row[INDICATOR]),
            )  # fmt: skip
            return None if value == YIBIN_NOT_READY else value
        return ready_value(self.cfg, self._player_end(row, q))

    @staticmethod
    def _player_end(row: np.ndarray, q: int) -> PlayerEnd:
        void = int(row[VOID + q])
        indicator = int(row[INDICATOR])
        return PlayerEnd(
            seat=q,
            won_ever=bool(row[WON + q]),
            concealed=tuple(row[HANDS + q * NK : HANDS + (q + 1) * NK].tolist()),
            melds=Ledger._row_melds(row, q),
            void_suit=None if void < 0 else void,
            indicator=None if indicator < 0 else indicator,
        )

    def score_final(self, seat: int, won: np.ndarray) -> bool:
        """Whether ``seat``, out of the hand, can no longer gain or lose points (``settlement.score_final``)."""
        return score_final(self.cfg, seat, self.kong_payments, won)
