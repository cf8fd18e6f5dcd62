"""Who moves when nobody at the keyboard does: the table's bots, and the fallback bot that plays for a
player who is away or out of time (the turn timer). Time comes from an injected
:class:`~sixnimmt.server.clock.Clock`, so tests move it by hand.

Every bot plays through a :class:`~sixnimmt.seats.GuardedSeat`, which always answers legally (a
failing bot's move is the seat's seeded fallback) and closes the bot when the game ends. Bots think
off the event loop, in the :class:`BotThreads` every table shares (a few threads, at a lower
priority than the event loop; the searching kernels release the GIL while they run), except bots
that have shown themselves quick, which never wait behind a search (``QUICK_SECONDS``); their answer is
applied under the room's lock only if the game is still waiting for exactly that decision. A bot
that thinks longer than ``Settings.thinking_notice`` is announced to the table as thinking until it
answers.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from ...core import Decision, Phase
from ...seats import GuardedSeat, make_bot
from ...seats.registry import time_limit, with_time_limit
from ..clock import Clock, Timer
from ..config import Settings
from .seat import Seat
from .table import TableSession
from .table_setup import TURN_BASED, StoreFailedError, TableMovedError, bot_spec

log = logging.getLogger("sixnimmt.server")
#: Seconds a bot waits before trying its move again after the store failed to save it.
STORE_RETRY = 1.0
T = TypeVar("T")
#: A bot whose slowest decision so far took less than this (its first one goes to the bot threads)
#: thinks in the default executor from then on: heuristics answer in well under a millisecond and
#: must not queue behind other tables' searches.
QUICK_SECONDS = 0.02


class BotThreads:
    """The threads every table's bots and hints think in: at most ``threads`` decisions at once (the
    others wait their turn), so fifty tables of searching bots cannot take every core from the event
    loop that answers the players. On Linux the threads also run ``niceness`` steps below the
    server's priority, so under load the event loop goes first and the bots, whose time limits are
    measured in wall-clock time, think a little less."""

    def __init__(self, threads: int, niceness: int = 0) -> None:
        self.threads = max(1, threads)
        self._pool = ThreadPoolExecutor(
            self.threads, thread_name_prefix="sixnimmt-bot", initializer=lower_priority, initargs=(niceness,)
        )

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in one of the threads; the event loop goes on meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(function, *args))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def lower_priority(niceness: int) -> None:
    """Lower the calling thread's scheduling priority by ``niceness`` steps (Linux only: elsewhere
    ``setpriority`` on a thread id would re-nice the whole process)."""
    if niceness <= 0 or sys.platform != "linux":
        return
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + niceness))
    except OSError as error:  # not allowed here: the threads keep the server's priority
        log.warning("bot threads keep the server's priority: %s", error)


class Host(Protocol):
    """What the scheduler needs of the room it serves: the table, its lock, a way to act, and a way
    to say that a bot is thinking."""

    table: TableSession
    lock: asyncio.Lock

    def anyone_connected(self) -> bool: ...

    async def act(self, seat: int, value: int, stand_in: str | None = None) -> None:
        """Apply a move (the caller holds the lock); ``stand_in`` says why a bot played for a person."""
        ...

    def bot_thinking(self, seat: int, thinking: bool) -> None:
        """Tell the table that the bot in ``seat`` started (or stopped) a long think."""
        ...


class Scheduler:
    """Bot moves and the turn timer of one table."""

    def __init__(self, room: Host, settings: Settings, clock: Clock, threads: BotThreads | None = None) -> None:
        self.room = room
        self.settings = settings
        self.clock = clock
        self.closed = False
        #: Where the bots think: the server's shared threads, else (a table on its own) threads of its own.
        self.threads = threads or BotThreads(settings.think_threads, settings.think_niceness)
        self._own_threads = threads is None
        #: Seats whose bot has been thinking longer than ``settings.thinking_notice`` (shown as thinking).
        self.long_thinking: set[int] = set()
        #: When the current decision's time runs out (None: no timer, or no game running), and when
        #: the decision was reached (a bot program's own time per decision counts from it).
        self.deadline: float | None = None
        self.step_started = clock.now()
        self._step: tuple[Any, ...] | None = None
        self._bots: dict[int, GuardedSeat] = {}
        self._fallbacks: dict[int, GuardedSeat] = {}
        self._slowest: dict[GuardedSeat, float] = {}  # each bot's slowest decision so far (seconds)
        self._thinking: dict[int, asyncio.Task[None]] = {}
        self._timer: Timer | None = None
        #: A turn-based table (a per-move time of hours): see :data:`~sixnimmt.server.tables.table_setup.TURN_BASED`.
        self.turn_based = False

    # ------------------------------------------------------------------ state

    @property
    def busy(self) -> bool:
        """A bot is thinking (or waiting to play)."""
        return bool(self._thinking)

    def timer_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, round(self.deadline - self.clock.now(), 1))

    def away_left(self) -> list[float | None]:
        """Per seat: the seconds until the stand-in plays for a player who is away (None: not away,
        or a turn-based table, where being away is the normal state)."""
        now = self.clock.now()
        return [
            None if self.turn_based or not s.held or s.away_since is None
            else max(0.0, round(s.away_since + self.grace(s) - now, 1))
            for s in self.room.table.seats
        ]

    def grace(self, seat: Seat) -> float:
        """Seconds an away player keeps the seat before the stand-in plays for them (a bot
        program's: ``Settings.program_grace``, docs/bot-api.md)."""
        return self.settings.program_grace if seat.program else self.settings.absent_grace

    def _spec(self, level: str) -> str:
        """The spec a bot of ``level`` plays with here (``Settings.level_specs``)."""
        return self.settings.level_specs.get(level, bot_spec(level))

    def _guarded(self, level: str, seat: int, role: str, most_ms: float | None = None) -> GuardedSeat:
        seed = secrets.randbits(32)
        spec = self._spec(level)
        if most_ms is not None and time_limit(spec) > most_ms:
            spec = with_time_limit(spec, most_ms)
        bot = make_bot(spec, seed)
        # Timed on the server's clock (the bot's think decides whether it counts as quick).
        label = f"{role} {level} at table {self.room.table.code} seat {seat + 1}"
        return GuardedSeat(bot, fallback_seed=seed, label=label, clock=self.clock.now)

    def make_bots(self) -> None:
        """Fresh bots for the bot seats (a new game, or a reload); the previous ones are closed."""
        self._close_bots()
        levels = {s.index: s.bot or self.settings.fallback_bot for s in self.room.table.seats if not s.held}
        # The timed bots share the table's thinking time per turn (Settings.turn_think_ms).
        timed = sum(1 for level in levels.values() if time_limit(self._spec(level)) > 0)
        share = self.settings.turn_think_ms / timed if timed else None
        self._bots = {index: self._guarded(level, index, "bot", share) for index, level in levels.items()}

    def _close_bots(self) -> None:
        for guarded in (*self._bots.values(), *self._fallbacks.values()):
            guarded.close()
        self._bots, self._fallbacks, self._slowest = {}, {}, {}  # fallbacks are made when first needed: most players never need one

    def new_step(self, timer: int, resume_at: float | None = None) -> None:
        """Restart the turn timer (``timer`` seconds, 0 for none; a turn-based table's may be shortened
        by ``Settings.turn_based_seconds``) when the game reaches a new decision.
        ``resume_at``: the deadline this decision already had, as calendar time (a turn-based table
        loaded again after a restart keeps it, and a deadline that passed meanwhile is due at once)."""
        self.turn_based = timer >= TURN_BASED
        seconds = float(timer)
        if self.turn_based and self.settings.turn_based_seconds is not None:
            seconds = self.settings.turn_based_seconds
        key = self._step_key()
        if key != self._step:
            self._step = key
            now = self.step_started = self.clock.now()
            if resume_at is not None and seconds:
                self.deadline = now + min(seconds, resume_at - self.clock.wall())
            else:
                self.deadline = now + seconds if seconds else None

    def deadline_at(self) -> float | None:
        """When the current decision's time runs out, as calendar time (None: no timer)."""
        if self.deadline is None:
            return None
        return round(self.clock.wall() + self.deadline - self.clock.now(), 3)

    def finish(self) -> None:
        """The game is over: no timer, and the bots are closed."""
        self.deadline = None
        self._close_bots()

    def _step_key(self) -> tuple[Any, ...]:
        game = self.room.table.game
        assert game is not None
        # In the play phase everyone decides at once: the step is the turn. Otherwise (and in Open
        # and Hand, played one at a time) one player decides and each decision is a step of its own.
        simultaneous = game.phase is Phase.PLAY and not game.rules.sequential
        who = () if simultaneous else game.pending()[:1]
        return (self.room.table.game_number, game.deal_index, game.turn, game.phase, who)

    # ------------------------------------------------------------------ scheduling

    def schedule(self) -> None:
        """Start bot moves that are due and set the clock for the next fallback move."""
        table = self.room.table
        if self.closed or table.game is None or table.status != "playing":
            return
        now = self.clock.now()
        next_due: float | None = None
        for decision in table.game.pending():
            seat = table.seats[decision.seat]
            if decision.seat in self._thinking:
                continue
            if not seat.held:  # a bot seat, or one waiting for a person (a bot plays it meanwhile)
                self._think(decision, self._bots[decision.seat], self.settings.bot_delay, None)
                continue
            due, reason = self.fallback_due(seat)
            if due is None:
                continue
            if due <= now:
                if seat.program:  # the host never trusts a bot program: its silence is a fault
                    log.warning("bot %r at table %s seat %d: fault: %s: the stand-in plays deal %d turn %d",
                                seat.name, table.code, seat.index + 1, "no answer in time" if reason == "timer"
                                else "away past its grace", table.game.deal_index + 1, table.game.turn + 1)
                self._think(decision, self._fallback_for(decision.seat), 0.0, reason)
            elif next_due is None or due < next_due:
                next_due = due
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if next_due is not None:
            self._timer = self.clock.call_later(next_due - now, self.schedule)

    def fallback_due(self, seat: Seat) -> tuple[float | None, str]:
        """When the fallback bot plays for ``seat``, and why ("timer" or "away"): timer expiry, or the
        end of the grace period when the player is away, but only while someone is at the table to
        wait for them, or nobody is (:meth:`plays_on_alone`)."""
        if seat.leaving and seat.token_hash is None and seat.away_since is not None:
            return seat.away_since, "away"  # the player left their seat: played for at once
        if self.turn_based:  # players are away between moves; only the time per move counts
            return (self.deadline, "timer") if self.deadline is not None else (None, "")
        if not self.room.anyone_connected() and not self.plays_on_alone():
            return None, ""
        candidates: list[tuple[float, str]] = []
        if self.deadline is not None:
            candidates.append((self.deadline, "timer"))
        elif seat.program:  # a table without a timer: a bot program has its own time per decision
            candidates.append((self.step_started + self.settings.program_move_seconds, "timer"))
        if seat.leaving and seat.away_since is not None:  # the player left their seat: no grace
            candidates.append((seat.away_since, "away"))
        if seat.away_since is not None:
            candidates.append((seat.away_since + self.grace(seat), "away"))
        if not candidates:
            return None, ""
        return min(candidates)

    def plays_on_alone(self) -> bool:
        """Whether the game goes on with nobody connected: every seat is a bot's, server bots' or bot
        programs' (docs/bot-api.md), so nobody comes back to wait for, and a program away past its
        grace is played for by the stand-in to the end of the game. A person's table pauses instead,
        except a tournament's, whose round waits for no one."""
        if self.room.table.options.tourney is not None:
            return True
        return not any(seat.person for seat in self.room.table.seats)

    def stays_in_memory(self, deadlines_kept: bool) -> bool:
        """Whether the table must stay in memory, idle or not, for its game to go on with nobody at
        it: a game of bot programs only, which the stand-in plays to its end (:meth:`plays_on_alone`),
        and a turn-based game unless ``deadlines_kept``: with several processes its deadline is kept
        by the database (``tables.due_at``), and whichever process lives loads the table again when
        it falls due (docs/scaling.md, "Deadlines"), so an idle one is evicted as any other is."""
        if self.room.table.status != "playing":
            return False
        return self.plays_on_alone() or (self.turn_based and not deadlines_kept)

    def _fallback_for(self, seat: int) -> GuardedSeat:
        if seat not in self._fallbacks:
            self._fallbacks[seat] = self._guarded(self.settings.fallback_bot, seat, "fallback")
        return self._fallbacks[seat]

    def _think(self, decision: Decision, bot: GuardedSeat, delay: float, stand_in: str | None) -> None:
        task = asyncio.get_running_loop().create_task(self._bot_move(decision, bot, delay, stand_in))
        self._thinking[decision.seat] = task

    async def _bot_move(self, decision: Decision, bot: GuardedSeat, delay: float, stand_in: str | None) -> None:
        table = self.room.table
        seat = decision.seat
        try:
            if delay:
                await self.clock.sleep(delay)
            game = table.game
            if game is None or self.closed:
                return
            view = game.view(seat)
            if view.decision != decision:
                return
            # think off the event loop; the guard answers legally whatever the bot does
            notice = self.clock.call_later(self.settings.thinking_notice, lambda: self._show_thinking(seat, True))
            try:
                if self._slowest.get(bot, QUICK_SECONDS) < QUICK_SECONDS:
                    value = await asyncio.to_thread(bot.decide, view)  # a quick bot: no queue
                else:
                    value = await self.threads.run(bot.decide, view)
                self._slowest[bot] = max(self._slowest.get(bot, 0.0), bot.last_seconds)
            finally:
                notice.cancel()
                self._show_thinking(seat, False)
            async with self.room.lock:
                if table.game is not game or self.closed or game.decision_for(seat) != decision:
                    return  # the game moved on while the bot was thinking
                if table.seats[seat].held:
                    due, _ = self.fallback_due(table.seats[seat])
                    if due is None or due > self.clock.now():
                        return  # the player came back in the meantime: it is their move again
                await self.room.act(seat, value, stand_in)
        except StoreFailedError:
            # the table went back to its last saved state; the move is made again after a pause
            log.warning("table %s: a bot's move was not saved; trying again in %.0f s", table.code, STORE_RETRY)
            await self.clock.sleep(STORE_RETRY)
        except TableMovedError:  # another process drives the table now (or this one lost its lease)
            self.closed = True  # this copy is being dropped: no more moves are scheduled here
        finally:
            if self._thinking.get(seat) is asyncio.current_task():
                del self._thinking[seat]
            if not self.closed:
                self.schedule()

    def _show_thinking(self, seat: int, thinking: bool) -> None:
        if thinking == (seat in self.long_thinking) or (thinking and self.closed):
            return
        if thinking:
            self.long_thinking.add(seat)
        else:
            self.long_thinking.discard(seat)
        self.room.bot_thinking(seat, thinking)

    async def settle(self) -> None:
        """Wait until no bot is thinking (tests: after moving the clock, let the moves it caused land)."""
        while self._thinking:
            await asyncio.wait(list(self._thinking.values()))

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._thinking.values()):
            task.cancel()
        self._close_bots()
        if self._own_threads:
            self.threads.close()
