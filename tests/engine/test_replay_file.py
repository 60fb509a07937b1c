"""Replay files: round trip, the engine check (tampered files refused), bad input named, versions refused."""

from __future__ import annotations

import copy
import itertools
import json

import pytest

from envs.engine.replay_file import (
    FORMAT_VERSION,
    RULES_VERSION,
    ReplayError,
    dumps_replay,
    load_replay,
    loads_replay,
    save_replay,
    verify_replay,
)
from tests.helpers.replays import greedy_replay, random_replay

VARIANTS = ("chengdu", "xueliu", "hongzhong", "yibin", "duankagen", "wuhan", "two_player")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_saved_hand_loads_unchanged_and_the_engine_reproduces_it(tmp_path, variant):
    doc = random_replay(variant, 3)
    path = save_replay(tmp_path / "r.json", doc)
    loaded = load_replay(path)
    assert loaded == json.loads(json.dumps(doc))
    (game,) = verify_replay(loaded)
    hand = loaded["hands"][0]
    assert hand["result"]["scores"] == list(game.result.scores)
    assert hand["events"][-1]["type"] == "hand_end"
    assert hand["events"][-1]["scores"] == list(game.scores)
    assert hand["wall"] == hand["events"][0]["wall"]
    assert len(hand["commitment"]) == 64


def test_wins_carry_their_fan_breakdown_and_payments():
    doc = greedy_replay("chengdu", 0)
    (game,) = verify_replay(doc)
    wins = doc["hands"][0]["result"]["wins"]
    assert len(wins) == len(game.result.wins) == 3
    for win, info in zip(wins, game.result.wins):
        assert (win["seat"], win["tile"], win["how"], win["doublings"]) == (
            info.seat,
            info.tile,
            info.how,
            info.doublings,
        )
        assert win["breakdown"]
        assert sum(t["amount"] for t in win["transfers"] if t["receiver"] == win["seat"]) > 0
        assert all(t["receiver"] == win["seat"] for t in win["transfers"])


def test_per_event_scores_follow_the_transfers():
    doc = greedy_replay("chengdu", 0)
    events = doc["hands"][0]["events"]
    for before, ev in itertools.pairwise(events):
        expected = list(before["scores"])
        if ev["type"] == "transfer":
            expected[ev["payer"]] -= ev["amount"]
            expected[ev["receiver"]] += ev["amount"]
        assert ev["scores"] == expected


def _first(doc, type_):
    events = doc["hands"][0]["events"]
    return next(i for i, ev in enumerate(events) if ev["type"] == type_)


def test_a_tampered_discard_is_refused_naming_the_event():
    doc = random_replay("chengdu", 3)
    i = _first(doc, "discard")
    ev = doc["hands"][0]["events"][i]
    ev["tile"] = (ev["tile"] + 1) % 27
    with pytest.raises(ReplayError, match=rf"hands\[0\]\.events\[{i}\]: the file has .* but the engine gives"):
        verify_replay(doc)


def test_an_illegal_action_is_refused():
    doc = random_replay("chengdu", 3)
    events = doc["hands"][0]["events"]
    i = next(i for i, ev in enumerate(events) if ev["type"] == "action" and ev["action"]["type"] == "DISCARD")
    events[i]["action"] = {"type": "HU", "tile": -1, "tiles": []}
    with pytest.raises(ReplayError, match=rf"hands\[0\]\.events: the engine cannot replay them: event {i} "):
        verify_replay(doc)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda h: h["events"][-1]["scores"].__setitem__(0, 99), r"events\[\d+\]"),
        (lambda h: h["result"]["scores"].__setitem__(0, 99), r"hands\[0\]\.result"),
        (lambda h: h.__setitem__("commitment", "0" * 64), r"hands\[0\]\.commitment"),
        (lambda h: h["events"].pop(-2), r"hands\[0\]\.events"),
    ],
)
def test_other_tampering_is_refused(change, where):
    doc = random_replay("chengdu", 3)
    change(doc["hands"][0])
    with pytest.raises(ReplayError, match=where):
        verify_replay(doc)


def test_a_changed_wall_is_refused():
    doc = random_replay("chengdu", 3)
    hand = doc["hands"][0]
    wall = hand["wall"]
    j = next(j for j in range(len(wall)) if wall[j] != wall[-1])
    wall[j], wall[-1] = wall[-1], wall[j]
    hand["events"][0]["wall"] = list(wall)
    with pytest.raises(ReplayError, match=r"hands\[0\]\.wall: is not the wall the seed deals"):
        verify_replay(doc)


def test_a_truncated_file_names_the_line_where_it_ends(tmp_path):
    text = dumps_replay(random_replay("chengdu", 3))
    cut = text[: len(text) // 2]
    line = cut.count("\n") + 1
    path = tmp_path / "cut.json"
    path.write_text(cut, encoding="utf-8")
    with pytest.raises(ReplayError, match=rf"cut\.json: line {line} column \d+: the file ends early \(truncated\?\)"):
        load_replay(path)


def test_malformed_json_names_line_and_column():
    lines = dumps_replay(random_replay("chengdu", 3)).splitlines()
    lines[20] = lines[20].replace('"type"', "type", 1)
    with pytest.raises(ReplayError, match=r"line 21 column \d+: invalid JSON"):
        loads_replay("\n".join(lines))


def test_one_event_per_line():
    doc = random_replay("chengdu", 3)
    lines = dumps_replay(doc).splitlines()
    starts = [line for line in lines if line.startswith('    {"type": ')]
    assert len(starts) == len(doc["hands"][0]["events"])


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "format_version",
            2,
            rf"format_version: the file is format version 2; this chuanma reads format version {FORMAT_VERSION}",
        ),
        (
            "rules_version",
            "0.9",
            rf"rules_version: .*rules version '0.9'; this engine implements rules version '{RULES_VERSION}'",
        ),
        ("format", "mjai", r"format: expected 'chuanma-replay', got 'mjai'"),
    ],
)
def test_other_versions_are_refused_naming_both(key, value, message):
    doc = random_replay("chengdu", 3)
    doc[key] = value
    with pytest.raises(ReplayError, match=message):
        loads_replay(dumps_replay(doc))


def test_a_wrong_event_field_is_named_with_its_line():
    doc = random_replay("chengdu", 3)
    doc["hands"][0]["events"][5]["seat"] = 9
    text = dumps_replay(doc)
    line = text.splitlines().index("    " + json.dumps(doc["hands"][0]["events"][5], ensure_ascii=False) + ",") + 1
    with pytest.raises(ReplayError, match=rf"hands\[0\]\.events\[5\] \(line {line}\)\.seat: expected a seat"):
        loads_replay(text)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["hands"][0]["events"][5].__setitem__("seat", "x"),
            r"hands\[0\]\.events\[5\]\.seat: expected a seat 0\.\.3, got 'x'",
        ),
        (lambda d: d["hands"][0]["events"][7].pop("type"), r"hands\[0\]\.events\[7\]\.type: missing"),
        (
            lambda d: d["hands"][0]["wall"].__setitem__(3, 40),
            r"hands\[0\]\.wall\[3\]: expected a tile kind 0\.\.33, got 40",
        ),
        (lambda d: d["hands"][0]["events"].pop(), r"hands\[0\]\.events\[\d+\]\.type: expected 'hand_end'"),
        (lambda d: d["config"].__setitem__("num_players", "four"), r"config: not a valid rule configuration"),
        (lambda d: d["hands"][0]["events"][1].__setitem__("agent", [{"probs": {"pong": 2}}]), r"events\[1\]\.agent"),
        (lambda d: d.pop("hands"), r"hands: missing"),
    ],
)
def test_a_wrong_field_is_named_by_its_path(change, message):
    doc = random_replay("chengdu", 3)
    change(doc)
    with pytest.raises(ReplayError, match=message):
        loads_replay(json.dumps(doc))


def test_agent_data_rides_along_and_is_not_part_of_the_engine_check():
    doc = random_replay("chengdu", 3)
    events = doc["hands"][0]["events"]
    i = _first(doc, "action")
    events[i]["agent"] = [{"chosen": "exchange_pick 1m", "probs": {"exchange_pick 1m": 0.75, "exchange_pick 2m": 0.25}}]
    loaded = loads_replay(dumps_replay(copy.deepcopy(doc)))
    verify_replay(loaded)
    assert loaded["hands"][0]["events"][i]["agent"][0]["probs"]["exchange_pick 1m"] == 0.75


def test_the_rules_version_is_the_version_line_of_the_specification():
    from pathlib import Path

    spec = (Path(__file__).resolve().parents[2] / "docs" / "RULES.md").read_text(encoding="utf-8")
    line = next(line for line in spec.splitlines() if line.startswith("Version "))
    assert line.split()[1].rstrip(".") == RULES_VERSION


def test_a_match_of_several_hands_is_one_file():
    from envs.engine.match import Match
    from envs.engine.replay_file import build_replay, hand_record

    match = Match("chiyu", seed=2)
    hands = []
    while True:
        game = match.game
        while not game.is_over:
            seat = game.pending[0]
            game.step(seat, game.legal_actions(seat)[-1])
        hands.append(hand_record(game, match.hand_index))
        if match.is_over or match.hand_index == 1:
            break
        match.next_hand()
    doc = loads_replay(dumps_replay(build_replay(match.cfg, hands, players=["a", "b", "c", "d"], source="test")))
    games = verify_replay(doc)
    assert [h["hand_index"] for h in doc["hands"]] == list(range(len(hands))) and len(games) == len(hands) == 2
    assert doc["hands"][1]["events"][0]["match_points"] == [
        p + s for p, s in zip([match.cfg.start_points] * 4, doc["hands"][0]["result"]["scores"])
    ]
