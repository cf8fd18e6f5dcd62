"""Requests that read or write accounts on a database that does not answer (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``): the store's PostgreSQL backends are stopped with SIGSTOP, as a network
partition leaves them. A sign-in and a bot program's token check are answered with a clear 503 within
the store's bound (shortened here) instead of never; once the backends wake, both work again and
nothing was lost. The test waits only for answers (bounded), never for a time to pass."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from sixnimmt.server.clock import ManualClock

from .conftest import POSTGRES_URL, fresh_postgres_url, make_client
from .test_accounts import PASSWORD, sign_up, signed
from .test_bot_api import CONNECT, bearer, hello, make_bot
from .test_cluster_store_hang import backends

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


class Stopped:
    """The app's database backends, stopped (SIGSTOP) while inside, woken again after."""

    def __init__(self, url: str, name: str) -> None:
        self.watcher = sa.create_engine(url)
        self.name = name
        self.pids: list[int] = []

    def __enter__(self) -> None:
        self.pids = backends(self.watcher, self.name)
        assert self.pids
        for pid in self.pids:
            os.kill(pid, signal.SIGSTOP)

    def __exit__(self, *_: object) -> None:
        for pid in self.pids:
            os.kill(pid, signal.SIGCONT)
        self.watcher.dispose()


@pytest.fixture
def hung_app() -> Iterator[tuple[TestClient, Stopped]]:
    url = fresh_postgres_url()
    with make_client(url + "?application_name=hung-accounts", ManualClock()) as client:
        client.app.state.rooms.db.answer_timeout = 1.0  # type: ignore[attr-defined]
        yield signed(client), Stopped(url, "hung-accounts")


def test_a_sign_in_on_a_database_that_does_not_answer_gets_a_503(hung_app: tuple[TestClient, Stopped]) -> None:
    web, stopped = hung_app
    sign_up(web, "ann_waits")
    web.post("/api/account/signout")
    with stopped:
        refused = web.post("/api/account/signin", json={"name": "ann_waits", "password": PASSWORD})
    assert refused.status_code == 503, refused.text
    assert refused.json()["code"] == "store-unavailable" and refused.headers["Retry-After"] == "5"
    signed_in = web.post("/api/account/signin", json={"name": "ann_waits", "password": PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    assert web.get("/api/account").json()["user"]["name"] == "ann_waits"


def test_a_bot_token_check_on_a_database_that_does_not_answer_gets_a_503(hung_app: tuple[TestClient, Stopped]) -> None:
    web, stopped = hung_app
    sign_up(web, "bo_owner")
    token = make_bot(web, "Bos_Bot")
    with stopped, pytest.raises(WebSocketDenialResponse) as refused:
        with web.websocket_connect(CONNECT, headers=bearer(token)):
            pass
    assert refused.value.status_code == 503
    assert refused.value.json()["code"] == "store-unavailable"
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        assert hello(ws)["type"] == "welcome"
