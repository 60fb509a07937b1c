"""The compiled scorers' fan values (番值), read from the Python fan tables: one source.

The numba scorers (:mod:`envs.compiled.score`, :mod:`envs.compiled.score_dkg`, :mod:`envs.compiled.score_yibin`)
take every fixed row value of a table — what 清一色 or 对对胡 is worth — from :data:`envs.scoring.patterns.FAN_TABLES`
at import, as module constants numba compiles in (the package's cache stamp covers ``envs/scoring/patterns.py``, see
:mod:`envs.compiled._cache`).  Rows whose value depends on the configuration (``hz_qidui_doublings``, 龙七对 by
``longqidui_mode`` ...) stay in the scorers' rule vectors.

>>> value("chengdu", "qing_yi_se"), value("mahjongsoul", "qing_yi_se")
(2, 3)
>>> common(("chengdu", "hongzhong", "mahjongsoul"), "gang_shang_kai_hua")
1
>>> consumes("mahjongsoul", "shi_ba_luo_han")
4
>>> at("chengdu", "long_qi_dui", longqidui_mode="ms"), at("chengdu", "long_qi_dui", longqidui_mode="fixed4_incl_gen")
(3, 4)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envs.core.rule_config import RuleConfig
from envs.scoring.patterns import FAN_TABLES, Fan


def rows(table: str, name: str) -> list[Fan]:
    """The rows called ``name`` of fan table ``table`` (``KeyError`` naming both when there are none)."""
    fan_table = FAN_TABLES[table]
    found = [fan for fan in (*fan_table.base, *fan_table.bonus) if fan.name == name]
    if not found:
        raise KeyError(f"fan table {table!r} has no row {name!r}")
    return found


def value(table: str, name: str) -> int:
    """The fixed value of row ``name`` of ``table``; ``ValueError`` when it depends on the configuration."""
    values = {fan.value for fan in rows(table, name)}
    if len(values) != 1 or not isinstance(got := values.pop(), int):
        raise ValueError(f"row {name!r} of fan table {table!r} has no single fixed value")
    return got


def at(table: str, name: str, **flags: Any) -> int:
    """The value of row ``name`` of ``table`` under the default configuration with ``flags`` (for a row whose value
    function reads the configuration only, such as 龙七对 by ``longqidui_mode``)."""
    cfg = RuleConfig(**flags)
    values = {fan.worth(cfg, None) for fan in rows(table, name)}  # type: ignore[arg-type]
    if len(values) != 1:
        raise ValueError(f"row {name!r} of fan table {table!r} has no single value with {flags}")
    return values.pop()


def common(tables: Iterable[str], name: str) -> int:
    """The fixed value row ``name`` has in every one of ``tables`` (``ValueError`` when they differ)."""
    values = {table: value(table, name) for table in tables}
    if len(set(values.values())) != 1:
        raise ValueError(f"row {name!r} is worth {values} in these fan tables, not one value")
    return next(iter(values.values()))


def consumes(table: str, name: str) -> int:
    """The 根 included in row ``name`` of ``table`` (``Fan.consumes_gen``)."""
    return rows(table, name)[0].consumes_gen
