"""The table at every terminal size, and the mouse: Textual's pilot at 80x24, 100x30 and 160x50."""

from __future__ import annotations

import pytest

from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.dialogs import PassScreen
from sixnimmt.tui.panels import Layout
from sixnimmt.tui.widgets import CardWidget, RowWidget

from .conftest import fixed_deal, plain, settle, table, text_of

pytestmark = pytest.mark.asyncio

HANDS = [list(range(31, 41)), list(range(41, 51)), list(range(51, 61))]


def three_seats(**changes: object) -> GameConfig:
    settings: dict[str, object] = {
        "seats": (Seat("You"), Seat("Ada", "easy"), Seat("Bruno", "easy")),
        "deals": 1,
        "target": None,
        "delay": 0,
        "seed": 3,
    }
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("size", "layout"),
    [((80, 24), Layout.COMPACT), ((100, 30), Layout.NORMAL), ((160, 50), Layout.ROOMY)],
)
async def test_every_size_shows_the_four_rows_and_the_hand_and_plays(size: tuple[int, int], layout: Layout) -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=size) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        assert screen.layout_name is layout
        rows = list(screen.query(RowWidget))
        assert len(rows) == 4
        height = 4 if layout is Layout.ROOMY else 1  # boxed cards on roomy rows, else one line
        for row in rows:
            assert row.size.height == height and row.region.width <= size[0]
            assert row.region.y + row.region.height <= size[1]
        assert "Row 1" in text_of(app, "#rows") and "bullhead" in text_of(app, "#rows")
        hand = screen.query_one("#hand")
        assert hand.region.height > 0 and hand.region.y + hand.region.height <= size[1] - 1
        cards = [w.number for w in hand.query(CardWidget)]
        assert cards == HANDS[0]
        assert all(w.region.x + w.region.width <= size[0] for w in hand.query(CardWidget))
        # The side panel: behind l in the compact layout, shown in the others.
        side = screen.query_one("#side")
        assert side.display == (layout is not Layout.COMPACT)
        await pilot.press("l")
        await pilot.pause()
        assert side.display == (layout is Layout.COMPACT)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.animating)
        assert screen.session.game.played[0][0] == 31


async def test_resizing_mid_game_switches_the_layout_and_below_80x24_says_what_it_needs() -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        assert screen.layout_name is Layout.ROOMY
        await pilot.press("right", "right")
        await pilot.resize_terminal(80, 24)
        await settle(pilot, lambda: screen.layout_name is Layout.COMPACT)
        await pilot.pause()
        assert all(row.size.height == 1 for row in screen.query(RowWidget))
        await pilot.resize_terminal(70, 20)
        await settle(pilot, lambda: screen.layout_name is Layout.TOO_SMALL)
        await pilot.pause()
        assert not screen.query_one("#table").display or screen.query_one("#table").region.height == 0
        message = text_of(app, "#too-small")
        assert "70x20" in message and "80x24" in message
        await pilot.resize_terminal(100, 30)
        await settle(pilot, lambda: screen.layout_name is Layout.NORMAL)
        await pilot.press("enter")  # the game went on where it was: the third card
        await settle(pilot, lambda: screen.session.game.turn == 1)
        assert screen.session.game.played[0][0] == 33


async def test_a_hidden_hand_stays_hidden_when_the_terminal_is_too_small() -> None:
    seats = (Seat("Ana"), Seat("Ben"), Seat("Ada", "easy"))

    app = SixNimmtApp(three_seats(seats=seats), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))
        assert "Ana" in plain(app.screen.query_one("#pass-title").content)
        screen = table(app)
        assert screen.session.viewer is None and "hidden" in text_of(app, "#hand")
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert isinstance(app.screen, PassScreen) and screen.session.viewer is None


async def test_mouse_a_click_selects_a_card_and_a_second_click_plays_it() -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        card = next(w for w in screen.query(CardWidget) if w.number == 36)
        await pilot.click(card)
        await pilot.pause()
        assert screen.session.card_options()[screen.session.cursor] == 36
        assert not screen.session.game.played
        card = next(w for w in screen.query("#hand CardWidget").results(CardWidget) if w.number == 36)
        await pilot.click(card)
        await settle(pilot, lambda: bool(screen.session.game.played))
        assert screen.session.game.played[0][0] == 36


async def test_mouse_hovering_a_card_previews_its_row() -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 30]))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        card = next(w for w in screen.query("#hand CardWidget").results(CardWidget) if w.number == 36)
        await pilot.hover(card)
        await settle(pilot, lambda: screen.hovered == 36)
        assert "36 would join row 4" in text_of(app, "#prompt")
        rows = list(screen.query(RowWidget))
        assert [row.has_class("-preview") for row in rows] == [False, False, False, True]


async def test_mouse_a_click_on_a_row_takes_it() -> None:
    hands = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]

    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(hands, [50, 60, 70, 80]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("enter")  # 1: too low
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "row-choice")
        await pilot.pause()
        row = list(screen.query(RowWidget))[2]
        await pilot.click(row)
        await settle(pilot, lambda: screen.session.game.phase.value != "row-choice")
        assert screen.session.game.totals == [0, 0, 0]  # scored at the deal's end
        assert any("Row 3 goes to You" in plain(line) for line in screen.session.log)


async def test_the_typo_case_at_the_keyboard() -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("5", "5", "enter")
        await pilot.pause()
        assert not screen.session.game.played and screen.session.asking == 0
        assert "55 is not in your hand" in text_of(app, "#prompt")
        await pilot.press("escape", "3", "4", "enter")
        await settle(pilot, lambda: bool(screen.session.game.played))
        assert screen.session.game.played[0][0] == 34


async def test_a_key_during_the_reveal_skips_it_and_enter_never_plays_blind() -> None:
    # A long delay: the reveal would last minutes; the key must end it, not the clock.
    app = SixNimmtApp(three_seats(delay=60), show_start=False, dealer=fixed_deal(HANDS, [1, 2, 3, 4]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.pausing)
        await pilot.press("3", "8")  # skips the reveal; the number waits for the next turn
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.animating)
        assert len(screen.session.game.played) == 1
        assert screen.session.card_options()[screen.session.cursor] == 38
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.pausing)
        await pilot.press("enter")  # only skips
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.animating)
        assert len(screen.session.game.played) == 2 and screen.session.game.played[1][0] == 38


async def test_the_start_screen_focuses_the_first_field_and_asks_before_quitting_a_changed_form(notices: list[str]) -> None:
    from textual.widgets import Input

    from sixnimmt.tui.start import StartScreen

    app = SixNimmtApp(GameConfig(delay=0, seed=3), show_start=True)
    exits: list[object] = []
    app.exit = lambda *args, **kwargs: exits.append(args)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen) and app.focused is not None)
        assert app.focused is not None and app.focused.id == "lang"  # the first field, not Start
        await pilot.press("tab")
        assert app.focused is not None and app.focused.id == "name"  # Tab follows the form
        await pilot.press("escape")  # nothing changed: quits at once
        assert len(exits) == 1
        app.screen.query_one("#name", Input).value = "Ana"
        await pilot.pause()
        await pilot.press("escape")  # changed: the first press only asks
        await pilot.pause()
        assert len(exits) == 1
        assert any("press Esc or Quit again" in m for m in notices)
        await pilot.press("escape")
        assert len(exits) == 2
