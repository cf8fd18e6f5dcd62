"""Two real server processes on one PostgreSQL database (as ``serve --workers 2`` runs them): one
player plays a rated game on each, against the same bot level, and both games end at the same moment
(each process waits inside its rating update until the other has arrived there too, and keeps its
transaction open a second after writing). Both updates
are applied exactly once, one after the other: the second starts from the first one's result. (A
first game, alone, gives both players ratings to update: without the accounts' row locks the two
updates would read the same rating and one would be lost.)"""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.sync.client import connect

from .conftest import POSTGRES_URL, fresh_postgres_url
from .helpers import play_out
from .test_rating_kill import Socket, wait_until_up
from .test_restart import free_port

pytestmark = pytest.mark.postgres

#: A worker whose rating step waits, inside the transaction, until both workers are there.
WORKER = """
import sys, time
from pathlib import Path
import uvicorn
from sixnimmt.server.accounts import account_routes as web_accounts
from sixnimmt.server.web.app import create_app
from sixnimmt.server.config import Settings
url, port, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
real = web_accounts.record_game
def meeting(session, game, who):
    if not (folder / "meet").exists():  # a game on its own
        return real(session, game, who)
    (folder / f"arrived-{port}").write_text("here")
    for _ in range(400):
        if len(list(folder.glob("arrived-*"))) == 2:
            break
        time.sleep(0.05)
    changed = real(session, game, who)
    time.sleep(1.0)  # hold the transaction open a while: the other worker's update runs meanwhile
    return changed
web_accounts.record_game = meeting
settings = Settings(database_url=url, bot_delay=0.0, lease_seconds=30.0, rate_per_second=1000.0, rate_burst=1000)
uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
"""


def test_two_workers_end_two_rated_games_at_once_with_a_player_in_common(tmp_path: Path) -> None:
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)")
    url = fresh_postgres_url()
    ports = [free_port(), free_port()]
    log = (tmp_path / "workers.log").open("ab")
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, url, str(port), str(tmp_path)], stdout=log, stderr=log)
               for port in ports]
    try:
        for port, worker in zip(ports, workers):
            wait_until_up(port, worker)
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        one = httpx.Client(base_url=bases[0], headers={"Origin": bases[0]}, timeout=60)
        assert one.post("/api/account/signup", json={"name": "both", "password": "long enough phrase"}).status_code == 201
        cookie = one.cookies.get("sixnimmt_session")
        two = httpx.Client(base_url=bases[1], headers={"Origin": bases[1]}, timeout=60, cookies={"sixnimmt_session": str(cookie)})
        errors: list[BaseException] = []

        def table(client: httpx.Client) -> dict[str, Any]:
            made = client.post("/api/tables", json={"name": "x", "seats": [{"kind": "bot", "bot": "easy"}],
                                                    "rated": True})
            assert made.status_code == 201, made.text
            return dict(made.json())

        def play(port: int, table: dict[str, Any]) -> None:
            try:
                with connect(f"ws://127.0.0.1:{port}/ws/{table['code']}?token={table['token']}") as ws:
                    socket = Socket(ws)
                    play_out(socket, socket.receive_json())
            except BaseException as error:
                errors.append(error)

        # a first game on its own: both players have ratings to update (a lost update would show)
        play(ports[0], table(one))
        assert errors == []
        (tmp_path / "meet").write_text("meet")
        tables = [table(one), table(two)]  # one table made through (and driven by) each worker
        threads = [threading.Thread(target=play, args=(port, made)) for port, made in zip(ports, tables)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert errors == []
        assert len(list(tmp_path.glob("arrived-*"))) == 2  # both were inside their update at once
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait(timeout=30)

    engine = sa.create_engine(url)
    with engine.connect() as db:
        assert db.execute(sa.text("SELECT count(*) FROM rated_games")).scalar() == 3
        ids = dict(db.execute(sa.text("SELECT name, id FROM users WHERE name IN ('both', 'bot-easy')")).all())
        for name in ("both", "bot-easy"):  # both are in both games
            games = db.execute(sa.text("SELECT games FROM ratings WHERE user_id = :u"), {"u": ids[name]}).scalar()
            assert games == 3, name
            history = db.execute(sa.text(
                "SELECT mu_before, sigma_before, mu, sigma FROM rating_history WHERE user_id = :u ORDER BY id"
            ), {"u": ids[name]}).all()
            assert len(history) == 3
            for before, after in itertools.pairwise(history):  # each update starts from the last one's result
                assert tuple(after[:2]) == pytest.approx(tuple(before[2:]))
            final = db.execute(sa.text("SELECT mu, sigma FROM ratings WHERE user_id = :u"), {"u": ids[name]}).one()
            assert tuple(final) == pytest.approx(tuple(history[2][2:]))
    engine.dispose()
