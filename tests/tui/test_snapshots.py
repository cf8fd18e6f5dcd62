"""Screens as SVG snapshots (pytest-textual-snapshot): a change in what a player sees shows up here.

After a deliberate change of the look, review and accept with:
``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.dialogs import PassScreen
from sixnimmt.tui.start import StartScreen

from .conftest import SIZE, fixed_deal, settle, table

pytest.importorskip("pytest_textual_snapshot")

HANDS = [list(range(1, 11)), [12, 15, 22, 33, 44, 55, 66, 77, 88, 99], [21, 25, 30, 35, 40, 45, 48, 57, 59, 61]]
ROWS = [50, 60, 70, 80]
Compare = Callable[..., bool]


def config(**changes: Any) -> GameConfig:
    settings: dict[str, Any] = {
        "seats": (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random")),
        "delay": 0,
        "seed": 4,
    }
    settings.update(changes)
    return GameConfig(**settings)


async def until_asked(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, SixNimmtApp)
    await settle(pilot, lambda: table(app).session.asking == 0 and not table(app).session.thinking)
    await pilot.pause()


def test_table_at_the_first_turn(snap_compare: Compare) -> None:
    app = SixNimmtApp(config(), show_start=False, dealer=fixed_deal(HANDS, ROWS))
    assert snap_compare(app, terminal_size=SIZE, run_before=until_asked)


def test_row_choice_in_spanish_counting_down(snap_compare: Compare) -> None:
    app = SixNimmtApp(config(lang="es", count_down=True), show_start=False, dealer=fixed_deal(HANDS, ROWS))

    async def play_the_one(pilot: Pilot[None]) -> None:
        await until_asked(pilot)
        await pilot.press("1", "enter")
        await settle(pilot, lambda: table(app).session.game.phase.value == "row-choice" and table(app).session.asking == 0)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=play_the_one)


def test_pass_and_play_cover(snap_compare: Compare) -> None:
    seats = (Seat("Ana"), Seat("Ben"), Seat("Ada", "random"))
    app = SixNimmtApp(config(seats=seats), show_start=False, dealer=fixed_deal(HANDS, ROWS))

    async def covered(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, PassScreen) and not table(app).session.thinking)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=covered)


def test_start_screen_in_swedish(snap_compare: Compare) -> None:
    app = SixNimmtApp(config(lang="sv"), show_start=True)

    async def shown(pilot: Pilot[None]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=shown)


def test_replay_viewer_mid_game(snap_compare: Compare) -> None:
    from sixnimmt.core import Game, Rules
    from sixnimmt.seats import make_bot, play_game
    from sixnimmt.tui.replay import ReplayApp

    game = Game(Rules(players=3, deals=1), ["Ana", "Ben", "Cia"], seed=8)
    play_game(game, [make_bot("random", 8 + seat) for seat in range(3)])
    assert snap_compare(ReplayApp(game, "en"), press=["right"] * 5, terminal_size=SIZE)


def _play_to(pilot: Pilot[None], screen_type: type) -> Any:
    async def run() -> None:
        app = pilot.app
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, screen_type):
                break
            await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, screen_type))
        await pilot.pause()

    return run()


def test_deal_summary(snap_compare: Compare) -> None:
    from sixnimmt.tui.dialogs import DealSummaryScreen

    app = SixNimmtApp(config(deals=2, target=None), show_start=False, dealer=fixed_deal(HANDS, ROWS))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _play_to(pilot, DealSummaryScreen))


def test_final_ranking(snap_compare: Compare) -> None:
    from sixnimmt.tui.final import FinalScreen

    app = SixNimmtApp(config(deals=1, target=None), show_start=False, dealer=fixed_deal(HANDS, ROWS))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _play_to(pilot, FinalScreen))


# The table at the three sizes the layouts are made for; docs/terminal.md shows these.
SIZES = {"compact_80x24": (80, 24), "normal_100x30": (100, 30), "roomy_160x50": (160, 50)}


@pytest.mark.parametrize("name", list(SIZES))
def test_table_at_each_size(snap_compare: Compare, name: str) -> None:
    four = (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random"), Seat("Clara", "random"))
    hands = [*HANDS, [11, 13, 14, 16, 17, 18, 19, 20, 23, 24]]
    app = SixNimmtApp(config(seats=four), show_start=False, dealer=fixed_deal(hands, ROWS))

    async def played_a_turn(pilot: Pilot[None]) -> None:
        await until_asked(pilot)
        await pilot.press("5", "enter")  # 5 is too low for every row: a row choice, with the reveal
        await settle(pilot, lambda: table(app).session.game.phase.value == "row-choice" and table(app).session.asking == 0)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[name], run_before=played_a_turn)


# Logic's open deck as a grid, every card in sight (docs/terminal.md shows these).
@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_logic_open_deck(snap_compare: Compare, size: tuple[int, int]) -> None:
    four = (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random"), Seat("Clara", "random"))
    app = SixNimmtApp(config(seats=four, variant="logic"), show_start=False)

    async def a_few_cards_drafted(pilot: Pilot[None]) -> None:
        for _ in range(2):
            await until_asked(pilot)
            await pilot.press("right", "right", "enter")
        await until_asked(pilot)
        await pilot.press("right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=a_few_cards_drafted)


def test_compact_without_colour(snap_compare: Compare, monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: the card under the cursor is underlined, as no other card is."""
    monkeypatch.setenv("NO_COLOR", "1")
    four = (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random"), Seat("Clara", "random"))
    hands = [*HANDS, [11, 13, 14, 16, 17, 18, 19, 20, 23, 24]]
    app = SixNimmtApp(config(seats=four), show_start=False, dealer=fixed_deal(hands, ROWS))

    async def cursor_moved(pilot: Pilot[None]) -> None:
        await until_asked(pilot)
        await pilot.press("right", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=cursor_moved)
