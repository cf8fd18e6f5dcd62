"""``sixnimmt replay show FILE --tui``: step through a recorded game turn by turn.

The record is replayed by the engine (:func:`sixnimmt.core.record.replay`); this viewer only follows
the game's public events, cutting them into steps: a deal's start, each turn, each deal's score.
A finished game is no secret any more, so every hand is shown.
"""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
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
from ..i18n import N_, resolve_language, translator
from .render import apply_event, cards_line, event_line, key_bar, legend, row_line, variant_name

KEYS_REPLAY = (("→", N_("next")), ("←", N_("back")), ("Home", N_("first step")), ("End", N_("last step")), ("q", N_("quit")))


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
        Binding("q,escape", "quit", "Quit"),
    ]

    def __init__(self, game: Game, lang: str | None = None) -> None:
        super().__init__()
        self.game = game
        self.tr = translator(resolve_language(lang))
        self.steps = steps_of(game, self.tr)
        self.index = 0

    def compose(self) -> ComposeResult:
        with Horizontal(id="table"):
            with Vertical(id="play-area"):
                yield Static(id="status")
                yield Static(id="rows")
                yield Static(id="hands")
            with Vertical(id="side"):
                yield Static(id="scores")
                yield Static(id="steplog")
        yield Static(key_bar(self.tr, KEYS_REPLAY), id="keys")

    def on_mount(self) -> None:
        self.show()

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
        status = Text(f"{variant_name(game.rules.variant.value, self.tr)}  ·  ", style="bold")
        status.append(g("Deal {number}").format(number=step.deal + 1))
        if step.turn is not None:
            if game.rules.turns_per_deal is None:  # no fixed number of turns (Hand)
                status.append("  ·  " + g("Turn {number}").format(number=step.turn + 1))
            else:
                turn = g("Turn {number} of {total}").format(number=step.turn + 1, total=game.turns_per_deal)
                status.append("  ·  " + turn)
        status.append(f"  ·  {g('Step {n} of {total}').format(n=self.index + 1, total=len(self.steps))}")
        status.append("\n")
        status.append_text(legend(self.tr))
        self.query_one("#status", Static).update(status)
        self.query_one("#rows", Static).update(
            Group(*(row_line(i, row, self.tr) for i, row in enumerate(step.rows)))
        )
        hands = Table(box=None, padding=(0, 1))
        hands.add_column(g("Player"))
        hands.add_column(g("Hand"))
        for seat, hand in enumerate(step.hands):
            hands.add_row(Text(game.seats[seat]), cards_line(hand))  # a name is text, never markup
        self.query_one("#hands", Static).update(hands)
        self.query_one("#scores", Static).update(_scores(game.seats, step, self.tr))
        self.query_one("#steplog", Static).update(Group(*step.lines))


def _scores(seats: Sequence[str], step: Step, tr: gettext.NullTranslations) -> Table:
    g = tr.gettext
    table = Table(box=None, padding=(0, 1), expand=True)
    table.add_column(g("Player"))
    table.add_column(g("Deal"), justify="right")
    table.add_column(g("Total"), justify="right")
    for seat, name in enumerate(seats):
        table.add_row(Text(name), str(step.penalties[seat]), str(step.totals[seat]))  # not markup
    return table


def run_replay(record: dict[str, Any], lang: str | None = None) -> None:
    """Open the replay viewer on ``record`` (already loaded; checked again here by the engine)."""
    result = replay(record, partial=True)
    ReplayApp(result.game, lang).run()


__all__ = ["ReplayApp", "Step", "run_replay", "steps_of"]
