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
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

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
)
from ..core.record import replay
from ..seats import available
from ..seats.advise import advise
from .clock import Clock
from .config import Settings
from .limits import RateLimiter
from .protocol import (
    WIRE_VERSION,
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
from .scheduling import Scheduler
from .seats import Seat, TableError, TableOptions, bot_label, clean_name, hash_token
from .store import TableData

log = logging.getLogger("sixnimmt.server")

HINT_BOT = "hard"

Save = Callable[[TableData], Awaitable[None]]
Archive = Callable[[str, int, dict[str, Any], list[int]], Awaitable[int]]


class Connection(Protocol):
    """One live client. ``push`` queues a message without waiting (a slow client never blocks a room)."""

    seat: int | None

    def push(self, message: dict[str, Any]) -> None: ...


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
        clock: Clock,
        save: Save,
        archive: Archive,
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
        self.turns = Scheduler(self, settings, clock)
        self._turn_log: list[_Action] = []
        self._hinting: set[int] = set()
        self._seat_limits: dict[int | None, RateLimiter] = {}
        self._watcher_limits: dict[int | None, RateLimiter] = {}
        self.last_active = clock.now()
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
        clock: Clock,
        save: Save,
        archive: Archive,
    ) -> Room:
        now = clock.now()
        seats = [Seat.from_store(i, s, now) for i, s in enumerate(data.seats)]
        room = cls(data.code, TableOptions.from_dict(data.settings), seats, settings, clock, save, archive)
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
            room.turns.make_bots()
            if room.status == "playing":
                room.turns.new_step(room.options.timer)  # the turn timer starts afresh after a restart
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
            "spec": self.options.rules.spec.to_dict(),  # how the variant is played, as data
            "count": self.options.count,
            "timer": self.options.timer,
            "seats": [s.public() for s in self.seats],
            "spectators": self.spectators(),
            "open": len(self.open_seats()),
            "game_number": self.game_number,
            "last_game_id": self.last_game_id,
        }

    def state_for(self, seat: int | None, summary: dict[str, Any] | None = None) -> dict[str, Any]:
        """The full picture for one seat (or a spectator): the table and that seat's own view.
        ``summary`` may be passed in when many seats are served at once (it is the same for all)."""
        return {
            "table": {
                **(summary or self.summary()),
                "you": seat,
                "host": 0,
                "timer_left": self.turns.timer_left(),
                "wire": WIRE_VERSION,
            },
            "view": None if self.game is None else self.game.view(seat).to_dict(),
        }

    # ------------------------------------------------------------------ seats

    async def join(self, name: str) -> tuple[int, str]:
        """Take the first open seat; returns it and the new seat token."""
        name = clean_name(name)
        async with self.lock:
            if self.status != "waiting":
                raise TableError("this game has already started: you can watch it", "game-started")
            free = self.open_seats()
            if not free:
                raise TableError("this table is full: you can watch it", "table-full")
            token = secrets.token_urlsafe(24)
            seat = self.seats[free[0]]
            seat.kind, seat.name, seat.token_hash = "human", name, hash_token(token)
            seat.away_since = self.clock.now()
            if not self.open_seats():
                await self.start_game()
            else:
                await self._save(self.to_store())
            self._publish([])
            return seat.index, token

    def idle(self, now: float, after: float) -> bool:
        """Nobody connected, no bot thinking, and nothing happened for ``after`` seconds."""
        return not self.connections and not self.turns.busy and now - self.last_active > after

    def anyone_connected(self) -> bool:
        return bool(self.connections)

    def spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    async def connect(self, conn: Connection) -> None:
        """Seat ``conn`` at the table (or let it watch), send it the whole state, and tell the others
        only what changed: a ``presence`` delta when a seat's first socket opens, nothing when one
        more socket of a seat or a spectator arrives. Raises :class:`TableError` past a cap."""
        async with self.lock:
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
            if conn.seat is not None:
                seat.connections += 1
                seat.away_since = None
                if seat.connections == 1:
                    self._presence(seat, skip=conn)
            conn.push({"type": "state", **self.state_for(conn.seat)})
            self.turns.schedule()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            if conn not in self.connections:
                return
            self.last_active = self.clock.now()
            self.connections.discard(conn)
            self._watcher_limits.pop(id(conn), None)
            if conn.seat is not None:
                seat = self.seats[conn.seat]
                seat.connections = max(0, seat.connections - 1)
                if seat.connections == 0:
                    seat.away_since = self.clock.now()
                    self._presence(seat)
            self.turns.schedule()

    def _presence(self, seat: Seat, skip: Connection | None = None) -> None:
        message = {
            "type": "presence",
            "seat": seat.index,
            "connected": seat.connections > 0,
            "spectators": self.spectators(),
        }
        for other in list(self.connections):
            if other is not skip:
                other.push(message)

    def retry_after(self, conn: Connection) -> float:
        """Take one message from ``conn``'s allowance: 0 if allowed, else seconds to wait. A seat has
        one allowance over all its sockets; each spectator socket has its own."""
        now = self.clock.now()
        limits, key = (
            (self._seat_limits, conn.seat) if conn.seat is not None else (self._watcher_limits, id(conn))
        )
        limiter = limits.get(key)
        if limiter is None:
            limiter = limits[key] = RateLimiter(self.settings.rate_per_second, self.settings.rate_burst, now)
        return 0.0 if limiter.allow(now) else limiter.retry_after(now)

    # ------------------------------------------------------------------ inbound messages

    async def handle(self, conn: Connection, message: Any) -> None:
        """Apply one decoded message from ``conn`` (dispatch by message class)."""
        handler = self._HANDLERS[type(message)]
        async with self.lock:
            try:
                await handler(self, conn, message)
            except TableError as error:
                # Nothing changed; the client gets the reason and a fresh state to resync from.
                conn.push(error.to_message())
                conn.push({"type": "state", **self.state_for(conn.seat)})
            except IllegalMoveError as error:  # what the checks below do not foresee, the engine refuses
                conn.push(TableError(str(error), "illegal-move", detail=str(error)).to_message())
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
        await self._save(self.to_store())
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
        await self.start_game()
        self._publish([])

    async def _on_again(self, conn: Connection, _message: Again) -> None:
        if conn.seat is None:
            raise TableError("spectators cannot start a new game", "spectator", action="again")
        if self.status != "finished":
            raise TableError("the game is not over yet", "not-over")
        await self.start_game()
        self._publish([])

    async def _on_sync(self, conn: Connection, _message: Sync) -> None:
        conn.push({"type": "state", **self.state_for(conn.seat)})

    async def _on_ping(self, conn: Connection, _message: Ping) -> None:
        conn.push({"type": "pong"})

    async def _on_hint(self, conn: Connection, _message: Hint) -> None:
        if conn.seat is None:
            raise TableError("spectators get no hints", "spectator", action="hint")
        view = self._require_game().view(conn.seat)
        if view.decision is None:
            raise TableError("nothing to decide now: no hint needed", "nothing-to-decide")
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
        self.turns.make_bots()
        self.turns.new_step(self.options.timer)
        await self._save(self.to_store())
        self._publish(list(self.game.events))
        self.turns.schedule()

    async def act(self, seat: int, value: int, stand_in: str | None = None) -> None:
        """Apply one answer, persist, tell everyone, and wake the bots. Caller holds the lock.
        ``stand_in`` says why a bot answered for a person ("timer" or "away"), None otherwise."""
        game = self._require_game()
        events = game.act(seat, value)  # raises IllegalMoveError and changes nothing if illegal
        self.last_active = self.clock.now()
        self._turn_log.append(_Action(seat, value))
        if game.phase in (Phase.DRAFT, Phase.OVER) or (
            game.phase is Phase.PLAY and all(c is None for c in game.chosen)
        ):
            self._turn_log.clear()  # the turn is complete: the record now holds it
        if game.is_over:
            self.status = "finished"
            self.turns.finish()
            record = game.record()
            self.last_game_id = await self._archive(
                self.code, self.game_number, record, list(game.winners)
            )
        else:
            self.turns.new_step(self.options.timer)
        await self._save(self.to_store())
        self._publish(events, actor=seat)
        self.turns.schedule()

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
        await self.turns.close()
