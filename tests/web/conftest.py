"""Shared browser fixtures: a headless Chromium page (Playwright on the system's Debian ``chromium``), the play server
in a background thread, and the folder screenshots are written to for a human to look at.

Playwright's own browser download is not used (``playwright install`` is never run): the tests launch the
``chromium`` found on ``PATH`` (``bash dev.sh test`` installs Debian's package when it is missing).  Outside CI a
machine without Chromium or Playwright skips the browser tests; in CI (``CI=true``) that is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("CHUANMA_SCREENSHOTS", ROOT / "build" / "screenshots"))
"""Where the browser tests write their screenshots (``CHUANMA_SCREENSHOTS`` overrides)."""


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _missing(what: str) -> None:
    if _in_ci():
        pytest.fail(f"{what} (CI=true: the browser tests must run; bash dev.sh setup installs Chromium)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The system Chromium (Debian's ``chromium`` package)."""
    path = shutil.which("chromium")
    if path is None:
        _missing("no chromium on PATH (apt-get install chromium)")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator:
    """One headless Chromium for the test session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path, headless=True, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def browser_page(browser) -> Iterator:
    """A fresh Playwright page (sync API) in its own browser context, 1400 x 900."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def screenshot_dir() -> Path:
    """The folder for screenshots a human looks at (created)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def play_server() -> Iterator[Callable[..., str]]:
    """Start the play server: ``play_server(variant, opponents, seat=0, seed=0, hands=None)`` returns the page's URL
    (127.0.0.1, a free port); every server started is stopped after the test.  The table is at ``.table`` of the
    returned function."""
    from training.play.server import running_server
    from training.play.table import PlayTable

    servers = []

    def start(variant: str, opponents, **options) -> str:
        table = PlayTable(variant, [opponents] if isinstance(opponents, str) else opponents, **options)
        server = running_server(table)
        url = server.__enter__()
        servers.append((server, table))
        start.table = table
        return url

    yield start
    for server, table in servers:
        server.__exit__(None, None, None)
        table.close()
