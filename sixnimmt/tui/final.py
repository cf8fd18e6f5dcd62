"""The final ranking: winners, totals, where the record was saved, and play again."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from ..core import Game
from ..i18n import translator
from .config import GameConfig, watch_command
from .render import score_value


class FinalScreen(Screen[None]):
    """The ranking stays until the player says what next. Play again is ``n`` only: an Enter still
    pressed from the last turn (or to look at the result) must not deal a new game over it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "again", "Play again"),
        Binding("s", "settings", "New settings"),
        Binding("q,escape", "quit_app", "Quit"),
    ]

    class PlayAgain(Message):
        """``n``: a new game with these settings (the app deals it)."""

        def __init__(self, config: GameConfig) -> None:
            super().__init__()
            self.config = config

    class NewSettings(Message):
        """``s``: back to the start screen with these settings."""

        def __init__(self, config: GameConfig) -> None:
            super().__init__()
            self.config = config

    def __init__(self, config: GameConfig, game: Game, saved_to: Path | None, save_error: str | None) -> None:
        super().__init__()
        self.config = config
        self.game = game
        self.saved_to = saved_to
        self.save_error = save_error

    def compose(self) -> ComposeResult:
        tr = translator(self.config.lang)
        g = tr.gettext
        game = self.game
        names = ", ".join(game.seats[s] for s in game.winners)
        title = tr.ngettext("Winner: {names}", "Winners: {names}", len(game.winners))
        table = Table(box=None, padding=(0, 2))
        table.add_column("#", justify="right")
        table.add_column(g("Player"))
        table.add_column(g("Points left") if self.config.count_down else g("Bullheads"), justify="right")
        rank = 0
        previous: int | None = None
        for position, seat in enumerate(sorted(range(game.players), key=lambda s: (game.totals[s], s))):
            if game.totals[seat] != previous:
                rank, previous = position + 1, game.totals[seat]
            style = "bold yellow" if seat in game.winners else ""
            table.add_row(
                str(rank),
                Text(game.seats[seat] + (" ★" if seat in game.winners else ""), style=style),
                str(score_value(game.totals[seat], game.rules.target, self.config.count_down)),
            )
        if self.saved_to is not None:
            # A line each, never wrapped: a path or a command broken across lines cannot be copied.
            # The box grows with the window (sixnimmt.tcss: #final-box); where even that is too
            # narrow, the line ends in an ellipsis, and the whole of it is printed on quitting.
            saved = Text(style="grey70")
            saved.append(g("Record saved to {path}").format(path=self.saved_to))
            saved.append("\n" + g("Watch it again: {command}").format(command=watch_command(self.saved_to)))
            saved.append("\n" + g("Both are printed on the terminal when you quit."), style="grey50")
        elif self.save_error is not None:
            saved = Text(self.save_error, style="red")
        else:
            saved = Text(g("This game was not saved."), style="grey50")
        with Vertical(id="final-box"):
            yield Static(title.format(names=names), id="final-title")
            yield Static(
                tr.ngettext("after {count} deal", "after {count} deals", game.deal_index + 1).format(
                    count=game.deal_index + 1
                ),
                classes="dim",
            )
            yield Static(table, id="ranking")
            yield Static(saved, id="saved")
            yield Static(g("n: play again   s: new settings   q: quit"), classes="dim")

    def action_again(self) -> None:
        seed = None if self.config.seed is None else self.config.seed + 1
        try:
            config = self.config.with_seed(seed)  # checks the seats again: a program may be gone
        except ValueError as error:
            self.notify(str(error), severity="error")
            return
        self.post_message(self.PlayAgain(config))

    def action_settings(self) -> None:
        self.post_message(self.NewSettings(self.config))

    def action_quit_app(self) -> None:
        self.app.exit()
