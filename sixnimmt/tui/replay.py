"""``sixnimmt replay show FILE --tui``: step through a recorded game turn by turn.

The record is replayed by the engine (:func:`sixnimmt.core.record.replay`); this viewer only follows
the game's public events, cutting them into steps: a deal's start, each turn, each deal's score.
A finished game is no secret any more, so every hand is shown.
"""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical, VerticalScroll
from textual.widgets import Static

from ..core import (
    BULLHEADS,
    CardsKept,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Game,
    GameOver,
    RowTaken,
)
from ..core.record import replay
from ..i18n import N_, resolve_language, rules_text, translator
from .dialogs import HelpScreen
from .render import apply_event, cards_line, event_line, key_bar, legend, row_line, variant_name

if TYPE_CHECKING:
    from ..bots.review import Review

KEYS_REPLAY = (("→", N_("next")), ("←", N_("back")), ("Home End", N_("first or last step")), ("?", N_("help")),
               ("q", N_("quit")))  # fmt: skip
#: Below this width the step's log goes under the table instead of beside it.
SIDE_BY_SIDE_WIDTH = 100


def replay_keys_help(tr: gettext.NullTranslations) -> str:
    """The viewer's keys, as Markdown, for the top of its help screen."""
    g = tr.gettext
    lines = [
        "# " + g("Keys"),
        "",
        "| " + g("Key") + " | " + g("What it does") + " |",
        "|---|---|",
        "| → Space n | " + g("the next step: a deal's start, a turn, a deal's score") + " |",
        "| ← p | " + g("the step before") + " |",
        "| Home End | " + g("the first or the last step") + " |",
        "| ? F1 | " + g("this help") + " |",
        "| q Esc | " + g("quit") + " |",
    ]
    return "\n".join(lines)


@dataclass(slots=True)
class Step:
    """What the table looks like after one step of the game, and what happened in it."""

    deal: int
    turn: int | None  # None: the deal's start or its scoring
    rows: list[list[int]]
    hands: list[list[int]]
    penalties: list[int]
    totals: list[int]
    lines: list[Text] = field(default_factory=list)


def steps_of(game: Game, tr: gettext.NullTranslations) -> list[Step]:
    """Cut the game's events into steps: a new step starts at each deal, turn, score and the end."""
    players = game.players
    rows: list[list[int]] = [[] for _ in range(4)]
    hands: list[list[int]] = [[] for _ in range(players)]
    penalties = [0] * players
    totals = [0] * players
    deal, turn = 0, None
    steps: list[Step] = []
    lines: list[Text] = []

    def flush() -> None:
        if lines:
            steps.append(
                Step(deal, turn, [list(r) for r in rows], [sorted(h) for h in hands],
                     list(penalties), list(totals), list(lines))
            )  # fmt: skip
            lines.clear()

    for event in game.events:
        if isinstance(event, (DealStarted, CardsRevealed, DealScored, GameOver)):
            flush()
        if isinstance(event, DealStarted):
            deal, turn = event.deal, None
            penalties = [0] * players
            hands = _hands_at_start(game, event.deal)
        elif isinstance(event, DraftPicked):
            hands[event.seat].append(event.card)
        elif isinstance(event, CardsRevealed):
            turn = event.turn
            for seat, number in event.seat_cards:
                hands[seat].remove(number)
        elif isinstance(event, CardsKept):
            hands[event.seat].extend(event.cards)
            penalties[event.seat] -= sum(BULLHEADS[c] for c in event.cards)
        elif isinstance(event, RowTaken):
            penalties[event.seat] += event.bullheads
        elif isinstance(event, DealScored):
            turn = None
            totals = list(event.totals)
        apply_event(rows, event)
        line = event_line(event, game.seats, tr)
        if line is not None:
            lines.append(line)
    flush()
    return steps


def _hands_at_start(game: Game, deal: int) -> list[list[int]]:
    """Each hand as the deal starts: as dealt (the record keeps it), empty before an open draft,
    or, for Tournament's passed sheets, every card the seat plays in that deal."""
    history = game.history[deal]
    if "hands" in history:
        return [list(h) for h in history["hands"]]
    hands: list[list[int]] = [[] for _ in range(game.players)]
    if "draft" in history:
        return hands
    for turn in history["turns"]:
        for seat, number in enumerate(turn["plays"]):
            hands[seat].append(number)
    return hands


class ReplayApp(App[None]):
    """Steps through a replayed game with the arrow keys."""

    CSS_PATH = "sixnimmt.tcss"
    TITLE = "6 nimmt! replay"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space,n", "step(1)", "Next"),
        Binding("left,p", "step(-1)", "Back"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, game: Game, lang: str | None = None, review: Review | None = None) -> None:
        """``review``: one seat's decisions analysed (``replay show FILE --tui --review SEAT``),
        shown at the turns they were taken."""
        super().__init__()
        self.game = game
        self.lang = resolve_language(lang)
        self.tr = translator(self.lang)
        self.steps = steps_of(game, self.tr)
        self.review = review
        self.index = 0

    def compose(self) -> ComposeResult:
        with Container(id="replay-table"):
            with VerticalScroll(id="play-area", can_focus=False):
                yield Static(id="status")
                yield Static(id="rows")
                yield Static(id="hands")
                yield Static(id="review")
            with Vertical(id="side"):
                yield Static(id="steplog")
        yield Static(key_bar(self.tr, KEYS_REPLAY), id="keys")

    def on_mount(self) -> None:
        self._lay_out(self.size.width)
        self.show()

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out(event.size.width)

    def _lay_out(self, width: int) -> None:
        """The log beside the table where there is room, else under it (at 80 columns a row and
        the status line need the whole width)."""
        self.screen.set_class(width < SIDE_BY_SIDE_WIDTH, "-stacked")

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        rules = rules_text(self.lang, self.game.rules.variant.value)
        self.push_screen(HelpScreen(rules, replay_keys_help(self.tr), self.tr))

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.steps) - 1, self.index + delta))
        self.show()

    def action_jump(self, index: int) -> None:
        self.index = index % len(self.steps)
        self.show()

    def show(self) -> None:
        g = self.tr.gettext
        step = self.steps[self.index]
        game = self.game
        status = Text(variant_name(game.rules.variant.value, self.tr), style="bold")
        status.append("  ·  " + g("Deal {number}").format(number=step.deal + 1))
        if step.turn is not None:
            if game.rules.turns_per_deal is None:  # no fixed number of turns (Hand)
                status.append("  ·  " + g("Turn {number}").format(number=step.turn + 1))
            else:
                turn = g("Turn {number} of {total}").format(number=step.turn + 1, total=game.turns_per_deal)
                status.append("  ·  " + turn)
        status.append("  ·  " + g("Step {n} of {total}").format(n=self.index + 1, total=len(self.steps)))
        status.append("\n")
        status.append_text(legend(self.tr))
        self.query_one("#status", Static).update(status)
        self.query_one("#rows", Static).update(
            Group(*(row_line(i, row, self.tr) for i, row in enumerate(step.rows)))
        )
        self.query_one("#hands", Static).update(_hands_and_scores(game.seats, step, self.tr))
        self.query_one("#review", Static).update(self._review_lines(step))
        self.query_one("#steplog", Static).update(Group(*step.lines))

    def _review_lines(self, step: Step) -> Text:
        """The reviewed seat's decisions of this turn: what was played, the best move found, and
        the expected bullheads given away."""
        text = Text()
        if self.review is None or step.turn is None:
            return text
        g = self.tr.gettext
        name = self.game.seats[self.review.seat]
        for decision in self.review.decisions:
            if (decision.deal, decision.turn) != (step.deal + 1, step.turn + 1):
                continue
            if decision.kind == "card":
                played, best = str(decision.played), str(decision.best)
            else:  # rows 1-4, as the table shows them
                played = g("row {row}").format(row=decision.played + 1)
                best = g("row {row}").format(row=decision.best + 1)
            line = g("Review of {name}: played {played} (expected {expected_played:.1f} bullheads), "
                     "best {best} ({expected_best:.1f})").format(
                name=name, played=played, best=best,
                expected_played=decision.expected_played, expected_best=decision.expected_best,
            )  # fmt: skip
            text.append(("\n" if text else "") + line, style="bold red" if decision.mistake else "cyan")
            if decision.mistake:
                text.append(" " + g("a mistake: {loss:.1f} bullheads given away").format(loss=decision.loss),
                            style="bold red")  # fmt: skip
        return text


def _hands_and_scores(seats: Sequence[str], step: Step, tr: gettext.NullTranslations) -> Table:
    """Each player's hand (a finished game hides nothing), bullheads this deal and total."""
    g = tr.gettext
    table = Table(box=None, padding=(0, 1))
    table.add_column(g("Player"))
    table.add_column(g("Hand"))
    table.add_column(g("Deal"), justify="right")
    table.add_column(g("Total"), justify="right")
    for seat, hand in enumerate(step.hands):
        # A name is text, never markup.
        table.add_row(Text(seats[seat]), cards_line(hand), str(step.penalties[seat]), str(step.totals[seat]))
    return table


def run_replay(record: dict[str, Any], lang: str | None = None, review: Review | None = None) -> None:
    """Open the replay viewer on ``record`` (already loaded; checked again here by the engine)."""
    result = replay(record, partial=True)
    ReplayApp(result.game, lang, review).run()


__all__ = ["ReplayApp", "Step", "run_replay", "steps_of"]
