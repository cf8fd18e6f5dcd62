"""The table never stalls: a player who is away, or out of time, has their move made by a fallback
bot; a player who comes back takes over again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sixnimmt.core import Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.protocol import ChooseRow, Play
from sixnimmt.server.rooms import Room, Rooms, TableOptions
from sixnimmt.server.store import Store


class Conn:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


async def two_humans(tmp_path: Path, timer: int = 0, grace: float = 30.0) -> tuple[Rooms, Room]:
    store = Store(f"sqlite:///{tmp_path / 'fallback.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0, absent_grace=grace, fallback_bot="random")
    rooms = Rooms(store, settings)
    room, _ = await rooms.create(TableOptions(Rules(players=2), timer=timer), "Host", [{"kind": "open"}])
    await room.join("Friend")
    return rooms, room


async def wait_for(predicate: Any, seconds: float) -> bool:
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


def test_an_absent_player_is_played_for_then_takes_over(tmp_path: Path) -> None:
    async def scenario() -> None:
        rooms, room = await two_humans(tmp_path, grace=0.3)
        game = room.game
        assert game is not None
        host = Conn(0)
        await room.connect(host)  # the friend never connects: away since joining
        await room.handle(host, Play(type="play", card=game.hands[0][0]))
        for _ in range(3):  # the fallback plays the friend's card (and any row choice of theirs)
            assert await wait_for(lambda: game.turn >= 1 or game.pending()[0].seat == 0, 5)
            if game.turn >= 1:
                break
            await room.handle(host, ChooseRow(type="row", row=0))  # the host's own row choice
        assert game.turn == 1
        # the friend comes back: from now on the game waits for them
        friend = Conn(1)
        await room.connect(friend)
        for _ in range(100):  # a move made for them just before they came back completes its turn
            if game.phase.value == "play" and game.chosen[1] is None:
                break
            decision = game.decision_for(0)
            if decision is not None and decision.kind.value == "row":
                await room.handle(host, ChooseRow(type="row", row=0))
            elif decision is not None:
                await room.handle(host, Play(type="play", card=decision.options[0]))
            await asyncio.sleep(0.02)
        turn = game.turn
        if game.chosen[0] is None:
            await room.handle(host, Play(type="play", card=game.hands[0][0]))
        await asyncio.sleep(0.8)  # well past the grace period
        assert game.turn == turn and game.chosen[1] is None  # nobody played for a present player
        await room.handle(friend, Play(type="play", card=game.hands[1][-1]))
        assert await wait_for(lambda: game.turn == turn + 1 or game.phase.value == "row-choice", 5)
        await rooms.close()

    asyncio.run(scenario())


def test_the_turn_timer_plays_for_whoever_runs_out_of_time(tmp_path: Path) -> None:
    async def scenario() -> None:
        rooms, room = await two_humans(tmp_path, timer=2)
        game = room.game
        assert game is not None
        host, friend = Conn(0), Conn(1)
        await room.connect(host)
        await room.connect(friend)
        left = host.messages[-1]["table"]["timer_left"]
        assert left is not None and 0 < left <= 2
        if left > 0.8:
            await asyncio.sleep(left - 0.6)
            assert game.turn == 0 and not any(game.chosen)  # not yet: time is not up
        assert await wait_for(lambda: game.turn >= 1, 5)  # both ran out: both moves were made
        await rooms.close()

    asyncio.run(scenario())


def test_no_connection_no_fallback(tmp_path: Path) -> None:
    """An abandoned table waits for its players instead of playing itself out."""

    async def scenario() -> None:
        rooms, room = await two_humans(tmp_path, grace=0.1)
        assert room.game is not None
        await asyncio.sleep(0.5)
        room._schedule()
        await asyncio.sleep(0.3)
        assert room.game.turn == 0 and not any(room.game.chosen)
        await rooms.close()

    asyncio.run(scenario())


def test_idle_rooms_leave_memory_and_come_back_unchanged(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'evict.db'}")
        store.migrate()
        rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, idle_evict=0.1))
        room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "open"}])
        await room.join("Friend")
        host = Conn(0)
        await room.connect(host)
        assert room.game is not None
        card = room.game.hands[0][3]
        await room.handle(host, Play(type="play", card=card))
        before = room.game.view(0).to_dict()
        await room.disconnect(host)
        await asyncio.sleep(0.3)
        other, _ = await rooms.create(TableOptions(Rules(players=2)), "Other", [{"kind": "open"}])
        await rooms.get(other.code)  # any use of the rooms sweeps the idle ones
        assert rooms.loaded() == 1
        again = await rooms.get(room.code)
        assert again is not room and again.game is not None
        assert again.game.view(0).to_dict() == before and before["my_choice"] == card
        await rooms.close()

    asyncio.run(scenario())
