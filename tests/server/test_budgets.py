"""Budgets per client address, on an injected clock: looking tables up by code (a scan of codes
misses nearly always, and misses have a small budget of their own), opening sockets, and asking
for hints, which are made in a thread of their own so they never wait on (or delay) the bots."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.hints import HintDesk
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableError, TableOptions
from sixnimmt.server.wire import Hint

from .conftest import Listener, make_client
from .helpers import create_table


def test_table_lookups_are_budgeted_and_misses_more_tightly(tmp_path: Path) -> None:
    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 'l.db'}", clock, lookup_per_minute=60.0, lookup_burst=6,
                     miss_per_minute=6.0, miss_burst=3) as client:
        code = create_table(client, [{"kind": "open"}])["code"]
        for guess in ("AAAAA", "BBBBB", "CCCCC"):  # a scan: every guess misses
            assert client.get(f"/api/tables/{guess}").status_code == 404
        refused = client.get(f"/api/tables/{code}")  # out of misses: even a real code waits
        assert refused.status_code == 429 and refused.json()["code"] == "rate-limited"
        assert "table lookups" in refused.json()["detail"] and int(refused.headers["Retry-After"]) == 10
        assert client.post(f"/api/tables/{code}/join", json={"name": "Eve"}).status_code == 429
        clock.advance(10.0)  # one miss earned back (and the lookups' whole burst)
        # lookups that find their table: a larger budget, but a budget
        answers = [client.get(f"/api/tables/{code}").status_code for _ in range(8)]
        assert answers == [200] * 6 + [429] * 2


def test_socket_opens_are_budgeted_per_address(tmp_path: Path) -> None:
    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 's.db'}", clock, socket_opens_per_minute=6.0,
                     socket_open_burst=3) as client:
        code = create_table(client, [{"kind": "open"}])["code"]
        for _ in range(3):
            with client.websocket_connect(f"/ws/{code}") as ws:
                assert ws.receive_json()["type"] == "state"
        with client.websocket_connect(f"/ws/{code}") as ws:
            refusal = ws.receive_json()
            assert refusal["code"] == "rate-limited" and refusal["params"] == {"retry_after": 10, "what": "connections"}
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4429


def test_the_hint_desk_holds_each_address_to_its_budget_and_a_short_queue() -> None:
    clock = ManualClock()
    desk = HintDesk(Settings(hints_per_minute=6.0, hint_burst=2, hints_waiting=2), clock)
    desk.take("10.0.0.1")
    desk.take("10.0.0.1")
    with pytest.raises(TableError) as limited:
        desk.take("10.0.0.1")
    assert limited.value.code == "rate-limited" and limited.value.params == {"retry_after": 10, "what": "hints"}
    desk.take("10.0.0.2")  # another address has its own budget
    with pytest.raises(TableError) as busy:  # three waiting, at most two: come back later
        desk.take("10.0.0.3")
    assert busy.value.code == "hint-busy"
    clock.advance(10.0)
    desk.waiting = 0
    desk.take("10.0.0.1")
    desk.close()


@pytest.mark.asyncio
async def test_hints_are_made_apart_from_the_bots(tmp_path: Path) -> None:
    """Every bot thread is busy with a long search: a hint is still made and sent (it has a thread
    of its own), and the bots' threads never run a hint."""

    store = Store(f"sqlite:///{tmp_path / 'h.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0, think_threads=1)
    rooms = Rooms(store, settings, ManualClock())
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "open"}])
    await room.join("Friend")
    host = Listener(0)
    await room.connect(host)
    release = threading.Event()
    blocked = asyncio.ensure_future(rooms.threads.run(release.wait, 30.0))  # the bots' only thread
    try:
        await room.handle(host, Hint(type="hint"))
        for _ in range(500):
            if any(m["type"] == "hint" for m in host.messages):
                break
            await asyncio.sleep(0.01)
        hint = next(m for m in host.messages if m["type"] == "hint")
        assert room.table.game is not None and hint["choice"] in room.table.game.hands[0]
        assert not blocked.done()  # the bots' thread was busy the whole time
    finally:
        release.set()
        await blocked
    await rooms.close()
