"""``benchmarks/run_all.py``: a quick or partial run never replaces the tracked report (benchmarks/RESULTS.*)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def run_all(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module("run_all")
    monkeypatch.setattr(module, "SCRATCH_OUT", tmp_path / "scratch" / "RESULTS.md")
    yield module
    sys.modules.pop("run_all", None)


def _args(run_all, *argv: str):
    import argparse

    ns = argparse.Namespace(quick=False, only=None, no_training=False, variants=list(run_all.VARIANTS))
    for flag in argv:
        if flag == "--quick":
            ns.quick = True
        elif flag == "--no-training":
            ns.no_training = True
        elif flag.startswith("--only="):
            ns.only = flag.split("=", 1)[1].split(",")
        elif flag.startswith("--variants="):
            ns.variants = flag.split("=", 1)[1].split(",")
    return ns


def test_only_a_full_run_defaults_to_the_tracked_report(run_all) -> None:
    assert run_all.default_out(_args(run_all)) == BENCH / "RESULTS.md"
    for partial in (("--quick",), ("--no-training",), ("--only=engine",), ("--variants=chengdu",)):
        assert run_all.default_out(_args(run_all, *partial)) == run_all.SCRATCH_OUT, partial


def test_quick_partial_run_writes_the_scratch_report_and_leaves_the_tracked_one(run_all) -> None:
    tracked = {p: p.read_bytes() for p in (BENCH / "RESULTS.md", BENCH / "RESULTS.json")}
    report = run_all.main(["--quick", "--repeat", "1", "--only", "hand/is_winning", "--no-training"])
    assert set(report["rates"]) == {"hand/is_winning"}
    assert run_all.SCRATCH_OUT.is_file() and run_all.SCRATCH_OUT.with_suffix(".json").is_file()
    assert "hand/is_winning" in run_all.SCRATCH_OUT.read_text()
    for path, data in tracked.items():
        assert path.read_bytes() == data, f"{path} was rewritten by a quick run"


def test_an_explicit_out_wins(run_all, tmp_path: Path) -> None:
    out = tmp_path / "mine" / "bench.md"
    run_all.main(["--quick", "--repeat", "1", "--only", "hand/is_winning", "--no-training", "--out", str(out)])
    assert out.is_file() and out.with_suffix(".json").is_file()
    assert not run_all.SCRATCH_OUT.exists()
