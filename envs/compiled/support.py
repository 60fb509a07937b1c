"""What the compiled engine plays (编译引擎支持的规则), its rule vector and its win table.

The kernel implements the state machine of the core rules (:mod:`envs.variants.base`) and of 断卡根
(:mod:`envs.variants.duankagen`: 报胡, 请胡) for two to four players, any suits and hand size, no wildcards or the
four 红中 wildcards, 血战到底 or 血流成河 continuation, with or without bankruptcy: the ``chengdu``, ``xueliu``,
``hongzhong``, ``chiyu``, ``two_player`` and ``duankagen`` presets and any configuration that differs from them only
in flags the kernel reads from :func:`rule_vector` or that only the scorer and the settlement use (fan table, caps,
payments, 查花猪 / 查大叫 options ...; those are the ledger's, see :mod:`envs.compiled.ledger`).  Without
``allow_pinghu_on_discard`` the kernel asks the compiled scorer (:mod:`envs.compiled.score`) whether a discard win
scores, so the configuration must be one that scorer covers; a variant whose wins have minimums (断卡根's 小胡) is
judged by :mod:`envs.compiled.score_dkg`, or by the Python scorer where that one does not cover the configuration.
:func:`check_supported` names every flag that is out of reach, so a caller can fall back to the Python engine.
"""

from __future__ import annotations

import numpy as np

from envs import _suit_tables
from envs.compiled import configs, score, score_dkg
from envs.compiled import kernel as K
from envs.config import RuleConfig
from envs.game import UnsupportedRule
from envs.tiles import RED
from envs.variants import rules_for
from envs.variants.base import VariantRules
from envs.variants.duankagen import DuankagenRules

_KERNEL_VARIANTS = (VariantRules, DuankagenRules)  # the variant hooks the kernel implements

_REQUIRED: tuple[tuple[str, object, str], ...] = (
    ("hz_red_discard_claimable", False, "dead 红中 discards"),
    ("wild_in_melds", False, "no wildcards in melds"),
    ("wild_ignores_four_copy_limit", False, "wildcards within the four-copy limit"),
    ("allow_chi", False, "no 吃"),
    ("pass_hu_allow_higher", False, "过胡 without the higher-win exception (it needs a score per offer)"),
    ("forced_hu_last_n", 0, "no forced wins"),
    ("reveal_concealed_kong", True, "revealed 暗杠"),
    ("dead_wait_counts_as_ready", True, "查大叫 without counting the unseen copies of a wait"),
)
_CHOICES: tuple[tuple[str, tuple[object, ...]], ...] = (
    ("exchange_mode", ("swap3", "none")),
    ("pass_hu_lock", ("same_tile", "none")),
    ("continuation", ("xuezhan", "xueliu")),
    ("wild", ("none", "hongzhong")),
)
_EXTRA_TILES = {"none": (), "hongzhong": (31, 31, 31, 31)}  # no honors; the four 红中 wildcards


def unsupported(cfg: RuleConfig) -> list[str]:
    """The flags of ``cfg`` the compiled engine does not play (empty when it plays them all)."""
    problems = []
    if not cfg.allow_pinghu_on_discard and not rules_for(cfg).win_rules and score.unsupported(cfg):
        problems.append(
            "allow_pinghu_on_discard = false with a configuration the compiled scorer does not cover ("
            + "; ".join(score.unsupported(cfg))
            + ")"
        )
    variant = rules_for(cfg)
    if type(variant) not in _KERNEL_VARIANTS:
        problems.append(f"fan_table {cfg.fan_table!r} / wild {cfg.wild!r} need variant hooks")
    problems += variant.unsupported(cfg)
    for key, want, what in _REQUIRED:
        got = getattr(cfg, key)
        if isinstance(want, tuple):
            got = tuple(got)
        if got != want:
            problems.append(f"{key} = {got!r} (it plays {what}: {want!r})")
    for key, allowed in _CHOICES:
        if getattr(cfg, key) not in allowed:
            problems.append(f"{key} = {getattr(cfg, key)!r} (it plays {', '.join(map(repr, allowed))})")
    extra = _EXTRA_TILES.get(cfg.wild)
    if extra is not None and tuple(cfg.extra_tiles) != extra:
        problems.append(f"extra_tiles = {list(cfg.extra_tiles)!r} (with wild {cfg.wild!r} it plays {list(extra)!r})")
    return problems


def check_supported(cfg: RuleConfig) -> None:
    """:class:`~envs.game.UnsupportedRule` naming every flag of ``cfg`` the compiled engine does not play."""
    problems = unsupported(cfg)
    if problems:
        raise UnsupportedRule(
            f"variant {cfg.name!r}: the compiled engine does not play " + "; ".join(problems) + " — use engine='python'"
        )


def rule_vector(cfg: RuleConfig) -> np.ndarray:
    """The kernel's rule flags (``kernel.R_*``) of a supported configuration."""
    check_supported(cfg)
    r = np.zeros(K.NUM_RULES, dtype=np.int32)
    r[K.R_EXCHANGE] = cfg.exchange_mode == "swap3"
    r[K.R_DINGQUE] = bool(cfg.dingque)
    r[K.R_MUST_VOID_FIRST] = bool(cfg.must_discard_void_first)
    r[K.R_MULTI_RON] = bool(cfg.multi_ron)
    r[K.R_KONG_FROM_BACK] = cfg.kong_draw_from == "back"
    r[K.R_KONG_ON_LAST] = bool(cfg.kong_on_last_tile)
    r[K.R_CLAIMS_LAST_ALL] = cfg.claims_on_last_discard == "all"
    r[K.R_HU_LOCK] = cfg.pass_hu_lock == "same_tile"
    r[K.R_PONG_LOCK] = bool(cfg.pass_pong_lock)
    r[K.R_AFTER_ROBBED] = cfg.after_rob_next == "after_robbed"
    r[K.R_DIHU_DISCARD] = cfg.dihu_definition == "include_first_discard"
    r[K.R_HAND_SIZE] = cfg.hand_size
    r[K.R_XUELIU] = cfg.continuation == "xueliu"
    r[K.R_SAME_WAITS] = bool(cfg.xueliu_kong_requires_same_waits)
    r[K.R_REVEAL] = bool(cfg.reveal_winner_hand) or cfg.continuation == "xueliu"
    r[K.R_NUM_TILES] = cfg.num_tiles
    hongzhong = cfg.wild == "hongzhong"
    r[K.R_WILD] = RED if hongzhong else -1
    r[K.R_FOUR_RED] = hongzhong and cfg.hz_four_red_instant
    r[K.R_FOUR_RED_ENDS] = hongzhong and cfg.hz_four_red_ends_hand
    r[K.R_BANKRUPTCY] = cfg.start_points > 0
    r[K.R_NUM_PLAYERS] = cfg.num_players
    r[K.R_SUITS] = sum(1 << "mps".index(letter) for letter in cfg.suits)
    variant = rules_for(cfg)
    r[K.R_DKG] = isinstance(variant, DuankagenRules)
    r[K.R_CFG_ID] = configs.number(cfg)
    r[K.R_DGH_DIANPAO] = cfg.dianganghua == "dianpao"
    r[K.R_ZIMO_VS_BAOHU] = bool(cfg.dkg_xiaohu_zimo_vs_baohu)
    if variant.win_rules:  # every win is judged by a scorer (Game._can_self_win / _hu_offer)
        if isinstance(variant, DuankagenRules) and not score_dkg.unsupported_dkg(cfg):
            r[K.R_VERDICT] = K.V_DKG
            r[K.R_SCORE : K.R_SCORE + score_dkg.NUM_DKG_RULES] = score_dkg.rule_vector_dkg(cfg)
        else:
            r[K.R_VERDICT] = K.V_PYTHON
    elif not cfg.allow_pinghu_on_discard:  # discard and rob wins must score (kernel.win_ok)
        r[K.R_VERDICT] = K.V_SCORER
        r[K.R_SCORE : K.R_SCORE + score.NUM_SCORE_RULES] = score.rule_vector(cfg)
    return r


_TABLE: np.ndarray | None = None


def win_table() -> np.ndarray:
    """Per suit key (``sum(count[r] * 5**r)``): 1 = sets only, 2 = sets and one pair, 0 = incomplete (uint8)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = np.ascontiguousarray(_suit_tables.load_tables()[2], dtype=np.uint8)
    return _TABLE
