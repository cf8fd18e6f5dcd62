"""A join with a client's key is safe to retry: the same key gets the same seat and token, never a
second seat; a key that is not one is refused with one line."""

from __future__ import annotations

import secrets

from fastapi.testclient import TestClient

from .helpers import create_table


def test_a_join_retried_with_its_key_gets_the_same_seat_and_token(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "open"}, {"kind": "bot", "bot": "random"}])
    code, key = table["code"], secrets.token_urlsafe(18)
    first = client.post(f"/api/tables/{code}/join", json={"name": "Ann", "key": key})
    again = client.post(f"/api/tables/{code}/join", json={"name": "Ann", "key": key})
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() and first.json()["seat"] == 1
    other = client.post(f"/api/tables/{code}/join", json={"name": "Bob", "key": secrets.token_urlsafe(18)})
    assert other.status_code == 200 and other.json()["seat"] == 2 and other.json()["token"] != first.json()["token"]
    seats = client.get(f"/api/tables/{code}").json()["seats"]
    assert [s["name"] for s in seats[1:3]] == ["Ann", "Bob"]
    with client.websocket_connect(f"/ws/{code}?token={first.json()['token']}") as ws:
        assert ws.receive_json()["table"]["you"] == 1


def test_a_join_key_that_is_not_one_is_refused(client: TestClient) -> None:
    code = create_table(client, [{"kind": "open"}])["code"]
    for key in ("short", "x" * 65, "spaces are not allowed here!!"):
        response = client.post(f"/api/tables/{code}/join", json={"name": "Ann", "key": key})
        assert response.status_code == 422 and response.json()["params"]["field"] == "key", response.text
    assert client.get(f"/api/tables/{code}").json()["seats"][1]["kind"] == "open"
