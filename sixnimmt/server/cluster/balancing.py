"""Balancing: after a pause or a restart one process may have taken every table over, and nothing
else would ever spread them again. So every few heartbeats a process compares the tables it drives
with the other processes' and hands some over when it drives clearly more than its share."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..store import leases
from .bus import Sql
from .forwarding import RemoteConnection

if TYPE_CHECKING:
    from ..tables.room import Room
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")

#: "Clearly more": at least this many tables above an even split ...
BALANCE_MARGIN = 2
#: ... handed over at most this many at a time (each hand-over makes its sockets reconnect).
BALANCE_STEP = 10


class Balancer:
    """Hands tables over from process ``me`` to the live process that drives the fewest."""

    def __init__(self, me: str, rooms: Rooms, sql: Sql) -> None:
        self.me = me
        self.rooms = rooms
        self._sql = sql

    async def balance(self) -> list[str]:
        """Hand tables over to the live process that drives the fewest, when this one drives at
        least :data:`BALANCE_MARGIN` games in play more than an even split (a table waiting for
        players or whose game is over costs nothing to drive, and handing it over would only make
        its sockets reconnect); returns the codes handed over.

        Only a table with a socket on that process is handed to it (someone there reconnects at
        once and the new owner loads it; a table watched by nobody stays, its timers with it). A
        hand-over is a takeover done politely: with the table's lock held, so no change is under
        way, its owner and epoch are moved in one statement (fenced by the epoch), then this copy is
        dropped and its sockets reconnect, as after a takeover."""
        rows = await self._sql(leases.GAMES_PER_PROCESS)
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
            if room is None or room.table.status != "playing" or not any(isinstance(conn, RemoteConnection) and conn.process == target
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
            moved = await self._sql(leases.HAND_OVER, code=room.code, owner=self.me, epoch=room.table.epoch, to=target)
            if moved:
                self.rooms.drop(room.code)
            return bool(moved)
