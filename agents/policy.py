"""Learned policies (策略智能体): :class:`PolicyAgent` plays a trained network behind the agent interface.

Checkpoint files
----------------
A checkpoint is a zip archive holding

* ``chuanma.json`` — :class:`CheckpointMeta`: format, variant name and every rule flag, observation version
  (:data:`envs.engine.observation.OBS_VERSION`), action layout version
  (:data:`envs.core.actions.ACTION_LAYOUT_VERSION`), package version, seed, training step and the network specification
  (:class:`NetSpec` as a mapping);
* ``policy.pth`` — the ``state_dict`` of the sb3-contrib ``MaskableActorCriticPolicy``.

Training checkpoints written by ``MaskablePPO.save`` (which also hold the optimizer and the algorithm state) get
``chuanma.json`` added and load here too; :func:`save_policy` writes a policy-only file.

:meth:`PolicyAgent.load` refuses, with a :class:`CheckpointError` naming the problem and what was expected, a file
that is missing or corrupt (truncated zip, bad CRC, missing member, unreadable tensors), a checkpoint made for
another variant (name or rule flags), another observation version or another action layout.

:meth:`PolicyAgent.load` takes a run directory as well (its ``final.zip``: :func:`resolve_checkpoint`).

>>> agent = PolicyAgent.load("runs/hongzhong/final.zip", variant="hongzhong")   # doctest: +SKIP
>>> agent.act(observation, legal_mask)                                          # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from agents.base import BaseAgent, legal_ids
from agents.learned.advice import ADVICE_VERSION, ADVISORS, check_advisor
from agents.learned.extractor import NumpyActor, TilePlaneExtractor, input_rows
from agents.learned.hand_features import HAND_FEATURES_VERSION
from agents.learned.net_input import NetInput, input_space
from envs import __version__ as PACKAGE_VERSION
from envs.core.actions import ACTION_LAYOUT_VERSION, ACTION_SPACE_SIZE, action_name
from envs.core.rule_config import ConfigError, RuleConfig, config_from_dict, load_variant
from envs.engine.match_observation import MATCH_OBS_SHAPE, MATCH_OBS_VERSION
from envs.engine.observation import OBS_SHAPE, OBS_VERSION

CHECKPOINT_FORMAT = "chuanma-checkpoint-v1"
META_NAME = "chuanma.json"
POLICY_NAME = "policy.pth"
FINAL_POLICY = "final.zip"  # the policy a finished training run leaves in its run directory
CHECKPOINT_MODEL = "model.zip"  # the MaskablePPO zip of a training checkpoint (checkpoints/step_<N>/)
_IGNORED_FLAGS = frozenset({"description"})
_ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}


class CheckpointError(ValueError):
    """A checkpoint cannot be used: missing, corrupt, or made for another variant / observation / action layout."""


def _advisor_problem(text: str) -> str:
    """Why this version cannot play advisor ``text`` (:func:`agents.learned.advice.check_advisor`); ``""`` if it can."""
    try:
        check_advisor(text)
    except ValueError as exc:
        return str(exc)
    return ""


@dataclass(frozen=True)
class NetSpec:
    """Network shape: the :class:`agents.learned.extractor.TilePlaneExtractor` widths and the policy / value MLP layers.

    ``hand_features``: ``""`` (the network reads the observation only) or the version name of the
    :mod:`agents.learned.hand_features` planes appended to the observation (:data:`HAND_FEATURES_VERSION`).
    ``advisor`` / ``advice``: ``""`` / ``""`` (no advice) or the name of the rule-based agent whose choice the
    network reads as :mod:`agents.learned.advice` planes and the version of that encoding (:data:`ADVICE_VERSION`).
    ``match``: the network reads the ``chuanma-v1-match`` observation (a policy trained on matches, RULES.md §11.2);
    off, it reads ``chuanma-v1`` (a match observation is then read by its first rows).
    """

    features_dim: int = 256
    channels: int = 32
    honor_channels: int = 8
    broadcast_dim: int = 64
    pi_layers: tuple[int, ...] = (128,)
    vf_layers: tuple[int, ...] = (128,)
    activation: str = "relu"
    ortho_init: bool = True
    hand_features: str = ""
    advisor: str = ""
    advice: str = ""
    match: bool = False

    def __post_init__(self) -> None:
        for name in ("features_dim", "channels", "honor_channels", "broadcast_dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"NetSpec.{name} must be a positive integer, got {value!r}")
        for name in ("pi_layers", "vf_layers"):
            value = tuple(getattr(self, name))
            if any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value):
                raise ValueError(f"NetSpec.{name} must be a list of positive integers, got {list(value)!r}")
            object.__setattr__(self, name, value)
        if not isinstance(self.match, bool):
            raise ValueError(f"NetSpec.match must be true or false, got {self.match!r}")
        if self.activation not in _ACTIVATIONS:
            raise ValueError(f"NetSpec.activation must be one of {sorted(_ACTIVATIONS)}, got {self.activation!r}")
        if self.hand_features not in ("", HAND_FEATURES_VERSION):
            raise ValueError(
                f"NetSpec.hand_features {self.hand_features!r} is not supported by this version; expected '' (off) "
                f"or {HAND_FEATURES_VERSION!r}"
            )
        if (self.advisor, self.advice) != ("", ""):
            problem = _advisor_problem(self.advisor)
            if problem or self.advice != ADVICE_VERSION:
                raise ValueError(
                    f"NetSpec advisor {self.advisor!r} / advice {self.advice!r} is not supported by this version; "
                    f"expected '' / '' (no advice) or an advisor of {list(ADVISORS)} (alone or with options) with "
                    f"advice {ADVICE_VERSION!r}" + (f" ({problem})" if problem else "")
                )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pi_layers"] = list(self.pi_layers)
        d["vf_layers"] = list(self.vf_layers)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetSpec:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"NetSpec: unknown key(s) {unknown}; expected some of {sorted(known)}")
        return cls(**dict(data))

    def policy_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``MaskableActorCriticPolicy`` (and ``MaskablePPO(policy_kwargs=...)``)."""
        return {
            "net_arch": {"pi": list(self.pi_layers), "vf": list(self.vf_layers)},
            "activation_fn": _ACTIVATIONS[self.activation],
            "ortho_init": self.ortho_init,
            "features_extractor_class": TilePlaneExtractor,
            "features_extractor_kwargs": {
                "features_dim": self.features_dim,
                "channels": self.channels,
                "honor_channels": self.honor_channels,
                "broadcast_dim": self.broadcast_dim,
                "hand_features": bool(self.hand_features),
                "advisor": bool(self.advisor),
                "match": self.match,
            },
            "share_features_extractor": True,
        }

    def input_shape(self) -> tuple[int, int]:
        """Shape of one network input: the observation, plus the hand-feature and advice planes when they are on."""
        return (input_rows(bool(self.hand_features), bool(self.advisor), self.match)[0], OBS_SHAPE[1])

    @property
    def obs_version(self) -> str:
        """The observation version the network reads."""
        return MATCH_OBS_VERSION if self.match else OBS_VERSION

    @property
    def obs_shape(self) -> tuple[int, int]:
        """The observation shape the network reads."""
        return MATCH_OBS_SHAPE if self.match else OBS_SHAPE

    def net_input(self, variant: str | RuleConfig) -> NetInput:
        """The :class:`agents.learned.net_input.NetInput` builder of this network's input for ``variant``."""
        return NetInput(variant, hand_features=bool(self.hand_features), advisor=self.advisor, match=self.match)


@dataclass(frozen=True)
class CheckpointMeta:
    """What a checkpoint was made for (stored as ``chuanma.json``)."""

    variant: str
    variant_config: dict[str, Any]
    net: dict[str, Any]
    obs_version: str = OBS_VERSION
    action_layout_version: str = ACTION_LAYOUT_VERSION
    obs_shape: tuple[int, ...] = OBS_SHAPE
    action_space_size: int = ACTION_SPACE_SIZE
    package_version: str = PACKAGE_VERSION
    seed: int | None = None
    step: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    format: str = CHECKPOINT_FORMAT

    @classmethod
    def for_variant(cls, cfg: RuleConfig, net: NetSpec, *, seed: int | None, step: int, **extra: Any) -> CheckpointMeta:
        return cls(
            variant=cfg.name,
            variant_config=cfg.to_dict(),
            net=net.to_dict(),
            obs_version=net.obs_version,
            obs_shape=net.obs_shape,
            seed=seed,
            step=step,
            extra=extra,
        )

    def to_json(self) -> str:
        d = asdict(self)
        d["obs_shape"] = list(self.obs_shape)
        return json.dumps(d, ensure_ascii=False, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, source: str) -> CheckpointMeta:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CheckpointError(f"checkpoint {source}: {META_NAME} is not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise CheckpointError(f"checkpoint {source}: {META_NAME} must hold a JSON object")
        if data.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(
                f"checkpoint {source}: unknown checkpoint format {data.get('format')!r}, expected {CHECKPOINT_FORMAT!r}"
            )
        known = {f.name for f in fields(cls)}
        missing = sorted(
            f.name for f in fields(cls) if f.name in ("variant", "variant_config", "net") and f.name not in data
        )
        if missing:
            raise CheckpointError(f"checkpoint {source}: {META_NAME} lacks the field(s) {missing}")
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["obs_shape"] = tuple(kwargs.get("obs_shape", ()))
        rules = kwargs["variant_config"]
        if isinstance(rules, dict) and isinstance(rules.get("suits"), str):
            # num_suits follows suits; checkpoints made before it did recorded the ignored default 3 (断卡根: 'sp')
            kwargs["variant_config"] = {**rules, "num_suits": len(rules["suits"])}
        return cls(**kwargs)


def net_spec_of(meta: CheckpointMeta) -> NetSpec:
    try:
        return NetSpec.from_dict(meta.net)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint network specification is invalid: {exc}") from None


def build_policy(net: NetSpec, learning_rate: float = 0.0) -> MaskableActorCriticPolicy:
    """A fresh (randomly initialised) policy network of shape ``net`` on the CPU."""
    return MaskableActorCriticPolicy(
        input_space(bool(net.hand_features), bool(net.advisor), net.match),
        gymnasium.spaces.Discrete(ACTION_SPACE_SIZE),
        lambda _progress: learning_rate,
        **net.policy_kwargs(),
    )


# ---- files -----------------------------------------------------------------------------------------------------
def write_meta(path: str | Path, meta: CheckpointMeta) -> None:
    """Add (or replace) ``chuanma.json`` in an existing zip checkpoint (e.g. one written by ``MaskablePPO.save``)."""
    path = Path(path)
    with zipfile.ZipFile(path, "r") as zf:
        members = {name: zf.read(name) for name in zf.namelist() if name != META_NAME}
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(META_NAME, meta.to_json())
    tmp.replace(path)


def save_policy(path: str | Path, policy: MaskableActorCriticPolicy, meta: CheckpointMeta) -> Path:
    """Write a policy-only checkpoint (``chuanma.json`` + ``policy.pth``) atomically; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save(policy.state_dict(), buf)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_NAME, meta.to_json())
        zf.writestr(POLICY_NAME, buf.getvalue())
    tmp.replace(path)
    return path


def read_meta(path: str | Path) -> CheckpointMeta:
    """The metadata of a checkpoint (:class:`CheckpointError` if missing or unreadable)."""
    return _read(path, with_weights=False)[0]


def resolve_checkpoint(path: str | Path) -> Path:
    """The policy file ``path`` names: a file itself; a run directory of ``chuanma train`` / ``chuanma main`` its
    ``final.zip``; a checkpoint folder (``checkpoints/step_<N>/``) its ``model.zip``.  :class:`CheckpointError`
    names the file to pass when there is none (an unfinished run: its newest checkpoint)."""
    path = Path(path)
    if path.is_file():
        return path
    source = repr(str(path))
    if not path.exists():
        raise CheckpointError(
            f"checkpoint {source} does not exist (expected a .zip written by chuanma train, e.g. "
            f"runs/<name>/{FINAL_POLICY}, or a run directory)"
        )
    for name in (FINAL_POLICY, CHECKPOINT_MODEL):
        if (path / name).is_file():
            return path / name
    steps = sorted((path / "checkpoints").glob(f"step_*/{CHECKPOINT_MODEL}"))
    if steps:
        raise CheckpointError(
            f"run directory {source} has no {FINAL_POLICY}: the run has not finished (chuanma train --resume "
            f"{path}); pass its newest checkpoint {str(steps[-1])!r} to load the policy so far"
        )
    raise CheckpointError(
        f"{source} is a directory without {FINAL_POLICY} or checkpoints; pass a policy .zip written by chuanma "
        f"train (a run directory's {FINAL_POLICY})"
    )


def _read(path: str | Path, *, with_weights: bool) -> tuple[CheckpointMeta, dict[str, torch.Tensor] | None]:
    path = resolve_checkpoint(path)
    source = repr(str(path))
    try:
        with zipfile.ZipFile(path, "r") as zf:
            names = set(zf.namelist())
            if META_NAME not in names:
                raise CheckpointError(
                    f"checkpoint {source} has no {META_NAME}: not a chuanma checkpoint (members: {sorted(names)})"
                )
            meta = CheckpointMeta.from_json(zf.read(META_NAME).decode("utf-8"), source)
            state = None
            if with_weights:
                if POLICY_NAME not in names:
                    raise CheckpointError(f"checkpoint {source} has no {POLICY_NAME} (the policy weights)")
                raw = zf.read(POLICY_NAME)
                state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"checkpoint {source} is corrupt or truncated ({type(exc).__name__}: {exc}); expected a complete zip "
            f"archive with {META_NAME} and {POLICY_NAME}"
        ) from None
    except (RuntimeError, pickle.UnpicklingError, ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {source}: the weights in {POLICY_NAME} cannot be read ({exc})") from None
    if with_weights and not isinstance(state, dict):
        raise CheckpointError(f"checkpoint {source}: {POLICY_NAME} does not hold a state dict")
    return meta, state


def check_compatible(meta: CheckpointMeta, source: str, variant: str | RuleConfig | None = None) -> None:
    """Raise :class:`CheckpointError` unless ``meta`` matches this package's observation / action layout and
    (when given) ``variant``."""
    known = {OBS_VERSION: OBS_SHAPE, MATCH_OBS_VERSION: MATCH_OBS_SHAPE}
    if known.get(meta.obs_version) != tuple(meta.obs_shape):
        raise CheckpointError(
            f"checkpoint {source} was made for observation version {meta.obs_version!r} with shape "
            f"{tuple(meta.obs_shape)}, expected {OBS_VERSION!r} with shape {OBS_SHAPE} or {MATCH_OBS_VERSION!r} with "
            f"shape {MATCH_OBS_SHAPE}"
        )
    if net_spec_of(meta).obs_version != meta.obs_version:
        raise CheckpointError(
            f"checkpoint {source}: its network reads {net_spec_of(meta).obs_version!r} but its observation version "
            f"is {meta.obs_version!r}"
        )
    if meta.action_layout_version != ACTION_LAYOUT_VERSION or meta.action_space_size != ACTION_SPACE_SIZE:
        raise CheckpointError(
            f"checkpoint {source} was made for action layout {meta.action_layout_version!r} "
            f"({meta.action_space_size} actions), expected {ACTION_LAYOUT_VERSION!r} ({ACTION_SPACE_SIZE} actions)"
        )
    if variant is not None:
        check_variant(meta, load_variant(variant), source)


def check_variant(meta: CheckpointMeta, cfg: RuleConfig, source: str) -> None:
    """Raise :class:`CheckpointError` unless the checkpoint was made for ``cfg`` (same name and rule flags)."""
    if meta.variant != cfg.name:
        raise CheckpointError(f"checkpoint {source} was trained for variant {meta.variant!r}, expected {cfg.name!r}")
    mine = cfg.to_dict()
    theirs = meta.variant_config
    differing = sorted(k for k in mine.keys() & theirs.keys() if k not in _IGNORED_FLAGS and mine[k] != theirs[k])
    if differing:
        detail = ", ".join(f"{k}: checkpoint {theirs[k]!r} vs expected {mine[k]!r}" for k in differing[:5])
        raise CheckpointError(
            f"checkpoint {source} was trained for variant {meta.variant!r} with other rule flags ({detail})"
        )


def _meta_variant(meta: CheckpointMeta) -> RuleConfig:
    try:
        return config_from_dict(meta.variant_config, source=f"the variant of checkpoint metadata {meta.variant!r}")
    except ConfigError as exc:
        raise CheckpointError(str(exc)) from None


# ---- the agent ---------------------------------------------------------------------------------------------------
class PolicyAgent(BaseAgent):
    """A policy network behind ``act(observation, legal_mask)``.

    The agent keeps its own copy of the actor weights (:class:`agents.learned.extractor.NumpyActor`): it never changes,
    whatever happens to the network it was made from.  The network input is built here
    (:class:`agents.learned.net_input.NetInput` of ``net``: the :mod:`agents.learned.hand_features` planes, and the
    advice of the network's advisor agent, which needs the legal mask) for the variant of ``meta`` or, without one, the
    variant given to ``reset``.  ``deterministic=True`` plays the masked argmax; otherwise it samples from the masked
    softmax with a numpy generator seeded by ``seed`` (no global RNG).  ``reset(seat, variant)`` refuses a variant other
    than the one of ``meta`` (when known).
    """

    name = "policy"

    def __init__(
        self,
        actor: NumpyActor,
        meta: CheckpointMeta | None = None,
        *,
        net: NetSpec | None = None,
        deterministic: bool = True,
        seed: int | None = 0,
        name: str | None = None,
    ) -> None:
        super().__init__()
        self.actor = actor
        self.meta = meta
        self.net = net if net is not None else (net_spec_of(meta) if meta is not None else NetSpec())
        self.bare = not (self.net.hand_features or self.net.advisor)  # the input is the observation itself
        self.features: NetInput | None = None
        if not self.bare and meta is not None:
            self.features = self.net.net_input(_meta_variant(meta))
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        if name is not None:
            self.name = name

    @classmethod
    def from_policy(
        cls,
        policy: MaskableActorCriticPolicy,
        net: NetSpec,
        meta: CheckpointMeta | None = None,
        **kwargs: Any,
    ) -> PolicyAgent:
        """An agent playing a frozen copy of ``policy``'s current weights."""
        actor = NumpyActor(
            policy.state_dict(),
            net.activation,
            hand_features=bool(net.hand_features),
            advisor=bool(net.advisor),
            match=net.match,
        )
        return cls(actor, meta, net=net, **kwargs)

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        variant: str | RuleConfig | None = None,
        deterministic: bool = True,
        seed: int | None = 0,
        name: str | None = None,
    ) -> PolicyAgent:
        """Load a checkpoint; :class:`CheckpointError` if it is corrupt or made for another variant (when
        ``variant`` is given), observation version or action layout."""
        source = repr(str(path))
        meta, state = _read(path, with_weights=True)
        check_compatible(meta, source, variant)
        net = net_spec_of(meta)
        with torch.random.fork_rng(devices=[]):  # the throw-away initialisation leaves the global generator alone
            policy = build_policy(net)
        try:
            policy.load_state_dict(state)
        except RuntimeError as exc:
            raise CheckpointError(
                f"checkpoint {source}: the weights do not fit the network {meta.net} ({str(exc).splitlines()[0]})"
            ) from None
        return cls.from_policy(
            policy, net, meta, deterministic=deterministic, seed=seed, name=name or f"policy@{meta.step}"
        )

    @classmethod
    def pretrained(
        cls, name: str, *, deterministic: bool = True, seed: int | None = 0, variant: str | RuleConfig | None = None
    ) -> PolicyAgent:
        """The policy of preset ``name`` shipped with the package (预训练策略, :mod:`agents.pretrained`; its model
        card is ``agents/pretrained/<name>.md``).  ``variant`` (default: the preset ``name``) must be the rules it
        was trained for.  A shipped checkpoint that no longer matches this package's observation, action layout or
        rules is refused with a :class:`CheckpointError` that says how to retrain it."""
        from agents.pretrained import checkpoint_path

        path = checkpoint_path(name)
        try:
            return cls.load(
                path,
                variant=name if variant is None else variant,
                deterministic=deterministic,
                seed=seed,
                name=f"pretrained:{name}",
            )
        except CheckpointError as exc:
            raise CheckpointError(
                f"the pretrained policy {name!r} does not fit this package: {exc}. Retrain and publish it: "
                f"`chuanma train --config configs/train/{name}.yaml`, then `chuanma publish runs/{name}` "
                "(training/publish.py writes the checkpoint and its model card into agents/pretrained/)"
            ) from None

    def reset(self, seat: int, variant: RuleConfig) -> None:
        if self.meta is not None and variant is not None:
            check_variant(self.meta, variant, f"of {self.name}")
        if not self.bare and variant is not None and (self.features is None or self.features.cfg != variant):
            self.features = self.net.net_input(variant)
        super().reset(seat, variant)

    def inputs(self, observation: np.ndarray, legal_mask: np.ndarray | None = None) -> np.ndarray:
        """The network input of one observation ``(C, 34)`` or a batch ``(B, C, 34)``, always batched, float32.

        ``legal_mask`` (``(183,)`` or ``(B, 183)``) is needed by a network with an advisor."""
        obs = np.asarray(observation, dtype=np.float32)
        batch = self._fit(obs[None] if obs.ndim == 2 else obs)
        if self.bare:
            return batch
        if self.features is None:
            raise ValueError(
                f"{self.name} reads feature planes and needs the variant: call reset(seat, variant) first (or load "
                f"it with a checkpoint that names its variant)"
            )
        masks = None if legal_mask is None else np.asarray(legal_mask).reshape(batch.shape[0], -1)
        return self.features.build_batch(batch, masks)

    def _fit(self, batch: np.ndarray) -> np.ndarray:
        """``batch`` in the observation layout the network reads: a match observation (``chuanma-v1-match``) is read
        by its ``chuanma-v1`` rows by a single-hand network; a match network refuses single-hand observations."""
        rows = batch.shape[1] if batch.ndim == 3 else -1
        if not self.net.match and rows == MATCH_OBS_SHAPE[0]:
            return batch[:, : OBS_SHAPE[0]]
        if self.net.match and rows == OBS_SHAPE[0]:
            raise ValueError(
                f"{self.name} was trained on matches and reads {MATCH_OBS_VERSION!r} observations {MATCH_OBS_SHAPE}; "
                f"it cannot play from a single-hand {OBS_VERSION!r} observation {OBS_SHAPE} (play it in a match: "
                "env(match=True) / env(room=...), chuanma eval --matches / --room)"
            )
        return batch

    def logits(self, observation: np.ndarray, legal_mask: np.ndarray | None = None) -> np.ndarray:
        """Unmasked action logits, shape ``(183,)`` for one observation or ``(B, 183)`` for a batch (``legal_mask``:
        see :meth:`inputs`)."""
        out = self.actor.logits(self.inputs(observation, legal_mask))
        return out[0] if np.ndim(observation) == 2 else out

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        """The policy's action; a match observation (``chuanma-v1-match``, RULES.md §11.2) is read whole by a
        network trained on matches and by its ``chuanma-v1`` rows by one trained on single hands; a network trained
        on matches refuses a single-hand observation (:class:`ValueError`)."""
        self._fit(np.asarray(observation)[None])
        ids = legal_ids(legal_mask)
        if ids.size == 1:
            self._last_probs = {int(ids[0]): 1.0}
            return int(ids[0])
        logits = self.logits(observation, legal_mask)[ids].astype(np.float64)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        self._last_probs = {int(i): float(q) for i, q in zip(ids, p)}
        if self.deterministic:
            return int(ids[int(np.argmax(logits))])
        return int(ids[int(self.rng.choice(ids.size, p=p))])

    def act_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> list[int]:
        """One decision per row of ``observations`` ``(B, C, 34)`` and ``legal_masks`` ``(B, 183)``, with one forward
        pass (批量决策): row by row the choice :meth:`act` makes (a single legal id without a draw; the masked argmax
        when deterministic, else a draw from the masked softmax with the agent's generator, in row order)."""
        masks = np.asarray(legal_masks)
        if masks.ndim != 2 or masks.shape[0] != np.shape(observations)[0]:
            raise ValueError(
                f"act_batch needs masks (B, {ACTION_SPACE_SIZE}) matching the observations' B, got {masks.shape}"
            )
        counts = np.count_nonzero(masks, axis=1)
        if (counts == 0).any():
            raise ValueError(f"row {int(np.argmin(counts))}: the legal-action mask is empty, there is no decision")
        logits = self.logits(np.asarray(observations, dtype=np.float32), masks)
        if self.deterministic:  # the first masked maximum in id order, as argmax over the legal ids
            masked = np.where(masks.astype(bool), logits.astype(np.float64), -np.inf)
            return [int(a) for a in np.argmax(masked, axis=1)]
        out = []
        for row, mask in zip(logits, masks):
            ids = np.flatnonzero(mask)
            if ids.size == 1:
                out.append(int(ids[0]))
                continue
            values = row[ids].astype(np.float64)
            p = np.exp(values - values.max())
            p /= p.sum()
            out.append(int(ids[int(self.rng.choice(ids.size, p=p))]))
        return out

    def decision_info(self) -> dict[str, Any]:
        """The policy's probabilities over the legal actions of its last decision, by action name (for replay
        files: :func:`training.evaluation.evaluate.play_hand`)."""
        probs = getattr(self, "_last_probs", None)
        if not probs:
            return {}
        return {"probs": {action_name(i): round(q, 4) for i, q in probs.items()}}

    def __repr__(self) -> str:
        return f"PolicyAgent(name={self.name!r}, deterministic={self.deterministic})"
