"""CPU per turn that the server's bots cost at one big table.

One table of a person (playing random cards) and ``--players - 1`` server bots of ``--level``, driven
through Rooms as the server drives it (the real store, the bots' thinking threads, the server's own
bot specs, ``Settings.turn_think_ms`` unless ``--turn-think-ms`` replaces it). Each turn is timed in
process CPU (every thread), after a deal that is not timed (the bots compile their code in it), from the moment the bots may think to the moment the turn is resolved;
prints the median and the largest turn.

    .venv/bin/python benchmarks/bot_table_cpu.py --players 10 --level grandmaster --deals 2
    .venv/bin/python benchmarks/bot_table_cpu.py --players 10 --turn-think-ms 1000000  # no shared limit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sixnimmt.core import Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import ChooseRow, Play


class Socket:
    """A player's connection that drops what it is sent."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def push(self, message: dict[str, Any]) -> None:
        del message


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    store = Store(f"sqlite:///{Path(tempfile.mkdtemp(prefix='sixnimmt-bots-')) / 'bots.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0)
    if args.turn_think_ms is not None:
        settings.turn_think_ms = args.turn_think_ms
    rooms = Rooms(store, settings)
    rng = random.Random(args.seed)
    room, _token = await rooms.create(TableOptions(Rules(players=args.players)), "Person",
                                      [{"kind": "bot", "bot": args.level}] * (args.players - 1))
    me = Socket(0)
    await room.connect(me)
    turns: list[float] = []
    start = time.process_time()
    while True:
        await room.scheduler.settle()
        game = room.table.game
        assert game is not None
        if game.is_over or game.deal_index >= args.warmup + args.deals:
            break
        mine = [d for d in game.pending() if d.seat == 0]
        if not mine:
            await asyncio.sleep(0.001)
            continue
        decision = mine[0]
        value = rng.choice(decision.options)
        turn = game.turn
        await room.handle(me, ChooseRow(type="row", row=value) if decision.kind.value == "row" else Play(type="play", card=value))
        await room.scheduler.settle()
        if game.turn != turn or game.is_over:
            now = time.process_time()
            if game.deal_index >= args.warmup or game.is_over:
                turns.append(now - start)
            start = now
    await rooms.close()
    return {
        "players": args.players, "level": args.level, "turn_think_ms": settings.turn_think_ms,
        "turns": len(turns), "cpu_ms_per_turn_median": round(statistics.median(turns) * 1000, 1),
        "cpu_ms_per_turn_max": round(max(turns) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--level", default="grandmaster")
    parser.add_argument("--deals", type=int, default=1, help="deals to play (each has ten turns)")
    parser.add_argument("--warmup", type=int, default=1, help="deals played first and not timed (the bots compile)")
    parser.add_argument("--turn-think-ms", type=float, default=None, help="replace Settings.turn_think_ms")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (2 <= args.players <= 10 and 1 <= args.deals <= 50):
        parser.error("players 2..10, deals 1..50")
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
