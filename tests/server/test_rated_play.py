"""Rated play people can trust (issue #53): a rated game is a contract (leaving does not escape its
rating), and a person cannot farm rating with their own bots or with rules made to be farmed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .conftest import make_client
from .helpers import play_out, receive_until
from .test_accounts import sign_up, signed

#: A socket that waits for a message the server never sends fails the test instead of hanging it.
pytestmark = pytest.mark.timeout(40)


def _rated_table(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> Any:
    return client.post("/api/tables", json={"name": "ignored", "seats": seats, "rated": True, **options})


def test_leaving_a_rated_game_does_not_escape_its_rating(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'leave.db'}"
    with make_client(url, rate_per_second=1000.0, rate_burst=1000) as host:
        leaver = signed(TestClient(host.app))  # a second browser on the same server
        signed(host)
        sign_up(host, "olga")
        sign_up(leaver, "oscar")
        made = _rated_table(host, [{"kind": "open"}, {"kind": "bot", "bot": "easy"}])
        assert made.status_code == 201, made.text
        table = made.json()
        code = table["code"]
        joined = leaver.post(f"/api/tables/{code}/join", json={"name": "oscar"})
        assert joined.status_code == 200, joined.text  # the last open seat: the game starts
        with host.websocket_connect(f"/ws/{code}?token={table['token']}") as ws:
            first = receive_until(ws, lambda m: m.get("type") in ("state", "update") and m.get("view") is not None)
            assert first["view"]["deal"] == 0
            with leaver.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as oscar:
                receive_until(oscar, lambda m: m.get("type") == "state")
                oscar.send_json({"type": "leave"})
                receive_until(oscar, lambda m: m.get("type") == "error")
            last = play_out(ws, first)
        assert last["view"]["deal"] > 0  # the stand-in played later deals for the leaver
    with make_client(url) as watcher:
        summary = watcher.get(f"/api/tables/{code}").json()
        assert summary["seats"][1]["name"] == "oscar" and summary["seats"][1].get("left") is True
        oscar_profile = watcher.get("/api/users/oscar").json()
        assert oscar_profile["ratings"]["standard"]["games"] == 1
        assert len(oscar_profile["games"]) == 1 and oscar_profile["games"][0]["rated"] is True
        assert oscar_profile["games"][0]["seat"] == 1
        assert oscar_profile["games"][0]["totals"][1] == last["view"]["totals"][1]
        # the fill bot was not rated in the leaver's place
        fill = watcher.get("/api/users/bot-medium")
        assert fill.status_code == 404 or "standard" not in fill.json()["ratings"]
        assert watcher.get("/api/users/bot-easy").json()["ratings"]["standard"]["games"] == 1
