"""The real server killed (SIGKILL) in the middle of a rated game's rating update, and started again
on the same database: nothing of the update was kept, the game ends again, and every rating changes
exactly once."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .helpers import play_out
from .test_restart import free_port, start_server

#: The server with its rating step made to stop half way: the ratings are written (not committed),
#: a flag file says so, and the process sleeps until it is killed.
PAUSED = """
import sys, time
from pathlib import Path
import uvicorn
from sixnimmt.server.accounts import account_routes as web_accounts
from sixnimmt.server.web.app import create_app
from sixnimmt.server.config import Settings
url, port, flag = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
real = web_accounts.record_game
def paused(session, game, who):
    changed = real(session, game, who)
    session.flush()
    flag.write_text("in the middle of the rating update")
    time.sleep(600)
    return changed
web_accounts.record_game = paused
settings = Settings(database_url=url, bot_delay=0.0, rate_per_second=1000.0, rate_burst=1000)  # (a whole game)
uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
"""


class Socket:
    """A websockets client as the tests' helpers drive a TestClient's socket."""

    def __init__(self, ws: Any, flag: Path | None = None) -> None:
        self.ws = ws
        self.flag = flag

    def receive_json(self) -> dict[str, Any]:
        for _ in range(600):
            try:
                return dict(json.loads(self.ws.recv(timeout=0.5)))
            except TimeoutError:
                if self.flag is not None and self.flag.exists():
                    raise Paused() from None
        raise AssertionError("no message for 5 minutes")

    def send_json(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))


class Paused(Exception):
    pass


def wait_until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert process.poll() is None, "the server exited"
        time.sleep(0.1)
    raise AssertionError("the server did not start")


@pytest.mark.slow
def test_killed_during_the_rating_update_nothing_is_lost_or_doubled(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    url = f"sqlite:///{db}"
    flag = tmp_path / "flag"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "server.log").open("ab")
    paused = subprocess.Popen([sys.executable, "-c", PAUSED, url, str(port), str(flag)], stdout=log, stderr=log)
    try:
        wait_until_up(port, paused)
        http = httpx.Client(base_url=base, headers={"Origin": base}, timeout=60)
        assert http.post("/api/account/signup", json={"name": "rhea", "password": "long enough phrase"}).status_code == 201
        made = http.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}],
                                              "rated": True})
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]
        with connect(f"ws://127.0.0.1:{port}/ws/{code}?token={token}") as ws:
            socket = Socket(ws, flag)
            with pytest.raises(Paused):
                play_out(socket, socket.receive_json())
        assert flag.exists()
    finally:
        paused.send_signal(signal.SIGKILL)
        paused.wait(timeout=30)

    with sqlite3.connect(db) as check:  # nothing of the update, nor of the game's end, was kept
        assert check.execute("SELECT count(*) FROM games").fetchone() == (0,)
        assert check.execute("SELECT count(*) FROM ratings").fetchone() == (0,)
        assert check.execute("SELECT count(*) FROM rated_games").fetchone() == (0,)

    server = start_server(port, url, tmp_path / "server2.log")
    try:
        with connect(f"ws://127.0.0.1:{port}/ws/{code}?token={token}") as ws:
            socket = Socket(ws)
            last = play_out(socket, socket.receive_json())  # the last move again: the game ends
        assert last["view"]["phase"] == "over"
        http = httpx.Client(base_url=base, headers={"Origin": base}, timeout=60)
        person = http.get("/api/users/rhea").json()
        bot = http.get("/api/users/bot-easy").json()
        assert person["ratings"]["standard"]["games"] == 1 and bot["ratings"]["standard"]["games"] == 1
        assert len(person["history"]["standard"]) == 1 and person["games_total"] == 1
        assert len(http.get("/api/games").json()) == 1
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT count(*) FROM rated_games").fetchone() == (1,)
        assert check.execute("SELECT count(*) FROM rating_history").fetchone() == (2,)
