"""Rule configuration (规则配置): one frozen dataclass holding every rule flag of RULES.md §9.

A variant preset is a YAML file ``configs/variants/<name>.yaml`` whose keys are field names of :class:`RuleConfig`.
Every key is checked: an unknown key, a wrong type or a value outside a flag's allowed set raises
:class:`ConfigError` naming the key and the file.  Fields a YAML does not set keep the defaults below, which are
the Chengdu (成都 血战到底) values of RULES.md §4.1.

>>> cfg = load_variant("hongzhong")
>>> cfg.wild, cfg.zimo_bonus
('hongzhong', 'jiafan')
>>> load_variant("chengdu", cap_doublings=None).cap_doublings is None
True
"""

from __future__ import annotations

import dataclasses
import itertools
import typing
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

import yaml

from envs.core.tiles import parse_tiles
from envs.core.typecheck import check_value

PRESETS = ("chengdu", "xueliu", "hongzhong", "yibin", "duankagen", "chiyu", "two_player", "wuhan")
"""Variant presets shipped in ``configs/variants/`` (all eight rule sets of RULES.md; every one loads and scores)."""

ENGINE_PRESETS = PRESETS
"""The presets the rules engine (:mod:`envs.engine.game`) plays: all eight."""

ENGINES: tuple[str, ...] = ("python", "compiled")
"""The rules engines an environment can run on: :class:`envs.engine.game.Game` or the numba kernel of
:mod:`envs.compiled` (``engine=`` of ``sichuan_mahjong_v0.raw_env``, ``SingleAgentEnv``, ``make_vec_env`` and training
configs)."""

DEFAULT_VARIANT = "hongzhong"


# the presets ship as package data of the ``configs`` package (a plain install finds them too)
CONFIG_DIR = Path(str(files("configs")))
VARIANT_DIR = CONFIG_DIR / "variants"


class ConfigError(ValueError):
    """A rule configuration is invalid: unknown key, wrong type or value out of range."""


@dataclass(frozen=True)
class RuleConfig:
    """Every rule flag of RULES.md §9 used by the Sichuan-family variants.  Defaults are Chengdu's."""

    name: str = "chengdu"
    description: str = ""

    # --- table and deal (§2.1, §9.1) ---
    num_players: int = 4
    suits: str = "mps"
    extra_tiles: tuple[int, ...] = ()
    hand_size: int = 13
    base_unit: int = 1
    wild: Literal["none", "hongzhong", "tingyong", "laizi"] = "none"
    wild_in_melds: bool = False
    wild_counts_for_gen: bool = True
    wild_ignores_four_copy_limit: bool = False
    allow_chi: bool = False
    indicator_removed_from_wall: bool = True

    # --- exchange and void suit (§2.3, §2.4) ---
    exchange_mode: Literal["swap3", "redraw_up_to_3", "none"] = "swap3"
    exchange_direction: Literal["next", "previous", "opposite", "random3", "random2_parity"] = "random3"
    dingque: bool = True
    must_discard_void_first: bool = True
    huazhu_definition: Literal["declared_void", "three_suits"] = "declared_void"

    # --- claims, continuation, dealer (§2.5, §2.10, §2.12) ---
    multi_ron: bool = True
    multi_ron_dealer: Literal["discarder", "first_in_order"] = "discarder"
    dealer_rule: Literal["first_winner", "first_winner_ms", "rotate"] = "first_winner"
    hands_per_match: int | None = None
    start_points: int = 0
    continuation: Literal["xuezhan", "xueliu", "single"] = "xuezhan"
    reveal_winner_hand: bool = False
    xueliu_kong_requires_same_waits: bool = True

    # --- kongs (§2.7) ---
    reveal_concealed_kong: bool = True
    kong_draw_from: Literal["front", "back"] = "front"
    kong_on_last_tile: bool = False
    claims_on_last_discard: Literal["hu_only", "all"] = "hu_only"
    kong_payment: Literal["standard", "none", "xi_each_1", "mahjongsoul", "factor"] = "standard"
    bugang_pay_requires_immediate: bool = True
    hujiao_zhuanyi: Literal["full_each", "split", "none"] = "full_each"
    dianganghua: Literal["zimo", "dianpao"] = "zimo"
    after_rob_next: Literal["after_last_winner", "after_robbed"] = "after_last_winner"

    # --- pass locks and last tiles (§2.8, §2.9) ---
    pass_hu_lock: Literal["same_tile", "any_tile", "none"] = "same_tile"
    pass_hu_allow_higher: bool = False
    pass_pong_lock: bool = True
    forced_hu_last_n: int = 0

    # --- scoring (§2.11, §4) ---
    fan_table: Literal[
        "chengdu", "wiki_xueliu", "hongzhong", "yibin", "mahjongsoul", "dkg_wiki", "dkg_wanghu", "wuhan"
    ] = "chengdu"
    fan_display: Literal["doublings", "multiplier", "han", "fan"] = "doublings"
    zimo_bonus: Literal["jiadi", "jiafan", "none", "factor"] = "jiadi"
    zimo_jiadi_after_cap: bool = True
    cap_doublings: int | None = 3
    enable_yaojiu_jiangdui: bool = True
    enable_menqing: bool = False
    enable_duanyao: bool = False
    enable_juezhang: bool = False
    jiang_jingou_stack: bool = True
    longqidui_mode: Literal["qidui_plus_gen", "fixed4_incl_gen", "ms"] = "qidui_plus_gen"
    tiandihu: Literal["off", "cap", "fixed8", "cap_plus_1", "fixed3", "ms6"] = "off"
    dihu_definition: Literal["first_draw_selfdraw", "include_first_discard"] = "first_draw_selfdraw"
    allow_pinghu_on_discard: bool = True

    # --- end-of-hand settlement (§2.11.2, §2.11.3) ---
    huazhu_penalty: Literal["flat", "ms_max_8"] = "flat"
    huazhu_multiplier: int = 16
    huazhu_penalty_capped: bool = False
    chadajiao: Literal["max", "min"] = "max"
    dead_wait_counts_as_ready: bool = True
    ready_excludes_fifth_tile: bool = True
    refund_kong_if_not_ready: bool = True

    # --- 红中 red-dragon variant (§4.3, §9.2) ---
    hz_four_red_instant: bool = True
    hz_four_red_ends_hand: bool = False
    hz_qidui_doublings: int = 3
    hz_yaojiu_definition: Literal["daiyao", "all_terminals"] = "daiyao"
    hz_inherit_situational: bool = True
    hz_tiandihu_fixed: int = 8
    hz_red_discard_claimable: bool = False

    # --- 宜宾 Yibin (§4.4, §9.2) ---
    yibin_tingyong_count: int = 8
    yibin_fei_max_wild: int = 1
    yibin_duidui_doublings: int = 1
    yibin_wutingyong: Literal["two_gen", "one_gen_plus_two_units"] = "two_gen"
    yibin_zimo_only: bool = False
    yibin_min_fan_rule: bool = False
    piao: bool = False

    # --- 断卡根 Duankagen (§4.5, §9.2) ---
    dkg_tier_units: tuple[int, ...] = (1, 2, 4, 8)
    dkg_xiaohu_exceptions: tuple[Literal["baohu_discard", "qinghu_discard", "gang_shang_pao"], ...] = (
        "baohu_discard",
        "qinghu_discard",
    )
    dkg_zimo_plus_one_fan: bool = False
    dkg_xiaohu_zimo_vs_baohu: bool = False
    dkg_erheyi: bool = False
    dkg_tiandihu_fixed: int = 3
    dkg_qinghu_catch_bonus: int = 3
    dkg_baohu_win_bonus: int = 2
    dkg_baohu_penalty: int = 1
    dkg_zimo_units: int = 1

    # --- 武汉 红中赖子杠 Wuhan (§4.8, §9.2) ---
    wuhan_open_mode: Literal["kaikou", "koukou"] = "kaikou"
    wuhan_angang_factor: int = 4
    wuhan_minggang_factor: int = 2
    wuhan_hongzhong_gang_factor: int = 2
    wuhan_laizi_gang_factor: int = 2
    wuhan_small_base: int = 1
    wuhan_big_base: int = 10
    wuhan_small_win_max_laizi: int = 1
    wuhan_caps: tuple[int, ...] = (300, 400, 700)
    wuhan_cap_thresholds: tuple[int, ...] = (300, 600)
    wuhan_cap_threshold_inclusive: bool = True
    wuhan_discard_all_pay: bool = True
    wuhan_rob_chonggang: bool = False
    wuhan_haidi_tiles: int = 4
    laizi_discard_is_gang: bool = True

    # --- 赤羽之战 Mahjong Soul (§4.6, §9.2) ---
    point_cap: int = 32000
    tsumo_bonus_points: int = 1000
    huazhu_min_points: int = 8000

    # --- suit count (§4.7, §9.1: `suits` / `num_suits`) ---
    num_suits: int | None = None  # len(suits) (filled in when None); given alone it selects the suits: SUIT_SETS

    def __post_init__(self) -> None:
        for key in _FIELDS:
            object.__setattr__(self, key, _check_value(key, getattr(self, key), _HINTS[key], "<RuleConfig>"))
        if self.num_suits is None and isinstance(self.suits, str):
            object.__setattr__(self, "num_suits", len(self.suits))
        _validate(self, source="<RuleConfig>")

    # ---- derived properties -------------------------------------------------------------------------
    @property
    def kinds(self) -> tuple[int, ...]:
        """Tile kinds in play, sorted (e.g. 0-26 plus 31 for 红中)."""
        base = [s * 9 + r for s, letter in enumerate("mps") if letter in self.suits for r in range(9)]
        return tuple(sorted(set(base) | set(self.extra_tiles)))

    @property
    def num_tiles(self) -> int:
        """Size of the full tile multiset (108, 112, 72 ...)."""
        suited = 36 * len(self.suits)
        return suited + len(self.extra_tiles)

    @property
    def has_wild(self) -> bool:
        return self.wild != "none"

    @property
    def tsumo_bonus_units(self) -> int:
        """What 自摸加底 adds per payer, in points of ``base_unit`` (断卡根: ``dkg_zimo_units`` base units)."""
        if self.fan_table == "mahjongsoul":
            return self.tsumo_bonus_points
        if self.fan_table in DKG_TABLES:
            return self.dkg_zimo_units * self.base_unit
        return self.base_unit

    def replace(self, **overrides: Any) -> RuleConfig:
        """A copy with some flags changed; unknown keys and bad values raise :class:`ConfigError`.

        ``suits`` and ``num_suits`` describe the same thing: overriding one of them re-derives the other (and, for
        ``num_suits`` alone below three, turns 定缺 off as in :data:`SUIT_SETS`); overriding both requires them to
        agree.
        """
        base = _as_mapping(self)
        if "num_suits" in overrides and "suits" not in overrides:
            base.pop("suits")
            if overrides["num_suits"] != 3:
                base.pop("dingque")
        elif "suits" in overrides and "num_suits" not in overrides:
            base["num_suits"] = None
        return _from_mapping({**base, **overrides}, source="<overrides>")

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every flag (JSON/YAML-serialisable)."""
        d = _as_mapping(self)
        for key, value in d.items():
            if isinstance(value, tuple):
                d[key] = list(value)
        return d


SUIT_SETS: dict[int, str] = {3: "mps", 2: "sp", 1: "s"}
"""``num_suits`` given without ``suits`` (RULES §4.7, two-player 三方 / 2方 / 两人一房): the suits in play.  With
fewer than three suits there is no 定缺 / 花猪 (``dingque`` false unless given); with three the variant keeps its own
``dingque``.  两人一房's single suit is 条 (RULES names only the tile count; 条 as in the two-suit 条+筒 game)."""

DKG_TABLES = ("dkg_wiki", "dkg_wanghu")
"""Fan tables of 断卡根 (additive fan counts, paid by tier or by 2^(f-1))."""

_TILE_TUPLE_FIELDS = frozenset({"extra_tiles"})
"""Tuple fields holding tile kinds (given as codes such as ``5z``); other tuple fields hold plain values."""


_FIELDS: dict[str, dataclasses.Field] = {}
_HINTS: dict[str, Any] = {}


def _init_field_tables() -> None:
    _FIELDS.update({f.name: f for f in dataclasses.fields(RuleConfig)})
    _HINTS.update(typing.get_type_hints(RuleConfig))


_init_field_tables()


def _as_mapping(cfg: RuleConfig) -> dict[str, Any]:
    return {name: getattr(cfg, name) for name in _FIELDS}


def _check_value(key: str, value: Any, hint: Any, source: str) -> Any:
    """Check one flag value: tile tuples accept codes such as ``5z``; everything else goes to :func:`check_value`."""
    if key not in _TILE_TUPLE_FIELDS:
        return check_value(key, value, hint, source, ConfigError)
    if isinstance(value, str):
        value = parse_tiles(value, check_copies=False)
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{source}: key {key!r} expects a list of tiles, got {value!r}")
    out = []
    for item in value:
        if isinstance(item, str):
            try:
                out.extend(parse_tiles(item, check_copies=False))
            except ValueError as exc:
                raise ConfigError(f"{source}: key {key!r}: {exc}") from None
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < 34:
            out.append(item)
        else:
            raise ConfigError(f"{source}: key {key!r} has a bad tile {item!r} (expected a code like '5z')")
    return tuple(out)


def _validate(cfg: RuleConfig, source: str) -> None:
    if cfg.num_players not in (2, 3, 4):
        raise ConfigError(f"{source}: key 'num_players' = {cfg.num_players} must be 2, 3 or 4")
    if not cfg.suits or any(c not in "mps" for c in cfg.suits) or len(set(cfg.suits)) != len(cfg.suits):
        raise ConfigError(f"{source}: key 'suits' = {cfg.suits!r} must be a non-empty subset of 'mps'")
    if cfg.num_suits != len(cfg.suits):
        raise ConfigError(
            f"{source}: key 'num_suits' = {cfg.num_suits} disagrees with 'suits' = {cfg.suits!r} "
            f"({len(cfg.suits)} suits); give one of them, or both consistently"
        )
    if cfg.hand_size not in (4, 7, 10, 13):
        raise ConfigError(f"{source}: key 'hand_size' = {cfg.hand_size} must be 3k+1 (4, 7, 10 or 13)")
    if cfg.cap_doublings is not None and cfg.cap_doublings < 0:
        raise ConfigError(f"{source}: key 'cap_doublings' must be >= 0 or null")
    if cfg.base_unit <= 0:
        raise ConfigError(f"{source}: key 'base_unit' must be positive")
    if cfg.wild == "hongzhong" and 31 not in cfg.extra_tiles:
        raise ConfigError(f"{source}: wild 'hongzhong' needs 红中 (5z) in 'extra_tiles'")
    if cfg.hands_per_match is not None and cfg.hands_per_match <= 0:
        raise ConfigError(f"{source}: key 'hands_per_match' must be positive or null")
    if cfg.forced_hu_last_n < 0:
        raise ConfigError(f"{source}: key 'forced_hu_last_n' must be >= 0")
    deck = cfg.num_tiles
    if deck < cfg.num_players * cfg.hand_size + 1:
        raise ConfigError(f"{source}: {deck} tiles cannot deal {cfg.num_players} hands of {cfg.hand_size}")
    _validate_scoring(cfg, source)


def _validate_scoring(cfg: RuleConfig, source: str) -> None:
    """Checks of the 断卡根 / Wuhan flags and of flag combinations the scorer relies on."""
    tiers = cfg.dkg_tier_units
    if not tiers or any(t <= 0 for t in tiers) or any(a > b for a, b in itertools.pairwise(tiers)):
        raise ConfigError(f"{source}: key 'dkg_tier_units' = {list(tiers)} must be positive and non-decreasing")
    for key in ("dkg_tiandihu_fixed", "dkg_qinghu_catch_bonus", "dkg_baohu_win_bonus", "dkg_baohu_penalty",
                "dkg_zimo_units", "wuhan_small_win_max_laizi", "wuhan_haidi_tiles"):  # fmt: skip
        if getattr(cfg, key) < 0:
            raise ConfigError(f"{source}: key {key!r} must be >= 0")
    for key in ("wuhan_small_base", "wuhan_big_base"):
        if getattr(cfg, key) < 1:
            raise ConfigError(f"{source}: key {key!r} must be >= 1")
    for key in ("wuhan_angang_factor", "wuhan_minggang_factor", "wuhan_hongzhong_gang_factor",
                "wuhan_laizi_gang_factor"):  # fmt: skip
        value = getattr(cfg, key)
        if value < 1 or value & (value - 1):
            raise ConfigError(f"{source}: key {key!r} = {value} must be a power of two (1, 2, 4, 8 ...)")
    caps, thresholds = cfg.wuhan_caps, cfg.wuhan_cap_thresholds
    if len(caps) != 3 or caps[0] <= 0 or not caps[0] <= caps[1] <= caps[2]:
        raise ConfigError(
            f"{source}: key 'wuhan_caps' = {list(caps)} must be three increasing amounts [封顶, 金顶, 钻顶]"
        )
    if len(thresholds) != 2 or thresholds[0] <= 0 or thresholds[0] > thresholds[1]:
        raise ConfigError(
            f"{source}: key 'wuhan_cap_thresholds' = {list(thresholds)} must be two increasing amounts "
            "[金顶 threshold, 钻顶 threshold]"
        )
    wuhan = cfg.fan_table == "wuhan"
    if cfg.zimo_bonus == "factor" and not wuhan:
        raise ConfigError(f"{source}: zimo_bonus 'factor' (自摸 x2) belongs to fan_table 'wuhan'")
    if wuhan and cfg.zimo_bonus not in ("factor", "none"):
        raise ConfigError(f"{source}: fan_table 'wuhan' needs zimo_bonus 'factor' or 'none', got {cfg.zimo_bonus!r}")
    if cfg.fan_table in DKG_TABLES and cfg.zimo_bonus not in ("jiadi", "none"):
        raise ConfigError(
            f"{source}: fan_table {cfg.fan_table!r} needs zimo_bonus 'jiadi' (+dkg_zimo_units base per payer) or "
            f"'none', got {cfg.zimo_bonus!r} (self-draw +1 fan is dkg_zimo_plus_one_fan)"
        )


def _from_mapping(data: dict[str, Any], source: str) -> RuleConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of rule flags, got {type(data).__name__}")
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELDS:
            raise ConfigError(
                f"{source}: unknown key {key!r}; valid keys are the fields of RuleConfig (e.g. "
                f"{', '.join(sorted(_FIELDS)[:6])}, ...)"
            )
        kwargs[key] = _check_value(key, value, _HINTS[key], source)
    _derive_suits(kwargs, source)
    try:
        cfg = RuleConfig(**kwargs)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("<RuleConfig>", source)) from None
    return cfg


def _derive_suits(kwargs: dict[str, Any], source: str) -> None:
    """Fill whichever of ``suits`` / ``num_suits`` is missing from the other (see :data:`SUIT_SETS`)."""
    if kwargs.get("num_suits") is not None and "suits" not in kwargs:
        n = kwargs["num_suits"]
        if n not in SUIT_SETS:
            raise ConfigError(f"{source}: key 'num_suits' = {n!r} must be 1, 2 or 3")
        kwargs["suits"] = SUIT_SETS[n]
        if n < 3:
            kwargs.setdefault("dingque", False)


def config_from_dict(data: dict[str, Any], source: str = "<mapping>") -> RuleConfig:
    """A :class:`RuleConfig` from a plain mapping of flags (the inverse of :meth:`RuleConfig.to_dict`); every value
    is checked as in a YAML file, and ``source`` names the mapping in error messages."""
    return _from_mapping(dict(data) if isinstance(data, dict) else data, source=source)


def load_config_file(path: str | Path, **overrides: Any) -> RuleConfig:
    """Load a variant YAML file (optionally with flag overrides)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"rule config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of rule flags at the top level")
    data.setdefault("name", path.stem)
    cfg = _from_mapping(data, source=str(path))
    return cfg.replace(**overrides) if overrides else cfg


def load_variant(variant: str | Path | RuleConfig, **overrides: Any) -> RuleConfig:
    """Resolve a preset name (``"hongzhong"``), a YAML path or a config object into a :class:`RuleConfig`."""
    if isinstance(variant, RuleConfig):
        return variant.replace(**overrides) if overrides else variant
    if isinstance(variant, Path) or (isinstance(variant, str) and variant.endswith((".yaml", ".yml"))):
        return load_config_file(variant, **overrides)
    if not isinstance(variant, str):
        raise ConfigError(f"variant must be a preset name, a YAML path or a RuleConfig, got {variant!r}")
    path = VARIANT_DIR / f"{variant}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in VARIANT_DIR.glob("*.yaml"))
        raise ConfigError(f"unknown variant {variant!r}; known presets: {', '.join(known)}")
    return _cached(variant).replace(**overrides) if overrides else _cached(variant)


_CACHE: dict[str, RuleConfig] = {}


def _cached(name: str) -> RuleConfig:
    cfg = _CACHE.get(name)
    if cfg is None:
        cfg = load_config_file(VARIANT_DIR / f"{name}.yaml")
        _CACHE[name] = cfg
    return cfg
