"""The batched evaluator (training/evaluation/fast.py) gives the Python evaluator's numbers for the same walls."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core.rule_config import load_variant
from training.evaluation import evaluate, fast


def _same(variant: str, pairs: list[tuple[str, str]], walls: int, seed: int) -> list[evaluate.MatchResult]:
    slow = evaluate.run_matchups(variant, pairs, walls=walls, seed=seed)
    quick = fast.run_matchups_batched(variant, pairs, walls=walls, seed=seed, slots=37)
    assert [m.to_dict() for m in quick] == [m.to_dict() for m in slow]
    return quick


def test_equal_to_python_evaluator_random_streams() -> None:
    """Random agents draw from one stream per seat and hand: the batched evaluator gives them the same ones."""
    (m,) = _same("hongzhong", [("random", "random")], walls=80, seed=3)
    assert m.walls == 80 and m.hands == 320
    assert m.challenger_rates["exhausted_hands"] > 0 and m.challenger_rates["win_rate"] > 0


def test_equal_to_python_evaluator_baselines() -> None:
    """Deterministic baselines against random ones, two presets (wins, deal-ins, pigs, not-ready hands all equal)."""
    (m,) = _same("hongzhong", [("greedy", "random")], walls=24, seed=5)
    assert m.hands == 96
    (c,) = _same("chengdu", [("random", "greedy")], walls=24, seed=11)
    assert c.field_rates["exhausted_hands"] > 0


@pytest.mark.parametrize(
    ("variant", "pairs"),
    [
        ("wuhan", [("greedy", "random"), ("value", "greedy")]),
        ("duankagen", [("random", "greedy"), ("value", "defensive")]),
    ],
)
def test_equal_to_python_evaluator_per_payer_tables(variant: str, pairs: list[tuple[str, str]]) -> None:
    """武汉 and 断卡根 price a win per payer outside the common scorer call: the recorded doublings are still the
    ones ``Game.wins`` keeps."""
    results = _same(variant, pairs, walls=16, seed=2)
    assert any(m.challenger_rates["win_rate"] > 0 for m in results)


@pytest.mark.slow
@pytest.mark.parametrize(
    "variant", ["hongzhong", "chengdu", "xueliu", "yibin", "chiyu", "two_player", "wuhan", "duankagen"]
)
def test_equal_to_python_evaluator_value_vs_greedy(variant: str) -> None:
    _same(variant, [("value", "greedy")], walls=300, seed=0)


def test_shared_batch_agent_is_asked_once_per_step() -> None:
    """An object with ``act_batch`` answers every seat it plays in one call per step."""

    class First:
        calls = 0
        rows = 0

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> list[int]:
            First.calls += 1
            First.rows += len(masks)
            return [int(np.flatnonzero(m)[0]) for m in masks]

    agent = First()
    (m,) = fast.run_matchups_batched("hongzhong", [("first", "greedy")], walls=8, seed=0, agents={"first": agent})
    assert m.hands == 32 and First.rows > First.calls > 0


def test_a_stateless_batch_agent_is_asked_only_rows_with_a_choice() -> None:
    """A shared batch agent is stateless: a row with one legal action plays it unasked, rows that all have a choice
    reach ``act_batch`` as given (no copy); registry agents that may keep state are asked at every decision."""
    seen: list[np.ndarray] = []

    class Last:
        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            seen.append(observations)
            return np.array([int(np.flatnonzero(m)[-1]) for m in masks])

    cfg = load_variant("chengdu")
    seats = fast.batch_agent(Last(), cfg)
    assert seats.stateless and fast.batch_agent("greedy", cfg).stateless
    assert not fast.batch_agent("random", cfg).stateless
    obs = np.arange(3 * 2 * 4, dtype=np.float32).reshape(3, 2, 4)
    masks = np.zeros((3, 183), dtype=np.int8)
    masks[0, [5, 9]] = masks[1, 7] = masks[2, [1, 2, 3]] = 1
    rows, who = np.arange(3), np.zeros(3, dtype=np.int64)
    assert seats.act(obs, masks, rows, who).tolist() == [9, 7, 3]
    assert len(seen) == 1 and np.array_equal(seen[0], obs[[0, 2]])
    chosen = obs[[0, 2]]
    assert seats.act(chosen, masks[[0, 2]], rows[:2], who[:2]).tolist() == [9, 3]
    assert len(seen) == 2 and seen[1] is chosen  # the caller's own array
    assert seats.act(obs[[1]], masks[[1]], rows[:1], who[:1]).tolist() == [7] and len(seen) == 2  # not asked
    assert seats.act(obs[:0], masks[:0], rows[:0], who[:0]).tolist() == [] and len(seen) == 2  # nothing to ask


def test_one_process_plays_with_one_blas_thread_and_gives_the_pool_back() -> None:
    """The in-process batched evaluator runs its agents with one BLAS thread (OpenBLAS's idle threads would spin on
    the other cores for no speed), and the caller's thread pools are as they were afterwards."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> list[int]:
        return [int(pool["num_threads"]) for pool in threadpool_info() if pool["user_api"] == "blas"]

    seen: list[list[int]] = []

    class First:
        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> list[int]:
            seen.append(blas_threads())
            return [int(np.flatnonzero(m)[0]) for m in masks]

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        if not before or max(before) < 2:
            pytest.skip("numpy's BLAS has no pool of two threads here: nothing to limit")
        fast.run_matchups_batched("chengdu", [("first", "greedy")], walls=2, seed=0, agents={"first": First()})
        assert blas_threads() == before
    assert seen and all(threads == [1] * len(before) for threads in seen)


def test_engine_choice() -> None:
    cfg = load_variant("hongzhong")
    assert fast.choose_engine("auto", cfg, ["value", "greedy"]) == "compiled"
    assert fast.choose_engine("python", cfg, ["value", "greedy"]) == "python"
    bot = "external:python3 agents/examples/random_bot.py"
    assert fast.choose_engine("auto", cfg, [bot, "greedy"]) == "python"
    assert fast.choose_engine("auto", cfg, ["greedy", "random"], replays=True) == "python"
    with pytest.raises(ValueError, match="outside bots are not batchable"):
        fast.choose_engine("compiled", cfg, [bot, "greedy"])
    unplayed = load_variant("chengdu", dead_wait_counts_as_ready=False)  # a flag the compiled engine refuses
    with pytest.raises(ValueError, match="dead_wait_counts_as_ready"):
        fast.choose_engine("compiled", unplayed, ["greedy", "random"])
    assert fast.choose_engine("auto", unplayed, ["greedy", "random"]) == "python"
    for variant in ("wuhan", "duankagen"):  # every preset plays batched
        assert fast.choose_engine("auto", load_variant(variant), ["value", "greedy"]) == "compiled"
    with pytest.raises(ValueError, match="engine must be one of"):
        fast.choose_engine("gpu", cfg, ["greedy"])


def test_cli_reports_the_engine(tmp_path) -> None:
    from training.evaluation.evaluate import main

    for engine in ("python", "auto"):
        out = tmp_path / engine
        argv = ["--challenger", "greedy", "--opponent", "random", "--walls", "6", "--no-progress"]
        assert main([*argv, "--engine", engine, "--out", str(out)]) == 0
    a = json.loads((tmp_path / "python" / "eval.json").read_text())
    b = json.loads((tmp_path / "auto" / "eval.json").read_text())
    assert (a.pop("engine"), b.pop("engine")) == ("python", "compiled")
    assert a == b


def test_policy_act_batch_matches_act() -> None:
    """PolicyAgent.act_batch plays, row by row, what act plays (deterministic and sampled)."""
    import torch

    from agents.policy import NetSpec, PolicyAgent, build_policy
    from envs.vector_env import VectorEnv

    torch.manual_seed(0)
    net = NetSpec()
    policy = build_policy(net)
    venv = VectorEnv("hongzhong", num_envs=12, self_play=True, seed=1)
    obs = venv.reset()
    masks = venv.masks.copy()
    for deterministic in (True, False):
        one = PolicyAgent.from_policy(policy, net, deterministic=deterministic, seed=5)
        many = PolicyAgent.from_policy(policy, net, deterministic=deterministic, seed=5)
        assert many.act_batch(obs, masks) == [one.act(o, m) for o, m in zip(obs, masks)]


def test_worker_processes_play_the_same_walls(monkeypatch) -> None:
    """Walls shared among worker processes (each batched) give the one-process result, wall for wall."""
    import multiprocessing

    pairs = [("greedy", "random"), ("value", "greedy")]
    one = fast.run_matchups_batched("chengdu", pairs, walls=40, seed=3)
    started = []
    real = multiprocessing.get_context

    def spy(method=None):
        ctx = real(method)
        started.append(method)
        return ctx

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    assert fast.run_matchups_batched("chengdu", pairs, walls=40, seed=3, workers=2)  # too few walls: one process
    assert started == []
    monkeypatch.setattr(fast, "WALLS_PER_WORKER", 10)
    two = fast.run_matchups_batched("chengdu", pairs, walls=40, seed=3, workers=2)
    assert started == ["spawn"]
    assert [m.to_dict() for m in one] == [m.to_dict() for m in two]
    assert all(m.walls == 40 for m in two)
    with pytest.raises(ValueError, match="workers must be a positive int"):
        fast.run_matchups_batched("chengdu", pairs, walls=4, workers=0)
    with pytest.raises(ValueError, match="use workers=1"):
        fast.run_matchups_batched("chengdu", pairs, walls=4, workers=2, agents={"greedy": object()})


def test_a_copied_stats_hand_keeps_its_own_wins():
    """``copy_hand`` on the evaluator's batch: the copy's win records are its own (血流: the copy plays on to wins that
    the original, left where it was, has not recorded)."""
    from agents.compiled import make_batch_agent
    from envs.core.actions import ACTION_SPACE_SIZE
    from envs.engine.observation import OBS_SHAPE

    cfg = load_variant("xueliu")
    greedy = make_batch_agent("greedy", cfg)
    b = fast._StatsBatch(cfg, 2)
    obs, masks = np.zeros((2, *OBS_SHAPE), np.float32), np.zeros((2, ACTION_SPACE_SIZE), np.int8)
    seats = np.zeros(2, np.int64)

    def play(slot: int, steps: int) -> None:
        row = np.array([slot])
        for _ in range(steps):
            if b.is_over(slot):
                return
            b.observe_next(row, seats, True, obs, masks)
            b.step(row, seats[row], greedy.act_batch(obs[row], masks[row]))

    b.deal(0, 3)
    play(0, 20)  # into the hand, before any win
    b.copy_hand(b, 0, 1)
    kept = list(b._ledgers[0].wins)
    play(1, 10_000)
    assert b.is_over(1) and len(b._ledgers[1].wins) > len(kept) and b._ledgers[0].wins == kept
    assert [s.points for s in b.hand_stats(1)] == [x / cfg.base_unit for x in b.scores(1)]
