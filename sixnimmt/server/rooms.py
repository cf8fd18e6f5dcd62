"""Rooms: one table of friends and bots around one :class:`~sixnimmt.core.Game`.

A room owns the game, the seats and the live connections, and one asyncio lock: every change to the
game happens under it, is written to the store, and then each connection receives *its own* view
(``game.view(seat)``; spectators ``game.view(None)``) with the public events to animate. Rules are
never re-implemented here: every action goes through ``game.act``.

Bots think off the event loop (``asyncio.to_thread``). A human who is away (no connection for
``Settings.absent_grace`` seconds) or out of time (the table's turn timer) has their move made by a
fallback bot, so the table never stalls; they take over again as soon as they act.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from ..bots import Bot, available, make_bot
from ..bots.advise import advise
from ..core import (
    PASS,
    CardChosen,
    Decision,
    DecisionKind,
    Event,
    Game,
    IllegalMoveError,
    Phase,
    PlayerView,
    Rules,
    RulesError,
)
from ..core.record import replay
from .config import Settings
from .protocol import (
    Again,
    ChooseRow,
    Draft,
    Hint,
    Keep,
    Order,
    Pass,
    Ping,
    Play,
    Retract,
    Start,
    Sync,
)
from .store import Store, TableData

log = logging.getLogger("sixnimmt.server")

T = TypeVar("T")

#: Letters for join codes: no 0/O, 1/I/L, so a code read aloud or off a phone is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
NAME_LIMIT = 24
BOT_LEVELS = ("easy", "medium", "hard", "expert", "random")
TIMER_CHOICES = (0, 15, 30, 45, 60, 90, 120)
HINT_BOT = "hard"
LISTED_FOR = dt.timedelta(hours=6)


class TableError(ValueError):
    """A request about a table that cannot be met (full, unknown, bad options); safe to show."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    """A display name: trimmed, 1..24 printable characters. Shown as text, never as HTML."""
    if not isinstance(raw, str):
        raise TableError("a name is text")
    name = " ".join("".join(ch for ch in raw if ch.isprintable()).split())
    if not name:
        raise TableError("please enter a name")
    if len(name) > NAME_LIMIT:
        raise TableError(f"a name has at most {NAME_LIMIT} characters")
    return name


def bot_spec(level: str) -> str:
    """The registry name for a bot level; levels not registered (yet) play as ``random``."""
    return level if level in available() else "random"


#: Names bots sit down with (their level is shown next to the name).
BOT_NAMES = ("Bella", "Otto", "Luna", "Max", "Ivy", "Finn", "Nora", "Leo", "Mia", "Hugo")


def bot_label(index: int, taken: set[str]) -> str:
    """A friendly, distinct name for the bot in seat ``index``."""
    for offset in range(len(BOT_NAMES)):
        name = BOT_NAMES[(index - 1 + offset) % len(BOT_NAMES)]
        if name not in taken:
            return name
    return f"Bot {index + 1}"


class Connection(Protocol):
    """One live client. ``push`` queues a message without waiting (a slow client never blocks a room)."""

    seat: int | None

    def push(self, message: dict[str, Any]) -> None: ...


@dataclass(slots=True)
class Seat:
    index: int
    kind: str  # "human", "bot" or "open" (waiting for a friend to join)
    name: str
    bot: str | None = None  # level, for bots
    token_hash: str | None = None
    # runtime only
    connections: int = 0
    away_since: float | None = None

    def to_store(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "bot": self.bot, "token_hash": self.token_hash}

    @classmethod
    def from_store(cls, index: int, data: dict[str, Any], now: float) -> Seat:
        seat = cls(index, data["kind"], data["name"], data.get("bot"), data.get("token_hash"))
        if seat.kind == "human":
            seat.away_since = now  # nobody is connected right after a load
        return seat

    def public(self, connected: bool) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "bot": self.bot, "connected": connected}


@dataclass(slots=True)
class TableOptions:
    """What the creator chose; validated here (rules through :class:`Rules`)."""

    rules: Rules
    count: str = "up"  # display totals counting "up" (penalties) or "down" (points left)
    timer: int = 0  # seconds per decision, 0 = no timer
    fill_bot: str = "medium"  # level given to seats still open when the host starts

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "count": self.count,
            "timer": self.timer,
            "fill_bot": self.fill_bot,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        try:
            rules = Rules.from_dict(data["rules"])
        except RulesError as error:
            raise TableError(str(error)) from None
        count = data.get("count", "up")
        if count not in ("up", "down"):
            raise TableError("count is 'up' or 'down'")
        timer = data.get("timer", 0)
        if timer not in TIMER_CHOICES:
            raise TableError(f"timer must be one of {', '.join(map(str, TIMER_CHOICES))} seconds")
        fill_bot = data.get("fill_bot", "medium")
        if fill_bot not in BOT_LEVELS:
            raise TableError(f"unknown bot level {fill_bot!r}: choose one of {', '.join(BOT_LEVELS)}")
        return cls(rules, count, timer, fill_bot)


@dataclass(slots=True)
class _Action:
    """An answer given this turn (kept so a restart loses no card already chosen)."""

    seat: int
    value: int


class Room:
    """One table. All mutations run under :attr:`lock`; see the module docstring."""

    def __init__(
        self,
        code: str,
        options: TableOptions,
        seats: list[Seat],
        settings: Settings,
        save: Callable[[TableData], Awaitable[None]],
        archive: Callable[[str, int, dict[str, Any], list[int]], Awaitable[int]],
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
        self._bots: dict[int, Bot] = {}
        self._fallbacks: dict[int, Bot] = {}
        self._turn_log: list[_Action] = []
        self._thinking: dict[int, asyncio.Task[None]] = {}
        self._clock: asyncio.TimerHandle | None = None
        self._step: tuple[Any, ...] | None = None
        self._step_deadline: float | None = None
        self._hinting: set[int] = set()
        self.last_active = time.monotonic()
        self.closed = False

    # ------------------------------------------------------------------ creation and restore

    def to_store(self) -> TableData:
        current: dict[str, Any] = {
            "log": [[a.seat, a.value] for a in self._turn_log],
            "last_game_id": self.last_game_id,
        }
        return TableData(
            code=self.code,
            status=self.status,
            settings=self.options.to_dict(),
            seats=[s.to_store() for s in self.seats],
            game_number=self.game_number,
            record=None if self.game is None else self.game.record(),
            current=current,
        )

    @classmethod
    def from_store(
        cls,
        data: TableData,
        settings: Settings,
        save: Callable[[TableData], Awaitable[None]],
        archive: Callable[[str, int, dict[str, Any], list[int]], Awaitable[int]],
    ) -> Room:
        now = time.monotonic()
        seats = [Seat.from_store(i, s, now) for i, s in enumerate(data.seats)]
        room = cls(data.code, TableOptions.from_dict(data.settings), seats, settings, save, archive)
        room.status = data.status
        room.game_number = data.game_number
        current = data.current or {}
        room.last_game_id = current.get("last_game_id")
        if data.record is not None:
            game = replay(data.record, partial=True, seed=secrets.randbits(64)).game
            for seat, value in current.get("log", []):
                game.act(seat, value)
                room._turn_log.append(_Action(seat, value))
            room.game = game
            room._make_bots()
            if room.status == "playing":
                room._new_step()  # the turn timer starts afresh after a restart
        return room

    # ------------------------------------------------------------------ queries

    def seat_for_token(self, token: str | None) -> int | None:
        if not token:
            return None
        wanted = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, wanted):
                return seat.index
        return None

    def open_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind == "open"]

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (no seat tokens, no cards)."""
        return {
            "code": self.code,
            "status": self.status,
            "rules": self.options.rules.to_dict(),
            "count": self.options.count,
            "timer": self.options.timer,
            "seats": [s.public(s.connections > 0) for s in self.seats],
            "open": len(self.open_seats()),
            "game_number": self.game_number,
            "last_game_id": self.last_game_id,
        }

    def state_for(self, seat: int | None, summary: dict[str, Any] | None = None) -> dict[str, Any]:
        """The full picture for one seat (or a spectator): the table and that seat's own view.
        ``summary`` may be passed in when many seats are served at once (it is the same for all)."""
        timer_left = None
        if self._step_deadline is not None:
            timer_left = max(0.0, round(self._step_deadline - time.monotonic(), 1))
        return {
            "table": {**(summary or self.summary()), "you": seat, "host": 0, "timer_left": timer_left},
            "view": None if self.game is None else self.game.view(seat).to_dict(),
        }

    # ------------------------------------------------------------------ seats

    async def join(self, name: str) -> tuple[int, str]:
        """Take the first open seat; returns it and the new seat token."""
        name = clean_name(name)
        async with self.lock:
            if self.status != "waiting":
                raise TableError("this game has already started: you can watch it")
            free = self.open_seats()
            if not free:
                raise TableError("this table is full: you can watch it")
            token = secrets.token_urlsafe(24)
            seat = self.seats[free[0]]
            seat.kind, seat.name, seat.token_hash = "human", name, hash_token(token)
            seat.away_since = time.monotonic()
            if not self.open_seats():
                await self._start_game()
            else:
                await self._save(self.to_store())
            self._publish([])
            return seat.index, token

    def idle(self, now: float, after: float) -> bool:
        """Nobody connected, no bot thinking, and nothing happened for ``after`` seconds."""
        return not self.connections and not self._thinking and now - self.last_active > after

    async def connect(self, conn: Connection) -> None:
        async with self.lock:
            self.last_active = time.monotonic()
            self.connections.add(conn)
            if conn.seat is not None:
                seat = self.seats[conn.seat]
                seat.connections += 1
                seat.away_since = None
            conn.push({"type": "state", **self.state_for(conn.seat)})
            self._publish([], skip=conn)
            self._schedule()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            self.last_active = time.monotonic()
            self.connections.discard(conn)
            if conn.seat is not None:
                seat = self.seats[conn.seat]
                seat.connections = max(0, seat.connections - 1)
                if seat.connections == 0:
                    seat.away_since = time.monotonic()
            self._publish([])
            self._schedule()

    # ------------------------------------------------------------------ inbound messages

    async def handle(self, conn: Connection, message: Any) -> None:
        """Apply one decoded message from ``conn`` (dispatch by message class)."""
        handler = self._HANDLERS[type(message)]
        async with self.lock:
            try:
                await handler(self, conn, message)
            except (IllegalMoveError, TableError) as error:
                # Nothing changed; the client gets the reason and a fresh state to resync from.
                conn.push({"type": "error", "message": str(error)})
                conn.push({"type": "state", **self.state_for(conn.seat)})

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
            raise TableError("spectators cannot play")
        game = self._require_game()
        if (message.deal is not None and message.deal != game.deal_index) or (
            message.turn is not None and message.turn != game.turn
        ):
            raise IllegalMoveError(
                f"that move was for deal {(message.deal or 0) + 1}, turn {(message.turn or 0) + 1}, "
                f"but the game is at deal {game.deal_index + 1}, turn {game.turn + 1}"
            )
        if game.phase not in self._MOVE_PHASES[type(message)]:
            raise IllegalMoveError(
                f"cannot {message.type} now: the game is in the {game.phase.value} phase"
            )
        if isinstance(message, Retract):
            await self._retract(conn.seat)
            return
        if isinstance(message, Pass):
            decision = game.decision_for(conn.seat)
            if decision is None or PASS not in decision.options or decision.kind not in (
                DecisionKind.CARD,
                DecisionKind.KEEP,
            ):
                raise IllegalMoveError("nothing to pass now: choose a card")
            await self._act(conn.seat, PASS)
            return
        value = message.row if isinstance(message, ChooseRow) else message.card
        await self._act(conn.seat, value)

    async def _retract(self, seat: int) -> None:
        """Nifty: take back this seat's unrevealed cards, so they can choose two again."""
        game = self._require_game()
        game.retract(seat)  # raises IllegalMoveError and changes nothing if there is nothing to take back
        self.last_active = time.monotonic()
        # the turn log re-applies this turn's choices after a restart: drop this seat's
        self._turn_log = [a for a in self._turn_log if a.seat != seat]
        await self._save(self.to_store())
        self._publish([])
        self._schedule()

    async def _on_start(self, conn: Connection, _message: Start) -> None:
        if conn.seat != 0:
            raise TableError("only the host (seat 1) can start the game")
        if self.status != "waiting":
            raise TableError("the game has already started")
        level = self.options.fill_bot
        for seat in self.seats:
            if seat.kind == "open":
                taken = {s.name for s in self.seats}
                seat.kind, seat.bot, seat.name = "bot", level, bot_label(seat.index, taken)
        await self._start_game()
        self._publish([])

    async def _on_again(self, conn: Connection, _message: Again) -> None:
        if conn.seat is None:
            raise TableError("spectators cannot start a new game")
        if self.status != "finished":
            raise TableError("the game is not over yet")
        await self._start_game()
        self._publish([])

    async def _on_sync(self, conn: Connection, _message: Sync) -> None:
        conn.push({"type": "state", **self.state_for(conn.seat)})

    async def _on_ping(self, conn: Connection, _message: Ping) -> None:
        conn.push({"type": "pong"})

    async def _on_hint(self, conn: Connection, _message: Hint) -> None:
        if conn.seat is None:
            raise TableError("spectators get no hints")
        view = self._require_game().view(conn.seat)
        if view.decision is None:
            raise TableError("nothing to decide now: no hint needed")
        if id(conn) in self._hinting:
            return  # one hint at a time per connection; the answer is on its way
        self._hinting.add(id(conn))
        asyncio.get_running_loop().create_task(self._hint(conn, view))

    async def _hint(self, conn: Connection, view: PlayerView) -> None:
        """A strong bot's advice, computed off the event loop and sent to ``conn`` only."""
        try:
            advice = await asyncio.to_thread(advise, view, HINT_BOT if HINT_BOT in available() else "random")
            conn.push({"type": "hint", "deal": view.deal, "turn": view.turn,
                       "kind": view.decision.kind.value if view.decision else None, **advice.to_dict()})
        except Exception:  # a hint is a nicety: never let it hurt the table
            log.exception("hint failed at table %s", self.code)
        finally:
            self._hinting.discard(id(conn))

    _HANDLERS: ClassVar[dict[type, Callable[[Room, Connection, Any], Awaitable[None]]]] = {
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
            raise TableError("the game has not started yet")
        return self.game

    def _make_bots(self) -> None:
        assert self.game is not None
        seed = secrets.randbits(32)
        self._bots = {
            s.index: make_bot(bot_spec(s.bot or "random"), seed + s.index)
            for s in self.seats
            if s.kind == "bot"
        }
        self._fallbacks = {}  # made when first needed: most players never need one

    async def _start_game(self) -> None:
        """A new game with the same seats (first game, or play again). Caller holds the lock."""
        rules = self.options.rules
        names = [s.name for s in self.seats]
        self.game = Game(rules, names, seed=secrets.randbits(64))
        self.game_number += 1
        self.status = "playing"
        self._turn_log = []
        self._make_bots()
        self._new_step()
        await self._save(self.to_store())
        self._publish(list(self.game.events))
        self._schedule()

    async def _act(self, seat: int, value: int) -> None:
        """Apply one answer, persist, tell everyone, and wake the bots. Caller holds the lock."""
        game = self._require_game()
        events = game.act(seat, value)  # raises IllegalMoveError and changes nothing if illegal
        self.last_active = time.monotonic()
        self._turn_log.append(_Action(seat, value))
        if game.phase in (Phase.DRAFT, Phase.OVER) or (
            game.phase is Phase.PLAY and all(c is None for c in game.chosen)
        ):
            self._turn_log.clear()  # the turn is complete: the record now holds it
        if game.is_over:
            self.status = "finished"
            self._step_deadline = None
            record = game.record()
            self.last_game_id = await self._archive(
                self.code, self.game_number, record, list(game.winners)
            )
        else:
            self._new_step()
        await self._save(self.to_store())
        self._publish(events, actor=seat)
        self._schedule()

    def _step_key(self) -> tuple[Any, ...]:
        game = self.game
        assert game is not None
        # In the play phase everyone decides at once: the step is the turn. Otherwise (and in Open
        # and Hand, played one at a time) one player decides and each decision is a step of its own.
        simultaneous = game.phase is Phase.PLAY and not game.rules.sequential
        who = () if simultaneous else game.pending()[:1]
        return (self.game_number, game.deal_index, game.turn, game.phase, who)

    def _new_step(self) -> None:
        """Restart the turn timer when the game moves on to a new decision."""
        key = self._step_key()
        if key != self._step:
            self._step = key
            timer = self.options.timer
            self._step_deadline = time.monotonic() + timer if timer else None

    # ------------------------------------------------------------------ bots and the clock

    def _schedule(self) -> None:
        """Start bot moves that are due and set the clock for the next fallback move."""
        if self.closed or self.game is None or self.status != "playing":
            return
        now = time.monotonic()
        next_due: float | None = None
        for decision in self.game.pending():
            seat = self.seats[decision.seat]
            if decision.seat in self._thinking:
                continue
            if seat.kind == "bot":
                self._think(decision, self._bots[decision.seat], self.settings.bot_delay)
                continue
            due = self._fallback_due(seat)
            if due is None:
                continue
            if due <= now:
                self._think(decision, self._fallback_for(decision.seat), 0.0)
            elif next_due is None or due < next_due:
                next_due = due
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        if next_due is not None:
            loop = asyncio.get_running_loop()
            self._clock = loop.call_at(loop.time() + (next_due - now) + 0.01, self._schedule)

    def _fallback_for(self, seat: int) -> Bot:
        if seat not in self._fallbacks:
            self._fallbacks[seat] = make_bot(bot_spec(self.settings.fallback_bot), secrets.randbits(32))
        return self._fallbacks[seat]

    def _fallback_due(self, seat: Seat) -> float | None:
        """When the fallback bot plays for ``seat``: timer expiry, or the end of the grace period
        when the player is away, but only while someone is at the table to wait for them."""
        if not self.connections:
            return None
        candidates = []
        if self._step_deadline is not None:
            candidates.append(self._step_deadline)
        if seat.away_since is not None:
            candidates.append(seat.away_since + self.settings.absent_grace)
        return min(candidates) if candidates else None

    def _think(self, decision: Decision, bot: Bot, delay: float) -> None:
        task = asyncio.get_running_loop().create_task(self._bot_move(decision, bot, delay))
        self._thinking[decision.seat] = task

    async def _bot_move(self, decision: Decision, bot: Bot, delay: float) -> None:
        seat = decision.seat
        try:
            if delay:
                await asyncio.sleep(delay)
            game = self.game
            if game is None or self.closed:
                return
            view = game.view(seat)
            if view.decision != decision:
                return
            value = await asyncio.to_thread(bot.decide, view)  # think off the event loop
            async with self.lock:
                if self.game is not game or self.closed or game.decision_for(seat) != decision:
                    return  # the game moved on while the bot was thinking
                if self.seats[seat].kind == "human":
                    due = self._fallback_due(self.seats[seat])
                    if due is None or due > time.monotonic():
                        return  # the player came back in the meantime: it is their move again
                await self._act(seat, value)
        except Exception:  # a broken bot must not take the table down: log it, play randomly
            log.exception("bot for seat %s at table %s failed", seat, self.code)
            async with self.lock:
                game = self.game
                if game is not None and game.decision_for(seat) == decision:
                    await self._act(seat, random.choice(decision.options))
        finally:
            if self._thinking.get(seat) is asyncio.current_task():
                del self._thinking[seat]
            if not self.closed:
                self._schedule()

    # ------------------------------------------------------------------ outbound

    def _publish(
        self, events: list[Event], skip: Connection | None = None, actor: int | None = None
    ) -> None:
        """Send each connection its own view (computed once per seat) and the public events.

        A move that only says "this player has chosen" (most moves) changes nothing in anyone
        else's view but who has chosen, so the others get a small ``chosen`` message instead of
        their whole view; ``actor`` (who moved) still gets the full update."""
        public = [e.to_dict() for e in events]
        if actor is not None and events and all(isinstance(e, CardChosen) for e in events):
            assert self.game is not None
            brief = {
                "type": "chosen",
                "events": public,
                "chosen": [c is not None for c in self.game.chosen],
                "waiting_for": [d.seat for d in self.game.pending()],
            }
            for conn in list(self.connections):
                if conn.seat != actor:
                    conn.push(brief)
            skip_others = True
        else:
            skip_others = False
        states: dict[int | None, dict[str, Any]] = {}
        summary = self.summary()
        for conn in list(self.connections):
            if conn is skip or (skip_others and conn.seat != actor):
                continue
            if conn.seat not in states:
                states[conn.seat] = self.state_for(conn.seat, summary)
            conn.push({"type": "update", "events": public, **states[conn.seat]})

    async def close(self) -> None:
        self.closed = True
        if self._clock is not None:
            self._clock.cancel()
        for task in list(self._thinking.values()):
            task.cancel()


class Rooms:
    """Every room in memory, loaded from the store on first use; creates tables."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._rooms: dict[str, Room] = {}
        self._last_sweep = time.monotonic()
        self._loading = asyncio.Lock()
        # One writer thread: SQLite wants one writer, and order of writes per table is kept.
        self._db = asyncio.Semaphore(1)
        # Group commit: saves that arrive while a write is running go out together in the next
        # transaction (only each table's newest state), and every caller waits for its commit.
        self._unsaved: dict[str, TableData] = {}
        self._save_waiters: list[asyncio.Future[None]] = []
        self._save_wanted = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        async with self._db:
            return await asyncio.to_thread(fn, *args)

    async def _save(self, data: TableData) -> None:
        """Persist a table's state; returns once it is committed."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._unsaved[data.code] = data
        self._save_waiters.append(done)
        self._save_wanted.set()
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_behind())
        await done

    async def _write_behind(self) -> None:
        while True:
            await self._save_wanted.wait()
            self._save_wanted.clear()
            batch, waiters = self._unsaved, self._save_waiters
            self._unsaved, self._save_waiters = {}, []
            try:
                await self.db(self.store.save_tables, list(batch.values()))
            except Exception as error:
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)
                continue
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    async def _archive(self, code: str, number: int, record: dict[str, Any], winners: list[int]) -> int:
        return await self.db(self.store.add_game, code, number, record, winners)

    async def get(self, code: str) -> Room:
        code = code.strip().upper()
        await self._evict_idle()
        if code in self._rooms:
            room = self._rooms[code]
            room.last_active = time.monotonic()  # about to be used: not idle
            return room
        async with self._loading:
            if code in self._rooms:
                return self._rooms[code]
            data = await self.db(self.store.load_table, code) if _valid_code(code) else None
            if data is None:
                raise LookupError(f"no table with code {code[:CODE_LENGTH + 3]!r}")
            room = Room.from_store(data, self.settings, self._save, self._archive)
            self._rooms[code] = room
            return room

    async def create(self, options: TableOptions, host_name: str, seats: list[dict[str, Any]]) -> tuple[Room, str]:
        """A new table with the host in seat 0; ``seats`` describes seats 1.. ("open" or a bot)."""
        players = options.rules.players
        if len(seats) != players - 1:
            raise TableError(f"{players} players need {players - 1} seats besides the host's")
        host = clean_name(host_name)
        token = secrets.token_urlsafe(24)
        now = time.monotonic()
        room_seats = [Seat(0, "human", host, None, hash_token(token), away_since=now)]
        for index, spec in enumerate(seats, start=1):
            kind = spec.get("kind")
            if kind == "open":
                room_seats.append(Seat(index, "open", ""))
            elif kind == "bot":
                level = spec.get("bot", "medium")
                if level not in BOT_LEVELS:
                    raise TableError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")
                taken = {s.name for s in room_seats}
                room_seats.append(Seat(index, "bot", bot_label(index, taken), level))
            else:
                raise TableError(f"seat {index + 1} must be 'open' or 'bot'")
        async with self._loading:
            code = await self._new_code()
            room = Room(code, options, room_seats, self.settings, self._save, self._archive)
            await self.db(self.store.create_table, room.to_store())
            self._rooms[code] = room
        if not room.open_seats():
            async with room.lock:
                await room._start_game()
        return room, token

    async def _evict_idle(self) -> None:
        """Drop rooms nobody has used for a while from memory (their state is in the store).
        Runs at most every few seconds, from :meth:`get`."""
        now = time.monotonic()
        if now - self._last_sweep < min(30.0, self.settings.idle_evict / 2):
            return
        self._last_sweep = now
        for code, room in list(self._rooms.items()):
            if room.idle(now, self.settings.idle_evict):
                async with room.lock:
                    if room.idle(now, self.settings.idle_evict):
                        await room.close()
                        del self._rooms[code]

    def loaded(self) -> int:
        return len(self._rooms)

    async def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._rooms and not await self.db(self.store.code_taken, code):
                return code

    async def listing(self) -> list[dict[str, Any]]:
        """Open tables to join, then games in progress to watch (from the store, so all are listed)."""
        # tables nobody has touched for hours are abandoned: they stay playable by link, unlisted
        stored = await self.db(self.store.list_tables, ("waiting", "playing"), 40, LISTED_FOR)
        result = []
        for data in stored:
            room = self._rooms.get(data.code)
            if room is not None:
                result.append(room.summary())
            else:
                result.append(
                    {
                        "code": data.code,
                        "status": data.status,
                        "rules": data.settings["rules"],
                        "count": data.settings.get("count", "up"),
                        "timer": data.settings.get("timer", 0),
                        "seats": [
                            {"name": s["name"], "kind": s["kind"], "bot": s.get("bot"), "connected": False}
                            for s in data.seats
                        ],
                        "open": sum(1 for s in data.seats if s["kind"] == "open"),
                        "game_number": data.game_number,
                        "last_game_id": None,
                    }
                )
        return result

    async def close(self) -> None:
        for room in self._rooms.values():
            await room.close()
        if self._save_waiters:  # let the last saves commit before the writer stops
            await asyncio.wait(list(self._save_waiters), timeout=5)
        if self._writer is not None:
            self._writer.cancel()


def _valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)
