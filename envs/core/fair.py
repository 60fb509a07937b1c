"""Provably fair dealing (可证公平发牌) for a match: commit-reveal over a server seed and the players' seeds
(RULES.md §11.5).

Protocol (SHA-256 from :mod:`hashlib`; no elliptic-curve code):

1. **Commit.**  The server and every player each pick a secret seed and publish its commitment
   :func:`envs.core.wall.commitment` (a hash of the domain-separated seed).  Nobody reveals before every commitment
   is published.
2. **Reveal.**  Everybody reveals the seed; anybody checks it against the commitment.
3. **Combine.**  The match seed is :func:`match_seed` — SHA-256 over the server seed and the players' seeds in seat
   order — and everything of the match follows from it: the first dealer (the ``"dealer"`` stream, as
   :class:`envs.engine.match.Match` draws it), hand ``i``'s seed :func:`envs.core.wall.hand_seed` and its wall.
4. **Verify.**  :func:`verify_match` recomputes every commitment, the match seed, the first dealer and every wall
   and compares them with what was published and dealt: a changed seed, commitment, dealer or wall fails.

What it guarantees: once every commitment is out, no party (the server included) can change its seed, so as long as
one party picked its seed at random and kept it secret until the reveal, no party — and no coalition that excludes
it — chose or predicted the walls or the dealer.  What it does not: a party can refuse to reveal (the match is then
void, not unfair); it is not a VRF (no public-key proof; the seed fixes the deal, a signature would only add who
published it); it says nothing about the players' decisions, about collusion at the table, or about the secrecy of
the walls after the reveal.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass

from envs.core.rule_config import RuleConfig
from envs.core.wall import DOMAIN_DEALER, Seed, SeedStream, commitment, encode_seed, hand_seed, shuffled_wall

__all__ = ["FairDeal", "match_seed", "verify_match"]

_MATCH_PREFIX = b"chuanma/fair-match/v1\x00"


def match_seed(server_seed: Seed, player_seeds: Sequence[Seed]) -> bytes:
    """The 32-byte match seed of a server seed and the players' seeds (seat order; each length-prefixed)."""
    if not player_seeds:
        raise ValueError("match_seed needs at least one player seed (a server seed alone is the old commit-reveal)")
    h = hashlib.sha256(_MATCH_PREFIX)
    for seed in (server_seed, *player_seeds):
        data = encode_seed(seed)
        h.update(len(data).to_bytes(4, "big") + data)
    return h.digest()


@dataclass(frozen=True)
class FairDeal:
    """The published record of a fair match: the commitments (step 1), the revealed seeds (step 2), the first dealer
    and each dealt hand's wall (kinds in draw order)."""

    server_commitment: str
    player_commitments: tuple[str, ...]
    server_seed: Seed
    player_seeds: tuple[Seed, ...]
    dealer: int
    walls: tuple[tuple[int, ...], ...]

    @property
    def seed(self) -> bytes:
        """The match seed (step 3)."""
        return match_seed(self.server_seed, self.player_seeds)

    @staticmethod
    def commit(server_seed: Seed, player_seeds: Sequence[Seed]) -> tuple[str, tuple[str, ...]]:
        """The commitments of step 1: ``(server, players in seat order)``."""
        return commitment(server_seed), tuple(commitment(s) for s in player_seeds)

    @staticmethod
    def first_dealer(seed: Seed, num_players: int) -> int:
        """The first dealer derived from the match seed (the ``"dealer"`` stream)."""
        return SeedStream(seed, DOMAIN_DEALER).randbelow(num_players)


def _same(a: str, b: str) -> bool:
    return isinstance(b, str) and hmac.compare_digest(a, b.lower())


def verify_match(deal: FairDeal, cfg: RuleConfig) -> bool:
    """Step 4 of the module docstring: True when every revealed seed matches its commitment and the dealer and every
    wall are the ones the combined seed deals under ``cfg``; False otherwise."""
    if len(deal.player_seeds) != len(deal.player_commitments) or not deal.player_seeds:
        return False
    if not _same(commitment(deal.server_seed), deal.server_commitment):
        return False
    if not all(_same(commitment(s), c) for s, c in zip(deal.player_seeds, deal.player_commitments)):
        return False
    seed = deal.seed
    if deal.dealer != FairDeal.first_dealer(seed, cfg.num_players):
        return False
    return all(list(wall) == shuffled_wall(cfg, hand_seed(seed, i)) for i, wall in enumerate(deal.walls))
