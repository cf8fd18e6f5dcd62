"""Load test for the web game: many tables, each with several WebSocket clients playing at once.

Starts the real server (``sixnimmt serve``, SQLite in a temporary folder, bots off) as its own
process, opens TABLES tables of PLAYERS human seats, connects one WebSocket client per seat, and lets
every client play: when it has a decision it waits a think time, then sends its move. Loopback only,
bounded in tables and seconds.

Reports actions per second, the round-trip time of each action (send -> the update that shows it
applied), and the server's memory per table (RSS growth / tables).

    .venv/bin/python benchmarks/load_web.py --tables 200 --players 4 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
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
from websockets.asyncio.client import connect

OWN_EVENTS = {"card-chosen", "card-placed", "row-taken", "draft-picked"}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Player:
    """One WebSocket client answering its own decisions."""

    def __init__(self, url: str, think: tuple[float, float], rng: random.Random) -> None:
        self.url = url
        self.think = think
        self.rng = rng
        self.rtts: list[float] = []
        self.errors = 0
        self.games = 0

    async def run(self, stop_at: float) -> None:
        async with connect(self.url, max_size=2**22) as ws:
            sent_at: float | None = None
            acting_on: tuple[Any, ...] | None = None
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
                if kind not in ("state", "update") or message["view"] is None:
                    continue
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


async def open_table(client: httpx.AsyncClient, base: str, players: int) -> list[str]:
    made = (await client.post(f"{base}/api/tables", json={
        "name": "P1", "seats": [{"kind": "open"}] * (players - 1),
    })).json()
    tokens = [made["token"]]
    for n in range(2, players + 1):
        joined = (await client.post(f"{base}/api/tables/{made['code']}/join", json={"name": f"P{n}"})).json()
        tokens.append(joined["token"])
    return [f"{made['code']}?token={t}" for t in tokens]


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    if args.port:  # a server started by hand (to profile it, say): CPU and memory figures need --pid
        port = args.port
        server = None
    else:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        folder = Path(tempfile.mkdtemp(prefix="sixnimmt-load-"))
        server = subprocess.Popen(  # noqa: ASYNC220 - once, before the measured part
            [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url",
             f"sqlite:///{folder / 'load.db'}", "--bot-delay", "0", "--log-level", "warning",
             "--absent-grace", "600"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    pid = server.pid if server is not None else args.pid
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(300):
                try:
                    if (await client.get(f"{base}/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            baseline = rss_kib(pid)
            seats: list[str] = []
            for _ in range(args.tables):
                seats += await open_table(client, base, args.players)
        rng = random.Random(args.seed)
        players = [Player(f"ws://127.0.0.1:{port}/ws/{s}", (args.think_min, args.think_max),
                          random.Random(rng.random())) for s in seats]
        start = time.monotonic()
        stop_at = start + args.seconds
        server_cpu0 = cpu_seconds(pid)
        client_cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        peak = 0

        async def sample_memory() -> None:
            nonlocal peak
            while time.monotonic() < stop_at:
                peak = max(peak, rss_kib(pid))
                await asyncio.sleep(1)

        results = await asyncio.gather(*(p.run(stop_at) for p in players), sample_memory(),
                                       return_exceptions=True)
        elapsed = time.monotonic() - start
        server_cpu = cpu_seconds(pid) - server_cpu0
        usage = resource.getrusage(resource.RUSAGE_SELF)
        client_cpu = usage.ru_utime + usage.ru_stime - client_cpu0.ru_utime - client_cpu0.ru_stime
        failures = [r for r in results if isinstance(r, BaseException)]
    finally:
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
        "clients": len(players),
        "seconds": round(elapsed, 1),
        "actions": len(rtts),
        "actions_per_second": round(len(rtts) / elapsed, 1),
        "rtt_p50_ms": round(pct(0.50), 1),
        "rtt_p99_ms": round(pct(0.99), 1),
        "rtt_mean_ms": round(statistics.fmean(rtts) * 1000, 1),
        "errors": sum(p.errors for p in players),
        "client_failures": len(failures),
        "games_finished": sum(p.games for p in players) // args.players,
        "server_cpu_share": round(server_cpu / elapsed, 2),
        "server_cpu_ms_per_action": round(server_cpu / len(rtts) * 1000, 2),
        "client_cpu_share": round(client_cpu / elapsed, 2),
        "load_average_1min": os.getloadavg()[0],
        "server_rss_mib_peak": round(peak / 1024, 1),
        "memory_per_table_kib": round((peak - baseline) / args.tables, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think-min", type=float, default=0.5, help="shortest think time (s)")
    parser.add_argument("--think-max", type=float, default=3.0, help="longest think time (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=0, help="use a server already running on this port")
    parser.add_argument("--pid", type=int, default=0, help="its process id (for CPU and memory figures)")
    args = parser.parse_args()
    if not (1 <= args.tables <= 1000 and 2 <= args.players <= 10 and 1 <= args.seconds <= 600):
        parser.error("tables 1..1000, players 2..10, seconds 1..600")
    print(json.dumps(asyncio.run(main_async(args)), indent=1))


if __name__ == "__main__":
    main()
