"""The layering contract of ``pyproject.toml`` (``[tool.importlinter]``, ARCHITECTURE.md) holds, and it catches an
upward import: a copy of the packages where the core imports the state machine breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("envs", "agents", "training", "configs")


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_import_layers_hold(tmp_path):
    result = _lint_imports(_copy(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_layers(tmp_path):
    root = _copy(tmp_path)
    tiles = root / "envs" / "core" / "tiles.py"
    tiles.write_text(tiles.read_text(encoding="utf-8") + "\nimport envs.engine.game  # noqa: E402\n", encoding="utf-8")
    result = _lint_imports(root)
    assert result.returncode != 0
    assert "envs.core is not allowed to import envs.engine" in result.stdout
    assert "envs.core.tiles -> envs.engine.game" in result.stdout


def test_agents_importing_training_breaks_the_layers(tmp_path):
    root = _copy(tmp_path)
    policy = root / "agents" / "policy.py"
    policy.write_text(
        policy.read_text(encoding="utf-8") + "\nimport training.trainer  # noqa: E402\n", encoding="utf-8"
    )
    result = _lint_imports(root)
    assert result.returncode != 0
    assert "agents is not allowed to import training" in result.stdout
