"""What a moderator's action, or a player's block, tells every process at once (several processes on
one database: :mod:`~sixnimmt.server.cluster`). A table's sockets are all served by the process that
drives it, wherever they connected, so each process acts on the tables it drives: a banned account's
sockets are told and closed, a blocker's tables read its blocks again, a renamed account's seats show
its new name. Each process also closes the connections of the bots whose tokens a ban revoked, and
reads the address bans again.

The news travels as process calls (:data:`~sixnimmt.server.calls.ModerationCall`); a process that does
not answer in time still finds the ban in the database when a socket of the account connects again,
and the address bans at its next reading (:mod:`.address_gate`). ``sixnimmt admin``, which writes
the database itself, tells the live processes the same way (:func:`tell_from_outside`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..calls import AccountBanned, AccountRenamed, AddressBansChanged, BlocksChanged, ModerationCall
from ..refusal import Refusal
from ..tables.host_tools import CLOSE_REMOVED, Closable

if TYPE_CHECKING:
    from ..cluster.peers import Cluster
    from ..tables.room import Room
    from ..tables.rooms import Rooms


#: The sender's name of the command line's news (no process listens for the replies), and how many
#: seconds the news stays worth acting on.
OUTSIDE = "admin"
NEWS_LIFETIME = 10.0


class ModerationNews:
    """Tells this process and every other one (``cluster``: None on a server of one process)."""

    def __init__(self, rooms: Rooms, cluster: Cluster | None, revoked: Callable[[set[int]], None],
                 forget_addresses: Callable[[], None]) -> None:
        self.rooms = rooms
        self.cluster = cluster
        self.revoked = revoked
        self.forget_addresses = forget_addresses
        rooms.answer_calls(AccountBanned, self._answer)
        rooms.answer_calls(BlocksChanged, self._answer)
        rooms.answer_calls(AddressBansChanged, self._answer)
        rooms.answer_calls(AccountRenamed, self._answer)

    async def tell(self, news: ModerationCall) -> None:
        """Act on ``news`` here, then on every other live process."""
        await self.act(news)
        if self.cluster is not None:
            await self.cluster.ask_all(news)

    async def _answer(self, news: ModerationCall) -> dict[str, Any]:
        await self.act(news)
        return {"result": None}

    async def act(self, news: ModerationCall) -> None:
        match news:
            case AccountBanned():
                self.revoked(set(news.tokens))
                for room in self._rooms_of(news.account):
                    unseat(room, news.account)
            case BlocksChanged():
                for room in self._rooms_of(news.account):
                    await room.shield.learn(news.account)
            case AddressBansChanged():
                self.forget_addresses()
            case AccountRenamed():
                for room in self._rooms_of(news.account):
                    async with room.lock:
                        if await room.table.rename_account(news.account, news.name):
                            room.send_seats()

    def _rooms_of(self, account: int) -> list[Room]:
        """The tables this process drives where ``account`` holds a seat or waits to take one over."""
        found = []
        for code in self.rooms.loaded_codes():
            room = self.rooms.local(code)
            if room is not None and any(account in (s.account, s.joining_account) for s in room.table.seats):
                found.append(room)
        return found


def unseat(room: Room, account: int) -> None:
    """A banned account's sockets at ``room`` are told and closed (its seats may not be taken up
    again, anywhere: :meth:`Room.admit` asks; the stand-in plays while it is away)."""
    refusal = Refusal("a moderator suspended this account", "account-banned")
    for conn in list(room.connections):
        if conn.seat is not None and room.table.seats[conn.seat].account == account:
            conn.push(refusal.to_message())
            if isinstance(conn, Closable):
                conn.close(CLOSE_REMOVED, "account suspended")


def tell_from_outside(engine: Any, news: ModerationCall) -> int:
    """Tell every live process ``news`` from outside the cluster (``sixnimmt admin``): a NOTIFY on
    each one's channel, as a process's own call travels. Returns how many were told: none on SQLite,
    where the server reads the address bans again within :data:`~.address_gate.REFRESH_SECONDS` and
    meets an account's ban when a socket of it connects again."""
    if engine.dialect.name != "postgresql":
        return 0
    from ..cluster.bus import channel
    from ..cluster.mail import Ask, encode_batch
    from ..store import leases

    payload = encode_batch(OUTSIDE, [Ask(0, "", news, time.time() + NEWS_LIFETIME)])
    with engine.begin() as conn:  # (each NOTIFY is delivered when this commits)
        live = [row[0] for row in conn.exec_driver_sql(leases.OTHERS.sql, leases.OTHERS.params({"me": OUTSIDE}))]
        for process in live:
            conn.exec_driver_sql(leases.NOTIFY.sql, leases.NOTIFY.params({"channel": channel(process),
                                                                          "payload": payload}))
    return len(live)
