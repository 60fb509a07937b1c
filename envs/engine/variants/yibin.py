"""宜宾 Yibin (RULES.md §4.4): 听用 wildcards, 飞 (FEI) and 提 (TI).

* **本金 / 听用.**  The core engine flips the 本金 after 定缺 (it leaves the live wall); its two rank neighbours are the
  听用 (:func:`envs.scoring.scorer.tingyong_kinds`).  听用 are never discarded and never ponged or konged; they belong
  to no suit (定缺, 花猪, discarding void tiles first).  A concealed hand of only 听用 has no discard: it is complete
  and HU is its only action.
* **碰 / 飞.**  A discard ``k`` may be claimed with 飞: one natural ``k`` and one 听用 from the hand make the exposed
  triplet {k, k, 听用} (``yibin_fei_max_wild = 2`` also allows two 听用 when the seat holds no natural ``k``).  The
  听用 used is the lowest 听用 kind the seat holds.  飞 ranks with pong and kong (§2.5.1); the claimer then
  discards a tile that is not a 听用, so a pong or 飞 that would leave only 听用 in the hand is not offered.
  Passing an offered pong or 飞 locks both on that kind until the next draw (过碰不碰, ``pass_pong_lock``).
* **提.**  On its own turn, when the tile just drawn is the natural kind of one of its 飞 melds, a seat may play
  ``TI k``: the natural tile replaces a 听用 in the meld (a one-听用 飞 becomes a pong), the 听用 returns to the
  hand and becomes the turn's drawn tile, and the turn continues (win, kong or discard).  Right after a pong or 飞
  there is no draw, hence no 提 and no kong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.actions import FEI, PONG, Action, ActionType
from envs.core.melds import Meld, MeldKind
from envs.engine.variants.base import VariantRules

if TYPE_CHECKING:  # pragma: no cover
    from envs.engine.game import Game

__all__ = ["YibinRules", "fei_tiles"]


def fei_tiles(game: Game, seat: int, k: int) -> tuple[int, tuple[int, ...]] | None:
    """The hand tiles a 飞 of the discard ``k`` by ``seat`` would use: (natural copies of ``k``, 听用 kinds), or
    None when the seat cannot 飞 (too few tiles, or no tile it could discard afterwards)."""
    max_wild = game.cfg.yibin_fei_max_wild
    if max_wild < 1 or any(m.tile == k for m in game.melds[seat]):
        return None  # a second triplet of one kind would stand for more than four copies
    h = game.hands[seat]
    wild = game.wild_kinds
    naturals = 1 if h[k] >= 1 else 0
    need = 2 - naturals
    if need > max_wild:
        return None
    used: list[int] = []
    for w in wild:
        take = min(h[w], need - len(used))
        used += [w] * take
    if len(used) < need:
        return None
    if not _leaves_discard(game, seat, {k: naturals, **_count(used)}):
        return None
    return naturals, tuple(used)


def _count(kinds: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for k in kinds:
        out[k] = out.get(k, 0) + 1
    return out


def _leaves_discard(game: Game, seat: int, removed: dict[int, int]) -> bool:
    """Whether the hand still holds a tile that is not a 听用 after ``removed`` tiles leave it (``removed`` takes
    at most the copies the hand holds of each kind, so the natural tiles left are a plain difference of sums)."""
    h = game.hands[seat]
    wild = game.wild_kinds
    left = sum(h)
    for kind in set(wild):
        left -= h[kind]
    for kind, n in removed.items():
        if kind not in wild:
            left -= n
    return left > 0


class YibinRules(VariantRules):
    """宜宾: 听用 cannot be discarded; 飞 claims; 提 on the own turn."""

    name = "yibin"
    win_rules = True  # a 飞's 听用 counts towards the four-copy limit: the scorer has the last word on a win

    def undiscardable(self, game: Game) -> tuple[int, ...]:
        return game.wild_kinds

    def meld_options(self, game: Game, q: int, k: int, discarder: int, opts: list[Action]) -> None:
        if PONG in opts and not _leaves_discard(game, q, {k: 2}):
            opts.remove(PONG)  # only 听用 would remain: no discard possible, 飞 must be used
        if not game.pong_locked(q, k) and fei_tiles(game, q, k) is not None:
            opts.append(FEI)

    def claim_meld(self, game: Game, q: int, discarder: int, k: int, action: Action) -> None:
        used = fei_tiles(game, q, k)
        assert action.type == ActionType.FEI and used is not None
        naturals, wilds = used
        h = game.hands[q]
        h[k] -= naturals
        for w in wilds:
            h[w] -= 1
        meld = Meld(MeldKind.FEI, k, wilds=len(wilds), from_seat=discarder, wild_kinds=wilds)
        game.add_claimed_meld(q, meld, event="fei", wilds=list(wilds))

    def self_actions(self, game: Game, seat: int, acts: list[Action]) -> list[Action]:
        t = game.drawn_tile
        if t is None or t in game.wild_kinds or game.after_claim:
            return acts
        if any(m.kind is MeldKind.FEI and m.tile == t for m in game.melds[seat]):
            acts.append(Action(ActionType.TI, t))
        return acts

    def self_step(self, game: Game, seat: int, action: Action) -> None:
        assert action.type == ActionType.TI
        t = action.tile
        melds = game.melds[seat]
        i = next(i for i, m in enumerate(melds) if m.kind is MeldKind.FEI and m.tile == t)
        old = melds[i]
        back = old.wild_kinds[-1]
        if old.wilds == 1:
            melds[i] = Meld(MeldKind.PONG, t, from_seat=old.from_seat)
        else:
            melds[i] = Meld(MeldKind.FEI, t, old.wilds - 1, old.from_seat, old.wild_kinds[:-1])
        h = game.hands[seat]
        h[t] -= 1
        h[back] += 1
        game.hand_changed(seat)
        game.drawn_tile = back
        game.emit("ti", seat=seat, tile=t, returned=back)
        game.continue_turn(seat)

    def win_context(self, game: Game, seat: int, how: str, payer: int | None) -> dict[str, Any]:
        return {"indicator": game.indicator}
