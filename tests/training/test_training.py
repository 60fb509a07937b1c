"""Self-play training: config loading, the feature extractor, checkpoints, the self-play pool and a smoke run."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.learned.extractor import BROADCAST_ROWS, TILE_ROWS, NumpyActor, check_broadcast_rows
from agents.policy import (
    CheckpointError,
    CheckpointMeta,
    NetSpec,
    PolicyAgent,
    build_policy,
    read_meta,
    save_policy,
)
from envs.core.actions import ACTION_LAYOUT_VERSION, ACTION_SPACE_SIZE
from envs.core.rule_config import PRESETS, load_variant
from envs.engine.observation import OBS_SHAPE, OBS_VERSION
from training.train_config import TRAIN_CONFIG_DIR, TrainConfigError, load_train_config, train_presets

TINY_NET = {
    "features_dim": 32,
    "channels": 8,
    "honor_channels": 2,
    "broadcast_dim": 8,
    "pi_layers": [16],
    "vf_layers": [16],
}


def tiny_config(tmp_path: Path, **sections):
    """A small but complete training config written to a YAML file (so that the file loader is exercised)."""
    data = {
        "name": "tiny",
        "variant": "hongzhong",
        "seed": 7,
        "total_steps": 256,
        "env": {"num_envs": 2, "reward_scale": 0.05},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 2},
        "net": TINY_NET,
        "pool": {"max_size": 3, "baseline_share": 0.5, "baselines": ["random"]},
        "bc": {"decisions": 0},
        "schedule": {"segment_steps": 128, "keep_checkpoints": 5},
        "eval": {"every": 0, "deals": 1, "final_deals": 1, "opponents": ["random"]},
        "logging": {"tensorboard": False, "progress_bar": False},
    }
    for key, value in sections.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    return load_train_config(path)


def tiny_policy(seed: int = 0):
    torch.manual_seed(seed)
    net = NetSpec.from_dict(TINY_NET)
    policy = build_policy(net)
    with torch.no_grad():
        for p in policy.parameters():
            p.normal_(0.0, 0.2)
    return policy, net


# ---- configuration ---------------------------------------------------------------------------------------------
def test_every_variant_config_loads_with_every_section():
    names = train_presets()
    assert set(names) == set(PRESETS)
    defaults = yaml.safe_load((TRAIN_CONFIG_DIR / "defaults.yaml").read_text())
    for section in ("env", "ppo", "net", "pool", "bc", "schedule", "eval", "logging"):
        assert section in defaults, f"defaults.yaml lacks section {section}"
    for name in names:
        path = TRAIN_CONFIG_DIR / f"{name}.yaml"
        cfg = load_train_config(path)
        assert cfg.variant == name and cfg.name == name
        assert cfg.schedule.segment_steps % cfg.rollout_steps == 0


def test_presets_share_the_defaults_instead_of_repeating_them():
    defaults = yaml.safe_load((TRAIN_CONFIG_DIR / "defaults.yaml").read_text())
    for name in train_presets():
        raw = yaml.safe_load((TRAIN_CONFIG_DIR / f"{name}.yaml").read_text())
        assert raw.pop("extends") == "defaults.yaml", name
        for section, values in raw.items():
            if isinstance(values, dict):
                repeated = {k for k, v in values.items() if defaults.get(section, {}).get(k, object()) == v}
                assert not repeated, f"{name}.yaml repeats {section}.{sorted(repeated)} of defaults.yaml"
            else:
                assert defaults.get(section, object()) != values, f"{name}.yaml repeats {section} of defaults.yaml"


def test_extends_merges_sections_and_names_bad_bases(tmp_path):
    (tmp_path / "base.yaml").write_text("variant: chengdu\nppo:\n  n_epochs: 7\n  batch_size: 128\n")
    child = tmp_path / "child.yaml"
    child.write_text("extends: base.yaml\nname: c\nppo:\n  n_epochs: 3\n")
    cfg = load_train_config(child)
    assert (cfg.name, cfg.variant, cfg.ppo.n_epochs, cfg.ppo.batch_size) == ("c", "chengdu", 3, 128)
    child.write_text("extends: missing.yaml\nname: c\n")
    with pytest.raises(TrainConfigError, match=r"child\.yaml: 'extends: missing\.yaml': no such file"):
        load_train_config(child)
    child.write_text("extends: child.yaml\nname: c\n")
    with pytest.raises(TrainConfigError, match="makes a cycle"):
        load_train_config(child)


def test_unknown_key_names_key_and_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nvariant: hongzhong\nppo:\n  lerning_rate: 0.1\n")
    with pytest.raises(TrainConfigError, match=r"bad\.yaml.*unknown key 'ppo\.lerning_rate'.*learning_rate"):
        load_train_config(path)
    path.write_text("name: x\nvariant: hongzhong\nbatch: 3\n")
    with pytest.raises(TrainConfigError, match=r"unknown key 'batch' in top level"):
        load_train_config(path)


def test_type_and_range_errors_name_the_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nvariant: hongzhong\nppo:\n  n_steps: many\n")
    with pytest.raises(TrainConfigError, match=r"bad\.yaml: key 'ppo\.n_steps' expects an integer, got 'many'"):
        load_train_config(path)
    path.write_text("name: x\nvariant: hongzhong\nenv:\n  vec_env: threads\n")
    with pytest.raises(TrainConfigError, match=r"'env\.vec_env' = 'threads' is not one of"):
        load_train_config(path)
    path.write_text("name: x\nvariant: hongzhong\nschedule:\n  segment_steps: 1000\n")
    with pytest.raises(TrainConfigError, match=r"segment_steps' = 1000 must be a multiple of .* = 2048"):
        load_train_config(path)
    path.write_text("name: x\nvariant: hongzhong\npool:\n  baselines: [external:bot]\n")
    with pytest.raises(TrainConfigError, match=r"pool\.baselines.*must name a rule-based baseline"):
        load_train_config(path)
    path.write_text("name: x\nvariant: nowhere\n")
    with pytest.raises(TrainConfigError, match=r"unknown variant 'nowhere'"):
        load_train_config(path)
    with pytest.raises(TrainConfigError, match=r"missing required key\(s\) \['variant'\]"):
        path.write_text("name: x\n")
        load_train_config(path)


def test_overrides_are_validated_and_frozen(tmp_path):
    cfg = tiny_config(tmp_path)
    other = cfg.replace(**{"ppo.n_epochs": 3, "total_steps": 512})
    assert other.ppo.n_epochs == 3 and other.total_steps == 512 and cfg.ppo.n_epochs == 2
    with pytest.raises(TrainConfigError, match=r"unknown key 'ppo\.nope'"):
        cfg.replace(**{"ppo.nope": 1})
    with pytest.raises(Exception, match="cannot assign"):
        cfg.seed = 3  # type: ignore[misc]
    assert load_train_config(tmp_path / "tiny.yaml").to_dict() == cfg.to_dict()


# ---- network -----------------------------------------------------------------------------------------------------
def test_broadcast_rows_are_constant_in_real_observations():
    from envs.single_agent import SingleAgentEnv

    assert len(BROADCAST_ROWS) + len(TILE_ROWS) == OBS_SHAPE[0]
    env = SingleAgentEnv("hongzhong", seat=0)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert check_broadcast_rows(obs)
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if done:
            obs, info = env.reset()


def test_numpy_actor_matches_torch_policy():
    policy, net = tiny_policy(1)
    obs = np.random.default_rng(0).random((6, *OBS_SHAPE), dtype=np.float32)
    with torch.no_grad():
        t = torch.as_tensor(obs)
        features = policy.extract_features(t, policy.pi_features_extractor)
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    got = NumpyActor(policy.state_dict(), net.activation).logits(obs)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert got.shape == (6, ACTION_SPACE_SIZE)


def test_policy_agent_respects_the_mask_and_is_deterministic():
    policy, net = tiny_policy(2)
    obs = np.random.default_rng(1).random(OBS_SHAPE, dtype=np.float32)
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    mask[[3, 40, 69]] = 1
    agent = PolicyAgent.from_policy(policy, net)
    logits = agent.logits(obs)
    assert agent.act(obs, mask) == [3, 40, 69][int(np.argmax(logits[[3, 40, 69]]))]
    sampler = PolicyAgent.from_policy(policy, net, deterministic=False, seed=5)
    picks = {sampler.act(obs, mask) for _ in range(50)}
    assert picks <= {3, 40, 69}
    again = PolicyAgent.from_policy(policy, net, deterministic=False, seed=5)
    sampler2 = PolicyAgent.from_policy(policy, net, deterministic=False, seed=5)
    assert [again.act(obs, mask) for _ in range(20)] == [sampler2.act(obs, mask) for _ in range(20)]
    with pytest.raises(ValueError, match="empty"):
        agent.act(obs, np.zeros(ACTION_SPACE_SIZE, dtype=np.int8))


# ---- checkpoints -------------------------------------------------------------------------------------------------
def _saved(tmp_path, name="p.zip", **meta_changes):
    policy, net = tiny_policy(3)
    meta = CheckpointMeta.for_variant(load_variant("hongzhong"), net, seed=11, step=640)
    meta = replace(meta, **meta_changes)
    return save_policy(tmp_path / name, policy, meta), policy, net


def test_checkpoint_round_trip_keeps_metadata_and_weights(tmp_path):
    path, policy, net = _saved(tmp_path)
    meta = read_meta(path)
    assert (meta.variant, meta.seed, meta.step) == ("hongzhong", 11, 640)
    assert meta.obs_version == OBS_VERSION and meta.action_layout_version == ACTION_LAYOUT_VERSION
    assert meta.package_version and meta.variant_config["wild"] == "hongzhong"
    agent = PolicyAgent.load(path, variant="hongzhong")
    obs = np.random.default_rng(2).random((3, *OBS_SHAPE), dtype=np.float32)
    np.testing.assert_allclose(agent.logits(obs), PolicyAgent.from_policy(policy, net).logits(obs), rtol=1e-6)


def test_checkpoint_for_another_variant_is_refused(tmp_path):
    path, _, _ = _saved(tmp_path)
    with pytest.raises(CheckpointError, match=r"trained for variant 'hongzhong', expected 'chengdu'"):
        PolicyAgent.load(path, variant="chengdu")
    changed = load_variant("hongzhong", cap_doublings=4)
    with pytest.raises(CheckpointError, match=r"other rule flags \(cap_doublings: checkpoint None vs expected 4"):
        PolicyAgent.load(path, variant=changed)
    agent = PolicyAgent.load(path)  # no variant given: loads, but refuses to sit at another table
    with pytest.raises(CheckpointError, match=r"trained for variant 'hongzhong', expected 'chengdu'"):
        agent.reset(0, load_variant("chengdu"))
    agent.reset(0, load_variant("hongzhong"))


def test_checkpoint_from_before_num_suits_followed_suits_still_loads(tmp_path):
    """Checkpoints made while num_suits was ignored recorded the default 3 beside 断卡根's suits 'sp': they load
    for 断卡根; a real difference in suits is still refused."""
    from agents.policy import check_variant

    dkg = load_variant("duankagen")
    made = CheckpointMeta.for_variant(dkg, tiny_policy(3)[1], seed=1, step=0)
    old = replace(made, variant_config={**made.variant_config, "num_suits": 3})
    read = CheckpointMeta.from_json(old.to_json(), "old.zip")
    assert read.variant_config["num_suits"] == 2
    check_variant(read, dkg, "old.zip")
    other = replace(made, variant_config={**made.variant_config, "suits": "mps", "num_suits": 3})
    with pytest.raises(CheckpointError, match=r"num_suits: checkpoint 3 vs expected 2, suits: checkpoint 'mps'"):
        check_variant(CheckpointMeta.from_json(other.to_json(), "other.zip"), dkg, "other.zip")


def test_checkpoint_for_another_observation_or_action_layout_is_refused(tmp_path):
    path, _, _ = _saved(tmp_path, "obs.zip", obs_version="chuanma-v99")
    with pytest.raises(CheckpointError, match=rf"observation version 'chuanma-v99'.*expected '{OBS_VERSION}'"):
        PolicyAgent.load(path)
    path, _, _ = _saved(tmp_path, "act.zip", action_layout_version="other-actions", action_space_size=200)
    expected = rf"action layout 'other-actions' \(200 actions\), expected '{ACTION_LAYOUT_VERSION}'"
    with pytest.raises(CheckpointError, match=expected):
        PolicyAgent.load(path)


def test_corrupt_or_foreign_files_are_refused(tmp_path):
    path, _, _ = _saved(tmp_path)
    data = path.read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match=r"corrupt or truncated .*expected a complete zip"):
        PolicyAgent.load(truncated)
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all" * 10)
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        PolicyAgent.load(garbage)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("data", "{}")
    with pytest.raises(CheckpointError, match="no chuanma.json: not a chuanma checkpoint"):
        PolicyAgent.load(foreign)
    bad_weights = tmp_path / "weights.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(bad_weights, "w") as zf:
        zf.writestr("chuanma.json", src.read("chuanma.json"))
        zf.writestr("policy.pth", b"\x00" * 64)
    with pytest.raises(CheckpointError, match="cannot be read|corrupt"):
        PolicyAgent.load(bad_weights)
    wrong_net = tmp_path / "net.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(wrong_net, "w") as zf:
        meta = json.loads(src.read("chuanma.json"))
        meta["net"]["features_dim"] = 48
        zf.writestr("chuanma.json", json.dumps(meta))
        zf.writestr("policy.pth", src.read("policy.pth"))
    with pytest.raises(CheckpointError, match="do not fit the network"):
        PolicyAgent.load(wrong_net)
    with pytest.raises(CheckpointError, match="does not exist"):
        PolicyAgent.load(tmp_path / "missing.zip")


def test_policy_load_takes_a_run_directory_or_names_the_file_to_pass(tmp_path):
    run = tmp_path / "run"
    step = run / "checkpoints" / "step_000000000640"
    step.mkdir(parents=True)
    path, policy, net = _saved(step, "model.zip")
    with pytest.raises(CheckpointError, match=rf"has no final.zip: the run has not finished.*pass .*'{path}'"):
        PolicyAgent.load(run)
    assert PolicyAgent.load(step).meta.step == 640  # a checkpoint folder: its model.zip
    assert PolicyAgent.load(path).meta.step == 640
    _saved(run, "final.zip")
    agent = PolicyAgent.load(run, variant="hongzhong")
    obs = np.random.default_rng(2).random((2, *OBS_SHAPE), dtype=np.float32)
    np.testing.assert_allclose(agent.logits(obs), PolicyAgent.from_policy(policy, net).logits(obs), rtol=1e-6)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="is a directory without final.zip or checkpoints; pass a policy .zip"):
        PolicyAgent.load(tmp_path / "empty")


# ---- the learner's reward --------------------------------------------------------------------------------------
def test_learner_reward_is_its_own_hand_score(tmp_path):
    """Scripted through the training env: episode returns equal the learner seat's score, not anyone else's."""
    from training.selfplay import make_selfplay_env

    cfg = tiny_config(tmp_path, pool={"baseline_share": 1.0, "baselines": ["greedy", "random"]})
    env = make_selfplay_env(cfg)
    inner = env.unwrapped
    factor = cfg.env.reward_scale / inner.cfg.base_unit
    rng = np.random.default_rng(4)
    _, info = env.reset(seed=21)
    checked = differing = 0
    total = 0.0
    while checked < 6:
        mask = env.get_wrapper_attr("action_masks")()
        _, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if done:
            scores = inner.aec.game.scores
            seat = inner.seat
            assert total == pytest.approx(scores[seat] * factor)
            assert info["episode"]["r"] == pytest.approx(scores[seat] * factor, abs=1e-5)
            differing += any(scores[s] != scores[seat] for s in range(len(scores)))
            checked += 1
            total = 0.0
            env.reset()
    assert differing >= 3  # the check could tell the learner's score from the others'


# ---- self-play pool and the whole loop --------------------------------------------------------------------------
def test_pool_snapshots_never_update_while_the_learner_trains(tmp_path):
    from training.selfplay import SnapshotPool
    from training.trainer import Trainer

    cfg = tiny_config(tmp_path, pool={"baseline_share": 0.0}, total_steps=128)
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    snap = trainer.pool.snapshots[0]
    file_bytes = Path(snap.path).read_bytes()
    vec = trainer.model.get_env()
    vec.env_method("set_pool", trainer.pool.entries())
    agent = vec.env_method("snapshot_agent", snap.id, indices=[0])[0]
    obs = np.random.default_rng(3).random((4, *OBS_SHAPE), dtype=np.float32)
    before_logits = agent.logits(obs).copy()
    learner_before = {k: v.clone() for k, v in trainer.model.policy.state_dict().items()}
    trainer.train(progress=False)
    learner_after = trainer.model.policy.state_dict()
    assert any(not torch.equal(learner_before[k], learner_after[k]) for k in learner_before)  # the learner moved
    live = vec.env_method("snapshot_agent", snap.id, indices=[0])[0]
    np.testing.assert_array_equal(live.logits(obs), before_logits)  # the cached opponent did not
    assert Path(snap.path).read_bytes() == file_bytes
    np.testing.assert_array_equal(PolicyAgent.load(snap.path).logits(obs), before_logits)
    reloaded = SnapshotPool.load(tmp_path / "run" / "pool")
    assert [s.id for s in reloaded.snapshots] == [0]


def test_pool_file_survives_a_moved_run_directory(tmp_path, monkeypatch):
    """Snapshots are stored relative to the pool folder: a moved run directory, read from another working
    directory, still finds its own snapshot files (not the old location's); pool files of the older form (paths from
    the run's working directory) load from a moved run too; a missing snapshot is refused by name."""
    import json
    import shutil

    from training.selfplay import Snapshot, SnapshotPool

    pool = SnapshotPool(tmp_path / "a" / "pool", max_size=4)
    for step in (0, 64):
        path = pool.directory / f"snap_{step:010d}.zip"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
        pool.snapshots.append(Snapshot(step, str(path)))
    pool.save()
    data = json.loads((pool.directory / "pool.json").read_text())
    assert [e["file"] for e in data["snapshots"]] == ["snap_0000000000.zip", "snap_0000000064.zip"]
    shutil.move(tmp_path / "a", tmp_path / "b")
    monkeypatch.chdir(tmp_path / "b")
    moved = SnapshotPool.load(tmp_path / "b" / "pool")
    assert [Path(s.path) for s in moved.snapshots] == [
        tmp_path / "b" / "pool" / "snap_0000000000.zip",
        tmp_path / "b" / "pool" / "snap_0000000064.zip",
    ]
    legacy = {"max_size": 4, "snapshots": [{"id": 0, "path": "runs/a/pool/snap_0000000000.zip"}]}
    (tmp_path / "b" / "pool" / "pool.json").write_text(json.dumps(legacy))
    assert SnapshotPool.load(tmp_path / "b" / "pool").snapshots[0].path == str(moved.snapshots[0].path)
    (tmp_path / "b" / "pool" / "snap_0000000000.zip").unlink()
    with pytest.raises(ValueError, match="missing snapshot"):
        SnapshotPool.load(tmp_path / "b" / "pool")


def test_smoke_train_save_resume_load_and_play(tmp_path):
    """A few hundred steps with BC and periodic evaluation; interrupted, resumed; the result loads as an agent."""
    from training.evaluation.evaluate import play_hand
    from training.trainer import Trainer, latest_checkpoint

    cfg = tiny_config(
        tmp_path,
        total_steps=384,
        bc={"decisions": 64, "epochs": 1, "batch_size": 32},
        eval={"every": 2},
        pool={"snapshot_every": 1},
        logging={"tensorboard": True},
    )
    run = tmp_path / "run"
    first = Trainer.create(cfg, run, progress=False)
    assert first.state.bc is not None and first.state.bc["decisions"] == 64
    first.train(max_segments=1, progress=False)
    assert first.state.num_timesteps == 128 and latest_checkpoint(run).name == "step_000000000128"
    run_json = json.loads((run / "run.json").read_text())
    assert run_json["obs_version"] == OBS_VERSION and run_json["seed"] == 7 and run_json["package_version"]
    assert load_train_config(run / "config.yaml").to_dict() == cfg.to_dict()
    del first

    resumed = Trainer.resume(run)
    assert resumed.state.num_timesteps == 128 and [s.id for s in resumed.pool.snapshots] == [0, 128]
    resumed.train(progress=False)
    assert resumed.state.num_timesteps == 384
    assert [s.id for s in resumed.pool.snapshots] == [0, 128, 256]
    assert [e["step"] for e in resumed.state.evals] == [0, 256]
    report = resumed.finish()
    assert report["steps"] == 384 and len(report["final_eval"]) == 1
    walls = report["final_walls"][0]
    assert walls["eval_seed"] == cfg.eval.seed + 1 and len(walls["wall_means"]) == report["final_eval"][0]["walls"]
    assert len(walls["wall_deal_in"]) == len(walls["field_wall_deal_in"]) == len(walls["wall_means"])
    for name in ("final.zip", "report.json", "report.md", "learning_curve.png", "metrics.jsonl"):
        assert (run / name).is_file(), name
    assert any((run / "tb").iterdir())
    history = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert any("train/entropy_loss" in row for row in history)
    assert any("rollout/ep_rew_mean" in row for row in history)

    agent = PolicyAgent.load(run / "final.zip", variant="hongzhong")
    assert agent.meta.step == 384 and agent.meta.seed == 7
    cfg_rules = load_variant("hongzhong")
    from agents.registry import make_agent

    game = play_hand(cfg_rules, 99, [agent, make_agent("random", 1), make_agent("random", 2), make_agent("greedy")])
    assert game.is_over and sum(game.scores) == 0

    # the same run without interruption ends with exactly the same weights and pool
    straight = Trainer.create(cfg.replace(**{"eval.every": 0}), tmp_path / "straight", progress=False)
    straight.train(progress=False)
    assert straight.state.num_timesteps == 384
    assert [s.id for s in straight.pool.snapshots] == [s.id for s in resumed.pool.snapshots]
    a, b = straight.model.policy.state_dict(), resumed.model.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_resume_extending_a_finished_run_puts_its_last_policy_in_the_pool(tmp_path):
    """--resume --total-steps on a finished run: the old final step joins the pool (and its periodic evaluation
    runs), as in the run that was never stopped, which ends with the same weights."""
    from training.trainer import Trainer

    cfg = tiny_config(tmp_path, total_steps=256, eval={"every": 2})
    short = Trainer.create(cfg, tmp_path / "run", progress=False)
    short.train(progress=False)
    short.finish()
    assert [s.id for s in short.pool.snapshots] == [0, 128] and [e["step"] for e in short.state.evals] == [0]
    del short
    longer = Trainer.resume(tmp_path / "run", total_steps=384)
    assert [s.id for s in longer.pool.snapshots] == [0, 128, 256]
    assert [e["step"] for e in longer.state.evals] == [0, 256]
    longer.train(progress=False)
    straight = Trainer.create(cfg.replace(total_steps=384), tmp_path / "straight", progress=False)
    straight.train(progress=False)
    assert [s.id for s in longer.pool.snapshots] == [s.id for s in straight.pool.snapshots] == [0, 128, 256]
    assert [e["step"] for e in longer.state.evals] == [e["step"] for e in straight.state.evals]
    a, b = straight.model.policy.state_dict(), longer.model.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    again = Trainer.resume(tmp_path / "run")  # done: nothing is added
    assert [s.id for s in again.pool.snapshots] == [0, 128, 256]


def test_resume_refuses_an_empty_directory_and_create_refuses_an_existing_run(tmp_path):
    from training.trainer import Trainer

    with pytest.raises(ValueError, match="no complete checkpoint"):
        Trainer.resume(tmp_path / "nothing")
    cfg = tiny_config(tmp_path, total_steps=64)
    Trainer.create(cfg, tmp_path / "run", progress=False)
    with pytest.raises(ValueError, match="already holds checkpoints; resume it"):
        Trainer.create(cfg, tmp_path / "run", progress=False)


def test_cli_train_and_main_are_registered():
    from training.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["train", "--config", "configs/train/hongzhong.yaml", "--total-steps", "100"])
    assert args.total_steps == 100 and callable(args.func)
    args = parser.parse_args(["main", "--minutes", "3"])
    assert args.minutes == 3.0 and callable(args.func)


def test_train_budget_options_scale_the_whole_run(tmp_path):
    from training.cli import build_parser
    from training.train import cli_overrides

    parser = build_parser()
    argv = ["train", "--config", "hongzhong", "--total-steps", "2048", "--bc-decisions", "500", "--eval-every", "0"]
    args = parser.parse_args(
        [*argv, "--final-walls", "4", "--set", "ppo.n_steps=64", "--set", "pool.baselines=[random]"]
    )
    cfg = load_train_config(args.config, {"total_steps": args.total_steps, **cli_overrides(args)})
    assert (cfg.total_steps, cfg.bc.decisions, cfg.eval.every, cfg.eval.final_deals) == (2048, 500, 0, 4)
    assert cfg.ppo.n_steps == 64 and cfg.pool.baselines == ("random",)
    for bad, message in (
        (["--set", "ppo.n_steps"], "KEY=VALUE"),
        (["--bc-decisions", "-1"], "--bc-decisions must be >= 0"),
    ):
        with pytest.raises(ValueError, match=message):
            cli_overrides(parser.parse_args([*argv, *bad]))
    with pytest.raises(TrainConfigError, match="unknown key 'ppo.n_step'"):
        load_train_config("hongzhong", cli_overrides(parser.parse_args([*argv, "--set", "ppo.n_step=64"])))


def test_small_cli_run_is_small_and_prints_a_line_per_phase(tmp_path, capsys):
    """chuanma train with the budget options and --no-progress: BC, PPO and the evaluations as asked, one line
    for each phase; --resume refuses budget options other than --total-steps / --final-walls; --save-replays keeps
    the final evaluation's hands as replay files."""
    from envs.engine.replay_file import load_replay, verify_replay
    from training.cli import main

    cfg = tiny_config(tmp_path, bc={"decisions": 5000, "epochs": 1, "batch_size": 32}, eval={"every": 1})
    run = tmp_path / "run"
    argv = ["train", "--config", str(tmp_path / "tiny.yaml"), "--total-steps", "128", "--run-dir", str(run)]
    extra = ["--bc-decisions", "40", "--eval-every", "0", "--final-walls", "1", "--set", "ppo.n_epochs=1"]
    replays = ["--save-replays", str(tmp_path / "replays"), "--replay-sample", "1"]
    assert main([*argv, *extra, *replays, "--no-progress"]) == 0
    out = capsys.readouterr().out
    report = json.loads((run / "report.json").read_text())
    assert report["bc"]["decisions"] == 40 and report["evals"] == [] and report["final_eval"][0]["walls"] == 1
    assert load_train_config(run / "config.yaml").ppo.n_epochs == 1 and cfg.ppo.n_epochs == 2
    for line in (
        "train tiny (hongzhong): 128 steps in segments of 128, BC 40 decisions from greedy, no periodic eval, "
        "final evaluation 1 walls per opponent (random)",
        "BC: 40 decisions of greedy in",
        "BC: 1 epochs",
        "PPO (sb3): segment 1, steps 0-128 of 128",
        "final evaluation vs random:",
        f"wrote {run / 'final.zip'}",
    ):
        assert line in out, line
    assert main(["train", "--resume", str(run), "--bc-decisions", "10"]) == 2
    assert "only --total-steps and --final-walls change it (got bc.decisions)" in capsys.readouterr().err
    # the final evaluation's hands as replay files, the learner's decisions with its action probabilities
    files = sorted((tmp_path / "replays").iterdir())
    assert [f.name for f in files] == [f"m0-learner-vs-random-wall0000-seat{s}.json" for s in range(4)]
    for s, path in enumerate(files):
        doc = load_replay(path)
        verify_replay(doc)
        assert doc["source"] == "train-eval" and doc["players"][s] == "learner"
        mine = [ev for ev in doc["hands"][0]["events"] if ev["type"] == "action" and ev["seat"] == s]
        assert mine and all(abs(sum(ev["agent"][-1]["probs"].values()) - 1) < 1e-3 for ev in mine)
        assert all(ev["agent"][-1]["chosen"] in ev["agent"][-1]["probs"] for ev in mine)


def test_main_budget_scales(tmp_path):
    from training.main_job import budget_for, main_config

    small = budget_for(None, None, small=True)
    default = budget_for(None, None, small=False)
    assert small.steps < 5000 and small.bc_decisions < default.bc_decisions
    assert default.minutes == 10.0 and default.eval_walls >= 40
    cfg = main_config(budget_for(None, 4096, small=False), seed=3)
    assert cfg.total_steps == 4096 and cfg.variant == "hongzhong" and cfg.seed == 3
    assert cfg.ppo.learning_rate_final == cfg.ppo.learning_rate
    assert cfg.pool.latest_share == 1.0 and cfg.torch_threads == 2 and cfg.env.num_envs == 256
    with pytest.raises(ValueError, match="--minutes must be positive"):
        budget_for(-1.0, None, small=False)


def test_the_main_job_compares_with_the_shipped_policy_of_its_variant(monkeypatch, tmp_path):
    import agents.pretrained as pretrained
    from training.main_job import budget_for, main_config, pretrained_line

    monkeypatch.setattr(pretrained, "PRETRAINED_DIR", tmp_path)  # nothing shipped: random and greedy only
    assert main_config(budget_for(None, 4096, small=False), seed=0).eval.opponents == ("random", "greedy")
    (tmp_path / "hongzhong.zip").write_bytes(b"")
    opponents = main_config(budget_for(None, 4096, small=False), seed=0).eval.opponents
    assert opponents == ("random", "greedy", "pretrained:hongzhong")
    row = {"opponent": "pretrained:hongzhong", "points": 1.5, "ci_low": 0.25, "ci_high": 2.75, "walls": 96}
    assert pretrained_line(row, "hongzhong").endswith("+1.50 points/hand [+0.25, +2.75] over 96 walls (ahead)")
    assert pretrained_line({**row, "ci_low": -1.0}, "hongzhong").endswith("(not decided)")
    assert pretrained_line({**row, "ci_low": None, "ci_high": None}, "hongzhong").endswith(
        "no interval over 96 walls (not decided)"
    )


def test_the_main_job_compiles_before_its_budget_starts(monkeypatch, tmp_path, capsys):
    """Compiling what numba's cache lacks (minutes after an install) is not charged to the training budget: the
    PPO deadline counts from the end of the compile, and the job says it compiled first."""
    import training.main_job as main_job
    import training.precompile as precompile
    import training.trainer as trainer_module
    from training.precompile import CompileReport

    clock = [1000.0]
    monkeypatch.setattr(main_job.time, "monotonic", lambda: clock[0])
    compiled: list[tuple[str, ...]] = []

    def compile_engine(presets):
        compiled.append(presets)
        clock[0] += 330.0  # the agents' compile, measured at 331-344 s
        return CompileReport(330.0, True, presets, agents_were_cached=False)

    monkeypatch.setattr(precompile, "compile_engine", compile_engine)
    monkeypatch.setattr(precompile, "engine_cached", lambda: True)
    monkeypatch.setattr(precompile, "agents_cached", lambda: False)
    seen = {}

    class FakeTrainer:
        @classmethod
        def create(cls, cfg, run_dir, progress=None):
            seen["engine"] = cfg.env.engine
            return cls()

        def train(self, deadline=None, progress=None):
            seen["deadline"] = deadline

        def finish(self, workers, progress):
            report = {"markdown": "", "learning_curve": "", "checkpoint": "", "final_eval": []}
            return {**report, "steps": 0, "table_decisions": 0}

    monkeypatch.setattr(trainer_module, "Trainer", FakeTrainer)
    main_job.run_main(minutes=10.0, run_dir=tmp_path / "run", progress=False, small=False)
    assert compiled == [("hongzhong",)] and seen["engine"] == "compiled"
    assert seen["deadline"] == pytest.approx(1330.0 + main_job.PPO_SHARE * 600.0)
    out = capsys.readouterr().out.splitlines()
    assert "compiling the numba engine and agents first" in out[0] and "not counted in the budget" in out[0]
    assert "compiled agents compiled and cached" in out[1] and "before the budget's clock starts" in out[1]


@pytest.mark.slow
def test_subprocess_environments_train_like_the_others(tmp_path):
    from training.trainer import Trainer

    cfg = tiny_config(tmp_path, env={"vec_env": "subproc"}, total_steps=128, pool={"baseline_share": 0.5})
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    try:
        trainer.train(progress=False)
        assert trainer.state.num_timesteps == 128
        assert trainer.model.get_env().env_method("pool_ids") == [[0], [0]]
    finally:
        trainer.model.get_env().close()


@pytest.mark.parametrize("variant", ["yibin", "duankagen", "wuhan"])
def test_every_variant_config_loads_and_trains_briefly(tmp_path, variant):
    """The variants of the last rules batch train end to end (BC from greedy, PPO against greedy, final eval)."""
    from training.trainer import Trainer

    assert load_train_config(variant).variant == variant
    cfg = tiny_config(
        tmp_path,
        variant=variant,
        total_steps=128,
        bc={"decisions": 32, "epochs": 1, "batch_size": 16, "teacher": "greedy"},
        pool={"baselines": ["greedy"]},
        eval={"opponents": ["greedy"]},
    )
    trainer = Trainer.create(cfg, tmp_path / "run", progress=False)
    trainer.train(progress=False)
    report = trainer.finish()
    assert report["steps"] == 128 and len(report["final_eval"]) == 1
