"""Moderation at a table (docs/web.md, "Moderation"): a player blocks another seat (the chat and the
reactions of that seat stop reaching them, live and in every state), an account's block holds at
every table, the host turns the chat off (nothing is relayed) or off for spectators, and removes a
spectator."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.shield import Shield
from sixnimmt.server.tables.table import Change
from sixnimmt.server.tables.table_setup import TableError, TableOptions
from sixnimmt.server.wire import (
    BlockSeat,
    Chat,
    Ping,
    ProtocolError,
    React,
    RemoveSpectator,
    SpectatorChat,
    TableChat,
    decode,
)

from .conftest import Listener

pytestmark = pytest.mark.asyncio


class Conn(Listener):
    def __init__(self, seat: int | None) -> None:
        super().__init__(seat)
        self.closed: tuple[int, str] | None = None

    def chat(self) -> list[Any]:
        return [m.get("text", m.get("emoji")) for m in self.messages if m["type"] == "chat"]

    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == kind)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


class Book:
    """A block book in memory: (blocker, blocked) pairs."""

    def __init__(self, budget: int = 10) -> None:
        self.pairs: set[tuple[int, int]] = set()
        self.budget = budget

    async def blocked_by(self, account: int) -> frozenset[int]:
        return frozenset(b for a, b in self.pairs if a == account)

    async def block(self, blocker: int, blocked: int) -> None:
        if len(self.pairs) >= self.budget:
            raise TableError("too many blocks", "block-limit")
        self.pairs.add((blocker, blocked))

    async def banned(self, account: int) -> bool:
        return False

    async def keeps_apart(self, one: Iterable[int], other: Iterable[int]) -> bool:
        left, right = set(one), set(other)
        return any((a in left and b in right) or (a in right and b in left) for a, b in self.pairs)


async def _rooms(tmp_path: Path) -> Rooms:
    store = Store(f"sqlite:///{tmp_path / 'moderation.db'}")
    store.migrate()
    return Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"), ManualClock())


async def _three(rooms: Rooms, accounts: tuple[int | None, int | None, int | None] = (None, None, None)) -> Any:
    room, _ = await rooms.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}, {"kind": "open"}],
                                 account=accounts[0], token_for=(lambda code: f"host-{code}") if accounts[0] else None)
    for name, account in (("Bob", accounts[1]), ("Eve", accounts[2])):
        await room.join(name, account=account, account_token=f"{name}-token" if account else None)
    conns = [Conn(0), Conn(1), Conn(2)]
    for conn in conns:
        await room.connect(conn)
    return room, conns


async def test_a_blocked_seats_chat_and_reactions_never_reach_the_blocker(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    room, (host, bob, eve) = await _three(rooms)
    await room.handle(bob, Chat(type="chat", text="before"))
    await room.handle(host, BlockSeat(type="block", seat=1))
    assert host.last("blocked") == {"type": "blocked", "seat": 1, "block": True}
    assert [line["text"] for line in host.last("state")["table"]["chat"]] == []  # the earlier line too
    await room.handle(bob, Chat(type="chat", text="rude"))
    await room.handle(bob, React(type="react", emoji="👍"))
    await room.handle(eve, Chat(type="chat", text="hello"))
    assert "rude" not in host.chat() and "👍" not in host.chat() and "hello" in host.chat()
    assert eve.chat()[-3:] == ["rude", "👍", "hello"]  # the others still hear Bob
    # an update (what any saved change sends everyone) carries the chat without Bob's lines, for the host only
    room.tell(Change())
    assert [line.get("text") for line in host.last("update")["table"]["chat"]] == ["hello"]
    assert [line.get("text") for line in eve.last("update")["table"]["chat"]] == ["before", "rude", None, "hello"]
    # undone: Bob is heard again
    await room.handle(host, BlockSeat(type="block", seat=1, block=False))
    await room.handle(bob, Chat(type="chat", text="sorry"))
    assert host.chat()[-1] == "sorry"
    await rooms.close()


async def test_a_block_needs_another_players_seat(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    room, (host, _bob, _eve) = await _three(rooms)
    watcher = Conn(None)
    await room.connect(watcher)
    await room.handle(host, BlockSeat(type="block", seat=0))
    assert host.last("error")["code"] == "bad-seat"
    await room.handle(host, BlockSeat(type="block", seat=7))
    assert host.last("error")["code"] == "bad-seat"
    await room.handle(watcher, BlockSeat(type="block", seat=1))
    assert watcher.last("error")["code"] == "spectator"
    await rooms.close()


async def test_an_accounts_block_is_kept_and_holds_at_its_next_table(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    rooms.blocks = book = Book()
    room, (host, bob, _eve) = await _three(rooms, (11, 12, 13))
    await room.handle(host, BlockSeat(type="block", seat=1))
    assert book.pairs == {(11, 12)}
    # another table: the host's socket reads the account's blocks as it connects
    other, (host2, bob2, _eve2) = await _three(rooms, (11, 12, 13))
    await other.handle(bob2, Chat(type="chat", text="again"))
    assert "again" not in host2.chat()
    assert other.table.seats[1].account == 12 and bob.seat == 1
    await rooms.close()


async def test_the_block_budget_is_told_to_the_blocker(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    rooms.blocks = Book(budget=0)
    room, (host, _bob, _eve) = await _three(rooms, (11, 12, 13))
    await room.handle(host, BlockSeat(type="block", seat=1))
    assert host.last("error")["code"] == "block-limit"
    await rooms.close()


async def test_the_host_turns_the_chat_off_and_nothing_is_relayed(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    room, (host, bob, eve) = await _three(rooms)
    await room.handle(bob, TableChat(type="table-chat", allow=False))
    assert bob.last("error")["code"] == "not-host"
    await room.handle(host, TableChat(type="table-chat", allow=False))
    assert eve.last("state")["table"]["chat_off"] is True
    heard = [len(c.chat()) for c in (host, bob, eve)]
    await room.handle(bob, Chat(type="chat", text="anyone?"))
    await room.handle(eve, React(type="react", emoji="👍"))
    await room.handle(host, Chat(type="chat", text="me neither"))
    assert [len(c.chat()) for c in (host, bob, eve)] == heard  # nothing relayed to anyone
    assert bob.last("error")["code"] == "chat-off" and eve.last("error")["code"] == "chat-off"
    assert room.table.chat == []  # nor kept
    await room.handle(host, TableChat(type="table-chat", allow=True))
    await room.handle(bob, Chat(type="chat", text="back"))
    assert eve.chat()[-1] == "back"
    await rooms.close()


async def test_the_host_removes_a_spectator(tmp_path: Path) -> None:
    rooms = await _rooms(tmp_path)
    room, (host, bob, _eve) = await _three(rooms)
    troll, quiet = Conn(None), Conn(None)
    await room.connect(troll)
    await room.connect(quiet)
    await room.handle(host, SpectatorChat(type="spectator-chat", allow=True))
    await room.handle(troll, Chat(type="chat", text="boo"))
    number = host.last("chat")["spectator"]
    await room.handle(bob, RemoveSpectator(type="remove-spectator", spectator=number))
    assert bob.last("error")["code"] == "not-host"
    await room.handle(host, RemoveSpectator(type="remove-spectator", spectator=number + 5))
    assert host.last("error")["code"] == "no-spectator"
    await room.handle(host, RemoveSpectator(type="remove-spectator", spectator=number))
    assert troll.last("error")["code"] == "removed" and troll.closed is not None
    seen = len(troll.messages)
    await room.handle(troll, Chat(type="chat", text="boo again"))
    await room.handle(bob, Chat(type="chat", text="better"))
    await room.handle(troll, Ping(type="ping"))
    assert len(troll.messages) == seen and "boo again" not in host.chat()
    assert quiet.chat()[-1] == "better"
    await rooms.close()


def test_the_moderation_messages_refuse_bad_input_in_one_line() -> None:
    for text, code in (('{"type": "block", "seat": -1}', "bad-field"), ('{"type": "block"}', "bad-field"),
                       ('{"type": "table-chat", "allow": "maybe"}', "bad-field"),
                       ('{"type": "remove-spectator", "spectator": 0}', "bad-field")):
        with pytest.raises(ProtocolError) as refused:
            decode(text, 4096)
        assert refused.value.code == code and "\n" not in str(refused.value), text


def test_a_new_spectators_number_is_never_one_the_kept_chat_names() -> None:
    """(a room rebuilt after a restart numbers from 1 again; the host must not remove the wrong one)"""
    shield = Shield()
    chat: list[dict[str, object]] = [{"id": 1, "seat": None, "text": "hi", "spectator": 3}, {"id": 2, "seat": 0}]
    first, second = Conn(None), Conn(None)
    assert shield.number(first, chat) == 4 and shield.number(second, chat) == 5 and shield.number(first, chat) == 4
