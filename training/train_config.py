"""Training configuration (训练配置): one YAML per variant in ``configs/train/``, loaded into :class:`TrainConfig`.

Every hyperparameter of a run lives in the YAML files; nothing is read from elsewhere.  The file has the sections
``env``, ``ppo``, ``net``, ``pool``, ``bc``, ``schedule``, ``eval``, ``logging`` and ``distributed`` plus a few
top-level keys
(see ``configs/train/defaults.yaml`` for every key with a comment).  A file may start from another with
``extends: <file>`` (relative to its folder): the presets extend ``defaults.yaml`` and set only what differs (the
variant, its reward scale ...).  Unknown keys, wrong types and out-of-range values raise :class:`TrainConfigError`
naming the key and the file.

>>> cfg = load_train_config("configs/train/hongzhong.yaml")                 # doctest: +SKIP
>>> cfg = load_train_config("configs/train/hongzhong.yaml", overrides={"total_steps": 4096})  # doctest: +SKIP

Steps are learner decisions (environment steps of the single-agent wrapper).  Training runs in **segments** of
``schedule.segment_steps``: at each segment start the environments are reset with seeds derived from the run seed
and the segment index, all random generators are reseeded the same way, and the self-play pool may gain a snapshot.
Checkpoints and evaluations happen at segment boundaries, which is what makes a resumed run continue exactly like an
uninterrupted one.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml

from envs.core.typecheck import check_value

if TYPE_CHECKING:  # pragma: no cover
    from agents.learned.net_input import NetInput
    from agents.policy import NetSpec
    from envs.core.rule_config import RuleConfig


TRAIN_CONFIG_DIR = Path(str(files("configs") / "train"))  # package data of the ``configs`` package


class TrainConfigError(ValueError):
    """A training configuration is invalid: unknown key, wrong type or value out of range (names key and file)."""


@dataclass(frozen=True)
class EnvConfig:
    """The single-agent environments the learner plays in."""

    num_envs: int = 8  # parallel environments
    vec_env: Literal["dummy", "subproc", "batched"] = "dummy"  # sb3 DummyVecEnv, SubprocVecEnv or VectorEnv
    # rules engine of the envs (compiled: envs.compiled); with vec_env subproc the infos are pickled between
    # processes, which makes the compiled AEC env compute their event logs (dummy and batched do not)
    engine: Literal["python", "compiled"] = "python"
    reward_scale: float = 0.1  # reward = score change / base_unit * reward_scale
    reward_mode: Literal["delta", "terminal"] = "delta"  # as the AEC env option of the same name
    rules: dict[str, Any] = field(default_factory=dict)  # rule-flag overrides applied to the variant
    # duplicate rewards (trainer: batched): each seat's hand reward minus what this agent scored in that seat when it
    # played every seat of the same wall (training/wall_reference.py; "": the plain score change)
    reward_baseline: str = ""
    # whole matches per episode (RULES.md §11.2; every vec_env and trainer): match = the variant's points match
    # (match_hands for a preset without hands_per_match), room = a room's bankroll match (stack: every seat's start,
    # default 10x the minimum entry); placement: a §11.4 table ("linear", "winner"; "": none)
    match: bool = False
    match_hands: int | None = None
    room: str = ""
    stack: int | None = None
    placement: str = ""


@dataclass(frozen=True)
class PPOConfig:
    """sb3-contrib ``MaskablePPO`` hyperparameters."""

    learning_rate: float = 3e-4
    learning_rate_final: float = 3e-4  # linear anneal over total_steps, updated at each segment start
    n_steps: int = 256  # steps per environment per rollout
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    clip_range_vf: float | None = None
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    # the values of the advantages (trainer: batched): the policy's own value head, or a training-only critic that
    # also reads the other seats' hands and the wall (training/hidden_critic.py; the policy never reads them)
    critic: Literal["policy", "hidden"] = "policy"
    critic_learning_rate: float = 3e-4  # the hidden critic's Adam step size


@dataclass(frozen=True)
class NetConfig:
    """Network shape (see :class:`agents.policy.NetSpec` and :mod:`agents.learned.extractor`)."""

    features_dim: int = 256
    channels: int = 32
    honor_channels: int = 8
    broadcast_dim: int = 64
    pi_layers: tuple[int, ...] = (128,)
    vf_layers: tuple[int, ...] = (128,)
    activation: Literal["relu", "tanh", "elu"] = "relu"
    ortho_init: bool = True
    hand_features: bool = False  # append the agents.learned.hand_features planes (tile efficiency) to the input
    advisor: str = ""  # append the agents.learned.advice planes of this baseline's choice ("": none; "value:slack=2")

    def net_input(self, variant: str | RuleConfig, match: bool = False) -> NetInput:
        """The :class:`agents.learned.net_input.NetInput` builder of this network's input for ``variant`` (``match``:
        the network reads the ``chuanma-v1-match`` observation, :meth:`TrainConfig.plays_matches`)."""
        from agents.learned.net_input import NetInput

        return NetInput(variant, hand_features=self.hand_features, advisor=self.advisor, match=match)

    def spec(self, match: bool = False) -> NetSpec:
        from agents.learned.advice import ADVICE_VERSION
        from agents.learned.hand_features import HAND_FEATURES_VERSION
        from agents.policy import NetSpec

        fields = dataclasses.asdict(self)
        fields["hand_features"] = HAND_FEATURES_VERSION if self.hand_features else ""
        fields["advice"] = ADVICE_VERSION if self.advisor else ""
        return NetSpec(**fields, match=match)


@dataclass(frozen=True)
class PoolConfig:
    """Self-play opponents: frozen snapshots of the learner plus a share of rule-based baselines."""

    max_size: int = 8  # snapshots kept (oldest dropped first)
    snapshot_every: int = 1  # add a snapshot every this many segments
    baseline_share: float = 0.3  # probability that an opponent seat is a rule-based baseline
    baselines: tuple[str, ...] = ("greedy", "random")  # drawn uniformly when a baseline is chosen
    latest_share: float = 0.5  # probability that a snapshot seat plays the newest snapshot (else uniform)
    deterministic: bool = False  # snapshots play the masked argmax (True) or sample (False)


@dataclass(frozen=True)
class BCConfig:
    """Behaviour-cloning warm start: imitate a rule-based teacher before PPO (``decisions: 0`` disables it)."""

    teacher: str = "greedy"
    decisions: int = 20000  # teacher decisions recorded (all seats of self-played teacher hands)
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_coef: float = 0.5  # weight of the value-regression loss (return-to-go of the deciding seat)
    label_smoothing: float = 0.0  # share of the policy target spread evenly over the legal actions (0: the teacher's)


@dataclass(frozen=True)
class ScheduleConfig:
    """Segments, checkpoints."""

    segment_steps: int = 16384  # must be a multiple of ppo.n_steps * env.num_envs
    checkpoint_every: int = 1  # segments between checkpoints
    keep_checkpoints: int = 2  # newest training checkpoints kept on disk


@dataclass(frozen=True)
class EvalConfig:
    """Periodic and final duplicate evaluation against the baselines."""

    every: int = 4  # segments between evaluations (0: only the final one)
    deals: int = 16  # duplicate deal sets per periodic evaluation
    final_deals: int = 64  # duplicate deal sets of the final evaluation
    opponents: tuple[str, ...] = ("random", "greedy")
    seed: int = 12345  # deal seed of the evaluations (the same deals at every point)

    @property
    def final_seed(self) -> int:
        """Deal seed of the final evaluation: other walls than the periodic ones."""
        return self.seed + 1


@dataclass(frozen=True)
class DistributedConfig:
    """Where the self-play rollouts run (:mod:`training.distributed`): in this process (``local``: ``env.num_envs``
    hands) or in Ray actors (``ray``: ``workers`` actors of ``tables_per_worker`` hands each)."""

    backend: Literal["local", "ray"] = "local"
    address: str = "local"  # the Ray cluster: local (started for the run), auto (of `ray start`), HOST:PORT
    workers: int = 2  # rollout workers (Ray actors)
    tables_per_worker: int = 8  # hands each worker plays at once (its batched environment)
    cpus_per_worker: float = 1.0  # CPUs Ray reserves for each worker


@dataclass(frozen=True)
class LoggingConfig:
    tensorboard: bool = True
    progress_bar: bool = True
    verbose: int = 0


@dataclass(frozen=True)
class TrainConfig:
    """A whole training run (see the module docstring)."""

    name: str
    variant: str
    seed: int = 0
    total_steps: int = 1_000_000
    torch_threads: int = 1  # torch intra-op threads (trainer batched: the PPO update's; the rollouts use one)
    # the training loop: sb3 (MaskablePPO.learn over env.vec_env: every learner decision one sb3 step) or batched
    # (training.rollout self-play tables asking each kind of player once per step + the compact PPO of
    # training.ppo; env.vec_env is not used; samples per update: at least ppo.n_steps * env.num_envs)
    trainer: Literal["sb3", "batched"] = "sb3"
    device: Literal["auto", "cpu", "cuda"] = "cpu"  # the learner's torch device (auto: cuda when present)
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    net: NetConfig = field(default_factory=NetConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    bc: BCConfig = field(default_factory=BCConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    distributed: DistributedConfig = field(default_factory=DistributedConfig)

    @property
    def tables(self) -> int:
        """Hands played at once: ``env.num_envs``, or ``workers * tables_per_worker`` with the Ray backend."""
        d = self.distributed
        return d.workers * d.tables_per_worker if d.backend == "ray" else self.env.num_envs

    @property
    def plays_matches(self) -> bool:
        """Whether an episode is a whole match (``env.match`` / ``env.room``, RULES.md §11.2): the network then reads
        the ``chuanma-v1-match`` observation."""
        return bool(self.env.match or self.env.room)

    def net_spec(self) -> NetSpec:
        """The :class:`agents.policy.NetSpec` of the learner (reading match observations when it plays matches)."""
        return self.net.spec(self.plays_matches)

    def net_input(self, variant: str | RuleConfig) -> NetInput:
        """The learner's network-input builder for ``variant`` (:meth:`NetConfig.net_input`)."""
        return self.net.net_input(variant, self.plays_matches)

    @property
    def rollout_steps(self) -> int:
        """Learner steps per PPO rollout (``n_steps`` times :attr:`tables`)."""
        return self.ppo.n_steps * self.tables

    def to_dict(self) -> dict[str, Any]:
        """Plain nested mapping (YAML/JSON-serialisable; tuples become lists)."""
        return _plain(dataclasses.asdict(self))

    def replace(self, source: str = "<overrides>", **overrides: Any) -> TrainConfig:
        """A copy with (dotted) keys changed, validated like a file: ``cfg.replace(**{"ppo.n_steps": 64})``."""
        data = self.to_dict()
        for key, value in overrides.items():
            _set_dotted(data, key, value, source)
        return _build(TrainConfig, data, source, "")


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _set_dotted(data: dict[str, Any], key: str, value: Any, source: str) -> None:
    parts = key.split(".")
    node = data
    for part in parts[:-1]:
        if part not in node or not isinstance(node[part], dict):
            raise TrainConfigError(f"{source}: unknown key {key!r}")
        node = node[part]
    node[parts[-1]] = value


def _check(key: str, value: Any, hint: Any, source: str) -> Any:
    return check_value(
        key, value, hint, source, TrainConfigError, nested=lambda cls, data, k: _build(cls, data, source, k + ".")
    )


def _build(cls: type, data: Any, source: str, prefix: str) -> Any:
    section = prefix.rstrip(".") or "top level"
    if not isinstance(data, dict):
        raise TrainConfigError(f"{source}: {section} must be a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in hints:
            raise TrainConfigError(
                f"{source}: unknown key {prefix + str(key)!r} in {section}; valid keys: {', '.join(names)}"
            )
        kwargs[key] = _check(prefix + key, value, hints[key], source)
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    missing = [k for k in required if k not in kwargs]
    if missing:
        raise TrainConfigError(f"{source}: missing required key(s) {[prefix + k for k in missing]}")
    obj = cls(**kwargs)
    if cls is TrainConfig:
        _validate(obj, source)
    return obj


def _positive(source: str, key: str, value: float, *, allow_zero: bool = False) -> None:
    if value < 0 or (value == 0 and not allow_zero):
        raise TrainConfigError(f"{source}: key {key!r} = {value!r} must be {'>= 0' if allow_zero else '> 0'}")


def _share(source: str, key: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise TrainConfigError(f"{source}: key {key!r} = {value!r} must lie in [0, 1]")


def _check_baseline(source: str, key: str, text: str) -> None:
    """A fixed opponent: a rule-based baseline specification of :mod:`agents.registry` (``greedy``, ``value:opt=1``,
    ``compiled:defensive`` ...) or a policy shipped with the package (``pretrained:NAME``)."""
    from agents.pretrained import checkpoint_path
    from agents.registry import BASELINES, parse_spec

    try:
        spec = parse_spec(text)
        if spec.kind == "pretrained":
            checkpoint_path(spec.argument or "")
            return
        if spec.kind == "compiled":
            from agents.compiled import COMPILED_BASELINES

            if spec.argument not in COMPILED_BASELINES:
                names = sorted(COMPILED_BASELINES)
                raise ValueError(f"no compiled baseline {spec.argument!r}; expected one of {names}")
            return
    except ValueError as exc:
        raise TrainConfigError(f"{source}: key {key!r}: {exc}") from None
    if spec.kind not in BASELINES:
        raise TrainConfigError(
            f"{source}: key {key!r} = {text!r} must name a rule-based baseline ({sorted(BASELINES)}) or a shipped "
            f"policy (pretrained:NAME), not {spec.kind!r}"
        )


def _validate_match(cfg: TrainConfig, source: str) -> None:
    """The match keys of ``env`` (RULES.md §11.2) name a match the environments play."""
    from envs.core.rule_config import load_variant
    from envs.engine.match import match_rules

    if cfg.bc.decisions > 0:
        raise TrainConfigError(
            f"{source}: key 'bc.decisions' = {cfg.bc.decisions}: the behaviour-cloning warm start records single "
            "hands, a network trained on matches reads match observations; set bc.decisions: 0 with env.match / "
            "env.room"
        )
    try:
        options = match_options(cfg)
        options["hands"] = options.pop("match_hands")
        match_rules(load_variant(cfg.variant, **cfg.env.rules), **options)
    except ValueError as exc:
        raise TrainConfigError(
            f"{source}: keys 'env.match' / 'env.room' / 'env.stack' / 'env.placement': {exc}"
        ) from None


def match_options(cfg: TrainConfig) -> dict[str, Any]:
    """The match options of the AEC env for ``cfg`` (empty: single hands)."""
    env = cfg.env
    if not (env.match or env.room):
        return {}
    out: dict[str, Any] = {"match": env.match, "match_hands": env.match_hands}
    if env.room:
        out.update(room=env.room, stacks=env.stack)
    if env.placement:
        out["placement"] = env.placement
    return out


def _validate_reward_baseline(cfg: TrainConfig, source: str) -> None:
    from envs.compiled.support import unsupported
    from envs.core.rule_config import load_variant

    key = f"key 'env.reward_baseline' = {cfg.env.reward_baseline!r}"
    if cfg.trainer != "batched":
        raise TrainConfigError(f"{source}: {key} needs 'trainer: batched' (the sb3 path pays plain score changes)")
    if cfg.env.match or cfg.env.room:
        raise TrainConfigError(f"{source}: {key} compares single hands; it cannot be used with env.match / env.room")
    _check_baseline(source, "env.reward_baseline", cfg.env.reward_baseline)
    problems = unsupported(load_variant(cfg.variant, **cfg.env.rules))
    if problems:
        raise TrainConfigError(
            f"{source}: {key}: the reference walls play on the compiled engine, which does not play "
            + "; ".join(problems)
        )


def _validate(cfg: TrainConfig, source: str) -> None:
    from envs.core.rule_config import ConfigError, load_variant

    try:
        load_variant(cfg.variant, **cfg.env.rules)
    except ConfigError as exc:
        raise TrainConfigError(f"{source}: key 'variant' / 'env.rules': {exc}") from None
    if cfg.env.match or cfg.env.room:
        _validate_match(cfg, source)
    if cfg.trainer == "batched" and cfg.distributed.backend == "ray":
        raise TrainConfigError(
            f"{source}: key 'trainer' = 'batched' runs its tables in the learner's process; "
            "'distributed.backend: ray' needs 'trainer: sb3'"
        )
    if cfg.env.reward_baseline:
        _validate_reward_baseline(cfg, source)
    if cfg.ppo.critic == "hidden" and cfg.trainer != "batched":
        raise TrainConfigError(
            f"{source}: key 'ppo.critic' = 'hidden' needs 'trainer: batched' (sb3's MaskablePPO takes its advantages "
            "from the policy's own value head)"
        )
    if cfg.env.engine == "compiled":
        from envs.compiled.support import unsupported

        problems = unsupported(load_variant(cfg.variant, **cfg.env.rules))
        if problems:
            raise TrainConfigError(
                f"{source}: key 'env.engine' = 'compiled' does not play variant {cfg.variant!r}: " + "; ".join(problems)
            )
    if not cfg.name or any(c in cfg.name for c in "/\\") or cfg.name.startswith("."):
        raise TrainConfigError(f"{source}: key 'name' = {cfg.name!r} must be a plain directory name")
    for key, value in (
        ("torch_threads", cfg.torch_threads),
        ("env.num_envs", cfg.env.num_envs),
        ("env.reward_scale", cfg.env.reward_scale),
        ("ppo.learning_rate", cfg.ppo.learning_rate),
        ("ppo.n_steps", cfg.ppo.n_steps),
        ("ppo.batch_size", cfg.ppo.batch_size),
        ("ppo.n_epochs", cfg.ppo.n_epochs),
        ("ppo.clip_range", cfg.ppo.clip_range),
        ("ppo.critic_learning_rate", cfg.ppo.critic_learning_rate),
        ("pool.max_size", cfg.pool.max_size),
        ("pool.snapshot_every", cfg.pool.snapshot_every),
        ("schedule.segment_steps", cfg.schedule.segment_steps),
        ("schedule.checkpoint_every", cfg.schedule.checkpoint_every),
        ("schedule.keep_checkpoints", cfg.schedule.keep_checkpoints),
        ("eval.deals", cfg.eval.deals),
        ("bc.epochs", cfg.bc.epochs),
        ("bc.batch_size", cfg.bc.batch_size),
        ("bc.learning_rate", cfg.bc.learning_rate),
        ("distributed.workers", cfg.distributed.workers),
        ("distributed.tables_per_worker", cfg.distributed.tables_per_worker),
        ("distributed.cpus_per_worker", cfg.distributed.cpus_per_worker),
    ):
        _positive(source, key, value)
    for key, value in (
        ("ppo.learning_rate_final", cfg.ppo.learning_rate_final),
        ("ppo.ent_coef", cfg.ppo.ent_coef),
        ("ppo.vf_coef", cfg.ppo.vf_coef),
        ("ppo.max_grad_norm", cfg.ppo.max_grad_norm),
        ("total_steps", cfg.total_steps),
        ("bc.decisions", cfg.bc.decisions),
        ("bc.value_coef", cfg.bc.value_coef),
        ("eval.every", cfg.eval.every),
        ("eval.final_deals", cfg.eval.final_deals),
    ):
        _positive(source, key, value, allow_zero=True)
    if cfg.total_steps == 0 and cfg.bc.decisions == 0:
        raise TrainConfigError(
            f"{source}: key 'total_steps' = 0 (behaviour cloning alone) needs 'bc.decisions' > 0: nothing would train"
        )
    for key, value in (
        ("ppo.gamma", cfg.ppo.gamma),
        ("ppo.gae_lambda", cfg.ppo.gae_lambda),
        ("pool.baseline_share", cfg.pool.baseline_share),
        ("pool.latest_share", cfg.pool.latest_share),
        ("bc.label_smoothing", cfg.bc.label_smoothing),
    ):
        _share(source, key, value)
    if cfg.ppo.batch_size > cfg.rollout_steps:
        raise TrainConfigError(
            f"{source}: key 'ppo.batch_size' = {cfg.ppo.batch_size} exceeds the rollout size "
            f"ppo.n_steps * tables = {cfg.rollout_steps} (tables: env.num_envs, or distributed.workers * "
            f"distributed.tables_per_worker with the Ray backend)"
        )
    if cfg.schedule.segment_steps % cfg.rollout_steps:
        raise TrainConfigError(
            f"{source}: key 'schedule.segment_steps' = {cfg.schedule.segment_steps} must be a multiple of "
            f"ppo.n_steps * tables = {cfg.rollout_steps} (tables: env.num_envs, or distributed.workers * "
            f"distributed.tables_per_worker with the Ray backend)"
        )
    for key, names in (
        ("pool.baselines", cfg.pool.baselines),
        ("eval.opponents", cfg.eval.opponents),
        ("bc.teacher", (cfg.bc.teacher,)),
    ):
        for name in names:
            _check_baseline(source, key, name)
    if cfg.pool.baseline_share > 0 and not cfg.pool.baselines:
        raise TrainConfigError(f"{source}: key 'pool.baselines' is empty but pool.baseline_share > 0")
    for key in ("features_dim", "channels", "honor_channels", "broadcast_dim"):
        _positive(source, f"net.{key}", getattr(cfg.net, key))
    from agents.learned.advice import check_advisor

    if cfg.net.advisor:
        try:
            check_advisor(cfg.net.advisor)
        except ValueError as exc:
            raise TrainConfigError(f"{source}: key 'net.advisor' = {cfg.net.advisor!r}: {exc}") from None
    for key in ("pi_layers", "vf_layers"):
        for i, width in enumerate(getattr(cfg.net, key)):
            _positive(source, f"net.{key}[{i}]", width)


def train_presets() -> list[str]:
    """The training presets of ``configs/train/`` (every YAML there but the shared ``defaults.yaml``)."""
    return sorted(q.stem for q in TRAIN_CONFIG_DIR.glob("*.yaml") if q.stem != "defaults")


def load_train_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Load ``path`` (a YAML file, or a name of ``configs/train/``) and apply dotted ``overrides``."""
    p = Path(path)
    if not p.suffix and not p.exists():
        p = TRAIN_CONFIG_DIR / f"{path}.yaml"
    if not p.is_file():
        known = train_presets()
        raise TrainConfigError(f"training config {str(path)!r} does not exist (configs/train/ has {known})")
    data = _read_yaml(p)
    cfg = _build(TrainConfig, data, str(p), "")
    return cfg.replace(source=f"{p} (overrides)", **overrides) if overrides else cfg


def _read_yaml(path: Path, chain: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The mapping of YAML file ``path``, merged over the file its ``extends`` key names (a path relative to
    ``path``'s folder, itself read the same way): sections merge key by key, other values replace the base's."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TrainConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise TrainConfigError(f"{path}: expected a mapping at the top level")
    if "extends" not in data:
        return data
    base = data.pop("extends")
    if not isinstance(base, str):
        raise TrainConfigError(f"{path}: 'extends' must name a YAML file, got {base!r}")
    base_path = (path.parent / base).resolve()
    if base_path in chain or base_path == path.resolve():
        raise TrainConfigError(f"{path}: 'extends: {base}' makes a cycle")
    if not base_path.is_file():
        raise TrainConfigError(f"{path}: 'extends: {base}': no such file {base_path}")
    return _merged(_read_yaml(base_path, (*chain, path.resolve())), data)


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over``'s keys: mappings in both merge recursively, anything else replaces."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        out[key] = _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def dump_train_config(cfg: TrainConfig) -> str:
    """The resolved configuration as YAML (loadable by :func:`load_train_config`)."""
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False, allow_unicode=True)
