"""The play server over its WebSocket, without a browser: every malformed message gets an error naming what is
wrong and the server goes on; an illegal action is refused and the game goes on; the record of a finished game."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from envs.engine.replay_file import dumps_replay, loads_replay, verify_replay
from training.play.server import MAX_MESSAGE_BYTES, parse_action, play_record


def _socket(url: str):
    return connect(url.replace("http://", "ws://") + "ws", proxy=None, open_timeout=10)


def _receive(ws) -> dict:
    return json.loads(ws.recv(timeout=10))


def _act(ws, entry: dict) -> dict:
    ws.send(json.dumps({"type": "act", "action": entry["action"]}))
    return _receive(ws)


MALFORMED = [
    ("{not json", "malformed JSON (line 1, column 2)"),
    ("", "malformed JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('"act"', "must be a JSON object"),
    ("{}", "unknown message type None"),
    ('{"type": "resign"}', "unknown message type 'resign'"),
    ('{"type": 3}', "unknown message type 3"),
    ('{"type": "act"}', "needs an 'action' object"),
    ('{"type": "act", "action": "DISCARD 5m"}', "needs an 'action' object"),
    ('{"type": "act", "action": {"type": "THROW"}}', "unknown action type 'THROW'"),
    ('{"type": "act", "action": {"tile": 3}}', "unknown action type None"),
    ('{"type": "act", "action": {"type": "DISCARD", "tile": "5m"}}', "'tile' must be an integer, got '5m'"),
    ('{"type": "act", "action": {"type": "DISCARD", "tile": true}}', "'tile' must be an integer, got True"),
    ('{"type": "act", "action": {"type": "DISCARD", "tile": 34}}', "out of range"),
    ('{"type": "act", "action": {"type": "DISCARD", "tile": -7}}', "out of range"),
    ('{"type": "act", "action": {"type": "EXCHANGE", "tiles": {"a": 1}}}', "'tiles' must be a list"),
    ('{"type": "act", "action": {"type": "EXCHANGE", "tiles": [1, 2, 3, 4]}}', "'tiles' must be a list"),
    ('{"type": "act", "action": {"type": "EXCHANGE", "tiles": [1, 2.5, 3]}}', "'tiles' must be an integer"),
    ('{"type": "act", "action": {"type": "PASS", "seat": 2}}', "unknown field(s) ['seat']"),
    ('{"type": "next_hand"}', "hand 1 is still being played"),
]


def test_malformed_messages_get_an_error_and_the_server_goes_on(play_server):
    url = play_server("chengdu", "value", seed=11)
    before = play_server.table.game.snapshot()
    with _socket(url) as ws:
        state = _receive(ws)
        for text, expected in MALFORMED:
            ws.send(text)
            reply = _receive(ws)
            assert reply["type"] == "error", text
            assert expected in reply["message"], (text, reply["message"])
        ws.send(b"\x00\x01binary")
        assert "binary frames" in _receive(ws)["message"]
        assert play_server.table.game.snapshot() == before
        assert _act(ws, state["legal"][0])["type"] == "state"  # the game goes on
    with _socket(url) as ws:  # a message over the size limit closes that connection only
        _receive(ws)
        ws.send(json.dumps({"type": "state", "padding": "x" * MAX_MESSAGE_BYTES}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1009
    with _socket(url) as ws:
        assert _receive(ws)["phase"] == "dingque"
        ws.send('{"type": "state"}')
        assert _receive(ws)["type"] == "state"


def test_an_illegal_action_is_refused_and_the_game_goes_on(play_server):
    url = play_server("chengdu", "value", seed=2, hands=2)
    table = play_server.table
    with _socket(url) as ws:
        state = _receive(ws)
        assert state["phase"] == "exchange" and state["to_act"]
        before = table.game.snapshot()
        reply = _act(ws, {"action": {"type": "PONG"}})
        assert reply["type"] == "error"
        assert reply["message"].startswith("pong (碰) is not legal now; legal: exchange ")
        not_held = next(k for k in range(27) if k not in state["hand"])
        reply = _act(ws, {"action": {"type": "EXCHANGE", "tiles": [not_held] * 3}})
        assert "is not legal now" in reply["message"]
        assert table.game.snapshot() == before
        decisions = 0
        while not state["hand_over"]:  # the person's hand goes on to its end: always the first legal action
            state = _act(ws, state["legal"][0])
            assert state["type"] == "state"
            decisions += 1
        assert decisions >= 3
        assert state["settlement"]["scores"] == list(table.game.result.scores)
        reply = _act(ws, {"action": {"type": "PASS"}})
        assert reply["message"] == "pass (过 pass) refused: the hand is over"
        ws.send('{"type": "next_hand"}')
        state = _receive(ws)
        assert state["hand_number"] == 2 and not state["hand_over"]


def test_the_page_and_the_record_are_served(play_server):
    url = play_server("two_player", "value", seed=4, hands=1)
    with urllib.request.urlopen(url, timeout=10) as response:
        assert "chuanma" in response.read().decode()
    with pytest.raises(urllib.error.HTTPError) as refused:  # no record while the only hand is being played
        urllib.request.urlopen(url + "replay.json", timeout=10)
    assert refused.value.code == 409
    table = play_server.table
    while not table.game.is_over:
        table.act(table.legal_actions()[0])
    with urllib.request.urlopen(url + "replay.json", timeout=10) as response:
        assert "attachment" in response.headers["Content-Disposition"]
        record = json.loads(response.read())
    assert record == json.loads(json.dumps(play_record(table)))
    (game,) = verify_replay(loads_replay(json.dumps(record)))
    assert game.result == table.game.result


def test_an_agent_failure_is_reported_and_the_server_stays_up(play_server):
    url = play_server("chengdu", "value", seed=11)
    table = play_server.table

    def broken(observation, mask):
        raise RuntimeError("the network is gone")

    with _socket(url) as ws:
        state = _receive(ws)
        table.agents[1].act = broken
        reply = _act(ws, state["legal"][0])
        assert reply == {"type": "error", "message": "the server failed on 'act': RuntimeError: the network is gone"}
        ws.send('{"type": "state"}')
        assert _receive(ws)["type"] == "state"


def test_play_record_holds_every_finished_hand_in_order():
    from training.play.table import PlayTable

    table = PlayTable("two_player", ["greedy"], seed=9, hands=3)
    results = []
    for hand in range(3):
        while not table.game.is_over:
            table.act(table.legal_actions()[-1])
        results.append(table.game.result)
        if hand < 2:
            table.next_hand()
            assert len(play_record(table)["hands"]) == hand + 1
    record = loads_replay(dumps_replay(play_record(table)))
    assert (record["format"], record["match_seed"], record["config"]["name"]) == ("chuanma-replay", 9, "two_player")
    assert [hand["hand_index"] for hand in record["hands"]] == [0, 1, 2]
    assert [game.result for game in verify_replay(record)] == results


def test_parse_action_builds_the_engine_action():
    from envs.core.actions import PASS, discard, exchange

    assert parse_action({"type": "DISCARD", "tile": 4}) == discard(4)
    assert parse_action({"type": "PASS", "tile": -1, "tiles": []}) == PASS
    assert parse_action({"type": "EXCHANGE", "tiles": [3, 1, 2]}) == exchange([1, 2, 3])  # any order


def test_no_browser_is_started_on_linux_without_a_display(monkeypatch, capsys):
    import webbrowser

    from training.play import server

    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    monkeypatch.setattr(server.sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not server.open_page("http://127.0.0.1:1/")
    assert "no graphical display" in capsys.readouterr().err
    monkeypatch.setenv("DISPLAY", ":0")
    assert server.open_page("http://127.0.0.1:1/")
    for thread in [t for t in server.threading.enumerate() if t.name == "chuanma-browser"]:
        thread.join(timeout=5)
    assert opened == ["http://127.0.0.1:1/"]
