"""The HTTP routes: create and join tables, names kept as plain text, history, records, rules."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from sixnimmt.core.record import replay
from sixnimmt.i18n import LANGUAGES
from sixnimmt.server.config import Settings

from .conftest import make_client
from .helpers import create_table, play_out, receive_until

PAYLOAD = "<img src onerror=z=1>"


def test_create_join_and_list(client: TestClient) -> None:
    table = create_table(client, [{"kind": "open"}, {"kind": "open"}], variant="tactics", public=True)
    assert len(table["code"]) == 5 and len(table["token"]) >= 30
    assert client.get("/api/tables").json() == []  # nobody is at the table yet
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        receive_until(ws, lambda m: m["type"] == "state")
        listed = {t["code"]: t for t in client.get("/api/tables").json()}
        assert listed[table["code"]]["status"] == "waiting" and listed[table["code"]]["open"] == 2
        assert "token" not in str(listed) and "token_hash" not in str(listed)
        joined = client.post(f"/api/tables/{table['code'].lower()}/join", json={"name": "  Eve  "})
        assert joined.status_code == 200 and joined.json()["seat"] == 1
        assert receive_until(ws, lambda m: m["type"] == "seats")["seats"][1]["name"] == "Eve"  # a delta
        taken = client.post(f"/api/tables/{table['code']}/join", json={"name": "EVE"})
        assert taken.status_code == 409 and taken.json()["code"] == "name-taken"  # names ignore case
        third = client.post(f"/api/tables/{table['code']}/join", json={"name": "Bo"})
        assert third.status_code == 200 and third.json()["from_next_deal"] is False
        info = client.get(f"/api/tables/{table['code']}").json()
        assert info["status"] == "playing"  # the last open seat was taken: the game starts
        assert [s["name"] for s in info["seats"]] == ["Host", "Eve", "Bo"]
        full = client.post(f"/api/tables/{table['code']}/join", json={"name": "Late"})
        assert full.status_code == 409 and full.json()["code"] == "table-full"


def test_tables_are_private_unless_public(client: TestClient) -> None:
    private = create_table(client, [{"kind": "open"}])
    public = create_table(client, [{"kind": "open"}], public=True)
    with client.websocket_connect(f"/ws/{private['code']}?token={private['token']}") as one, \
            client.websocket_connect(f"/ws/{public['code']}?token={public['token']}") as two:
        receive_until(one, lambda m: m["type"] == "state")
        receive_until(two, lambda m: m["type"] == "state")
        assert [t["code"] for t in client.get("/api/tables").json()] == [public["code"]]
        # the private table is reached by its code
        assert client.get(f"/api/tables/{private['code']}").json()["public"] is False
        joined = client.post(f"/api/tables/{private['code']}/join", json={"name": "Friend"})
        assert joined.status_code == 200
    # nobody connected: the lobby hides the public table too
    assert client.get("/api/tables").json() == []


def test_bad_requests_are_one_line_errors(client: TestClient) -> None:
    cases = [
        {"name": "A", "seats": []},
        {"name": "A", "seats": [{"kind": "bot", "bot": "godlike"}]},
        {"name": "", "seats": [{"kind": "bot"}]},
        {"name": "x" * 30, "seats": [{"kind": "bot"}]},
        {"name": "A", "seats": [{"kind": "bot"}], "timer": 7},
        {"name": "A", "seats": [{"kind": "bot"}], "variant": "chess"},
        {"name": "A", "seats": [{"kind": "bot"}], "target": None, "deals": None},
    ]
    for body in cases:
        response = client.post("/api/tables", json=body)
        assert response.status_code == 422, body
        detail = response.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and detail
    assert client.get("/api/tables/NOPE1").status_code == 404
    assert client.post("/api/tables/ZZZZZ/join", json={"name": "A"}).status_code == 404


def test_display_names_are_data_not_markup(client: TestClient) -> None:
    table = create_table(client, [{"kind": "bot", "bot": "random"}], deals=1)
    hostile = client.post("/api/tables", json={"name": PAYLOAD, "seats": [{"kind": "bot"}]}).json()
    names = [s["name"] for s in client.get(f"/api/tables/{hostile['code']}").json()["seats"]]
    assert PAYLOAD in names  # stored verbatim: the page shows it as text (see the browser test)
    page = client.get("/").text
    assert "innerHTML" not in client.get("/static/js/util.js").text.split("function h(")[1].split("}\n")[0]
    assert "<main" in page and table["code"] not in page


def test_finished_game_is_stored_replayable_and_downloadable(client: TestClient) -> None:
    table = create_table(client, [{"kind": "bot", "bot": "random"}] * 2, deals=1, variant="professional", public=True)
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        last = play_out(ws, ws.receive_json())
    totals = last["view"]["totals"]
    games = client.get("/api/games").json()
    assert games[0]["table"] == table["code"] and games[0]["totals"] == totals
    game_id = games[0]["id"]
    assert last["table"]["last_game_id"] == game_id
    download = client.get(f"/api/games/{game_id}/record.json")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    result = replay(download.json())  # the engine accepts it as a complete record
    assert list(result.scores) == totals
    events = client.get(f"/api/games/{game_id}/events").json()
    assert [e["type"] for e in events["events"]].count("cards-revealed") == 10
    assert sorted(c for hand in events["hands"][0] for c in hand) == sorted(
        c for hand in download.json()["deals"][0]["hands"] for c in hand
    )
    assert client.get("/api/games/99999").status_code == 404


def test_play_again_at_the_same_table(client: TestClient) -> None:
    table = create_table(client, [{"kind": "bot", "bot": "random"}], deals=1)
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        play_out(ws, ws.receive_json())
        ws.send_json({"type": "again"})
        while True:
            message = ws.receive_json()
            if message["type"] == "update" and message["table"]["game_number"] == 2:
                break
        assert message["view"]["phase"] == "play" and message["view"]["totals"] == [0, 0]


def test_rules_pages_in_every_language(client: TestClient) -> None:
    seen = set()
    for lang in LANGUAGES:
        page = client.get(f"/api/rules/{lang}/professional").json()
        assert page["lang"] == lang and "<h1>" in page["html"] and "<script" not in page["html"]
        seen.add(page["html"])
    assert len(seen) == len(LANGUAGES) == 5
    assert client.get("/api/rules/fi/standard").status_code == 404


def test_front_end_is_served_with_every_translation(client: TestClient) -> None:
    assert "app.js" in client.get("/").text
    keys = None
    for lang in LANGUAGES:
        strings = client.get(f"/static/i18n/{lang}.json").json()
        assert keys is None or set(strings) == keys
        keys = set(strings)
    config = client.get("/api/config").json()
    assert config["bullheads"][55] == 7 and len(config["bullheads"]) == 105


def test_request_lists_come_from_the_variant_specs(client: TestClient) -> None:
    config = client.get("/api/config").json()
    assert set(config["specs"]) == set(config["variants"]) and len(config["variants"]) == 9
    for variant in config["variants"]:
        low, _high = config["player_range"][variant]
        seats = [{"kind": "bot", "bot": "random"}] * (low - 1)
        assert client.post("/api/tables", json={"name": "A", "seats": seats, "variant": variant}).status_code == 201
    unknown = client.post("/api/tables", json={"name": "A", "seats": [{"kind": "bot"}], "variant": "chess"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "invalid"
    assert config["reactions"] and config["chat_max_chars"] == 200


def test_a_serving_process_collects_garbage_quietly(tmp_path: Path) -> None:
    """``quiet_gc`` (what ``sixnimmt serve`` sets) freezes start-up's objects and stops the automatic
    collector while the app runs, and gives it back when the app stops; without it the process's
    collector is left alone."""
    assert gc.isenabled()
    try:
        with make_client(f"sqlite:///{tmp_path / 'plain.db'}"):
            assert gc.isenabled()
        with make_client(f"sqlite:///{tmp_path / 'quiet.db'}", quiet_gc=True) as client:
            assert not gc.isenabled()
            assert gc.get_freeze_count() > 0
            assert client.app.state.collector.every == Settings().full_collection_seconds  # type: ignore[attr-defined]
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_private_tables_finished_game_is_shown_only_to_whoever_has_its_code(client: TestClient) -> None:
    private = create_table(client, [{"kind": "bot", "bot": "random"}], deals=1)
    with client.websocket_connect(f"/ws/{private['code']}?token={private['token']}") as ws:
        last = play_out(ws, ws.receive_json())
    game_id = last["table"]["last_game_id"]
    public = create_table(client, [{"kind": "bot", "bot": "random"}], deals=1, public=True)
    with client.websocket_connect(f"/ws/{public['code']}?token={public['token']}") as ws:
        shown_id = play_out(ws, ws.receive_json())["table"]["last_game_id"]
    listed = client.get("/api/games", params={"limit": 200}).json()
    assert [g["id"] for g in listed] == [shown_id]  # the public table's game only
    assert private["code"] not in str(listed) and private["code"] not in str(client.get("/api/tables").json())
    code = private["code"]
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/events", f"/api/games/{game_id}/record.json"):
        refused = client.get(path)
        assert refused.status_code == 404 and refused.json()["code"] == "no-game", path
        assert code not in refused.text
        assert client.get(path, params={"table": "ZZZZZ"}).status_code == 404
        shown = client.get(path, params={"table": code.lower()})  # the link's code, in any case
        assert shown.status_code == 200, path
    assert client.get(f"/api/games/{game_id}/review", params={"seat": 0}).status_code == 404
    assert client.post(f"/api/games/{game_id}/review", json={"seat": 0}).status_code == 404
    assert client.get(f"/api/games/{game_id}/review", params={"seat": 0, "table": code}).json()["code"] == "no-review"
    assert client.get(f"/api/games/{shown_id}/events").status_code == 200  # a public game: for anyone


def test_the_history_refuses_an_offset_too_large_for_the_database(client: TestClient) -> None:
    response = client.get("/api/games", params={"offset": 9223372036854775808})
    assert response.status_code == 422 and response.json()["code"] == "invalid"
    assert client.get("/api/games", params={"offset": 1_000_000}).status_code == 200
