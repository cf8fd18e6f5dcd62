"""What each message from a client does at a table, one function per message type.

Each handler runs under the room's lock once the room has checked that the socket holds the seat it
speaks for (:meth:`Room.handle <sixnimmt.server.tables.room.Room.handle>`). It refuses with a
:class:`~sixnimmt.server.tables.table_setup.TableError` (nothing changes, the client is told why), or asks the
table for the change and has the room tell everyone once it is saved.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ...core import PlayerView
from ...seats import HINT_LEVEL, available
from ...seats.advise import advise
from ..wire import (
    Again,
    BlockSeat,
    Chat,
    ChooseRow,
    Draft,
    Hint,
    Invite,
    Keep,
    Leave,
    Order,
    Outbound,
    Pass,
    Ping,
    Play,
    React,
    Release,
    RemoveSpectator,
    Retract,
    SpectatorChat,
    Start,
    Sync,
    TableChat,
)
from . import seating
from .chat import chat_content
from .fanout import Connection
from .host_tools import on_block, on_remove_spectator, on_table_chat, visible_to
from .moves import Move, make_move
from .room import Handler, Room
from .table import Change
from .table_setup import TableError

log = logging.getLogger("sixnimmt.server")

#: The hint's bot: the strongest level, as this server plays it (``Settings.level_specs``: the
#: grandmaster with its time limit, so a hint comes within a quarter of a second of thinking).
HINT_BOT = HINT_LEVEL


async def on_move(room: Room, conn: Connection, message: Move) -> None:
    change = await make_move(room.table, conn.seat, message)
    if change is not None:
        room.tell(change)


async def on_start(room: Room, conn: Connection, _message: Start) -> None:
    room.tell(await seating.start_with_bots(room.table, conn.seat))


async def on_again(room: Room, conn: Connection, _message: Again) -> None:
    room.tell(await room.table.play_again(conn.seat))


async def on_sync(room: Room, conn: Connection, _message: Sync) -> None:
    conn.push(room.state_message(conn))


async def on_ping(_room: Room, conn: Connection, _message: Ping) -> None:
    conn.push({"type": "pong"})


async def on_hint(room: Room, conn: Connection, _message: Hint) -> None:
    if conn.seat is None:
        raise TableError("spectators get no hints", "spectator", action="hint")
    view = room.table.require_game().view(conn.seat)
    if view.decision is None:
        raise TableError("nothing to decide now: no hint needed", "nothing-to-decide")
    if conn.seat in room.hinting:
        return  # one hint at a time per seat (however many sockets it has); the answer is on its way
    if room.hints is not None:
        room.hints.take(room.address_of(conn))  # (raises: out of budget, or the desk is full)
    room.hinting.add(conn.seat)
    asyncio.get_running_loop().create_task(_hint(room, conn, view))


async def _hint(room: Room, conn: Connection, view: PlayerView) -> None:
    """A strong bot's advice, computed off the event loop and sent to ``conn`` only."""
    try:
        spec = room.settings.level_specs.get(HINT_BOT, HINT_BOT) if HINT_BOT in available() else "random"
        think = room.scheduler.threads.run if room.hints is None else room.hints.run
        advice = await think(advise, view, spec)
        if conn.seat != view.seat or conn not in room.connections:
            return  # the seat changed hands (or the socket left) while the hint was made
        conn.push({"type": "hint", "deal": view.deal, "turn": view.turn,
                   "kind": view.decision.kind.value if view.decision else None, **advice.to_dict()})
    except Exception:  # a hint is a nicety: never let it hurt the table
        log.exception("hint failed at table %s", room.code)
    finally:
        room.hinting.discard(view.seat)


async def on_invite(room: Room, conn: Connection, message: Invite) -> None:
    token, name = await seating.invite(room.table, conn.seat, message.seat, message.name)
    room.enforce_seats()
    conn.push({"type": "invite", "seat": message.seat, "name": name, "token": token})
    room.send_seats()


async def on_release(room: Room, conn: Connection, message: Release) -> None:
    await seating.release(room.table, conn.seat, message.seat)
    room.enforce_seats()
    room.send_seats()


async def on_leave(room: Room, conn: Connection, _message: Leave) -> None:
    await seating.leave(room.table, conn.seat)
    room.enforce_seats()
    room.send_seats()
    room.scheduler.schedule()


async def on_chat(room: Room, conn: Connection, message: Chat) -> None:
    await _say(room, conn, chat_content(conn.seat, room.table.options, room.settings, text=message.text))


async def on_react(room: Room, conn: Connection, message: React) -> None:
    await _say(room, conn, chat_content(conn.seat, room.table.options, room.settings, emoji=message.emoji))


async def _say(room: Room, conn: Connection, content: dict[str, Any]) -> None:
    wait = room.allowances.chat(conn.seat, conn)
    if wait:
        seconds = max(1, round(wait))
        raise TableError(f"too many chat messages: wait {seconds} s", "rate-limited", retry_after=seconds)
    if conn.seat is None:
        content = {**content, "spectator": room.shield.number(conn, room.table.chat)}  # (the host may remove it by this)
    line = await room.table.say(conn.seat, content)
    message = Outbound(type="chat", **line)
    for other in list(room.connections):
        if visible_to(room, line, other):
            other.push(message)


async def on_spectator_chat(room: Room, conn: Connection, message: SpectatorChat) -> None:
    await room.table.allow_spectator_chat(conn.seat, message.allow)
    room.tell(Change())


HANDLERS: dict[type, Handler] = {
    Invite: on_invite,
    Release: on_release,
    Leave: on_leave,
    Chat: on_chat,
    React: on_react,
    SpectatorChat: on_spectator_chat,
    TableChat: on_table_chat,
    BlockSeat: on_block,
    RemoveSpectator: on_remove_spectator,
    Play: on_move,
    ChooseRow: on_move,
    Draft: on_move,
    Order: on_move,
    Keep: on_move,
    Pass: on_move,
    Retract: on_move,
    Start: on_start,
    Again: on_again,
    Sync: on_sync,
    Ping: on_ping,
    Hint: on_hint,
}
