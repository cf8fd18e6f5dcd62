"""Reviews of finished games over HTTP: asked for, made in the background, kept, and bounded."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from .conftest import make_client
from .helpers import create_table, play_out


def _finished_game(client: TestClient) -> int:
    table = create_table(client, [{"kind": "bot", "bot": "random"}], deals=1, target=None, public=True)
    with client.websocket_connect(f"/ws/{table['code']}?token={table['token']}") as ws:
        last = play_out(ws, ws.receive_json())
    game_id = last["table"]["last_game_id"]
    assert isinstance(game_id, int)
    return game_id


def test_a_review_is_made_in_the_background_and_kept(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'r.db'}", review_samples=4) as client:
        game_id = _finished_game(client)
        assert client.get(f"/api/games/{game_id}/review", params={"seat": 0}).json()["code"] == "no-review"
        assert client.post(f"/api/games/{game_id}/review", json={"seat": 2}).json()["code"] == "bad-seat"
        assert client.post("/api/games/99999/review", json={"seat": 0}).status_code == 404
        asked = client.post(f"/api/games/{game_id}/review", json={"seat": 0})
        assert asked.status_code == 202 and asked.json()["status"] in ("queued", "running")
        assert client.portal is not None
        client.portal.call(client.app.state.reviews.idle)  # type: ignore[attr-defined]
        done = client.get(f"/api/games/{game_id}/review", params={"seat": 0})
        assert done.status_code == 200 and done.json()["status"] == "done"
        review = done.json()["review"]
        assert review["seat"] == 0 and review["name"] == "Host" and review["samples"] == 4
        assert len(review["decisions"]) >= 10  # ten cards played, and any row choices
        for decision in review["decisions"]:
            assert str(decision["played"]) in decision["options"] and str(decision["best"]) in decision["options"]
            assert decision["loss"] >= 0
        assert review["mistakes"] == sum(d["mistake"] for d in review["decisions"])
        again = client.post(f"/api/games/{game_id}/review", json={"seat": 0})  # kept: not made twice
        assert again.status_code == 200 and again.json()["review"] == review


def test_reviews_waiting_are_bounded(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'b.db'}", reviews_queued=0) as client:
        game_id = _finished_game(client)
        busy = client.post(f"/api/games/{game_id}/review", json={"seat": 1})
        assert busy.status_code == 503 and busy.json()["code"] == "review-busy"
        assert busy.headers["retry-after"] == "60"
