"""numba's on-disk cache for :mod:`envs.compiled`, invalidated by a change anywhere in the package.

numba keys a cached function on its own source file only, but the kernel's functions are compiled together with the
layout offsets of :mod:`envs.compiled.layout`, the observation rows of :mod:`envs.engine.observation`, the action ids of
:mod:`envs.core.actions`, the fan values of :mod:`envs.scoring.patterns` and the functions of the other modules they
call: a change there would leave a stale cache behind.  The locators below stamp every function of this package with one
hash of all those sources instead (cache files stay where numba puts them: the package's ``__pycache__``, else
numba's user-wide cache directory).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_SOURCES = (
    *sorted(_PACKAGE.glob("*.py")),
    *(_PACKAGE.parent / name for name in ("engine/observation.py", "core/actions.py")),
    Path(str(importlib.util.find_spec("envs.scoring.patterns").origin)),  # the fan values (envs.compiled.fan_values)
)


def _stamp() -> str:
    digest = hashlib.sha256()
    for path in _SOURCES:
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

    class _PackageStamp:
        def get_source_stamp(self) -> str:
            return STAMP

        @classmethod
        def from_function(cls, py_func, py_file):
            if Path(py_file).resolve().parent != _PACKAGE:
                return None
            return super().from_function(py_func, py_file)

    class PackageInTreeLocator(_PackageStamp, InTreeCacheLocator):
        pass

    class PackageUserWideLocator(_PackageStamp, UserWideCacheLocator):
        pass

    classes = getattr(CacheImpl, "_locator_classes", None)
    if not isinstance(classes, list):  # pragma: no cover - numba changed the hook
        return False
    if not any(getattr(c, "__name__", "") == "PackageInTreeLocator" for c in classes):
        classes[:0] = [PackageInTreeLocator, PackageUserWideLocator]
    return True
