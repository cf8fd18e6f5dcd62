"""One game at the terminal table, without the terminal: who is asked, what the keys do, what is
shown, and the bots. The screen (:mod:`sixnimmt.tui.table`) only draws this state and forwards keys,
clicks and timers to it, so the whole flow of play is testable without Textual.

The game lives in the engine's :class:`~sixnimmt.core.Game`; the session reads ``game.view(viewer)``
(the person at the keyboard, or nobody while the keyboard changes hands) and sends answers back with
``game.act``. Every answer's events are queued and followed one by one (:meth:`GameSession.next_event`),
so the screen can pause between placements and a player can see why a row was taken.
"""

from __future__ import annotations

import gettext
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rich.text import Text

from ..core import (
    PASS,
    CardPlaced,
    CardShown,
    CardsKept,
    CardsRevealed,
    Dealer,
    DealScored,
    DealStarted,
    Decision,
    DecisionKind,
    DraftPicked,
    Event,
    Game,
    Phase,
    PlayerView,
    RowTaken,
    best_slots,
    row_size,
)
from ..core.cards import ROW_LIMIT
from ..core.record import dumps
from ..i18n import translator
from ..seats import GuardedSeat, make_bot
from ..seats.advise import Advice
from .config import GameConfig
from .render import Rows, apply_event, event_line, row_bullheads


@dataclass(frozen=True, slots=True)
class BotJob:
    """One bot's decision to take, in the bots' worker: its own view and what it has yet to hear."""

    seat: int
    view: PlayerView
    heard: list[Event]


@dataclass(frozen=True, slots=True)
class BotAnswer:
    seat: int
    kind: DecisionKind
    value: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Advance:
    """What the screen must do next: ask bots (in a worker), cover the table while the keyboard
    changes hands, or show the final ranking."""

    jobs: list[BotJob] = field(default_factory=list)
    pass_to: int | None = None
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Preview:
    """Where a card would go if it were placed now, and what that would cost: ``row`` is the row it
    would join (None: too low, its owner takes a row of their choice), ``sixth`` that it would be the
    sixth card there and take the row."""

    card: int
    row: int | None
    sixth: bool
    bullheads: int  # what taking the row would cost (too low: the cheapest row)


class GameSession:
    """The state of one game at this keyboard, and every rule of the interface's flow."""

    def __init__(self, config: GameConfig, dealer: Dealer | None = None, game: Game | None = None,
                 *, resumed_from: Path | None = None) -> None:  # fmt: skip
        """A new game from ``config``, or with ``game`` one resumed from its record (its seats named
        as in ``config``, ``resumed_from`` its file) that goes on where it stopped."""
        self.config = config
        self.tr: gettext.NullTranslations = translator(config.lang)
        names = [seat.name for seat in config.seats]
        if game is not None and list(game.seats) != names:
            raise ValueError(f"the seats {names} are not the resumed game's {list(game.seats)}")
        self.resumed = game is not None
        self.resumed_from = resumed_from
        self.game = game if game is not None else Game(config.rules(), names, seed=config.seed, dealer=dealer)
        base_seed = config.seed if config.seed is not None else time.time_ns()
        # Every bot plays behind a guard: a failure or an illegal answer becomes a recorded fault
        # and the guard's seeded random legal move (docs/bot-protocol.md, "When a bot fails").
        self.bots: dict[int, GuardedSeat] = {
            seat: GuardedSeat(make_bot(spec.bot, seed=base_seed + seat), fallback_seed=base_seed + seat,
                              label=spec.name)
            for seat, spec in enumerate(config.seats)
            if spec.bot is not None
        }  # fmt: skip
        # The public events each bot has yet to hear (Bot.notify), handed to its worker with its
        # next decision: an external program learns what happened in the order it happened. A
        # resumed game's bots start from where it stands, not from its history.
        history = [] if self.resumed else self.game.events
        self.inbox: dict[int, list[Event]] = {seat: list(history) for seat in self.bots}
        self.asked: set[int] = set()  # bots asked at least once (an external one is running)
        self.reported: list[str] = []  # the bots' faults, as reported to the player
        self._bots_lock = threading.Lock()  # the interface and a worker may both release the bots
        self.humans = config.humans
        # Whose hidden information is on screen: the one person, or nobody in pass-and-play until
        # the next person has the keyboard.
        self.viewer: int | None = None if config.pass_and_play else self.humans[0]
        self.asking: int | None = None  # the person whose decision the screen is asking for
        self.thinking: set[int] = set()  # bots working on an answer
        self.spinner = 0  # the frame of the thinking bots' spinner (turned by the screen)
        self.queue: deque[Event] = deque([] if self.resumed else self.game.events)  # events still to show
        self.pausing = False  # the screen is pausing between two events of the reveal
        self.moves_made = 0  # answers given at this keyboard: none, and there is nothing to save on quit
        self.shown_rows: Rows = [[] for _ in range(4)]
        self.revealed: tuple[tuple[int, int], ...] | None = None  # (seat, card) shown this turn
        self.shown_deal = 0  # the deal and turn on screen, which lag the game's during the reveal
        self.shown_turn = 0
        self.placed: set[int] = set()
        #: The cards each player has taken this deal, as shown (for the deal summary).
        self.taken: list[list[int]] = [[] for _ in names]
        #: What happened, one line per event worth reading, for the log.
        self.log: list[Text] = []
        self.cursor = 0
        self.row_cursor = 0
        self.typed = ""
        #: Why the last key did nothing (a typed number that is not in the hand), shown in red.
        self.error: str | None = None
        #: The card waiting for a second Enter, with ``config.confirm``.
        self.confirming: int | None = None
        self.hint: Advice | None = None
        self.hint_for: tuple[int, int, int] | None = None  # (seat, deal, turn) the hint answers
        self.skipping = False
        self.saved_to: Path | None = None
        self.save_error: str | None = None
        self.unfinished_saved_to: Path | None = None
        if self.resumed:
            for event in self.game.events:
                self._follow(event)
            self.log.append(Text(self.tr.gettext("The game goes on where it stopped."), style="bold"))

    # ------------------------------------------------------------------ the flow of play

    @property
    def animating(self) -> bool:
        """Events are still being shown (the reveal): the screen lags the game."""
        return bool(self.queue) or self.pausing

    def decision(self) -> Decision | None:
        """The decision the screen is asking for, if any."""
        return None if self.asking is None else self.game.decision_for(self.asking)

    def view(self) -> PlayerView:
        return self.game.view(self.viewer)

    def advance(self) -> Advance:
        """Ask whoever the game waits for: the bots' jobs (the caller runs them in a worker), and the
        next person on screen, or who must get the keyboard first."""
        game = self.game
        if game.is_over:
            return Advance(finished=True)
        pending = game.pending()
        jobs = [
            BotJob(d.seat, game.view(d.seat), self._take_inbox(d.seat))
            for d in pending
            if d.seat in self.bots and d.seat not in self.thinking
        ]
        self.thinking.update(job.seat for job in jobs)
        self.asked.update(job.seat for job in jobs)
        people = [d for d in pending if d.seat in self.humans]
        if self.asking is not None and any(d.seat == self.asking for d in people):
            return Advance(jobs)
        self.asking = None
        if not people:
            if self.config.pass_and_play:
                self.viewer = None
            return Advance(jobs)
        decision = people[0]
        if self.needs_hand(decision) and decision.seat != self.viewer:
            self.viewer = None  # the next person's hand must not appear until they have the keyboard
            return Advance(jobs, pass_to=decision.seat)
        self._ask(decision)
        return Advance(jobs)

    def needs_hand(self, decision: Decision) -> bool:
        """In pass-and-play, whether answering shows the person's secret hand (so the keyboard must
        change hands first): choosing cards, ordering them (Nifty), keeping cards (Hand). A row
        choice needs no hand, and after an open draft every hand is public anyway."""
        private = decision.kind in (DecisionKind.CARD, DecisionKind.ORDER, DecisionKind.KEEP)
        return self.config.pass_and_play and private and not self.game.rules.hands_public

    def passed(self, seat: int) -> None:
        """The keyboard is with ``seat`` now."""
        decision = self.game.decision_for(seat)
        if decision is not None:
            self._ask(decision)

    def _ask(self, decision: Decision) -> None:
        self.asking = decision.seat
        if not self.config.pass_and_play or self.needs_hand(decision) or self.game.rules.hands_public:
            self.viewer = decision.seat
        else:
            self.viewer = None  # a row choice in pass-and-play: the table, but no hand
        self.confirming = None
        if decision.kind is DecisionKind.ROW:
            # Start on the cheapest row: the usual answer, though any row may be taken.
            self.row_cursor = min(decision.options, key=lambda r: row_bullheads(self.game.rows[r]))
            self.typed = ""
        else:
            self.cursor = min(self.cursor, len(decision.options) - 1)
            self._apply_typed()  # a number typed during the reveal chooses its card now

    def answer(self, seat: int, value: int) -> None:
        """Send a person's answer to the engine; its events are queued to be shown."""
        self.hint = None
        self.moves_made += 1
        self.typed, self.error, self.confirming = "", None, None
        if seat == self.asking:
            self.asking = None
        events = self.act(seat, value)
        if self.config.pass_and_play:
            follow_up = self.game.decision_for(seat)
            continues = follow_up is not None and self.needs_hand(follow_up)
            if not continues or any(isinstance(e, CardsRevealed) for e in events):
                self.viewer = None  # the hand leaves the screen with the answer

    def act(self, seat: int, value: int) -> list[Event]:
        """``game.act``, queueing the events to show."""
        events = self.game.act(seat, value)
        for inbox in self.inbox.values():
            inbox.extend(events)
        self.queue.extend(events)
        return events

    def _take_inbox(self, seat: int) -> list[Event]:
        events, self.inbox[seat] = self.inbox.get(seat, []), []
        return events

    # ------------------------------------------------------------------ the bots

    def think(self, jobs: list[BotJob]) -> list[BotAnswer]:
        """Run in the bots' worker: each bot hears what happened since it last played, then answers
        from its own view through its guard, which always answers a legal option (the faults it
        met on the way are reported with the answer)."""
        answers: list[BotAnswer] = []
        for job in jobs:
            decision = job.view.decision
            assert decision is not None
            seat = self.bots.get(job.seat)
            if seat is None:
                return []  # the bots were released: the game is over or the screen is closing
            known_faults = len(seat.faults)
            for event in job.heard:
                seat.notify(event, job.view)
            value = seat.decide(job.view)
            problems = [fault.message for fault in seat.faults[known_faults:]]
            answers.append(BotAnswer(job.seat, decision.kind, value, "; ".join(problems) or None))
        return answers

    def bots_answered(self, answers: list[BotAnswer]) -> list[str]:
        """The bots' answers, back from their worker: acted on; returns the faults to report."""
        faults: list[str] = []
        for answer in answers:
            self.thinking.discard(answer.seat)
            decision = self.game.decision_for(answer.seat)
            if decision is None or decision.kind is not answer.kind:
                continue  # the game moved on (never act on stale input)
            if answer.error is not None:
                faults.append(f"{self.game.seats[answer.seat]}: {answer.error}")
                self.reported.append(faults[-1])
            self.act(answer.seat, answer.value)  # legal: the guard answers one of the options
        return faults

    def release_bots(self, *, farewell: bool) -> None:
        """Close every bot once (external programs are stopped, so no process outlives the game).
        With ``farewell`` the bots first hear the game's last events (an external program gets
        ``game-end``); only those already playing, so that no program is started just to say bye."""
        with self._bots_lock:
            bots, self.bots = self.bots, {}
        for seat, guarded in bots.items():
            if farewell and seat in self.asked:
                view = self.game.view(seat)
                for event in self._take_inbox(seat):
                    guarded.notify(event, view)  # never raises: a failure is the seat's fault
            guarded.close()  # never raises

    # ------------------------------------------------------------------ showing events

    def pause_for(self, event: Event) -> float:
        """Seconds to pause after showing ``event`` (none when skipping or without a delay)."""
        delay = self.config.delay
        if self.skipping or delay <= 0:
            return 0.0
        if isinstance(event, CardsRevealed):
            return delay * 2
        if isinstance(event, (CardPlaced, RowTaken)):
            return delay
        if isinstance(event, DraftPicked):
            return delay / 3
        return 0.0

    def next_event(self) -> Event | None:
        """Show the next queued event (the rows, the log follow it); None when all are shown."""
        if not self.queue:
            self.skipping = False
            return None
        event = self.queue.popleft()
        self._follow(event)
        return event

    def _follow(self, event: Event) -> None:
        if isinstance(event, CardsRevealed):
            self.revealed = tuple(event.seat_cards)
            self.placed = set()
            self.shown_turn = event.turn
        elif isinstance(event, CardPlaced):
            self.placed.add(event.card)
        elif isinstance(event, CardShown):
            self.revealed = None  # Open: this turn's face-up cards replace the last turn's
        elif isinstance(event, DealStarted):
            self.revealed = None
            self.shown_deal, self.shown_turn = event.deal, 0
            self.taken = [[] for _ in self.game.seats]
        taken_cards: tuple[int, ...] = ()
        if isinstance(event, RowTaken):
            taken_cards = event.cards
            self.taken[event.seat].extend(taken_cards)
        elif isinstance(event, CardsKept):
            for number in event.cards:
                if number in self.taken[event.seat]:
                    self.taken[event.seat].remove(number)
        apply_event(self.shown_rows, event)
        line = event_line(event, self.game.seats, self.tr, taken_cards)
        if line is not None:
            self.log.append(line)

    def skip(self) -> bool:
        """Skip the rest of the reveal (the screen then shows every queued event at once)."""
        if not self.animating:
            return False
        self.skipping = True
        return True

    def shown_view(self) -> PlayerView:
        """The view being drawn; the deal and turn on screen catch up once the reveal is over."""
        view = self.view()
        if not self.animating:
            self.shown_deal, self.shown_turn = view.deal, view.turn
        return view

    # ------------------------------------------------------------------ keys and clicks

    def card_options(self, decision: Decision | None = None) -> tuple[int, ...]:
        """The cards the arrow keys move over: the decision's options, or the hand while waiting
        for the others (a card can be changed until the last player has chosen)."""
        decision = decision if decision is not None else self.decision()
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

    def may_change(self) -> bool:
        """Whether the viewer has chosen a card and may still take it back (simultaneous play,
        until the last player has chosen)."""
        return self.decision() is None and bool(self.card_options())

    def take_back(self) -> bool:
        """``u``: take back the chosen card, so the viewer chooses again (simultaneous play, until
        the last player has chosen; the others only ever learned that a card was chosen).
        Returns whether a card was taken back."""
        if self.animating or self.viewer is None or not self.may_change():
            return False
        seat = self.viewer
        self.game.retract(seat)
        self.typed, self.error, self.confirming = "", None, None
        decision = self.game.decision_for(seat)
        if decision is not None:
            self._ask(decision)  # the card decision is owed again
        return True

    def type_digit(self, digit: str) -> None:
        """A digit typed: a row's number when choosing a row, else part of a card's number. During
        the reveal the number is kept and chooses its card once the player is asked."""
        self.confirming = None
        decision = self.decision()
        if decision is not None and decision.kind is DecisionKind.ROW:
            row = int(digit) - 1
            if row in decision.options:
                self.row_cursor, self.error = row, None
            else:
                self.error = self.tr.gettext("There is no row {number}.").format(number=digit)
            return
        # A digit that would make a number above every card of the deck starts a new number.
        longer = self.typed + digit
        self.typed = longer if int(longer) <= max(self.game.rules.deck) else digit
        self._apply_typed()

    def backspace(self) -> None:
        self.typed = self.typed[:-1]
        self.confirming = None
        self._apply_typed()

    def _apply_typed(self) -> None:
        """Move the cursor to the typed card; a number no option starts with is an error, and the
        cursor stays where it was (Enter then plays nothing)."""
        self.error = None
        if not self.typed:
            return
        options = self.card_options()
        if not options:
            return  # nothing to choose yet (the reveal): the number waits
        number = int(self.typed)
        if number in options:
            self.cursor = options.index(number)
        elif not any(str(option).startswith(self.typed) for option in options if option != PASS):
            self.error = self.not_in_hand(number)

    def not_in_hand(self, number: int) -> str:
        """Why a typed number plays nothing: the card is not among those to choose from (the open
        deck's in a draft, else the hand's)."""
        decision = self.decision()
        if decision is not None and decision.kind is DecisionKind.DRAFT:
            message = self.tr.gettext("{card} is not in the open deck: type another number, or Backspace.")
        else:
            message = self.tr.gettext("{card} is not in your hand: type another number, or Backspace.")
        return message.format(card=number)

    def move(self, step: int) -> None:
        options = self.card_options()
        if options:
            self.cursor = (self.cursor + step) % len(options)
            self.typed, self.error, self.confirming = "", None, None

    def move_to(self, index: int) -> None:
        options = self.card_options()
        if options:
            self.cursor = index % len(options)
            self.typed, self.error, self.confirming = "", None, None

    def move_row(self, step: int) -> None:
        decision = self.decision()
        if decision is None or decision.kind is not DecisionKind.ROW:
            return
        options = list(decision.options)
        at = options.index(self.row_cursor) if self.row_cursor in options else 0
        self.row_cursor = options[(at + step) % len(options)]
        self.error = None

    def confirm(self) -> bool:
        """Enter: play the chosen card or take the chosen row. A typed number that is not an option
        plays nothing (the error stays on screen). With ``config.confirm`` the first Enter on a card
        asks, the second plays. Returns whether something was played."""
        if self.animating:
            return False
        decision = self.decision()
        if decision is not None and decision.kind is DecisionKind.ROW:
            if self.row_cursor in decision.options:
                self.answer(decision.seat, self.row_cursor)
                return True
            return False
        options = self.card_options(decision)
        if not options:
            return False
        if self.typed:
            number = int(self.typed)
            if number not in options:
                self.error = self.not_in_hand(number)
                return False
            value = number
        else:
            value = options[min(self.cursor, len(options) - 1)]
        seat = decision.seat if decision is not None else self.viewer
        if seat is None:
            return False
        if self.config.confirm and self.confirming != value:
            self.confirming = value
            self.cursor = options.index(value)
            return False
        self.answer(seat, value)
        return True

    def click_card(self, number: int) -> bool:
        """A click on a card: the first selects it, a second click on the same card plays it."""
        options = self.card_options()
        if number not in options:
            return False
        index = options.index(number)
        if self.cursor == index and not self.typed:
            self.confirming = number  # clicking the selected card again is the confirmation
            return self.confirm()
        self.cursor, self.typed, self.error, self.confirming = index, "", None, None
        return False

    def clear_typed(self) -> None:
        """Escape: forget a typed number, its error and a pending confirmation."""
        self.typed, self.error, self.confirming = "", None, None

    def click_row(self, row: int) -> bool:
        """A click on a row: takes it when a row must be chosen."""
        decision = self.decision()
        if decision is None or decision.kind is not DecisionKind.ROW or row not in decision.options:
            return False
        self.row_cursor = row
        return self.confirm()

    def preview(self, number: int) -> Preview | None:
        """Where ``number`` would go on the rows as they stand (a card of the viewer's choice)."""
        rows = self.shown_rows
        if not all(rows) or self.animating:
            return None
        rules = self.game.rules
        stack = rules.spec.twins  # Double: a card on its twin stacks
        slots = best_slots(rows, number, rules.professional, stack=stack)
        if not slots:
            cheapest = min(range(len(rows)), key=lambda r: row_bullheads(rows[r]))
            return Preview(number, None, False, row_bullheads(rows[cheapest]))
        row = slots[0].row
        sixth = row_size(rows[row], stack) >= ROW_LIMIT and not (stack and rows[row][-1] == number)
        return Preview(number, row, sixth, row_bullheads(rows[row]) if sixth else 0)

    # ------------------------------------------------------------------ hints

    def hint_key(self, seat: int) -> tuple[int, int, int]:
        return (seat, self.game.deal_index, self.game.turn)

    def hint_request(self) -> tuple[int, PlayerView] | None:
        """The seat and view a hint would answer for, or None when it is not the viewer's decision."""
        decision = self.decision()
        if decision is None or (self.viewer != decision.seat and decision.kind is not DecisionKind.ROW):
            return None
        return decision.seat, self.game.view(decision.seat)

    def hint_ready(self, key: tuple[int, int, int], advice: Advice) -> bool:
        decision = self.decision()
        if decision is None or decision.seat != key[0] or key != self.hint_key(key[0]):
            return False  # the moment has passed
        self.hint, self.hint_for = advice, key
        self.typed, self.error = "", None
        if decision.kind is DecisionKind.ROW:
            self.row_cursor = advice.choice
        elif advice.choice in decision.options:
            self.cursor = decision.options.index(advice.choice)
        return True

    # ------------------------------------------------------------------ the end

    def deal_summary(self, event: DealScored) -> list[list[int]]:
        """Each player's taken cards in the deal ``event`` scores, sorted."""
        return [sorted(cards) for cards in self.taken]

    def finish(self) -> None:
        """The game is over: bots say goodbye, the record is saved, and a resumed game's unfinished
        file goes (it cannot be resumed twice)."""
        self.release_bots(farewell=True)
        self.saved_to, self.save_error = save_record(self.game, self.config.records_dir)
        if self.saved_to is not None and self.resumed_from is not None:
            remove_unfinished(self.resumed_from)

    def save_unfinished(self) -> Path | None:
        """Save the game so far if it is unfinished and someone here has played since it began (or
        was resumed); ``sixnimmt play --resume FILE`` goes on with it. Returns where, once; never
        raises. A resumed game is saved under a new name and its old file removed."""
        if self.game.is_over or self.unfinished_saved_to is not None or not self.moves_made:
            return None
        self.unfinished_saved_to, self.save_error = save_record(
            self.game, self.config.records_dir, unfinished=True
        )
        if self.unfinished_saved_to is not None and self.resumed_from is not None:
            remove_unfinished(self.resumed_from)
        return self.unfinished_saved_to


def remove_unfinished(path: Path) -> None:
    """Remove a resumed game's old ``-unfinished.json`` (only such a file; never raises)."""
    if not path.name.endswith("-unfinished.json"):
        return
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def record_stem(game: Game, when: datetime) -> str:
    return f"{when:%Y%m%d-%H%M%S}-{game.rules.variant.value}-{game.players}p"


def save_record(
    game: Game, folder: Path | None, *, unfinished: bool = False
) -> tuple[Path | None, str | None]:
    """Write the game's record (a partial one, named ``...-unfinished``, for a game left before
    its end); returns (path, None) or (None, why it failed)."""
    if folder is None:
        return None, None
    stem = record_stem(game, datetime.now())
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
