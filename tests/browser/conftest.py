"""Browser tests: the real server process and real Chromium (Debian's ``chromium``, driven by
Playwright with ``executable_path``). Skipped with a reason when Chromium is not installed.

``SIXNIMMT_SCREENSHOTS=DIR`` saves a screenshot of each key screen into DIR.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = os.environ.get("SIXNIMMT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.path):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def close_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's pages are closed after it, so no table of an earlier test plays on meanwhile."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The real app (`create_app`) served by uvicorn in its own process, as `sixnimmt serve` does, but
#: with the per-address limits on creating, joining and looking up tables, opening sockets and
#: signing up raised: every test's tables and accounts come from this one address, one after
#: another (the limits themselves are tested in tests/server).
LAUNCH = """
import sys
import uvicorn
from sixnimmt.server.web.app import create_app
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
url, port = sys.argv[1], int(sys.argv[2])
store = Store(url)
store.migrate()
store.close()
settings = Settings(database_url=url, bot_delay=0.05, create_per_minute=600.0, create_burst=200,
                    join_per_minute=600.0, join_burst=200, lookup_per_minute=6000.0, lookup_burst=2000,
                    socket_opens_per_minute=6000.0, socket_open_burst=2000,
                    signup_per_minute=600.0, signup_burst=200,
                    review_samples=12)  # reviews in seconds, not minutes, on a small machine
print(f"sixnimmt: http://127.0.0.1:{port}  (database {url})", flush=True)
uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536)
"""


def start_server(port: int, folder: Path) -> subprocess.Popen[bytes]:
    """The web server on ``port`` with the SQLite file in ``folder``; returns once it answers."""
    log = (folder / "server.log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, f"sqlite:///{folder / 'web.db'}", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    pytest.fail("the server did not start")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server on a free port with a fresh SQLite file."""
    port = free_port()
    process = start_server(port, tmp_path_factory.mktemp("web"))
    # every browser test runs under the pages' content security policy (no inline script)
    policy = httpx.get(f"http://127.0.0.1:{port}/", timeout=5).headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def shots() -> Any:
    """``shots(page, name)`` saves a screenshot when SIXNIMMT_SCREENSHOTS is set."""
    folder = os.environ.get("SIXNIMMT_SCREENSHOTS")

    def save(page: Any, name: str) -> None:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(folder) / f"{name}.png"))

    return save
