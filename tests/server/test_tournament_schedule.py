"""Tournaments the server announces by itself from its settings (``sixnimmt serve --tournament``):
the schedule's line read (or refused with one line), and its next tournament always announced,
once, whichever look announces it; on the app's own clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sixnimmt.server.clock import ManualClock
from sixnimmt.server.tournaments.timetable import Scheduled, parse_schedule

from .conftest import make_client

HOURLY = "every hour, swiss, standard, 5 players, 4 rounds, 9 easy bots"


def test_a_schedule_line_is_read() -> None:
    read = parse_schedule(HOURLY)
    assert (read.period, read.format, read.variant, read.players, read.rounds) == (3600, "swiss", "standard", 5, 4)
    assert read.bots == ("easy",) * 9 and not read.rated
    arena = parse_schedule("every 30 min, arena, tactics, 4 players, 10 minutes long, rated, 1 deal")
    assert (arena.period, arena.format, arena.variant, arena.minutes, arena.rated, arena.deals) == (
        1800, "arena", "tactics", 10, True, 1)
    assert parse_schedule("every 2 hours, arena").minutes == 60  # half the period, by default
    assert Scheduled("x", 3600).next_start(7200.0) == 10800.0 and Scheduled("x", 3600).next_start(7199.0) == 7200.0


@pytest.mark.parametrize(("line", "says"), [
    ("hourly", "starts with 'every"),
    ("every 2 min, swiss", "every 5 minutes at most often"),
    ("every hour, chess", "unknown part 'chess'"),
    ("every hour, 4 godlike bots", "unknown part '4 godlike bots'"),
])
def test_a_bad_schedule_is_refused_with_one_line(line: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as refused:
        parse_schedule(line)
    assert "\n" not in str(refused.value)


def test_the_next_tournament_of_a_schedule_is_always_announced_once(tmp_path: Any) -> None:
    clock = ManualClock(wall_start=1_767_225_600.0 + 600)  # ten minutes past an hour
    url = f"sqlite:///{tmp_path / 'schedule.db'}"
    with make_client(url, clock, tournament_schedule=[HOURLY]) as web:
        app: Any = web.app

        def look(seconds: float = 0.0) -> None:
            async def step() -> None:
                clock.advance(seconds)
                director = app.state.director
                await asyncio.gather(*(before() for before in director.before_each_look * 2))  # two at once
                await director.tick()

            assert web.portal is not None
            web.portal.call(step)

        look()
        listed = web.get("/api/tournaments").json()
        assert len(listed["upcoming"]) == 1
        first = listed["upcoming"][0]
        assert first["starts_at"] == 1_767_225_600.0 + 3600 and first["entrants"] == 9
        assert (first["players"], first["rounds"], first["format"]) == (5, 4, "swiss")
        look(3000)  # the hour comes: it starts, and the next hour's is announced
        listed = web.get("/api/tournaments").json()
        assert [t["id"] for t in listed["running"]] == [first["id"]]
        assert [t["starts_at"] for t in listed["upcoming"]] == [1_767_225_600.0 + 7200]
