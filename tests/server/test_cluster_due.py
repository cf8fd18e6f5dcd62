"""Deadlines kept by the cluster, not by a process (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``):
a turn-based table's deadline is in the database (``tables.due_at``), and every live process takes
the due tables whose owner died, so a game moves on time whichever process lives.

As in ``test_cluster.py``, each "process" is a registry with its own store, lease and NOTIFY
channel in one event loop. The owner's death is its lease running out with its heartbeat stopped;
the hour per move passes on the surviving process's injected clock, never on the wall clock."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.cluster.peers import join_cluster
from sixnimmt.server.config import Settings
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TURN_BASED, TableOptions

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import process, rooms_store, until
from .test_cluster_faults import close_all, expire_lease

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


@pytest.mark.asyncio
async def test_an_owner_killed_with_three_turn_based_tables_nobody_watches_another_process_plays_on_time() -> None:
    url = fresh_postgres_url()
    a = await process(url)
    codes = []
    for _ in range(3):
        room, _ = await a.create(TableOptions(Rules(players=3, deals=1), timer=TURN_BASED), "Host",
                                 [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        await room.join("Friend")
        assert room.table.game is not None
        await room.scheduler.settle()  # the bot has played; the two people have an hour each
        codes.append(room.code)
    deadlines = {code: a.local(code).table.scheduler.deadline_at() for code in codes}  # type: ignore[union-attr]
    with a.store.engine.connect() as connection:
        stored = dict(connection.execute(sa.text("SELECT code, due_at FROM tables")).fetchall())
    assert stored == pytest.approx(deadlines, abs=0.01)  # the deadline is the cluster's, in the database
    expire_lease(a)  # A dies with its tables in memory; nobody is at any of them

    # B lives; on its clock the hour has just run out (a second ago)
    clock = ManualClock(wall_start=time.time() + TURN_BASED + 1)
    b = Rooms(rooms_store(url), Settings(database_url=url, bot_delay=0.0, fallback_bot="random", lease_seconds=30.0),
              clock)
    await join_cluster(b)
    assert b.cluster is not None
    # B's own heartbeat finds the due tables (no socket, no request: nobody asks for them)
    await until(lambda: all(b.local(code) is not None for code in codes), "B takes the due tables", tries=3000)
    for code in codes:
        room = b.local(code)
        assert room is not None and room.table.game is not None
        await room.scheduler.settle()
        # the overdue decision was answered at once, on B's clock: the game waits on a new one, with an hour
        assert room.table.game.is_over or room.scheduler.deadline == clock.now() + TURN_BASED
    # each next deadline is an hour later on B's clock, kept by B (and in the database)
    for _ in range(200):
        rooms = [b.local(code) for code in codes]
        if all(r is not None and r.table.status == "finished" for r in rooms):
            break
        clock.advance(TURN_BASED)
        for r in rooms:
            assert r is not None
            await r.scheduler.settle()
            # every running game moved on at its deadline: a new decision, with a fresh hour
            assert r.table.status == "finished" or r.scheduler.deadline == clock.now() + TURN_BASED
    with b.store.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT status, due_at, owner FROM tables")).fetchall()
        games = connection.execute(sa.text("SELECT count(*) FROM games")).scalar()
    assert [(status, due) for status, due, _ in rows] == [("finished", None)] * 3
    assert {owner for _, _, owner in rows} == {b.cluster.me} and games == 3
    await close_all(b, a)
