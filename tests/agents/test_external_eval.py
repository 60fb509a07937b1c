"""``chuanma eval`` with misbehaving outside bots: the exit status, the message, what the table marks, the bot's
stderr file, and the other matchup's result left intact; Ctrl-C and SIGTERM stop workers and bots and keep the
finished walls.  Every run is one wall of the two-player variant (two hands, about forty bot decisions)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.agents.test_external import bot
from tests.helpers.processes import popen_as_from_a_terminal
from training.cli import main
from training.evaluation.evaluate import EvaluationFailed, _finite, bot_log_path, one_vs_three, run_matchups

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ("random", "random")  # the matchup that must come out the same whatever the bot does


@pytest.fixture(scope="module")
def reference() -> dict:
    """The reference matchup played alone (matchup 0 of one wall, seed 0), as eval.json stores it."""
    res = run_matchups("two_player", [REFERENCE], walls=1, seed=0)[0]
    return json.loads(json.dumps(_finite(res.to_dict())))


def run_eval(tmp_path: Path, spec: str, *flags: str, capsys, timeout: float = 5.0) -> tuple[int, str, str, dict]:
    """``chuanma eval`` of the reference matchup and ``spec`` vs random; ``timeout`` is generous for bots that
    answer (a process may be slow to start on a loaded machine) and short for those that never do."""
    out = tmp_path / "out"
    argv = ["eval", "--variant", "two_player", "--matchup", *REFERENCE, "--matchup", spec, "random", "--walls", "1",
            "--seed", "0", "--bot-timeout", str(timeout), "--no-progress", "--out", str(out), *flags]  # fmt: skip
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err, json.loads((out / "eval.json").read_text())


def bot_row(table: str, spec: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(f"| {spec}"))


def spec_of(tmp_path: Path, name: str, *args: str) -> str:
    return "external:" + " ".join([*bot(tmp_path, name), *args])


def test_stray_lines_do_not_cost_the_bot_its_decisions(tmp_path, capsys, reference) -> None:
    """A banner line, and junk plus a second answer after every reply: exit 0, no fallback, no mark; the
    garbage is counted in the readable fault line."""
    for name in ("banner", "junk_after"):
        spec = spec_of(tmp_path, name)
        rc, table, err, data = run_eval(tmp_path, spec, capsys=capsys)
        assert rc == 0, err
        faults = data["matches"][1]["faults"][spec]
        assert faults["decisions"] > 30 and "fallback" not in faults and faults["garbage"] >= 2
        assert bot_row(table, spec).startswith(f"| {spec} | random |")  # no [fallback] mark
        assert f"- `{spec}` vs random: {faults['decisions']} decisions, fallback played 0 (0.0 %): garbage" in table
        assert data["matches"][0] == reference


@pytest.mark.parametrize("case", ["missing_command", "missing_script", "syntax_error"])
def test_a_bot_that_never_starts_fails_the_run(tmp_path, capsys, reference, case: str) -> None:
    spec = {
        "missing_command": "external:no-such-bot-command --fast",
        "missing_script": f"external:{sys.executable} {tmp_path / 'missing_bot.py'}",
        "syntax_error": spec_of(tmp_path, "syntax_error"),
    }[case]
    flags = ["--workers", "2"] if case == "syntax_error" else []  # the worker-pool path too
    rc, table, err, data = run_eval(tmp_path, spec, *flags, capsys=capsys)
    assert rc == 1
    assert "chuanma eval: error: an outside bot failed" in err
    if case == "missing_command":
        assert "could not start: [Errno 2] No such file or directory: 'no-such-bot-command'" in err
    else:
        assert "exited before answering its first decision (exit status" in err
        words = "No such file or directory" if case == "missing_script" else "SyntaxError"
        assert "last lines of its stderr:" in err and words in err
        log = bot_log_path(tmp_path / "out" / "bots", spec)
        assert words in log.read_text() and str(log) in err
    assert bot_row(table, spec).startswith(f"| {spec} [FAILED] | random | 0 | 0 |")
    assert data["matches"][1]["failures"][spec] and data["failed"]
    assert data["matches"][0] == reference


def test_a_flooding_bot_fails_the_run_with_bounded_memory(tmp_path, capsys, reference) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    spec = spec_of(tmp_path, "flood")
    rc, table, err, data = run_eval(tmp_path, spec, capsys=capsys)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 1024
    assert rc == 1 and "the fallback played 100.0 %" in err and "flood 2" in err
    assert bot_row(table, spec).startswith(f"| {spec} [FAILED; fallback 100.0 %] | random |")
    assert data["matches"][0] == reference


def test_a_bot_that_never_answers_is_declared_dead(tmp_path, capsys, reference) -> None:
    spec = spec_of(tmp_path, "silent")
    rc, table, err, data = run_eval(tmp_path, spec, capsys=capsys, timeout=0.3)
    assert rc == 1 and "did not answer 3 decisions in a row (timeout 0.3 s each) and was declared dead" in err
    assert bot_row(table, spec).startswith(f"| {spec} [FAILED] | random | 0 |")
    assert data["matches"][0] == reference
    # asked to go on: the fallback plays the rest at once, the row says so, and the share still fails the run
    rc, table, err, data = run_eval(tmp_path, spec, "--bot-on-dead", "fallback", capsys=capsys, timeout=0.3)
    assert rc == 1 and "the fallback played 100.0 %" in err
    rc, table, err, data = run_eval(
        tmp_path, spec, "--bot-on-dead", "fallback", "--bot-max-fallback", "1", capsys=capsys, timeout=0.3
    )
    assert rc == 0, err
    assert bot_row(table, spec).startswith(f"| {spec} [fallback 100.0 %] | random | 1 |")
    assert "timeout 6, declared dead." in table  # three per seat (one process each), then the rest at once
    assert data["matches"][0] == reference


def test_a_slow_answer_is_marked_with_the_fallback_share(tmp_path, capsys, reference) -> None:
    spec = spec_of(tmp_path, "late", "2.5")  # decision 1 of each process is answered after 2.5 s (timeout 1 s)
    rc, table, err, data = run_eval(tmp_path, spec, capsys=capsys, timeout=1.0)
    assert rc == 0, err
    faults = data["matches"][1]["faults"][spec]
    assert faults["timeout"] == faults["fallback"] == 2 and "dead" not in faults
    share = 100 * 2 / faults["decisions"]
    assert 0 < share < 5
    assert bot_row(table, spec).startswith(f"| {spec} [fallback {share:.1f} %] | random |")
    seat_table = table.split("Seat for seat")[1]
    assert bot_row(seat_table, spec).startswith(f"| {spec} [fallback {share:.1f} %] | random | 1 |")
    assert data["matches"][0] == reference


def test_a_bot_that_dies_mid_game_falls_back_and_its_share_is_judged(tmp_path, capsys, reference) -> None:
    marker = tmp_path / "died"
    spec = spec_of(tmp_path, "dies_once", str(marker))
    rc, table, err, data = run_eval(tmp_path, spec, capsys=capsys)
    assert rc == 1
    assert "crash 1" in err and "more than the allowed 5 %" in err
    assert "last lines of its stderr:" in err and "bot: giving up now" in err
    assert "bot: giving up now" in bot_log_path(tmp_path / "out" / "bots", spec).read_text()
    assert bot_row(table, spec).startswith(f"| {spec} [FAILED; fallback ")
    assert data["matches"][0] == reference
    marker.unlink()
    rc, table, err, data = run_eval(tmp_path, spec, "--bot-max-fallback", "1", capsys=capsys)
    assert rc == 0, err
    assert bot_row(table, spec).startswith(f"| {spec} [fallback ") and "crash 1" in table


def test_the_python_api_raises_with_every_result(tmp_path, reference) -> None:
    spec = spec_of(tmp_path, "illegal")
    with pytest.raises(EvaluationFailed, match="the fallback played 100.0 %") as info:
        run_matchups("two_player", [REFERENCE, (spec, "random")], walls=1, seed=0, external={"timeout": 2.0})
    first, failed = info.value.results
    assert json.loads(json.dumps(_finite(first.to_dict()))) == reference
    assert failed.faults[spec]["illegal"] == failed.faults[spec]["decisions"] > 0 and spec in failed.failures
    res = one_vs_three("two_player", spec, "random", walls=1, seed=0, external={"timeout": 2.0}, max_fallback=1.0)
    assert res.fallback_share(spec) == 1.0 and not res.failures
    with pytest.raises(ValueError, match="max_fallback"):
        one_vs_three("two_player", "random", "random", walls=1, max_fallback=5)


def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status  # a zombie has stopped; only its exit status is left


@pytest.mark.parametrize(("sig", "workers", "code"), [(signal.SIGINT, 2, 130), (signal.SIGTERM, 1, 143)])
def test_an_interrupt_stops_workers_and_bots_and_keeps_the_finished_walls(tmp_path, sig, workers, code) -> None:
    """Ctrl-C (SIGINT to the process group) or SIGTERM (to the evaluator alone) in the middle of a long run: the
    exit status says which, no traceback, every bot process stops, and eval.partial.json says it is partial and
    holds the walls finished so far."""
    pids, hands = tmp_path / "pids", tmp_path / "hands"
    script = tmp_path / "steady_bot.py"
    script.write_text(
        "import json, os, sys, time\n"
        f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'end_hand':\n"
        f"        open({str(hands)!r}, 'a').write('x')\n"
        "    if m['type'] == 'decide':\n"
        "        time.sleep(0.01)\n"
        "        print(json.dumps({'id': m['id'], 'action': m['legal'][-1]['id']}), flush=True)\n"
    )
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "training.cli", "eval", "--variant", "two_player", "--challenger",
           f"external:{sys.executable} {script}", "--opponent", "random", "--walls", "500", "--workers", str(workers),
           "--no-progress", "--out", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = popen_as_from_a_terminal(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while (not hands.exists() or len(hands.read_text()) < 8) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        assert hands.exists() and len(hands.read_text()) >= 8, "the bot never got going"
        if sig == signal.SIGINT:  # as a terminal's Ctrl-C does: to the whole process group (the workers too)
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr and "Traceback" not in stdout
    name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
    assert f"chuanma eval: interrupted by {name} after " in stderr and "eval.partial.json (partial)" in stderr
    partial = json.loads((out / "eval.partial.json").read_text())
    assert partial["partial"] is True and partial["interrupted_by"] == name
    assert 1 <= partial["walls_finished"] < 500 and partial["walls_requested"] == 500
    assert partial["matches"][0]["walls"] == partial["walls_finished"]
    assert (out / "eval.partial.md").read_text().startswith(f"**Partial result**: interrupted by {name}")
    assert not (out / "eval.json").exists()
    started = _pids(pids)
    assert len(started) >= 2  # one process per seat the bot plays (and per worker)
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in started), [p for p in started if not _gone(p)]


def test_the_agent_bot_example_plays_a_chuanma_agent_through_the_protocol():
    """agents/examples/agent_bot.py serving `greedy` against three greedy seats makes greedy's decisions: every seat
    rotation of a wall is the same game, so the challenger's duplicate result is exactly zero and no decision falls
    back."""
    script = ROOT / "agents" / "examples" / "agent_bot.py"
    spec = f"external:{sys.executable} {script} greedy"
    (res,) = run_matchups("chengdu", [(spec, "greedy")], walls=2, seed=3, external={"timeout": 30.0})
    assert res.points == 0.0 and res.ci_low == 0.0 and res.ci_high == 0.0
    assert res.faults[spec]["decisions"] > 50 and res.fallback_share(spec) == 0.0
