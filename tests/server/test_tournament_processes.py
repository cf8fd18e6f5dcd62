"""A tournament on two real ``sixnimmt serve`` processes over one fresh PostgreSQL database
(skipped without ``SIXNIMMT_TEST_POSTGRES_URL``): the process that opened a round's tables is
killed with SIGKILL as that round begins, and the other one takes the tables over, finishes the
round and the tournament, with one table and one game per planned table: nothing lost, nothing
played twice. The kill often lands between a table's row and its game's start (the more so on a
loaded machine), which leaves a table "waiting" for the survivor to start
(``test_tournament_cluster.py`` pins that moment down in one process).

Every wait is a bounded number of polls; nothing asserts on how long anything took."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster_processes import start_servers

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]


def test_the_process_of_a_round_killed_as_it_begins_the_other_finishes_the_tournament(tmp_path: Path) -> None:
    url = fresh_postgres_url()
    servers = start_servers(url, 2, tmp_path)
    engine = sa.create_engine(url)
    try:
        (_, address), _ = servers
        with httpx.Client(base_url=f"http://{address}", headers={"Origin": f"http://{address}"}, timeout=30) as web:
            assert web.post("/api/account/signup", json={"name": "director_test", "password": "a long enough phrase"}
                            ).status_code == 201
            made = web.post("/api/tournaments", json={
                "name": "Kill cup", "players": 4, "rounds": 3, "deals": 1, "starts_in": 0, "enter": False,
                "bots": ["easy"] * 10})
            assert made.status_code == 201, made.text
            tid = made.json()["id"]
            page = web.get(f"/api/tournaments/{tid}").json()
            for _ in range(1200):  # round 2 begins (its tables planned and being opened)
                page = web.get(f"/api/tournaments/{tid}").json()
                if page["round"] >= 2:
                    break
                time.sleep(0.05)
            assert page["round"] == 2, page
            codes = [t["code"] for t in page["rounds_played"][1]["tables"]]
            owner = None
            for _ in range(600):  # the process that opened them (a table, once opened, names its owner)
                with engine.connect() as connection:
                    owners = connection.execute(sa.text(
                        "SELECT p.pid FROM tables t JOIN server_processes p ON p.id = t.owner "
                        "WHERE t.code = ANY(:codes)"), {"codes": codes}).fetchall()
                if owners:
                    owner = owners[0][0]
                    break
                time.sleep(0.02)
            assert owner is not None
            victim = next(process for process, _ in servers if process.pid == owner)
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=20)
            survivor = next(a for process, a in servers if process is not victim)
        with httpx.Client(base_url=f"http://{survivor}", timeout=30) as web:
            for _ in range(1800):
                page = web.get(f"/api/tournaments/{tid}").json()
                if page["status"] == "finished":
                    break
                time.sleep(0.1)
            assert page["status"] == "finished", page
        tables = [t for r in page["rounds_played"] for t in r["tables"]]
        assert [len(r["tables"]) for r in page["rounds_played"]] == [3, 3, 3]
        assert all(t["totals"] is not None and t["game_id"] is not None for t in tables)
        assert all(s["games"] == 3 for s in page["standings"]) and len(page["standings"]) == 10
        with engine.connect() as connection:
            stored = connection.execute(sa.text("SELECT code, status FROM tables")).fetchall()
            games = connection.execute(sa.text("SELECT table_code FROM games")).fetchall()
        planned = sorted(t["code"] for t in tables)
        assert sorted(code for code, _ in stored) == planned and {s for _, s in stored} == {"finished"}
        assert sorted(code for (code,) in games) == planned
    finally:
        engine.dispose()
        for process, _ in servers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, _ in servers:
            try:
                process.wait(timeout=20)
            except Exception:
                process.kill()
