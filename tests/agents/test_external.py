"""Outside bots: the JSON-lines protocol, and faults (timeout, garbage, illegal, crash) that never stop a game."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from agents.external import PROTOCOL, ExternalAgent, observation_message
from agents.greedy import GreedyAgent
from envs.core.rule_config import load_variant
from envs.engine.game import Game
from envs.engine.observation import PLANES, ObservationEncoder, legal_mask
from training.evaluation.evaluate import one_vs_three, play_hand

EXAMPLE = Path(__file__).resolve().parents[2] / "agents" / "examples" / "random_bot.py"

_PROLOGUE = """
import json, sys, time
def decisions():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "decide":
            yield msg
def reply(msg, action):
    sys.stdout.write(json.dumps({"id": msg["id"], "action": action}) + "\\n")
    sys.stdout.flush()
"""

BOTS = {
    # answers the first legal action, except decision 1 which comes too late
    "slow": "for m in decisions():\n    time.sleep(1.5 if m['id'] == 1 else 0)\n    reply(m, m['legal'][0]['id'])",
    "garbage": "for m in decisions():\n    sys.stdout.write('i think therefore i am\\n'); sys.stdout.flush()",
    "illegal": "for m in decisions():\n    reply(m, 182)",
    "crash": "for m in decisions():\n    if m['id'] == 2:\n        sys.exit(3)\n    reply(m, m['legal'][0]['id'])",
    "silent": "for m in decisions():\n    pass",
    "bare": "for m in decisions():\n    print(m['legal'][-1]['id'], flush=True)",
    "echo": "log = []\nfor line in sys.stdin:\n    log.append(json.loads(line))\n    if log[-1]['type'] == 'decide':\n"
    "        open(sys.argv[1], 'w').write(json.dumps(log))\n        reply(log[-1], log[-1]['legal'][0]['id'])",
}


def bot(tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / f"{name}_bot.py"
    path.write_text(_PROLOGUE + textwrap.dedent(BOTS[name]) + "\n")
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


def test_timeout_falls_back_and_late_reply_is_dropped(tmp_path) -> None:
    agent = ExternalAgent(bot(tmp_path, "slow"), timeout=1.0, fallback="first")
    cfg, pos = positions(3)
    agent.reset(0, cfg)
    first = int(np.flatnonzero(pos[0][1])[0])
    t = time.monotonic()
    assert [agent.act(o, m) for o, m in pos] == [first] * 3
    assert time.monotonic() - t < 6
    assert agent.faults["timeout"] == 1 and agent.faults["fallback"] == 1
    # decision 2 waited past the late reply of decision 1 (matched by id) and got its own answer
    assert agent.faults["garbage"] == 0
    agent.close()


@pytest.mark.parametrize(("name", "fault"), [("garbage", "garbage"), ("illegal", "illegal"), ("crash", "crash")])
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


def test_silent_bot_times_out_every_time_without_hanging(tmp_path) -> None:
    agent = ExternalAgent(bot(tmp_path, "silent"), timeout=0.2, fallback="random", seed=3)
    cfg, pos = positions(3)
    agent.reset(0, cfg)
    t = time.monotonic()
    for obs, mask in pos:
        assert mask[agent.act(obs, mask)]
    assert time.monotonic() - t < 3
    assert agent.faults["timeout"] == 3
    agent.close()


def test_bare_integer_replies_and_missing_programs(tmp_path) -> None:
    agent = ExternalAgent(bot(tmp_path, "bare"), timeout=2.0)
    cfg, pos = positions(1)
    agent.reset(0, cfg)
    obs, mask = pos[0]
    assert agent.act(obs, mask) == int(np.flatnonzero(mask)[-1])
    agent.close()
    ghost = ExternalAgent([str(tmp_path / "no_such_program")], timeout=0.5)
    ghost.reset(0, cfg)
    assert mask[ghost.act(obs, mask)]
    assert ghost.faults["crash"] == 1 and ghost.start_error
    with pytest.raises(ValueError, match="command"):
        ExternalAgent([])
    with pytest.raises(ValueError, match="fallback"):
        ExternalAgent(["x"], fallback=42)


def test_faulty_bot_never_stops_a_hand_or_an_evaluation(tmp_path) -> None:
    cfg = load_variant("chengdu")
    agents = [ExternalAgent(bot(tmp_path, "crash"), timeout=1.0)] + [GreedyAgent() for _ in range(3)]
    game = play_hand(cfg, 2, agents)
    assert game.is_over and agents[0].faults["crash"] == 1
    agents[0].close()
    spec = f"external:{sys.executable} {bot(tmp_path, 'illegal')[1]}"
    res = one_vs_three("chengdu", spec, "greedy", walls=1, seed=0, external={"timeout": 2.0})
    assert res.faults[spec]["illegal"] == res.faults[spec]["decisions"] > 0


def test_example_bot_plays_a_whole_evaluation() -> None:
    spec = f"external:{sys.executable} {EXAMPLE} --seed 1 --prefer-drawn"
    res = one_vs_three("hongzhong", spec, "random", walls=1, seed=0, external={"timeout": 5.0, "fallback": "first"})
    faults = res.faults[spec]
    assert faults["decisions"] > 0
    assert sum(faults.get(k, 0) for k in ("timeout", "garbage", "illegal", "crash")) == 0
