"""Slow clients closed: the HTTP protocol ``sixnimmt serve`` runs (uvicorn's h11 protocol, with its
16 KB cap on a request's head) with read timeouts uvicorn lacks. Without them a client that sends a
request's headers, or its body, a byte at a time holds a connection open as long as it likes, and a
few hundred such clients hold every connection a worker has (docs/deploy.md, "Slow clients")."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection has to send a request's head (its headers), from its opening or the end of
#: the last answer; and then the seconds more its body has.
HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
#: The largest request head read; a larger one is answered 431 and the connection closed.
MAX_HEAD_BYTES = 16 * 1024
TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\n"
             b"content-length: 25\r\nconnection: close\r\n\r\nrequest head is too large")


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head does not arrive within
    :attr:`header_timeout` seconds, or whose body does not within :attr:`body_timeout` more. A
    connection upgraded to a WebSocket is the WebSocket's business (its own pings)."""

    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_timer: asyncio.TimerHandle | None = self.loop.call_later(self.header_timeout, self._head_due)

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and cycle is not before and self._mine():  # a new request's head arrived
            head = sum(len(name) + len(value) + 4 for name, value in cycle.scope["headers"])
            if head > MAX_HEAD_BYTES:
                cycle.disconnected = True
                self.transport.write(TOO_LARGE)
                self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():  # the next request's head has its own time
            self._restart(self.header_timeout, self._head_due)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
        super().connection_lost(exc)

    def _restart(self, delay: float, check: object) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
        self._read_timer = self.loop.call_later(delay, check)  # type: ignore[arg-type]

    def _mine(self) -> bool:
        return not self.transport.is_closing() and self.transport.get_protocol() is self

    def _head_due(self) -> None:
        self._read_timer = None
        if not self._mine():
            return
        if self.cycle is None or self.cycle.response_complete:  # no new request's head yet
            self.transport.close()
        elif self.cycle.more_body:
            self._restart(self.body_timeout, self._body_due)

    def _body_due(self) -> None:
        self._read_timer = None
        if self._mine() and self.cycle is not None and not self.cycle.response_complete and self.cycle.more_body:
            self.transport.close()
