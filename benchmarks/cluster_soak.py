"""A short soak of two ``sixnimmt serve`` processes through faults: the figures behind
docs/scaling.md, "Faults soak".

A PostgreSQL server of its own is started from the installed binaries (its own data directory and
port; as root it runs as ``postgres``), and two ``serve`` processes on it. ``--tables`` tables of
four are played over and over (a new game when one ends): two people, whose sockets are on
different processes (the host on the process that created the table, the friend on the other), and
two ``random`` bots. Meanwhile the database is restarted (``pg_ctl restart -m fast``) twice, one
process is paused (SIGSTOP) past its lease once, then resumed (SIGCONT), and the other's database
connections hang as long (their backends stopped with SIGSTOP, as a network partition leaves them:
the process must fence itself, docs/scaling.md), then go on.

Each player is a page: it reconnects when its socket is closed, answers after a short random think,
answers each view it is sent once, and after a refusal or a reconnect answers a turn with a
*different* card than before, so that a card revealed from a change that was never saved shows up. Counted at the end against the finished
games' records (``/api/games/ID/events``):

- **lost moves**: a card the server confirmed as chosen (a ``chosen`` message with the player's
  own part) that is not the card the record has that seat play in that turn;
- **leaked cards**: a reveal a player saw (``cards-revealed``) whose cards differ from the record's
  reveal of that turn, and any view of another seat (its ``seat`` not the player's);
- **round trips**: from sending a card to its confirmation (or the turn's reveal), in and outside
  the fault windows (from each fault to 15 s after the database, or the paused process, is back).

    nice -n 19 .venv/bin/python benchmarks/cluster_soak.py --tables 100 --seconds 300
    nice -n 19 .venv/bin/python benchmarks/cluster_soak.py --tables 100 --seconds 300 --no-faults
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.server.postgres_server import PostgresServer
from tests.server.test_restart import free_port

#: Seconds after a fault ends that still count as its window.
AFTER_FAULT = 15.0


@dataclass
class Totals:
    acks: int = 0
    lost: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    reveals_seen: int = 0
    round_trips: list[tuple[float, float]] = field(default_factory=list)  # (when sent, seconds)
    reconnects: int = 0
    refusals: dict[str, int] = field(default_factory=dict)


class Player:
    def __init__(self, address: str, code: str, token: str, seat: int, totals: Totals, rng: random.Random,
                 source: str) -> None:
        self.url = f"ws://{address}/ws/{code}?token={token}"
        self.source = source
        self.code, self.seat, self.totals, self.rng = code, seat, totals, rng
        self.view: dict[str, Any] = {}
        self.game_number = 0
        self.acks: dict[tuple[int, int, int], int] = {}  # (game, deal, turn) -> card confirmed
        self.tried: dict[tuple[int, int, int], set[int]] = {}  # cards sent per turn
        self.seen: dict[tuple[int, int, int], list[int]] = {}  # reveals seen
        self.sent_at: float | None = None
        self.sent_key: tuple[int, int, int] | None = None
        self.answered: dict[str, Any] | None = None  # the view last answered (each is answered once)
        self.ws: ClientConnection | None = None
        self.stop = False

    async def connect(self) -> None:
        while not self.stop:
            try:
                ws = await connect(self.url, open_timeout=10, max_queue=None, local_addr=(self.source, 0))
            except (OSError, InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.5)
                continue
            try:
                first = json.loads(await asyncio.wait_for(ws.recv(), 30))
            except (ConnectionClosed, TimeoutError):
                await ws.close()
                await asyncio.sleep(0.5)
                continue
            if first["type"] == "state":
                self.ws = ws
                self.on_message(first)
                return
            await ws.close()
            await asyncio.sleep(0.5)

    def key(self) -> tuple[int, int, int]:
        return (self.game_number, self.view.get("deal", 0), self.view.get("turn", 0))

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "error":
            code = message.get("code", "?")
            self.totals.refusals[code] = self.totals.refusals.get(code, 0) + 1
            return
        table = message.get("table")
        if isinstance(table, dict) and "game_number" in table:
            self.game_number = table["game_number"]
        for event in message.get("events", []):
            if event.get("type") == "cards-revealed":
                key = (self.game_number, event["deal"], event["turn"])
                self.seen[key] = list(event["plays"])
                self.totals.reveals_seen += 1
                if self.sent_key == key and self.sent_at is not None:
                    self.totals.round_trips.append((self.sent_at, time.monotonic() - self.sent_at))
                    self.sent_at = None
        if kind == "chosen" and "own" in message:
            own = message["own"]
            self.view = {**self.view, **own}
            if self.sent_key is not None and own.get("my_choice") is not None and self.sent_key == self.key():
                self.acks[self.sent_key] = own["my_choice"]
                self.totals.acks += 1
                if self.sent_at is not None:
                    self.totals.round_trips.append((self.sent_at, time.monotonic() - self.sent_at))
                    self.sent_at = None
        elif kind in ("state", "update") and message.get("view") is not None:
            view = message["view"]
            if view["seat"] != self.seat:
                self.totals.leaks.append(f"{self.code} seat {self.seat} got seat {view['seat']}'s view")
            self.view = view

    async def think_and_answer(self) -> None:
        assert self.ws is not None
        view = self.view
        decision = view.get("decision")
        if view.get("phase") == "over":
            if self.seat == 0 and not self.stop and self.answered is not view:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5))
                if self.view is view:
                    self.answered = view
                    await self.ws.send(json.dumps({"type": "again"}))
            return
        if decision is None or self.answered is view:
            return
        await asyncio.sleep(self.rng.uniform(0.3, 1.2))
        if self.view is not view:
            return  # something came meanwhile: answer the newer view
        self.answered = view
        options = list(decision["options"])
        if decision["kind"] == "card":
            key = self.key()
            tried = self.tried.setdefault(key, set())
            fresh = [card for card in options if card not in tried] or options
            card = self.rng.choice(fresh)  # a different card than any sent before for this turn
            tried.add(card)
            self.sent_key, self.sent_at = key, time.monotonic()
            await self.ws.send(json.dumps({"type": "play", "card": card, "deal": view["deal"], "turn": view["turn"]}))
        else:
            await self.ws.send(json.dumps({"type": "row", "row": options[0], "deal": view["deal"], "turn": view["turn"]}))

    async def run(self) -> None:
        await self.connect()
        while not self.stop:
            assert self.ws is not None
            answering = asyncio.create_task(self.think_and_answer())
            try:
                message = json.loads(await self.ws.recv())
            except ConnectionClosed:
                answering.cancel()
                self.totals.reconnects += 1
                self.sent_at = None
                await self.connect()
                continue
            answering.cancel()
            self.on_message(message)
        if self.ws is not None:
            await self.ws.close()


def table_address(index: int) -> str:
    """The loopback address table ``index`` is played from, so that the per-address limits hold as
    for real players (as benchmarks/load_web.py does)."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


async def start_table(index: int, address: str, other: str, totals: Totals, rng: random.Random) -> list[Player]:
    transport = httpx.AsyncHTTPTransport(local_address=table_address(index))
    async with httpx.AsyncClient(timeout=30, transport=transport) as client:
        created = (await client.post(f"http://{address}/api/tables", json={
            "name": "Host", "seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"},
                                      {"kind": "bot", "bot": "random"}], "target": None, "deals": 1,
            "public": True,  # the check reads the finished games from the public list
        })).json()
        code = created["code"]
        key = secrets.token_urlsafe(18)  # a join that timed out is tried again with the same key
        for _ in range(10):
            response = await client.post(f"http://{other}/api/tables/{code}/join", json={"name": "Friend", "key": key})
            if response.status_code != 503:
                break
        joined = response.json()
        if "token" not in joined:
            raise RuntimeError(f"the join failed: {response.status_code} {joined}")
    return [Player(address, code, created["token"], 0, totals, rng, table_address(index)),
            Player(other, code, joined["token"], 1, totals, rng, table_address(index))]


def start_server(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url", url,
               "--bot-delay", "0.3", "--log-level", "warning"]
    return subprocess.Popen(command, stdout=log.open("ab"), stderr=subprocess.STDOUT)


async def wait_ready(address: str, tries: int = 600) -> float:
    started = time.monotonic()
    async with httpx.AsyncClient(timeout=2) as client:
        for _ in range(tries):
            try:
                if (await client.get(f"http://{address}/readyz")).status_code == 200 and (
                        await client.get(f"http://{address}/api/tables")).status_code == 200:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"{address} never came back")


async def soak(args: argparse.Namespace) -> None:
    database = PostgresServer.make(free_port())
    if database is None:
        raise SystemExit("no PostgreSQL binaries here")
    database.start()
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    ports = [free_port(), free_port()]
    # (each process names its connections, so that the hang below stops only the second one's)
    servers = [start_server(f"{database.url}?application_name=soak-{n}", port, logs / f"server-{n}.log")
               for n, port in enumerate(ports)]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    totals = Totals()
    rng = random.Random(args.seed)
    faults: list[tuple[str, float, float, float]] = []  # (what, start, end, back: ready again)
    try:
        for address in addresses:
            await wait_ready(address)
        players: list[Player] = []
        for n in range(args.tables):
            a, b = addresses[n % 2], addresses[1 - n % 2]
            players += await start_table(n, a, b, totals, rng)
        tasks = [asyncio.create_task(player.run()) for player in players]
        began = time.monotonic()
        plan = [(0.2, "restart"), (0.4, "pause"), (0.6, "hang"), (0.8, "restart")]
        for share, what in plan:
            await asyncio.sleep(max(0.0, began + share * args.seconds - time.monotonic()))
            print(f"tables driven by each process before the {what}: {await owners(database.url)}", flush=True)
            start = time.monotonic()
            if not args.faults:  # the control run: the same windows, nothing done in them
                faults.append((what, start - began, start - began, start - began))
                continue
            if what == "restart":
                await asyncio.to_thread(database.restart)
                end = time.monotonic()
                back = max(await asyncio.gather(*(wait_ready(address) for address in addresses))) + end
            elif what == "hang":  # the second process's database stops answering (its backends stopped)
                stopped = await asyncio.to_thread(backends, database.url, "soak-1")
                for pid in stopped:
                    os.kill(pid, signal.SIGSTOP)
                await asyncio.sleep(args.pause)
                for pid in stopped:
                    os.kill(pid, signal.SIGCONT)
                end = time.monotonic()
                back = await wait_ready(addresses[1]) + end
            else:
                servers[0].send_signal(signal.SIGSTOP)
                await asyncio.sleep(args.pause)
                servers[0].send_signal(signal.SIGCONT)
                end = time.monotonic()
                back = await wait_ready(addresses[0]) + end
            faults.append((what, start - began, end - began, back - began))
            print(f"{what}: {start - began:.1f} s to {end - began:.1f} s, both ready again at {back - began:.1f} s",
                  flush=True)
            await asyncio.sleep(AFTER_FAULT)
            print(f"  tables driven by each process {AFTER_FAULT:.0f} s later: {await owners(database.url)}", flush=True)
        await asyncio.sleep(max(0.0, began + args.seconds - time.monotonic()))
        for player in players:
            player.stop = True
        await asyncio.sleep(2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await check(addresses[0], players, totals)
        report(totals, faults, began, args)
    finally:
        for server in servers:
            server.send_signal(signal.SIGCONT)
            server.send_signal(signal.SIGTERM)
        for server in servers:
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        database.destroy()


def backends(url: str, application: str) -> list[int]:
    """The server processes (PostgreSQL's backends) of the connections named ``application``."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return [pid for (pid,) in connection.execute(
                sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"), {"name": application})]
    finally:
        engine.dispose()


async def owners(url: str) -> list[int]:
    """How many tables each live process drives (the most first)."""

    def count() -> list[int]:
        engine = sa.create_engine(url)
        try:
            with engine.connect() as connection:
                rows = connection.execute(sa.text(
                    "SELECT count(*) FROM tables t JOIN server_processes p ON p.id = t.owner "
                    "AND p.lease_until > now() GROUP BY t.owner ORDER BY 1 DESC")).all()
            return [int(row[0]) for row in rows]
        finally:
            engine.dispose()

    return await asyncio.to_thread(count)


async def check(address: str, players: list[Player], totals: Totals) -> None:
    """Every confirmed card and every reveal seen, against the finished games' records (a game not
    finished when the soak stopped is read from its table's turn log and record as stored)."""
    revealed: dict[tuple[str, int, int, int], list[int]] = {}
    async with httpx.AsyncClient(timeout=60) as client:
        offset = 0
        games: list[dict[str, Any]] = []
        while True:
            page = (await client.get(f"http://{address}/api/games", params={"limit": 200, "offset": offset})).json()
            games += page
            if len(page) < 200:
                break
            offset += 200
        for game in games:
            events = (await client.get(f"http://{address}/api/games/{game['id']}/events")).json()["events"]
            for event in events:
                if event["type"] == "cards-revealed":
                    revealed[(game["table"], game["number"], event["deal"], event["turn"])] = list(event["plays"])
    for player in players:
        for (number, deal, turn), card in player.acks.items():
            plays = revealed.get((player.code, number, deal, turn))
            if plays is None:
                continue  # the game was not finished when the soak stopped
            if plays[player.seat] != card:
                totals.lost.append(f"{player.code} game {number} deal {deal} turn {turn} seat {player.seat}: "
                                   f"{card} confirmed, {plays[player.seat]} played")
        for (number, deal, turn), plays in player.seen.items():
            kept = revealed.get((player.code, number, deal, turn))
            if kept is not None and kept != plays:
                totals.leaks.append(f"{player.code} game {number} deal {deal} turn {turn}: seat {player.seat} saw "
                                    f"{plays}, the record has {kept}")
    totals.refusals["(games checked)"] = len(games)
    totals.refusals["(acks in finished games)"] = sum(
        1 for p in players for (n, d, t) in p.acks if (p.code, n, d, t) in revealed)


def report(totals: Totals, faults: list[tuple[str, float, float, float]], began: float, args: argparse.Namespace) -> None:
    def inside(sent: float) -> bool:
        at = sent - began
        return any(start <= at <= back + AFTER_FAULT for _, start, _, back in faults)

    first = faults[0][1] if faults else float("inf")
    before = [seconds for sent, seconds in totals.round_trips if sent - began < first]
    outside = [seconds for sent, seconds in totals.round_trips if not inside(sent)]
    after = [seconds for sent, seconds in totals.round_trips if not inside(sent) and sent - began >= first]
    within = [seconds for sent, seconds in totals.round_trips if inside(sent)]

    def p(values: list[float], q: int) -> str:
        if len(values) < 2:
            return "-"
        return f"{statistics.quantiles(values, n=100)[q - 1] * 1000:.0f} ms"

    print(f"tables {args.tables}, {args.seconds} s, cards confirmed {totals.acks}, reveals seen "
          f"{totals.reveals_seen}, reconnects {totals.reconnects}")
    if not totals.refusals.get("(acks in finished games)"):
        print("NOTHING CHECKED: no confirmed card is in a finished game's record; the counts below prove nothing")
    print(f"lost moves: {len(totals.lost)}; leaked cards: {len(totals.leaks)}")
    for line in (totals.lost + totals.leaks)[:20]:
        print("  ", line)
    print("refusals and counts:", json.dumps(totals.refusals, sort_keys=True))
    bounds = [0.0, *(back + AFTER_FAULT for _, _, _, back in faults), float("inf")]
    starts = [0.0, *(start for _, start, _, _ in faults), float("inf")]
    for n in range(len(bounds) - 1):  # each stretch between the windows
        lo, hi = bounds[n], starts[n + 1]
        stretch = [seconds for sent, seconds in totals.round_trips if lo <= sent - began < hi]
        print(f"  {lo:.0f} s to {min(hi, args.seconds):.0f} s: n={len(stretch)} p50 {p(stretch, 50)} "
              f"p99 {p(stretch, 99)}")
    print(f"round trips: before the first fault n={len(before)} p50 {p(before, 50)} p99 {p(before, 99)}; "
          f"after it, outside the fault windows n={len(after)} p50 {p(after, 50)} p99 {p(after, 99)}; "
          f"all outside n={len(outside)} p99 {p(outside, 99)}; inside the windows n={len(within)} "
          f"p50 {p(within, 50)} p99 {p(within, 99)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--pause", type=float, default=6.0, help="seconds the process, and then the other's database backends, are stopped (lease: 3)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-faults", dest="faults", action="store_false",
                        help="a control run: no restart, no pause (the same windows are left out)")
    parser.add_argument("--logs", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "sixnimmt-soak"))
    asyncio.run(soak(parser.parse_args()))


if __name__ == "__main__":
    main()
