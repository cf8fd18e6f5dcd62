"""One WebSocket's way out: the :class:`SocketClient` every room, forwarded table socket and bot
program connection sends through, and :func:`pump`, the loop that reads a socket's frames."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from fastapi import WebSocket
from starlette.websockets import WebSocketDisconnect

from .wire import MOVED_CLOSE_CODE, wire_text


class SocketClient:
    """One WebSocket as a room :class:`~sixnimmt.server.tables.rooms.Connection`: an outbox drained by a
    writer task, so broadcasting never waits on a slow phone. (A deque and one future to wake the
    writer: an ``asyncio.Queue`` cost about as much CPU per message as the send itself.)

    A message pushed while nothing waits in the outbox is sent at once, not through the writer:
    uvicorn's WebSocket send completes without waiting unless the peer is behind (its transport's
    buffer is full), and waking the writer cost as much again as the send. A send that does have to
    wait finishes in a task of its own, and the writer sends nothing until it has."""

    def __init__(self, websocket: WebSocket, seat: int | None, limit: int) -> None:
        self.websocket = websocket
        self.seat = seat
        self.limit = limit  # messages it may leave unread before it is disconnected
        self.outbox: deque[dict[str, Any] | None] = deque()  # None: close
        self._wake: asyncio.Future[None] | None = None  # what the writer waits on when the outbox is empty
        self._sending: asyncio.Task[None] | None = None  # a direct send that had to wait, until it is done
        self.overflowed = False
        self.close_code, self.close_reason = 1008, "too far behind"

    def _queue(self, message: dict[str, Any] | None) -> None:
        self.outbox.append(message)
        wake, self._wake = self._wake, None
        if wake is not None and not wake.done():
            wake.set_result(None)

    def push(self, message: dict[str, Any]) -> None:
        if self.overflowed:
            return  # closing: nothing more is queued
        if self._wake is not None and self._sending is None and not self.outbox:
            self._send_now(wire_text(message))  # the writer is idle: nothing to wait behind
            return
        if len(self.outbox) >= self.limit:
            self.overflowed = True
            self._queue(None)  # the writer closes; the client reconnects and resyncs
            return
        self._queue(message)

    def _send_now(self, text: str) -> None:
        """Send ``text`` here and now, as far as the send goes without waiting."""
        send = self.websocket.send_text(text)
        try:
            waiting_on = send.send(None)
        except StopIteration:
            return  # sent
        except Exception:  # the socket is gone: the writer ends, as when its own send fails
            self.overflowed = True
            self._queue(None)
            return
        self._sending = asyncio.get_running_loop().create_task(_finish_send(send, waiting_on))

    def close(self, code: int, reason: str) -> None:
        """Close after the messages already queued (the client reconnects by itself)."""
        if not self.overflowed:
            self.overflowed = True
            self.close_code, self.close_reason = code, reason
            self._queue(None)

    def drop(self) -> None:
        """The table left this process (another one drives it now): reconnect to reach it."""
        self.close(MOVED_CLOSE_CODE, "the table moved: reconnect")

    async def writer(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self.outbox:
                    self._wake = loop.create_future()
                    await self._wake
                    continue
                if self._sending is not None:  # a direct send still under way: it goes first
                    await self._sending
                    self._sending = None
                message = self.outbox.popleft()
                if message is None:
                    await self.websocket.close(code=self.close_code, reason=self.close_reason)
                    return
                await self.websocket.send_text(wire_text(message))
        finally:
            if self._sending is not None:
                self._sending.cancel()


async def _finish_send(send: Coroutine[Any, Any, None], waiting_on: Any) -> None:
    """Drive a send coroutine that stopped to wait on the future ``waiting_on`` the rest of the way,
    as a task would have driven it from the start."""
    while True:
        try:
            if waiting_on is None:  # a bare yield (``asyncio.sleep(0)``): one turn of the loop
                await asyncio.sleep(0)
            else:
                # What a task does with a future its coroutine yields (asyncio's future protocol):
                # the flag says "not yet taken up", and awaiting it again needs it cleared.
                waiting_on._asyncio_future_blocking = False
                await waiting_on
        except BaseException as error:  # cancelled, or the future failed: the send learns of it
            try:
                waiting_on = send.throw(error)
            except StopIteration:
                return
            continue
        try:
            waiting_on = send.send(None)
        except StopIteration:
            return


async def pump(websocket: WebSocket, client: SocketClient, handle: Callable[[str | None], Awaitable[None]]) -> None:
    """Run ``client``'s writer and hand each frame's text to ``handle`` until either side closes
    (the client, or the writer after an overflow or a move to another process)."""
    writer = asyncio.create_task(client.writer())
    try:
        while not writer.done():
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            await handle(frame.get("text"))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        writer.cancel()
