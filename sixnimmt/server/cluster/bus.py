"""The message bus between server processes: PostgreSQL's ``LISTEN/NOTIFY``, one channel per process.

Messages (:mod:`.mail`) posted for a process during one turn of the event loop go out together, in
order, as one batch. A batch too large for NOTIFY's 8000 bytes is sent compressed, or, if still too
large, through the ``outbox`` table (the NOTIFY carries its row's id)."""

from __future__ import annotations

import asyncio
import base64
import logging
import zlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..store import leases
from .mail import Mail, decode_batch, encode_batch

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("sixnimmt.server")

#: Largest NOTIFY payload PostgreSQL takes is 8000 bytes; keep a margin.
NOTIFY_LIMIT = 7900

#: One of the store's statements (:mod:`~sixnimmt.server.store.leases`), with its parameters by name,
#: run on the cluster's query connection: its rows.
Sql = Callable[..., Awaitable[list[tuple[Any, ...]]]]


def channel(process: str) -> str:
    return f"sixnimmt_{process}"


class Bus:
    """This process's way to send batches of messages to the others, and to receive theirs."""

    def __init__(self, me: str, sql: Sql, connected: Callable[[], bool],
                 deliver: Callable[[str, list[Mail]], Awaitable[None]]) -> None:
        self.me = me
        self._sql = sql
        self._connected = connected
        self._deliver = deliver
        self._pending: dict[str, list[Mail]] = {}
        self._kick = asyncio.Event()

    def post(self, process: str, item: Mail) -> None:
        """Queue ``item`` for ``process``; queued items go out together, in order, on the next turn.
        Nothing is queued while the database is out of reach (every socket concerned is closed)."""
        if not self._connected():
            return
        self._pending.setdefault(process, []).append(item)
        self._kick.set()

    def clear(self) -> None:
        """Forget what waits to be sent (the database was lost)."""
        self._pending.clear()

    async def send_forever(self) -> None:
        """Send what is posted, batch by batch (a task for as long as the process is in the cluster)."""
        while True:
            await self._kick.wait()
            self._kick.clear()
            pending, self._pending = self._pending, {}
            for process, items in pending.items():
                try:
                    await self.send(process, items)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    if self._connected():
                        log.exception("could not send %d message(s) to process %s", len(items), process)

    async def send(self, process: str, items: list[Mail]) -> None:
        text = encode_batch(self.me, items)
        if len(text.encode()) > NOTIFY_LIMIT:
            packed = "z" + base64.b64encode(zlib.compress(text.encode(), 6)).decode()
            if len(packed) <= NOTIFY_LIMIT:
                text = packed
            else:
                rows = await self._sql(leases.POST, payload=text)
                text = f"@{rows[0][0]}"
        await self._sql(leases.NOTIFY, channel=channel(process), payload=text)

    async def listen(self, connection: psycopg.AsyncConnection[Any]) -> None:
        """LISTEN on this process's channel (before the lease is renewed: nothing sent to it is missed)."""
        await connection.execute(leases.listen(channel(self.me)))

    async def read(self, connection: psycopg.AsyncConnection[Any]) -> None:
        """Hand each NOTIFY on this process's channel over; ends when the connection fails."""
        import psycopg

        try:
            async for notify in connection.notifies():
                try:
                    await self.receive(notify.payload)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    if connection.closed:
                        return
                    log.exception("bad message between processes")
        except (psycopg.OperationalError, psycopg.InterfaceError):
            return  # the connection failed: the supervisor sees this task end

    async def receive(self, payload: str) -> None:
        if payload.startswith("@"):
            rows = await self._sql(leases.TAKE, id=int(payload[1:]))
            if not rows:
                return
            payload = rows[0][0]
        elif payload.startswith("z"):
            payload = zlib.decompress(base64.b64decode(payload[1:])).decode()
        sender, items = decode_batch(payload)
        await self._deliver(sender, items)
