"""numba's on-disk cache for :mod:`envs.compiled`, invalidated by a change anywhere in the package.

numba keys a cached function on its own source file only, but the kernel's functions are compiled together with the
layout offsets of :mod:`envs.compiled.layout`, the observation rows of :mod:`envs.engine.observation`, the action ids of
:mod:`envs.core.actions`, the fan values of :mod:`envs.scoring.patterns` and the functions of the other modules they
call: a change there would leave a stale cache behind.  The locators below stamp every function of this package with one
hash of all those sources instead (cache files stay where numba puts them: the package's ``__pycache__``, else
numba's user-wide cache directory).

:func:`announce_compile` says so (a ``logging`` warning of the ``envs.compiled`` logger, on stderr unless logging is
configured otherwise) when an environment on the compiled engine is made and the cache does not hold its kernel:
the first use after a change of these sources compiles for minutes (:data:`COMPILE_TIME`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
from pathlib import Path
from typing import Any

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


# measured cold (no cache) on the development machine: 320 CPU seconds (13.6 min of wall time with the two cores
# shared by other work); loading the cached kernel afterwards takes about two seconds
COMPILE_TIME = "about 5 minutes of one CPU core, longer on a busy machine"
_announced = False


def on_disk(dispatcher: Any) -> bool | None:
    """Whether numba's on-disk cache holds ``dispatcher`` (a ``cache=True`` function of this package) compiled for
    these sources and this CPU; None when this numba's cache cannot be read this way."""
    try:
        index = dispatcher._cache._cache_file._load_index()  # {} when missing, of another numba or stale (stamp)
        magic = dispatcher.targetctx.codegen().magic_tuple()
    except Exception:  # pragma: no cover - numba's private caching API moved
        return None
    return any(key[1] == magic for key in index)


def is_cached(dispatcher: Any) -> bool | None:
    """Whether ``dispatcher`` is compiled in this process or held by the on-disk cache (:func:`on_disk`)."""
    return True if dispatcher.signatures else on_disk(dispatcher)


def announce_compile(*dispatchers: Any) -> bool:
    """Say once per process that numba is about to compile the kernel, unless every one of ``dispatchers`` (the
    entry points an environment calls) is already compiled or cached; True when it said so."""
    global _announced
    if _announced or all(is_cached(d) for d in dispatchers):
        return False
    _announced = True
    logging.getLogger("envs.compiled").warning(
        "envs.compiled: compiling the numba kernel (first use after installing or changing the package: "
        f"{COMPILE_TIME}; then cached on disk for every later process)"
    )
    return True
