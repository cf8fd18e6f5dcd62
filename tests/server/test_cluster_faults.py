"""Faults between several processes on one PostgreSQL database (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``), in one event loop as in ``test_cluster.py``: a process whose
database connections die, an owner paused past its lease that comes back after a takeover, a join
whose caller gave up, a stale owner's messages and a stale archive write.

A pause is simulated by moving the paused process's own clocks (its lease clock, its wall clock)
and expiring its lease row, or by holding its incoming messages back: no test waits for a lease to
run out on the wall clock. The real database restart, with real processes, is in
``test_cluster_restart.py``."""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.calls import Join, Listing, Summary
from sixnimmt.server.cluster.mail import Ask, Mail
from sixnimmt.server.store.database import Store
from sixnimmt.server.store.rows import LeaseLostError, TableData
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table import Save
from sixnimmt.server.tables.table_setup import TableError, TableOptions
from sixnimmt.server.wire import MOVED_CLOSE_CODE, Play

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, finish_for, process, until
from .test_no_leaks import CheckingConnection

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)


async def close_all(*processes: Rooms) -> None:
    for rooms in processes:
        await rooms.close()
        rooms.store.close()


def expire_lease(rooms: Rooms) -> None:
    """``rooms``'s process stops renewing its lease and the lease runs out, as in a process that is
    paused (SIGSTOP) past it; its own clock says so too."""
    cluster = rooms.cluster
    assert cluster is not None

    async def paused() -> None:  # its heartbeat does nothing any more (stopping the task would count
        pass  # as a lost connection)

    cluster._tick = paused  # type: ignore[method-assign]
    with rooms.store.engine.begin() as connection:
        connection.execute(sa.text("UPDATE server_processes SET lease_until = now() - interval '1 second' "
                                   "WHERE id = :me"), {"me": cluster.me})
    later = time.monotonic() + 10 * cluster.lease
    cluster.clock = lambda: later


def backend_pids(rooms: Rooms) -> list[int]:
    cluster = rooms.cluster
    assert cluster is not None
    return [conn.info.backend_pid for conn in (cluster._listen, cluster._query, cluster._beat_conn)
            if conn is not None]


@pytest.mark.asyncio
async def test_a_process_whose_database_connections_die_reconnects_and_its_tables_go_on() -> None:
    """Every connection of process A is cut by the server (as a database restart does). A says so
    while it lasts (not connected, no lease: ``/healthz`` and ``/readyz`` read this), drops the table
    it drove, reconnects by itself, gives the table up, and B, which forwards the friend's socket,
    takes it over: the game is played to the end with every move kept; A's lobby and a join
    forwarded through A answer again. (Before, A's reader task died and nothing came back.)"""

    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    b.cluster.heartbeat = 0.1  # B notices the change of owner quickly (no wait on the lease)
    rules = Rules(players=3, target=None, deals=1)
    room, _ = await a.create(TableOptions(rules), "Host", [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    _, friend_token, _ = await room.join("Friend")
    host = Socket()
    host.seat = 0
    await room.connect(host)
    friend = Socket()
    link = b.cluster.link(room.code, a.cluster.me, friend, friend_token)
    await until(lambda: any(m.get("type") == "state" for m in friend.messages), "the friend's state via A")
    # the friend chooses a card through B; A saves it
    assert room.table.game is not None
    decision = room.table.game.decision_for(1)
    assert decision is not None
    kept = decision.options[0]
    b.cluster.forward(link, f'{{"type": "play", "card": {kept}}}')
    await until(lambda: room.table.game is not None and room.table.game.chosen[1] is not None, "the friend's card at A")

    outages: list[dict[str, Any]] = []
    lose = getattr(a.cluster, "_lose", lambda: None)

    def noting_lose() -> None:
        lose()
        assert a.cluster is not None
        outages.append({"connected": a.cluster.connected, "ready": a.cluster.holds_lease(),
                        "health": a.cluster.health(), "rooms": a.loaded()})

    a.cluster._lose = noting_lose  # type: ignore[method-assign]
    with b.store.engine.begin() as connection:  # (B's store: A's own connections are the ones cut)
        for pid in backend_pids(a):
            connection.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    await until(lambda: bool(outages), "A noticed it lost its database", tries=500)
    assert outages[0] == {"connected": False, "ready": False, "rooms": 0,
                          "health": {"database": "reconnecting", "down_seconds": 0.0}}
    assert host.closed is None  # a test socket: drop() is what a real one gets
    await until(lambda: a.cluster is not None and a.cluster.connected and a.cluster.holds_lease(),
                "A reconnected", tries=3000)
    # A gave the table up; B, whose socket watches it, takes it over and serves the friend itself
    await until(lambda: link.room is not None, "B took the table over", tries=3000)
    new = link.room
    assert new is not None and new.table.game is not None
    assert new.table.game.chosen[1] == kept  # the card chosen before the outage is kept
    # A answers again: its lobby, and a join through A forwarded to B
    assert await a.lobby() == []
    target = await a.locate(room.code)
    assert target == b.cluster.me
    assert isinstance(await a.call(room.code, Summary()), dict)
    # the game goes on to the end through B
    await finish_for(new, (0, 1))
    assert new.table.game.is_over
    assert new.table.last_game_id is not None
    game = await b.db.run(b.store.get_game, new.table.last_game_id)
    assert game is not None and game["table"] == room.code
    await close_all(a, b)


async def _four_at_a(
    url: str, save_through: Callable[[Save], Save] | None = None
) -> tuple[Rooms, Rooms, Room, dict[int, CheckingConnection]]:
    """A drives a table of four people, every socket on A, each checked for hidden cards; A's
    tables save through ``save_through(the plain save)`` when it is given."""
    a, b = await process(url), await process(url)
    if save_through is not None:
        a.db.save = save_through(a.db.save)  # type: ignore[method-assign]
    room, _ = await a.create(TableOptions(Rules(players=4, target=None, deals=1)), "Host", [{"kind": "open"}] * 3)
    for n in range(1, 4):
        await room.join(f"Friend {n}")
    conns = {seat: CheckingConnection(room, seat) for seat in range(4)}
    for conn in conns.values():
        await room.connect(conn)
    return a, b, room, conns


async def _seats_0_to_2_choose(room: Room, conns: dict[int, CheckingConnection]) -> None:
    assert room.table.game is not None
    for seat in range(3):
        decision = room.table.game.decision_for(seat)
        assert decision is not None
        await room.handle(conns[seat], Play(type="play", card=decision.options[0]))
    assert [c is not None for c in room.table.game.chosen] == [True, True, True, False]


@pytest.mark.asyncio
@pytest.mark.parametrize("when", ["before-acting", "while-saving"])
async def test_a_paused_owner_that_comes_back_after_a_takeover_shows_no_hidden_card(when: str) -> None:
    """Seats 0-2 have chosen; seat 3's socket is on A, the owner. A is paused past its lease and B
    takes the table over; then A handles seat 3's card. ``before-acting``: A's lease ran out by its
    own clock before it handled the card, so it does not act (no write at all); ``while-saving``:
    A was paused after it checked its lease, so the turn completes in A's memory and the store
    refuses the write. Either way A rolls back, drops the table and sends seat 3 the refusal and
    nothing else: every message to every seat is checked against the hands as the new owner holds
    them (before, A sent seat 3 a fresh state of the unsaved turn: the others' three cards)."""

    saves: list[TableData] = []
    taken: list[Room] = []
    counting = False

    def through(save: Save) -> Save:
        async def saving(data: TableData) -> None:
            if counting:
                if when == "while-saving" and not taken:
                    await take_over()
                saves.append(data)
            await save(data)

        return saving

    url = fresh_postgres_url()
    a, b, room, conns = await _four_at_a(url, through)
    await _seats_0_to_2_choose(room, conns)

    async def take_over() -> None:
        expire_lease(a)
        if when == "while-saving":  # A checked its lease in time; its clock runs on meanwhile
            assert a.cluster is not None
            a.cluster.clock = time.monotonic
            a.cluster._lease_until = time.monotonic() + 60
        target = await b.locate(room.code)
        assert isinstance(target, Room) and target.table.epoch == 2
        taken.append(target)
        for conn in conns.values():  # from now on the hidden cards are the new owner's
            conn.room = target

    counting = True
    if when == "before-acting":
        await take_over()
    assert room.table.game is not None
    before = {seat: len(conn.messages) for seat, conn in conns.items()}
    card = room.table.game.decision_for(3)
    assert card is not None
    await room.handle(conns[3], Play(type="play", card=card.options[0]))
    # seat 3 got the refusal and nothing more; the others nothing at all
    assert [m["type"] for m in conns[3].messages[before[3]:]] == ["error"]
    assert conns[3].messages[-1]["code"] == "table-unavailable"
    for seat in range(3):
        assert conns[seat].messages[before[seat]:] == []
    assert len(saves) == (1 if when == "while-saving" else 0)
    # the store holds B's state: seat 3 has not chosen, the others' cards still hidden
    stored = await b.db.run(b.store.load_table, room.code)
    assert stored is not None and stored.epoch == 2
    assert [seat for seat, _ in stored.current["log"]] == [0, 1, 2]  # type: ignore[index]
    await until(lambda: a.local(room.code) is None, "A dropped its copy")
    assert room.table.closed
    await close_all(a, b)


@pytest.mark.asyncio
async def test_a_join_whose_caller_gave_up_takes_no_seat_and_a_retry_with_its_key_gets_the_same_one() -> None:
    """A join is forwarded from B to A, which is stalled (its messages held back) past B's wait: B
    answers "try again". When A resumes after the caller's deadline, it seats nobody. A join that A
    did start in time but answered too late did take a seat: the retry with the same key gets that
    seat and its token, and so does any further retry; a different key gets the next seat."""

    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    room, _ = await a.create(TableOptions(Rules(players=4)), "Host", [{"kind": "open"}] * 3)
    held = asyncio.Event()
    handled: list[Mail] = []
    on_items = a.cluster._on_items

    async def stalled(sender: str, items: list[Mail]) -> None:
        await held.wait()
        await on_items(sender, items)
        handled.extend(items)

    a.cluster._on_items = stalled  # type: ignore[method-assign]
    b.cluster.forwarding.call_timeout = 0.3
    first, second = secrets.token_urlsafe(24), secrets.token_urlsafe(24)

    async def stalled_join(key: str, skew: float) -> None:
        assert a.cluster is not None
        held.clear()
        calls = len([i for i in handled if isinstance(i, Ask)])
        with pytest.raises(TableError) as refused:
            await b.call(room.code, Join(f"Late {key[:4]}", key=key))
        assert refused.value.code == "table-unavailable"
        now = time.time
        a.cluster.forwarding.wall = lambda: now() + skew  # how late A is when it resumes
        held.set()
        await until(lambda: len([i for i in handled if isinstance(i, Ask)]) > calls, "A resumed and got the call")
        await asyncio.sleep(0)
        async with room.lock:  # (the join, if A started it, has finished)
            pass

    # the caller gave up before A resumed: no seat is taken
    await stalled_join(first, skew=+60.0)
    assert room.table.open_seats() == [1, 2, 3]
    stored = await b.db.run(b.store.load_table, room.code)
    assert stored is not None and [s["kind"] for s in stored.seats] == ["human", "open", "open", "open"]
    # its retry with the same key joins, once
    a.cluster.forwarding.wall = time.time
    b.cluster.forwarding.call_timeout = 5.0
    seat, token, later = await b.call(room.code, Join("Ann", key=first))
    assert (seat, later) == (1, False) and room.table.place_for_token(token) == (1, None)
    assert await b.call(room.code, Join("Ann", key=first)) == [seat, token, later]
    # A started this one in time but its answer came after the caller had given up: it took a
    # seat, which the retry with the same key gets (and no second one)
    b.cluster.forwarding.call_timeout = 0.3
    await stalled_join(second, skew=-60.0)
    assert room.table.open_seats() == [3]
    b.cluster.forwarding.call_timeout = 5.0
    again = await b.call(room.code, Join("Bob", key=second))
    assert again[0] == 2 and room.table.place_for_token(again[1]) == (2, None)
    assert room.table.open_seats() == [3]
    await close_all(a, b)


@pytest.mark.asyncio
async def test_a_stale_owners_gone_and_push_are_ignored() -> None:
    """B forwards a socket to A; A is paused past its lease and C takes the table over; B follows
    C. A comes back still thinking it drives the table and sends that socket a message and a
    ``gone``: B ignores both (they are not from the socket's owner, nor of its epoch), and the
    socket stays open, served by C (before, the stale ``gone`` closed it with 1012)."""

    url = fresh_postgres_url()
    a, b, c = await process(url), await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None and c.cluster is not None
    room, _ = await a.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}] * 2)
    _, token, _ = await room.join("Friend")
    friend = Socket()
    link = b.cluster.link(room.code, a.cluster.me, friend, token)
    await until(lambda: len(a.cluster.remote) == 1 and bool(friend.messages), "the friend is at A")
    stale = next(iter(a.cluster.remote.values()))
    expire_lease(a)
    assert isinstance(await c.locate(room.code), Room)
    await b.cluster._watch_owners()  # (B's heartbeat does this every second)
    assert link.owner == c.cluster.me
    await until(lambda: len(c.cluster.remote) == 1 and friend.messages[-1]["type"] == "state", "C serves it")
    seen = len(friend.messages)
    stale.push({"type": "state", "stale": True})
    stale.drop()
    # A's items reach B before A's answer to a call B makes after them (one sender, in order)
    await b.cluster.call(a.cluster.me, "", Listing(1))
    assert friend.closed is None
    assert friend.messages[seen:] == []
    assert friend.closed != MOVED_CLOSE_CODE
    await close_all(a, b, c)


def test_a_stale_archive_write_is_refused() -> None:
    """The store's whole-state write (a finished game with its table, ``save_table``) is fenced as
    the group commit is: a write by the old owner after a takeover is refused, nothing of it stored;
    and a takeover that comes while the old owner's write is under way waits for it (the row is
    locked before the epoch is compared), so the stale write never lands after the takeover (before,
    the epoch was read without a lock and the row updated by its key alone)."""
    url = fresh_postgres_url()
    store = Store(url)
    store.migrate()
    other = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    rules = Rules(players=2).to_dict()
    record = {"rules": rules, "seats": ["A", "B"], "scores": [1, 2], "deals": []}

    def table(code: str) -> TableData:
        return TableData(code, "playing", {"rules": rules, "public": True}, [{"kind": "human"}] * 2, 1, None, {"log": []},
                         epoch=1, owner="a")

    def take_over(code: str) -> None:
        with other.connect() as connection:
            connection.execute(sa.text("UPDATE tables SET owner = 'b', owner_epoch = owner_epoch + 1 "
                                       "WHERE code = :code"), {"code": code})

    def epoch(code: str) -> int:
        with other.connect() as connection:
            return int(connection.execute(sa.text("SELECT owner_epoch FROM tables WHERE code = :c"),
                                          {"c": code}).scalar_one())

    # a takeover already made: the old owner's archive is refused, no game stored
    store.create_table(table("AAAAA"))
    take_over("AAAAA")
    with pytest.raises(LeaseLostError):
        store.finish_game(table("AAAAA"), record, [0])
    with pytest.raises(LeaseLostError):
        store.save_table(table("AAAAA"))
    assert store.list_games() == []

    # a takeover while the archive is under way, between reading the row and writing it
    store.create_table(table("BBBBB"))
    taking: list[threading.Thread] = []
    finished_first: list[bool] = []  # whether the takeover was done before the archive wrote

    def racing(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if taking or not statement.lstrip().startswith("SELECT") or "FROM tables" not in statement:
            return
        thread = threading.Thread(target=take_over, args=("BBBBB",))
        taking.append(thread)
        thread.start()
        # wait until the takeover is either done or waiting for this transaction's lock
        for _ in range(2000):
            if not thread.is_alive():
                finished_first.append(True)
                return
            with other.connect() as connection:
                if connection.execute(sa.text(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND query LIKE 'UPDATE tables SET owner = ''b''%'")).scalar_one():
                    finished_first.append(False)
                    return
            time.sleep(0.005)
        raise AssertionError("the takeover neither finished nor waited")

    sa.event.listen(store.engine, "after_cursor_execute", racing)
    refused = False
    try:
        store.finish_game(table("BBBBB"), record, [0])
    except LeaseLostError:
        refused = True
    finally:
        sa.event.remove(store.engine, "after_cursor_execute", racing)
        for thread in taking:
            thread.join(timeout=30)
    assert epoch("BBBBB") == 2 and len(finished_first) == 1
    # the takeover waited for the old owner's write, or that write was refused: never after it
    assert not finished_first[0] or refused
    assert len(store.list_games()) == (0 if refused else 1)
    store.close()
    other.dispose()


@pytest.mark.asyncio
async def test_an_owner_whose_lease_lapsed_unnoticed_checks_and_goes_on_and_a_dropped_table_is_served_again() -> None:
    """A's lease lapses by its own clock (a stalled event loop) but nobody takes its table over:
    before acting on the friend's card, forwarded by B, A renews its lease and finds the table
    still its own (same epoch), and takes the card, with no reconnect. Then A drops the table (as
    after an eviction it could not announce): B's socket is told to reconnect, and the page's new
    socket (through B again, to A, which the database still names as the owner) is served, A
    loading the table again instead of answering ``gone`` for ever."""

    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    room, _ = await a.create(TableOptions(Rules(players=3)), "Host",
                             [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
    _, token, _ = await room.join("Friend")
    friend = Socket()
    link = b.cluster.link(room.code, a.cluster.me, friend, token)
    await until(lambda: bool(friend.messages), "the friend is at A")
    assert room.table.game is not None
    decision = room.table.game.decision_for(1)
    assert decision is not None
    lapsed = time.monotonic() + 10 * a.cluster.lease
    a.cluster.clock = lambda: lapsed
    assert not a.cluster.holds_lease()
    b.cluster.forward(link, json.dumps({"type": "play", "card": decision.options[0]}))
    await until(lambda: room.table.game is not None and room.table.game.chosen[1] is not None, "the friend's card at A")
    assert a.cluster.holds_lease() and friend.closed is None and a.local(room.code) is room
    a.cluster.clock = time.monotonic
    await a.cluster._renew()
    await a._drop(room, release=False)
    await until(lambda: friend.closed == MOVED_CLOSE_CODE, "B's socket told to reconnect")
    await b.cluster.unlink(link)
    again = Socket()
    relink = b.cluster.link(room.code, a.cluster.me, again, token)
    await until(lambda: any(m.get("type") == "state" for m in again.messages), "the friend is served again")
    new = a.local(room.code)
    assert new is not None and new is not room and new.table.epoch == 2
    assert new.table.game is not None and new.table.game.chosen[1] is not None  # the card taken before is kept
    b.cluster.forward(relink, json.dumps({"type": "sync"}))
    await until(lambda: again.messages[-1].get("type") == "state" and len(again.messages) > 1, "A answers")
    assert again.closed is None
    await close_all(a, b)
