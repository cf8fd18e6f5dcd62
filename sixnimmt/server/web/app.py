"""The web app: puts the subsystems together (the store, the tables, the cluster, the accounts, the
Bot API) and serves their routes (:mod:`.table_routes`, :mod:`.game_routes`, the accounts' and the
Bot API's), the tables' WebSocket (:mod:`.table_socket`), the health checks and the static front end
(plain HTML, CSS and JavaScript modules; no build step).

``create_app(settings)`` builds everything; ``sixnimmt serve`` runs it with uvicorn.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..accounts.account_routes import AccountService
from ..accounts.account_routes import router as accounts_api
from ..botapi.bot_accounts import BotAccounts
from ..botapi.bot_routes import bot_socket
from ..botapi.bot_routes import router as bot_api
from ..botapi.gateway import BotGateway
from ..botapi.tourney_entries import ProgramEntries
from ..clock import Clock, LoopClock
from ..cluster.peers import Cluster, join_cluster
from ..config import Settings, settings_from_env
from ..limits import (
    AddressCount,
    BodyLimit,
    LookupBudget,
    LookupGate,
    RateLimits,
    RefusedRequest,
)
from ..moderation.address_gate import AddressBans, AddressGate
from ..moderation.blocking import AccountBlocks, Blocks
from ..moderation.moderation_news import ModerationNews
from ..moderation.moderation_routes import router as moderation_api
from ..moderation.sanctions import Moderation
from ..notify.notifier import Notifier
from ..notify.notify_routes import NotifyLimits
from ..notify.notify_routes import router as notify_api
from ..refusal import Refusal
from ..store.database import Store
from ..tables.rooms import Rooms
from ..tournaments.director import Director
from ..tournaments.timetable import Announcer, parse_schedule
from ..tournaments.tourney_routes import router as tournaments_api
from ..tournaments.tourney_rows import TournamentStore
from .collector import QuietCollector
from .docs_pages import docs_api
from .game_routes import games_api
from .headers import SecurityHeaders
from .logs import redact_secrets_in_logs
from .reviews import Reviews
from .table_routes import api
from .table_socket import table_socket

STATIC = Path(__file__).parents[1] / "static"  # (beside the packages: the front end is one tree of its own)


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """The app; ``clock`` is the time every timer and rate limit reads (real time unless a test
    injects a :class:`~sixnimmt.server.clock.ManualClock`)."""
    settings = settings or Settings()
    clock = clock or LoopClock()
    redact_secrets_in_logs()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.database_url)
        await asyncio.to_thread(store.migrate)
        app.state.store = store
        app.state.rooms = Rooms(store, settings, clock)
        app.state.cluster = await join_cluster(app.state.rooms) if settings.clustered() else None
        app.state.reviews = Reviews(store, app.state.rooms.db, settings)
        app.state.accounts = AccountService(store, app.state.rooms, settings, clock)
        await app.state.accounts.start()
        app.state.notifier = start_notifier(store, app.state.accounts, settings, clock)
        await app.state.notifier.start()
        app.state.bot_accounts = BotAccounts(app.state.accounts.accounts)
        app.state.bot_gateway = BotGateway(app.state.rooms, app.state.cluster, app.state.bot_accounts,
                                           app.state.accounts.play_now, settings, clock)
        app.state.bot_gateway.install()
        _moderate(app, store)
        app.state.bot_gateway.start()
        # (after the accounts: a table whose time ran out meanwhile may finish its game at once,
        # and a finished game's archive stores its accounts' seats)
        await app.state.rooms.wake_turn_based()
        app.state.tournaments = TournamentStore(store.engine)
        app.state.director = _director(app.state.rooms, app.state.tournaments, app.state.accounts, settings, clock)
        ProgramEntries(app.state.bot_gateway, app.state.tournaments, app.state.director)
        collector = QuietCollector(clock, settings.full_collection_seconds) if settings.quiet_gc else None
        if collector is not None:
            collector.start()
        app.state.collector = collector
        try:
            yield
        finally:
            if collector is not None:
                await collector.stop()
            await app.state.director.close()
            await app.state.reviews.close()
            await app.state.notifier.close()
            await app.state.bot_gateway.close()
            await app.state.accounts.close()
            await app.state.rooms.close()
            store.close()

    app = FastAPI(title="sixnimmt", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.settings = settings
    app.state.create_limits = RateLimits(settings.create_per_minute / 60, settings.create_burst)
    app.state.join_limits = RateLimits(settings.join_per_minute / 60, settings.join_burst)
    app.state.socket_addresses = AddressCount(settings.max_connections_per_address)
    app.state.lookups = LookupBudget(settings.lookup_per_minute, settings.lookup_burst,
                                     settings.miss_per_minute, settings.miss_burst)
    app.state.notify_limits = NotifyLimits()
    app.state.socket_opens = RateLimits(settings.socket_opens_per_minute / 60, settings.socket_open_burst)
    app.state.address_gate = AddressBans(clock.now)
    app.add_middleware(AddressGate, bans=app.state.address_gate)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(LookupGate, budget=app.state.lookups, now=clock.now)
    app.add_middleware(SecurityHeaders)  # (the outermost: a 429 of the gates carries the headers too)

    @app.exception_handler(RequestValidationError)
    async def one_line_errors(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "request"
        detail = f"{where}: {first.get('msg', 'invalid')}"
        return JSONResponse(
            {"detail": detail, "code": "invalid", "params": {"field": where, "detail": first.get("msg", "invalid")}},
            status_code=422,
        )

    @app.exception_handler(Refusal)
    async def refused(_request: Request, exc: Refusal) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def coded_errors(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc, RefusedRequest):
            return await refused(_request, exc.refusal)
        body = {"detail": exc.detail, "code": f"http-{exc.status_code}", "params": {}}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    app.include_router(api)
    app.include_router(games_api)
    app.include_router(docs_api)
    app.include_router(accounts_api)
    app.include_router(bot_api)
    app.include_router(notify_api)
    app.include_router(moderation_api)
    app.include_router(tournaments_api)
    app.add_api_websocket_route("/api/bot/v1/connect", bot_socket)
    app.add_api_websocket_route("/ws/{code}", table_socket)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/sw.js", include_in_schema=False)
    def service_worker() -> FileResponse:
        # At the root: a service worker controls only the pages at and below its own address.
        return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.get("/healthz", include_in_schema=False)
    async def health(request: Request) -> JSONResponse:
        """200 while the process serves; 503 while it has lost its database (several processes:
        it drives no table then, and reconnects by itself)."""
        return _health(request, ready=False)

    @app.get("/readyz", include_in_schema=False)
    async def ready(request: Request) -> JSONResponse:
        """For the proxy: 200 while the process may take traffic (several processes: connected to
        the database, its lease current), else 503."""
        return _health(request, ready=True)

    return app


def start_notifier(store: Store, accounts: AccountService, settings: Settings, clock: Clock) -> Notifier:
    """The mails and pushes (:mod:`~sixnimmt.server.notify`): told of turn-based moves by the
    tables, and of deleted accounts (whose address and subscriptions go with them)."""
    users = accounts.accounts
    notifier = Notifier(store, settings, clock, lambda ids: {i: u.name for i, u in users.user_names(ids).items()})
    accounts.rooms.move_due_hook = notifier.move_due

    async def forget(user_id: int) -> None:
        await notifier.run(notifier.addresses.forget, user_id)

    accounts.on_delete.append(forget)
    return notifier


def _moderate(app: FastAPI, store: Store) -> None:
    """Moderation (docs/web.md, "Moderation"): the blocks the tables honour, the moderators' actions,
    the address bans at the door."""
    app.state.moderation = Moderation(store.engine)
    app.state.blocks = Blocks(store.engine)
    app.state.rooms.blocks = AccountBlocks(app.state.blocks, app.state.accounts)
    for code in app.state.rooms.loaded_codes():  # (a room a takeover loaded before this point)
        if (room := app.state.rooms.local(code)) is not None:
            room.shield.book = app.state.rooms.blocks
    app.state.address_gate.load = app.state.moderation.banned_addresses
    app.state.moderation_news = ModerationNews(app.state.rooms, app.state.cluster, app.state.bot_gateway.revoked,
                                               app.state.address_gate.forget)


def _director(rooms: Rooms, store: TournamentStore, accounts: AccountService, settings: Settings,
              clock: Clock) -> Director:
    """This process's tournament director, started (docs/web.md, "Tournaments")."""

    def seat_keys(ids: list[int]) -> dict[int, str]:
        return {uid: user.seat_key for uid, user in accounts.accounts.user_names(ids).items()}

    director = Director(rooms, store, seat_keys, settings, clock)
    if settings.tournament_schedule:
        schedules = [parse_schedule(line) for line in settings.tournament_schedule]
        director.before_each_look.append(Announcer(rooms, store, schedules, clock).announce)
    director.start()
    return director


def _health(request: Request, ready: bool) -> JSONResponse:
    cluster: Cluster | None = getattr(request.app.state, "cluster", None)
    if cluster is None:
        return JSONResponse({"status": "ok"})
    fine = cluster.holds_lease() if ready else cluster.connected
    return JSONResponse({"status": "ok" if fine else "unavailable", **cluster.health()},
                        status_code=200 if fine else 503)


def app_from_environment() -> FastAPI:
    """The app of one worker of ``sixnimmt serve --workers N`` (settings from the environment)."""
    return create_app(settings_from_env())
