"""Build the notebooks (生成笔记本): percent-format sources ``notebooks/NN_name.py`` -> ``NN_name.ipynb`` with outputs.

The ``.py`` files are the single source of truth.  Each is a plain Python script in the "percent" format::

    # %% [markdown]
    # # A title
    # Some *markdown* text, every line commented.

    # %%
    x = 1 + 1          # a code cell

This script turns each source into a notebook (deterministic cell ids) and executes it top to bottom with
``nbclient`` in the ``notebooks/`` folder, with the **full** budget (``CHUANMA_NOTEBOOK_BUDGET`` and
``CHUANMA_RUN_DIR`` are removed from the kernel's environment; ``CHUANMA_NOTEBOOK_OUT`` is a fresh temporary folder
shared by the notebooks of one invocation, built in the order 01, 03, 02 so that 02 studies the policy 03 trained),
and stores the notebook with its outputs::

    python notebooks/build.py                 # every notebook
    python notebooks/build.py 01 03           # the notebooks whose names start with 01 or 03
    python notebooks/build.py --check         # exit 1 if a stored .ipynb does not match its source

``tests/notebooks/test_notebooks.py`` uses :func:`notebook_from_source` and :func:`execute` to run the notebooks under the
small budget in a temporary copy (stored outputs are never overwritten there).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat
from ipykernel.kernelspec import RESOURCES, get_kernel_dict
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NB_DIR = Path(__file__).resolve().parent
KERNEL = "python3"
CELL_TIMEOUT_S = 1200
BUILD_ORDER = ("01", "03", "02")  # 03 trains the policy that 02 studies; built together, 02 reuses 03's run
_MARKER = re.compile(r"^# %%(?P<md> \[markdown\])?\s*$")


def sources() -> list[Path]:
    """The notebook sources, ``notebooks/NN_*.py`` in order."""
    return sorted(p for p in NB_DIR.glob("[0-9][0-9]_*.py"))


def parse_percent(text: str, name: str = "<source>") -> list[tuple[str, str]]:
    """``[(cell_type, source)]`` of a percent-format script; ``ValueError`` names a malformed line."""
    cells: list[tuple[str, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        m = _MARKER.match(line)
        if m:
            cells.append(("markdown" if m.group("md") else "code", []))
            continue
        if not cells:
            if line.strip():
                raise ValueError(f"{name}:{number}: text before the first '# %%' cell marker: {line!r}")
            continue
        kind, lines = cells[-1]
        if kind == "markdown":
            if line and not line.startswith("#"):
                raise ValueError(f"{name}:{number}: a markdown line must start with '#', got {line!r}")
            line = line[2:] if line.startswith("# ") else line[1:]
        lines.append(line)
    out = []
    for kind, lines in cells:
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            raise ValueError(f"{name}: empty {kind} cell")
        out.append((kind, "\n".join(lines)))
    return out


def notebook_from_source(path: Path) -> nbformat.NotebookNode:
    """A fresh notebook (no outputs) from one percent-format source."""
    cells = []
    for i, (kind, src) in enumerate(parse_percent(path.read_text(encoding="utf-8"), path.name)):
        make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        cell = make(src)
        cell["id"] = f"{path.stem[:2]}-{i:03d}"
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["chuanma"] = {"source": path.name}
    return nb


def cell_sources(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """``[(cell_type, source)]`` of a notebook, for comparing a stored notebook with its source."""
    return [(c.cell_type, c.source) for c in nb.cells]


class ThisInterpreter(KernelSpecManager):
    """Kernel specs with ``python3`` pinned to this interpreter's ipykernel (``sys.executable``).

    A ``python3`` kernel registered elsewhere (e.g. a user-level kernelspec pointing to another Python) would
    run the notebooks without chuanma installed; the notebooks always run where the tests and the build run.
    """

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        if kernel_name == KERNEL:
            return KernelSpec(resource_dir=str(RESOURCES), **get_kernel_dict())
        return super().get_kernel_spec(kernel_name)


def execute(
    nb: nbformat.NotebookNode, *, cwd: Path = NB_DIR, env: dict[str, str] | None = None, timeout: int = CELL_TIMEOUT_S
) -> float:
    """Execute ``nb`` in place in a fresh ``python3`` kernel (this interpreter) running in ``cwd``; returns the wall
    time in seconds.

    ``env`` replaces the kernel's environment (default: this process's).  A failing cell raises
    ``nbclient.exceptions.CellExecutionError`` with the cell's traceback.
    """
    km = KernelManager(kernel_name=KERNEL, kernel_spec_manager=ThisInterpreter())
    client = NotebookClient(
        nb, km=km, timeout=timeout, kernel_name=KERNEL, resources={"metadata": {"path": str(cwd)}}, record_timing=False
    )
    start = time.monotonic()
    kwargs: dict[str, Any] = {} if env is None else {"env": env}
    client.execute(**kwargs)
    return time.monotonic() - start


def full_budget_env(out: Path) -> dict[str, str]:
    """This process's environment for a stored run: full budget, outputs under ``out``, the notebooks' own run."""
    drop = ("CHUANMA_NOTEBOOK_BUDGET", "CHUANMA_RUN_DIR", "MPLBACKEND")  # MPLBACKEND: keep the inline backend
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["CHUANMA_NOTEBOOK_OUT"] = str(out)
    return env


def build(path: Path, out: Path) -> float:
    """Execute the source ``path`` with the full budget (files under ``out``) and store ``path.with_suffix('.ipynb')``;
    returns the seconds it ran."""
    nb = notebook_from_source(path)
    seconds = execute(nb, env=full_budget_env(out))
    nb.metadata["chuanma"]["budget"] = "full"
    nb.metadata["chuanma"]["wall_time_s"] = round(seconds, 1)
    nbformat.validate(nb)
    nbformat.write(nb, path.with_suffix(".ipynb"))
    return seconds


def figures(nb: nbformat.NotebookNode) -> int:
    """Number of PNG images among the outputs of ``nb``."""
    return sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def check(paths: list[Path]) -> list[str]:
    """Problems of the stored notebooks: missing, out of sync with the source, or not fully executed."""
    problems = []
    for path in paths:
        stored_path = path.with_suffix(".ipynb")
        if not stored_path.is_file():
            problems.append(f"{stored_path.name}: missing (run python notebooks/build.py {path.stem[:2]})")
            continue
        stored = nbformat.read(stored_path, as_version=4)
        if cell_sources(stored) != cell_sources(notebook_from_source(path)):
            problems.append(f"{stored_path.name}: cells differ from {path.name} (rebuild it)")
        unexecuted = [i for i, c in enumerate(stored.cells) if c.cell_type == "code" and c.execution_count is None]
        if unexecuted:
            problems.append(f"{stored_path.name}: code cells {unexecuted} have no stored execution")
        code = [(i, c) for i, c in enumerate(stored.cells) if c.cell_type == "code"]
        errors = [i for i, c in code if any(o.output_type == "error" for o in c.outputs)]
        if errors:
            problems.append(f"{stored_path.name}: cells {errors} stored an error")
        if not figures(stored):
            problems.append(f"{stored_path.name}: no figure among the stored outputs")
        if stored.metadata.get("chuanma", {}).get("budget") != "full":
            problems.append(f"{stored_path.name}: outputs are not from a full-budget run")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="prefixes of the notebooks to build (default: all)")
    parser.add_argument("--check", action="store_true", help="only check the stored notebooks against the sources")
    args = parser.parse_args(argv)
    paths = [p for p in sources() if not args.names or any(p.name.startswith(n) for n in args.names)]
    if not paths:
        parser.error(f"no notebook source matches {args.names}; sources: {[p.name for p in sources()]}")
    if args.check:
        problems = check(paths)
        for p in problems:
            print(p)
        return 1 if problems else 0
    paths.sort(key=lambda p: BUILD_ORDER.index(p.name[:2]) if p.name[:2] in BUILD_ORDER else len(BUILD_ORDER))
    with tempfile.TemporaryDirectory(prefix="chuanma-notebooks-") as out:
        for path in paths:
            print(f"building {path.with_suffix('.ipynb').name} (full budget) ...", flush=True)
            seconds = build(path, Path(out))
            print(f"  done in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
