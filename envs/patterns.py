"""Fan patterns (番种) and the fan tables of RULES.md §3, §4.1.2, §4.2, §4.3.2, §4.4.2 and §4.6.2.

Every pattern is one small named predicate over a typed :class:`PatternContext` (one interpretation of one win, see
:mod:`envs.interpret`, plus the win situation).  A fan table is data: a tuple of :class:`Fan` rows naming the
pattern, its value and its exclusions.  Two evaluation rules exist:

* ``additive`` (成都 chengdu, 红中 hongzhong): the values of all applicable rows add up, after the rows that an
  applicable row ``replaces`` are dropped (e.g. 将对 replaces 对对胡 and 断幺九).
* ``max_base`` (宜宾 yibin, 雀魂 mahjongsoul, S2 血流 column wiki_xueliu): exactly one *base* row counts — the
  highest applicable one — and the *bonus* rows add to it.

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

Values are doublings ``d`` (payment 2^d) except: ``mahjongsoul`` rows are han ``h`` (points 1000·2^(h-1)), and the
base rows of ``wiki_xueliu`` are S2 multipliers (平和 2, 门前清 3 …, verbatim) while its bonus rows are doublings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from envs.config import RuleConfig
from envs.interpret import (
    ALL_FLAGS,
    FLAG_GROUP_NO_TERMINAL,
    FLAG_HONOR,
    FLAG_MARKED_TRIPLET,
    FLAG_NOT_JIANG,
    FLAG_RUN,
    FLAG_SIMPLE,
    FLAG_SUIT_M,
    FLAG_SUIT_P,
    FLAG_SUIT_S,
    FLAG_TERMINAL,
    SUIT_FLAGS,
    Shape,
)
from envs.melds import Meld, MeldKind

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
}
"""Chinese name of every breakdown key."""


@dataclass(frozen=True, slots=True)
class PatternContext:
    """Everything a fan predicate may read: one interpretation (shape, flags, 根) and the win situation.

    ``wild_tiles`` is the number of physical wildcard tiles in the final hand (concealed, winning tile and 飞
    melds); ``sets`` is the number of sets a complete hand holds (4 for 13-tile hands).
    """

    shape: Shape
    flags: int
    gen: int
    melds: tuple[Meld, ...] = ()
    wild_tiles: int = 0
    sets: int = 4
    self_drawn: bool = False
    after_kong: bool = False
    robbing_kong: bool = False
    last_tile: bool = False
    juezhang: bool = False
    tianhu: bool = False
    dihu: bool = False
    is_dealer: bool = False


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
    return x.shape is Shape.STANDARD and len(x.melds) == x.sets and all(m.kind is not MeldKind.CHI for m in x.melds)


def is_shi_ba_luo_han(x: PatternContext) -> bool:
    """十八罗汉 eighteen arhats: a golden hook whose melds are all kongs."""
    return is_jin_gou_diao(x) and all(m.is_kong for m in x.melds)


def is_jiang_dui(x: PatternContext) -> bool:
    """将对 2-5-8 triplets: all triplets and every tile of rank 2, 5 or 8."""
    return is_dui_dui_hu(x) and not x.flags & FLAG_NOT_JIANG


def is_men_qing(x: PatternContext) -> bool:
    """门前清 concealed hand: no pong, no exposed kong, no added kong (concealed kongs allowed)."""
    return all(m.is_concealed for m in x.melds)


def is_men_qian_qing_zimo(x: PatternContext) -> bool:
    """门前清 as scored in Chengdu/S2: a concealed, non-seven-pairs hand won by self-draw."""
    return x.self_drawn and x.shape is Shape.STANDARD and is_men_qing(x)


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
    return x.after_kong and x.self_drawn


def is_gang_shang_pao(x: PatternContext) -> bool:
    """杠上炮 kong discard: winning on the discard that ends a kong player's turn."""
    return x.after_kong and not x.self_drawn and not x.robbing_kong


def is_qiang_gang_hu(x: PatternContext) -> bool:
    """抢杠胡 robbing the kong: winning on the tile of another player's added kong."""
    return x.robbing_kong


def is_hai_di_lao_yue(x: PatternContext) -> bool:
    """海底捞月: self-draw on the last tile of the live wall."""
    return x.last_tile and x.self_drawn


def is_hai_di_pao(x: PatternContext) -> bool:
    """海底炮: winning on the discard of the player who drew the last tile."""
    return x.last_tile and not x.self_drawn


def is_he_jue_zhang(x: PatternContext) -> bool:
    """和绝张 last available tile: the other three copies are visible (the engine decides)."""
    return x.juezhang


def is_hard(x: PatternContext) -> bool:
    """杀鬼 / 无听用 hard win: the final hand holds no wildcard tile at all."""
    return x.wild_tiles == 0


def is_ben_jin(x: PatternContext) -> bool:
    """本金 (Yibin): a triplet, pong or kong of the 本金 kind, natural or completed by 听用 (never seven pairs)."""
    return x.shape is Shape.STANDARD and bool(x.flags & FLAG_MARKED_TRIPLET)


def is_tian_hu(x: PatternContext) -> bool:
    """天胡 heavenly win (the engine decides)."""
    return x.tianhu


def is_di_hu(x: PatternContext) -> bool:
    """地胡 earthly win (the engine decides)."""
    return x.dihu


def always(x: PatternContext) -> bool:
    """平胡 basic win: any legal win."""
    return True


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


@dataclass(frozen=True, slots=True)
class FanTable:
    """A fan table: ``base`` rows (pattern shapes) and ``bonus`` rows (根, situational, variant extras)."""

    name: str
    rule: Literal["additive", "max_base"]
    unit: Literal["doublings", "han", "multiplier"]
    base: tuple[Fan, ...]
    bonus: tuple[Fan, ...]
    basic: int = 0  # value of 平胡 when no base row applies
    reads: int = (
        ALL_FLAGS  # interpretation flag bits the predicates of this table read (enumeration collapses the rest)
    )


@dataclass(frozen=True, slots=True)
class Valuation:
    """Value of one interpretation before the self-draw bonus and the payment rules.

    ``doublings``: table-native total (doublings; han for Mahjong Soul; bonus doublings for wiki_xueliu).
    ``multiplier``: raw (uncapped) multiplier of the base unit: 2^d, 2^(h-1), or base multiplier × 2^k.
    ``extra_units``: base units added after the cap (Yibin 无听用 ``one_gen_plus_two_units``).
    """

    doublings: int
    multiplier: int
    breakdown: dict[str, int] = field(default_factory=dict)
    extra_units: int = 0


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


FAN_TABLES: dict[str, FanTable] = {t.name: t for t in (CHENGDU, HONGZHONG, YIBIN, MAHJONGSOUL, WIKI_XUELIU)}
"""Fan tables by ``RuleConfig.fan_table`` name."""


# ---- evaluation --------------------------------------------------------------------------------------------


def evaluate(cfg: RuleConfig, table: FanTable, x: PatternContext) -> Valuation:
    """Value of one interpretation under ``table`` (self-draw bonus and payment rules are applied by the scorer)."""
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
    if table.unit == "multiplier":
        base_value = next((v for name, v in breakdown.items() if name in base_names or name == "ping_hu"), 1)
        doublings = sum(v for name, v in breakdown.items() if name not in base_names and name != "ping_hu")
        return Valuation(doublings, base_value << doublings, breakdown, extra_units)
    total = sum(breakdown.values())
    if table.unit == "han":
        return Valuation(total, 1 << max(total - 1, 0), breakdown, extra_units)
    return Valuation(total, 1 << total, breakdown, extra_units)


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
