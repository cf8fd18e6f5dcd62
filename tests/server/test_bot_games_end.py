"""Every game a bot program plays ends (docs/bot-api.md, "Rules for bots"): whatever the program does,
at a table where nobody else is connected, the stand-in plays its seat after the grace to the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock

from .bot_clients import BotProgram
from .conftest import make_client
from .test_accounts import sign_up, signed
from .test_bot_api import CONNECT, bearer, make_bot

GRACE = 60.0
#: The clock moves this much per step once the grace is over: a few seconds per turn at most.
STEP = 2.0


@pytest.fixture
def web(database_url: str) -> Iterator[TestClient]:
    with make_client(database_url, ManualClock(), program_grace=GRACE) as client:
        yield signed(client)


def _advance(web: TestClient, seconds: float) -> None:
    """Move the app's clock on and let the moves it made due land (in the app's own thread)."""
    app: Any = web.app
    clock, rooms = app.state.bot_gateway.clock, app.state.bot_gateway.rooms

    async def advance() -> None:
        clock.advance(seconds)
        for room in list(rooms._rooms.values()):
            await room.scheduler.settle()

    assert web.portal is not None
    web.portal.call(advance)


def _table(web: TestClient, code: str) -> tuple[str, list[bool]]:
    """The table's status as stored, and which seats are connected (a room in memory), read in the
    app's thread without touching the table (a room nobody uses stays idle)."""
    app: Any = web.app
    rooms = app.state.bot_gateway.rooms

    async def look() -> tuple[str, list[bool]]:
        data = await rooms.db.run(rooms.store.load_table, code)
        room = rooms.local(code)
        return str(data.status), [] if room is None else [s.connections > 0 for s in room.table.seats]

    assert web.portal is not None
    return web.portal.call(look)


def _until_disconnected(web: TestClient, code: str) -> None:
    for _ in range(500):
        if not any(_table(web, code)[1]):
            return
        _advance(web, 0.0)
    raise AssertionError(f"the server never saw the connections close: {_table(web, code)}")


def _finishes_within_grace_and_a_few_seconds_a_turn(web: TestClient, code: str, grace: float = GRACE + 1) -> None:
    _advance(web, grace)
    for step in range(200):
        status = _table(web, code)[0]
        if status == "finished":
            # (at most STEP seconds of clock per turn played after the grace: 10 turns a deal, a few deals)
            assert step * STEP <= 3 * 10 * 10
            return
        _advance(web, STEP)
    raise AssertionError(f"the game never ended: {status}")


def _seek(program: BotProgram, players: int = 2) -> str:
    program.hello()
    program.ws.send_json({"type": "seek", "mode": "casual", "players": players})
    return str(program.until(lambda m: m["type"] == "seeking")["game"])


def test_two_programs_that_disconnect_for_good_still_finish_their_game(web: TestClient) -> None:
    sign_up(web, "gone_owner")
    tokens = [make_bot(web, "Gone_A"), make_bot(web, "Gone_B")]
    with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one, \
            web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        programs = [BotProgram(one), BotProgram(two)]
        code = _seek(programs[0])
        assert _seek(programs[1]) == code
        for program in programs:
            program.until(lambda m: m["type"] == "decide", answer=False)
    _until_disconnected(web, code)
    _finishes_within_grace_and_a_few_seconds_a_turn(web, code)


def test_a_program_among_server_bots_that_disconnects_for_good_is_played_to_the_end(web: TestClient) -> None:
    sign_up(web, "lone_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Lonely"))) as ws:
        program = BotProgram(ws)
        code = _seek(program, players=4)
        _advance(web, 6.0)  # past Play now's wait: its bots fill the table
        program.until(lambda m: m["type"] == "decide", answer=False)
    _until_disconnected(web, code)
    _finishes_within_grace_and_a_few_seconds_a_turn(web, code)


def test_a_program_whose_token_is_revoked_is_played_to_the_end(web: TestClient) -> None:
    sign_up(web, "rev_owner")
    tokens = [make_bot(web, "Revoked_A"), make_bot(web, "Revoked_B")]
    with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one, \
            web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        programs = [BotProgram(one), BotProgram(two)]
        code = _seek(programs[0])
        _seek(programs[1])
        for program in programs:
            program.until(lambda m: m["type"] == "decide", answer=False)
        for name in ("Revoked_A", "Revoked_B"):
            token_id = web.get(f"/api/bots/{name}/tokens").json()[0]["id"]
            assert web.delete(f"/api/bots/{name}/tokens/{token_id}").status_code == 204
    _until_disconnected(web, code)
    _finishes_within_grace_and_a_few_seconds_a_turn(web, code)


def test_programs_that_leave_a_table_of_their_own_are_played_to_the_end(web: TestClient) -> None:
    sign_up(web, "left_owner")
    tokens = [make_bot(web, "Leaver_A"), make_bot(web, "Leaver_B")]
    with web.websocket_connect(CONNECT, headers=bearer(tokens[0])) as one, \
            web.websocket_connect(CONNECT, headers=bearer(tokens[1])) as two:
        programs = [BotProgram(one), BotProgram(two)]
        code = _seek(programs[0])
        _seek(programs[1])
        for program in programs:
            program.until(lambda m: m["type"] == "decide", answer=False)
            program.ws.send_json({"type": "leave", "game": code})
        _until_disconnected(web, code)
    # (a room nobody uses is dropped from memory after idle_evict, 600 s: this one stays and ends)
    _finishes_within_grace_and_a_few_seconds_a_turn(web, code, grace=601.0)


def test_a_program_gone_with_its_seek_open_leaves_no_table_waiting_for_it(web: TestClient) -> None:
    """What Ctrl-C on ``sixnimmt bot connect`` does while its seek opened a table: the seek goes
    with the connection, the seat opens, and Play now does not start the table with it."""
    sign_up(web, "ctrl_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Stopped"))) as ws:
        code = _seek(BotProgram(ws), players=4)
    _until_disconnected(web, code)
    _advance(web, 6.0)  # past Play now's wait
    app: Any = web.app
    rooms = app.state.bot_gateway.rooms

    async def seats() -> list[str]:
        data = await rooms.db.run(rooms.store.load_table, code)
        return [str(seat["kind"]) for seat in data.seats]

    assert web.portal is not None
    assert _table(web, code)[0] == "waiting" and web.portal.call(seats) == ["open"] * 4
