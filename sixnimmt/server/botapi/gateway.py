"""The Bot API's gateway (docs/bot-api.md): bot programs online, each on one WebSocket, playing at
the server's tables.

The gateway is a translator. For each table a bot program sits at, a
:class:`~sixnimmt.server.botapi.seat_links.SeatLink` holds that seat's token and is connected to the
table exactly as a browser's socket is: here, through
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
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core import PlayerView
from ...seats import make_bot
from ..accounts.users import User, seat_token
from ..calls import BotConnected, BotsOnline, InviteBot, Join, WithdrawInvitation
from ..clock import Clock, Timer
from ..cluster.peers import Cluster
from ..config import Settings
from ..limits import RateLimiter
from ..tables.table_setup import TableError
from .bot_accounts import BotAccounts, BotIdentity
from .bot_wire import DECLINE_REASONS, Accept, CancelSeek, Decline, Hello, Leave, Move, Seek
from .person_challenges import PersonChallenges
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
        #: The tables a bot opened to challenge another by name: table code -> the challenger's id.
        self.challengers: dict[str, int] = {}
        #: The tournaments' desk for bot programs (:class:`~.tourney_entries.ProgramEntries`; None: none).
        self.tourneys: object | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sweep: Timer | None = None
        self.people = PersonChallenges(self)  # (bots' challenges to people, answered in the browser)

    def spawn(self, work: Awaitable[Any]) -> None:
        self._spawned(work)

    def _spawned(self, work: Awaitable[Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

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
        for message in out if bot_id in self.sessions else ():
            self.sessions[bot_id].push(message)

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
        """The program's connection closed: its seats stay, away (the grace runs), until it comes back.
        Done to the end even when the connection's task is cancelled (the client went at once, the
        server stops): a seat left connected would never be away, and its game would never end."""
        await asyncio.shield(self._spawned(self._disconnect(session)))

    async def _disconnect(self, session: BotSession) -> None:
        bot_id = session.identity.bot.id
        if self.sessions.get(bot_id) is not session:
            return  # (replaced: the new connection holds the seats)
        del self.sessions[bot_id]
        links = self.links.get(bot_id, {})
        for code in session.seeking.values():  # a seek lasts as long as its connection
            link = links.get(code)
            if link is not None and not link.started:
                await self.finish(link)
        for link in list(links.values()):
            await link.detach()
        for invitation in self.invitations.pop(bot_id, {}).values():
            await self._withdraw(invitation, "going-offline")
        await self.people.challenger_gone(bot_id)

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

    async def hello(self, session: BotSession, message: Hello) -> None:
        wanted = self.settings.program_max_games if message.max_games is None else message.max_games
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
            # each game once, whole (``game-state``), then its open decision with the id it had
            link.resync = link.ask_again = True
            try:
                if link.attached:  # (the older connection was replaced before it dropped: the seat
                    await link.send({"type": "sync"})  # stays connected; its state comes again)
                else:
                    await link.attach()
            except (LookupError, TableError):  # the table is gone
                await self.finish(link)

    def room_for_games(self, session: BotSession) -> None:
        """Refuses a game past the program's limit. Only the games it sits in count: invitations
        waiting for its answer do not (anyone may send them), and accepting one is refused here."""
        bot_id = session.identity.bot.id
        busy = len(self.links.get(bot_id, {}))
        if busy >= session.max_games:
            raise BotError(f"you play {busy} games already (limit {session.max_games}): "
                           "finish one first", "too-many-games", limit=session.max_games)

    async def seek(self, session: BotSession, message: Seek) -> None:
        """Play now as a bot. Done to the end even if the connection goes meanwhile (its task
        cancelled): a seat taken is always followed, or given up again."""
        await asyncio.shield(self._spawned(self._seek(session, message)))

    async def _seek(self, session: BotSession, message: Seek) -> None:
        mode, players, variant = message.mode, message.players, message.variant
        now = self.clock.now()
        if not session.seeks.allow(now):
            wait = session.seeks.retry_after(now)
            raise BotError(f"too many seeks: at most {self.settings.program_seeks_per_minute} a "
                           f"minute (try again in {wait:.1f} s)", "rate-limited", limit="seeks", retry_after=round(wait, 1))
        self.room_for_games(session)
        bot = session.identity.bot
        try:
            seated = await self.play_now.play(mode, variant, players, bot.name, bot, program=True,
                                              besides=frozenset(self.links.get(bot.id, {})))
        except TableError as error:
            raise BotError(str(error), "seek-refused") from None
        seek = secrets.token_urlsafe(6)
        session.seeking[seek] = seated["code"]
        session.push({"type": "seeking", "seek": seek, "game": seated["code"]})
        await self.seat(bot.id, seated["code"], bot)
        link = self.links.get(bot.id, {}).get(seated["code"])
        if self.sessions.get(bot.id) is not session and link is not None and not link.started:
            await self.finish(link)  # the connection went meanwhile, and its seek with it

    async def seat(self, bot_id: int, code: str, bot: User | None = None) -> None:
        """The program sits at table ``code`` (its seat is taken): follow it (``bot``: even when its
        connection has gone meanwhile)."""
        session = self.sessions.get(bot_id)
        if session is not None:
            bot = session.identity.bot
        if bot is None:
            return
        await asyncio.to_thread(self.bots.add_game, bot_id, code)
        links = self.links.setdefault(bot_id, {})
        if code not in links:
            links[code] = SeatLink(self, bot_id, code, seat_token(bot.seat_key, code))
            await links[code].attach()

    async def cancel_seek(self, session: BotSession, message: CancelSeek) -> None:
        seek = message.seek
        link = self.links.get(session.identity.bot.id, {}).get(session.seeking.get(seek, ""))
        if link is None or link.started:
            raise BotError("no such seek waiting for its game", "unknown-seek")
        del session.seeking[seek]
        await self.finish(link)  # (the seat opens; a table the seek opened and nobody else took never starts)
        session.push({"type": "seek-cancelled", "seek": seek, "game": link.code})

    async def leave(self, session: BotSession, message: Leave) -> None:
        link = self._link(session, message.game)
        await self.finish(link, watch=link.started)  # (the game's end is still told: ``game-end``)
        session.push({"type": "left", "game": link.code})  # (the last message about that game)

    async def move(self, session: BotSession, message: Move) -> None:
        await self._link(session, message.game).move(message.id, message.move, session.identity.bot.name)

    def answers(self, session: BotSession, message: dict[str, Any]) -> bool:
        """Whether ``message`` is a move answering a decision the program was asked and has not answered."""
        if message["type"] != "move":
            return False
        code = message.get("game")
        link = self.links.get(session.identity.bot.id, {}).get(code if isinstance(code, str) else "")
        asked = None if link is None else link.open
        return asked is not None and not asked.answered and message.get("id") == asked.id

    def _link(self, session: BotSession, code: Any) -> SeatLink:
        link = self.links.get(session.identity.bot.id, {}).get(code if isinstance(code, str) else "")
        if link is None:
            raise BotError(f"you play no game {str(code)[:16]!r}", "unknown-game", game=str(code)[:16])
        return link

    async def finish(self, link: SeatLink, watch: bool = False) -> None:
        """The program's game is over (or it left): the seat is no longer followed, and is given up
        (the table's next game, if its people play again, seats someone else there). ``watch``: the
        link stays, watching, until it tells the game's end."""
        link.finished = True
        links = self.links.get(link.bot_id, {})
        if links.get(link.code) is link:
            del links[link.code]
        with contextlib.suppress(TableError):
            await link.send({"type": "leave"})
        link.departed = watch
        if not watch:
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
        self.room_for_games(session)
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
            await self._withdraw(invitation, "later")

    async def _withdraw(self, invitation: Invitation, reason: str = "later", text: str = "") -> None:
        """The seat kept for the bot opens again; a bot that challenged it is told ``reason``."""
        if invitation.timer is not None:
            invitation.timer.cancel()
        try:
            await self.rooms.call(invitation.code, WithdrawInvitation(invitation.token))
        except (LookupError, TableError) as error:
            log.info("an invitation to table %s could not be withdrawn: %s", invitation.code, error)
        await self.challenge_declined(invitation.code, reason, text)

    async def challenge_declined(self, code: str, reason: str, text: str = "") -> None:
        """A bot that challenged someone at ``code`` is told why not (:data:`DECLINE_REASONS`); its table goes."""
        challenger = self.challengers.pop(code, None)
        if challenger is not None:
            link = self.links.get(challenger, {}).get(code)
            if link is not None:
                await self.finish(link)
            self.tell(challenger, [{"type": "challenge-declined", "game": code, "reason": reason, "message": text}])

    async def answer(self, session: BotSession, message: Accept | Decline) -> None:
        bot = session.identity.bot
        invitation = self.invitations.get(bot.id, {}).pop(message.invitation, None)
        if invitation is None:
            raise BotError("no such invitation (expired, or answered)", "unknown-invitation")
        if isinstance(message, Decline):
            text = message.reason
            log.info("bot %r declined a seat at table %s: %r", bot.name, invitation.code, text)
            await self._withdraw(invitation, text if text in DECLINE_REASONS else "generic", text)
            return
        if invitation.timer is not None:
            invitation.timer.cancel()
        try:
            self.room_for_games(session)
        except BotError:
            await self._withdraw(invitation, "too-many-games")
            raise
        stable = await asyncio.to_thread(self.bots.accounts.stable, bot.id)
        join = Join(bot.name, invitation.token, bot.id, seat_token(bot.seat_key, invitation.code), program=True,
                    stable=stable)
        try:
            await self.rooms.call(invitation.code, join)
        except (LookupError, TableError) as error:
            raise BotError(f"the seat is no longer kept for you: {error}", "invitation-gone") from None
        await self.seat(bot.id, invitation.code)
