"""Challenges by name (docs/bot-api.md, "Challenges"): a bot challenges another, which accepts (the
game is played to its end) or declines with a standard reason (the challenger is told, and no table
waits for anyone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sixnimmt.server.clock import ManualClock

from .bot_clients import BotProgram
from .conftest import make_client
from .helpers import play_out, receive_until
from .test_accounts import sign_up, signed
from .test_bot_api import CONNECT, _connections, bearer, make_bot


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(f"sqlite:///{tmp_path / 'duel.db'}", ManualClock()) as client:
        yield signed(client)


def test_a_challenge_accepted_is_played_to_the_end(web: TestClient) -> None:
    sign_up(web, "duel_owner")
    one_ws, two_ws = _connections(web, ("Challenger", "Champion"))
    with one_ws as one, two_ws as two:
        challenger, champion = BotProgram(one), BotProgram(two)
        for program in (challenger, champion):
            program.hello()
        one.send_json({"type": "challenge", "bot": "champion", "mode": "casual", "players": 3})
        asked = challenger.until(lambda m: m["type"] in ("challenging", "error"))
        assert asked["type"] == "challenging" and asked["bot"] == "Champion"
        invitation = champion.until(lambda m: m["type"] == "invitation")
        assert invitation["from"] == "Challenger" and invitation["from_bot"] and invitation["challenge"]
        assert [p["kind"] for p in invitation["players"]] == ["program", "invited", "server-bot"]
        two.send_json({"type": "accept", "invitation": invitation["invitation"]})
        threads = [program.in_thread() for program in (challenger, champion)]
        for thread in threads:
            thread.join(60)
        code = asked["game"]
        assert code in challenger.ended and challenger.ended[code] == champion.ended[code]
        assert web.get(f"/api/tables/{code}").json()["status"] == "finished"


def test_a_challenge_declined_tells_the_challenger_why_and_leaves_no_table_waiting(web: TestClient) -> None:
    sign_up(web, "nope_owner")
    one_ws, two_ws = _connections(web, ("Asker", "Picky"))
    with one_ws as one, two_ws as two:
        asker, picky = BotProgram(one), BotProgram(two)
        for program in (asker, picky):
            program.hello()
        one.send_json({"type": "challenge", "bot": "Picky", "variant": "professional"})
        code = asker.until(lambda m: m["type"] in ("challenging", "error"))["game"]
        invitation = picky.until(lambda m: m["type"] == "invitation")
        assert invitation["rules"]["variant"] == "professional"
        two.send_json({"type": "decline", "invitation": invitation["invitation"], "reason": "variant"})
        declined = asker.until(lambda m: m["type"] == "challenge-declined")
        assert declined["game"] == code and declined["reason"] == "variant"
        assert [s["kind"] for s in web.get(f"/api/tables/{code}").json()["seats"]] == ["open", "open"]
        one.send_json({"type": "challenge", "bot": "Nobody_here"})
        assert asker.until(lambda m: m["type"] == "error")["code"] == "no-bot"


@pytest.fixture
def roomy(tmp_path: Path) -> Iterator[TestClient]:
    """The app on a clock that stands still, with a table's allowance of messages large enough for
    a person's whole game (it never refills on this clock)."""
    with make_client(f"sqlite:///{tmp_path / 'roomy.db'}", ManualClock(), rate_burst=10**6) as client:
        yield signed(client)


def _person(web: TestClient, name: str) -> TestClient:
    """A second browser on the same server, signed in as the person ``name``."""
    browser = signed(TestClient(web.app))
    browser.portal = web.portal  # (the server's event loop: its tables live there)
    sign_up(browser, name)
    return browser


def test_a_bot_challenges_a_person_who_accepts_in_the_browser_and_the_game_is_played_out(roomy: TestClient) -> None:
    web = roomy
    sign_up(web, "keeper")
    token = make_bot(web, "Duelist")
    ada = _person(web, "ada_person")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        duelist = BotProgram(ws)
        duelist.hello()
        # a person who does not have the site open is not challenged
        ws.send_json({"type": "challenge", "bot": "ada_person"})
        assert duelist.until(lambda m: m["type"] == "error")["code"] == "person-offline"
        assert ada.get("/api/challenges").json() == []  # (the site asks: Ada is here now)
        ws.send_json({"type": "challenge", "bot": "Ada_Person", "variant": "tactics"})
        asked = duelist.until(lambda m: m["type"] in ("challenging", "error"))
        assert asked["type"] == "challenging" and asked["person"] and asked["bot"] == "ada_person"
        [challenge] = ada.get("/api/challenges").json()
        assert challenge["from"] == "Duelist" and challenge["game"] == asked["game"]
        assert challenge["rules"]["variant"] == "tactics" and not challenge["rated"]
        assert [p["kind"] for p in challenge["players"]] == ["program", "invited"]
        assert web.post(f"/api/challenges/{challenge['id']}/accept").status_code == 404  # (not the keeper's)
        seat = ada.post(f"/api/challenges/{challenge['id']}/accept").json()
        assert ada.get("/api/challenges").json() == []
        joined = ada.post(f"/api/tables/{seat['game']}/join", json={"name": seat["name"], "invite": seat["invite"]})
        assert joined.status_code == 200, joined.text
        playing = duelist.in_thread()
        with ada.websocket_connect(f"/ws/{seat['game']}?token={joined.json()['token']}") as table:
            last = play_out(table, receive_until(table, lambda m: m.get("type") == "state"))
        playing.join(60)
        code = asked["game"]
        assert duelist.ended[code]["totals"] == last["view"]["totals"]
        start = next(m for m in duelist.messages if m["type"] == "game-start" and m["game"] == code)
        assert start["players"][1] == {"name": "ada_person", "kind": "person", "account": "ada_person"}


def test_a_person_declines_a_bots_challenge_with_a_reason(web: TestClient) -> None:
    sign_up(web, "keeper_two")
    token = make_bot(web, "Pest")
    bea = _person(web, "bea_person")
    bea.get("/api/challenges")
    with web.websocket_connect(CONNECT, headers=bearer(token)) as ws:
        pest = BotProgram(ws)
        pest.hello()
        ws.send_json({"type": "challenge", "bot": "bea_person", "players": 3})
        code = pest.until(lambda m: m["type"] in ("challenging", "error"))["game"]
        [challenge] = bea.get("/api/challenges").json()
        answered = bea.post(f"/api/challenges/{challenge['id']}/decline", json={"reason": "players"})
        assert answered.status_code == 204
        declined = pest.until(lambda m: m["type"] == "challenge-declined")
        assert declined["game"] == code and declined["reason"] == "players"
        assert bea.get("/api/challenges").json() == []
        assert bea.post(f"/api/challenges/{challenge['id']}/accept").json()["code"] == "no-challenge"
        # a stranger's text is passed on as generic, the text in the message
        ws.send_json({"type": "challenge", "bot": "bea_person"})
        assert pest.until(lambda m: m["type"] in ("challenging", "error"))["type"] == "challenging"
        [challenge] = bea.get("/api/challenges").json()
        bea.post(f"/api/challenges/{challenge['id']}/decline", json={"reason": "busy cooking"})
        declined = pest.until(lambda m: m["type"] == "challenge-declined")
        assert (declined["reason"], declined["message"]) == ("generic", "busy cooking")
        assert all(s["kind"] == "open" for s in web.get(f"/api/tables/{declined['game']}").json()["seats"])
