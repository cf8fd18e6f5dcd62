"""CPU per action of the path from a move to the messages it sends, without the network.

Drives Rooms directly (the real store: SQLite in a temporary folder, with its writer thread) with
fake sockets that serialize every message as the server's sockets do (``wire_text``). TABLES tables
of 4 people (plus SPECTATORS watching sockets each) play random legal moves, all tables at once,
until ACTIONS moves (or, with ``--one-at-a-time``, in turn, so that each save commits alone);
prints the process's CPU per action (both threads) and messages per action.
What it leaves out (uvicorn, the WebSocket frames, the event loop's socket work) is what
``load_web.py`` adds.

    .venv/bin/python benchmarks/room_cpu.py --tables 50 --actions 4000
    .venv/bin/python benchmarks/room_cpu.py --tables 200 --actions 20000 --one-at-a-time
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sixnimmt.core import Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Again, ChooseRow, Play, wire_text


class Socket:
    """A connection that serializes what it is sent, as the real one does, and counts it."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages = 0

    def push(self, message: dict[str, Any]) -> None:
        wire_text(message)
        self.messages += 1


async def one_move(room: Room, sockets: list[Socket], rng: random.Random) -> int:
    game = room.table.game
    assert game is not None
    if game.is_over:
        await room.handle(sockets[0], Again(type="again"))
        return 0
    for decision in game.pending():
        value = rng.choice(decision.options)
        move = ChooseRow(type="row", row=value) if decision.kind.value == "row" else Play(type="play", card=value)
        await room.handle(sockets[decision.seat], move)
        return 1
    return 0


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    store = Store(f"sqlite:///{Path(tempfile.mkdtemp(prefix='sixnimmt-room-')) / 'room.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0))
    rng = random.Random(args.seed)
    tables: list[tuple[Room, list[Socket]]] = []
    for _ in range(args.tables):
        room, _token = await rooms.create(TableOptions(Rules(players=4)), "P1", [{"kind": "open"}] * 3)
        for n in range(2, 5):
            await room.join(f"P{n}")
        sockets = [Socket(seat) for seat in range(4)] + [Socket(None) for _ in range(args.spectators)]
        for socket in sockets:
            await room.connect(socket)
        tables.append((room, sockets))
    sent0 = sum(s.messages for _, sockets in tables for s in sockets)
    actions = 0
    cpu0 = time.process_time()
    while actions < args.actions:
        if args.one_at_a_time:
            for room, sockets in tables:
                actions += await one_move(room, sockets, rng)
        else:
            actions += sum(await asyncio.gather(*(one_move(room, sockets, rng) for room, sockets in tables)))
    cpu = time.process_time() - cpu0
    sent = sum(s.messages for _, sockets in tables for s in sockets) - sent0
    await rooms.close()
    return {
        "tables": args.tables,
        "spectators_per_table": args.spectators,
        "actions": actions,
        "cpu_ms_per_action": round(cpu / actions * 1000, 3),
        "messages_per_action": round(sent / actions, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=0, help="watching sockets per table")
    parser.add_argument("--actions", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one-at-a-time", action="store_true",
                        help="the tables move in turn, each move committed alone (as in a server whose "
                             "tables are not all busy at once), not all at once (saves grouped)")
    args = parser.parse_args()
    if not (1 <= args.tables <= 2000 and 0 <= args.spectators <= 100 and 1 <= args.actions <= 1_000_000):
        parser.error("tables 1..2000, spectators 0..100, actions 1..1000000")
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
