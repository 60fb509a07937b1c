"""Borrowed arrays (借用数组) for the compiled agents: views that carry no reference count.

numba counts the references of every array a compiled function receives: a function that passes a tuple on to
another function increments and decrements the count of every array the tuple holds, on every call, with atomic
operations.  The setup tuple of the value agents holds 57 arrays (memos, scorer tables, scratch rows), and a decision
passes it down a chain of calls, so on warm memos these counts were about a fifth of a decision's time.

:func:`borrowed` gives the same arrays (a tuple of them, nested tuples included; other values pass unchanged) as
views without an owner, whose counts are skipped.  A batch entry point borrows its setup once, at the top of the
call: the caller's arrays stay alive for the whole call, and nothing borrowed outlives it (the entry points write
their results into arrays the caller owns and never return a borrowed array).
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array

__all__ = ["borrowed"]


@intrinsic
def _borrowed_array(typingctx: Any, arr: Any) -> Any:  # pragma: no cover - compiled
    """The array ``arr`` without its owner (meminfo and parent null): a view whose reference counts are no-ops."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        src = make_array(aryty)(context, builder, value=args[0])
        dst = make_array(aryty)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(dst, field, getattr(src, field))
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        return dst._getvalue()

    return arr(arr), codegen


def borrowed(value: Any) -> Any:
    """In compiled code: ``value`` with every array in it borrowed (see the module docstring); only compiled code
    may call it."""
    raise TypeError("borrowed() is only available inside numba-compiled functions")


@overload(borrowed)
def _borrowed_impl(value):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    # unannotated: numba compares this signature with the implementations' (which carry no annotations)
    if isinstance(value, types.Array):
        return lambda value: _borrowed_array(value)  # type: ignore[call-arg]
    if isinstance(value, types.BaseTuple):
        items = "".join(f"borrowed(value[{i}]), " for i in range(len(value)))
        namespace = {"borrowed": borrowed}
        exec(f"def impl(value):\n    return ({items})\n", namespace)  # one getitem per member: a tuple is not iterable
        return namespace["impl"]
    return lambda value: value
