"""Load test for the web game: many tables, each with several WebSocket clients playing at once.

Starts the real server (``sixnimmt serve``, SQLite in a temporary folder unless ``--database-url``,
bots off) as its own process, or uses servers already running (``--url``, repeated: several workers
or hosts), opens TABLES tables of PLAYERS human seats, connects one WebSocket client per seat (and
SPECTATORS watching clients per table), and lets every player play: when it has a decision it waits a
think time, then sends its move. Loopback only, bounded in tables and seconds.

Each table is opened and played from its own loopback address (127.1.x.y), so the server's
per-address limits (connections, tables created, joins) hold as they would for real players. With
several URLs, table i is created through URL i mod n and its seat j connects through URL (i + j)
mod n, so the players of one table sit on different processes.

Reports actions per second, the round-trip time of each action (send -> the update that shows it
applied), the server's CPU per action (the process and its children, or the ``--pid`` processes),
the load generator's own CPU, and the server's memory per table (RSS growth / tables).

    .venv/bin/python benchmarks/load_web.py --tables 200 --players 4 --seconds 60
    .venv/bin/python benchmarks/load_web.py --tables 1000 --seconds 60 --url http://127.0.0.1:8000 --pid 1234
    .venv/bin/python benchmarks/load_web.py --tables 200 --seconds 60 --bot-tables 50   # 50 with a grandmaster

With ``--bot-tables N`` the first N tables seat a bot of level ``--bot`` (grandmaster) in their last
seat, which thinks as the server plays it (its time limit, the shared bot threads): the people's
round trips then show whether searching bots elsewhere hold up the event loop.
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
from websockets.asyncio.client import ClientConnection, connect

OWN_EVENTS = {"card-chosen", "card-placed", "row-taken", "draft-picked"}


def with_children(pids: list[int]) -> list[int]:
    """``pids`` and all their descendants (a ``serve --workers N`` parent and its workers)."""
    found: list[int] = []
    todo = list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            todo += [int(child) for child in task.read_text().split()]
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (a process that has ended counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in lines if line.startswith("VmRSS:")), 0)
    return total


def table_address(index: int) -> str:
    """The loopback address table ``index`` is played from (all of 127.0.0.0/8 is this machine)."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


class Player:
    """One WebSocket client answering its own decisions."""

    def __init__(self, url: str, address: str, think: tuple[float, float], rng: random.Random) -> None:
        self.url = url
        self.address = address
        self.think = think
        self.rng = rng
        self.rtts: list[float] = []
        self.errors = 0
        self.games = 0
        self.ws: ClientConnection | None = None

    async def open(self, gate: asyncio.Semaphore) -> None:
        async with gate:  # a few handshakes at a time: thousands at once time out
            self.ws = await connect(self.url, max_size=2**22, local_addr=(self.address, 0), open_timeout=300)

    async def run(self, stop_at: float) -> None:
        assert self.ws is not None
        async with self.ws as ws:
            sent_at: float | None = None
            acting_on: tuple[Any, ...] | None = None
            view: dict[str, Any] | None = None
            while time.monotonic() < stop_at:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop_at - time.monotonic()))
                except TimeoutError:
                    break
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    self.errors += 1
                    sent_at = None
                    continue
                if kind == "chosen" and view is not None:
                    # Who has chosen, and (to the chooser, wire version 3) its own part of the view:
                    # applied to the last whole view, as the browser applies it.
                    view = {**view, "chosen": message["chosen"], "waiting_for": message["waiting_for"],
                            **message.get("own", {})}
                elif kind not in ("state", "update") or message["view"] is None:
                    continue
                else:
                    view = message["view"]
                seat = view["seat"]
                if sent_at is not None and any(
                    e["type"] in OWN_EVENTS and e.get("seat") == seat for e in message.get("events", ())
                ):
                    self.rtts.append(time.monotonic() - sent_at)
                    sent_at = None
                if view["phase"] == "over":
                    self.games += 1
                    if seat == 0:
                        await ws.send(json.dumps({"type": "again"}))
                    continue
                decision = view["decision"]
                key = (view["deal"], view["turn"], view["phase"], json.dumps(decision))
                if decision is None or sent_at is not None or key == acting_on:
                    continue
                acting_on = key
                await asyncio.sleep(self.rng.uniform(*self.think))
                value = self.rng.choice(decision["options"])
                field = "row" if decision["kind"] == "row" else "card"
                name = {"card": "play", "row": "row", "draft": "draft"}[decision["kind"]]
                sent_at = time.monotonic()
                await ws.send(json.dumps({"type": name, field: value, "deal": view["deal"], "turn": view["turn"]}))


class Spectator:
    """One watching client: reads every message, answers nothing."""

    def __init__(self, url: str, address: str) -> None:
        self.url = url
        self.address = address
        self.messages = 0
        self.ws: ClientConnection | None = None

    async def open(self, gate: asyncio.Semaphore) -> None:
        async with gate:
            self.ws = await connect(self.url, max_size=2**22, local_addr=(self.address, 0), open_timeout=300)

    async def run(self, stop_at: float) -> None:
        assert self.ws is not None
        async with self.ws as ws:
            while time.monotonic() < stop_at:
                try:
                    await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop_at - time.monotonic()))
                except TimeoutError:
                    break
                self.messages += 1


async def open_table(bases: list[str], index: int, players: int, bot: str | None = None) -> tuple[str, list[str]]:
    """Create table ``index`` and fill its seats (the last one with a ``bot`` of that level, if
    given), from its own address; returns its code and the people's tokens."""
    people = players - (bot is not None)
    transport = httpx.AsyncHTTPTransport(local_address=table_address(index))
    async with httpx.AsyncClient(transport=transport, timeout=60) as client:
        base = bases[index % len(bases)]
        reply = await client.post(f"{base}/api/tables", json={
            "name": "P1", "seats": [{"kind": "open"}] * (people - 1) + ([{"kind": "bot", "bot": bot}] if bot else []),
        })
        made = reply.json()
        if "token" not in made:
            raise SystemExit(f"creating a table failed: {reply.status_code} {made}")
        tokens = [made["token"]]
        for n in range(2, people + 1):
            base = bases[(index + n - 1) % len(bases)]
            reply = await client.post(f"{base}/api/tables/{made['code']}/join", json={"name": f"P{n}"})
            joined = reply.json()
            if "token" not in joined:
                raise SystemExit(f"joining a table failed: {reply.status_code} {joined}")
            tokens.append(joined["token"])
    return made["code"], tokens


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    server = None
    if args.url:  # servers started by hand (several workers, say): CPU and memory figures need --pid
        bases = [url.rstrip("/") for url in args.url]
        pids = list(args.pid)
    else:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        folder = Path(tempfile.mkdtemp(prefix="sixnimmt-load-"))
        database = args.database_url or f"sqlite:///{folder / 'load.db'}"
        server = subprocess.Popen(  # once, before the measured part
            [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url",
             database, "--bot-delay", "0", "--log-level", "warning", "--absent-grace", "600"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        bases = [f"http://127.0.0.1:{port}"]
        pids = [server.pid]
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for base in bases:
                for _ in range(300):
                    try:
                        if (await client.get(f"{base}/healthz")).status_code == 200:
                            break
                    except httpx.HTTPError:
                        pass
                    await asyncio.sleep(0.1)
        pids = with_children(pids)
        baseline = rss_kib(pids)
        tables: list[tuple[str, list[str]]] = []
        for first in range(0, args.tables, 20):  # 20 tables opened at once
            tables += await asyncio.gather(*(open_table(bases, i, args.players, args.bot if i < args.bot_tables else None)
                                             for i in range(first, min(args.tables, first + 20))))
        rng = random.Random(args.seed)
        players: list[Player] = []
        spectators: list[Spectator] = []
        for index, (code, tokens) in enumerate(tables):
            address = table_address(index)
            for seat, token in enumerate(tokens):
                ws_base = bases[(index + seat) % len(bases)].replace("http", "ws", 1)
                players.append(Player(f"{ws_base}/ws/{code}?token={token}", address,
                                      (args.think_min, args.think_max), random.Random(rng.random())))
            for n in range(args.spectators):
                ws_base = bases[(index + n) % len(bases)].replace("http", "ws", 1)
                spectators.append(Spectator(f"{ws_base}/ws/{code}", address))
        gate = asyncio.Semaphore(50)
        await asyncio.gather(*(c.open(gate) for c in (*players, *spectators)))  # all connected, then measured
        # The generator is the measuring instrument: its own garbage collections (thousands of
        # clients' objects, scanned again and again) would stop every client at once and count as
        # the server's latency. Its objects are frozen and its collector is off while it measures.
        gc.collect()
        gc.freeze()
        gc.disable()
        start = time.monotonic()
        stop_at = start + args.seconds
        server_cpu0 = cpu_seconds(pids)
        client_cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        peak = 0

        async def sample_memory() -> None:
            nonlocal peak
            while time.monotonic() < stop_at:
                peak = max(peak, rss_kib(pids))
                await asyncio.sleep(1)

        results = await asyncio.gather(*(p.run(stop_at) for p in players),
                                       *(w.run(stop_at) for w in spectators), sample_memory(),
                                       return_exceptions=True)
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
    rtts = sorted(x for p in players for x in p.rtts)
    if not rtts:
        raise SystemExit(f"no action completed ({len(failures)} client failures: {failures[:1]})")

    def pct(q: float) -> float:
        return rtts[min(len(rtts) - 1, int(q * len(rtts)))] * 1000

    return {
        "tables": args.tables,
        "bot_tables": f"{args.bot_tables} with a {args.bot}" if args.bot_tables else 0,
        "servers": len(bases),
        "clients": len(players) + len(spectators),
        "spectators": len(spectators),
        "seconds": round(elapsed, 1),
        "actions": len(rtts),
        "actions_per_second": round(len(rtts) / elapsed, 1),
        "rtt_p50_ms": round(pct(0.50), 1),
        "rtt_p99_ms": round(pct(0.99), 1),
        "rtt_mean_ms": round(statistics.fmean(rtts) * 1000, 1),
        "errors": sum(p.errors for p in players),
        "client_failures": len(failures),
        "games_finished": sum(p.games for p in players) // args.players,
        "spectator_messages": sum(w.messages for w in spectators),
        "server_cpu_share": round(server_cpu / elapsed, 2),
        "server_cpu_ms_per_action": round(server_cpu / len(rtts) * 1000, 2),
        "client_cpu_share": round(client_cpu / elapsed, 2),
        "client_cpu_ms_per_action": round(client_cpu / len(rtts) * 1000, 2),
        "load_average_1min": os.getloadavg()[0],
        "server_rss_mib_peak": round(peak / 1024, 1),
        "memory_per_table_kib": round((peak - baseline) / args.tables, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=0, help="watching clients per table")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think-min", type=float, default=0.5, help="shortest think time (s)")
    parser.add_argument("--think-max", type=float, default=3.0, help="longest think time (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-tables", type=int, default=0, help="this many tables have a bot in their last seat")
    parser.add_argument("--bot", default="grandmaster", help="that bot's level (default: grandmaster)")
    parser.add_argument("--database-url", default="", help="the started server's database (default: SQLite)")
    parser.add_argument("--url", action="append", default=[],
                        help="use a server already running here (repeat for several workers or hosts)")
    parser.add_argument("--port", type=int, default=0, help="the same as --url http://127.0.0.1:PORT")
    parser.add_argument("--pid", type=int, action="append", default=[],
                        help="a process id of those servers, for CPU and memory figures (repeatable; "
                        "children count too)")
    args = parser.parse_args()
    if args.port:
        args.url.append(f"http://127.0.0.1:{args.port}")
    if not (1 <= args.tables <= 5000 and 2 <= args.players <= 10 and 1 <= args.seconds <= 600
            and 0 <= args.spectators <= 20):
        parser.error("tables 1..5000, players 2..10, spectators 0..20, seconds 1..600")
    if not 0 <= args.bot_tables <= args.tables or (args.bot_tables and args.players < 3):
        parser.error("bot tables 0..tables, with at least 3 players (people and the bot)")
    if args.url and not args.pid:
        parser.error("--url/--port need --pid (the server's process id, for its CPU figures)")
    print(json.dumps(asyncio.run(main_async(args)), indent=1))


if __name__ == "__main__":
    main()
