"""The hint desk: where every table's hints are made, apart from the bots.

A hint is a strong bot's search run for a person. Made in the bots' threads, a client holding many
seats and asking back to back could make another table's bot wait behind its hints (a grandmaster
turn went from 0.7 s to 3 s). Here hints run one at a time, in a thread of their own, so at any
moment at most one hint competes with the bots for the processor, whatever the number of clients
asking; each client address has a budget of hints (a token bucket on the injected clock), and at
most ``Settings.hints_waiting`` hints wait their turn (beyond, the asker is told to try again).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from ..clock import Clock
from ..config import Settings
from ..limits import RateLimits
from .scheduling import BotThreads
from .table_setup import TableError

T = TypeVar("T")


class HintDesk:
    """Every table's hints of one process: a budget per address, a short queue, one thread."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.clock = clock
        self.most_waiting = settings.hints_waiting
        self.limits = RateLimits(settings.hints_per_minute / 60, settings.hint_burst)
        self.threads = BotThreads(1, settings.think_niceness)
        #: Hints asked for and not yet answered (the one being made included).
        self.waiting = 0

    def take(self, address: str) -> None:
        """Take one hint from ``address``'s budget and a place in the queue, or raise a
        :class:`TableError` that says what was limited and for how long."""
        if self.waiting > self.most_waiting:
            raise TableError("many hints are being made right now: try again in a few seconds", "hint-busy",
                             retry_after=2)
        wait = self.limits.retry_after(address, self.clock.now())
        if wait:
            seconds = max(1, math.ceil(wait))
            raise TableError(f"too many hints: wait {seconds} s", "rate-limited", retry_after=seconds, what="hints")
        self.waiting += 1

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the hint thread, after the hints asked for before it; gives back
        the place :meth:`take` took."""
        try:
            return await self.threads.run(function, *args)
        finally:
            self.waiting -= 1

    def close(self) -> None:
        self.threads.close()
