"""The registry of rooms: every room in memory, loaded from the store on first use and dropped again
when idle; creates tables (with fresh join codes) and lists them for the lobby."""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Protocol

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from ..calls import (
    InviteProgram,
    Join,
    ProcessCall,
    RemoteCall,
    Summary,
    TableCall,
    WithdrawInvitation,
)
from ..clock import Clock, LoopClock
from ..config import Settings
from ..store.database import Store
from ..store.rows import GameRow, TableData
from ..store.writer import StoreHungError, Writer
from . import seating
from .handlers import HANDLERS
from .hints import HintDesk
from .room import Room
from .scheduling import BotThreads
from .seat import Seat, SeatKind
from .shield import BlockBook, NoBlocks
from .table_setup import (
    TURN_BASED,
    TableError,
    TableMovedError,
    TableOptions,
    bot_label,
    check_bot_level,
    check_rated_rules,
    clean_name,
    hash_token,
)

#: Letters for join codes: no 0/O, 1/I/L, so a code read aloud or off a phone is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
log = logging.getLogger("sixnimmt.server")


class Peers(Protocol):
    """What the registry asks of the other server processes on its database (the cluster,
    :mod:`~sixnimmt.server.cluster`, which the tables never import): who drives a table, whether this
    process still may, and the requests and lobby listings only another process can answer."""

    me: str

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def claim(self, code: str) -> tuple[str, int]: ...
    async def still_drives(self, room: Room) -> bool: ...
    async def call(self, owner: str, code: str, call: RemoteCall) -> Any: ...
    async def lobbies(self, limit: int) -> list[dict[str, Any]]: ...


class Rooms:
    """Every room in memory, loaded from the store on first use; creates tables."""

    def __init__(self, store: Store, settings: Settings, clock: Clock | None = None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock or LoopClock()
        self.db = Writer(store)
        #: The threads every table's bots and hints think in (a cap on searches at once).
        self.threads = BotThreads(settings.think_threads, settings.think_niceness)
        #: Where every table's hints are made (a thread of their own, a budget per address).
        self.hints = HintDesk(settings, self.clock)
        self._rooms: dict[str, Room] = {}
        #: The accounts' blocks (docs/web.md, "Moderation"): the server gives its book; none by default.
        self.blocks: BlockBook = NoBlocks()
        self._last_sweep = self.clock.now()
        self._loading = asyncio.Lock()
        #: Several processes on one database: this process's part (None: it is the only one).
        self.cluster: Peers | None = None
        #: What else a finished game's transaction stores, given the table (the accounts' seats and
        #: a rated game's ratings: :mod:`~sixnimmt.server.accounts.ratings`); None: nothing.
        self.archive_hook: Callable[[TableData], Callable[[Session, GameRow], object] | None] | None = None
        self._closing: set[asyncio.Task[None]] = set()  # rooms being closed (kept: a task needs a reference)
        #: What another process may ask this one about itself rather than a table (the bot programs
        #: connected here: :mod:`~sixnimmt.server.botapi.gateway`), by the call's type; each answers
        #: ``{"result": ...}`` or ``{"error": ...}`` (:meth:`answer_calls`).
        self.process_calls: dict[type, Callable[[Any], Awaitable[dict[str, Any]]]] = {}
        #: Who is told that a turn-based table waits for them (:mod:`~sixnimmt.server.notify`): called,
        #: under the table's lock, with its code, the accounts whose move it is with none of their
        #: sockets at the table, the decision (the moment it was reached), and a function that says
        #: which of them it still waits for, so absent, later; None: nobody is told.
        self.move_due_hook: Callable[[str, list[int], float, Callable[[], list[int]]], None] | None = None

    async def join_cluster(self, peers: Peers) -> None:
        """Share the database with other processes from now on, through ``peers``."""
        self.cluster = peers
        await peers.start()

    async def _archive(
        self, data: TableData, record: dict[str, Any], winners: list[int], players: list[list[dict[str, Any]]]
    ) -> int:
        after = None if self.archive_hook is None else self.archive_hook(data)
        return await self.db.run(self.store.finish_game, data, record, winners, players, after)

    def _room(self, code: str, options: TableOptions, seats: list[Seat]) -> Room:
        return Room(code, options, seats, self.settings, self.clock, self.db.save, self._archive, HANDLERS,
                    self.threads, self.hints, self._lost)

    async def get(self, code: str) -> Room:
        """The room of ``code``, driven by this process (:class:`LookupError` if there is no such
        table, :class:`TableMovedError` if another process drives it)."""
        target = await self.locate(code)
        if isinstance(target, str):
            raise TableMovedError()
        return target

    async def locate(self, code: str) -> Room | str:
        """The room of ``code`` if this process drives it (loading it, and with several processes
        taking it over if nobody alive drives it), else the id of the process that does."""
        code = code.strip().upper()
        await self.evict_idle()
        if code in self._rooms and not self._rooms[code].table.closed:  # (a closed one is being dropped)
            room = self._rooms[code]
            room.table.touch()  # about to be used: not idle
            return room
        missing = LookupError(f"no table with code {code[:CODE_LENGTH + 3]!r}")
        if not valid_code(code):
            raise missing
        async with self._loading:
            if code in self._rooms and not self._rooms[code].table.closed:
                return self._rooms[code]
            epoch = None
            if self.cluster is not None:
                try:
                    owner, epoch = await self.cluster.claim(code)
                except LookupError:
                    raise missing from None
                if owner != self.cluster.me:
                    return owner
            try:
                data = await self.db.run(self.store.load_table, code)
            except (DBAPIError, StoreHungError):  # the database went away, or hangs: the page tries again
                raise TableError("the server is reconnecting to its database: try again", "table-unavailable") from None
            if data is None:
                raise missing
            room = Room.from_store(data, self.settings, self.clock, self.db.save, self._archive, HANDLERS,
                    self.threads, self.hints, self._lost)
            self._adopt(room, epoch)
            # loaded for whatever reason (a socket, a request, a due time): its bots and its timer
            # run from now on (a turn-based deadline that passed meanwhile is due at once)
            room.scheduler.schedule()
            return room

    def _adopt(self, room: Room, epoch: int | None) -> None:
        room.shield.book = self.blocks
        room.table.adopt(epoch, None if self.cluster is None else functools.partial(self.cluster.still_drives, room))
        room.on_told = self._told
        self._rooms[room.code] = room

    def _told(self, room: Room) -> None:
        """After a change at ``room``: a turn-based decision waiting for absent accounts is told."""
        waiting = self.absent_movers(room) if self.move_due_hook is not None else []
        if self.move_due_hook is None or not waiting:
            return
        step = room.scheduler.step_started

        def still() -> list[int]:
            same = room.scheduler.step_started == step and not room.table.closed
            return self.absent_movers(room) if same else []

        self.move_due_hook(room.code, waiting, step, still)

    @staticmethod
    def absent_movers(room: Room) -> list[int]:
        """The accounts a turn-based game at ``room`` waits for, with none of their sockets there."""
        game, table = room.table.game, room.table
        if game is None or table.status != "playing" or not room.scheduler.turn_based:
            return []
        return [seat.account for d in game.pending() if (seat := table.seats[d.seat]).person
                and not seat.program and seat.account is not None and seat.connections == 0]

    def local(self, code: str) -> Room | None:
        """The room of ``code`` if it is in this process's memory."""
        room = self._rooms.get(code)
        return None if room is None or room.table.closed else room

    def rooms_with(self, conn: object) -> list[Room]:
        return [room for room in self._rooms.values() if conn in room.connections]

    def answer_calls(self, kind: type[ProcessCall], answer: Callable[[Any], Awaitable[dict[str, Any]]]) -> None:
        """Let another process ask this one ``kind`` of call (about this process, not a table)."""
        self.process_calls[kind] = answer

    async def call(self, code: str, call: TableCall) -> Any:
        """An HTTP request about table ``code``: run here, or by the process that drives it."""
        target = await self.locate(code)
        if isinstance(target, Room):
            return await self.run_call(target, call)
        assert self.cluster is not None
        reply = await self.cluster.call(target, code.strip().upper(), call)
        if "error" in reply:
            error = reply["error"]
            raise TableError(error["message"], error["code"], **error["params"])
        return reply["result"]

    async def run_call(self, room: Room, call: TableCall, still_wanted: Callable[[], bool] | None = None) -> Any:
        """Run ``call`` on a room of this process; ``still_wanted``: whether the caller (another
        process) still waits for the answer."""
        match call:
            case Summary():
                return room.summary()
            case Join():
                return list(await room.join(call.name, call.invite, call.account, call.token, call.resume_only,
                                            call.key, still_wanted, call.program, tuple(call.stable)))
            case InviteProgram() | WithdrawInvitation():
                return await self._invitation(room, call)

    @staticmethod
    async def _invitation(room: Room, call: InviteProgram | WithdrawInvitation) -> Any:
        """The seat kept for a bot program (docs/bot-api.md): the host (proved by its seat token)
        keeps seat ``seat`` for bot ``name`` (returns the invitation's token), or the bot declined."""
        async with room.lock:
            if isinstance(call, InviteProgram):
                by, _ = room.table.place_for_token(call.host)
                token, _name = await seating.invite(room.table, by, call.seat, call.name, program=True,
                                                    stable=tuple(call.stable))
                result: Any = token
            else:
                result = await seating.withdraw_invitation(room.table, call.invite)
            room.enforce_seats()
            room.send_seats()
            return result

    def _lost(self, room: Room) -> None:
        """Another process took ``room`` over: drop this copy (after the current change)."""
        asyncio.get_running_loop().create_task(self._drop(room, release=False))

    async def _drop(self, room: Room, release: bool) -> None:
        if self._rooms.get(room.code) is room:
            del self._rooms[room.code]
        await room.close()
        for conn in list(room.connections):
            drop = getattr(conn, "drop", None)
            if drop is not None:
                drop()
        if release and room.table.epoch is not None:
            await self.db.run(self.store.release_table, room.code, room.table.epoch)

    def drop(self, code: str) -> None:
        """Another process drives ``code`` now: this process's copy is closed at once and dropped
        without waiting for a change under way (the store refuses its write), so that the heartbeat
        which finds this out never waits on a table."""
        room = self._rooms.get(code)
        if room is not None and not room.table.closed:
            room.table.close()
            self._lost(room)

    def lose_all(self) -> dict[str, int]:
        """The database is out of reach: every room is dropped at once, without waiting for a change
        under way (its write fails, or lands fenced by its epoch), and its sockets are told to
        reconnect. Returns the epoch of each table dropped, to give it up once the database is back."""
        lost: dict[str, int] = {}
        loop = asyncio.get_running_loop()
        for code, room in list(self._rooms.items()):
            del self._rooms[code]
            room.table.close()
            if room.table.epoch is not None:
                lost[code] = room.table.epoch
            for conn in list(room.connections):
                drop = getattr(conn, "drop", None)
                if drop is not None:
                    drop()
            closing = loop.create_task(room.close())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        return lost

    def loaded_codes(self) -> list[str]:
        return list(self._rooms)

    async def create(
        self, options: TableOptions, host_name: str, seats: list[dict[str, Any]],
        account: int | None = None, token_for: Callable[[str], str] | None = None, program: bool = False,
    ) -> tuple[Room, str]:
        """A new table with the host in seat 0; ``seats`` describes seats 1.. ("open" or a bot). A
        signed-in host sits under ``account``, with the seat token ``token_for(code)`` (derived from
        the account and the table's code); ``program``: the host is a bot program (a seek)."""
        players = options.rules.players
        if len(seats) != players - 1:
            raise TableError(
                f"{players} players need {players - 1} seats besides the host's", "seat-count", players=players
            )
        host = clean_name(host_name)
        if options.rated and account is None:
            raise TableError("sign in to play at a rated table", "rated-sign-in")
        if options.rated:
            check_rated_rules(options.rules, [options.fill_bot, *(str(s.get("bot", "medium")) for s in seats
                                                                  if s.get("kind") == "bot")])
        token = secrets.token_urlsafe(24)
        room_seats = [Seat(0, SeatKind.HUMAN, host, None, hash_token(token), account=account, program=program,
                           away_since=self.clock.now())]
        for index, spec in enumerate(seats, start=1):
            kind = spec.get("kind")
            if kind == "open":
                room_seats.append(Seat(index, SeatKind.OPEN, ""))
            elif kind == "bot":
                level = check_bot_level(spec.get("bot", "medium"), "bot")
                taken = {s.name for s in room_seats}
                room_seats.append(Seat(index, SeatKind.BOT, bot_label(index, taken), level))
            else:
                raise TableError(f"seat {index + 1} must be 'open' or 'bot'", "bad-option", option="seats")
        async with self._loading:
            code = await self._new_code()
            if token_for is not None:
                token = token_for(code)
                room_seats[0] = replace(room_seats[0], token_hash=hash_token(token))
            room = self._room(code, options, room_seats)
            epoch = None if self.cluster is None else 1
            saved = room.table.first_save(epoch, None if self.cluster is None else self.cluster.me)
            await self.db.run(self.store.create_table, saved)
            self._adopt(room, epoch)
        if not room.table.open_seats():
            async with room.lock:
                await room.start_game()
        return room, token

    async def open_table(self, options: TableOptions, code: str, seats_for: Callable[[str], list[Seat]]) -> Room | None:
        """A table under a code chosen beforehand (a tournament's: planned in its own rows, so that
        whichever process opens it, and however often, there is one table), every seat filled by
        ``seats_for(code)``; its game starts at once. None if a table with that code exists already."""
        code = code.strip().upper()
        async with self._loading:
            if code in self._rooms or await self.db.run(self.store.code_taken, code):
                return None
            room = self._room(code, options, seats_for(code))
            epoch = None if self.cluster is None else 1
            saved = room.table.first_save(epoch, None if self.cluster is None else self.cluster.me)
            try:
                await self.db.run(self.store.create_table, saved)
            except DBAPIError:  # (another process opened it first: the code is unique)
                if await self.db.run(self.store.code_taken, code):
                    return None
                raise
            self._adopt(room, epoch)
        async with room.lock:
            await room.start_game()
        return room

    async def wake_turn_based(self) -> int:
        """Load every turn-based table whose game runs (at start-up): its time per move runs out
        with nobody at the table, so it must be in memory for its stand-in to play. With several
        processes each table goes to whichever claims it first. Returns how many this process took."""
        codes = await self.db.run(self.store.playing_with_timer, TURN_BASED)
        taken = 0
        for code in codes:
            try:
                room = await self.locate(code)
            except (LookupError, TableError) as error:
                log.warning("turn-based table %s not loaded: %s", code, error)
                continue
            if isinstance(room, Room):  # (scheduled as it was loaded)
                taken += 1
        return taken

    async def evict_idle(self) -> None:
        """Drop rooms nobody has used for ``Settings.idle_evict`` seconds from memory (their state is
        in the store; with several processes, so is a turn-based game's deadline, which brings the
        table back in time: :meth:`Room.idle`). Runs at most every few seconds, from :meth:`locate`
        and from the cluster's heartbeat."""
        now = self.clock.now()
        if now - self._last_sweep < min(30.0, self.settings.idle_evict / 2):
            return
        self._last_sweep = now
        kept = self.cluster is not None
        for room in list(self._rooms.values()):
            if room.idle(now, self.settings.idle_evict, kept):
                async with room.lock:
                    if room.idle(now, self.settings.idle_evict, kept):
                        await self._drop(room, release=True)

    def loaded(self) -> int:
        return len(self._rooms)

    async def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._rooms and not await self.db.run(self.store.code_taken, code):
                return code

    async def lobby(self, limit: int = 40) -> list[dict[str, Any]]:
        """The lobby: with several processes, every live process lists the public tables it drives."""
        listed = self.listing(limit)
        if self.cluster is None:
            return listed
        listed += await self.cluster.lobbies(limit)
        listed.sort(key=lambda t: (t["status"] != "waiting", -_people(t), t["code"]))
        return listed[:limit]

    def listing(self, limit: int = 40) -> list[dict[str, Any]]:
        """The lobby: public tables, waiting or playing, that someone is connected to (a table is in
        memory while anyone is), open ones first, then the busiest. Private tables are reached by
        their link or code only."""
        listed = [
            room for room in self._rooms.values()
            if room.table.options.public and room.connections and room.table.status in ("waiting", "playing")
        ]
        listed.sort(key=lambda r: (r.table.status != "waiting", -len(r.connections), r.code))
        return [room.summary() for room in listed[:limit]]

    async def close(self) -> None:
        for room in self._rooms.values():
            await room.close()
        self.threads.close()
        self.hints.close()
        await self.db.close()
        if self.cluster is not None:  # give the tables up, so that other processes take them at once
            for room in list(self._rooms.values()):
                if room.table.epoch is not None:
                    try:
                        await asyncio.to_thread(self.store.release_table, room.code, room.table.epoch)
                    except Exception:  # the lease runs out by itself
                        break
            await self.cluster.stop()


def _people(summary: dict[str, Any]) -> int:
    """Seats with someone connected, and spectators: how busy a listed table is."""
    return int(summary["spectators"]) + sum(1 for seat in summary["seats"] if seat["connected"])


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)
