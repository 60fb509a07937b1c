"""A run directory written before the modules moved into layer packages still loads.

``tests/data/legacy_run`` is a tiny run (hongzhong, 64 steps, hand-feature and advice planes) written by the code of
the flat layout: its ``model.zip`` pickles the feature extractor as ``training.features.TilePlaneExtractor``, which
now lives in :mod:`agents.learned.extractor` (the old names resolve through :mod:`envs.legacy`).
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.learned.extractor import TilePlaneExtractor
from agents.policy import PolicyAgent
from envs.core.rule_config import load_variant
from envs.legacy import MOVED
from training.train_config import load_train_config

LEGACY_RUN = Path(__file__).resolve().parents[1] / "data" / "legacy_run"


@pytest.fixture
def legacy_run(tmp_path: Path) -> Path:
    run = tmp_path / "legacy_run"
    shutil.copytree(LEGACY_RUN, run)
    return run


def test_the_fixture_pickles_the_old_module_names():
    with zipfile.ZipFile(LEGACY_RUN / "checkpoints" / "step_000000000064" / "model.zip") as zf:
        data = zf.read("data").decode()
    kwargs = base64.b64decode(json.loads(data)["policy_kwargs"][":serialized:"])
    assert b"training.features" in kwargs and b"agents.learned" not in kwargs


def test_an_old_run_directory_resumes_and_its_policy_plays(legacy_run):
    from training.trainer import Trainer

    trainer = Trainer.resume(legacy_run)
    assert trainer.state.num_timesteps == 64
    assert type(trainer.model.policy.features_extractor) is TilePlaneExtractor
    assert load_train_config(legacy_run / "config.yaml").net.advisor == "greedy"

    agent = PolicyAgent.load(legacy_run / "final.zip", variant="hongzhong")
    agent.reset(0, load_variant("hongzhong"))
    from envs.sichuan_mahjong_v0 import raw_env

    env = raw_env(variant="hongzhong")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    action = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action] == 1
    weights = trainer.model.policy.state_dict()
    assert all(np.isfinite(w.numpy()).all() for w in weights.values())


def test_every_old_module_name_resolves_to_its_new_module():
    for new in MOVED.values():
        assert importlib.util.find_spec(new) is not None, new
    for old in (
        "training.features",
        "training.config",
        "envs.hand",
        "envs.config",
        "envs.variants.wuhan",
        "envs.wuhan",
    ):
        assert importlib.import_module(old) is importlib.import_module(MOVED[old])
