"""The Bot API's gateway (docs/bot-api.md): bot programs online, each on one WebSocket, playing at
the server's tables.

The gateway is a translator. For each table a bot program sits at, a
:class:`~sixnimmt.server.botapi.seat_links.SeatLink` holds that
seat's token and is connected to the table exactly as a browser's socket is: here, through
:meth:`Room.admit <sixnimmt.server.tables.room.Room.admit>`, or at a table another process drives, through
the cluster's socket forwarding (which keeps each seat's view to itself and survives a takeover).
What the table sends the seat (``state``, ``update``, ``chosen``) becomes the local bot protocol's
notifications and ``decide`` requests (:class:`~sixnimmt.protocol.narration.Narrator`,
:mod:`~sixnimmt.protocol.messages`: the code the ``cmd:`` host uses), with the table's code as
``game``; a ``move`` becomes the table's ``play``/``row``/``draft``/``order``/``keep``/``pass``.

The seat is a person's seat marked ``program``, so being away, the grace, the time per decision and
the stand-in are the table's own (:mod:`~sixnimmt.server.tables.scheduling`): a program that drops keeps its
seats for ``Settings.program_grace`` seconds and is asked the open decision again when it comes back.
The host never trusts a program: an illegal move is a logged fault and the stand-in's move is played.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core import PlayerView
from ...core.variants import VARIANTS
from ...seats import make_bot
from ..accounts.users import seat_token
from ..calls import BotConnected, BotsOnline, InviteBot, Join, WithdrawInvitation
from ..clock import Clock, Timer
from ..cluster.peers import Cluster
from ..config import Settings
from ..limits import RateLimiter
from ..refusal import Refusal
from ..tables.table_setup import TableError
from .bot_accounts import BotAccounts, BotIdentity
from .seat_links import BotError, SeatLink

if TYPE_CHECKING:
    from ..accounts.matchmaking import PlayNow
    from ..tables.rooms import Rooms

log = logging.getLogger("sixnimmt.server")

#: Close codes of a bot program's WebSocket.
CLOSE_BAD_TOKEN = 4401
CLOSE_REPLACED = 4409


@dataclass(slots=True)
class Invitation:
    id: str
    code: str
    token: str
    timer: Timer | None = None


@dataclass(eq=False)
class BotSession:
    """One bot program's connection: who it is, its allowances and what it plays."""

    identity: BotIdentity
    push: Callable[[dict[str, Any]], None]
    close: Callable[[int, str], None]
    messages: RateLimiter
    seeks: RateLimiter
    max_games: int = 4
    hello: bool = False
    seeking: dict[str, str] = field(default_factory=dict)  # seek id -> table code


class BotGateway:
    """Every bot program connected to this process, and the tables they sit at."""

    def __init__(self, rooms: Rooms, cluster: Cluster | None, bots: BotAccounts, play_now: PlayNow,
                 settings: Settings, clock: Clock) -> None:
        self.rooms = rooms
        #: The other processes on the database (None: this is the only one).
        self.cluster = cluster
        self.bots = bots
        self.play_now = play_now
        self.settings = settings
        self.clock = clock
        self.sessions: dict[int, BotSession] = {}
        #: Each bot's seats, kept while it is away (its next connection takes them up again).
        self.links: dict[int, dict[str, SeatLink]] = {}
        self.invitations: dict[int, dict[str, Invitation]] = {}
        self._invites_received: dict[int, RateLimiter] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sweep: Timer | None = None

    def spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start(self) -> None:
        self._sweep = self.clock.call_later(self.settings.program_token_check_seconds, self._check_tokens)

    async def close(self) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
        for task in list(self._tasks):
            task.cancel()

    def limits(self, max_games: int) -> dict[str, Any]:
        return {"games": max_games, "messages_per_second": self.settings.program_messages_per_second,
                "seeks_per_minute": self.settings.program_seeks_per_minute,
                "invitations_per_minute": self.settings.program_invitations_per_minute,
                "decision_seconds": self.settings.program_move_seconds, "grace_seconds": self.settings.program_grace}

    def tell(self, bot_id: int, out: list[dict[str, Any]]) -> None:
        session = self.sessions.get(bot_id)
        if session is not None:
            for message in out:
                session.push(message)

    def fallback_move(self, view: dict[str, Any]) -> int:
        """The stand-in's move for a program's decision (as the table's stand-in would play it)."""
        player = PlayerView.from_dict(view)
        assert player.decision is not None
        try:
            move = make_bot(self.settings.fallback_bot, secrets.randbits(32)).decide(player)
            if move in player.decision.options:
                return int(move)
        except Exception:  # the stand-in's own failure: the first option
            log.exception("the stand-in failed for a bot program")
        return int(player.decision.options[0])

    # ------------------------------------------------------------------ connections

    async def connect(self, session: BotSession) -> None:
        """A program connected (its token checked): a connection of the same bot is replaced."""
        bot = session.identity.bot
        self.replaced(bot.id)
        self.sessions[bot.id] = session
        if self.cluster is not None:  # (a connection of the bot to another process goes too)
            self.spawn(self.cluster.ask_all(BotConnected(bot.id)))

    def replaced(self, bot_id: int) -> None:
        """The bot connected again (here or to another process): its older connection here closes."""
        old = self.sessions.get(bot_id)
        if old is not None:
            old.close(CLOSE_REPLACED, "replaced")

    async def disconnect(self, session: BotSession) -> None:
        """The program's connection closed: its seats stay, away (the grace runs), until it comes back."""
        bot_id = session.identity.bot.id
        if self.sessions.get(bot_id) is not session:
            return  # (replaced: the new connection holds the seats)
        del self.sessions[bot_id]
        for link in list(self.links.get(bot_id, {}).values()):
            await link.detach()
        for invitation in self.invitations.pop(bot_id, {}).values():
            await self._withdraw(invitation)

    def is_online(self, bot_id: int) -> bool:
        session = self.sessions.get(bot_id)
        return session is not None and session.hello

    async def everywhere(self) -> list[dict[str, Any]]:
        """The bot programs online on every process (this one's, with several processes the others' too)."""
        listed = self.online()
        if self.cluster is not None:
            for reply in await self.cluster.ask_all(BotsOnline()):
                listed += reply.get("result", [])
        return sorted(listed, key=lambda bot: str(bot["name"]).casefold())

    async def invite_anywhere(self, bot_id: int, code: str, token: str, about: dict[str, Any]) -> str:
        """:meth:`invite` on the process the bot is connected to (this one, or another)."""
        if self.is_online(bot_id) or self.cluster is None:
            return await self.invite(bot_id, code, token, about)
        for reply in await self.cluster.ask_all(InviteBot(bot_id, code, token, about)):
            if "result" in reply:
                return str(reply["result"])
            error = reply.get("error")
            if error is not None and error.get("code") != "bot-offline":
                fields = {k: v for k, v in error.items() if k not in ("type", "code", "message")}
                raise BotError(error.get("message", ""), error["code"], **fields)
        raise BotError("this bot is not online", "bot-offline")

    def install(self) -> None:
        """Answer the other processes' questions about the programs connected here."""

        async def online(_call: BotsOnline) -> dict[str, Any]:
            return {"result": self.online()}

        async def invite(call: InviteBot) -> dict[str, Any]:
            try:
                return {"result": await self.invite(call.bot, call.code, call.token, call.about)}
            except BotError as error:
                return {"error": error.to_message()}

        async def connected(call: BotConnected) -> dict[str, Any]:
            self.replaced(call.bot)
            return {"result": None}

        self.rooms.answer_calls(BotsOnline, online)
        self.rooms.answer_calls(InviteBot, invite)
        self.rooms.answer_calls(BotConnected, connected)

    def deleted(self, bot_id: int) -> None:
        """The bot's account was deleted: its connection closes at once (its token no longer works)."""
        session = self.sessions.get(bot_id)
        if session is not None:
            session.close(CLOSE_BAD_TOKEN, "bot deleted")

    def online(self) -> list[dict[str, Any]]:
        return [{"name": s.identity.bot.name, "owner": s.identity.owner, "description": s.identity.description,
                 "games": len(self.links.get(bot_id, {})), "max_games": s.max_games, "rated": True}
                for bot_id, s in sorted(self.sessions.items(), key=lambda item: item[1].identity.bot.name.casefold())
                if s.hello]

    def _check_tokens(self) -> None:
        """Every few seconds: a connection whose token was revoked (on any process) or whose bot was
        deleted is closed."""
        self._sweep = self.clock.call_later(self.settings.program_token_check_seconds, self._check_tokens)
        if self.sessions:
            self.spawn(self._close_revoked())

    async def _close_revoked(self) -> None:
        ids = [s.identity.token_id for s in self.sessions.values()]
        live = await asyncio.to_thread(self.bots.live_tokens, ids)
        self.revoked(set(ids) - live)

    def revoked(self, token_ids: set[int]) -> None:
        for session in list(self.sessions.values()):
            if session.identity.token_id in token_ids:
                log.info("bot %r: its token was revoked: closing its connection", session.identity.bot.name)
                session.close(CLOSE_BAD_TOKEN, "token revoked")

    # ------------------------------------------------------------------ the program's messages

    async def hello(self, session: BotSession, message: dict[str, Any]) -> None:
        wanted = message.get("max_games", self.settings.program_max_games)
        if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 1:
            raise BotError("max_games is a whole number of games, 1 or more", "bad-message")
        session.max_games = min(wanted, self.settings.program_max_games)
        session.hello = True
        bot = session.identity.bot
        codes = await asyncio.to_thread(self.bots.games_of, bot.id)
        session.push({"type": "welcome", "bot": bot.name, "owner": session.identity.owner,
                      "limits": self.limits(session.max_games), "games": codes})
        links = self.links.setdefault(bot.id, {})
        for code in codes:
            link = links.get(code)
            if link is None:
                link = links[code] = SeatLink(self, bot.id, code, seat_token(bot.seat_key, code))
            else:
                for resent in link.resend():
                    session.push(resent)
            try:
                if link.attached:  # (the older connection was replaced before it dropped: the seat
                    await link.send({"type": "sync"})  # stays connected; its state comes again)
                else:
                    await link.attach()
            except (LookupError, TableError):  # the table is gone
                await self.finish(link)

    def _room_for_games(self, session: BotSession) -> None:
        """Refuses a game past the program's limit. Only the games it sits in count: invitations
        waiting for its answer do not (anyone may send them), and accepting one is refused here."""
        bot_id = session.identity.bot.id
        busy = len(self.links.get(bot_id, {}))
        if busy >= session.max_games:
            raise BotError(f"you play {busy} games already (limit {session.max_games}): "
                           "finish one first", "too-many-games", limit=session.max_games)

    async def seek(self, session: BotSession, message: dict[str, Any]) -> None:
        mode, players, variant = message.get("mode", "casual"), message.get("players"), message.get("variant",
                                                                                                     "standard")
        if mode not in ("casual", "rated") or variant not in {v.value for v in VARIANTS} or not (
            players is None or (isinstance(players, int) and not isinstance(players, bool))
        ):
            raise BotError("a seek has mode casual or rated, players 2..10 or null, and a variant", "bad-message")
        now = self.clock.now()
        if not session.seeks.allow(now):
            wait = session.seeks.retry_after(now)
            raise BotError(f"too many seeks: at most {self.settings.program_seeks_per_minute} a "
                           f"minute (try again in {wait:.1f} s)", "rate-limited", limit="seeks", retry_after=round(wait, 1))
        self._room_for_games(session)
        bot = session.identity.bot
        try:
            seated = await self.play_now.play(mode, variant, players, bot.name, bot, program=True,
                                              besides=frozenset(self.links.get(bot.id, {})))
        except TableError as error:
            raise BotError(str(error), "seek-refused") from None
        seek = secrets.token_urlsafe(6)
        session.seeking[seek] = seated["code"]
        session.push({"type": "seeking", "seek": seek, "game": seated["code"]})
        await self.seat(bot.id, seated["code"])

    async def seat(self, bot_id: int, code: str) -> None:
        """The program sits at table ``code`` (its seat is taken): follow it."""
        session = self.sessions.get(bot_id)
        if session is None:
            return
        bot = session.identity.bot
        await asyncio.to_thread(self.bots.add_game, bot_id, code)
        links = self.links.setdefault(bot_id, {})
        if code not in links:
            links[code] = SeatLink(self, bot_id, code, seat_token(bot.seat_key, code))
            await links[code].attach()

    async def cancel_seek(self, session: BotSession, message: dict[str, Any]) -> None:
        seek = str(message.get("seek"))
        link = self.links.get(session.identity.bot.id, {}).get(session.seeking.get(seek, ""))
        if link is None or link.started:
            raise BotError("no such seek waiting for its game", "unknown-seek")
        if link.seat == 0:  # (the table this seek opened: its game starts when Play now fills it)
            raise BotError("this seek opened its table, which waits for its players: "
                           "the game starts when they come, or Play now's bots fill it", "seek-opened-table", seek=seek)
        del session.seeking[seek]
        await self.finish(link)

    async def leave(self, session: BotSession, message: dict[str, Any]) -> None:
        await self.finish(self._link(session, message))

    async def move(self, session: BotSession, message: dict[str, Any]) -> None:
        await self._link(session, message).move(message.get("id"), message.get("move"), session.identity.bot.name)

    def answers(self, session: BotSession, message: dict[str, Any]) -> bool:
        """Whether ``message`` is a move answering a decision the program was asked and has not answered."""
        if message["type"] != "move":
            return False
        code = message.get("game")
        link = self.links.get(session.identity.bot.id, {}).get(code if isinstance(code, str) else "")
        asked = None if link is None else link.open
        return asked is not None and not asked.answered and message.get("id") == asked.id

    def _link(self, session: BotSession, message: dict[str, Any]) -> SeatLink:
        code = message.get("game")
        link = self.links.get(session.identity.bot.id, {}).get(code if isinstance(code, str) else "")
        if link is None:
            raise BotError(f"you play no game {str(code)[:16]!r}", "unknown-game", game=str(code)[:16])
        return link

    async def finish(self, link: SeatLink) -> None:
        """The program's game is over (or it left): the seat is no longer followed, and is given up
        (the table's next game, if its people play again, seats someone else there)."""
        link.finished = True
        links = self.links.get(link.bot_id, {})
        if links.get(link.code) is link:
            del links[link.code]
        with contextlib.suppress(TableError):
            await link.send({"type": "leave"})
        await link.detach()
        await asyncio.to_thread(self.bots.drop_game, link.bot_id, link.code)

    # ------------------------------------------------------------------ invitations

    async def invite(self, bot_id: int, code: str, token: str, about: dict[str, Any]) -> str:
        """People invite the bot to seat ``code`` (kept by invitation ``token``): it is asked."""
        session = self.sessions.get(bot_id)
        if session is None or not session.hello:
            raise BotError("this bot is not online", "bot-offline")
        limiter = self._invites_received.setdefault(bot_id, RateLimiter(
            self.settings.program_invitations_per_minute / 60, self.settings.program_invitations_per_minute,
            self.clock.now()))
        if not limiter.allow(self.clock.now()):
            wait = limiter.retry_after(self.clock.now())
            raise BotError(f"this bot gets at most {self.settings.program_invitations_per_minute} "
                           "invitations a minute", "rate-limited", limit="invitations", retry_after=round(wait, 1))
        self._room_for_games(session)
        invitation = Invitation(secrets.token_urlsafe(6), code, token)
        self.invitations.setdefault(bot_id, {})[invitation.id] = invitation
        seconds = self.settings.program_invitation_seconds
        invitation.timer = self.clock.call_later(seconds, lambda: self.spawn(self._expire(bot_id, invitation.id)))
        session.push({"type": "invitation", "invitation": invitation.id, "game": code, **about,
                      "expires_in": seconds})
        return invitation.id

    async def _expire(self, bot_id: int, invitation_id: str) -> None:
        invitation = self.invitations.get(bot_id, {}).pop(invitation_id, None)
        if invitation is not None:
            self.tell(bot_id, [{"type": "invitation-withdrawn", "invitation": invitation_id, "reason": "expired"}])
            await self._withdraw(invitation)

    async def _withdraw(self, invitation: Invitation) -> None:
        if invitation.timer is not None:
            invitation.timer.cancel()
        try:
            await self.rooms.call(invitation.code, WithdrawInvitation(invitation.token))
        except (LookupError, TableError) as error:
            log.info("an invitation to table %s could not be withdrawn: %s", invitation.code, error)

    async def answer(self, session: BotSession, message: dict[str, Any], accept: bool) -> None:
        bot = session.identity.bot
        invitation = self.invitations.get(bot.id, {}).pop(str(message.get("invitation")), None)
        if invitation is None:
            raise BotError("no such invitation (expired, or answered)", "unknown-invitation")
        if not accept:
            reason = str(message.get("reason", ""))[:200]
            log.info("bot %r declined a seat at table %s: %r", bot.name, invitation.code, reason)
            await self._withdraw(invitation)
            return
        try:
            self._room_for_games(session)
        except BotError:
            await self._withdraw(invitation)
            raise
        if invitation.timer is not None:
            invitation.timer.cancel()
        stable = await asyncio.to_thread(self.bots.accounts.stable, bot.id)
        join = Join(bot.name, invitation.token, bot.id, seat_token(bot.seat_key, invitation.code), program=True,
                    stable=stable)
        try:
            await self.rooms.call(invitation.code, join)
        except (LookupError, TableError) as error:
            raise BotError(f"the seat is no longer kept for you: {error}", "invitation-gone") from None
        await self.seat(bot.id, invitation.code)


#: The program's messages, by type.
HANDLERS: dict[str, Callable[[BotGateway, BotSession, dict[str, Any]], Awaitable[None]]] = {
    "seek": BotGateway.seek,
    "cancel-seek": BotGateway.cancel_seek,
    "accept": lambda g, s, m: g.answer(s, m, True),
    "decline": lambda g, s, m: g.answer(s, m, False),
    "move": BotGateway.move,
    "leave": BotGateway.leave,
}


def _decode(gateway: BotGateway, text: str | None) -> dict[str, Any]:
    if text is None or len(text) > gateway.settings.max_message_bytes:
        raise BotError(f"send JSON text frames of at most {gateway.settings.max_message_bytes} bytes", "bad-message")
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise BotError("not JSON", "bad-message") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BotError("a message is a JSON object with a type", "bad-message")
    return message


async def receive(gateway: BotGateway, session: BotSession, text: str | None) -> None:
    """One frame from a program: its allowance, then its message (``hello`` first); anything refused
    is answered with an ``error`` and changes nothing."""
    now = gateway.clock.now()
    try:
        message = _decode(gateway, text)
        # An answer to an open decision is paced by the game itself; every other message (a wrong
        # answer too) takes from the token's allowance.
        if not gateway.answers(session, message) and not session.messages.allow(now):
            wait = round(session.messages.retry_after(now), 1)
            raise BotError(f"too many messages: at most {gateway.settings.program_messages_per_second:g} "
                           f"a second (try again in {wait} s)", "rate-limited", limit="messages", retry_after=wait)
        kind = message["type"]
        if kind == "ping":
            session.push({"type": "pong"})
        elif kind == "hello":
            if session.hello:
                raise BotError("hello comes once, first", "bad-message")
            await gateway.hello(session, message)
        elif not session.hello:
            raise BotError("say hello first", "bad-message")
        elif kind in HANDLERS:
            await HANDLERS[kind](gateway, session, message)
        else:
            raise BotError(f"unknown message type {kind[:30]!r}", "bad-message")
    except Refusal as error:  # (a table's refusal too, with its parameters)
        session.push(error.to_bot_message())
