"""A move's round trip on one table while another client address scans table codes.

Starts the web app under uvicorn (SQLite in a temporary folder) on loopback, seats four people at
one table (four sockets from 127.0.0.1) and has them play: each move's round trip is the time from
sending a card to the mover's own ``chosen`` answer. First ``--seconds`` quiet, then as long again
while a scanner at 127.0.0.2 asks for random codes (``GET /api/tables/CODE``) with ``--scanners``
requests in flight at all times, as fast as the server answers (or ``--rate`` requests a second):
after its budget it is answered 429.
Prints the p50/p99 of the moves in each phase, their ratio, and what the scanner got.

    .venv/bin/python benchmarks/scan_web.py --seconds 30             # a scanner flooding
    .venv/bin/python benchmarks/scan_web.py --seconds 30 --rate 2    # a scanner at its budget
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

LAUNCH = """
import sys
import uvicorn
from sixnimmt.server.web.app import create_app
from sixnimmt.server.config import Settings
uvicorn.run(create_app(Settings(database_url=sys.argv[1], bot_delay=0.0, absent_grace=600.0)),
            host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def seat_four(base: str, ws_base: str) -> list[ClientConnection]:
    async with httpx.AsyncClient(base_url=base) as client:
        table = (await client.post("/api/tables", json={"name": "P0", "seats": [{"kind": "open"}] * 3})).json()
        tokens = [table["token"]]
        for n in range(1, 4):
            tokens.append((await client.post(f"/api/tables/{table['code']}/join", json={"name": f"P{n}"})).json()["token"])
    return [await connect(f"{ws_base}/ws/{table['code']}?token={token}", max_size=2**22) for token in tokens]


async def play(sockets: list[ClientConnection], stop_at: float, rng: random.Random) -> list[float]:
    """Every seat answers its decisions, one move at a time; returns each move's round trip."""
    views: dict[int, dict[str, Any]] = {}
    rtts: list[float] = []

    async def read(ws: ClientConnection, seat: int) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] in ("state", "update") and message.get("view"):
            views[seat] = message["view"]
        elif message["type"] == "chosen" and seat in views:
            views[seat] = {**views[seat], **message.get("own", {})}
        return message

    for seat, ws in enumerate(sockets):
        await read(ws, seat)
    while time.monotonic() < stop_at:
        for seat, ws in enumerate(sockets):
            while True:  # take in everything already sent
                try:
                    await asyncio.wait_for(read(ws, seat), 0.001)
                except TimeoutError:
                    break
        due = [s for s, v in views.items() if v.get("decision")]
        if not due:
            await asyncio.sleep(0.005)
            continue
        seat = rng.choice(due)
        decision = views[seat]["decision"]
        value = rng.choice(decision["options"])
        kind = {"card": ("play", "card"), "row": ("row", "row")}.get(decision["kind"], ("play", "card"))
        views[seat] = {**views[seat], "decision": None}
        sent = time.monotonic()
        await sockets[seat].send(json.dumps({"type": kind[0], kind[1]: value}))
        while True:
            message = await read(sockets[seat], seat)
            if message["type"] in ("chosen", "update", "state", "error"):
                rtts.append(time.monotonic() - sent)
                break
        if views[seat].get("phase") == "over":
            break
    return rtts


async def scan(base: str, stop_at: float, in_flight: int, rate: float | None) -> Counter[int]:
    answers: Counter[int] = Counter()
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with httpx.AsyncClient(base_url=base, transport=transport) as client:

        async def one() -> None:
            rng = random.Random()
            while time.monotonic() < stop_at:
                code = "".join(rng.choice(ALPHABET) for _ in range(5))
                answers[(await client.get(f"/api/tables/{code}")).status_code] += 1
                if rate:  # paced: ``rate`` requests a second over all the scanner's connections
                    await asyncio.sleep(in_flight / rate)

        await asyncio.gather(*(one() for _ in range(in_flight)))
    return answers


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    folder = Path(tempfile.mkdtemp())
    server = subprocess.Popen([sys.executable, "-c", LAUNCH, f"sqlite:///{folder / 'scan.db'}", str(port)])
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                await asyncio.sleep(0.05)
        rng = random.Random(args.seed)
        result: dict[str, Any] = {}
        for phase in ("quiet", "scanned"):
            sockets = await seat_four(base, ws_base)
            stop_at = time.monotonic() + args.seconds
            rtts: list[float] = []
            scanner = None
            if phase == "scanned":  # a process of its own: its client's CPU is not the players'
                command = [sys.executable, __file__, "--scan", base, "--seconds", str(args.seconds),
                           "--scanners", str(args.scanners)] + (["--rate", str(args.rate)] if args.rate else [])
                scanner = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
            while time.monotonic() < stop_at:  # one game after another
                rtts += await play(sockets, stop_at, rng)
                for ws in sockets:
                    await ws.close()
                if time.monotonic() < stop_at:
                    sockets = await seat_four(base, ws_base)
            result[phase] = {"moves": len(rtts), "p50_ms": round(statistics.median(rtts) * 1000, 2),
                             "p99_ms": round(pct(rtts, 0.99), 2)}
            if scanner is not None:
                out, _ = await scanner.communicate()
                result[phase]["scanner"] = json.loads(out)
        result["p99_ratio"] = round(result["scanned"]["p99_ms"] / result["quiet"]["p99_ms"], 2)
        return result
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--scanners", type=int, default=8, help="scanner requests in flight at once")
    parser.add_argument("--rate", type=float, default=None,
                        help="the scanner's requests a second (default: as fast as it is answered)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scan", metavar="URL", help=argparse.SUPPRESS)  # the scanner's own process
    args = parser.parse_args()
    if args.scan:
        stop_at = time.monotonic() + args.seconds
        print(json.dumps(dict(asyncio.run(scan(args.scan, stop_at, args.scanners, args.rate)))))
        return
    print(json.dumps(asyncio.run(main_async(args)), indent=2))


if __name__ == "__main__":
    main()
