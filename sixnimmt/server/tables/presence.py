"""Who is at a table: a seat's first socket opening or its last one closing is news. The players
hear of it at once; the spectators hear of what changed at the end of a short window
(``Settings.presence_coalesce_seconds``), so a client opening and closing a socket over and over
sends them nothing."""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..clock import Clock, Timer
from ..config import Settings
from ..wire import Outbound
from .fanout import Connection
from .seat import Seat
from .table import TableSession


class Presence:
    """The presence messages of one table; ``connections`` gives its sockets at the moment."""

    def __init__(self, table: TableSession, settings: Settings, clock: Clock,
                 connections: Callable[[], Collection[Connection]]) -> None:
        self.table = table
        self.settings = settings
        self.clock = clock
        self.connections = connections
        #: Seats whose arrival or departure the spectators have not heard of yet, with what they
        #: last heard.
        self._heard: dict[int, bool] = {}
        self._timer: Timer | None = None

    def spectators(self) -> int:
        return sum(1 for c in self.connections() if c.seat is None)

    def changed(self, seat: Seat, skip: Connection | None = None) -> None:
        """``seat``'s first socket opened or its last one closed (``skip``: the socket that opened,
        which gets the whole state instead)."""
        connected = seat.connections > 0
        message = Outbound(type="presence", seat=seat.index, connected=connected, spectators=self.spectators())
        for other in list(self.connections()):
            if other is not skip and other.seat is not None:
                other.push(message)
        self._heard.setdefault(seat.index, not connected)
        if self._timer is None:
            self._timer = self.clock.call_later(self.settings.presence_coalesce_seconds, self._tell_spectators)

    def _tell_spectators(self) -> None:
        """The end of a window: each seat whose presence changed since the spectators last heard of
        it, in one message each."""
        self._timer = None
        heard, self._heard = self._heard, {}
        if self.table.closed:
            return
        for index, before in heard.items():
            seat = self.table.seats[index]
            if (seat.connections > 0) == before:
                continue  # came and went (or went and came) within the window
            message = Outbound(type="presence", seat=index, connected=seat.connections > 0,
                               spectators=self.spectators())
            for other in list(self.connections()):
                if other.seat is None:
                    other.push(message)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
