"""A bot program challenges a person by name (docs/bot-api.md, "Challenging a person"): the table is
opened as for a bot (:mod:`.challenges`), the person's seat kept by an invitation, and the person
answers in the browser: the site, while it is open and signed in, asks ``GET /api/challenges`` every
few seconds and shows each challenge as a notice with accept and decline. Accepting hands the browser
the invitation (the table's own invitation link, which seats the person as any friend's does);
declining, or letting the challenge expire, tells the bot why (``challenge-declined`` with a standard
reason). A person who does not have the site open is not challenged (``person-offline``): that is how
a person allows it, and a stranger's bot cannot leave challenges waiting for someone who is away."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi import APIRouter, Request, Response
from pydantic import Field

from ..accounts.account_routes import service, signed_in
from ..calls import WithdrawInvitation
from ..clock import Clock, Timer
from ..limits import RequestBody
from ..refusal import Refusal
from ..tables.rooms import Rooms
from ..tables.table_setup import TableError
from .bot_wire import DECLINE_REASONS
from .seat_links import BotError

log = logging.getLogger("sixnimmt.server")

#: A person whose browser asked for its challenges this recently has the site open.
LISTENING_SECONDS = 20.0
#: How long a person has to answer a challenge, and then, once accepted, to sit down.
ANSWER_SECONDS = 60.0
#: Challenges waiting for one person's answer at most (more are refused ``too-many-challenges``).
MAX_WAITING = 3


@dataclass(eq=False)
class PersonChallenge:
    """A challenge waiting for person ``person``: the seat at table ``code`` kept by ``token``."""

    id: str
    code: str
    token: str
    challenger: int
    person: int
    name: str
    about: dict[str, Any]
    expires: float
    accepted: bool = False
    timer: Timer | None = field(default=None, repr=False)


class Challengers(Protocol):
    """What the challenges need of the gateway that holds them (:class:`~.gateway.BotGateway`)."""

    rooms: Rooms
    clock: Clock
    challengers: dict[str, int]

    def spawn(self, work: Awaitable[Any]) -> None: ...
    async def challenge_declined(self, code: str, reason: str, text: str = "") -> None: ...


class PersonChallenges:
    """The challenges bots connected to this process sent people, by id."""

    def __init__(self, gateway: Challengers) -> None:
        self.gateway = gateway
        self.waiting: dict[str, PersonChallenge] = {}
        self.listening: dict[int, float] = {}  # person -> when its browser last asked

    def listen(self, person: int) -> list[dict[str, Any]]:
        """The person's browser asks: it is on the site; the challenges waiting for its answer."""
        now = self.gateway.clock.now()
        if len(self.listening) > 10_000:  # (the people who have left the site go)
            self.listening = {p: t for p, t in self.listening.items() if now - t <= LISTENING_SECONDS}
        self.listening[person] = now
        return [{"id": c.id, "game": c.code, **c.about, "expires_in": round(max(0.0, c.expires - now), 1)}
                for c in self.waiting.values() if c.person == person and not c.accepted]

    async def ask(self, challenger: int, person: int, name: str, code: str, token: str, about: dict[str, Any]) -> str:
        """Challenge ``person`` (named ``name``) to the seat of ``code`` kept by ``token``: its id."""
        now = self.gateway.clock.now()
        if now - self.listening.get(person, float("-inf")) > LISTENING_SECONDS:
            raise BotError(f"{name} is not on the site to take a challenge", "person-offline")
        if sum(c.person == person and not c.accepted for c in self.waiting.values()) >= MAX_WAITING:
            raise BotError(f"{name} has {MAX_WAITING} challenges waiting already", "too-many-challenges")
        challenge = PersonChallenge(secrets.token_urlsafe(6), code, token, challenger, person, name, about,
                                    now + ANSWER_SECONDS)
        challenge.timer = self.gateway.clock.call_later(ANSWER_SECONDS, lambda: self.gateway.spawn(self._expire(challenge)))
        self.waiting[challenge.id] = challenge
        return challenge.id

    def _mine(self, person: int, challenge_id: str) -> PersonChallenge:
        challenge = self.waiting.get(challenge_id)
        if challenge is None or challenge.person != person or challenge.accepted:
            raise Refusal("no such challenge (expired, withdrawn or answered)", "no-challenge", status=404)
        return challenge

    def accept(self, person: int, challenge_id: str) -> dict[str, Any]:
        """The person takes the challenge: the invitation that seats them (the seat stays kept a while)."""
        challenge = self._mine(person, challenge_id)
        challenge.accepted = True
        if challenge.timer is not None:
            challenge.timer.cancel()
        challenge.timer = self.gateway.clock.call_later(ANSWER_SECONDS, lambda: self.gateway.spawn(self._expire(challenge)))
        return {"game": challenge.code, "invite": challenge.token, "name": challenge.name}

    async def decline(self, person: int, challenge_id: str, reason: str) -> None:
        challenge = self._mine(person, challenge_id)
        await self._give_up(challenge, reason if reason in DECLINE_REASONS else "generic", reason)

    async def challenger_gone(self, bot_id: int) -> None:
        """The challenger went offline: the challenges it has waiting go with it."""
        for challenge in [c for c in self.waiting.values() if c.challenger == bot_id and not c.accepted]:
            await self._give_up(challenge, "going-offline")

    async def _expire(self, challenge: PersonChallenge) -> None:
        await self._give_up(challenge, "later")

    async def _give_up(self, challenge: PersonChallenge, reason: str, text: str = "") -> None:
        """The seat kept for the person opens again and the challenger is told why, unless the person
        has sat down meanwhile (then only the record goes)."""
        if self.waiting.pop(challenge.id, None) is None:
            return
        if challenge.timer is not None:
            challenge.timer.cancel()
        try:
            opened = await self.gateway.rooms.call(challenge.code, WithdrawInvitation(challenge.token))
        except (LookupError, TableError) as error:
            log.info("a challenge at table %s could not be withdrawn: %s", challenge.code, error)
            opened = None
        if challenge.accepted and opened is None:  # (the person sat down: the game is theirs)
            self.gateway.challengers.pop(challenge.code, None)
            return
        await self.gateway.challenge_declined(challenge.code, reason, text[:200])


# ---------------------------------------------------------------------- the person's side

people_router = APIRouter()


class DeclineChallenge(RequestBody):
    #: A standard reason (docs/bot-api.md, "Challenges") or any text (passed on as ``generic``).
    reason: str = Field(default="generic", max_length=200)


async def _person(request: Request) -> int:
    user = await signed_in(request, service(request))
    if user.kind != "person":
        raise Refusal("only people take challenges", "not-a-person", status=403)
    return user.id


def _challenges(request: Request) -> PersonChallenges:
    people: PersonChallenges = request.app.state.bot_gateway.people
    return people


@people_router.get("/challenges")
async def my_challenges(request: Request) -> list[dict[str, Any]]:
    """The challenges bots sent the signed-in person (asking marks the person as on the site)."""
    return _challenges(request).listen(await _person(request))


@people_router.post("/challenges/{challenge_id}/accept")
async def accept_challenge(challenge_id: str, request: Request) -> dict[str, Any]:
    return _challenges(request).accept(await _person(request), challenge_id)


@people_router.post("/challenges/{challenge_id}/decline", status_code=204)
async def decline_challenge(challenge_id: str, body: DeclineChallenge, request: Request) -> Response:
    await _challenges(request).decline(await _person(request), challenge_id, body.reason)
    return Response(status_code=204)
