"""Every card in sight: the hand and the open deck wrap onto as many lines as they need (Logic's
open deck stands as a grid), the play area scrolls to the cursor, and the cursor reads without
colour. Every variant, at every size from 80x24 up, at the most players the variant seats."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.widget import Widget

from sixnimmt.core import PASS, DecisionKind, Phase
from sixnimmt.core.variants import VARIANTS
from sixnimmt.seats.advise import Advice
from sixnimmt.tui import GameConfig, Seat, SixNimmtApp
from sixnimmt.tui.table import TableScreen
from sixnimmt.tui.widgets import CardLine, CardWidget, lines_of_cards

from .conftest import settle, table

SIZES = [(80, 24), (100, 30), (105, 30), (120, 40), (160, 50)]
NAMES = ["Ada", "Bruno", "Clara", "Diego", "Elsa", "Felix", "Greta", "Hugo", "Iris"]


def crowded(variant: str, **changes: object) -> GameConfig:
    """The most players the variant seats: the largest open deck, the most names."""
    players = VARIANTS[variant].max_players  # type: ignore[index]
    seats = (Seat("You"), *(Seat(name, "random") for name in NAMES[: players - 1]))
    settings: dict[str, object] = {"seats": seats, "variant": variant, "delay": 0, "seed": 5, "target": None, "deals": 1}
    settings.update(changes)
    return GameConfig(**settings)  # type: ignore[arg-type]


def in_sight(widget: Widget) -> bool:
    """Whether the whole widget is drawn on screen: its first and last cells are its own (not
    scrolled away, not under the key bar or another widget)."""
    region = widget.region
    if region.width == 0 or region.height == 0:
        return False
    screen = widget.screen
    corners = [(region.x, region.y), (region.right - 1, region.bottom - 1)]
    try:
        return all(screen.get_widget_at(x, y)[0] is widget for x, y in corners)
    except Exception:  # a point off the screen
        return False


def cursor_card(screen: TableScreen) -> CardWidget:
    session = screen.session
    options = session.card_options()
    number = options[min(session.cursor, len(options) - 1)]
    widgets = [w for line in screen.query(CardLine) if line.display
               for w in line.query(CardWidget) if w.number == number]  # fmt: skip
    assert widgets, f"{number} is not drawn"
    return widgets[0]


async def our_decision(pilot, screen: TableScreen) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot, lambda: screen.session.asking == 0 and not screen.session.animating, steps=2000)
    await pilot.pause()


async def walk_the_cursor(pilot, screen: TableScreen) -> list[int]:  # type: ignore[no-untyped-def]
    """Move the cursor over every option; each one's card must come in sight. Returns them."""
    options = screen.session.card_options()
    assert options
    await pilot.press("home")
    seen = []
    for _ in options:
        await pilot.pause()
        widget = cursor_card(screen)
        assert widget.has_class("-selected")
        assert in_sight(widget), f"{widget.number} under the cursor is out of sight"
        seen.append(widget.number)
        await pilot.press("right")
    return seen


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("variant", [v.value for v in VARIANTS])
@pytest.mark.asyncio
async def test_every_card_of_the_hand_and_the_open_deck_comes_in_sight(variant: str, size: tuple[int, int]) -> None:
    app = SixNimmtApp(crowded(variant), show_start=False)
    async with app.run_test(size=size) as pilot:
        screen = table(app)
        await our_decision(pilot, screen)
        session = screen.session
        decision = session.decision()
        assert decision is not None
        if decision.kind is DecisionKind.DRAFT:
            # The open deck, every card of it, and it stands as a grid: each line but the last as long.
            assert await walk_the_cursor(pilot, screen) == list(decision.options)
            lines = [len(row.query(CardWidget)) for row in screen.query_one("#options").children]
            assert sum(lines) == len(decision.options) and len(set(lines[:-1])) <= 1
            return  # the hand once drafted: below, with fewer players (a quicker draft)
        hand = session.view().hand
        assert len(hand) == len(screen.query_one("#hand").query(CardWidget))
        assert [c for c in await walk_the_cursor(pilot, screen) if c != PASS] == list(hand)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("variant", [v.value for v in VARIANTS if VARIANTS[v].drafted])
@pytest.mark.asyncio
async def test_a_drafted_hand_comes_in_sight_with_the_open_hands(variant: str, size: tuple[int, int]) -> None:
    app = SixNimmtApp(crowded(variant, seats=(Seat("You"), Seat("Ada", "random"))), show_start=False)
    async with app.run_test(size=size) as pilot:
        screen = table(app)
        await our_decision(pilot, screen)
        session = screen.session
        while session.game.phase is Phase.DRAFT:
            await pilot.press("enter")
            await our_decision(pilot, screen)
        hand = session.view().hand
        assert await walk_the_cursor(pilot, screen) == list(hand)
        assert "Ada" in str(screen.query_one("#open-hands").render())


@pytest.mark.asyncio
async def test_the_compact_log_opened_hides_no_card() -> None:
    """At 80x24 ``l`` opens the log along the bottom: the play area above it shrinks and scrolls,
    so the open deck's cards still come in sight under the cursor."""
    seats = (Seat("You"), *(Seat(name, "random") for name in NAMES[:5]))
    app = SixNimmtApp(crowded("logic", seats=seats), show_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(app)
        await our_decision(pilot, screen)
        await pilot.press("l")
        await pilot.pause()
        assert screen.query_one("#side").display
        decision = screen.session.decision()
        assert decision is not None
        assert await walk_the_cursor(pilot, screen) == list(decision.options)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
@pytest.mark.asyncio
async def test_the_hint_names_a_card_in_sight(size: tuple[int, int]) -> None:
    app = SixNimmtApp(crowded("logic"), show_start=False)
    async with app.run_test(size=size) as pilot:
        screen = table(app)
        await our_decision(pilot, screen)
        session = screen.session
        decision = session.decision()
        assert decision is not None and decision.kind is DecisionKind.DRAFT
        last = decision.options[-1]
        assert session.hint_ready(session.hint_key(0), Advice(last))
        screen.on_table_screen_hint_ready(TableScreen.HintReady(session.hint_key(0), Advice(last)))
        await pilot.pause()
        await pilot.pause()
        widget = cursor_card(screen)
        assert widget.number == last and in_sight(widget)


@pytest.mark.asyncio
async def test_the_cursor_reads_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """With NO_COLOR the terminal shows no colour at all: the card under the cursor still stands
    out (underlined), and no other card looks like it."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = SixNimmtApp(crowded("standard", seats=(Seat("You"), Seat("Ada", "random"))), show_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.no_color
        screen = table(app)
        await our_decision(pilot, screen)
        await pilot.press("right", "right")
        await pilot.pause()

        def look(widget: CardWidget) -> set[tuple[bool, bool, bool]]:
            """What a card looks like with the colour taken away: its text styles."""
            styles: set[tuple[bool, bool, bool]] = set()
            for y in range(widget.region.height):
                for segment in widget.render_line(y):
                    style = segment.style or Style()
                    if segment.text.strip():
                        styles.add((bool(style.underline), bool(style.reverse), bool(style.italic)))
            return styles

        selected = cursor_card(screen)
        others = [w for w in screen.query_one("#hand").query(CardWidget) if w is not selected]
        assert len(others) == 9
        assert all(look(w) != look(selected) for w in others)
        assert any(underline for underline, _, _ in look(selected))


def test_lines_of_cards_wrap_without_leaving_a_card_out() -> None:
    assert lines_of_cards([5] * 10, 11, 61) == [10]
    assert lines_of_cards([5] * 10, 11, 60) == [9, 1]
    assert lines_of_cards([5] * 34, 12, 77) == [13, 13, 8]
    assert lines_of_cards([8, 8], 70, 72) == [1, 1]  # less room than a card: one a line, none lost
