"""The HTTP routes of the tables: the client's configuration, creating, listing, looking up and
joining a table (each run wherever the table is driven: here, or by another process)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, WebSocket
from pydantic import AfterValidator, Field

from ...core import (
    BULLHEADS,
    EndRule,
    ProTie,
    Rules,
    RulesError,
    Variant,
)
from ...core.rules import DoubleDeck
from ...core.variants import VARIANTS as SPECS
from ...seats import available
from ..accounts.account_routes import service
from ..botapi.bot_routes import invite_program
from ..calls import Join, Summary, TableCall
from ..limits import (
    LookupBudget,
    RequestBody,
    client_address,
    too_many,
)
from ..refusal import Refusal
from ..tables.rooms import Rooms
from ..tables.table_setup import (
    BOT_LEVELS,
    REACTIONS,
    TIMER_CHOICES,
    UNRATED_LEVELS,
    TableError,
    TableOptions,
)
from .rules_pages import LANGUAGES

# ---------------------------------------------------------------------- request bodies


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


class SeatSpec(RequestBody):
    #: "program": a bot program online, by its account's ``name``, asked to take the seat
    #: (docs/bot-api.md); the seat is open again if it declines.
    kind: Literal["open", "bot", "program"]
    bot: BotLevel = "medium"
    name: str | None = Field(default=None, max_length=64)


class CreateTable(RequestBody):
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


class JoinTable(RequestBody):
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


async def table_call(rooms: Rooms, code: str, call: TableCall) -> Any:
    """Run ``call`` on table ``code`` wherever it is driven (here, or by another process)."""
    try:
        return await rooms.call(code, call)
    except LookupError as error:
        raise Refusal(str(error), "no-table", status=404, table=code[:8]) from None


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
        # (``rated``: the level sits at rated tables; the form offers only those there)
        "bot_levels": [{"level": lv, "ready": lv in registered, "rated": lv not in UNRATED_LEVELS} for lv in BOT_LEVELS],
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
        if options.rated and user is not None:
            await _stables_apart(request, user.id, [s.name or "" for s in body.seats if s.kind == "program"])
        seats = [{"kind": "open"} if s.kind == "program" else s.model_dump() for s in body.seats]
        room, token = await rooms.create(options, user.name if user else body.name, seats,
                                         account=user.id if user else None, token_for=token_for)
    except RulesError as error:
        raise Refusal(str(error), "bad-rules", status=422, detail=str(error)) from None
    except TableError as error:
        raise error.with_status(422) from None
    invitations = [await invite_program(request, room.code, token, index, spec.name or "")
                   for index, spec in enumerate(body.seats, start=1) if spec.kind == "program"]
    return {"code": room.code, "seat": 0, "token": token, **({"invitations": invitations} if invitations else {})}


async def _stables_apart(request: Request, host: int, programs: list[str]) -> None:
    """A rated table made with bot programs in its seats: refused if one is the host's, or two have
    one owner (each program is checked again when invited, and when it takes the seat)."""
    read, bots, accounts = service(request).read, request.app.state.bot_accounts, service(request).accounts
    seen = set(await read(accounts.stable, host))
    for name in programs:
        found = await read(bots.bot_named, name)
        if found is None:
            continue  # (its invitation says "no such bot")
        stable = set(await read(accounts.stable, found[0].id))
        if seen & stable:
            raise TableError("a bot program does not sit at a rated table with its owner or another bot of "
                             "the same owner", "rated-same-owner")
        seen |= stable


@api.get("/tables")
async def list_tables(rooms: RoomsDep) -> list[dict[str, Any]]:
    try:
        return await rooms.lobby()
    except TableError as error:  # reconnecting to the database (several processes)
        raise error.with_status(503) from None


def take_lookup(request: Request | WebSocket, clock_now: float) -> float:
    """One table lookup from the request's address (0: allowed; else the seconds to wait)."""
    budget: LookupBudget = request.app.state.lookups
    return budget.take(client_address(request), clock_now)


async def looked_up(request: Request, rooms: Rooms, code: str, call: TableCall) -> Any:
    """``call`` on table ``code`` for an HTTP request (its lookup was taken from the address's budget
    by :class:`LookupGate`); a code that names no table also takes from the budget of misses."""
    try:
        return await table_call(rooms, code, call)
    except Refusal as error:
        if error.code == "no-table":
            request.app.state.lookups.missed(client_address(request), rooms.clock.now())
        raise


@api.get("/tables/{code}")
async def get_table(code: str, rooms: RoomsDep, request: Request) -> dict[str, Any]:
    try:
        summary: dict[str, Any] = await looked_up(request, rooms, code, Summary())
    except TableError as error:
        raise error.with_status(503) from None
    return summary


@api.post("/tables/{code}/join")
async def join_table(code: str, body: JoinTable, rooms: RoomsDep, request: Request) -> dict[str, Any]:
    wait = request.app.state.join_limits.retry_after(client_address(request), rooms.clock.now())
    if wait:
        raise too_many(wait, "joins")
    user, account_token = await request.app.state.accounts.seat_identity(request, code)
    stable = () if user is None else await service(request).read(service(request).accounts.stable, user.id)
    try:
        seat, token, later = await looked_up(request, rooms, code, Join(
            name=user.name if user else body.name, invite=body.invite, account=user.id if user else None,
            token=account_token, key=body.key, stable=stable))
    except TableError as error:
        raise error.with_status(503 if error.code in UNAVAILABLE else 409) from None
    # ``from_next_deal``: the game runs; the seat is yours when the next deal starts (watch till then)
    return {"code": code.strip().upper(), "seat": seat, "token": token, "from_next_deal": later}
