"""An account's tables and games (issue #43): "Your move" and "My games" on any device the account
signs in on, not only in the browser that holds the seat tokens. On SQLite and PostgreSQL (the
seats are searched in the table's stored JSON)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.accounts.account_routes import COOKIE

from .conftest import make_client
from .helpers import play_out, receive_until

PASSWORD = "correct horse battery"
ORIGIN = {"Origin": "http://testserver"}
HOUR = 3600


@pytest.fixture
def web(database_url: str) -> Iterator[TestClient]:
    with make_client(database_url) as client:
        client.headers.update(ORIGIN)
        yield client


def account(client: TestClient, name: str, signup: bool = True) -> str:
    """Sign ``name`` up (or in) as a device of its own: a fresh session; returns its cookie."""
    client.cookies.clear()
    response = client.post(f"/api/account/{'signup' if signup else 'signin'}", json={"name": name, "password": PASSWORD})
    assert response.status_code in (200, 201), response.text
    return str(client.cookies.get(COOKIE))


def device(client: TestClient, cookie: str | None) -> TestClient:
    """Requests from now on come from the device holding ``cookie`` (None: signed out). (One test
    client for every device: the app's tables live on its event loop.)"""
    client.cookies.clear()
    if cookie is not None:
        client.cookies.set(COOKIE, cookie)
    return client


def test_your_move_and_my_games_follow_the_account(web: TestClient) -> None:
    assert web.get("/api/account/tables").status_code == 401  # signed out: nothing to list
    phone = account(web, "Ann_1")
    made = web.post("/api/tables", json={"name": "ignored", "seats": [{"kind": "bot", "bot": "easy"}],
                                         "target": 10, "timer": HOUR})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    # a table without this account
    device(web, None)
    assert web.post("/api/tables", json={"name": "Zed", "seats": [{"kind": "open"}]}).status_code == 201
    # another device, signed in as the same account, holds no token: the server knows the seat
    laptop = account(web, "Ann_1", signup=False)
    listed = web.get("/api/account/tables")
    assert listed.status_code == 200, listed.text
    tables = listed.json()
    assert [(t["code"], t["seat"]) for t in tables] == [(code, 0)]
    assert tables[0]["status"] == "playing" and 0 in tables[0]["waiting_for"]
    assert HOUR - 60 < tables[0]["timer_left"] <= HOUR  # the time left for this move
    # another account sees none of it
    account(web, "Bob_2")
    assert web.get("/api/account/tables").json() == []
    assert web.get("/api/account/games").json() == []
    # the laptop resumes the seat and plays the game to the end
    seat = device(web, laptop).post(f"/api/tables/{code}/resume")
    assert seat.status_code == 200, seat.text
    with web.websocket_connect(f"/ws/{code}?token={seat.json()['token']}") as ws:
        play_out(ws, receive_until(ws, lambda m: m.get("type") == "state"))
    device(web, phone)
    assert web.get("/api/account/tables").json() == []  # over: no move of yours awaits
    games = web.get("/api/account/games").json()
    assert len(games) == 1 and games[0]["table"] == code and games[0]["seat"] == 0
    assert games[0]["seats"][0] == "Ann_1"
    # a private table's game: the table's code the list gives opens it
    game_id = games[0]["id"]
    assert web.get(f"/api/games/{game_id}").status_code == 404
    assert web.get(f"/api/games/{game_id}?table={code}").status_code == 200
    assert web.get("/api/account/games?limit=1&offset=1").json() == []


def test_a_seat_left_is_no_longer_the_accounts(web: TestClient) -> None:
    host = web.post("/api/tables", json={"name": "Host", "seats": [{"kind": "open"}]}).json()
    account(web, "Cleo_3")
    code = host["code"]
    token = web.post(f"/api/tables/{code}/join", json={"name": "x"}).json()["token"]  # the game starts
    assert [t["code"] for t in web.get("/api/account/tables").json()] == [code]
    with web.websocket_connect(f"/ws/{code}?token={token}") as ws:
        receive_until(ws, lambda m: m.get("type") == "state")
        ws.send_json({"type": "leave"})
        receive_until(ws, lambda m: m.get("type") == "error" and m["code"] == "seat-lost")
        receive_until(ws, lambda m: m.get("type") == "state")  # (the game then waits for the host)
    assert web.get("/api/account/tables").json() == []
    assert web.post(f"/api/tables/{code}/resume").status_code == 404  # the account has no seat there now


def play_until_deal(ws: Any, first: dict[str, Any], deal: int) -> None:
    """Answer this seat's decisions (the first option) until the game reaches deal ``deal``."""
    last = first
    for _ in range(500):
        view = last["view"]
        if view["deal"] >= deal or view["phase"] == "over":
            return
        asked = view["decision"]
        if asked is not None:
            key = {"card": ("play", "card"), "row": ("row", "row")}[asked["kind"]]
            ws.send_json({"type": key[0], key[1]: asked["options"][0], "deal": view["deal"], "turn": view["turn"]})
        last = receive_until(ws, lambda m, v=view, a=asked: m.get("type") in ("update", "state") and m.get("view") is not None
                             and (m["view"]["decision"] != a or (m["view"]["deal"], m["view"]["turn"]) != (v["deal"], v["turn"])))
    raise AssertionError(f"deal {deal} never came")


def test_an_account_taking_a_seat_over_mid_game_keeps_it_under_the_account(web: TestClient) -> None:
    made = web.post("/api/tables", json={"name": "Host", "seats": [{"kind": "bot", "bot": "easy"}], "target": 200})
    host = made.json()
    code = host["code"]
    account(web, "Dana_4")
    joined = web.post(f"/api/tables/{code}/join", json={"name": "x"}).json()
    assert joined["seat"] == 1 and joined["from_next_deal"] is True
    # asked again (another device of the account): the same seat, still from the next deal
    again = web.post(f"/api/tables/{code}/join", json={"name": "x"}).json()
    assert (again["seat"], again["token"], again["from_next_deal"]) == (1, joined["token"], True)
    assert web.get("/api/account/tables").json() == []  # not seated yet
    with web.websocket_connect(f"/ws/{code}?token={host['token']}") as ws:
        play_until_deal(ws, receive_until(ws, lambda m: m.get("type") == "state"), 1)
    tables = web.get("/api/account/tables").json()
    assert [(t["code"], t["seat"]) for t in tables] == [(code, 1)]
    assert tables[0]["seats"][1]["name"] == "Dana_4" and tables[0]["seats"][1].get("member") is True
    assert web.post(f"/api/tables/{code}/resume").json()["seat"] == 1
