"""The engine backend protocols (envs.backend): both engines implement every operation, an unknown engine is refused
by name, and the backends import no environment (the environments import them)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from envs.backend import BatchBackend, HandLog, TableBackend, make_batch, make_table
from envs.compiled.backend import CompiledBatch, CompiledTable
from envs.compiled.shadow import HandReplay
from envs.core.actions import ACTION_SPACE_SIZE
from envs.core.rule_config import load_variant
from envs.engine.observation import OBS_SHAPE
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


def _play(backend, rows, rng, steps, obs, masks, seats):
    """``steps`` seeded random legal actions in each listed slot (one draw a step, the same for every slot, so slots
    holding the same hand play the same actions; the same draws for every engine)."""
    for _ in range(steps):
        live = np.array([i for i in rows if not backend.is_over(i)], dtype=np.int64)
        if not live.size:
            return
        backend.observe_next(live, seats, True, obs, masks)
        actions = backend.pick_legal(masks[live], np.full(live.size, rng.random()))
        backend.step(live, seats[live], actions)


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("variant", ["chengdu", "hongzhong"])
def test_a_copied_hand_plays_on_alone(engine, variant):
    """``copy_hand``: the copy plays what the original would (same observations, masks and scores under the same
    actions), and playing it on leaves the original as it was (they share nothing mutable), across batches too."""
    cfg = load_variant(variant)
    main, branches = make_batch(engine, cfg, 2), make_batch(engine, cfg, 3)
    shape = (3, *OBS_SHAPE)
    obs, masks, seats = np.zeros(shape, np.float32), np.zeros((3, ACTION_SPACE_SIZE), np.int8), np.zeros(3, np.int64)
    main.deal(0, 11)
    _play(main, [0], np.random.default_rng(1), 30, obs, masks, seats)
    assert not main.is_over(0)
    before = main.observation(0, 0), main.scores(0)
    branches.copy_hand(main, 0, 2)
    main.copy_hand(main, 0, 1)  # within one batch
    for backend, slot in ((branches, 2), (main, 1)):
        assert np.array_equal(backend.observation(slot, 0), before[0]) and backend.scores(slot) == before[1]
    _play(branches, [2], np.random.default_rng(2), 10_000, obs, masks, seats)  # the branch to its end
    assert branches.is_over(2)
    assert not main.is_over(0) and np.array_equal(main.observation(0, 0), before[0]) and main.scores(0) == before[1]
    _play(main, [0, 1], np.random.default_rng(3), 10_000, obs, masks, seats)  # two slots, the same draws each step
    assert main.is_over(0) and main.is_over(1) and main.scores(0) == main.scores(1)
    assert sum(branches.scores(2)) == 0 and sum(main.scores(0)) == 0  # zero-sum


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_copy_hand_refuses_a_batch_of_other_rules(engine):
    chengdu, xueliu = (make_batch(engine, load_variant(v), 1) for v in ("chengdu", "xueliu"))
    chengdu.deal(0, 1)
    with pytest.raises(ValueError, match="other rules"):
        xueliu.copy_hand(chengdu, 0, 0)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_seat_scores_read_each_rows_seat_from_its_slots_scores(engine):
    """``seat_scores(rows, seats)[j] == scores(rows[j])[seats[j]]``, repeats and any order of rows included, on hands
    whose scores are not all zero."""
    cfg = load_variant("chengdu")
    slots = 8
    backend = make_batch(engine, cfg, slots)
    obs, masks = np.zeros((slots, *OBS_SHAPE), np.float32), np.zeros((slots, ACTION_SPACE_SIZE), np.int8)
    seats, rng = np.zeros(slots, np.int64), np.random.default_rng(5)
    for i in range(slots):
        backend.deal(i, 40 + i)
    while live := [i for i in range(slots) if not backend.is_over(i)]:  # a random legal action in each slot
        rows = np.array(live, dtype=np.int64)
        backend.observe_next(rows, seats, True, obs, masks)
        backend.step(rows, seats[rows], backend.pick_legal(masks[rows], rng.random(rows.size)))
    table = [backend.scores(i) for i in range(slots)]
    assert sum(any(s) for s in table) >= 2
    rows = np.array([7, 0, 2, 2, 5, 0, 3], dtype=np.int64)
    who = np.array([1, 3, 0, 2, 2, 0, 1], dtype=np.int64)
    got = backend.seat_scores(rows, who)
    assert got.dtype == np.int64 and got.tolist() == [table[i][q] for i, q in zip(rows.tolist(), who.tolist())]
