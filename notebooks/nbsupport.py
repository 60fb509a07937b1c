"""Shared helpers of the chuanma notebooks (笔记本): run budget, output folder, plotting defaults.

Budget
------
``CHUANMA_NOTEBOOK_BUDGET`` selects how much work every loop of a notebook does:

* unset or ``full`` — the budget of the stored outputs (each notebook a few minutes on two cores);
* ``small`` — everything scaled down so that the three notebooks together run in well under three minutes on two
  cores (what the test suite uses, ``tests/test_notebooks.py``).

Any other value is an error.  ``scaled(full, small)`` picks the number for the current budget.

Output folder
-------------
Files the notebooks write (training runs, evaluation tables) go under ``CHUANMA_NOTEBOOK_OUT`` (default
``runs/notebooks/`` in the repository, which git ignores).  ``CHUANMA_RUN_DIR`` may name an existing training run
directory (``chuanma main`` / ``chuanma train`` output) for notebooks 02 and 03 to load instead of training their own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
BUDGET_ENV = "CHUANMA_NOTEBOOK_BUDGET"
OUT_ENV = "CHUANMA_NOTEBOOK_OUT"
RUN_DIR_ENV = "CHUANMA_RUN_DIR"
BUDGETS = ("full", "small")

T = TypeVar("T")


def budget() -> str:
    """The budget named by ``CHUANMA_NOTEBOOK_BUDGET`` (``"full"`` when unset); ``ValueError`` for anything else."""
    value = os.environ.get(BUDGET_ENV, "").strip().lower() or "full"
    if value not in BUDGETS:
        raise ValueError(f"{BUDGET_ENV} must be one of {list(BUDGETS)} (or unset for 'full'), got {value!r}")
    return value


BUDGET = budget()
SMALL = BUDGET == "small"


def scaled(full: T, small: T) -> T:
    """``small`` under the small budget, else ``full``."""
    return small if SMALL else full


def out_dir(name: str) -> Path:
    """A folder ``name`` under the notebooks' output folder (created)."""
    base = Path(os.environ.get(OUT_ENV) or ROOT / "runs" / "notebooks")
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def given_run_dir() -> Path | None:
    """The run directory named by ``CHUANMA_RUN_DIR`` (``ValueError`` if it holds no ``final.zip``), else None."""
    text = os.environ.get(RUN_DIR_ENV, "").strip()
    if not text:
        return None
    path = Path(text)
    if not (path / "final.zip").is_file():
        raise ValueError(f"{RUN_DIR_ENV}={text!r} is not a finished run directory: expected {path / 'final.zip'}")
    return path


def setup_plots() -> None:
    """Plot defaults shared by the notebooks (fonts without CJK glyphs: labels are in English / pinyin)."""
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "axes.grid": False, "font.size": 9})
