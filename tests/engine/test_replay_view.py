"""The viewer page: frames rebuilt by the engine, one self-contained file."""

from __future__ import annotations

import json
import re

from envs.core.tiles import counts_to_kinds
from envs.engine.replay import replay
from envs.engine.replay_file import engine_events
from envs.engine.replay_view import render_html, viewer_frames
from tests.helpers.replays import greedy_replay


def test_one_frame_per_decision_ending_at_the_final_table():
    doc = greedy_replay("chengdu", 0)
    (hand,) = viewer_frames(doc)
    events = doc["hands"][0]["events"]
    frames = hand["frames"]
    assert len(frames) == 1 + sum(ev["type"] == "action" for ev in events)
    assert [f["event"] for f in frames[1:]] == [i for i, ev in enumerate(events) if ev["type"] == "action"]
    game = replay(engine_events(events))
    last = frames[-1]
    assert last["scores"] == list(game.scores) == doc["hands"][0]["result"]["scores"]
    assert last["hands"] == [counts_to_kinds(game.hand_of(s)) for s in range(4)]
    assert last["phase"] == "end" and last["hand_end"]
    assert [w["seat"] for f in frames for w in f["wins"]] == [w.seat for w in game.result.wins]
    assert frames[0]["wall"] > last["wall"]
    assert all(f["n_legal"] >= 1 for f in frames[1:])
    dealer = doc["hands"][0]["dealer"]
    assert [len(h) for h in frames[0]["hands"]] == [14 if s == dealer else 13 for s in range(4)]


def test_the_page_is_self_contained_and_carries_the_replay():
    doc = greedy_replay("chengdu", 0)
    page = render_html(doc)
    assert "/*__" not in page and "__DATA__" not in page
    assert not re.search(r"<link|<script[^>]+src=|<img|@import|url\(", page)
    assert set(re.findall(r"https?://[^\s\"']+", page)) <= {"http://www.w3.org/2000/svg"}
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)[1])
    assert data["players"] == doc["players"]
    assert data["hands"][0]["frames"][-1]["scores"] == doc["hands"][0]["result"]["scores"]
    assert len(data["tiles"]) == 34 and data["tiles"][31] == {"code": "5z", "zh": "红中"}


def test_one_seats_log_hides_what_the_others_drew():
    (hand,) = viewer_frames(greedy_replay("chengdu", 0))
    hidden = 0
    for f in hand["frames"]:
        draws = [line for line in f["log"] if re.match(r"S\d draws ", line)]
        for s in range(4):
            mine = [line for line in f["log_seat"][s] if re.match(r"S\d draws ", line)]
            assert len(mine) == len(draws)
            for line, full in zip(mine, draws):
                drawer = re.match(r"S(\d) draws ", full)
                assert drawer is not None
                if int(drawer[1]) == s:
                    assert line == full
                else:
                    assert line == f"S{drawer[1]} draws a tile"
                    hidden += 1
    assert hidden > 0
