"""The start screen: who plays (bots and their levels, or friends at the same keyboard), which
variant, when the game ends, how scores are counted, and the language."""

from __future__ import annotations

import gettext
from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from ..i18n import LANGUAGES, N_, rules_text, translator
from .config import (
    BOT_LEVELS,
    BOT_NAMES,
    DEFAULT_NAME,
    EXTERNAL,
    HUMAN,
    TUI_VARIANTS,
    GameConfig,
    Seat,
    is_external,
)
from .dialogs import HelpScreen
from .render import KEYS_HELP_START, key_bar, keys_help, level_name, variant_name

KEYS_START = (("Tab", N_("next field")), ("Ctrl+S", N_("start the game")), ("F1", N_("rules")), ("Esc", N_("quit")))


class StartScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start"),
        Binding("f1", "rules", "Rules"),
        Binding("escape", "quit_app", "Quit"),
    ]

    class StartGame(Message):
        """The form makes a game: the app deals it."""

        def __init__(self, config: GameConfig) -> None:
            super().__init__()
            self.config = config

    class LanguageChanged(Message):
        def __init__(self, lang: str) -> None:
            super().__init__()
            self.lang = lang

    def __init__(self, config: GameConfig) -> None:
        super().__init__()
        self.config = config
        #: The settings the screen opened with: leaving after changing them asks first.
        self.initial = config
        self._quit_armed = False

    @property
    def _tr(self) -> gettext.NullTranslations:
        return translator(self.config.lang)

    def compose(self) -> ComposeResult:
        tr = translator(self.config.lang)
        g = tr.gettext
        config = self.config
        levels = {
            HUMAN: g("a person at this keyboard"),
            **{level: g("bot: {level}").format(level=level_name(level, tr)) for level in BOT_LEVELS},
            EXTERNAL: g("bot: an external program"),
        }
        with VerticalScroll(id="start-box"):
            yield Static(g("6 nimmt! — new game"), id="start-title")
            with Horizontal(classes="field"):
                yield Label(g("Language"))
                yield Select(
                    [(name, code) for code, name in LANGUAGES.items()],
                    value=config.lang, allow_blank=False, compact=True, id="lang",
                )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label(g("Your name"))
                yield Input(config.seats[0].name, id="name", compact=True)
            with Horizontal(classes="field"):
                yield Label(g("Players"))
                yield Select(
                    [(str(n), n) for n in range(2, 11)], value=len(config.seats),
                    allow_blank=False, compact=True, id="players",
                )  # fmt: skip
            with Vertical(id="seats"):
                for index, seat in enumerate(config.seats[1:], start=1):
                    external = seat.bot is not None and is_external(seat.bot)
                    with Horizontal(classes="field"):
                        yield Label(g("Seat {number}").format(number=index + 1))
                        yield Select(
                            [(label, key) for key, label in levels.items()],
                            value=EXTERNAL if external else seat.bot or HUMAN, allow_blank=False,
                            compact=True, id=f"seat-{index}", classes="seat-select",
                        )  # fmt: skip
                        yield Input(seat.name, id=f"seat-name-{index}", classes="seat-name", compact=True)
                    # The program's command line, shown only for an external bot.
                    with Horizontal(classes="field", id=f"seat-cmd-field-{index}") as command_field:
                        command_field.display = external
                        yield Label("")
                        yield Input(
                            seat.bot.partition(":")[2] if external and seat.bot else "",
                            placeholder=g("command line, e.g. python3 mybot.py"),
                            id=f"seat-cmd-{index}", compact=True,
                        )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label(g("Variant"))
                yield Select(
                    [(variant_name(v, tr), v) for v in TUI_VARIANTS],
                    value=config.variant, allow_blank=False, compact=True, id="variant",
                )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label(g("Game ends at"))
                yield Input(str(config.target or ""), id="target", type="integer", compact=True)
            with Horizontal(classes="field"):
                yield Label(g("Ends when a total"))
                yield Select(
                    [(g("reaches the target"), "at-least"), (g("passes the target"), "above")],
                    value=config.end, allow_blank=False, compact=True, id="end",
                )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label(g("Or after deals"))
                yield Input(
                    str(config.deals or ""), id="deals", type="integer", placeholder=g("no limit"), compact=True
                )
            with Horizontal(classes="field"):
                yield Label(g("Scores"))
                yield Select(
                    [(g("count bullheads up from 0"), False), (g("count points down from the target"), True)],
                    value=config.count_down, allow_blank=False, compact=True, id="count",
                )  # fmt: skip
            yield Static("", id="start-error")
            with Horizontal(id="start-buttons"):
                yield Button(g("Start"), variant="primary", id="start")
                yield Button(g("Rules"), id="rules")
                yield Button(g("Quit"), id="quit")
        yield Static(key_bar(tr, KEYS_START), id="keys")

    def on_mount(self) -> None:
        # The first field, so that Tab walks the form in its order and reaches the buttons last.
        self.query_one("#lang", Select).focus()

    # ------------------------------------------------------------------ reading the form

    def _seats(self, players: int) -> tuple[Seat, ...]:
        """Each seat's kind and name as filled in; seats the form does not show yet get a medium bot."""
        name = self.query_one("#name", Input).value.strip() or self._tr.gettext(DEFAULT_NAME)
        seats = [Seat(name)]
        typed = {w.value.strip() for w in self.query(".seat-name").results(Input)}
        spare_names = iter(n for n in BOT_NAMES if n != name and n not in typed)
        for index in range(1, players):
            kinds = self.query(f"#seat-{index}")
            kind = str(kinds.first(Select).value) if kinds else "medium"
            names = self.query(f"#seat-name-{index}")
            seat_name = names.first(Input).value.strip() if names else ""
            if not seat_name:
                seat_name = (
                    self._tr.gettext("Player {number}").format(number=index + 1)
                    if kind == HUMAN
                    else next(spare_names)
                )
            if kind == EXTERNAL:
                commands = self.query(f"#seat-cmd-{index}")
                command = commands.first(Input).value.strip() if commands else ""
                if not command:
                    raise ValueError(
                        self._tr.gettext("Seat {number}: type the program's command line").format(number=index + 1)
                    )
                kind = f"{EXTERNAL}:{command}"
            seats.append(Seat(seat_name, None if kind == HUMAN else kind))
        return tuple(seats)

    def read_form(self) -> GameConfig:
        """The settings as filled in; ``ValueError`` with a one-line reason if they do not make a game."""
        g = translator(self.config.lang).gettext

        def number(widget_id: str, label: str) -> int | None:
            text = self.query_one(f"#{widget_id}", Input).value.strip()
            if not text:
                return None
            if not text.isdigit() or int(text) < 1:
                raise ValueError(g("{label} must be a whole number above 0").format(label=label))
            return int(text)

        players = int(str(self.query_one("#players", Select).value))
        target = number("target", g("Game ends at"))
        deals = number("deals", g("Or after deals"))
        if target is None and deals is None:
            raise ValueError(g("Set a target score or a number of deals"))
        return replace(
            self.config,
            seats=self._seats(players),
            variant=str(self.query_one("#variant", Select).value),
            target=target,
            end=str(self.query_one("#end", Select).value),
            deals=deals,
            count_down=bool(self.query_one("#count", Select).value),
            lang=str(self.query_one("#lang", Select).value),
        )

    def _remember(self, **changes: object) -> None:
        """Keep what was typed so far across a redraw (new language or number of players)."""
        try:
            config = self.read_form()
        except ValueError:
            config = self.config
        players = int(changes.pop("players", len(config.seats)))  # type: ignore[call-overload]
        seats = list(self._seats(players)) if config is not self.config else list(config.seats[:players])
        while len(seats) < players:  # only when the form could not be read
            used = {s.name for s in seats}
            seats.append(Seat(next(n for n in BOT_NAMES if n not in used), "medium"))
        self.config = replace(config, seats=tuple(seats), **changes)  # type: ignore[arg-type]
        self.refresh(recompose=True)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "lang" and event.value != self.config.lang:
            self._remember(lang=str(event.value))
            self.post_message(self.LanguageChanged(str(event.value)))
        elif event.select.id == "players" and event.value != len(self.config.seats):
            self._remember(players=event.value)
        elif event.select.id is not None and event.select.id.startswith("seat-"):
            index = event.select.id.removeprefix("seat-")
            fields = self.query(f"#seat-cmd-field-{index}")
            if fields:
                fields.first().display = event.value == EXTERNAL

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "rules":
            self.action_rules()
        elif event.button.id == "quit":
            self.action_quit_app()

    def action_start(self) -> None:
        try:
            config = self.read_form()
        except ValueError as error:
            self.query_one("#start-error", Static).update(str(error))
            return
        self.post_message(self.StartGame(config))

    def action_rules(self) -> None:
        variant = str(self.query_one("#variant", Select).value)
        lang = str(self.query_one("#lang", Select).value)
        self.app.push_screen(HelpScreen(rules_text(lang, variant), keys_help(translator(lang)), translator(lang), KEYS_HELP_START))

    def changed(self) -> bool:
        """Whether the form differs from the settings it opened with."""
        try:
            return self.read_form() != self.initial
        except ValueError:
            return True  # a half-typed field is a change too

    def action_quit_app(self) -> None:
        """Esc or Quit: leave at once if nothing was changed; after a change the first press asks."""
        if self._quit_armed or not self.changed():
            self.app.exit()
            return
        self._quit_armed = True
        self.notify(self._tr.gettext("The settings were changed: press Esc or Quit again to leave."), timeout=4)

    def on_input_changed(self, _: Input.Changed) -> None:
        self._quit_armed = False  # a new change: the next quit asks again
