"""A fake Bot API server, as small as the client's tests need (the contract: docs/bot-api.md).

One token, hello and welcome, invitations sent on demand, seeks answered with a game, and games
played by the real engine: the connected bot in seat 0, random moves in the others. Games outlive
connections, as the contract says: after a reconnect the welcome lists them and each one's
```game-start`` and open ``decide`` are sent again. :meth:`FakeServer.drop` cuts the connection
without a close frame, as a network failure does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from sixnimmt.core import DealScored, DealStarted, Game, GameOver, Rules
from sixnimmt.protocol import messages

TOKEN = "snb_fake-token-for-tests"


class FakeServer:
    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules(players=3, deals=1)
        self.received: list[dict[str, Any]] = []  # every message from the bot, in order
        self.connections = 0
        self.hellos: list[dict[str, Any]] = []
        self.illegal = 0  # moves that were not among the options (the fallback played instead)
        self.decides = 0  # decisions asked of the bot
        self.resent = 0  # open decides sent again after a reconnect
        self.finished: list[str] = []  # games played to the end
        self.left: list[str] = []
        self.connected = asyncio.Event()
        self._ws: ServerConnection | None = None
        self._server: Server | None = None
        self._games: dict[str, asyncio.Task[None]] = {}
        self._open: dict[str, dict[str, Any]] = {}  # game -> its open decide
        self._starts: dict[str, dict[str, Any]] = {}  # game -> its game-start
        self._moves: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}  # invitation -> accept or decline
        self._codes = (f"G{n:03d}" for n in itertools.count(1))
        self.drop_on_move: int | None = None  # lose the answer to this decide id and cut the connection
        self.seek_waits = False  # a seek opens a table that waits for players (no game starts)
        self.url = ""

    async def start(self) -> str:
        self._server = await serve(self._connection, "127.0.0.1", 0, process_request=self._authorize)
        port = next(iter(self._server.sockets)).getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def close(self) -> None:
        for task in self._games.values():
            task.cancel()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def _authorize(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return connection.respond(401, "bad token\n")
        return None

    # ------------------------------------------------------------------ the connection

    async def _connection(self, ws: ServerConnection) -> None:
        hello = json.loads(await ws.recv())
        self.hellos.append(hello)
        if self._ws is not None:  # one connection per bot: the new one replaces the old
            await self._ws.close(4409, "replaced")
        self._ws = ws
        self.connections += 1
        await ws.send(json.dumps({
            "type": "welcome", "bot": "robo", "owner": "ada", "games": sorted(self._games),
            "limits": {"games": 8, "messages_per_second": 20, "seeks_per_minute": 6},
        }))
        for game in sorted(self._games):  # resume: each game's start and open decision again
            await ws.send(json.dumps(self._starts[game]))
            if game in self._open:
                self.resent += 1
                await ws.send(json.dumps(self._open[game]))
        self.connected.set()
        try:
            async for raw in ws:
                message = json.loads(raw)
                self.received.append(message)
                await self._dispatch(message)
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None
                self.connected.clear()

    async def _send(self, message: dict[str, Any]) -> None:
        """To the bot if it is connected; lost otherwise (a resumed game sends what matters again)."""
        if self._ws is not None:
            try:
                await self._ws.send(json.dumps(message))
            except Exception:
                pass

    async def drop(self) -> None:
        """Cut the connection as a network failure would: no close frame."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("accept", "decline"):
            self._answers[message["invitation"]].set_result(message)
        elif kind == "seek":
            await self._send({"type": "seeking", "seek": "S1", "game": "G100"})
            if not self.seek_waits:
                self.start_game()
        elif kind == "move":
            if message["id"] == self.drop_on_move:  # the answer is lost with the connection
                self.drop_on_move = None
                await self.drop()
            elif message["game"] in self._moves:
                self._moves[message["game"]].put_nowait(message)
        elif kind == "leave":
            self.left.append(message["game"])
            if message["game"] in self._games:
                self._games[message["game"]].cancel()
        elif kind == "ping":
            await self._send({"type": "pong"})

    # ------------------------------------------------------------------ invitations and games

    async def invite(self, sender: str, *, from_bot: bool = False) -> dict[str, Any]:
        """Invite the bot; its answer (the game starts when it accepts)."""
        invitation, game = f"I{len(self._answers) + 1}", next(self._codes)
        self._answers[invitation] = asyncio.get_running_loop().create_future()
        await self._send({
            "type": "invitation", "invitation": invitation, "game": game, "from": sender, "from_bot": from_bot,
            "rated": False, "rules": self.rules.to_dict(), "seats": [sender, "robo"], "expires_in": 30,
        })
        answer = await self._answers[invitation]
        if answer["type"] == "accept":
            self.start_game(game)
        return answer

    def start_game(self, game: str | None = None) -> str:
        game = game or next(self._codes)
        self._moves[game] = asyncio.Queue()
        self._games[game] = asyncio.create_task(self._play(game))
        return game

    async def take_seat_away(self, game: str) -> None:
        """The seat is no longer the bot's (its table was closed, say): the server says so once."""
        self._games.pop(game).cancel()
        await self._send({"type": "error", "code": "unknown-game", "message": "the seat is no longer yours",
                          "game": game})

    async def wait_games(self) -> None:
        """Until every game started has ended."""
        await asyncio.gather(*self._games.values(), return_exceptions=True)

    async def _play(self, game_id: str) -> None:
        seats = ["robo", *(f"rnd{s}" for s in range(1, self.rules.players))]
        game = Game(self.rules, seats, seed=len(self._games))
        others = random.Random(7)
        start = {**messages.game_start(game.view(0)), "game": game_id}
        self._starts[game_id] = start
        await self._send(start)
        await self._send({"type": "deal-start", "game": game_id, "deal": 0, "rows": [list(r) for r in game.view(0).rows]})
        turn: list[dict[str, Any]] = []
        request = 0
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                if decision.seat != 0:
                    move = others.choice(decision.options)
                else:
                    if turn and (turn[0]["deal"], turn[0]["turn"]) != (view.deal, view.turn):
                        await self._send({**messages.turn_result(turn), "game": game_id})
                        turn = []
                    request += 1
                    move = await self._ask(game_id, request, view)
                for event in game.act(decision.seat, move):
                    data = event.to_dict()
                    if isinstance(event, DealStarted):
                        await self._flush(game_id, turn)
                        turn = []
                        await self._send({"type": "deal-start", "game": game_id, "deal": event.deal,
                                          "rows": [list(r) for r in event.rows]})
                    elif isinstance(event, DealScored):
                        await self._flush(game_id, turn)
                        turn = []
                        await self._send({"type": "deal-end", "game": game_id, "deal": event.deal,
                                          "penalties": list(event.penalties), "totals": list(event.totals)})
                    elif isinstance(event, GameOver):
                        await self._send({"type": "game-end", "game": game_id, "totals": list(event.totals),
                                          "winners": list(event.winners)})
                    elif data.get("turn") is not None and data["type"] != "card-chosen":
                        turn.append(data)
        self.finished.append(game_id)
        del self._games[game_id]
        del self._starts[game_id]

    async def _flush(self, game_id: str, turn: list[dict[str, Any]]) -> None:
        if turn:
            await self._send({**messages.turn_result(turn), "game": game_id})

    async def _ask(self, game_id: str, request: int, view: Any) -> int:
        decide = {**messages.decide(request, view), "game": game_id}
        self._open[game_id] = decide
        self.decides += 1
        await self._send(decide)
        while True:
            move = await self._moves[game_id].get()
            if move["id"] != request:
                await self._send({"type": "error", "code": "not-your-decision", "game": game_id, "id": move["id"]})
                continue
            del self._open[game_id]
            if move["move"] not in view.decision.options:
                self.illegal += 1
                return int(view.decision.options[0])
            return int(move["move"])

