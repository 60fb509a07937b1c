"""Rule configuration: presets load, every key is checked, errors name the key and the file."""

from __future__ import annotations

import dataclasses

import pytest

from envs.core.rule_config import ENGINE_PRESETS, PRESETS, ConfigError, RuleConfig, load_config_file, load_variant


@pytest.mark.parametrize("name", PRESETS)
def test_presets_load_and_are_frozen(name):
    cfg = load_variant(name)
    assert cfg.name == name
    assert cfg.description
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.cap_doublings = 1  # type: ignore[misc]


def test_preset_values_follow_rules_md():
    cd, hz, xl, cy, yb, tp = (
        load_variant(n) for n in ("chengdu", "hongzhong", "xueliu", "chiyu", "yibin", "two_player")
    )
    assert (cd.num_tiles, hz.num_tiles, tp.num_players) == (108, 112, 2)
    assert cd.cap_doublings == 3 and xl.cap_doublings is None and tp.cap_doublings == 4 and yb.cap_doublings == 5
    assert hz.extra_tiles == (31, 31, 31, 31) and hz.wild == "hongzhong" and hz.exchange_direction == "next"
    assert hz.zimo_bonus == "jiafan" and cd.zimo_bonus == "jiadi"
    assert cy.pass_hu_lock == "none" and cy.hands_per_match == 4 and cy.start_points == 50000
    assert xl.continuation == "xueliu" and cd.continuation == "xuezhan"
    assert tp.allow_pinghu_on_discard is False and cd.allow_pinghu_on_discard is True
    assert 31 in hz.kinds and 31 not in cd.kinds and len(cd.kinds) == 27


def test_duankagen_and_wuhan_presets_follow_rules_md():
    dkg, wh = load_variant("duankagen"), load_variant("wuhan")
    assert (dkg.num_tiles, dkg.hand_size, len(dkg.kinds), dkg.dingque) == (72, 10, 18, False)
    assert dkg.fan_table == "dkg_wiki" and dkg.dkg_tier_units == (1, 2, 4, 8) and dkg.kong_payment == "xi_each_1"
    assert dkg.dkg_xiaohu_exceptions == ("baohu_discard", "qinghu_discard") and dkg.tiandihu == "fixed3"
    assert (wh.num_tiles, len(wh.kinds), wh.wild, wh.allow_chi, wh.multi_ron) == (136, 34, "laizi", True, False)
    assert wh.zimo_bonus == "factor" and wh.kong_payment == "factor" and wh.continuation == "single"
    assert wh.wuhan_caps == (300, 400, 700) and wh.wuhan_cap_thresholds == (300, 600)
    assert (wh.wuhan_angang_factor, wh.wuhan_laizi_gang_factor, wh.kong_draw_from) == (4, 2, "back")


def test_engine_presets_are_presets():
    assert set(ENGINE_PRESETS) == set(PRESETS)


def test_yaml_files_document_every_flag():
    # chengdu.yaml lists every general flag (§9.1); each variant file lists its own variant-specific flags (§9.2).
    import yaml

    from envs.core.rule_config import VARIANT_DIR

    def keys(name):
        return set(yaml.safe_load((VARIANT_DIR / f"{name}.yaml").read_text()))

    fields = {f.name for f in dataclasses.fields(RuleConfig)}
    specific = {
        "hongzhong": {f for f in fields if f.startswith("hz_")},
        "yibin": {f for f in fields if f.startswith("yibin_")} | {"piao"},
        "chiyu": {"point_cap", "tsumo_bonus_points", "huazhu_min_points"},
        "two_player": {"num_suits"},
        "duankagen": {f for f in fields if f.startswith("dkg_")},
        "wuhan": {f for f in fields if f.startswith("wuhan_")} | {"laizi_discard_is_gang"},
    }
    assert keys("chengdu") == fields - set().union(*specific.values())
    for name, flags in specific.items():
        assert flags <= keys(name), name


def test_unknown_key_names_key_and_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\ncap_doubling: 3\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml.*unknown key 'cap_doubling'"):
        load_config_file(path)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("cap_doublings: three\n", "'cap_doublings' expects an integer"),
        ("dingque: 1\n", "'dingque' expects true/false"),
        ("exchange_direction: left\n", "'exchange_direction' = 'left' is not one of"),
        ("extra_tiles: [9z]\n", "'extra_tiles'"),
        ("num_players: 5\n", "'num_players'"),
        ("suits: mx\n", "'suits'"),
        ("wild: hongzhong\n", "needs 红中"),
        ("- a\n- b\n", "mapping"),
        ("dkg_tier_units: [2, 1]\n", "'dkg_tier_units'.*non-decreasing"),
        ("dkg_tier_units: 4\n", "'dkg_tier_units' expects a list"),
        ("dkg_xiaohu_exceptions: [always]\n", "'dkg_xiaohu_exceptions\\[0\\]' = 'always' is not one of"),
        ("wuhan_angang_factor: 3\n", "'wuhan_angang_factor' = 3 must be a power of two"),
        ("wuhan_caps: [300, 400]\n", "'wuhan_caps'"),
        ("wuhan_cap_thresholds: [600, 300]\n", "'wuhan_cap_thresholds'"),
        ("wuhan_big_base: 0\n", "'wuhan_big_base' must be >= 1"),
        ("zimo_bonus: factor\n", "belongs to fan_table 'wuhan'"),
        ("fan_table: wuhan\n", "fan_table 'wuhan' needs zimo_bonus"),
        ("fan_table: dkg_wiki\nzimo_bonus: jiafan\n", "dkg_zimo_plus_one_fan"),
    ],
)
def test_bad_values_raise(tmp_path, text, pattern):
    path = tmp_path / "v.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=pattern):
        load_config_file(path)


def test_overrides_and_replace():
    cfg = load_variant("chengdu", cap_doublings=None, zimo_bonus="jiafan")
    assert cfg.cap_doublings is None and cfg.zimo_bonus == "jiafan"
    assert load_variant("chengdu").cap_doublings == 3  # the cached preset is untouched
    with pytest.raises(ConfigError, match="unknown key 'nope'"):
        cfg.replace(nope=1)
    assert load_variant(cfg) is cfg


@pytest.mark.parametrize(
    ("num_suits", "suits", "tiles", "dingque"), [(3, "mps", 108, True), (2, "sp", 72, False), (1, "s", 36, False)]
)
def test_num_suits_selects_the_suits_of_the_two_player_game(num_suits, suits, tiles, dingque):
    """RULES §4.7: 三方 (108 tiles, 定缺), 2方 (条+筒, 72 tiles, no 定缺/花猪), 两人一房 (36 tiles); the dealt game
    holds only those suits, and a greedy table plays whole hands."""
    from agents.greedy import GreedyAgent
    from envs.core.tiles import counts_to_kinds, suit_letter
    from envs.engine.game import Game
    from training.evaluation.evaluate import play_hand

    cfg = load_variant("two_player", num_suits=num_suits)
    assert (cfg.suits, cfg.num_tiles, cfg.dingque) == (suits, tiles, dingque)
    game = Game(cfg, seed=3)
    dealt = [k for seat in range(2) for k in counts_to_kinds(game.hand_of(seat))] + list(game.live_wall())
    assert len(dealt) == tiles and {suit_letter(k) for k in dealt} == set(suits)
    finished = play_hand(cfg, 5, [GreedyAgent(), GreedyAgent()])
    assert finished.is_over and sum(finished.scores) == 0


def test_suits_and_num_suits_agree():
    assert load_variant("duankagen").num_suits == 2 and load_variant("chengdu", suits="sp").num_suits == 2
    assert RuleConfig(suits="sp").num_suits == 2
    assert load_variant("two_player", num_suits=2, dingque=True).dingque  # an explicit 定缺 wins
    assert not load_variant("wuhan", num_suits=3).dingque  # three suits keep the variant's own 定缺 choice
    with pytest.raises(ConfigError, match="'num_suits' = 2 disagrees with 'suits' = 'mps'"):
        load_variant("two_player", num_suits=2, suits="mps")
    with pytest.raises(ConfigError, match="'num_suits' = 7 must be 1, 2 or 3"):
        load_variant("two_player", num_suits=7)
    with pytest.raises(ConfigError, match="disagrees"):
        RuleConfig(suits="sp", num_suits=3)


def test_unknown_variant_lists_presets():
    with pytest.raises(ConfigError, match="unknown variant 'sichuan'.*chengdu"):
        load_variant("sichuan")
    with pytest.raises(ConfigError, match="does not exist"):
        load_variant("missing.yaml")


def test_direct_construction_normalises_tiles():
    cfg = RuleConfig(extra_tiles=["5z", "5z", "5z", "5z"], wild="hongzhong")  # type: ignore[arg-type]
    assert cfg.extra_tiles == (31, 31, 31, 31)
    with pytest.raises(ConfigError, match="'multi_ron' expects true/false"):
        RuleConfig(multi_ron="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["hongzhong", "duankagen", "wuhan"])
def test_to_dict_round_trip(name):
    cfg = load_variant(name)
    data = cfg.to_dict()
    assert all(not isinstance(v, tuple) for v in data.values())  # YAML/JSON-friendly lists
    assert RuleConfig(**data) == cfg
