"""The win situation (和牌情形): :class:`WinContext`, one candidate win as the engine knows it (RULES.md §10).

It is what :func:`envs.scoring.scorer.score_win` scores and what every fan predicate of :mod:`envs.scoring.patterns`
reads (``PatternContext.win``); :mod:`envs.scoring.scorer` re-exports it.  :func:`check_flags` and
:func:`check_dkg_flags` validate the situation flags (also used by the string API, before it builds a context).
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.core.melds import Meld
from envs.core.tiles import COPIES, NUM_KINDS, tile_code


@dataclass(frozen=True, slots=True)
class WinContext:
    """One candidate win, as the engine knows it.

    ``concealed``: 34 physical counts of the concealed hand **including the winning tile** (wildcard tiles counted
    under their own kind, e.g. 红中 at 31).  ``melds``: the player's melds.  ``win_tile``: the winning kind.
    ``self_drawn``, ``after_kong``, ``robbing_kong``, ``last_tile``: the situation flags of RULES.md §10.
    ``void_suit``: declared void suit 0/1/2 (万/筒/条) or None.  ``indicator``: the flipped indicator tile — the
    Yibin 本金 (its rank neighbours are the 听用) or the Wuhan 赖子 indicator (its successor is the 赖子,
    :func:`envs.scoring.wuhan_settlement.laizi_of`).  ``tianhu``/``dihu``: 天胡/地胡 (engine decides).  ``juezhang``:
    和绝张 (the other three copies are visible; engine decides).  ``is_dealer``: the winner is the dealer (Wuhan: x2 on
    a small win). ``paid_as_discard``: a self-drawn win settled as a discard win (点杠花 with ``dianganghua =
    "dianpao"``): no self-draw bonus.

    断卡根 (``dkg_*`` tables): ``baohu`` the winner declared 报胡; ``qinghu`` the win is a successful 请胡 (a
    self-draw: ``concealed`` holds the eleven tiles before the single is discarded — five pairs and that single);
    ``on_qinghu_discard`` the win is on a 请胡 player's discarded single (请胡炮); ``payer_baohu`` the payer being
    priced declared 报胡 (+``dkg_baohu_penalty`` fan on that payer's payment; on a discard win the payer is the
    discarder); ``kongs_after_baohu`` kongs the winner declared after 报胡 (网狐 table).  Wuhan: ``red_kongs`` /
    ``laizi_kongs`` the winner's 红中杠 / 赖子杠 this hand; ``last_tile`` + ``self_drawn`` = a draw of the 海底 phase.
    """

    concealed: tuple[int, ...]
    win_tile: int
    melds: tuple[Meld, ...] = ()
    self_drawn: bool = False
    after_kong: bool = False
    robbing_kong: bool = False
    last_tile: bool = False
    void_suit: int | None = None
    indicator: int | None = None
    tianhu: bool = False
    dihu: bool = False
    juezhang: bool = False
    is_dealer: bool = False
    paid_as_discard: bool = False
    baohu: bool = False
    qinghu: bool = False
    on_qinghu_discard: bool = False
    payer_baohu: bool = False
    kongs_after_baohu: int = 0
    red_kongs: int = 0
    laizi_kongs: int = 0

    def __post_init__(self) -> None:
        counts = tuple(self.concealed)
        if len(counts) != NUM_KINDS:
            raise ValueError(f"WinContext.concealed must be 34 counts, got {len(counts)}")
        if any(not 0 <= c <= COPIES + 1 for c in counts):
            raise ValueError(f"WinContext.concealed counts must be 0-4, got {counts}")
        object.__setattr__(self, "concealed", counts)
        object.__setattr__(self, "melds", tuple(self.melds))
        if not isinstance(self.win_tile, int) or not 0 <= self.win_tile < NUM_KINDS:
            raise ValueError(f"win_tile must be a kind 0-33, got {self.win_tile!r}")
        if counts[self.win_tile] < 1:
            raise ValueError(f"the concealed counts must include the winning tile {tile_code(self.win_tile)}")
        if self.void_suit not in (None, 0, 1, 2):
            raise ValueError(f"void_suit must be 0, 1, 2 or None, got {self.void_suit!r}")
        check_flags(self.self_drawn, self.after_kong, self.robbing_kong, self.last_tile)
        if self.tianhu and self.dihu:
            raise ValueError("a win cannot be both 天胡 (tianhu) and 地胡 (dihu)")
        check_dkg_flags(self.self_drawn, self.robbing_kong, self.qinghu, self.on_qinghu_discard)
        for name in ("kongs_after_baohu", "red_kongs", "laizi_kongs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= COPIES:
                raise ValueError(f"WinContext.{name} must be an integer 0-4, got {value!r}")
        if self.kongs_after_baohu and not self.baohu:
            raise ValueError("kongs_after_baohu needs baohu: only a 报胡 player has kongs after 报胡")


def check_flags(self_drawn: bool, after_kong: bool, robbing_kong: bool, last_tile: bool) -> None:
    """The situation flags of §10 that contradict each other (抢杠 with 自摸, 杠后 or 海底): ``ValueError``."""
    if robbing_kong and self_drawn:
        raise ValueError("robbing_kong contradicts self_drawn: a robbed kong tile is not drawn by the winner")
    if robbing_kong and after_kong:
        raise ValueError(
            "robbing_kong contradicts after_kong: the robbed tile is neither a kong replacement nor a kong discard"
        )
    if robbing_kong and last_tile:
        raise ValueError("robbing_kong contradicts last_tile: no kong may be declared once the wall is empty")


def check_dkg_flags(self_drawn: bool, robbing_kong: bool, qinghu: bool, on_qinghu_discard: bool) -> None:
    """断卡根 请胡 flags that contradict the situation (请胡 is a self-draw, 请胡炮 a discard win): ``ValueError``."""
    if qinghu and not self_drawn:
        raise ValueError("qinghu (a successful 请胡) is a self-draw win: set self_drawn=True")
    if on_qinghu_discard and (self_drawn or robbing_kong):
        raise ValueError("on_qinghu_discard wins on the 请胡 player's discard: it contradicts self_drawn/robbing_kong")
    if qinghu and on_qinghu_discard:
        raise ValueError("qinghu (the requester's win) contradicts on_qinghu_discard (another player's catch)")


__all__ = ["WinContext", "check_dkg_flags", "check_flags"]
