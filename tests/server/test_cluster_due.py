"""Deadlines kept by the cluster, not by a process (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``):
a turn-based table's deadline is in the database (``tables.due_at``), and every live process takes
the due tables whose owner died, so a game moves on time whichever process lives.

As in ``test_cluster.py``, each "process" is a registry with its own store, lease and NOTIFY
channel in one event loop. The owner's death is its lease running out with its heartbeat stopped;
the hour per move passes on the surviving process's injected clock, never on the wall clock."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.cluster.peers import join_cluster
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
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


@pytest.mark.asyncio
async def test_an_idle_turn_based_table_leaves_memory_and_is_still_played_on_time(tmp_path: Path) -> None:
    """A turn-based table nobody watches leaves the process's memory after ``idle_evict`` (its
    deadline stays in the database), and is loaded again and played when its time runs out. A
    process on its own (no database keeps its deadline) keeps such a table in memory."""
    url = fresh_postgres_url()
    clock = ManualClock(wall_start=time.time())
    settings = Settings(database_url=url, bot_delay=0.0, fallback_bot="random", lease_seconds=30.0, idle_evict=600.0)
    a = Rooms(rooms_store(url), settings, clock)
    await join_cluster(a)
    alone_store = Store(f"sqlite:///{tmp_path / 'alone.db'}")
    alone_store.migrate()
    alone = Rooms(alone_store, replace(settings, database_url=alone_store.url), clock)
    rooms = []
    for registry in (a, alone):
        room, _ = await registry.create(TableOptions(Rules(players=3, deals=1), timer=TURN_BASED), "Host",
                                        [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        await room.join("Friend")
        await room.scheduler.settle()  # the bot has played; the two people have an hour each
        rooms.append(room)
    room, lonely = rooms
    code, deadline = room.code, room.scheduler.deadline_at()
    game = room.table.game
    assert game is not None and deadline is not None

    clock.advance(settings.idle_evict + 1)  # nobody came for ten minutes
    # the heartbeat sweeps the idle table out (no request needed); the process on its own keeps its own
    def stored() -> tuple[float, str | None]:
        with a.store.engine.connect() as connection:
            due, owner = connection.execute(sa.text("SELECT due_at, owner FROM tables")).one()
        return due, owner

    await until(lambda: a.local(code) is None and stored()[1] is None, "A lets the idle table go", tries=3000)
    assert stored()[0] == pytest.approx(deadline, abs=0.01)  # given up, its deadline kept
    await alone.evict_idle()
    assert alone.local(lonely.code) is lonely

    clock.advance(TURN_BASED - settings.idle_evict)  # the hour has run out
    await until(lambda: a.local(code) is not None, "the due table is loaded again", tries=3000)
    again = a.local(code)
    assert again is not None and again.table.game is not None
    await again.scheduler.settle()
    # the overdue decision was answered at once: the game waits on a new one, with a fresh hour
    assert again.table.game.turn > game.turn or again.table.game.deal_index > game.deal_index or (
        again.table.game.phase is not game.phase)
    assert again.scheduler.deadline == clock.now() + TURN_BASED
    await close_all(a)
    await alone.close()
    alone_store.close()
