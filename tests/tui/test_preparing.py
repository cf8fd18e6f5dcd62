"""A game started from the start screen with searching bots first shows "Preparing the bots" while
their kernels get ready (a stand-in for the compile here, released by the test), then the table."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sixnimmt.core import Rules
from sixnimmt.tui import GameConfig, Seat
from sixnimmt.tui.app import SixNimmtApp
from sixnimmt.tui.preparing import PreparingScreen
from sixnimmt.tui.start import StartScreen

from .conftest import SIZE, plain, settle

pytestmark = pytest.mark.asyncio


def config(tmp_path: Path, *bots: str) -> GameConfig:
    seats = (Seat("You"), *(Seat(f"Bot {i}", bot) for i, bot in enumerate(bots)))
    return GameConfig(seats=seats, deals=1, target=None, delay=0, seed=1, records_dir=tmp_path)


class StandIn:
    """Records what it was asked to warm and holds the 'compile' until released."""

    def __init__(self) -> None:
        self.rules: list[Rules] = []
        self.release = threading.Event()

    def __call__(self, rules: Rules) -> None:
        self.rules.append(rules)
        assert self.release.wait(30), "the test never released the warm-up"


async def test_searchers_get_ready_behind_a_preparing_screen(tmp_path: Path) -> None:
    chosen = config(tmp_path, "hard", "easy")
    warm = StandIn()

    app = SixNimmtApp(chosen, show_start=True, warm=warm)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        app.screen.post_message(StartScreen.StartGame(chosen))  # as the Start button does
        await settle(pilot, lambda: isinstance(app.screen, PreparingScreen) and bool(warm.rules), steps=3000)
        text = plain(app.screen.query_one("#preparing-text").render())
        assert "Preparing the bots" in text
        assert app.table is None  # no table (and no bot stalled on it) while compiling
        warm.release.set()
        await settle(pilot, lambda: app.table is not None, steps=3000)
        assert warm.rules == [chosen.rules()]  # once, with the chosen rules


async def test_no_preparing_without_searchers(tmp_path: Path) -> None:
    chosen = config(tmp_path, "easy", "medium")
    warm = StandIn()

    app = SixNimmtApp(chosen, show_start=True, warm=warm)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        app.screen.post_message(StartScreen.StartGame(chosen))
        await settle(pilot, lambda: app.table is not None, steps=3000)
        assert warm.rules == []
