"""A bot always knows what happened (docs/bot-api.md): the stand-in's moves for it, the answer to
``leave``, what is wrong with a message that lacks its fields, and ``hello`` first."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock

from .bot_clients import BotProgram
from .conftest import make_client
from .helpers import create_table
from .test_accounts import sign_up, signed
from .test_bot_api import CONNECT, _advance, _connections, bearer, make_bot


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(f"sqlite:///{tmp_path / 'told.db'}", ManualClock()) as client:
        yield signed(client)


def _seated_pair(web: TestClient, names: tuple[str, str]) -> tuple[Any, Any]:
    return _connections(web, names)


def _seek_both(programs: tuple[BotProgram, BotProgram]) -> str:
    for program in programs:
        program.hello()
        program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
        code = str(program.until(lambda m: m["type"] == "seeking")["game"])
    return code


def test_a_late_bot_is_told_the_stand_in_played_and_which_card(web: TestClient) -> None:
    sign_up(web, "late_owner")
    one_ws, two_ws = _seated_pair(web, ("Late_one", "Prompt"))
    with one_ws as one, two_ws as two:
        late, prompt = BotProgram(one), BotProgram(two)
        code = _seek_both((late, prompt))
        asked = late.until(lambda m: m["type"] == "decide", answer=False)
        prompt.until(lambda m: m["type"] == "decide")
        other = threading.Thread(target=prompt.until, args=(lambda m: m["type"] == "turn-result",), daemon=True)
        other.start()
        _advance(web, 10.5)  # past the time per decision
        notice = late.until(lambda m: m["type"] == "stand-in", answer=False)
        assert notice["game"] == code and notice["id"] == asked["id"] and notice["reason"] == "late"
        assert notice["move"] in asked["view"]["decision"]["options"]
        result = late.until(lambda m: m["type"] == "turn-result", answer=False)
        other.join(30)
        assert dict(map(tuple, result["seat_cards"]))[0] == notice["move"]


def test_an_illegal_move_is_told_as_the_stand_in_s(web: TestClient) -> None:
    sign_up(web, "ill_owner")
    one_ws, two_ws = _seated_pair(web, ("Illegal", "Legal"))
    with one_ws as one, two_ws as two:
        wrong, right = BotProgram(one), BotProgram(two)
        code = _seek_both((wrong, right))
        asked = wrong.until(lambda m: m["type"] == "decide", answer=False)
        wrong.ws.send_json({"type": "move", "game": code, "id": asked["id"], "move": 999})
        notice = wrong.until(lambda m: m["type"] == "stand-in", answer=False)
        assert notice["reason"] == "illegal" and notice["move"] in asked["view"]["decision"]["options"]


def test_leave_is_answered(web: TestClient) -> None:
    sign_up(web, "bye_owner")
    one_ws, two_ws = _seated_pair(web, ("Goer", "Stayer"))
    with one_ws as one, two_ws as two:
        goer, stayer = BotProgram(one), BotProgram(two)
        code = _seek_both((goer, stayer))
        goer.until(lambda m: m["type"] == "decide", answer=False)
        goer.ws.send_json({"type": "leave", "game": code})
        assert goer.until(lambda m: m["type"] in ("left", "error")) == {"type": "left", "game": code}


@pytest.mark.parametrize(("message", "missing"), [
    ({"type": "move"}, ["game", "id", "move"]),
    ({"type": "move", "game": 3, "id": 1, "move": 4}, ["game"]),
    ({"type": "leave"}, ["game"]),
    ({"type": "accept"}, ["invitation"]),
    ({"type": "cancel-seek"}, ["seek"]),
    ({"type": "seek", "players": "four"}, ["players"]),
])
def test_a_message_missing_its_fields_is_a_bad_message_naming_them(
    web: TestClient, message: dict[str, Any], missing: list[str]
) -> None:
    sign_up(web, "field_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Sloppy"))) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json(message)
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "bad-message" and error["fields"] == missing
        assert all(name in error["message"] for name in missing)


def test_hello_comes_first_even_before_a_ping(web: TestClient) -> None:
    sign_up(web, "ping_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Eager"))) as ws:
        ws.send_json({"type": "ping"})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "bad-message"
        BotProgram(ws).hello()
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_game_start_says_who_is_who(web: TestClient) -> None:
    sign_up(web, "who_owner")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Curious"))) as ws:
        program = BotProgram(ws)
        program.hello()
        ws.send_json({"type": "seek", "mode": "casual", "players": 3})
        program.until(lambda m: m["type"] == "seeking")
        _advance(web, 6.0)  # past Play now's wait: its bots fill the table
        start = program.until(lambda m: m["type"] == "game-start", answer=False)
    mine, *others = start["players"]
    assert mine == {"name": "Curious", "kind": "program", "account": "Curious"}
    assert [p["name"] for p in others] == start["seats"][1:]
    assert all(p["kind"] == "server-bot" and p["level"] and p["account"] is None for p in others)


def test_an_invitation_says_who_is_who_and_marks_open_seats(web: TestClient) -> None:
    sign_up(web, "host_person")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "Invitee"))) as ws:
        program = BotProgram(ws)
        program.hello()
        create_table(web, [{"kind": "program", "name": "Invitee"}, {"kind": "open"}])
        invitation = program.until(lambda m: m["type"] == "invitation")
    assert invitation["players"] == [
        {"name": "host_person", "kind": "person", "account": "host_person"},
        {"name": "Invitee", "kind": "invited", "account": None},
        {"name": None, "kind": "open", "account": None},
    ]


def test_pending_invitations_do_not_count_toward_the_game_limit(web: TestClient) -> None:
    sign_up(web, "limit_host")
    with web.websocket_connect(CONNECT, headers=bearer(make_bot(web, "One_game"))) as ws:
        program = BotProgram(ws)
        program.hello(max_games=1)
        create_table(web, [{"kind": "program", "name": "One_game"}])
        program.until(lambda m: m["type"] == "invitation")
        ws.send_json({"type": "seek", "mode": "casual", "players": 2})
        assert program.until(lambda m: m["type"] in ("seeking", "error"))["type"] == "seeking"


def test_a_bots_profile_counts_its_casual_games(web: TestClient) -> None:
    sign_up(web, "count_owner")
    one_ws, two_ws = _seated_pair(web, ("Counted_A", "Counted_B"))
    with one_ws as one, two_ws as two:
        programs = (BotProgram(one), BotProgram(two))
        code = _seek_both(programs)
        threads = [program.in_thread() for program in programs]
        for thread in threads:
            thread.join(60)
        assert all(code in program.ended for program in programs)
    for name in ("Counted_A", "Counted_B"):
        profile = web.get(f"/api/users/{name}").json()
        # (counted; not listed: Play now's tables are reached by link only)
        assert profile["games_total"] == 1 and profile["games"] == [], name
