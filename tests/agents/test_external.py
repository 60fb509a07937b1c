"""Outside bots: the JSON-lines protocol, replies matched to requests, and faults (timeout, garbage, illegal, crash,
flood, a bot that never starts or never answers) that never hang a game nor get scored as the bot's play."""

from __future__ import annotations

import json
import resource
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from agents.external import MAX_UNREAD_LINES, PROTOCOL, BotError, ExternalAgent, observation_message
from agents.greedy import GreedyAgent
from envs.core.rule_config import load_variant
from envs.engine.game import Game
from envs.engine.observation import PLANES, ObservationEncoder, legal_mask
from training.evaluation.evaluate import one_vs_three, play_hand

EXAMPLE = Path(__file__).resolve().parents[2] / "agents" / "examples" / "random_bot.py"

_PROLOGUE = """
import json, os, sys, time
def decisions():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "decide":
            yield msg
LOCK = __import__("threading").Lock()
def reply(msg, action):
    with LOCK:
        sys.stdout.write(json.dumps({"id": msg["id"], "action": action}) + "\\n")
        sys.stdout.flush()
def last(msg):
    return msg["legal"][-1]["id"]
"""

BOTS = {
    # answers the last legal action (not what the "first" fallback plays), except decision 1 which comes too late
    "slow": "delay = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5\nfor m in decisions():\n"
    "    time.sleep(delay if m['id'] == 1 else 0)\n    reply(m, last(m))",
    # answers decision 1 of each process late (after argv[1] seconds, from a thread) and the others at once
    "late": "import threading\nfor m in decisions():\n    if m['id'] == 1:\n"
    "        threading.Timer(float(sys.argv[1]), reply, (m, last(m))).start()\n    else:\n        reply(m, last(m))",
    "wrong_type": "for m in decisions():\n    reply(m, 'five')",
    "illegal": "for m in decisions():\n    reply(m, 182)",
    "crash": "for m in decisions():\n    if m['id'] == 2:\n        sys.exit(3)\n    reply(m, last(m))",
    "silent": "for m in decisions():\n    pass",
    "deaf": "time.sleep(60)  # never reads its stdin",
    "bare": "for m in decisions():\n    print(last(m), flush=True)",
    "banner": "print('bot ready', flush=True)\nfor m in decisions():\n    reply(m, last(m))",
    "junk_after": "for m in decisions():\n    reply(m, last(m))\n    print('thinking done; 42', flush=True)\n"
    "    print(json.dumps({'id': m['id'], 'action': 0}), flush=True)  # a second answer to the same decision",
    "chatter": "for m in decisions():\n    print('i think therefore i am', flush=True)",
    "flood": "while True:\n    sys.stdout.write('x' * 80 + '\\n')",
    "long_line": "while True:\n    sys.stdout.write('x' * 4096)",
    "syntax_error": "def broken(:\n    pass",
    "echo": "log = []\nfor line in sys.stdin:\n    log.append(json.loads(line))\n    if log[-1]['type'] == 'decide':\n"
    "        open(sys.argv[1], 'w').write(json.dumps(log))\n        reply(log[-1], log[-1]['legal'][0]['id'])",
    # dies once, at its third decision, after a line on stderr; the restarted process plays normally
    "dies_once": "marker = sys.argv[1]\nfor m in decisions():\n    if m['id'] == 2 and not os.path.exists(marker):\n"
    "        open(marker, 'w').close()\n        print('bot: giving up now', file=sys.stderr, flush=True)\n"
    "        sys.exit(3)\n    reply(m, last(m))",
}


def bot(tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / f"{name}_bot.py"
    body = BOTS[name] if name == "syntax_error" else _PROLOGUE + textwrap.dedent(BOTS[name])
    path.write_text(body + "\n")
    return [sys.executable, str(path)]


def positions(n: int = 6):
    """(observation, mask) of the first decisions of a real hand."""
    cfg = load_variant("chengdu")
    game = Game(cfg, seed=4, record_events=False)
    enc = ObservationEncoder.from_config(cfg)
    out = []
    seat = game.pending[0]
    view = game.view(seat)
    for _ in range(n):
        out.append((enc.encode(view), legal_mask(view)))
    return cfg, out


def last_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def test_well_behaved_bot_and_message_format(tmp_path) -> None:
    log = tmp_path / "log.json"
    agent = ExternalAgent([*bot(tmp_path, "echo"), str(log)], timeout=5.0)
    cfg, pos = positions(2)
    agent.reset(0, cfg)
    agent.feed_events([{"type": "deal", "seat": 0, "tiles": [1, 2], "visible_to": [0]}])
    obs, mask = pos[0]
    assert agent.act(obs, mask) == int(np.flatnonzero(mask)[0])
    messages = json.loads(log.read_text())
    hello, new_hand, decide = messages
    assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL
    assert [p[0] for p in hello["planes"]] == [g.name for g in PLANES]
    assert new_hand == {
        "type": "new_hand", "seat": 0, "variant": "chengdu", "num_players": 4, "rules": cfg.to_dict(),
    }  # fmt: skip
    assert decide["events"] == [{"type": "deal", "seat": 0, "tiles": [1, 2]}]
    assert decide["observation"] == observation_message(obs)
    assert len(decide["observation"]["hand"]) == 4 and len(decide["observation"]["wall"]) == 34
    assert [e["id"] for e in decide["legal"]] == np.flatnonzero(mask).tolist()
    assert decide["legal"][0]["name"].startswith("exchange_pick")
    assert agent.faults["decisions"] == 1 and sum(agent.faults[k] for k in ("timeout", "garbage", "illegal")) == 0
    agent.close()
    assert not agent.alive


def test_observation_message_keeps_fractions() -> None:
    obs = np.zeros_like(positions(1)[1][0][0])
    obs.flat[0] = 0.5
    message = observation_message(obs)
    assert message["hand"][0][0] == 0.5 and message["hand"][0][1] == 0 and isinstance(message["hand"][0][1], int)


def test_timeout_falls_back_and_late_reply_is_dropped(tmp_path) -> None:
    agent = ExternalAgent([*bot(tmp_path, "slow"), "3.0"], timeout=2.0, fallback="first")
    cfg, pos = positions(3)
    agent.reset(0, cfg)
    mask = pos[0][1]
    assert [agent.act(o, m) for o, m in pos] == [last_legal(mask), int(np.flatnonzero(mask)[0]), last_legal(mask)]
    assert agent.faults["timeout"] == 1 and agent.faults["fallback"] == 1
    # decision 2 skipped the late reply of decision 1 (matched by id) and got its own answer
    assert agent.faults["garbage"] == 0
    agent.close()


@pytest.mark.parametrize("name", ["banner", "junk_after"])
def test_stray_lines_are_garbage_and_never_shift_the_replies(tmp_path, name: str) -> None:
    """A banner before the first reply, or junk and a second answer after every reply: each stray line is counted
    as garbage, and every decision still gets the bot's own answer (the last legal id, never the fallback)."""
    agent = ExternalAgent(bot(tmp_path, name), timeout=5.0)
    cfg, pos = positions(5)
    agent.reset(0, cfg)
    assert [agent.act(o, m) for o, m in pos] == [last_legal(m) for _, m in pos]
    assert agent.faults["fallback"] == 0 and agent.faults["timeout"] == 0
    assert agent.faults["garbage"] == (1 if name == "banner" else 2 * 4)  # the last decision's junk is still unread
    agent.close()


@pytest.mark.parametrize(("name", "fault"), [("wrong_type", "garbage"), ("illegal", "illegal"), ("crash", "crash")])
def test_faults_are_counted_and_the_fallback_plays(tmp_path, name: str, fault: str) -> None:
    greedy = GreedyAgent()
    agent = ExternalAgent(bot(tmp_path, name), timeout=2.0, fallback=greedy)
    cfg, pos = positions(4)
    agent.reset(0, cfg)
    greedy.reset(0, cfg)
    for obs, mask in pos:
        a = agent.act(obs, mask)
        assert mask[a]
    assert agent.faults[fault] >= 1
    if fault == "crash":
        assert agent.faults["crash"] == 1 and agent.faults["fallback"] == 2  # decisions 2 and 3
        assert not agent.alive
        agent.reset(0, cfg)  # restarted for the next hand
        assert agent.faults["restarts"] == 1 and agent.alive
    else:
        assert agent.faults[fault] == 4 and agent.faults["fallback"] == 4
    agent.close()


@pytest.mark.parametrize("name", ["silent", "chatter"])
def test_a_bot_that_never_answers_is_declared_dead(tmp_path, name: str) -> None:
    """Three timeouts in a row: BotError (the default), or with on_dead="fallback" the fallback plays every later
    decision at once and the bot is not restarted."""
    agent = ExternalAgent(bot(tmp_path, name), timeout=0.2, fallback="random", seed=3, max_timeouts=3)
    cfg, pos = positions(4)
    agent.reset(0, cfg)
    for obs, mask in pos[:2]:
        assert mask[agent.act(obs, mask)]
    with pytest.raises(BotError, match="did not answer 3 decisions in a row") as info:
        agent.act(*pos[2])
    assert info.value.kind == "dead" and agent.faults["timeout"] == 3 and not agent.alive
    assert agent.faults["garbage"] == (3 if name == "chatter" else 0)

    patient = ExternalAgent(bot(tmp_path, name), timeout=0.2, max_timeouts=2, on_dead="fallback")
    patient.reset(0, cfg)
    for obs, mask in pos:
        assert mask[patient.act(obs, mask)]
    patient.reset(1, cfg)
    assert patient.faults["timeout"] == 2 and patient.faults["dead"] == 1 and patient.faults["fallback"] == 4
    assert patient.faults["restarts"] == 0 and not patient.alive and "declared dead" in patient.dead_reason
    with pytest.raises(ValueError, match="on_dead"):
        ExternalAgent(["x"], on_dead="retry")
    with pytest.raises(ValueError, match="max_timeouts"):
        ExternalAgent(["x"], max_timeouts=0)


def test_a_bot_that_does_not_read_its_stdin_never_blocks_the_evaluator(tmp_path) -> None:
    """Twelve decisions of about 8 KB each are more than a pipe holds: the writes wait on a thread, the decisions
    time out, and the bot is declared dead."""
    agent = ExternalAgent(bot(tmp_path, "deaf"), timeout=0.05, max_timeouts=12)
    cfg, pos = positions(12)
    agent.reset(0, cfg)
    for obs, mask in pos[:11]:
        assert agent.act(obs, mask) == int(np.flatnonzero(mask)[0])
    with pytest.raises(BotError, match="did not answer 12 decisions in a row"):
        agent.act(*pos[11])
    assert agent.faults["timeout"] == 12 and not agent.alive


def test_bare_integer_replies_are_still_accepted(tmp_path) -> None:
    agent = ExternalAgent(bot(tmp_path, "bare"), timeout=2.0)
    cfg, pos = positions(2)
    agent.reset(0, cfg)
    assert [agent.act(o, m) for o, m in pos] == [last_legal(m) for _, m in pos]
    assert agent.faults["fallback"] == 0
    agent.close()
    with pytest.raises(ValueError, match="command"):
        ExternalAgent([])
    with pytest.raises(ValueError, match="fallback"):
        ExternalAgent(["x"], fallback=42)


@pytest.mark.parametrize("case", ["missing_command", "missing_script", "syntax_error"])
def test_a_bot_that_cannot_start_raises_with_its_stderr(tmp_path, case: str) -> None:
    command = {
        "missing_command": [str(tmp_path / "no_such_program")],
        "missing_script": [sys.executable, str(tmp_path / "no_such_bot.py")],
        "syntax_error": bot(tmp_path, "syntax_error"),
    }[case]
    log = tmp_path / "bot.stderr"
    agent = ExternalAgent(command, timeout=2.0, stderr=log)
    cfg, pos = positions(1)
    with pytest.raises(BotError) as info:
        agent.reset(0, cfg)
        agent.act(*pos[0])
    assert info.value.kind == "start"
    text = str(info.value)
    if case == "missing_command":
        assert "could not start" in text and "no_such_program" in text
    else:
        assert "exited before answering its first decision (exit status" in text
        expected = "No such file or directory" if case == "missing_script" else "SyntaxError"
        assert expected in text and any(expected in line for line in info.value.stderr_tail)
        assert expected in log.read_text() and str(log) in text


@pytest.mark.parametrize("name", ["flood", "long_line"])
def test_a_flooding_bot_is_killed_and_memory_stays_bounded(tmp_path, name: str) -> None:
    """A bot writing stdout without end: the reader holds at most MAX_UNREAD_LINES lines or one line of
    MAX_LINE_BYTES, kills the bot and counts a flood; the evaluating process does not grow (peak RSS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    agent = ExternalAgent(bot(tmp_path, name), timeout=5.0)
    cfg, pos = positions(2)
    agent.reset(0, cfg)
    deadline = time.monotonic() + 10.0
    while agent._out.flood is None and time.monotonic() < deadline:  # the reader meets the bound on its own
        time.sleep(0.01)
    assert agent._out.flood is not None and agent._out.lines.qsize() <= MAX_UNREAD_LINES + 1
    for obs, mask in pos:
        assert mask[agent.act(obs, mask)]
    assert agent.faults["flood"] == 1 and agent.faults["fallback"] == 2 and not agent.alive
    assert agent._proc.poll() is not None  # killed
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 1024
    agent.close()


def test_faulty_bot_never_stops_a_hand(tmp_path) -> None:
    cfg = load_variant("chengdu")
    agents = [ExternalAgent(bot(tmp_path, "crash"), timeout=1.0)] + [GreedyAgent() for _ in range(3)]
    game = play_hand(cfg, 2, agents)
    assert game.is_over and agents[0].faults["crash"] == 1
    agents[0].close()


def test_example_bot_plays_a_whole_evaluation(tmp_path) -> None:
    from training.evaluate import bot_log_path

    spec = f"external:{sys.executable} {EXAMPLE} --seed 1 --prefer-drawn"
    external = {"timeout": 5.0, "fallback": "first"}
    res = one_vs_three("two_player", spec, "random", walls=1, seed=0, external=external, bot_log_dir=tmp_path)
    faults = res.faults[spec]
    assert faults["decisions"] > 0
    assert sum(faults.get(k, 0) for k in ("timeout", "garbage", "illegal", "crash", "flood", "fallback")) == 0
    log = bot_log_path(tmp_path, spec).read_text().splitlines()
    assert len(log) == 2 and all(line.endswith("random_bot: seed 1") for line in log)  # one process per seat
