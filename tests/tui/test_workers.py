"""Bots think in a worker thread: the interface answers keys while a bot is still deciding, and a
bot that fails does not take the game down."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from sixnimmt.bots import Bot
from sixnimmt.core import PlayerView
from sixnimmt.seats import available, registry
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.panels import SPINNER

from .conftest import SIZE, settle, table, text_of


class SlowBot(Bot):
    """Decides only when the test lets it (or after 30 s, so a mistake cannot hang the suite; a
    loaded machine can take more than 5 s over a few pilot steps)."""

    release = threading.Event()
    waiting = threading.Event()

    def decide(self, view: PlayerView) -> int:
        assert view.decision is not None
        SlowBot.waiting.set()
        SlowBot.release.wait(timeout=30)
        SlowBot.waiting.clear()
        return view.decision.options[0]


class BrokenBot(Bot):
    def decide(self, view: PlayerView) -> int:
        raise RuntimeError("out of ideas")


@pytest.fixture(autouse=True)
def test_bots() -> Iterator[None]:
    """Register the two test bots for this module's tests only: other tests list every bot."""
    available()  # load the built-in bots first, so the registry is complete before we add ours
    registry.register("test-slow", SlowBot, "test: waits for the test")
    registry.register("test-broken", BrokenBot, "test: always fails")
    yield
    registry.unregister("test-slow")
    registry.unregister("test-broken")


@pytest.mark.asyncio
async def test_the_interface_answers_keys_while_a_bot_thinks() -> None:
    SlowBot.release.clear()
    config = GameConfig(seats=(Seat("You"), Seat("Slow", "test-slow")), deals=1, target=None, delay=0, seed=1)

    try:
        app = SixNimmtApp(config, show_start=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = table(app)
            await settle(pilot, lambda: screen.session.asking == 0 and SlowBot.waiting.is_set())
            assert 1 in screen.session.thinking
            start = screen.session.cursor
            await pilot.press("right", "right")
            await pilot.pause()
            # The keys were handled while the bot was still deciding.
            assert SlowBot.waiting.is_set() and screen.session.cursor == start + 2
            await pilot.press(*str(max(screen.session.game.hands[0])), "enter")  # the highest card is never too low
            await pilot.pause()
            assert screen.session.game.turn == 0 and screen.session.game.chosen[0] is not None
            bot_hand = list(screen.session.game.hands[1])
            SlowBot.release.set()
            await settle(pilot, lambda: screen.session.game.turn == 1)
            assert screen.session.game.played[0][1] == bot_hand[0]  # the slow bot's answer was played
    finally:
        SlowBot.release.set()


@pytest.mark.asyncio
async def test_a_thinking_bot_shows_a_spinner_next_to_its_name_until_it_answers() -> None:
    SlowBot.release.clear()
    config = GameConfig(seats=(Seat("You"), Seat("Slow", "test-slow")), deals=1, target=None, delay=0, seed=1)

    try:
        app = SixNimmtApp(config, show_start=False)
        async with app.run_test(size=(80, 24)) as pilot:  # the compact layout: scores on one line
            screen = table(app)
            await settle(pilot, lambda: SlowBot.waiting.is_set() and screen.session.asking == 0)
            line = text_of(app, "#scoreline")
            slow = line[line.index("Slow"):]
            assert any(frame in slow for frame in SPINNER), line  # next to the thinking bot's name
            assert not any(frame in line[: line.index("Slow")] for frame in SPINNER)  # not next to yours
            await pilot.press("l")  # the side panel: the same, in words
            await pilot.pause()
            assert "thinking…" in text_of(app, "#scores")
            SlowBot.release.set()
            await settle(pilot, lambda: 1 not in screen.session.thinking and screen.session.game.chosen[1] is not None)
            await settle(pilot, lambda: "thinking…" not in text_of(app, "#scores"))
            assert not any(frame in text_of(app, "#scoreline") for frame in SPINNER)
    finally:
        SlowBot.release.set()


@pytest.mark.asyncio
async def test_a_failing_bot_plays_a_legal_card_and_the_game_goes_on(notices: list[str]) -> None:
    config = GameConfig(seats=(Seat("You"), Seat("Oops", "test-broken")), deals=1, target=None, delay=0, seed=2)

    app = SixNimmtApp(config, show_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.thinking)
        hand = list(screen.session.game.hands[1])
        await pilot.press(*str(max(screen.session.game.hands[0])), "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1)
        assert screen.session.game.played[0][1] in hand  # the guard's random legal option
        assert any("out of ideas" in m for m in notices)


@pytest.mark.asyncio
async def test_a_card_can_be_changed_until_the_last_player_has_chosen() -> None:
    SlowBot.release.clear()
    config = GameConfig(seats=(Seat("You"), Seat("Slow", "test-slow")), deals=1, target=None, delay=0, seed=3)

    try:
        app = SixNimmtApp(config, show_start=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = table(app)
            await settle(pilot, lambda: screen.session.asking == 0 and SlowBot.waiting.is_set())
            hand = list(screen.session.game.hands[0])
            await pilot.press(*str(hand[-1]), "enter")
            await pilot.pause()
            assert screen.session.game.chosen[0] == hand[-1]
            prompt = text_of(app, "#prompt")
            assert f"You play {hand[-1]}" in prompt and "change" in prompt
            await pilot.press(*str(hand[-2]), "enter")  # a change of mind while the bot thinks
            await pilot.pause()
            assert screen.session.game.chosen[0] == hand[-2]
            SlowBot.release.set()
            await settle(pilot, lambda: screen.session.game.turn == 1)
            assert screen.session.game.played[0][0] == hand[-2]
    finally:
        SlowBot.release.set()
