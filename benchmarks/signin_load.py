"""Sign-ins under load: their latency with the argon2 parameters as shipped, and what a burst of them
does to the moves of people playing meanwhile.

Starts the real server (``sixnimmt serve``, SQLite in a temporary folder), signs up ACCOUNTS
accounts (each from its own loopback address 127.2.x.y, so the per-address limits hold as for real
people), then measures:

1. sign-in latency, quiet: QUIET sign-ins one after another (p50, p99);
2. a move's round trip at TABLES tables, quiet: ``benchmarks/load_web.py`` for SECONDS seconds;
3. the same while RATE sign-ins per second arrive for SECONDS seconds (each of another account and
   address), with those sign-ins' latency;

2 and 3 alternate PAIRS times, each run on a fresh server process (on a shared machine one pair
says little), with the median ratio of the two p99s.

    .venv/bin/python benchmarks/signin_load.py --tables 200 --rate 10 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

PASSWORD = "a benchmark pass phrase"
HERE = Path(__file__).resolve().parent


def address(index: int) -> str:
    return f"127.2.{index // 250}.{index % 250 + 1}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


def client_for(base: str, index: int) -> httpx.AsyncClient:
    """A client from its own loopback address (made before it is timed: making one costs CPU)."""
    transport = httpx.AsyncHTTPTransport(local_address=address(index))
    return httpx.AsyncClient(base_url=base, transport=transport, headers={"Origin": base}, timeout=120)


async def sign(base: str, index: int, path: str, client: httpx.AsyncClient | None = None) -> float:
    own = client is None
    client = client or client_for(base, index)
    try:
        start = time.perf_counter()
        response = await client.post(f"/api/account/{path}", json={"name": f"bench{index}", "password": PASSWORD})
        took = time.perf_counter() - start
    finally:
        if own:
            await client.aclose()
    if response.status_code == 503:  # the hash queue is full: refused at once
        return -1.0
    if response.status_code not in (200, 201):
        raise SystemExit(f"{path} {index}: {response.status_code} {response.text}")
    return took


async def burst(base: str, first: int, rate: float, seconds: float) -> list[float]:
    count = int(rate * seconds)
    clients = [client_for(base, first + i) for i in range(count)]
    tasks = []
    start = time.perf_counter()
    for i in range(count):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(sign(base, first + i, "signin", clients[i])))
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for client in clients:
            await client.aclose()


def load(base: str, pid: int, tables: int, seconds: float) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(HERE / "load_web.py"), "--url", base, "--pid", str(pid), "--tables", str(tables),
         "--seconds", str(seconds)], capture_output=True, text=True, check=True,
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def start_server(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("sixnimmt")), "serve", "--port", str(port), "--bot-delay", "0",
         "--log-level", "warning"], env={**os.environ, "SIXNIMMT_DATA_DIR": folder},
    )
    for _ in range(600):
        try:
            if httpx.get(f"{base}/healthz", timeout=0.5).status_code == 200:
                return server, base
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


def stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    server.wait(timeout=30)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    """Three runs of a fresh server process on one database: the accounts and the quiet sign-ins;
    the moves, quiet; the moves during the burst (so neither load run finds the other's tables)."""
    folder = tempfile.mkdtemp(prefix="sixnimmt-signin-")
    server, base = start_server(folder)
    try:
        accounts = args.quiet + args.pairs * int(args.rate * (args.seconds + 5))
        for start in range(0, accounts, 8):  # sign up, a few at a time
            await asyncio.gather(*(sign(base, i, "signup") for i in range(start, min(accounts, start + 8))))
        quiet = [await sign(base, i, "signin") for i in range(args.quiet)]
    finally:
        stop(server)
    pairs = []
    for pair in range(args.pairs):  # quiet, then the burst, each on a fresh process
        server, base = start_server(folder)
        try:
            moves_quiet = await asyncio.to_thread(load, base, server.pid, args.tables, args.seconds)
        finally:
            stop(server)
        server, base = start_server(folder)
        try:
            # the load's clients connect first (a few seconds), then play while the sign-ins go on
            first = args.quiet + pair * int(args.rate * (args.seconds + 5))
            during = asyncio.create_task(burst(base, first, args.rate, args.seconds + 5))
            moves_burst = await asyncio.to_thread(load, base, server.pid, args.tables, args.seconds)
            burst_latency = await during
        finally:
            stop(server)
        keys = ("actions", "rtt_p50_ms", "rtt_p99_ms", "server_cpu_share", "load_average_1min")
        pairs.append({
            "signin_during_burst": {"count": len(burst_latency),
                                    "refused_busy": sum(1 for x in burst_latency if x < 0),
                                    "p50_ms": pct([x for x in burst_latency if x >= 0] or [0.0], 0.5),
                                    "p99_ms": pct([x for x in burst_latency if x >= 0] or [0.0], 0.99)},
            "moves_quiet": {k: moves_quiet[k] for k in keys},
            "moves_during_burst": {k: moves_burst[k] for k in keys},
            "p99_ratio": round(moves_burst["rtt_p99_ms"] / moves_quiet["rtt_p99_ms"], 2),
        })
        print(json.dumps(pairs[-1]), file=sys.stderr, flush=True)
    ratios = sorted(p["p99_ratio"] for p in pairs)
    return {
        "cpus": os.cpu_count(),
        "signin_quiet": {"count": len(quiet), "p50_ms": pct(quiet, 0.5), "p99_ms": pct(quiet, 0.99)},
        "pairs": pairs,
        "p99_ratio_median": ratios[len(ratios) // 2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0, help="sign-ins per second in the burst")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each load run and of the burst")
    parser.add_argument("--quiet", type=int, default=100, help="sign-ins measured one at a time, quiet")
    parser.add_argument("--pairs", type=int, default=3, help="quiet and burst runs, alternating")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args)), indent=1))


if __name__ == "__main__":
    main()
