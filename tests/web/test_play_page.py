"""The play page in a real browser (headless Chromium): a person's hand played by clicking, the settlement, the next
hand, the replay download, and the page's answer to an illegal action."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from envs.engine.replay_file import load_replay, verify_replay
from tests.helpers.processes import popen_as_from_a_terminal

SEED = 5
ROOT = Path(__file__).resolve().parents[2]


def _wait_for_new_state(page, version: str) -> None:
    page.wait_for_function(f"document.body.dataset.version !== '{version}'")


def _clickable_labels(page) -> list[str]:
    """The labels of the person's controls that can be clicked now (a tile counts once per kind)."""
    labels = page.eval_on_selector_all(
        "#pos-me button:not([disabled])", "els => els.map(e => e.dataset.label || '(no action) ' + e.textContent)"
    )
    return sorted(set(labels))


def _click_a_legal_action(page) -> None:
    """One decision, as a person makes it: three tiles of one suit for 换三张, else the first legal control."""
    if page.locator("#exchange-confirm").count():
        suits = Counter(page.eval_on_selector_all(".tile-btn.selectable", "els => els.map(e => e.dataset.suit)"))
        suit = next(s for s, c in suits.items() if c >= 3)
        tiles = page.locator(f".tile-btn.selectable[data-suit='{suit}']")
        for i in range(3):
            tiles.nth(i).click()
        page.click("#exchange-confirm")
    else:
        page.locator(".legal-action:not([disabled])").first.click()


def _play_hand_by_clicking(page, table=None, screenshot_dir=None) -> int:
    """Click legal actions until the settlement shows; returns the number of decisions made."""
    decisions = 0
    shot = screenshot_dir is None
    while not page.locator("#settlement.open").count():
        assert decisions < 200, "the hand did not end"
        assert page.locator(".legal-action:not([disabled]), #exchange-confirm").count(), "no legal action to click"
        if not shot and page.locator("#pos-me .discard").count() >= 6:
            page.mouse.move(0, 0)
            page.screenshot(path=screenshot_dir / "play_page.png")
            shot = True
        if table is not None and table.game.phase.value != "exchange":  # only the legal actions can be clicked
            assert _clickable_labels(page) == sorted(entry["label"] for entry in table.state()["legal"])
        version = page.get_attribute("body", "data-version")
        _click_a_legal_action(page)
        _wait_for_new_state(page, version)
        decisions += 1
    return decisions


def test_a_hand_is_played_by_clicking_legal_actions_until_the_settlement(
    browser_page, play_server, screenshot_dir, tmp_path
):
    page = browser_page
    url = play_server("hongzhong", "value", seat=0, seed=SEED, hands=2)
    table = play_server.table
    page.goto(url)
    page.wait_for_selector("#exchange-confirm")
    assert page.get_attribute("body", "data-phase") == "exchange"
    assert not page.locator("#download-top").is_visible()  # nothing to download before a hand is over

    decisions = _play_hand_by_clicking(page, table, screenshot_dir)
    assert decisions >= 3  # 换三张, 定缺 and at least one play decision
    page.screenshot(path=screenshot_dir / "play_settlement.png")

    # the settlement shows the engine's result
    result = table.games[0].result
    box = page.locator("#settlement-box")
    shown = box.locator("table").nth(1).locator("td.num").all_inner_texts()
    assert [int(x) for x in shown[0::2]] == list(result.scores)
    assert box.locator(".win").count() == len(result.wins)
    assert box.locator("table").first.locator("tr").count() - 1 == max(len(result.transfers), 1)

    # the finished hand downloads as a record whose events the engine replays to the same result
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "game.json"
    download.value.save_as(path)
    record = load_replay(path)  # a replay file: chuanma replay checks it and writes the viewer page
    assert record["match_seed"] == SEED
    assert record["config"]["name"] == "hongzhong"
    assert record["players"][0] == "you"
    (game,) = verify_replay(record)
    assert game.result == result
    shutil.copy(path, screenshot_dir / "play_record.json")

    # the game goes on with the next hand
    version = page.get_attribute("body", "data-version")
    page.click("#next-hand")
    _wait_for_new_state(page, version)
    assert not page.locator("#settlement.open").count()
    assert "hand 2/2" in page.inner_text("#meta")
    assert table.hand_index == 1


def test_an_illegal_action_from_the_page_is_refused_and_the_game_goes_on(browser_page, play_server):
    page = browser_page
    page.goto(play_server("two_player", "greedy", seat=1, seed=3))
    page.wait_for_selector(".legal-action:not([disabled]), #exchange-confirm")
    before = play_server.table.game.snapshot()
    version = page.get_attribute("body", "data-version")
    page.evaluate("socket.send(JSON.stringify({type: 'act', action: {type: 'HU'}}))")
    page.wait_for_selector("#error", state="visible")
    assert "not legal" in page.inner_text("#error")
    assert play_server.table.game.snapshot() == before
    _wait_for_new_state(page, version)  # the page redraws the last state: its controls are usable again
    version = page.get_attribute("body", "data-version")
    _click_a_legal_action(page)
    _wait_for_new_state(page, version)
    assert play_server.table.game.snapshot() != before


def test_the_play_command_serves_a_game_until_interrupted(browser_page):
    command = [sys.executable, "-m", "training.cli", "play", "--variant", "two_player", "--opponents", "random"]
    command += ["--seed", "1", "--hands", "1", "--no-browser"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = popen_as_from_a_terminal(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    try:
        url = None
        while url is None:
            line = lines.get(timeout=60)
            found = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
            url = found and found.group(1)
        page = browser_page
        page.goto(url)
        page.wait_for_selector(".legal-action:not([disabled]), #exchange-confirm")
        assert "two_player · hand 1/1 · seed 1" in page.inner_text("#meta")
        version = page.get_attribute("body", "data-version")
        _click_a_legal_action(page)
        _wait_for_new_state(page, version)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 130  # Ctrl-C stops the server: chuanma's exit status for an interrupt
