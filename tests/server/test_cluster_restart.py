"""Two real ``sixnimmt serve`` processes on a PostgreSQL server of the test's own, restarted in the
middle of a game (skipped where no PostgreSQL binaries are installed): the processes say so on
``/healthz`` and ``/readyz`` while the database is down, reconnect by themselves when it is back,
the lobby answers again, and the game, whose players sit on different processes and reconnect when
their sockets are closed, is finished with every card a player was told was chosen kept.

Every wait is a bounded number of polls or a receive with a generous timeout; nothing asserts on
how long anything took (docs/deploy.md gives the times measured)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from .postgres_server import PostgresServer
from .test_cluster_processes import STALE, start_servers
from .test_restart import free_port

pytestmark = pytest.mark.slow

#: Refusals a player may get around an outage: the change was not saved (the page tries again), or
#: the table is being taken over (the socket is closed and reconnects).
OUTAGE = ("store-failed", "table-unavailable")
RECEIVE_TIMEOUT = 30.0  # seconds: generous, a loaded machine; never a measurement


@pytest.fixture
def database() -> Iterator[PostgresServer]:
    server = PostgresServer.make(free_port())
    if server is None:
        pytest.skip("no PostgreSQL binaries here (initdb, pg_ctl) to run a server of the test's own")
    try:
        server.start()
        yield server
    finally:
        server.destroy()


class Player:
    """One seat's page: a socket that reconnects when it is closed, answers its decisions with the
    first option, and notes every card the server confirmed as chosen (``acks``) and every time a
    confirmed card was found missing again (``lost``)."""

    def __init__(self, address: str, code: str, token: str, seat: int) -> None:
        self.url = f"ws://{address}/ws/{code}?token={token}"
        self.seat = seat
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] = {}
        self.answered: dict[str, Any] | None = None
        self.sent: tuple[int, int, int] | None = None
        self.acks: dict[tuple[int, int], int] = {}
        self.lost: list[tuple[int, int]] = []
        self.reconnects = 0
        self.connect()

    def connect(self) -> None:
        for _ in range(1200):
            try:
                ws = ExitStack().enter_context(connect(self.url, open_timeout=10))  # (closed by ws.close())
            except (OSError, InvalidHandshake, TimeoutError):
                time.sleep(0.1)
                continue
            try:
                first = json.loads(ws.recv(timeout=RECEIVE_TIMEOUT))
            except (ConnectionClosed, TimeoutError):
                ws.close()
                time.sleep(0.1)
                continue
            if first["type"] == "state":
                self.ws = ws
                self.on_view(first["view"])
                return
            assert first.get("code") in OUTAGE, first  # refused for now: the page tries again
            ws.close()
            time.sleep(0.1)
        raise AssertionError("the player could not reconnect")

    def on_view(self, view: dict[str, Any]) -> None:
        assert view["seat"] == self.seat
        key = (view["deal"], view["turn"])
        if key in self.acks and view["phase"] == "play" and view["my_choice"] is None:
            self.lost.append(key)
        if self.sent is not None and self.sent[:2] == key and view.get("my_choice") == self.sent[2]:
            # (a view is built from saved state only: showing the card is confirming it, as a
            # ``chosen`` message does when the view comes first, after a reconnect say)
            self.acks[key] = self.sent[2]
        self.view = view

    @property
    def over(self) -> bool:
        return self.view.get("phase") == "over"

    def step(self) -> None:
        """Answer if there is something to answer, then take one message (or none in 0.1 s)."""
        assert self.ws is not None
        view = self.view
        decision = view.get("decision")
        try:
            if decision is not None and not self.over and self.answered is not view:
                kind, field = {"card": ("play", "card"), "row": ("row", "row")}[decision["kind"]]
                value = decision["options"][0]
                self.ws.send(json.dumps({"type": kind, field: value, "deal": view["deal"], "turn": view["turn"]}))
                self.answered = view
                self.sent = (view["deal"], view["turn"], value) if kind == "play" else None
            message = json.loads(self.ws.recv(timeout=0.1))
        except TimeoutError:
            return
        except ConnectionClosed:
            self.reconnects += 1
            self.connect()
            return
        if message["type"] == "error":
            assert message.get("code") in STALE + OUTAGE, message
        elif message["type"] == "chosen" and "own" in message:
            own = message["own"]
            self.view = {**self.view, **own, "chosen": message["chosen"], "waiting_for": message["waiting_for"]}
            if self.sent is not None and own.get("my_choice") == self.sent[2]:
                self.acks[self.sent[:2]] = self.sent[2]
        elif message["type"] in ("state", "update") and message.get("view") is not None:
            self.on_view(message["view"])

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


def play(players: list[Player], until: Any) -> None:
    for _ in range(3000):  # (a whole game takes a few hundred rounds)
        if until():
            return
        for player in players:
            player.step()
    raise AssertionError("the game did not get there")


def poll(address: str, path: str, status: int, tries: int = 600) -> dict[str, Any]:
    """GET ``path`` until it answers ``status`` (0.1 s apart, a bounded number of times)."""
    for _ in range(tries):
        try:
            response = httpx.get(f"http://{address}{path}", timeout=5)
            if response.status_code == status:
                body: dict[str, Any] | list[Any] = response.json()
                return body if isinstance(body, dict) else {"body": body}
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{address}{path} never answered {status}")


def test_a_database_restart_mid_game_two_processes_recover_and_the_game_finishes(
    database: PostgresServer, tmp_path: Path,
) -> None:
    """The host plays through A (which drives the table), the friend through B. Mid-game the
    database is restarted (``pg_ctl restart -m fast``), the game goes on; then it is stopped: both
    processes report it on ``/healthz`` and ``/readyz`` (503) and the lobby refuses with 503; it is
    started again: both report ok, the lobby answers 200, and the game is finished through the
    processes with no card the server confirmed lost, every confirmed card in the finished game's
    record (the host's card chosen just before each outage among them). (Before, the processes' cluster connections stayed dead: ``/healthz`` said ok, the
    lobby answered 500 and the friend's moves never arrived.)"""
    servers = start_servers(database.url, 2, tmp_path)
    (_, a), (_, b) = servers
    players: list[Player] = []
    try:
        table = httpx.post(f"http://{a}/api/tables", json={
            "name": "Host", "seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"}], "target": None,
            "deals": 2, "public": True,
        }).json()
        code = table["code"]
        joined = httpx.post(f"http://{b}/api/tables/{code}/join", json={"name": "Friend"}).json()
        players = [Player(a, code, table["token"], 0), Player(b, code, joined["token"], 1)]

        def at_turn(turn: int) -> Any:
            return lambda: all(p.view["deal"] == 0 and p.view["turn"] >= turn for p in players)

        host = players[0]

        def host_chose() -> bool:  # the host's card of this turn is confirmed; the friend's is not in yet
            return (host.view["deal"], host.view["turn"]) in host.acks

        play(players, at_turn(2))
        play([host], host_chose)
        kept = dict(host.acks)
        database.restart()  # a short restart: the processes reconnect at once
        play(players, at_turn(5))
        play([host], host_chose)
        kept.update(host.acks)
        database.stop()
        for address in (a, b):
            health = poll(address, "/healthz", 503)
            assert health["status"] == "unavailable" and health["database"] == "reconnecting"
            assert poll(address, "/readyz", 503)["status"] == "unavailable"
            assert poll(address, "/api/tables", 503)["code"] == "table-unavailable"
        database.start()
        for address in (a, b):
            assert poll(address, "/healthz", 200)["database"] == "connected"
            poll(address, "/readyz", 200)
            poll(address, "/api/tables", 200)
        play(players, lambda: all(p.over for p in players))
        assert players[0].view["totals"] == players[1].view["totals"]
        assert sum(p.reconnects for p in players) >= 2  # the sockets were closed by the outages
        for player in players:
            assert player.lost == [], f"seat {player.seat} lost confirmed cards at {player.lost}"
        game_id = httpx.get(f"http://{a}/api/tables/{code}").json()["last_game_id"]  # (private: asked with its code)
        game = httpx.get(f"http://{a}/api/games/{game_id}", params={"table": code}).json()
        assert game["table"] == code
        events = httpx.get(f"http://{b}/api/games/{game_id}/events", params={"table": code}).json()["events"]
        revealed = {(e["deal"], e["turn"]): e["plays"] for e in events if e["type"] == "cards-revealed"}
        assert kept.items() <= host.acks.items()
        for player in players:
            for (deal, turn), card in player.acks.items():
                assert revealed[(deal, turn)][player.seat] == card, (player.seat, deal, turn)
    finally:
        for player in players:
            player.close()
        for process, _ in servers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, _ in servers:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
