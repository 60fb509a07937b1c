"""Presets ship as package data: a wheel holds every ``configs/*/*.yaml`` and, installed without the source tree,
loads every variant and finds every training preset (through :func:`importlib.resources.files`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from importlib.resources import files
from pathlib import Path

from envs.core.rule_config import PRESETS, VARIANT_DIR
from training.train_config import TRAIN_CONFIG_DIR

ROOT = Path(__file__).resolve().parents[2]


def test_preset_directories_are_the_configs_package_resources():
    assert Path(str(files("configs") / "variants")) == VARIANT_DIR
    assert Path(str(files("configs") / "train")) == TRAIN_CONFIG_DIR
    assert sorted(p.stem for p in VARIANT_DIR.glob("*.yaml")) == sorted(PRESETS)


def test_a_wheel_ships_and_loads_every_preset(tmp_path):
    src = tmp_path / "src"
    for name in ("envs", "agents", "training", "configs"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("chuanma-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        installed = tmp_path / "site"
        zf.extractall(installed)
    expected = {
        f"configs/{kind}/{p.name}" for kind in ("variants", "train") for p in (ROOT / "configs" / kind).glob("*.yaml")
    }
    assert len(expected) >= 2 * len(PRESETS)
    assert expected <= names
    assert "training/play/static/play.html" in names  # the page of chuanma play
    assert {f"envs/engine/viewer/viewer.{ext}" for ext in ("html", "css", "js")} <= names  # the replay viewer
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from envs.core.rule_config import PRESETS, load_variant;"
        "from training.train_config import TRAIN_CONFIG_DIR;"
        "import envs;"
        "print(json.dumps({'envs': envs.__file__, 'train_dir': str(TRAIN_CONFIG_DIR),"
        " 'variants': [load_variant(name).name for name in PRESETS],"
        " 'train': sorted(p.stem for p in TRAIN_CONFIG_DIR.glob('*.yaml'))}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(installed)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["envs"].startswith(str(installed)) and seen["train_dir"].startswith(str(installed))
    assert seen["variants"] == list(PRESETS)
    assert seen["train"] == sorted(p.stem for p in (ROOT / "configs" / "train").glob("*.yaml"))
