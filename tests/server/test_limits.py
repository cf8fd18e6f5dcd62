"""The limits hold: presence travels as small deltas, connections are capped per address, seat and
table, HTTP bodies are capped, table creation and joining are rate-limited per address, and hostile
frames get a clean answer (no traceback). Rate limits run on an injected clock."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableError, TableOptions

from .conftest import Listener, make_client
from .helpers import create_table, receive_until


async def _rooms(tmp_path: Path, **overrides: Any) -> Rooms:
    store = Store(f"sqlite:///{tmp_path / 'limits.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0, **overrides)
    return Rooms(store, settings, ManualClock())


@pytest.mark.asyncio
async def test_presence_changes_are_one_small_message_per_other_socket(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    clock = rooms.clock
    assert isinstance(clock, ManualClock)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "open"}])
    host = Listener(0)
    await room.connect(host)
    watchers = [Listener(None) for _ in range(50)]
    for watcher in watchers:
        await room.connect(watcher)
    # 50 spectators arrived: the host heard nothing, each spectator got only its own state
    assert [m["type"] for m in host.messages] == ["state"]
    assert all([m["type"] for m in w.messages] == ["state"] for w in watchers)
    assert watchers[-1].messages[0]["table"]["spectators"] == 50
    await room.join("Friend")
    clock.advance(1.0)  # (the host's own arrival has been told)
    for conn in (host, *watchers):
        conn.messages.clear()
    friend, friend_again = Listener(1), Listener(1)
    await room.connect(friend)  # the seat's first socket: one presence delta to each other socket
    delta = {"type": "presence", "seat": 1, "connected": True, "spectators": 50}
    assert host.messages == [delta] and all(not w.messages for w in watchers)  # spectators: soon
    clock.advance(1.0)  # the end of the presence window
    assert all(conn.messages == [delta] for conn in (host, *watchers))
    await room.connect(friend_again)  # a second socket of the same seat changes nothing for others
    await room.disconnect(friend)
    clock.advance(1.0)
    assert all(len(conn.messages) == 1 for conn in (host, *watchers))
    await room.disconnect(friend_again)  # the seat's last socket: one delta each
    clock.advance(1.0)
    assert all(conn.messages[-1]["connected"] is False and len(conn.messages) == 2 for conn in (host, *watchers))
    # a socket opened and closed over and over: the players hear each change, the spectators
    # only what changed over the window (here nothing)
    for _ in range(20):
        churn = Listener(1)
        await room.connect(churn)
        await room.disconnect(churn)
    assert len(host.messages) == 2 + 40
    clock.advance(1.0)
    assert all(len(w.messages) == 2 for w in watchers)
    await rooms.close()


@pytest.mark.asyncio
async def test_connections_are_capped_per_seat_and_spectators_per_table(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path, max_connections_per_seat=2, max_spectators_per_table=3)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot"}])
    await room.connect(Listener(0))
    await room.connect(Listener(0))
    with pytest.raises(TableError) as refused:
        await room.connect(Listener(0))
    assert refused.value.code == "too-many-connections" and refused.value.params == {"limit": 2}
    for _ in range(3):
        await room.connect(Listener(None))
    with pytest.raises(TableError, match="spectators"):
        await room.connect(Listener(None))
    assert room.table.seats[0].connections == 2 and room.spectators() == 3
    await rooms.close()


def test_connections_are_capped_per_address(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'a.db'}", max_connections_per_address=2) as client:
        table = create_table(client, [{"kind": "bot", "bot": "random"}])
        with client.websocket_connect(f"/ws/{table['code']}") as one, \
                client.websocket_connect(f"/ws/{table['code']}") as two:
            receive_until(one, lambda m: m["type"] == "state")
            receive_until(two, lambda m: m["type"] == "state")
            with client.websocket_connect(f"/ws/{table['code']}") as three:
                error = three.receive_json()
                assert error["code"] == "too-many-connections" and error["params"] == {"limit": 2}
                with pytest.raises(WebSocketDisconnect) as closed:
                    three.receive_json()
                assert closed.value.code == 4429
        # closed sockets free their places
        with client.websocket_connect(f"/ws/{table['code']}") as again:
            assert receive_until(again, lambda m: m["type"] in ("state", "error"))["type"] == "state"


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[tuple[TestClient, ManualClock]]:
    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 'l.db'}", clock) as client:
        yield client, clock


def test_a_large_body_is_refused_before_it_is_read(limited: tuple[TestClient, ManualClock]) -> None:
    client, _ = limited
    declared = client.post("/api/tables", content=b"x" * (5 * 1024 * 1024), headers={"content-type": "application/json"})
    assert declared.status_code == 413 and declared.json()["code"] == "body-too-large"
    sent: list[int] = []

    def stream() -> Iterator[bytes]:  # no Content-Length: chunks until the server stops reading
        for _ in range(1000):
            sent.append(1)
            yield b"x" * 4096

    streamed = client.post("/api/tables", content=stream(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413 and streamed.json()["params"] == {"limit": 16384}
    # the body was not read to its end (the test client hands over the whole stream, so this bounds
    # what the server *read*: it stopped at the first chunk past the limit)
    assert client.post("/api/tables", json={"name": "Host", "seats": [{"kind": "bot"}]}).status_code == 201


def test_creating_tables_is_rate_limited_per_address(limited: tuple[TestClient, ManualClock]) -> None:
    client, clock = limited
    body = {"name": "Spam", "seats": [{"kind": "bot", "bot": "expert"}] * 3}
    statuses = [client.post("/api/tables", json=body).status_code for _ in range(100)]
    created = statuses.count(201)
    assert created == Settings().create_burst and statuses[created:] == [429] * (100 - created)
    refused = client.post("/api/tables", json=body)
    assert refused.json()["code"] == "rate-limited"
    assert refused.headers["retry-after"] == "10"  # 6 a minute: one more every 10 s
    clock.advance(9.0)
    assert client.post("/api/tables", json=body).status_code == 429
    clock.advance(1.0)
    assert client.post("/api/tables", json=body).status_code == 201
    assert client.post("/api/tables", json=body).status_code == 429


def test_joining_is_rate_limited_per_address(limited: tuple[TestClient, ManualClock]) -> None:
    client, clock = limited
    burst = Settings().join_burst
    codes = [create_table(client, [{"kind": "open"}, {"kind": "open"}])["code"] for _ in range(3)]
    statuses = [client.post(f"/api/tables/{codes[0]}/join", json={"name": "Eve"}).status_code for _ in range(burst)]
    assert 429 not in statuses  # refusals (409: full, name taken) still count against the allowance
    refused = client.post(f"/api/tables/{codes[1]}/join", json={"name": "Zed"})
    assert refused.status_code == 429 and refused.headers["retry-after"] == "3"  # 20 a minute
    clock.advance(3.0)
    assert client.post(f"/api/tables/{codes[1]}/join", json={"name": "Zed"}).status_code == 200


def test_hostile_frames_get_clean_errors_and_no_traceback(
    limited: tuple[TestClient, ManualClock], caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = limited
    table = create_table(client, [{"kind": "bot", "bot": "random"}])
    caplog.set_level(logging.INFO, logger="sixnimmt.server")
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        receive_until(ws, lambda m: m["type"] == "state")
        ws.send_bytes(b"\x00\xff binary")
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "binary-frame"
        ws.send_text("[" * 1000 + "]" * 1000)
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "too-deep"
        ws.send_json({"type": "ping"})  # the socket is still open and working
        assert receive_until(ws, lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    lines = [r for r in caplog.records if r.name == "sixnimmt.server"]
    assert len([r for r in lines if "binary" in r.getMessage()]) == 1
    assert len([r for r in lines if "nested" in r.getMessage()]) == 1
    assert not [r for r in caplog.records if r.exc_info]


def test_out_of_range_ids_are_not_found(limited: tuple[TestClient, ManualClock]) -> None:
    client, _ = limited
    for path in ("/api/games/99999999999999999999999", "/api/games/-1", "/api/games/0",
                 "/api/games/2147483648/events", "/api/games/99999999999999999999999/record.json"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "no-game"
    assert client.get("/api/tables/" + "Z" * 5000).status_code == 404


def test_a_client_too_far_behind_is_cut_off_with_a_bounded_queue() -> None:
    from sixnimmt.server.sockets import SocketClient

    client = SocketClient(cast(Any, None), seat=None, limit=5)
    for n in range(1000):
        client.push({"type": "update", "n": n})
    # five messages, then the marker that makes the writer close the socket; nothing after it
    assert client.overflowed and len(client.outbox) == 6
    queued = list(client.outbox)
    assert queued[-1] is None and [m["n"] for m in queued[:-1] if m] == [0, 1, 2, 3, 4]


def test_a_refused_client_is_never_told_to_try_again_at_once() -> None:
    """A bucket a hair short of a token refuses: it says a tenth of a second at least, not "0.0 s"
    (a client told 0 asked again at once, over and over, until its messages ran out)."""
    from sixnimmt.server.limits import RateLimiter

    seeks = RateLimiter(6 / 60, 6, now=0.0)
    for _ in range(6):
        assert seeks.allow(0.0)
    almost = 10.0 - 1e-6  # a millionth of a second short of the next seek
    assert not seeks.allow(almost)
    assert seeks.retry_after(almost) == 0.1
    assert seeks.allow(10.0) and seeks.retry_after(10.0) == 10.0  # exact figures stay exact
