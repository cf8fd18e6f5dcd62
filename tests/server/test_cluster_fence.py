"""An owner fences itself (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``): when its database stops
answering (its backends stopped with SIGSTOP, as a network partition leaves them), the owner drops
its tables and closes their sockets with the reconnect code before its lease can run out in the
database, so the players follow the table to its new owner and no stand-in plays for them.

As in ``test_cluster.py``, each "process" is a registry in one event loop with connections of its
own. The lease running out is the owner's injected clock moving past it while a renewal hangs; the
test waits only for things to happen (bounded), never for a time to pass."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import MOVED_CLOSE_CODE

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, finish_for, process, until
from .test_cluster_faults import close_all

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


class Player(Socket):
    """A socket at the owner: told to reconnect (``drop``) as a real one is, and checking then that
    the owner's lease still runs in the database (nobody could have taken the table over yet)."""

    def __init__(self, lease_runs: Any = None) -> None:
        super().__init__()
        self.lease_runs = lease_runs
        self.lease_ran_at_close: bool | None = None

    def drop(self) -> None:
        self.lease_ran_at_close = self.lease_runs()
        self.close(MOVED_CLOSE_CODE, "the table moved: reconnect")


def stand_ins(*sockets: Socket) -> list[dict[str, Any]]:
    return [m["played_for"] for s in sockets for m in s.messages if m.get("played_for")]


@pytest.mark.asyncio
async def test_an_owner_whose_database_hangs_drops_its_tables_and_its_players_follow_them() -> None:
    url = fresh_postgres_url()
    a = await process(url + "?application_name=owner-a")
    b = await process(url)
    assert a.cluster is not None and b.cluster is not None
    b.cluster.heartbeat = 0.1  # B notices the change of owner quickly
    room, host_token = await a.create(TableOptions(Rules(players=3, target=None, deals=1)), "Host",
                                      [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    code = room.code
    _, friend_token, _ = await room.join("Friend")

    def lease_runs() -> bool:  # A's lease row, read with B's store (A's connections hang)
        assert a.cluster is not None
        with b.store.engine.connect() as connection:
            return bool(connection.execute(sa.text("SELECT lease_until > now() FROM server_processes WHERE id = :a"),
                                           {"a": a.cluster.me}).scalar())

    host = Player(lease_runs)
    host.seat = 0
    await room.connect(host)
    friend = Socket()  # the friend's socket is on B, forwarded to A
    link = b.cluster.link(code, a.cluster.me, friend, friend_token)
    await until(lambda: any(m.get("type") == "state" for m in friend.messages), "the friend's state via A")
    assert room.table.game is not None
    decision = room.table.game.decision_for(1)
    assert decision is not None
    kept = decision.options[0]
    b.cluster.forward(link, f'{{"type": "play", "card": {kept}}}')
    await until(lambda: room.table.game is not None and room.table.game.chosen[1] is not None, "the friend's card")

    with b.store.engine.connect() as connection:
        stopped = [pid for (pid,) in connection.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = 'owner-a'"))]
    assert len(stopped) >= 3  # the cluster's three, and the store's
    try:
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        # A's next renewal hangs; by A's own clock its lease is about to run out
        await until(lambda: a.cluster is not None and a.cluster._renewing_since is not None, "A renewing",
                    tries=500)
        later = time.monotonic() + a.cluster.lease
        a.cluster.clock = lambda: later
        await until(lambda: host.closed == MOVED_CLOSE_CODE, "A closed its socket with the reconnect code", tries=500)
        assert host.lease_ran_at_close  # before anyone could take the table over
        assert a.local(code) is None
        # the friend's socket on B follows the table to B; the host's page reconnects to B
        await until(lambda: link.room is not None, "B took the table over", tries=3000)
        new = link.room
        assert new is not None and new.table.game is not None
        again = Socket()
        await new.admit(again, host_token)
        assert again.seat == 0 and again.closed is None and friend.closed is None
        assert new.table.game.chosen[1] == kept  # nothing lost
        await finish_for(new, (0, 1))
        assert new.table.game.is_over and new.table.last_game_id is not None
        assert stand_ins(host, friend, again) == []  # nobody played for the players who stayed
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    await close_all(a, b)
