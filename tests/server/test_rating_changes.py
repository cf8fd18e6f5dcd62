"""The rating changes of a finished game, seat by seat, for the Game over screen
(``GET /api/games/ID/ratings``): the same numbers the profile's history keeps, the provisional
mark as it was, nothing for a casual game, and a private table's (casual) game only with its code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import QUICK_PLAY, make_client
from .helpers import play_out
from .test_accounts import sign_up, signed


@pytest.fixture
def web(tmp_path: Path) -> Any:
    with make_client(f"sqlite:///{tmp_path / 'changes.db'}", None, **QUICK_PLAY) as client:
        yield signed(client)


def _played(web: Any, rated: bool) -> tuple[int, str]:
    # (a rated table plays the variant's own game, to 66; a casual one may be short)
    body = {"name": "ignored", "seats": [{"kind": "bot", "bot": "easy"}, {"kind": "bot", "bot": "hard"}],
            **({"rated": True} if rated else {"target": 10, "deals": 1})}
    table = web.post("/api/tables", json=body).json()
    with web.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        play_out(ws, ws.receive_json())
    game = web.get(f"/api/tables/{table['code']}").json()["last_game_id"]
    return int(game), table["code"]


def test_a_rated_games_changes_are_the_profiles_and_a_casual_game_has_none(web: Any) -> None:
    sign_up(web, "rhea")
    game, _ = _played(web, rated=True)
    changes = web.get(f"/api/games/{game}/ratings").json()  # (a rated game is public)
    assert changes["rated"] is True and len(changes["seats"]) == 3
    history = web.get("/api/users/rhea").json()["history"]["standard"]
    mine = changes["seats"][0]
    assert (mine["before"], mine["after"]) == (history[-1]["before"], history[-1]["rating"])
    assert mine["delta"] == mine["after"] - mine["before"]
    assert mine["provisional"] and mine["provisional_before"]  # a first rated game
    for seat, level in ((1, "easy"), (2, "hard")):  # each bot seat under its level's account
        bot = web.get(f"/api/users/bot-{level}").json()["history"]["standard"][-1]
        assert (changes["seats"][seat]["before"], changes["seats"][seat]["after"]) == (bot["before"], bot["rating"])
    casual, code = _played(web, rated=False)
    assert web.get(f"/api/games/{casual}/ratings").status_code == 404  # a private table's: with its code only
    assert web.get(f"/api/games/{casual}/ratings", params={"table": code}).json() == {"rated": False, "seats": [None] * 3}
