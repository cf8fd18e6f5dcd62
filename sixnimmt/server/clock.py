"""The server's sense of time, injected: rooms, the bot scheduler, turn timers and every rate limit
read it through a :class:`Clock`, so tests move time forward by hand instead of sleeping.

``LoopClock`` is the real one (the event loop's monotonic time). ``ManualClock`` stands still until
:meth:`ManualClock.advance` moves it, firing whatever fell due on the way. :meth:`Clock.wall` is the
calendar time of the same instant: what a time kept past a restart (a turn-based table's deadline)
is stored as, since monotonic time means nothing to the next process.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A scheduled call that can be called off."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def wall(self) -> float:
        """The same instant as calendar time: seconds since the Unix epoch."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` (on the event loop) once ``delay`` seconds have passed."""
        ...

    async def sleep(self, delay: float) -> None:
        """Return once ``delay`` seconds have passed."""
        ...


class LoopClock:
    """Real time: ``time.monotonic`` (the event loop's own clock) and the loop's timers."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, delay), callback)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)


class _ManualTimer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """Time that moves only when told to (tests, and scripted runs). Its calendar time starts at
    ``wall_start`` (a process started later, on a clock of its own, passes the wall time reached)."""

    def __init__(self, start: float = 1000.0, wall_start: float = 1_767_225_600.0) -> None:
        self._now = start
        self._wall_offset = wall_start - start
        self._due: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(self._due, (self._now + max(0.0, delay), next(self._order), timer, callback))
        return timer

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            await asyncio.sleep(0)
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not done.done():
                done.set_result(None)

        self.call_later(delay, wake)
        await done

    def advance(self, seconds: float) -> None:
        """Move time forward, running each call that falls due, in order, at its own time."""
        until = self._now + seconds
        while self._due and self._due[0][0] <= until:
            when, _, timer, callback = heapq.heappop(self._due)
            self._now = max(self._now, when)
            if not timer.cancelled:
                callback()
        self._now = until

    def pending(self) -> int:
        """Calls still waiting (not cancelled)."""
        return sum(1 for _, _, timer, _ in self._due if not timer.cancelled)
