"""Abuse test for the web game: repeats, against a real local server, the attacks the limits in
``Settings`` exist for, and prints what got through.

Starts ``sixnimmt serve`` (SQLite in a temporary folder) as its own process on loopback, then:

1. **Presence fan-out**: one seated socket listens while SPECTATORS spectator sockets connect to its
   table (from several loopback addresses, 127.0.0.2, 127.0.0.3, ..., so the per-address cap is not
   what stops them); reports the messages the listener got per connect, and how many were refused.
2. **One seat, many sockets**: 40 sockets with the same seat token, then a burst of pings from each
   accepted one: sockets accepted, pongs answered (the rate limit is per seat, over all its sockets).
3. **Large bodies**: concurrent POST /api/tables bodies of BODY_MB each (declared by Content-Length,
   and streamed without one), and one 5 MB body: status and seconds to the answer.
4. **Table spam**: CREATE POSTs of a table with three ``expert`` bots from one address: created vs
   refused (429), and whether the lobby lists any of them (they are private).
5. **Hostile frames**: a binary frame, 1,000 nested arrays, and GET /api/games/99999999999999999999999.

Finally the server's peak memory (VmHWM) and the tracebacks in its log (must be 0). Loopback only;
every loop is bounded.

    .venv/bin/python benchmarks/abuse_web.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


async def drain(ws: ClientConnection, seconds: float) -> list[dict[str, Any]]:
    """Every message that arrives within ``seconds``."""
    got: list[dict[str, Any]] = []
    stop = time.monotonic() + seconds
    while (left := stop - time.monotonic()) > 0:
        try:
            got.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
        except (TimeoutError, ConnectionClosed):
            break
    return got


async def open_socket(url: str, address: str = "127.0.0.1") -> tuple[ClientConnection | None, str]:
    """A socket that got its first state, or None and why it was refused."""
    ws = await connect(url, local_addr=(address, 0), max_size=2**22)
    first = json.loads(await asyncio.wait_for(ws.recv(), 10))
    if first.get("type") == "error":
        await ws.close()
        return None, str(first.get("code"))
    return ws, "ok"


async def presence(base: str, ws_base: str, client: httpx.AsyncClient, spectators: int) -> dict[str, Any]:
    table = (await client.post(f"{base}/api/tables", json={"name": "Host", "seats": [{"kind": "open"}]})).json()
    listener, _ = await open_socket(f"{ws_base}/ws/{table['code']}?token={table['token']}")
    assert listener is not None
    opened: list[ClientConnection] = []
    refused: dict[str, int] = {}
    for index in range(spectators):
        address = f"127.0.0.{2 + index // 30}"  # 30 per address: under the per-address cap
        ws, why = await open_socket(f"{ws_base}/ws/{table['code']}", address)
        if ws is None:
            refused[why] = refused.get(why, 0) + 1
        else:
            opened.append(ws)
    heard = await drain(listener, 1.0)
    # one seat connecting: every socket at the table hears one small delta
    join = (await client.post(f"{base}/api/tables/{table['code']}/join", json={"name": "Friend"})).json()
    friend, _ = await open_socket(f"{ws_base}/ws/{table['code']}?token={join['token']}")
    after_seat = await drain(listener, 1.0)
    per_spectator = [len(await drain(ws, 0.05)) for ws in opened[:20]]
    for ws in (*opened, listener, friend):
        if ws is not None:
            await ws.close()
    return {
        "spectators_tried": spectators,
        "spectators_connected": len(opened),
        "spectators_refused": refused,
        "messages_to_listener_per_spectator_connect": round(len(heard) / max(1, len(opened)), 3),
        "messages_to_listener_for_one_seat_connect": len(after_seat),
        "listener_bytes_for_one_seat_connect": sum(len(json.dumps(m)) for m in after_seat),
        "messages_per_spectator_socket_for_join_and_seat_connect": max(per_spectator, default=0),
    }


async def one_seat_many_sockets(base: str, ws_base: str, client: httpx.AsyncClient) -> dict[str, Any]:
    table = (await client.post(f"{base}/api/tables", json={"name": "Host", "seats": [{"kind": "bot"}]})).json()
    url = f"{ws_base}/ws/{table['code']}?token={table['token']}"
    sockets: list[ClientConnection] = []
    refused = 0
    for _ in range(40):
        ws, _why = await open_socket(url)
        if ws is None:
            refused += 1
        else:
            sockets.append(ws)
    for ws in sockets:
        await drain(ws, 0.2)  # the bot's moves and the others' presence
    start = time.monotonic()
    for ws in sockets:
        for _ in range(100):
            await ws.send(json.dumps({"type": "ping"}))
    replies = [m for ws in sockets for m in await drain(ws, 1.5)]
    elapsed = time.monotonic() - start
    for ws in sockets:
        await ws.close()
    return {
        "sockets_accepted": len(sockets),
        "sockets_refused": refused,
        "pings_sent": 100 * len(sockets),
        "pongs": sum(1 for m in replies if m.get("type") == "pong"),
        "rate_limited_replies": sum(1 for m in replies if m.get("code") == "rate-limited"),
        "seconds": round(elapsed, 2),
    }


async def large_bodies(base: str, client: httpx.AsyncClient, body_mb: int, count: int) -> dict[str, Any]:
    size = body_mb * 1024 * 1024

    async def declared(size: int = size) -> tuple[int, float]:
        """A body announced by Content-Length, sent until the server answers (it must not wait for
        the rest). A raw socket, since an HTTP client gives up when the server answers early."""
        start = time.monotonic()
        host, port = base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"POST /api/tables HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {size}\r\n\r\n".encode())
        answer = asyncio.ensure_future(reader.readline())
        sent, chunk = 0, b"x" * 65536
        while sent < size and not answer.done():  # keep sending until the server answers
            writer.write(chunk)
            sent += len(chunk)
            try:
                await asyncio.wait_for(writer.drain(), 5)
            except (TimeoutError, ConnectionError):
                break
        try:
            line = await asyncio.wait_for(answer, 5)
            status = int(line.split()[1]) if line else 0
        except (TimeoutError, ConnectionError, IndexError, ValueError):
            status = 0
        writer.close()
        return status, time.monotonic() - start

    async def streamed() -> tuple[int, float]:
        start = time.monotonic()

        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(size // 65536):
                yield b"x" * 65536

        try:
            response = await client.post(f"{base}/api/tables", content=chunks(),
                                         headers={"content-type": "application/json"})
            return response.status_code, time.monotonic() - start
        except httpx.HTTPError:
            return 0, time.monotonic() - start

    results = await asyncio.gather(*(declared() for _ in range(count)), *(streamed() for _ in range(count)))
    five_status, five_seconds = await declared(5 * 1024 * 1024)
    return {
        "bodies": f"{count} declared + {count} streamed x {body_mb} MB",
        "statuses": sorted({status for status, _ in results}),
        "slowest_answer_s": round(max(seconds for _, seconds in results), 2),
        "five_mb_status": five_status,
        "five_mb_seconds": round(five_seconds, 3),
    }


async def table_spam(base: str, client: httpx.AsyncClient, tries: int) -> dict[str, Any]:
    body = {"name": "Spam", "seats": [{"kind": "bot", "bot": "expert"}] * 3}
    statuses = []
    for _ in range(tries):
        response = await client.post(f"{base}/api/tables", json=body)
        statuses.append(response.status_code)
    first_refusal = next((i for i, s in enumerate(statuses) if s == 429), None)
    lobby = (await client.get(f"{base}/api/tables")).json()
    return {
        "tried": tries,
        "created": statuses.count(201),
        "refused_429": statuses.count(429),
        "first_refused_at": first_refusal,
        "lobby_entries": len(lobby),
    }


async def hostile_frames(base: str, ws_base: str, client: httpx.AsyncClient) -> dict[str, Any]:
    table = (await client.post(f"{base}/api/tables", json={"name": "Host", "seats": [{"kind": "bot"}]})).json()
    result: dict[str, Any] = {}
    ws, _ = await open_socket(f"{ws_base}/ws/{table['code']}?token={table['token']}")
    assert ws is not None
    await drain(ws, 0.2)
    await ws.send(b"\x00\xffbinary")
    result["binary_frame"] = [m.get("code") for m in await drain(ws, 0.5) if m.get("type") == "error"]
    await ws.send("[" * 1000 + "]" * 1000)
    result["nested_1000"] = [m.get("code") for m in await drain(ws, 0.5) if m.get("type") == "error"]
    await ws.send(json.dumps({"type": "ping"}))
    result["still_open"] = any(m.get("type") == "pong" for m in await drain(ws, 0.5))
    await ws.close()
    result["huge_game_id_status"] = (await client.get(f"{base}/api/games/99999999999999999999999")).status_code
    return result


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = Path(tempfile.mkdtemp(prefix="sixnimmt-abuse-"))
    log_path = folder / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "sixnimmt.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--database-url", f"sqlite:///{folder / 'abuse.db'}", "--bot-delay", "0", "--log-level", "info"],
        stdout=log_path.open("wb"), stderr=subprocess.STDOUT,
    )
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    report: dict[str, Any] = {}
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(300):
                try:
                    if (await client.get(f"{base}/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            report["rss_mib_at_start"] = round(memory_kib(server.pid, "VmRSS") / 1024, 1)
            report["presence"] = await presence(base, ws_base, client, args.spectators)
            report["one_seat_many_sockets"] = await one_seat_many_sockets(base, ws_base, client)
            report["large_bodies"] = await large_bodies(base, client, args.body_mb, args.bodies)
            report["hostile_frames"] = await hostile_frames(base, ws_base, client)
            report["table_spam"] = await table_spam(base, client, args.create)
        report["peak_rss_mib"] = round(memory_kib(server.pid, "VmHWM") / 1024, 1)
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log_path.read_text(errors="replace")
    report["tracebacks_in_server_log"] = text.count("Traceback")
    report["server_log_lines"] = len(text.splitlines())
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=400, help="spectator sockets to open on one table")
    parser.add_argument("--bodies", type=int, default=3, help="concurrent large bodies of each kind")
    parser.add_argument("--body-mb", type=int, default=100, help="size of each large body, MB")
    parser.add_argument("--create", type=int, default=1000, help="tables to try to create from one address")
    args = parser.parse_args()
    for value in (args.spectators, args.bodies, args.body_mb, args.create):
        if not 0 < value <= 5000:
            parser.error("each count must be between 1 and 5000")
    report = asyncio.run(main_async(args))
    print(json.dumps(report, indent=2))
    if report["tracebacks_in_server_log"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
