"""The Bot API's routes (docs/bot-api.md): people make bot accounts and their tokens, see the bots
online and invite them to a seat; a bot program connects with its token to
``/api/bot/v1/connect``, one WebSocket it plays every game through
(:mod:`~sixnimmt.server.botapi.gateway`).

A token travels only in the ``Authorization: Bearer`` header (a token in a URL is refused, as URLs
end up in logs); a bad, revoked or deleted bot's token is refused with 401 before the WebSocket
opens, and no log shows more than its first 8 characters."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response, WebSocket
from fastapi.responses import JSONResponse
from pydantic import Field

from ..accounts.account_routes import AccountService, service, signed_in
from ..accounts.users import AccountError, User
from ..calls import InviteProgram, Summary, WithdrawInvitation
from ..config import Settings
from ..limits import RateLimiter, RequestBody, client_address
from ..refusal import Refusal
from ..sockets import SocketClient, pump
from ..tables.table_setup import TableError
from .bot_accounts import BotAccounts, shown_token
from .gateway import BotGateway, BotSession
from .inbox import receive
from .person_challenges import people_router
from .seat_links import BotError, players

log = logging.getLogger("sixnimmt.server")

router = APIRouter(prefix="/api")
router.include_router(people_router)  # (a bot's challenges to people, answered in the browser)


class NewBot(RequestBody):
    name: str = Field(max_length=64)
    description: str = Field(default="", max_length=400)


class NewToken(RequestBody):
    label: str = Field(default="", max_length=80)


class InviteBot(RequestBody):
    #: The seat (0-based) the host keeps for the bot, and the host's own seat token (its proof).
    seat: int = Field(ge=1, le=9)
    bot: str = Field(max_length=64)
    token: str = Field(max_length=200)


def gateway_of(request: Request | WebSocket) -> BotGateway:
    gateway: BotGateway = request.app.state.bot_gateway
    return gateway


def bots_of(request: Request | WebSocket) -> BotAccounts:
    bots: BotAccounts = request.app.state.bot_accounts
    return bots


async def _call(request: Request, function: Any, *args: Any) -> Any:
    try:
        return await service(request).write(function, *args)
    except AccountError as error:
        raise error from None


async def _owner(request: Request) -> User:
    user = await signed_in(request, service(request))
    if user.kind != "person":
        raise Refusal("only people own bots", "not-a-person", status=403)
    return user


@router.post("/bots", status_code=201)
async def create_bot(body: NewBot, request: Request) -> dict[str, Any]:
    owner = await _owner(request)
    made: dict[str, Any] = await _call(request, bots_of(request).create, owner, body.name, body.description)
    log.info("account %d made a bot account", owner.id)
    return made


@router.get("/bots")
async def my_bots(request: Request) -> list[dict[str, Any]]:
    owner = await _owner(request)
    online = {b["name"] for b in await gateway_of(request).everywhere()}
    mine: list[dict[str, Any]] = await _call(request, bots_of(request).owned, owner)
    return [{**bot, "online": bot["name"] in online} for bot in mine]


@router.get("/bots/online")
async def bots_online(request: Request) -> list[dict[str, Any]]:
    """The bot programs online now, on every process (for people choosing a seat)."""
    listed: list[dict[str, Any]] = await gateway_of(request).everywhere()
    return listed


@router.delete("/bots/{name}", status_code=204)
async def delete_bot(name: str, request: Request) -> Response:
    owner = await _owner(request)
    bot_id = await _call(request, bots_of(request).delete, owner, name)
    gateway_of(request).deleted(bot_id)
    return Response(status_code=204)


@router.post("/bots/{name}/tokens", status_code=201)
async def create_token(name: str, body: NewToken, request: Request) -> dict[str, Any]:
    owner = await _owner(request)
    made: dict[str, Any] = await _call(request, bots_of(request).new_token, owner, name, body.label)
    return made


@router.get("/bots/{name}/tokens")
async def list_tokens(name: str, request: Request) -> list[dict[str, Any]]:
    owner = await _owner(request)
    listed: list[dict[str, Any]] = await _call(request, bots_of(request).tokens, owner, name)
    return listed


@router.delete("/bots/{name}/tokens/{token_id}", status_code=204)
async def revoke_token(name: str, token_id: int, request: Request) -> Response:
    owner = await _owner(request)
    await _call(request, bots_of(request).revoke, owner, name, token_id)
    gateway_of(request).revoked({token_id})  # (other processes notice within a few seconds)
    return Response(status_code=204)


@router.post("/tables/{code}/invite-bot")
async def invite_bot(code: str, body: InviteBot, request: Request) -> dict[str, Any]:
    """The host (proved by its seat token) keeps an open seat for a bot program online, which is
    asked; the seat opens again if it declines or does not answer in time."""
    invitation = await invite_program(request, code.strip().upper(), body.token, body.seat, body.bot)
    return {"invitation": invitation, "seat": body.seat, "bot": body.bot}


async def invite_program(request: Request, code: str, host_token: str, seat: int, name: str) -> str:
    """Keep seat ``seat`` of table ``code`` for bot program ``name`` and ask it (see :func:`invite_bot`)."""
    gateway = gateway_of(request)
    found = await service(request).read(bots_of(request).bot_named, name)
    if found is None:
        raise Refusal("no such bot", "no-bot", status=404)
    bot, _owner_name = found
    stable = await service(request).read(service(request).accounts.stable, bot.id)
    host_user = await service(request).user(request)
    if host_user is not None:  # (docs/web.md, "Moderation": no invitation between players who block)
        mine = await service(request).read(service(request).accounts.stable, host_user.id)
        if await gateway.rooms.blocks.keeps_apart(mine, stable):
            raise Refusal(f"{bot.name} does not take invitations from you", "blocked", status=403, bot=bot.name)
    # (a code that names no table and a host's token that is wrong answer alike: whoever does not hold
    # the host's seat learns nothing of which codes are live; a miss spends the budget of misses)
    not_yours = Refusal("only the host (seat 1) can do that", "not-host", status=403)
    try:
        token = await gateway.rooms.call(code, InviteProgram(host_token, seat, bot.name, stable))
        summary = await gateway.rooms.call(code, Summary())
    except LookupError:
        request.app.state.lookups.missed(client_address(request), gateway.clock.now())
        raise not_yours from None
    except TableError as error:
        raise (not_yours if error.code == "not-host" else error.with_status(409)) from None
    host = summary["seats"][0]["name"]
    about = {"from": host, "from_bot": bool(summary["seats"][0].get("program")), "rated": bool(summary.get("rated")),
             "rules": summary["rules"], "seats": [s["name"] for s in summary["seats"]],
             "players": players(summary["seats"])}
    try:
        return await gateway.invite_anywhere(bot.id, code, token, about)
    except BotError as error:
        await gateway.rooms.call(code, WithdrawInvitation(token))
        status = 429 if error.code == "rate-limited" else 409
        headers = {"Retry-After": str(max(1, round(error.params.get("retry_after", 1))))} if status == 429 else None
        raise Refusal(str(error), error.code, status=status, headers=headers, **error.params) from None


# ---------------------------------------------------------------------- the connection


async def _deny(websocket: WebSocket, status: int, message: str, code: str) -> None:
    """Refuse the WebSocket before it opens (HTTP ``status``), or where the server cannot, close it
    with 4000 + ``status`` at once."""
    body = Refusal(message, code, status=status).body()
    try:
        await websocket.send_denial_response(JSONResponse(body, status_code=status))
    except RuntimeError:
        await websocket.close(code=4000 + status, reason=message[:100])


async def bot_socket(websocket: WebSocket) -> None:
    """One bot program: ``Authorization: Bearer TOKEN``, then ``hello``, then its games."""
    settings: Settings = websocket.app.state.settings
    gateway = gateway_of(websocket)
    address = websocket.client.host if websocket.client else "unknown"
    if "token" in websocket.query_params:
        log.info("refused a bot connection from %s: a token in the URL", address)
        await _deny(websocket, 401, "send the token in the Authorization header, never in the URL", "token-in-url")
        return
    scheme, _, token = websocket.headers.get("authorization", "").partition(" ")
    token = token.strip()
    identity = None
    if scheme.lower() == "bearer" and token:
        accounts: AccountService = websocket.app.state.accounts
        try:  # (bounded: a database that does not answer refuses the connection with a 503)
            identity = await accounts.read(bots_of(websocket).authenticate, token)
        except Refusal as error:
            log.warning("refused a bot connection from %s: %s", address, error)
            await _deny(websocket, error.status, str(error), error.code)
            return
    if identity is None:
        log.info("refused a bot connection from %s: bad token %s", address, shown_token(token) if token else "(none)")
        await _deny(websocket, 401, "unknown, revoked or missing token", "bad-token")
        return
    await websocket.accept()
    client = SocketClient(websocket, None, settings.max_outbox_messages)
    now = gateway.clock.now()
    session = BotSession(
        identity, client.push, client.close,
        messages=RateLimiter(settings.program_messages_per_second, settings.program_message_burst, now),
        seeks=RateLimiter(settings.program_seeks_per_minute / 60, settings.program_seeks_per_minute, now),
    )
    log.info("bot %r connected from %s (token %s)", identity.bot.name, address, shown_token(token))
    await gateway.connect(session)
    try:
        await pump(websocket, client, lambda text: receive(gateway, session, text))
    finally:
        await gateway.disconnect(session)
        log.info("bot %r disconnected", identity.bot.name)
