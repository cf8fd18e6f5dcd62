"""How little CPU can a move cost on this stack? A floor for the web server, measured beside it.

`benchmarks/engine_floor.py` asks that of the engine; this asks it of the path from a move to its
messages. The server below is not the game server. It is Starlette on uvicorn, run with the same
settings as `sixnimmt serve` (uvicorn's event loop, uvloop where it is installed; its WebSocket
protocol; no compression; the automatic garbage collector stopped, as `Settings.quiet_gc` does),
and it answers the part of the game's protocol that `benchmarks/load_web.py` speaks: `/healthz`,
creating and joining a table, and each seat's WebSocket. Per move it does the least the game server
does: it reads the frame, parses the JSON, and sends one frame to the mover and one to each other
player (the `chosen` messages), and four updates once every seat has played its card. The texts
are made in advance, from the views and events of real games of the engine, so they have the
sizes of the real ones. What it does not do: the game, the checks, the store, the views, and the
row choices (a turn's row choice is answered while the texts are made, so this server never asks
for one: 4.0 messages per move, where the game server sends about 4.7).

    .venv/bin/python benchmarks/serve_floor.py --port 8790 &
    .venv/bin/python benchmarks/load_web.py --tables 200 --seconds 40 --url http://127.0.0.1:8790 --pid $!
    kill %1

`server_cpu_ms_per_action` of that run is a bound on what any server on this stack spends per move
under the same load; compare it with the same command against `sixnimmt serve`, in turns.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import random
from dataclasses import dataclass
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from sixnimmt.core import Game, Rules
from sixnimmt.core.events import CardChosen

PLAYERS = 4


def _text(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn's texts, by seat: the update that opens it, the chooser's `chosen` (with its own
    part) and the one the others get."""

    opening: list[str]
    own: list[str]
    others: list[str]


def make_turns(rng: random.Random, deals: int) -> list[Turn]:
    """The turns of ``deals`` deals of real random games, as the texts a server sends: a turn's row
    choice is answered at once, and its events go into the update that opens the next turn."""
    turns: list[Turn] = []
    game = Game(Rules(players=PLAYERS), rng=rng)
    events: list[dict[str, Any]] = []
    while len(turns) < deals * 10:
        if game.is_over:
            game = Game(Rules(players=PLAYERS), rng=rng)
        views = [game.view(seat) for seat in range(PLAYERS)]
        table = {"code": "FLOOR", "status": "playing", "seats": [{"name": f"P{n + 1}", "kind": "human"}
                                                                 for n in range(PLAYERS)]}
        opening = [_text({"type": "update", "events": events, "table": {**table, "you": seat},
                          "view": views[seat].to_dict()}) for seat in range(PLAYERS)]
        own, others = [], []
        mark = len(game.events)
        cards = []
        for seat, view in enumerate(views):
            assert view.decision is not None and view.decision.kind.value == "card"
            card = rng.choice(view.decision.options)
            cards.append(card)
            head = {"type": "chosen", "events": [CardChosen(view.deal, view.turn, seat).to_dict()],
                    "chosen": [other <= seat for other in range(PLAYERS)],
                    "waiting_for": [other for other in range(PLAYERS) if other > seat]}
            others.append(_text(head))
            own.append(_text({**head, "own": {"seat": seat, "hand": [c for c in view.hand if c != card],
                                              "my_choice": card, "my_choices": [card], "decision": None}}))
        for seat, card in enumerate(cards):
            game.act(seat, card)
        while not game.is_over and game.pending()[0].kind.value == "row":
            decision = game.pending()[0]
            game.act(decision.seat, rng.choice(decision.options))
        events = [e.to_dict() for e in game.events[mark:]]
        turns.append(Turn(opening, own, others))
    return turns


class FloorTable:
    """A table's sockets by seat and who has moved this turn; the turns come round again."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = turns
        self.index = 0
        self.sockets: dict[int, WebSocket] = {}
        self.moved: set[int] = set()
        self.joined = 1  # seats handed out: the host's, then one per join

    async def move(self, seat: int) -> None:
        if seat in self.moved:
            return
        self.moved.add(seat)
        turn = self.turns[self.index]
        if len(self.moved) < PLAYERS:
            for other, socket in self.sockets.items():
                await socket.send_text(turn.own[seat] if other == seat else turn.others[seat])
            return
        self.moved.clear()
        self.index = (self.index + 1) % len(self.turns)
        opening = self.turns[self.index].opening
        for other, socket in self.sockets.items():
            await socket.send_text(opening[other])


def make_app(turns: list[Turn]) -> Starlette:
    tables: dict[str, FloorTable] = {}
    codes = (f"T{n}" for n in itertools.count())

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def create(request: Request) -> Response:
        await request.json()
        code = next(codes)
        tables[code] = FloorTable(turns)
        return JSONResponse({"code": code, "token": f"{code}.0"})

    async def join(request: Request) -> Response:
        await request.json()
        code = request.path_params["code"]
        tables[code].joined += 1
        return JSONResponse({"token": f"{code}.{tables[code].joined - 1}"})

    async def socket(websocket: WebSocket) -> None:
        code, seat_text = websocket.query_params["token"].split(".")
        table, seat = tables[code], int(seat_text)
        await websocket.accept()
        table.sockets[seat] = websocket
        await websocket.send_text(table.turns[table.index].opening[seat].replace('"update"', '"state"', 1))
        try:
            while True:
                message = orjson.loads(await websocket.receive_text())
                if message["type"] in ("play", "row"):
                    await table.move(seat)
        except WebSocketDisconnect:
            table.sockets.pop(seat, None)

    return Starlette(routes=[
        Route("/healthz", healthz),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables/{code}/join", join, methods=["POST"]),
        WebSocketRoute("/ws/{code}", socket),
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    app = make_app(make_turns(random.Random(args.seed), deals=12))
    gc.collect()
    gc.freeze()
    gc.disable()  # as `sixnimmt serve` runs (server/collector.py): nothing of a move is a cycle
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", ws_max_size=65536,
                ws_per_message_deflate=False)


if __name__ == "__main__":
    main()
