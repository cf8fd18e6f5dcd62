"""CPU per statement of the cluster: the store's compiled statements (``server/store/leases.py``,
named parameters) against the same SQL written by hand with positional parameters, as the cluster
ran it before, on one of the cluster's connections to a fresh PostgreSQL database. The two forms
run in alternate rounds of a NOTIFY of 2,000 bytes and a table's owner looked up (the two commonest
statements: one per action, one per socket that reaches a table); prints each round's CPU per
statement and the median ratio.

    SIXNIMMT_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:54329/postgres \\
        .venv/bin/python benchmarks/cluster_statements.py --rounds 8 --statements 2000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from typing import Any

import sqlalchemy as sa

from sixnimmt.server.store import leases
from sixnimmt.server.store.database import Store

BY_HAND = {
    "notify": "SELECT pg_notify(%s, %s)",
    "owner": "SELECT t.owner, t.owner_epoch, p.id IS NOT NULL FROM tables t LEFT JOIN server_processes p "
             "ON p.id = t.owner AND p.lease_until > now() WHERE t.code = %s",
}


def fresh_database(server_url: str) -> str:
    name = f"sixnimmt_bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return server_url.rsplit("/", 1)[0] + "/" + name


async def measure(server_url: str, rounds: int, statements: int) -> None:
    store = Store(fresh_database(server_url))
    store.migrate()
    conn = await leases.connect(store.engine, 5, 1000, 1500)
    payload = "x" * 2000

    async def by_hand(n: int) -> None:
        for _ in range(n):
            await conn.execute(BY_HAND["notify"], ("bench", payload))
            await (await conn.execute(BY_HAND["owner"], ("ABCDE",))).fetchall()

    async def compiled(n: int) -> None:
        for _ in range(n):
            await conn.execute(leases.NOTIFY.sql, leases.NOTIFY.params({"channel": "bench", "payload": payload}))
            await (await conn.execute(leases.OWNER.sql, leases.OWNER.params({"code": "ABCDE"}))).fetchall()

    ratios: list[float] = []
    for _ in range(rounds):
        times: dict[str, float] = {}
        for name, run in (("by hand", by_hand), ("compiled", compiled)):
            started = time.process_time()
            await run(statements // 2)
            times[name] = (time.process_time() - started) / statements
        ratios.append(times["compiled"] / times["by hand"])
        print(", ".join(f"{name} {seconds * 1e6:.0f} us" for name, seconds in times.items()), "CPU per statement")
    print(f"compiled / by hand, median of {rounds} rounds: {statistics.median(ratios):.2f}")
    await conn.close()
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--statements", type=int, default=2000)
    args: Any = parser.parse_args()
    asyncio.run(measure(os.environ["SIXNIMMT_TEST_POSTGRES_URL"], args.rounds, args.statements))


if __name__ == "__main__":
    main()
