"""Every rule flag, classified for each engine (规则开关登记): no flag is played silently at its default.

Each field of :class:`envs.core.rule_config.RuleConfig` has one :class:`Flag` entry in :data:`FLAGS`:

* ``role`` says who reads it: :attr:`Role.PLAYED` (the state machine: deals, offers, claims, the end of a hand),
  :attr:`Role.PRICED` (only the scorer and the settlement: fan values, payments, caps), :attr:`Role.MATCH` (only the
  match driver :class:`envs.engine.match.Match`, between hands; a single hand never reads it) or :attr:`Role.LABEL` (no
  rule of its own: a name, a display setting, a count that follows another field).
* ``python`` and ``compiled`` are the values each engine plays (:data:`ALL`: every value the config accepts).  One
  value is a required value; any other value is refused by name, with ``what`` saying what the engine plays.

:func:`problems` lists the fields of a configuration an engine does not play, naming each one, and names every field
the registry does not classify, so a flag added to ``RuleConfig`` alone is refused by the compiled engine (and
caught by ``tests/test_flag_registry.py``) instead of being played at its default.

>>> FLAGS["dead_wait_counts_as_ready"].compiled
(True,)
>>> from envs.core.rule_config import load_variant
>>> problems(load_variant("chengdu", dead_wait_counts_as_ready=False), "compiled")
['dead_wait_counts_as_ready = False (it plays 查大叫 without counting the unseen copies of a wait: True)']
>>> problems(load_variant("chengdu", dead_wait_counts_as_ready=False), "python")
[]
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any, Literal

from envs.core.rule_config import RuleConfig

Engine = Literal["python", "compiled"]

ALL = None
"""Every value the configuration accepts is played."""


class Role(enum.Enum):
    """Who reads a flag."""

    PLAYED = "played"
    PRICED = "priced only"
    MATCH = "match only"
    LABEL = "label"


@dataclass(frozen=True)
class Flag:
    """One field of :class:`~envs.core.rule_config.RuleConfig`: who reads it and the values each engine plays."""

    role: Role
    python: tuple[Any, ...] | None = ALL
    compiled: tuple[Any, ...] | None = ALL
    what: str = ""  # what an engine plays where it restricts the values

    def values(self, engine: Engine) -> tuple[Any, ...] | None:
        """The values ``engine`` plays (``None``: all)."""
        return self.python if engine == "python" else self.compiled


_P, _S, _M, _L = Role.PLAYED, Role.PRICED, Role.MATCH, Role.LABEL
_FALSE = (False,)

FLAGS: dict[str, Flag] = {
    "name": Flag(_L),
    "description": Flag(_L),
    # --- tiles and wildcards ---
    "num_players": Flag(_P),
    "suits": Flag(_P),
    "extra_tiles": Flag(_P),  # the compiled engine checks it against ``wild`` (envs.compiled.support)
    "hand_size": Flag(_P),
    "base_unit": Flag(_S),
    "wild": Flag(_P, compiled=("none", "hongzhong", "tingyong", "laizi")),
    "wild_in_melds": Flag(_P, compiled=_FALSE, what="no wildcards in melds"),
    "wild_counts_for_gen": Flag(_S),
    "wild_ignores_four_copy_limit": Flag(_P, compiled=_FALSE, what="wildcards within the four-copy limit"),
    "allow_chi": Flag(_P),
    "indicator_removed_from_wall": Flag(_P),
    # --- exchange and void ---
    "exchange_mode": Flag(_P, python=("swap3", "none"), compiled=("swap3", "none"), what="换三张 or no exchange"),
    "exchange_direction": Flag(_P),
    "dingque": Flag(_P),
    "must_discard_void_first": Flag(_P),
    "huazhu_definition": Flag(_S),
    # --- wins, continuation, matches ---
    "multi_ron": Flag(_P),
    "multi_ron_dealer": Flag(_M),
    "dealer_rule": Flag(_M),
    "hands_per_match": Flag(_M),
    "start_points": Flag(_P),
    "continuation": Flag(_P, compiled=("xuezhan", "xueliu", "single")),
    "reveal_winner_hand": Flag(_P),
    "xueliu_kong_requires_same_waits": Flag(_P),
    # --- kongs ---
    "reveal_concealed_kong": Flag(_P),
    "kong_draw_from": Flag(_P),
    "kong_on_last_tile": Flag(_P),
    "claims_on_last_discard": Flag(_P),
    "kong_payment": Flag(_S),
    "bugang_pay_requires_immediate": Flag(_S),
    "hujiao_zhuanyi": Flag(_S),
    "dianganghua": Flag(_P),
    "after_rob_next": Flag(_P),
    # --- pass locks and forced wins ---
    "pass_hu_lock": Flag(_P, compiled=("same_tile", "none"), what="a 过胡 lock on the same tile or none"),
    "pass_hu_allow_higher": Flag(_P),
    "pass_pong_lock": Flag(_P),
    "forced_hu_last_n": Flag(_P),
    # --- scoring ---
    "fan_table": Flag(_P),  # picks the variant hooks; the compiled engine checks it has them (envs.compiled.support)
    "fan_display": Flag(_L),
    "zimo_bonus": Flag(_S),
    "zimo_jiadi_after_cap": Flag(_S),
    "cap_doublings": Flag(_S),
    "enable_yaojiu_jiangdui": Flag(_S),
    "enable_menqing": Flag(_S),
    "enable_duanyao": Flag(_S),
    "enable_juezhang": Flag(_S),
    "jiang_jingou_stack": Flag(_S),
    "longqidui_mode": Flag(_S),
    "tiandihu": Flag(_S),
    "dihu_definition": Flag(_P),
    "allow_pinghu_on_discard": Flag(_P),
    # --- end of hand ---
    "huazhu_penalty": Flag(_S),
    "huazhu_multiplier": Flag(_S),
    "huazhu_penalty_capped": Flag(_S),
    "chadajiao": Flag(_S),
    "dead_wait_counts_as_ready": Flag(_S, compiled=(True,), what="查大叫 without counting the unseen copies of a wait"),
    "ready_excludes_fifth_tile": Flag(_S),
    "refund_kong_if_not_ready": Flag(_S),
    # --- 红中 ---
    "hz_four_red_instant": Flag(_P),
    "hz_four_red_ends_hand": Flag(_P),
    "hz_qidui_doublings": Flag(_S),
    "hz_yaojiu_definition": Flag(_S),
    "hz_inherit_situational": Flag(_S),
    "hz_tiandihu_fixed": Flag(_S),
    "hz_red_discard_claimable": Flag(_P, compiled=_FALSE, what="dead 红中 discards"),
    # --- 宜宾 ---
    "yibin_tingyong_count": Flag(_P, compiled=(8,), what="the two 听用 neighbours of the 本金"),
    "yibin_fei_max_wild": Flag(_P),
    "yibin_duidui_doublings": Flag(_S),
    "yibin_wutingyong": Flag(_S),
    "yibin_zimo_only": Flag(_P, python=_FALSE, compiled=_FALSE, what="wins on discards too (no 只和自摸)"),
    "yibin_min_fan_rule": Flag(_P, python=_FALSE, compiled=_FALSE, what="no 碰/飞后2番起和 minimum"),
    "piao": Flag(_S, python=_FALSE, compiled=_FALSE, what="no 漂 side bets"),
    # --- 断卡根 ---
    "dkg_tier_units": Flag(_S),
    "dkg_xiaohu_exceptions": Flag(_S),
    "dkg_zimo_plus_one_fan": Flag(_S),
    "dkg_xiaohu_zimo_vs_baohu": Flag(_P),
    "dkg_erheyi": Flag(_P, python=_FALSE, compiled=_FALSE, what="no 报请胡 (二合一)"),
    "dkg_tiandihu_fixed": Flag(_S),
    "dkg_qinghu_catch_bonus": Flag(_S),
    "dkg_baohu_win_bonus": Flag(_S),
    "dkg_baohu_penalty": Flag(_S),
    "dkg_zimo_units": Flag(_S),
    # --- 武汉 (the 开口 and 将 rules are judged by the scorer on every win) ---
    "wuhan_open_mode": Flag(_S),
    "wuhan_angang_factor": Flag(_S),
    "wuhan_minggang_factor": Flag(_S),
    "wuhan_hongzhong_gang_factor": Flag(_S),
    "wuhan_laizi_gang_factor": Flag(_S),
    "wuhan_small_base": Flag(_S),
    "wuhan_big_base": Flag(_S),
    "wuhan_small_win_max_laizi": Flag(_S),
    "wuhan_caps": Flag(_S),
    "wuhan_cap_thresholds": Flag(_S),
    "wuhan_cap_threshold_inclusive": Flag(_S),
    "wuhan_discard_all_pay": Flag(_S),
    "wuhan_rob_chonggang": Flag(_P, python=_FALSE, compiled=_FALSE, what="no robbing of an exposed kong"),
    "wuhan_haidi_tiles": Flag(_P),
    "laizi_discard_is_gang": Flag(_P),
    # --- 赤羽 (Mahjong Soul) points ---
    "point_cap": Flag(_S),
    "tsumo_bonus_points": Flag(_S),
    "huazhu_min_points": Flag(_S),
    "num_suits": Flag(_L),  # follows ``suits``
}
"""The classification of every :class:`~envs.core.rule_config.RuleConfig` field (a test holds the keys equal to the
fields)."""


def unclassified(cfg: RuleConfig) -> list[str]:
    """The fields of ``cfg`` (a :class:`~envs.core.rule_config.RuleConfig`, or a subclass with more fields) missing in
    :data:`FLAGS`."""
    return [f.name for f in dataclasses.fields(cfg) if f.name not in FLAGS]


def problems(cfg: RuleConfig, engine: Engine) -> list[str]:
    """The fields of ``cfg`` ``engine`` does not play, each named: an unclassified field, or a value outside the
    ones the registry lists for that engine (empty when it plays them all)."""
    out = [
        f"{key} (a flag the registry does not classify: add it to envs.core.flag_registry.FLAGS)"
        for key in unclassified(cfg)
    ]
    for key, flag in FLAGS.items():
        allowed = flag.values(engine)
        if allowed is None:
            continue
        got = getattr(cfg, key)
        if got not in allowed:
            want = ", ".join(map(repr, allowed))
            out.append(
                f"{key} = {got!r} (it plays {flag.what}: {want})" if flag.what else f"{key} = {got!r} (it plays {want})"
            )
    return out
