"""A process that drives clearly more tables than its share hands some over (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``): after a pause or a restart one process may have taken every table
over, and without this nothing would spread them again. In one event loop, as in ``test_cluster.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa

from sixnimmt.core import Rules
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import MOVED_CLOSE_CODE

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, finish_for, process, until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]

RULES = Rules(players=3, target=None, deals=1)


def owners(rooms: Rooms) -> dict[str, str | None]:
    with rooms.store.engine.begin() as connection:
        return dict(connection.execute(sa.text("SELECT code, owner FROM tables")).all())  # type: ignore[arg-type]


def hidden_cards_seen(socket: Socket, seat: int) -> list[dict[str, Any]]:
    """Messages to ``socket`` (seat ``seat``) carrying a view of another seat."""
    return [m for m in socket.messages
            if isinstance(m.get("view"), dict) and m["view"].get("hand") and m["view"].get("seat") != seat]


async def test_a_process_driving_more_than_its_share_hands_tables_over_and_their_games_go_on() -> None:
    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    a.cluster.balance_every = b.cluster.balance_every = 0  # the test looks at the balance itself
    # four tables driven by A, each with the host's socket on A and the friend's on B ...
    tables = []
    for _ in range(4):
        room, host_token = await a.create(TableOptions(RULES), "Host", [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        _, friend_token, _ = await room.join("Friend")
        host = Socket()
        host.seat = 0
        await room.connect(host)
        friend = Socket()
        link = b.cluster.link(room.code, a.cluster.me, friend, friend_token)
        tables.append((room, host_token, friend, link, friend_token))
    # ... and one watched by nobody on B: it stays where it is (its timers with it)
    lonely, _ = await a.create(TableOptions(RULES), "Alone", [{"kind": "bot", "bot": "random"}] * 2)
    for _, _, friend, *_ in tables:
        await until(lambda friend=friend: any(m.get("type") == "state" for m in friend.messages), "the friend's state via A")
    # each friend chooses a card through B before anything moves
    kept: dict[str, int] = {}
    for room, _, _, link, _ in tables:
        assert room.table.game is not None
        decision = room.table.game.decision_for(1)
        assert decision is not None
        kept[room.code] = decision.options[0]
        b.cluster.forward(link, f'{{"type": "play", "card": {kept[room.code]}}}')
    await until(lambda: all(r.table.game is not None and r.table.game.chosen[1] is not None for r, *_ in tables),
                "every friend's card at A")

    # five tables against none: an even split is 2.5, so two are handed over, both watched from B
    handed: list[str] = []
    for _ in range(100):  # (a table whose bot is acting right now is left for the next look)
        handed += await a.cluster.balance()
        if len(handed) >= 2:
            break
        await asyncio.sleep(0.01)
    assert len(handed) == 2
    assert lonely.code not in handed
    assert {code for code, owner in owners(a).items() if owner == b.cluster.me} == set(handed)
    still_at_a = {code for code in [lonely.code, *(r.code for r, *_ in tables)] if a.local(code) is not None}
    assert still_at_a == {r.code for r, *_ in tables if r.code not in handed} | {lonely.code}
    # the friends' sockets of the tables handed over are told to reconnect; the others stay
    for room, _, friend, *_ in tables:
        if room.code in handed:
            await until(lambda friend=friend: friend.closed == MOVED_CLOSE_CODE, "the friend told to reconnect")
        else:
            assert friend.closed is None
    # nothing more to hand over: three against two is as even as it gets
    assert await a.cluster.balance() == []

    for room, host_token, friend, _, friend_token in tables:
        if room.code not in handed:
            continue
        # the sockets come back: the friend's to B, which now drives the table, the host's through A
        new = await b.locate(room.code)
        assert not isinstance(new, str)
        friend_again = Socket()
        await new.admit(friend_again, friend_token)
        assert friend_again.seat == 1
        host_again = Socket()
        a.cluster.link(room.code, b.cluster.me, host_again, host_token)
        await until(lambda h=host_again: any(m.get("type") == "state" for m in h.messages), "the host's state via B")
        game = new.table.game
        assert game is not None
        assert game.chosen[1] == kept[room.code]  # the card chosen before the hand-over is kept
        await finish_for(new, (0, 1))
        assert game.is_over
        assert new.table.last_game_id is not None
        assert hidden_cards_seen(host_again, 0) == [] and hidden_cards_seen(friend_again, 1) == []
        assert hidden_cards_seen(friend, 1) == []
    for rooms in (a, b):
        await rooms.close()
        rooms.store.close()


async def test_balanced_processes_hand_nothing_over() -> None:
    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    a.cluster.balance_every = b.cluster.balance_every = 0
    for rooms, other in ((a, b), (b, a)):
        assert rooms.cluster is not None and other.cluster is not None
        room, _ = await rooms.create(TableOptions(RULES), "Host", [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        _, token, _ = await room.join("Friend")
        other.cluster.link(room.code, rooms.cluster.me, Socket(), token)
    assert await a.cluster.balance() == [] and await b.cluster.balance() == []
    for rooms in (a, b):
        await rooms.close()
        rooms.store.close()


async def test_the_heartbeat_looks_at_the_balance_by_itself() -> None:
    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    for _ in range(4):
        room, _ = await a.create(TableOptions(RULES), "Host", [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        _, token, _ = await room.join("Friend")
        b.cluster.link(room.code, a.cluster.me, Socket(), token)
    a.cluster.heartbeat, a.cluster.balance_every = 0.02, 1
    await until(lambda: list(owners(a).values()).count(b.cluster.me) == 2, "two tables handed to B", tries=3000)
    for rooms in (a, b):
        await rooms.close()
        rooms.store.close()


async def test_only_games_in_play_count_and_finished_tables_are_never_handed_over() -> None:
    """A drives six tables whose games are over, each watched from B: nothing to balance (they
    cost nothing to drive), so nothing is handed over and no socket is made to reconnect."""
    url = fresh_postgres_url()
    a, b = await process(url), await process(url)
    assert a.cluster is not None and b.cluster is not None
    a.cluster.balance_every = b.cluster.balance_every = 0
    watchers = []
    for _ in range(6):
        room, _ = await a.create(TableOptions(RULES), "Host", [{"kind": "open"}, {"kind": "bot", "bot": "random"}])
        _, token, _ = await room.join("Friend")
        watcher = Socket()
        b.cluster.link(room.code, a.cluster.me, watcher, token)
        watchers.append(watcher)
        await finish_for(room, (0, 1))
        assert room.table.status == "finished"
    assert await a.cluster.balance() == []
    assert set(owners(a).values()) == {a.cluster.me} and all(w.closed is None for w in watchers)
    for rooms in (a, b):
        await rooms.close()
        rooms.store.close()
