"""Duplicate evaluation: reproducibility, worker independence, statistics, reports and the ``eval`` command."""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from envs.core.rule_config import load_variant
from training.evaluation.evaluate import (
    IllegalAgentAction,
    MatchResult,
    bradley_terry,
    field_difference,
    one_vs_three,
    paired_difference,
    play_hand,
    register_cli,
    round_robin,
    run_cli,
    seat_for_seat,
    significant,
    summarize,
    t_interval,
    t_quantile,
    to_markdown,
)


def test_t_quantiles_match_tables() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile(0.975, 30) == pytest.approx(2.0423, abs=1e-4)
    assert t_quantile(0.975, 10_000) == pytest.approx(1.9602, abs=1e-3)
    assert t_quantile(0.025, 5) == pytest.approx(-2.5706, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_t_interval_on_known_data() -> None:
    mean, low, high = t_interval([1, 2, 3, 4, 5])
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert mean == 3 and low == pytest.approx(3 - half, abs=1e-5) and high == pytest.approx(3 + half, abs=1e-5)
    mean, low, high = t_interval([4.0])  # one sample: the interval is undefined
    assert mean == 4.0 and math.isnan(low) and math.isnan(high)
    with pytest.raises(ValueError):
        t_interval([])


def test_t_interval_covers_the_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(1)
    hits = 0
    trials = 2000
    for _ in range(trials):
        xs = rng.normal(0.7, 3.0, size=8)
        _, low, high = t_interval(xs)
        hits += low <= 0.7 <= high
    assert 0.935 <= hits / trials <= 0.965


def test_clustered_interval_uses_wall_means() -> None:
    """Four rotations of a wall count as one sample: the interval is over per-wall means."""
    records = []
    rng = random.Random(4)
    for wall in range(30):
        base = rng.gauss(0.5, 1.0)
        for rot in range(4):
            seats = []
            for seat in range(4):
                pts = base + rng.gauss(0, 0.1) if seat == rot else -base / 3
                seats.append(
                    {
                        "stats": {
                            "points": pts,
                            "won": seat == rot,
                            "self_draw": False,
                            "deal_in": seat != rot and seat == (rot + 1) % 4,
                            "doublings": (1,) if seat == rot else (),
                            "exhausted": False,
                            "pig": False,
                            "not_ready": False,
                        },
                        "faults": {},
                    }
                )
            records.append({"matchup": 0, "wall": wall, "rotation": rot, "seats": seats})
    res = summarize(records, "a", "b")
    assert res.walls == 30 and res.hands == 120
    means = [
        np.mean([r["seats"][r["rotation"]]["stats"]["points"] for r in records if r["wall"] == w]) for w in range(30)
    ]
    m, low, high = t_interval(means)
    assert res.points == pytest.approx(m) and res.ci_low == pytest.approx(low) and res.ci_high == pytest.approx(high)
    assert res.challenger_rates["win_rate"] == 1.0 and res.challenger_rates["avg_doublings"] == 1.0
    assert res.field_rates["deal_in_rate"] == pytest.approx(1 / 3)


def test_bradley_terry_orders_and_scales() -> None:
    r = bradley_terry(["a", "b"], {("a", "b"): 30.0, ("b", "a"): 10.0}, prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    r = bradley_terry(["a", "b", "c"], {("a", "b"): 20, ("b", "c"): 20, ("a", "c"): 20})
    assert r["a"] > r["b"] > r["c"]
    assert all(math.isfinite(v) for v in r.values())  # the prior keeps unbeaten agents finite


def test_duplicate_evaluation_is_reproducible_and_worker_independent() -> None:
    one = one_vs_three("chengdu", "greedy", "random", walls=3, seed=9, workers=1)
    again = one_vs_three("chengdu", "greedy", "random", walls=3, seed=9, workers=1)
    two = one_vs_three("chengdu", "greedy", "random", walls=3, seed=9, workers=2)
    assert one.to_dict() == again.to_dict() == two.to_dict()
    other = one_vs_three("chengdu", "greedy", "random", walls=3, seed=10, workers=1)
    assert other.wall_means != one.wall_means


def test_two_player_duplicate_plays_both_seats() -> None:
    res = one_vs_three("two_player", "greedy", "random", walls=2, seed=1)
    assert res.hands == 4 and res.walls == 2


def test_identical_agents_score_exactly_zero() -> None:
    """A deterministic agent against copies of itself: every rotation replays the same game, so the field's mean
    and the challenger's are both zero on every wall."""
    res = one_vs_three("hongzhong", "greedy", "greedy", walls=2, seed=3)
    assert res.wall_means == [0.0, 0.0]


def test_round_robin_rates_every_pair() -> None:
    rr = round_robin("chengdu", ["random", "greedy"], walls=3, seed=2)
    assert [(m.challenger, m.opponent) for m in rr.matches] == [("random", "greedy"), ("greedy", "random")]
    assert rr.ratings["greedy"] > rr.ratings["random"]
    text = to_markdown(rr.matches, variant="chengdu", ratings=rr.ratings)
    assert "| greedy | random |" in text and "Bradley-Terry" in text


def test_illegal_agent_is_reported() -> None:
    class Bad:
        def act(self, observation, legal_mask):
            return 182

    cfg = load_variant("chengdu")
    with pytest.raises(IllegalAgentAction, match="illegal"):
        play_hand(cfg, 1, [Bad(), Bad(), Bad(), Bad()])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="walls"):
        one_vs_three("chengdu", "greedy", "random", walls=0)
    with pytest.raises(ValueError, match="unknown agent"):
        one_vs_three("chengdu", "greedy", "grandmaster", walls=1)
    with pytest.raises(ValueError, match="distinct"):
        round_robin("chengdu", ["greedy", "greedy"], walls=1)


def test_eval_command_writes_json_markdown_and_png(tmp_path, capsys) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    register_cli(sub)
    out = tmp_path / "eval"
    args = parser.parse_args(
        ["eval", "--variant", "chengdu", "--challenger", "greedy", "--opponent", "random", "--walls", "2",
         "--out", str(out), "--no-progress"]
    )  # fmt: skip
    assert args.func(args) == 0
    data = json.loads((out / "eval.json").read_text())
    assert data["matches"][0]["challenger"] == "greedy" and data["walls"] == 2
    assert (out / "eval.md").read_text().startswith("Variant `chengdu`")
    assert (out / "eval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| greedy | random |" in capsys.readouterr().out
    bad = parser.parse_args(["eval", "--variant", "chengdu", "--walls", "1", "--no-progress"])
    with pytest.raises(ValueError, match="challenger"):
        run_cli(bad)


class _Played(Exception):
    """Raised by a stand-in evaluator with the keyword arguments it was called with."""


@pytest.mark.parametrize(
    ("flags", "workers"),
    [(["--walls", "399"], 1), (["--walls", "400"], 2), (["--walls", "100000"], 2),
     (["--walls", "100000", "--workers", "1"], 1), (["--walls", "1000", "--workers", "3"], 3),
     (["--matches", "600"], 2), (["--matches", "20"], 1)],
)  # fmt: skip
def test_eval_plays_one_worker_per_core_unless_told(flags: list[str], workers: int, monkeypatch) -> None:
    """Without ``--workers``, ``chuanma eval`` starts one worker process per core it may use, at most one per 200
    walls (or matches): fewer walls play in one process."""
    from training.evaluation import cores, evaluate, matches

    monkeypatch.setattr(cores, "available_cores", lambda: 2)

    def played(*args: object, **kwargs: object) -> None:
        raise _Played(kwargs["workers"])

    monkeypatch.setattr(evaluate, "run_matchups", played)
    monkeypatch.setattr(matches, "evaluate_matches", played)
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["eval", "--variant", "chiyu", "--challenger", "greedy", "--opponent", "random",
                              "--no-progress", *flags])  # fmt: skip
    with pytest.raises(_Played) as got:
        run_cli(args)
    assert got.value.args == (workers,)


def test_eval_out_must_be_a_writable_folder_before_anything_is_played(tmp_path, capsys) -> None:
    from training.cli import main

    a_file = tmp_path / "results.txt"
    a_file.write_text("not a folder")
    base = ["eval", "--variant", "two_player", "--challenger", "greedy", "--opponent", "random", "--no-progress"]
    assert main([*base, "--out", str(a_file)]) == 2
    assert f"--out '{a_file}' is a file, not a folder" in capsys.readouterr().err
    assert main([*base, "--out", str(a_file / "eval")]) == 2
    assert "cannot create the folder" in capsys.readouterr().err
    read_only = Path("/proc")  # a folder nobody may create files in, root included
    if sys.platform.startswith("linux") and read_only.is_dir():
        assert main([*base, "--out", str(read_only)]) == 2
        assert "cannot write into the folder" in capsys.readouterr().err
    assert a_file.read_text() == "not a folder"


def test_too_few_walls_give_an_undefined_interval_that_is_never_significant(capsys) -> None:
    assert not significant(math.nan, math.nan) and not significant(-math.inf, math.inf)
    assert not significant(0.25, 0.25)  # zero width: every wall gave the same difference
    assert significant(0.1, 0.3) and significant(-0.3, -0.1) and not significant(-0.1, 0.3)
    one = one_vs_three("two_player", "greedy", "random", walls=1, seed=0)
    assert math.isnan(one.ci_low) and math.isnan(one.ci_high) and not one.significant
    base = one_vs_three("two_player", "random", "random", walls=1, seed=0)
    text = to_markdown([one, base], variant="two_player")
    assert "inf" not in text and "*" not in text.split("`*`")[0]
    assert "| [n/a] |" in text and "[n/a]" in text.split("Seat for seat")[1]
    two = MatchResult(**{**one.to_dict(), "ci_low": 0.5, "ci_high": 0.5, "points": 0.5})
    assert not two.significant and " *" not in to_markdown([two], variant="two_player").split("\n")[4]


def test_greedy_beats_random_with_an_interval_above_zero() -> None:
    """Twelve walls (48 hands, about 6 s) decide greedy against random in 成都 血战."""
    res = one_vs_three("chengdu", "greedy", "random", walls=12, seed=0)
    assert res.ci_low > 0, res


def test_greedy_beats_random_quickly() -> None:
    """The small statistical check: six walls (24 hands) decide greedy against random in 血战 (about 3 s)."""
    res = one_vs_three("xueliu", "greedy", "random", walls=6, seed=1)
    assert res.ci_low > 0, (res.points, res.ci_low, res.ci_high)


@pytest.mark.parametrize("variant", ["hongzhong", "two_player"])
def test_driver_shows_agents_exactly_what_the_aec_env_shows(variant: str) -> None:
    """Same seed, same deterministic agents: the driver and the AEC environment produce identical decisions."""
    from agents.greedy import GreedyAgent
    from envs import sichuan_mahjong_v0

    class Recorder:
        def __init__(self, log):
            self.inner = GreedyAgent()
            self.log = log

        def reset(self, seat, variant):
            self.inner.reset(seat, variant)

        def act(self, observation, legal_mask):
            a = self.inner.act(observation, legal_mask)
            self.log.append((observation.tobytes(), legal_mask.tobytes(), a))
            return a

    cfg = load_variant(variant)
    driver_log: list = []
    game = play_hand(cfg, 21, [Recorder(driver_log) for _ in range(cfg.num_players)])

    env = sichuan_mahjong_v0.raw_env(variant=variant)
    env.reset(seed=21)
    agents = {}
    for name in env.possible_agents:
        agents[name] = GreedyAgent()
        agents[name].reset(env.agent_name_mapping[name], cfg)
    aec_log = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agents[name].act(obs["observation"], obs["action_mask"])
        aec_log.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), a))
        env.step(a)
    assert len(driver_log) == len(aec_log) > 20
    assert driver_log == aec_log
    assert list(game.scores) == list(env.game.scores)


def test_paired_difference_compares_two_matchups_wall_by_wall() -> None:
    """Per-wall deal-in rates average to the reported rate (every wall has the same number of hands); the paired
    difference of a matchup with itself is exactly zero; against another challenger on the same walls it is the mean
    of the per-wall differences; mismatched walls and unknown statistics are refused."""
    greedy = one_vs_three("chengdu", "greedy", "random", walls=4, seed=5)
    rnd = one_vs_three("chengdu", "random", "random", walls=4, seed=5)
    assert len(greedy.wall_deal_in) == 4
    assert math.isclose(sum(greedy.wall_deal_in) / 4, greedy.challenger_rates["deal_in_rate"])
    assert paired_difference(greedy, greedy) == (0.0, 0.0, 0.0)
    mean, low, high = paired_difference(greedy, rnd, "deal_in")
    expected = sum(a - b for a, b in zip(greedy.wall_deal_in, rnd.wall_deal_in)) / 4
    assert math.isclose(mean, expected) and low <= mean <= high
    assert math.isclose(paired_difference(greedy, rnd)[0], greedy.points - rnd.points)
    with pytest.raises(ValueError, match="statistic must be one of"):
        paired_difference(greedy, rnd, "win")
    shorter = one_vs_three("chengdu", "random", "random", walls=3, seed=5)
    with pytest.raises(ValueError, match="same walls"):
        paired_difference(greedy, shorter)


def test_field_difference_pairs_the_challenger_with_its_own_tables() -> None:
    """The field's per-wall deal-in rates average to the field's reported rate; the within-match difference is the
    mean of the per-wall differences (challenger minus the opponents at the same tables); a result without per-wall
    rates is refused."""
    match = one_vs_three("chengdu", "random", "greedy", walls=5, seed=11)
    assert len(match.field_wall_deal_in) == 5
    assert math.isclose(sum(match.field_wall_deal_in) / 5, match.field_rates["deal_in_rate"])
    mean, low, high = field_difference(match)
    expected = match.challenger_rates["deal_in_rate"] - match.field_rates["deal_in_rate"]
    assert math.isclose(mean, expected, abs_tol=1e-12) and low <= mean <= high
    assert mean > 0  # a random discarder deals in more often than greedy players at its tables
    match.field_wall_deal_in = []
    with pytest.raises(ValueError, match="per-wall deal-in rates"):
        field_difference(match)


def test_seat_baseline_compares_each_challenger_with_the_opponents_own_play(tmp_path, capsys) -> None:
    """`--seat-baseline` adds greedy-vs-greedy on the same walls; the seat-for-seat row is the paired difference
    of the two matchups (points equal the challenger's own points, the all-greedy table being zero-sum and
    symmetric); the markdown shows the section; a matchup list without the baseline gives no rows; the flag is
    refused with a round robin."""
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers(dest="command"))
    out = tmp_path / "eval"
    args = parser.parse_args(
        ["eval", "--variant", "chengdu", "--matchup", "random", "greedy", "--walls", "3", "--seed", "4",
         "--seat-baseline", "--out", str(out), "--no-progress"]
    )  # fmt: skip
    assert args.func(args) == 0
    data = json.loads((out / "eval.json").read_text())
    assert [(m["challenger"], m["opponent"]) for m in data["matches"]] == [("random", "greedy"), ("greedy", "greedy")]
    (row,) = data["seat_for_seat"]
    matches = [summarize_dict(m) for m in data["matches"]]
    assert row["deal_in_difference"] == list(paired_difference(matches[0], matches[1], "deal_in"))
    assert math.isclose(row["points_difference"][0], data["matches"][0]["points"], abs_tol=1e-9)
    assert row["opponent_own_deal_in"] == data["matches"][1]["challenger_rates"]["deal_in_rate"]
    assert "Seat for seat" in (out / "eval.md").read_text() and "Seat for seat" in capsys.readouterr().out
    assert seat_for_seat(matches[:1]) == []
    rr = parser.parse_args(["eval", "--round-robin", "random", "greedy", "--seat-baseline", "--no-progress"])
    with pytest.raises(ValueError, match="seat-baseline"):
        run_cli(rr)


def summarize_dict(m: dict):
    """A MatchResult rebuilt from its eval.json form."""
    from training.evaluation.evaluate import MatchResult

    return MatchResult(**m)
