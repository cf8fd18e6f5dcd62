"""The Textual application: start screen -> table -> final ranking -> play again."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.worker import WorkerFailed

from ..core import Dealer, Game
from ..i18n import translator
from ..seats.warmup import needs_warm_up, warm_up
from .config import GameConfig, default_records_dir, resume_command, watch_command
from .dialogs import PassScreen
from .final import FinalScreen
from .panels import MIN_HEIGHT, MIN_WIDTH
from .preparing import PreparingScreen, Warm
from .start import StartScreen
from .table import TableScreen


def error_log() -> Path:
    """Where the traceback of a bug that stopped the app is written: next to the records folder."""
    return default_records_dir().parent / "play-error.log"


def _rules_key(config: GameConfig) -> str:
    return repr(sorted(config.rules().to_dict().items()))


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "SixNimmtApp", "error_log"]


class SixNimmtApp(App[None]):
    """6 nimmt! in the terminal. With ``show_start`` the game begins on the settings screen;
    otherwise it deals straight away with ``config``."""

    CSS_PATH = "sixnimmt.tcss"
    TITLE = "6 nimmt!"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        # Ctrl+C quits too, as in any terminal program (saving a game under way), on every screen.
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        config: GameConfig,
        *,
        show_start: bool = True,
        dealer: Dealer | None = None,
        resume: Game | None = None,
        resumed_from: Path | None = None,
        friendly_errors: bool = False,
        warm: Warm = warm_up,
        terminal_alive: Callable[[], bool] | None = None,
    ) -> None:
        """``resume``: a game rebuilt from its record (``sixnimmt play --resume``), seated as in
        ``config``; it goes on at once. ``friendly_errors`` (``sixnimmt play``): a bug ends the app
        with one line, the traceback in a log file, instead of Textual's traceback on screen.
        ``warm``: compiles the searchers' kernels before a table chosen on the start screen (the
        tests pass a stand-in). ``terminal_alive``: whether the terminal is still there (the
        tests pass a stand-in)."""
        super().__init__()
        self.terminal_alive = terminal_alive or _stdin_is_terminal
        self.friendly_errors = friendly_errors
        #: The bug that stopped the app, if one did (kept for the caller and the tests).
        self.error: BaseException | None = None
        self.config = config
        self.show_start_first = show_start and resume is None
        self.dealer = dealer  # fixed deals (tests, puzzles); None shuffles from the seed
        self.resume = resume
        self.resumed_from = resumed_from  # the resumed game's file, removed once it is saved anew
        #: Where the game left unfinished was saved, if it was (tests and the exit message).
        self.unfinished_saved_to: Path | None = None
        #: The line printed when the app exits (where the game was saved), if any.
        self.exit_message: str | None = None
        #: The records of the games finished in this run, printed when the app closes.
        self.records_saved: list[Path] = []
        self.warm = warm
        #: The rules whose kernels this process has run already (compiled or loaded once is enough).
        self.warmed: set[str] = set()

    def on_mount(self) -> None:
        # A terminal closed under the app (its window, an ssh session, tmux) hangs up our input,
        # and Textual's input thread then spins on the dead descriptor for ever, a whole core, with
        # the game unsaved. Watched only where the app started on a terminal (not headless).
        if self.terminal_alive():
            self.set_interval(1.0, self.check_terminal)
        if not self.show_start_first:
            self.warmed.add(_rules_key(self.config))  # `sixnimmt play` with options warmed them
        if self.show_start_first:
            self.push_screen(StartScreen(self.config))
        else:
            self.push_screen(TableScreen(self.config, self.dealer, self.resume, resumed_from=self.resumed_from))

    def check_terminal(self) -> None:
        """Leave, saving a game under way, once the terminal is gone."""
        if not self.terminal_alive() and self.is_running:
            self.quit_saving()

    async def action_quit(self) -> None:
        """Ctrl+Q / Ctrl+C: leave at once, keeping a game under way."""
        self.quit_saving()

    def quit_saving(self) -> None:
        """Exit; a game under way is saved first and the exit message says how to resume it."""
        table = self.table
        if table is None:
            self.exit()
            return
        path = table.save_unfinished()
        g = translator(table.config.lang).gettext
        if path is not None:
            self.unfinished_saved_to = path
            command = resume_command(path, table.config)
            message = g("Game saved. Resume it with: {command}").format(command=command)
        elif table.session.save_error is not None and not table.session.game.is_over:
            message = g("The game could not be saved: {error}").format(error=table.session.save_error)
        else:
            self.exit()
            return
        self.exit_message = message
        self.exit()

    def farewell(self) -> list[str]:
        """What the terminal keeps once the app has closed, a line each: where each game finished
        in this run was saved and how to watch it, then how to resume a game left unfinished (or
        the error that stopped the app). The caller prints them as they are: Textual's exit message
        would wrap them at the window's width, breaking a path or a command a player copies."""
        g = translator(self.config.lang).gettext
        lines: list[str] = []
        for path in self.records_saved:
            lines.append(g("Record saved to {path}").format(path=path))
            lines.append(g("Watch it again: {command}").format(command=watch_command(path)))
        if self.exit_message is not None:
            lines.append(self.exit_message)
        return lines

    def on_resize(self, event: events.Resize) -> None:
        # The table says it itself, in place of the game (which stays hidden, hands included).
        if self.table is None and (event.size.width < MIN_WIDTH or event.size.height < MIN_HEIGHT):
            message = translator(self.config.lang).gettext(
                "The terminal is too small ({width}x{height}): enlarge it to at least {min_width}x{min_height}."
            )
            self.notify(
                message.format(width=event.size.width, height=event.size.height,
                               min_width=MIN_WIDTH, min_height=MIN_HEIGHT),
                severity="warning",
            )  # fmt: skip

    def _handle_exception(self, error: Exception) -> None:
        """An exception no handler caught (a bug): with ``friendly_errors`` the app saves a game
        under way and exits with one line naming the error and the log file holding its traceback.
        Without it (the tests, ``SIXNIMMT_DEBUG=1``), Textual shows and re-raises it as usual.
        Textual has no public hook for this: ``App._handle_exception`` is where every unhandled
        error of a handler or a worker arrives (checked with Textual 8.2)."""
        if not self.friendly_errors:
            super()._handle_exception(error)
            return
        cause = error.error if isinstance(error, WorkerFailed) else error
        first = self.error is None
        self.error = self.error or cause
        self._return_code = 1
        if not first:
            return  # the first error's line is the one shown
        line = f"sixnimmt play: internal error: {type(cause).__name__}: {cause}"
        log = error_log()
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text("".join(traceback.format_exception(cause)), encoding="utf-8")
            line += f" (details in {log})"
        except OSError:
            pass
        table = self.table
        try:
            saved = table.save_unfinished() if table is not None else None
        except Exception:
            saved = None
        if saved is not None and table is not None:
            line += f". Game saved: {resume_command(saved, table.config)}"
        self.exit_message = line
        self.exit(return_code=1)

    # The screens' requests (they post messages; none imports the app).

    def on_start_screen_start_game(self, message: StartScreen.StartGame) -> None:
        self.start_game(message.config)

    def on_start_screen_language_changed(self, message: StartScreen.LanguageChanged) -> None:
        self.config = replace(self.config, lang=message.lang)

    def on_final_screen_play_again(self, message: FinalScreen.PlayAgain) -> None:
        self.start_game(message.config)

    def on_final_screen_new_settings(self, message: FinalScreen.NewSettings) -> None:
        self.show_start(message.config)

    def on_table_screen_quit_requested(self, _: TableScreen.QuitRequested) -> None:
        self.quit_saving()

    def on_pass_screen_quit_requested(self, _: PassScreen.QuitRequested) -> None:
        self.quit_saving()

    def on_table_screen_finished(self, message: TableScreen.Finished) -> None:
        session = message.session
        if session.saved_to is not None:
            self.records_saved.append(session.saved_to)
        self.switch_screen(FinalScreen(session.config, session.game, session.saved_to, session.save_error))

    def start_game(self, config: GameConfig) -> None:
        """Open a table with ``config``; searching bots first get their kernels ready, with a
        "Preparing the bots" screen while that lasts."""
        rules = config.rules()
        key = _rules_key(config)
        if key not in self.warmed and needs_warm_up(seat.bot for seat in config.seats):
            self.warmed.add(key)
            screen = PreparingScreen(rules, translator(config.lang), self.warm)
            self.push_screen(screen, callback=lambda _: self.start_game(config))
            return
        try:
            table = TableScreen(config)
        except ValueError as error:  # a bot that cannot be built now (an external program gone)
            self.notify(str(error), severity="error")
            return
        self.config = config
        self.switch_screen(table)

    def show_start(self, config: GameConfig) -> None:
        self.config = config
        self.switch_screen(StartScreen(config))

    @property
    def table(self) -> TableScreen | None:
        """The table screen, if a game is being played (the current screen or under a dialog)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                return screen
        return None


def _stdin_is_terminal() -> bool:
    """False once the terminal has hung up: its descriptor then answers terminal queries with an
    error, which ``isatty`` reports as not a terminal."""
    stdin = sys.__stdin__
    try:
        return stdin is not None and os.isatty(stdin.fileno())
    except (OSError, ValueError):
        return False
