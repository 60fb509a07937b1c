"""The state machine (状态机): :class:`~envs.engine.game.Game` and what is built on it, above :mod:`envs.scoring`.

The game and its variant mechanics (:mod:`~envs.engine.variants`), a seat's view and its observation tensor
(:mod:`~envs.engine.view`, :mod:`~envs.engine.observation`), matches, replays, the text renderer and the random-play
simulator.  The compiled engine (:mod:`envs.compiled`) and the environments sit above it.
"""
