"""Compiled (numba) helpers for the rule-based agents (编译版智能体): batch decoding of the observation rows
(:mod:`~agents.compiled.decode`), exact shanten (:mod:`~agents.compiled.shanten`) and the hand-feature planes of a
batch (:mod:`~agents.compiled.hand_features`).

Every function is cached on disk and stamped with all of this package's sources (:mod:`agents.compiled._cache`).
"""

from agents.compiled._cache import install as _install_cache

_install_cache()  # before the modules define their functions
