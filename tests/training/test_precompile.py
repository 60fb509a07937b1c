"""``chuanma compile`` (training.precompile): plays every requested preset on the compiled engine's entry points,
reports whether they came from the cache, and refuses bad input by name."""

from __future__ import annotations

import pytest

from envs.compiled import kernel as K
from training.cli import main
from training.precompile import CompileReport, agents_cached, compile_engine


def test_compile_engine_leaves_the_entry_points_compiled():
    report = compile_engine(("chengdu", "wuhan"), decisions=8)
    assert report.presets == ("chengdu", "wuhan") and report.seconds > 0
    assert K.deal.signatures and K.apply_action.signatures and K.legal_mask.signatures
    again = compile_engine(("chengdu",), decisions=4)
    assert again.was_cached and again.agents_were_cached and agents_cached()
    assert again.line().startswith(
        "compiled engine loaded from the on-disk cache, compiled agents loaded from the on-disk cache, in "
    )
    cold = CompileReport(300.0, True, ("chengdu",), agents_were_cached=False)  # agents changed, engine not
    assert "compiled engine loaded from the on-disk cache, compiled agents compiled and cached" in cold.line()


def test_the_command_prints_its_report(capsys):
    assert main(["compile", "--variant", "two_player"]) == 0
    assert "compiled engine" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("presets", "decisions", "message"),
    [(("chengdu", "sichuan"), 8, r"unknown presets \['sichuan'\]"), (("chengdu",), 0, "decisions must be at least 1")],
)
def test_bad_requests_are_refused(presets, decisions, message):
    with pytest.raises(ValueError, match=message):
        compile_engine(presets, decisions)
