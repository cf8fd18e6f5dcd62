"""Real ``sixnimmt serve`` processes on one fresh PostgreSQL database (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``): started at the same moment, they both come up; a game whose
players sit on different processes is played to the end, watched from a third connection; the
process that drives a table is killed with SIGKILL mid-turn and the game goes on through the other.

Every wait is a bounded number of polls or a receive with a generous timeout; nothing asserts on
how long anything took."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_restart import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]

#: Refusals of an answer to a view that was out of date by the time it arrived.
STALE = ("stale-move", "wrong-phase", "not-your-turn", "not-an-option", "nothing-to-decide")
RECEIVE_TIMEOUT = 30.0  # seconds: generous, a loaded machine; never a measurement


def start_servers(url: str, count: int, logs: Path) -> list[tuple[subprocess.Popen[bytes], str]]:
    """``count`` servers on the same database, all started before any is waited for."""
    started = []
    for n in range(count):
        port = free_port()
        command = [sys.executable, "-m", "sixnimmt.cli", "serve", "--port", str(port), "--database-url", url,
                   "--bot-delay", "0", "--log-level", "warning"]
        log = (logs / f"server-{n}.log").open("ab")
        started.append((subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT), f"127.0.0.1:{port}"))
    for process, address in started:
        for _ in range(600):
            if process.poll() is not None:
                raise AssertionError(f"server exited: {[p.read_text() for p in logs.glob('server-*.log')]}")
            try:
                if httpx.get(f"http://{address}/healthz", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        else:
            raise AssertionError("a server did not come up")
    return started


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[tuple[subprocess.Popen[bytes], str]]]:
    started = start_servers(fresh_postgres_url(), 2, tmp_path)
    try:
        yield started
    finally:
        for process, _ in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, _ in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def receive(ws: ClientConnection, predicate: Any = lambda m: True) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=RECEIVE_TIMEOUT))
        # (a late refusal of an answer play() gave to a view already out of date is expected)
        assert message["type"] != "error" or message.get("code") in STALE, message
        if predicate(message):
            return message


def is_view(message: dict[str, Any]) -> bool:
    return message["type"] in ("state", "update") and message.get("view") is not None


def answer(ws: ClientConnection, view: dict[str, Any]) -> None:
    decision = view["decision"]
    kind, field = {"card": ("play", "card"), "row": ("row", "row")}[decision["kind"]]
    ws.send(json.dumps({"type": kind, field: decision["options"][0], "deal": view["deal"], "turn": view["turn"]}))


def play(
    players: dict[int, ClientConnection], views: dict[int, dict[str, Any]], until_turn: int | None = None
) -> dict[int, dict[str, Any]]:
    """Each player answers its decisions (first option) until the game is over for everyone, or
    (``until_turn``) until every player's view is at that turn of the first deal, undecided.
    ``views``: each player's latest view. Every view a player receives must be its own seat's."""

    def done(vs: dict[int, dict[str, Any]]) -> bool:
        if until_turn is None:
            return all(v["phase"] == "over" for v in vs.values())
        return all(v["turn"] == until_turn and v["decision"] is not None for v in vs.values())

    def wanted(view: dict[str, Any]) -> bool:
        return view["phase"] != "over" and view["decision"] is not None and (
            until_turn is None or view["turn"] < until_turn)

    answered: dict[int, dict[str, Any]] = {}  # the view each player last answered (kept: compared by identity)
    for _ in range(20_000):
        if done(views):
            return views
        for seat, ws in players.items():
            view = views[seat]
            if wanted(view) and answered.get(seat) is not view:
                answer(ws, view)
                answered[seat] = view
        for seat, ws in players.items():
            try:
                message = json.loads(ws.recv(timeout=0.1))
            except TimeoutError:
                continue
            if message["type"] == "error" and message.get("code") == "rate-limited":
                # past the seat's allowance of messages (a whole rated game answered at once is): the
                # answer was not taken, and is sent again once the allowance has refilled (waiting
                # the time the server names, rather than spending this loop's rounds on refusals)
                answered.pop(seat, None)
                time.sleep(float(message.get("params", {}).get("retry_after", 0.1)))
                continue
            # an answer to a view that was already out of date is refused and followed by a fresh state
            assert message["type"] != "error" or message.get("code") in STALE, message
            if is_view(message):
                assert message["view"]["seat"] == seat
                views[seat] = message["view"]
    raise AssertionError("the game did not get there")


def latest(ws: ClientConnection) -> dict[str, Any]:
    """The player's view once everything sent before has been applied."""
    ws.send(json.dumps({"type": "sync"}))
    view: dict[str, Any] = receive(ws, lambda m: m["type"] == "state")["view"]
    return view


def test_two_servers_started_together_share_tables_and_play_to_the_end(
    servers: list[tuple[subprocess.Popen[bytes], str]],
) -> None:
    """The table is created through A and joined through B; the host plays through A, the friend
    through B, a spectator watches through B; a public table appears in both lobbies."""
    (_, a), (_, b) = servers
    table = httpx.post(f"http://{a}/api/tables", json={
        "name": "Host", "seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"}], "public": True,
        "target": None, "deals": 1,
    }).json()
    code = table["code"]
    joined = httpx.post(f"http://{b}/api/tables/{code}/join", json={"name": "Friend"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    assert httpx.get(f"http://{a}/api/tables/{code}").json()["status"] == "playing"
    assert httpx.get(f"http://{b}/api/tables/{code}").json()["status"] == "playing"
    with connect(f"ws://{a}/ws/{code}?token={table['token']}") as host, \
            connect(f"ws://{b}/ws/{code}?token={joined.json()['token']}") as friend, \
            connect(f"ws://{b}/ws/{code}", max_queue=None) as spectator:  # read only at the end
        first = receive(spectator, is_view)
        assert first["view"]["seat"] is None and first["view"]["hand"] == []
        for address in (a, b):  # someone is at the table: both processes' lobbies list it
            assert [t["code"] for t in httpx.get(f"http://{address}/api/tables").json()] == [code]
        final = play({0: host, 1: friend}, {0: latest(host), 1: latest(friend)})
        watched = receive(spectator, lambda m: is_view(m) and m["view"]["phase"] == "over")["view"]
        assert watched["seat"] is None and watched["hand"] == []
        assert final[0]["totals"] == final[1]["totals"] == watched["totals"]
    for address in (a, b):
        games = httpx.get(f"http://{address}/api/games").json()
        assert [g["table"] for g in games] == [code]
        assert games[0]["totals"] == final[0]["totals"]


def test_killing_the_owner_mid_turn_the_game_goes_on_through_the_other(
    servers: list[tuple[subprocess.Popen[bytes], str]],
) -> None:
    """A drives the table (it created it); the host has chosen a card this turn, the friend (on B)
    has not. A is killed with SIGKILL: B takes the table over from the store, the friend's socket
    gets the state again, the host's page reconnects (through B), with the same hand and the card
    already chosen; the turn and then the game are finished through B."""
    (owner, a), (_, b) = servers
    table = httpx.post(f"http://{a}/api/tables", json={
        "name": "Host", "seats": [{"kind": "open"}, {"kind": "bot", "bot": "random"}], "target": None, "deals": 2,
        "public": True,  # listed in the history at the end
    }).json()
    code = table["code"]
    friend_token = httpx.post(f"http://{b}/api/tables/{code}/join", json={"name": "Friend"}).json()["token"]
    with connect(f"ws://{a}/ws/{code}?token={table['token']}") as host, \
            connect(f"ws://{b}/ws/{code}?token={friend_token}") as friend:
        # two whole turns first (the bot plays at once), then the host chooses and the friend does not
        players = {0: host, 1: friend}
        play(players, {0: latest(host), 1: latest(friend)}, until_turn=2)
        before = latest(host)
        assert before["turn"] == 2 and latest(friend)["turn"] == 2
        choice = before["hand"][-1]
        host.send(json.dumps({"type": "play", "card": choice}))
        mine = receive(host, lambda m: m["type"] == "chosen" and "own" in m)  # the host's own part of the view
        before = {**before, **mine["own"], "chosen": mine["chosen"], "waiting_for": mine["waiting_for"]}
        assert before["my_choice"] == choice
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        # B takes over when A's lease has run out: the friend's socket is served by B now
        resumed = receive(friend, lambda m: m["type"] == "state")["view"]
        assert resumed["turn"] == before["turn"] and resumed["decision"]["kind"] == "card"
    # the host's page reconnects, reaching B
    with connect(f"ws://{b}/ws/{code}?token={table['token']}") as host, \
            connect(f"ws://{b}/ws/{code}?token={friend_token}") as friend:
        after = receive(host, is_view)["view"]
        for key in ("deal", "turn", "hand", "rows", "totals", "my_choice"):
            assert after[key] == before[key], key
        # the people's choices as they were (the bot in seat 2 may have chosen meanwhile, on A before
        # the kill or on B after the takeover)
        assert after["chosen"][:2] == before["chosen"][:2] == [True, False]
        friend_view = receive(friend, is_view)["view"]
        friend.send(json.dumps({"type": "play", "card": friend_view["hand"][0]}))
        revealed = receive(host, lambda m: any(e["type"] == "cards-revealed" for e in m.get("events", [])))
        plays = next(e for e in revealed["events"] if e["type"] == "cards-revealed")["plays"]
        assert plays[0] == choice and plays[1] == friend_view["hand"][0]
        final = play({0: host, 1: friend}, {0: latest(host), 1: latest(friend)})
        assert final[0]["totals"] == final[1]["totals"]
    games = httpx.get(f"http://{b}/api/games").json()
    assert [g["table"] for g in games] == [code]
