"""The store as the event loop uses it (:class:`Writer`): the store's calls on one worker thread, in
order, and table saves group-committed."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from ..refusal import Refusal
from .database import Store
from .rows import (
    LeaseLostError,
    TableData,
)

log = logging.getLogger("sixnimmt.server")

T = TypeVar("T")


#: SQLite: the write-ahead log is checkpointed after this many table saves (a few MB of log).
CHECKPOINT_EVERY = 500
#: Seconds one call of the store may take before it counts as hung: the database does not answer
#: at all (its backend stopped, or the network drops every packet), which no timeout of the
#: database's own can end. Longer than the statement timeout every connection carries
#: (:data:`~.database.POSTGRES_TIMEOUTS`), so a database that does answer ends a slow statement first.
ANSWER_TIMEOUT = 15.0


class StoreHungError(LeaseLostError):
    """The database did not answer a call within :data:`ANSWER_TIMEOUT`. The call is abandoned (its
    connection cut off, so the write never commits unless it was already committing) and the queue
    goes on. A table whose save hung is treated as one taken over: its copy may no longer match the
    stored state, so it is dropped and its sockets reconnect; it is loaded again from the database,
    where a takeover's row lock waits for whatever the hung write left (docs/scaling.md)."""


def no_answer() -> Refusal:
    """What a request is told when the database did not answer its call (:class:`StoreHungError`):
    503, try again, rather than an answer that never comes."""
    return Refusal("the server's database does not answer: try again in a few seconds", "store-unavailable",
                   status=503, headers={"Retry-After": "5"})


class Writer:
    """The store as the event loop uses it: every call runs on one worker thread, in order (SQLite
    wants one writer, and each table's writes keep their order), and table saves are group-committed:
    saves that arrive while a write is running go out together in the next transaction (only each
    table's newest state), and every caller waits for the commit that holds its save.

    On an SQLite file the group commits themselves run on the event loop, in order with the calls
    on the thread: such a commit appends a few pages to the write-ahead log (tens of microseconds),
    less than handing it to a thread and back costs; the log's checkpoints, which wait for the disk,
    run in a thread. And a save that finds the writer idle (nothing queued, nothing being written,
    no call on the thread) is committed then and there, inside :meth:`save`: waking the writer's
    task and then the saver again would cost more CPU than the commit.
    Saves still group while a write or a call on the thread is under way."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._saves_since_checkpoint = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._one_at_a_time = asyncio.Semaphore(1)
        self._unsaved: dict[str, TableData] = {}
        self._waiters: list[tuple[str, asyncio.Future[None]]] = []
        self._committing: list[tuple[str, asyncio.Future[None]]] = []
        self._wanted = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._writing = False  # a batch is being written (by the writer's task)
        #: Seconds a call may take before it counts as hung (tests shorten it).
        self.answer_timeout = ANSWER_TIMEOUT

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the worker thread, after the calls before it; :class:`StoreHungError` if
        the database does not answer it within :attr:`answer_timeout` (the calls after it go on)."""
        async with self._one_at_a_time:
            return await self._answered(fn, *args)

    async def beside(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread of its own, beside the calls in order (a read, or a short write
        that need not wait behind the tables' saves: an account's session), bounded as :meth:`run`
        is: :class:`StoreHungError` if the database does not answer it within :attr:`answer_timeout`."""
        return await self._answered(fn, *args)

    async def _answered(self, fn: Callable[..., T], *args: Any) -> T:
        if self.store.engine.dialect.name == "sqlite":  # (a file, no server to hang: its calls run to their end)
            return await asyncio.to_thread(fn, *args)
        threads: list[int] = []

        def call() -> T:
            threads.append(threading.get_ident())
            return fn(*args)

        task = asyncio.ensure_future(asyncio.to_thread(call))
        done, _ = await asyncio.wait({task}, timeout=self.answer_timeout)
        if task in done:
            return task.result()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (its error is expected)
        log.warning("the database did not answer %s in %.1f s: cutting its connection off",
                    getattr(fn, "__name__", "a call"), self.answer_timeout)
        self.store.cut_off(threads)
        raise StoreHungError(getattr(fn, "__name__", "call"))

    async def run_here(self, fn: Callable[..., T], *args: Any) -> T:
        """A short write (a row or two): on an SQLite file run on the event loop, in order with the
        other calls (as a table's save is, :meth:`save`), rather than handing it to the thread and
        back, which holds every save up meanwhile; elsewhere as :meth:`run`."""
        if not self.store.local_file:
            return await self.run(fn, *args)
        async with self._one_at_a_time:
            return fn(*args)

    async def save(self, data: TableData) -> None:
        """Persist a table's state; returns once it is committed."""
        if self.store.local_file and not (self._unsaved or self._writing or self._one_at_a_time.locked()):
            if data.code in self._save_here([data]):  # the writer is idle: commit now, on the loop
                raise LeaseLostError(data.code)
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        waiting = self._unsaved.get(data.code)
        if waiting is not None and data.changed is not None:
            # the newer state replaces the one not yet written: it must write that one's columns too
            data = replace(data, changed=None if waiting.changed is None else data.changed | waiting.changed)
        self._unsaved[data.code] = data
        self._waiters.append((data.code, done))
        self._wanted.set()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._write_behind())
        await done

    async def _write_behind(self) -> None:
        while True:
            await self._wanted.wait()
            self._wanted.clear()
            batch, waiters = self._unsaved, self._waiters
            self._unsaved, self._waiters = {}, []
            self._committing = waiters
            self._writing = True
            try:
                refused = await self._save_batch(list(batch.values()))
            except Exception as error:
                for _, waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)
                continue
            finally:
                self._writing = False
            for code, waiter in waiters:
                if not waiter.done():
                    if code in refused:
                        waiter.set_exception(LeaseLostError(code))
                    else:
                        waiter.set_result(None)

    async def _save_batch(self, batch: list[TableData]) -> set[str]:
        if not self.store.local_file:
            return await self.run(self.store.save_tables, batch)
        async with self._one_at_a_time:
            return self._save_here(batch)

    def _save_here(self, batch: list[TableData]) -> set[str]:
        """SQLite: write ``batch`` on the event loop (the caller holds the writer, or finds it
        idle), and start a checkpoint of the log when enough saves have gone into it."""
        refused = self.store.save_tables(batch)
        self._saves_since_checkpoint += len(batch)
        if self._saves_since_checkpoint >= CHECKPOINT_EVERY and (
            self._checkpoint is None or self._checkpoint.done()
        ):
            self._saves_since_checkpoint = 0
            self._checkpoint = asyncio.get_running_loop().create_task(self._checkpoint_log())
        return refused

    async def _checkpoint_log(self) -> None:
        try:
            await asyncio.to_thread(self.store.checkpoint)
        except Exception:  # the next one catches up; the log only grows meanwhile
            log.exception("the database's write-ahead log could not be checkpointed")

    async def close(self) -> None:
        """Let the last saves commit, then stop the writer."""
        pending = [w for _, w in self._committing + self._waiters if not w.done()]
        if pending:
            await asyncio.wait(pending, timeout=5)
        if self._task is not None:
            self._task.cancel()
        if self._checkpoint is not None:
            await asyncio.wait([self._checkpoint], timeout=5)
