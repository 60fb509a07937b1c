"""Helpers for scripted engine tests: build a wall from the hands wanted after 换三张 and a draw sequence, and drive
a game with a default policy between scripted decisions.

Deal order (envs/engine/game.py): the dealer takes the first ``hand_size + 1`` tiles, then each following seat in turn
order takes ``hand_size``; play draws (turn draws and kong replacements alike, ``kong_draw_from = "front"``) follow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from envs.core.actions import PASS, PONG, Action, ActionType, dingque, discard, exchange
from envs.core.rule_config import RuleConfig, load_variant
from envs.core.tiles import NUM_KINDS, format_tiles, parse_tiles
from envs.core.wall import tile_multiset
from envs.engine.game import Game
from envs.engine.view import Phase


@dataclass
class Script:
    """A scripted deal: the wall and the 换三张 passes that turn the dealt hands into the wanted ones."""

    cfg: RuleConfig
    wall: list[int]
    dealer: int
    offset: int | None
    passes: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def game(self, **kwargs) -> Game:
        extra = {"exchange_offset": self.offset} if self.offset is not None else {}
        return Game(self.cfg, wall=self.wall, dealer=self.dealer, **extra, **kwargs)


def _counts(kinds: list[int]) -> list[int]:
    c = [0] * NUM_KINDS
    for k in kinds:
        c[k] += 1
    return c


def _choose_pass(receiver_hand: list[int], wild: tuple[int, ...]) -> tuple[int, ...]:
    """Three tiles of one suit that the receiver holds after the exchange (so they can have come from the giver)."""
    for s in range(3):
        kinds = [k for k in receiver_hand if k // 9 == s and k < 27 and k not in wild]
        if len(kinds) >= 3:
            return tuple(sorted(kinds)[:3])
    raise ValueError(f"hand {format_tiles(receiver_hand)} holds no suit with three tiles to receive")


def build_wall(
    cfg: RuleConfig | str,
    hands: dict[int, str],
    draws: str | list[int] = "",
    *,
    dealer: int = 0,
    offset: int | None = None,
    tail: list[int] | None = None,
    last: str = "",
) -> Script:
    """A wall dealing ``hands`` (seat -> tiles *after* 换三张; the dealer's has ``hand_size + 1``) with play draws
    ``draws`` first, then ``tail`` (default: the remaining tiles in ascending kind order, except the tiles named in
    ``last``, which end the wall in that order)."""
    cfg = load_variant(cfg)
    n = cfg.num_players
    post = {s: parse_tiles(hands[s]) for s in range(n)}
    for s in range(n):
        want = cfg.hand_size + (1 if s == dealer else 0)
        if len(post[s]) != want:
            raise ValueError(f"seat {s} needs {want} tiles, got {len(post[s])}: {hands[s]}")
    passes: dict[int, tuple[int, ...]] = {}
    pre = {s: list(post[s]) for s in range(n)}
    if cfg.exchange_mode == "swap3":
        if offset is None:
            raise ValueError("a variant with 换三张 needs offset=")
        wild = (31,) if cfg.wild == "hongzhong" else ()
        for s in range(n):
            passes[s] = _choose_pass(post[(s + offset) % n], wild)
        for s in range(n):
            c = _counts(post[s])
            for k in passes[s]:
                c[k] += 1
            for k in passes[(s - offset) % n]:
                c[k] -= 1
            if min(c) < 0 or max(c) > 4:
                raise ValueError(f"seat {s}: no consistent pre-exchange hand")
            pre[s] = [k for k in range(NUM_KINDS) for _ in range(c[k])]
    draw_list = parse_tiles(draws) if isinstance(draws, str) else list(draws)
    pool = _counts(tile_multiset(cfg))
    wall: list[int] = []
    for i in range(n):
        wall.extend(pre[(dealer + i) % n])
    wall.extend(draw_list)
    for k in wall:
        pool[k] -= 1
        if pool[k] < 0:
            raise ValueError(f"the script uses more than four copies of {format_tiles([k])}")
    end = parse_tiles(last)
    for k in end:
        pool[k] -= 1
        if pool[k] < 0:
            raise ValueError(f"last= asks for a copy of {format_tiles([k])} that the script already used")
    rest = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    if tail is not None:
        if sorted(tail) != rest:
            raise ValueError(f"tail must be the remaining tiles {format_tiles(rest)}")
        rest = list(tail)
    return Script(cfg, wall + rest + end, dealer, offset, passes)


def start(g: Game, script: Script, voids: str | None = None) -> None:
    """Play the 换三张 of ``script`` and declare ``voids`` (one suit letter per seat, e.g. ``"pmps"``)."""
    if g.phase == Phase.EXCHANGE:
        for s in list(g.pending):
            g.step(s, exchange(script.passes[s]))
    if g.phase == Phase.DINGQUE:
        assert voids is not None, "this variant has 定缺: pass voids"
        for s in list(g.pending):
            g.step(s, dingque("mps".index(voids[s])))
    assert g.phase == Phase.SELF


def scripted_game(
    cfg: RuleConfig | str, hands: dict[int, str], draws: str | list[int] = "", *, voids: str | None = None, **wall
) -> Game:
    """The game dealt by ``build_wall(cfg, hands, draws, **wall)`` with its 换三张 and 定缺 (``voids``) played.

    ``wall`` takes the other arguments of :func:`build_wall` (``dealer``, ``offset``, ``tail``, ``last``).
    """
    script = build_wall(cfg, hands, draws, **wall)
    g = script.game()
    start(g, script, voids)
    return g


def default_action(g: Game, seat: int) -> Action:
    """Tsumogiri policy: discard the drawn tile (else the first legal discard); pass every claim."""
    legal = g.legal_actions(seat)
    if g.phase == Phase.SELF:
        if g.drawn_tile is not None and discard(g.drawn_tile) in legal:
            return discard(g.drawn_tile)
        return next(a for a in legal if a.type == ActionType.DISCARD)
    if PASS in legal:
        return PASS
    return legal[0]  # a forced win


def auto(g: Game, until: Callable[[Game], bool] | None = None, max_steps: int = 2000) -> None:
    """Play the default policy until ``until(g)`` holds (checked before each step) or the hand is over."""
    for _ in range(max_steps):
        if g.is_over or (until is not None and until(g)):
            return
        seat = g.pending[0]
        g.step(seat, default_action(g, seat))
        g.validate()
    raise AssertionError("auto-play did not stop")


def turn_of(seat: int) -> Callable[[Game], bool]:
    """``until`` condition: ``seat`` is to act in its own turn."""
    return lambda g: g.phase == Phase.SELF and g.current == seat


def window_for(seat: int) -> Callable[[Game], bool]:
    """``until`` condition: ``seat`` is asked in a claim or rob window."""
    return lambda g: g.phase in (Phase.CLAIM, Phase.ROB) and seat in g.pending


def pass_others(g: Game, keep: int) -> None:
    """Every pending seat except ``keep`` passes."""
    for s in list(g.pending):
        if s != keep:
            g.step(s, PASS)


def pong(g: Game, seat: int) -> None:
    """``seat`` pongs the discard on offer (asserted legal); every other claimant passes."""
    assert g.phase == Phase.CLAIM and PONG in g.legal_actions(seat), (g.phase, g.pending, seat)
    for s in g.pending:
        g.step(s, PONG if s == seat else PASS)
    assert g.current == seat and g.drawn_tile is None


def transfers(g: Game, start: int = 0) -> list[tuple[int, int, int, str]]:
    return [(t.payer, t.receiver, t.amount, t.reason) for t in g.transfers[start:]]
