"""Play now says when bots take the seats still empty (``bots_in``), so the page can count down
"Bots join in N s" (issue #56, point 6): the whole wait for the table it opens, what is left of it
for the next player, on a manual clock."""

from __future__ import annotations

from pathlib import Path

from sixnimmt.server.clock import ManualClock

from .conftest import make_client


def test_play_now_says_when_the_bots_come(tmp_path: Path) -> None:
    clock = ManualClock()
    with make_client(f"sqlite:///{tmp_path / 'wait.db'}", clock, play_now_wait=8.0) as client:
        first = client.post("/api/play-now", json={"mode": "casual", "players": 3, "name": "Ada"}).json()
        assert first["opened"] is True and first["bots_in"] == 8.0
        clock.advance(3.0)
        second = client.post("/api/play-now", json={"mode": "casual", "players": 3, "name": "Bea"}).json()
        assert second["code"] == first["code"] and second["bots_in"] == 5.0
