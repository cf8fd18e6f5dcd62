"""Several server processes on one PostgreSQL database (``sixnimmt serve --workers N``, or several
hosts sharing one URL). Any process accepts any request; each table is driven by one process, its
*owner*, and the others forward their sockets' frames to it and its messages back
(:mod:`.forwarding`, over the bus of :mod:`.bus`). This module is the process's part: its
connections to the database, its lease and the heartbeat that renews it.

- **Losing the database**: every connection of the cluster is watched; when one fails (a database
  restart, a network cut) the process treats its leases as lost at once: it drops every table it
  drives (their sockets are closed with 1012 and reconnect, through the proxy, to a process that
  reaches the database), forgets the sockets it forwards for others, and says so on ``/healthz``
  and ``/readyz``. It then connects again with backoff (:data:`RECONNECT_FIRST` doubling to
  :data:`RECONNECT_MAX`), LISTENs again, renews its lease, gives up the tables it dropped (so that
  any process may take them at once) and starts reading messages again.
- **Fencing itself**: every statement has a timeout, and a process whose renewal hangs drops every
  table (sockets closed with 1012) half a heartbeat before its lease could run out in the database
  (:meth:`Cluster._fence`; the timing argument is in docs/scaling.md).
- **Ownership** (a lease with a fencing epoch per table), **deadlines** and **failover** are
  described where they are done: :mod:`.ownership` and :mod:`.forwarding`.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ..calls import ProcessCall, RemoteCall
from ..limits import BUDGET_SHARE
from ..store import leases
from ..store.leases import Statement
from .balancing import Balancer
from .bus import Bus
from .chores import Chores
from .forwarding import Client, Forwarding, Link, RemoteConnection, unavailable
from .mail import Mail
from .ownership import Ownership

if TYPE_CHECKING:
    import psycopg

    from ..tables.room import Room
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")
T = TypeVar("T")

#: Reconnecting after the database was lost: the first wait, doubled after each failed try up to
#: the last one (seconds, each with up to a quarter more at random, so that processes spread out).
RECONNECT_FIRST = 0.1
RECONNECT_MAX = 2.0
#: Seconds a connection attempt may take before it counts as failed.
CONNECT_TIMEOUT = 5
#: Milliseconds a statement of the cluster's waits for a row lock, and runs at all, before the
#: database ends it (it is tried again; the heartbeat and the messages behind it go on).
LOCK_TIMEOUT_MS = 1000
STATEMENT_TIMEOUT_MS = 1500
#: Seconds this process waits for a statement's answer before it counts the connection as hung (a
#: database that does not answer at all cannot end the statement itself: its backend is stopped, or
#: the network dropped every packet): the connection is treated as lost, as a failed one is.
ANSWER_TIMEOUT = 2.5
#: Every this many heartbeats a process looks at the balance of tables between processes
#: (:mod:`.balancing`).
BALANCE_EVERY = 5


class Cluster:
    """This process's part in a cluster: its connections, its lease and heartbeat, the bus its
    messages travel on, the sockets and calls it forwards, and the balance of tables."""

    def __init__(self, rooms: Rooms, lease: float, heartbeat: float) -> None:
        self.rooms = rooms
        self.lease = lease
        self.heartbeat = heartbeat
        self.me = uuid.uuid4().hex[:16]
        self._listen: psycopg.AsyncConnection[Any] | None = None
        self._query: psycopg.AsyncConnection[Any] | None = None
        self._beat_conn: psycopg.AsyncConnection[Any] | None = None
        self._query_lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []  # what runs while connected: the reader, the heartbeat
        self._sender_task: asyncio.Task[None] | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._broken = asyncio.Event()  # a statement found a connection dead
        self._ticks = 0
        #: The time the lease is renewed against (a monotonic clock; tests inject it).
        self.clock: Callable[[], float] = time.monotonic
        #: Until when (:attr:`clock`) this process's lease surely runs: the time a renewal was sent
        #: plus the lease (the database counts from a little later).
        self._lease_until = 0.0
        #: Whether every connection is up; since when (:attr:`clock`) it is not.
        self.connected = False
        self.down_since: float | None = None
        #: Tables dropped when the database was lost, with their epochs: given up once it is back.
        self._dropped: dict[str, int] = {}
        #: When (:attr:`clock`) the renewal under way was sent (None: none is): see :meth:`_fence`.
        self._renewing_since: float | None = None
        self._renewing = asyncio.Lock()  # one renewal at a time (the heartbeat's, or a check's)
        #: The heartbeat's work in tasks of their own: following owners, due and idle tables, balance.
        self.chores = Chores(self.me)
        #: Heartbeats between two looks at the balance (0: never by itself; the tests call it).
        self.balance_every = BALANCE_EVERY
        self.bus = Bus(self.me, self._sql, lambda: self.connected, lambda sender, items: self._on_items(sender, items))
        self.forwarding = Forwarding(self.me, rooms, self.bus.post, lambda: self.connected)
        self.balancer = Balancer(self.me, rooms, self._sql)
        self.ownership = Ownership(self.me, rooms, self._sql, self.forwarding, heartbeat)

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Join the cluster (a database that cannot be reached here fails the start, as before)."""
        self._sender_task = asyncio.get_running_loop().create_task(self.bus.send_forever())
        await self._connect()
        await self.ownership.share_budgets()
        self._supervisor = asyncio.get_running_loop().create_task(self._supervise())
        log.info("process %s (pid %d) joined the cluster", self.me, os.getpid())

    async def _connect(self) -> None:
        """Open the three connections, LISTEN, renew the lease, give up the tables dropped when the
        database was lost, and start the reader and the heartbeat."""
        opened: list[psycopg.AsyncConnection[Any]] = []
        try:
            for _ in range(3):  # (each statement's lock and run time bounded: see the constants)
                opened.append(await leases.connect(self.rooms.store.engine, CONNECT_TIMEOUT, LOCK_TIMEOUT_MS,
                                                   STATEMENT_TIMEOUT_MS))
            # the lease has a connection of its own, so renewing it never waits behind the messages
            self._listen, self._query, self._beat_conn = opened
            await self.bus.listen(self._listen)
            self._broken.clear()
            await self._renew()
            if self._dropped:
                codes, epochs = zip(*self._dropped.items(), strict=True)
                await self._query.execute(leases.GIVE_UP.sql, leases.GIVE_UP.params(
                    {"codes": list(codes), "epochs": list(epochs), "me": self.me}))
                self._dropped.clear()
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self.bus.read(self._listen)), loop.create_task(self._beat()),
                       loop.create_task(self._fence())]
        self.connected, self.down_since = True, None

    async def _supervise(self) -> None:
        """Watch the connections; when one fails, let go of everything and connect again."""
        while True:
            broken = asyncio.get_running_loop().create_task(self._broken.wait())
            try:
                await asyncio.wait([*self._tasks, broken], return_when=asyncio.FIRST_COMPLETED)
            finally:
                broken.cancel()
            try:
                self._lose()
                await self._reconnect()
            except asyncio.CancelledError:
                raise
            except Exception:  # never let the supervisor die: it is what brings the process back
                log.exception("process %s: reconnecting failed; trying again", self.me)
                self._broken.set()

    def _lose(self) -> None:
        """The database is out of reach: this process's leases count as lost from now on. Its
        tables are dropped (their sockets reconnect and reach a process that has the database),
        and what it forwards is let go (:meth:`Forwarding.lose`)."""
        if not self.connected:
            return
        log.warning("process %s lost its database connection: dropping its tables and reconnecting", self.me)
        self.connected, self.down_since, self._lease_until = False, self.clock(), 0.0
        for task in self._tasks:
            task.cancel()
        self.chores.cancel()
        self.bus.clear()
        self.forwarding.lose()
        self._dropped.update(self.rooms.lose_all())

    async def _reconnect(self) -> None:
        wait = RECONNECT_FIRST
        while True:
            await self._close_connections()
            await asyncio.sleep(wait * (1 + random.random() / 4))
            try:
                # (bounded: a database that accepts connections but does not answer is tried again)
                await asyncio.wait_for(self._connect(), CONNECT_TIMEOUT * 3)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("process %s: the database is still out of reach (%s)", self.me, str(error).strip()[:200])
                wait = min(RECONNECT_MAX, wait * 2)
                continue
            # the store's pooled connections died with the old server too: a fresh pool, so that
            # no request meets a dead one first (closed as they come back; none is waited for)
            self.rooms.store.engine.dispose(close=False)
            log.warning("process %s reconnected to its database", self.me)
            return

    async def _close_connections(self) -> None:
        for conn in (self._listen, self._query, self._beat_conn):
            if conn is not None:
                try:
                    await conn.close()
                except Exception:  # (already broken)
                    pass

    async def stop(self) -> None:
        """Leave: the tables are released by the registry first; the lease row goes last."""
        running = (self._supervisor, self._sender_task, *self.chores.cancel(), *self._tasks)
        for task in running:
            if task is not None:
                task.cancel()
        await asyncio.gather(*(t for t in running if t is not None), return_exceptions=True)
        try:
            if self.connected:
                await self._sql(leases.LEAVE, me=self.me)
        except Exception:  # the database may be gone already: the lease simply runs out
            log.warning("could not remove process %s's lease", self.me)
        await self._close_connections()
        BUDGET_SHARE.processes = 1

    async def _sql(self, statement: Statement, **values: Any) -> list[tuple[Any, ...]]:
        """Run one of the store's statements (:mod:`~sixnimmt.server.store.leases`) on the query
        connection. While the database is out of reach, and when the statement finds the connection
        dead, the caller gets a "try again" refusal."""
        import psycopg

        if not self.connected or self._query is None:
            raise unavailable()
        query_conn, params = self._query, statement.params(values)

        async def run() -> list[tuple[Any, ...]]:
            cursor = await query_conn.execute(statement.sql, params)
            return await cursor.fetchall() if cursor.description else []

        async with self._query_lock:
            try:
                return await self._answered(run())
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                if self._query.closed:
                    self._broken.set()
                raise unavailable() from error  # (or a lock waited on too long: try again)

    async def _answered(self, statement: Coroutine[Any, Any, T]) -> T:
        """``statement``'s result, if the database answers within :data:`ANSWER_TIMEOUT`; else the
        connections count as lost (the supervisor drops the tables and connects again) and the caller
        gets a "try again" refusal. The statement is not cancelled and waited for (cancelling it
        waits for the hung backend); closing its connection ends it."""
        task = asyncio.ensure_future(statement)
        done, _ = await asyncio.wait({task}, timeout=ANSWER_TIMEOUT)
        if task in done:
            return task.result()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (its error is expected)
        log.warning("process %s: the database did not answer in %.1f s: dropping its tables", self.me, ANSWER_TIMEOUT)
        self._broken.set()
        raise unavailable()

    # ------------------------------------------------------------------ the lease

    async def still_drives(self, room: Room) -> bool:
        """Whether this process may act for ``room`` now. While its lease is surely current by its
        own clock, yes, at once. Past that (a pause, a stalled event loop) it renews its lease and
        asks the database whether the table is still its own, with the same epoch: a process
        paused past its lease acts only if nobody took the table over meanwhile (its write would be
        refused anyway; this keeps it from acting at all). Not while the database is lost."""
        if not self.connected:
            return False
        if self.clock() < self._lease_until:
            return True
        try:
            async with self._renewing:
                if self.clock() >= self._lease_until:
                    await self._renew()
            rows = await self._sql(leases.MY_EPOCH, code=room.code, me=self.me)
        except Exception:  # (the database is out of reach: the supervisor takes it from here)
            return False
        return bool(rows) and rows[0][0] == room.table.epoch and self.holds_lease()

    def holds_lease(self) -> bool:
        """Whether this process may act for its tables now: connected, and its lease renewed
        recently enough that it has surely not run out."""
        return self.connected and self.clock() < self._lease_until

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` and ``/readyz`` report about the cluster."""
        if self.connected:
            return {"database": "connected", "lease": "held" if self.holds_lease() else "renewing"}
        since = self.down_since if self.down_since is not None else self.clock()
        return {"database": "reconnecting", "down_seconds": round(self.clock() - since, 1)}

    async def claim(self, code: str) -> tuple[str, int]:
        """Who drives ``code`` and with which epoch (:meth:`Ownership.claim`)."""
        return await self.ownership.claim(code)

    # ------------------------------------------------------------------ the heartbeat

    async def _beat(self) -> None:
        """Renew the lease and start the work that may wait (:mod:`.chores`) every ``heartbeat``
        seconds. Ends when one of the connections is found dead (the supervisor reconnects); other
        failures are logged."""
        connections = (self._listen, self._query, self._beat_conn)
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                if any(conn is None or conn.closed for conn in connections):
                    return
                log.exception("cluster heartbeat failed (process %s)", self.me)

    async def _tick(self) -> None:
        async with self._renewing:
            await self._renew()
        await self.ownership.share_budgets()
        # (each in a task of its own: the heartbeat never waits on a table's lock, nor on the store
        # loading a table, so a slow or hung store never holds the lease's renewal up)
        self.chores.start("following the owners of forwarded tables", self._watch_owners)
        if self.holds_lease():
            self.chores.start("taking due tables and letting idle ones go", self._table_chores)
        await self.forwarding.forget_dead(self.ownership.alive)
        self._ticks += 1
        if self.balance_every and self._ticks % self.balance_every == 0:
            self.chores.start("balancing tables", self.balance)
        if self._ticks % 60 == 0:  # leftovers of processes that died mid-message
            await self._sql(leases.FORGET_OLD, age=leases.MESSAGES_KEPT)
            await self._sql(leases.FORGET_DEAD, age=leases.DEAD_LEASES_KEPT)

    async def _table_chores(self) -> None:
        """Take the due tables (:meth:`Ownership.take_due`) and let the idle ones go (a table nobody
        asks for goes too: :meth:`Rooms.evict_idle`)."""
        await self.ownership.take_due()
        await self.rooms.evict_idle()

    async def _renew(self) -> None:
        """Extend this process's lease. If it had run out (a long pause, a slow database), other
        processes may have taken some of its tables over: those are dropped here (any write to them
        would be refused by the epoch anyway); the others are still this process's."""
        beat = self._beat_conn
        assert beat is not None
        sent = self._renewing_since = self.clock()

        async def renew() -> tuple[Any, ...] | None:
            cursor = await beat.execute(leases.LEASE_RUNS.sql, leases.LEASE_RUNS.params({"me": self.me}))
            row = await cursor.fetchone()
            await beat.execute(leases.RENEW.sql, leases.RENEW.params({
                "me": self.me, "host": socket.gethostname()[:255], "pid": os.getpid(),
                "lease": datetime.timedelta(seconds=self.lease)}))
            return row

        try:
            row = await self._answered(renew())
        finally:
            self._renewing_since = None
        # (a lease that had run out counts from when the tables taken over meanwhile are dropped)
        if row is None or row[0]:  # (None: the first time)
            self._lease_until = sent + self.lease
            return
        log.warning("process %s: its lease had run out; checking which tables it still drives", self.me)
        mine = self.rooms.loaded_codes()
        if mine:
            async def taken() -> list[tuple[Any, ...]]:
                cursor = await beat.execute(leases.NOT_MINE.sql, leases.NOT_MINE.params({"codes": mine, "me": self.me}))
                return await cursor.fetchall()

            for (code,) in await self._answered(taken()):
                self.rooms.drop(code)
        self._lease_until = sent + self.lease

    async def _fence(self) -> None:
        """Ends (and the supervisor drops every table, closing their sockets with the reconnect
        code) when a renewal of the lease is under way and this process's lease runs out, by its own
        clock, in less than half a heartbeat: the database may be about to let another process take
        the tables over, and this one must have let go of them first (docs/scaling.md, "An owner
        fences itself"). A renewal that finished, however late, never fences: a process whose event
        loop stalled renews and checks its tables instead (:meth:`still_drives`)."""
        while True:
            await asyncio.sleep(self.heartbeat / 10)
            if self._renewing_since is not None and self.clock() >= self._lease_until - self.heartbeat / 2:
                log.warning("process %s could not renew its lease in time: dropping its tables", self.me)
                return

    async def _watch_owners(self) -> None:
        """Tables this process forwards to: if the owner died, take over; if it changed, follow."""
        await self.forwarding.follow_owners(self.ownership.owners)

    async def balance(self) -> list[str]:
        """Hand some tables over if this process drives clearly more than its share (:mod:`.balancing`)."""
        if not self.holds_lease():
            return []
        return await self.balancer.balance()

    # ------------------------------------------------------------------ what the others see

    @property
    def links(self) -> dict[int, Link]:  # this process's sockets at tables it does not drive
        return self.forwarding.links

    @property
    def remote(self) -> dict[tuple[str, int], RemoteConnection]:  # others' sockets at its tables
        return self.forwarding.remote

    def link(self, code: str, owner: str, client: Client, token: str | None, address: str = "") -> Link:
        """Connect ``client`` to table ``code``, driven by ``owner``."""
        return self.forwarding.link(code, owner, client, token, address)

    def forward(self, link: Link, text: str | None) -> None:
        self.forwarding.forward(link, text)

    async def unlink(self, link: Link) -> None:
        await self.forwarding.unlink(link)

    async def call(self, owner: str, code: str, call: RemoteCall, timeout: float | None = None) -> Any:
        """Run ``call`` on ``owner`` (:meth:`Forwarding.call`)."""
        return await self.forwarding.call(owner, code, call, timeout)

    async def _on_items(self, sender: str, items: list[Mail]) -> None:
        await self.forwarding.deliver(sender, items)

    async def lobbies(self, limit: int) -> list[dict[str, Any]]:
        """The lobby listings of the other live processes (:meth:`Forwarding.lobbies`)."""
        if not self.connected:
            raise unavailable()
        return await self.forwarding.lobbies(await self.ownership.others(), limit)

    async def ask_all(self, call: ProcessCall) -> list[dict[str, Any]]:
        """Every other live process's reply to ``call`` (:meth:`Forwarding.ask_all`)."""
        if not self.connected:
            return []
        return await self.forwarding.ask_all(await self.ownership.others(), call)


async def join_cluster(rooms: Rooms) -> Cluster:
    """This process's part in the cluster of its settings' database, joined (``rooms`` shares the
    database from now on)."""
    settings = rooms.settings
    cluster = Cluster(rooms, settings.lease_seconds, settings.heartbeat_seconds)
    await rooms.join_cluster(cluster)
    return cluster
