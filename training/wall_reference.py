"""Wall references (同墙基准): what a reference agent's seats score on a wall when it plays every seat.

Self-play rewards carry the luck of the deal: a seat dealt a ready hand wins whatever it does.  The duplicate idea of
evaluation (:mod:`training.evaluation.evaluate`) lowers that variance in training too: with ``env.reward_baseline:
NAME`` the batched trainer subtracts from each seat's hand the points the agent ``NAME`` scored in that seat when
four copies of it played the same wall (``training/rollout.py``).  The reference is a function of the wall alone, fixed
before the learner acts, so the policy gradient keeps its expectation; the critic learns the return relative to it.

:class:`WallReference` plays the walls on the compiled engine, many at a time (:func:`training.evaluation.fast.
batch_agent`: one call per step for all the seats of the batch), and keeps each result until it is used.  The
agent of seat ``q`` on wall ``hand`` is made from :func:`agent_seed` (``hand + q`` for an int wall seed, the
behaviour-cloning data's rule), so a wall's reference depends on nothing else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from envs.backend import BatchBackend, make_batch
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import RuleConfig
from envs.core.wall import Seed, encode_seed
from envs.engine.observation import OBS_SHAPE

__all__ = ["WallReference", "agent_seed"]


def agent_seed(hand: Seed, seat: int) -> int:
    """The seed of the reference agent in ``seat`` on wall ``hand``: ``hand + seat`` for an int wall seed; for a
    bytes or str seed (a slot's later hands: :func:`envs.core.wall.hand_seed`) the first eight bytes of the SHA-256
    of its canonical encoding, read as an int, plus ``seat``."""
    if isinstance(hand, int):
        return hand + seat
    return int.from_bytes(hashlib.sha256(encode_seed(hand)).digest()[:8], "little") + seat


class WallReference:
    """Per-seat points of ``agent`` playing every seat of a wall, for the walls asked (see the module docstring)."""

    def __init__(self, rules: RuleConfig, agent: str) -> None:
        from envs.compiled.support import unsupported
        from training.evaluation.fast import batch_agent, batchable

        problems = unsupported(rules)
        if problems:
            raise ValueError(f"wall references play on the compiled engine, which does not play {', '.join(problems)}")
        if not batchable(agent):
            raise ValueError(f"reward baseline {agent!r}: outside bots cannot play the reference walls")
        self.rules = rules
        self.agent = agent
        self.player = batch_agent(agent, rules)
        self._known: dict[Seed, np.ndarray] = {}
        self._backend: BatchBackend | None = None
        self._size = 0  # slots of _backend
        self.walls_played = 0

    def add(self, hands: Iterable[Seed]) -> None:
        """Play the walls of ``hands`` not known yet, all in one batch."""
        todo = list(dict.fromkeys(h for h in hands if h not in self._known))
        if todo:
            for hand, points in zip(todo, self._play(todo)):
                self._known[hand] = points

    def __contains__(self, hand: object) -> bool:
        return hand in self._known

    def take(self, hand: Seed) -> np.ndarray:
        """The per-seat points of wall ``hand``, forgotten afterwards; a wall not added yet is played on its own."""
        if hand not in self._known:
            self.add([hand])
        return self._known.pop(hand)

    def _play(self, hands: list[Seed]) -> np.ndarray:
        n = self.rules.num_players
        slots = len(hands)
        backend = self._backend
        if backend is None or self._size < slots:
            self._size = max(slots, 64)
            backend = self._backend = make_batch("compiled", self.rules, self._size)
        player = self.player
        obs = np.zeros((self._size, *OBS_SHAPE), dtype=np.float32)
        masks = np.zeros((self._size, ACTION_SPACE_SIZE), dtype=np.int8)
        seats = np.zeros(self._size, dtype=np.int64)
        live = []
        for i, hand in enumerate(hands):
            backend.deal(i, hand)
            for q in range(n):
                player.new_hand(i, q, agent_seed(hand, q))
            if not backend.is_over(i):
                live.append(i)
        rows = np.asarray(live, dtype=np.int64)
        while rows.size:
            backend.observe_next(rows, seats, True, obs, masks)
            actions = player.act(obs[rows], masks[rows], rows, seats[rows])
            bad = backend.first_illegal(masks[rows], actions)
            if bad >= 0:
                raise ValueError(f"reward baseline {self.agent!r} chose an illegal action {int(actions[bad])}")
            backend.step(rows, seats[rows], actions)
            rows = rows[[not backend.is_over(i) for i in rows.tolist()]]
        self.walls_played += slots
        return np.asarray([backend.scores(i) for i in range(slots)], dtype=np.float64)
