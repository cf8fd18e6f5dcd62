"""Each connection receives only its own view: whole games are played (bots, humans who change their
minds, a spectator) and every message pushed to a connection is checked, at the moment it is sent,
against the hands the others still hold (which include chosen cards not yet revealed)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.protocol import ChooseRow, Draft, Play
from sixnimmt.server.rooms import Room, Rooms, TableOptions
from sixnimmt.server.store import Store

#: Keys whose values are cards (or lists of them) somewhere in the protocol.
CARD_KEYS = {"hand", "rows", "taken", "played", "revealed", "unplaced", "options", "card", "plays",
             "cards", "draft_pool", "my_choice", "hands"}


def cards_in(value: Any, key: str | None = None, parent: dict[str, Any] | None = None) -> list[int]:
    """Every card mentioned in a message (row indices of row decisions are not cards)."""
    found: list[int] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "options" and value.get("kind") == "row":
                continue  # a row decision's options are row indices
            if k == "rows" and value.get("type") == "row-choice-required":
                continue
            found += cards_in(v, k, value)
    elif isinstance(value, list):
        for item in value:
            found += cards_in(item, key, parent)
    elif isinstance(value, int) and not isinstance(value, bool) and key in CARD_KEYS:
        found.append(value)
    return found


class CheckingConnection:
    """A fake client that checks every message against the room's hidden cards when it is pushed."""

    def __init__(self, room: Room, seat: int | None) -> None:
        self.room = room
        self.seat = seat
        self.messages: list[dict[str, Any]] = []

    def hidden(self) -> set[int]:
        game = self.room.game
        if game is None or game.rules.hands_public:
            return set()
        return {c for s, hand in enumerate(game.hands) if s != self.seat for c in hand}

    def push(self, message: dict[str, Any]) -> None:
        message = json.loads(json.dumps(message))  # exactly what would go on the wire
        game = self.room.game
        deal = -1 if game is None else game.deal_index
        # Events of an earlier deal (a batch can end one deal and start the next) name cards that
        # were public then and have since been reshuffled into new hands: only this deal counts.
        current = {**message, "events": [e for e in message.get("events", []) if e.get("deal", deal) == deal]}
        leaked = set(cards_in(current)) & self.hidden()
        assert not leaked, f"seat {self.seat} was sent hidden card(s) {sorted(leaked)}: {message}"
        view = message.get("view")
        if view is not None:
            if self.seat is None:
                assert view["hand"] == [] and view["my_choice"] is None
            elif self.room.game is not None:
                assert view["hand"] == sorted(self.room.game.hands[self.seat])
        self.messages.append(message)


def test_the_checker_catches_a_leak(tmp_path: Path) -> None:
    """The check above can fail: a message naming another seat's card is rejected."""

    async def scenario() -> None:
        rooms, room = await _room(tmp_path, Rules(players=3), humans=1)
        spy = CheckingConnection(room, 0)
        assert room.game is not None
        other_card = room.game.hands[1][0]
        with pytest.raises(AssertionError, match="hidden card"):
            spy.push({"type": "update", "events": [{"type": "card-placed", "card": other_card}]})
        await rooms.close()

    asyncio.run(scenario())


async def _room(tmp_path: Path, rules: Rules, humans: int) -> tuple[Rooms, Room]:
    store = Store(f"sqlite:///{tmp_path / 'leaks.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"))
    seats = [{"kind": "open"}] * (humans - 1) + [{"kind": "bot", "bot": "random"}] * (rules.players - humans)
    room, _ = await rooms.create(TableOptions(rules), "Host", seats)
    for n in range(1, humans):
        await room.join(f"Friend {n}")
    return rooms, room


@pytest.mark.parametrize(
    "variant,players",
    [("standard", 4), ("professional", 5), ("tactics", 3), ("logic", 3)],
)
def test_no_message_leaks_a_hidden_card(tmp_path: Path, variant: str, players: int) -> None:
    rules = Rules(players=players, variant=variant, target=None, deals=2)

    async def scenario() -> None:
        rooms, room = await _room(tmp_path, rules, humans=2)
        conns = {0: CheckingConnection(room, 0), 1: CheckingConnection(room, 1)}
        spectator = CheckingConnection(room, None)
        for conn in (*conns.values(), spectator):
            await room.connect(conn)
        rng = random.Random(5)
        changes = 0
        for _ in range(20_000):
            game = room.game
            assert game is not None
            if game.is_over:
                break
            acted = False
            for decision in game.pending():
                conn = conns.get(decision.seat)
                if conn is None:
                    continue
                choice = rng.choice(decision.options)
                if decision.kind.value == "card":
                    if len(decision.options) > 1 and rng.random() < 0.5:
                        # choose, then change one's mind: neither choice may reach anyone else
                        await room.handle(conn, Play(type="play", card=choice))
                        changes += 1
                        choice = rng.choice(decision.options)
                    await room.handle(conn, Play(type="play", card=choice))
                elif decision.kind.value == "row":
                    await room.handle(conn, ChooseRow(type="row", row=choice))
                else:
                    await room.handle(conn, Draft(type="draft", card=choice))
                acted = True
                break
            if not acted:
                await asyncio.sleep(0.001)  # let the bots move
        async with room.lock:  # the last move's save and broadcast finish under the lock
            assert room.game is not None and room.game.is_over
            assert room.status == "finished"
        for conn in (*conns.values(), spectator):
            assert conn.messages[-1]["view"]["phase"] == "over"
            assert len(conn.messages) > 20
        assert changes > 0
        await rooms.close()

    asyncio.run(scenario())
