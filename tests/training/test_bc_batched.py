"""BC data collected on the batched compiled engine (training/bc.py collect_batched) equals the AEC env's."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from envs.core.rule_config import load_variant


@pytest.mark.parametrize(
    ("teacher", "kwargs", "threads"),
    [
        ("random", {}, 1),
        ("random", {"hand_features": True, "advisor": "greedy"}, 2),
        ("greedy", {"hand_features": True, "advisor": "greedy"}, 1),  # the teacher's own actions are the advice
        ("greedy", {"hand_features": True, "advisor": "greedy"}, 3),
    ],
)
def test_bc_data_batched_equals_aec(teacher: str, kwargs: dict, threads: int) -> None:
    """BC data collected 16 hands at a time on the compiled engine, in one lane or several side by side, equals
    the AEC environment's, row for row."""
    from training.bc import collect_decisions

    cfg = load_variant("hongzhong")
    options = {"reward_scale": 0.05, "normalize_reward": True}
    a = collect_decisions(cfg, teacher, 400, 7, env_options=options, batched=False, **kwargs)
    b = collect_decisions(cfg, teacher, 400, 7, env_options=options, batched=True, slots=16, threads=threads, **kwargs)
    assert a.hands == b.hands > 1
    for name in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_bc_data_batched_with_more_tables_than_hands_needed() -> None:
    """With 64 tables for ~5 hands of decisions, the hands past the last one needed are never dealt or are
    abandoned, and the data (rows, seats, hand ids, walls) still equals the AEC environment's."""
    from training.bc import collect_decisions

    cfg = load_variant("chengdu")
    a = collect_decisions(cfg, "greedy", 250, 3, batched=False)
    b = collect_decisions(cfg, "greedy", 250, 3, batched=True, slots=64)
    assert a.hands == b.hands > 1
    assert a.hand_seeds == b.hand_seeds
    for name in ("observations", "masks", "actions", "returns", "seats", "hand_of"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_bc_data_in_lanes_equals_one_lane() -> None:
    """The compiled ``value`` teacher with its hand-feature and advice planes, in three lanes of threads side by side
    (each with its own shanten memo), records the data one lane records: the lanes only share out the hands."""
    from training.bc import collect_decisions

    cfg = load_variant("wuhan")
    kwargs: dict[str, Any] = {"hand_features": True, "advisor": "value", "slots": 8}
    one = collect_decisions(cfg, "value", 1500, 5, batched=True, threads=1, **kwargs)
    three = collect_decisions(cfg, "value", 1500, 5, batched=True, threads=3, **kwargs)
    assert one.hands == three.hands > 10
    assert one.hand_seeds == three.hand_seeds
    for name in ("observations", "masks", "actions", "returns", "seats", "hand_of"):
        assert np.array_equal(getattr(one, name), getattr(three, name)), name


@pytest.mark.parametrize("threads", [1, 2])
def test_lanes_convert_on_one_torch_thread_and_give_the_threads_back(monkeypatch, threads: int) -> None:
    """The rows' float16 conversion runs on one torch thread while lanes play (several fault the row buffer's fresh
    pages side by side), and the caller's torch threads are put back after."""
    import torch

    import training.bc as bc

    seen: list[int] = []
    add = bc._RowStore.add

    def recording_add(self, *args: Any) -> None:
        seen.append(torch.get_num_threads())
        add(self, *args)

    monkeypatch.setattr(bc._RowStore, "add", recording_add)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        bc.collect_decisions(load_variant("chengdu"), "greedy", 200, 3, batched=True, slots=8, threads=threads)
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


class _IllegalTeacher:
    """A batch teacher that answers every row with an action outside its mask."""

    name = "illegal"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmin(np.asarray(masks), axis=1)


def test_an_illegal_teacher_action_in_any_lane_is_an_error() -> None:
    """A lane's error stops every lane and is raised (no lane is left playing, nothing is returned)."""
    from training.bc import collect_batched

    with pytest.raises(ValueError, match="chose an illegal action"):
        collect_batched(load_variant("chengdu"), _IllegalTeacher(), 500, 1, slots=4, threads=2)  # type: ignore[arg-type]


class _FailingTeacher:
    """A batch teacher that plays the first legal action in one lane and raises in the other: ``where`` "first" (the
    lane of the calling thread) or "other" (a lane thread of its own)."""

    name = "failing"

    def __init__(self, where: str) -> None:
        self.where = where

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        other = threading.current_thread().name.startswith("bc-lane")
        if other == (self.where == "other"):
            raise RuntimeError(f"the teacher failed in the {self.where} lane")
        return np.argmax(np.asarray(masks) != 0, axis=1)


@pytest.mark.parametrize("where", ["first", "other"])
def test_an_error_in_one_lane_stops_both_and_is_raised(where: str) -> None:
    """Whichever lane fails, the collection ends (the other lane stops at its next step) with that lane's error."""
    from training.bc import collect_batched

    raised: list[BaseException] = []

    def collect() -> None:
        try:
            collect_batched(load_variant("chengdu"), _FailingTeacher(where), 5000, 1, slots=4, threads=2)  # type: ignore[arg-type]
        except BaseException as e:
            raised.append(e)

    runner = threading.Thread(target=collect, daemon=True)
    runner.start()
    runner.join(timeout=120)
    assert not runner.is_alive(), "the collection did not end"
    assert len(raised) == 1 and isinstance(raised[0], RuntimeError)
    assert str(raised[0]) == f"the teacher failed in the {where} lane"
    assert not [t for t in threading.enumerate() if t.name.startswith("bc-lane")]


@pytest.mark.parametrize("threads", [0, -1, True, 1.5])
def test_bad_lane_counts_are_refused(threads: object) -> None:
    from training.bc import collect_batched

    with pytest.raises(ValueError, match="threads must be a positive int"):
        collect_batched(load_variant("chengdu"), "greedy", 100, 1, threads=threads)  # type: ignore[arg-type]


def test_the_row_store_grows_and_puts_the_chosen_rows_in_order() -> None:
    """Rows recorded in steps past the store's first capacity are all kept, each the observation rows followed by the
    feature blocks it was given, and ``rows_in_order`` moves exactly the chosen rows, in the chosen order, to the
    front (float16 as ``astype`` rounds them); the other columns index as recorded."""
    from training.bc import _RowStore

    rng = np.random.default_rng(3)
    store = _RowStore(rows=5, capacity=3)
    steps = [rng.normal(size=(int(n), 5, 34)).astype(np.float32) for n in (2, 4, 1, 6)]
    seen = 0
    for i, x in enumerate(steps):
        n = x.shape[0]
        masks = rng.random((n, 183)) < 0.5
        store.add(x[:, :3], x[:, 3:], masks, np.arange(seen, seen + n), np.full(n, i), np.arange(n), np.full(n, 7 * i))
        seen += n
    assert store.size == seen == 13 and store.inputs.shape[0] >= 13
    every = np.concatenate(steps).astype(np.float16)
    order = rng.permutation(13)[:9]
    assert np.array_equal(store.actions[order], order)
    got = store.rows_in_order(order)
    assert got.shape == (9, 5, 34) and np.array_equal(got, every[order])
    bare = _RowStore(rows=5, capacity=2)  # an input without feature blocks: the observation rows alone
    x = steps[1]
    bare.add(x, x[:, 5:], np.zeros((4, 183), bool), np.arange(4), np.zeros(4), np.arange(4), np.zeros(4))
    assert np.array_equal(bare.rows_in_order(np.arange(4)), x.astype(np.float16))


def test_the_row_buffer_is_writable_memory_of_its_shape_on_small_pages() -> None:
    """The row store's input buffer has the asked shape and dtype, takes writes and keeps them while a view of it
    lives; on Linux it is an anonymous mapping of its own (the one advised against huge pages), and an empty buffer
    is an ordinary empty array."""
    import mmap
    import sys

    from training.bc import _small_page_array

    buf = _small_page_array((7, 3, 34), np.float16)
    assert buf.shape == (7, 3, 34) and buf.dtype == np.float16 and buf.flags.writeable
    buf[:] = np.arange(7, dtype=np.float16)[:, None, None]
    view = buf[2:4]
    del buf
    assert np.array_equal(view[:, 0, 0], [2, 3])
    if sys.platform.startswith("linux"):
        owner = view
        while isinstance(owner, np.ndarray):
            owner = owner.base
        assert isinstance(owner, memoryview) and isinstance(owner.obj, mmap.mmap)
    assert _small_page_array((0, 3, 34), np.float16).shape == (0, 3, 34)
