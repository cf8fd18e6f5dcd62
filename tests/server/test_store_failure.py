"""A database error never half-applies a move: when the store fails partway, the room goes back to
what the store holds, the move is refused with the ``store-failed`` code (translated by the client),
and the game goes on from there once the store works again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import TableData
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import StoreFailedError, TableOptions
from sixnimmt.server.wire import ChooseRow, Play

from .conftest import Listener

pytestmark = pytest.mark.asyncio


class FlakyStore(Store):
    """A store that fails its next write when asked to (a lost connection, a full disk...)."""

    fail_next = False
    failures = 0

    def _maybe_fail(self) -> None:
        if self.fail_next:
            self.fail_next = False
            self.failures += 1
            raise OSError("the database went away")

    def save_tables(self, batch: list[TableData]) -> set[str]:
        self._maybe_fail()
        return super().save_tables(batch)

    def finish_game(self, data: TableData, *args: Any) -> int:
        self._maybe_fail()
        return super().finish_game(data, *args)



def stored_state(store: Store, code: str) -> tuple[Any, ...]:
    data = store.load_table(code)
    assert data is not None
    return data.status, data.seats, data.record, data.current


def memory_state(room: Room) -> tuple[Any, ...]:
    data = room.table.to_store()
    return data.status, data.seats, data.record, data.current


async def _table(tmp_path: Path, rules: Rules) -> tuple[FlakyStore, Rooms, Room, dict[int, Listener]]:
    store = FlakyStore(f"sqlite:///{tmp_path / 'flaky.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"), ManualClock())
    room, _ = await rooms.create(TableOptions(rules, public=True), "Host", [{"kind": "open"}] * (rules.players - 1))
    for n in range(1, rules.players):
        await room.join(f"Friend {n}")
    players = {seat: Listener(seat) for seat in range(rules.players)}
    for conn in players.values():
        await room.connect(conn)
    return store, rooms, room, players


async def test_a_failed_save_refuses_the_move_and_changes_nothing(tmp_path: Path) -> None:
    """Every third move fails to save, through a whole game (turn reveals, row choices and the last
    move, which stores the finished game): each refused move leaves memory equal to the store and
    each player's view as it was; the move made again is accepted; one game reaches the history."""

    store, rooms, room, players = await _table(tmp_path, Rules(players=3, target=None, deals=1))
    moves = refused = 0
    while room.table.game is not None and not room.table.game.is_over:
        decision = room.table.game.pending()[0]
        conn = players[decision.seat]
        value = decision.options[-1]
        message = ChooseRow(type="row", row=value) if decision.kind.value == "row" else Play(type="play", card=value)
        moves += 1
        if moves % 3 == 0:
            views = [room.table.game.view(seat).to_dict() for seat in players]
            before = memory_state(room)
            store.fail_next = True
            await room.handle(conn, message)
            refused += 1
            error, state = conn.messages[-2:]
            assert error["type"] == "error" and error["code"] == "store-failed"
            assert state["type"] == "state" and state["view"] == views[decision.seat]
            assert memory_state(room) == before == stored_state(store, room.code)
            assert [room.table.game.view(seat).to_dict() for seat in players] == views
        await room.handle(conn, message)
        assert conn.messages[-1]["type"] != "error", conn.messages[-1]
        assert memory_state(room) == stored_state(store, room.code)
    assert refused >= 10 and store.failures == refused
    games = store.list_games()
    assert len(games) == 1 and room.table.last_game_id == games[0]["id"]
    archived = store.get_game(games[0]["id"])
    assert archived is not None and room.table.game is not None
    assert archived["record"] == room.table.game.record()
    await rooms.close()


async def test_a_failed_save_of_a_join_keeps_the_seat_open(tmp_path: Path) -> None:
    store = FlakyStore(f"sqlite:///{tmp_path / 'flaky.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0), ManualClock())
    room, _ = await rooms.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}] * 2)
    store.fail_next = True
    try:
        await room.join("Ana")
    except StoreFailedError as error:
        assert error.code == "store-failed"
    else:
        raise AssertionError("the join was not refused")
    assert room.table.open_seats() == [1, 2] and room.table.status == "waiting"
    assert memory_state(room) == stored_state(store, room.code)
    seat, _, later = await room.join("Ana")
    assert (seat, later) == (1, False) and room.table.open_seats() == [2]
    await rooms.close()
