"""The screen shown while the searching bots' kernels are compiled, before the first table of a
game started from the start screen (``sixnimmt play`` with options does the same before the app
opens, with a line on the terminal). The first time, compiling takes about a minute on a small
machine; afterwards numba loads the kernels from its cache in well under a second, so the screen
flashes by, if it shows at all."""

from __future__ import annotations

import gettext
import time
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from ..core import Rules

#: ``warm(rules)``: runs the kernels the game's searchers will run (:func:`.warmup.warm_up`).
Warm = Callable[[Rules], object]


class PreparingScreen(ModalScreen[None]):
    """"Preparing the bots…" with the seconds spent, until ``warm(rules)`` has run (in a thread)."""

    class Ready(Message):
        """The kernels are ready."""

    def __init__(
        self,
        rules: Rules,
        tr: gettext.NullTranslations,
        warm: Warm,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.rules = rules
        self.tr = tr
        self.warm = warm
        self.clock = clock
        self.started = clock()

    def compose(self) -> ComposeResult:
        with Vertical(id="preparing-box"):
            yield Static(self.line(), id="preparing-text")

    def line(self) -> str:
        seconds = round(self.clock() - self.started)
        return self.tr.gettext(
            "Preparing the bots (compiling the search, first run only)… {seconds} s"
        ).format(seconds=seconds)

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)
        self.prepare()

    def tick(self) -> None:
        self.query_one("#preparing-text", Static).update(self.line())

    @work(thread=True, group="warm-up")
    def prepare(self) -> None:
        self.warm(self.rules)
        try:
            self.post_message(self.Ready())
        except RuntimeError:
            pass  # the app stopped meanwhile

    def on_preparing_screen_ready(self, _: Ready) -> None:
        self.dismiss(None)
