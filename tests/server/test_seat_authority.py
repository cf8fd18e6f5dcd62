"""Who may speak for a seat: exactly its current holder. A socket proves its seat with a token when it
connects; whenever the seat changes hands (a release, a takeover at a deal's start, a cancelled
request), every socket of the old holder becomes a spectator at once and is told so, and every
action is checked against the seat's holder before it is applied. And the turn's state stays
bounded: a card sent again changes nothing, a change of mind replaces the seat's card."""

from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from sixnimmt.core import Phase, Rules
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.tables.room import Room
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.table import MAX_ANSWERS_PER_SEAT
from sixnimmt.server.tables.table_setup import TableError, TableOptions, hash_token
from sixnimmt.server.wire import Play, Release

from .helpers import answer


class Socket:
    """A socket as a room sees it, holding the token it connected with. Every message pushed to it
    is checked as it is pushed: a hand in it must be the hand of a seat this token holds now."""

    def __init__(self, room: Room, token: str | None) -> None:
        self.room = room
        self.token = token
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        shown = _seat_whose_hand(message)
        if shown is not None:
            seat = self.room.table.seats[shown]
            assert self.token is not None and seat.token_hash == hash_token(self.token), (
                f"a socket got seat {shown + 1}'s hand without holding it: {message}")
            assert self.room.table.game is not None and _hand(message) == sorted(self.room.table.game.hands[shown])

    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == kind)


def _seat_whose_hand(message: dict[str, Any]) -> int | None:
    """The seat whose (non-empty) hand ``message`` shows, if any."""
    own = message.get("own") if message.get("type") == "chosen" else message.get("view")
    if own and own.get("hand"):
        seat: int | None = own.get("seat")
        assert seat is not None, f"a hand without its seat: {message}"
        return seat
    return None


def _hand(message: dict[str, Any]) -> list[int]:
    own = message.get("own") if message.get("type") == "chosen" else message.get("view")
    assert own is not None
    return sorted(own["hand"])


async def _rooms(path: Path) -> tuple[Rooms, ManualClock]:
    from sixnimmt.server.store.database import Store

    store = Store(f"sqlite:///{path / 'authority.db'}")
    store.migrate()
    clock = ManualClock()
    return Rooms(store, Settings(database_url=store.url, bot_delay=0.0, fallback_bot="random"), clock), clock


async def _play_deal_out(room: Room, clock: ManualClock, sockets: list[Socket]) -> None:
    """Everyone's decisions answered (people through their sockets, the absent by the fallback)
    until the next deal starts or the game ends."""
    game = room.table.game
    assert game is not None
    deal = game.deal_index
    for _ in range(3000):
        await room.scheduler.settle()
        if game.is_over or game.deal_index != deal:
            return
        by_seat = {s.seat: s for s in sockets if s.seat is not None}
        due = [d for d in game.pending() if d.seat in by_seat]
        if not due:
            clock.advance(60.0)  # the fallback plays for whoever is away
            continue
        decision = due[0]
        await room.handle(by_seat[decision.seat], answer(decision.kind.value, decision.options[0]))
    raise AssertionError("the deal did not end")


@pytest.mark.asyncio
async def test_a_released_player_who_reconnects_loses_the_seat_when_it_changes_hands(tmp_path: Path) -> None:
    rooms, clock = await _rooms(tmp_path)
    rules = Rules(players=3, target=None, deals=3)
    room, host_token = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}, {"kind": "bot"}])
    _, bob_token, _ = await room.join("Bob")
    assert room.table.status == "playing"
    host, bob = Socket(room, host_token), Socket(room, bob_token)
    await room.admit(host, host_token)
    await room.admit(bob, bob_token)
    assert (host.seat, bob.seat) == (0, 1)
    await room.disconnect(bob)
    await room.handle(host, Release(type="release", seat=1))  # Bob vanished: free his seat
    assert room.table.seats[1].leaving
    ghost = Socket(room, bob_token)  # Bob comes back with his old token before the deal ends
    await room.admit(ghost, bob_token)
    assert ghost.seat == 1  # still his until the deal ends
    await _play_deal_out(room, clock, [host, ghost])
    # the deal started: the seat was freed, and Bob's socket watches
    assert room.table.seats[1].kind == "open" and ghost.seat is None
    assert ghost.last("error")["code"] == "seat-lost" and room.table.seats[1].connections == 0
    assert ghost in room.connections and room.spectators() == 1
    # Carol takes the freed seat over (from the next deal); the host could free it again
    _, carol_token, later = await room.join("Carol")
    assert later
    carol = Socket(room, carol_token)
    await room.admit(carol, carol_token)
    await _play_deal_out(room, clock, [host, carol])
    assert carol.seat == 1 and ghost.seat is None and room.table.seats[1].connections == 1
    before = len(ghost.messages)
    decision = room.table.game.decision_for(1) if room.table.game else None
    assert decision is not None
    await room.handle(ghost, Play(type="play", card=decision.options[0]))
    assert ghost.messages[before]["code"] == "spectator"  # Bob's socket cannot play Carol's card
    assert room.table.game is not None and room.table.game.chosen[1] is None
    await rooms.close()


@pytest.mark.asyncio
async def test_a_cancelled_takeover_request_is_forgotten(tmp_path: Path) -> None:
    rooms, clock = await _rooms(tmp_path)
    rules = Rules(players=3, target=None, deals=3)
    room, host_token = await rooms.create(TableOptions(rules), "Host", [{"kind": "bot"}, {"kind": "bot"}])
    host = Socket(room, host_token)
    await room.admit(host, host_token)
    seat, dan_token, later = await room.join("Dan")
    assert (seat, later) == (1, True)
    dan = Socket(room, dan_token)
    await room.admit(dan, dan_token)
    assert dan.seat is None and dan.messages[-1]["table"]["joining"] == 1
    await room.handle(host, Release(type="release", seat=1))  # the host says no to Dan
    assert dan.last("error")["code"] == "seat-lost" and dan.last("state")["table"]["joining"] is None
    seat, dave_token, later = await room.join("Dave")
    assert (seat, later) == (1, True)
    dave = Socket(room, dave_token)
    await room.admit(dave, dave_token)
    await _play_deal_out(room, clock, [host, dave])
    # Dave sits in seat 1; Dan's socket still only watches
    assert dave.seat == 1 and dan.seat is None and room.table.seats[1].connections == 1
    assert room.table.place_for_token(dan_token) == (None, None)
    await room.disconnect(dave)
    await room.handle(host, Release(type="release", seat=1))  # with Dave gone, the host may free it
    assert host.messages[-1]["type"] == "seats" and room.table.seats[1].leaving
    await rooms.close()


def _saved_size(room: Room) -> int:
    assert room.table.saved is not None
    return len(orjson.dumps(room.table.saved.current))


@pytest.mark.asyncio
async def test_a_card_sent_again_changes_nothing_and_the_turn_state_stays_bounded(tmp_path: Path) -> None:
    rooms, _ = await _rooms(tmp_path)
    saves = 0
    save = rooms.db.save

    async def counted(data: Any) -> None:
        nonlocal saves
        saves += 1
        await save(data)

    rooms.db.save = counted  # type: ignore[method-assign]  # every table saves through it
    rules = Rules(players=3, target=None, deals=1)
    room, host_token = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}, {"kind": "open"}])
    _, ana_token, _ = await room.join("Ana")
    await room.join("Ben")
    host, ana = Socket(room, host_token), Socket(room, ana_token)
    await room.admit(host, host_token)
    await room.admit(ana, ana_token)
    game = room.table.game
    assert game is not None
    saves = 0  # count from here
    first, second = sorted(game.hands[0])[:2]
    await room.handle(host, Play(type="play", card=first))
    assert saves == 1 and [(a.seat, a.value) for a in room.table.turn_log] == [(0, first)]
    size = _saved_size(room)
    sent = len(host.messages), len(ana.messages)
    for _ in range(10_000):
        await room.handle(host, Play(type="play", card=first))
    # nothing saved, nothing broadcast, nothing grew
    assert saves == 1 and (len(host.messages), len(ana.messages)) == sent
    assert len(room.table.turn_log) == 1 and _saved_size(room) == size
    # changes of mind replace the seat's card, however many
    for i in range(10_000):
        await room.handle(host, Play(type="play", card=second if i % 2 == 0 else first))
    assert [(a.seat, a.value) for a in room.table.turn_log] == [(0, first)] and game.chosen[0] == first
    assert _saved_size(room) == size
    assert room.table.saved is not None and room.table.saved.current is not None
    assert room.table.saved.current["log"] == [[0, first]]
    await rooms.close()


@pytest.mark.asyncio
async def test_the_turn_log_stays_within_its_bound(tmp_path: Path) -> None:
    """Random games of every variant, people changing their minds and sending cards again: no seat
    ever has more than MAX_ANSWERS_PER_SEAT answers in the turn's log, in the room or as saved."""
    from sixnimmt.core.variants import VARIANTS

    rooms, _ = await _rooms(tmp_path)
    for variant, spec in VARIANTS.items():
        players = spec.player_range[0] + 1
        rules = Rules(players=players, variant=variant)
        room, token = await rooms.create(TableOptions(rules), "Host", [{"kind": "open"}] * (players - 1))
        sockets = [Socket(room, token)]
        for i in range(players - 1):
            _, other, _ = await room.join(f"P{i}")
            sockets.append(Socket(room, other))
        for socket in sockets:
            await room.admit(socket, socket.token)
        game = room.table.game
        assert game is not None
        rng = random.Random(variant.value)
        for _ in range(5000):
            if game.is_over:
                break
            decision = rng.choice(game.pending())
            socket = sockets[decision.seat]
            if decision.kind.value == "card" and game.chosen[decision.seat] is None and rng.random() < 0.3:
                # choose, then send it again or change one's mind before the real answer
                await room.handle(socket, answer("card", decision.options[0]))
                if game.phase is Phase.PLAY and game.decision_for(decision.seat) is None:
                    await room.handle(socket, Play(type="play", card=decision.options[-1]))
                    await room.handle(socket, Play(type="play", card=decision.options[-1]))
                continue
            await room.handle(socket, answer(decision.kind.value, rng.choice(decision.options)))
            counts = [sum(1 for a in room.table.turn_log if a.seat == s) for s in range(players)]
            assert max(counts) <= MAX_ANSWERS_PER_SEAT, (variant, counts)
            assert room.table.saved is not None and room.table.saved.current is not None
            assert len(room.table.saved.current["log"]) <= players * MAX_ANSWERS_PER_SEAT
        assert game.is_over, variant
    await rooms.close()


class SeatChanges(RuleBasedStateMachine):
    """Random joins, leaves, releases, takeovers, cancellations, reconnections and plays against one
    room. After every step: no socket speaks for a seat its token does not hold, a seat counts
    exactly its holder's sockets, and (checked as each message is pushed) no socket ever receives
    a hand that is not its own."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.loop = asyncio.new_event_loop()
        self.rooms, self.clock = self.run(_rooms(Path(self.folder.name)))
        rules = Rules(players=4, target=None, deals=4)
        self.room, host_token = self.run(
            self.rooms.create(TableOptions(rules), "Host", [{"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}])
        )
        self.tokens: list[str] = [host_token]
        self.sockets: list[Socket] = []
        self.left: list[str] = []  # the tokens of sockets that left
        self.names = 0

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def teardown(self) -> None:
        self.run(self.rooms.close())
        self.loop.close()
        self.folder.cleanup()

    @rule()
    def join(self) -> None:
        self.names += 1
        try:
            _, token, _ = self.run(self.room.join(f"Guest {self.names}"))
        except TableError:
            return
        self.tokens.append(token)

    @rule(which=st.integers(0, 50), stranger=st.booleans())
    def connect(self, which: int, stranger: bool) -> None:
        token = None if stranger else self.tokens[which % len(self.tokens)]
        socket = Socket(self.room, token)
        try:
            self.run(self.room.admit(socket, token))
        except TableError:
            return
        self.sockets.append(socket)

    @precondition(lambda self: bool(self.sockets))
    @rule(which=st.integers(0, 50))
    def leave(self, which: int) -> None:
        socket = self.sockets.pop(which % len(self.sockets))
        self.run(self.room.disconnect(socket))
        if socket.token is not None:
            self.left.append(socket.token)

    @precondition(lambda self: bool(self.left))
    @rule(which=st.integers(0, 50))
    def reconnect(self, which: int) -> None:
        """Someone who left comes back with the token they had."""
        token = self.left.pop(which % len(self.left))
        socket = Socket(self.room, token)
        try:
            self.run(self.room.admit(socket, token))
        except TableError:
            return
        self.sockets.append(socket)

    @rule(seat=st.integers(1, 3))
    def release(self, seat: int) -> None:
        host = Socket(self.room, self.tokens[0])
        host.seat = 0
        self.run(self.room.handle(host, Release(type="release", seat=seat)))

    @precondition(lambda self: self.room.table.status == "waiting")
    @rule()
    def start(self) -> None:
        host = Socket(self.room, self.tokens[0])
        host.seat = 0
        from sixnimmt.server.wire import Start

        self.run(self.room.handle(host, Start(type="start")))

    @precondition(lambda self: bool(self.sockets))
    @rule(which=st.integers(0, 50), option=st.integers(0, 20))
    def play(self, which: int, option: int) -> None:
        socket = self.sockets[which % len(self.sockets)]
        game = self.room.table.game
        if game is None or game.is_over or socket.seat is None:
            card = option + 1
            self.run(self.room.handle(socket, Play(type="play", card=card)))
            return
        decision = game.decision_for(socket.seat)
        if decision is None:
            hand = sorted(game.hands[socket.seat])
            if hand:
                self.run(self.room.handle(socket, Play(type="play", card=hand[option % len(hand)])))
            return
        value = decision.options[option % len(decision.options)]
        self.run(self.room.handle(socket, answer(decision.kind.value, value)))

    @rule(seconds=st.sampled_from([1.0, 30.0]))
    def time_passes(self, seconds: float) -> None:
        async def passing() -> None:
            self.clock.advance(seconds)
            await self.room.scheduler.settle()

        self.run(passing())

    # (nothing moves at a table nobody watches: the server lets it sleep)
    @precondition(lambda self: self.room.table.status == "playing" and self.room.anyone_connected())
    @rule()
    def finish_the_deal(self) -> None:
        """Everyone answers (through a socket of the seat, the absent through the fallback) until
        the next deal starts, where the seat changes asked for take effect."""
        self.run(_play_deal_out(self.room, self.clock, [s for s in self.sockets if s in self.room.connections]))

    @invariant()
    def every_socket_holds_only_its_own_seat(self) -> None:
        for socket in self.room.connections:
            assert isinstance(socket, Socket)
            if socket.seat is not None:
                assert socket.token is not None
                assert self.room.table.seats[socket.seat].token_hash == hash_token(socket.token)
        for seat in self.room.table.seats:
            held = sum(1 for s in self.room.connections if s.seat == seat.index)
            assert seat.connections == held, (seat.index, seat.connections, held)


def test_no_socket_ever_speaks_for_a_seat_it_does_not_hold() -> None:
    test = SeatChanges.TestCase
    test.settings = settings(max_examples=60, stateful_step_count=30, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])
    test().runTest()
