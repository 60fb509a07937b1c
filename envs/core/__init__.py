"""Tiles and configuration (牌与规则配置): the bottom layer of the rules engine.

Tiles, melds and action ids, the rule configuration (:class:`~envs.core.rule_config.RuleConfig` and the presets),
the seeded wall, the win context of a claim and the type checks of configuration values.  It imports nothing above
it, and neither PettingZoo, gymnasium, numba nor torch.
"""
