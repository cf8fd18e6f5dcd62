"""Several processes on one PostgreSQL database (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``).

Here, in one event loop, each "process" is a registry with its own store, database sessions, lease
and NOTIFY channel, exactly as a real process has: the no-leak check across processes, and
processes racing to own a table. ``test_cluster_processes.py`` runs real ``serve`` processes."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.cluster.forwarding import RemoteConnection
from sixnimmt.server.cluster.peers import join_cluster
from sixnimmt.server.config import Settings
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Play

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_no_leaks import CheckingConnection, _play_to_end

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


async def process(url: str) -> Rooms:
    """One server process's registry, in the cluster."""
    # a long lease: a loaded test machine must not hand tables over here (failover is tested by
    # making a lease run out on purpose)
    settings = Settings(database_url=url, bot_delay=0.0, fallback_bot="random", lease_seconds=30.0)
    rooms = Rooms(rooms_store(url), settings)
    await join_cluster(rooms)
    return rooms


def rooms_store(url: str) -> Any:
    from sixnimmt.server.store.database import Store

    store = Store(url)
    store.migrate()
    return store


class Socket:
    """A socket of the forwarding process: what reaches it, and whether it was closed."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []
        self.closed: int | None = None

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(json.loads(json.dumps(message)))

    def close(self, code: int, _reason: str) -> None:
        self.closed = code


async def until(condition: Callable[[], bool], what: str, tries: int = 1000) -> None:
    """Wait for ``condition`` (messages travel through PostgreSQL), a bounded number of times."""
    for _ in range(tries):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def finish_for(room: Room, seats: tuple[int, ...]) -> None:
    """Play ``room``'s game to its end, answering for the people in ``seats`` (its bots play
    themselves), a bounded number of rounds."""
    for _ in range(2000):
        game = room.table.game
        assert game is not None
        if game.is_over:
            return
        for pending in game.pending():
            if pending.seat in seats:
                async with room.lock:
                    await room.act(pending.seat, pending.options[0])
        await room.scheduler.settle()
        await asyncio.sleep(0)


@pytest.mark.asyncio
@pytest.mark.parametrize("variant,players", [("standard", 4), ("nifty", 3), ("hand", 3)])
async def test_no_leak_across_processes(variant: str, players: int) -> None:
    """Two players and a spectator whose sockets are on process B, at a table process A drives: A
    checks every message for hidden cards when it is pushed (as the one-process no-leak test does),
    and each socket on B receives exactly the messages A addressed to it, in order: a seat's view
    reaches that seat's socket and no other."""

    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    rules = Rules(players=players, variant=variant, target=None, deals=2)
    room, host_token = await a.create(TableOptions(rules), "Host",
                                      [{"kind": "open"}] + [{"kind": "bot", "bot": "random"}] * (players - 2))
    _, friend_token, _ = await room.join("Friend")
    assert isinstance(await b.locate(room.code), str)  # B forwards to A
    sockets = {0: Socket(), 1: Socket(), None: Socket()}
    for seat, token in ((0, host_token), (1, friend_token), (None, None)):
        b.cluster.link(room.code, a.cluster.me, sockets[seat], token)
    await until(lambda: len(a.cluster.remote) == 3 and all(s.messages for s in sockets.values()), "all connected")
    remotes = {conn.seat: conn for conn in a.cluster.remote.values()}
    checkers: dict[int | None, CheckingConnection] = {}
    for seat, remote in remotes.items():
        checkers[seat] = _checked(room, remote)
    changes = await _play_to_end(room, {0: remotes[0], 1: remotes[1]}, random.Random(5))
    assert changes > 0 and room.table.game is not None and room.table.game.is_over

    def delivered() -> bool:
        # A message A pushed before its checker was in place (a bot's first card) may still be
        # on its way then, so what B's socket got must END with exactly the checked messages,
        # in order, and nothing after them.
        def ends_with_checked(seat: int | None) -> bool:
            got, checked = sockets[seat].messages, checkers[seat].messages
            return len(got) >= len(checked) and got[len(got) - len(checked):] == checked

        return all(ends_with_checked(seat) for seat in sockets)

    await until(delivered, "every message delivered to its own socket")
    for seat, socket in sockets.items():
        views = [m["view"] for m in socket.messages if m.get("view") is not None]
        assert views and all(view["seat"] == seat for view in views)
        assert socket.messages[-1]["view"]["phase"] == "over"
    assert len(checkers[0].messages) > 20
    for rooms in (a, b):
        await rooms.close()
        rooms.store.close()


def _checked(room: Room, remote: RemoteConnection) -> CheckingConnection:
    """Check (and keep) every message the owner pushes to ``remote`` before it travels."""
    checker = CheckingConnection(room, remote.seat)
    send = remote.push

    def push(message: dict[str, Any]) -> None:
        checker.push(message)
        send(message)

    remote.push = push  # type: ignore[method-assign]
    return checker


@pytest.mark.asyncio
async def test_processes_racing_to_own_a_table_one_wins() -> None:
    """Tables nobody drives (released, or whose owner's lease ran out) are claimed by several
    processes at the same moment: exactly one wins each; the others forward to it; the old owner's
    next write is refused (a newer epoch) and it drops its copy."""

    url = fresh_postgres_url()
    a, b, c = await process(url), await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None and c.cluster is not None
    rules = Rules(players=3)
    # released tables: their creator stopped cleanly
    creator = await process(url)
    codes = [(await creator.create(TableOptions(rules), "Host", [{"kind": "open"}] * 2))[0].code
             for _ in range(4)]
    await creator.close()
    creator.store.close()
    for code in codes:
        results = await asyncio.gather(a.locate(code), b.locate(code), c.locate(code))
        winners = [(rooms, r) for rooms, r in zip((a, b, c), results, strict=True) if isinstance(r, Room)]
        assert len(winners) == 1, results
        me = winners[0][0].cluster.me  # type: ignore[union-attr]
        assert [r for r in results if not isinstance(r, Room)] == [me, me]
    # a dead owner: A's lease runs out while it still holds a game in memory
    room, _ = await a.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot", "bot": "random"}])
    await room.scheduler.settle()
    assert room.table.epoch == 1

    async def hung() -> None:  # its heartbeat does nothing, as in a process that hangs (stopping
        pass  # the task would count as a lost database connection, which drops every table)

    a.cluster._tick = hung  # type: ignore[method-assign]
    with a.store.engine.begin() as connection:
        connection.execute(sa.text("UPDATE server_processes SET lease_until = now() - interval '1 second' "
                                   "WHERE id = :me"), {"me": a.cluster.me})
    results = await asyncio.gather(b.locate(room.code), c.locate(room.code))
    winners = [r for r in results if isinstance(r, Room)]
    assert len(winners) == 1 and winners[0].table.epoch == 2
    # the old owner does not know yet: its next move is refused by the store, and it lets go
    host = Socket()
    host.seat = 0
    await room.connect(host)
    assert room.table.game is not None
    decision = room.table.game.decision_for(0)
    assert decision is not None
    await room.handle(host, Play(type="play", card=decision.options[0]))
    assert any(m.get("code") == "table-unavailable" for m in host.messages)
    await until(lambda: a.local(room.code) is None, "the old owner dropped the table")
    assert host.closed is None  # a test socket: drop() is what a real one gets
    new = winners[0]
    async with new.lock:
        assert new.table.game is not None and new.table.game.chosen[0] is None  # the refused move is not there
    for rooms in (a, b, c):
        await rooms.close()
        rooms.store.close()
