"""Two processes on one PostgreSQL database finish two rated games at the same moment, with a player
in common: both rating updates are applied, each exactly once, one after the other (the second
starts from the first's result: no update is lost to the race)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from sixnimmt.server.accounts.account_rows import RatedGameRow, RatingHistoryRow, RatingRow
from sixnimmt.server.accounts.ratings import rate
from sixnimmt.server.accounts.users import Accounts
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import GameRow, TableData

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_ratings import finished_game

pytestmark = pytest.mark.postgres

WORKER = """
import sys, time
from pathlib import Path
from sixnimmt.core import Game, Rules
from sixnimmt.server.accounts.ratings import participants, record_game
from sixnimmt.server.store.database import Store
url, code, seed, go, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])
store = Store(url)
game = Game(Rules(players=3, deals=1), ["P0", "P1", "P2"], seed=seed)
while not game.is_over:
    d = game.pending()[0]
    game.act(d.seat, d.options[0])
data = store.load_table(code)
def after(session, row):
    record_game(session, row, participants(data, {}))
    time.sleep(1.0)  # hold the accounts' locks a while: the other process's update must wait
ready.write_text("ready")
while not go.exists():
    time.sleep(0.005)
store.finish_game(data, game.record(), list(game.winners), None, after)
print("done", flush=True)
"""


def test_two_processes_rate_two_games_with_a_common_player_exactly_once(tmp_path: Path) -> None:
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)")
    url = fresh_postgres_url()
    store = Store(url)
    store.migrate()
    accounts = Accounts(store)
    common, a, b, c, d = (accounts.create(name, "x").id for name in ("common", "aa1", "bb1", "cc1", "dd1"))
    games = {"AAAAA": (finished_game(3, 11), [common, a, b]), "BBBBB": (finished_game(3, 12), [c, common, d])}
    for code, (game, players) in games.items():
        store.create_table(TableData(code, "finished", {"rated": True, "rules": game.rules.to_dict()},
                                     [{"kind": "human", "name": f"P{i}", "account": p} for i, p in enumerate(players)],
                                     1, None, None))
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    workers = []
    for code, seed in (("AAAAA", 11), ("BBBBB", 12)):
        ready = tmp_path / f"ready-{code}"
        workers.append((subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(WORKER), url, code, str(seed), str(go), str(ready)],
            env=env, stdout=subprocess.PIPE, text=True), ready))
    for _ in range(600):
        if all(ready.exists() for _, ready in workers):
            break
        time.sleep(0.05)
    go.write_text("go")
    for process, _ in workers:
        out, _ = process.communicate(timeout=60)
        assert process.returncode == 0 and "done" in out

    with Session(store.engine) as session:
        assert len(list(session.scalars(select(GameRow)))) == 2
        assert len(list(session.scalars(select(RatedGameRow)))) == 2
        ratings = {r.user_id: r for r in session.scalars(select(RatingRow))}
        history = list(session.scalars(select(RatingHistoryRow).where(RatingHistoryRow.user_id == common)
                                       .order_by(RatingHistoryRow.id)))
        games_by_id = {g.id: g for g in session.scalars(select(GameRow))}
    assert ratings[common].games == 2 and all(ratings[p].games == 1 for p in (a, b, c, d))
    first, second = history
    # the second update started from the first one's result (a lost update would start both at 25)
    assert (second.mu_before, second.sigma_before) == pytest.approx((first.mu, first.sigma))
    assert (ratings[common].mu, ratings[common].sigma) == pytest.approx((second.mu, second.sigma))
    # and each is OpenSkill's answer for its game, in the order they were applied
    mu0, sigma0 = 25.0, 25 / 3
    order = [games_by_id[first.game_id], games_by_id[second.game_id]]
    mine = (mu0, sigma0)
    for game in order:
        players = games[game.table_code][1]
        before = [mine if p == common else (mu0, sigma0) for p in players]
        after = rate(before, list(game.totals))
        mine = after[players.index(common)]
    assert (ratings[common].mu, ratings[common].sigma) == pytest.approx(mine)
    store.close()


def test_sessions_and_play_now_across_two_processes() -> None:
    """Two apps on one PostgreSQL database, each a member of the cluster as a worker is: a session
    made on one is valid on the other, and Play now on the second finds the table the first drives."""
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)")
    from .conftest import make_client
    from .test_accounts import sign_up, signed

    url = fresh_postgres_url()
    with make_client(url, lease_seconds=30.0, play_now_wait=600.0) as one, \
            make_client(url, lease_seconds=30.0, play_now_wait=600.0) as two:
        signed(one), signed(two)
        sign_up(one, "pg_one")
        token = str(one.cookies.get("sixnimmt_session"))
        two.cookies.set("sixnimmt_session", token)
        assert two.get("/api/account").json()["user"]["name"] == "pg_one"
        two.cookies.clear()
        sign_up(two, "pg_two")
        opened = one.post("/api/play-now", json={"mode": "rated", "players": 2})
        assert opened.status_code == 200 and opened.json()["opened"] is True, opened.text
        code = opened.json()["code"]
        assert one.app.state.rooms.local(code) is not None  # type: ignore[attr-defined]
        assert two.app.state.rooms.local(code) is None  # type: ignore[attr-defined]
        joined = two.post("/api/play-now", json={"mode": "rated", "players": 2})
        assert joined.status_code == 200, joined.text
        assert joined.json()["code"] == code and joined.json()["seat"] == 1
        summary = two.get(f"/api/tables/{code}").json()
        assert summary["status"] == "playing" and [s["name"] for s in summary["seats"]] == ["pg_one", "pg_two"]
        # signing out on one process ends the session on the other
        one.post("/api/account/signout")
        two.cookies.clear()
        two.cookies.set("sixnimmt_session", token)
        assert two.get("/api/account").json() == {"user": None}
