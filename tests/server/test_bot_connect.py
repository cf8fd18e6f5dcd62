"""``sixnimmt bot connect`` against the real server: ``sixnimmt serve`` processes, a person signed up
over HTTP who makes bot accounts and their tokens, two ``bot connect`` processes (a built-in bot
and an external program from examples/bots) and the example that speaks the API itself, a rated
table where the person plays with them, and the ratings that change. Then the same on PostgreSQL with two server processes, each bot on
its own; and a bot whose connection is cut mid-game, which reconnects and finishes with no fault.

Every wait is a bounded poll or a receive with a generous timeout; nothing asserts on time."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster_processes import latest, play, start_servers
from .test_restart import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SIXNIMMT = Path(sys.executable).parent / "sixnimmt"
PYTHON_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'python_bot.py'}"
PASSWORD = "correct horse battery 9"

Servers = list[tuple[subprocess.Popen[bytes], str]]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def one_server(tmp_path: Path) -> Iterator[Servers]:
    started = start_servers(f"sqlite:///{tmp_path / 'online.db'}", 1, tmp_path)
    yield started
    stop([p for p, _ in started])


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[Servers]:
    if not POSTGRES_URL:
        pytest.skip("PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL")
    started = start_servers(fresh_postgres_url(), 2, tmp_path)
    yield started
    stop([p for p, _ in started])


def stranger_bot(host: Person, name: str, folder: Path, at: str | None = None) -> Path:
    """A bot of an owner of its own on ``host``'s server (signed up through worker ``at``, if
    given): a rated table seats no bot with its owner nor two bots of one owner. With several
    workers, each grants its share of an address's sign-ups, so sign-ups spread over them as a
    proxy would spread them."""
    return Person(at or host.base.removeprefix("http://"), f"own_{name}").make_bot(name, folder)


class Person:
    """A signed-up person over HTTP (the session cookie, the Origin the server checks)."""

    def __init__(self, address: str, name: str) -> None:
        self.base = f"http://{address}"
        self.http = httpx.Client(base_url=self.base, headers={"Origin": self.base}, timeout=30)
        made = self.http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        assert made.status_code == 201, made.text
        self.name = name

    def make_bot(self, name: str, folder: Path) -> Path:
        """A bot account with a token, written to a file as ``bot connect`` reads it."""
        assert self.http.post("/api/bots", json={"name": name, "description": "test"}).status_code == 201
        token = self.http.post(f"/api/bots/{name}/tokens", json={"label": "test"})
        assert token.status_code == 201, token.text
        path = folder / f"{name}.token"
        path.write_text(token.json()["token"] + "\n")
        return path

    def wait_online(self, names: set[str]) -> None:
        for _ in range(600):
            if {b["name"] for b in self.http.get("/api/bots/online").json()} >= names:
                return
            time.sleep(0.1)
        raise AssertionError(f"{names} never came online")

    def rated_table_with(self, bots: list[str]) -> dict[str, Any]:
        """A rated table: the person in seat 1, each bot invited to the next seat."""
        table = self.http.post("/api/tables", json={
            "name": self.name, "seats": [{"kind": "open"}] * len(bots), "rated": True,
        })
        assert table.status_code == 201, table.text
        made: dict[str, Any] = table.json()
        for seat, bot in enumerate(bots, start=1):
            invited = self.http.post(f"/api/tables/{made['code']}/invite-bot",
                                     json={"seat": seat, "bot": bot, "token": made["token"]})
            assert invited.status_code == 200, invited.text
        for _ in range(600):  # each bot accepts and sits down: the game starts
            if self.http.get(f"/api/tables/{made['code']}").json()["status"] == "playing":
                return made
            time.sleep(0.1)
        raise AssertionError("the bots never sat down")

    def rating(self, name: str) -> dict[str, Any] | None:
        ratings: dict[str, Any] = self.http.get(f"/api/users/{name}").json()["ratings"]
        return ratings.get("standard")


def bot_connect(address: str, token: Path, spec: str, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(SIXNIMMT), "bot", "connect", f"http://{address}", "--token-file", str(token), spec],
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def play_with_bots(person: Person, address: str, table: dict[str, Any], cut: Any = None) -> dict[str, Any]:
    """The person plays its seat to the end (first option each time); ``cut()`` (a connection cut,
    a Ctrl-C) is called at turn 4."""
    with connect(f"ws://{address}/ws/{table['code']}?token={table['token']}") as ws:
        views = {0: latest(ws)}
        if cut is not None:
            views = play({0: ws}, views, until_turn=3)
            cut()
        final: dict[str, Any] = play({0: ws}, views)[0]
    assert final["phase"] == "over"
    return final


def stop_bots(bots: list[subprocess.Popen[bytes]]) -> None:
    """Ctrl-C each: no game in progress, so each exits at once, cleanly."""
    for bot in bots:
        bot.send_signal(signal.SIGINT)
    assert [bot.wait(timeout=60) for bot in bots] == [0] * len(bots)


def faults(logs: Path) -> list[str]:
    return [line for path in logs.glob("server-*.log") for line in path.read_text().splitlines() if "fault" in line]


def test_two_bots_connected_play_a_rated_game_with_a_person(one_server: Servers, tmp_path: Path) -> None:
    """With them, the example that speaks the API itself (examples/bots/online_bot.py)."""
    (_, address), = one_server
    ada = Person(address, "ada_online")
    bots = [bot_connect(address, stranger_bot(ada, "moo_easy", tmp_path), "easy", tmp_path / "easy.log"),
            bot_connect(address, stranger_bot(ada, "moo_program", tmp_path), PYTHON_BOT, tmp_path / "program.log")]
    example = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "bots" / "online_bot.py"), f"http://{address}",
         str(stranger_bot(ada, "moo_example", tmp_path))], stderr=(tmp_path / "example.log").open("wb"))
    try:
        ada.wait_online({"moo_easy", "moo_program", "moo_example"})
        assert ada.rating("moo_easy") is None
        table = ada.rated_table_with(["moo_easy", "moo_program", "moo_example"])

        def ctrl_c() -> None:  # mid-game: each finishes its game, then exits by itself
            for bot in bots:
                bot.send_signal(signal.SIGINT)

        final = play_with_bots(ada, address, table, cut=ctrl_c)
        assert [bot.wait(timeout=60) for bot in bots] == [0, 0]
    finally:
        stop([*bots, example])
    for name in ("ada_online", "moo_easy", "moo_program", "moo_example"):
        rating = ada.rating(name)
        assert rating is not None and rating["games"] == 1 and rating["mu"] != 25.0, (name, rating)
    assert final["seats"] == ["ada_online", "moo_easy", "moo_program", "moo_example"]
    assert f"game {table['code']} over" in (tmp_path / "example.log").read_text()
    for log in ("easy.log", "program.log"):
        text = (tmp_path / log).read_text()
        assert "stopping: finishing 1 game(s)" in text and f"game {table['code']}: " in text.split("stopping")[1]
    assert "game " + table["code"] in (tmp_path / "easy.log").read_text()
    assert faults(tmp_path) == []


def test_the_same_on_postgresql_with_each_bot_on_its_own_worker(two_servers: Servers, tmp_path: Path) -> None:
    (_, a), (_, b) = two_servers
    ada = Person(a, "ada_cluster")
    bots = [bot_connect(a, stranger_bot(ada, "moo_on_a", tmp_path), "easy", tmp_path / "a.log"),
            bot_connect(b, stranger_bot(ada, "moo_on_b", tmp_path, at=b), PYTHON_BOT, tmp_path / "b.log")]
    try:
        ada.wait_online({"moo_on_a", "moo_on_b"})
        table = ada.rated_table_with(["moo_on_a", "moo_on_b"])
        play_with_bots(ada, a, table)
        stop_bots(bots)
    finally:
        stop(bots)
    for name in ("ada_cluster", "moo_on_a", "moo_on_b"):
        rating = ada.rating(name)
        assert rating is not None and rating["games"] == 1 and rating["mu"] != 25.0, (name, rating)
    assert faults(tmp_path) == []


class CuttableProxy:
    """A TCP relay to ``targets`` (in turns, one per connection, as a load balancer may) whose
    connections :meth:`cut` drops at once, as a network failure does; it keeps listening, so the
    client can come back through it."""

    def __init__(self, *targets: str) -> None:
        self.targets = [(host, int(port)) for host, port in (t.split(":") for t in targets)]
        self.listener = socket.create_server(("127.0.0.1", free_port()))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.targets[self.accepted % len(self.targets)])
            self.accepted += 1
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        sockets, self.sockets = self.sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


def test_a_cut_connection_is_made_again_and_the_game_finished_without_a_fault(
    one_server: Servers, tmp_path: Path
) -> None:
    (_, address), = one_server
    proxy = CuttableProxy(address)
    ada = Person(address, "ada_cut")
    log = tmp_path / "cut.log"
    bots = [bot_connect(proxy.address, stranger_bot(ada, "moo_cut", tmp_path), "easy", log),
            bot_connect(address, stranger_bot(ada, "moo_steady", tmp_path), PYTHON_BOT, tmp_path / "steady.log")]
    try:
        ada.wait_online({"moo_cut", "moo_steady"})
        table = ada.rated_table_with(["moo_cut", "moo_steady"])
        play_with_bots(ada, address, table, cut=proxy.cut)
        stop_bots(bots)
    finally:
        stop(bots)
        proxy.close()
    text = log.read_text()
    assert proxy.accepted >= 2 and "reconnected as moo_cut" in text, text
    assert f"game {table['code']}: won" in text or f"game {table['code']}: lost" in text, text
    assert ada.rating("moo_cut") is not None
    assert faults(tmp_path) == []


def test_a_cut_connection_comes_back_through_the_other_worker_and_finishes(
    two_servers: Servers, tmp_path: Path
) -> None:
    """On PostgreSQL with two server processes: the bot first reaches A, its connection is cut
    mid-game, and it comes back through B (as behind a load balancer); the game goes on."""
    (_, a), (_, b) = two_servers
    proxy = CuttableProxy(a, b)
    ada = Person(a, "ada_moves")
    log = tmp_path / "moved.log"
    bots = [bot_connect(proxy.address, stranger_bot(ada, "moo_moved", tmp_path), "easy", log),
            bot_connect(b, stranger_bot(ada, "moo_on_b", tmp_path, at=b), PYTHON_BOT, tmp_path / "on_b.log")]
    try:
        ada.wait_online({"moo_moved", "moo_on_b"})
        table = ada.rated_table_with(["moo_moved", "moo_on_b"])
        play_with_bots(ada, a, table, cut=proxy.cut)
        stop_bots(bots)
    finally:
        stop(bots)
        proxy.close()
    text = log.read_text()
    assert proxy.accepted >= 2 and "reconnected as moo_moved" in text, text
    assert f"game {table['code']}: won" in text or f"game {table['code']}: lost" in text, text
    assert faults(tmp_path) == []
