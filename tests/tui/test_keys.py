"""What the keys do now, and what the table says about it: the key bar follows the moment, the
keyboard's cursor previews its card's place as the mouse does, the pass screen answers q and Esc,
nothing is played while the table is hidden, chips stand apart and names stay with their scores."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest
from textual.widget import Widget

from sixnimmt.i18n import translator
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.dialogs import HelpScreen, PassScreen
from sixnimmt.tui.panels import Layout
from sixnimmt.tui.widgets import CardWidget, RowWidget

from .conftest import fixed_deal, settle, table, text_of

pytestmark = pytest.mark.asyncio

HANDS = [list(range(1, 11)), list(range(11, 21)), list(range(21, 31))]
LANGS = ["en", "es", "sv"]


def three_seats(**changes: object) -> GameConfig:
    settings: dict[str, object] = {
        "seats": (Seat("You"), Seat("Ada", "random"), Seat("Bruno", "random")),
        "deals": 1,
        "target": None,
        "delay": 0,
        "seed": 7,
    }
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


def lines_on_screen(widget: Widget) -> list[str]:
    """The lines a widget shows on screen now, as text."""
    return ["".join(s.text for s in widget.render_line(y)) for y in range(widget.region.height)]


def bar(app: SixNimmtApp) -> str:
    return "".join(lines_on_screen(app.screen.query_one("#keys")))


@pytest.mark.parametrize("lang", LANGS)
async def test_the_key_bar_says_what_the_keys_do_now(lang: str) -> None:
    g = translator(lang).gettext
    app = SixNimmtApp(three_seats(lang=lang), show_start=False, dealer=fixed_deal(HANDS, [50, 60, 70, 80]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        assert g("play") in bar(app) and g("take the row") not in bar(app)
        await pilot.press("enter")  # 1 is lower than every row: a row to take
        await settle(pilot, lambda: screen.session.asking == 0 and screen.session.game.phase.value == "row-choice")
        await pilot.pause()
        assert g("take the row") in bar(app) and "↑ ↓" in bar(app)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert g("back to the game") in bar(app)
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert g("take the row") in bar(app)


async def test_the_keyboard_cursor_previews_its_card_as_the_mouse_does() -> None:
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(
        [list(range(31, 41)), list(range(41, 51)), list(range(51, 61))], [1, 2, 3, 30]))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        assert "31 would join row 4" in text_of(app, "#prompt")  # the cursor starts on 31
        await pilot.press("right", "right")
        await pilot.pause()
        assert "33 would join row 4" in text_of(app, "#prompt")
        assert [row.has_class("-preview") for row in screen.query(RowWidget)] == [False, False, False, True]


@pytest.mark.parametrize("key", ["q", "escape"])
async def test_the_pass_screen_shows_its_keys_and_quits_on_a_second_q_or_esc(key: str, tmp_path: Path) -> None:
    seats = (Seat("Ana"), Seat("Ben"), Seat("Ada", "random"))
    app = SixNimmtApp(three_seats(seats=seats, records_dir=tmp_path), show_start=False,
                      dealer=fixed_deal(HANDS, [50, 60, 70, 80]))  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, PassScreen))
        await pilot.pause()
        assert "ready" in bar(app) and "quit" in bar(app)
        await pilot.press(key)
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, PassScreen)  # a stray key throws nothing away
        await pilot.press(key)
        await settle(pilot, lambda: not app.is_running)


async def test_keys_do_nothing_while_the_terminal_is_too_small() -> None:
    hands = [list(range(31, 41)), list(range(41, 51)), list(range(51, 61))]
    app = SixNimmtApp(three_seats(), show_start=False, dealer=fixed_deal(hands, [1, 2, 3, 4]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.resize_terminal(70, 20)
        await settle(pilot, lambda: screen.layout_name is Layout.TOO_SMALL)
        await pilot.press("right", "right", "enter", "5", "enter", "h", "l", "question_mark")
        await pilot.pause()
        assert "quit" in bar(app) and "play" not in bar(app)  # the key bar says what still works
        assert not screen.session.game.played and screen.session.cursor == 0 and not screen.session.typed
        assert app.screen is screen and not screen.side_open
        await pilot.resize_terminal(80, 24)
        await settle(pilot, lambda: screen.layout_name is Layout.COMPACT)
        await pilot.press("right", "enter")
        await settle(pilot, lambda: screen.session.game.turn == 1)
        assert screen.session.game.played[0][0] == 32


@pytest.mark.parametrize("variant", ["standard", "double"])
async def test_the_chips_of_a_row_stand_apart(variant: str) -> None:
    hands = [[40, 1, 2, 3, 4, 5, 6, 7, 8, 9], list(range(91, 101)), list(range(61, 71))]
    rows = [10, 20, 30, 40 if variant == "double" else 39]
    app = SixNimmtApp(three_seats(variant=variant), show_start=False, dealer=fixed_deal(hands, rows))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("4", "0", "enter")  # a twin in Double: 40 stacks on 40, one place
        await settle(pilot, lambda: screen.session.game.turn == 1 and not screen.session.queue)
        await pilot.pause()
        row = list(screen.query(RowWidget))[3]
        chips = list(row.query(CardWidget))
        assert len(chips) >= 3
        for left, right in pairwise(chips):
            assert right.region.x > left.region.right, f"{left.number} and {right.number} run together"
        shown = "".join(lines_on_screen(row))
        assert not re.search(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]\d|×\d\d", shown), shown


async def test_ten_players_names_stay_with_their_scores_at_80_columns() -> None:
    names = ["Ada", "Bruno", "Clara", "Diego", "Elsa", "Felix", "Greta", "Hugo", "Iris"]
    seats = (Seat("Player 1"), *(Seat(f"{name} {name}", "random") for name in names))
    app = SixNimmtApp(three_seats(seats=seats), show_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.pause()
        lines = lines_on_screen(screen.query_one("#scoreline"))
        assert len(lines) >= 2
        for seat in seats:
            assert any(re.search(re.escape(seat.name) + r" -?\d", line) for line in lines), (seat.name, lines)


@pytest.mark.parametrize(("lang", "words"), [("en", "is not in the open deck"), ("es", "no está en la baraja abierta"),
                                             ("sv", "finns inte i den öppna leken")])  # fmt: skip
async def test_a_number_not_in_the_open_deck_is_called_so(lang: str, words: str) -> None:
    app = SixNimmtApp(three_seats(variant="logic", lang=lang), show_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0)
        await pilot.press("end", "enter")  # drafts the last card of the open deck
        await settle(pilot, lambda: screen.session.asking == 0 and len(screen.session.view().hand) == 1)
        [drafted] = screen.session.view().hand
        await pilot.press(*str(drafted), "enter")  # in the hand now, no longer in the open deck
        await pilot.pause()
        prompt = text_of(app, "#prompt")
        assert f"{drafted} {words}" in prompt
        assert screen.session.view().hand == (drafted,)  # nothing more was drafted


async def test_the_cards_on_the_table_stay_with_their_players_names() -> None:
    names = ["Ada", "Bruno", "Clara", "Diego", "Elsa", "Felix", "Greta", "Hugo", "Iris"]
    seats = (Seat("You"), *(Seat(f"{name} {name}", "random") for name in names))
    app = SixNimmtApp(three_seats(seats=seats, delay=60), show_start=False)  # a long reveal: it stays
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.thinking)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.session.revealed is not None)
        await pilot.pause()
        lines = lines_on_screen(screen.query_one("#revealed"))
        assert len(lines) >= 2
        for seat, number in screen.session.revealed or ():
            name = seats[seat].name
            assert any(re.search(re.escape(name) + rf" +{number}", line) for line in lines), (name, number, lines)


@pytest.mark.parametrize("lang", LANGS)
async def test_the_deal_summary_and_the_start_screens_rules_say_their_keys(lang: str) -> None:
    from sixnimmt.tui.dialogs import DealSummaryScreen
    from sixnimmt.tui.start import StartScreen

    g = translator(lang).gettext
    app = SixNimmtApp(three_seats(lang=lang, deals=2), show_start=False, dealer=fixed_deal(HANDS, [50, 60, 70, 80]))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, DealSummaryScreen):
                break
            await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, DealSummaryScreen))
        assert g("continue") in bar(app) and g("play") not in bar(app)
    app = SixNimmtApp(three_seats(lang=lang), show_start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, StartScreen))
        await pilot.press("f1")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert g("close") in bar(app) and g("back to the game") not in bar(app)

