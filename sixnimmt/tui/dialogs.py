"""The small screens laid over the table: pass the keyboard, rules help, deal summary."""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from ..core import DealScored
from .render import KEYS_HELP, KEYS_PASS, KEYS_SUMMARY, Keys, cards_line, key_bar, score_value


class PassScreen(ModalScreen[None]):
    """Hides the table while the keyboard changes hands in pass-and-play. ``q`` (or ``Esc``)
    twice leaves the game, saving it, as at the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", "Ready", show=False),
        Binding("q,escape", "quit_game", "Quit", show=False),
    ]

    class QuitRequested(Message):
        """``q`` ``q``: leave, saving the game under way (the app decides how)."""

    def __init__(self, name: str, tr: gettext.NullTranslations) -> None:
        super().__init__()
        self.player_name = name
        self.tr = tr
        self._quit_armed = False

    def compose(self) -> ComposeResult:
        g = self.tr.gettext
        with Vertical(id="pass-box"):
            yield Static(g("Pass the keyboard to {name}").format(name=self.player_name), id="pass-title")
            yield Static(
                g("Everyone else, look away. {name}, press Enter when you are ready.").format(
                    name=self.player_name
                ),
                id="pass-text",
            )
        yield Static(key_bar(self.tr, KEYS_PASS), id="keys")

    def on_key(self, event: events.Key) -> None:
        if event.key not in ("q", "escape"):
            self._quit_armed = False

    def action_ready(self) -> None:
        self.dismiss(None)

    def action_quit_game(self) -> None:
        # As at the table: a stray key must not throw a game away; the second press quits.
        if self._quit_armed:
            self.post_message(self.QuitRequested())
            return
        self._quit_armed = True
        self.notify(self.tr.gettext("Press q again to quit this game."), timeout=3)


class HelpScreen(ModalScreen[None]):
    """The rules of the variant being played, from the shared Markdown texts, plus the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", show=False),
    ]

    def __init__(self, rules_markdown: str, keys_markdown: str, tr: gettext.NullTranslations,
                 keys: Keys = KEYS_HELP) -> None:  # fmt: skip
        """``keys``: the key bar (Esc goes back to the game, or closes the rules elsewhere)."""
        super().__init__()
        self.rules_markdown = rules_markdown
        self.keys_markdown = keys_markdown
        self.tr = tr
        self.keys = keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(self.keys_markdown, id="help-keys")
            yield Markdown(self.rules_markdown, id="help-rules")
        yield Static(key_bar(self.tr, self.keys), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)


class DealSummaryScreen(ModalScreen[None]):
    """What each player took in the deal just finished, and where the totals stand."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,escape,space", "close", "Continue", show=False)]

    def __init__(
        self,
        event: DealScored,
        seats: Sequence[str],
        target: int | None,
        count_down: bool,
        tr: gettext.NullTranslations,
        taken: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """``taken``: the cards each seat took in the deal (shown with what they cost)."""
        super().__init__()
        self.taken = taken
        self.event = event
        self.seats = seats
        self.target = target
        self.count_down = count_down
        self.tr = tr

    def compose(self) -> ComposeResult:
        g = self.tr.gettext
        table = Table(box=None, padding=(0, 2))
        table.add_column(g("Player"))
        table.add_column(g("This deal"), justify="right")
        table.add_column(g("Points left") if self.count_down else g("Total"), justify="right")
        if self.taken is not None:
            table.add_column(g("Cards taken"))
        order = sorted(range(len(self.seats)), key=lambda s: (self.event.totals[s], s))
        for seat in order:
            penalty = self.event.penalties[seat]
            shown = score_value(self.event.totals[seat], self.target, self.count_down)
            cells: list[Text | str] = [
                self.seats[seat],
                Text(f"-{penalty}" if self.count_down else f"+{penalty}", style="red" if penalty else "green"),
                str(shown),
            ]
            if self.taken is not None:
                cells.append(cards_line(self.taken[seat]) if self.taken[seat] else Text("—", style="grey50"))
            table.add_row(*cells)
        with Vertical(id="summary-box"):
            yield Static(g("Deal {number} is over").format(number=self.event.deal + 1), id="summary-title")
            yield Static(table, id="summary-table")
            yield Static(g("Press Enter to continue"), classes="dim")
        yield Static(key_bar(self.tr, KEYS_SUMMARY), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)
