"""武汉 红中赖子杠 Wuhan (RULES.md §4.8): 吃, 赖子, 红中杠 / 赖子杠, the 海底 phase and the factor settlement.

The scorer (:mod:`envs.scoring.scorer`, table ``wuhan``) decides whether a hand wins (开口, no 红中, 2-5-8 pair and at
most one 赖子 for a small win, no seven pairs, 乱将 / 乱风) and what it is worth from the winner's side;
:func:`envs.scoring.wuhan_settlement.wuhan_settlement` prices every loser (their own factors, 放冲, caps, 承包).  This
module plays:

* **赖子.**  The core flips the indicator after the deal (out of the live wall); its successor (skipping 中) is the
  赖子 (:func:`envs.scoring.wuhan_settlement.laizi_of`), the hand's wildcard.  It is never chi'd, ponged or konged.
* **红中杠 / 赖子杠.**  红中 and 赖子 are never discarded: on its own turn a seat plays one out with ``RED_KONG`` /
  ``LAIZI_KONG`` — the tile goes face up to its river, nobody may claim it, the seat's 红中杠 / 赖子杠 count grows
  (a factor of the final win on its side) and it draws a replacement from the back of the wall (杠上开花 possible).
  With ``laizi_discard_is_gang = false`` a 赖子 is an ordinary discard that nobody may claim.
* **吃.**  Only the discarder's next seat (下家 of the discarder, i.e. the discarder is its 上家) may chi, with two
  tiles of its hand that are neither 红中 nor 赖子: ``CHI c`` where c = 0/1/2 says whether the claimed tile is the
  low, middle or high tile of the run.  Pong and kong rank above chi.
* **Kongs** (冲杠, 蓄杠 robbable, hidden 暗杠) are allowed at any own turn, also right after a chi or pong; they pay
  nothing at once (``kong_payment = "factor"``).
* **海底.**  While the live wall holds at most ``wuhan_haidi_tiles`` tiles no discard may be claimed (not even for a
  win) and no kong (or 红中杠 / 赖子杠) may be declared.  A seat that draws one of those last tiles may only win by
  self-draw (海底捞月) or lay the drawn tile down (``DISCARD`` of it, never claimable).  If none of the last tiles
  wins, the hand is a draw and nobody pays (no 查叫 in Wuhan).
* **Wins**: one winner (``multi_ron = false``: 截胡, the first claimant in turn order after the discarder); all three
  others pay per :func:`envs.scoring.wuhan_settlement.wuhan_settlement`; the hand ends at once.  A seat holding a 红中
  or without an open meld (chi, pong, 明杠) is never offered a win.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.actions import LAIZI_KONG, RED_KONG, Action, ActionType, discard
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_SUITED, RED
from envs.engine.variants.base import SettledWin, VariantRules, VariantState
from envs.scoring.scorer import winning_tiles
from envs.scoring.settlement import Transfer
from envs.scoring.wuhan_settlement import WuhanSide, wuhan_settlement

if TYPE_CHECKING:  # pragma: no cover
    from envs.engine.game import Game

__all__ = ["WuhanRules", "WuhanState", "chi_runs"]


class WuhanState(VariantState):
    """红中杠 / 赖子杠 counts of one hand."""

    __slots__ = ("laizi_kongs", "red_kongs")

    def __init__(self, n: int) -> None:
        self.red_kongs = [0] * n
        self.laizi_kongs = [0] * n


def chi_runs(game: Game, seat: int, k: int) -> list[int]:
    """The ``CHI`` positions (0 low, 1 middle, 2 high) ``seat`` can make with the discard ``k``."""
    if k >= NUM_SUITED:
        return []
    h = game.hands[seat]
    blocked = (RED, *game.wild_kinds)
    rank = k % 9
    out = []
    for c in range(3):
        low = k - c
        if not 0 <= rank - c <= 6:
            continue
        others = [low + i for i in range(3) if low + i != k]
        if all(h[t] and t not in blocked for t in others):
            out.append(c)
    return out


def _open(melds: list[Meld]) -> bool:
    return any(not m.is_concealed for m in melds)


class WuhanRules(VariantRules):
    """Wuhan: 吃 from the previous seat, 红中杠 / 赖子杠, the 海底 phase, factor settlement."""

    name = "wuhan"
    win_rules = True
    kong_after_claim = True

    def unsupported(self, cfg: RuleConfig) -> list[str]:
        out = []
        if cfg.wuhan_rob_chonggang:
            out.append("wuhan_rob_chonggang = true (robbing an exposed kong from a discard)")
        if cfg.continuation != "single" or cfg.multi_ron:
            out.append("Wuhan with several winners (continuation must be 'single', multi_ron false)")
        if cfg.num_players != 4:
            out.append(f"Wuhan with {cfg.num_players} players (exactly 4)")
        if cfg.exchange_mode != "none" or cfg.dingque:
            out.append("换三张 / 定缺 with the Wuhan table")
        return out

    def new_state(self, game: Game) -> WuhanState:
        return WuhanState(game.n)

    def haidi(self, game: Game) -> bool:
        """The live wall is down to the 海底 tiles: no claims, no kongs."""
        return game.wall_remaining <= game.cfg.wuhan_haidi_tiles

    def blocked_kinds(self, game: Game) -> tuple[int, ...]:
        return (*game.wild_kinds, RED)

    def undiscardable(self, game: Game) -> tuple[int, ...]:
        if game.cfg.laizi_discard_is_gang:
            return (RED, *game.wild_kinds)
        return (RED,)

    # ---- own turn -------------------------------------------------------------------------------------------
    def self_actions(self, game: Game, seat: int, acts: list[Action]) -> list[Action]:
        h = game.hands[seat]
        t = game.drawn_tile
        if game.wall_remaining < game.cfg.wuhan_haidi_tiles and t is not None and not game.after_claim:
            # a draw of the 海底: win, or lay the tile down
            return [a for a in acts if a.type == ActionType.HU] + [discard(t)]
        if self.haidi(game):
            acts = [a for a in acts if a.type != ActionType.KONG]
        else:
            if h[RED]:
                acts.append(RED_KONG)
            laizi = game.wild_kinds[0]
            if h[laizi] and game.cfg.laizi_discard_is_gang:
                acts.append(LAIZI_KONG)
        if not any(a.type in (ActionType.DISCARD, ActionType.RED_KONG, ActionType.LAIZI_KONG) for a in acts):
            # only 红中 / 赖子 left and no kong possible (the wall is down to the 海底): lay one down, dead
            acts += [discard(k) for k in self.undiscardable(game) if h[k]]
        return acts

    def self_step(self, game: Game, seat: int, action: Action) -> None:
        st: WuhanState = game.vstate
        if action == RED_KONG:
            st.red_kongs[seat] += 1
            game.play_kong_tile(seat, RED, event="red_kong")
        else:
            assert action == LAIZI_KONG
            st.laizi_kongs[seat] += 1
            game.play_kong_tile(seat, game.wild_kinds[0], event="laizi_kong")

    # ---- claims ---------------------------------------------------------------------------------------------
    def discard_dead(self, game: Game, seat: int, k: int) -> bool:
        return self.haidi(game) or k == RED or k in game.wild_kinds

    def meld_options(self, game: Game, q: int, k: int, discarder: int, opts: list[Action]) -> None:
        if game.cfg.allow_chi and q == (discarder + 1) % game.n:
            opts += [Action(ActionType.CHI, c) for c in chi_runs(game, q, k)]

    def claim_meld(self, game: Game, q: int, discarder: int, k: int, action: Action) -> None:
        assert action.type == ActionType.CHI
        low = k - action.tile
        run = [low, low + 1, low + 2]
        h = game.hands[q]
        for t in run:
            if t != k:
                h[t] -= 1
        meld = Meld(MeldKind.CHI, low, from_seat=discarder, claimed=k)
        game.add_claimed_meld(q, meld, event="chi", run=run)

    # ---- wins -----------------------------------------------------------------------------------------------
    def may_win(self, game: Game, seat: int) -> bool:
        return not game.hands[seat][RED] and _open(game.melds[seat])

    def win_context(self, game: Game, seat: int, how: str, payer: int | None) -> dict[str, Any]:
        st: WuhanState = game.vstate
        ctx: dict[str, Any] = {
            "indicator": game.indicator,
            "red_kongs": min(st.red_kongs[seat], 4),
            "laizi_kongs": min(st.laizi_kongs[seat], 4),
        }
        if how == "zimo":
            ctx["last_tile"] = game.wall_remaining < game.cfg.wuhan_haidi_tiles  # a draw of the 海底
        else:
            ctx["last_tile"] = False
        return ctx

    def settle_win(self, game: Game, win: SettledWin) -> list[Transfer]:
        st: WuhanState = game.vstate
        cfg = game.cfg
        seat, how, payer = win.seat, win.how, win.payer
        losers = [p for p in range(game.n) if p != seat]
        third = [m for m in game.melds[seat] if not m.is_concealed]
        third_from = third[2].from_seat if len(third) >= 3 else None
        sides = []
        for p in losers:
            discarded = how == "dianpao" and p == payer
            ready = True
            if discarded and "quan_qiu_ren" in win.result.breakdown:
                ready = bool(winning_tiles(cfg, game.hands[p], game.melds[p], indicator=game.indicator))
            sides.append(
                WuhanSide(
                    melds=tuple(game.melds[p]),
                    red_kongs=min(st.red_kongs[p], 4),
                    laizi_kongs=min(st.laizi_kongs[p], 4),
                    is_dealer=p == game.dealer,
                    discarded=discarded,
                    kong_robbed=how == "qianggang" and p == payer,
                    ready=ready,
                    fed_third_meld=third_from == p,
                )
            )
        amounts = wuhan_settlement(cfg, win.result, sides)
        return [Transfer(p, seat, a, how) for p, a in zip(losers, amounts) if a]

    def end_transfers(self, game: Game) -> list[Transfer]:
        return []  # a drawn hand pays nothing
