"""The table behind ``chuanma play`` (training.play.table): agents play every seat but the person's, the person's
actions are checked against the engine's legal actions, and the state shows only what the person's seat may see."""

from __future__ import annotations

import json
import sys

import pytest

from envs.core.actions import HU, PONG, Action, ActionType
from envs.core.rule_config import PRESETS
from training.play.table import IllegalAction, PlayTable, action_label, tile_name


def _first_legal_until_over(table: PlayTable) -> int:
    decisions = 0
    while not table.game.is_over:
        table.act(table.legal_actions()[0])
        decisions += 1
    return decisions


@pytest.mark.parametrize("variant", PRESETS)
def test_agents_play_until_the_person_decides(variant):
    table = PlayTable(variant, ["value"], seat=1, seed=7)
    n = table.cfg.num_players
    while not table.game.is_over:
        assert table.game.pending == (1,)  # the agents have answered first
        legal = table.legal_actions()
        assert legal == table.game.legal_actions(1)
        state = table.state()
        assert [entry["action"]["type"] for entry in state["legal"]] == [a.type.name for a in legal]
        table.act(legal[-1])
    state = table.state()
    assert state["hand_over"] and not state["to_act"] and state["legal"] == []
    assert state["settlement"]["scores"] == list(table.game.result.scores)
    assert sum(state["settlement"]["scores"]) == 0
    assert len(state["players"]) == n
    json.dumps(state)  # JSON-ready


def test_the_state_shows_no_concealed_tile_of_another_seat():
    table = PlayTable("chengdu", ["value"], seat=0, seed=3)
    for _ in range(6):
        table.act(table.legal_actions()[0])
    state = table.state()
    g = table.game
    mine = sorted(state["hand"] + ([state["drawn"]] if state["drawn"] is not None else []))
    assert mine == [k for k, c in enumerate(g.hands[0]) for _ in range(c)]
    for p in state["players"][1:]:
        assert set(p) == {
            "seat", "name", "dealer", "void", "won", "active", "score", "points", "concealed", "revealed", "melds",
            "discards",
        }  # fmt: skip
        assert p["revealed"] is None  # 血战 reveals no hand
        assert p["concealed"] == sum(g.hands[p["seat"]])
    assert not any(e.get("type") in ("hand_start", "deal") and e.get("wall") for e in g.events_for(0))


def test_an_illegal_action_is_refused_and_leaves_the_game_unchanged():
    table = PlayTable("chengdu", ["greedy"], seed=1)
    before = table.game.snapshot()
    with pytest.raises(IllegalAction, match=r"^pong \(碰\) is not legal now; legal: exchange "):
        table.act(PONG)
    with pytest.raises(IllegalAction, match="not legal now"):
        table.act(Action(ActionType.DISCARD, 99))
    assert table.game.snapshot() == before
    _first_legal_until_over(table)
    with pytest.raises(IllegalAction, match=r"^hu \(胡 自摸\) refused: the hand is over$"):
        table.act(HU)


def test_the_game_goes_on_for_its_hands_and_then_ends():
    table = PlayTable("two_player", "random", seed=5, hands=2)
    with pytest.raises(ValueError, match="hand 1 is still being played"):
        table.next_hand()
    _first_legal_until_over(table)
    assert not table.is_over and table.state()["finished_hands"] == 1
    table.next_hand()
    assert table.state()["hand_number"] == 2
    _first_legal_until_over(table)
    assert table.is_over and table.state()["game_over"]
    with pytest.raises(ValueError, match=r"the game is over after 2 hand\(s\)"):
        table.next_hand()
    totals = [sum(g.result.scores[s] for g in table.finished_games()) for s in range(2)]
    assert table.state()["settlement"]["points"] == totals


def test_a_seed_deals_the_same_game():
    a, b = (PlayTable("hongzhong", ["value"], seed=42) for _ in range(2))
    _first_legal_until_over(a)
    _first_legal_until_over(b)
    assert a.game.events == b.game.events


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seat": 4}, "seat must be 0..3"),
        ({"seat": True}, "seat must be 0..3"),
        ({"opponents": ["value", "greedy"]}, "has 3 opponent seat"),
        ({"opponents": ["nosuch"]}, "unknown agent 'nosuch'"),
        ({"hands": 0}, "hands must be a positive number"),
        ({"variant": "chiyu", "hands": 5}, "plays at most 4 hands"),
    ],
)
def test_bad_options_are_refused_by_name(options, message):
    options = {"variant": "chengdu", "opponents": ["value"], **options}
    with pytest.raises(ValueError, match=message):
        PlayTable(options.pop("variant"), options.pop("opponents"), **options)


def test_labels_name_the_tiles_in_chinese():
    assert [tile_name(k) for k in (4, 9, 26, 27, 31)] == ["5万", "1筒", "9条", "东", "中"]
    assert action_label(Action(ActionType.DISCARD, 4)) == "打 5万"
    assert action_label(PONG, 13) == "碰 5筒"
    assert action_label(HU) == "胡 自摸"
    assert action_label(HU, 13) == "胡 5筒"
    assert action_label(Action(ActionType.DINGQUE, 2)) == "缺 条"
    assert action_label(Action(ActionType.EXCHANGE, tiles=(0, 0, 8))) == "换 1万 1万 9万"


def test_play_command_refuses_bad_options_without_starting(capsys):
    from training.cli import main

    assert main(["play", "--variant", "chengdu", "--opponents", "nosuch", "--no-browser", "--seed", "1"]) == 2
    assert "unknown agent 'nosuch'" in capsys.readouterr().err
    assert main(["play", "--variant", "chengdu", "--port", "70000", "--no-browser", "--seed", "1"]) == 2
    assert "port must be 0..65535" in capsys.readouterr().err


def test_any_agent_spec_plays_a_seat_and_outside_bots_are_stopped():
    bot = f"external:{sys.executable} agents/examples/random_bot.py"
    table = PlayTable("hongzhong", ["policy:tests/data/legacy_run/final.zip", "defensive", bot], seed=2, hands=2)
    try:
        assert table.names == ["you", "policy:tests/data/legacy_run/final.zip", "defensive", bot]
        for hand in range(2):
            _first_legal_until_over(table)
            assert sum(table.game.result.scores) == 0
            if hand == 0:
                table.next_hand()
        outside = table.agents[3]
        assert outside.faults["decisions"] > 0 and sum(outside.faults.values()) == outside.faults["decisions"]
        process = outside._proc
        assert process.poll() is None
    finally:
        table.close()
    assert process.poll() is not None  # the bot's process has ended
