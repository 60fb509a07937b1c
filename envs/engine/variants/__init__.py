"""Variant mechanics (玩法) of the rules engine: one :class:`~envs.engine.variants.base.VariantRules` per rule set.

:func:`rules_for` picks the rules object of a configuration: Yibin (``wild = "tingyong"``: 听用, 飞, 提), 断卡根
(``fan_table`` dkg_wiki / dkg_wanghu: 报胡, 请胡, 小胡), Wuhan (``fan_table = "wuhan"``: 吃, 赖子, 红中杠 / 赖子杠,
海底 phase, factor settlement) or the Sichuan core for everything else.
"""

from __future__ import annotations

from envs.core.rule_config import DKG_TABLES, RuleConfig
from envs.engine.variants.base import VariantRules, VariantState
from envs.engine.variants.duankagen import DuankagenRules
from envs.engine.variants.wuhan import WuhanRules
from envs.engine.variants.yibin import YibinRules

__all__ = ["VariantRules", "VariantState", "rules_for"]

_CORE = VariantRules()
_YIBIN = YibinRules()
_DUANKAGEN = DuankagenRules()
_WUHAN = WuhanRules()


def rules_for(cfg: RuleConfig) -> VariantRules:
    """The variant rules object of ``cfg`` (shared, stateless)."""
    if cfg.wild == "tingyong":
        return _YIBIN
    if cfg.fan_table in DKG_TABLES:
        return _DUANKAGEN
    if cfg.fan_table == "wuhan":
        return _WUHAN
    return _CORE
