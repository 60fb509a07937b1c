"""The examples in the docstrings (doctests) of the packages run and print what they show.

Every module of ``envs``, ``agents`` and ``training`` whose source holds a ``>>>`` example is collected, so a new
doctest runs here without being listed.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("envs", "agents", "training")


def _modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                rel = path.relative_to(ROOT).with_suffix("")
                names.append(".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts))
    return names


MODULES = _modules_with_examples()


def test_the_helpers_have_examples():
    for module in (
        "envs.core.tiles",
        "envs.core.actions",
        "envs.core.rule_config",
        "envs.core.flag_registry",
        "envs.compiled.fan_values",
    ):
        assert module in MODULES, module


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
