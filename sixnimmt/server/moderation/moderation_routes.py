"""Moderation's HTTP routes (docs/web.md, "Moderation"): a player's reports and blocks, and the
admin page's routes, for moderator accounts only. What a moderator sees (reports, their context,
the log) is answered to moderators alone."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import Field

from ..accounts.account_routes import check_same_site, service, signed_in
from ..accounts.users import User
from ..botapi.gateway import BotGateway
from ..calls import AccountBanned, AccountRenamed, AddressBansChanged, BlocksChanged
from ..limits import RequestBody, client_address
from ..refusal import Refusal
from .blocking import Blocks
from .moderation_news import ModerationNews
from .reports import NOTE_MAX, Report
from .sanctions import Moderation, parse_duration

router = APIRouter(prefix="/api")


class ReportBody(RequestBody):
    reason: str = Field(max_length=16)
    place: str = Field(max_length=16)
    note: str = Field("", max_length=NOTE_MAX)
    name: str | None = Field(None, max_length=64)
    table: str | None = Field(None, max_length=16)
    seat: int | None = Field(None, ge=0, le=15)
    game: int | None = Field(None, ge=1)
    line: int | None = Field(None, ge=0)


class BlockBody(RequestBody):
    name: str = Field(max_length=64)


class Resolution(RequestBody):
    reason: str = Field(max_length=NOTE_MAX)


class BanBody(RequestBody):
    name: str | None = Field(None, max_length=64)
    address: str | None = Field(None, max_length=64)
    length: str = Field("forever", max_length=12)
    reason: str = Field(max_length=NOTE_MAX)


class RenameBody(RequestBody):
    name: str = Field(max_length=64)
    new_name: str = Field(max_length=64)
    reason: str = Field(max_length=NOTE_MAX)


class NamedAction(RequestBody):
    name: str = Field(max_length=64)
    reason: str = Field(max_length=NOTE_MAX)


class VoidBody(RequestBody):
    game: int = Field(ge=1)
    reason: str = Field(max_length=NOTE_MAX)


def moderation_of(request: Request) -> Moderation:
    found: Moderation = request.app.state.moderation
    return found


def blocks_of(request: Request) -> Blocks:
    found: Blocks = request.app.state.blocks
    return found


# ---------------------------------------------------------------------- players


@router.post("/reports", status_code=201)
async def report(body: ReportBody, request: Request) -> dict[str, Any]:
    """Report a player (signed in or not); the answer says only that the moderators have it."""
    svc = service(request)
    user = await svc.user(request)
    if user is not None:
        check_same_site(request)  # (a signed-in player's report comes from the site's own pages)
    wanted = Report(body.reason, body.place, body.note, body.name, body.table, body.seat, body.game, body.line)
    room = svc.rooms.local(body.table.strip().upper()) if body.table else None
    live = list(room.table.chat) if room is not None else None
    number = await svc.write(moderation_of(request).reports.file, wanted, None if user is None else user.id,
                             client_address(request), live)
    return {"report": number}


@router.get("/account/reports")
async def my_reports(request: Request) -> list[dict[str, Any]]:
    svc = service(request)
    user = await signed_in(request, svc)
    return await svc.read(moderation_of(request).reports.mine, user.id)


@router.delete("/account/reports/{report_id}")
async def withdraw_report(report_id: int, request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    await svc.write(moderation_of(request).reports.withdraw, user.id, report_id)
    return {"report": report_id, "withdrawn": True}


@router.get("/account/blocks")
async def my_blocks(request: Request) -> list[dict[str, Any]]:
    svc = service(request)
    user = await signed_in(request, svc)
    return await svc.read(blocks_of(request).listed, user.id)


@router.post("/account/blocks", status_code=201)
async def block(body: BlockBody, request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    found = await svc.write(blocks_of(request).add_by_name, user.id, body.name)
    await news(request).tell(BlocksChanged(user.id))  # (the tables where the blocker sits, on any process)
    return found


@router.delete("/account/blocks/{name}", status_code=200)
async def unblock(name: str, request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    await svc.write(blocks_of(request).remove, user.id, name)
    await news(request).tell(BlocksChanged(user.id))
    return {"name": name}


def news(request: Request) -> ModerationNews:
    found: ModerationNews = request.app.state.moderation_news
    return found


# ---------------------------------------------------------------------- moderators


async def moderator(request: Request) -> User:
    """The signed-in moderator making ``request``: 404 for everyone else (the page is not there)."""
    svc = service(request)
    user = await svc.user(request)
    if user is None or not await svc.read(moderation_of(request).is_moderator, user.id):
        raise Refusal("not found", "http-404", status=404)
    await signed_in(request, svc)
    return user


@router.get("/admin/me")
async def admin_me(request: Request) -> dict[str, Any]:
    user = await moderator(request)
    return {"name": user.name, "moderator": True}


@router.get("/admin/reports")
async def admin_reports(request: Request, all_reports: bool = Query(False, alias="all")) -> list[dict[str, Any]]:
    await moderator(request)
    return await service(request).read(moderation_of(request).reports.listed, not all_reports)


@router.get("/admin/reports/{report_id}")
async def admin_report(report_id: int, request: Request) -> dict[str, Any]:
    await moderator(request)
    return await service(request).read(moderation_of(request).reports.shown, report_id)


@router.post("/admin/reports/{report_id}/resolve")
async def admin_resolve(report_id: int, body: Resolution, request: Request) -> dict[str, Any]:
    user = await moderator(request)
    await service(request).write(moderation_of(request).resolve, user.name, report_id, body.reason)
    return {"report": report_id, "resolved": True}


@router.post("/admin/ban")
async def admin_ban(body: BanBody, request: Request) -> dict[str, Any]:
    """Ban an account (``name``) or an address for ``length`` (``7d``, ``12h``, ``forever``)."""
    user = await moderator(request)
    svc, moderation = service(request), moderation_of(request)
    length = parse_duration(body.length)
    if (body.name is None) == (body.address is None):
        raise Refusal("ban either an account (name) or an address", "ban-whom", status=422)
    if body.address is not None:
        until = await svc.write(moderation.ban_address, user.name, body.address, length, body.reason)
        await news(request).tell(AddressBansChanged())
        return {"address": body.address, "until": until}
    done = await svc.write(moderation.ban, user.name, body.name, length, body.reason)
    await news(request).tell(AccountBanned(done["id"], tuple(done["tokens"])))  # (its sockets and bots, everywhere)
    return {"name": done["name"], "until": done["until"], "tokens": len(done["tokens"])}


@router.post("/admin/unban")
async def admin_unban(body: BanBody, request: Request) -> dict[str, Any]:
    user = await moderator(request)
    svc, moderation = service(request), moderation_of(request)
    if body.address is not None:
        await svc.write(moderation.unban_address, user.name, body.address, body.reason)
        await news(request).tell(AddressBansChanged())
    elif body.name is not None:
        await svc.write(moderation.unban, user.name, body.name, body.reason)
    else:
        raise Refusal("lift the ban of an account (name) or an address", "ban-whom", status=422)
    return {"lifted": True}


@router.post("/admin/rename")
async def admin_rename(body: RenameBody, request: Request) -> dict[str, Any]:
    user = await moderator(request)
    old, account = await service(request).write(moderation_of(request).rename, user.name, body.name, body.new_name,
                                                 body.reason)
    await news(request).tell(AccountRenamed(account, body.new_name.strip()))  # (its seats at the tables played now)
    return {"name": old, "new_name": body.new_name.strip()}


@router.post("/admin/close-bot")
async def admin_close_bot(body: NamedAction, request: Request) -> dict[str, Any]:
    user = await moderator(request)
    done = await service(request).write(moderation_of(request).close_bot, user.name, body.name, body.reason)
    await news(request).tell(AccountBanned(done["id"], tuple(done["tokens"])))
    gateway(request).deleted(done["id"])
    return {"name": done["name"], "closed": True}


@router.post("/admin/void")
async def admin_void(body: VoidBody, request: Request) -> dict[str, Any]:
    user = await moderator(request)
    return await service(request).write(moderation_of(request).void, user.name, body.game, body.reason)


@router.get("/admin/log")
async def admin_log(request: Request, limit: int = Query(100, ge=1, le=500)) -> list[dict[str, Any]]:
    await moderator(request)
    return await service(request).read(moderation_of(request).log, limit)


def gateway(request: Request) -> BotGateway:
    found: BotGateway = request.app.state.bot_gateway
    return found
