"""The flag registry (envs.core.flag_registry): every RuleConfig field classified, each engine refusing by name what it
does not play."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from envs.compiled.support import check_supported, unsupported
from envs.core import flag_registry
from envs.core.rule_config import RuleConfig, load_variant
from envs.engine.game import Game, UnsupportedRule, engine_problems

FIELDS = [f.name for f in dataclasses.fields(RuleConfig)]


def test_every_field_is_classified():
    assert list(flag_registry.FLAGS) == FIELDS  # same names, in the dataclass's order
    assert flag_registry.unclassified(RuleConfig()) == []


@dataclasses.dataclass(frozen=True)
class _WithNewFlag(RuleConfig):
    """A RuleConfig with one more rule flag, as a contributor adding a field to the dataclass alone would write."""

    brand_new_rule: bool = False


def test_a_new_field_is_refused_by_name():
    cfg = _WithNewFlag()
    assert flag_registry.unclassified(cfg) == ["brand_new_rule"]
    assert any(p.startswith("brand_new_rule ") for p in flag_registry.problems(cfg, "compiled"))
    assert any(p.startswith("brand_new_rule ") for p in unsupported(cfg))
    with pytest.raises(UnsupportedRule, match="brand_new_rule"):
        check_supported(cfg)


def _family(key: str) -> str:
    """The preset whose rules a flag belongs to."""
    for prefix, preset in (("dkg_", "duankagen"), ("wuhan_", "wuhan"), ("yibin_", "yibin"), ("piao", "yibin")):
        if key.startswith(prefix):
            return preset
    return "hongzhong" if key.startswith("hz_") else "chengdu"


def _other_value(key: str, allowed: tuple) -> object:
    """A value of field ``key`` the config's type accepts outside ``allowed`` (None when ``allowed`` lists them all)."""
    hint = typing.get_type_hints(RuleConfig)[key]
    candidates = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else None
    if hint is bool:
        candidates = (False, True)
    if hint is int:
        candidates = (allowed[0] + 1, allowed[0] - 1)
    assert candidates is not None, key
    return next((v for v in candidates if v not in allowed), None)


RESTRICTED = [
    (key, engine, value)
    for key, flag in flag_registry.FLAGS.items()
    for engine in ("python", "compiled")
    if flag.values(engine) is not None and (value := _other_value(key, flag.values(engine))) is not None
]


@pytest.mark.parametrize(("key", "engine", "value"), RESTRICTED)
def test_values_outside_the_registry_are_refused_by_name(key, engine, value):
    cfg = load_variant(_family(key), **{key: value})
    assert any(p.startswith(f"{key} ") for p in flag_registry.problems(cfg, engine))
    if engine == "python":
        assert any(p.startswith(f"{key} ") for p in engine_problems(cfg))
        with pytest.raises(UnsupportedRule, match=key):
            Game(cfg, seed=0)
    else:
        with pytest.raises(UnsupportedRule, match=key):
            check_supported(cfg)


def test_the_python_engine_plays_what_the_registry_says():
    """Every value the registry lists for the Python engine is played: the refusals of ``engine_problems`` on a
    preset are exactly the registry's Python ones."""
    for key, flag in flag_registry.FLAGS.items():
        allowed = flag.values("python")
        if allowed is None:
            continue
        for value in allowed:
            cfg = load_variant(_family(key), **{key: value})
            assert not engine_problems(cfg), (key, value)
