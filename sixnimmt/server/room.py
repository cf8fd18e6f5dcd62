"""One table's live connections: who is connected to which seat, their messages, and what they see.

A room holds a :class:`~sixnimmt.server.table.TableSession` (the game, seats and saved state, with no
socket in sight) and the sockets around it, and one asyncio lock: every change runs under it. A
message is checked against the seat its socket holds, handed to the table (moves through
:mod:`~sixnimmt.server.moves`, seat changes through :mod:`~sixnimmt.server.seating`), and once the
change is saved each connection receives *its own* view (``game.view(seat)``; spectators
``game.view(None)``) with the public events to animate (:mod:`~sixnimmt.server.fanout`). Bots, the
stand-in for absent players and the turn timer live in :mod:`~sixnimmt.server.scheduling`; time comes
from the injected :class:`~sixnimmt.server.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from ..core import IllegalMoveError, PlayerView
from ..seats import HINT_LEVEL, available
from ..seats.advise import advise
from . import seating
from .chat import chat_content
from .clock import Clock, Timer
from .config import Settings
from .fanout import Connection, publish
from .hints import HintDesk
from .limits import RateLimiter
from .moves import MOVE_PHASES, make_move
from .protocol import (
    WIRE_VERSION,
    Again,
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
    ProtocolError,
    React,
    Release,
    Retract,
    SpectatorChat,
    Start,
    Sync,
    decode,
)
from .scheduling import BotThreads, Scheduler
from .seats import Seat, TableError, TableOptions, hash_token
from .store import TableData
from .table import Archive, Change, Save, TableSession

log = logging.getLogger("sixnimmt.server")

#: The hint's bot: the strongest level, as this server plays it (``Settings.level_specs``: the
#: grandmaster with its time limit, so a hint comes within a quarter of a second of thinking).
HINT_BOT = HINT_LEVEL


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
        threads: BotThreads | None = None,
    ) -> None:
        self.code = code
        self.settings = settings
        self.clock = clock
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.turns = Scheduler(self, settings, clock, threads)
        self.table = TableSession(code, options, seats, settings, clock, save, archive, self.turns)
        self.table.on_lost = lambda: self.on_lost(self) if self.on_lost is not None else None
        self.table.on_rolled_back = self._enforce_seats
        #: What to call when another process has taken the table over (the registry drops the room).
        self.on_lost: Callable[[Room], None] | None = None
        self._hinting: set[int | None] = set()
        self._seat_limits: dict[int | None, RateLimiter] = {}
        self._watcher_limits: dict[int | None, RateLimiter] = {}
        self._chat_limits: dict[int | None, RateLimiter] = {}
        self._joiners: dict[Connection, int] = {}  # spectators who take a seat over at the next deal
        #: The token hash each seated or joining socket proved when it connected. A socket speaks for
        #: a seat only while this is the seat's token hash (or, for a joiner, its ``joining_hash``):
        #: :meth:`_enforce_seats` checks it whenever seats change hands, and :meth:`handle` before
        #: every action, so a seat never has two holders.
        self._holders: dict[Connection, str | None] = {}
        #: Where hints are made (the process's :class:`HintDesk`; None: in the bots' threads, as a
        #: table on its own in a test), and each admitted socket's client address (its budgets).
        self.hints: HintDesk | None = None
        self._addresses: dict[Connection, str] = {}
        #: Seats whose arrival or departure the spectators have not heard of yet, with what they
        #: last heard (their presence messages are gathered, :meth:`_presence`).
        self._presence_heard: dict[int, bool] = {}
        self._presence_timer: Timer | None = None

    @classmethod
    def from_store(
        cls,
        data: TableData,
        settings: Settings,
        clock: Clock,
        save: Save,
        archive: Archive,
        threads: BotThreads | None = None,
    ) -> Room:
        now = clock.now()
        seats = [Seat.from_store(i, s, now) for i, s in enumerate(data.seats)]
        room = cls(data.code, TableOptions.from_dict(data.settings), seats, settings, clock, save, archive, threads)
        room.table.load(data)
        return room

    # ------------------------------------------------------------------ what clients see

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (no seat tokens, no cards)."""
        table = self.table
        return {
            "code": self.code,
            "status": table.status,
            "rules": table.options.rules.to_dict(),
            "spec": table.options.rules.spec.to_dict(),  # how the variant is played, as data
            "count": table.options.count,
            "timer": table.options.timer,
            "public": table.options.public,
            **({"rated": True} if table.options.rated else {}),
            "spectator_chat": table.options.spectator_chat,
            "seats": [s.public() for s in table.seats],
            "spectators": self.spectators(),
            "open": len(table.joinable_seats()),
            "game_number": table.game_number,
            "last_game_id": table.last_game_id,
            # the home page's "Your move" list reads it for the seats this browser holds
            "waiting_for": table.pending_seats(),
        }

    def state_for(
        self, seat: int | None, summary: dict[str, Any] | None = None, joining: int | None = None
    ) -> dict[str, Any]:
        """The full picture for one seat (or a spectator): the table and that seat's own view.
        ``summary`` may be passed in when many seats are served at once (it is the same for all);
        ``joining`` is the seat a spectator takes over at the next deal."""
        game = self.table.game
        return {
            "table": {**self._table_state(summary or self.summary()), "you": seat, "joining": joining},
            "view": None if game is None else game.view(seat).to_dict(),
        }

    def _table_state(self, summary: dict[str, Any]) -> dict[str, Any]:
        """A state's ``table``, but for the receiver's own ``you`` and ``joining``."""
        return {
            **summary,
            "chat": self.table.chat,
            "host": 0,
            "timer_left": self.turns.timer_left(),
            "away_left": self.turns.away_left(),  # per seat: seconds until the stand-in plays for an away player
            "away_grace": self.settings.absent_grace,
            "thinking": sorted(self.turns.long_thinking),
            "wire": WIRE_VERSION,
        }

    def _state(self, conn: Connection) -> dict[str, Any]:
        return {"type": "state", **self.state_for(conn.seat, joining=self._joiners.get(conn))}

    def _publish(self, change: Change, played_for: dict[str, Any] | None = None) -> None:
        publish(list(self.connections), self.table.game, change.events, lambda: self._table_state(self.summary()),
                self._joiners.get, actor=change.actor, played_for=played_for)

    def _tell(self, change: Change, stand_in: str | None = None) -> None:
        """A saved change reaches everyone: the sockets waiting to take a seat over take it (when
        seats changed hands at a deal's start), each connection gets its own view, the bots wake."""
        if change.reseated:
            self._take_seats_over()
            if change.actor is not None:
                self._send_seats()  # (a new game's state shows the seats anyway)
        played_for = None if stand_in is None or change.actor is None else {"seat": change.actor, "reason": stand_in}
        self._publish(change, played_for)
        self.turns.schedule()

    # ------------------------------------------------------------------ seats

    async def join(
        self, name: str, invite: str | None = None, account: int | None = None, account_token: str | None = None,
        resume_only: bool = False, key: str | None = None, still_wanted: Callable[[], bool] | None = None,
    ) -> tuple[int, str, bool]:
        """Take a seat (:func:`~sixnimmt.server.seating.take_seat`). Returns the seat, its new token,
        and whether the taking over waits for the next deal."""
        async with self.lock:
            joined = await seating.take_seat(self.table, name, invite, account, account_token,
                                             resume_only, key, still_wanted)
            if joined.started is not None:
                self._tell(joined.started)
            elif joined.changed:
                self._send_seats()
            return joined.seat, joined.token, joined.later

    def bot_thinking(self, seat: int, thinking: bool) -> None:
        """A ``thinking`` delta: the bot in ``seat`` has been thinking a while (or has answered)."""
        message = Outbound(type="thinking", seat=seat, thinking=thinking)
        for conn in list(self.connections):
            conn.push(message)

    def idle(self, now: float, after: float) -> bool:
        """Nobody connected, no bot thinking, and nothing happened for ``after`` seconds. A turn-based
        game under way stays in memory, so its time per move runs out with nobody at the table."""
        if self.turns.turn_based and self.table.status == "playing":
            return False
        return not self.connections and not self.turns.busy and now - self.table.last_active > after

    def anyone_connected(self) -> bool:
        return bool(self.connections)

    def spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    async def admit(self, conn: Connection, token: str | None, address: str = "") -> None:
        """Seat ``conn`` by what ``token`` proves (the seat it holds, or the one it takes over at the
        next deal), else let it watch; decided under the lock, so no seat change slips in between.
        An unknown token is told so, and watches. ``address`` is the client's (its budgets)."""
        async with self.lock:
            seat, joining = self.table.place_for_token(token)
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
        self.table.last_active = self.clock.now()
        self.connections.add(conn)
        if joining is not None:
            self._joiners[conn] = joining
        if conn.seat is not None or joining is not None:
            self._holders[conn] = holder
        if conn.seat is not None:
            seat.connections += 1
            seat.away_since = None
            if seat.connections == 1:
                self._presence(seat, skip=conn)
        conn.push(Outbound(type="state", **self.state_for(conn.seat, joining=joining)))
        self.turns.schedule()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            if conn not in self.connections:
                return
            self.table.last_active = self.clock.now()
            self.connections.discard(conn)
            self._joiners.pop(conn, None)
            self._holders.pop(conn, None)
            self._addresses.pop(conn, None)
            self._watcher_limits.pop(id(conn), None)
            self._chat_limits.pop(id(conn), None)
            if conn.seat is not None:
                seat = self.table.seats[conn.seat]
                seat.connections = max(0, seat.connections - 1)
                if seat.connections == 0:
                    seat.away_since = self.clock.now()
                    self._presence(seat)
            self.turns.schedule()

    def _presence(self, seat: Seat, skip: Connection | None = None) -> None:
        """A seat's first socket opened or its last one closed: the players hear of it at once; the
        spectators hear of what changed over ``Settings.presence_coalesce_seconds`` at its end, so
        a client opening and closing a socket over and over sends them nothing."""
        connected = seat.connections > 0
        message = Outbound(type="presence", seat=seat.index, connected=connected, spectators=self.spectators())
        for other in list(self.connections):
            if other is not skip and other.seat is not None:
                other.push(message)
        self._presence_heard.setdefault(seat.index, not connected)
        if self._presence_timer is None:
            self._presence_timer = self.clock.call_later(self.settings.presence_coalesce_seconds,
                                                         self._tell_spectators)

    def _tell_spectators(self) -> None:
        """The end of a presence window: each seat whose presence changed since the spectators last
        heard of it, in one message each."""
        self._presence_timer = None
        heard, self._presence_heard = self._presence_heard, {}
        if self.table.closed:
            return
        for index, before in heard.items():
            seat = self.table.seats[index]
            if (seat.connections > 0) == before:
                continue  # came and went (or went and came) within the window
            message = Outbound(type="presence", seat=index, connected=seat.connections > 0,
                               spectators=self.spectators())
            for other in list(self.connections):
                if other.seat is None:
                    other.push(message)

    def retry_after(self, conn: Connection) -> float:
        """Take one message from ``conn``'s allowance: 0 if allowed, else seconds to wait. A seat has
        one allowance over all its sockets; each spectator socket has its own."""
        return self._take(conn, self._seat_limits, self._watcher_limits,
                          self.settings.rate_per_second, self.settings.rate_burst)

    def _take(
        self,
        conn: Connection,
        per_seat: dict[int | None, RateLimiter],
        per_socket: dict[int | None, RateLimiter],
        rate: float,
        burst: int,
    ) -> float:
        now = self.clock.now()
        limits, key = (per_seat, conn.seat) if conn.seat is not None else (per_socket, id(conn))
        limiter = limits.get(key)
        if limiter is None:
            limiter = limits[key] = RateLimiter(rate, burst, now)
        return 0.0 if limiter.allow(now) else limiter.retry_after(now)

    # ------------------------------------------------------------------ inbound messages

    async def receive(self, conn: Connection, text: str | None, address: str = "") -> None:
        """One frame from ``conn`` (None: a binary frame): the rate limit, then decoding, then
        :meth:`handle`; anything refused is answered on ``conn`` only."""
        wait = self.retry_after(conn)
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
        handler = self._HANDLERS[type(message)]
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
            if type(message) in MOVE_PHASES or isinstance(message, (Start, Again)):
                conn.push(self._state(conn))

    async def _on_move(
        self, conn: Connection, message: Play | ChooseRow | Draft | Order | Keep | Pass | Retract
    ) -> None:
        change = await make_move(self.table, conn.seat, message)
        if change is not None:
            self._tell(change)

    async def _on_start(self, conn: Connection, _message: Start) -> None:
        self._tell(await seating.start_with_bots(self.table, conn.seat))

    async def _on_again(self, conn: Connection, _message: Again) -> None:
        self._tell(await self.table.play_again(conn.seat))

    async def _on_sync(self, conn: Connection, _message: Sync) -> None:
        conn.push(self._state(conn))

    async def _on_ping(self, conn: Connection, _message: Ping) -> None:
        conn.push({"type": "pong"})


    async def _on_hint(self, conn: Connection, _message: Hint) -> None:
        if conn.seat is None:
            raise TableError("spectators get no hints", "spectator", action="hint")
        view = self.table.require_game().view(conn.seat)
        if view.decision is None:
            raise TableError("nothing to decide now: no hint needed", "nothing-to-decide")
        if conn.seat in self._hinting:
            return  # one hint at a time per seat (however many sockets it has); the answer is on its way
        if self.hints is not None:
            self.hints.take(self._addresses.get(conn, ""))  # (raises: out of budget, or the desk is full)
        self._hinting.add(conn.seat)
        asyncio.get_running_loop().create_task(self._hint(conn, view))

    async def _hint(self, conn: Connection, view: PlayerView) -> None:
        """A strong bot's advice, computed off the event loop and sent to ``conn`` only."""
        try:
            spec = self.settings.level_specs.get(HINT_BOT, HINT_BOT) if HINT_BOT in available() else "random"
            think = self.turns.threads.run if self.hints is None else self.hints.run
            advice = await think(advise, view, spec)
            if conn.seat != view.seat or conn not in self.connections:
                return  # the seat changed hands (or the socket left) while the hint was made
            conn.push({"type": "hint", "deal": view.deal, "turn": view.turn,
                       "kind": view.decision.kind.value if view.decision else None, **advice.to_dict()})
        except Exception:  # a hint is a nicety: never let it hurt the table
            log.exception("hint failed at table %s", self.code)
        finally:
            self._hinting.discard(view.seat)


    # ------------------------------------------------------------------ the host's seats

    async def _on_invite(self, conn: Connection, message: Invite) -> None:
        token, name = await seating.invite(self.table, conn.seat, message.seat, message.name)
        self._enforce_seats()
        conn.push({"type": "invite", "seat": message.seat, "name": name, "token": token})
        self._send_seats()

    async def _on_release(self, conn: Connection, message: Release) -> None:
        await seating.release(self.table, conn.seat, message.seat)
        self._enforce_seats()
        self._send_seats()

    async def _on_leave(self, conn: Connection, _message: Leave) -> None:
        await seating.leave(self.table, conn.seat)
        self._enforce_seats()
        self._send_seats()
        self.turns.schedule()

    def _send_seats(self) -> None:
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
            if seat.person and seat.joining is None and seat.token_hash == self._holders.get(conn):
                del self._joiners[conn]
                conn.seat = index
                seat.connections += 1
                seat.away_since = None
        self._enforce_seats()

    def _enforce_seats(self) -> None:
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
        seat.connections = max(0, seat.connections - 1)
        if seat.connections == 0 and seat.person:
            seat.away_since = self.clock.now()
        self._presence(seat)
        conn.push(TableError(f"seat {index + 1} is no longer yours: watching", "seat-lost",
                             seat=index + 1).to_message())
        conn.push({"type": "state", **self.state_for(None)})

    # ------------------------------------------------------------------ chat

    async def _on_chat(self, conn: Connection, message: Chat) -> None:
        await self._say(conn, chat_content(conn.seat, self.table.options, self.settings, text=message.text))

    async def _on_react(self, conn: Connection, message: React) -> None:
        await self._say(conn, chat_content(conn.seat, self.table.options, self.settings, emoji=message.emoji))

    async def _say(self, conn: Connection, content: dict[str, Any]) -> None:
        wait = self._take(conn, self._chat_limits, self._chat_limits,
                          self.settings.chat_per_minute / 60, self.settings.chat_burst)
        if wait:
            seconds = max(1, round(wait))
            raise TableError(f"too many chat messages: wait {seconds} s", "rate-limited", retry_after=seconds)
        message = Outbound(type="chat", **await self.table.say(conn.seat, content))
        for other in list(self.connections):
            other.push(message)

    async def _on_spectator_chat(self, conn: Connection, message: SpectatorChat) -> None:
        await self.table.allow_spectator_chat(conn.seat, message.allow)
        self._tell(Change())

    _HANDLERS: ClassVar[dict[type, Callable[[Room, Connection, Any], Awaitable[None]]]] = {
        Invite: _on_invite,
        Release: _on_release,
        Leave: _on_leave,
        Chat: _on_chat,
        React: _on_react,
        SpectatorChat: _on_spectator_chat,
        Play: _on_move,
        ChooseRow: _on_move,
        Draft: _on_move,
        Order: _on_move,
        Keep: _on_move,
        Pass: _on_move,
        Retract: _on_move,
        Start: _on_start,
        Again: _on_again,
        Sync: _on_sync,
        Ping: _on_ping,
        Hint: _on_hint,
    }

    # ------------------------------------------------------------------ for the scheduler and the registry

    async def start_game(self) -> None:
        """A new game with the same seats (first game, or play again). Caller holds the lock."""
        self._tell(await self.table.start_game())

    async def act(self, seat: int, value: int, stand_in: str | None = None) -> None:
        """Apply one answer, persist, tell everyone, and wake the bots. Caller holds the lock.
        ``stand_in`` says why a bot answered for a person ("timer" or "away"), None otherwise."""
        self._tell(await self.table.act(seat, value), stand_in)

    async def close(self) -> None:
        self.table.closed = True
        if self._presence_timer is not None:
            self._presence_timer.cancel()
        await self.turns.close()
