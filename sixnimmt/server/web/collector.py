"""How a serving process collects its garbage (``Settings.quiet_gc``, which ``sixnimmt serve`` sets).

Python's automatic collector runs whenever tracked objects have been allocated faster than freed,
and each run scans every live object allocated since the last one. A busy server replaces the views,
messages and turn state of its tables on every move, so those runs are large: at a thousand busy
tables each stops the event loop long enough to make the round trips' tail (docs/performance.md,
"Web server"). And in steady play they find nothing to free: every one of those objects is
freed by its reference count as soon as it is replaced.

What only the collector can free are reference cycles, and a server makes them rarely: a closed
connection (asyncio's transport refers to itself), a finished or evicted game. So the automatic
collector is stopped, what start-up made is frozen out of its reach (it lives as long as the
process), and one full collection runs every ``every`` seconds: a pause proportional to the live
objects (about a second at 1,000 busy tables; milliseconds for a few), once per period instead of a
quarter of a second every few seconds, and the cycles of a period are freed at its end.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

from ..clock import Clock

log = logging.getLogger(__name__)


class QuietCollector:
    """The automatic collector stopped while the server runs, and a full collection every
    ``every`` seconds of ``clock``. :meth:`stop` gives the process its automatic collector back."""

    def __init__(self, clock: Clock, every: float, collect: Callable[[], int] = gc.collect) -> None:
        if every <= 0:
            raise ValueError(f"a collection period must be positive, not {every}")
        self.clock = clock
        self.every = every
        self.collect = collect
        #: Full collections run so far, and the objects they freed.
        self.collections = 0
        self.freed = 0
        self._task: asyncio.Task[None] | None = None
        self._was_enabled = True

    def start(self) -> None:
        """Stop the automatic collector and start the periodic one (on the running event loop)."""
        if self._task is not None:
            return
        self._was_enabled = gc.isenabled()
        gc.collect()  # what start-up left behind, before the survivors are frozen
        gc.freeze()
        gc.disable()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="quiet-collector")

    async def _run(self) -> None:
        while True:
            await self.clock.sleep(self.every)
            self.run_once()

    def run_once(self) -> int:
        """One full collection now; the objects it freed."""
        started = time.perf_counter()
        freed = self.collect()
        self.collections += 1
        self.freed += freed
        log.debug("full collection: %d objects freed in %.0f ms", freed, (time.perf_counter() - started) * 1000)
        return freed

    async def stop(self) -> None:
        """Stop the periodic collection and give the process its automatic collector back."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        if self._was_enabled:
            gc.enable()
