"""How one WebSocket's messages go out (``server.app.SocketClient``): at once when nothing waits,
through the writer otherwise, and always in the order they were pushed."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest

from sixnimmt.server.sockets import SocketClient

pytestmark = pytest.mark.asyncio


class FakeSocket:
    """A WebSocket whose sends complete at once, or wait on ``gate`` while it is set (a peer that
    has stopped reading: uvicorn's send waits until its transport drains)."""

    def __init__(self) -> None:
        self.sent: list[int] = []
        self.closed: tuple[int, str] | None = None
        self.gate: asyncio.Future[None] | None = None
        self.fail = False

    async def send_text(self, text: str) -> None:
        if self.fail:
            raise RuntimeError("the socket is closed")
        if self.gate is not None:
            await self.gate
        self.sent.append(json.loads(text)["n"])

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


async def writing(socket: FakeSocket) -> tuple[SocketClient, asyncio.Task[None]]:
    """A client of ``socket`` whose writer has started and waits on an empty outbox."""
    client = SocketClient(cast(Any, socket), seat=0, limit=100)
    writer = asyncio.get_running_loop().create_task(client.writer())
    await settle()
    return client, writer


async def settle() -> None:
    for _ in range(5):  # a few turns of the loop: every ready task runs to its next wait
        await asyncio.sleep(0)


async def test_a_message_to_an_idle_socket_is_sent_at_once() -> None:
    socket = FakeSocket()
    client, writer = await writing(socket)
    client.push({"n": 1})
    assert socket.sent == [1]  # before the loop has run again: no writer was woken
    assert not client.outbox
    client.push({"n": 2})
    assert socket.sent == [1, 2]
    writer.cancel()


async def test_messages_behind_a_send_that_waits_keep_their_order() -> None:
    socket = FakeSocket()
    client, writer = await writing(socket)
    socket.gate = asyncio.get_running_loop().create_future()
    client.push({"n": 1})  # must wait: finishes in a task of its own
    client.push({"n": 2})  # queued behind it, for the writer
    client.push({"n": 3})
    await settle()
    assert socket.sent == [] and len(client.outbox) == 2
    gate, socket.gate = socket.gate, None
    gate.set_result(None)
    await settle()
    assert socket.sent == [1, 2, 3] and not client.outbox
    client.push({"n": 4})  # idle again: at once once more, after the writer has caught up
    await settle()
    assert socket.sent == [1, 2, 3, 4]
    writer.cancel()


async def test_a_socket_that_fails_on_a_direct_send_is_closed_by_its_writer() -> None:
    socket = FakeSocket()
    client, writer = await writing(socket)
    socket.fail = True
    client.push({"n": 1})  # raises nothing here: the room goes on to its other sockets
    assert client.overflowed
    client.push({"n": 2})  # nothing more is queued
    await settle()
    assert writer.done() and socket.closed is not None and socket.sent == []


async def test_a_cancelled_writer_cancels_a_send_that_waits() -> None:
    socket = FakeSocket()
    client, writer = await writing(socket)
    socket.gate = asyncio.get_running_loop().create_future()
    client.push({"n": 1})
    client.push({"n": 2})  # wakes the writer, which waits for the direct send
    await settle()
    writer.cancel()
    await settle()
    assert writer.cancelled() and socket.gate.cancelled() and socket.sent == []
