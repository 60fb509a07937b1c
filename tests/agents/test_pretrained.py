"""Pretrained policies (预训练策略): shipped checkpoints load by name and play, bad names and stale checkpoints are
refused with what to do, and ``chuanma publish`` writes a checkpoint and a model card that load the same way."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import torch

import agents.pretrained as pretrained
from agents.policy import META_NAME, CheckpointError, CheckpointMeta, NetSpec, PolicyAgent, build_policy, save_policy
from agents.registry import make_agent, parse_spec
from envs.core.rule_config import load_variant
from tests.helpers.nets import TINY_NET
from training.evaluation.evaluate import play_hand

TINY = TINY_NET


def _tiny_checkpoint(path, variant: str, **meta_changes):
    torch.manual_seed(0)
    net = NetSpec(**TINY)
    meta = CheckpointMeta.for_variant(load_variant(variant), net, seed=0, step=7)
    save_policy(path, build_policy(net), meta)
    if meta_changes:
        with zipfile.ZipFile(path) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        data = json.loads(members[META_NAME])
        data.update(meta_changes)
        members[META_NAME] = json.dumps(data).encode()
        with zipfile.ZipFile(path, "w") as zf:
            for n, b in members.items():
                zf.writestr(n, b)
    return path


@pytest.mark.parametrize("name", pretrained.available())
def test_every_shipped_policy_loads_by_name_and_plays_a_hand_of_its_variant(name):
    cfg = load_variant(name)
    agent = PolicyAgent.pretrained(name)
    assert agent.name == f"pretrained:{name}"
    assert pretrained.card_path(name).read_text(encoding="utf-8").startswith(f"# Pretrained policy `{name}`")
    same = make_agent(f"pretrained:{name}", variant=cfg)
    game = play_hand(cfg, 5, [agent] + [same] * (cfg.num_players - 1))
    assert game.is_over


def test_the_readme_table_shows_the_published_evaluation_of_every_shipped_policy():
    """The README's pretrained table is training.publish.readme_table(): the published rows, none left out."""
    from pathlib import Path

    from training.publish import readme_table

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme_table()
    assert table in readme
    for name in pretrained.available():
        assert f"| `pretrained:{name}` |" in table


@pytest.mark.parametrize("name", pretrained.available())
def test_the_published_evaluation_replays_wall_for_wall(name):
    """The first walls of the card's greedy row come out the same when played again by name (the policy and greedy
    are deterministic, so each wall's mean depends on the wall alone)."""
    from training.evaluation.evaluate import run_matchups

    data = pretrained.evaluation(name)
    row = next(r for r in data["rows"] if r["opponent"] == "greedy")
    (again,) = run_matchups(name, [(f"pretrained:{name}", "greedy")], walls=2, seed=data["seed"], engine="auto")
    np.testing.assert_allclose(again.wall_means, row["wall_means"][:2], atol=1e-5)


def test_an_unknown_or_malformed_name_is_refused_with_the_shipped_names():
    with pytest.raises(ValueError, match="no pretrained policy 'nonexistent'.*shipped"):
        PolicyAgent.pretrained("nonexistent")
    with pytest.raises(ValueError, match="named by its variant preset"):
        PolicyAgent.pretrained("../hongzhong")
    with pytest.raises(ValueError, match="needs a preset name"):
        parse_spec("pretrained:")
    assert parse_spec("pretrained:chengdu").kind == "pretrained"


def test_a_stale_shipped_checkpoint_is_refused_with_how_to_retrain(tmp_path, monkeypatch):
    monkeypatch.setattr(pretrained, "PRETRAINED_DIR", tmp_path)
    _tiny_checkpoint(tmp_path / "chengdu.zip", "chengdu", obs_version="chuanma-v0")
    with pytest.raises(
        CheckpointError,
        match=r"observation version 'chuanma-v0'.*chuanma train --config "
        r"configs/train/chengdu\.yaml.*chuanma publish",
    ):
        PolicyAgent.pretrained("chengdu")
    _tiny_checkpoint(tmp_path / "yibin.zip", "chengdu")  # a checkpoint of other rules under a preset's name
    with pytest.raises(CheckpointError, match="trained for variant 'chengdu', expected 'yibin'.*Retrain"):
        PolicyAgent.pretrained("yibin")


def test_a_pretrained_policy_refuses_another_variant(tmp_path, monkeypatch):
    monkeypatch.setattr(pretrained, "PRETRAINED_DIR", tmp_path)
    _tiny_checkpoint(tmp_path / "chengdu.zip", "chengdu")
    assert PolicyAgent.pretrained("chengdu").meta.step == 7
    with pytest.raises(CheckpointError, match="expected 'hongzhong'"):
        make_agent("pretrained:chengdu", variant=load_variant("hongzhong"))


@pytest.mark.parametrize(("walls", "given", "workers"), [(400, None, 2), (399, None, 1), (400, 1, 1)])
def test_publish_evaluates_on_every_core_unless_told(walls, given, workers, tmp_path, monkeypatch):
    """By default each evaluation of ``publish`` starts one worker per core, at most one per 200 walls."""
    from training.evaluation import cores, evaluate
    from training.publish import publish

    monkeypatch.setattr(cores, "available_cores", lambda: 2)
    asked = []

    def played(variant, pairs, **kwargs):
        asked.append(kwargs["workers"])
        raise RuntimeError("stop")

    monkeypatch.setattr(evaluate, "run_matchups", played)
    run = tmp_path / "run"
    run.mkdir()
    _tiny_checkpoint(run / "final.zip", "chengdu")
    (run / "config.yaml").write_text("name: tiny\nvariant: chengdu\n", encoding="utf-8")
    (run / "run.json").write_text(json.dumps({"variant": "chengdu"}))
    (run / "report.json").write_text(json.dumps({"variant": "chengdu"}))
    with pytest.raises(RuntimeError, match="stop"):
        publish(run, walls=walls, workers=given, out_dir=tmp_path / "out", opponents=("random",))
    assert asked == [workers]


def test_publish_writes_a_checkpoint_and_a_model_card_that_load_by_name(tmp_path, monkeypatch):
    from training.evaluation.evaluate import run_matchups
    from training.publish import publish

    run = tmp_path / "run"
    run.mkdir()
    _tiny_checkpoint(run / "final.zip", "chengdu")
    (run / "config.yaml").write_text("name: tiny\nvariant: chengdu\n", encoding="utf-8")
    (run / "run.json").write_text(
        json.dumps({"variant": "chengdu", "obs_version": "chuanma-v1", "action_layout_version": "x", "commit": "abc"})
    )
    (run / "report.json").write_text(
        json.dumps({"variant": "chengdu", "steps": 4096, "trainer": "batched", "wall_time_s": 120.0})
    )
    out = tmp_path / "shipped"
    checkpoint, card = publish(
        run, walls=2, seed=11, out_dir=out, engine="python", opponents=("random", "greedy"), walls_for={"greedy": 3}
    )
    text = card.read_text(encoding="utf-8")
    assert "| pretrained:chengdu | random | 2 |" in text and "| pretrained:chengdu | greedy | 3 |" in text
    assert "commit: `abc`" in text and "4,096 self-play learner decisions" in text and "name: tiny" in text
    assert "--seed 11" in text and "seed 11 (random: 2; greedy: 3 walls)" in text
    text = checkpoint.with_suffix(".json").read_text()
    summary = json.loads(text)
    # one line per key and per row: the per-wall means of a row share its line
    assert len(text.splitlines()) == len(summary) + 1 + len(summary["rows"]) + 2
    assert summary["seed"] == 11 and [r["opponent"] for r in summary["rows"]] == ["random", "greedy"]
    assert [(r["walls"], r["hands"]) for r in summary["rows"]] == [(2, 8), (3, 12)]
    # the greedy row's first two walls are those a two-wall evaluation plays: one sequence of held-out walls
    (again,) = run_matchups("chengdu", [("policy:" + str(checkpoint), "greedy")], walls=2, seed=11, engine="python")
    assert list(again.wall_means) == pytest.approx(summary["rows"][1]["wall_means"][:2])
    monkeypatch.setattr(pretrained, "PRETRAINED_DIR", out)
    assert pretrained.available() == ("chengdu",)
    assert pretrained.evaluation("chengdu") == summary
    agent = PolicyAgent.pretrained("chengdu")
    obs = np.zeros((1, *build_policy(NetSpec(**TINY)).observation_space.shape), dtype=np.float32)
    assert agent.logits(obs).shape == (1, 183)
    assert checkpoint.read_bytes() == (run / "final.zip").read_bytes()
    with pytest.raises(ValueError, match="named by its variant"):
        publish(run, name="hongzhong", walls=2, out_dir=out)
    with pytest.raises(FileNotFoundError, match="report.json"):
        publish(tmp_path, walls=2, out_dir=out)
    with pytest.raises(ValueError, match=r"walls_for names \['value'\]"):
        publish(run, walls=2, out_dir=out, opponents=("random",), walls_for={"value": 5})
    with pytest.raises(ValueError, match="the walls against 'random' must be a positive int"):
        publish(run, walls=2, out_dir=out, opponents=("random",), walls_for={"random": 0})


def test_walls_text_names_each_opponents_walls_only_where_they_differ():
    from training.publish import walls_text

    assert walls_text({"random": 1000, "value": 1000}) == "1000"
    assert walls_text({"random": 1000, "greedy": 1000, "value": 20000, "defensive": 20000}) == (
        "random, greedy: 1000; value, defensive: 20000"
    )


def test_the_model_card_of_behaviour_cloning_alone_says_so():
    from training.publish import model_card

    report = {
        "variant": "yibin",
        "steps": 0,
        "trainer": "batched",
        "bc": {"teacher": "value:kong_slack=0", "decisions": 100000},
    }
    card = model_card(
        "yibin", {}, report, "x: 1", "| t |", walls={"value": 5}, seed=1, command="c", commit="a", hardware="h"
    )
    assert "behaviour cloning alone: `value:kong_slack=0` on 100,000 decisions, no self-play PPO" in card
    assert "self-play learner decisions" not in card
    report["steps"] = 2048
    assert "then 2,048 self-play learner decisions" in model_card(
        "yibin", {}, report, "x: 1", "| t |", walls={"value": 5}, seed=1, command="c", commit="a", hardware="h"
    )
