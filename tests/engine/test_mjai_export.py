"""The mjai-style export: standard events where riichi has them, documented ``sc_`` extensions where not."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from envs.engine.mjai import mjai_events, mjai_tile, write_mjai
from tests.helpers.replays import greedy_replay


def test_tile_names_follow_mjai():
    assert [mjai_tile(k) for k in (0, 8, 9, 26, 27, 30, 31, 32, 33)] == [
        "1m",
        "9m",
        "1p",
        "9s",
        "E",
        "N",
        "C",
        "F",
        "P",
    ]
    assert mjai_tile(-1) == "?"


def test_a_chengdu_hand_exports_exchange_dingque_and_every_win(tmp_path):
    doc = greedy_replay("chengdu", 0)
    path = write_mjai(doc, tmp_path / "out.jsonl")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines == list(mjai_events(doc))
    kinds = Counter(ev["type"] for ev in lines)
    events = doc["hands"][0]["events"]
    engine = Counter(ev["type"] for ev in events)
    assert lines[0]["type"] == "start_game" and lines[-1]["type"] == "end_game"
    assert kinds["start_kyoku"] == kinds["end_kyoku"] == 1
    assert kinds["sc_exchange"] == 4 and kinds["sc_exchange_direction"] == 1
    assert kinds["sc_dingque"] == 4
    assert kinds["tsumo"] == engine["draw"] and kinds["dahai"] == engine["discard"]
    assert kinds["pon"] == engine["pong"]
    wins = doc["hands"][0]["result"]["wins"]
    assert kinds["hora"] == 1 and kinds["sc_hora"] == len(wins) - 1 == 2
    horas = [ev for ev in lines if ev["type"] in ("hora", "sc_hora")]
    for ev, win in zip(horas, wins):
        assert ev["actor"] == win["seat"] and ev["fans"] == win["breakdown"] and ev["how"] == win["how"]
        assert ev["pai"] == mjai_tile(win["tile"])
        assert ev["deltas"][win["seat"]] == sum(t["amount"] for t in win["transfers"])
    start = next(ev for ev in lines if ev["type"] == "start_kyoku")
    deals = {ev["seat"]: ev["tiles"] for ev in events if ev["type"] == "deal"}
    assert start["tehais"] == [[mjai_tile(k) for k in deals[s]] for s in range(4)]
    end = next(ev for ev in lines if ev["type"] == "end_kyoku")
    assert end["sc_scores"] == doc["hands"][0]["result"]["scores"]
    deltas = [0] * 4
    for ev in lines:
        for s, d in enumerate(ev.get("deltas", []) if ev["type"] in ("hora", "sc_hora") else []):
            deltas[s] += d
        if ev["type"] == "sc_transfer":
            deltas[ev["payer"]] -= ev["amount"]
            deltas[ev["receiver"]] += ev["amount"]
    assert deltas == end["sc_scores"]


STANDARD = {"start_game", "start_kyoku", "tsumo", "dahai", "pon", "chi", "daiminkan", "ankan", "kakan", "hora"}
STANDARD |= {"ryukyoku", "end_kyoku", "end_game"}


@pytest.mark.parametrize("variant", ["wuhan", "yibin", "duankagen", "xueliu"])
def test_every_variant_exports_standard_or_sc_events(variant):
    doc = greedy_replay(variant, 1)
    lines = list(mjai_events(doc))
    assert all(ev["type"] in STANDARD or ev["type"].startswith("sc_") for ev in lines)
    json.dumps(lines)  # plain JSON throughout
    events = doc["hands"][0]["events"]
    assert sum(ev["type"] == "tsumo" for ev in lines) == sum(ev["type"] == "draw" for ev in events)
    wins = [ev for ev in lines if ev["type"] in ("hora", "sc_hora")]
    assert len(wins) == len(doc["hands"][0]["result"]["wins"])
    assert all(isinstance(t, str) for ev in lines for t in ev.get("consumed", []))
