"""Agents by specification string (智能体注册表), as the evaluation command line names them.

Grammar (:data:`GRAMMAR`, shown by ``chuanma eval --help``)::

    random | greedy | value | defensive            a baseline with default settings
    arbiter                                        value, or defensive's discard where a gate fitted on rollouts
                                                   says so (agents.arbiter; the gate of the hand's preset)
    NAME:key=value,key=value                       a baseline with constructor options, e.g.
                                                   "value:hongzhong_policy=shagui_when_stable"
    external:COMMAND                               an outside bot speaking the JSON-lines protocol of
                                                   agents.external (COMMAND is split like a shell line)
    policy:PATH                                    a policy of chuanma train: its final.zip, a checkpoint or
                                                   the run directory (agents.policy.PolicyAgent.load)
    pretrained:NAME                                the policy of preset NAME shipped with the package
                                                   (agents.policy.PolicyAgent.pretrained, agents/pretrained/)
    compiled:NAME[:key=value,...]                  the compiled (numba) greedy, value or defensive baseline with
                                                   options (agents.compiled.make_batch_agent): the same
                                                   decisions, a whole batch per call
    sb3:PATH                                       one's own sb3-contrib MaskablePPO zip trained on the chuanma
                                                   observations (agents.sb3_agent.SB3Agent)

Option values are parsed as ``int``, ``float``, ``true``/``false`` or kept as strings.  :func:`make_agent` builds a
fresh agent; the ``seed`` reaches the agents that own a random stream (``random``) and is ignored by the
deterministic ones.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from agents.base import Agent

__all__ = ["BASELINES", "GRAMMAR", "AgentSpec", "constructor_options", "make_agent", "parse_spec"]

BASELINES: dict[str, tuple[str, str]] = {
    "random": ("agents.random_agent", "RandomAgent"),
    "greedy": ("agents.greedy", "GreedyAgent"),
    "value": ("agents.value", "ValueAgent"),
    "defensive": ("agents.defensive", "DefensiveAgent"),
    "arbiter": ("agents.arbiter", "ArbiterAgent"),
}

GRAMMAR = """agent specifications:
  random | greedy | value | defensive   a rule-based baseline with default settings
  arbiter                               value, or defensive's discard where the preset's gate (fitted on
                                        rollouts, agents/gates/) says so; arbiter:gate=FILE for another gate
  NAME:key=value,key=value              a baseline with constructor options, e.g. defensive:fold_risk=off
  external:COMMAND                      an outside bot on the JSON-lines protocol of agents/external.py,
                                        e.g. "external:python agents/examples/random_bot.py"
  policy:PATH                           a policy of chuanma train: a run directory, its final.zip or a
                                        checkpoint's model.zip
  pretrained:NAME                       the policy of preset NAME shipped with the package, e.g.
                                        pretrained:hongzhong (agents/pretrained/NAME.md is its model card)
  compiled:NAME[:key=value,...]         the compiled greedy / value / defensive baseline (same decisions,
                                        batched), e.g. compiled:value or compiled:greedy:variant_actions=false
  sb3:PATH                              one's own sb3-contrib MaskablePPO zip trained on the chuanma
                                        observations (e.g. on envs.vector_env.make_vec_env)"""


class AgentSpec:
    """A parsed agent specification: ``kind`` (a baseline name, ``external``, ``policy``, ``pretrained``, ``sb3`` or
    ``compiled``, whose ``argument`` is the baseline name) and its options."""

    __slots__ = ("argument", "kind", "options", "text")

    def __init__(self, text: str, kind: str, options: dict[str, Any], argument: str | None) -> None:
        self.text = text
        self.kind = kind
        self.options = options
        self.argument = argument

    def __repr__(self) -> str:
        return f"AgentSpec({self.text!r})"


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _parse_options(rest: str, text: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"agent option {item!r} in {text!r} must look like key=value")
            options[key.strip()] = _value(value.strip())
    return options


def parse_spec(text: str) -> AgentSpec:
    """Parse one specification (see the module docstring); ``ValueError`` names what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"agent specification must be a non-empty string, got {text!r}")
    text = text.strip()
    name, _, rest = text.partition(":")
    name = name.strip()
    if name in ("external", "policy", "pretrained", "sb3"):
        if not rest.strip():
            what = {"external": "command", "pretrained": "preset name"}.get(name, "path")
            raise ValueError(f"agent specification {text!r} needs a {what}")
        return AgentSpec(text, name, {}, rest.strip())
    if name == "compiled":
        base, _, opts = rest.partition(":")
        if not base.strip():
            raise ValueError(f"agent specification {text!r} needs a baseline name, e.g. 'compiled:greedy'")
        return AgentSpec(text, "compiled", _parse_options(opts, text), base.strip())
    if name not in BASELINES:
        raise ValueError(
            f"unknown agent {name!r} in {text!r}; expected one of {sorted(BASELINES)}, 'external:CMD', 'policy:PATH', "
            "'pretrained:NAME', 'compiled:NAME' or 'sb3:PATH'"
        )
    options = _parse_options(rest, text)
    return AgentSpec(text, name, options, None)


def constructor_options(cls: type) -> set[str]:
    """Named constructor options of ``cls``, including those its ``**options`` pass on to its base classes."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if "__init__" not in vars(klass) or klass is object:
            continue
        params = inspect.signature(klass.__init__).parameters.values()
        names |= {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"}
        if not any(p.kind is p.VAR_KEYWORD for p in inspect.signature(klass.__init__).parameters.values()):
            break
    return names


def make_agent(spec: str | AgentSpec, seed: int = 0, *, variant: Any = None, **external: Any) -> Agent:
    """A fresh agent for ``spec``.

    ``external`` keyword options (``timeout``, ``fallback`` ...) go to :class:`agents.external.ExternalAgent`;
    ``variant`` is needed by ``policy:`` checkpoints.
    """
    if not isinstance(spec, AgentSpec):
        spec = parse_spec(spec)
    if spec.kind == "external":
        from agents.external import ExternalAgent

        return ExternalAgent(spec.argument, name=spec.text, **external)
    if spec.kind == "policy":
        policy = importlib.import_module("agents.policy")
        return policy.PolicyAgent.load(spec.argument, variant=variant)
    if spec.kind == "pretrained":
        policy = importlib.import_module("agents.policy")
        return policy.PolicyAgent.pretrained(spec.argument, variant=variant)
    if spec.kind == "compiled":
        compiled = importlib.import_module("agents.compiled")
        if variant is None:
            raise ValueError(f"{spec.text!r}: a compiled baseline needs the variant it plays")
        return compiled.make_batch_agent(spec.argument, variant, **spec.options)
    if spec.kind == "sb3":
        from agents.sb3_agent import SB3Agent

        return SB3Agent.load(spec.argument)
    module_name, class_name = BASELINES[spec.kind]
    cls = getattr(importlib.import_module(module_name), class_name)
    params = constructor_options(cls)
    options = dict(spec.options)
    unknown = sorted(k for k in options if k not in params or k == "rng")
    if unknown:
        allowed = sorted(k for k in params if k != "rng")
        raise ValueError(f"agent {spec.kind!r} has no option(s) {unknown}; its options are {allowed}")
    if "seed" in params and "seed" not in options:
        options["seed"] = seed
    return cls(**options)
