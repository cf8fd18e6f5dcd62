"""The messages of a table's moderation (docs/web.md, "Moderation"): a player blocks another seat,
the host turns the chat off or removes a spectator. What each receiver then sees is the
:class:`~.shield.Shield`'s."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..wire import BlockSeat, RemoveSpectator, TableChat
from .fanout import Connection
from .room import Room
from .table_setup import TableError


@runtime_checkable
class Closable(Protocol):
    """A connection the server can close (a browser's socket; the tests' listeners are not)."""

    def close(self, code: int, reason: str) -> None: ...


#: The WebSocket close code of a spectator the host removed.
CLOSE_REMOVED = 4403


def visible_to(room: Room, line: dict[str, Any], conn: Connection) -> bool:
    """Whether the chat ``line`` reaches ``conn`` (not if it blocks the seat that said it)."""
    if conn in room.shield.removed:
        return False
    seat = line.get("seat")
    return seat is None or seat not in room.shield.hidden(conn.seat, room.table.seats)


async def on_block(room: Room, conn: Connection, message: BlockSeat) -> None:
    """``{"type": "block", "seat": N, "block": true}``: the sender's seat no longer sees seat N's chat
    (``false``: sees it again); between two accounts the block is the accounts' own too."""
    seats = room.table.seats
    if conn.seat is None:
        raise TableError("spectators block nobody: take a seat first", "spectator", action="block")
    if not 0 <= message.seat < len(seats) or message.seat == conn.seat:
        raise TableError(f"no other player in seat {message.seat + 1}", "bad-seat", seat=message.seat + 1)
    mine, theirs = seats[conn.seat], seats[message.seat]
    if not theirs.person or theirs.token_hash is None or mine.token_hash is None:
        raise TableError(f"no other player in seat {message.seat + 1}", "bad-seat", seat=message.seat + 1)
    if message.block and mine.account is not None and theirs.account is not None:
        await room.shield.book.block(mine.account, theirs.account)
        await room.shield.learn(mine.account)
    room.shield.block_seat(mine, theirs, message.block)
    conn.push({"type": "blocked", "seat": message.seat, "block": message.block})
    conn.push(room.state_message(conn))


async def on_table_chat(room: Room, conn: Connection, message: TableChat) -> None:
    """The host turns the table's chat off (or on again): no line or reaction is relayed while off."""
    await room.table.allow_chat(conn.seat, message.allow)
    room.send_seats()
    for other in list(room.connections):
        other.push(room.state_message(other))


async def on_remove_spectator(room: Room, conn: Connection, message: RemoveSpectator) -> None:
    """The host removes the spectator numbered ``spectator``: it receives nothing more from the table
    and its socket is closed."""
    if conn.seat != 0:
        raise TableError("only the host (seat 1) can do that", "not-host")
    target = room.shield.spectator(message.spectator)
    if target is None or target.seat is not None or target not in room.connections:
        raise TableError(f"no spectator {message.spectator} is watching", "no-spectator", spectator=message.spectator)
    target.push(TableError("the host removed you from this table", "removed").to_message())
    room.shield.removed.add(target)
    if address := room.address_of(target):
        room.shield.barred.add(address)
    if isinstance(target, Closable):
        target.close(CLOSE_REMOVED, "removed by the host")
