"""``chuanma eval --matches N`` and ``chuanma eval --room ROOM``: duplicate match evaluation (RULES.md §11)."""

from __future__ import annotations

import json

import pytest

from envs.core.rule_config import load_variant
from envs.engine.match import MatchRules
from training.cli import main
from training.evaluation.matches import evaluate_matches


def test_eval_matches_prints_placement_points_and_bankruptcy_with_intervals(capsys, tmp_path):
    argv = ["eval", "--variant", "chiyu", "--matches", "2", "--challenger", "value", "--opponent", "greedy"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "placement" in out and "final points" in out and "bankruptcy rate" in out and "95% intervals" in out
    data = json.loads((tmp_path / "matches.json").read_text(encoding="utf-8"))
    assert len(data["matches"]) == 2 and all(len(rows) == 4 for rows in data["matches"])  # every rotation
    for rows in data["matches"]:
        assert {row["seat"] for row in rows} == {0, 1, 2, 3}
        assert all(sum(row["standing"]) == 200000 for row in rows)


def test_eval_room_prints_chips_per_100_hands_and_bust_rate(capsys):
    argv = ["eval", "--room", "初级场", "--challenger", "value", "--opponent", "greedy", "--walls", "2"]
    assert main([*argv, "--stack", "2000", "--match-hands", "3"]) == 0
    out = capsys.readouterr().out
    assert "room 初级场" in out and "chips/100 hands" in out and "bust rate" in out


def test_a_duplicate_match_is_the_same_deal_from_every_seat():
    cfg = load_variant("hongzhong")
    rules = MatchRules.for_room("beginner", cfg, 2000, hands=2)
    report, rows = evaluate_matches(cfg, rules, "greedy", "greedy", matches=2, seed=3)
    # the same agent everywhere: every rotation plays the same match, so the results coincide seat by seat
    for match in rows:
        assert all(row["standing"] == match[0]["standing"] for row in match)
    assert report.placement[0] == pytest.approx(2.5) and report.hands == sum(r["hands"] for m in rows for r in m)


def test_bad_match_options_are_refused(capsys):
    base = ["--challenger", "value", "--opponent", "greedy"]
    for argv, message in (
        (["eval", "--room", "vip", *base], "unknown room 'vip'; known rooms: 初级场 (beginner)"),
        (["eval", "--room", "初级场", "--stack", "500", *base], "must be in 2000..100000 chips, got 500"),
        (["eval", "--matches", "2", "--stack", "5000", *base], "give --room"),
        (["eval", "--variant", "chengdu", "--matches", "2", *base], "sets no hands_per_match"),
    ):
        assert main(argv) != 0
        assert message in capsys.readouterr().err
