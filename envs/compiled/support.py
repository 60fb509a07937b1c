"""What the compiled engine plays (编译引擎支持的规则), its rule vector and its win table.

The kernel implements the state machine of the core rules (:mod:`envs.engine.variants.base`), of 断卡根
(:mod:`envs.engine.variants.duankagen`: 报胡, 请胡), of 宜宾 (:mod:`envs.engine.variants.yibin`: the 本金 flip and its
two 听用 kinds, 飞 and 提) and of 武汉 (:mod:`envs.engine.variants.wuhan`: the 赖子 flip, 吃, 红中杠 / 赖子杠, the 海底
tiles, one win ends the hand) for two to four players, any suits and hand size, no wildcards, the four 红中 wildcards,
the 听用 or the 赖子, 血战到底, 血流成河 or single-win continuation, with or without bankruptcy, 过胡 with or without
the higher-win exception, forced wins on the last tiles: all eight presets (``chengdu``, ``xueliu``, ``hongzhong``,
``chiyu``, ``two_player``, ``duankagen``, ``yibin``, ``wuhan``) and any configuration that differs from them only in
flags the kernel reads from :func:`rule_vector` or that only the scorer and the settlement use (fan table, caps,
payments, 查花猪 / 查大叫 options ...; those are the ledger's, see :mod:`envs.compiled.ledger`).  Where a discard win
must score to be offered (without ``allow_pinghu_on_discard``, or with ``pass_hu_allow_higher``, whose locks compare
doublings) the kernel asks the compiled scorer (:mod:`envs.compiled.score`), so the configuration must be one that
scorer covers; a variant whose every win is judged by its scorer (断卡根's 小胡, 宜宾's 飞 copies, 武汉's 开口 and
将 rules) asks :mod:`envs.compiled.score_dkg`, :mod:`envs.compiled.score_yibin` or :mod:`envs.compiled.score_wuhan`,
or the Python scorer where those do not cover the configuration.  :func:`check_supported` names every flag that is
out of reach, so a caller can fall back to the Python engine; the values it plays of each flag, and the flags it
refuses, are listed in :data:`envs.core.flag_registry.FLAGS` (a flag missing there is refused by name).
"""

from __future__ import annotations

import numpy as np

from envs.compiled import config_numbers, score, score_dkg, score_wuhan, score_yibin
from envs.compiled import kernel as K
from envs.core import flag_registry
from envs.core.rule_config import RuleConfig
from envs.core.tiles import RED
from envs.engine.game import UnsupportedRule, engine_problems
from envs.engine.variants import rules_for
from envs.engine.variants.base import VariantRules
from envs.engine.variants.duankagen import DuankagenRules
from envs.engine.variants.wuhan import WuhanRules
from envs.engine.variants.yibin import YibinRules
from envs.scoring import _suit_tables

_KERNEL_VARIANTS = (VariantRules, DuankagenRules, YibinRules, WuhanRules)  # the variant hooks the kernel implements

_HONORS = tuple(k for k in range(27, 34) for _ in range(4))
_EXTRA_TILES = {"none": (), "hongzhong": (31, 31, 31, 31), "tingyong": (), "laizi": _HONORS}  # 红中; Wuhan's honors


def unsupported(cfg: RuleConfig) -> list[str]:
    """The flags of ``cfg`` the compiled engine does not play (empty when it plays them all)."""
    problems = engine_problems(cfg)  # what neither engine plays
    if _scored_offers(cfg) and score.unsupported(cfg):
        what = "allow_pinghu_on_discard = false" if not cfg.allow_pinghu_on_discard else "pass_hu_allow_higher"
        problems.append(
            f"{what} with a configuration the compiled scorer does not cover ("
            + "; ".join(score.unsupported(cfg))
            + ")"
        )
    variant = rules_for(cfg)
    if type(variant) not in _KERNEL_VARIANTS:
        problems.append(f"fan_table {cfg.fan_table!r} / wild {cfg.wild!r} need variant hooks")
    named = {p.split(" ", 1)[0] for p in problems}  # required values and unclassified flags, by name, once each
    problems += [p for p in flag_registry.problems(cfg, "compiled") if p.split(" ", 1)[0] not in named]
    extra = _EXTRA_TILES.get(cfg.wild)
    if extra is not None and tuple(cfg.extra_tiles) != extra:
        problems.append(f"extra_tiles = {list(cfg.extra_tiles)!r} (with wild {cfg.wild!r} it plays {list(extra)!r})")
    return problems


def _scored_offers(cfg: RuleConfig) -> bool:
    """A discard or rob win must be scored to be offered (no 平胡 on a discard; the doublings of a 过胡 lock) while
    the variant's own rules do not ask the scorer about every win (``win_rules``)."""
    higher = cfg.pass_hu_allow_higher and cfg.pass_hu_lock == "same_tile"
    return (not cfg.allow_pinghu_on_discard or higher) and not rules_for(cfg).win_rules


def check_supported(cfg: RuleConfig) -> None:
    """:class:`~envs.engine.game.UnsupportedRule` naming every flag of ``cfg`` the compiled engine does not play."""
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
    r[K.R_CFG_ID] = config_numbers.number(cfg)
    r[K.R_DGH_DIANPAO] = cfg.dianganghua == "dianpao"
    r[K.R_ZIMO_VS_BAOHU] = bool(cfg.dkg_xiaohu_zimo_vs_baohu)
    r[K.R_TINGYONG] = cfg.wild == "tingyong"
    r[K.R_INDICATOR_REMOVED] = bool(cfg.indicator_removed_from_wall)
    r[K.R_FEI_MAX] = cfg.yibin_fei_max_wild if cfg.wild == "tingyong" else 0
    r[K.R_FORCED] = cfg.forced_hu_last_n
    r[K.R_HU_HIGHER] = bool(cfg.pass_hu_allow_higher)
    wuhan = isinstance(variant, WuhanRules)
    r[K.R_WUHAN] = wuhan
    r[K.R_HAIDI] = cfg.wuhan_haidi_tiles if wuhan else 0
    r[K.R_LAIZI_GANG] = wuhan and cfg.laizi_discard_is_gang
    r[K.R_SINGLE] = cfg.continuation == "single"
    r[K.R_HIDE_ANKONG] = not cfg.reveal_concealed_kong
    r[K.R_CHI] = bool(cfg.allow_chi)
    if variant.win_rules:  # every win is judged by a scorer (Game._can_self_win / _hu_offer)
        if isinstance(variant, DuankagenRules) and not score_dkg.unsupported_dkg(cfg):
            r[K.R_VERDICT] = K.V_DKG
            r[K.R_SCORE : K.R_SCORE + score_dkg.NUM_DKG_RULES] = score_dkg.rule_vector_dkg(cfg)
        elif isinstance(variant, YibinRules) and not score_yibin.unsupported_yibin(cfg):
            r[K.R_VERDICT] = K.V_YIBIN
            r[K.R_SCORE : K.R_SCORE + score_yibin.NUM_YIBIN_RULES] = score_yibin.rule_vector_yibin(cfg)
        elif wuhan and not score_wuhan.unsupported_wuhan(cfg):
            r[K.R_VERDICT] = K.V_WUHAN
            r[K.R_SCORE : K.R_SCORE + score_wuhan.NUM_WUHAN_RULES] = score_wuhan.rule_vector_wuhan(cfg)
        else:
            r[K.R_VERDICT] = K.V_PYTHON
    elif _scored_offers(cfg):  # discard and rob wins must score (kernel.win_value)
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
