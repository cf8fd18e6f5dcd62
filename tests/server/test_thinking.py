"""Bots think off the event loop, a few at a time, and a bot that thinks a while is shown as thinking:
the table hears a ``thinking`` message when its think passes ``Settings.thinking_notice`` and another
when it answers. Time is a :class:`ManualClock`; the bot waits on an event the test sets, so nothing
here waits on the wall clock."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from sixnimmt.bots.base import Bot
from sixnimmt.core import PlayerView, Rules
from sixnimmt.seats import HINT_LEVEL, LEVELS
from sixnimmt.seats.registry import time_limit
from sixnimmt.server.clock import ManualClock
from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.tables.rooms import Rooms
from sixnimmt.server.tables.scheduling import BotThreads
from sixnimmt.server.tables.table_setup import TableOptions
from sixnimmt.server.wire import Play

from .conftest import Listener


class GatedBot(Bot):
    """Plays its first option once the test lets it (``release``); says when it has started."""

    name = "gated"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.release = threading.Event()
        self.started = threading.Event()

    def decide(self, view: PlayerView) -> int:
        assert view.decision is not None
        self.started.set()
        self.release.wait(timeout=30)  # a safety net only: the test releases it
        return view.decision.options[0]


async def wait_for(event: threading.Event) -> None:
    """Until ``event`` is set by a worker thread (yielding to the loop meanwhile)."""
    for _ in range(10_000):
        if event.is_set():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the bot never started thinking")


def gate_the_bots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, GatedBot]]:
    """Every bot the server makes from now on is a :class:`GatedBot`; returns them as they are
    made, with the spec each was made for."""
    made: list[tuple[str, GatedBot]] = []

    def gated(spec: str, seed: int | None = None) -> GatedBot:
        bot = GatedBot(seed)
        made.append((spec, bot))
        return bot

    monkeypatch.setattr("sixnimmt.server.tables.scheduling.make_bot", gated)
    return made


def thinking(conn: Listener) -> list[tuple[int, bool]]:
    return [(m["seat"], m["thinking"]) for m in conn.messages if m["type"] == "thinking"]


def test_grandmaster_is_a_level_the_server_offers_and_plays_with_a_time_limit() -> None:
    settings = Settings(database_url="sqlite://")
    assert "grandmaster" in LEVELS and HINT_LEVEL == "grandmaster"
    assert settings.level_specs["grandmaster"].startswith("grandmaster:ms=")
    assert settings.think_threads >= 1


@pytest.mark.asyncio
@pytest.mark.parametrize("grandmasters", [1, 3, 9])
async def test_the_timed_bots_of_a_table_share_its_thinking_time_per_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grandmasters: int) -> None:
    """However many searchers sit at a table, one turn of theirs costs at most
    ``Settings.turn_think_ms`` of thinking in all; each keeps the server's limit when that fits."""
    made = gate_the_bots(monkeypatch)
    store = Store(f"sqlite:///{tmp_path / 'share.db'}")
    store.migrate()
    settings = Settings(database_url=store.url, bot_delay=0.0)
    rooms = Rooms(store, settings, ManualClock())
    mediums = 1 if grandmasters < 9 else 0  # ten seats at most, the host's one of them
    seats = [{"kind": "bot", "bot": "grandmaster"}] * grandmasters + [{"kind": "bot", "bot": "medium"}] * mediums
    room, _ = await rooms.create(TableOptions(Rules(players=1 + len(seats))), "Host", seats)
    limits = sorted(time_limit(spec) for spec, _ in made)
    for _, bot in made:
        bot.release.set()
    timed = [ms for ms in limits if ms > 0]
    assert len(timed) == grandmasters and limits.count(0.0) == mediums  # medium has no time limit
    assert sum(timed) <= settings.turn_think_ms
    assert max(timed) == min(time_limit(settings.level_specs["grandmaster"]), settings.turn_think_ms / grandmasters)
    await room.scheduler.settle()


@pytest.mark.asyncio
@pytest.mark.parametrize("slow", [True, False])
async def test_a_long_think_is_announced_and_its_end_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow: bool) -> None:
    made = gate_the_bots(monkeypatch)

    clock = ManualClock()
    store = Store(f"sqlite:///{tmp_path / 'thinking.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, thinking_notice=0.15), clock)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot", "bot": "grandmaster"}])
    game = room.table.game
    assert game is not None
    (spec, bot), = made
    assert spec == rooms.settings.level_specs["grandmaster"]  # the server's time-limited grandmaster
    host = Listener(0)
    await room.connect(host)
    await wait_for(bot.started)
    if slow:
        clock.advance(0.14)
        assert thinking(host) == []  # not yet: a quick bot never flickers
        clock.advance(0.02)
        assert thinking(host) == [(1, True)]
        # someone who connects now sees it in the table's state
        late = Listener(None)
        await room.connect(late)
        assert late.messages[0]["table"]["thinking"] == [1]
    bot.release.set()
    await room.scheduler.settle()
    assert game.chosen[1] is not None  # the bot's card is in
    assert thinking(host) == ([(1, True), (1, False)] if slow else [])
    if slow:
        # the end of the think is told before the move it led to
        stop = next(i for i, m in enumerate(host.messages) if m["type"] == "thinking" and not m["thinking"])
        assert {"chosen", "update"} & {m["type"] for m in host.messages[stop + 1:]}
        assert room.state_for(0)["table"]["thinking"] == []
    clock.advance(10.0)
    assert thinking(host) == ([(1, True), (1, False)] if slow else [])  # the notice was called off
    await rooms.close()


@pytest.mark.asyncio
async def test_the_bot_threads_cap_how_many_think_at_once() -> None:
    threads = BotThreads(2)
    running = 0
    most = 0
    lock = threading.Lock()
    gate = threading.Event()

    def think() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        gate.wait(timeout=30)
        with lock:
            running -= 1

    tasks = [asyncio.ensure_future(threads.run(think)) for _ in range(6)]
    for _ in range(10_000):  # until the pool is full
        with lock:
            if running == 2:
                break
        await asyncio.sleep(0.001)
    with lock:
        assert running == 2  # four wait their turn
    gate.set()
    await asyncio.gather(*tasks)
    assert most == 2
    threads.close()


@pytest.mark.asyncio
async def test_a_quick_bot_does_not_wait_behind_other_tables_searches(tmp_path: Path) -> None:

    store = Store(f"sqlite:///{tmp_path / 'quick.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, think_threads=1), ManualClock())
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot", "bot": "easy"}])
    game = room.table.game
    assert game is not None
    host = Listener(0)
    await room.connect(host)
    await room.scheduler.settle()
    assert game.chosen[1] is not None  # its first decision, in the bot threads (how quick is it?)
    # another table's search takes the only bot thread
    gate = threading.Event()
    search = asyncio.ensure_future(room.scheduler.threads.run(gate.wait, 30))
    await room.handle(host, Play(type="play", card=max(game.hands[0])))  # never too low: no row choice
    for _ in range(10_000):
        if game.turn == 1 and game.chosen[1] is not None:
            break
        await asyncio.sleep(0.001)
    assert game.turn == 1 and game.chosen[1] is not None and not gate.is_set()  # it answered meanwhile
    gate.set()
    await search
    await rooms.close()


@pytest.mark.asyncio
async def test_a_bot_whose_think_took_a_while_waits_its_turn_for_the_bot_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other side of the test above: how long a think took is read on the server's clock, and a
    bot whose first think took a second of it is not quick (its next think queues behind a search)."""
    made = gate_the_bots(monkeypatch)

    clock = ManualClock()
    store = Store(f"sqlite:///{tmp_path / 'slow.db'}")
    store.migrate()
    rooms = Rooms(store, Settings(database_url=store.url, bot_delay=0.0, think_threads=1), clock)
    room, _ = await rooms.create(TableOptions(Rules(players=2)), "Host", [{"kind": "bot", "bot": "hard"}])
    game = room.table.game
    assert game is not None
    ((_, bot),) = made
    host = Listener(0)
    await room.connect(host)
    await wait_for(bot.started)
    clock.advance(1.0)  # the first think takes a second of the server's time
    bot.release.set()
    await room.scheduler.settle()
    assert game.chosen[1] is not None
    bot.started.clear()
    bot.release.clear()
    gate = threading.Event()
    search = asyncio.ensure_future(room.scheduler.threads.run(gate.wait, 30))  # the only bot thread
    await room.handle(host, Play(type="play", card=max(game.hands[0])))
    owed = game.decision_for(1)  # the bot's next decision: its next card, or a row for its last
    assert owed is not None
    bot.release.set()  # the bot may answer at once, once it is asked
    for _ in range(200):
        await asyncio.sleep(0.001)
    assert not bot.started.is_set() and game.decision_for(1) == owed  # queued behind the search
    gate.set()
    await search
    await wait_for(bot.started)
    await room.scheduler.settle()
    assert game.decision_for(1) != owed
    await rooms.close()
