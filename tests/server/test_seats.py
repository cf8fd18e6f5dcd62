"""The host's seats and the table chat: invitations for named friends, releasing a bot's or a vanished
player's seat, a late friend taking a bot's seat over at the next deal (and the record of who played
which deal), chat lines and reactions with their limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Chat, Invite, React, Release, SpectatorChat

from .conftest import Listener
from .helpers import answer, rebuilt

pytestmark = pytest.mark.asyncio


class Conn(Listener):
    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == kind)


async def _rooms(tmp_path: Path) -> tuple[Rooms, ManualClock]:
    store = Store(f"sqlite:///{tmp_path / 'seats.db'}")
    store.migrate()
    clock = ManualClock()
    return Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"), clock), clock


async def play_until(room: Room, conns: list[Conn], done: Any) -> None:
    """The people at ``conns`` answer their decisions (first option) until ``done()``."""
    game = room.table.game
    assert game is not None
    for _ in range(2000):
        await room.scheduler.settle()
        if done() or game.is_over:
            return
        by_seat = {c.seat: c for c in conns if c.seat is not None}
        due = [d for d in game.pending() if d.seat in by_seat]
        assert due, "nobody here has a decision and no bot is thinking"
        decision = due[0]
        await room.handle(by_seat[decision.seat], answer(decision.kind.value, decision.options[0]))
    raise AssertionError("the game did not get there")


async def test_invitations_keep_a_seat_for_a_named_friend(tmp_path: Path) -> None:
    rooms, _ = await _rooms(tmp_path)
    room, _ = await rooms.create(TableOptions(Rules(players=3)), "Host", [{"kind": "open"}, {"kind": "bot"}])
    host, stranger = Conn(0), Conn(None)
    await room.connect(host)
    await room.connect(stranger)
    await room.handle(stranger, Invite(type="invite", seat=2, name="Ana"))
    assert stranger.last("error")["code"] == "not-host"
    await room.handle(host, Invite(type="invite", seat=2, name="Ana"))
    invite = host.last("invite")
    assert invite["seat"] == 2 and invite["name"] == "Ana" and len(invite["token"]) >= 30
    assert "token" not in str(stranger.messages[-1]) and stranger.messages[-1]["type"] == "seats"
    assert stranger.messages[-1]["seats"][2]["kind"] == "invited"
    await room.handle(host, Invite(type="invite", seat=1, name="ANA"))
    assert host.last("error")["code"] == "name-taken"  # names are unique per table, ignoring case
    # a stranger with the link gets the open seat, never the one kept for Ana
    seat, _, later = await room.join("Eve")
    assert (seat, later) == (1, False) and room.table.status == "waiting"  # still waiting for Ana
    try:
        await room.join("Mallory", invite="forged")
        raise AssertionError("a forged invitation was accepted")
    except Exception as error:
        assert getattr(error, "code", None) == "invite-invalid"
    seat, token, later = await room.join("Ana B.", invite=invite["token"])
    assert (seat, later) == (2, False) and room.table.place_for_token(token) == (2, None)
    assert room.table.status == "playing" and [s.name for s in room.table.seats] == ["Host", "Eve", "Ana B."]
    await rooms.close()


async def test_a_late_friend_takes_a_bot_seat_at_the_next_deal_and_the_game_records_it(tmp_path: Path) -> None:
    rooms, _ = await _rooms(tmp_path)
    rules = Rules(players=2, target=None, deals=2)
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "bot", "bot": "random"}])
    game = room.table.game
    assert game is not None and room.table.status == "playing"
    host = Conn(0)
    await room.connect(host)
    await play_until(room, [host], lambda: game.turn >= 2)
    seat, token, later = await room.join("Friend")
    assert (seat, later) == (1, True)
    assert room.table.place_for_token(token) == (None, 1)  # watching until the deal ends
    friend = Conn(None)
    await room.connect(friend, joining=1)
    assert friend.messages[0]["table"]["joining"] == 1 and friend.messages[0]["view"]["hand"] == []
    assert room.table.seats[1].kind == "bot" and room.table.seats[1].joining == "Friend"
    await play_until(room, [host], lambda: game.deal_index == 1)
    # the new deal: the seat is the friend's, and the same socket now plays it
    assert room.table.seats[1].kind == "human" and room.table.seats[1].name == "Friend" and friend.seat == 1
    assert room.table.place_for_token(token) == (1, None)
    assert friend.messages[-1]["table"]["you"] == 1 and friend.messages[-1]["view"]["hand"]
    await play_until(room, [host, friend], lambda: False)
    assert room.table.status == "finished" and room.table.last_game_id is not None
    stored = await rooms.db.run(rooms.store.get_game, room.table.last_game_id)
    assert stored is not None
    assert [[p["name"], p["kind"]] for p in stored["deal_players"][0]] == [["Host", "human"], ["Bella", "bot"]]
    assert [[p["name"], p["kind"]] for p in stored["deal_players"][1]] == [["Host", "human"], ["Friend", "human"]]
    await rooms.close()


async def test_the_host_releases_a_vanished_player_at_the_next_deal(tmp_path: Path) -> None:
    rooms, clock = await _rooms(tmp_path)
    rules = Rules(players=3, target=None, deals=2)
    room, _ = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}, {"kind": "bot"}])
    # before the game: a bot's seat is freed at once
    host = Conn(0)
    await room.connect(host)
    await room.handle(host, Release(type="release", seat=2))
    assert room.table.seats[2].kind == "open" and host.last("seats")["seats"][2]["kind"] == "open"
    await room.handle(host, Release(type="release", seat=0))
    assert host.last("error")["code"] == "bad-seat"  # not the host's own seat
    _, gone, _ = await room.join("Gone")  # takes seat 1 and never connects
    await room.join("Eve")
    assert room.table.status == "playing"
    eve = Conn(2)
    await room.connect(eve)
    game = room.table.game
    assert game is not None
    await room.handle(host, Release(type="release", seat=2))
    assert host.last("error")["code"] == "bad-seat"  # Eve is at the table
    await room.handle(host, Release(type="release", seat=1))
    assert room.table.seats[1].leaving and room.table.seats[1].kind == "human"  # till the deal ends
    clock.advance(60.0)  # the fallback plays for the vanished player meanwhile
    await play_until(room, [host, eve], lambda: game.deal_index == 1)
    assert room.table.seats[1].kind == "open" and not room.table.seats[1].leaving
    assert room.table.place_for_token(gone) == (None, None)  # their token no longer holds the seat
    await play_until(room, [host, eve], lambda: False)
    assert room.table.status == "finished"  # a bot played the freed seat
    assert [p["kind"] for p in room.table.deal_players[1]] == ["human", "bot", "human"]
    await rooms.close()


async def test_chat_lines_and_reactions_with_their_limits(tmp_path: Path) -> None:
    rooms, clock = await _rooms(tmp_path)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot"}])
    host, watcher = Conn(0), Conn(None)
    await room.connect(host)
    await room.connect(watcher)
    await room.handle(host, Chat(type="chat", text="  <b>hi</b>\n there "))
    line = watcher.last("chat")
    assert line == {"type": "chat", "id": 1, "seat": 0, "name": "Host", "text": "<b>hi</b> there"}
    await room.handle(watcher, Chat(type="chat", text="let me in"))
    assert watcher.last("error")["code"] == "chat-closed"  # spectators read, but do not write
    await room.handle(host, SpectatorChat(type="spectator-chat", allow=True))
    await room.handle(watcher, React(type="react", emoji="👍"))
    # (a spectator's line carries its number at the table: the host may remove it by that number)
    assert host.last("chat") == {"type": "chat", "id": 2, "seat": None, "name": None, "emoji": "👍", "spectator": 1}
    await room.handle(host, React(type="react", emoji="💩"))
    assert host.last("error")["code"] == "bad-reaction"
    await room.handle(host, Chat(type="chat", text="x" * 201))
    assert host.messages[-1] == {"type": "error", "code": "chat-too-long", "params": {"limit": 200},
                                 "message": "a chat line has at most 200 characters"}  # no state after it
    for n in range(4):  # the burst is 5 (one used above)
        await room.handle(host, Chat(type="chat", text=f"line {n}"))
    await room.handle(host, Chat(type="chat", text="one too many"))
    assert host.last("error")["code"] == "rate-limited"
    clock.advance(5.0)  # 12 a minute: one more after 5 s
    await room.handle(host, Chat(type="chat", text="later"))
    assert host.last("chat")["text"] == "later"
    # kept with the table: a new connection, and the room rebuilt from the store, have the lines
    late = Conn(None)
    await room.connect(late)
    assert [c.get("text") for c in late.messages[0]["table"]["chat"]][-1] == "later"
    restored = rebuilt(room, rooms)
    assert restored.table.chat == room.table.chat and len(restored.table.chat) == 7
    await rooms.close()
