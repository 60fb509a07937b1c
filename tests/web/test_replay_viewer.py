"""The replay viewer in a real browser (Playwright driving the system's Debian Chromium).

The page written by ``chuanma replay FILE --html`` is opened from disk (no server), stepped to the end, and must show
the engine's final scores; screenshots go to ``$CHUANMA_SCREENSHOTS`` (default ``build/screenshots``) for a human to
look at (the browser fixtures are those of ``tests/web/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from envs.engine.replay_file import save_replay, verify_replay
from envs.scoring.patterns import PATTERN_NAMES_ZH
from training.cli import main
from training.evaluation.evaluate import play_hand


@pytest.fixture
def viewer_page(browser_page) -> Iterator:
    """The shared browser page (``tests/web/conftest.py``), failing the test on any script error of the page."""
    errors: list[str] = []
    browser_page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield browser_page
    assert not errors, f"the page raised: {errors}"


def _page_of(tmp_path: Path, doc) -> Path:
    path = save_replay(tmp_path / "hand.json", doc)
    html = tmp_path / "hand.html"
    assert main(["replay", str(path), "--html", str(html)]) == 0
    return html


def _greedy_doc():
    from tests.helpers.replays import greedy_replay

    return greedy_replay("chengdu", 0)


def test_the_viewer_steps_to_the_end_and_shows_the_engines_final_scores(tmp_path, viewer_page, screenshot_dir):
    out = tmp_path / "r"
    assert main(["simulate", "--variant", "chengdu", "--games", "1", "--json", "--save-replays", str(out)]) == 0
    (replay_file,) = out.iterdir()
    html = tmp_path / "out.html"
    assert main(["replay", str(replay_file), "--html", str(html)]) == 0
    from envs.engine.replay_file import load_replay

    (game,) = verify_replay(load_replay(replay_file))
    page = viewer_page
    page.goto(html.as_uri())
    assert page.locator(".seat").count() == 4
    assert page.locator("#seat-0 .hand svg").count() >= 13
    label = page.locator("#step-label")
    last = int(label.inner_text().split("/")[1])
    for _ in range(last):
        page.click("#btn-forward")
    assert label.inner_text() == f"step {last} / {last}"
    assert page.locator("#btn-forward").is_disabled()
    shown = [int(page.locator(f"#score-{s}").inner_text()) for s in range(4)]
    assert shown == list(game.scores)
    final = page.locator("#final-scores").inner_text()
    assert final.startswith("final scores: ") and all(f"S{s} " in final for s in range(4))
    page.screenshot(path=str(screenshot_dir / "replay_viewer_end.png"), full_page=True)
    page.click("#btn-back")
    assert label.inner_text() == f"step {last - 1} / {last}"
    assert page.locator("#final-scores").count() == 0


def test_jumps_wins_and_one_seats_view(tmp_path, viewer_page, screenshot_dir):
    doc = _greedy_doc()
    wins = doc["hands"][0]["result"]["wins"]
    page = viewer_page
    page.goto(_page_of(tmp_path, doc).as_uri())
    for win in wins:
        page.click("#btn-win")
        text = page.locator("#wins").inner_text()
        assert f"S{win['seat']} wins on" in text
        assert all(name in text and PATTERN_NAMES_ZH.get(name, name) in text for name in win["breakdown"])
        assert "payments: " in text
    assert page.locator("#wins .win").count() == len(wins)
    page.click("#btn-start")
    page.select_option("#view-select", "1")
    hidden = [page.locator(f"#seat-{s} .hand [aria-label='hidden tile']").count() for s in range(4)]
    assert hidden[1] == 0 and all(h >= 13 for s, h in enumerate(hidden) if s != 1)
    page.click("#btn-decision")
    assert page.locator("#decision").inner_text().startswith("S1 ")
    page.click("#btn-hand-end")
    assert page.locator("#final-scores").count() == 1
    page.screenshot(path=str(screenshot_dir / "replay_viewer_seat_view.png"), full_page=True)


class _Reporting:
    """The greedy baseline, reporting made-up probabilities the way a learned policy reports its own."""

    def __init__(self, seat: int) -> None:
        from agents.registry import make_agent
        from envs.core.rule_config import load_variant

        self.agent = make_agent("greedy", seat, variant=load_variant("chengdu"))

    def reset(self, seat, cfg) -> None:
        self.agent.reset(seat, cfg)

    def act(self, observation, legal_mask):
        import numpy as np

        from envs.core.actions import action_name

        a = self.agent.act(observation, legal_mask)
        others = [int(i) for i in np.flatnonzero(legal_mask) if i != a]
        self.info = {action_name(a): 0.7, **{action_name(i): 0.3 / len(others) for i in others}} if others else None
        return a

    def decision_info(self):
        return {"probs": self.info} if self.info else {}


def test_recorded_probabilities_are_shown_next_to_the_choice(tmp_path, viewer_page, screenshot_dir):
    from envs.core.rule_config import load_variant
    from envs.engine.replay_file import build_replay, hand_record

    cfg = load_variant("chengdu")
    data: dict = {}
    game = play_hand(cfg, 0, [_Reporting(s) for s in range(4)], agent_data=data)
    players = ["greedy (probabilities)"] + ["greedy"] * 3
    doc = build_replay(cfg, [hand_record(game, 0, data)], players=players, source="test")
    page = viewer_page
    page.goto(_page_of(tmp_path, doc).as_uri())
    page.select_option("#view-select", "0")
    for _ in range(6):
        page.click("#btn-decision")
    chosen = page.locator("#decision tr.chosen")
    assert chosen.count() >= 1
    assert chosen.first.inner_text().split("\t")[1].strip() == "70.0%"
    page.select_option("#view-select", "1")  # another seat's view: seat 0's probabilities would show its hand
    assert page.locator("#decision tr").count() == 0
    first = next(ev for ev in doc["hands"][0]["events"] if ev["type"] == "action")  # a 换三张 pick: private
    page.select_option("#view-select", str((first["seat"] + 1) % 4))
    page.click("#btn-start")
    page.click("#btn-forward")
    seat = first["seat"]
    assert page.locator("#decision").inner_text() == f"S{seat} ({players[seat]}): (hidden from this seat)"
    page.select_option("#view-select", "all")
    page.screenshot(path=str(screenshot_dir / "replay_viewer.png"), full_page=True)


def test_a_file_of_several_hands_is_chosen_hand_by_hand(tmp_path, viewer_page):
    from envs.engine.match import Match
    from envs.engine.replay_file import build_replay, hand_record

    match = Match("two_player", seed=4)
    hands = []
    for index in range(2):
        game = match.game
        while not game.is_over:
            seat = game.pending[0]
            game.step(seat, game.legal_actions(seat)[-1])
        hands.append(hand_record(game, index))
        if index == 0:
            match.next_hand()
    doc = build_replay(match.cfg, hands, players=["a", "b"], source="test")
    page = viewer_page
    page.goto(_page_of(tmp_path, doc).as_uri())
    assert page.locator("#hand-select option").count() == 2
    page.select_option("#hand-select", "1")
    page.click("#btn-end")
    shown = [int(page.locator(f"#score-{s}").inner_text()) for s in range(2)]
    assert shown == doc["hands"][1]["result"]["scores"]
    assert "hand 2" in page.locator("#status").inner_text()
