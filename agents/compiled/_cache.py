"""numba's on-disk cache for :mod:`agents.compiled`, invalidated by a change anywhere in the package.

numba keys a cached function on its own source file only, but :mod:`agents.compiled.hand_features` compiles the
functions of :mod:`agents.compiled.shanten` into its own: a change there would leave a stale cache behind.  The
locators below stamp every function of this package with one hash of all its sources (the same scheme as
``envs/compiled/_cache.py``; cache files stay where numba puts them).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _stamp() -> str:
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


STAMP = _stamp()


def install() -> bool:
    """Put the package locators in front of numba's own; False when this numba lacks the (private) hook."""
    try:
        from numba.core.caching import CacheImpl, InTreeCacheLocator, UserWideCacheLocator
    except ImportError:  # pragma: no cover - numba moved its caching module
        return False

    class _AgentsStamp:
        def get_source_stamp(self) -> str:
            return STAMP

        @classmethod
        def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
            if Path(py_file).resolve().parent != _PACKAGE:
                return None
            return super().from_function(py_func, py_file)  # type: ignore[misc]

    class AgentsInTreeLocator(_AgentsStamp, InTreeCacheLocator):
        pass

    class AgentsUserWideLocator(_AgentsStamp, UserWideCacheLocator):
        pass

    classes = getattr(CacheImpl, "_locator_classes", None)
    if not isinstance(classes, list):  # pragma: no cover - numba changed the hook
        return False
    if not any(getattr(c, "__name__", "") == "AgentsInTreeLocator" for c in classes):
        classes[:0] = [AgentsInTreeLocator, AgentsUserWideLocator]
    return True
