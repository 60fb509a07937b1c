"""Hand evaluation and scoring (牌型与计分): above :mod:`envs.core`.

Win checks, waits and shanten (:mod:`~envs.scoring.shanten`), the readings of a hand
(:mod:`~envs.scoring.interpret`), the fan tables (:mod:`~envs.scoring.patterns`), the scorer
(:mod:`~envs.scoring.scorer`), the engine's shape questions (:mod:`~envs.scoring.judge`), settlement
(:mod:`~envs.scoring.settlement`) and the 武汉 factor settlement (:mod:`~envs.scoring.wuhan_settlement`).
"""
