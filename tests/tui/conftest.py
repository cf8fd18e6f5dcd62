"""Helpers for driving the terminal game with Textual's pilot."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from sixnimmt.core import HAND_SIZE, DealSetup
from sixnimmt.tui.app import SixNimmtApp
from sixnimmt.tui.table import TableScreen
from sixnimmt.tui.widgets import RowWidget

SIZE = (120, 40)


@pytest.fixture
def notices(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app tells the player in notifications (everything goes through ``App.notify``)."""
    told: list[str] = []
    notify = SixNimmtApp.notify

    def recording(app: SixNimmtApp, message: str, *args: Any, **kwargs: Any) -> None:
        told.append(str(message))
        notify(app, message, *args, **kwargs)

    monkeypatch.setattr(SixNimmtApp, "notify", recording)
    return told


async def settle(pilot: Pilot[None], condition: Callable[[], bool], steps: int = 500) -> None:
    """Let the app run (bots in their worker, timers) until ``condition`` holds; fail if it never does.

    A bound on the number of event-loop turns, not a timing assertion.
    """
    for _ in range(steps):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the app never reached the expected state")


def table(app: SixNimmtApp) -> TableScreen:
    screen = app.table
    assert screen is not None, f"no table; the screen is {type(app.screen).__name__}"
    return screen


def text_of(app: SixNimmtApp, selector: str) -> str:
    """The plain text a widget of the table shows now: a Static's content, or a container's (the
    hand, the rows) Statics one after the other, a line per row."""
    widget = table(app).query_one(selector)
    if isinstance(widget, Static):
        return plain(widget.content)
    if isinstance(widget, RowWidget):
        return " ".join(plain(part.content).strip() for part in widget.query(Static)) + "\n"
    rows = list(widget.query(RowWidget))
    if rows:
        return "".join(" ".join(plain(p.content).strip() for p in row.query(Static)) + "\n" for row in rows)
    return " ".join(plain(part.content).strip() for part in widget.query(Static)) + "\n"


def plain(renderable: object) -> str:
    """Any rich renderable as plain text, as a terminal 200 columns wide would show it."""
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def fixed_deal(hands: list[list[int]], rows: list[int]) -> Callable[[int], DealSetup]:
    """A dealer that deals the same cards every deal (players' hands sorted, rows 0..3); the
    engine checks them against the variant (10 cards each, 14 in Nifty and Hand)."""
    assert len({len(h) for h in hands}) == 1 and len(hands[0]) in (HAND_SIZE, 14)
    setup = DealSetup(hands=tuple(tuple(sorted(h)) for h in hands), rows=tuple(rows))
    return lambda deal_index: setup
