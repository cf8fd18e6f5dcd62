"""A game of bots whose driving process dies is taken over by a live one (docs/bot-api.md, "Rules
for bots"), skipped without ``SIXNIMMT_TEST_POSTGRES_URL``: a table with no person at it is due at
once (``tables.due_at``), so once its owner's lease runs out another process's heartbeat takes it,
with nobody asking for it, and its bots and the stand-in of its bot program play it to the end.

As in ``test_cluster_due.py``, each "process" is a registry with its own store, lease and NOTIFY
channel in one event loop; the owner's death is its lease running out with its heartbeat stopped,
and the grace passes on the surviving process's injected clock, never on the wall clock."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.cluster.peers import join_cluster
from sixnimmt.server.config import Settings
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import process, rooms_store, until
from .test_cluster_faults import close_all, expire_lease

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)

GRACE = 60.0
#: The surviving process's clock moves this much per step: a few seconds per turn at most.
STEP = 2.0


@pytest.mark.asyncio
async def test_a_table_of_a_program_and_server_bots_whose_process_dies_is_taken_over_and_ends() -> None:
    url = fresh_postgres_url()
    a = await process(url)
    room, _ = await a.create(TableOptions(Rules(players=3, deals=1), fill_bot="random"), "Prog",
                             [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}], program=True)
    code = room.code  # (all seats taken: its game has started)
    with a.store.engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT status, due_at FROM tables")).fetchall()
    assert stored == [("playing", 0.0)]  # due at once: no person to wait for
    expire_lease(a)  # A dies with the table in memory; its program is gone too, nobody asks for it

    clock = ManualClock(wall_start=time.time())
    b = Rooms(rooms_store(url), Settings(database_url=url, bot_delay=0.0, fallback_bot="random", lease_seconds=30.0,
                                         program_grace=GRACE), clock)
    await join_cluster(b)
    assert b.cluster is not None
    # B's own heartbeat finds the table (no socket, no request)
    await until(lambda: b.local(code) is not None, "B takes the table of bots", tries=3000)
    taken = b.local(code)
    assert taken is not None
    for _ in range(int((GRACE + 40 * STEP) / STEP)):  # the grace, then a few seconds a turn at most
        if taken.table.status == "finished":
            break
        clock.advance(STEP)
        await taken.scheduler.settle()
    assert taken.table.status == "finished"
    with b.store.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT status, due_at, owner FROM tables")).fetchall()
    assert rows == [("finished", None, b.cluster.me)]
    await close_all(b, a)
