"""The Textual application: start screen -> table -> final ranking -> play again."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from ..core import Dealer
from ..i18n import translator
from .config import GameConfig
from .start import StartScreen
from .table import TableScreen

#: Below this size the table cannot show four full rows, a hand and the scores.
MIN_WIDTH = 100
MIN_HEIGHT = 30


class SixNimmtApp(App[None]):
    """6 nimmt! in the terminal. With ``show_start`` the game begins on the settings screen;
    otherwise it deals straight away with ``config``."""

    CSS_PATH = "sixnimmt.tcss"
    TITLE = "6 nimmt!"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    def __init__(self, config: GameConfig, *, show_start: bool = True, dealer: Dealer | None = None) -> None:
        super().__init__()
        self.config = config
        self.show_start_first = show_start
        self.dealer = dealer  # fixed deals (tests, puzzles); None shuffles from the seed

    def on_mount(self) -> None:
        if self.show_start_first:
            self.push_screen(StartScreen(self.config))
        else:
            self.push_screen(TableScreen(self.config, self.dealer))

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width < MIN_WIDTH or event.size.height < MIN_HEIGHT:
            message = translator(self.config.lang).gettext(
                "The terminal is too small ({width}x{height}): enlarge it to at least {min_width}x{min_height}."
            )
            self.notify(
                message.format(width=event.size.width, height=event.size.height,
                               min_width=MIN_WIDTH, min_height=MIN_HEIGHT),
                severity="warning",
            )  # fmt: skip

    def set_language(self, lang: str) -> None:
        from dataclasses import replace

        self.config = replace(self.config, lang=lang)

    def start_game(self, config: GameConfig) -> None:
        self.config = config
        self.switch_screen(TableScreen(config))

    def show_start(self, config: GameConfig) -> None:
        self.config = config
        self.switch_screen(StartScreen(config))

    @property
    def table(self) -> TableScreen | None:
        """The game being played, if the table is the current screen (tests look at it)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                return screen
        return None
