"""The HTTP side of e-mail and pushes (docs/web.md, "E-mail" and "Push"): what the client may
offer, an account's address and its confirmation, the password reset, the one-click unsubscribe,
push subscriptions, and challenging a person to a turn-based game.

The links mailed carry a random token (only its SHA-256 is stored) and start with the configured
public address, never the ``Host`` a request named. A reset request answers the same whether or
not the account exists or has an address, so nobody learns either from it."""

from __future__ import annotations

import html
import logging
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from ...core import Rules, RulesError, Variant
from ..accounts.account_routes import AccountService, busy, check_same_site, service, signed_in
from ..accounts.passwords import HasherBusyError, check_password
from ..accounts.users import AccountError, seat_token
from ..limits import RateLimits, RequestBody, client_address, too_many
from ..refusal import Refusal
from ..tables.table_setup import TURN_BASED, TableError, TableOptions
from .addresses import NotifyError, check_address
from .mailer import mail_enabled
from .notifier import Notifier
from .phrases import languages
from .webpush import check_subscription

log = logging.getLogger("sixnimmt.server")
router = APIRouter(prefix="/api/notify")


class AddressBody(RequestBody):
    address: str = Field(max_length=300)
    #: The page's language: the mails are in it.
    lang: str = Field(default="en", max_length=8)


class TokenBody(RequestBody):
    token: str = Field(max_length=100)


class ResetRequest(RequestBody):
    name: str = Field(max_length=64)


class ResetBody(RequestBody):
    token: str = Field(max_length=100)
    password: str = Field(max_length=256)


class Switch(RequestBody):
    on: bool


class PushKeys(RequestBody):
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class PushBody(RequestBody):
    endpoint: str = Field(max_length=1000)
    keys: PushKeys | None = None
    #: (the Push API's ``toJSON()`` names it; the server does not use it)
    expirationTime: float | None = None
    #: The page's language: the pushes' texts are in it.
    lang: str = Field(default="en", max_length=8)


class ChallengeBody(RequestBody):
    name: str = Field(max_length=64)
    variant: str = Field(default="standard", max_length=16)
    #: Seconds per move: a turn-based table's (an hour or more).
    timer: int = Field(default=24 * 3600, ge=TURN_BASED)


class NotifyLimits:
    """What one account or address may ask for: mails to an address (per account), reset mails (per
    name and per client address), challenges (per account)."""

    def __init__(self) -> None:
        self.address_mails = RateLimits(5 / 3600, 3)
        self.reset_names = RateLimits(3 / 3600, 3)
        self.reset_addresses = RateLimits(10 / 3600, 5)
        self.challenges = RateLimits(20 / 3600, 5)


def notifier_of(request: Request) -> Notifier:
    notifier: Notifier = request.app.state.notifier
    return notifier


def _limited(limits: RateLimits, key: str, svc: AccountService, what: str) -> None:
    wait = limits.retry_after(key, svc.clock.now())
    if wait:
        raise too_many(wait, what)


@router.get("/config")
def notify_config(request: Request) -> dict[str, Any]:
    """What the client offers: e-mail only where the server sends mail; push with the server's
    VAPID public key (the Push API's ``applicationServerKey``)."""
    notifier = notifier_of(request)
    key = None if notifier.pusher is None else notifier.pusher.public_key
    return {"email": mail_enabled(request.app.state.settings), "push": key is not None, "push_key": key}


@router.get("/settings")
async def my_settings(request: Request) -> dict[str, Any]:
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    email = await notifier.run(notifier.addresses.email_of, user.id)
    pushes = await notifier.run(notifier.addresses.subscriptions, user.id)
    return {"email": None if email is None else email.address,
            "confirmed": bool(email and email.confirmed), "move_mails": bool(email and email.move_mails),
            "push_endpoints": [s.endpoint for s in pushes]}


@router.post("/email")
async def set_email(body: AddressBody, request: Request) -> dict[str, Any]:
    """A new address for the signed-in account: kept unconfirmed, and mailed its confirmation link."""
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    notifier.require_mail()
    address = check_address(body.address)
    _limited(request.app.state.notify_limits.address_mails, str(user.id), svc, "mails to an address")
    lang = body.lang if body.lang in languages() else "en"
    sent = await notifier.confirm_address(user.id, user.name, address, lang)
    if not sent:
        raise NotifyError("the mail server did not take the mail: try again later", "notify-mail-failed", status=503)
    return {"email": address, "confirmed": False}


@router.post("/email/delete")
async def delete_email(request: Request) -> dict[str, Any]:
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    await notifier.run(notifier.addresses.remove_address, user.id)
    return {"email": None}


@router.post("/email/confirm")
async def confirm_email(body: TokenBody, request: Request) -> dict[str, Any]:
    """The link of a confirmation mail, posted by its page (whoever holds the link confirms)."""
    check_same_site(request)
    notifier = notifier_of(request)
    used = await notifier.run(notifier.addresses.use_token, body.token, "confirm", notifier.clock.wall())
    if used is None:
        raise NotifyError("this link has expired or was used: ask for a new one", "notify-link-dead", status=410)
    return {"email": used[1], "confirmed": True}


@router.post("/move-mails")
async def move_mails(body: Switch, request: Request) -> dict[str, Any]:
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    if not await notifier.run(notifier.addresses.set_move_mails, user.id, body.on):
        raise NotifyError("add an e-mail address first", "notify-no-address", status=409)
    return {"move_mails": body.on}


@router.post("/reset/request", status_code=202)
async def request_reset(body: ResetRequest, request: Request) -> dict[str, Any]:
    """Mail a reset link to the named account's confirmed address; the same answer either way."""
    svc, notifier = service(request), notifier_of(request)
    check_same_site(request)
    notifier.require_mail()
    limits: NotifyLimits = request.app.state.notify_limits
    _limited(limits.reset_addresses, client_address(request), svc, "password resets")
    name = body.name.strip()
    if limits.reset_names.retry_after(name.casefold(), svc.clock.now()) == 0:
        found = await notifier.run(notifier.addresses.person_named, name)
        if found is not None:  # (mailed after the answer: an answer as quick as for an unknown name)
            notifier.later(notifier.reset_password(found[0], found[1]))
    return {"sent": True}


@router.post("/reset")
async def reset(body: ResetBody, request: Request) -> dict[str, Any]:
    """A reset link's page sets the new password: every session of the account ends, the link too."""
    svc, notifier = service(request), notifier_of(request)
    check_same_site(request)
    dead = NotifyError("this link has expired or was used: ask for a new one", "notify-link-dead", status=410)
    user_id = await notifier.run(notifier.addresses.token_user, body.token, "reset", notifier.clock.wall())
    users = None if user_id is None else await notifier.run(svc.accounts.user_names, [user_id])
    if user_id is None or not users:
        raise dead
    try:
        check_password(body.password, users[user_id].name)
        hashed = await svc.hasher.hash(body.password)
    except AccountError as error:
        raise error from None
    except HasherBusyError:
        raise busy() from None
    if await notifier.run(notifier.addresses.use_token, body.token, "reset", notifier.clock.wall()) is None:
        raise dead  # used meanwhile
    await svc.rooms.db.run(svc.accounts.change_password, user_id, hashed)
    log.info("account %d set a new password by mail", user_id)
    return {"reset": True}


@router.api_route("/unsubscribe", methods=["GET", "POST"], response_class=HTMLResponse)
async def unsubscribe(request: Request, user: int = 0, key: str = "") -> HTMLResponse:
    """One click from a "your move" mail (its link, or the mail client's RFC 8058 button): no more
    such mails. No session needed; the key in the link is the proof."""
    notifier = notifier_of(request)
    done = 0 < user < 2**31 and 0 < len(key) <= 64 and await notifier.run(notifier.addresses.unsubscribe, user, key)
    if not done:
        return HTMLResponse(_page("This unsubscribe link is not valid."), status_code=404)
    return HTMLResponse(_page("Done: you get no more \u201cyour move\u201d mails. "
                              "Turn them on again in your account's settings."))


def _page(text: str) -> str:
    return (f"<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>"
            f"<title>6 nimmt!</title><p>{html.escape(text)}</p><p><a href='/#/account'>6 nimmt!</a></p>")


@router.post("/push")
async def subscribe_push(body: PushBody, request: Request) -> dict[str, Any]:
    """This browser's push subscription (the Push API's ``subscription.toJSON()``), for the account."""
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    keys = body.keys or PushKeys(p256dh="", auth="")
    subscription = check_subscription(body.endpoint, keys.p256dh, keys.auth,
                                      insecure=request.app.state.settings.push_insecure_endpoints)
    subscription = replace(subscription, lang=body.lang if body.lang in languages() else "en")
    await notifier.run(notifier.addresses.subscribe, user.id, subscription, notifier.clock.wall())
    return {"push": True}


@router.post("/push/delete")
async def unsubscribe_push(body: PushBody, request: Request) -> dict[str, Any]:
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    await notifier.run(notifier.addresses.unsubscribe_push, user.id, body.endpoint)
    return {"push": False}


@router.post("/challenge", status_code=201)
async def challenge(body: ChallengeBody, request: Request) -> dict[str, Any]:
    """Challenge a person by name to a two-player turn-based game: a private table with the
    challenger in the first seat and the second open; the challenged account is pushed (and
    mailed) its link, and takes the seat by opening it signed in."""
    svc, notifier = service(request), notifier_of(request)
    user = await signed_in(request, svc)
    _limited(request.app.state.notify_limits.challenges, str(user.id), svc, "challenges")
    found = await notifier.run(notifier.addresses.person_named, body.name.strip())
    if found is None or found[0] == user.id:
        raise Refusal("no other player by that name", "no-user", status=404)
    try:
        rules = Rules(players=2, variant=Variant(body.variant))
        options = TableOptions.from_dict({"rules": rules.to_dict(), "timer": body.timer})
        key = user.seat_key
        room, token = await svc.rooms.create(options, user.name, [{"kind": "open"}], account=user.id,
                                             token_for=lambda code: seat_token(key, code))
    except (ValueError, RulesError, TableError) as error:
        raise Refusal(f"no such game: {error}", "bad-rules", status=422) from None
    notifier.challenged(found[0], user.name, room.code)
    return {"code": room.code, "token": token, "seat": 0}
