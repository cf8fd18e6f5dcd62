"""Leave (issue #43): a player gives their seat up. Before the game the seat opens at once; once the
game runs the seat's token stops working at once, the others are told, the stand-in plays the seat
without waiting out the grace for the away, and the seat opens at the next deal. Through the real
routes and sockets."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from .helpers import create_table, receive_until

#: A socket that waits for a message the server never sends fails the test instead of hanging it.
pytestmark = pytest.mark.timeout(120)


def join(client: TestClient, code: str, name: str) -> dict[str, Any]:
    response = client.post(f"/api/tables/{code}/join", json={"name": name})
    assert response.status_code == 200, response.text
    return response.json()


def state_of(ws: Any) -> dict[str, Any]:
    return receive_until(ws, lambda m: m.get("type") == "state")


def next_turn(ws: Any, view: dict[str, Any]) -> tuple[int, int]:
    """Answer this seat's decisions (the first option) until the game is past ``view``'s turn;
    returns the new (deal, turn)."""
    asked = view["decision"]
    for _ in range(200):
        if asked is not None:
            kind = {"card": ("play", "card"), "row": ("row", "row")}[asked["kind"]]
            ws.send_json({"type": kind[0], kind[1]: asked["options"][0], "deal": view["deal"], "turn": view["turn"]})
        message = receive_until(ws, lambda m: m.get("type") in ("update", "state") and m["view"] is not None)
        now = message["view"]
        if (now["deal"], now["turn"]) != (view["deal"], view["turn"]) or now["phase"] == "over":
            return now["deal"], now["turn"]
        asked = now["decision"] if now["decision"] != asked else None
    raise AssertionError("the turn did not end")


def test_leaving_a_game_under_way(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "bot", "bot": "easy"}], target=10)
    code = table["code"]
    bo = join(client, code, "Bo")  # the last open seat: the game starts
    with client.websocket_connect(f"/ws/{code}?token={table['token']}") as ana, \
            client.websocket_connect(f"/ws/{code}?token={bo['token']}") as bo_ws:
        first = state_of(ana)
        assert state_of(bo_ws)["table"]["you"] == 1
        assert first["table"]["status"] == "playing"
        view = first["view"]
        bo_ws.send_json({"type": "leave"})
        # the others are told at once: seat 2 is leaving
        seats = receive_until(ana, lambda m: m.get("type") == "seats")
        assert seats["seats"][1]["leaving"] is True
        # the leaver's socket no longer speaks for the seat: it watches
        lost = receive_until(bo_ws, lambda m: m.get("type") == "error")
        assert lost["code"] == "seat-lost"
        assert state_of(bo_ws)["table"]["you"] is None
        # the stand-in plays the seat at once (the grace for the away is 30 s): Ana's answers end the turn
        assert next_turn(ana, view) != (view["deal"], view["turn"])
    # the token no longer holds the seat: a socket with it watches, and is told why
    with client.websocket_connect(f"/ws/{code}?token={bo['token']}") as again:
        refused = receive_until(again, lambda m: m.get("type") in ("error", "state"))
        assert refused["type"] == "error" and refused["code"] == "unknown-token"
        assert state_of(again)["table"]["you"] is None
    summary = client.get(f"/api/tables/{code}").json()
    assert summary["seats"][1]["leaving"] is True and summary["seats"][1]["connected"] is False


def test_leaving_before_the_game_opens_the_seat(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "open"}])
    code = table["code"]
    cy = join(client, code, "Cy")
    assert cy["seat"] == 1
    with client.websocket_connect(f"/ws/{code}?token={table['token']}") as ana, \
            client.websocket_connect(f"/ws/{code}?token={cy['token']}") as cy_ws:
        state_of(ana)
        state_of(cy_ws)
        cy_ws.send_json({"type": "leave"})
        seats = receive_until(ana, lambda m: m.get("type") == "seats")
        assert seats["seats"][1]["kind"] == "open" and seats["open"] == 2
    with client.websocket_connect(f"/ws/{code}?token={cy['token']}") as again:
        assert receive_until(again, lambda m: m.get("type") in ("error", "state"))["code"] == "unknown-token"
    # the seat is anyone's again
    assert join(client, code, "Di")["seat"] == 1
