"""The Bot API on two real ``sixnimmt serve`` processes on one PostgreSQL database (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``): a person invites two bot programs, connected to different
processes, to a rated table; the invitation reaches each where it is connected, the game is played
to the end through the cluster's forwarding, and the ratings change. A bot's new connection to one
process replaces its older one on the other, and a token revoked through one process closes its
connection on the other.

Every wait is a receive with a generous timeout; nothing asserts on how long anything took."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from .bot_clients import BotProgram
from .conftest import POSTGRES_URL
from .helpers import receive_until
from .test_cluster_processes import RECEIVE_TIMEOUT, play, servers  # noqa: F401  (a fixture)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]


class JsonSocket:
    """A ``websockets`` client connection with the test client's ``send_json``/``receive_json``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def send_json(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def receive_json(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=RECEIVE_TIMEOUT))
        return message


def test_bots_on_two_processes_play_a_rated_game_with_a_person(
    servers: list[tuple[Any, str]], tmp_path: Path  # noqa: F811
) -> None:
    (_, first), (_, second) = servers
    web = httpx.Client(base_url=f"http://{first}", headers={"Origin": f"http://{first}"}, timeout=30)
    assert web.post("/api/account/signup", json={"name": "pia_host", "password": "correct horse battery"}).status_code == 201
    tokens, owners = {}, {}
    # Each bot of its own owner (a rated table seats no stable-mates), who signs up through the
    # process the bot plays on: each process grants its share of one address's sign-ups.
    for name, home in (("North_Bot", first), ("South_Bot", second)):
        owner = httpx.Client(base_url=f"http://{home}", headers={"Origin": f"http://{home}"}, timeout=30)
        signed_up = owner.post("/api/account/signup", json={"name": f"own_{name}", "password": "correct horse battery"})
        assert signed_up.status_code == 201
        assert owner.post("/api/bots", json={"name": name, "description": "test"}).status_code == 201
        tokens[name] = owner.post(f"/api/bots/{name}/tokens", json={"label": "ci"}).json()["token"]
        owners[name] = owner
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(f"ws://{address}/api/bot/v1/connect",
                                               additional_headers={"Authorization": f"Bearer {tokens[name]}"}))
                   for name, address in (("North_Bot", first), ("South_Bot", second))]
        programs = [BotProgram(JsonSocket(ws)) for ws in sockets]
        for program in programs:
            program.hello()
        online = httpx.get(f"http://{second}/api/bots/online", timeout=30).json()
        assert [b["name"] for b in online] == ["North_Bot", "South_Bot"]  # (each process asks the other)
        made = web.post("/api/tables", json={"name": "x", "rated": True, "seats": [
            {"kind": "program", "name": "North_Bot"}, {"kind": "program", "name": "South_Bot"}]})
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]
        for program in programs:
            invitation = program.until(lambda m: m["type"] == "invitation")
            program.ws.send_json({"type": "accept", "invitation": invitation["invitation"]})
        threads = [threading.Thread(target=program.play_games, daemon=True) for program in programs]
        for thread in threads:
            thread.start()
        with connect(f"ws://{second}/ws/{code}", subprotocols=["sixnimmt", f"token.{token}"]) as person_ws:  # type: ignore[list-item]
            person = JsonSocket(person_ws)
            first_view = receive_until(person, lambda m: m.get("type") in ("state", "update")
                                       and m["table"]["status"] == "playing")
            last = play({0: person_ws}, {0: first_view["view"]})[0]
        for thread in threads:
            thread.join(120)
        assert not any(thread.is_alive() for thread in threads)
        assert all(p.ended[code]["totals"] == last["totals"] for p in programs)
        assert not any(m["type"] == "error" for p in programs for m in p.messages)
    for name in ("pia_host", "North_Bot", "South_Bot"):
        ratings = web.get(f"/api/users/{name}").json()["ratings"]
        assert ratings["standard"]["games"] == 1, name
    # one connection per bot, whichever process it reaches: a new one replaces the older elsewhere
    headers = {"Authorization": f"Bearer {tokens['South_Bot']}"}
    with connect(f"ws://{second}/api/bot/v1/connect", additional_headers=headers) as older:
        BotProgram(JsonSocket(older)).hello()
        with connect(f"ws://{first}/api/bot/v1/connect", additional_headers=headers) as newer:
            BotProgram(JsonSocket(newer)).hello()
            with pytest.raises(ConnectionClosed) as closed:
                older.recv(timeout=RECEIVE_TIMEOUT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    # a token revoked through one process closes its connection on the other within seconds
    with connect(f"ws://{second}/api/bot/v1/connect", additional_headers={
            "Authorization": f"Bearer {tokens['North_Bot']}"}) as north:
        BotProgram(JsonSocket(north)).hello()
        token_id = owners["North_Bot"].get("/api/bots/North_Bot/tokens").json()[0]["id"]
        assert owners["North_Bot"].delete(f"/api/bots/North_Bot/tokens/{token_id}").status_code == 204  # (the first)
        with pytest.raises(ConnectionClosed) as closed:
            north.recv(timeout=RECEIVE_TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


def test_a_table_of_programs_on_two_processes_ends_when_both_go_for_good(tmp_path: Path) -> None:
    """Each program connected to its own process, then gone: the process that drives the table has
    the stand-in play both seats after the grace (1 s here), with nobody connected, to the end."""
    import subprocess
    import sys
    import time

    from .conftest import fresh_postgres_url
    from .test_restart import free_port

    url, started = fresh_postgres_url(), []
    for n in range(2):
        port = free_port()
        started.append((subprocess.Popen(
            [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url", url,
             "--bot-delay", "0", "--program-grace", "1", "--log-level", "warning"],
            stdout=(tmp_path / f"server-{n}.log").open("ab"), stderr=subprocess.STDOUT), f"127.0.0.1:{port}"))
    try:
        for _, address in started:
            for _ in range(600):  # (up)
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"http://{address}/healthz", timeout=0.5).status_code == 200:
                        break
                time.sleep(0.1)
        (_, first), (_, second) = started
        web = httpx.Client(base_url=f"http://{first}", headers={"Origin": f"http://{first}"}, timeout=30)
        assert web.post("/api/account/signup", json={"name": "gone_host", "password": "correct horse battery"}).status_code == 201
        tokens = {}
        for name in ("East_Gone", "West_Gone"):
            assert web.post("/api/bots", json={"name": name, "description": "test"}).status_code == 201
            tokens[name] = web.post(f"/api/bots/{name}/tokens", json={"label": "ci"}).json()["token"]
        with contextlib.ExitStack() as stack:
            sockets = [stack.enter_context(connect(f"ws://{address}/api/bot/v1/connect",
                                                   additional_headers={"Authorization": f"Bearer {tokens[name]}"}))
                       for name, address in (("East_Gone", first), ("West_Gone", second))]
            programs = [BotProgram(JsonSocket(ws)) for ws in sockets]
            for program in programs:
                program.hello()
                program.ws.send_json({"type": "seek", "mode": "casual", "players": 2})
                code = program.until(lambda m: m["type"] == "seeking")["game"]
            for program in programs:
                program.until(lambda m: m["type"] == "decide", answer=False)
        for _ in range(1200):  # (a bounded poll: the stand-in plays every decision once the grace is over)
            status = web.get(f"/api/tables/{code}").json().get("status")
            if status == "finished":
                break
            time.sleep(0.1)
        assert status == "finished"
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=20)
