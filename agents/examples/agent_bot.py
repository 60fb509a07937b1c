#!/usr/bin/env python3
"""Any chuanma agent as an outside bot on the ``chuanma-bot/1`` protocol (see agents/external.py), e.g. the
pretrained policy of a preset or a rule-based baseline:

    chuanma eval --variant hongzhong --opponent greedy \\
        --challenger "external:python agents/examples/agent_bot.py pretrained:hongzhong"

The first argument is an agent specification of agents/registry.py (``pretrained:NAME``, ``value``,
``policy:runs/x/final.zip`` ...).  Unlike random_bot.py this bot imports chuanma: it shows how a process that holds a
chuanma agent rebuilds the observation array from a ``decide`` message (``observation_from_message``) and answers
with the agent's choice, so a trained policy can play in any harness that speaks the protocol.
"""

import argparse
import json
import sys

import numpy as np

from agents.external import observation_from_message
from agents.registry import make_agent
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import config_from_dict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent", help="agent specification, e.g. pretrained:hongzhong")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    agent = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "new_hand":
            rules = config_from_dict(message["rules"], source=f"the rules of variant {message['variant']!r}")
            if agent is None:
                agent = make_agent(args.agent, seed=args.seed, variant=rules)
            if hasattr(agent, "reset"):
                agent.reset(message["seat"], rules)
        elif message["type"] == "decide":
            observation = observation_from_message(message["observation"])
            mask = np.zeros(ACTION_SPACE_SIZE, dtype=bool)
            mask[[entry["id"] for entry in message["legal"]]] = True
            action = int(agent.act(observation, mask))
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
