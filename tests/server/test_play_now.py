"""Play now: join a waiting table or open one that bots fill after a short wait; and the accounts'
migration on a database made before it."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text

from sixnimmt.server.accounts.matchmaking import PlayNow
from sixnimmt.server.store.database import MIGRATIONS, Store

from .conftest import make_client
from .helpers import receive_until
from .test_accounts import sign_up, signed


def test_anonymous_casual_players_meet_at_one_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'now.db'}"
    with make_client(url, play_now_wait=600.0) as one:
        two = one  # (anonymous: nothing but the name tells the two apart)
        first = one.post("/api/play-now", json={"mode": "casual", "players": 2, "name": "Uma"})
        assert first.status_code == 200, first.text
        assert first.json()["opened"] is True and first.json()["seat"] == 0
        second = two.post("/api/play-now", json={"mode": "casual", "players": 2, "name": "Vic"})
        assert second.json()["code"] == first.json()["code"] and second.json()["seat"] == 1
        summary = one.get(f"/api/tables/{first.json()['code']}").json()
        assert summary["status"] == "playing"  # the last seat taken: the game started
        # a third finds no seat there (the table left the offers) and gets a new table
        third = two.post("/api/play-now", json={"mode": "casual", "players": 2, "name": "Wes"})
        assert third.json()["code"] != first.json()["code"] and third.json()["opened"] is True


def test_bots_fill_the_empty_seats_after_the_wait(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'fill.db'}", play_now_wait=0.2) as client:
        made = client.post("/api/play-now", json={"mode": "casual", "players": 4, "name": "Xena"}).json()
        with client.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as ws:
            state = receive_until(ws, lambda m: m.get("type") in ("state", "update")
                                  and m["table"]["status"] == "playing")
        seats = state["table"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "bot", "bot", "bot"]
        assert {s["bot"] for s in seats[1:]} <= {"easy", "medium", "hard", "expert", "grandmaster"}


def test_rated_play_now_needs_an_account_and_seats_it(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'rated.db'}", play_now_wait=0.2) as client:
        refused = client.post("/api/play-now", json={"mode": "rated", "players": 3, "name": "Yan"})
        assert refused.status_code == 401 and refused.json()["code"] == "rated-sign-in"
        signed(client)
        sign_up(client, "zoe_z")
        made = client.post("/api/play-now", json={"mode": "rated", "players": 3})
        assert made.status_code == 200, made.text
        summary = client.get(f"/api/tables/{made.json()['code']}").json()
        assert summary["rated"] is True and summary["seats"][0]["name"] == "zoe_z"
        assert summary["seats"][0].get("member") is True


def test_bot_levels_near_a_rating() -> None:
    near = PlayNow.levels_near
    assert near(25.0, 1) == ["medium"]
    assert near(34.0, 3) == ["grandmaster", "expert", "hard"]
    assert near(25.0, 1, {"medium": 10.0, "easy": 26.0}) == ["easy"]


def test_an_existing_database_upgrades_in_place(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
        connection.execute(text(
            "INSERT INTO games (id, table_code, number, finished_at, variant, seats, totals, winners, record) "
            "VALUES (7, 'ABCDE', 1, '2026-01-01', 'standard', '[\"a\",\"b\"]', '[1,2]', '[0]', '{}')"
        ))
    store.migrate()
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT table_code FROM games WHERE id = 7")).scalar() == "ABCDE"
        assert connection.execute(text("SELECT count(*) FROM users")).scalar() == 0
    store.close()
    with make_client(url) as client:  # the server starts on it and makes its bots' accounts
        assert client.get("/api/users/bot-medium").json()["user"]["kind"] == "bot"
        # (its table is gone, so since revision 0006 it counts as private: shown with its code)
        assert client.get("/api/games/7", params={"table": "ABCDE"}).json()["id"] == 7
