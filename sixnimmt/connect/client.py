"""The Bot API client: one bot online on a server (docs/bot-api.md, "sixnimmt bot connect").

A :class:`BotClient` keeps one WebSocket to ``/api/bot/v1/connect`` open, says ``hello``, answers
invitations by its :class:`AcceptPolicy`, keeps a seek open while it has room for another game,
and plays every game it is seated in at once, each through a
:class:`~sixnimmt.connect.games.RemoteGame` fed by its own worker, so that a slow search in one game
never holds up another.

A dropped connection is opened again after a delay that doubles from half a second to 30 s
(:func:`backoff`, with jitter so that many bots do not come back at the same instant). The games
live on: the server keeps a dropped bot's seats for its grace period, and after ``welcome`` resends
each game's ``game-start`` and its open ``decide``; a ``decide`` answered before the drop is
answered again with the same move, the bot is not asked twice.

:meth:`BotClient.interrupt` is Ctrl-C: the first stops seeking and declines invitations, and the
client exits once its games are over; the second resigns them (``leave``: the server's fallback
plays the seats to the end) and exits at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from ..protocol.messages import PROTOCOL_VERSION
from .games import RemoteGame

log = logging.getLogger("sixnimmt.connect")

CLIENT = "sixnimmt-bot-connect/1"
PATH = "/api/bot/v1/connect"
#: Reconnection: the first delay, doubled after each failed attempt up to the last.
FIRST_DELAY = 0.5
MAX_DELAY = 30.0
#: Close codes after which connecting again cannot help (docs/bot-api.md).
TOKEN_REFUSED = 4401
REPLACED = 4409

Sleep = Callable[[float], Awaitable[None]]


class ConnectError(Exception):
    """The server refuses this bot for good (a bad or revoked token, another connection took over):
    one line saying which; the command exits 1."""


def backoff(failures: int, rng: random.Random) -> float:
    """Seconds to wait before attempt ``failures + 1``: 0.5 s doubling to 30 s, each drawn from its
    upper half so that bots dropped together spread out when they come back."""
    delay = min(MAX_DELAY, FIRST_DELAY * 2.0**min(failures, 16))
    return delay * (0.5 + rng.random() / 2)


def connect_url(url: str) -> str:
    """The WebSocket URL of the Bot API on the server at ``url`` (``https://host`` ->
    ``wss://host/api/bot/v1/connect``; a ``ws(s)://`` URL with the path is kept as it is)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise ValueError(f"{url!r} is not a server address: http(s)://HOST[:PORT] or ws(s)://HOST[:PORT]")
    path = parts.path.rstrip("/")
    if not path.endswith(PATH):
        path += PATH
    return urlunsplit((scheme, parts.netloc, path, "", ""))


@dataclass(frozen=True, slots=True)
class AcceptPolicy:
    """Which invitations to accept: ``all``, ``people`` (not other bots), ``none``, or only those
    from the names listed (``ada,bob``; compared without case)."""

    mode: str
    names: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> AcceptPolicy:
        text = text.strip()
        if text in ("all", "people", "none"):
            return cls(text)
        names = frozenset(name.strip().casefold() for name in text.split(",") if name.strip())
        if not names:
            raise ValueError(f"--accept is all, people, none or a list of names (ada,bob), not {text!r}")
        return cls("names", names)

    def accepts(self, sender: str, from_bot: bool) -> bool:
        if self.mode == "all":
            return True
        if self.mode == "people":
            return not from_bot
        return sender.casefold() in self.names


@dataclass(frozen=True, slots=True)
class Seek:
    """The games to look for when there is room for one more: ``casual`` or ``rated``, a number of
    players (``None``: any), a variant."""

    mode: str = "casual"
    players: int | None = None
    variant: str = "standard"

    def message(self) -> dict[str, Any]:
        return {"type": "seek", "mode": self.mode, "players": self.players, "variant": self.variant}


class BotClient:
    """The bot ``spec`` online at ``url`` with ``token``. :meth:`run` returns when the client is done
    (after Ctrl-C) and raises :class:`ConnectError` when the server refuses the bot."""

    def __init__(
        self,
        url: str,
        token: str,
        spec: str,
        *,
        accept: AcceptPolicy = AcceptPolicy("people"),
        seek: Seek | None = None,
        challenge: tuple[str, Seek] | None = None,
        tournament: int | None = None,
        max_games: int = 4,
        seed: int | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.url = connect_url(url)
        self._token = token
        self.spec = spec
        self.accept = accept
        self.seek = seek
        self.challenge = challenge  # a bot to challenge by name once online, and the game asked for
        self.tournament = tournament  # a tournament to enter once online (docs/bot-api.md, "Tournaments")
        self.max_games = max_games
        self.seed = seed
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.bot: str | None = None  # the bot account's name, from welcome
        self.owner: str | None = None
        self.state = "connecting"  # what the status line says of the connection
        self.connections = 0  # welcomes received: 2 and more are reconnections
        self.games: dict[str, RemoteGame] = {}
        self.finished: list[RemoteGame] = []  # the games played to the end (or left), oldest first
        self.stopping = False  # the first Ctrl-C: no new games
        self._ws: ClientConnection | None = None
        self._inbox: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._accepted: dict[str, str] = {}  # invitation -> its game, accepted and not started yet
        self._seek_id: str | None = None
        self._seek_sent = False  # a seek is on its way (no ``seeking`` answer yet)
        self._resuming: set[str] = set()  # games ``welcome`` listed that have not come again yet
        self._done = asyncio.Event()
        self._background: set[asyncio.Task[Any]] = set()  # tasks started from callbacks, kept till done

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        failures = 0
        while not self._done.is_set():
            welcomed = self.connections
            try:
                async with connect(
                    self.url, additional_headers={"Authorization": f"Bearer {self._token}"}, open_timeout=10
                ) as ws:
                    await self._session(ws)
            except InvalidStatus as error:
                if error.response.status_code in (401, 403):
                    raise ConnectError(f"the server refused the token (HTTP {error.response.status_code})") from None
                log.info("connection refused: HTTP %d", error.response.status_code)
            except ConnectionClosed as error:
                received = error.rcvd
                if received is not None and received.code == TOKEN_REFUSED:
                    raise ConnectError(f"the server refused the token: {received.reason or 'bad token'}") from None
                if received is not None and received.code == REPLACED:
                    raise ConnectError("another connection for this bot took over (close 4409 replaced)") from None
                log.info("connection lost: %s", error)
            except (OSError, InvalidHandshake, TimeoutError) as error:
                log.info("cannot connect: %s", error)
            finally:
                self._ws = None
            if self._done.is_set():
                break
            if self.connections > welcomed:  # it was online: the delays start again from the first
                failures = 0
            delay = backoff(failures, self._rng)
            failures += 1
            self.state = f"reconnecting in {delay:.1f}s"
            log.info("%s (attempt %d)", self.state, failures + 1)
            await self._wait(delay)
        workers = list(self._workers.values())
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    async def _wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if the client is done meanwhile (a second Ctrl-C)."""
        sleeping = asyncio.ensure_future(self._sleep(seconds))
        done = asyncio.ensure_future(self._done.wait())
        await asyncio.wait({sleeping, done}, return_when=asyncio.FIRST_COMPLETED)
        sleeping.cancel()
        done.cancel()

    async def _session(self, ws: ClientConnection) -> None:
        """One connection: hello, welcome, then every message until it closes."""
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "client": CLIENT, "max_games": self.max_games}))
        welcome = json.loads(await ws.recv())
        if welcome.get("type") != "welcome":
            raise ConnectError(f"the server answered hello with {json.dumps(welcome)[:200]}")
        self._ws = ws
        self.connections += 1
        self.bot, self.owner = welcome.get("bot"), welcome.get("owner")
        limit = welcome.get("limits", {}).get("games")
        if isinstance(limit, int) and 0 < limit < self.max_games:  # the server's cap: no seek beyond it
            self.max_games = limit
        self.state = "online" if not self.stopping else "stopping"
        log.info("%s as %s (owner %s)", "reconnected" if self.connections > 1 else "connected", self.bot, self.owner)
        seated = set(welcome.get("games", ()))
        for game in [g for g in self.games.values() if g.id not in seated]:
            log.info("game %s: over while away", game.id)  # the fallback finished it during the drop
            self._inbox[game.id].put_nowait({"type": "gone"})
        self._seek_id, self._seek_sent = None, False  # a seek lasts as long as its connection
        self._accepted.clear()
        # (the games the server still seats this bot in count toward its limit before they come again)
        self._resuming = seated - set(self.games)
        await self._maybe_seek()
        if self.challenge is not None and not self.stopping and self._taken() < self.max_games:
            (name, wanted), self.challenge = self.challenge, None  # (once: its table outlives a drop)
            await self._send({**wanted.message(), "type": "challenge", "bot": name})
        if self.tournament is not None and not self.stopping:
            await self._send({"type": "enter-tournament", "tournament_id": self.tournament})
        if self._done.is_set():
            await ws.close()
        async for raw in ws:
            try:
                message = json.loads(raw)
            except json.JSONDecodeError:
                log.warning("not JSON from the server: %r", str(raw)[:200])
                continue
            if isinstance(message, dict):
                await self._dispatch(message)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send(self, message: dict[str, Any]) -> bool:
        """Send if connected; ``False`` when the message was lost (what matters is sent again:
        a resent ``decide`` is answered again, a seek is made again after ``welcome``)."""
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(message))
        except ConnectionClosed:
            return False
        return True

    # ------------------------------------------------------------------ messages

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        game = message.get("game")
        if kind == "invitation":
            await self._invited(message)
        elif kind == "seeking":
            self._seek_id, self._seek_sent = message.get("seek"), False
            if self.stopping:  # (it was on its way when Ctrl-C came)
                seek, self._seek_id = self._seek_id, None
                await self._send({"type": "cancel-seek", "seek": seek})
        elif kind == "invitation-withdrawn":  # it expired before its game started: room again
            self._accepted.pop(str(message.get("invitation")), None)
        elif kind == "challenging":
            log.info("challenged %s: game %s", message.get("bot"), game)
        elif kind == "challenge-declined":
            log.warning("game %s: the challenge was declined (%s)", game, message.get("reason"))
        elif kind == "tournament-entered":
            log.info("entered tournament %s (%s), starting in %s s", message.get("tournament_id"), message.get("name"),
                     message.get("starts_in"))
        elif kind == "tournament-round":
            log.info("tournament %s: round %s at game %s", message.get("tournament_id"), message.get("round"), game)
        elif kind == "error":
            await self._error(message)
        elif kind in ("game-start", "game-state") and isinstance(game, str) and game not in self.games:
            self._resuming.discard(game)
            self._start_game(game, message)
        elif isinstance(game, str) and game in self._inbox:
            self._inbox[game].put_nowait(message)
        elif kind != "pong":
            log.debug("ignored %s", json.dumps(message)[:200])

    async def _invited(self, message: dict[str, Any]) -> None:
        invitation, sender = message.get("invitation"), str(message.get("from", ""))
        reason = None
        # (the standard reasons of docs/bot-api.md, which the inviter or challenger is told)
        if self.stopping:
            reason = "going-offline"
        elif not self.accept.accepts(sender, bool(message.get("from_bot"))):
            reason = "not-bots" if message.get("from_bot") else "generic"
        elif self._taken() + (self._seek_id is not None or self._seek_sent) >= self.max_games:
            reason = "too-many-games"  # (a seek's seat counts: the server holds it)
        if reason is None:
            self._accepted[str(invitation)] = str(message.get("game"))
            await self._send({"type": "accept", "invitation": invitation})
        else:
            await self._send({"type": "decline", "invitation": invitation, "reason": reason})
        log.info("invitation from %s: %s", sender, "accepted" if reason is None else f"declined ({reason})")

    async def _error(self, message: dict[str, Any]) -> None:
        code = message.get("code")
        if code == "not-your-decision":  # a move for a decision the fallback has already made
            log.info("game %s: move %s came too late", message.get("game"), message.get("id"))
            return
        log.warning("server: %s: %s", code, message.get("message", ""))
        game = message.get("game")
        if code == "unknown-game" and isinstance(game, str) and game in self._inbox:  # the seat is no longer ours
            self._inbox[game].put_nowait({"type": "gone"})
        if code == "unknown-game" and isinstance(game, str) and game in self._resuming:
            self._resuming.discard(game)
            self._spawn(self._maybe_seek())
        if self._seek_sent and message.get("game") is None:  # the seek on its way was refused
            self._seek_sent = False
            if code == "rate-limited":  # try again when the server says; other refusals, once a game ends
                # (at least a second: a client that asks again at once is refused again at once)
                retry = max(1.0, float(message.get("retry_after", 10.0)))
                asyncio.get_running_loop().call_later(retry, lambda: self._spawn(self._maybe_seek()))

    async def _maybe_seek(self) -> None:
        """Keep one seek open while there is room for another game."""
        if self.seek is None or self.stopping or self._seek_id is not None or self._seek_sent:
            return
        if self._taken() >= self.max_games:
            return
        self._seek_sent = await self._send(self.seek.message())

    def _taken(self) -> int:
        """Games in progress and invitations accepted whose game has not started."""
        return len(self.games) + len(self._accepted) + len(self._resuming - set(self.games))

    # ------------------------------------------------------------------ games

    def _start_game(self, game: str, message: dict[str, Any]) -> None:
        invitations = [i for i, g in self._accepted.items() if g == game]
        for invitation in invitations:
            del self._accepted[invitation]
        if not invitations:  # not an invitation: the open seek found it
            self._seek_id = None
        try:
            seed = None if self.seed is None else self.seed + len(self.finished) + len(self.games)  # one per game
            remote = RemoteGame(game, self.spec, seed=seed)
        except ValueError as error:  # a cmd: program that has gone missing
            log.error("game %s: cannot start %s: %s", game, self.spec, error)
            self._spawn(self._send({"type": "leave", "game": game}))
            return
        self.games[game] = remote
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        inbox.put_nowait(message)
        self._inbox[game] = inbox
        self._workers[game] = asyncio.create_task(self._play(remote, inbox), name=f"game {game}")
        log.info("game %s: started (%s)", game, ", ".join(message.get("seats", ())))
        self._spawn(self._maybe_seek())

    async def _play(self, game: RemoteGame, inbox: asyncio.Queue[dict[str, Any]]) -> None:
        """The game's worker: its messages in order, each handled off the event loop."""
        try:
            while not game.over:
                message = await inbox.get()
                if message.get("type") == "gone":
                    break
                reply = await asyncio.to_thread(game.handle, message)
                if reply is not None:
                    await self._send(reply)
        finally:
            await asyncio.to_thread(game.close)
            self._end_game(game)

    def _end_game(self, game: RemoteGame) -> None:
        self.games.pop(game.id, None)
        self._inbox.pop(game.id, None)
        self._workers.pop(game.id, None)
        self.finished.append(game)
        status = game.status
        if status.winners is not None and status.seat is not None and status.totals:
            result = "won" if status.seat in status.winners else "lost"
            log.info("game %s: %s with %d bullheads", game.id, result, status.totals[status.seat])
        if self.stopping and not self.games:
            self._finish()
        else:
            self._spawn(self._maybe_seek())

    # ------------------------------------------------------------------ stopping

    def interrupt(self) -> None:
        """Ctrl-C. The first: no new games, exit once those in progress are over. The second:
        resign them all and exit now."""
        if not self.stopping:
            self.stopping = True
            self.state = "stopping"
            log.info("stopping: finishing %d game(s); Ctrl-C again to resign them", len(self.games))
            seek, self._seek_id = self._seek_id, None
            self._spawn(self._stop_seeking(seek, finish=not self.games))
            return
        log.info("leaving %d game(s)", len(self.games))
        self._spawn(self._leave_all())

    async def _stop_seeking(self, seek: str | None, finish: bool) -> None:
        """Cancel the open seek (its seat opens: no table waits for this bot), then, with no game in
        progress, close the connection: the cancel goes out first."""
        if seek is not None:
            await self._send({"type": "cancel-seek", "seek": seek})
        if finish:
            self._finish()

    async def _leave_all(self) -> None:
        for game in list(self.games.values()):
            game.status.left = True
            await self._send({"type": "leave", "game": game.id})
            worker = self._workers.get(game.id)
            if worker is not None:
                worker.cancel()
        self._finish()

    def _finish(self) -> None:
        self._done.set()
        if self._ws is not None:
            self._spawn(self._ws.close())
