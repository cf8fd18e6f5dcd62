"""Migrations run under a lock: processes started at the same moment on a fresh database all come
up, and the schema is migrated once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from sixnimmt.server.store.database import Store

from .conftest import POSTGRES_URL, fresh_postgres_url

RACERS = 4


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_concurrent_migrations_on_a_fresh_database_all_succeed(backend: str, tmp_path: Path) -> None:
    if backend == "postgres":
        if not POSTGRES_URL:
            pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)")
        url = fresh_postgres_url()
    else:
        url = f"sqlite:///{tmp_path / 'race.db'}"
    stores = [Store(url) for _ in range(RACERS)]
    start = threading.Barrier(RACERS)
    failures: list[BaseException] = []

    def migrate(store: Store) -> None:
        start.wait(timeout=30)
        try:
            store.migrate()
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=migrate, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert failures == []
        with stores[0].engine.connect() as connection:
            versions = connection.execute(sa.text("SELECT version_num FROM alembic_version")).all()
            tables = set(sa.inspect(connection).get_table_names())
        assert len(versions) == 1
        assert {"tables", "games", "reviews"} <= tables
    finally:
        for store in stores:
            store.close()
