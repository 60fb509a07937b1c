"""Match (比赛): hands in sequence with dealer succession and per-hand seeds (RULES.md §2.12).

* Hand ``i`` is dealt from :func:`envs.core.wall.hand_seed` ``(match_seed, i)``; the first dealer is drawn from the
  ``"dealer"`` stream of the match seed (RULES.md §2.12 "First hand: random") unless ``dealer=`` is given.
* The next dealer is the finished hand's ``result.next_dealer`` (``dealer_rule``: ``first_winner`` with
  ``multi_ron_dealer``, ``first_winner_ms``, ``rotate``; nobody won → the dealer stays).
* Running totals start at ``start_points`` (赤羽: 50 000) and add each hand's scores.
* The match is over after ``hands_per_match`` hands (赤羽: 4), or as soon as a points match (``start_points > 0``)
  sees a seat below zero — the engine ends that hand at once (``HandResult.bankrupt``).  With ``hands_per_match =
  None`` the match never ends by itself: the caller decides its length.

>>> m = Match("chiyu", seed=1)
>>> m.hand_index, m.points
(0, (50000, 50000, 50000, 50000))
"""

from __future__ import annotations

from envs.core.rule_config import RuleConfig, load_variant
from envs.core.wall import DOMAIN_DEALER, Seed, SeedStream, hand_seed
from envs.engine.game import Game, HandResult

__all__ = ["Match"]


class Match:
    """A sequence of hands; ``game`` is the hand being played (see the module docstring)."""

    def __init__(
        self, cfg: RuleConfig | str, seed: Seed, *, dealer: int | None = None, record_events: bool = True
    ) -> None:
        self.cfg = load_variant(cfg)
        self.seed = seed
        n = self.cfg.num_players
        if dealer is None:
            dealer = SeedStream(seed, DOMAIN_DEALER).randbelow(n)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        self.record_events = record_events
        self.hand_index = 0
        self.results: list[HandResult] = []
        self._points = [self.cfg.start_points] * n
        self.game = self._new_game(dealer)

    def _new_game(self, dealer: int) -> Game:
        return Game(
            self.cfg,
            hand_seed(self.seed, self.hand_index),
            dealer=dealer,
            match_points=self._points,
            record_events=self.record_events,
        )

    @property
    def points(self) -> tuple[int, ...]:
        """Running totals including the current hand's transfers so far."""
        g = self.game
        if g.is_over and len(self.results) > self.hand_index:
            return tuple(self._points)
        return tuple(p + s for p, s in zip(self._points, g.scores))

    @property
    def is_over(self) -> bool:
        """The current hand is over and no further hand will be played."""
        g = self.game
        if not g.is_over:
            return False
        if g.bankrupt:
            return True
        limit = self.cfg.hands_per_match
        return limit is not None and self.hand_index + 1 >= limit

    def step(self, seat: int, action) -> None:
        """Forward a decision to the current hand (see :meth:`envs.engine.game.Game.step`)."""
        self.game.step(seat, action)

    def _record(self) -> HandResult:
        g = self.game
        assert g.result is not None
        if len(self.results) <= self.hand_index:
            self.results.append(g.result)
            self._points = [p + s for p, s in zip(self._points, g.result.scores)]
        return g.result

    def next_hand(self) -> Game:
        """Record the finished hand and deal the next one with the next dealer; returns the new :attr:`game`.

        ``ValueError`` while the current hand is still being played or when the match is over.
        """
        if not self.game.is_over:
            raise ValueError(f"hand {self.hand_index} is still being played (phase {self.game.phase.value})")
        if self.is_over:
            raise ValueError(f"the match is over after hand {self.hand_index}; no further hand is dealt")
        result = self._record()
        self.hand_index += 1
        self.game = self._new_game(result.next_dealer)
        return self.game

    def final_points(self) -> tuple[int, ...]:
        """Totals of a finished match (``ValueError`` before the match is over)."""
        if not self.is_over:
            raise ValueError("the match is not over yet")
        self._record()
        return tuple(self._points)
