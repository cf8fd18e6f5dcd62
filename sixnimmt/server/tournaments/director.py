"""The tournament director: opens each round at its time and moves on when every table of the round
has finished, under whichever process lives.

Every process runs a director. Each :attr:`Settings.tournament_tick` seconds (on the injected
clock) it looks at the tournaments with work to do (:meth:`TournamentStore.active`) and, for each:

1. **Starts it** once its start time has come: the entrants are numbered in seeding order (by
   rating, strongest first) and round 1 is planned.
2. **Plans a round** with :func:`sixnimmt.competition.swiss.swiss_tables` (the standings after the
   rounds before, repeat table-mates avoided), each table with a join code chosen there and then.
   The plan is written with the move to the new round in one transaction that checks the
   tournament's version, so of several processes one plans it and the others find it planned.
3. **Opens the round's tables** from the plan (:meth:`Rooms.open_table`): a code already open is
   left alone, so a process that died after planning (or after opening half the tables) loses
   nothing: the next process to look opens the rest. A table whose process died mid-game is claimed
   through the cluster's ownership (:meth:`Rooms.locate`), and its game goes on from its last save;
   one whose opener died after writing its row and before starting its game (the row says
   "waiting") has its game started by the process that takes it over.
4. **Collects each table's result** once its game is archived (the totals of the game the table's
   row names), and when the round is complete plans the next, or finishes the tournament.

An **arena** (``format`` "arena") has no rounds: from its start until ``minutes`` later, whoever is
here and not at a table waits (:meth:`Director.present`: a person on the tournament's page, a
program connected, nobody paused), and each look seats the waiting as soon as a table's worth wait
(those who have played fewest games first, then by points, repeat meetings avoided); points add up
over every game played, and the games under way at the end are played out. Each seating is stored
as a "round" of its own.

Seats the entrants do not fill are a fill bot's (``fill``), which scores nothing (the competition's
``FILL``). A person's seat is held under their account (they join their table as any signed-in
player joins a table they sit at); while they are away the stand-in plays for them and their result
counts as played. A duplicate round gives every table the round's seed, so every table plays the
same shuffle.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from ...competition import FILL, Standing, TableResult, rank
from ...competition.swiss import record_meetings, swiss_tables
from ...core import Rules, Variant
from ..accounts.users import seat_token
from ..clock import Clock
from ..config import Settings
from ..tables.room import Room
from ..tables.rooms import CODE_ALPHABET, CODE_LENGTH, Rooms
from ..tables.seat import Seat, SeatKind
from ..tables.table_setup import TableError, TableOptions, bot_label, hash_token
from .tourney_rows import (
    FINISHED,
    RUNNING,
    UPCOMING,
    Entrant,
    RoundTable,
    Tournament,
    TournamentStore,
)

log = logging.getLogger("sixnimmt.server")

#: Called at each look at a round under way, its tables open: the tournament and the round (the bot
#: programs connected to this process are told their game).
RoundListener = Callable[[Tournament, int], Awaitable[None]]


def is_duplicate(tournament: Tournament) -> bool:
    return tournament.format == "duplicate"


def round_rules(settings: dict[str, Any]) -> Rules:
    """The rules of every game of a tournament: a duplicate game has a fixed number of deals (so
    every table plays the same shuffles to the end), a Swiss game its variant's own end."""
    variant = Variant(settings["variant"])
    if settings.get("format") == "duplicate":
        return Rules(players=settings["players"], variant=variant, target=None, deals=settings.get("deals") or 1)
    return Rules(players=settings["players"], variant=variant, deals=settings.get("deals"))


def is_arena(tournament: Tournament) -> bool:
    return tournament.format == "arena"


def arena_ends(tournament: Tournament) -> float:
    """When an arena stops seating new games (calendar seconds)."""
    return tournament.starts_at + 60 * float(tournament.settings.get("minutes") or 0)


def results(tournament: Tournament) -> list[list[TableResult]]:
    """The complete rounds' results, as the competition scores them (an arena's: every finished
    game, each a round of its own, for its points add up over as many games as each plays)."""
    if is_arena(tournament):
        return [[TableResult(t.seats, t.totals)] for t in sorted(tournament.tables, key=lambda t: (t.round, t.position))
                if t.totals is not None]
    done: list[list[TableResult]] = []
    for number in range(1, tournament.round + 1):
        tables = tournament.tables_of(number)
        if not tables or any(t.totals is None for t in tables):
            break
        done.append([TableResult(t.seats, t.totals or ()) for t in tables])
    return done


def standings(tournament: Tournament) -> list[Standing]:
    """The standings after the complete rounds (entrants numbered in seeding order)."""
    numbered = [e for e in tournament.entrants if e.number is not None]
    return rank(len(numbered), results(tournament), duplicate=is_duplicate(tournament))


def round_seed(tournament: Tournament, round_number: int) -> int:
    """The shuffle's seed of every table of a duplicate round (from the tournament's secret seed)."""
    return random.Random(f"{tournament.settings['seed']}:{round_number}").getrandbits(63)


class Director:
    """This process's part in moving tournaments on (see the module docstring)."""

    def __init__(self, rooms: Rooms, store: TournamentStore, seat_keys: Callable[[list[int]], dict[int, str]],
                 settings: Settings, clock: Clock) -> None:
        self.rooms = rooms
        self.store = store
        self.seat_keys = seat_keys  # account id -> its seat key (a person's seat token comes from it)
        self.settings = settings
        self.clock = clock
        self.round_listeners: list[RoundListener] = []
        #: The accounts of a tournament's entrants connected to this process (its bot programs), who
        #: count as seen at each look at an arena.
        self.connected_here: list[Callable[[Tournament], set[int]]] = []
        #: Run before each look (the schedules' announcements, :mod:`.timetable`).
        self.before_each_look: list[Callable[[], Awaitable[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self._stepping = asyncio.Lock()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    async def _run(self) -> None:
        while True:
            await self.clock.sleep(self.settings.tournament_tick)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournaments: a tick failed")

    async def tick(self) -> None:
        """Move every tournament with work to do on as far as it goes now."""
        async with self._stepping:
            for before in self.before_each_look:
                await before()
            for tournament_id in await self.rooms.db.run(self.store.active, self.clock.wall()):
                try:
                    await self.step(tournament_id)
                except TableError as error:
                    log.warning("tournament %d: %s", tournament_id, error)
                except Exception:  # (the database went away, ...: this look gives up; the next tries again)
                    log.exception("tournament %d: this look failed", tournament_id)

    async def step(self, tournament_id: int) -> None:
        """Move one tournament on: its start, its round's tables opened and their results collected,
        the next round planned and opened at once."""
        while await self._step(tournament_id):
            pass

    async def _step(self, tournament_id: int) -> bool:
        """One move; True when a new round was planned (its tables are to be opened now)."""
        tournament = await self.rooms.db.run(self.store.load, tournament_id)
        if tournament is None:
            return False
        if tournament.status == UPCOMING:
            if tournament.starts_at > self.clock.wall():
                return False
            tournament = await self._begin(tournament)
        if tournament is None or tournament.status != RUNNING:
            return False
        if is_arena(tournament):
            return await self._arena(tournament)
        tables = tournament.tables_of(tournament.round)
        for table in tables:
            if table.totals is None:
                await self._drive(tournament, table)
        for listener in self.round_listeners:  # (each look: a program may connect mid-round)
            await listener(tournament, tournament.round)
        tournament = await self.rooms.db.run(self.store.load, tournament_id)
        if tournament is None or any(t.totals is None for t in tournament.tables_of(tournament.round)):
            return False
        if tournament.round >= tournament.rounds:
            await self.rooms.db.run(self.store.advance, tournament.id, tournament.version, FINISHED,
                                    tournament.round, [])
            log.info("tournament %d finished", tournament.id)
            return False
        return await self._plan(tournament, tournament.round + 1)

    async def _begin(self, tournament: Tournament) -> Tournament | None:
        """The start: entrants numbered by rating (then by when they entered), round 1 planned. With
        fewer than two entrants the tournament ends at once, unplayed."""
        if len(tournament.entrants) < 2:
            await self.rooms.db.run(self.store.advance, tournament.id, tournament.version, FINISHED, 0, [])
            return None
        order = sorted(tournament.entrants, key=lambda e: (-e.rating, e.id))
        numbers = {e.id: number for number, e in enumerate(order)}
        players = int(tournament.settings["players"])
        # (an arena seats whoever is here from its first look on, :meth:`_arena`)
        tables = [] if is_arena(tournament) else swiss_tables(list(range(len(order))), players)
        planned = await self._with_codes(tables)
        if not await self.rooms.db.run(self.store.advance, tournament.id, tournament.version, RUNNING,
                                       0 if is_arena(tournament) else 1, planned, numbers):
            return await self.rooms.db.run(self.store.load, tournament.id)
        log.info("tournament %d started: %d entrants", tournament.id, len(order))
        return await self.rooms.db.run(self.store.load, tournament.id)

    async def _plan(self, tournament: Tournament, round_number: int) -> bool:
        """Round ``round_number``: grouped by the standings, repeat meetings avoided."""
        order = [s.entrant for s in standings(tournament)]
        met: dict[tuple[int, int], int] = {}
        for table in tournament.tables:
            record_meetings([table.seats], met)
        tables = swiss_tables(order, int(tournament.settings["players"]), met)
        planned = await self._with_codes(tables)
        if not await self.rooms.db.run(self.store.advance, tournament.id, tournament.version, RUNNING,
                                       round_number, planned):
            return False
        log.info("tournament %d: round %d planned", tournament.id, round_number)
        return True

    async def _arena(self, tournament: Tournament) -> bool:
        """An arena: until its end time, every entrant not at a table is waiting, and as soon as a
        table's worth wait they are seated (by their points so far, repeat meetings avoided); after
        it, the games under way are played out and the arena is over. True when a table was seated."""
        for table in tournament.tables:
            if table.totals is None:
                await self._drive(tournament, table)
        for number in sorted({t.round for t in tournament.tables if t.totals is None}):
            for listener in self.round_listeners:
                await listener(tournament, number)
        fresh = await self.rooms.db.run(self.store.load, tournament.id)
        if fresh is None:
            return False
        busy = {e for t in fresh.tables if t.totals is None for e in t.seats if e != FILL}
        if self.clock.wall() >= arena_ends(fresh):
            if not busy:
                await self.rooms.db.run(self.store.advance, fresh.id, fresh.version, FINISHED, fresh.round, [])
                log.info("arena %d finished", fresh.id)
            return False
        players = int(fresh.settings["players"])
        connected = {account for find in self.connected_here for account in find(fresh)}
        if connected:
            await self.rooms.db.run(self.store.seen, fresh.id, sorted(connected), self.clock.wall())
        here = {e.number for e in fresh.entrants if self.present(e, connected)}
        # who has played fewest goes first (they have waited longest), then by points: grouped so
        waiting = [s.entrant for s in sorted(standings(fresh), key=lambda s: s.games)
                   if s.entrant not in busy and s.entrant in here]
        seated = len(waiting) // players * players
        if not seated:
            return False
        met: dict[tuple[int, int], int] = {}
        for table in fresh.tables:
            record_meetings([table.seats], met)
        planned = await self._with_codes(swiss_tables(waiting[:seated], players, met))
        return bool(await self.rooms.db.run(self.store.advance, fresh.id, fresh.version, RUNNING, fresh.round + 1,
                                            planned))

    def present(self, entrant: Entrant, connected: set[int]) -> bool:
        """Whether an arena entrant is seated when a table's worth wait, as lichess pairs only those
        present: a server bot always; a person or a program unless they paused, and only while
        here: a program connected to this process (``connected``) or, marked so at each look of
        the process it is connected to, seen in the last three looks; a person seen on the
        tournament's page in the last :attr:`Settings.arena_presence` seconds."""
        if entrant.bot is not None:
            return True
        if entrant.paused:
            return False
        if entrant.program and entrant.account in connected:
            return True
        window = 3 * self.settings.tournament_tick if entrant.program else self.settings.arena_presence
        return entrant.seen_at is not None and self.clock.wall() - entrant.seen_at <= window

    async def _with_codes(self, tables: list[tuple[int, ...]]) -> list[tuple[str, tuple[int, ...]]]:
        planned: list[tuple[str, tuple[int, ...]]] = []
        chosen: set[str] = set()
        for seats in tables:
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if code not in chosen and not await self.rooms.db.run(self.rooms.store.code_taken, code) \
                        and not await self.rooms.db.run(self.store.code_planned, code):
                    break
            chosen.add(code)
            planned.append((code, seats))
        return planned

    async def _drive(self, tournament: Tournament, table: RoundTable) -> bool:
        """See that ``table`` plays: open it if nobody has, collect its result once its game is
        over, else make sure a live process drives it. Returns whether it was opened now."""
        data = await self.rooms.db.run(self.rooms.store.load_table, table.code)
        if data is None:
            options = self.options(tournament, table.round)
            keys = await self.rooms.db.run(self.seat_keys, [e.account for e in tournament.entrants
                                                            if e.account is not None])
            room = await self.rooms.open_table(options, table.code,
                                               lambda code: self.seats(tournament, table, code, keys))
            return room is not None
        game_id = (data.current or {}).get("last_game_id")
        if game_id is not None:
            game = await self.rooms.db.run(self.rooms.store.get_game, game_id)
            if game is not None:
                await self.rooms.db.run(self.store.record_result, table.code, list(game["totals"]), game_id)
            return False
        driven: Room | str | None = self.rooms.local(table.code)
        if driven is None:
            driven = await self.rooms.locate(table.code)  # (its owner died: taken over, its game goes on)
        if isinstance(driven, Room):
            await self._start_if_waiting(driven)
        return False

    @staticmethod
    async def _start_if_waiting(room: Room) -> None:
        """Start the game of a round's table that was opened and never started: the process that
        opened it died (or failed to save the start) between writing its row and starting its game,
        and a round's table has nobody who would start it otherwise (every seat is filled when it is
        opened). Only the process that drives it gets here, and under its lock it starts once."""
        if room.table.status != "waiting":
            return
        async with room.lock:
            if room.table.status == "waiting" and not room.table.closed:
                log.info("table %s: its game had not started (its opener died): started now", room.code)
                await room.start_game()

    def options(self, tournament: Tournament, round_number: int) -> TableOptions:
        settings = tournament.settings
        return TableOptions(
            round_rules({**settings, "format": tournament.format}), timer=int(settings.get("timer") or 0),
            # (a duplicate round's finished games would show the cards of the tables still
            # playing the same shuffle: their games are reached with their table's code only)
            fill_bot=str(settings.get("fill") or "medium"), public=not is_duplicate(tournament),
            seed=round_seed(tournament, round_number) if is_duplicate(tournament) else None,
            rated=bool(settings.get("rated")),
            tourney=tournament.id,
        )

    def seats(self, tournament: Tournament, table: RoundTable, code: str, keys: dict[int, str]) -> list[Seat]:
        """The seats of a round's table: each entrant where the plan puts them, fill bots after."""
        by_number = {e.number: e for e in tournament.entrants}
        now = self.clock.now()
        seats: list[Seat] = []
        for index, number in enumerate(table.seats):
            entrant = by_number.get(number) if number != FILL else None
            if entrant is None:
                name = bot_label(index, {s.name for s in seats} | {by_number[n].name for n in table.seats if n != FILL})
                seats.append(Seat(index, SeatKind.BOT, name, str(tournament.settings.get("fill") or "medium")))
            elif entrant.bot is not None:
                seats.append(Seat(index, SeatKind.BOT, entrant.name, entrant.bot))
            else:
                assert entrant.account is not None
                key = keys.get(entrant.account, "")
                seats.append(Seat(index, SeatKind.HUMAN, entrant.name, None, hash_token(seat_token(key, code)),
                                  account=entrant.account, program=entrant.program, away_since=now))
        return seats
