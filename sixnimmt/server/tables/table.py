"""One table's game, seats and saved state, without a socket in sight.

A :class:`TableSession` is what a web table *is*: its options and seats, the game under way, this
turn's answers, the chat, and the state the store holds. Every change goes through ``game.act`` (the
rules are never re-implemented here), is written to the store, and is rolled back if the store
refuses it; each change returns what happened (:class:`Change`) and the room
(:mod:`~sixnimmt.server.tables.room`) tells the connections. Seat changes (joins, invitations, leaving) are
in :mod:`~sixnimmt.server.tables.seating`, the checks on a player's move in :mod:`~sixnimmt.server.tables.moves`.
The caller holds the room's lock for every change.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ...core import CardChosen, DealStarted, Event, Game
from ...core.record import replay
from ..clock import Clock
from ..config import Settings
from ..store.rows import LeaseLostError, TableData, changed_columns
from .seat import Occupant, Seat, SeatKind, reseat
from .table_setup import (
    TURN_BASED,
    StoreFailedError,
    TableError,
    TableMovedError,
    TableOptions,
    hash_token,
)

log = logging.getLogger("sixnimmt.server")

#: The most answers one seat gives in one turn that the turn's log keeps (what a restart re-applies).
#: A turn asks a seat for one card (two in Nifty), a row when a card is too low, and in Hand which
#: taken cards to keep: at most 11 answers in random games of every variant
#: (``test_the_turn_log_stays_within_its_bound``). A change of mind replaces the seat's card and a
#: card sent again changes nothing, so only a legal game's answers are kept; one past this bound is
#: refused. The saved ``current`` column therefore holds at most ``players * MAX_ANSWERS_PER_SEAT``
#: answers (docs/web.md, "What a table keeps").
MAX_ANSWERS_PER_SEAT = 16

T = TypeVar("T")
Save = Callable[[TableData], Awaitable[None]]
#: Store a finished game and the table's state in one transaction; returns the game's id.
Archive = Callable[[TableData, dict[str, Any], list[int], list[list[dict[str, Any]]]], Awaitable[int]]


class TableScheduler(Protocol):
    """What a table tells whoever drives its turns (the room's :class:`~sixnimmt.server.tables.scheduling.Scheduler`)."""

    def make_bots(self) -> None:
        """The seats changed hands or a game began: fresh bots for the bot seats."""
        ...

    def new_step(self, timer: int, resume_at: float | None = None) -> None:
        """The game may have reached a new decision: restart its timer (``timer`` seconds, 0: none;
        ``resume_at``: the calendar time it ran out at before a restart)."""
        ...

    def deadline_at(self) -> float | None:
        """When the current decision's time runs out, as calendar time (None: no timer)."""
        ...

    def finish(self) -> None:
        """The game is over."""
        ...


@dataclass(slots=True)
class TurnAnswer:
    """An answer given this turn (kept so a restart loses no card already chosen)."""

    seat: int
    value: int


@dataclass(slots=True)
class Change:
    """What one change did, for the room to tell: the game's new events, the seat that acted (None:
    nobody, as when a game starts), and whether seats changed hands at a deal's start."""

    events: list[Event] = field(default_factory=list)
    actor: int | None = None
    reseated: bool = False


class TableSession:
    """One table's state and every change to it; see the module docstring."""

    def __init__(
        self,
        code: str,
        options: TableOptions,
        seats: list[Seat],
        settings: Settings,
        clock: Clock,
        save: Save,
        archive: Archive,
        scheduler: TableScheduler,
        on_lost: Callable[[], None] | None = None,
        on_rolled_back: Callable[[], None] | None = None,
    ) -> None:
        self.code = code
        self.options = options
        self.seats = seats
        self.settings = settings
        self.clock = clock
        self.scheduler = scheduler
        self.status = "waiting"
        self.game: Game | None = None
        self.game_number = 0
        self.last_game_id: int | None = None
        self.turn_log: list[TurnAnswer] = []
        self.chat: list[dict[str, Any]] = []
        self._chat_id = 0
        #: Who played each seat in each deal of this game (the record keeps the names it started with).
        self.deal_players: list[list[dict[str, Any]]] = []
        self.last_active = clock.now()
        self._save = save
        self._archive = archive
        #: The last record made, the game it is of and how many of its events it had seen.
        self._record_cache: tuple[Game, int, dict[str, Any]] | None = None
        #: The state the store holds (what a failed save rolls the table back to).
        self.saved: TableData | None = None
        #: Dropped: another process drives the table now (or the server is closing it).
        self.closed = False
        #: Several processes: this process's fencing epoch for the table (None: the only process);
        #: whether it still drives the table (asked before acting, so that a process paused past its
        #: lease does not act on what it queued meanwhile); and what to call once it no longer does.
        self.epoch: int | None = None
        self.may_act: Callable[[], Awaitable[bool]] | None = None
        self.on_lost: Callable[[], None] = on_lost or (lambda: None)
        #: Called after a roll-back, once the seats are the saved ones again (the room re-checks
        #: which socket holds which seat).
        self.on_rolled_back: Callable[[], None] = on_rolled_back or (lambda: None)

    # ------------------------------------------------------------------ for the registry

    def adopt(self, epoch: int | None, may_act: Callable[[], Awaitable[bool]] | None) -> None:
        """This process drives the table from now on, with fencing ``epoch`` (None: the only
        process); ``may_act`` says, before each change, whether it still does."""
        self.epoch = epoch
        if self.saved is not None:
            self.saved.epoch = epoch
        self.may_act = may_act

    def first_save(self, epoch: int | None, owner: str | None) -> TableData:
        """The new table's state as the store first holds it, driven by process ``owner``."""
        self.epoch = epoch
        self.saved = self.to_store()
        self.saved.owner = owner
        return self.saved

    def touch(self) -> None:
        """Someone used the table now: it is not idle."""
        self.last_active = self.clock.now()

    def close(self) -> None:
        """Another process drives the table now, or the server is closing it: nothing more is done here."""
        self.closed = True

    # ------------------------------------------------------------------ what the store holds

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
        current: dict[str, Any] = {
            "log": [[a.seat, a.value] for a in self.turn_log],
            "last_game_id": self.last_game_id,
            "deal_players": self.deal_players,
        }
        if self.options.timer >= TURN_BASED and self.status == "playing":
            # hours per move: the deadline outlives a restart (calendar time; see ``load``)
            current["deadline"] = self.scheduler.deadline_at()
        return current

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

    def load(self, data: TableData) -> None:
        """Take the stored state ``data`` (seats' settings already in place): status, game, chat."""
        self.status = data.status
        self.game_number = data.game_number
        current = data.current or {}
        self.last_game_id = current.get("last_game_id")
        # (a row saved before the store had a column for the chat keeps it in ``current``)
        self.chat = list(data.chat if data.chat is not None else current.get("chat", []))
        self._chat_id = max((line.get("id", 0) for line in self.chat), default=0)
        self.deal_players = list(current.get("deal_players", []))
        self.turn_log = []
        self.game = None
        if self.status != "playing":  # (a game under way ends by the rules it began with)
            self.options.keep_rated_rules()
        if data.record is not None:
            game = replay(data.record, partial=True, seed=secrets.randbits(64)).game
            for seat, value in current.get("log", []):
                game.act(seat, value)
                self.turn_log.append(TurnAnswer(seat, value))
            self.game = game
            self.scheduler.make_bots()
            if self.status == "playing":
                # A timer of seconds starts afresh after a restart (the players are reconnecting);
                # a turn-based table's deadline is kept, and one that passed meanwhile is due now.
                self.scheduler.new_step(self.options.timer, current.get("deadline"))
        self.saved = data

    def _roll_back(self) -> None:
        """Back to the last saved state after a failed save: the game is rebuilt from the record the
        store holds; who is connected (a runtime matter) stays as it is."""
        data = self.saved
        assert data is not None, "a table is saved when it is created or loaded"
        self.options = TableOptions.from_dict(data.settings)
        for seat, stored in zip(self.seats, data.seats, strict=True):
            self.seats[seat.index] = seat.as_stored(stored)
        self.load(data)
        self.on_rolled_back()

    def moved(self) -> TableMovedError:
        """Another process took the table over (this one lost its lease): this copy is stale. It is
        dropped, and its connections are closed so that the clients reconnect to the new owner."""
        if not self.closed:
            log.warning("table %s: another process drives it now; dropping this copy", self.code)
            self.closed = True
            self.on_lost()
        return TableMovedError()

    async def check_lease(self) -> None:
        """Refuse to act for a table this process no longer drives (dropped, taken over after a
        pause, its database lost): the change is never made, nothing is sent."""
        if self.closed or (self.may_act is not None and not await self.may_act()):
            raise self.moved()

    async def _stored(self, write: Awaitable[T], what: str) -> T:
        """Wait for one write of the store. Refused by the epoch: another process drives the table;
        failed: the table goes back to the last saved state. Either way the unsaved change is undone
        first, so that nothing built from it can reach anyone, and the change is refused."""
        try:
            return await write
        except LeaseLostError:
            self._roll_back()
            raise self.moved() from None
        except Exception:
            log.exception("table %s: the store failed %s; back to the last saved state", self.code, what)
            self._roll_back()
            raise StoreFailedError() from None

    async def commit(self, turn_only: bool = False) -> None:
        """Write the table's state; if the store fails, roll the table back and refuse the change.

        ``turn_only``: the change only added an answer to the turn's log (a card chosen, the turn
        not yet complete), so the state is the saved one with a new ``current``, the only column
        written. Every other change commits itself, so the saved state is the rest of the table's
        state (``test_a_turn_only_save_holds_the_whole_state``), and a card chosen, the most common
        change, skips building the rest of :meth:`to_store` and comparing it."""
        saved = self.saved
        if turn_only and saved is not None:
            data = saved.with_current(self._current())
        else:
            data = self.to_store()
            if saved is not None:
                data.changed = changed_columns(saved, data)
        await self._stored(self._save(data), "to save the table")
        self.saved = data

    async def _archive_game(self, game: Game) -> None:
        """The game is over: store it for the history and the table's state, in one transaction (a
        failure leaves neither, and the table goes back to before the last move)."""
        data = self.to_store()
        archive = self._archive(data, game.record(), list(game.winners), self.deal_players)
        self.last_game_id = await self._stored(archive, "to archive the game")
        data.current = {**(data.current or {}), "last_game_id": self.last_game_id}
        self.saved = data

    # ------------------------------------------------------------------ seats

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
        return [s.index for s in self.seats if s.kind == SeatKind.OPEN]

    def joinable_seats(self) -> list[int]:
        """Seats anyone with the link can take: open ones before the game; once it runs, open and bot
        seats that nobody is taking over yet (taken at the next deal)."""
        if self.status == "waiting":
            return self.open_seats()
        return [s.index for s in self.seats if s.kind in (SeatKind.OPEN, SeatKind.BOT) and s.joining is None]

    # ------------------------------------------------------------------ the game

    def require_game(self) -> Game:
        if self.game is None or self.status == "waiting":
            raise TableError("the game has not started yet", "not-started")
        return self.game

    def pending_seats(self) -> list[int]:
        """The seats the game waits for (public: the table shows who has chosen)."""
        if self.game is None or self.status != "playing":
            return []
        return sorted({d.seat for d in self.game.pending()})

    def _reseat(self, new_game: bool = False) -> bool:
        """At a deal's start: the seat changes asked for during the last one, and who plays each
        seat in this deal (for the game's record). Returns whether any seat changed hands. A rated
        game's leavers keep their seats (and accounts) to its end, so that the result rates them; so do a tournament's, whose
        result scores them."""
        changed = reseat(self.seats, self.options.fill_bot, self.clock.now(),
                         keep_leavers=(self.options.rated or self.options.tourney is not None) and not new_game,
                         new_game=new_game)
        if changed:
            self.scheduler.make_bots()
        self.deal_players.append(
            [{"name": s.name, "kind": "human" if s.held else "bot", "bot": None if s.held else s.bot,
              **({"program": True} if s.occupant == Occupant.PROGRAM else {})}  # (a program holds a "human" seat)
             for s in self.seats]
        )
        return changed

    async def start_game(self) -> Change:
        """A new game with the same seats (first game, or play again)."""
        self.options.keep_rated_rules()
        seed = self.options.seed if self.options.seed is not None else secrets.randbits(64)
        self.game = Game(self.options.rules, [s.name for s in self.seats], seed=seed)
        self.game_number += 1
        self.status = "playing"
        self.turn_log = []
        self.deal_players = []
        reseated = self._reseat(new_game=True)  # who is waiting to take a seat over sits down now
        self.scheduler.make_bots()
        self.scheduler.new_step(self.options.timer)
        await self.commit()
        return Change(list(self.game.events), reseated=reseated)

    async def play_again(self, by: int | None) -> Change:
        if by is None:
            raise TableError("spectators cannot start a new game", "spectator", action="again")
        if self.status != "finished":
            raise TableError("the game is not over yet", "not-over")
        if self.options.tourney is not None:
            raise TableError("a tournament's table plays one game", "tournament-table")
        return await self.start_game()

    async def act(self, seat: int, value: int) -> Change:
        """Apply one answer and persist it."""
        await self.check_lease()
        game = self.require_game()
        if sum(1 for a in self.turn_log if a.seat == seat) >= MAX_ANSWERS_PER_SEAT:
            raise TableError(f"at most {MAX_ANSWERS_PER_SEAT} answers a turn", "too-many-answers",
                             limit=MAX_ANSWERS_PER_SEAT)
        # a change of mind in a simultaneous turn (one card a turn: the seat's card is replaced)
        changed_mind = game.has_chosen(seat)
        events = game.act(seat, value)  # raises IllegalMoveError and changes nothing if illegal
        self.last_active = self.clock.now()
        reseated = any(isinstance(e, DealStarted) for e in events) and self._reseat()
        if changed_mind:  # the new card replaces the old one: the log keeps one choice per seat
            self.turn_log = [a for a in self.turn_log if a.seat != seat]
        self.turn_log.append(TurnAnswer(seat, value))
        if game.turn_complete:
            self.turn_log.clear()  # the turn is complete: the record now holds it
        if game.is_over:
            self.status = "finished"
            self.scheduler.finish()
            await self._archive_game(game)
        else:
            self.scheduler.new_step(self.options.timer)
            await self.commit(turn_only=not reseated and all(type(e) is CardChosen for e in events))
        return Change(events, actor=seat, reseated=reseated)

    async def retract(self, seat: int) -> Change:
        """Nifty: take back this seat's unrevealed cards, so they can choose two again."""
        game = self.require_game()
        if game.chosen[seat] is None:
            raise TableError("no choice to take back: you have not chosen yet", "nothing-to-retract")
        game.retract(seat)  # raises IllegalMoveError and changes nothing if there is nothing to take back
        self.last_active = self.clock.now()
        # the turn log re-applies this turn's choices after a restart: drop this seat's
        self.turn_log = [a for a in self.turn_log if a.seat != seat]
        await self.commit()
        return Change()

    async def rename_account(self, account: int, name: str) -> bool:
        """A moderator renamed ``account``: its seats here, and the deals it played of the game being
        played (their record), show ``name`` from now on. Returns whether any seat changed."""
        old = {seat.index: seat.name for seat in self.seats if seat.account == account}
        renamed = [seat.index for seat in self.seats if seat.rename(account, name)]
        self.deal_players = [[{**p, "name": name} if old.get(i) == p.get("name") else p for i, p in enumerate(deal)]
                             for deal in self.deal_players]
        if renamed:
            await self.commit()
        return bool(renamed)

    # ------------------------------------------------------------------ chat

    async def say(self, seat: int | None, content: dict[str, Any]) -> dict[str, Any]:
        """Add a chat line (checked: :func:`~sixnimmt.server.tables.chat.chat_content`) and return it."""
        self._chat_id += 1
        line = {"id": self._chat_id, "seat": seat, "name": None if seat is None else self.seats[seat].name, **content}
        self.chat = [*self.chat, line][-self.settings.chat_kept:]
        await self.commit()
        return line

    async def allow_spectator_chat(self, by: int | None, allow: bool) -> None:
        if by != 0:
            raise TableError("only the host (seat 1) can do that", "not-host")
        self.options.spectator_chat = allow
        await self.commit()

    async def allow_chat(self, by: int | None, allow: bool) -> None:
        """The host turns the whole table's chat (and its reactions) off, or on again."""
        if by != 0:
            raise TableError("only the host (seat 1) can do that", "not-host")
        self.options.chat = allow
        await self.commit()
