"""Type checks for configuration values (配置校验), shared by the rule config and the training config.

:func:`check_value` validates one value against a type hint of a frozen configuration dataclass (``Literal``,
``X | None``, ``bool``, ``int``, ``float``, ``str``, ``tuple[T, ...]``, ``dict``) and returns it normalised
(lists become tuples, ints become floats where a float is expected).  Errors are raised as the caller's exception
class with a message naming the source file and the key, e.g. ``"configs/x.yaml: key 'cap_doublings' expects an
integer, got 'three'"``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

__all__ = ["check_value"]


def check_value(
    key: str,
    value: Any,
    hint: Any,
    source: str,
    error: type[ValueError],
    *,
    nested: Callable[[Any, Any, str], Any] | None = None,
) -> Any:
    """Check ``value`` of ``key`` against ``hint``; ``nested(hint, value, key)`` builds dataclass-typed values."""
    origin = get_origin(hint)
    where = f"{source}: key {key!r}"
    if dataclasses.is_dataclass(hint):
        if nested is None:
            raise error(f"{where} has an unsupported type {hint!r}")
        return nested(hint, value, key)
    if origin is Literal:
        allowed = get_args(hint)
        if value not in allowed:
            raise error(f"{where} = {value!r} is not one of {list(allowed)}")
        return value
    if origin in (Union, types.UnionType):
        args = get_args(hint)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return check_value(key, value, inner[0], source, error, nested=nested)
    if hint is bool:
        if not isinstance(value, bool):
            raise error(f"{where} expects true/false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise error(f"{where} expects an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise error(f"{where} expects a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise error(f"{where} expects a string, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise error(f"{where} expects a list, got {value!r}")
        item_hint = get_args(hint)[0]
        return tuple(
            check_value(f"{key}[{i}]", item, item_hint, source, error, nested=nested) for i, item in enumerate(value)
        )
    if origin is dict:
        if not isinstance(value, dict):
            raise error(f"{where} expects a mapping, got {value!r}")
        return dict(value)
    raise error(f"{where} has an unsupported type {hint!r}")
