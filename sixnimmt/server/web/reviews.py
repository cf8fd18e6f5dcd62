"""Reviews of finished games (:func:`sixnimmt.bots.review.review`: each decision of one seat against
the best option a searcher finds), made in the background and kept in the store.

A review costs seconds of CPU, so they are made one at a time on a worker thread, at most
``Settings.reviews_queued`` wait, and each (game, seat) is made once: asking again returns the
stored review, or where the one asked for stands in the queue.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..config import Settings
from ..store.database import Store
from ..store.writer import Writer

log = logging.getLogger("sixnimmt.server")

Key = tuple[int, int]  # (game id, seat)


class ReviewBusyError(Exception):
    """The queue of reviews is full: ask again later."""


def _make_review(record: dict[str, Any], seat: int, samples: int, seed: int) -> dict[str, Any]:
    from ...bots.review import review  # the searcher (and its compiled kernels) load on first use

    return review(record, seat, samples=samples, seed=seed).to_dict()


class Reviews:
    def __init__(self, store: Store, db: Writer, settings: Settings) -> None:
        self.store = store
        self.db = db
        self.settings = settings
        self._waiting: list[Key] = []
        self._running: Key | None = None
        self._failed: dict[Key, str] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._worker: asyncio.Task[None] | None = None

    async def status(self, game_id: int, seat: int, *, start: bool) -> dict[str, Any] | None:
        """The review of ``seat`` in game ``game_id``: ``{"status": "done", "review": ...}``, or
        ``queued`` (with ``position``), ``running``, ``failed``; None if never asked for and
        ``start`` is false. With ``start``, a review not yet made is queued (:class:`ReviewBusyError`
        when the queue is full)."""
        key = (game_id, seat)
        stored = await self.db.run(self.store.get_review, game_id, seat)
        if stored is not None:
            return {"status": "done", "review": stored}
        if key == self._running:
            return {"status": "running"}
        if key in self._waiting:
            return {"status": "queued", "position": self._waiting.index(key) + 1}
        if key in self._failed and not start:
            return {"status": "failed", "detail": self._failed[key]}
        if not start:
            return None
        if len(self._waiting) >= self.settings.reviews_queued:
            raise ReviewBusyError
        self._failed.pop(key, None)
        self._waiting.append(key)
        self._idle.clear()
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())
        return {"status": "queued", "position": len(self._waiting)}

    async def _work(self) -> None:
        while True:
            if not self._waiting:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            key = self._running = self._waiting.pop(0)
            game_id, seat = key
            try:
                game = await self.db.run(self.store.get_game, game_id)
                if game is None:
                    raise LookupError(f"no finished game {game_id}")
                result = await asyncio.to_thread(
                    _make_review, game["record"], seat, self.settings.review_samples, game_id
                )
                await self.db.run(self.store.add_review, game_id, seat, result)
            except Exception as error:  # a review is a nicety: say it failed, keep serving
                log.warning("review of game %s seat %s failed: %s", game_id, seat + 1, error)
                self._failed[key] = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
            finally:
                self._running = None

    async def idle(self) -> None:
        """Wait until every review asked for is made (tests)."""
        await self._idle.wait()

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
