"""Forwarding between processes: this process's sockets at tables another process drives
(:class:`Link`: their frames go to the owner, the owner's messages come back to them), the other
processes' sockets at tables this one drives (:class:`RemoteConnection`: served as a local socket
is), and calls run by the owner of a table (:meth:`Forwarding.call`). Everything travels as the
typed messages of :mod:`.mail`.

**Privacy**: the owner computes every connection's messages as for its own sockets and addresses
each to one connection id; the forwarding process hands it to that socket only. **Fencing**: every
message from an owner to a forwarding process carries the owner's epoch, and a forwarding process
ignores what comes from a process that no longer drives the table.

- **Failover**: a forwarding process checks, every heartbeat, that the owners of its sockets'
  tables are alive; when one is not, it takes the table over from the store (the record, the cards
  already chosen this turn) and its sockets are served locally from then on, each sent a fresh
  state. Sockets that were on the dead process reconnect by themselves (the page retries) and land
  wherever the proxy sends them.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..calls import Listing, ProcessCall, RemoteCall, TableCall
from ..tables.table_setup import TableError
from ..wire import MOVED_CLOSE_CODE
from .mail import Ask, Close, Frame, FromOwner, Gone, Mail, Open, Push, Refuse, Reply

if TYPE_CHECKING:
    from ..tables.room import Room
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")

#: Seconds a forwarded HTTP call (join, a table's summary) waits for the owner's answer.
CALL_TIMEOUT = 5.0
#: A forwarded join is started only while at least this many seconds of its caller's wait are left
#: (the rest covers the commit and the way back): a join whose caller has given up takes no seat.
CALL_MARGIN = 1.0
#: Seconds the lobby (and any question to every process) waits for the other processes' answers.
LOBBY_TIMEOUT = 1.0
#: How a table refuses a connection it has no room for.
REFUSED_CLOSE_CODE = 4429


class Client(Protocol):
    """What the cluster needs of a local socket (``sockets.SocketClient``)."""

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

    forwarding: Forwarding
    process: str
    conn_id: int
    seat: int | None
    frames: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    #: This process's epoch for the table (each item to the socket carries it).
    epoch: int = 0

    def push(self, message: dict[str, Any]) -> None:
        if self.forwarding.remote.get((self.process, self.conn_id)) is self:  # (forgotten: nothing more goes out)
            self.forwarding.post(self.process, Push(self.conn_id, message, self.epoch))

    def close(self, code: int, reason: str) -> None:
        """The owner closes the socket (a ban, the host's removal): its process closes it with
        ``code``, and it leaves the table here at once."""
        key = (self.process, self.conn_id)
        if self.forwarding.remote.get(key) is self:
            self.forwarding.post(self.process, Refuse(self.conn_id, {"type": "closing", "reason": reason}, code,
                                                      self.epoch))
            self.forwarding.remote_closed(key)

    def drop(self) -> None:
        """The table left this process: the socket reconnects (and finds the new owner)."""
        self.forwarding.post(self.process, Gone(self.conn_id, self.epoch))


def unavailable() -> TableError:
    return TableError("the server is reconnecting to its database: try again", "table-unavailable")


class Forwarding:
    """The sockets and calls that cross between this process and the others."""

    def __init__(self, me: str, rooms: Rooms, post: Callable[[str, Mail], None],
                 connected: Callable[[], bool]) -> None:
        self.me = me
        self.rooms = rooms
        self.post = post
        self._connected = connected
        self._ids = itertools.count(1)
        self.links: dict[int, Link] = {}  # this process's sockets at tables it does not own
        self.remote: dict[tuple[str, int], RemoteConnection] = {}  # others' sockets at tables it owns
        self._calls: dict[int, asyncio.Future[Any]] = {}
        #: The epoch of each table last found driven by another process (read by :meth:`link`).
        self.epochs: dict[str, int] = {}
        #: The wall clock a forwarded call's deadline is read on (tests inject it).
        self.wall: Callable[[], float] = time.time
        self.call_timeout = CALL_TIMEOUT
        self._leaving: set[asyncio.Task[None]] = set()  # remote sockets leaving their tables
        self._serving: set[asyncio.Task[None]] = set()  # remote sockets being served

    def lose(self) -> None:
        """The database is out of reach: the sockets this process forwards are closed, the sockets
        others forward to it forgotten, and the calls waiting for an answer refused."""
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

    # ------------------------------------------------------------------ this process's sockets

    def link(self, code: str, owner: str, client: Client, token: str | None, address: str = "") -> Link:
        link = Link(code, next(self._ids), client, token, owner=owner, epoch=self.epochs.pop(code, 0), address=address)
        self.links[link.conn_id] = link
        self.open(link)
        return link

    def open(self, link: Link) -> None:
        self.post(link.owner, Open(link.code, link.conn_id, link.token, link.epoch, link.address))

    def forward(self, link: Link, text: str | None) -> None:
        if not self._connected():  # the socket is being closed: it reconnects and says it again
            return
        self.post(link.owner, Frame(link.code, link.conn_id, text))

    async def unlink(self, link: Link) -> None:
        self.links.pop(link.conn_id, None)
        if link.room is not None:
            await link.room.disconnect(link.client)
        else:
            self.post(link.owner, Close(link.code, link.conn_id))

    async def adopt(self, link: Link, room: Room) -> None:
        """This process took ``link``'s table over: serve the socket here from now on."""
        try:
            await room.admit(link.client, link.token, link.address)
        except TableError as error:
            link.client.push(error.to_message())
            link.client.close(REFUSED_CLOSE_CODE, "too many connections")
            return
        link.room = room

    async def follow_owners(self, owners_of: Callable[[list[str]], Awaitable[dict[str, str | None]]]) -> None:
        """Tables this process forwards to: if the owner died, take over; if it changed, follow."""
        forwarded = {link.code for link in self.links.values() if link.room is None}
        if not forwarded:
            return
        owners = await owners_of(sorted(forwarded))
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
                    link.owner, link.epoch = target, self.epochs.get(code, 0)
                    self.open(link)
                else:
                    await self.adopt(link, target)

    # ------------------------------------------------------------------ calls

    async def call(self, owner: str, code: str, call: RemoteCall, timeout: float | None = None) -> Any:
        """Run ``call`` on ``owner`` (about table ``code``, or the process itself). The call carries
        its deadline (the wall clock): an owner that gets it too late, after a pause, does not act
        on it."""
        if not self._connected():
            raise unavailable()
        timeout = self.call_timeout if timeout is None else timeout
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[rid] = future
        self.post(owner, Ask(rid, code, call, self.wall() + timeout - CALL_MARGIN))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TableError("the server driving this table does not answer: try again", "table-unavailable") from None
        finally:
            self._calls.pop(rid, None)

    async def lobbies(self, processes: list[str], limit: int) -> list[dict[str, Any]]:
        """The lobby listings of ``processes`` (each lists the tables it drives); a process that does
        not answer in time is left out."""

        async def ask(process: str) -> list[dict[str, Any]]:
            try:
                reply = await self.call(process, "", Listing(limit), timeout=LOBBY_TIMEOUT)
            except TableError:
                return []
            listed: list[dict[str, Any]] = reply.get("result", [])
            return listed

        answers = await asyncio.gather(*(ask(process) for process in processes))
        return [table for answer in answers for table in answer]

    async def ask_all(self, processes: list[str], call: ProcessCall) -> list[dict[str, Any]]:
        """Each of ``processes``' reply to ``call`` (one of ``Rooms.process_calls``); a process that
        does not answer in time is left out."""

        async def ask(process: str) -> dict[str, Any]:
            try:
                reply: dict[str, Any] = await self.call(process, "", call, timeout=LOBBY_TIMEOUT)
                return reply
            except TableError:
                return {}

        return list(await asyncio.gather(*(ask(process) for process in processes)))

    async def _answer(self, sender: str, ask: Ask) -> None:
        reply: dict[str, Any]
        call = ask.call
        answer = self.rooms.process_calls.get(type(call))
        if isinstance(call, Listing):
            reply = {"result": self.rooms.listing(call.limit)}
        elif answer is not None:  # (about this process, not a table: the bot programs here)
            reply = await answer(call)
        else:
            assert isinstance(call, TableCall)
            try:  # (loaded again if it was dropped here and this process still drives it)
                room: Room | str | None = self.rooms.local(ask.code) or await self.rooms.locate(ask.code)
            except (LookupError, TableError):
                room = None
            if room is None or isinstance(room, str):
                reply = {"error": TableError("the table moved: try again", "table-unavailable").to_message()}
            else:
                try:
                    reply = {"result": await self.rooms.run_call(room, call, lambda: self.wall() < ask.deadline)}
                except TableError as error:
                    reply = {"error": error.to_message()}
        self.post(sender, Reply(ask.id, reply))

    # ------------------------------------------------------------------ messages in

    async def deliver(self, sender: str, items: list[Mail]) -> None:
        """Act on a batch of messages from ``sender``, in order."""
        for item in items:
            match item:
                case Push():
                    link = self._from_owner(sender, item)
                    if link is not None:
                        link.client.push(item.message)
                case Gone():
                    link = self._from_owner(sender, item)
                    if link is not None:
                        link.client.close(MOVED_CLOSE_CODE, "the table moved: reconnect")
                case Refuse():
                    link = self._from_owner(sender, item)
                    if link is not None:
                        link.client.push(item.message)
                        link.client.close(item.close_code, "refused")
                case Reply():
                    future = self._calls.get(item.id)
                    if future is not None and not future.done():
                        future.set_result(item.answer)
                case Open():
                    self._remote_open(sender, item)
                case Frame():
                    conn = self.remote.get((sender, item.conn))
                    if conn is not None:
                        conn.frames.put_nowait(item.text)
                case Close():
                    self.remote_closed((sender, item.conn))
                case Ask():
                    asyncio.get_running_loop().create_task(self._answer(sender, item))

    def _from_owner(self, sender: str, item: FromOwner) -> Link | None:
        """The forwarded socket an owner's message is for, if ``sender`` still drives its table as
        far as this process knows (it is the socket's owner, with an epoch no older than the last
        one heard): a stale owner's messages are ignored."""
        link = self.links.get(item.conn)
        if link is None or link.room is not None or link.owner != sender or item.epoch < link.epoch:
            if link is not None:
                log.info("ignored a %s for table %s from process %s (epoch %s, the socket's owner %s, epoch %d)",
                         item.t, link.code, sender, item.epoch, link.owner, link.epoch)
            return None
        link.epoch = item.epoch
        return link

    # ------------------------------------------------------------------ the others' sockets

    def _remote_open(self, sender: str, item: Open) -> None:
        conn = RemoteConnection(self, sender, item.conn, None, epoch=item.epoch)
        self.remote[(sender, item.conn)] = conn  # (its frames wait in its queue until it is served)
        conn.task = asyncio.get_running_loop().create_task(self._serve_remote(item.code, conn, item.token, item.address))
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
                self.post(conn.process, Gone(conn.conn_id, conn.epoch))
                return
            room = target
        conn.epoch = room.table.epoch or 0
        try:
            await room.admit(conn, token, address)
        except TableError as error:
            self.remote.pop((conn.process, conn.conn_id), None)
            self.post(conn.process, Refuse(conn.conn_id, error.to_message(), REFUSED_CLOSE_CODE, conn.epoch))
            return
        while True:
            text = await conn.frames.get()
            if room.table.closed:
                conn.drop()
                return
            await room.receive(conn, text, conn.process)

    def remote_closed(self, key: tuple[str, int]) -> None:
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

    async def forget_dead(self, alive_of: Callable[[list[str]], Awaitable[set[str]]]) -> None:
        """Sockets forwarded to this process from processes that died are disconnected."""
        processes = sorted({conn.process for conn in self.remote.values()})
        if not processes:
            return
        alive = await alive_of(processes)
        for key, conn in list(self.remote.items()):
            if conn.process not in alive:
                self.remote_closed(key)
