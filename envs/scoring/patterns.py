"""Fan patterns (番种) and the fan tables of RULES.md §3, §4.1.2, §4.2, §4.3.2, §4.4.2, §4.5.2, §4.6.2 and §4.8.

Every pattern is one small named predicate over a typed :class:`PatternContext` (one interpretation of one win, see
:mod:`envs.scoring.interpret`, plus the win situation).  A fan table is data: a tuple of :class:`Fan` rows naming the
pattern, its value and its exclusions.  Two evaluation rules exist:

* ``additive`` (成都 chengdu, 红中 hongzhong): the values of all applicable rows add up, after the rows that an
  applicable row ``replaces`` are dropped (e.g. 将对 replaces 对对胡 and 断幺九).
* ``max_base`` (宜宾 yibin, 雀魂 mahjongsoul, S2 血流 column wiki_xueliu, 网狐 dkg_wanghu): exactly one *base* row
  counts — the highest applicable one — and the *bonus* rows add to it.

Wuhan (``wuhan``) is its own rule: the base is 1 for a small win (小胡) or 10 per big win (大胡, cumulative), and the
bonus rows are the winner's multiplicative factors written as doublings (开口 x2 = 1, 暗杠 x4 = 2 ...).

A table may refuse an interpretation (:attr:`FanTable.admits`): 断卡根 小胡 (0 fan) outside the listed exceptions,
Wuhan small wins without a 2-5-8 pair or with too many 赖子.  The refusal is :attr:`Valuation.reason`.

A row may consume 根 (龙七对 includes its first 根; 十八罗汉 in Mahjong Soul consumes four): the 根 row then counts
only the remaining roots.

Breakdown keys (stable English snake_case; :data:`PATTERN_NAMES_ZH` maps them to Chinese):

=======================  ============  =======================  ============
key                      Chinese       key                      Chinese
=======================  ============  =======================  ============
``ping_hu``              平胡           ``gen``                   根
``dui_dui_hu``           对对胡         ``gang_shang_kai_hua``    杠上开花
``qing_yi_se``           清一色         ``gang_shang_pao``        杠上炮
``qi_dui``               七对           ``qiang_gang_hu``         抢杠胡
``long_qi_dui``          龙七对         ``hai_di_lao_yue``        海底捞月
``dai_yao_jiu``          带幺九         ``hai_di_pao``            海底炮
``yao_jiu``              幺九 (红中)     ``he_jue_zhang``          和绝张
``jin_gou_diao``         金钩钓         ``zi_mo``                 自摸 (加番)
``jiang_dui``            将对           ``sha_gui``               杀鬼
``men_qian_qing``        门前清         ``ben_jin``               本金
``duan_yao_jiu``         断幺九         ``wu_ting_yong``          无听用
``qing_dui``             清对           ``tian_hu`` / ``di_hu``   天胡 / 地胡
``qing_qi_dui``          清七对         ``si_hong_zhong``         四红中
``qing_long_qi_dui``     清龙七对       ``shi_ba_luo_han``        十八罗汉
``qing_yao_jiu``         清幺九         ``qing_shi_ba_luo_han``   清十八罗汉
``qing_jin_gou_diao``    清金钩钓
=======================  ============  =======================  ============

Values are doublings ``d`` (payment 2^d) except: ``mahjongsoul`` rows are han ``h`` (points 1000·2^(h-1)), the
base rows of ``wiki_xueliu`` are S2 multipliers (平和 2, 门前清 3 …, verbatim) while its bonus rows are doublings,
断卡根 rows are fan ``f`` (paid by tier, or 2^(f-1) in ``dkg_wanghu``), and Wuhan base rows are points (1 / 10) while
its bonus rows are the doublings of its factors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from envs.core.melds import MeldKind
from envs.core.rule_config import RuleConfig
from envs.core.win_context import WinContext
from envs.scoring.interpret import (
    ALL_FLAGS,
    FLAG_GROUP_NO_TERMINAL,
    FLAG_HONOR,
    FLAG_JIANG_PAIR,
    FLAG_MARKED_PAIR,
    FLAG_MARKED_TRIPLET,
    FLAG_NOT_FENG,
    FLAG_NOT_JIANG,
    FLAG_RUN,
    FLAG_SIMPLE,
    FLAG_SOFT,
    FLAG_SUIT_M,
    FLAG_SUIT_P,
    FLAG_SUIT_S,
    FLAG_TERMINAL,
    FLAG_WILD_PAIR,
    KA_MASK,
    RUN456_FLAGS,
    SUIT_FLAGS,
    Shape,
    ka_count,
)

PATTERN_NAMES_ZH: dict[str, str] = {
    "ping_hu": "平胡",
    "dui_dui_hu": "对对胡",
    "qing_yi_se": "清一色",
    "qi_dui": "七对",
    "long_qi_dui": "龙七对",
    "dai_yao_jiu": "带幺九",
    "yao_jiu": "幺九",
    "jin_gou_diao": "金钩钓",
    "jiang_dui": "将对",
    "men_qian_qing": "门前清",
    "duan_yao_jiu": "断幺九",
    "qing_dui": "清对",
    "qing_qi_dui": "清七对",
    "qing_long_qi_dui": "清龙七对",
    "qing_yao_jiu": "清幺九",
    "qing_jin_gou_diao": "清金钩钓",
    "shi_ba_luo_han": "十八罗汉",
    "qing_shi_ba_luo_han": "清十八罗汉",
    "gen": "根",
    "gang_shang_kai_hua": "杠上开花",
    "gang_shang_pao": "杠上炮",
    "qiang_gang_hu": "抢杠胡",
    "hai_di_lao_yue": "海底捞月",
    "hai_di_pao": "海底炮",
    "he_jue_zhang": "和绝张",
    "zi_mo": "自摸",
    "sha_gui": "杀鬼",
    "ben_jin": "本金",
    "wu_ting_yong": "无听用",
    "tian_hu": "天胡",
    "di_hu": "地胡",
    "si_hong_zhong": "四红中",
    "qing_hu": "请胡",
    "qing_qing_hu": "清请胡",
    "qing_hu_pao": "请胡炮",
    "ka": "卡",
    "ying_ka": "硬卡",
    "bao_hu": "报胡",
    "bao_hu_fa": "报胡罚番",
    "peng_peng_hu": "碰碰胡",
    "jiang_yi_se": "将一色",
    "feng_yi_se": "风一色",
    "quan_qiu_ren": "全求人",
    "kai_kou": "开口翻",
    "an_gang": "暗杠",
    "ming_gang": "明杠",
    "hong_zhong_gang": "红中杠",
    "lai_zi_gang": "赖子杠",
    "ying_hu": "硬胡",
    "zhuang_jia": "庄家",
}
"""Chinese name of every breakdown key."""


@dataclass(frozen=True, slots=True)
class PatternContext:
    """Everything a fan predicate may read: one interpretation of the hand and the win situation it belongs to.

    ``shape``, ``flags`` and ``gen`` (根) come from the interpretation (:mod:`envs.scoring.interpret`); ``wild_tiles``
    is the number of physical wildcard tiles in the final hand (concealed, winning tile and 飞 melds); ``sets`` is the
    number of sets a complete hand holds (4 for 13-tile hands, 3 in 断卡根).  ``win`` is the situation shared by
    every reading of the win (melds, self-draw, kong and last-tile flags, 天胡/地胡, 断卡根 and Wuhan context):
    predicates read it as ``x.win.<field>``.
    """

    shape: Shape
    flags: int
    gen: int
    win: WinContext
    wild_tiles: int = 0
    sets: int = 4


# ---- predicates (one per pattern) --------------------------------------------------------------------------


def is_standard(x: PatternContext) -> bool:
    """基本和 standard shape: sets + one pair."""
    return x.shape is Shape.STANDARD


def is_qi_dui(x: PatternContext) -> bool:
    """七对 seven pairs (a four-of-a-kind counts as two pairs)."""
    return x.shape is Shape.SEVEN_PAIRS


def is_long_qi_dui(x: PatternContext) -> bool:
    """龙七对 dragon seven pairs: seven pairs holding at least one 根 (four of a kind)."""
    return x.shape is Shape.SEVEN_PAIRS and x.gen >= 1


def is_dui_dui_hu(x: PatternContext) -> bool:
    """对对胡 all triplets: standard shape without runs (kongs count as triplets)."""
    return x.shape is Shape.STANDARD and not x.flags & FLAG_RUN


def is_qing_yi_se(x: PatternContext) -> bool:
    """清一色 full flush: every tile of one suit, no honors (a wildcard counts as the kind it represents)."""
    suits = x.flags & SUIT_FLAGS
    return suits in (FLAG_SUIT_M, FLAG_SUIT_P, FLAG_SUIT_S)


def is_dai_yao_jiu(x: PatternContext) -> bool:
    """带幺九 terminals everywhere: every set, meld and the pair holds a 1 or 9 (seven pairs: every pair)."""
    return not x.flags & FLAG_GROUP_NO_TERMINAL


def is_all_terminals(x: PatternContext) -> bool:
    """幺九 (literal S1 reading, ``hz_yaojiu_definition = "all_terminals"``): every tile is a 1 or 9."""
    return not x.flags & (FLAG_SIMPLE | FLAG_HONOR)


def is_jin_gou_diao(x: PatternContext) -> bool:
    """金钩钓 golden hook: every set is a meld (pong/kong of any type, 暗杠 included), the pair is concealed."""
    return (
        x.shape is Shape.STANDARD
        and len(x.win.melds) == x.sets
        and all(m.kind is not MeldKind.CHI for m in x.win.melds)
    )


def is_shi_ba_luo_han(x: PatternContext) -> bool:
    """十八罗汉 eighteen arhats: a golden hook whose melds are all kongs."""
    return is_jin_gou_diao(x) and all(m.is_kong for m in x.win.melds)


def is_jiang_dui(x: PatternContext) -> bool:
    """将对 2-5-8 triplets: all triplets and every tile of rank 2, 5 or 8."""
    return is_dui_dui_hu(x) and not x.flags & FLAG_NOT_JIANG


def is_men_qing(x: PatternContext) -> bool:
    """门前清 concealed hand: no pong, no exposed kong, no added kong (concealed kongs allowed)."""
    return all(m.is_concealed for m in x.win.melds)


def is_men_qian_qing_zimo(x: PatternContext) -> bool:
    """门前清 as scored in Chengdu/S2: a concealed, non-seven-pairs hand won by self-draw."""
    return x.win.self_drawn and x.shape is Shape.STANDARD and is_men_qing(x)


def is_duan_yao_jiu(x: PatternContext) -> bool:
    """断幺九 all simples: no tile of rank 1 or 9 (and no honor)."""
    return not x.flags & (FLAG_TERMINAL | FLAG_HONOR)


def is_qing_dui(x: PatternContext) -> bool:
    """清对 full-flush all triplets."""
    return is_qing_yi_se(x) and is_dui_dui_hu(x)


def is_qing_qi_dui(x: PatternContext) -> bool:
    """清七对 full-flush seven pairs."""
    return is_qing_yi_se(x) and is_qi_dui(x)


def is_qing_long_qi_dui(x: PatternContext) -> bool:
    """清龙七对 full-flush dragon seven pairs."""
    return is_qing_yi_se(x) and is_long_qi_dui(x)


def is_qing_yao_jiu(x: PatternContext) -> bool:
    """清幺九 full-flush terminals everywhere."""
    return is_qing_yi_se(x) and is_dai_yao_jiu(x)


def is_qing_jin_gou_diao(x: PatternContext) -> bool:
    """清金钩钓 full-flush golden hook."""
    return is_qing_yi_se(x) and is_jin_gou_diao(x)


def is_qing_shi_ba_luo_han(x: PatternContext) -> bool:
    """清十八罗汉 full-flush eighteen arhats."""
    return is_qing_yi_se(x) and is_shi_ba_luo_han(x)


def count_gen(x: PatternContext) -> int:
    """根 roots: kinds with all four copies in the hand (§2.13 step 4)."""
    return x.gen


def is_gang_shang_kai_hua(x: PatternContext) -> bool:
    """杠上开花 kong bloom: self-draw on a kong replacement tile."""
    return x.win.after_kong and x.win.self_drawn


def is_gang_shang_pao(x: PatternContext) -> bool:
    """杠上炮 kong discard: winning on the discard that ends a kong player's turn."""
    return x.win.after_kong and not x.win.self_drawn and not x.win.robbing_kong


def is_qiang_gang_hu(x: PatternContext) -> bool:
    """抢杠胡 robbing the kong: winning on the tile of another player's added kong."""
    return x.win.robbing_kong


def is_hai_di_lao_yue(x: PatternContext) -> bool:
    """海底捞月: self-draw on the last tile of the live wall."""
    return x.win.last_tile and x.win.self_drawn


def is_hai_di_pao(x: PatternContext) -> bool:
    """海底炮: winning on the discard of the player who drew the last tile."""
    return x.win.last_tile and not x.win.self_drawn


def is_he_jue_zhang(x: PatternContext) -> bool:
    """和绝张 last available tile: the other three copies are visible (the engine decides)."""
    return x.win.juezhang


def is_hard(x: PatternContext) -> bool:
    """杀鬼 / 无听用 hard win: the final hand holds no wildcard tile at all."""
    return x.wild_tiles == 0


def is_ben_jin(x: PatternContext) -> bool:
    """本金 (Yibin): a triplet, pong or kong of the 本金 kind, natural or completed by 听用 (never seven pairs)."""
    return x.shape is Shape.STANDARD and bool(x.flags & FLAG_MARKED_TRIPLET)


def is_tian_hu(x: PatternContext) -> bool:
    """天胡 heavenly win (the engine decides)."""
    return x.win.tianhu


def is_di_hu(x: PatternContext) -> bool:
    """地胡 earthly win (the engine decides)."""
    return x.win.dihu


def always(x: PatternContext) -> bool:
    """平胡 basic win: any legal win."""
    return True


# 断卡根 (§4.5)


def count_ka(x: PatternContext) -> int:
    """卡 (断卡根): one per concealed 4-5-6 run of any suit, self-draw only."""
    return ka_count(x.flags) if x.win.self_drawn and x.shape is Shape.STANDARD else 0


def is_ying_ka(x: PatternContext) -> bool:
    """硬卡 (断卡根): a discard win on a 5 that sits in the middle of a 4-5-6 run (the 4_6 closed wait)."""
    w = x.win.win_tile
    if x.win.self_drawn or x.shape is not Shape.STANDARD or not 0 <= w < 27 or w % 9 != 4:
        return False
    return bool(x.flags & RUN456_FLAGS[w // 9])


def is_qing_hu(x: PatternContext) -> bool:
    """请胡 (断卡根): the five-pair request won as a self-draw (the single was discarded and nobody took it)."""
    return x.shape is Shape.FIVE_PAIRS


def is_qing_qing_hu(x: PatternContext) -> bool:
    """清请胡: full-flush 请胡."""
    return is_qing_hu(x) and is_qing_yi_se(x)


def is_bao_hu(x: PatternContext) -> bool:
    """报胡 declared ready: the winner declared 报胡."""
    return x.win.baohu


def is_qing_hu_pao(x: PatternContext) -> bool:
    """请胡炮: winning on the single a 请胡 player discarded."""
    return x.win.on_qinghu_discard


def is_bao_hu_fa(x: PatternContext) -> bool:
    """报胡 penalty: the payer priced is a 报胡 player who dealt in or pays another player's self-draw."""
    return x.win.payer_baohu


def is_zi_mo(x: PatternContext) -> bool:
    """自摸 self-draw (as a fan or factor)."""
    return x.win.self_drawn


def is_di_hu_with_baohu(x: PatternContext) -> bool:
    """地胡 of the 网狐 table: needs a 报胡 declaration."""
    return x.win.dihu and x.win.baohu


# Wuhan (§4.8)


def has_jiang_pair(x: PatternContext) -> bool:
    """The pair is a 2/5/8 kind (将); every tile of a 乱将 hand is one.  Two 赖子 make a 将 only as themselves (the
    赖子 kind a 2/5/8, RULES §4.8.1): a pair of two 赖子 standing for another kind is no 将 (``FLAG_WILD_PAIR``)."""
    if x.flags & FLAG_WILD_PAIR:
        return False
    return (x.shape is Shape.STANDARD and bool(x.flags & FLAG_JIANG_PAIR)) or x.shape is Shape.LUAN_JIANG


def is_peng_peng_hu(x: PatternContext) -> bool:
    """碰碰胡 (Wuhan): a standard hand without runs (a chi meld forbids it)."""
    return is_dui_dui_hu(x)


def is_standard_qing_yi_se(x: PatternContext) -> bool:
    """清一色 (Wuhan): one suit, no honors, standard shape."""
    return x.shape is Shape.STANDARD and is_qing_yi_se(x)


def is_jiang_yi_se(x: PatternContext) -> bool:
    """将一色: every tile of rank 2/5/8, in any arrangement (乱将)."""
    return x.shape is Shape.LUAN_JIANG or (x.shape is Shape.STANDARD and not x.flags & FLAG_NOT_JIANG)


def is_feng_yi_se(x: PatternContext) -> bool:
    """风一色: every tile a wind, 发 or 白, in any arrangement (乱风)."""
    return x.shape is Shape.LUAN_FENG or (x.shape is Shape.STANDARD and not x.flags & FLAG_NOT_FENG)


def open_melds(x: PatternContext) -> int:
    """Melds that open the hand (开口): chi, pong, 明杠 (exposed or added); a 暗杠 does not."""
    return sum(1 for m in x.win.melds if not m.is_concealed)


def is_quan_qiu_ren(x: PatternContext) -> bool:
    """全求人 (大吊车): every set an open meld, won on a discard, with a 2-5-8 pair (AMB-76)."""
    return (
        x.shape is Shape.STANDARD
        and len(x.win.melds) == x.sets
        and open_melds(x) == x.sets
        and not x.win.self_drawn
        and has_jiang_pair(x)
    )


def is_wuhan_gang_kai(x: PatternContext) -> bool:
    """杠上开花 (Wuhan big win): self-draw on a replacement tile (any kong, 红中杠 and 赖子杠 too), 2-5-8 pair."""
    return is_gang_shang_kai_hua(x) and has_jiang_pair(x)


def is_wuhan_hai_di(x: PatternContext) -> bool:
    """海底捞月 (Wuhan big win): self-draw in the 海底 phase (``last_tile``), 2-5-8 pair."""
    return is_hai_di_lao_yue(x) and has_jiang_pair(x)


def is_wuhan_qiang_gang(x: PatternContext) -> bool:
    """抢杠 (Wuhan big win): robbing a 蓄杠, 2-5-8 pair."""
    return x.win.robbing_kong and has_jiang_pair(x)


def is_ying_hu(x: PatternContext) -> bool:
    """硬胡 (Wuhan): no 赖子 stands for another kind (a 赖子 used as itself is fine)."""
    return not x.flags & FLAG_SOFT


# ---- table data --------------------------------------------------------------------------------------------

Value = int | Callable[[RuleConfig, PatternContext], int]
Enabled = Callable[[RuleConfig], bool]


def _on(cfg: RuleConfig) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Fan:
    """One table row: ``name`` scores ``value`` per occurrence when ``test`` holds and ``enabled(cfg)``.

    ``test`` returns a bool, or an occurrence count (根).  ``replaces``: rows dropped when this one applies.
    ``consumes_gen``: roots included in this row (not counted again by the ``gen`` row).
    """

    name: str
    value: Value
    test: Callable[[PatternContext], bool | int]
    enabled: Enabled = _on
    replaces: tuple[str, ...] = ()
    consumes_gen: int = 0

    def worth(self, cfg: RuleConfig, x: PatternContext) -> int:
        """Value of one occurrence."""
        return self.value(cfg, x) if callable(self.value) else self.value


Admits = Callable[[RuleConfig, PatternContext, dict[str, int]], str]
Price = Callable[[RuleConfig, int], int]


@dataclass(frozen=True, slots=True)
class FanTable:
    """A fan table: ``base`` rows (pattern shapes) and ``bonus`` rows (根, situational, variant extras).

    ``admits`` (optional) returns a non-empty reason when an interpretation with this breakdown is not a legal win.
    ``price`` (``unit = "fan"``) maps a fan total to base units before caps.  ``own_tiandihu``: 天胡/地胡 are rows
    of this table (when ``tiandihu`` is not ``"off"``) instead of fixed-value hands.
    """

    name: str
    rule: Literal["additive", "max_base", "wuhan"]
    unit: Literal["doublings", "han", "multiplier", "fan", "wuhan"]
    base: tuple[Fan, ...]
    bonus: tuple[Fan, ...]
    basic: int = 0  # value of 平胡 when no base row applies
    reads: int = (
        ALL_FLAGS  # interpretation flag bits the predicates of this table read (enumeration collapses the rest)
    )
    admits: Admits | None = None
    price: Price | None = None
    own_tiandihu: bool = False


@dataclass(frozen=True, slots=True)
class Valuation:
    """Value of one interpretation before the self-draw bonus and the payment rules.

    ``doublings``: table-native total (doublings; han for Mahjong Soul; bonus doublings for wiki_xueliu).
    ``multiplier``: raw (uncapped) multiplier of the base unit: 2^d, 2^(h-1), or base multiplier × 2^k.
    ``extra_units``: base units added after the cap (Yibin 无听用 ``one_gen_plus_two_units``).
    ``reason``: non-empty when the table refuses this interpretation as a win (``"min_fan"``, ``"small_win_pair"``,
    ``"small_win_laizi"``).  Fan tables (断卡根): ``doublings`` is the fan total and ``multiplier`` its price in base
    units.  Wuhan: ``doublings`` sums the winner's factor doublings and ``multiplier`` = base × M(W).
    """

    doublings: int
    multiplier: int
    breakdown: dict[str, int] = field(default_factory=dict)
    extra_units: int = 0
    reason: str = ""


def _gen_row() -> Fan:
    return Fan("gen", 1, count_gen)


def _situational(enabled: Enabled = _on) -> tuple[Fan, ...]:
    return (
        Fan("gang_shang_kai_hua", 1, is_gang_shang_kai_hua),
        Fan("gang_shang_pao", 1, is_gang_shang_pao, enabled),
        Fan("qiang_gang_hu", 1, is_qiang_gang_hu, enabled),
        Fan("hai_di_lao_yue", 1, is_hai_di_lao_yue),
        Fan("hai_di_pao", 1, is_hai_di_pao, enabled),
    )


def _yaojiu_jiangdui(cfg: RuleConfig) -> bool:
    return cfg.enable_yaojiu_jiangdui


def _longqidui_row(qidui: Callable[[RuleConfig], int]) -> Fan:
    """龙七对 per ``longqidui_mode``: ``fixed4_incl_gen`` = 4, ``ms`` = 七对 + 1; both include their first 根.

    With ``qidui_plus_gen`` the row is disabled and a 龙七对 scores as 七对 + 根.
    """

    def value(cfg: RuleConfig, x: PatternContext) -> int:
        return 4 if cfg.longqidui_mode == "fixed4_incl_gen" else qidui(cfg) + 1

    return Fan(
        "long_qi_dui",
        value,
        is_long_qi_dui,
        lambda cfg: cfg.longqidui_mode != "qidui_plus_gen",
        replaces=("qi_dui",),
        consumes_gen=1,
    )


def _chengdu_jin_gou_diao(cfg: RuleConfig, x: PatternContext) -> int:
    """金钩钓 2; with ``jiang_jingou_stack = false`` only its excess over 对对胡 (1) stacks on 将对 (E3: 16x)."""
    if not cfg.jiang_jingou_stack and cfg.enable_yaojiu_jiangdui and is_jiang_dui(x):
        return 1
    return 2


CHENGDU = FanTable(
    name="chengdu",
    rule="additive",
    unit="doublings",
    reads=SUIT_FLAGS | FLAG_RUN | FLAG_GROUP_NO_TERMINAL | FLAG_TERMINAL | FLAG_NOT_JIANG,
    base=(
        Fan("dui_dui_hu", 1, is_dui_dui_hu),
        Fan("qing_yi_se", 2, is_qing_yi_se),
        Fan("qi_dui", 2, is_qi_dui),
        _longqidui_row(lambda cfg: 2),
        Fan("dai_yao_jiu", 2, is_dai_yao_jiu, _yaojiu_jiangdui),
        Fan("jin_gou_diao", _chengdu_jin_gou_diao, is_jin_gou_diao, replaces=("dui_dui_hu",)),
        Fan("jiang_dui", 3, is_jiang_dui, _yaojiu_jiangdui, replaces=("dui_dui_hu", "duan_yao_jiu")),
        Fan("men_qian_qing", 1, is_men_qian_qing_zimo, lambda cfg: cfg.enable_menqing),
        Fan("duan_yao_jiu", 1, is_duan_yao_jiu, lambda cfg: cfg.enable_duanyao),
    ),
    bonus=(
        _gen_row(),
        *_situational(),
        Fan("he_jue_zhang", 1, is_he_jue_zhang, lambda cfg: cfg.enable_juezhang),
    ),
)
"""成都 §4.1.2: additive doublings with exclusions (also 血流 and two-player)."""


HONGZHONG = FanTable(
    name="hongzhong",
    rule="additive",
    unit="doublings",
    reads=SUIT_FLAGS | FLAG_RUN | FLAG_GROUP_NO_TERMINAL | FLAG_TERMINAL | FLAG_SIMPLE,
    base=(
        _longqidui_row(lambda cfg: cfg.hz_qidui_doublings),
        Fan("qi_dui", lambda cfg, x: cfg.hz_qidui_doublings, is_qi_dui),
        Fan("qing_yi_se", 2, is_qing_yi_se),
        Fan("dui_dui_hu", 1, is_dui_dui_hu),
        Fan("jin_gou_diao", 1, is_jin_gou_diao),
        Fan("duan_yao_jiu", 1, is_duan_yao_jiu),
        Fan("yao_jiu", 1, is_dai_yao_jiu, lambda cfg: cfg.hz_yaojiu_definition == "daiyao"),
        Fan("yao_jiu", 1, is_all_terminals, lambda cfg: cfg.hz_yaojiu_definition == "all_terminals"),
    ),
    bonus=(
        Fan("sha_gui", 1, is_hard),
        _gen_row(),
        *_situational(lambda cfg: cfg.hz_inherit_situational),
    ),
)
"""红中 §4.3.2: additive doublings; 金钩钓 +1 on top of 对对胡; 杀鬼 for a hand without 红中."""


def _yibin_wutingyong(cfg: RuleConfig, x: PatternContext) -> int:
    return 2 if cfg.yibin_wutingyong == "two_gen" else 1


YIBIN = FanTable(
    name="yibin",
    rule="max_base",
    unit="doublings",
    reads=SUIT_FLAGS | FLAG_RUN | FLAG_MARKED_TRIPLET,
    base=(
        Fan("dui_dui_hu", lambda cfg, x: cfg.yibin_duidui_doublings, is_dui_dui_hu),
        Fan("qing_yi_se", 2, is_qing_yi_se),
        Fan("qi_dui", 2, is_qi_dui),
        _longqidui_row(lambda cfg: 2),
        Fan("jin_gou_diao", 3, is_jin_gou_diao),
        Fan("qing_dui", 4, is_qing_dui),
        Fan("qing_qi_dui", 4, is_qing_qi_dui),
        Fan("qing_jin_gou_diao", 5, is_qing_jin_gou_diao),
    ),
    bonus=(
        _gen_row(),
        *_situational(),
        Fan("he_jue_zhang", 1, is_he_jue_zhang, lambda cfg: cfg.enable_juezhang),
        Fan("ben_jin", 1, is_ben_jin),
        Fan("wu_ting_yong", _yibin_wutingyong, is_hard),
    ),
)
"""宜宾 §4.4.2: the largest base pattern + additive bonuses (根, 自摸, situational, 本金, 无听用)."""


def _ms_tiandihu(cfg: RuleConfig) -> bool:
    return cfg.tiandihu == "ms6"


def _ms_longqidui(cfg: RuleConfig) -> bool:
    return cfg.longqidui_mode != "qidui_plus_gen"


MAHJONGSOUL = FanTable(
    name="mahjongsoul",
    rule="max_base",
    unit="han",
    reads=SUIT_FLAGS | FLAG_RUN | FLAG_GROUP_NO_TERMINAL | FLAG_NOT_JIANG,
    basic=1,
    base=(
        Fan("dui_dui_hu", 2, is_dui_dui_hu),
        Fan("qing_yi_se", 3, is_qing_yi_se),
        Fan("qi_dui", 3, is_qi_dui),
        Fan("dai_yao_jiu", 3, is_dai_yao_jiu),
        Fan("jin_gou_diao", 3, is_jin_gou_diao),
        Fan("qing_dui", 4, is_qing_dui),
        Fan("jiang_dui", 4, is_jiang_dui),
        Fan("long_qi_dui", 4, is_long_qi_dui, _ms_longqidui, consumes_gen=1),
        Fan("qing_qi_dui", 5, is_qing_qi_dui),
        Fan("qing_yao_jiu", 5, is_qing_yao_jiu),
        Fan("qing_jin_gou_diao", 5, is_qing_jin_gou_diao),
        Fan("qing_long_qi_dui", 6, is_qing_long_qi_dui, _ms_longqidui, consumes_gen=1),
        Fan("shi_ba_luo_han", 6, is_shi_ba_luo_han, consumes_gen=4),
        Fan("qing_shi_ba_luo_han", 6, is_qing_shi_ba_luo_han, consumes_gen=4),
        Fan("tian_hu", 6, is_tian_hu, _ms_tiandihu),
        Fan("di_hu", 6, is_di_hu, _ms_tiandihu),
    ),
    bonus=(_gen_row(), *_situational()),
)
"""赤羽之战 §4.6.2 (han): the single highest base pattern + 根 (after consumption) + 杠上花/杠上炮/抢杠/海底."""


WIKI_XUELIU = FanTable(
    name="wiki_xueliu",
    rule="max_base",
    unit="multiplier",
    reads=SUIT_FLAGS | FLAG_RUN | FLAG_GROUP_NO_TERMINAL | FLAG_TERMINAL | FLAG_NOT_JIANG,
    basic=2,
    base=(
        Fan("men_qian_qing", 3, is_men_qian_qing_zimo),
        Fan("duan_yao_jiu", 3, is_duan_yao_jiu),
        Fan("dui_dui_hu", 4, is_dui_dui_hu),
        Fan("dai_yao_jiu", 6, is_dai_yao_jiu),
        Fan("qing_yi_se", 6, is_qing_yi_se),
        Fan("qi_dui", 6, is_qi_dui),
        Fan("jin_gou_diao", 10, is_jin_gou_diao),
        Fan("qing_dui", 10, is_qing_dui),
        Fan("jiang_dui", 16, is_jiang_dui),
        Fan("qing_yao_jiu", 16, is_qing_yao_jiu),
        Fan("qing_jin_gou_diao", 16, is_qing_jin_gou_diao),
        Fan("qing_qi_dui", 16, is_qing_qi_dui),
    ),
    bonus=(
        _gen_row(),
        *_situational(),
        Fan("he_jue_zhang", 1, is_he_jue_zhang, lambda cfg: cfg.enable_juezhang),
    ),
)
"""S2 血流 column §4.2 (verbatim, not the default): base multipliers (take the largest) × 2 per bonus.

龙七对 is 七对 × 根 here (``longqidui_mode`` does not apply); 门前清 and 断幺九 are part of the column, not gated by
``enable_menqing`` / ``enable_duanyao``; 和绝张 follows ``enable_juezhang``.
"""


# ---- 断卡根 Duankagen (§4.5.2) ------------------------------------------------------------------------------

_DKG_NOT_HAND = ("qing_hu_pao", "bao_hu_fa")  # added to the value but not to the hand's own fan (小胡 rule)


def _dkg_admits(min_fan: int, applies_to_self_draw: bool) -> Admits:
    """The 小胡 rule: a hand worth less than ``min_fan`` of its own may win only under ``dkg_xiaohu_exceptions``.

    The hand's own fan excludes 请胡炮 and the payer's 报胡 penalty.  Exceptions: ``baohu_discard`` (the discarder
    declared 报胡, i.e. ``payer_baohu`` on a discard win), ``qinghu_discard`` (winning on a 请胡 discard),
    ``gang_shang_pao`` (winning on a kong player's discard); ``dkg_xiaohu_zimo_vs_baohu`` lets a 小胡 self-draw
    when the payer priced declared 报胡.
    """

    def admits(cfg: RuleConfig, x: PatternContext, breakdown: dict[str, int]) -> str:
        own = sum(v for name, v in breakdown.items() if name not in _DKG_NOT_HAND)
        if own >= min_fan or (x.win.self_drawn and not applies_to_self_draw):
            return ""
        exceptions = cfg.dkg_xiaohu_exceptions
        discard = not x.win.self_drawn
        if discard and x.win.payer_baohu and "baohu_discard" in exceptions:
            return ""
        if x.win.on_qinghu_discard and "qinghu_discard" in exceptions:
            return ""
        if discard and x.win.after_kong and not x.win.robbing_kong and "gang_shang_pao" in exceptions:
            return ""
        if x.win.self_drawn and x.win.payer_baohu and cfg.dkg_xiaohu_zimo_vs_baohu:
            return ""
        return "min_fan"

    return admits


def _tier_price(cfg: RuleConfig, fan: int) -> int:
    """断卡根 S2 tiers: ``dkg_tier_units`` for fan 1, 2, 3, >= 4 (the last tier is the cap, 超叫); 0 fan pays 0."""
    if fan <= 0:
        return 0
    tiers = cfg.dkg_tier_units
    return tiers[min(fan, len(tiers)) - 1]


def _pow2_price(cfg: RuleConfig, fan: int) -> int:
    """网狐 (E5): fan f pays 2^(f-1) base units (the cap is ``cap_doublings``)."""
    return 1 << (fan - 1) if fan > 0 else 0


def _dkg_common_bonus() -> tuple[Fan, ...]:
    return (
        Fan("ka", 1, count_ka),
        Fan("ying_ka", 1, is_ying_ka),
        Fan("zi_mo", 1, is_zi_mo, lambda cfg: cfg.dkg_zimo_plus_one_fan),
        Fan("qing_hu_pao", lambda cfg, x: cfg.dkg_qinghu_catch_bonus, is_qing_hu_pao),
        Fan("bao_hu_fa", lambda cfg, x: cfg.dkg_baohu_penalty, is_bao_hu_fa),
    )


_DKG_READS = (
    SUIT_FLAGS | FLAG_RUN | FLAG_GROUP_NO_TERMINAL | FLAG_TERMINAL | FLAG_NOT_JIANG | KA_MASK | sum(RUN456_FLAGS)
)

DKG_WIKI = FanTable(
    name="dkg_wiki",
    rule="additive",
    unit="fan",
    reads=_DKG_READS,
    base=(
        Fan("duan_yao_jiu", 1, is_duan_yao_jiu),
        Fan("dui_dui_hu", 1, is_dui_dui_hu),
        Fan("qing_yi_se", 2, is_qing_yi_se),
        Fan("dai_yao_jiu", 3, is_dai_yao_jiu),
        Fan("jiang_dui", 4, is_jiang_dui, replaces=("dui_dui_hu", "duan_yao_jiu")),
        Fan("qing_hu", 2, is_qing_hu),
    ),
    bonus=(
        _gen_row(),
        *_situational(),
        Fan("bao_hu", lambda cfg, x: cfg.dkg_baohu_win_bonus, is_bao_hu),
        *_dkg_common_bonus(),
    ),
    admits=_dkg_admits(1, applies_to_self_draw=True),
    price=_tier_price,
)
"""断卡根 §4.5.2 (S2 column): additive fan; 金钩钓 counts as 对对胡; 将对 includes 对对胡 and excludes 断幺九; 清请胡
= 请胡 2 + 清一色 2; paid by ``dkg_tier_units`` (+ ``dkg_zimo_units`` per payer on a self-draw)."""


def _wanghu_baohu(cfg: RuleConfig, x: PatternContext) -> int:
    """网狐 报胡: ``dkg_baohu_win_bonus`` (2) + 1 per kong declared after 报胡, at most 3."""
    bonus = cfg.dkg_baohu_win_bonus
    return min(bonus + x.win.kongs_after_baohu, max(bonus, 3))


def _tiandihu_rows_on(cfg: RuleConfig) -> bool:
    return cfg.tiandihu != "off"


DKG_WANGHU = FanTable(
    name="dkg_wanghu",
    rule="max_base",
    unit="fan",
    basic=1,
    reads=_DKG_READS,
    base=(
        Fan("dui_dui_hu", 2, is_dui_dui_hu),
        Fan("qing_yi_se", 3, is_qing_yi_se),
        Fan("qing_hu", 3, is_qing_hu),
        Fan("qing_dui", 4, is_qing_dui),
        Fan("qing_qing_hu", 5, is_qing_qing_hu),
        Fan("dai_yao_jiu", 5, is_dai_yao_jiu),
        Fan("qing_yao_jiu", 6, is_qing_yao_jiu),
        Fan("jiang_dui", 6, is_jiang_dui),
        Fan("tian_hu", 6, is_tian_hu, _tiandihu_rows_on),
        Fan("di_hu", 6, is_di_hu_with_baohu, _tiandihu_rows_on),
    ),
    bonus=(
        Fan("duan_yao_jiu", 1, is_duan_yao_jiu),
        Fan("gen", 1, lambda x: min(x.gen, 3)),
        *_situational(),
        Fan("bao_hu", _wanghu_baohu, is_bao_hu),
        *_dkg_common_bonus(),
    ),
    admits=_dkg_admits(2, applies_to_self_draw=False),
    price=_pow2_price,
    own_tiandihu=True,
)
"""断卡根 alternative (E5 网狐《断勾卡血战麻将》, §4.5.2): the single highest base (鸡胡 1, 对对胡 2 … 将对对 6) +
断幺九, 卡/硬卡, 勾 (根, at most 3), situational, 报胡 2 (+1 per later kong, at most 3); fan f pays 2^(f-1) (cap from
``cap_doublings``, E5: 5 = 6 fan); 鸡胡 (1 fan) may not win on a discard except under ``dkg_xiaohu_exceptions``
(E5: ``qinghu_discard`` and ``gang_shang_pao``); 地胡 needs 报胡; E5 catches a 请胡 with +2
(``dkg_qinghu_catch_bonus``) and adds 2 base per payer on a self-draw (``dkg_zimo_units``)."""


# ---- 武汉 Wuhan (§4.8.2, §4.8.3) -----------------------------------------------------------------------------


def _log2(value: int) -> int:
    return value.bit_length() - 1


def _wuhan_admits(cfg: RuleConfig, x: PatternContext, breakdown: dict[str, int]) -> str:
    """Small wins (小胡) need a 2-5-8 pair and at most ``wuhan_small_win_max_laizi`` 赖子 (two only as a natural
    2/5/8 pair of the 赖子 kind); big wins waive both."""
    if any(fan.name in breakdown for fan in WUHAN.base):
        return ""
    if x.shape is not Shape.STANDARD or not x.flags & FLAG_JIANG_PAIR:
        return "small_win_pair"
    if x.wild_tiles > cfg.wuhan_small_win_max_laizi:
        natural_pair = x.wild_tiles == 2 and x.flags & FLAG_MARKED_PAIR and not x.flags & FLAG_SOFT
        if not natural_pair:
            return "small_win_laizi"
    return ""


def _kai_kou(cfg: RuleConfig, x: PatternContext) -> int:
    """开口翻: x2 once (1 doubling) when open; 口口翻: x2 per open meld (the row fires once, worth n doublings)."""
    return 1 if cfg.wuhan_open_mode == "kaikou" else open_melds(x)


def _count_kind(*kinds: str) -> Callable[[PatternContext], int]:
    return lambda x: sum(1 for m in x.win.melds if m.kind.value in kinds)


WUHAN = FanTable(
    name="wuhan",
    rule="wuhan",
    unit="wuhan",
    reads=SUIT_FLAGS
    | FLAG_RUN
    | FLAG_NOT_JIANG
    | FLAG_NOT_FENG
    | FLAG_JIANG_PAIR
    | FLAG_MARKED_PAIR
    | FLAG_SOFT
    | FLAG_WILD_PAIR,
    base=(
        Fan("peng_peng_hu", lambda cfg, x: cfg.wuhan_big_base, is_peng_peng_hu),
        Fan("qing_yi_se", lambda cfg, x: cfg.wuhan_big_base, is_standard_qing_yi_se),
        Fan("jiang_yi_se", lambda cfg, x: cfg.wuhan_big_base, is_jiang_yi_se),
        Fan("feng_yi_se", lambda cfg, x: cfg.wuhan_big_base, is_feng_yi_se),
        Fan("quan_qiu_ren", lambda cfg, x: cfg.wuhan_big_base, is_quan_qiu_ren),
        Fan("gang_shang_kai_hua", lambda cfg, x: cfg.wuhan_big_base, is_wuhan_gang_kai),
        Fan("hai_di_lao_yue", lambda cfg, x: cfg.wuhan_big_base, is_wuhan_hai_di),
        Fan("qiang_gang_hu", lambda cfg, x: cfg.wuhan_big_base, is_wuhan_qiang_gang),
    ),
    bonus=(
        Fan("kai_kou", _kai_kou, lambda x: open_melds(x) > 0),
        Fan("an_gang", lambda cfg, x: _log2(cfg.wuhan_angang_factor), _count_kind("ankong")),
        Fan("ming_gang", lambda cfg, x: _log2(cfg.wuhan_minggang_factor), _count_kind("kong", "bukong")),
        Fan("hong_zhong_gang", lambda cfg, x: _log2(cfg.wuhan_hongzhong_gang_factor), lambda x: x.win.red_kongs),
        Fan("lai_zi_gang", lambda cfg, x: _log2(cfg.wuhan_laizi_gang_factor), lambda x: x.win.laizi_kongs),
        Fan("zi_mo", 1, is_zi_mo, lambda cfg: cfg.zimo_bonus == "factor"),
        Fan("ying_hu", 1, is_ying_hu),
    ),
    admits=_wuhan_admits,
)
"""武汉 红中赖子杠 §4.8: base = ``wuhan_small_base`` (小胡, breakdown ``ping_hu``) or ``wuhan_big_base`` per big win;
bonus rows are the winner's factors F(W) × 自摸 × 硬胡 as doublings, plus ``zhuang_jia`` (庄家 x2) for a dealer's
small win.  ``multiplier`` = base × M(W) = what a loser without factors pays before caps (see
:mod:`envs.scoring.wuhan_settlement`)."""


FAN_TABLES: dict[str, FanTable] = {
    t.name: t for t in (CHENGDU, HONGZHONG, YIBIN, MAHJONGSOUL, WIKI_XUELIU, DKG_WIKI, DKG_WANGHU, WUHAN)
}
"""Fan tables by ``RuleConfig.fan_table`` name."""


# ---- evaluation --------------------------------------------------------------------------------------------


def evaluate(cfg: RuleConfig, table: FanTable, x: PatternContext) -> Valuation:
    """Value of one interpretation under ``table`` (self-draw bonus and payment rules are applied by the scorer)."""
    if table.rule == "wuhan":
        return _evaluate_wuhan(cfg, table, x)
    if table.rule == "additive":
        rows = _applicable(cfg, table.base, x)
    else:
        rows = _best_base(cfg, table, x)
    bonus = _applicable(cfg, table.bonus, x)
    chosen = rows + bonus
    dropped = {name for fan, _ in chosen for name in fan.replaces}
    chosen = [(fan, times) for fan, times in chosen if fan.name not in dropped]
    consumed = sum(fan.consumes_gen for fan, _ in chosen)
    breakdown: dict[str, int] = {}
    base_names = {fan.name for fan in table.base}
    if not any(fan.name in base_names for fan, _ in chosen):
        breakdown["ping_hu"] = table.basic
    for fan, times in chosen:
        if fan.name == "gen":
            times -= consumed
            if times <= 0:
                continue
        breakdown[fan.name] = breakdown.get(fan.name, 0) + fan.worth(cfg, x) * times
    extra_units = 2 if is_hard(x) and "wu_ting_yong" in breakdown and cfg.yibin_wutingyong != "two_gen" else 0
    reason = table.admits(cfg, x, breakdown) if table.admits is not None else ""
    if table.unit == "multiplier":
        base_value = next((v for name, v in breakdown.items() if name in base_names or name == "ping_hu"), 1)
        doublings = sum(v for name, v in breakdown.items() if name not in base_names and name != "ping_hu")
        return Valuation(doublings, base_value << doublings, breakdown, extra_units, reason)
    total = sum(breakdown.values())
    if table.unit == "han":
        return Valuation(total, 1 << max(total - 1, 0), breakdown, extra_units, reason)
    if table.unit == "fan":
        assert table.price is not None
        return Valuation(total, table.price(cfg, total), breakdown, extra_units, reason)
    return Valuation(total, 1 << total, breakdown, extra_units, reason)


def _evaluate_wuhan(cfg: RuleConfig, table: FanTable, x: PatternContext) -> Valuation:
    """Wuhan: base (小胡 or the sum of big wins) × 2^(winner's factor doublings)."""
    breakdown: dict[str, int] = {}
    for fan, times in _applicable(cfg, table.base, x):
        breakdown[fan.name] = fan.worth(cfg, x) * times
    small = not breakdown
    if small:
        breakdown["ping_hu"] = cfg.wuhan_small_base
    base_value = sum(breakdown.values())
    doublings = 0
    for fan, times in _applicable(cfg, table.bonus, x):
        value = fan.worth(cfg, x) * times
        if value:
            breakdown[fan.name] = value
            doublings += value
    if small and x.win.is_dealer:
        breakdown["zhuang_jia"] = 1
        doublings += 1
    reason = table.admits(cfg, x, breakdown) if table.admits is not None else ""
    return Valuation(doublings, base_value << doublings, breakdown, 0, reason)


def _applicable(cfg: RuleConfig, rows: tuple[Fan, ...], x: PatternContext) -> list[tuple[Fan, int]]:
    out = []
    for fan in rows:
        if not fan.enabled(cfg):
            continue
        times = int(fan.test(x))
        if times > 0:
            out.append((fan, times))
    return out


def _best_base(cfg: RuleConfig, table: FanTable, x: PatternContext) -> list[tuple[Fan, int]]:
    """The single highest applicable base row.

    Ties go to the row leaving more 根, then to the later row (composites such as 清十八罗汉 follow their parts).
    """
    best: tuple[int, int] | None = None
    chosen: list[tuple[Fan, int]] = []
    for fan, times in _applicable(cfg, table.base, x):
        key = (fan.worth(cfg, x), -fan.consumes_gen)
        if best is None or key >= best:
            best = key
            chosen = [(fan, times)]
    return chosen
