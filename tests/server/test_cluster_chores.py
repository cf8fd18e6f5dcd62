"""The heartbeat's work that may wait runs beside it (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``):
following a forwarded table to its new owner loads the table from the store, and a store that does
not answer (its PostgreSQL backends stopped with SIGSTOP, as a network partition leaves them) must
not hold the lease's renewal up; a run of such work that fails is logged and the next one runs.

As in ``test_cluster.py``, each "process" is a registry in one event loop with connections of its
own; the tests wait only for things to happen (bounded), never for a time to pass."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.table_setup import TableOptions

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, process, until
from .test_cluster_faults import backend_pids, close_all, expire_lease
from .test_cluster_store_hang import backends

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)

#: A bound on waits that succeed at once, far above any heartbeat (and below the store's own
#: bound, made longer here, that ends a hung call).
BOUND = 20.0


@pytest.mark.asyncio
async def test_following_an_owner_through_a_hung_store_never_holds_the_heartbeat_up() -> None:
    """B forwards a socket to A's table; A stops (its lease runs out) and B's heartbeat, following
    the table, takes it over and loads it from a store that does not answer. The heartbeat goes on
    renewing B's lease meanwhile, and does not start a second follow while the first waits; once the
    store answers again the socket is served by B (before, the heartbeat waited for the load)."""
    url = fresh_postgres_url()
    a, b = await process(url), await process(url + "?application_name=follower-b")
    assert a.cluster is not None and b.cluster is not None
    b.db.answer_timeout = 10 * BOUND  # the store's own bound never ends this hang
    room, _ = await a.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}] * 2)
    code = room.code
    _, token, _ = await room.join("Friend")
    friend = Socket()
    link = b.cluster.link(code, a.cluster.me, friend, token)
    await until(lambda: len(a.cluster.remote) == 1 and bool(friend.messages), "the friend is at A")
    located: list[str] = []
    locate = b.locate

    async def counted(wanted: str) -> Room | str:
        located.append(wanted)
        return await locate(wanted)

    b.locate = counted  # type: ignore[method-assign]
    expire_lease(a)
    watcher = sa.create_engine(url)
    stopped = [pid for pid in backends(watcher, "follower-b") if pid not in backend_pids(b)]
    assert stopped  # B's store's pooled connection(s): its cluster's own keep answering
    try:
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        renewed = b.cluster._lease_until
        await asyncio.wait_for(b.cluster._tick(), BOUND)
        await until(lambda: located == [code], "B follows the table")
        assert b.cluster.chores.under_way("following the owners of forwarded tables")
        assert b.local(code) is None  # still loading, from the store that does not answer
        await asyncio.wait_for(b.cluster._tick(), BOUND)  # the heartbeat goes on meanwhile
        assert b.cluster._lease_until > renewed and b.cluster.holds_lease()
        assert located == [code]  # and does not follow the same table twice at once
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    await until(lambda: b.local(code) is not None and link.room is not None, "B drives the table now")
    await until(lambda: friend.messages[-1].get("type") == "state", "B serves the friend")
    assert friend.closed is None
    watcher.dispose()
    await close_all(a, b)


@pytest.mark.asyncio
async def test_a_failing_round_of_balancing_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    """A round of balancing that fails is logged with the process and what failed, and the next
    heartbeat balances again (before, its exception was left in a task nobody looked at)."""
    a = await process(fresh_postgres_url())
    assert a.cluster is not None
    error = RuntimeError("a table's lock was lost")
    rounds: list[int] = []

    async def balance() -> list[str]:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise error
        return []

    a.cluster.balancer.balance = balance  # type: ignore[method-assign]
    a.cluster.balance_every = 1
    with caplog.at_level(logging.ERROR, logger="sixnimmt.server"):
        await a.cluster._tick()
        await a.cluster.chores.settle()
        failed = [r for r in caplog.records if r.exc_info is not None and r.exc_info[1] is error]
        assert len(failed) == 1
        assert "balancing" in failed[0].getMessage() and a.cluster.me in failed[0].getMessage()
        await a.cluster._tick()
        await a.cluster.chores.settle()
    assert len(rounds) >= 2
    assert len([r for r in caplog.records if r.exc_info is not None and r.exc_info[1] is error]) == 1
    await close_all(a)
