"""Moderation on two processes of one PostgreSQL database (skipped without
``SIXNIMMT_TEST_POSTGRES_URL``): what a moderator or a player does through one process reaches the
tables another process drives at once (docs/web.md, "Moderation"). Each "process" is a registry with
its own store, lease and NOTIFY channel, as in ``test_cluster.py``; every wait is bounded in tries,
never in time."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import pytest

from sixnimmt.cli import run
from sixnimmt.core import Rules
from sixnimmt.server.accounts.users import Accounts
from sixnimmt.server.calls import AccountBanned, AccountRenamed, AddressBansChanged, BlocksChanged
from sixnimmt.server.moderation.moderation_news import ModerationNews
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.host_tools import CLOSE_REMOVED
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.shield import NoBlocks
from sixnimmt.server.tables.table_setup import TableOptions

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import Socket, process, until

pytestmark = pytest.mark.skipif(
    not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"
)

HOST, GUEST = 7, 8


class Book(NoBlocks):
    """The accounts' blocks as the database would hold them."""

    def __init__(self) -> None:
        self.pairs: set[tuple[int, int]] = set()

    async def blocked_by(self, account: int) -> frozenset[int]:
        return frozenset(b for a, b in self.pairs if a == account)


class Process:
    """A registry with the news it hears: the bot tokens it was told to revoke, the address bans
    it was told to read again."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.revoked: list[set[int]] = []
        self.address_readings = 0
        self.news = ModerationNews(rooms, rooms.cluster, self.revoked.append, self._forget)  # type: ignore[arg-type]

    def _forget(self) -> None:
        self.address_readings += 1


async def two_processes(url: str | None = None, guest: int = GUEST) -> tuple[Process, Process, Any, dict[int, Socket]]:
    """Process A drives a table where account HOST hosts and account ``guest`` sits; both players'
    sockets are on process B."""
    url = url or fresh_postgres_url()
    a, b = Process(await process(url)), Process(await process(url))
    room, host_token = await a.rooms.create(TableOptions(Rules(players=3)), "Host",
                                            [{"kind": "open"}, {"kind": "bot", "bot": "random"}], account=HOST)
    _, guest_token, _ = await room.join("Guest", account=guest)
    assert isinstance(await b.rooms.locate(room.code), str)  # B forwards to A
    assert b.rooms.cluster is not None and a.rooms.cluster is not None
    sockets = {0: Socket(), 1: Socket()}
    for seat, token in ((0, host_token), (1, guest_token)):
        b.rooms.cluster.link(room.code, a.rooms.cluster.me, sockets[seat], token)  # type: ignore[attr-defined]
    await until(lambda: len(a.rooms.cluster.remote) == 2 and all(s.messages for s in sockets.values()),  # type: ignore[attr-defined]
                "both connected")
    return a, b, room, sockets


async def close(processes: Iterable[Process]) -> None:
    for each in processes:
        await each.rooms.close()
        each.rooms.store.close()


@pytest.mark.asyncio
async def test_a_ban_through_one_process_closes_the_accounts_sockets_and_bots_on_every_process() -> None:
    a, b, room, sockets = await two_processes()
    await b.news.tell(AccountBanned(GUEST, (41, 42)))
    await until(lambda: sockets[1].closed is not None, "the banned account's socket closed")
    assert sockets[1].closed == CLOSE_REMOVED
    assert any(m.get("code") == "account-banned" for m in sockets[1].messages)
    assert sockets[0].closed is None  # (the host is not banned)
    await until(lambda: room.table.seats[1].connections == 0, "the banned seat left the table on A")
    assert a.revoked == [{41, 42}] and b.revoked == [{41, 42}]  # each process closes its bots' connections
    await close((a, b))


@pytest.mark.asyncio
async def test_a_block_through_one_process_holds_at_once_at_a_table_another_drives() -> None:
    a, b, room, _sockets = await two_processes()
    book = Book()
    room.shield.book = book
    await room.shield.learn(HOST)  # (the host's socket connected before the block)
    assert room.shield.hidden(0, room.table.seats) == frozenset()
    book.pairs.add((HOST, GUEST))  # the host blocks the guest through process B's HTTP route
    await b.news.tell(BlocksChanged(HOST))
    assert room.shield.hidden(0, room.table.seats) == {1}  # (told before the route answers)
    await close((a, b))


@pytest.mark.asyncio
async def test_a_forced_rename_reaches_the_seats_of_a_table_being_played() -> None:
    a, b, room, sockets = await two_processes()
    async with room.lock:
        await room.start_game()
    assert room.table.status == "playing" and room.table.deal_players[0][1]["name"] == "Guest"
    await b.news.tell(AccountRenamed(GUEST, "Nice_Name"))
    assert room.table.seats[1].name == "Nice_Name" and room.table.seats[0].name == "Host"
    assert [p["name"] for p in room.table.deal_players[0]][:2] == ["Host", "Nice_Name"]  # (the record's deal)

    def seen_by_host() -> list[str]:
        seats = [m["seats"] for m in sockets[0].messages if m.get("type") == "seats"]
        return [s["name"] for s in seats[-1]] if seats else []

    await until(lambda: "Nice_Name" in seen_by_host(), "the new name shown to the other sockets")
    assert room.table.saved is not None and room.table.saved.seats[1]["name"] == "Nice_Name"  # (kept)
    await close((a, b))


@pytest.mark.asyncio
async def test_an_address_ban_makes_every_process_read_the_bans_again() -> None:
    a, b, _room, _sockets = await two_processes()
    await b.news.tell(AddressBansChanged())
    assert (a.address_readings, b.address_readings) == (1, 1)
    await close((a, b))


@pytest.mark.asyncio
async def test_the_command_lines_ban_rename_and_address_ban_reach_the_running_processes_at_once() -> None:
    url = fresh_postgres_url()
    store = Store(url)
    store.migrate()
    rude = Accounts(store).create("Rude_One", "not-a-real-hash").id
    store.close()
    a, b, room, sockets = await two_processes(url, guest=rude)

    def admin(*args: str) -> int:
        return run(["admin", "--database-url", url, *args])

    assert await asyncio.to_thread(admin, "rename", "Rude_One", "Nice_One", "--reason", "offensive") == 0
    await until(lambda: room.table.seats[1].name == "Nice_One", "the renamed seat at the table A drives")
    assert await asyncio.to_thread(admin, "ban-address", "10.1.2.3", "--reason", "flood") == 0
    await until(lambda: (a.address_readings, b.address_readings) == (1, 1), "both processes read the bans again")
    assert await asyncio.to_thread(admin, "ban", "Nice_One", "--reason", "abuse") == 0
    await until(lambda: sockets[1].closed == CLOSE_REMOVED, "the banned account's socket on B closed")
    assert sockets[0].closed is None
    await close((a, b))
