"""Turn-based tables: a time per move of hours, players who come and go between their moves, and a
stand-in for whoever lets the time run out (even while nobody is at the table). Time is a
:class:`ManualClock` moved by the test: a whole game of three people over a simulated day."""

from __future__ import annotations

from pathlib import Path

import pytest

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TIMER_CHOICES, TableError, TableOptions
from sixnimmt.server.wire import ChooseRow, Play

from .conftest import Listener

HOUR = 3600.0


def test_turn_based_limits_are_offered() -> None:
    assert {HOUR, 12 * HOUR, 24 * HOUR} <= set(TIMER_CHOICES)
    options = TableOptions.from_dict({"rules": Rules(players=3).to_dict(), "timer": 12 * 3600})
    assert options.timer == 12 * 3600
    with pytest.raises(TableError):
        TableOptions.from_dict({"rules": Rules(players=3).to_dict(), "timer": 2 * 3600})


async def move(room: Room, seat: int) -> bool:
    """Seat ``seat`` opens the table, answers what the game asks of it (its lowest card, the first
    row it may take) until it asks nothing more, and goes away again. False when the game asked
    nothing of it."""
    game = room.table.game
    assert game is not None
    if game.decision_for(seat) is None:
        return False
    conn = Listener(seat)
    await room.connect(conn)
    while room.table.status == "playing" and (decision := game.decision_for(seat)) is not None:
        if decision.kind.value == "row":
            await room.handle(conn, ChooseRow(type="row", row=decision.options[0]))
        else:
            await room.handle(conn, Play(type="play", card=min(game.hands[seat])))
        await room.scheduler.settle()
    await room.disconnect(conn)
    return True


@pytest.mark.asyncio
async def test_three_people_over_a_simulated_day_one_times_out(tmp_path: Path) -> None:
    from sixnimmt.server.store.database import Store

    clock = ManualClock()
    store = Store(f"sqlite:///{tmp_path / 'turns.db'}")
    store.migrate()
    # a short grace for the away: on a turn-based table it must not matter
    settings = Settings(database_url=store.url, bot_delay=0.0, absent_grace=20.0, fallback_bot="random")
    rooms = Rooms(store, settings, clock)
    room, _ = await rooms.create(TableOptions(Rules(players=3, target=10), timer=int(HOUR)), "Ana",
                                 [{"kind": "open"}, {"kind": "open"}])
    await room.join("Bo")
    await room.join("Cy")
    game = room.table.game
    assert game is not None and room.table.status == "playing"
    assert room.scheduler.turn_based
    played_for: list[tuple[int, str]] = []
    original = room.act

    async def act(seat: int, value: int, stand_in: str | None = None) -> None:
        if stand_in is not None:
            played_for.append((seat, stand_in))
            assert not room.connections  # the time ran out with nobody at the table
        await original(seat, value, stand_in)

    room.act = act  # type: ignore[method-assign]
    start = clock.now()
    cy_moves = 0
    while room.table.status == "playing":
        # Ana answers after 10 minutes, Bo after 40 (long past the 20 s grace for the away:
        # nobody plays for him); Cy answers his first three moves, then stops answering
        clock.advance(10 * 60)
        await room.scheduler.settle()
        await move(room, 0)
        clock.advance(30 * 60)
        await room.scheduler.settle()
        await move(room, 1)
        if cy_moves < 3 and await move(room, 2):
            cy_moves += 1
            continue
        clock.advance(25 * 60)  # an hour and five minutes after the move began: time is up
        await room.scheduler.settle()
        assert clock.now() - start < 48 * HOUR
    elapsed = clock.now() - start
    assert room.table.status == "finished" and game.is_over
    assert cy_moves == 3
    assert played_for and {seat for seat, _ in played_for} == {2}  # only Cy was played for
    assert {reason for _, reason in played_for} == {"timer"}
    assert 2 * HOUR < elapsed < 48 * HOUR  # a game played over about a day
    assert room.table.last_game_id is not None  # the game was stored, as every game is
    assert store.get_game(room.table.last_game_id) is not None
    await room.close()
    store.close()


@pytest.mark.asyncio
async def test_a_restart_keeps_the_deadline_and_the_timeout_still_applies(tmp_path: Path) -> None:
    """The server stops 40 minutes into an hour's move and starts again 5 minutes later, on a clock
    of its own (monotonic time means nothing across processes): the table is loaded at start-up with
    the same deadline, 15 minutes left, and the stand-in plays for the player who let it run out.
    A second stop outlasts the next deadline: the stand-in plays as soon as the server is back."""

    from sixnimmt.server.store.database import Store

    url = f"sqlite:///{tmp_path / 'restart.db'}"
    store = Store(url)
    store.migrate()
    settings = Settings(database_url=url, bot_delay=0.0, absent_grace=20.0, fallback_bot="random")
    clock = ManualClock()
    rooms = Rooms(store, settings, clock)
    room, _ = await rooms.create(TableOptions(Rules(players=3, target=30), timer=int(HOUR)), "Ana",
                                 [{"kind": "open"}, {"kind": "open"}])
    await room.join("Bo")
    await room.join("Cy")
    code = room.code
    clock.advance(10 * 60)
    await move(room, 0)
    await move(room, 1)  # Cy does not answer
    clock.advance(30 * 60)
    await room.scheduler.settle()
    deadline = room.scheduler.deadline_at()
    assert deadline is not None and room.scheduler.timer_left() == 20 * 60
    turn = room.table.game.turn  # type: ignore[union-attr]
    await rooms.close()
    store.close()

    async def restart(wall: float) -> tuple[Rooms, Room, ManualClock, list[tuple[int, str]], Store]:
        store = Store(url)
        clock = ManualClock(start=5.0, wall_start=wall)
        rooms = Rooms(store, settings, clock)
        assert await rooms.wake_turn_based() == 1  # loaded at start-up, with nobody at the table
        room = rooms.local(code)
        assert room is not None
        played_for: list[tuple[int, str]] = []
        original = room.act

        async def act(seat: int, value: int, stand_in: str | None = None) -> None:
            if stand_in is not None:
                played_for.append((seat, stand_in))
            await original(seat, value, stand_in)

        room.act = act  # type: ignore[method-assign]
        return rooms, room, clock, played_for, store

    # back 5 minutes later: the same deadline, not a fresh hour, and not forgotten
    rooms, room, clock, played_for, store = await restart(deadline - 15 * 60)
    assert room.scheduler.deadline_at() == pytest.approx(deadline)
    assert room.scheduler.timer_left() == 15 * 60
    game = room.table.game
    assert game is not None and game.turn == turn
    assert [d.seat for d in game.pending()] == [2]  # Ana's and Bo's cards were kept
    clock.advance(14 * 60)
    await room.scheduler.settle()
    assert played_for == [] and game.decision_for(2) is not None
    clock.advance(2 * 60)  # the hour is up
    await room.scheduler.settle()
    assert (2, "timer") in played_for and {seat for seat, _ in played_for} == {2}
    assert room.table.status == "playing"
    # the next decision has its own hour; the server is away for two
    later = room.scheduler.deadline_at()
    assert later is not None and later > deadline
    waiting = set(room.table.pending_seats())
    waited_for = {seat: game.decision_for(seat) for seat in waiting}
    assert waiting
    await rooms.close()
    store.close()
    rooms, room, clock, played_for, store = await restart(later + HOUR)
    await room.scheduler.settle()
    game = room.table.game
    assert game is not None
    assert {seat for seat, _ in played_for} == waiting and {r for _, r in played_for} == {"timer"}
    # each decision waited for was made; what the game asks now (the next turn, or a row to take
    # when a stand-in's card was lower than every row) is a new decision, with an hour of its own
    assert all(game.decision_for(seat) != decision for seat, decision in waited_for.items())
    await rooms.close()
    store.close()
