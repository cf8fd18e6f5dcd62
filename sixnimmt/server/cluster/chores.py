"""The heartbeat's work that may wait: on the store loading a table, on a table's lock, on another
process. Each kind runs in a task of its own, so the heartbeat, which renews the lease, never waits
for it (a slow or hung store must never hold the renewal up); at most one run of a kind is under way
(a run that outlasts a heartbeat is not joined by a second one: the next heartbeat after it ends
starts another). A run that fails is logged, with the process and the kind of work, and the next
heartbeat runs that kind again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("sixnimmt.server")


class Chores:
    """The heartbeat's runs of work in the background, by kind."""

    def __init__(self, me: str) -> None:
        self.me = me
        self._running: dict[str, asyncio.Task[None]] = {}

    def start(self, kind: str, work: Callable[[], Awaitable[object]]) -> bool:
        """Run ``work`` in a task of its own, unless a run of ``kind`` is still under way; whether
        it was started."""
        running = self._running.get(kind)
        if running is not None and not running.done():
            return False
        self._running[kind] = asyncio.get_running_loop().create_task(self._logged(kind, work))
        return True

    async def _logged(self, kind: str, work: Callable[[], Awaitable[object]]) -> None:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:  # (the next heartbeat runs it again)
            log.exception("process %s: %s failed; the next heartbeat tries again", self.me, kind)

    def under_way(self, kind: str) -> bool:
        running = self._running.get(kind)
        return running is not None and not running.done()

    async def settle(self) -> None:
        """Wait for the runs under way (tests: the work a heartbeat started)."""
        await asyncio.gather(*self._running.values())

    def cancel(self) -> list[asyncio.Task[None]]:
        """Call every run under way off (the database was lost, or the process stops); the tasks."""
        running = list(self._running.values())
        for task in running:
            task.cancel()
        self._running.clear()
        return running
