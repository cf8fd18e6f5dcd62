"""Moderation through one real ``sixnimmt serve`` process reaching a table another drives (skipped
without ``SIXNIMMT_TEST_POSTGRES_URL``): a block made through the HTTP routes of the process that
does not drive the table hides the blocked player's chat at once, and a ban made through the admin
page of that process closes the banned player's socket at once. Every wait is a receive with a
generous timeout; nothing asserts on how long anything took."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from sixnimmt.cli import run

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster_processes import RECEIVE_TIMEOUT, start_servers

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]
PASSWORD = "correct horse battery"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    url = fresh_postgres_url()
    started = start_servers(url, 2, tmp_path)
    try:
        yield url, [address for _, address in started]
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _ in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def client(address: str) -> httpx.Client:
    return httpx.Client(base_url=f"http://{address}", headers={"Origin": f"http://{address}"}, timeout=30)


def signed_up(address: str, name: str) -> httpx.Client:
    web = client(address)
    assert web.post("/api/account/signup", json={"name": name, "password": PASSWORD}).status_code == 201
    return web


def receive(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=RECEIVE_TIMEOUT))
    return message


def heard(ws: ClientConnection) -> list[str]:
    """The chat lines a socket receives until the answer to a ping (all that was sent before it)."""
    ws.send(json.dumps({"type": "ping"}))
    lines = []
    while (message := receive(ws))["type"] != "pong":
        if message["type"] == "chat":
            lines.append(message["text"])
    return lines


def test_a_block_and_a_ban_through_one_process_hold_at_once_at_a_table_the_other_drives(
        cluster: tuple[str, list[str]]) -> None:
    url, (first, second) = cluster
    alice, bob = signed_up(first, "Alice"), signed_up(first, "Bob")
    made = alice.post("/api/tables", json={"name": "x", "seats": [{"kind": "open"}, {"kind": "bot"}]})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    joined = bob.post(f"/api/tables/{code}/join", json={"name": "y"})
    assert joined.status_code == 200, joined.text
    with connect(f"ws://{first}/ws/{code}?token={made.json()['token']}") as alice_ws, \
            connect(f"ws://{first}/ws/{code}?token={joined.json()['token']}") as bob_ws:
        bob_ws.send(json.dumps({"type": "chat", "text": "before"}))
        assert "before" in heard(bob_ws) and "before" in heard(alice_ws)
        # Alice blocks Bob through the process that does not drive the table (her socket stays)
        on_second = client(second)
        assert on_second.post("/api/account/signin", json={"name": "Alice", "password": PASSWORD}).status_code == 200
        assert on_second.post("/api/account/blocks", json={"name": "Bob"}).status_code == 201
        bob_ws.send(json.dumps({"type": "chat", "text": "after"}))
        assert heard(bob_ws) == ["after"]
        alice_ws.send(json.dumps({"type": "chat", "text": "mine"}))
        assert heard(alice_ws) == ["mine"]  # Bob's line never came
        # a moderator bans Bob through the admin page of the other process: his socket closes now
        moderator = signed_up(second, "Modder")
        assert run(["admin", "--database-url", url, "moderator", "Modder", "--reason", "staff"]) == 0
        banned = moderator.post("/api/admin/ban", json={"name": "Bob", "length": "7d", "reason": "abuse"})
        assert banned.status_code == 200, banned.text
        codes = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                codes.append(receive(bob_ws).get("code"))
        assert "account-banned" in codes and closed.value.rcvd is not None and closed.value.rcvd.code == 4403
