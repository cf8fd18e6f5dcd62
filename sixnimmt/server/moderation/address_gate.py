"""The address bans at the door: a request or a WebSocket from a banned address is refused (403)
before it reaches the game. The bans are read from the database at most every
:data:`REFRESH_SECONDS` (each process reads them, so a ban made on any process, or by
``sixnimmt admin``, holds everywhere within that time; every live process is also told at once, by
:mod:`.moderation_news`, and reads them again)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..refusal import Refusal

REFRESH_SECONDS = 15.0


class AddressBans:
    """The banned addresses as this process last read them. ``load`` reads them (set once the
    store is open)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self.load: Callable[[], frozenset[str]] | None = None
        self._banned: frozenset[str] = frozenset()
        self._read_at: float | None = None

    def forget(self) -> None:
        """The bans changed: read them again at the next request."""
        self._read_at = None

    async def banned(self, address: str) -> bool:
        if self.load is None:
            return False
        now = self.now()
        if self._read_at is None or now - self._read_at >= REFRESH_SECONDS:
            self._banned = await asyncio.to_thread(self.load)
            self._read_at = now
        return address in self._banned


class AddressGate:
    """An ASGI middleware: refuses the addresses of :class:`AddressBans`."""

    def __init__(self, app: ASGIApp, bans: AddressBans) -> None:
        self.app = app
        self.bans = bans

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and path.startswith(("/api/", "/ws/")) and client is not None:
            if await self.bans.banned(str(client[0])):
                await self._refuse(scope, receive, send)
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
        refusal = Refusal("this address is banned from the server", "address-banned", status=403)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4403, "reason": str(refusal)})
            return
        response: Any = JSONResponse(refusal.body(), status_code=403)
        await response(scope, receive, send)
