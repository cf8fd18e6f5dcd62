"""The final ranking: winners, totals, where the record was saved, and play again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from ..core import Game
from ..i18n import translator
from .config import GameConfig
from .render import score_value

if TYPE_CHECKING:
    from .app import SixNimmtApp


class FinalScreen(Screen[None]):
    """The ranking stays until the player says what next. Play again is ``n`` only: an Enter still
    pressed from the last turn (or to look at the result) must not deal a new game over it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "again", "Play again"),
        Binding("s", "settings", "New settings"),
        Binding("q,escape", "quit_app", "Quit"),
    ]

    def __init__(self, config: GameConfig, game: Game, saved_to: Path | None, save_error: str | None) -> None:
        super().__init__()
        self.config = config
        self.game = game
        self.saved_to = saved_to
        self.save_error = save_error

    @property
    def sixnimmt_app(self) -> SixNimmtApp:
        from .app import SixNimmtApp

        assert isinstance(self.app, SixNimmtApp)
        return self.app

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
            saved = Text(g("Record saved to {path}").format(path=self.saved_to), style="grey70")
            saved.append("\n" + g("Watch it again: sixnimmt replay show FILE --tui"), style="grey50")
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
        self.sixnimmt_app.start_game(config)

    def action_settings(self) -> None:
        self.sixnimmt_app.show_start(self.config)

    def action_quit_app(self) -> None:
        self.app.exit()
