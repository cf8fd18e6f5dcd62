"""Plain HTTP requests against servers already running: the server's CPU per request, for comparing
HTTP protocols (``sixnimmt serve`` runs uvicorn's h11 protocol with read timeouts; uvicorn's default
is httptools). ``load_web.py`` cannot show that difference: the actions it measures are WebSocket
messages, which the HTTP protocol no longer carries once a socket is open.

For each ``--url``/``--pid`` pair, ``--connections`` keep-alive connections send GET ``--path`` one
after another for ``--seconds``; the servers are loaded at the same moment, so a shared machine's
load falls on both alike. Prints, per server, the requests, their rate and the server's CPU per
request, and each server's CPU per request as a ratio to the first's.

    .venv/bin/python benchmarks/http_requests.py --url http://127.0.0.1:8811 --pid A \\
        --url http://127.0.0.1:8812 --pid B --path /healthz --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

import httpx


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, path: str, connections: int, stop_at: float) -> int:
    """Requests answered 200 from ``connections`` keep-alive connections until ``stop_at``."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:

        async def one_connection() -> int:
            done = 0
            while time.monotonic() < stop_at:
                response = await client.get(path)
                if response.status_code != 200:
                    raise SystemExit(f"{url}{path} answered {response.status_code}")
                done += 1
            return done

        return sum(await asyncio.gather(*(one_connection() for _ in range(connections))))


async def main_async(args: argparse.Namespace) -> list[dict[str, float]]:
    before = [cpu_seconds(pid) for pid in args.pid]
    start = time.monotonic()
    counts = await asyncio.gather(*(load(url, args.path, args.connections, start + args.seconds) for url in args.url))
    elapsed = time.monotonic() - start
    used = [cpu_seconds(pid) - cpu0 for pid, cpu0 in zip(args.pid, before)]
    per_request = [cpu / count * 1000 for cpu, count in zip(used, counts)]
    return [{"url": url, "requests": count, "per_second": round(count / elapsed, 1),
             "server_cpu_ms_per_request": round(ms, 3), "ratio_to_first": round(ms / per_request[0], 3)}
            for url, count, ms in zip(args.url, counts, per_request)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", action="append", required=True, help="a server already running (repeat)")
    parser.add_argument("--pid", type=int, action="append", required=True, help="its process id, in the same order")
    parser.add_argument("--path", default="/healthz")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    if len(args.url) != len(args.pid):
        parser.error("one --pid per --url")
    if not (1 <= args.connections <= 200 and 1 <= args.seconds <= 600):
        parser.error("connections 1..200, seconds 1..600")
    print(json.dumps(asyncio.run(main_async(args)), indent=1))


if __name__ == "__main__":
    main()
