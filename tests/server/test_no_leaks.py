"""Each connection receives only its own view: whole games are played (bots, humans who change their
minds, a spectator) and every message pushed to a connection is checked, at the moment it is sent,
against the hands the others still hold (which include chosen cards not yet revealed)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sixnimmt.core import Game, Rules
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.fanout import SharedState
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import ChooseRow, Draft, Keep, Order, Pass, Play, Retract, wire_text

#: Keys whose values are cards (or lists of them) somewhere in the protocol.
CARD_KEYS = {"hand", "rows", "taken", "played", "revealed", "unplaced", "options", "card", "plays",
             "cards", "draft_pool", "my_choice", "hands", "my_choices", "face_up"}


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
        self.pushed: list[dict[str, Any]] = []  # the very objects pushed (the room shares them between sockets)

    def hidden(self) -> set[int]:
        game = self.room.table.game
        if game is None or game.rules.hands_public:
            return set()
        hidden = {c for s, hand in enumerate(game.hands) if s != self.seat for c in hand}
        # Open: a card played face up is public while it still counts as in its owner's hand
        hidden -= {c for s, cards in enumerate(game.choices) if s != self.seat for c in cards} if (
            game.rules.variant.value == "open") else set()
        # Hand: a card taken from a row and kept went back to a hand, but everyone saw it
        hidden -= _ever_public(self.room)
        # Double: a card whose twin is in the deck may be named for the twin: only single cards count
        deck = game.rules.deck
        return {c for c in hidden if deck.count(c) == 1}

    def push(self, message: dict[str, Any]) -> None:
        _ever_public(self.room)  # note the public cards before the check
        self.pushed.append(message)
        wire = json.loads(wire_text(message))  # exactly what goes on the wire (serialized once, kept)
        assert wire == json.loads(json.dumps(message)), "a message's kept text differs from its content"
        message = wire
        game = self.room.table.game
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
            elif self.room.table.game is not None:
                assert view["hand"] == sorted(self.room.table.game.hands[self.seat])
        self.messages.append(message)


_PUBLIC: dict[int, tuple[int, set[int]]] = {}


def _ever_public(room: Room) -> set[int]:
    """Cards that have lain in a row or a pile this deal (Hand lets a player take some back)."""
    game = room.table.game
    if game is None:
        return set()
    deal, seen = _PUBLIC.get(id(game), (-1, set()))
    if deal != game.deal_index:
        seen = set()
    seen.update(c for row in game.rows for c in row)
    seen.update(c for pile in game.taken for c in pile)
    _PUBLIC[id(game)] = (game.deal_index, seen)
    return seen


@pytest.mark.asyncio
async def test_the_checker_catches_a_leak(tmp_path: Path) -> None:
    """The check above can fail: a message naming another seat's card is rejected."""

    rooms, room = await _room(tmp_path, Rules(players=3), humans=1)
    spy = CheckingConnection(room, 0)
    assert room.table.game is not None
    other_card = room.table.game.hands[1][0]
    with pytest.raises(AssertionError, match="hidden card"):
        spy.push({"type": "update", "events": [{"type": "card-placed", "card": other_card}]})
    await rooms.close()


async def _room(tmp_path: Path, rules: Rules, humans: int) -> tuple[Rooms, Room]:
    store = Store(f"sqlite:///{tmp_path / 'leaks.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"))
    seats = [{"kind": "open"}] * (humans - 1) + [{"kind": "bot", "bot": "random"}] * (rules.players - humans)
    room, _ = await rooms.create(TableOptions(rules), "Host", seats)
    for n in range(1, humans):
        await room.join(f"Friend {n}")
    return rooms, room


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "variant,players",
    [("standard", 4), ("professional", 5), ("tactics", 3), ("logic", 3),
     ("tournament", 3), ("open", 4), ("nifty", 3), ("hand", 3), ("double", 4)],
)
async def test_no_message_leaks_a_hidden_card(tmp_path: Path, variant: str, players: int) -> None:
    """In Nifty a chosen pair stays secret until the reveal (and a retracted one for ever); in Hand
    the first of two cards stays secret until the second is chosen or passed."""
    extra = {"double_deck": "doubles"} if variant == "double" else {}
    rules = Rules(players=players, variant=variant, target=None, deals=2, **extra)

    rooms, room = await _room(tmp_path, rules, humans=2)
    conns = {0: CheckingConnection(room, 0), 1: CheckingConnection(room, 1)}
    spectator = CheckingConnection(room, None)
    for conn in (*conns.values(), spectator):
        await room.connect(conn)
    changes = await _play_to_end(room, conns, random.Random(5))
    async with room.lock:  # the last move's save and broadcast finish under the lock
        assert room.table.game is not None and room.table.game.is_over
        assert room.table.status == "finished"
    for conn in (*conns.values(), spectator):
        assert conn.messages[-1]["view"]["phase"] == "over"
        assert len(conn.messages) > 20
        if variant in ("open", "nifty", "hand"):
            # every move was legal (in the others a change of mind can come after the reveal)
            assert not [m for m in conn.messages if m["type"] == "error"]
    assert changes > 0
    await rooms.close()


async def _play_to_end(
    room: Room,
    conns: dict[int, CheckingConnection],
    rng: random.Random,
    after_move: Callable[[], None] = lambda: None,
) -> int:
    """Play the humans' seats (``conns``) with random legal moves, now and then changing their mind,
    until the game is over; the bots play the rest. Returns how many changes of mind there were."""
    changes = 0
    for _ in range(20_000):
        game = room.table.game
        assert game is not None
        if game.is_over:
            break
        acted = False
        for decision in game.pending():
            conn = conns.get(decision.seat)
            if conn is None:
                continue
            choice = rng.choice(decision.options)
            if decision.kind.value == "card" and choice == 0:
                await room.handle(conn, Pass(type="pass"))
            elif decision.kind.value == "card" and game.rules.cards_per_turn == 2:
                await room.handle(conn, Play(type="play", card=choice))
                mine = game.choices[decision.seat]
                # (the bots' moves land first: one still thinking could otherwise complete the turn
                # between the pair and its take-back, which is then refused, rightly)
                await room.scheduler.settle()
                if game.phase.value == "play" and len(mine) == 2 and rng.random() < 0.3:
                    # a whole pair chosen, then taken back: it may reach nobody else
                    await room.handle(conn, Retract(type="retract"))
                    changes += 1
            elif decision.kind.value == "card" and game.rules.sequential:
                await room.handle(conn, Play(type="play", card=choice))
                changes += 1  # one at a time: nothing to change
            elif decision.kind.value == "card":
                if len(decision.options) > 1 and rng.random() < 0.5:
                    # choose, then change one's mind: neither choice may reach anyone else
                    await room.handle(conn, Play(type="play", card=choice))
                    changes += 1
                    choice = rng.choice(decision.options)
                await room.handle(conn, Play(type="play", card=choice))
            elif decision.kind.value == "row":
                await room.handle(conn, ChooseRow(type="row", row=choice))
            elif decision.kind.value == "order":
                await room.handle(conn, Order(type="order", card=choice))
            elif decision.kind.value == "keep":
                await room.handle(conn, Keep(type="keep", card=choice) if choice else Pass(type="pass"))
            else:
                await room.handle(conn, Draft(type="draft", card=choice))
            acted = True
            break
        if not acted:
            await room.scheduler.settle()  # let the bots move
        after_move()
    return changes


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["standard", "nifty", "hand"])
async def test_a_seats_message_is_shared_by_its_sockets_and_reaches_no_other(tmp_path: Path, variant: str) -> None:
    """Each change's messages are built once per seat and pushed to every socket of that seat: the
    host's two sockets get the very same objects, no message with a view ever reaches two seats (or
    a seat and a spectator), and the two spectators share theirs. The store gets the same record as
    ``game.record()`` after every move (the room only remakes it when the record has changed)."""
    rules = Rules(players=4, variant=variant, target=None, deals=2)

    rooms, room = await _room(tmp_path, rules, humans=3)
    host, second, friend, other = (CheckingConnection(room, seat) for seat in (0, 0, 1, 2))
    watchers = [CheckingConnection(room, None), CheckingConnection(room, None)]
    everyone = [host, second, friend, other, *watchers]
    for conn in everyone:
        await room.connect(conn)

    def same_record() -> None:
        assert room.table.game is not None
        assert room.table.to_store().record == room.table.game.record()

    await _play_to_end(room, {0: host, 1: friend, 2: other}, random.Random(11), same_record)
    async with room.lock:
        assert room.table.game is not None and room.table.game.is_over
    owners: dict[int, set[int | None]] = {}
    for conn in everyone:
        for message in conn.pushed:
            if "view" in message:
                assert message["view"] is None or message["view"]["seat"] == conn.seat
                assert message["table"]["you"] == conn.seat
                owners.setdefault(id(message), set()).add(conn.seat)
    assert owners and all(len(seats) == 1 for seats in owners.values())

    def broadcast(conn: CheckingConnection) -> list[int]:
        return [id(m) for m in conn.pushed if m["type"] in ("update", "chosen")]

    assert broadcast(host) == broadcast(second) and len(broadcast(host)) > 20
    assert broadcast(watchers[0]) == broadcast(watchers[1])
    await rooms.close()


@pytest.mark.parametrize(
    "variant,players",
    [("standard", 4), ("professional", 5), ("tactics", 3), ("logic", 3),
     ("tournament", 3), ("open", 4), ("nifty", 3), ("hand", 3), ("double", 4)],
)
def test_a_spliced_update_is_exactly_the_seats_own_state(variant: str, players: int) -> None:
    """An ``update`` is spliced from parts shared by every seat and the seat's own part: at every
    moment of random games, for every seat and for a spectator, its text and its fields are exactly
    the update made from that seat's whole view (so no other seat's own part is in it), and the
    shared part of every seat's view is the spectators'."""
    extra = {"double_deck": "doubles"} if variant == "double" else {}
    rules = Rules(players=players, variant=variant, target=None, deals=2, **extra)
    rng = random.Random(f"{variant}-{players}")
    for _ in range(2):
        game = Game(rules, [f"P{n}" for n in range(players)], seed=rng.getrandbits(32))
        events: list[dict[str, Any]] = []
        while True:
            table = {"code": "ABCDE", "seats": [{"name": f"P{n}"} for n in range(players)], "wire": 2}
            shared = SharedState(table, game, events, {"played_for": {"seat": 0, "reason": "timer"}})
            for seat in (*range(players), None):
                view = game.view(seat)
                if seat is not None:
                    assert view.shared_to_dict() == game.view(None).shared_to_dict()
                message = shared.update(seat, None if seat is not None else 1)
                whole = {"type": "update", "events": events,
                         "table": {**table, "you": seat, "joining": None if seat is not None else 1},
                         "view": view.to_dict(), "played_for": {"seat": 0, "reason": "timer"}}
                assert json.loads(wire_text(message)) == json.loads(json.dumps(whole))
                assert json.loads(json.dumps(message)) == json.loads(json.dumps(whole))
            if game.is_over:
                break
            decision = rng.choice(game.pending())
            events = [e.to_dict() for e in game.act(decision.seat, rng.choice(decision.options))]
