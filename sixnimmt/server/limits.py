"""The limits that keep one client from hurting the others: token buckets (per seat, per address),
the cap on HTTP request bodies, the count of open WebSockets per address, and the error type that
carries a code for the client to translate. Every number comes from :class:`Settings`."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable

from fastapi import HTTPException, Request, WebSocket
from pydantic import BaseModel, ConfigDict
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import Settings
from .refusal import Refusal


def too_many(retry_after: float, what: str) -> Refusal:
    seconds = max(1, math.ceil(retry_after))
    return Refusal(f"too many {what} from your address: try again in {seconds} s", "rate-limited",
                   status=429, headers={"Retry-After": str(seconds)}, retry_after=seconds)


class BudgetShare:
    """How many live processes share every per-address budget (1: a process on its own). With
    several processes on one database each grants ``1 / processes`` of each budget (its rate, its
    burst and its count of open sockets, at least one of each), so a client whose requests and
    sockets are spread over the processes gets the documented budget once, not once per process
    (docs/scaling.md, "Per-address budgets"). The cluster sets it at each heartbeat."""

    def __init__(self) -> None:
        self.processes = 1

    def rate(self, rate: float) -> float:
        return rate / self.processes

    def count(self, count: int) -> int:
        return max(1, count // self.processes)


#: This process's share of every per-address budget.
BUDGET_SHARE = BudgetShare()


class RateLimiter:
    """A token bucket: ``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now

    def allow(self, now: float) -> bool:
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def retry_after(self, now: float) -> float:
        """Seconds until the next message would be allowed (0 if it would be now), rounded up to a
        tenth: a refused client told "0.0 s" would be refused again at once, over and over."""
        self._refill(now)
        return 0.0 if self.tokens >= 1.0 else math.ceil((1.0 - self.tokens) / self.rate * 10 - 1e-9) / 10

    def full(self, now: float) -> bool:
        """Saved up to the whole burst again (a bucket in this state can be forgotten)."""
        self._refill(now)
        return self.tokens >= self.burst


class RateLimits:
    """One token bucket per key (a client address), forgetting buckets that are full again so the
    table stays small however many addresses come and go."""

    def __init__(self, rate: float, burst: int, most: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.most = most
        self._buckets: dict[str, RateLimiter] = {}

    def retry_after(self, key: str, now: float) -> float:
        """Take one token for ``key``: 0 if allowed, else the seconds to wait (nothing taken)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.most:
                self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
            bucket = self._buckets[key] = RateLimiter(BUDGET_SHARE.rate(self.rate), BUDGET_SHARE.count(self.burst), now)
        if bucket.allow(now):
            return 0.0
        return bucket.retry_after(now)

    def used(self, key: str, now: float) -> bool:
        """Whether ``key`` has taken from its bucket lately (it is not saved up to the full burst)."""
        bucket = self._buckets.get(key)
        return bucket is not None and not bucket.full(now)

    def waiting(self, key: str, now: float) -> float:
        """Seconds until ``key`` may go on, taking nothing (0: it may now)."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else bucket.retry_after(now)


class LookupBudget:
    """How often one client address may look tables up by code: every lookup takes from one bucket,
    and a lookup of a code that names no table also from a much smaller one. People open the
    tables they were sent, so they rarely miss; a scan of the 28 million codes misses nearly always,
    and is held to a few guesses a minute (docs/web.md, "Limits")."""

    def __init__(self, per_minute: float, burst: int, misses_per_minute: float, miss_burst: int) -> None:
        self.lookups = RateLimits(per_minute / 60, burst)
        self.misses = RateLimits(misses_per_minute / 60, miss_burst)

    def take(self, address: str, now: float) -> float:
        """One lookup from ``address``: 0 if allowed, else the seconds to wait (nothing taken)."""
        wait = self.misses.waiting(address, now)
        return wait if wait else self.lookups.retry_after(address, now)

    def missed(self, address: str, now: float) -> None:
        """The lookup found no table."""
        self.misses.retry_after(address, now)


class LookupGate:
    """ASGI middleware: every HTTP request that looks a table up by its code (``/api/tables/CODE``,
    its ``/join``, ``/resume`` and ``/invite-bot``) takes from its address's :class:`LookupBudget` before anything else runs; past
    the budget it is answered 429 here, so a scanner flooding the server costs it a bucket and a
    short answer, not a trip through the framework (``benchmarks/scan_web.py``)."""

    PATH = re.compile(r"^/api/tables/[^/]+(?:/join|/resume|/invite-bot)?/?$")

    def __init__(self, app: ASGIApp, budget: LookupBudget, now: Callable[[], float]) -> None:
        self.app = app
        self.budget = budget
        self.now = now

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.PATH.match(scope["path"]):
            client = scope.get("client")
            wait = self.budget.take(client[0] if client else "unknown", self.now())
            if wait:
                error = too_many(wait, "table lookups")
                body = json.dumps(error.body()).encode()
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                headers += [(k.lower().encode(), v.encode()) for k, v in (error.headers or {}).items()]
                await send({"type": "http.response.start", "status": 429, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class RefusedRequest(HTTPException):
    """A refusal raised where only an HTTPException gets through (FastAPI's body reader); the app
    answers it as the refusal it carries."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.status, str(refusal), refusal.headers)
        self.refusal = refusal


class BodyLimit:
    """ASGI middleware: refuse an HTTP request body over ``limit`` bytes with 413, from its
    ``Content-Length`` before reading any of it, or as soon as a streamed body passes the limit."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    def _error(self) -> Refusal:
        return Refusal(f"request body too large (limit {self.limit} bytes)", "body-too-large", status=413,
                       limit=self.limit)

    async def _refuse(self, send: Send) -> None:
        error = self._error()
        body = json.dumps(error.body()).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = self.limit + 1
                if declared > self.limit:
                    await self._refuse(send)
                    return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    # an HTTPException, so FastAPI's body reader passes it on as the 413 it is
                    raise RefusedRequest(self._error())
            return message

        await self.app(scope, counted, send)


class AddressCount:
    """Open WebSockets per client address."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def acquire(self, address: str) -> bool:
        if self._open[address] >= BUDGET_SHARE.count(self.limit):
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]


class Allowances:
    """One table's message allowances. A seat has one allowance over all its sockets, so opening
    more sockets buys no more messages; each spectator socket has its own. Chat lines have an
    allowance of their own beside the one for all messages."""

    def __init__(self, settings: Settings, now: Callable[[], float]) -> None:
        self.settings = settings
        self.now = now
        self._messages: dict[tuple[str, int], RateLimiter] = {}
        self._chat: dict[tuple[str, int], RateLimiter] = {}

    def message(self, seat: int | None, socket: object) -> float:
        """Take one message: 0 if allowed, else the seconds to wait."""
        return self._take(self._messages, seat, socket, self.settings.rate_per_second, self.settings.rate_burst)

    def chat(self, seat: int | None, socket: object) -> float:
        """Take one chat line: 0 if allowed, else the seconds to wait."""
        return self._take(self._chat, seat, socket, self.settings.chat_per_minute / 60, self.settings.chat_burst)

    def forget(self, socket: object) -> None:
        """A spectator socket closed: its allowances go (a seat's stay with the seat)."""
        self._messages.pop(("socket", id(socket)), None)
        self._chat.pop(("socket", id(socket)), None)

    def _take(self, limits: dict[tuple[str, int], RateLimiter], seat: int | None, socket: object,
              rate: float, burst: int) -> float:
        now = self.now()
        key = ("seat", seat) if seat is not None else ("socket", id(socket))
        limiter = limits.get(key)
        if limiter is None:
            limiter = limits[key] = RateLimiter(rate, burst, now)
        return 0.0 if limiter.allow(now) else limiter.retry_after(now)


class RequestBody(BaseModel):
    """A JSON request body: a field it does not name is refused (422), never ignored."""

    model_config = ConfigDict(extra="forbid")


def client_address(request: Request | WebSocket) -> str:
    """The peer's address (behind a proxy, run uvicorn with ``--proxy-headers`` so this is the client's)."""
    return request.client.host if request.client else "unknown"
