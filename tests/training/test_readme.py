"""The README's MaskablePPO blocks run as written: train one's own model on ``make_vec_env``, save it, evaluate it
(in memory with ``evaluate_agent``, and from the file as the ``sb3:PATH`` agent of ``chuanma eval``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks(*needles: str) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [next(b for b in blocks if needle in b) for needle in needles]
    return found


def test_readme_maskable_ppo_blocks_train_save_and_evaluate(tmp_path, monkeypatch, capsys):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)
    train, evaluate = _python_blocks("MaskablePPO(", "evaluate_agent(")
    namespace: dict = {}
    exec(compile(train, "README.md (MaskablePPO)", "exec"), namespace)
    assert (tmp_path / "runs" / "my_model.zip").is_file()
    exec(compile(evaluate, "README.md (evaluate_agent)", "exec"), namespace)
    result = namespace["result"]
    assert result.walls == 2 and result.hands == 8 and np.isfinite(result.points)
    assert re.search(r"[+-]\d+\.\d\d points per hand, 95 % interval", capsys.readouterr().out)

    from training.cli import main

    out = tmp_path / "eval"
    argv = ["eval", "--variant", "hongzhong", "--challenger", "sb3:runs/my_model.zip", "--opponent", "greedy"]
    assert main([*argv, "--walls", "2", "--no-progress", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "sb3:runs/my_model.zip" in table
    # the file-based agent plays exactly as the model in memory did (deterministic, same walls and seed)
    assert f"{result.points:+.2f}" in table


def test_sb3_agent_refuses_other_files(tmp_path):
    from agents.registry import make_agent

    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"sb3:{tmp_path / 'missing.zip'}")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot be loaded as a MaskablePPO model"):
        make_agent(f"sb3:{junk}")
