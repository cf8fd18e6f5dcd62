"""The web app: HTTP routes for the lobby, history and rules, one WebSocket per player or spectator,
and the static front end (plain HTML, CSS and JavaScript modules; no build step).

``create_app(settings)`` builds everything; ``sixnimmt serve`` runs it with uvicorn.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..core import (
    BULLHEADS,
    CardsRevealed,
    DraftPicked,
    EndRule,
    ProTie,
    Rules,
    RulesError,
    Variant,
)
from ..core.record import dumps, replay
from ..core.rules import DoubleDeck
from ..core.variants import VARIANTS as SPECS
from ..seats import available
from .bot_accounts import BotAccounts
from .bot_api import bot_socket, invite_program
from .bot_api import router as bot_api
from .bot_gateway import BotGateway
from .clock import Clock, LoopClock
from .cluster import MOVED_CLOSE_CODE, Cluster
from .collector import QuietCollector
from .config import Settings, settings_from_env
from .limits import (
    AddressCount,
    ApiError,
    BodyLimit,
    LookupBudget,
    LookupGate,
    RateLimits,
    too_many,
)
from .logs import redact_secrets_in_logs
from .reviews import ReviewBusyError, Reviews
from .rooms import Rooms
from .rules_pages import LANGUAGES, rules_html
from .sockets import SocketClient, pump
from .store import Store
from .table_setup import BOT_LEVELS, REACTIONS, TIMER_CHOICES, TableError, TableOptions
from .web_accounts import AccountService
from .web_accounts import router as accounts_api
from .wire import ProtocolError

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("sixnimmt.server")



# ---------------------------------------------------------------------- request bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _one_of(choices: tuple[str, ...], what: str) -> Any:
    """A validator: the value is one of ``choices`` (lists that come from data, not from this file)."""

    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"unknown {what} {value[:40]!r}: choose one of {', '.join(choices)}")
        return value

    return AfterValidator(check)


#: Every variant the engine knows, in the order of its specs: the one list the server offers.
VARIANT_NAMES: tuple[str, ...] = tuple(variant.value for variant in SPECS)
VariantName = Annotated[str, _one_of(VARIANT_NAMES, "variant")]
BotLevel = Annotated[str, _one_of(BOT_LEVELS, "bot level")]


class SeatSpec(_Body):
    #: "program": a bot program online, by its account's ``name``, asked to take the seat
    #: (docs/bot-api.md); the seat is open again if it declines.
    kind: Literal["open", "bot", "program"]
    bot: BotLevel = "medium"
    name: str | None = Field(default=None, max_length=64)


class CreateTable(_Body):
    name: str = Field(max_length=200)
    variant: VariantName = "standard"
    seats: list[SeatSpec] = Field(min_length=1, max_length=9)
    target: int | None = Field(default=66, ge=1, le=1000)
    end: Literal["at-least", "above"] = "at-least"
    deals: int | None = Field(default=None, ge=1, le=100)
    pro_tie: Literal["choose", "left", "right"] = "choose"
    double_deck: Literal["two-decks", "doubles"] = "two-decks"
    count: Literal["up", "down"] = "up"
    timer: int = 0
    fill_bot: BotLevel = "medium"
    #: Listed in the lobby (while someone is at the table); by default a table is reached by its link.
    public: bool = False
    #: Only signed-in players and the server's bots sit here, and each game changes their ratings.
    rated: bool = False


class JoinTable(_Body):
    name: str = Field(max_length=200)
    #: The token of an invitation link (``#/t/CODE?invite=TOKEN``): the seat kept for this friend.
    invite: str | None = Field(default=None, max_length=200)
    #: Chosen by the client, random (22 to 64 letters, digits, ``-`` or ``_``), the same for every
    #: retry of one join: a retry gets the seat and token the first try took, if it took one.
    key: str | None = Field(default=None, min_length=22, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")


# ---------------------------------------------------------------------- dependencies


def get_rooms(request: Request) -> Rooms:
    rooms: Rooms = request.app.state.rooms
    return rooms


RoomsDep = Annotated[Rooms, Depends(get_rooms)]


async def table_call(rooms: Rooms, code: str, op: str, **args: Any) -> Any:
    """Run ``op`` on table ``code`` wherever it is driven (here, or by another process)."""
    try:
        return await rooms.call(code, op, args)
    except LookupError as error:
        raise ApiError(404, str(error), "no-table", table=code[:8]) from None


def client_address(request: Request | WebSocket) -> str:
    """The peer's address (behind a proxy, run uvicorn with ``--proxy-headers`` so this is the client's)."""
    return request.client.host if request.client else "unknown"


def table_error(status: int, error: TableError) -> ApiError:
    return ApiError(status, str(error), error.code, **error.params)


#: Refusals that say "try again" rather than "no": HTTP 503.
UNAVAILABLE = ("store-failed", "table-unavailable")

#: Largest id a game can have (PostgreSQL's ``integer``); larger ones are simply not found.
MAX_ID = 2**31 - 1
#: How far back the history pages: an offset beyond is refused (422), not handed to the database.
MAX_OFFSET = 1_000_000


# ---------------------------------------------------------------------- routes

api = APIRouter(prefix="/api")


@api.get("/config")
def config(request: Request) -> dict[str, Any]:
    """What the front end needs to build its forms and draw cards."""
    registered = available()
    return {
        "variants": list(VARIANT_NAMES),
        # players each variant allows, so the lobby offers only those (the server checks again)
        "player_range": {v.value: list(spec.player_range) for v, spec in SPECS.items()},
        # how each variant is played, as data, so the pages keep no list of what differs
        "specs": {v.value: spec.to_dict() for v, spec in SPECS.items()},
        "languages": list(LANGUAGES),
        "bot_levels": [{"level": lv, "ready": lv in registered} for lv in BOT_LEVELS],
        "timers": list(TIMER_CHOICES),
        "reactions": list(REACTIONS),
        "chat_max_chars": request.app.state.settings.chat_max_chars,
        "bullheads": list(BULLHEADS),
    }


@api.post("/tables", status_code=201)
async def create_table(body: CreateTable, rooms: RoomsDep, request: Request) -> dict[str, Any]:
    wait = request.app.state.create_limits.retry_after(client_address(request), rooms.clock.now())
    if wait:
        raise too_many(wait, "new tables")
    try:
        rules = Rules(
            players=len(body.seats) + 1,
            variant=Variant(body.variant),
            target=body.target,
            end=EndRule(body.end),
            deals=body.deals,
            pro_tie=ProTie(body.pro_tie),
            double_deck=DoubleDeck(body.double_deck),
        )
        options = TableOptions.from_dict(
            {"rules": rules.to_dict(), "count": body.count, "timer": body.timer, "fill_bot": body.fill_bot,
             "public": body.public, "rated": body.rated}
        )
        user, token_for = await request.app.state.accounts.seat_identity(request, None)
        seats = [{"kind": "open"} if s.kind == "program" else s.model_dump() for s in body.seats]
        room, token = await rooms.create(options, user.name if user else body.name, seats,
                                         account=user.id if user else None, token_for=token_for)
    except RulesError as error:
        raise ApiError(422, str(error), "bad-rules", detail=str(error)) from None
    except TableError as error:
        raise table_error(422, error) from None
    invitations = [await invite_program(request, room.code, token, index, spec.name or "")
                   for index, spec in enumerate(body.seats, start=1) if spec.kind == "program"]
    return {"code": room.code, "seat": 0, "token": token, **({"invitations": invitations} if invitations else {})}


@api.get("/tables")
async def list_tables(rooms: RoomsDep) -> list[dict[str, Any]]:
    try:
        return await rooms.lobby()
    except TableError as error:  # reconnecting to the database (several processes)
        raise table_error(503, error) from None


def take_lookup(request: Request | WebSocket, clock_now: float) -> float:
    """One table lookup from the request's address (0: allowed; else the seconds to wait)."""
    budget: LookupBudget = request.app.state.lookups
    return budget.take(client_address(request), clock_now)


async def looked_up(request: Request, rooms: Rooms, code: str, op: str, **args: Any) -> Any:
    """``op`` on table ``code`` for an HTTP request (its lookup was taken from the address's budget
    by :class:`LookupGate`); a code that names no table also takes from the budget of misses."""
    try:
        return await table_call(rooms, code, op, **args)
    except ApiError as error:
        if error.code == "no-table":
            request.app.state.lookups.missed(client_address(request), rooms.clock.now())
        raise


@api.get("/tables/{code}")
async def get_table(code: str, rooms: RoomsDep, request: Request) -> dict[str, Any]:
    try:
        summary: dict[str, Any] = await looked_up(request, rooms, code, "summary")
    except TableError as error:
        raise table_error(503, error) from None
    return summary


@api.post("/tables/{code}/join")
async def join_table(code: str, body: JoinTable, rooms: RoomsDep, request: Request) -> dict[str, Any]:
    wait = request.app.state.join_limits.retry_after(client_address(request), rooms.clock.now())
    if wait:
        raise too_many(wait, "joins")
    user, account_token = await request.app.state.accounts.seat_identity(request, code)
    try:
        seat, token, later = await looked_up(request, rooms, code, "join", name=user.name if user else body.name,
                                             invite=body.invite, account=user.id if user else None,
                                             token=account_token, key=body.key)
    except TableError as error:
        raise table_error(503 if error.code in UNAVAILABLE else 409, error) from None
    # ``from_next_deal``: the game runs; the seat is yours when the next deal starts (watch till then)
    return {"code": code.strip().upper(), "seat": seat, "token": token, "from_next_deal": later}


@api.get("/games")
async def list_games(
    rooms: RoomsDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> list[dict[str, Any]]:
    """The newest finished games of public tables (a private table's games are not listed)."""
    return await rooms.db.run(rooms.store.list_games, limit, offset)


#: The table's code, which a private table's finished games ask for: whoever has the table's link
#: (its players, and those they gave it to) may see them, nobody else.
TableKey = Annotated[str | None, Query(max_length=16, description="the table's code (a private table's games)")]


async def _game_or_404(rooms: Rooms, game_id: int, table: str | None) -> dict[str, Any]:
    """Game ``game_id``, or 404: also for a private table's game asked for without its table's code
    (the same answer as for no game, so ids cannot be scanned for private games)."""
    game = await rooms.db.run(rooms.store.get_game, game_id) if 1 <= game_id <= MAX_ID else None
    if game is not None and not game["public"] and (table or "").strip().upper() != game["table"]:
        game = None
    if game is None:
        shown = str(game_id) if len(str(game_id)) <= 20 else str(game_id)[:20] + "..."
        raise ApiError(404, f"no finished game {shown}", "no-game", id=shown)
    return game


@api.get("/games/{game_id}")
async def get_game(game_id: int, rooms: RoomsDep, table: TableKey = None) -> dict[str, Any]:
    return await _game_or_404(rooms, game_id, table)


class ReviewRequest(_Body):
    seat: int = Field(ge=0, le=9)


async def _review(
    request: Request, rooms: Rooms, game_id: int, seat: int, start: bool, table: str | None
) -> JSONResponse:
    game = await _game_or_404(rooms, game_id, table)
    if not 0 <= seat < len(game["seats"]):
        raise ApiError(422, f"this game has no seat {seat + 1}", "bad-seat", seat=seat + 1)
    reviews: Reviews = request.app.state.reviews
    try:
        status = await reviews.status(game_id, seat, start=start)
    except ReviewBusyError:
        raise ApiError(503, "the server is busy with other reviews: try again in a minute", "review-busy",
                       headers={"Retry-After": "60"}) from None
    if status is None:
        raise ApiError(404, f"no review of seat {seat + 1} in game {game_id} yet", "no-review", seat=seat + 1)
    return JSONResponse(status, status_code=200 if status["status"] in ("done", "failed") else 202)


@api.post("/games/{game_id}/review")
async def ask_review(
    game_id: int, body: ReviewRequest, rooms: RoomsDep, request: Request, table: TableKey = None
) -> JSONResponse:
    """Review one seat's decisions in a finished game (made in the background, then kept): 202 with
    ``queued``/``running`` until it is ``done`` (200, with the review)."""
    return await _review(request, rooms, game_id, body.seat, start=True, table=table)


@api.get("/games/{game_id}/review")
async def get_review(
    game_id: int, rooms: RoomsDep, request: Request, seat: Annotated[int, Query(ge=0, le=9)],
    table: TableKey = None,
) -> JSONResponse:
    return await _review(request, rooms, game_id, seat, start=False, table=table)


@api.get("/games/{game_id}/events")
async def game_events(game_id: int, rooms: RoomsDep, table: TableKey = None) -> dict[str, Any]:
    """A finished game replayed by the engine: every public event, and each deal's starting hands
    (public once the game is over), for the turn-by-turn replay page."""
    game = await _game_or_404(rooms, game_id, table)
    replayed = replay(game["record"]).game
    events = [e.to_dict() for e in replayed.events]
    hands: list[list[list[int]]] = []
    for deal in game["record"]["deals"]:
        hands.append([list(h) for h in deal["hands"]] if "hands" in deal else [[] for _ in replayed.seats])
    # Tournament's later deals hold no hands in the record (the drafted hands passed round): every
    # card of such a deal is played, one per seat per turn, so the reveals give the hands back.
    passed = {i for i, deal in enumerate(game["record"]["deals"]) if "hands" not in deal and "draft" not in deal}
    for event in replayed.events:
        if isinstance(event, DraftPicked):
            hands[event.deal][event.seat].append(event.card)
        elif isinstance(event, CardsRevealed) and event.deal in passed:
            for seat, card in event.seat_cards:
                hands[event.deal][seat].append(card)
    # the target lets a viewer who counts down show points left (None: the variant has none)
    return {**{k: v for k, v in game.items() if k != "record"}, "events": events, "hands": hands,
            "target": replayed.rules.target}


@api.get("/games/{game_id}/record.json")
async def download_record(game_id: int, rooms: RoomsDep, table: TableKey = None) -> Response:
    game = await _game_or_404(rooms, game_id, table)
    return Response(
        dumps(game["record"]),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="sixnimmt-game-{game_id}.json"'},
    )


@api.get("/rules/{lang}/{variant}")
def get_rules(lang: str, variant: str) -> dict[str, Any]:
    if lang not in LANGUAGES or variant not in VARIANT_NAMES:
        raise ApiError(404, f"no rules page for {lang[:8]!r}/{variant[:16]!r}", "no-page")
    html, found_lang = rules_html(lang, variant)
    return {"lang": found_lang, "variant": variant, "html": html}


# ---------------------------------------------------------------------- the WebSocket


#: WebSocket subprotocol of the game. Browsers send the seat token as a second subprotocol,
#: ``token.<TOKEN>``, so that it never appears in a URL (and so in no access log).
SUBPROTOCOL = "sixnimmt"


def _token_from_subprotocols(websocket: WebSocket) -> str | None:
    offered = websocket.headers.get("sec-websocket-protocol", "")
    for item in (part.strip() for part in offered.split(",")):
        if item.startswith("token."):
            return item.removeprefix("token.")
    return None


async def _refuse(websocket: WebSocket, error: dict[str, Any], close_code: int) -> None:
    await websocket.send_text(json.dumps(error))
    await websocket.close(code=close_code)


async def table_socket(websocket: WebSocket, code: str, token: str | None = None) -> None:
    """One player or spectator. The seat token comes as the ``token.<TOKEN>`` subprotocol (browsers)
    or the ``token`` query parameter (scripts); without one, the connection watches."""
    rooms: Rooms = websocket.app.state.rooms
    settings: Settings = websocket.app.state.settings
    addresses: AddressCount = websocket.app.state.socket_addresses
    header_token = _token_from_subprotocols(websocket)
    token = header_token or token
    await websocket.accept(subprotocol=SUBPROTOCOL if header_token or SUBPROTOCOL in
                           websocket.headers.get("sec-websocket-protocol", "") else None)
    address = client_address(websocket)
    now = rooms.clock.now()
    opens: RateLimits = websocket.app.state.socket_opens
    wait = opens.retry_after(address, now) or take_lookup(websocket, now)
    if wait:
        seconds = max(1, math.ceil(wait))
        log.info("refused a WebSocket from %s: over its budget of connections and lookups", address)
        await _refuse(websocket, TableError(
            f"too many connections or table lookups from your address: try again in {seconds} s",
            "rate-limited", retry_after=seconds, what="connections",
        ).to_message(), 4429)
        return
    if not addresses.acquire(address):
        limit = settings.max_connections_per_address
        log.warning("refused a WebSocket from %s: %d already open", address, limit)
        await _refuse(websocket, TableError(
            f"too many connections from your address (limit {limit})", "too-many-connections", limit=limit
        ).to_message(), 4429)
        return
    try:
        await _serve_socket(websocket, rooms, settings, code, token, address)
    finally:
        addresses.release(address)


async def _serve_socket(
    websocket: WebSocket, rooms: Rooms, settings: Settings, code: str, token: str | None, address: str
) -> None:
    try:
        target = await rooms.locate(code)
    except LookupError as error:
        websocket.app.state.lookups.missed(address, rooms.clock.now())
        await _refuse(websocket, {**TableError(str(error), "no-table", table=code[:8]).to_message(), "fatal": True}, 4404)
        return
    except TableError as error:  # changing hands between processes: the page retries
        await _refuse(websocket, error.to_message(), MOVED_CLOSE_CODE)
        return
    if isinstance(target, str):
        assert rooms.cluster is not None
        await _forward_socket(websocket, rooms.cluster, target, code.strip().upper(), token, address, settings)
        return
    room = target
    client = SocketClient(websocket, None, settings.max_outbox_messages)
    try:
        await room.admit(client, token, address)
    except TableError as error:
        log.warning("refused a WebSocket from %s at table %s: %s", address, room.code, error)
        await _refuse(websocket, error.to_message(), 4429)
        return
    try:
        await pump(websocket, client, lambda text: room.receive(client, text, address))
    finally:
        await room.disconnect(client)


async def _forward_socket(
    websocket: WebSocket, cluster: Cluster, owner: str, code: str, token: str | None, address: str, settings: Settings
) -> None:
    """A socket at a table another process drives: its frames go to the owner, the owner's messages
    for this socket come back through the cluster; if this process takes the table over, the
    frames are handled here from then on."""
    client = SocketClient(websocket, None, settings.max_outbox_messages)
    link = cluster.link(code, owner, client, token, address)

    async def handle(text: str | None) -> None:
        if link.room is not None:
            await link.room.receive(client, text, address)
        elif text is not None and (size := len(text.encode())) > settings.max_message_bytes:
            # (checked here too: a frame travels to the owner inside one NOTIFY)
            client.push(ProtocolError(
                f"message too large: {size} bytes (limit {settings.max_message_bytes})",
                "too-large", size=size, limit=settings.max_message_bytes,
            ).to_message())
        else:
            cluster.forward(link, text)

    try:
        await pump(websocket, client, handle)
    finally:
        await cluster.unlink(link)


# ---------------------------------------------------------------------- the app


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
        if settings.clustered():
            await app.state.rooms.join_cluster()
        app.state.reviews = Reviews(store, app.state.rooms.db, settings)
        app.state.accounts = AccountService(store, app.state.rooms, settings, clock)
        await app.state.accounts.start()
        app.state.bot_accounts = BotAccounts(app.state.accounts.accounts)
        app.state.bot_gateway = BotGateway(app.state.rooms, app.state.bot_accounts, app.state.accounts.play_now,
                                           settings, clock)
        app.state.bot_gateway.install()
        app.state.bot_gateway.start()
        # (after the accounts: a table whose time ran out meanwhile may finish its game at once,
        # and a finished game's archive stores its accounts' seats)
        await app.state.rooms.wake_turn_based()
        collector = QuietCollector(clock, settings.full_collection_seconds) if settings.quiet_gc else None
        if collector is not None:
            collector.start()
        app.state.collector = collector
        try:
            yield
        finally:
            if collector is not None:
                await collector.stop()
            await app.state.reviews.close()
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
    app.state.socket_opens = RateLimits(settings.socket_opens_per_minute / 60, settings.socket_open_burst)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(LookupGate, budget=app.state.lookups, now=clock.now)

    @app.exception_handler(RequestValidationError)
    async def one_line_errors(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "request"
        detail = f"{where}: {first.get('msg', 'invalid')}"
        return JSONResponse(
            {"detail": detail, "code": "invalid", "params": {"field": where, "detail": first.get("msg", "invalid")}},
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def coded_errors(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc, ApiError):
            body = exc.body()
        else:
            body = {"detail": exc.detail, "code": f"http-{exc.status_code}", "params": {}}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    app.include_router(api)
    app.include_router(accounts_api)
    app.include_router(bot_api)
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


def _health(request: Request, ready: bool) -> JSONResponse:
    rooms: Rooms | None = getattr(request.app.state, "rooms", None)
    cluster = None if rooms is None else rooms.cluster
    if cluster is None:
        return JSONResponse({"status": "ok"})
    fine = cluster.holds_lease() if ready else cluster.connected
    return JSONResponse({"status": "ok" if fine else "unavailable", **cluster.health()},
                        status_code=200 if fine else 503)


def app_from_environment() -> FastAPI:
    """The app of one worker of ``sixnimmt serve --workers N`` (settings from the environment)."""
    return create_app(settings_from_env())
