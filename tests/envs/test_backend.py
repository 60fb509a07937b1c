"""The engine backend protocols (envs.backend): both engines implement every operation, an unknown engine is refused
by name, and the backends import no environment (the environments import them)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envs.backend import BatchBackend, HandLog, TableBackend, make_batch, make_table
from envs.compiled.backend import CompiledBatch, CompiledTable
from envs.compiled.shadow import HandReplay
from envs.core.rule_config import load_variant
from envs.game_backend import GameBatch, GameLog, GameTable

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENTS = {"envs.sichuan_mahjong_v0", "envs.single_agent", "envs.vector_env"}


def _members(protocol: type) -> set[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {name for name in vars(protocol) if not name.startswith("_")}
    return names


@pytest.mark.parametrize(
    ("protocol", "implementations"),
    [
        (TableBackend, (GameTable, CompiledTable)),
        (BatchBackend, (GameBatch, CompiledBatch)),
        (HandLog, (GameLog, HandReplay)),
    ],
)
def test_both_engines_implement_every_operation(protocol, implementations):
    members = _members(protocol)
    if protocol is TableBackend:  # the operations every environment needs (issue: deal ... events on demand)
        assert {"deal", "acting_seat", "legal_mask", "step", "observe", "scores", "is_over", "log"} <= members
    for cls in implementations:
        missing = sorted(name for name in members if not hasattr(cls, name))
        assert not missing, f"{cls.__name__} lacks {missing}"


def test_unknown_engines_are_refused_by_name():
    cfg = load_variant("chengdu")
    with pytest.raises(ValueError, match="engine must be one of .*'numba'"):
        make_table("numba", cfg)
    with pytest.raises(ValueError, match="engine must be one of .*'numba'"):
        make_batch("numba", cfg, 2)
    assert make_table("python", cfg).engine == "python" and make_batch("python", cfg, 2).engine == "python"


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
    return out


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "envs" / "backend.py",
        ROOT / "envs" / "game_backend.py",
        *sorted((ROOT / "envs" / "compiled").glob("*.py")),
    ],
)
def test_backends_import_no_environment(path):
    assert not _imports(path) & ENVIRONMENTS, f"{path.name} imports an environment module"
