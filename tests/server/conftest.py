"""Fixtures for the web server tests: an app on a fresh database (SQLite, or PostgreSQL when
``SIXNIMMT_TEST_POSTGRES_URL`` is set, for the tests parametrised over ``database_url``)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import Clock
from sixnimmt.server.config import Settings
from sixnimmt.server.web.app import create_app

POSTGRES_URL = os.environ.get("SIXNIMMT_TEST_POSTGRES_URL")


def fresh_postgres_url() -> str:
    """A new, empty schema-less database on the test PostgreSQL server, so tests do not share state."""
    import sqlalchemy as sa

    assert POSTGRES_URL is not None
    name = f"sixnimmt_test_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return POSTGRES_URL.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'server.db'}"
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)")
    return fresh_postgres_url()


#: A seat's allowance of messages large enough for a whole game answered at once (a rated game is
#: the variant's own, several deals long, and a person's allowance is ten messages a second).
QUICK_PLAY: dict[str, Any] = {"rate_per_second": 1000.0, "rate_burst": 1000}


def make_client(url: str, clock: Clock | None = None, **overrides: Any) -> TestClient:
    settings = Settings(database_url=url, bot_delay=0.0, absent_grace=30.0, fallback_bot="random")
    for key, value in overrides.items():
        setattr(settings, key, value)
    return TestClient(create_app(settings, clock))


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    """The app on a fresh database: every test using it runs on SQLite, and on PostgreSQL too."""
    with make_client(database_url) as test_client:
        yield test_client


class Listener:
    """A connection as a room sees it, keeping what is pushed to it (a socket's stand-in)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
