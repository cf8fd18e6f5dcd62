"""Several server processes on one PostgreSQL database (``sixnimmt serve --workers N``, or several
hosts sharing one URL). Any process accepts any request; each table is driven by one process, its
*owner*, and the others forward their sockets' frames to it and its messages back.

- **Ownership** is a lease with a fencing epoch, kept in PostgreSQL. Each process has a row in
  ``server_processes`` that it renews every ``heartbeat_seconds``; it is alive while that row's
  ``lease_until`` (the database's clock) has not passed. A table's row names its owner and an epoch.
  A process takes a table over when it has no owner or its owner is dead, by a compare-and-swap
  that raises the epoch; every write of a table then carries the epoch, and the store refuses a
  write with an older one (:class:`~sixnimmt.server.store.database.LeaseLostError`), so a process that was
  paused or cut off and comes back can never overwrite the new owner's state. One lease row per
  *process*, not per table, keeps the heartbeat at one small write per process per second.
- **Messages** go over ``LISTEN/NOTIFY`` (psycopg 3, async): one channel per process. Each
  payload is a batch of items for that process; one too large for NOTIFY's 8000 bytes is sent
  compressed, or, if still too large, through the ``outbox`` table (the NOTIFY carries its id).
- **Privacy**: the owner computes every connection's messages as for its own sockets and addresses
  each to one connection id; the forwarding process hands it to that socket only.
- **Failover**: a forwarding process checks, every heartbeat, that the owners of its sockets'
  tables are alive; when one is not, it takes the table over from the store (the record, the cards
  already chosen this turn) and its sockets are served locally from then on, each sent a fresh
  state. Sockets that were on the dead process reconnect by themselves (the page retries) and land
  wherever the proxy sends them.
- **Losing the database**: every connection of the cluster is watched; when one fails (a database
  restart, a network cut) the process treats its leases as lost at once: it drops every table it
  drives (their sockets are closed with 1012 and reconnect, through the proxy, to a process that
  reaches the database), forgets the sockets it forwards for others, and says so on ``/healthz``
  and ``/readyz``. It then connects again with backoff (:data:`RECONNECT_FIRST` doubling to
  :data:`RECONNECT_MAX`), LISTENs again, renews its lease, gives up the tables it dropped (so that
  any process may take them at once) and starts reading messages again.
- **Fencing**: a process acts for a table only while its lease is current by its own clock (a
  process paused past its lease does nothing with what it queued meanwhile), every write carries
  the epoch (refused if another process took the table over), and every message from an owner to a
  forwarding process carries the owner's epoch: a forwarding process ignores what comes from a
  process that no longer drives the table.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import logging
import os
import random
import socket
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import orjson
from sqlalchemy.engine import make_url

from ..tables.table_setup import TableError
from ..wire import MOVED_CLOSE_CODE, Outbound, to_json, wire_text

if TYPE_CHECKING:
    import psycopg

    from ..tables.room import Room
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")

#: Largest NOTIFY payload PostgreSQL takes is 8000 bytes; keep a margin.
NOTIFY_LIMIT = 7900
#: Seconds a forwarded HTTP call (join, a table's summary) waits for the owner's answer.
CALL_TIMEOUT = 5.0
#: Seconds the lobby waits for the other processes' listings.
LOBBY_TIMEOUT = 1.0
#: A forwarded join is started only while at least this many seconds of its caller's wait are left
#: (the rest covers the commit and the way back): a join whose caller has given up takes no seat.
CALL_MARGIN = 1.0
#: Reconnecting after the database was lost: the first wait, doubled after each failed try up to
#: the last one (seconds, each with up to a quarter more at random, so that processes spread out).
RECONNECT_FIRST = 0.1
RECONNECT_MAX = 2.0
#: Seconds a connection attempt may take before it counts as failed.
CONNECT_TIMEOUT = 5
#: Milliseconds a statement of the cluster's waits for a row lock before it fails.
LOCK_TIMEOUT_MS = 5000
#: Every this many heartbeats a process compares the tables it drives with the other processes'
#: and hands some over when it drives clearly more than its share: after a pause or a restart one
#: process may have taken every table over, and nothing else would ever spread them again.
BALANCE_EVERY = 5
#: "Clearly more": at least this many tables above an even split ...
BALANCE_MARGIN = 2
#: ... handed over at most this many at a time (each hand-over makes its sockets reconnect).
BALANCE_STEP = 10


def psycopg_dsn(url: str) -> str:
    """The libpq connection string of an SQLAlchemy ``postgresql+psycopg://`` URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def channel(process: str) -> str:
    return f"sixnimmt_{process}"


class Client(Protocol):
    """What the cluster needs of a local socket (``app.SocketClient``)."""

    seat: int | None

    def push(self, message: dict[str, Any]) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


@dataclass(eq=False)
class Link:
    """A socket of this process at a table that another process drives (or, after a takeover, this
    one: then :attr:`room` is set and its frames are handled here)."""

    code: str
    conn_id: int
    client: Client
    token: str | None
    joining: int | None = None
    owner: str = ""
    #: The client's address (its budgets on the owner, as for a socket of the owner's own).
    address: str = ""
    room: Room | None = None
    #: The owner's epoch for the table as last heard (0: not known yet): an item carrying an older
    #: one is a stale owner's, and ignored.
    epoch: int = 0


@dataclass(eq=False)
class RemoteConnection:
    """On the owner: a socket that lives in another process. Messages pushed to it travel to that
    process, addressed to this one socket; its frames arrive in order through :attr:`frames`."""

    cluster: Cluster
    process: str
    conn_id: int
    seat: int | None
    frames: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    #: This process's epoch for the table (each item to the socket carries it).
    epoch: int = 0

    def push(self, message: dict[str, Any]) -> None:
        if self.cluster.remote.get((self.process, self.conn_id)) is self:  # (forgotten: nothing more goes out)
            self.cluster.post(self.process, ["push", self.conn_id, message, self.epoch])

    def drop(self) -> None:
        """The table left this process: the socket reconnects (and finds the new owner)."""
        self.cluster.post(self.process, ["gone", self.conn_id, self.epoch])


class Cluster:
    """This process's part in a cluster: its lease, its channel, the tables it forwards to others
    and the remote sockets at the tables it owns."""

    def __init__(self, url: str, rooms: Rooms, lease: float, heartbeat: float) -> None:
        self.dsn = psycopg_dsn(url)
        self.rooms = rooms
        self.lease = lease
        self.heartbeat = heartbeat
        self.me = uuid.uuid4().hex[:16]
        self._listen: psycopg.AsyncConnection[Any] | None = None
        self._query: psycopg.AsyncConnection[Any] | None = None
        self._beat_conn: psycopg.AsyncConnection[Any] | None = None
        self._query_lock = asyncio.Lock()
        self._pending: dict[str, list[Any]] = {}
        self._kick = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []  # what runs while connected: the reader, the heartbeat
        self._sender_task: asyncio.Task[None] | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._broken = asyncio.Event()  # a statement found a connection dead
        self._ids = itertools.count(1)
        self.links: dict[int, Link] = {}  # this process's sockets at tables it does not own
        self.remote: dict[tuple[str, int], RemoteConnection] = {}  # others' sockets at tables it owns
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._ticks = 0
        #: The time the lease is renewed against (a monotonic clock) and the wall clock a forwarded
        #: call's deadline is read on (tests inject both).
        self.clock: Callable[[], float] = time.monotonic
        self.wall: Callable[[], float] = time.time
        self.call_timeout = CALL_TIMEOUT
        #: Until when (:attr:`clock`) this process's lease surely runs: the time a renewal was sent
        #: plus the lease (the database counts from a little later).
        self._lease_until = 0.0
        #: Whether every connection is up; since when (:attr:`clock`) it is not.
        self.connected = False
        self.down_since: float | None = None
        #: Tables dropped when the database was lost, with their epochs: given up once it is back.
        self._dropped: dict[str, int] = {}
        #: The epoch of each table last found driven by another process (read by :meth:`link`).
        self._epochs: dict[str, int] = {}
        self._leaving: set[asyncio.Task[None]] = set()  # remote sockets leaving their tables
        self._serving: set[asyncio.Task[None]] = set()  # remote sockets being served
        self._renewing = asyncio.Lock()  # one renewal at a time (the heartbeat's, or a check's)
        self._balancing: asyncio.Task[list[str]] | None = None  # a hand-over of tables under way
        #: Heartbeats between two looks at the balance (0: never by itself; the tests call it).
        self.balance_every = BALANCE_EVERY

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Join the cluster (a database that cannot be reached here fails the start, as before)."""
        self._sender_task = asyncio.get_running_loop().create_task(self._sender())
        await self._connect()
        self._supervisor = asyncio.get_running_loop().create_task(self._supervise())
        log.info("process %s (pid %d) joined the cluster", self.me, os.getpid())

    async def _connect(self) -> None:
        """Open the three connections, LISTEN, renew the lease, give up the tables dropped when the
        database was lost, and start the reader and the heartbeat."""
        import psycopg

        opened: list[psycopg.AsyncConnection[Any]] = []
        try:
            for _ in range(3):
                # (a statement of the cluster's that waits on a row lock gives up and is tried again
                # rather than stopping the heartbeat or the messages behind it)
                opened.append(await psycopg.AsyncConnection.connect(
                    self.dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                    options=f"-c lock_timeout={LOCK_TIMEOUT_MS}"))
            # the lease has a connection of its own, so renewing it never waits behind the messages
            self._listen, self._query, self._beat_conn = opened
            await self._listen.execute(f'LISTEN "{channel(self.me)}"')
            self._broken.clear()
            await self._renew()
            if self._dropped:
                codes, epochs = zip(*self._dropped.items(), strict=True)
                await self._query.execute(
                    "UPDATE tables t SET owner = NULL FROM unnest(%s::text[], %s::int[]) AS d(code, epoch) "
                    "WHERE t.code = d.code AND t.owner_epoch = d.epoch AND t.owner = %s",
                    (list(codes), list(epochs), self.me),
                )
                self._dropped.clear()
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._reader()), loop.create_task(self._beat())]
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
        the sockets it forwards are closed, the sockets others forward to it forgotten, and the
        calls waiting for an answer refused."""
        if not self.connected:
            return
        log.warning("process %s lost its database connection: dropping its tables and reconnecting", self.me)
        self.connected, self.down_since, self._lease_until = False, self.clock(), 0.0
        for task in (*self._tasks, self._balancing):
            if task is not None:
                task.cancel()
        self._pending.clear()
        for rid, future in list(self._calls.items()):
            if not future.done():
                future.set_exception(unavailable())
            self._calls.pop(rid, None)
        for key in list(self.remote):
            conn = self.remote.pop(key)
            if conn.task is not None:
                conn.task.cancel()
        for link in list(self.links.values()):
            if link.room is None:
                link.client.close(MOVED_CLOSE_CODE, "the server lost its database: reconnect")
        self._dropped.update(self.rooms.lose_all())

    async def _reconnect(self) -> None:
        wait = RECONNECT_FIRST
        while True:
            for conn in (self._listen, self._query, self._beat_conn):
                if conn is not None:
                    try:
                        await conn.close()
                    except Exception:  # (already broken)
                        pass
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
            rows = await self._sql("SELECT owner_epoch FROM tables WHERE code = %s AND owner = %s",
                                   (room.code, self.me))
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

    async def stop(self) -> None:
        """Leave: the tables are released by the registry first; the lease row goes last."""
        running = (self._supervisor, self._sender_task, self._balancing, *self._tasks)
        for task in running:
            if task is not None:
                task.cancel()
        await asyncio.gather(*(t for t in running if t is not None), return_exceptions=True)
        try:
            if self.connected:
                await self._sql("DELETE FROM server_processes WHERE id = %s", (self.me,))
        except Exception:  # the database may be gone already: the lease simply runs out
            log.warning("could not remove process %s's lease", self.me)
        for conn in (self._listen, self._query, self._beat_conn):
            if conn is not None:
                try:
                    await conn.close()
                except Exception:  # (already broken)
                    pass

    async def _sql(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement on the query connection. While the database is out of reach, and when
        the statement finds the connection dead, the caller gets a "try again" refusal."""
        import psycopg

        if not self.connected or self._query is None:
            raise unavailable()
        async with self._query_lock:
            try:
                cursor = await self._query.execute(query, params)
                return await cursor.fetchall() if cursor.description else []
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                if self._query.closed:
                    self._broken.set()
                raise unavailable() from error  # (or a lock waited on too long: try again)

    # ------------------------------------------------------------------ ownership

    async def claim(self, code: str) -> tuple[str, int]:
        """Who drives ``code`` and with which epoch: this process's id (:attr:`me`) once it took the
        table over (nobody alive drove it), else the live owner's id (its epoch kept for
        :meth:`link`). Raises :class:`LookupError` if there is no such table."""
        for _ in range(5):
            rows = await self._sql(
                "SELECT t.owner, t.owner_epoch, p.id IS NOT NULL FROM tables t LEFT JOIN server_processes p "
                "ON p.id = t.owner AND p.lease_until > now() WHERE t.code = %s",
                (code,),
            )
            if not rows:
                raise LookupError(code)
            owner, epoch, alive = rows[0]
            if alive and owner != self.me:
                self._epochs[code] = epoch
                return owner, epoch
            won = await self._sql(
                "UPDATE tables SET owner = %s, owner_epoch = owner_epoch + 1 WHERE code = %s AND owner_epoch = %s "
                "RETURNING owner_epoch",
                (self.me, code, epoch),
            )
            if won:
                log.info("process %s drives table %s (epoch %d)", self.me, code, won[0][0])
                return self.me, int(won[0][0])
        raise TableError("the table is changing hands: try again", "table-unavailable")

    async def _owners(self, codes: list[str]) -> dict[str, str | None]:
        """The live owner of each table (None: nobody alive drives it)."""
        rows = await self._sql(
            "SELECT t.code, p.id FROM tables t LEFT JOIN server_processes p "
            "ON p.id = t.owner AND p.lease_until > now() WHERE t.code = ANY(%s)",
            (codes,),
        )
        return dict(rows)

    async def _alive(self, processes: list[str]) -> set[str]:
        rows = await self._sql(
            "SELECT id FROM server_processes WHERE id = ANY(%s) AND lease_until > now()", (processes,)
        )
        return {row[0] for row in rows}

    async def others(self) -> list[str]:
        """The other live processes."""
        rows = await self._sql("SELECT id FROM server_processes WHERE lease_until > now() AND id <> %s", (self.me,))
        return [row[0] for row in rows]

    async def lobbies(self, limit: int) -> list[dict[str, Any]]:
        """The lobby listings of the other live processes (each lists the tables it drives); a
        process that does not answer in time is left out."""

        if not self.connected:
            raise unavailable()

        async def ask(process: str) -> list[dict[str, Any]]:
            try:
                reply = await self.call(process, "", "listing", {"limit": limit}, timeout=LOBBY_TIMEOUT)
            except TableError:
                return []
            listed: list[dict[str, Any]] = reply.get("result", [])
            return listed

        answers = await asyncio.gather(*(ask(process) for process in await self.others()))
        return [table for answer in answers for table in answer]

    async def ask_all(self, op: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        """Every other live process's reply to ``op`` (one of ``Rooms.process_ops``); a process
        that does not answer in time is left out."""
        if not self.connected:
            return []

        async def ask(process: str) -> dict[str, Any]:
            try:
                reply: dict[str, Any] = await self.call(process, "", op, args, timeout=LOBBY_TIMEOUT)
                return reply
            except TableError:
                return {}

        return list(await asyncio.gather(*(ask(process) for process in await self.others())))

    # ------------------------------------------------------------------ the heartbeat

    async def _beat(self) -> None:
        """Renew the lease and watch the owners every ``heartbeat`` seconds. Ends when one of the
        connections is found dead (the supervisor reconnects); other failures are logged."""
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
        await self._watch_owners()
        await self._watch_forwarders()
        self._ticks += 1
        if self.balance_every and self._ticks % self.balance_every == 0 and (
                self._balancing is None or self._balancing.done()):
            # (a task of its own: the heartbeat never waits on a table's lock)
            self._balancing = asyncio.get_running_loop().create_task(self.balance())
        if self._ticks % 60 == 0:  # leftovers of processes that died mid-message
            await self._sql("DELETE FROM outbox WHERE created_at < now() - interval '1 minute'")
            await self._sql("DELETE FROM server_processes WHERE lease_until < now() - interval '1 day'")

    async def _renew(self) -> None:
        """Extend this process's lease. If it had run out (a long pause, a slow database), other
        processes may have taken some of its tables over: those are dropped here (any write to them
        would be refused by the epoch anyway); the others are still this process's."""
        assert self._beat_conn is not None
        sent = self.clock()
        cursor = await self._beat_conn.execute(
            "SELECT lease_until > now() FROM server_processes WHERE id = %s", (self.me,)
        )
        row = await cursor.fetchone()
        await self._beat_conn.execute(
            "INSERT INTO server_processes (id, host, pid, started_at, lease_until) "
            "VALUES (%s, %s, %s, now(), now() + make_interval(secs => %s)) "
            "ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until",
            (self.me, socket.gethostname()[:255], os.getpid(), self.lease),
        )
        # (a lease that had run out counts from when the tables taken over meanwhile are dropped)
        if row is None or row[0]:  # (None: the first time)
            self._lease_until = sent + self.lease
            return
        log.warning("process %s: its lease had run out; checking which tables it still drives", self.me)
        mine = self.rooms.loaded_codes()
        if mine:
            cursor = await self._beat_conn.execute(
                "SELECT code FROM tables WHERE code = ANY(%s) AND owner IS DISTINCT FROM %s", (mine, self.me)
            )
            for (code,) in await cursor.fetchall():
                self.rooms.drop(code)
        self._lease_until = sent + self.lease

    async def balance(self) -> list[str]:
        """Hand tables over to the live process that drives the fewest, when this one drives at
        least :data:`BALANCE_MARGIN` tables more than an even split; returns the codes handed over.

        Only a table with a socket on that process is handed to it (someone there reconnects at
        once and the new owner loads it; a table watched by nobody stays, its timers with it). A
        hand-over is a takeover done politely: with the table's lock held, so no change is under
        way, its owner and epoch are moved in one statement (fenced by the epoch), then this copy is
        dropped and its sockets reconnect, as after a takeover."""
        if not self.holds_lease():
            return []
        rows = await self._sql(
            "SELECT p.id, count(t.code) FROM server_processes p LEFT JOIN tables t ON t.owner = p.id "
            "WHERE p.lease_until > now() GROUP BY p.id"
        )
        counts = {process: int(n) for process, n in rows}
        if self.me not in counts or len(counts) < 2:
            return []
        share = sum(counts.values()) / len(counts)
        target = min((p for p in counts if p != self.me), key=lambda p: (counts[p], p))
        room_for = min(counts[self.me] - share, share - counts[target])
        if counts[self.me] - share < BALANCE_MARGIN or room_for < 1:
            return []
        handed: list[str] = []
        for code in sorted(self.rooms.loaded_codes()):
            if len(handed) >= min(BALANCE_STEP, int(room_for)):
                break
            room = self.rooms.local(code)
            if room is None or not any(isinstance(conn, RemoteConnection) and conn.process == target
                                       for conn in room.connections):
                continue
            if await self._hand_over(room, target):
                handed.append(code)
        if handed:
            log.info("process %s handed %d tables to process %s", self.me, len(handed), target)
        return handed

    async def _hand_over(self, room: Room, target: str) -> bool:
        if room.lock.locked():  # a change under way: left for the next round (never waited for)
            return False
        async with room.lock:  # (free: taken at once)
            if room.table.closed or room.table.epoch is None:
                return False
            moved = await self._sql(
                "UPDATE tables SET owner = %s, owner_epoch = owner_epoch + 1 "
                "WHERE code = %s AND owner = %s AND owner_epoch = %s RETURNING owner_epoch",
                (target, room.code, self.me, room.table.epoch),
            )
            if moved:
                self.rooms.drop(room.code)
            return bool(moved)

    async def _watch_owners(self) -> None:
        """Tables this process forwards to: if the owner died, take over; if it changed, follow."""
        forwarded = {link.code for link in self.links.values() if link.room is None}
        if not forwarded:
            return
        owners = await self._owners(sorted(forwarded))
        for code in forwarded:
            links = [link for link in self.links.values() if link.code == code and link.room is None]
            owner = owners.get(code)
            if owner is not None and all(link.owner == owner for link in links):
                continue
            try:
                target = await self.rooms.locate(code)
            except (LookupError, TableError):
                continue
            for link in links:
                if link.room is not None or link.conn_id not in self.links:
                    continue
                if isinstance(target, str):
                    link.owner, link.epoch = target, self._epochs.get(code, 0)
                    self._open(link)
                else:
                    await self.adopt(link, target)

    async def _watch_forwarders(self) -> None:
        """Sockets forwarded to this process from processes that died are disconnected."""
        processes = sorted({conn.process for conn in self.remote.values()})
        if not processes:
            return
        alive = await self._alive(processes)
        for key, conn in list(self.remote.items()):
            if conn.process not in alive:
                self._remote_closed(key)

    # ------------------------------------------------------------------ forwarding (this process's sockets)

    def link(self, code: str, owner: str, client: Client, token: str | None, address: str = "") -> Link:
        link = Link(code, next(self._ids), client, token, owner=owner, epoch=self._epochs.pop(code, 0), address=address)
        self.links[link.conn_id] = link
        self._open(link)
        return link

    def _open(self, link: Link) -> None:
        self.post(link.owner, ["open", link.code, link.conn_id, link.token, link.epoch, link.address])

    def forward(self, link: Link, text: str | None) -> None:
        if not self.connected:  # the socket is being closed: it reconnects and says it again
            return
        self.post(link.owner, ["frame", link.code, link.conn_id, text])

    async def unlink(self, link: Link) -> None:
        self.links.pop(link.conn_id, None)
        if link.room is not None:
            await link.room.disconnect(link.client)
        else:
            self.post(link.owner, ["close", link.code, link.conn_id])

    async def adopt(self, link: Link, room: Room) -> None:
        """This process took ``link``'s table over: serve the socket here from now on."""
        try:
            await room.admit(link.client, link.token, link.address)
        except TableError as error:
            link.client.push(error.to_message())
            link.client.close(4429, "too many connections")
            return
        link.room = room

    async def call(self, owner: str, code: str, op: str, args: dict[str, Any], timeout: float | None = None) -> Any:
        """Run ``op`` on the owner of ``code`` (an HTTP request that changes or reads a table). The
        call carries its deadline (the wall clock): an owner that gets it too late, after a pause,
        does not act on it."""
        if not self.connected:
            raise unavailable()
        timeout = self.call_timeout if timeout is None else timeout
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[rid] = future
        self.post(owner, ["call", rid, code, op, {**args, "deadline": self.wall() + timeout - CALL_MARGIN}])
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TableError("the server driving this table does not answer: try again", "table-unavailable") from None
        finally:
            self._calls.pop(rid, None)

    # ------------------------------------------------------------------ messages in

    def _from_owner(self, sender: str, item: list[Any]) -> Link | None:
        """The forwarded socket an owner's ``push``, ``gone`` or ``refuse`` is for, if ``sender``
        still drives its table as far as this process knows (it is the socket's owner, with an
        epoch no older than the last one heard): a stale owner's items are ignored."""
        link = self.links.get(item[1])
        epoch = item[-1] if isinstance(item[-1], int) and not isinstance(item[-1], bool) else -1
        if link is None or link.room is not None or link.owner != sender or epoch < link.epoch:
            if link is not None:
                log.info("ignored a %s for table %s from process %s (epoch %s, the socket's owner %s, epoch %d)",
                         item[0], link.code, sender, epoch, link.owner, link.epoch)
            return None
        link.epoch = epoch
        return link

    async def _on_items(self, sender: str, items: list[Any]) -> None:
        for item in items:
            kind = item[0]
            if kind == "push":
                link = self._from_owner(sender, item)
                if link is not None:
                    link.client.push(item[2])
            elif kind == "gone":
                link = self._from_owner(sender, item)
                if link is not None:
                    link.client.close(MOVED_CLOSE_CODE, "the table moved: reconnect")
            elif kind == "refuse":
                link = self._from_owner(sender, item)
                if link is not None:
                    link.client.push(item[2])
                    link.client.close(item[3], "refused")
            elif kind == "reply":
                future = self._calls.get(item[1])
                if future is not None and not future.done():
                    future.set_result(item[2])
            elif kind == "open":
                self._remote_open(sender, item[1], item[2], item[3], item[4], item[5])
            elif kind == "frame":
                conn = self.remote.get((sender, item[2]))
                if conn is not None:
                    conn.frames.put_nowait(item[3])
            elif kind == "close":
                self._remote_closed((sender, item[2]))
            elif kind == "call":
                asyncio.get_running_loop().create_task(self._answer(sender, item[1], item[2], item[3], item[4]))

    def _remote_open(self, sender: str, code: str, conn_id: int, token: str | None, epoch: int, address: str) -> None:
        conn = RemoteConnection(self, sender, conn_id, None, epoch=epoch)
        self.remote[(sender, conn_id)] = conn  # (its frames wait in its queue until it is served)
        conn.task = asyncio.get_running_loop().create_task(self._serve_remote(code, conn, token, address))
        self._serving.add(conn.task)  # (a task must be referenced until it is done)
        conn.task.add_done_callback(self._serving.discard)

    async def _serve_remote(self, code: str, conn: RemoteConnection, token: str | None, address: str) -> None:
        """A remote socket at a table of this process: as the local socket loop in ``app``. A table
        not in memory here (dropped after a pause, evicted) is loaded if this process still drives
        it; else the socket is sent ``gone`` (with the epoch its process knows, so it is taken).
        ``address`` is the client's (its budgets here, as for a socket of this process's own)."""
        room = self.rooms.local(code)
        if room is None:
            try:
                target = await self.rooms.locate(code)
            except (LookupError, TableError):
                target = None
            if target is None or isinstance(target, str):
                self.remote.pop((conn.process, conn.conn_id), None)
                self.post(conn.process, ["gone", conn.conn_id, conn.epoch])
                return
            room = target
        conn.epoch = room.table.epoch or 0
        try:
            await room.admit(conn, token, address)
        except TableError as error:
            self.remote.pop((conn.process, conn.conn_id), None)
            self.post(conn.process, ["refuse", conn.conn_id, error.to_message(), 4429, conn.epoch])
            return
        while True:
            text = await conn.frames.get()
            if room.table.closed:
                conn.drop()
                return
            await room.receive(conn, text, conn.process)

    def _remote_closed(self, key: tuple[str, int]) -> None:
        """A remote socket closed (or its process died): it leaves its table in a task of its own,
        so that the messages (or the heartbeat) never wait on a table's lock."""
        conn = self.remote.pop(key, None)
        if conn is None:
            return
        if conn.task is not None:
            conn.task.cancel()
        for room in self.rooms.rooms_with(conn):
            leaving = asyncio.get_running_loop().create_task(room.disconnect(conn))
            self._leaving.add(leaving)
            leaving.add_done_callback(self._leaving.discard)

    async def _answer(self, sender: str, rid: int, code: str, op: str, args: dict[str, Any]) -> None:
        reply: dict[str, Any]
        room: Room | str | None = None
        if op != "listing" and op not in self.rooms.process_ops:
            try:  # (loaded again if it was dropped here and this process still drives it)
                room = self.rooms.local(code) or await self.rooms.locate(code)
            except (LookupError, TableError):
                room = None
        if op == "listing":
            reply = {"result": self.rooms.listing(int(args.get("limit", 40)))}
        elif op in self.rooms.process_ops:  # (about this process, not a table: the bot programs here)
            reply = await self.rooms.process_ops[op](args)
        elif room is None or isinstance(room, str):
            reply = {"error": TableError("the table moved: try again", "table-unavailable").to_message()}
        else:
            deadline = float(args.get("deadline", "inf"))
            try:
                reply = {"result": await self.rooms.run_call(room, op, args, lambda: self.wall() < deadline)}
            except TableError as error:
                reply = {"error": error.to_message()}
        self.post(sender, ["reply", rid, reply])

    # ------------------------------------------------------------------ the wire

    def post(self, process: str, item: list[Any]) -> None:
        """Queue ``item`` for ``process``; queued items go out together, in order, on the next turn.
        Nothing is queued while the database is out of reach (every socket concerned is closed)."""
        if not self.connected:
            return
        self._pending.setdefault(process, []).append(item)
        self._kick.set()

    async def _sender(self) -> None:
        while True:
            await self._kick.wait()
            self._kick.clear()
            pending, self._pending = self._pending, {}
            for process, items in pending.items():
                try:
                    await self._send(process, items)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    if self.connected:
                        log.exception("could not send %d message(s) to process %s", len(items), process)

    def _encode(self, items: list[Any]) -> str:
        """One batch as JSON text. A message pushed to several sockets of the receiving process (a
        ``chosen`` to everyone, a seat's update to each of its sockets) travels once, and its text
        is the one the owner already made for its own sockets."""
        texts: list[str] = []
        index: dict[int, int] = {}
        parts: list[str] = []
        for item in items:
            if item[0] == "push":
                message = item[2]
                number = index.get(id(message))  # (the items hold every message alive meanwhile)
                if number is None:
                    number = index[id(message)] = len(texts)
                    texts.append(wire_text(message))
                parts.append(f'["push",{int(item[1])},{number},{int(item[3])}]')
            else:
                parts.append(to_json(item))
        return f'{{"from":"{self.me}","messages":[{",".join(texts)}],"items":[{",".join(parts)}]}}'

    async def _send(self, process: str, items: list[Any]) -> None:
        text = self._encode(items)
        if len(text.encode()) > NOTIFY_LIMIT:
            packed = "z" + base64.b64encode(zlib.compress(text.encode(), 6)).decode()
            if len(packed) <= NOTIFY_LIMIT:
                text = packed
            else:
                rows = await self._sql(
                    "INSERT INTO outbox (created_at, payload) VALUES (now(), %s) RETURNING id", (text,)
                )
                text = f"@{rows[0][0]}"
        await self._sql("SELECT pg_notify(%s, %s)", (channel(process), text))

    async def _reader(self) -> None:
        """Hand each NOTIFY on this process's channel over; ends when the connection fails."""
        import psycopg

        assert self._listen is not None
        try:
            async for notify in self._listen.notifies():
                try:
                    await self._receive(notify.payload)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    if self._listen.closed:
                        return
                    log.exception("bad message between processes")
        except (psycopg.OperationalError, psycopg.InterfaceError):
            return  # the connection failed: the supervisor sees this task end

    async def _receive(self, payload: str) -> None:
        if payload.startswith("@"):
            rows = await self._sql("DELETE FROM outbox WHERE id = %s RETURNING payload", (int(payload[1:]),))
            if not rows:
                return
            payload = rows[0][0]
        elif payload.startswith("z"):
            payload = zlib.decompress(base64.b64decode(payload[1:])).decode()
        batch = orjson.loads(payload)
        messages = [Outbound(message) for message in batch["messages"]]
        items = [[item[0], item[1], messages[item[2]], *item[3:]] if item[0] == "push" else item
                 for item in batch["items"]]
        await self._on_items(batch["from"], items)



async def join_cluster(rooms: Rooms) -> Cluster:
    """This process's part in the cluster of its settings' database, joined (``rooms`` shares the
    database from now on)."""
    settings = rooms.settings
    cluster = Cluster(settings.database_url, rooms, settings.lease_seconds, settings.heartbeat_seconds)
    await rooms.join_cluster(cluster)
    return cluster


def unavailable() -> TableError:
    return TableError("the server is reconnecting to its database: try again", "table-unavailable")
