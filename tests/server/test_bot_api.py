"""The Bot API (docs/bot-api.md): bot accounts and their tokens, the bot program's connection, and
what a bad, revoked or someone else's token gets."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from sixnimmt.server.clock import ManualClock

from .conftest import make_client
from .test_accounts import sign_up, signed

CONNECT = "/api/bot/v1/connect"


def make_bot(client: TestClient, name: str, description: str = "plays fair") -> str:
    """A bot account of the signed-in person, and a token for it."""
    made = client.post("/api/bots", json={"name": name, "description": description})
    assert made.status_code == 201, made.text
    token = client.post(f"/api/bots/{name}/tokens", json={"label": "laptop"})
    assert token.status_code == 201, token.text
    return str(token.json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def hello(ws: Any, max_games: int = 4) -> dict[str, Any]:
    ws.send_json({"type": "hello", "protocol": 2, "client": "test/1", "max_games": max_games})
    welcome: dict[str, Any] = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return welcome


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(f"sqlite:///{tmp_path / 'bots.db'}", ManualClock()) as client:
        yield signed(client)


def test_a_person_makes_a_bot_whose_token_is_shown_once(web: TestClient) -> None:
    sign_up(web, "ada_owner")
    token = make_bot(web, "Deep_Cow", "<b>bold</b> moves")
    assert token.startswith("snb_") and len(token) > 40
    assert web.get("/api/bots").json() == [
        {"name": "Deep_Cow", "description": "<b>bold</b> moves", "owner": "ada_owner",
         "created": web.get("/api/bots").json()[0]["created"], "online": False}]
    listed = web.get("/api/bots/Deep_Cow/tokens").json()
    assert [t["label"] for t in listed] == ["laptop"] and "token" not in listed[0]
    assert listed[0]["last_used"] is None
    # a bot is marked as one on its profile, with its owner; it can never sign in
    profile = web.get("/api/users/Deep_Cow").json()["user"]
    assert profile["kind"] == "bot" and profile["owner"] == "ada_owner"
    refused = web.post("/api/account/signin", json={"name": "Deep_Cow", "password": "anything at all 1"})
    assert refused.status_code == 401
    # people and bots share one namespace
    assert web.post("/api/bots", json={"name": "ada_owner"}).status_code == 409
    assert web.post("/api/bots", json={"name": "bot-easy"}).status_code == 422


def test_a_bot_connects_with_its_token_and_is_online(web: TestClient) -> None:
    sign_up(web, "bea_owner")
    token = make_bot(web, "Cowculator")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        welcome = hello(ws, max_games=50)
        assert welcome["bot"] == "Cowculator" and welcome["owner"] == "bea_owner"
        assert welcome["limits"]["games"] == 8 and welcome["games"] == []  # capped by the server
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        online = web.get("/api/bots/online").json()
        assert [(b["name"], b["owner"], b["max_games"]) for b in online] == [("Cowculator", "bea_owner", 8)]
        ws.send_json({"type": "move", "game": "ABCDE", "id": 1, "move": 3})
        assert ws.receive_json()["code"] == "unknown-game"
    assert web.get("/api/bots/Cowculator/tokens").json()[0]["last_used"] is not None
    assert web.get("/api/bots/online").json() == []


@pytest.mark.parametrize("how", ["wrong", "missing", "revoked", "in-url", "deleted"])
def test_a_bad_token_gets_401_and_is_never_logged_in_full(
    web: TestClient, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    sign_up(web, "cid_owner")
    token = make_bot(web, "Moo_Bot")
    caplog.set_level(logging.DEBUG)
    headers = bearer(token)
    url = CONNECT
    if how == "wrong":
        headers = bearer("snb_" + "x" * 43)
    elif how == "missing":
        headers = {}
    elif how == "revoked":
        token_id = web.get("/api/bots/Moo_Bot/tokens").json()[0]["id"]
        assert web.delete(f"/api/bots/Moo_Bot/tokens/{token_id}").status_code == 204
    elif how == "in-url":
        url, headers = f"{CONNECT}?token={token}", {}
    else:
        assert web.delete("/api/bots/Moo_Bot").status_code == 204
    with pytest.raises(WebSocketDenialResponse) as refused:
        with web.websocket_connect(url, headers=headers):
            pass
    assert refused.value.status_code == 401
    assert refused.value.json()["code"] in ("bad-token", "token-in-url")
    assert token not in caplog.text and token[8:20] not in caplog.text


def test_another_owners_bot_is_not_yours(web: TestClient) -> None:
    sign_up(web, "dan_owner")
    make_bot(web, "Dans_Bot")
    web.post("/api/account/signout")
    sign_up(web, "eve_other")
    assert web.get("/api/bots/Dans_Bot/tokens").status_code == 403
    assert web.post("/api/bots/Dans_Bot/tokens", json={"label": "mine now"}).status_code == 403
    assert web.delete("/api/bots/Dans_Bot").status_code == 403
    assert web.delete("/api/bots/Dans_Bot/tokens/1").status_code == 403


def test_a_revoked_token_closes_its_connection_at_once(web: TestClient) -> None:
    sign_up(web, "fay_owner")
    token = make_bot(web, "Revokee")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        hello(ws)
        token_id = web.get("/api/bots/Revokee/tokens").json()[0]["id"]
        assert web.delete(f"/api/bots/Revokee/tokens/{token_id}").status_code == 204
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_a_second_connection_replaces_the_first(web: TestClient) -> None:
    sign_up(web, "gus_owner")
    token = make_bot(web, "Twice")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as first:
        hello(first)
        with web.websocket_connect(CONNECT, headers=bearer(token)) as second:
            with pytest.raises(WebSocketDisconnect) as closed:
                first.receive_json()
            assert closed.value.code == 4409
            assert hello(second)["bot"] == "Twice"
