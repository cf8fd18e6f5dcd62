"""What one move costs the database when several processes share it, and what one table costs in
memory: the figures behind docs/scaling.md.

Two "processes" (registries with their own store, sessions, lease and NOTIFY channel, in one event
loop, as in tests/server/test_cluster.py) share a fresh PostgreSQL database. Process A drives one
table of four (a host at A, a friend and a spectator whose sockets are on B, two bots); whole games
are played, and every statement the store runs, every NOTIFY and every outbox row is counted.
Then, in one plain process (SQLite), many all-bot tables are loaded to measure memory per table.

    SIXNIMMT_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:54331/postgres \\
        .venv/bin/python benchmarks/cluster_traffic.py --games 3 --tables 300 --notify-senders 1 4 16

The WAL bytes are the server's (every database): give the benchmark a PostgreSQL server of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from sixnimmt.core import Rules
from sixnimmt.server.cluster.bus import Bus
from sixnimmt.server.cluster.mail import Mail, encode_batch
from sixnimmt.server.cluster.peers import Cluster, join_cluster
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table import TableSession
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import ChooseRow, Play


class Socket:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.received = 0

    def push(self, message: dict[str, Any]) -> None:
        self.received += 1

    def close(self, code: int, reason: str) -> None:
        pass


def fresh_database(server_url: str) -> str:
    name = f"sixnimmt_bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return server_url.rsplit("/", 1)[0] + "/" + name


def libpq_dsn(url: str) -> str:
    """The libpq connection string of an SQLAlchemy ``postgresql+psycopg://`` URL."""
    return sa.engine.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def traffic(server_url: str, games: int) -> dict[str, Any]:
    url = fresh_database(server_url)
    counts: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    commit_seconds: list[float] = []
    processes = []
    cluster_sql = Cluster._sql

    async def counted_sql(self: Cluster, statement: Any, **values: Any) -> list[tuple[Any, ...]]:
        counts["cluster statement"] += 1  # (autocommit: a transaction each; NOTIFYs and outbox included)
        return await cluster_sql(self, statement, **values)

    Cluster._sql = counted_sql  # type: ignore[method-assign]
    for _ in range(2):
        store = Store(url)
        store.migrate()

        def count(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, _many: bool) -> None:
            counts["store " + statement.split(None, 1)[0].upper()] += 1

        event.listen(store.engine, "before_cursor_execute", count)
        save_tables = store.save_tables

        def counted_save(batch: list[Any], save: Any = save_tables) -> set[str]:
            counts["store UPDATE"] += len(batch)  # (run by the driver: one UPDATE a table, no SQLAlchemy event)
            counts["store commit"] += 1  # (one transaction per group commit)
            started = time.perf_counter()
            refused = set(save(batch))
            commit_seconds.append(time.perf_counter() - started)
            return refused

        store.save_tables = counted_save  # type: ignore[method-assign]
        rooms = Rooms(store, Settings(database_url=url, bot_delay=0.0, fallback_bot="random", lease_seconds=30.0))
        await join_cluster(rooms)
        processes.append(rooms)
    a, b = processes
    assert a.cluster is not None and b.cluster is not None
    send = Bus.send
    wal = sa.create_engine(url, isolation_level="AUTOCOMMIT")

    async def counted_send(self: Bus, process: str, items: list[Mail]) -> None:
        text = encode_batch(self.me, items)
        counts["notify"] += 1
        counts["notify items"] += len(items)
        sizes["notify json bytes"] += len(text.encode())
        if len(text.encode()) > 7900:
            counts["notify compressed or outbox"] += 1
        await send(self, process, items)

    Bus.send = counted_send  # type: ignore[method-assign]
    act = TableSession.act
    moves = Counter[str]()

    async def counted_act(self: TableSession, seat: int, value: int) -> Any:
        moves["moves"] += 1  # (every accepted answer, a person's or a bot's, is one act of the table)
        change = await act(self, seat, value)
        data = self.saved  # what this move's save wrote: its changed columns only
        assert data is not None
        written = [getattr(data, column) for column in ("record", "current", "seats", "settings")
                   if data.changed is None or column in data.changed]
        sizes["table row json bytes"] += len(json.dumps(written))
        return change

    TableSession.act = counted_act  # type: ignore[method-assign]
    rng = random.Random(1)
    baseline: Counter[str] = Counter()
    for _ in range(games):
        rules = Rules(players=4)
        room, _host_token = await a.create(TableOptions(rules), "Host",
                                          [{"kind": "open"}, {"kind": "bot", "bot": "medium"},
                                           {"kind": "bot", "bot": "medium"}])
        host = Socket()
        host.seat = 0
        await room.connect(host)
        _, friend_token, _ = await room.join("Friend")
        friend, spectator = Socket(), Socket()
        b.cluster.link(room.code, a.cluster.me, friend, friend_token)
        b.cluster.link(room.code, a.cluster.me, spectator, None)
        for _ in range(500):
            if len(a.cluster.remote) >= 2 and friend.received:
                break
            await asyncio.sleep(0.01)
        remote_friend = next(c for c in a.cluster.remote.values() if c.seat == 1)
        baseline = counts.copy()
        moves_before = moves["moves"]
        wal_before = wal_position(wal)
        while room.table.game is not None and not room.table.game.is_over:
            pending = [d for d in room.table.game.pending() if d.seat in (0, 1)]
            if not pending:
                await room.scheduler.settle()
                continue
            decision = pending[0]
            conn = host if decision.seat == 0 else remote_friend
            value = rng.choice(decision.options)
            message = ChooseRow(type="row", row=value) if decision.kind.value == "row" else Play(type="play", card=value)
            await room.handle(conn, message)
        await asyncio.sleep(0.5)  # the last messages on their way (counted, not timed)
        sizes["spectator messages"] += spectator.received
        sizes["wal bytes"] += wal_position(wal) - wal_before
        for key in ("store UPDATE", "store INSERT", "notify", "notify items", "notify compressed or outbox",
                    "store commit", "cluster statement", "store SELECT"):
            sizes["per game " + key] += counts[key] - baseline[key]
        sizes["game moves"] += moves["moves"] - moves_before
    for rooms in processes:
        await rooms.close()
    Bus.send = send  # type: ignore[method-assign]
    TableSession.act = act  # type: ignore[method-assign]
    Cluster._sql = cluster_sql  # type: ignore[method-assign]
    wal.dispose()
    total_moves = sizes["game moves"]
    commit_seconds.sort()
    return {
        "games": games,
        "moves (accepted answers, bots included)": total_moves,
        "table UPDATEs per move": round(sizes["per game store UPDATE"] / total_moves, 2),
        "INSERTs per move (finished games, outbox)": round(sizes["per game store INSERT"] / total_moves, 3),
        "NOTIFYs per move": round(sizes["per game notify"] / total_moves, 2),
        "messages per NOTIFY": round(sizes["per game notify items"] / max(1, sizes["per game notify"]), 2),
        "NOTIFY bytes per move (JSON, before compression)": round(sizes["notify json bytes"] / total_moves),
        "share of NOTIFYs over 7,900 bytes (sent compressed or by outbox)":
            round(sizes["per game notify compressed or outbox"] / max(1, sizes["per game notify"]), 3),
        "table row bytes written per move (JSON: the columns a save writes: record, chosen cards, seats, settings)":
            round(sizes["table row json bytes"] / total_moves),
        "store transactions (group commits) per move": round(sizes["per game store commit"] / total_moves, 2),
        "store SELECTs per move (loads, finished games)": round(sizes["per game store SELECT"] / total_moves, 3),
        "cluster statements per move (NOTIFY, outbox, heartbeat's watch; a transaction each)":
            round(sizes["per game cluster statement"] / total_moves, 2),
        "WAL bytes per move (the whole server: saves, NOTIFYs, heartbeats, autovacuum)":
            round(sizes["wal bytes"] / total_moves),
        "group commit time, median and p90 (ms, on this loaded machine)":
            (round(1000 * commit_seconds[len(commit_seconds) // 2], 2),
             round(1000 * commit_seconds[int(len(commit_seconds) * 0.9)], 2)),
    }


def wal_position(engine: sa.Engine) -> int:
    """The server's write-ahead log position, in bytes (all of its databases: use a server of the
    benchmark's own, so that nothing else writes to it)."""
    with engine.connect() as connection:
        return int(connection.execute(sa.text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")).scalar_one())


async def notify_rate(server_url: str, seconds: float, listeners: int, senders: int = 1) -> dict[str, Any]:
    """NOTIFYs per second one PostgreSQL carries with a 2,000-byte payload (the size measured per
    move above), sent one at a time in autocommit from each of ``senders`` connections at once,
    each read by its listener (``listeners`` processes, each on its own channel, as the cluster
    does)."""
    import psycopg

    dsn = libpq_dsn(fresh_database(server_url))
    payload = "x" * 2000
    received = Counter[int]()
    conns = [await psycopg.AsyncConnection.connect(dsn, autocommit=True) for _ in range(listeners)]
    for n, conn in enumerate(conns):
        await conn.execute(f'LISTEN "bench_{n}"')

    async def listen(n: int, conn: Any) -> None:
        async for _ in conn.notifies():
            received[n] += 1

    tasks = [asyncio.create_task(listen(n, conn)) for n, conn in enumerate(conns)]
    sending = [await psycopg.AsyncConnection.connect(dsn, autocommit=True) for _ in range(senders)]
    loop = asyncio.get_running_loop()
    start = loop.time()
    counted = Counter[int]()

    async def send(n: int, sender: Any) -> None:
        while loop.time() - start < seconds:
            await sender.execute("SELECT pg_notify(%s, %s)", (f"bench_{counted[n] % listeners}", payload))
            counted[n] += 1

    await asyncio.gather(*(send(n, sender) for n, sender in enumerate(sending)))
    elapsed = loop.time() - start
    sent = sum(counted.values())
    for _ in range(500):
        if sum(received.values()) >= sent:
            break
        await asyncio.sleep(0.01)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for conn in (*conns, *sending):
        await conn.close()
    return {f"NOTIFY/s, 2,000 bytes, {senders} senders, {listeners} listeners": round(sent / elapsed),
            "NOTIFYs received of those sent": f"{sum(received.values())} of {sent}"}


async def update_rate(server_url: str, seconds: float, writers: int, batch: int) -> dict[str, Any]:
    """Table saves per second one PostgreSQL commits: ``writers`` connections at once (processes),
    each committing ``batch`` saves per transaction (a group commit) of a 1,200-byte ``current``
    (the bytes a move writes, measured above) to rows of their own, through the server's own
    statement (:class:`~sixnimmt.server.store.database.Store` writes a fresh database's ``tables``)."""
    import psycopg

    url = fresh_database(server_url)
    Store(url).migrate()
    dsn = libpq_dsn(url)
    conns = [await psycopg.AsyncConnection.connect(dsn) for _ in range(writers)]
    async with conns[0].transaction():
        for n in range(writers * batch):
            await conns[0].execute(
                "INSERT INTO tables (code, status, created_at, updated_at, settings, seats, game_number, owner_epoch) "
                "VALUES (%s, 'playing', now(), now(), '{}', '[]', 1, 1)", (f"B{n:05d}",))
    current = json.dumps({"log": [[seat, 40 + seat] for seat in range(4)], "pad": "x" * 1100})
    loop = asyncio.get_running_loop()
    start = loop.time()
    saved = Counter[int]()

    async def write(n: int, conn: Any) -> None:
        while loop.time() - start < seconds:
            async with conn.transaction():
                for row in range(batch):
                    await conn.execute("UPDATE tables SET current = %s, updated_at = now() "
                                       "WHERE code = %s AND owner_epoch = 1", (current, f"B{n * batch + row:05d}"))
            saved[n] += batch

    await asyncio.gather(*(write(n, conn) for n, conn in enumerate(conns)))
    elapsed = loop.time() - start
    for conn in conns:
        await conn.close()
    return {f"table saves/s, {writers} writers, {batch} per commit": round(sum(saved.values()) / elapsed)}


async def memory(tables: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'memory.db'}")
        store.migrate()
        rooms = Rooms(store, Settings(database_url=store.url, bot_delay=3600.0, fallback_bot="random"))
        seats = [{"kind": "bot", "bot": "medium"}] * 3
        # one table first, so that imports and caches are not counted per table
        await rooms.create(TableOptions(Rules(players=4)), "Host", seats)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(tables):
            await rooms.create(TableOptions(Rules(players=4)), "Host", seats)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        loaded = rooms.loaded()
        await rooms.close()
    return {"tables loaded (4 seats, 3 medium bots, game started)": loaded,
            "Python heap per table (KiB, tracemalloc)": round((after - before) / tables / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--notify-seconds", type=float, default=5.0)
    parser.add_argument("--notify-senders", type=int, nargs="+", default=[1],
                        help="measure the NOTIFY rate with each of these numbers of connections sending at once")
    args = parser.parse_args()
    server = os.environ.get("SIXNIMMT_TEST_POSTGRES_URL")
    results: dict[str, Any] = {}
    if server:
        results.update(asyncio.run(traffic(server, args.games)))
        for writers, batch in ((1, 1), (4, 1), (4, 10)):
            results.update(asyncio.run(update_rate(server, args.notify_seconds, writers, batch)))
        for senders in args.notify_senders:
            results.update(asyncio.run(notify_rate(server, args.notify_seconds, 2, senders)))
    else:
        print("SIXNIMMT_TEST_POSTGRES_URL not set: database traffic not measured", file=sys.stderr)
    results.update(asyncio.run(memory(args.tables)))
    for key, value in results.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
