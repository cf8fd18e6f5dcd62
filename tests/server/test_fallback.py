"""The table never stalls: a player who is away, or out of time, has their move made by a fallback
bot; a player who comes back takes over again. Time is a :class:`ManualClock` moved by the tests."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from sixnimmt.bots.base import Bot
from sixnimmt.core import PlayerView, Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import ChooseRow, Play

from .conftest import Listener

pytestmark = pytest.mark.asyncio


async def two_humans(
    tmp_path: Path, clock: ManualClock, timer: int = 0, grace: float = 30.0
) -> tuple[Rooms, Room]:
    store = Store(f"sqlite:///{tmp_path / 'fallback.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0, absent_grace=grace, fallback_bot="random")
    rooms = Rooms(store, settings, clock)
    room, _ = await rooms.create(TableOptions(Rules(players=2), timer=timer), "Host", [{"kind": "open"}])
    await room.join("Friend")
    return rooms, room


async def answer_rows(room: Room, *present: Listener) -> None:
    """The players at the table answer their own row choices (the fallback answers an absent one's)."""
    game = room.table.game
    assert game is not None
    by_seat = {conn.seat: conn for conn in present}
    while game.phase.value == "row-choice" and game.pending()[0].seat in by_seat:
        await room.handle(by_seat[game.pending()[0].seat], ChooseRow(type="row", row=0))
        await room.scheduler.settle()


async def test_an_absent_player_is_played_for_then_takes_over(tmp_path: Path) -> None:
    clock = ManualClock()
    rooms, room = await two_humans(tmp_path, clock, grace=30.0)
    game = room.table.game
    assert game is not None
    host = Listener(0)
    await room.connect(host)  # the friend never connects: away since joining
    await room.handle(host, Play(type="play", card=game.hands[0][0]))
    clock.advance(29.9)
    await room.scheduler.settle()
    assert game.turn == 0 and game.chosen[1] is None  # still within the grace period
    clock.advance(0.2)
    await room.scheduler.settle()
    await answer_rows(room, host)
    assert game.turn == 1 and game.phase.value == "play"  # the fallback played the friend's card
    assert game.chosen[1] is not None  # and goes on at once while they are still away
    await room.handle(host, Play(type="play", card=game.hands[0][0]))
    await room.scheduler.settle()
    await answer_rows(room, host)
    assert game.turn == 2
    # the friend comes back: from now on the game waits for them, however long it takes
    # (the card chosen for them before they came back stands: this turn ends with it)
    friend = Listener(1)
    await room.connect(friend)
    await room.handle(host, Play(type="play", card=game.hands[0][0]))
    await room.scheduler.settle()
    await answer_rows(room, host, friend)  # (a row choice of theirs is theirs again, too)
    assert game.turn == 3
    await room.handle(host, Play(type="play", card=game.hands[0][0]))
    clock.advance(1000.0)
    await room.scheduler.settle()
    assert game.turn == 3 and game.chosen[1] is None  # nobody played for a present player
    await room.handle(friend, Play(type="play", card=game.hands[1][-1]))
    await room.scheduler.settle()
    await answer_rows(room, host, friend)
    assert game.turn == 4
    await rooms.close()


async def test_the_turn_timer_plays_for_whoever_runs_out_of_time(tmp_path: Path) -> None:
    clock = ManualClock()
    rooms, room = await two_humans(tmp_path, clock, timer=15)
    game = room.table.game
    assert game is not None
    host, friend = Listener(0), Listener(1)
    await room.connect(host)
    await room.connect(friend)
    assert friend.messages[-1]["table"]["timer_left"] == 15
    clock.advance(14.9)
    await room.scheduler.settle()
    assert game.turn == 0 and not any(game.chosen)  # not yet: time is not up
    assert len(friend.messages) == 1  # nothing was sent meanwhile
    clock.advance(0.2)
    await room.scheduler.settle()
    # both ran out: both moves were made (a row choice that follows has a timer of its own), and
    # the others heard that the timer played for them (for the game log)
    assert game.turn == 1 or game.phase.value == "row-choice"
    played_for = [m["played_for"] for m in host.messages if "played_for" in m]
    assert {"seat": 0, "reason": "timer"} in played_for and {"seat": 1, "reason": "timer"} in played_for
    if game.turn == 0:
        clock.advance(15.0)
        await room.scheduler.settle()
    assert game.turn == 1
    await rooms.close()


async def test_no_connection_no_fallback(tmp_path: Path) -> None:
    """An abandoned table waits for its players instead of playing itself out."""

    clock = ManualClock()
    rooms, room = await two_humans(tmp_path, clock, timer=15, grace=30.0)
    assert room.table.game is not None
    assert clock.pending() == 0  # nobody is at the table: no fallback move is even scheduled
    clock.advance(10_000.0)
    room.scheduler.schedule()
    await room.scheduler.settle()
    assert room.table.game.turn == 0 and not any(room.table.game.chosen)
    await rooms.close()


async def test_idle_rooms_leave_memory_and_come_back_unchanged(tmp_path: Path) -> None:
    clock = ManualClock()
    store = Store(f"sqlite:///{tmp_path / 'evict.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, idle_evict=600.0), clock)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "open"}])
    await room.join("Friend")
    host = Listener(0)
    await room.connect(host)
    assert room.table.game is not None
    card = room.table.game.hands[0][3]
    await room.handle(host, Play(type="play", card=card))
    before = room.table.game.view(0).to_dict()
    await room.disconnect(host)
    clock.advance(599.0)
    other, _ = await rooms.create(TableOptions(Rules(players=2)), "Other", [{"kind": "open"}])
    await rooms.get(other.code)
    assert rooms.loaded() == 2  # not idle long enough yet
    clock.advance(30.0)  # (the sweep runs at most every 30 s)
    await rooms.get(other.code)  # any use of the rooms sweeps the idle ones
    assert rooms.loaded() == 1
    again = await rooms.get(room.code)
    assert again is not room and again.table.game is not None
    assert again.table.game.view(0).to_dict() == before and before["my_choice"] == card
    await rooms.close()


class BrokenBot(Bot):
    """Raises at every decision; remembers being closed."""

    closed: ClassVar[list[BrokenBot]] = []

    def decide(self, view: PlayerView) -> int:
        raise RuntimeError("out of order")

    def close(self) -> None:
        BrokenBot.closed.append(self)


async def test_a_broken_bot_is_played_for_by_its_guard_and_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sixnimmt.server.tables.scheduling.make_bot", lambda _spec, seed=None: BrokenBot(seed))

    store = Store(f"sqlite:///{tmp_path / 'broken.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0), ManualClock())
    rules = Rules(players=2, target=None, deals=1)
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "bot", "bot": "expert"}])
    game = room.table.game
    assert game is not None
    host = Listener(0)
    await room.connect(host)
    while not game.is_over:
        decision = game.decision_for(0)
        if decision is not None:
            message = ChooseRow(type="row", row=decision.options[0]) if decision.kind.value == "row" else Play(
                type="play", card=decision.options[0])
            await room.handle(host, message)
        await room.scheduler.settle()
    assert not [m for m in host.messages if m["type"] == "error"]
    # every one of the bot's moves was the guard's legal fallback, and the bot was closed at the end
    assert len(BrokenBot.closed) == 1 and room.table.status == "finished"
    await rooms.close()
