"""A tournament on two processes over PostgreSQL (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``):
the process that drove the first round dies between rounds, and the other finishes the tournament
with nothing lost.

As in ``test_cluster.py``, each "process" is a registry with its own store, lease and NOTIFY channel
in one event loop, with a director of its own; the death is the lease running out with the heartbeat
stopped."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.seat import Seat
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.tournaments.director import Director, standings
from sixnimmt.server.tournaments.tourney_rows import TournamentStore

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import process
from .test_cluster_faults import close_all, expire_lease

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)

SETTINGS = {"variant": "standard", "players": 4, "rounds": 3, "deals": 1, "timer": 0, "fill": "random", "seed": 7}


def _director(rooms: Rooms) -> Director:
    return Director(rooms, TournamentStore(rooms.store.engine), lambda ids: {}, rooms.settings, rooms.clock)


async def _two_processes_and_a_tournament(
    name: str, entrants: int
) -> tuple[Rooms, Rooms, Director, Director, TournamentStore, int]:
    """Two processes on a fresh database, a director each, and a Swiss tournament of ``entrants``
    random bots created through the first."""
    url = fresh_postgres_url()
    a = await process(url)
    b = await process(url)
    one, other = _director(a), _director(b)
    store = one.store
    tid = store.create(name, "swiss", SETTINGS, 0.0, None)
    for n in range(entrants):
        store.enter(tid, f"Entrant {n}", None, "random", False, 30.0 - n)
    return a, b, one, other, store, tid


async def _play_round(rooms: Rooms, director: Director, tournament_id: int) -> int:
    """Let ``rooms``'s tables play and its director look, until the round under way has finished
    (the director has moved on); returns the round now under way."""
    store = director.store
    first = store.load(tournament_id)
    assert first is not None
    for _ in range(500):
        for code in rooms.loaded_codes():
            room = rooms.local(code)
            if room is not None:
                await room.scheduler.settle()
        await director.tick()
        now = store.load(tournament_id)
        assert now is not None
        if now.round > first.round or now.status == "finished":
            return now.round
    raise AssertionError(f"round {first.round} never ended")


@pytest.mark.asyncio
async def test_the_process_of_round_one_dies_between_rounds_and_the_other_finishes_the_tournament() -> None:
    # ten bots at four-player tables: two fill seats a round
    a, b, one, other, store, tid = await _two_processes_and_a_tournament("Cluster cup", 10)

    await one.tick()  # A starts the tournament and opens round 1: A drives its tables
    first = store.load(tid)
    assert first is not None and first.round == 1
    assert set(a.loaded_codes()) == {t.code for t in first.tables_of(1)}
    while True:  # A plays round 1 to its end, collects the results and plans round 2 ...
        for code in a.loaded_codes():
            room = a.local(code)
            assert room is not None
            await room.scheduler.settle()
        if await one._step(tid):
            break
    planned = store.load(tid)
    assert planned is not None and planned.round == 2
    assert all(t.totals is not None for t in planned.tables_of(1))
    expire_lease(a)  # ... and dies before it opened a table of round 2

    assert await _play_round(b, other, tid) == 3  # B opens round 2's tables, plays them, moves on
    assert await _play_round(b, other, tid) == 3
    done = store.load(tid)
    assert done is not None and done.status == "finished"
    assert [len(done.tables_of(r)) for r in (1, 2, 3)] == [3, 3, 3]
    assert all(t.totals is not None and t.game_id is not None for t in done.tables)
    codes = {t.code for t in done.tables}
    with b.store.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT code, status, owner FROM tables")).fetchall()
        games = connection.execute(sa.text("SELECT table_code FROM games")).fetchall()
    # one table per planned table, each with one game: nothing lost, nothing played twice
    assert sorted(code for code, _, _ in rows) == sorted(codes)
    assert all(status == "finished" for _, status, _ in rows)
    assert sorted(code for (code,) in games) == sorted(codes)
    assert b.cluster is not None
    assert {owner for code, _, owner in rows if code not in {t.code for t in done.tables_of(1)}} == {b.cluster.me}
    assert all(s.games == 3 for s in standings(done))
    await close_all(b, a)


class Killed(Exception):
    """The process dies here (it does nothing more)."""


@pytest.mark.asyncio
async def test_a_process_killed_between_opening_a_table_and_starting_its_game_loses_nothing() -> None:
    """The opener writes a round's table (its row says "waiting") and dies before its game starts:
    the process that takes the table over starts its game, and the tournament finishes."""
    a, b, one, other, store, tid = await _two_processes_and_a_tournament("Opening cup", 8)
    opened = a._room

    def dies_before_its_game(code: str, options: TableOptions, seats: list[Seat]) -> Room:
        room = opened(code, options, seats)

        async def killed() -> None:
            raise Killed(code)

        room.start_game = killed  # type: ignore[method-assign]
        return room

    a._room = dies_before_its_game  # type: ignore[method-assign]
    await one.tick()  # A starts the tournament, writes round 1's first table and dies
    started = store.load(tid)
    assert started is not None and started.round == 1
    with a.store.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT code, status FROM tables")).fetchall()
    assert [status for _, status in rows] == ["waiting"]
    expire_lease(a)

    assert await _play_round(b, other, tid) == 2  # B takes the waiting table over and starts its game
    assert await _play_round(b, other, tid) == 3
    assert await _play_round(b, other, tid) == 3
    done = store.load(tid)
    assert done is not None and done.status == "finished"
    assert all(t.totals is not None and t.game_id is not None for t in done.tables)
    with b.store.engine.connect() as connection:
        games = connection.execute(sa.text("SELECT table_code FROM games")).fetchall()
    assert sorted(code for (code,) in games) == sorted(t.code for t in done.tables)
    assert all(s.games == 3 for s in standings(done))
    await close_all(b, a)
