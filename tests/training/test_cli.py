"""The ``chuanma`` command line: variants, score, simulate and the eval help."""

from __future__ import annotations

import json
import re

import pytest

from envs.engine.simulate import simulate
from training.cli import main


def test_variants_json(capsys):
    assert main(["variants", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"chengdu", "hongzhong", "xueliu", "chiyu", "two_player"}


def test_score_prints_breakdown(capsys):
    # RULES.md §7 C4: 清龙七对 on a discard, raw 32x capped at 8x.
    assert main(["score", "chengdu", "11m 22m 33m 4444m 55m 6m", "--win", "6m", "--void", "s", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["is_win"] and out["doublings"] == 5 and out["payment"] == 8
    assert out["breakdown"] == {"qing_yi_se": 2, "qi_dui": 2, "gen": 1}


def test_score_bad_input_is_a_clear_error(capsys):
    assert main(["score", "chengdu", "11m", "--win", "6m"]) == 2
    assert "wrong tile count" in capsys.readouterr().err


def test_simulate_json_is_reproducible(capsys):
    assert main(["simulate", "--variant", "hongzhong", "--games", "6", "--seed", "3", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["simulate", "--variant", "hongzhong", "--games", "6", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    (row,) = first
    assert row["variant"] == "hongzhong" and row["hands"] == 6 and row["decisions_per_hand"] > 20


def test_simulate_no_progress_turns_the_bar_off(capsys):
    assert main(["simulate", "--variant", "two_player", "--games", "2"]) == 0
    assert "simulate two_player" in capsys.readouterr().err  # the tqdm bar
    assert main(["simulate", "--variant", "two_player", "--games", "2", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "two_player" in out and err == ""


def test_simulate_statistics_are_consistent():
    stats = simulate("two_player", 8, seed=5)
    assert stats.hands == 8
    assert sum(stats.win_types.values()) == stats.wins
    # two players, blood battle: a hand ends at the first win or at exhaustion
    assert stats.wins + stats.exhaustive == 8
    with pytest.raises(ValueError, match="at least 1"):
        simulate("chengdu", 0)


def test_score_passes_variant_context(capsys):
    # RULES.md §7.5 D1: 清一色 + two 卡 = 4 fan -> 超叫 tier 8, +1 base on the self-draw.
    assert main(["score", "duankagen", "456s 456s 789s 1s", "--win", "1s", "--self-drawn", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["payment"] == 9 and out["breakdown"] == {"qing_yi_se": 2, "ka": 2}


def test_eval_help_lists_the_agent_grammar_and_the_walls_default(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = capsys.readouterr().out
    for text in ("agent specifications:", "NAME:key=value", "external:COMMAND", "policy:PATH", "sb3:PATH"):
        assert text in out, text
    assert re.search(r"--walls WALLS\s+number of walls, each played once per seat\s+\(default\s+100\)", out)
