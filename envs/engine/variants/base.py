"""Variant hooks (玩法规则): the points where a rule set departs from the Sichuan core of :mod:`envs.engine.game`.

:class:`VariantRules` is the core itself — every hook answers "nothing special".  :mod:`envs.engine.variants.yibin`
(听用, 飞/提), :mod:`envs.engine.variants.duankagen` (报胡/请胡) and :mod:`envs.engine.variants.wuhan` (吃,
红中杠/赖子杠, 海底, factor settlement) override the hooks they need.  A rules object is stateless and shared by copies
of a game; per-hand variant state lives in ``game.vstate`` (see :class:`VariantState`), which
:meth:`~envs.engine.game.Game.copy` copies and :meth:`~envs.engine.game.Game.snapshot` records.

Hooks receive the :class:`~envs.engine.game.Game` and may read and change its state; they are part of the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from envs.core.actions import Action
from envs.core.rule_config import RuleConfig
from envs.scoring.scorer import ScoreResult
from envs.scoring.settlement import Transfer, end_of_hand_transfers, win_transfers

if TYPE_CHECKING:  # pragma: no cover
    from envs.engine.game import Game

Rescore = Callable[..., ScoreResult]
"""``rescore(**context_overrides)`` scores the win being settled again with some context fields changed."""


@dataclass(frozen=True, slots=True)
class SettledWin:
    """One win being paid (§2.11.1): what :meth:`VariantRules.settle_win` reads.

    ``seat`` won ``how`` (the settlement reason: ``zimo``, ``dianpao``, ``qianggang``, ``instant``; 断卡根
    ``qinghu``) with the score ``result``.  ``payer``: the discarder / robbed seat (None on a self-draw);
    ``active``: the seats still in the hand; ``feeder``: the 点杠花 payer (None unless the win is a kong bloom on an
    exposed kong's replacement); ``rescore``: scores the same win again with some context fields changed.
    """

    seat: int
    how: str
    result: ScoreResult
    payer: int | None
    active: Sequence[int]
    feeder: int | None
    rescore: Rescore


class VariantState:
    """Per-hand variant state: plain data, copied with the game.  Subclasses list their fields in ``__slots__``."""

    __slots__ = ()

    def copy(self) -> VariantState:
        other = object.__new__(type(self))
        for name in self.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if isinstance(value, list) else value)
        return other

    def snapshot(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


class VariantRules:
    """The Sichuan core (成都 / 血流 / 红中 / 赤羽 / 二人): no variant mechanics."""

    name = "sichuan"
    win_rules = False
    """Whether a win's legality needs the scorer (断卡根 小胡, Wuhan 开口 / 2-5-8 pair): the engine then asks the
    scorer before offering HU instead of trusting the shape alone."""
    kong_after_claim = False
    """Whether a claimer may kong in the turn of its pong / chi (Wuhan); the Sichuan family only discards."""

    def unsupported(self, cfg: RuleConfig) -> list[str]:
        """Flags of ``cfg`` these rules do not implement (the engine refuses them with ``UnsupportedRule``)."""
        return []

    # ---- state and start ------------------------------------------------------------------------------------
    def new_state(self, game: Game) -> VariantState | None:
        return None

    def on_start_play(self, game: Game) -> None:
        """Called when play starts (after 换三张, 定缺 and the indicator flip), before the dealer's first action."""

    # ---- own turn -------------------------------------------------------------------------------------------
    def undiscardable(self, game: Game) -> tuple[int, ...]:
        """Kinds that can never be played with DISCARD (听用; Wuhan 红中 / 赖子, played as kongs instead)."""
        return ()

    def blocked_kinds(self, game: Game) -> tuple[int, ...]:
        """Kinds nobody may pong or kong: the wildcards (plus Wuhan 红中)."""
        return game.wild_kinds

    def pre_draw(self, game: Game, seat: int) -> bool:
        """Open a decision before ``seat`` draws at the start of its turn (断卡根 报胡); True when one is open."""
        return False

    def declare_step(self, game: Game, seat: int, action: Action) -> None:
        """Apply the answer to a :meth:`pre_draw` decision (the engine then draws for ``seat``)."""
        raise AssertionError(f"{self.name}: no declaration phase")  # pragma: no cover

    def self_actions(self, game: Game, seat: int, acts: list[Action]) -> list[Action]:
        """The final legal list of an own-turn decision, given the core's list (HU, kongs, discards)."""
        return acts

    def before_self_step(self, game: Game, seat: int, action: Action, legal: list[Action]) -> None:
        """Called before a legal own-turn action is applied (e.g. passing a self-draw win)."""

    def self_step(self, game: Game, seat: int, action: Action) -> None:
        """Apply a variant own-turn action (飞/提 ... : anything but HU, KONG, DISCARD)."""
        raise AssertionError(f"{self.name}: unexpected action {action}")  # pragma: no cover

    # ---- discards and claims --------------------------------------------------------------------------------
    def discard_dead(self, game: Game, seat: int, k: int) -> bool:
        """Whether nobody may claim this discard at all (not even HU)."""
        return False

    def meld_options(self, game: Game, q: int, k: int, discarder: int, opts: list[Action]) -> None:
        """Adjust ``q``'s options on the discard ``k`` in place, when ``q`` may claim melds on it (claims open, kind not
        blocked, not a frozen 血流 winner): the core put HU, KONG and PONG there; 飞 and 吃 are added here."""

    def claim_meld(self, game: Game, q: int, discarder: int, k: int, action: Action) -> None:
        """Apply a variant meld claim (飞, 吃)."""
        raise AssertionError(f"{self.name}: unexpected claim {action}")  # pragma: no cover

    def window_resolved(self, game: Game) -> None:
        """Called when a claim or rob window has every answer, after the pass locks, before resolution."""

    def after_unclaimed(self, game: Game, seat: int, k: int) -> bool:
        """Called when nobody won or claimed ``seat``'s discard; True when the hook moved the game on itself."""
        return False

    # ---- wins -----------------------------------------------------------------------------------------------
    def may_win(self, game: Game, seat: int) -> bool:
        """Cheap necessary condition for any win of ``seat`` now (断卡根 forfeit, Wuhan 红中 / not open)."""
        return True

    def self_win_ok(self, game: Game, seat: int, result: ScoreResult, rescore: Rescore) -> bool:
        """Whether a scored self-draw is a legal win (only asked when :attr:`win_rules`)."""
        return result.is_win

    def declare_actions(self, game: Game, seat: int) -> list[Action]:
        """The actions of a pre-draw declaration (see :meth:`pre_draw`)."""
        return []

    def win_context(self, game: Game, seat: int, how: str, payer: int | None) -> dict[str, Any]:
        """Extra :class:`~envs.scoring.scorer.WinContext` fields for a win (they override the core's flags)."""
        return {}

    def win_transfers(
        self,
        game: Game,
        seat: int,
        how: str,
        result: ScoreResult,
        *,
        payer: int | None,
        active: list[int],
        feeder: int | None,
        rescore: Rescore,
    ) -> list[Transfer]:
        """The payments of one win (§2.11.1), the engine's entry point: variants override :meth:`settle_win`."""
        return self.settle_win(game, SettledWin(seat, how, result, payer, active, feeder, rescore))

    def settle_win(self, game: Game, win: SettledWin) -> list[Transfer]:
        """Who pays ``win``: the core's :func:`envs.scoring.settlement.win_transfers` (the variant hook)."""
        cfg, payment = game.cfg, win.result.payment
        if win.payer is not None:
            return win_transfers(cfg, win.seat, win.how, payment, discarder=win.payer)  # type: ignore[arg-type]
        return win_transfers(cfg, win.seat, win.how, payment, active=win.active, kong_discarder=win.feeder)  # type: ignore[arg-type]

    def view_fields(self, game: Game, seat: int) -> dict[str, Any]:
        """Extra public :class:`~envs.engine.view.PlayerView` fields of the variant (断卡根 ``baohu`` / ``qinghu``)."""
        return {}

    def end_transfers(self, game: Game) -> list[Transfer]:
        """查花猪 / 查大叫 / 退税 at exhaustion (§2.11.2-§2.11.3)."""
        players = [game.player_end(s) for s in range(game.n)]
        return end_of_hand_transfers(game.cfg, players, game.kong_payments)
