"""Shared helpers of the chuanma notebooks (笔记本): run budget, output folder, plotting defaults.

Budget
------
``CHUANMA_NOTEBOOK_BUDGET`` selects how much work every loop of a notebook does:

* unset or ``full`` — the budget of the stored outputs (each notebook a few minutes on two cores);
* ``small`` — everything scaled down so that the three notebooks together run in well under three minutes on two
  cores (what the test suite uses, ``tests/notebooks/test_notebooks.py``).

Any other value is an error.  ``scaled(full, small)`` picks the number for the current budget.

Output folder
-------------
Files the notebooks write (training runs, evaluation tables) go under ``CHUANMA_NOTEBOOK_OUT`` (default
``runs/notebooks/`` in the repository, which git ignores).  ``CHUANMA_RUN_DIR`` may name an existing training run
directory (``chuanma main`` / ``chuanma train`` output) for notebooks 02 and 03 to load instead of training their own.
"""

from __future__ import annotations

import io
import os
import warnings
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


# tqdm.auto (imported by the trainer) warns when ipywidgets is missing; the notebooks show no progress bars anyway
warnings.filterwarnings("ignore", message="IProgress not found")

BUDGET = budget()
SMALL = BUDGET == "small"


def scaled(full: T, small: T) -> T:
    """``small`` under the small budget, else ``full``."""
    return small if SMALL else full


def out_base() -> Path:
    """The notebooks' output folder (``CHUANMA_NOTEBOOK_OUT``, default ``runs/notebooks/``)."""
    return Path(os.environ.get(OUT_ENV) or ROOT / "runs" / "notebooks")


def out_dir(name: str) -> Path:
    """A folder ``name`` under the notebooks' output folder (created)."""
    path = out_base() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def shown(path: Path) -> str:
    """``path`` for printing: under the output folder as ``$CHUANMA_NOTEBOOK_OUT/...`` (stored outputs stay stable)."""
    try:
        return f"${OUT_ENV}/{Path(path).relative_to(out_base()).as_posix()}"
    except ValueError:
        return str(path)


def given_run_dir() -> Path | None:
    """The run directory named by ``CHUANMA_RUN_DIR`` (``ValueError`` if it holds no ``final.zip``), else None."""
    text = os.environ.get(RUN_DIR_ENV, "").strip()
    if not text:
        return None
    path = Path(text)
    if not (path / "final.zip").is_file():
        raise ValueError(f"{RUN_DIR_ENV}={text!r} is not a finished run directory: expected {path / 'final.zip'}")
    return path


def train_config():
    """The training run the notebooks study: ``configs/train/hongzhong.yaml`` scaled to the budget.

    Full budget: behaviour-cloning warm start from the config's teacher (``value``, 12 000 decisions), then 40 960
    MaskablePPO self-play steps in five segments, a duplicate evaluation against ``random`` and ``greedy`` every two
    segments (16 walls) and at the end (48 walls) — about ten minutes on two busy cores.  Small budget: a few hundred
    steps.
    """
    from training.train_config import load_train_config

    base = load_train_config("hongzhong")
    if SMALL:
        overrides = {
            "total_steps": 512, "env.num_envs": 2, "ppo.n_steps": 64, "ppo.batch_size": 64, "bc.decisions": 200,
            "schedule.segment_steps": 256, "eval.every": 1, "eval.deals": 1, "eval.final_deals": 2,
        }  # fmt: skip
    else:
        overrides = {
            "total_steps": 40960, "env.num_envs": 8, "ppo.n_steps": 128, "ppo.batch_size": 256,
            "bc.decisions": 12000, "schedule.segment_steps": 8192, "eval.every": 2, "eval.deals": 16,
            "eval.final_deals": 48,
        }  # fmt: skip
    overrides.update({"schedule.checkpoint_every": 2, "schedule.keep_checkpoints": 1, "logging.progress_bar": False})
    return base.replace(source=f"notebooks ({BUDGET} budget)", name=f"notebooks-hongzhong-{BUDGET}", **overrides)


def policy_run() -> tuple[Path, str]:
    """``(run directory, how it was obtained)`` of the trained policy the notebooks study.

    ``CHUANMA_RUN_DIR`` when set; else the notebooks' own run ``<out>/policy-<budget>`` — reused when it is
    finished, resumed when it was interrupted, trained from :func:`train_config` otherwise.
    """
    given = given_run_dir()
    if given is not None:
        return given, f"given by {RUN_DIR_ENV}"
    run = out_dir(f"policy-{BUDGET}")
    if (run / "final.zip").is_file():
        return run, "trained earlier by a notebook; reused"
    from training.trainer import CHECKPOINT_DIR, Trainer

    checkpoints = run / CHECKPOINT_DIR
    if checkpoints.is_dir() and any(checkpoints.iterdir()):
        trainer, how = Trainer.resume(run), "resumed and finished now"
    else:
        trainer, how = Trainer.create(train_config(), run, progress=False), "trained now"
    trainer.train(progress=False)
    trainer.finish(workers=1, progress=False)
    return run, how


def setup_plots() -> None:
    """Plot defaults shared by the notebooks (fonts without CJK glyphs: labels are in English / pinyin)."""
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "axes.grid": False, "font.size": 9})


def show(fig) -> None:
    """Lay out ``fig``, put it in the cell's output and close it.

    The figure is rendered to PNG here rather than by ``plt.show()``: library code that writes PNG files (training
    reports, evaluation plots) switches matplotlib to the Agg backend, after which neither ``plt.show()`` nor
    ``display(fig)`` would put the picture into the notebook.
    """
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    display(Image(data=buffer.getvalue(), format="png"))
