"""``chuanma simulate/eval --save-replays`` and ``chuanma replay``: files written, checked, refused, exported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from envs.core.actions import action_name
from envs.core.rule_config import load_variant
from envs.engine.replay_file import dumps_replay, load_replay, verify_replay
from training.cli import main
from training.evaluation.evaluate import play_hand, run_matchups


def test_simulate_saves_a_sample_that_chuanma_replay_checks_and_exports(tmp_path, capsys):
    out = tmp_path / "r"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "chengdu",
                "--games",
                "3",
                "--json",
                "--save-replays",
                str(out),
                "--replay-sample",
                "2",
            ]
        )
        == 0
    )
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["chengdu-seed0-hand0000.json", "chengdu-seed0-hand0001.json"]
    capsys.readouterr()
    html, jsonl = tmp_path / "out.html", tmp_path / "out.jsonl"
    assert main(["replay", str(files[0]), "--html", str(html), "--mjai", str(jsonl), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    doc = load_replay(files[0])
    assert summary["verified"] and summary["scores"] == [doc["hands"][0]["result"]["scores"]]
    assert doc["source"] == "simulate" and doc["players"] == ["random"] * 4
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert json.loads(jsonl.read_text(encoding="utf-8").splitlines()[0])["type"] == "start_game"


def test_chuanma_replay_refuses_a_tampered_file_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["simulate", "--variant", "chengdu", "--games", "1", "--json", "--save-replays", str(out)]) == 0
    (path,) = out.iterdir()
    doc = json.loads(path.read_text(encoding="utf-8"))
    events = doc["hands"][0]["events"]
    i = next(i for i, ev in enumerate(events) if ev["type"] == "discard")
    events[i]["tile"] = (events[i]["tile"] + 1) % 27
    path.write_text(dumps_replay(doc), encoding="utf-8")
    line = 1 + next(
        n
        for n, text in enumerate(dumps_replay(doc).splitlines())
        if text.startswith("    {") and f'"tile": {events[i]["tile"]}' in text and '"type": "discard"' in text
    )
    capsys.readouterr()
    html = tmp_path / "out.html"
    assert main(["replay", str(path), "--html", str(html)]) == 2
    err = capsys.readouterr().err
    assert f"hands[0].events[{i}] (line {line}): the file has" in err and "but the engine gives" in err
    assert not html.exists()


def test_replay_sample_without_a_folder_is_refused(capsys):
    assert main(["simulate", "--variant", "chengdu", "--games", "1", "--replay-sample", "1"]) == 2
    assert "--replay-sample needs --save-replays DIR" in capsys.readouterr().err


def test_eval_saves_every_seat_of_the_sampled_walls(tmp_path):
    out = tmp_path / "eval-replays"
    run_matchups("chengdu", [("greedy", "random")], walls=2, seed=1, replay_dir=out, replay_sample=1)
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"m0-greedy-vs-random-wall0000-seat{s}.json" for s in range(4)]
    for s, name in enumerate(names):
        doc = load_replay(out / name)
        verify_replay(doc)
        assert doc["source"] == "eval"
        assert doc["players"] == ["greedy" if seat == s else "random" for seat in range(4)]


class _Reporting:
    """Plays the first legal action and reports made-up probabilities, like a learned policy."""

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        ids = np.flatnonzero(legal_mask)
        self._ids = ids
        return int(ids[0])

    def decision_info(self) -> dict:
        return {"probs": {action_name(int(i)): 1.0 / len(self._ids) for i in self._ids}}


def test_agent_decision_info_is_saved_with_the_decision(tmp_path):
    from envs.engine.replay_file import build_replay, hand_record, save_replay

    cfg = load_variant("chengdu")
    data: dict = {}
    game = play_hand(cfg, 5, [_Reporting() for _ in range(4)], agent_data=data)
    path = save_replay(
        tmp_path / "r.json", build_replay(cfg, [hand_record(game, 0, data)], players=["x"] * 4, source="eval")
    )
    doc = load_replay(path)
    verify_replay(doc)
    events = doc["hands"][0]["events"]
    actions = [ev for ev in events if ev["type"] == "action"]
    assert all("agent" in ev for ev in actions)
    exchange = next(ev for ev in actions if ev["phase"] == "exchange")
    assert len(exchange["agent"]) == 3  # one entry per 换三张 pick
    for ev in actions:
        for entry in ev["agent"]:
            assert entry["chosen"] in entry["probs"]
            assert abs(sum(entry["probs"].values()) - 1) < 1e-9
    assert Path(path).name == "r.json"
