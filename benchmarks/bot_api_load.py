"""Load test for the Bot API: many bot programs connected over /api/bot/v1/connect, playing at once.

Starts the real server (``sixnimmt serve``, SQLite in a temporary folder, bots off, as
``load_web.py`` does) or uses one already running (``--url`` with ``--pid``), signs up owners over
HTTP (each from its own loopback address, as people would), makes BOTS bot accounts and a token for
each, connects every bot (one WebSocket each, from its own loopback address), and has every bot
seek casual games of PLAYERS: the server's matchmaking seats them, GAMES tables of bots. Each bot
answers its ``decide`` messages with a random legal move after a think time (0.5 to 3 s, as
``load_web.py``'s players), and seeks again when its game ends.

Reports moves per second, the decision round trip, and the server's CPU per move, measured as
``load_web.py`` measures a browser seat's (user + system CPU of the server process and its
children over the measured seconds, read from /proc, divided by the moves made).

The decision round trip: a bot gets no reply to its own move (its card stays secret until the
turn is revealed), so the round trip is the table's: from the last move that completes a step of
the game (the last card of a turn, a row choice) to the first message of the next step (the turn's
result, the next ``decide``) at any bot of that table. Every bot runs in this process, which
sees both ends.

    .venv/bin/python benchmarks/bot_api_load.py --bots 200 --players 4 --seconds 60
    .venv/bin/python benchmarks/bot_api_load.py --bots 40 --seconds 30     # a lighter run
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from load_web import cpu_seconds, with_children  # (beside this script)
from websockets.asyncio.client import ClientConnection, connect

BOTS_PER_OWNER = 20  # the server's limit per account
PASSWORD = "load test password 1"
RUN = os.getpid() % 10_000  # in the names: runs against one server do not collide


def address(kind: int, index: int) -> str:
    """A loopback address of its own (all of 127.0.0.0/8 is this machine): the server's
    per-address limits then hold as for owners and bots on many machines."""
    return f"127.{kind}.{index // 250}.{index % 250 + 1}"


class Tables:
    """The round trips, measured per table: the time of the last move sent, and the first message
    of the next step that any of the table's bots receives."""

    def __init__(self) -> None:
        self.last_move: dict[str, float] = {}
        self.rtts: list[float] = []
        self.measuring = False

    def moved(self, game: str) -> None:
        self.last_move[game] = time.monotonic()

    def heard(self, game: str) -> None:
        sent = self.last_move.pop(game, None)
        if sent is not None and self.measuring:
            self.rtts.append(time.monotonic() - sent)


class Bot:
    """One bot program: a WebSocket, a random legal move after a think time, a seek after each game."""

    def __init__(self, url: str, token: str, local: str, players: int, think: tuple[float, float],
                 rng: random.Random, tables: Tables, seek_lock: asyncio.Lock, prefix: str) -> None:
        self.url, self.token, self.local, self.players = url, token, local, players
        self.think, self.rng, self.tables = think, rng, tables
        self.seek_lock, self.prefix = seek_lock, prefix
        self.answered = asyncio.Event()  # the seek was answered (seeking, or an error)
        self.tasks: set[asyncio.Task[None]] = set()
        self.strangers = 0  # seats of the games started held by others than these bots (the server's)
        self.ws: ClientConnection | None = None
        self.moves = 0
        self.games = 0
        self.started = 0
        self.errors: dict[str, int] = {}

    async def open(self, gate: asyncio.Semaphore) -> None:
        async with gate:
            self.ws = await connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                                    local_addr=(self.local, 0), open_timeout=300, max_size=2**22)
            await self.ws.send(json.dumps({"type": "hello", "protocol": 2, "client": "bot_api_load/1", "max_games": 1}))
            welcome = json.loads(await self.ws.recv())
            assert welcome["type"] == "welcome", welcome

    def seek(self) -> None:
        task = asyncio.create_task(self._seek())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _seek(self) -> None:
        """One seek at a time over all bots, each sent once the one before has its table: the
        server's matchmaking then fills each table with bots before opening the next, and none
        waits long enough to be given the server's own bots."""
        assert self.ws is not None
        async with self.seek_lock:
            self.answered.clear()
            await self.ws.send(json.dumps({"type": "seek", "mode": "casual", "players": self.players,
                                           "variant": "standard"}))
            try:
                await asyncio.wait_for(self.answered.wait(), timeout=10)
            except TimeoutError:
                pass

    async def run(self, stop_at: float) -> None:
        assert self.ws is not None
        ws = self.ws
        self.seek()
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop_at - time.monotonic()))
            except TimeoutError:
                break
            message = json.loads(raw)
            kind, game = message["type"], message.get("game")
            if kind in ("turn-result", "decide", "deal-end", "game-end") and game:
                self.tables.heard(game)
            if kind == "decide":
                await asyncio.sleep(self.rng.uniform(*self.think))
                move = self.rng.choice(message["view"]["decision"]["options"])
                await ws.send(json.dumps({"type": "move", "game": game, "id": message["id"], "move": move}))
                self.tables.moved(game)
                self.moves += 1
            elif kind == "game-start":
                self.started += 1
                self.strangers += sum(not name.startswith(self.prefix) for name in message["seats"])
            elif kind == "game-end":
                self.games += 1
                self.seek()
            elif kind == "seeking":
                self.answered.set()
            elif kind == "error":
                self.errors[message["code"]] = self.errors.get(message["code"], 0) + 1
                self.answered.set()
        await ws.close()


async def make_bots(base: str, count: int) -> list[str]:
    """Sign up owners (one per 20 bots, each from its own address) and make ``count`` bots with a
    token each; their tokens."""
    tokens: list[str] = []
    owners = (count + BOTS_PER_OWNER - 1) // BOTS_PER_OWNER
    run = RUN
    for owner in range(owners):
        transport = httpx.AsyncHTTPTransport(local_address=address(3, owner))
        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}, transport=transport, timeout=60) as web:
            name = f"load{run}_o{owner}"
            made = await web.post("/api/account/signup", json={"name": name, "password": PASSWORD})
            if made.status_code != 201:
                raise SystemExit(f"signing up {name} failed: {made.status_code} {made.text[:200]}")
            for n in range(min(BOTS_PER_OWNER, count - len(tokens))):
                bot = f"load{run}_o{owner}_b{n}"
                made = await web.post("/api/bots", json={"name": bot})
                token = await web.post(f"/api/bots/{bot}/tokens", json={"label": "load"})
                if made.status_code != 201 or token.status_code != 201:
                    raise SystemExit(f"making bot {bot} failed: {made.text[:200]} {token.text[:200]}")
                tokens.append(token.json()["token"])
    return tokens


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    server = None
    if args.url:
        base = args.url.rstrip("/")
        pids = list(args.pid)
    else:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        folder = Path(tempfile.mkdtemp(prefix="sixnimmt-botload-"))
        server = subprocess.Popen(
            [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url",
             f"sqlite:///{folder / 'load.db'}", "--bot-delay", "0", "--log-level", "warning", "--absent-grace", "600"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        pids = [server.pid]
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(600):
                try:
                    if (await client.get(f"{base}/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
        pids = with_children(pids)
        tokens = await make_bots(base, args.bots)
        tables = Tables()
        rng = random.Random(args.seed)
        url = base.replace("http", "ws", 1) + "/api/bot/v1/connect"
        seek_lock = asyncio.Lock()
        bots = [Bot(url, token, address(4, n), args.players, (args.think_min, args.think_max),
                    random.Random(rng.random()), tables, seek_lock, f"load{RUN}_") for n, token in enumerate(tokens)]
        gate = asyncio.Semaphore(50)
        await asyncio.gather(*(b.open(gate) for b in bots))
        gc.collect()
        gc.freeze()
        gc.disable()  # the generator's own collections would count as the server's latency
        stop_at = time.monotonic() + args.warmup + args.seconds
        running = asyncio.gather(*(b.run(stop_at) for b in bots), return_exceptions=True)
        await asyncio.sleep(args.warmup)  # the seeks are answered and the tables fill
        games_at_start = sum(b.started for b in bots) // args.players
        moves0 = sum(b.moves for b in bots)
        tables.measuring = True
        start = time.monotonic()
        server_cpu0 = cpu_seconds(pids)
        client_cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        results = await running
        elapsed = time.monotonic() - start
        server_cpu = cpu_seconds(pids) - server_cpu0
        usage = resource.getrusage(resource.RUSAGE_SELF)
        client_cpu = usage.ru_utime + usage.ru_stime - client_cpu0.ru_utime - client_cpu0.ru_stime
        failures = [r for r in results if isinstance(r, BaseException)]
    finally:
        gc.enable()
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    moves = sum(b.moves for b in bots) - moves0
    rtts = sorted(tables.rtts)
    if not rtts or not moves:
        raise SystemExit(f"no move completed ({len(failures)} client failures: {failures[:1]})")

    def pct(q: float) -> float:
        return rtts[min(len(rtts) - 1, int(q * len(rtts)))] * 1000

    errors: dict[str, int] = {}
    for b in bots:
        for code, n in b.errors.items():
            errors[code] = errors.get(code, 0) + n
    return {
        "bots": args.bots,
        "players": args.players,
        "games_under_way_at_start": games_at_start,
        "seconds": round(elapsed, 1),
        "moves": moves,
        "moves_per_second": round(moves / elapsed, 1),
        "round_trips": len(rtts),
        "rtt_p50_ms": round(pct(0.50), 1),
        "rtt_p99_ms": round(pct(0.99), 1),
        "rtt_mean_ms": round(statistics.fmean(rtts) * 1000, 1),
        "games_finished": sum(b.games for b in bots) // args.players,
        "seats_not_ours": sum(b.strangers for b in bots) // args.players,  # the server's bots (want 0)
        "errors": errors,
        "client_failures": len(failures),
        "server_cpu_share": round(server_cpu / elapsed, 2),
        "server_cpu_ms_per_move": round(server_cpu / moves * 1000, 2),
        "client_cpu_share": round(client_cpu / elapsed, 2),
        "load_average_1min": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--players", type=int, default=4, help="players of the games sought")
    parser.add_argument("--seconds", type=float, default=60, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=10, help="seconds for the tables to fill, not measured")
    parser.add_argument("--think-min", type=float, default=0.5, help="shortest think time (s)")
    parser.add_argument("--think-max", type=float, default=3.0, help="longest think time (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", default="", help="use a server already running here")
    parser.add_argument("--pid", type=int, action="append", default=[], help="its process id, for its CPU figures")
    args = parser.parse_args()
    if not (1 <= args.bots <= 2000 and 2 <= args.players <= 10 and 1 <= args.seconds <= 600):
        parser.error("bots 1..2000, players 2..10, seconds 1..600")
    if args.url and not args.pid:
        parser.error("--url needs --pid (the server's process id, for its CPU figures)")
    print(json.dumps(asyncio.run(main_async(args)), indent=1))


if __name__ == "__main__":
    main()
