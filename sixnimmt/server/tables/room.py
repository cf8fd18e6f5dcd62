"""One table's live connections: who is connected to which seat, their messages, and what they see.

A room holds a :class:`~sixnimmt.server.tables.table.TableSession` (the game, seats and saved state, with no
socket in sight) and the sockets around it, and one asyncio lock: every change runs under it. A
message is checked against the seat its socket holds, handed to the table (moves through
:mod:`~sixnimmt.server.tables.moves`, seat changes through :mod:`~sixnimmt.server.tables.seating`), and once the
change is saved each connection receives *its own* view (``game.view(seat)``; spectators
``game.view(None)``) with the public events to animate (:mod:`~sixnimmt.server.tables.fanout`). Bots, the
stand-in for absent players and the turn timer live in :mod:`~sixnimmt.server.tables.scheduling`; time comes
from the injected :class:`~sixnimmt.server.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...core import IllegalMoveError
from ..clock import Clock
from ..config import Settings
from ..limits import Allowances
from ..store.rows import TableData
from ..wire import (
    Again,
    Outbound,
    ProtocolError,
    Start,
    decode,
)
from . import seating
from .chat import chat_without
from .fanout import Connection, publish, table_state, table_summary
from .hints import HintDesk
from .moves import MESSAGE_KINDS
from .presence import Presence
from .scheduling import BotThreads, Scheduler
from .seat import Seat
from .shield import Shield
from .table import Archive, Change, Save, TableSession
from .table_setup import TableError, TableOptions, hash_token

log = logging.getLogger("sixnimmt.server")

#: What one kind of client message does at a table (:data:`~sixnimmt.server.tables.handlers.HANDLERS`
#: holds one per message class; the registry hands them to each room it makes).
Handler = Callable[["Room", Connection, Any], Awaitable[None]]

class Room:
    """One table's connections. All changes run under :attr:`lock`; see the module docstring."""

    def __init__(
        self,
        code: str,
        options: TableOptions,
        seats: list[Seat],
        settings: Settings,
        clock: Clock,
        save: Save,
        archive: Archive,
        handlers: Mapping[type, Handler],
        threads: BotThreads | None = None,
        hints: HintDesk | None = None,
        on_lost: Callable[[Room], None] | None = None,
    ) -> None:
        self.code = code
        self.handlers = handlers
        self.settings = settings
        self.clock = clock
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        #: What to call when another process has taken the table over (the registry drops the room).
        self.on_lost = on_lost
        self.scheduler = Scheduler(self, settings, clock, threads)
        self.table = TableSession(code, options, seats, settings, clock, save, archive, self.scheduler,
                                  on_lost=lambda: self.on_lost(self) if self.on_lost is not None else None,
                                  on_rolled_back=self.enforce_seats)
        self.hinting: set[int | None] = set()  # the seats a hint is being made for
        self.allowances = Allowances(settings, clock.now)
        self._joiners: dict[Connection, int] = {}  # spectators who take a seat over at the next deal
        #: The token hash each seated or joining socket proved when it connected. A socket speaks for
        #: a seat only while this is the seat's token hash (or, for a joiner, its ``joining_hash``):
        #: :meth:`enforce_seats` checks it whenever seats change hands, and :meth:`handle` before
        #: every action, so a seat never has two holders.
        self._holders: dict[Connection, str | None] = {}
        #: Where hints are made (the process's :class:`HintDesk`; None: in the bots' threads, as a
        #: table on its own in a test), and each admitted socket's client address (its budgets).
        self.hints = hints
        self._addresses: dict[Connection, str] = {}
        self.presence = Presence(self.table, settings, clock, lambda: self.connections)
        #: Called after each change the table was told (the registry's: who is told of a move due).
        self.on_told: Callable[[Room], None] | None = None
        #: Who blocks whom here, and the spectators the host removed (the registry gives it the book).
        self.shield = Shield()

    @classmethod
    def from_store(
        cls,
        data: TableData,
        settings: Settings,
        clock: Clock,
        save: Save,
        archive: Archive,
        handlers: Mapping[type, Handler],
        threads: BotThreads | None = None,
        hints: HintDesk | None = None,
        on_lost: Callable[[Room], None] | None = None,
    ) -> Room:
        now = clock.now()
        seats = [Seat.from_store(i, s, now) for i, s in enumerate(data.seats)]
        room = cls(data.code, TableOptions.from_dict(data.settings), seats, settings, clock, save, archive, handlers,
                   threads, hints, on_lost)
        room.table.load(data)
        return room

    # ------------------------------------------------------------------ what clients see

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (no seat tokens, no cards), and the seconds left for the current
        decision (the home page's "Your move" shows them)."""
        return {**table_summary(self.table, self.spectators()), "timer_left": self.scheduler.timer_left()}

    def state_for(
        self, seat: int | None, summary: dict[str, Any] | None = None, joining: int | None = None
    ) -> dict[str, Any]:
        """The full picture for one seat (or a spectator): the table and that seat's own view.
        ``summary`` may be passed in when many seats are served at once (it is the same for all);
        ``joining`` is the seat a spectator takes over at the next deal."""
        game = self.table.game
        table = chat_without(self._table_state(summary or self.summary()), self.shield.hidden(seat, self.table.seats))
        return {
            "table": {**table, "you": seat, "joining": joining},
            "view": None if game is None else game.view(seat).to_dict(),
        }

    def _table_state(self, summary: dict[str, Any]) -> dict[str, Any]:
        return table_state(summary, self.table, self.scheduler)

    def state_message(self, conn: Connection) -> dict[str, Any]:
        return {"type": "state", **self.state_for(conn.seat, joining=self._joiners.get(conn))}

    def _publish(self, change: Change, played_for: dict[str, Any] | None = None) -> None:
        publish(list(self.connections), self.table.game, change.events, lambda: self._table_state(self.summary()),
                self._joiners.get, actor=change.actor, played_for=played_for,
                hidden=lambda conn: self.shield.hidden(conn.seat, self.table.seats))

    def tell(self, change: Change, stand_in: str | None = None) -> None:
        """A saved change reaches everyone: the sockets waiting to take a seat over take it (when
        seats changed hands at a deal's start), each connection gets its own view, the bots wake."""
        if change.reseated:
            self._take_seats_over()
            if change.actor is not None:
                self.send_seats()  # (a new game's state shows the seats anyway)
        played_for = None if stand_in is None or change.actor is None else {"seat": change.actor, "reason": stand_in}
        self._publish(change, played_for)
        self.scheduler.schedule()
        if self.on_told is not None:
            self.on_told(self)

    # ------------------------------------------------------------------ seats

    async def join(
        self, name: str, invite: str | None = None, account: int | None = None, account_token: str | None = None,
        resume_only: bool = False, key: str | None = None, still_wanted: Callable[[], bool] | None = None,
        program: bool = False, stable: tuple[int, ...] = (),
    ) -> tuple[int, str, bool]:
        """Take a seat (:func:`~sixnimmt.server.tables.seating.take_seat`). Returns the seat, its new token,
        and whether the taking over waits for the next deal."""
        async with self.lock:
            joined = await seating.take_seat(self.table, name, invite, account, account_token,
                                             resume_only, key, still_wanted, program, stable)
            if joined.started is not None:
                self.tell(joined.started)
            elif joined.changed:
                self.send_seats()
            return joined.seat, joined.token, joined.later

    def bot_thinking(self, seat: int, thinking: bool) -> None:
        """A ``thinking`` delta: the bot in ``seat`` has been thinking a while (or has answered)."""
        message = Outbound(type="thinking", seat=seat, thinking=thinking)
        for conn in list(self.connections):
            conn.push(message)

    def idle(self, now: float, after: float, deadlines_kept: bool = False) -> bool:
        """Nobody connected, no bot thinking, and nothing happened for ``after`` seconds; and nothing
        needs the table in memory to go on by itself (:meth:`Scheduler.stays_in_memory`: a turn-based
        game does, unless ``deadlines_kept`` by the database of a cluster)."""
        if self.scheduler.stays_in_memory(deadlines_kept):
            return False
        return not self.connections and not self.scheduler.busy and now - self.table.last_active > after

    def anyone_connected(self) -> bool:
        return bool(self.connections)

    def spectators(self) -> int:
        return self.presence.spectators()

    async def admit(self, conn: Connection, token: str | None, address: str = "") -> None:
        """Seat ``conn`` by what ``token`` proves (the seat it holds, or the one it takes over at the
        next deal), else let it watch; decided under the lock, so no seat change slips in between.
        An unknown token is told so, and watches. ``address`` is the client's (its budgets)."""
        async with self.lock:
            seat, joining = self.table.place_for_token(token)
            if seat is None and joining is None and address and address in self.shield.barred:
                raise TableError("the host removed you from this table", "removed")
            account = None if seat is None else self.table.seats[seat].account
            if account is not None and await self.shield.book.banned(account):
                raise TableError("a moderator suspended this account", "account-banned")
            await self.shield.learn(account)
            conn.seat = seat
            if token and seat is None and joining is None:
                conn.push(TableError("unknown seat token: watching", "unknown-token").to_message())
            self._connect(conn, joining, hash_token(token) if token else None)
            self._addresses[conn] = address

    async def connect(self, conn: Connection, joining: int | None = None) -> None:
        """Connect ``conn`` as the seat it says (``conn.seat``) or as a spectator taking ``joining``
        over at the next deal: for callers that have checked the seat themselves (the tests). It
        holds the seat as its current holder; sockets from the network come through :meth:`admit`."""
        async with self.lock:
            holder = None
            if conn.seat is not None:
                holder = self.table.seats[conn.seat].token_hash
                await self.shield.learn(self.table.seats[conn.seat].account)
            elif joining is not None:
                holder = self.table.seats[joining].joining_hash
            self._connect(conn, joining, holder)

    def _connect(self, conn: Connection, joining: int | None, holder: str | None) -> None:
        """Seat ``conn`` at the table (or let it watch), send it the whole state, and tell the others
        only what changed: a ``presence`` delta when a seat's first socket opens, nothing when one
        more socket of a seat or a spectator arrives. Raises :class:`TableError` past a cap."""
        if conn.seat is not None:
            seat = self.table.seats[conn.seat]
            if seat.connections >= self.settings.max_connections_per_seat:
                limit = self.settings.max_connections_per_seat
                raise TableError(
                    f"too many connections for this seat (limit {limit})", "too-many-connections", limit=limit
                )
        elif self.spectators() >= self.settings.max_spectators_per_table:
            limit = self.settings.max_spectators_per_table
            raise TableError(
                f"too many spectators at this table (limit {limit})", "too-many-connections", limit=limit
            )
        self.table.touch()
        self.connections.add(conn)
        if joining is not None:
            self._joiners[conn] = joining
        if conn.seat is not None or joining is not None:
            self._holders[conn] = holder
        if conn.seat is not None:
            seat.arrive()
            if seat.connections == 1:
                self.presence.changed(seat, skip=conn)
        conn.push(Outbound(type="state", **self.state_for(conn.seat, joining=joining)))
        self.scheduler.schedule()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            if conn not in self.connections:
                return
            self.table.touch()
            self.connections.discard(conn)
            self._joiners.pop(conn, None)
            self._holders.pop(conn, None)
            self._addresses.pop(conn, None)
            self.shield.forget(conn)
            self.allowances.forget(conn)
            if conn.seat is not None:
                seat = self.table.seats[conn.seat]
                seat.depart(self.clock.now())
                if seat.connections == 0:
                    self.presence.changed(seat)
            self.scheduler.schedule()

    def address_of(self, conn: Connection) -> str:
        """The client address ``conn`` was admitted from ("" for a socket the tests connected)."""
        return self._addresses.get(conn, "")

    # ------------------------------------------------------------------ inbound messages

    async def receive(self, conn: Connection, text: str | None, address: str = "") -> None:
        """One frame from ``conn`` (None: a binary frame): the rate limit, then decoding, then
        :meth:`handle`; anything refused is answered on ``conn`` only."""
        # (a bot program's messages are held to its token's allowance by the gateway, docs/bot-api.md)
        program = conn.seat is not None and self.table.seats[conn.seat].program
        wait = 0.0 if program else self.allowances.message(conn.seat, conn)
        if wait:
            seconds = round(wait, 1)
            conn.push(ProtocolError(
                f"too many messages: slow down ({seconds} s)", "rate-limited", retry_after=seconds
            ).to_message())
            return
        try:
            if text is None:
                raise ProtocolError("binary frames are not part of the protocol: send JSON text", "binary-frame")
            message = decode(text, self.settings.max_message_bytes, self.settings.max_json_depth)
        except ProtocolError as error:
            log.info("table %s, %s: %s", self.code, address, error)
            conn.push(error.to_message())
            return
        await self.handle(conn, message)

    async def handle(self, conn: Connection, message: Any) -> None:
        """Apply one decoded message from ``conn`` (dispatch by message class)."""
        handler = self.handlers[type(message)]
        if conn in self.shield.removed:
            return  # the host removed this spectator: its socket is closing
        async with self.lock:
            # (a caller the room never connected, as in the tests, speaks for the seat it names)
            if conn.seat is not None and conn in self._holders and (
                self._holders[conn] != self.table.seats[conn.seat].token_hash
            ):
                self._unseat(conn)  # the seat changed hands: this socket watches from now on
            try:
                await self.table.check_lease()
                await handler(self, conn, message)
                return
            except TableError as error:
                refusal = error
            except IllegalMoveError as error:  # what the checks before it do not foresee, the engine refuses
                refusal = TableError(str(error), "illegal-move", detail=str(error))
            # Nothing changed; the client gets the reason, and after a refused game action a fresh
            # state to resync from (a refused chat line or seat change needs none).
            conn.push(refusal.to_message())
            if self.table.closed:
                return  # another process drives the table: this stale copy shows nothing more
            if type(message) in MESSAGE_KINDS or isinstance(message, (Start, Again)):
                conn.push(self.state_message(conn))

    # ------------------------------------------------------------------ the host's seats

    def send_seats(self) -> None:
        """A ``seats`` delta: the seats changed and nothing else did."""
        message = Outbound(type="seats", seats=[s.public() for s in self.table.seats],
                           open=len(self.table.joinable_seats()))
        for conn in list(self.connections):
            conn.push(message)

    def _take_seats_over(self) -> None:
        """Seats changed hands at a deal's start: each socket waiting to take its seat over plays it
        from now on, and every socket of a former holder watches."""
        for conn, index in list(self._joiners.items()):
            seat = self.table.seats[index]
            if seat.held and seat.joining is None and seat.token_hash == self._holders.get(conn):
                del self._joiners[conn]
                conn.seat = index
                seat.arrive()
        self.enforce_seats()

    def enforce_seats(self) -> None:
        """After seats changed hands: every socket that no longer holds the seat it spoke for
        watches from now on, and every socket waiting to take a seat over whose request was
        cancelled (or went to someone else) is forgotten. Each is told, and sent what it may see."""
        for conn in list(self.connections):
            holder = self._holders.get(conn)
            if conn.seat is not None:
                if self.table.seats[conn.seat].token_hash != holder:
                    self._unseat(conn)
            elif (index := self._joiners.get(conn)) is not None and self.table.seats[index].joining_hash != holder:
                del self._joiners[conn]
                self._holders.pop(conn, None)
                conn.push(TableError(f"your request for seat {index + 1} was cancelled: watching",
                                     "seat-lost", seat=index + 1).to_message())
                conn.push({"type": "state", **self.state_for(None)})

    def _unseat(self, conn: Connection) -> None:
        """``conn`` no longer holds its seat: it becomes a spectator at once, and is told so."""
        index = conn.seat
        assert index is not None
        seat = self.table.seats[index]
        conn.seat = None
        self._holders.pop(conn, None)
        seat.depart(self.clock.now() if seat.held else None)
        self.presence.changed(seat)
        conn.push(TableError(f"seat {index + 1} is no longer yours: watching", "seat-lost",
                             seat=index + 1).to_message())
        conn.push({"type": "state", **self.state_for(None)})

    # ------------------------------------------------------------------ for the scheduler and the registry

    async def start_game(self) -> None:
        """A new game with the same seats (first game, or play again). Caller holds the lock."""
        self.tell(await self.table.start_game())

    async def act(self, seat: int, value: int, stand_in: str | None = None) -> None:
        """Apply one answer, persist, tell everyone, and wake the bots. Caller holds the lock.
        ``stand_in`` says why a bot answered for a person ("timer" or "away"), None otherwise."""
        self.tell(await self.table.act(seat, value), stand_in)

    async def close(self) -> None:
        self.table.close()
        self.presence.close()
        await self.scheduler.close()
