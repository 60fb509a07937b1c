"""The notebooks (笔记本): stored copies match their sources, and each runs top to bottom under the small budget.

Each notebook is rebuilt from its percent-format source (``notebooks/NN_name.py``) and executed with ``nbclient`` in
a fresh ``python3`` kernel — jupyter_client resolves that name to this interpreter's ipykernel, so a fresh
``.venv`` with ``.[test]`` installed needs no kernel registration — with ``CHUANMA_NOTEBOOK_BUDGET=small`` and
``CHUANMA_NOTEBOOK_OUT`` in a temporary folder.  The run works on an in-memory copy: the stored ``.ipynb`` (a
full-budget run) is never written.  All three notebooks together take about two minutes on two cores.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import nbformat
import pytest

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"


def _build_module():
    spec = importlib.util.spec_from_file_location("chuanma_notebook_build", NB_DIR / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = _build_module()
NOTEBOOKS = [p.stem for p in build.sources()]


def test_the_three_notebooks_exist():
    assert [n[:2] for n in NOTEBOOKS] == ["01", "02", "03"], NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_notebook_matches_source_and_holds_a_full_run(name):
    assert build.check([NB_DIR / f"{name}.py"]) == []


def test_percent_parser_rejects_malformed_sources():
    assert build.parse_percent("# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n") == [
        ("markdown", "# Title\n\ntext"),
        ("code", "x = 1"),
    ]
    with pytest.raises(ValueError, match="before the first"):
        build.parse_percent("x = 1\n# %%\ny = 2\n")
    with pytest.raises(ValueError, match="must start with '#'"):
        build.parse_percent("# %% [markdown]\nnot a comment\n")
    with pytest.raises(ValueError, match="empty code cell"):
        build.parse_percent("# %%\n\n# %%\nx = 1\n")


# 03 trains the policy that 02 studies: run in this order with one output folder, 02 reuses 03's run directory.
GROUPS = [["01_quickstart"], ["03_training_run", "02_keep_hongzhong"]]


def _run_small(name: str, out: Path) -> nbformat.NotebookNode:
    stored = NB_DIR / f"{name}.ipynb"
    before = stored.stat().st_mtime_ns if stored.exists() else None
    nb = build.notebook_from_source(NB_DIR / f"{name}.py")
    env = {k: v for k, v in os.environ.items() if k not in ("CHUANMA_RUN_DIR", "MPLBACKEND")}
    env.update({"CHUANMA_NOTEBOOK_BUDGET": "small", "CHUANMA_NOTEBOOK_OUT": str(out)})
    build.execute(nb, env=env, timeout=240)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert "budget: small" in _text(code[0])
    assert build.figures(nb) >= 1, "the figures must reach the outputs (as PNG)"
    if before is not None:
        assert stored.stat().st_mtime_ns == before, "the stored notebook must not be overwritten by the test"
    nbformat.validate(nb)
    return nb


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs)


def test_groups_cover_every_notebook():
    assert sorted(n for g in GROUPS for n in g) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("group", GROUPS, ids=["+".join(n[:2] for n in g) for g in GROUPS])
def test_notebooks_run_under_the_small_budget(group, tmp_path):
    outputs = {name: _run_small(name, tmp_path) for name in group}
    if "02_keep_hongzhong" in outputs:
        text = "".join(_text(c) for c in outputs["02_keep_hongzhong"].cells if c.cell_type == "code")
        assert "trained earlier by a notebook; reused" in text
