"""The table: where a game is played, from the first deal to the final ranking.

The game lives in the engine's :class:`~sixnimmt.core.Game`; this screen only renders
``game.view(viewer)`` (the person at the keyboard, or nobody while the keyboard changes hands) and
sends their answers back with ``game.act``. Bots think in a worker thread on a copy of their own
view, so the interface never waits for them. Every answer's events are replayed one by one with a
short pause, so a player can follow the reveal and see why a row was taken.
"""

from __future__ import annotations

import gettext
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import RichLog, Static

from ..bots import Bot
from ..core import (
    PASS,
    CardPlaced,
    CardShown,
    CardsRevealed,
    Dealer,
    DealScored,
    DealStarted,
    Decision,
    DecisionKind,
    DraftPicked,
    Event,
    Game,
    IllegalMoveError,
    Phase,
    PlayerView,
    RowTaken,
    Variant,
)
from ..core.record import dumps
from ..i18n import N_, rules_text, translator
from ..seats import make_bot
from ..seats.advise import Advice, advise
from .config import HINT_BOT, GameConfig, is_external
from .dialogs import DealSummaryScreen, HelpScreen, PassScreen
from .final import FinalScreen
from .render import (
    Rows,
    apply_event,
    card,
    cards_line,
    event_line,
    legend,
    option_chip,
    row_bullheads,
    row_line,
    score_value,
)


def variant_name(variant: str, tr: gettext.NullTranslations) -> str:
    names = {
        "standard": tr.gettext("Standard"),
        "tactics": tr.gettext("Tactics"),
        "logic": tr.gettext("Logic"),
        "professional": tr.gettext("Professional"),
        "tournament": tr.gettext("Tournament"),
        "open": tr.gettext("Open"),
        "double": tr.gettext("Double"),
        "nifty": tr.gettext("Nifty"),
        "hand": tr.gettext("Hand"),
    }
    return names.get(variant, variant.capitalize())


#: The key bar at the bottom of the table (our own, so that it is translated): key -> what it does.
KEYS_TABLE: tuple[tuple[str, str], ...] = (
    ("Enter", N_("play")),
    ("← →", N_("card")),
    ("h", N_("hint")),
    ("Space", N_("skip")),
    ("?", N_("rules")),
    ("q", N_("quit")),
)


def key_bar(tr: gettext.NullTranslations, keys: tuple[tuple[str, str], ...]) -> Text:
    """``Enter play  h hint  ...`` in the player's language."""
    bar = Text()
    for key, what in keys:
        bar.append(f" {key} ", style="bold reverse")
        bar.append(f" {tr.gettext(what)}  ")
    return bar


def level_name(bot: str, tr: gettext.NullTranslations) -> str:
    """A bot level in the player's language (other registry names as they are)."""
    if is_external(bot):
        return tr.gettext("program")
    levels = {
        "easy": tr.gettext("easy"),
        "medium": tr.gettext("medium"),
        "hard": tr.gettext("hard"),
        "expert": tr.gettext("expert"),
        "random": tr.gettext("random"),
    }
    return levels.get(bot, bot)


def keys_help(tr: gettext.NullTranslations) -> str:
    """The keys, as Markdown, for the top of the help screen."""
    g = tr.gettext
    lines = [
        "# " + g("Keys"),
        "",
        "| " + g("Key") + " | " + g("What it does") + " |",
        "|---|---|",
        "| ← → Home End | " + g("choose a card") + " |",
        "| 0-9 | " + g("type a card's number (0: pass, where you may)") + " |",
        "| ↑ ↓ / 1-4 | " + g("choose a row, when you must take one") + " |",
        "| Enter | " + g("play the card / take the row") + " |",
        "| h | " + g("hint: what the hard bot would play") + " |",
        "| Space | " + g("skip the animation") + " |",
        "| ? | " + g("this help") + " |",
        "| q | " + g("quit") + " |",
    ]
    return "\n".join(lines)


class GameLog(RichLog, can_focus=False):
    """What happened, newest last. Never focused: the arrow keys belong to the cards and rows
    (the mouse wheel still scrolls it)."""


@dataclass(frozen=True, slots=True)
class BotAnswer:
    seat: int
    kind: DecisionKind
    value: int
    error: str | None = None


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
        Binding("h", "hint", "Hint"),
        Binding("space", "skip", "Skip animation"),
        Binding("question_mark,f1", "help", "Rules"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, config: GameConfig, dealer: Dealer | None = None, game: Game | None = None) -> None:
        """A new game from ``config``, or with ``game`` one resumed from its record (its seats
        named as in ``config``) that goes on where it stopped."""
        super().__init__()
        self.config = config
        self.tr = translator(config.lang)
        names = [seat.name for seat in config.seats]
        if game is not None and list(game.seats) != names:
            raise ValueError(f"the seats {names} are not the resumed game's {list(game.seats)}")
        self.resumed = game is not None
        self.game = game if game is not None else Game(config.rules(), names, seed=config.seed, dealer=dealer)
        base_seed = config.seed if config.seed is not None else time.time_ns()
        self.bots: dict[int, Bot] = {
            seat: make_bot(spec.bot, seed=base_seed + seat)
            for seat, spec in enumerate(config.seats)
            if spec.bot is not None
        }
        # The public events each bot has yet to hear (Bot.notify), handed to its worker with its
        # next decision: an external program learns what happened in the order it happened.
        # A resumed game's bots start from where it stands (an external program is told the deal
        # under way when it starts), not from its history.
        history = [] if self.resumed else self.game.events
        self.inbox: dict[int, list[Event]] = {seat: list(history) for seat in self.bots}
        self.asked: set[int] = set()  # bots asked at least once (an external one is running)
        self._bots_lock = threading.Lock()  # the interface and a worker may both release the bots
        self.humans = config.humans
        # Whose hidden information is on screen: the one person, or nobody in pass-and-play until
        # the next person has the keyboard.
        self.viewer: int | None = None if config.pass_and_play else self.humans[0]
        self.asking: int | None = None  # the person whose decision the screen is asking for
        self.thinking: set[int] = set()  # bots working on an answer
        self.queue: deque[Event] = deque([] if self.resumed else self.game.events)  # events still to be shown
        self.moves_made = 0  # answers given at this keyboard: none, and there is nothing to save on quit
        self.unfinished_saved_to: Path | None = None
        self.shown_rows: Rows = [[] for _ in range(4)]
        self.revealed: tuple[tuple[int, int], ...] | None = None  # (seat, card) shown this turn
        self.shown_deal = 0  # the deal and turn on screen, which lag the game's during the reveal
        self.shown_turn = 0
        self.placed: set[int] = set()
        self.cursor = 0
        self.row_cursor = 0
        self.typed = ""
        self.hint: Advice | None = None
        self.hint_for: tuple[int, int, int] | None = None  # (seat, deal, turn) the hint answers
        self.skipping = False
        self.saved_to: Path | None = None
        self.save_error: str | None = None
        self._pause_timer: Timer | None = None
        self._quit_armed = False
        self._overlay_open = False

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Horizontal(id="table"):
            with Vertical(id="play-area"):
                yield Static(id="status")
                yield Static(id="rows")
                yield Static(id="revealed")
                yield Static(id="prompt")
                yield Static(id="hand")
                yield Static(id="open-hands")
                yield Static(id="hint")
            with Vertical(id="side"):
                yield Static(id="scores")
                yield GameLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Static(key_bar(self.tr, KEYS_TABLE), id="keys")

    def on_mount(self) -> None:
        # A header and one line per player; fixed, because the table's measured height can go stale.
        self.query_one("#scores", Static).styles.height = self.game.players + 1
        if self.resumed:
            self.call_after_refresh(self._show_history)
        self.call_after_refresh(self._play_events)

    def _show_history(self) -> None:
        """A resumed game: the table as it stands, the log as it happened, without the animation
        and the deal summaries."""
        for event in self.game.events:
            self._follow(event)
        self.query_one("#log", RichLog).write(
            Text(self.tr.gettext("The game goes on where it stopped."), style="bold")
        )
        self._redraw()

    # ------------------------------------------------------------------ the flow of play

    def advance(self) -> None:
        """Ask whoever the game waits for: bots in a worker, the next person on screen."""
        if self.queue or self._pause_timer is not None or self._overlay_open:
            return
        game = self.game
        if game.is_over:
            self._finish()
            return
        pending = game.pending()
        jobs = [
            (d.seat, game.view(d.seat), self._take_inbox(d.seat))
            for d in pending
            if d.seat in self.bots and d.seat not in self.thinking
        ]
        if jobs:
            self.thinking.update(seat for seat, _, _ in jobs)
            self.asked.update(seat for seat, _, _ in jobs)
            self._think(jobs)
        people = [d for d in pending if d.seat in self.humans]
        if self.asking is not None and any(d.seat == self.asking for d in people):
            self._redraw()
            return
        self.asking = None
        if not people:
            if self.config.pass_and_play:
                self.viewer = None
            self._redraw()
            return
        decision = people[0]
        if self._needs_hand(decision) and decision.seat != self.viewer:
            # The next person's hand must not appear until they have the keyboard.
            self.viewer = None
            self._redraw()
            self._overlay_open = True
            self.app.push_screen(
                PassScreen(game.seats[decision.seat], self.tr),
                callback=lambda _: self._passed(decision.seat),
            )
            return
        self._ask(decision)

    def _needs_hand(self, decision: Decision) -> bool:
        """In pass-and-play, whether answering shows the person's secret hand (so the keyboard must
        change hands first): choosing cards, ordering them (Nifty), keeping cards (Hand). A row
        choice needs no hand, and after an open draft every hand is public anyway."""
        private = decision.kind in (DecisionKind.CARD, DecisionKind.ORDER, DecisionKind.KEEP)
        return self.config.pass_and_play and private and not self.game.rules.hands_public

    def _passed(self, seat: int) -> None:
        self._overlay_open = False
        decision = self.game.decision_for(seat)
        if decision is not None:
            self._ask(decision)
        self._play_events()  # what the bots did meanwhile, then on with the game

    def _ask(self, decision: Decision) -> None:
        self.asking = decision.seat
        if not self.config.pass_and_play or self._needs_hand(decision) or self.game.rules.hands_public:
            self.viewer = decision.seat
        else:
            self.viewer = None  # a row choice in pass-and-play: the table, but no hand
        self.typed = ""
        if decision.kind is DecisionKind.ROW:
            # Start on the cheapest row: the usual answer, though any row may be taken.
            self.row_cursor = min(decision.options, key=lambda r: row_bullheads(self.game.rows[r]))
        else:
            self.cursor = min(self.cursor, len(decision.options) - 1)
        self._redraw()

    def _answer(self, seat: int, value: int) -> None:
        """Send a person's or a bot's answer to the engine, then show what it caused."""
        self.hint = None
        self.moves_made += 1
        if seat == self.asking:
            self.asking = None
        events = self._act(seat, value)
        if self.config.pass_and_play:
            follow_up = self.game.decision_for(seat)
            continues = follow_up is not None and self._needs_hand(follow_up)
            if not continues or any(isinstance(e, CardsRevealed) for e in events):
                self.viewer = None  # the hand leaves the screen with the answer
        self._play_events()

    def _act(self, seat: int, value: int) -> list[Event]:
        """``game.act``, queueing the events to show."""
        events = self.game.act(seat, value)
        for inbox in self.inbox.values():
            inbox.extend(events)
        self.queue.extend(events)
        return events

    def _take_inbox(self, seat: int) -> list[Event]:
        events, self.inbox[seat] = self.inbox[seat], []
        return events

    @work(thread=True, group="bots")
    def _think(self, jobs: list[tuple[int, PlayerView, list[Event]]]) -> None:
        """Off the interface's thread (an external program may take seconds to start or answer):
        each bot hears what happened since it last played, then answers from its own view."""
        answers: list[BotAnswer] = []
        for seat, view, heard in jobs:
            assert view.decision is not None
            bot = self.bots.get(seat)
            if bot is None:
                return  # the bots were released: the game is over or the screen is closing
            faults = getattr(bot, "faults", [])  # an external bot's incidents (sixnimmt.protocol)
            known_faults = len(faults)
            try:
                for event in heard:
                    bot.notify(event, view)
                value = bot.decide(view)
                problems = [getattr(fault, "message", str(fault)) for fault in faults[known_faults:]]
                answers.append(BotAnswer(seat, view.decision.kind, value, "; ".join(problems) or None))
            except Exception as error:
                message = str(error) or type(error).__name__
                answers.append(BotAnswer(seat, view.decision.kind, view.decision.options[0], message))
        self._from_worker(self.BotsAnswered(answers))

    def _from_worker(self, message: Message) -> None:
        """Hand a worker's result to the interface without waiting for it (``post_message`` is
        thread-safe; ``call_from_thread`` would block forever if the app stopped meanwhile)."""
        try:
            self.post_message(message)
        except RuntimeError:
            pass  # the event loop is closed: nobody is waiting for this any more

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

    def on_table_screen_bots_answered(self, message: BotsAnswered) -> None:
        self._bots_answered(message.answers)

    def on_table_screen_hint_ready(self, message: HintReady) -> None:
        if message.error is not None:
            self.notify(self.tr.gettext("No hint: {error}").format(error=message.error), severity="error")
        elif message.advice is not None:
            self._hint_ready(message.key[0], message.key, message.advice)

    def release_bots(self, *, farewell: bool) -> None:
        """Close every bot once (external programs are stopped, so no process outlives the game).
        With ``farewell`` the bots first hear the game's last events (an external program gets
        ``game-end``); only those already playing, so that no program is started just to say bye."""
        with self._bots_lock:
            bots, self.bots = self.bots, {}
        for seat, bot in bots.items():
            try:
                if farewell and seat in self.asked:
                    view = self.game.view(seat)
                    for event in self._take_inbox(seat):
                        bot.notify(event, view)
            except Exception:
                pass
            try:
                bot.close()
            except Exception:
                pass

    def _bots_answered(self, answers: list[BotAnswer]) -> None:
        if not self.is_attached:
            return
        for answer in answers:
            self.thinking.discard(answer.seat)
            decision = self.game.decision_for(answer.seat)
            if decision is None or decision.kind is not answer.kind:
                continue  # the game moved on (cannot happen in normal play; never act on stale input)
            name = self.game.seats[answer.seat]
            if answer.error is not None:
                self.notify(f"{name}: {answer.error}", severity="error")
            try:
                self._act(answer.seat, answer.value)
            except IllegalMoveError as error:
                # A bot with a bug: the engine refused its move and changed nothing. The game goes on
                # with the first legal option, as for a bot that failed to answer.
                self.notify(f"{name}: {error}", severity="error")
                self._act(answer.seat, decision.options[0])
        self._play_events()

    # ------------------------------------------------------------------ showing events

    def _pause_for(self, event: Event) -> float:
        if self.skipping or self.config.delay <= 0:
            return 0.0
        if isinstance(event, CardsRevealed):
            return self.config.delay * 2
        if isinstance(event, (CardPlaced, RowTaken)):
            return self.config.delay
        if isinstance(event, DraftPicked):
            return self.config.delay / 3
        return 0.0

    def _play_events(self) -> None:
        """Show queued events one at a time, pausing between placements."""
        if self._pause_timer is not None or self._overlay_open:
            return
        while self.queue:
            event = self.queue.popleft()
            self._follow(event)
            if isinstance(event, DealScored):
                self._redraw()
                self._overlay_open = True
                self.app.push_screen(
                    DealSummaryScreen(
                        event, self.game.seats, self.config.target, self.config.count_down, self.tr
                    ),
                    callback=self._summary_closed,
                )
                return
            pause = self._pause_for(event)
            if pause > 0:
                self._redraw()
                self._pause_timer = self.set_timer(pause, self._pause_over)
                return
        self.skipping = False
        self._redraw()
        self.advance()

    def _pause_over(self) -> None:
        self._pause_timer = None
        self._play_events()

    def _summary_closed(self, _: None) -> None:
        self._overlay_open = False
        self._play_events()

    def _follow(self, event: Event) -> None:
        apply_event(self.shown_rows, event)
        if isinstance(event, CardsRevealed):
            self.revealed = event.seat_cards
            self.placed = set()
            self.shown_turn = event.turn
        elif isinstance(event, CardPlaced):
            self.placed.add(event.card)
        elif isinstance(event, CardShown):
            self.revealed = None  # Open: this turn's face-up cards replace the last turn's
        elif isinstance(event, DealStarted):
            self.revealed = None
            self.shown_deal, self.shown_turn = event.deal, 0
        line = event_line(event, self.game.seats, self.tr)
        if line is not None and self.is_mounted:
            self.query_one("#log", RichLog).write(line)

    # ------------------------------------------------------------------ rendering

    def _decision(self) -> Decision | None:
        return None if self.asking is None else self.game.decision_for(self.asking)

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        g = self.tr.gettext
        game = self.game
        view = game.view(self.viewer)
        decision = self._decision()
        animating = bool(self.queue) or self._pause_timer is not None

        if not animating:
            self.shown_deal, self.shown_turn = view.deal, view.turn
        status = Text(f"6 nimmt!  {variant_name(game.rules.variant.value, self.tr)}", style="bold")
        status.append("  ·  " + g("Deal {number}").format(number=self.shown_deal + 1))
        if game.phase is Phase.DRAFT and not animating:
            status.append("  ·  " + g("Open draft"))
        elif not game.is_over and game.rules.variant is Variant.HAND:
            status.append("  ·  " + g("Turn {number}").format(number=self.shown_turn + 1))
        elif not game.is_over:
            total = game.turns_per_deal
            status.append(
                "  ·  " + g("Turn {number} of {total}").format(number=min(self.shown_turn + 1, total), total=total)
            )
        if game.rules.target is not None:
            status.append("  ·  " + g("Game ends at {target}").format(target=game.rules.target))
        if game.rules.deals is not None and game.rules.variant is not Variant.HAND:
            at_most = self.tr.ngettext("{count} deal at most", "{count} deals at most", game.rules.deals)
            status.append("  ·  " + at_most.format(count=game.rules.deals))
        status.append("\n")
        status.append_text(legend(self.tr))
        self.query_one("#status", Static).update(status)

        choosing_row = decision is not None and decision.kind is DecisionKind.ROW
        rows = [
            row_line(
                i,
                row,
                self.tr,
                option=choosing_row and decision is not None and i in decision.options,
                cursor=choosing_row and i == self.row_cursor,
            )
            for i, row in enumerate(self.shown_rows)
        ]
        self.query_one("#rows", Static).update(Group(*rows))

        revealed = Text()
        if self.revealed is None and view.face_up is not None and any(c is not None for c in view.face_up):
            # Open: this turn's cards so far, played face up in seat order.
            revealed.append(g("Face up:") + " ", style="bold")
            for seat, number in enumerate(view.face_up):
                if number is not None:
                    revealed.append(f"{game.seats[seat]} ")
                    revealed.append_text(card(number))
                    revealed.append("   ")
        if self.revealed is not None:
            revealed.append(g("On the table:") + " ", style="bold")
            for seat, number in sorted(self.revealed, key=lambda p: p[1]):
                revealed.append(f"{game.seats[seat]} ")
                revealed.append_text(card(number, dim=number in self.placed))
                revealed.append("   ")
        self.query_one("#revealed", Static).update(revealed)

        self.query_one("#prompt", Static).update(self._prompt_text(view, decision, animating))
        self.query_one("#hand", Static).update(self._hand_text(view, decision))
        self.query_one("#open-hands", Static).update(self._open_hands_text(view))
        self.query_one("#hint", Static).update(self._hint_text(decision))
        self.query_one("#scores", Static).update(self._scores_table(view))

    def _prompt_text(self, view: PlayerView, decision: Decision | None, animating: bool) -> Text:
        g = self.tr.gettext
        game = self.game
        if animating:
            return Text(g("Placing the cards, lowest first…  (Space skips)"), style="italic")
        if game.is_over:
            return Text(g("The game is over."), style="bold")
        if decision is None:
            if self.viewer is not None and view.my_choices and game.phase is Phase.PLAY:
                cards = " + ".join(str(c) for c in view.my_choices)
                if self._card_options(None):
                    text = g("You play {cards}. Waiting for the others… (you may still change it)")
                else:
                    text = g("You play {cards}. Waiting for the others…")
                return Text(text.format(cards=cards), style="italic")
            waiting = ", ".join(game.seats[s] for s in view.waiting_for)
            return Text(g("Waiting for {names}…").format(names=waiting), style="italic")
        name = game.seats[decision.seat]
        if decision.kind is DecisionKind.ROW:
            if decision.reason == "tie":
                text = g("{name}, your {card} is as close to two rows: choose the one it joins.")
            else:
                text = g("{name}, your {card} is lower than every row: choose a row to take.")
            text += " " + g("(↑ ↓ or the row's number, then Enter)")
            return Text(text.format(name=name, card=decision.card), style="bold magenta")
        if decision.kind is DecisionKind.DRAFT:
            text = g("{name}, take a card from the open deck (← → or its number, then Enter).")
        elif decision.kind is DecisionKind.ORDER:
            text = g("{name}, your two cards are placed now: choose the one that goes first.")
        elif decision.kind is DecisionKind.KEEP:
            text = g("{name}, you took a row: choose a card to take back into your hand, or pass.")
        elif decision.reason == "second":
            text = g("{name}, play a second card, or pass.")
        elif game.rules.cards_per_turn == 2:
            if view.my_choices:
                text = g("{name}, choose your second card.")
            else:
                text = g("{name}, choose two cards, one after the other (← → or type a number, then Enter).")
        else:
            text = g("{name}, choose a card to play (← → or type its number, then Enter).")
        return Text(text.format(name=name), style="bold")

    def _hand_text(self, view: PlayerView, decision: Decision | None) -> Text:
        g = self.tr.gettext
        text = Text()
        options = self._card_options(decision)
        # The options get a line of their own unless they are cards of the hand: the open deck, the
        # two cards to order, a taken row's cards to keep, or a second card with "pass".
        on_hand_line = decision is None or (
            decision.kind is DecisionKind.CARD and PASS not in decision.options
        )
        if decision is not None and decision.kind is not DecisionKind.ROW and not on_hand_line:
            public = decision.kind is not DecisionKind.CARD  # the deck, revealed or taken cards
            if public or self.viewer == decision.seat:
                labels = {
                    DecisionKind.DRAFT: g("Open deck:"),
                    DecisionKind.ORDER: g("Place first:"),
                    DecisionKind.KEEP: g("Keep in hand:"),
                    DecisionKind.CARD: g("Play:"),
                }
                text.append(labels[decision.kind] + " ", style="bold")
                for index, option in enumerate(options):
                    text.append_text(option_chip(option, self.tr, selected=index == self.cursor))
                    text.append(" ")
                text.append("\n")
        if self.viewer is None:
            text.append(g("(hands are hidden)"), style="grey50")
            return text
        if view.deal != self.shown_deal:
            return text  # the next deal's hand appears once its deal starts on screen
        text.append(g("Your hand:") + " ", style="bold")
        selected_card = options[self.cursor] if on_hand_line and options else None
        for number in view.hand:
            text.append_text(card(number, selected=number == selected_card))
            if number in view.my_choices:
                text.append("✓", style="bold green")
            text.append(" ")
        if self.typed:
            text.append(f"  [{self.typed}]", style="bold magenta")
        return text

    def _open_hands_text(self, view: PlayerView) -> Text:
        """Logic's hands are public (the draft was open): everyone else's, one line each."""
        if view.hands is None or view.deal != self.shown_deal:
            return Text()
        text = Text(self.tr.gettext("Open hands:"), style="bold")
        for seat, hand in enumerate(view.hands):
            if seat == self.viewer:
                continue
            text.append(f"\n{view.seats[seat]:>12}  ")
            text.append_text(cards_line(hand))
        return text

    def _hint_text(self, decision: Decision | None) -> Text:
        g = self.tr.gettext
        if self.hint is None or decision is None or self.hint_for != self._hint_key(decision.seat):
            return Text()
        advice = self.hint
        if decision.kind is DecisionKind.ROW:
            best = g("take row {row}").format(row=advice.choice + 1)
        elif decision.kind is DecisionKind.DRAFT:
            best = g("take {card}").format(card=advice.choice)
        elif advice.choice == PASS:
            best = g("pass")
        elif decision.kind is DecisionKind.ORDER:
            best = g("place {card} first").format(card=advice.choice)
        elif decision.kind is DecisionKind.KEEP:
            best = g("keep {card}").format(card=advice.choice)
        else:
            best = g("play {card}").format(card=advice.choice)
        text = Text(g("Hint ({bot}): {best}.").format(bot=advice.bot, best=best), style="bold cyan")
        if advice.scores:
            text.append("  " + g("Expected bullheads this deal:") + " ")
            for option, score in sorted(advice.scores.items()):
                if decision.kind is DecisionKind.ROW:
                    label = str(option + 1)
                else:
                    label = g("pass") if option == PASS else str(option)
                text.append(f"{label}: {score:.1f}  ", style="bold" if option == advice.choice else "")
        return text

    def _scores_table(self, view: PlayerView) -> Table:
        g = self.tr.gettext
        count_down = self.config.count_down
        table = Table(box=None, padding=(0, 1), expand=True)
        table.add_column(g("Player"))
        table.add_column(g("Deal"), justify="right")
        table.add_column(g("Left") if count_down else g("Total"), justify="right")
        table.add_column("")
        for seat, name in enumerate(view.seats):
            spec = self.config.seats[seat]
            label = Text(name, style="bold" if seat == self.viewer else "")
            if spec.bot is not None:
                label.append(f" ({level_name(spec.bot, self.tr)})", style="grey50")
            if seat in view.winners:
                label.append(" ★", style="bold yellow")
            if seat in self.thinking:
                mark = Text("…", style="yellow")
            elif view.phase is Phase.PLAY and view.chosen[seat]:
                mark = Text("✓", style="green")
            else:
                mark = Text("")
            deal = view.penalties[seat]
            table.add_row(
                label,
                Text(f"-{deal}" if count_down and deal else str(deal), style="red" if deal else ""),
                str(score_value(view.totals[seat], self.config.target, count_down)),
                mark,
            )
        return table

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        if event.key != "q":
            self._quit_armed = False
        if event.character is None or not event.character.isdigit():
            return
        event.stop()
        decision = self._decision()
        if decision is not None and decision.kind is DecisionKind.ROW:
            row = int(event.character) - 1
            if row in decision.options:
                self.row_cursor = row
                self._redraw()
            return
        options = self._card_options(decision)
        if not options:
            return
        typed = self.typed + event.character
        if not any(str(c).startswith(typed) for c in options):
            typed = event.character  # start a new number
        self.typed = typed
        if int(typed) in options:
            self.cursor = options.index(int(typed))
        self._redraw()

    def _card_options(self, decision: Decision | None) -> tuple[int, ...]:
        """The cards the arrow keys move over: the decision's options, or the hand while waiting
        (a card can be changed until the last player has chosen)."""
        if decision is not None and decision.kind is not DecisionKind.ROW:
            return decision.options
        rules = self.game.rules
        if rules.cards_per_turn > 1 or rules.sequential:
            return ()  # a card once shown (Open, Hand) or one of two (Nifty) stays chosen
        if decision is None and self.viewer is not None and self.game.phase is Phase.PLAY:
            view = self.game.view(self.viewer)
            if view.my_choice is not None and not self.queue:
                return view.hand
        return ()

    def action_move(self, step: int) -> None:
        options = self._card_options(self._decision())
        if options:
            self.cursor = (self.cursor + step) % len(options)
            self.typed = ""
            self._redraw()

    def action_move_to(self, index: int) -> None:
        options = self._card_options(self._decision())
        if options:
            self.cursor = index % len(options)
            self.typed = ""
            self._redraw()

    def action_row(self, step: int) -> None:
        decision = self._decision()
        if decision is None or decision.kind is not DecisionKind.ROW:
            return
        options = list(decision.options)
        at = options.index(self.row_cursor) if self.row_cursor in options else 0
        self.row_cursor = options[(at + step) % len(options)]
        self._redraw()

    def action_confirm(self) -> None:
        if self.queue or self._pause_timer is not None:
            return
        decision = self._decision()
        self.typed = ""
        if decision is not None and decision.kind is DecisionKind.ROW:
            if self.row_cursor in decision.options:
                self._answer(decision.seat, self.row_cursor)
            return
        options = self._card_options(decision)
        if not options:
            return
        value = options[min(self.cursor, len(options) - 1)]
        if decision is not None:
            self._answer(decision.seat, value)
        elif self.viewer is not None:
            self._answer(self.viewer, value)  # a change of mind before the reveal

    def action_skip(self) -> None:
        if self._pause_timer is not None:
            self._pause_timer.stop()
            self._pause_timer = None
            self.skipping = True
            self._play_events()

    def _hint_key(self, seat: int) -> tuple[int, int, int]:
        return (seat, self.game.deal_index, self.game.turn)

    def action_hint(self) -> None:
        decision = self._decision()
        if decision is None or (self.viewer != decision.seat and decision.kind is not DecisionKind.ROW):
            self.notify(self.tr.gettext("No hint now: it is not your decision."))
            return
        self.notify(self.tr.gettext("Asking the {bot} bot…").format(bot=HINT_BOT), timeout=2)
        self._advise(decision.seat, self.game.view(decision.seat))

    @work(thread=True, group="hint", exclusive=True)
    def _advise(self, seat: int, view: PlayerView) -> None:
        key = (seat, view.deal, view.turn)
        try:
            advice = advise(view, HINT_BOT, seed=view.turn)
        except Exception as error:
            self._from_worker(self.HintReady(key, None, str(error) or type(error).__name__))
            return
        self._from_worker(self.HintReady(key, advice))

    def _hint_ready(self, seat: int, key: tuple[int, int, int], advice: Advice) -> None:
        decision = self._decision()
        if decision is None or decision.seat != seat or key != self._hint_key(seat):
            return  # the moment has passed
        self.hint, self.hint_for = advice, key
        if decision.kind is DecisionKind.ROW:
            self.row_cursor = advice.choice
        elif advice.choice in decision.options:
            self.cursor = decision.options.index(advice.choice)
        self._redraw()

    def action_help(self) -> None:
        self.app.push_screen(
            HelpScreen(rules_text(self.config.lang, self.game.rules.variant.value), keys_help(self.tr))
        )

    def action_quit_game(self) -> None:
        # A stray q must not throw a game away: the first press asks, the second quits.
        if self._quit_armed:
            from .app import SixNimmtApp

            if isinstance(self.app, SixNimmtApp):
                self.app.quit_saving()
            else:
                self.app.exit()
            return
        self._quit_armed = True
        self.notify(self.tr.gettext("Press q again to quit this game."), timeout=3)



    # ------------------------------------------------------------------ the end

    def _finish(self) -> None:
        self.release_bots(farewell=True)
        self.saved_to, self.save_error = save_record(self.game, self.config.records_dir)
        self.app.switch_screen(FinalScreen(self.config, self.game, self.saved_to, self.save_error))

    def save_unfinished(self) -> Path | None:
        """Save the game so far if it is unfinished and someone here has played since it began (or
        was resumed); ``sixnimmt play --resume FILE`` goes on with it. Returns where, once; never
        raises."""
        if self.game.is_over or self.unfinished_saved_to is not None or not self.moves_made:
            return None
        self.unfinished_saved_to, self.save_error = save_record(
            self.game, self.config.records_dir, unfinished=True
        )
        return self.unfinished_saved_to

    def on_unmount(self) -> None:
        self.save_unfinished()  # the app closing some other way than q: keep the game all the same
        self.release_bots(farewell=False)


def save_record(
    game: Game, folder: Path | None, *, unfinished: bool = False
) -> tuple[Path | None, str | None]:
    """Write the game's record (a partial one, named ``...-unfinished``, for a game left before
    its end); returns (path, None) or (None, why it failed)."""
    if folder is None:
        return None, None
    stem = f"{datetime.now():%Y%m%d-%H%M%S}-{game.rules.variant.value}-{game.players}p"
    suffix = "-unfinished" if unfinished else ""
    path = folder / f"{stem}{suffix}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        counter = 1
        while path.exists():
            counter += 1
            path = folder / f"{stem}-{counter}{suffix}.json"
        path.write_text(dumps(game.record()) + "\n", encoding="utf-8")
    except OSError as error:
        return None, f"cannot save the record in {folder}: {error.strerror or error}"
    return path, None
