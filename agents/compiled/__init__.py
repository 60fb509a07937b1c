"""Compiled (numba) rule-based agents (编译版智能体): the ``greedy``, ``value`` and ``defensive`` baselines for a
whole batch (:func:`make_batch_agent`, :mod:`~agents.compiled.batch_agent`), and their helpers: batch decoding of the
observation rows (:mod:`~agents.compiled.decode`), exact shanten (:mod:`~agents.compiled.shanten`), the hand-feature
planes of a batch (:mod:`~agents.compiled.hand_features`), hand values and danger estimates.

Every function is cached on disk and stamped with all of this package's sources (:mod:`agents.compiled._cache`).
"""

from agents.compiled._cache import install as _install_cache

_install_cache()  # before the modules define their functions


def __getattr__(name: str):  # the agents load numba code: imported when first asked for
    if name in ("make_batch_agent", "COMPILED_BASELINES"):
        from agents.compiled import batch_agent

        return getattr(batch_agent, name)
    raise AttributeError(f"module 'agents.compiled' has no attribute {name!r}")
