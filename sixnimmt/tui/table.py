"""The table: the screen where a game is played. A thin layer over
:class:`~sixnimmt.tui.session.GameSession`, which holds the game and every rule of the interface's
flow: this screen draws the session (:mod:`sixnimmt.tui.panels`, :mod:`sixnimmt.tui.widgets`),
forwards keys, clicks and timers to it, runs the bots and the hint in workers, and lays the small
screens over the table (pass the keyboard, deal summary, rules).

The layout follows the terminal's size (:func:`~sixnimmt.tui.panels.layout_for`) and changes live
on resize: compact at 80x24 (the scores and the log behind ``l``), normal from 100x30, roomy from
160x50 (boxed cards on the rows too, a wider log); below 80x24 the table says what it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import RichLog, Static

from ..core import PASS, CardsRevealed, Dealer, DealScored, DecisionKind, Game, PlayerView
from ..i18n import rules_text
from ..seats.advise import Advice, advise
from .config import HINT_BOT, GameConfig
from .dialogs import DealSummaryScreen, HelpScreen, PassScreen
from .panels import (
    Layout,
    hint_text,
    layout_for,
    open_hands_text,
    options_label,
    prompt_text,
    revealed_text,
    scores_line,
    scores_table,
    status_text,
    table_keys,
    too_small_text,
)
from .render import KEYS_QUIT, key_bar, keys_help, level_name
from .session import BotAnswer, BotJob, GameSession, Preview
from .widgets import BOXED_CARD_WIDTH, CardLine, CardWidget, RowWidget, lines_of_cards

#: Keys that work during the reveal without skipping it.
_KEYS_THAT_KEEP_THE_REVEAL = frozenset({"q", "question_mark", "f1", "l", "h", "ctrl+q", "ctrl+c"})
#: The columns the hand's frame takes from its cards: its border and padding (sixnimmt.tcss: #hand).
_HAND_FRAME = 4
#: The side panel's width by layout, as in sixnimmt.tcss (#side), where it takes room from the play area.
_SIDE_WIDTHS = {Layout.NORMAL: 41, Layout.ROOMY: 65}
#: Seconds per turn of the spinner a thinking bot shows.
SPIN_SECONDS = 0.1


class GameLog(RichLog, can_focus=False):
    """What happened, newest last. Never focused: the arrow keys belong to the cards and rows
    (the mouse wheel still scrolls it)."""


class TableScreen(Screen[None]):
    """One game at the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Card", show=False),
        Binding("right", "move(1)", "Card", show=False),
        Binding("home", "move_to(0)", "First card", show=False),
        Binding("end", "move_to(-1)", "Last card", show=False),
        Binding("up", "row(-1)", "Row", show=False),
        Binding("down", "row(1)", "Row", show=False),
        Binding("enter", "confirm", "Play"),
        Binding("u", "take_back", "Take back"),
        Binding("h", "hint", "Hint"),
        Binding("space", "skip", "Skip animation"),
        Binding("l", "toggle_side", "Scores and log"),
        Binding("question_mark,f1", "help", "Rules"),
        Binding("q", "quit_game", "Quit"),
    ]

    class QuitRequested(Message):
        """``q`` ``q``: leave, saving the game under way (the app decides how)."""

    class Finished(Message):
        """The game is over: the app shows the ranking."""

        def __init__(self, session: GameSession) -> None:
            super().__init__()
            self.session = session

    class BotsAnswered(Message):
        """The bots' answers, from their worker."""

        def __init__(self, answers: list[BotAnswer]) -> None:
            super().__init__()
            self.answers = answers

    class HintReady(Message):
        """The hint worker's advice for ``key`` = (seat, deal, turn), or why there is none."""

        def __init__(self, key: tuple[int, int, int], advice: Advice | None, error: str | None = None) -> None:
            super().__init__()
            self.key, self.advice, self.error = key, advice, error

    def __init__(self, config: GameConfig, dealer: Dealer | None = None, game: Game | None = None,
                 *, resumed_from: Path | None = None) -> None:  # fmt: skip
        """A new game from ``config``, or with ``game`` one resumed from its record."""
        super().__init__()
        self.session = GameSession(config, dealer, game, resumed_from=resumed_from)
        self.config = config
        self.tr = self.session.tr
        self.layout_name = Layout.NORMAL
        self.side_open = False  # the compact layout's side panel, opened with ``l``
        self.hovered: int | None = None  # the card under the pointer, previewed
        self._pause_timer: Timer | None = None
        self._spin_timer: Timer | None = None
        self._quit_armed = False
        self._overlay_open = False
        self._logged = 0  # log lines already written to the log widget
        self._in_sight: object = None  # what the play area was last scrolled to (the cursor's card or row)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        with Horizontal(id="table"):
            with VerticalScroll(id="play-area", can_focus=False):
                yield Static(id="status")
                yield Static(id="scoreline")
                with Vertical(id="rows"):
                    for index in range(4):
                        yield RowWidget(index, self.tr)
                yield Static(id="revealed")
                yield Static(id="prompt")
                yield CardLine(self.tr, id="options")
                yield CardLine(self.tr, id="hand")
                yield Static(id="hint")
                yield Static(id="open-hands")
            with Vertical(id="side"):
                yield Static(id="scores")
                yield GameLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Static(key_bar(self.tr, table_keys(self.session)), id="keys")

    def on_mount(self) -> None:
        self.query_one("#scores", Static).styles.height = self.session.game.players + 1
        self._apply_layout(self.app.size.width, self.app.size.height)
        self.call_after_refresh(self._play_events)

    def on_resize(self, event: events.Resize) -> None:
        self._apply_layout(event.size.width, event.size.height)
        self._redraw()

    def _apply_layout(self, width: int, height: int) -> None:
        layout = layout_for(width, height)
        for name in Layout:
            self.set_class(layout is name, f"-{name.value}")
        self.layout_name = layout
        self.set_class(self.side_open, "-side-open")
        self.query_one("#too-small", Static).update(too_small_text(self.session, width, height))
        self._in_sight = None  # the lines of cards wrap anew: scroll to the cursor again

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the table is hidden (the terminal too small), no key may play what nobody saw;
        # leaving still works.
        return self.layout_name is not Layout.TOO_SMALL or action == "quit_game"

    def action_toggle_side(self) -> None:
        """``l``: the scores and the log. The compact layout hides them until asked; the others
        show them until asked not to."""
        self.side_open = not self.side_open
        self.set_class(self.side_open, "-side-open")
        self._redraw()

    # ------------------------------------------------------------------ the flow of play

    def advance(self) -> None:
        """Ask whoever the game waits for: bots in a worker, the next person on screen."""
        if self.session.animating or self._pause_timer is not None or self._overlay_open:
            return
        step = self.session.advance()
        if step.finished:
            self.session.finish()
            self.post_message(self.Finished(self.session))
            return
        if step.jobs:
            self._think(step.jobs)
            if self._spin_timer is None:  # turn the thinking bots' spinner until they have answered
                self._spin_timer = self.set_interval(SPIN_SECONDS, self._spin)
        if step.pass_to is not None:
            seat = step.pass_to
            self._redraw()
            self._overlay_open = True
            self.app.push_screen(PassScreen(self.session.game.seats[seat], self.tr), callback=lambda _: self._passed(seat))
            return
        self._redraw()

    def _spin(self) -> None:
        """One turn of the spinner next to each thinking bot's name (only the scores are redrawn)."""
        session = self.session
        if not session.thinking and self._spin_timer is not None:
            self._spin_timer.stop()
            self._spin_timer = None
        session.spinner += 1
        if self.is_mounted:
            view = session.shown_view()
            self.query_one("#scoreline", Static).update(scores_line(session, view, self._play_width()))
            self.query_one("#scores", Static).update(scores_table(session, view))

    def _passed(self, seat: int) -> None:
        self._overlay_open = False
        self.session.passed(seat)
        self._play_events()  # what the bots did meanwhile, then on with the game

    @work(thread=True, group="bots")
    def _think(self, jobs: list[BotJob]) -> None:
        """Off the interface's thread (an external program may take seconds to start or answer).
        Each bot's answer is handed over as soon as it is made, so a bot that has answered stops
        showing as thinking while a slower one goes on."""
        for job in jobs:
            answers = self.session.think([job])
            if not answers:
                return  # the bots were released
            self._from_worker(self.BotsAnswered(answers))

    def _from_worker(self, message: Message) -> None:
        """Hand a worker's result to the interface without waiting for it (``post_message`` is
        thread-safe; ``call_from_thread`` would block forever if the app stopped meanwhile)."""
        try:
            self.post_message(message)
        except RuntimeError:
            pass  # the event loop is closed: nobody is waiting for this any more

    def on_table_screen_bots_answered(self, message: BotsAnswered) -> None:
        if not self.is_attached:
            return
        for fault in self.session.bots_answered(message.answers):
            self.notify(fault, severity="error")
        self._play_events()

    def release_bots(self, *, farewell: bool) -> None:
        self.session.release_bots(farewell=farewell)

    # ------------------------------------------------------------------ showing events

    def _play_events(self) -> None:
        """Show queued events one at a time, pausing between placements."""
        if self._pause_timer is not None or self._overlay_open:
            return
        session = self.session
        while (event := session.next_event()) is not None:
            if isinstance(event, DealScored):
                self._redraw()
                self._overlay_open = True
                self.app.push_screen(
                    DealSummaryScreen(event, self.session.game.seats, self.config.target, self.config.count_down,
                                      self.tr, taken=session.deal_summary(event)),
                    callback=self._summary_closed,
                )  # fmt: skip
                return
            pause = session.pause_for(event)
            if pause > 0:
                session.pausing = True
                self._redraw()
                self._pause_timer = self.set_timer(pause, self._pause_over)
                return
            if isinstance(event, CardsRevealed):
                self.hovered = None  # the hand changed under the pointer
        self._redraw()
        self.advance()

    def _pause_over(self) -> None:
        self._pause_timer = None
        self.session.pausing = False
        self._play_events()

    def _summary_closed(self, _: None) -> None:
        self._overlay_open = False
        self._play_events()

    def _skip(self) -> None:
        """Show the rest of the reveal at once."""
        if not self.session.skip():
            return
        if self._pause_timer is not None:
            self._pause_timer.stop()
            self._pause_timer = None
        self.session.pausing = False
        self._play_events()

    # ------------------------------------------------------------------ rendering

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        session = self.session
        view = session.shown_view()
        decision = session.decision()
        width = self.app.size.width
        layout = self.layout_name
        # (the status line is as wide as the play area: beside the side panel but in the compact layout)
        status_width = width - 2 - (0 if layout is Layout.COMPACT else _SIDE_WIDTHS.get(layout, 0))
        self.query_one("#status", Static).update(status_text(session, status_width))
        self.query_one("#scoreline", Static).update(scores_line(session, view, self._play_width()))
        preview = self._preview(view)
        choosing_row = decision is not None and decision.kind is DecisionKind.ROW
        boxed_rows = layout is Layout.ROOMY
        for widget in self.query(RowWidget):
            widget.show(
                session.shown_rows[widget.index],
                boxed=boxed_rows,
                option=choosing_row and decision is not None and widget.index in decision.options,
                cursor=choosing_row and widget.index == session.row_cursor,
                preview=preview is not None and preview.row == widget.index,
                placed=frozenset(session.placed) if session.animating else frozenset(),
            )
        self.query_one("#revealed", Static).update(revealed_text(session, view, self._play_width()))
        self.query_one("#prompt", Static).update(prompt_text(session, view, preview))
        selected = self._draw_hand(view)
        self.query_one("#open-hands", Static).update(open_hands_text(session, view))
        self.query_one("#hint", Static).update(hint_text(session))
        self.query_one("#scores", Static).update(scores_table(session, view))
        log = self.query_one("#log", GameLog)
        for line in session.log[self._logged :]:
            log.write(line)
        self._logged = len(session.log)
        keys = KEYS_QUIT if self.layout_name is Layout.TOO_SMALL else table_keys(session)
        self.query_one("#keys", Static).update(key_bar(self.tr, keys))
        self.call_after_refresh(self._keep_in_sight, selected)

    def _preview(self, view: PlayerView) -> Preview | None:
        """Where the card under the pointer would go, else the card under the keyboard's cursor."""
        session = self.session
        if session.viewer is None:
            return None
        number = self.hovered
        if number is None:
            options = session.card_options()
            decision = session.decision()
            if not options or decision is None or decision.kind is not DecisionKind.CARD or session.error:
                return None
            number = session.confirming or options[min(session.cursor, len(options) - 1)]
        if number == PASS or (number not in view.hand and number not in session.card_options()):
            return None
        return session.preview(number)

    def _play_width(self) -> int:
        """The columns inside the play area. From the terminal's width (not the play area's,
        unknown until the layout has run, so that the first drawing would depend on timing): less
        the side panel where it stands beside the play area, the padding, and a scrollbar's column."""
        width = self.app.size.width - 3
        if self.layout_name is not Layout.COMPACT and not self.side_open:
            width -= _SIDE_WIDTHS.get(self.layout_name, 0)
        return width

    def _boxed(self, numbers: Sequence[int], label: str | None, width: int) -> bool:
        """Boxed cards where they all fit on one line (else chips, wrapped as they need), and the
        layout has the height."""
        if self.layout_name is Layout.COMPACT:
            return False
        label_width = Text(label).cell_len + 1 if label is not None else 0
        return len(lines_of_cards([BOXED_CARD_WIDTH] * len(numbers), label_width, width)) <= 1

    def _draw_hand(self, view: PlayerView) -> int | None:
        """Draw the options and the hand; returns the card under the cursor, if one is shown."""
        session = self.session
        g = self.tr.gettext
        options_line = self.query_one("#options", CardLine)
        hand_line = self.query_one("#hand", CardLine)
        options = session.card_options()
        label = options_label(session, session.decision())
        selected = options[min(session.cursor, len(options) - 1)] if options else None
        if session.confirming is not None:
            selected = session.confirming
        width = self._play_width()
        if label is not None and options:
            options_line.display = True
            options_line.show(options, boxed=self._boxed(options, label, width), width=width,
                              selected=selected, label=label)  # fmt: skip
        else:
            options_line.display = False
        hand_width = width - _HAND_FRAME
        # The hand's name is its frame's title, so that its cards have the whole width.
        hand_line.border_title = g("Your hand:").rstrip(" :")
        if session.viewer is None:
            hand_line.show((), boxed=False, label=g("(hands are hidden)"))
            return selected if label is not None else None
        if view.deal != session.shown_deal:
            hand_line.show((), boxed=False)  # the next deal's hand comes with its deal
            return selected if label is not None else None
        on_hand = label is None
        hand_line.show(view.hand, boxed=self._boxed(view.hand, None, hand_width), width=hand_width,
                       selected=selected if on_hand else None, marked=view.my_choices)  # fmt: skip
        return selected

    def _keep_in_sight(self, selected: int | None) -> None:
        """Scroll the play area to the card under the cursor (or the row, when choosing one) when
        the cursor has moved or the layout changed: what the cursor is on is always in sight."""
        decision = self.session.decision()
        target: Widget | None = None
        if decision is not None and decision.kind is DecisionKind.ROW:
            key: object = ("row", self.session.row_cursor)
            target = list(self.query(RowWidget))[self.session.row_cursor]
        else:
            key = ("card", selected, self.session.shown_deal, self.session.shown_turn)
            if selected is not None:
                for line in self.query(CardLine):
                    target = target or (line.card(selected) if line.display else None)
        if target is None or key == self._in_sight:
            return
        self._in_sight = key
        target.scroll_visible(animate=False, immediate=False)

    # ------------------------------------------------------------------ keys and the mouse

    def on_key(self, event: events.Key) -> None:
        if self.layout_name is Layout.TOO_SMALL and event.key not in ("q", "ctrl+q", "ctrl+c"):
            event.stop()
            event.prevent_default()
            return
        if event.key != "q":
            self._quit_armed = False
        if self.session.animating and event.key not in _KEYS_THAT_KEEP_THE_REVEAL:
            # Any key skips the reveal; Enter and Space only skip (nothing is played blind), the
            # others then do what they do, and a typed number waits for the next choice.
            self._skip()
            if event.key in ("enter", "space"):
                event.stop()
                event.prevent_default()
                return
        if event.key == "backspace":
            event.stop()
            self.session.backspace()
        elif event.key == "escape":
            event.stop()
            self.session.clear_typed()
        elif event.character is not None and event.character.isdigit():
            event.stop()
            self.session.type_digit(event.character)
        else:
            return
        self._redraw()

    def action_move(self, step: int) -> None:
        self.session.move(step)
        self._redraw()

    def action_move_to(self, index: int) -> None:
        self.session.move_to(index)
        self._redraw()

    def action_row(self, step: int) -> None:
        self.session.move_row(step)
        self._redraw()

    def action_confirm(self) -> None:
        if self.session.animating:
            self._skip()
            return
        if self.session.confirm():
            self._play_events()
        else:
            self._redraw()

    def action_take_back(self) -> None:
        self.session.take_back()
        self._redraw()

    def action_skip(self) -> None:
        self._skip()

    def on_card_widget_clicked(self, message: CardWidget.Clicked) -> None:
        if self.session.click_card(message.number):
            self._play_events()
        else:
            self._redraw()

    def on_card_widget_hovered(self, message: CardWidget.Hovered) -> None:
        self.hovered = message.number
        self._redraw()

    def on_row_widget_clicked(self, message: RowWidget.Clicked) -> None:
        if self.session.click_row(message.row):
            self._play_events()

    def action_hint(self) -> None:
        request = self.session.hint_request()
        if request is None:
            self.notify(self.tr.gettext("No hint now: it is not your decision."))
            return
        self.notify(self.tr.gettext("Asking the {bot} bot…").format(bot=level_name(HINT_BOT, self.tr)), timeout=2)
        self._advise(*request)

    @work(thread=True, group="hint", exclusive=True)
    def _advise(self, seat: int, view: PlayerView) -> None:
        key = (seat, view.deal, view.turn)
        try:
            advice = advise(view, HINT_BOT, seed=view.turn)
        except Exception as error:
            self._from_worker(self.HintReady(key, None, str(error) or type(error).__name__))
            return
        self._from_worker(self.HintReady(key, advice))

    def on_table_screen_hint_ready(self, message: HintReady) -> None:
        if message.error is not None:
            self.notify(self.tr.gettext("No hint: {error}").format(error=message.error), severity="error")
        elif message.advice is not None and self.session.hint_ready(message.key, message.advice):
            self._redraw()

    def action_help(self) -> None:
        self.app.push_screen(
            HelpScreen(rules_text(self.config.lang, self.session.game.rules.variant.value), keys_help(self.tr), self.tr)
        )

    def action_quit_game(self) -> None:
        # A stray q must not throw a game away: the first press asks, the second quits.
        if self._quit_armed:
            self.post_message(self.QuitRequested())
            return
        self._quit_armed = True
        self.notify(self.tr.gettext("Press q again to quit this game."), timeout=3)

    # ------------------------------------------------------------------ the end

    def save_unfinished(self) -> Path | None:
        return self.session.save_unfinished()

    def on_unmount(self) -> None:
        self.session.save_unfinished()  # the app closing some other way than q: keep the game all the same
        self.session.release_bots(farewell=False)

