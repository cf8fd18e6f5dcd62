"""A hung database cannot stall a process's store (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``):
the store's connections stop answering (their PostgreSQL backends stopped with SIGSTOP, as a
network partition leaves them) while a player's move is being saved. The save is given up within
the store's bound, its connection cut off; the table is dropped as one taken over (its socket told
to reconnect); the queue and the event loop go on meanwhile; the table is loaded again from the
database and the game finishes, and nothing the hung write carried lands once the backends wake.

As in ``test_cluster.py``, the "process" is a registry in one event loop with connections of its
own; the store's bound is shortened for the test, which waits only for things to happen (bounded)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.tables.table_setup import TableMovedError, TableOptions
from sixnimmt.server.wire import MOVED_CLOSE_CODE

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, finish_for, process, until
from .test_cluster_faults import close_all

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


class Player(Socket):
    """A socket at the table, told to reconnect (``drop``) as a real one is."""

    def drop(self) -> None:
        self.close(MOVED_CLOSE_CODE, "the table moved: reconnect")


def backends(engine: sa.Engine, name: str) -> list[int]:
    with engine.connect() as connection:
        return [pid for (pid,) in connection.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"), {"name": name})]


@pytest.mark.asyncio
async def test_a_save_the_database_never_answers_is_given_up_and_nothing_waits_for_it() -> None:
    url = fresh_postgres_url()
    a = await process(url + "?application_name=hung-store")
    assert a.cluster is not None
    a.db.answer_timeout = 1.0
    room, host_token = await a.create(TableOptions(Rules(players=3, target=None, deals=1)), "Host",
                                      [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    code = room.code
    await room.join("Friend")
    host = Player()
    await room.connect(host)
    game = room.table.game
    assert game is not None
    card = game.decision_for(0).options[0]  # type: ignore[union-attr]
    watcher = sa.create_engine(url)
    cluster_pids = {conn.info.backend_pid for conn in (a.cluster._listen, a.cluster._query, a.cluster._beat_conn)
                    if conn is not None}
    stopped = [pid for pid in backends(watcher, "hung-store") if pid not in cluster_pids]
    assert stopped  # the store's pooled connection(s): the cluster's own keep answering
    try:
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        beats: list[None] = []

        async def loop_alive() -> None:  # the event loop goes on while the save hangs
            while True:
                beats.append(None)
                await asyncio.sleep(0.01)

        ticking = asyncio.get_running_loop().create_task(loop_alive())
        with pytest.raises(TableMovedError):
            async with room.lock:
                await asyncio.wait_for(room.act(0, card), 60)  # (generous: it is refused within the bound)
        ticking.cancel()
        assert len(beats) > 10
        await until(lambda: host.closed == MOVED_CLOSE_CODE, "the host is told to reconnect")
        assert a.local(code) is None
        # the queue goes on, the database still hung: a fresh connection answers the next call
        assert await asyncio.wait_for(a.db.run(a.store.code_taken, code), 60)
        # the table is loaded again (its last saved state: the move was refused), and played on
        again = await a.get(code)
        assert again is not room and again.table.game is not None and again.table.game.chosen[0] is None
        back = Player()
        await again.admit(back, host_token)
        assert back.seat == 0
        await finish_for(again, (0, 1))
        assert again.table.game.is_over and again.table.last_game_id is not None
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    # the woken backends find their client gone: the hung write never lands over the finished game
    for _ in range(500):
        if not set(stopped) & set(backends(watcher, "hung-store")):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the hung backends never went away")
    with watcher.connect() as connection:
        status, games = connection.execute(sa.text(
            "SELECT status, (SELECT count(*) FROM games) FROM tables WHERE code = :code"), {"code": code}).one()
    assert (status, games) == ("finished", 1)
    watcher.dispose()
    await close_all(a)
