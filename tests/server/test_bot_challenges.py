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
from .test_accounts import sign_up, signed
from .test_bot_api import _connections


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
