"""One table of friends and bots around one :class:`~sixnimmt.core.Game`.

A room owns the game, the seats and the live connections, and one asyncio lock: every change to the
game happens under it, is written to the store, and then each connection receives *its own* view
(``game.view(seat)``; spectators ``game.view(None)``) with the public events to animate. Rules are
never re-implemented here: every action goes through ``game.act``. Bots, the fallback for absent
players and the turn timer live in :mod:`~sixnimmt.server.scheduling`; time comes from the injected
:class:`~sixnimmt.server.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ..core import (
    PASS,
    CardChosen,
    DealStarted,
    Decision,
    DecisionKind,
    Event,
    Game,
    IllegalMoveError,
    Phase,
    PlayerView,
)
from ..core.record import replay
from ..seats import HINT_LEVEL, available
from ..seats.advise import advise
from .clock import Clock, Timer
from .config import Settings
from .hints import HintDesk
from .limits import RateLimiter
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
    to_json,
)
from .scheduling import BotThreads, Scheduler
from .seats import (
    REACTIONS,
    Seat,
    StoreFailedError,
    TableError,
    TableMovedError,
    TableOptions,
    bot_label,
    clean_name,
    hash_token,
    names_clash,
)
from .store import LeaseLostError, TableData, changed_columns

log = logging.getLogger("sixnimmt.server")


def token_for_key(code: str, key: str) -> str:
    """The seat token a join with the client's ``key`` gets at table ``code``: derived, so that a
    retry with the same key finds the seat it took (the store keeps only the token's hash)."""
    digest = hashlib.sha256(f"sixnimmt join\0{code}\0{key}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


#: The hint's bot: the strongest level, as this server plays it (``Settings.level_specs``: the
#: grandmaster with its time limit, so a hint comes within a quarter of a second of thinking).
HINT_BOT = HINT_LEVEL

#: The most answers one seat gives in one turn that the turn's log keeps (what a restart re-applies).
#: A turn asks a seat for one card (two in Nifty), a row when a card is too low, and in Hand which
#: taken cards to keep: at most 11 answers in random games of every variant
#: (``test_the_turn_log_stays_within_its_bound``). A change of mind replaces the seat's card and a
#: card sent again changes nothing, so only a legal game's answers are kept; one past this bound is
#: refused. The saved ``current`` column therefore holds at most ``players * MAX_ANSWERS_PER_SEAT``
#: answers (docs/web.md, "What a table keeps").
MAX_ANSWERS_PER_SEAT = 16

Save = Callable[[TableData], Awaitable[None]]
#: Store a finished game and the table's state in one transaction; returns the game's id.
Archive = Callable[[TableData, dict[str, Any], list[int], list[list[dict[str, Any]]]], Awaitable[int]]


class Connection(Protocol):
    """One live client. ``push`` queues a message without waiting (a slow client never blocks a room)."""

    seat: int | None

    def push(self, message: dict[str, Any]) -> None: ...


@dataclass(slots=True)
class _Action:
    """An answer given this turn (kept so a restart loses no card already chosen)."""

    seat: int
    value: int


class SharedState:
    """One change's ``update`` messages, made from what every receiver shares: the events, the
    table, and the view fields common to every seat at this moment (those of the spectators' view,
    :meth:`PlayerView.shared_to_dict`), each built and serialized once. A seat's message adds only
    its own part (:data:`~sixnimmt.core.views.OWN_FIELDS`: its seat, hand, own choice and
    decision; the table's ``you`` and ``joining``), serialized on its own and spliced into the same
    text. Nothing of one seat's own part is in another's message: each is made from that seat's
    view alone."""

    def __init__(self, table: dict[str, Any], game: Game | None, events: list[dict[str, Any]],
                 extra: dict[str, Any]) -> None:
        self.table = table
        self.game = game
        self.view = None if game is None else game.view(None).shared_to_dict()
        self.events = events
        self.extra = extra
        self._head = '{"type":"update","events":' + to_json(events) + ',"table":{'
        self._table_rest = "," + to_json(table)[1:] + ',"view":'
        self._view_rest = None if self.view is None else "," + to_json(self.view)[1:]
        self._end = "".join(f",{to_json(key)}:{to_json(value)}" for key, value in extra.items()) + "}"

    def update(self, seat: int | None, joining: int | None) -> Outbound:
        """The ``update`` for ``seat`` (None: a spectator, taking ``joining`` over at the next deal)."""
        own_table = {"you": seat, "joining": joining}
        text = [self._head, to_json(own_table)[1:-1], self._table_rest]
        view: dict[str, Any] | None = None
        if self.game is None or self._view_rest is None or self.view is None:
            text.append("null")
        else:
            own = self.game.view(seat).own_to_dict()
            view = {**own, **self.view}
            text += ["{", to_json(own)[1:-1], self._view_rest]
        text.append(self._end)
        fields = {"type": "update", "events": self.events, "table": {**self.table, **own_table}, "view": view,
                  **self.extra}
        return Outbound.prepared(fields, "".join(text))


class Room:
    """One table. All mutations run under :attr:`lock`; see the module docstring."""

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
        self.options = options
        self.seats = seats
        self.settings = settings
        self.status = "waiting"
        self.game: Game | None = None
        self.game_number = 0
        self.last_game_id: int | None = None
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self._save = save
        self._archive = archive
        self.clock = clock
        self.turns = Scheduler(self, settings, clock, threads)
        self._turn_log: list[_Action] = []
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
        self.chat: list[dict[str, Any]] = []
        self._chat_id = 0
        #: Who played each seat in each deal of this game (the record keeps the names it started with).
        self.deal_players: list[list[dict[str, Any]]] = []
        self.last_active = clock.now()
        self.closed = False
        #: The last record made, the game it is of and how many of its events it had seen.
        self._record_cache: tuple[Game, int, dict[str, Any]] | None = None
        #: The state the store holds (what a failed save rolls the room back to).
        self.saved: TableData | None = None
        #: Several processes: this process's fencing epoch for the table (None: the only process),
        #: and what to call when another process has taken the table over.
        self.epoch: int | None = None
        self.on_lost: Callable[[Room], None] | None = None
        #: Where hints are made (the process's :class:`HintDesk`; None: in the bots' threads, as a
        #: table on its own in a test), and each admitted socket's client address (its budgets).
        self.hints: HintDesk | None = None
        self._addresses: dict[Connection, str] = {}
        #: Seats whose arrival or departure the spectators have not heard of yet, with what they
        #: last heard (their presence messages are gathered, :meth:`_presence`).
        self._presence_heard: dict[int, bool] = {}
        self._presence_timer: Timer | None = None
        #: Several processes: whether this process still drives the table (checked before acting, so
        #: that a process paused past its lease does not act on what it queued meanwhile).
        self.may_act: Callable[[Room], Awaitable[bool]] | None = None

    # ------------------------------------------------------------------ creation and restore

    def to_store(self) -> TableData:
        return TableData(
            code=self.code,
            status=self.status,
            settings=self.options.to_dict(),
            seats=[s.to_store() for s in self.seats],
            game_number=self.game_number,
            record=None if self.game is None else self._record(self.game),
            current=self._current(),
            chat=self.chat,
            epoch=self.epoch,
        )

    def _current(self) -> dict[str, Any]:
        """The stored ``current`` column: this turn's answers so far and what the record lacks."""
        return {
            "log": [[a.seat, a.value] for a in self._turn_log],
            "last_game_id": self.last_game_id,
            "deal_players": self.deal_players,
        }

    def _record(self, game: Game) -> dict[str, Any]:
        """``game.record()``, made again only when an event the record shows has happened since the
        last one: most moves only choose a card, which the record does not hold (this turn's choices
        are kept in ``current["log"]``), and copying the whole record was a large part of a move."""
        events = game.events
        cached = self._record_cache
        if cached is not None and cached[0] is game and all(
            type(event) is CardChosen for event in events[cached[1]:]
        ):
            record = cached[2]
        else:
            record = game.record()
        self._record_cache = (game, len(events), record)
        return record

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
        room._load(data)
        return room

    def _load(self, data: TableData) -> None:
        """Take the stored state ``data`` (seats' settings already in place): status, game, chat."""
        self.status = data.status
        self.game_number = data.game_number
        current = data.current or {}
        self.last_game_id = current.get("last_game_id")
        # (a row saved before the store had a column for the chat keeps it in ``current``)
        self.chat = list(data.chat if data.chat is not None else current.get("chat", []))
        self._chat_id = max((line.get("id", 0) for line in self.chat), default=0)
        self.deal_players = list(current.get("deal_players", []))
        self._turn_log = []
        self.game = None
        if data.record is not None:
            game = replay(data.record, partial=True, seed=secrets.randbits(64)).game
            for seat, value in current.get("log", []):
                game.act(seat, value)
                self._turn_log.append(_Action(seat, value))
            self.game = game
            self.turns.make_bots()
            if self.status == "playing":
                self.turns.new_step(self.options.timer)  # the turn timer starts afresh after a restart
        self.saved = data

    def _roll_back(self) -> None:
        """Back to the last saved state after a failed save: the game is rebuilt from the record the
        store holds; who is connected (a runtime matter) stays as it is."""
        data = self.saved
        assert data is not None, "a room is saved when it is created or loaded"
        self.options = TableOptions.from_dict(data.settings)
        now = self.clock.now()
        for seat, stored in zip(self.seats, data.seats, strict=True):
            back = Seat.from_store(seat.index, stored, now)
            back.connections, back.away_since = seat.connections, seat.away_since
            self.seats[seat.index] = back
        self._load(data)
        self._enforce_seats()

    def _moved(self) -> TableMovedError:
        """Another process took the table over (this one lost its lease): this copy is stale. It is
        dropped, and its connections are closed so that the clients reconnect to the new owner."""
        if not self.closed:
            log.warning("table %s: another process drives it now; dropping this copy", self.code)
            self.closed = True
            if self.on_lost is not None:
                self.on_lost(self)
        return TableMovedError()

    async def _check_lease(self) -> None:
        """Refuse to act for a table this process no longer drives (dropped, taken over after a
        pause, its database lost): the change is never made, nothing is sent."""
        if self.closed or (self.may_act is not None and not await self.may_act(self)):
            raise self._moved()

    def _lost_write(self) -> TableMovedError:
        """The store refused a write: another process drives the table. The unsaved change is undone
        first, so that nothing built from it can reach anyone."""
        self._roll_back()
        return self._moved()

    async def _commit(self, turn_only: bool = False) -> None:
        """Write the room's state; if the store fails, roll the room back and refuse the change.

        ``turn_only``: the change only added an answer to the turn's log (a card chosen, the turn
        not yet complete), so the state is the saved one with a new ``current``, the only column
        written. Every other change commits itself, so the saved state is the rest of the room's
        state (``test_a_turn_only_save_holds_the_whole_state``). Skipping the rest of
        :meth:`to_store` and the comparison saves about 2% of a move's CPU in the load test
        (docs/performance.md, "Web server")."""
        saved = self.saved
        if turn_only and saved is not None:
            data = saved.with_current(self._current())
        else:
            data = self.to_store()
            if saved is not None:
                data.changed = changed_columns(saved, data)
        try:
            await self._save(data)
        except LeaseLostError:
            raise self._lost_write() from None
        except Exception:
            log.exception("table %s: the store failed; back to the last saved state", self.code)
            self._roll_back()
            raise StoreFailedError() from None
        self.saved = data

    # ------------------------------------------------------------------ queries

    def place_for_token(self, token: str | None) -> tuple[int | None, int | None]:
        """The seat ``token`` holds, or the seat it takes over at the next deal (it watches till then)."""
        if not token:
            return None, None
        wanted = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, wanted):
                return seat.index, None
            if seat.joining_hash is not None and secrets.compare_digest(seat.joining_hash, wanted):
                return None, seat.index
        return None, None

    def open_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind == "open"]

    def joinable_seats(self) -> list[int]:
        """Seats anyone with the link can take: open ones before the game; once it runs, open and bot
        seats that nobody is taking over yet (taken at the next deal)."""
        if self.status == "waiting":
            return self.open_seats()
        return [s.index for s in self.seats if s.kind in ("open", "bot") and s.joining is None]

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (no seat tokens, no cards)."""
        return {
            "code": self.code,
            "status": self.status,
            "rules": self.options.rules.to_dict(),
            "spec": self.options.rules.spec.to_dict(),  # how the variant is played, as data
            "count": self.options.count,
            "timer": self.options.timer,
            "public": self.options.public,
            **({"rated": True} if self.options.rated else {}),
            "spectator_chat": self.options.spectator_chat,
            "seats": [s.public() for s in self.seats],
            "spectators": self.spectators(),
            "open": len(self.joinable_seats()),
            "game_number": self.game_number,
            "last_game_id": self.last_game_id,
            # the seats the game waits for (public: the table shows who has chosen); the home
            # page's "Your move" list reads it for the seats this browser holds
            "waiting_for": [] if self.game is None or self.status != "playing" else sorted({d.seat for d in self.game.pending()}),
        }

    def state_for(
        self, seat: int | None, summary: dict[str, Any] | None = None, joining: int | None = None
    ) -> dict[str, Any]:
        """The full picture for one seat (or a spectator): the table and that seat's own view.
        ``summary`` may be passed in when many seats are served at once (it is the same for all);
        ``joining`` is the seat a spectator takes over at the next deal."""
        return {
            "table": {**self._table_state(summary or self.summary()), "you": seat, "joining": joining},
            "view": None if self.game is None else self.game.view(seat).to_dict(),
        }

    def _table_state(self, summary: dict[str, Any]) -> dict[str, Any]:
        """A state's ``table``, but for the receiver's own ``you`` and ``joining``."""
        return {
            **summary,
            "chat": self.chat,
            "host": 0,
            "timer_left": self.turns.timer_left(),
            "away_left": self.turns.away_left(),  # per seat: seconds until the stand-in plays for an away player
            "away_grace": self.settings.absent_grace,
            "thinking": sorted(self.turns.long_thinking),
            "wire": WIRE_VERSION,
        }

    # ------------------------------------------------------------------ seats

    async def join(
        self, name: str, invite: str | None = None, account: int | None = None, account_token: str | None = None,
        resume_only: bool = False, key: str | None = None, still_wanted: Callable[[], bool] | None = None,
    ) -> tuple[int, str, bool]:
        """Take a seat: the one ``invite`` keeps, else the first open one (once the game runs, an
        open or bot seat, taken over at the next deal). Returns the seat, its new token, and whether
        the taking over waits for the next deal. A signed-in player joins under ``account`` with the
        seat token derived from it (``account_token``); an account already seated here gets its
        seat back (a second device). A rated table seats accounts only, and only before its game.

        ``key`` (chosen by the client, random) makes a retry safe: the token is derived from it, so
        a join that took a seat and whose answer was lost is answered again with the same seat and
        token. ``still_wanted``: whether the caller still waits (a join forwarded from another process
        whose caller has given up takes no seat)."""
        name = clean_name(name)
        async with self.lock:
            await self._check_lease()
            if still_wanted is not None and not still_wanted():
                raise TableError("the server driving this table answered too late: try again", "table-unavailable")
            if account is not None and account_token:
                mine = next((s for s in self.seats if s.account == account), None)
                if mine is not None:
                    return mine.index, account_token, False
            if resume_only:
                raise TableError("you have no seat at this table", "no-seat")
            if self.options.rated and (account is None or not account_token):
                raise TableError("sign in to play at a rated table (anyone may watch)", "rated-sign-in")
            if self.options.rated and self.status != "waiting":
                raise TableError("this rated game has started: you can watch it", "table-full")
            if account_token:
                token = account_token
            elif key is not None:
                token = token_for_key(self.code, key)
                held, taking = self.place_for_token(token)
                if held is not None:
                    return held, token, False
                if taking is not None:
                    return taking, token, True
            else:
                token = secrets.token_urlsafe(24)
            if invite:
                wanted = hash_token(invite)
                seat = next((s for s in self.seats if s.invite_hash is not None
                             and secrets.compare_digest(s.invite_hash, wanted)), None)
                if seat is None or seat.joining is not None:
                    raise TableError("this invitation is unknown or already used", "invite-invalid")
            else:
                free = self.joinable_seats()
                if not free:
                    if self.status == "waiting" or not any(s.kind in ("open", "bot") for s in self.seats):
                        raise TableError("this table is full: you can watch it", "table-full")
                    raise TableError("every free seat is being taken over already: you can watch", "table-full")
                seat = self.seats[free[0]]
            if names_clash(name, self.seats, besides=seat.index):
                raise TableError(f"the name {name!r} is taken at this table", "name-taken", name=name)
            later = self.status != "waiting"
            if later:  # the bot plays on until the deal ends
                seat.joining, seat.joining_hash = name, hash_token(token)
            else:
                seat.become_human(name, hash_token(token), self.clock.now())
                seat.account = account
            if not later and not self.open_seats() and not any(s.kind == "invited" for s in self.seats):
                await self.start_game()
            else:
                await self._commit()
                self._send_seats()
            return seat.index, token, later

    def _send_seats(self) -> None:
        """A ``seats`` delta: the seats changed and nothing else did."""
        message = Outbound(type="seats", seats=[s.public() for s in self.seats], open=len(self.joinable_seats()))
        for conn in list(self.connections):
            conn.push(message)

    def bot_thinking(self, seat: int, thinking: bool) -> None:
        """A ``thinking`` delta: the bot in ``seat`` has been thinking a while (or has answered)."""
        message = Outbound(type="thinking", seat=seat, thinking=thinking)
        for conn in list(self.connections):
            conn.push(message)

    def idle(self, now: float, after: float) -> bool:
        """Nobody connected, no bot thinking, and nothing happened for ``after`` seconds. A turn-based
        game under way stays in memory, so its time per move runs out with nobody at the table."""
        if self.turns.turn_based and self.status == "playing":
            return False
        return not self.connections and not self.turns.busy and now - self.last_active > after

    def anyone_connected(self) -> bool:
        return bool(self.connections)

    def spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    async def admit(self, conn: Connection, token: str | None, address: str = "") -> None:
        """Seat ``conn`` by what ``token`` proves (the seat it holds, or the one it takes over at the
        next deal), else let it watch; decided under the lock, so no seat change slips in between.
        An unknown token is told so, and watches. ``address`` is the client's (its budgets)."""
        async with self.lock:
            seat, joining = self.place_for_token(token)
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
                holder = self.seats[conn.seat].token_hash
            elif joining is not None:
                holder = self.seats[joining].joining_hash
            self._connect(conn, joining, holder)

    def _connect(self, conn: Connection, joining: int | None, holder: str | None) -> None:
        """Seat ``conn`` at the table (or let it watch), send it the whole state, and tell the others
        only what changed: a ``presence`` delta when a seat's first socket opens, nothing when one
        more socket of a seat or a spectator arrives. Raises :class:`TableError` past a cap."""
        if conn.seat is not None:
            seat = self.seats[conn.seat]
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
        self.last_active = self.clock.now()
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
            self.last_active = self.clock.now()
            self.connections.discard(conn)
            self._joiners.pop(conn, None)
            self._holders.pop(conn, None)
            self._addresses.pop(conn, None)
            self._watcher_limits.pop(id(conn), None)
            self._chat_limits.pop(id(conn), None)
            if conn.seat is not None:
                seat = self.seats[conn.seat]
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
        if self.closed:
            return
        for index, before in heard.items():
            seat = self.seats[index]
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
                self._holders[conn] != self.seats[conn.seat].token_hash
            ):
                self._unseat(conn)  # the seat changed hands: this socket watches from now on
            try:
                await self._check_lease()
                await handler(self, conn, message)
                return
            except TableError as error:
                refusal = error
            except IllegalMoveError as error:  # what the checks below do not foresee, the engine refuses
                refusal = TableError(str(error), "illegal-move", detail=str(error))
            # Nothing changed; the client gets the reason, and after a refused game action a fresh
            # state to resync from (a refused chat line or seat change needs none).
            conn.push(refusal.to_message())
            if self.closed:
                return  # another process drives the table: this stale copy shows nothing more
            if type(message) in self._MOVE_PHASES or isinstance(message, (Start, Again)):
                conn.push({"type": "state", **self.state_for(conn.seat, joining=self._joiners.get(conn))})

    #: The phase each move message answers (``pass`` answers Hand's second card or ends a keep).
    _MOVE_PHASES: ClassVar[dict[type, tuple[Phase, ...]]] = {
        Play: (Phase.PLAY,),
        ChooseRow: (Phase.ROW_CHOICE,),
        Draft: (Phase.DRAFT,),
        Order: (Phase.ORDER,),
        Keep: (Phase.KEEP,),
        Pass: (Phase.PLAY, Phase.KEEP),
        Retract: (Phase.PLAY,),
    }

    async def _on_move(
        self, conn: Connection, message: Play | ChooseRow | Draft | Order | Keep | Pass | Retract
    ) -> None:
        if conn.seat is None:
            raise TableError("spectators cannot play", "spectator", action="play")
        game = self._require_game()
        if (message.deal is not None and message.deal != game.deal_index) or (
            message.turn is not None and message.turn != game.turn
        ):
            raise TableError(
                f"that move was for deal {(message.deal or 0) + 1}, turn {(message.turn or 0) + 1}, "
                f"but the game is at deal {game.deal_index + 1}, turn {game.turn + 1}",
                "stale-move",
                deal=game.deal_index + 1,
                turn=game.turn + 1,
            )
        if game.phase not in self._MOVE_PHASES[type(message)]:
            raise TableError(
                f"cannot {message.type} now: the game is in the {game.phase.value} phase",
                "wrong-phase",
                action=message.type,
                phase=game.phase.value,
            )
        if isinstance(message, Retract):
            await self._retract(conn.seat)
            return
        if isinstance(message, Play) and self._changes_choice(conn.seat, message.card):
            if game.chosen[conn.seat] == message.card:
                return  # the card already chosen, sent again: nothing changes, nothing is saved or sent
            await self.act(conn.seat, message.card)
            return
        decision = self._decision_of(conn.seat)
        if isinstance(message, Pass):
            if PASS not in decision.options or decision.kind not in (DecisionKind.CARD, DecisionKind.KEEP):
                raise TableError("nothing to pass now: choose a card", "nothing-to-pass")
            await self.act(conn.seat, PASS)
            return
        value = message.row if isinstance(message, ChooseRow) else message.card
        if value not in decision.options:
            what = f"row {value + 1}" if isinstance(message, ChooseRow) else f"card {value}"
            raise TableError(f"{what} is not one of your options now", "not-an-option", value=what)
        await self.act(conn.seat, value)

    def _changes_choice(self, seat: int, card: int) -> bool:
        """A card played again in a simultaneous turn after choosing one: a change of mind, allowed
        until everyone has chosen (with one card a turn; with more, the cards are taken back first)."""
        game = self._require_game()
        if game.phase is not Phase.PLAY or game.chosen[seat] is None:
            return False
        if game.decision_for(seat) is not None:
            return False  # still choosing (Nifty's second card)
        if game.rules.cards_per_turn > 1:
            raise TableError("you have already chosen: take your cards back to change them", "already-chosen")
        if card not in game.hands[seat]:
            raise TableError(f"card {card} is not one of your options now", "not-an-option", value=f"card {card}")
        return True

    def _decision_of(self, seat: int) -> Decision:
        """What ``seat`` must decide now, or a :class:`TableError` saying why it has nothing to decide."""
        game = self._require_game()
        decision = game.decision_for(seat)
        if decision is not None:
            return decision
        pending = game.pending()
        if pending:
            other = self.seats[pending[0].seat]
            raise TableError(
                f"it is not your turn: {other.name} (seat {other.index + 1}) decides now",
                "not-your-turn",
                seat=other.index + 1,
                name=other.name,
            )
        raise TableError("nothing to decide now", "nothing-to-decide")

    async def _retract(self, seat: int) -> None:
        """Nifty: take back this seat's unrevealed cards, so they can choose two again."""
        game = self._require_game()
        if game.chosen[seat] is None:
            raise TableError("no choice to take back: you have not chosen yet", "nothing-to-retract")
        game.retract(seat)  # raises IllegalMoveError and changes nothing if there is nothing to take back
        self.last_active = self.clock.now()
        # the turn log re-applies this turn's choices after a restart: drop this seat's
        self._turn_log = [a for a in self._turn_log if a.seat != seat]
        await self._commit()
        self._publish([])
        self.turns.schedule()

    async def _on_start(self, conn: Connection, _message: Start) -> None:
        if conn.seat != 0:
            raise TableError("only the host (seat 1) can start the game", "not-host")
        if self.status != "waiting":
            raise TableError("the game has already started", "already-started")
        level = self.options.fill_bot
        for seat in self.seats:
            if seat.kind == "open":
                taken = {s.name for s in self.seats}
                seat.kind, seat.bot, seat.name = "bot", level, bot_label(seat.index, taken)
            elif seat.kind == "invited" and seat.bot is None:
                seat.bot = level  # plays for the friend until they come (then from the next deal)
        await self.start_game()  # (which tells everyone)

    async def _on_again(self, conn: Connection, _message: Again) -> None:
        if conn.seat is None:
            raise TableError("spectators cannot start a new game", "spectator", action="again")
        if self.status != "finished":
            raise TableError("the game is not over yet", "not-over")
        await self.start_game()

    async def _on_sync(self, conn: Connection, _message: Sync) -> None:
        conn.push({"type": "state", **self.state_for(conn.seat, joining=self._joiners.get(conn))})

    async def _on_ping(self, conn: Connection, _message: Ping) -> None:
        conn.push({"type": "pong"})

    async def _on_hint(self, conn: Connection, _message: Hint) -> None:
        if conn.seat is None:
            raise TableError("spectators get no hints", "spectator", action="hint")
        view = self._require_game().view(conn.seat)
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

    def _host_only(self, conn: Connection, seat: int) -> Seat:
        if conn.seat != 0:
            raise TableError("only the host (seat 1) can do that", "not-host")
        if self.options.rated:
            raise TableError("the seats of a rated table are not changed by hand", "rated-seats")
        if not 0 < seat < len(self.seats):
            raise TableError(f"there is no seat {seat + 1} to change", "bad-seat", seat=seat + 1)
        return self.seats[seat]

    async def _on_invite(self, conn: Connection, message: Invite) -> None:
        """Keep a seat for a named friend: before the game at once, once it runs from the next deal
        (the seat's bot, or the fallback for a vanished player, plays until then)."""
        seat = self._host_only(conn, message.seat)
        name = clean_name(message.name)
        if seat.joining is not None or (seat.person and seat.connections > 0):
            raise TableError(f"seat {seat.index + 1} is taken", "bad-seat", seat=seat.index + 1)
        if names_clash(name, self.seats, besides=seat.index):
            raise TableError(f"the name {name!r} is taken at this table", "name-taken", name=name)
        token = secrets.token_urlsafe(24)
        if seat.person:  # a vanished player: they leave at the next deal, the seat waits for the friend
            if self.status == "waiting":
                seat.become_invited(name, hash_token(token))
            else:
                seat.leaving, seat.invite_hash = True, hash_token(token)
        else:
            level = seat.bot or self.options.fill_bot
            seat.become_invited(name, hash_token(token))
            seat.bot = level
        await self._commit()
        self._enforce_seats()
        conn.push({"type": "invite", "seat": seat.index, "name": name, "token": token})
        self._send_seats()

    async def _on_release(self, conn: Connection, message: Release) -> None:
        """Free a bot's, an invitation's or a vanished player's seat: before the game at once, else at
        the start of the next deal."""
        seat = self._host_only(conn, message.seat)
        if seat.person and seat.connections > 0:
            raise TableError(f"seat {seat.index + 1} is at the table: only a vanished player's seat can be freed",
                             "bad-seat", seat=seat.index + 1)
        if seat.kind == "open" and seat.joining is None:
            raise TableError(f"seat {seat.index + 1} is already free", "bad-seat", seat=seat.index + 1)
        if self.status == "waiting":
            seat.become_open()
        else:  # an invitation or a takeover asked for stops here too
            seat.leaving, seat.invite_hash, seat.joining, seat.joining_hash = True, None, None, None
        await self._commit()
        self._enforce_seats()
        self._send_seats()

    async def _on_leave(self, conn: Connection, message: Leave) -> None:
        """A player gives their seat up: before the game it opens at once; once it runs, the stand-in
        plays it at once (nobody waits out the grace period) and it opens at the next deal."""
        if conn.seat is None:
            raise TableError("only a player can leave a seat", "not-seated")
        seat = self.seats[conn.seat]
        if self.status == "waiting":
            if seat.index == 0:
                raise TableError("the host's seat cannot be left before the game", "not-host")
            seat.become_open()
        else:
            seat.leaving = True
            if seat.away_since is None:
                seat.away_since = self.clock.now()
        await self._commit()
        self._enforce_seats()
        self._send_seats()
        self.turns.schedule()

    def _reseat(self) -> bool:
        """At a deal's start: apply the seat changes asked for during the last one. Returns whether
        any seat changed hands."""
        changed = False
        now = self.clock.now()
        for seat in self.seats:
            if seat.joining is not None and seat.joining_hash is not None:
                seat.become_human(seat.joining, seat.joining_hash, now)
                changed = True
            elif seat.leaving:
                invite = seat.invite_hash
                level = seat.bot or self.options.fill_bot
                if invite is not None:
                    seat.become_invited(seat.name, invite)
                else:
                    seat.become_open()
                    seat.name = bot_label(seat.index, {s.name for s in self.seats})
                seat.bot = level
                changed = True
        if changed:
            for conn, index in list(self._joiners.items()):
                seat = self.seats[index]
                if seat.person and seat.joining is None and seat.token_hash == self._holders.get(conn):
                    del self._joiners[conn]
                    conn.seat = index  # from now on this socket plays the seat
                    seat.connections += 1
                    seat.away_since = None
            self._enforce_seats()
            self.turns.make_bots()
        self._record_players()
        return changed

    def _enforce_seats(self) -> None:
        """After seats changed hands: every socket that no longer holds the seat it spoke for
        watches from now on, and every socket waiting to take a seat over whose request was
        cancelled (or went to someone else) is forgotten. Each is told, and sent what it may see."""
        for conn in list(self.connections):
            holder = self._holders.get(conn)
            if conn.seat is not None:
                if self.seats[conn.seat].token_hash != holder:
                    self._unseat(conn)
            elif (index := self._joiners.get(conn)) is not None and self.seats[index].joining_hash != holder:
                del self._joiners[conn]
                self._holders.pop(conn, None)
                conn.push(TableError(f"your request for seat {index + 1} was cancelled: watching",
                                     "seat-lost", seat=index + 1).to_message())
                conn.push({"type": "state", **self.state_for(None)})

    def _unseat(self, conn: Connection) -> None:
        """``conn`` no longer holds its seat: it becomes a spectator at once, and is told so."""
        index = conn.seat
        assert index is not None
        seat = self.seats[index]
        conn.seat = None
        self._holders.pop(conn, None)
        seat.connections = max(0, seat.connections - 1)
        if seat.connections == 0 and seat.person:
            seat.away_since = self.clock.now()
        self._presence(seat)
        conn.push(TableError(f"seat {index + 1} is no longer yours: watching", "seat-lost",
                             seat=index + 1).to_message())
        conn.push({"type": "state", **self.state_for(None)})

    def _record_players(self) -> None:
        self.deal_players.append(
            [{"name": s.name, "kind": "human" if s.person else "bot", "bot": None if s.person else s.bot}
             for s in self.seats]
        )

    # ------------------------------------------------------------------ chat

    async def _on_chat(self, conn: Connection, message: Chat) -> None:
        text = " ".join("".join(ch for ch in message.text if ch.isprintable()).split())
        if not text:
            raise TableError("a chat line needs some text", "chat-empty")
        limit = self.settings.chat_max_chars
        if len(text) > limit:
            raise TableError(f"a chat line has at most {limit} characters", "chat-too-long", limit=limit)
        await self._say(conn, {"text": text})

    async def _on_react(self, conn: Connection, message: React) -> None:
        if message.emoji not in REACTIONS:
            raise TableError("that is not one of the quick reactions", "bad-reaction")
        await self._say(conn, {"emoji": message.emoji})

    async def _say(self, conn: Connection, content: dict[str, Any]) -> None:
        if conn.seat is None and not self.options.spectator_chat:
            raise TableError("spectators read the chat but cannot write in it here", "chat-closed")
        wait = self._take(conn, self._chat_limits, self._chat_limits,
                          self.settings.chat_per_minute / 60, self.settings.chat_burst)
        if wait:
            seconds = max(1, round(wait))
            raise TableError(f"too many chat messages: wait {seconds} s", "rate-limited", retry_after=seconds)
        self._chat_id += 1
        line = {"id": self._chat_id, "seat": conn.seat,
                "name": None if conn.seat is None else self.seats[conn.seat].name, **content}
        self.chat = [*self.chat, line][-self.settings.chat_kept:]
        await self._commit()
        message = Outbound(type="chat", **line)
        for other in list(self.connections):
            other.push(message)

    async def _on_spectator_chat(self, conn: Connection, message: SpectatorChat) -> None:
        if conn.seat != 0:
            raise TableError("only the host (seat 1) can do that", "not-host")
        self.options.spectator_chat = message.allow
        await self._commit()
        self._publish([])

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

    # ------------------------------------------------------------------ the game

    def _require_game(self) -> Game:
        if self.game is None or self.status == "waiting":
            raise TableError("the game has not started yet", "not-started")
        return self.game

    async def start_game(self) -> None:
        """A new game with the same seats (first game, or play again). Caller holds the lock."""
        rules = self.options.rules
        names = [s.name for s in self.seats]
        self.game = Game(rules, names, seed=secrets.randbits(64))
        self.game_number += 1
        self.status = "playing"
        self._turn_log = []
        self.deal_players = []
        self._reseat()  # who is waiting to take a seat over sits down now
        self.turns.make_bots()
        self.turns.new_step(self.options.timer)
        await self._commit()
        self._publish(list(self.game.events))
        self.turns.schedule()

    async def act(self, seat: int, value: int, stand_in: str | None = None) -> None:
        """Apply one answer, persist, tell everyone, and wake the bots. Caller holds the lock.
        ``stand_in`` says why a bot answered for a person ("timer" or "away"), None otherwise."""
        await self._check_lease()
        game = self._require_game()
        if sum(1 for a in self._turn_log if a.seat == seat) >= MAX_ANSWERS_PER_SEAT:
            raise TableError(f"at most {MAX_ANSWERS_PER_SEAT} answers a turn", "too-many-answers",
                             limit=MAX_ANSWERS_PER_SEAT)
        # a change of mind in a simultaneous turn (one card a turn: the seat's card is replaced)
        changed_mind = game.phase is Phase.PLAY and game.chosen[seat] is not None and game.decision_for(seat) is None
        events = game.act(seat, value)  # raises IllegalMoveError and changes nothing if illegal
        self.last_active = self.clock.now()
        reseated = any(isinstance(e, DealStarted) for e in events) and self._reseat()
        if changed_mind:  # the new card replaces the old one: the log keeps one choice per seat
            self._turn_log = [a for a in self._turn_log if a.seat != seat]
        self._turn_log.append(_Action(seat, value))
        if game.phase in (Phase.DRAFT, Phase.OVER) or (
            game.phase is Phase.PLAY and all(c is None for c in game.chosen)
        ):
            self._turn_log.clear()  # the turn is complete: the record now holds it
        if game.is_over:
            self.status = "finished"
            self.turns.finish()
            await self._archive_game(game)
        else:
            self.turns.new_step(self.options.timer)
            await self._commit(turn_only=not reseated and all(type(e) is CardChosen for e in events))
        if reseated:
            self._send_seats()
        self._publish(events, actor=seat, played_for=None if stand_in is None else {"seat": seat, "reason": stand_in})
        self.turns.schedule()

    async def _archive_game(self, game: Game) -> None:
        """The game is over: store it for the history and the table's state, in one transaction (a
        failure leaves neither, and the room goes back to before the last move)."""
        data = self.to_store()
        try:
            self.last_game_id = await self._archive(data, game.record(), list(game.winners), self.deal_players)
        except LeaseLostError:
            raise self._lost_write() from None
        except Exception:
            log.exception("table %s: the store failed to archive the game; back to the last saved state", self.code)
            self._roll_back()
            raise StoreFailedError() from None
        data.current = {**(data.current or {}), "last_game_id": self.last_game_id}
        self.saved = data

    # ------------------------------------------------------------------ outbound

    def _publish(
        self,
        events: list[Event],
        skip: Connection | None = None,
        actor: int | None = None,
        played_for: dict[str, Any] | None = None,
    ) -> None:
        """Send each connection its own view and the public events.

        Each distinct message is built and serialized once per change, whatever the number of
        sockets: one ``update`` per seat (and one for the spectators, one per seat a spectator is
        about to take over), pushed to each of that seat's sockets. A message is only ever keyed by
        the seat (and takeover) it was built for, so one seat's view cannot reach another's socket.

        A move that only says "this player has chosen" (most moves) changes nothing in anyone's
        view but who has chosen and who is awaited, and the mover's own part (its choice and what
        it owes now), so nobody gets a whole view: everyone a small ``chosen`` message, and the
        mover's sockets the same with its own part (``own``: :data:`~sixnimmt.core.views.OWN_FIELDS`,
        from its own view alone)."""
        public = [e.to_dict() for e in events]
        extra = {} if played_for is None else {"played_for": played_for}
        if actor is not None and events and all(type(e) is CardChosen for e in events):
            game = self.game
            assert game is not None
            brief = Outbound(
                type="chosen",
                events=public,
                chosen=[c is not None for c in game.chosen],
                waiting_for=[d.seat for d in game.pending()],
                **extra,
            )
            mine = Outbound(brief, own=game.view(actor).own_to_dict())
            for conn in list(self.connections):
                if conn is not skip:
                    conn.push(mine if conn.seat == actor else brief)
            return
        updates: dict[tuple[int | None, int | None], Outbound] = {}
        shared: SharedState | None = None
        for conn in list(self.connections):
            if conn is skip:
                continue
            key = (conn.seat, self._joiners.get(conn))
            update = updates.get(key)
            if update is None:
                if shared is None:
                    shared = SharedState(self._table_state(self.summary()), self.game, public, extra)
                update = updates[key] = shared.update(*key)
            conn.push(update)

    async def close(self) -> None:
        self.closed = True
        if self._presence_timer is not None:
            self._presence_timer.cancel()
        await self.turns.close()
