"""The HTTP side of accounts, ratings and Play now: sign up, sign in and out, change the password,
delete the account; profiles and the leaderboard; Play now.

The session is server-side: a random token in the ``sixnimmt_session`` cookie (HttpOnly,
SameSite=Lax, Secure when the page came over HTTPS), only its SHA-256 in the database, so every
process of a cluster knows it and signing out, a password change or deleting the account ends it
everywhere. A request that changes anything and carries the cookie must come from this site's own
pages: its ``Origin`` (or, lacking one, its ``Referer``) must be this server (403 otherwise), on top
of SameSite. Passwords travel only in request bodies, and neither they nor tokens are logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, Request, Response
from pydantic import Field
from sqlalchemy.orm import Session

from ...core.variants import VARIANTS
from ..calls import Join, Summary
from ..clock import Clock
from ..config import Settings
from ..limits import RateLimits, RequestBody, client_address, too_many
from ..refusal import Refusal
from ..store.database import Store
from ..store.rows import GameRow, TableData
from ..store.writer import StoreHungError, no_answer
from ..tables.rooms import Rooms
from ..tables.table_setup import TableError, clean_name
from .matchmaking import PlayNow
from .passwords import Hasher, HasherBusyError, check_password
from .ratings import Ratings, participants, record_game
from .users import AccountError, Accounts, User, check_name, name_key, seat_token

log = logging.getLogger("sixnimmt.server")
T = TypeVar("T")

COOKIE = "sixnimmt_session"
VARIANT_NAMES = tuple(v.value for v in VARIANTS)
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Credentials(RequestBody):
    name: str = Field(max_length=64)
    password: str = Field(max_length=256)


class PasswordChange(RequestBody):
    current: str = Field(max_length=256)
    new: str = Field(max_length=256)


class AccountDelete(RequestBody):
    password: str = Field(max_length=256)


class PlayNowRequest(RequestBody):
    mode: Literal["rated", "casual"] = "casual"
    variant: str = Field(default="standard", max_length=16)
    #: None: any number of players.
    players: int | None = Field(default=None, ge=2, le=10)
    #: The name an anonymous player sits under (a signed-in one sits under the account's name).
    name: str = Field(default="", max_length=200)


class AccountService:
    """What the routes share: the account store, the hasher, the rate limits and Play now."""

    def __init__(self, store: Store, rooms: Rooms, settings: Settings, clock: Clock) -> None:
        self.accounts = Accounts(store, settings.session_days)
        self.ratings = Ratings(store.engine)
        self.rooms = rooms
        self.settings = settings
        self.clock = clock
        self.hasher = Hasher(settings.hash_threads, settings.hash_niceness, most_waiting=settings.hash_queue)
        self.signin_address = RateLimits(settings.signin_per_minute / 60, settings.signin_burst)
        # Wrong guesses (OWASP's authentication guidance): each (name, address) pair has a small
        # budget, and a name under attack from many addresses slows down only the addresses that
        # have guessed wrong on it, never the owner's right password from an address of their own.
        self.signin_name = RateLimits(settings.signin_name_per_minute / 60, settings.signin_name_burst)
        self.signin_pair = RateLimits(settings.signin_name_per_minute / 60, settings.signin_name_burst)
        #: A signed-in session's own password checks (to change it, or delete the account), by account.
        self.password_checks = RateLimits(settings.signin_name_per_minute / 60, settings.signin_name_burst)
        self.signup_address = RateLimits(settings.signup_per_minute / 60, settings.signup_burst)
        self.play_now = PlayNow(rooms, self.accounts, self.ratings, settings, clock)
        self.bots: dict[str, int] = {}
        self._reading = asyncio.Semaphore(4)
        #: What else goes when an account is deleted (its e-mail address and push subscriptions).
        self.on_delete: list[Callable[[int], Awaitable[None]]] = []

    async def read(self, function: Callable[..., T], *args: Any) -> T:
        """A read-only query in a thread of its own, beside the store's writer (whose one thread
        the tables' saves wait on): a burst of sign-ins does not queue in front of the moves. A
        database that does not answer gives a 503 (as :meth:`write` and :meth:`queued` do)."""
        async with self._reading:
            return await answered(self.rooms.db.beside(function, *args))

    async def write(self, function: Callable[..., T], *args: Any) -> T:
        """A short write (a session's row): on an SQLite file on the event loop, in turn with the
        tables' saves; on PostgreSQL in a thread of its own (the database takes writers at once)."""
        if self.rooms.store.local_file:
            return await self.rooms.db.run_here(function, *args)
        async with self._reading:
            return await answered(self.rooms.db.beside(function, *args))

    async def queued(self, function: Callable[..., T], *args: Any) -> T:
        """A write in order with the tables' saves (an account made, changed or deleted)."""
        return await answered(self.rooms.db.run(function, *args))

    async def start(self) -> None:
        self.bots = await self.rooms.db.run(self.accounts.ensure_bots)
        self.rooms.archive_hook = self.archive_hook

    def archive_hook(self, data: TableData) -> Any:
        """What a finished game's transaction also stores (None when no seat has an account)."""
        who = participants(data, self.bots)
        if not who.rated and all(a is None for a in who.seats):
            return None

        def after(session: Session, game: GameRow) -> None:
            record_game(session, game, who)

        return after

    async def close(self) -> None:
        await self.play_now.close()
        self.hasher.close()

    async def user(self, request: Request) -> User | None:
        token = request.cookies.get(COOKIE)
        if not token or len(token) > 100:
            return None
        return await self.read(self.accounts.session_user, token)

    async def seat_identity(self, request: Request, code: str | None) -> tuple[User | None, Any]:
        """The signed-in player behind a request about a table (None: anonymous) and its seat token
        at ``code`` (a function of the code when the table is being made)."""
        if COOKIE not in request.cookies:
            return None, None
        check_same_site(request)
        user = await self.user(request)
        if user is None:
            return None, None
        key = user.seat_key
        if code is None:
            return user, lambda c: seat_token(key, c)
        return user, seat_token(key, code.strip().upper())


def service(request: Request) -> AccountService:
    accounts: AccountService = request.app.state.accounts
    return accounts


def check_same_site(request: Request) -> None:
    """A request that changes something on behalf of a signed-in player comes from this site's own
    pages (403 otherwise): the ``Origin``, or lacking it the ``Referer``, names this server, over the
    scheme the request came by (an ``https`` page of another server on this host is another site)."""
    if request.method not in UNSAFE:
        return
    source = request.headers.get("origin") or request.headers.get("referer")
    host = request.headers.get("host")
    if not source or not host or urlsplit(source).netloc != host or urlsplit(source).scheme != request.url.scheme:
        raise Refusal("refused: this request did not come from this site's pages", "cross-site", status=403)


def _set_cookie(request: Request, response: Response, token: str, settings: Settings) -> None:
    response.set_cookie(
        COOKIE, token, max_age=int(settings.session_days * 86400), httponly=True, samesite="lax",
        secure=request.url.scheme == "https", path="/",
    )


def _clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https")


async def signed_in(request: Request, svc: AccountService) -> User:
    """The signed-in account making ``request`` (a change must come from the site itself), or 401."""
    check_same_site(request)
    user = await svc.user(request)
    if user is None:
        raise Refusal("sign in first", "account-signed-out", status=401)
    return user


async def answered(call: Awaitable[T]) -> T:
    """``call``'s result; a 503 if the database did not answer it (the request never hangs)."""
    try:
        return await call
    except StoreHungError:
        raise no_answer() from None


def busy() -> Refusal:
    return Refusal("the server is busy checking passwords: try again in a few seconds", "account-busy", status=503, headers={"Retry-After": "5"})


router = APIRouter(prefix="/api")


@router.get("/account")
async def me(request: Request) -> dict[str, Any]:
    svc = service(request)
    user = await svc.user(request)
    if user is None:
        return {"user": None}
    ratings = await svc.read(svc.ratings.ratings_of, user.id)
    return {"user": user.public(), "ratings": ratings}


@router.get("/account/tables")
async def my_tables(request: Request) -> list[dict[str, Any]]:
    """The tables where the signed-in account holds a seat, whose game waits or runs: each table's
    summary (who is awaited, the time left) and the account's ``seat``, for the home page's "Your
    move" on any device of the account."""
    svc = service(request)
    user = await signed_in(request, svc)
    found: list[dict[str, Any]] = []
    for code, seat in await svc.read(svc.accounts.seats_of, user.id):
        try:
            summary = await svc.rooms.call(code, Summary())
        except (LookupError, TableError):
            continue  # gone meanwhile, or between processes: the next look finds it
        found.append({**summary, "seat": seat})
    return found


@router.get("/account/games")
async def my_games(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> list[dict[str, Any]]:
    """The finished games the signed-in account played, newest first (private tables' too, each with
    its table's code and the account's seat): "My games" on any device of the account."""
    svc = service(request)
    user = await signed_in(request, svc)
    games: list[dict[str, Any]] = await svc.read(svc.accounts.games_of, user.id, limit, offset)
    return games


@router.post("/account/signup", status_code=201)
async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    svc = service(request)
    check_same_site(request)
    wait = svc.signup_address.retry_after(client_address(request), svc.clock.now())
    if wait:
        raise too_many(wait, "sign-ups")
    try:
        name = check_name(body.name)
        check_password(body.password, name)
        if await svc.read(svc.accounts.name_taken, name):
            raise AccountError("that user name is taken", "account-name-taken", status=409)
        hashed = await svc.hasher.hash(body.password)
        user = await svc.queued(svc.accounts.create, name, hashed)
    except AccountError as error:
        raise error from None
    except HasherBusyError:
        raise busy() from None
    token = await svc.write(svc.accounts.new_session, user.id, 0)
    _set_cookie(request, response, token, svc.settings)
    log.info("account %d signed up", user.id)
    return {"user": user.public()}


@router.post("/account/signin")
async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    svc = service(request)
    check_same_site(request)
    now = svc.clock.now()
    wait = svc.signin_address.retry_after(client_address(request), now)
    if wait:
        raise too_many(wait, "sign-ins")
    name = name_key(body.name.strip()[:64])  # (each way of writing one name spends its budget)
    pair = f"{name}\0{client_address(request)}"
    wait = svc.signin_pair.waiting(pair, now)
    if not wait and svc.signin_pair.used(pair, now):
        wait = svc.signin_name.waiting(name, now)  # the name's slow-down: only for who guessed wrong on it
    if wait:
        raise too_many(wait, "sign-ins on this name")
    found = await svc.read(svc.accounts.credentials, body.name.strip()[:64])
    try:
        good = await svc.hasher.verify(None if found is None else found[1], body.password)
    except HasherBusyError:
        raise busy() from None
    if found is None or not good:
        svc.signin_pair.retry_after(pair, now)
        svc.signin_name.retry_after(name, now)
        log.info("a sign-in was refused from %s", client_address(request))
        raise Refusal("wrong user name or password", "account-signin-failed", status=401)
    user, _, epoch = found
    if user.banned():  # (told only to whoever knows the password)
        until = user.banned_until.isoformat() + "Z" if user.banned_until is not None else ""
        raise Refusal(f"a moderator suspended this account until {until}", "account-banned", status=403, until=until)
    token = await svc.write(svc.accounts.new_session, user.id, epoch)
    _set_cookie(request, response, token, svc.settings)
    return {"user": user.public()}


@router.post("/account/signout")
async def sign_out(request: Request, response: Response) -> dict[str, Any]:
    svc = service(request)
    check_same_site(request)
    token = request.cookies.get(COOKIE)
    if token:
        await svc.write(svc.accounts.end_session, token)
    _clear_cookie(request, response)
    return {"user": None}


async def _check_password(svc: AccountService, user: User, password: str) -> None:
    """The signed-in ``user``'s own password again (to change it or delete the account), within
    the session's account's own budget of password checks (429 past it; 401 if it is wrong): not the
    name's, which strangers' wrong sign-ins spend."""
    wait = svc.password_checks.retry_after(str(user.id), svc.clock.now())
    if wait:
        raise too_many(wait, "password checks on this name")
    stored = await svc.read(svc.accounts.password_of, user.id)
    try:
        good = stored is not None and await svc.hasher.verify(stored[0], password)
    except HasherBusyError:
        raise busy() from None
    if not good:
        raise Refusal("wrong password", "account-wrong-password", status=401)


@router.post("/account/password")
async def change_password(body: PasswordChange, request: Request, response: Response) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    await _check_password(svc, user, body.current)
    try:
        check_password(body.new, user.name)
        hashed = await svc.hasher.hash(body.new)
        epoch = await svc.queued(svc.accounts.change_password, user.id, hashed)
    except AccountError as error:
        raise error from None
    except HasherBusyError:
        raise busy() from None
    token = await svc.write(svc.accounts.new_session, user.id, epoch)  # this device stays signed in
    _set_cookie(request, response, token, svc.settings)
    return {"user": user.public()}


@router.post("/account/delete")
async def delete_account(body: AccountDelete, request: Request, response: Response) -> dict[str, Any]:
    svc = service(request)
    user = await signed_in(request, svc)
    await _check_password(svc, user, body.password)
    await svc.queued(svc.accounts.delete, user.id)
    for forget in svc.on_delete:
        await forget(user.id)
    _clear_cookie(request, response)
    log.info("account %d deleted", user.id)
    return {"user": None}


@router.get("/users/{name}")
async def profile(
    name: str,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    svc = service(request)
    user = await svc.read(svc.accounts.user_by_name, name[:64])
    if user is None:
        raise Refusal("no such player", "no-user", status=404)
    details = await svc.read(svc.ratings.profile, user.id, limit, offset)
    about = await svc.read(request.app.state.bot_accounts.about, user.id) if user.kind == "bot" else None
    return {"user": {**user.public(), **(about or {})}, **details}


@router.get("/leaderboard")
async def leaderboard(
    request: Request,
    variant: Annotated[str, Query(max_length=16)] = "standard",
    provisional: bool = False,
    limit: Annotated[int, Query(ge=1, le=100)] = 25,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> dict[str, Any]:
    svc = service(request)
    if variant not in VARIANT_NAMES:
        raise Refusal("no such variant", "no-variant", status=404)
    result: dict[str, Any] = await svc.read(svc.ratings.leaderboard, variant, provisional, limit, offset)
    return result


@router.post("/tables/{code}/resume")
async def resume_seat(code: str, request: Request) -> dict[str, Any]:
    """The seat the signed-in account holds at table ``code`` (another device of the account)."""
    svc = service(request)
    user = await signed_in(request, svc)
    join = Join(user.name, account=user.id, token=seat_token(user.seat_key, code.strip().upper()), resume_only=True)
    # (a code that names no table and one where the account has no seat answer alike: a stranger
    # learns nothing of which codes are live; a miss also spends the address's budget of misses)
    no_seat = Refusal("you have no seat at this table", "no-seat", status=404)
    try:
        seat, token, _ = await svc.rooms.call(code, join)
    except LookupError:
        request.app.state.lookups.missed(client_address(request), svc.clock.now())
        raise no_seat from None
    except TableError as error:
        raise (no_seat if error.code == "no-seat" else error.with_status(409)) from None
    return {"code": code.strip().upper(), "seat": seat, "token": token}


@router.post("/play-now")
async def play_now(body: PlayNowRequest, request: Request) -> dict[str, Any]:
    svc = service(request)
    if body.variant not in VARIANT_NAMES:
        raise Refusal("no such variant", "invalid", status=422, field="variant", detail="unknown variant")
    wait = request.app.state.join_limits.retry_after(client_address(request), svc.clock.now())
    if wait:
        raise too_many(wait, "joins")
    user, _ = await svc.seat_identity(request, None)
    try:
        name = user.name if user is not None else clean_name(body.name)
        # (its queries go through the store's writer: a database that does not answer is a 503)
        result: dict[str, Any] = await answered(svc.play_now.play(body.mode, body.variant, body.players, name, user))
    except TableError as error:
        status = 401 if error.code == "rated-sign-in" else 422
        raise error.with_status(status) from None
    return result
