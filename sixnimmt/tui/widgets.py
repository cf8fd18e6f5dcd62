"""The cards and rows of the table as widgets: each card is a box (or, where room is short, a chip)
with its number, its bullheads and the colour of its bullheads, as on the physical cards. Clicks
and hovers become messages for the screen; what they mean is the session's business."""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from itertools import groupby

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from ..core import BULLHEADS, PASS, ROW_LIMIT
from .render import row_bullheads

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def card_face(number: int, count: int, boxed: bool, tr: gettext.NullTranslations, chosen: bool = False) -> Text:
    """What a card widget shows: ``55⁷`` on one line, or boxed: the number, then its bullheads.
    A card chosen this turn (still in the hand until the reveal) is ticked."""
    if number == PASS:
        return Text(tr.gettext("pass"))
    heads = BULLHEADS[number]
    twins = f"×{count}" if count > 1 else ""
    tick = "✓" if chosen else ""
    if not boxed:
        return Text(f"{number:>3}{str(heads).translate(_SUPERSCRIPT)}{twins}{tick}")
    marks = "✱" * heads if heads <= 3 else f"{heads}✱"
    return Text(f"{number}{twins}{tick}\n{marks}", justify="center")


class CardWidget(Static):
    """One card. Its colour comes from its bullheads (CSS classes ``heads-N``)."""

    class Clicked(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    class Hovered(Message):
        """The pointer is over a card (``number``), or has left it (None)."""

        def __init__(self, number: int | None) -> None:
            super().__init__()
            self.number = number

    def __init__(self, number: int, tr: gettext.NullTranslations, *, count: int = 1, boxed: bool = False) -> None:
        heads = "pass" if number == PASS else str(BULLHEADS[number])
        super().__init__(card_face(number, count, boxed, tr), classes=f"card heads-{heads}")
        self.number = number
        self.count = count
        self.boxed = boxed
        self.tr = tr
        self.chosen = False
        self.set_class(boxed, "-boxed")

    def mark(self, *, selected: bool, chosen: bool) -> None:
        self.set_class(selected, "-selected")
        self.set_class(chosen, "-chosen")
        if chosen != self.chosen:
            self.chosen = chosen
            self.update(card_face(self.number, self.count, self.boxed, self.tr, chosen))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.number))

    def on_enter(self, _: events.Enter) -> None:
        self.post_message(self.Hovered(self.number))

    def on_leave(self, _: events.Leave) -> None:
        self.post_message(self.Hovered(None))


#: The columns a boxed card takes in a line of cards, its margin included (sixnimmt.tcss: .card.-boxed).
BOXED_CARD_WIDTH = 8


def card_width(number: int, tr: gettext.NullTranslations, *, boxed: bool, chosen: bool = False) -> int:
    """The columns a card takes in a line of cards (:class:`CardLine`), its margin included."""
    if boxed:
        return BOXED_CARD_WIDTH
    padding = 2 if number == PASS else 0  # the "pass" chip is padded (sixnimmt.tcss: .heads-pass)
    return card_face(number, 1, False, tr, chosen).cell_len + padding + 1


def lines_of_cards(widths: Sequence[int], first: int, width: int) -> list[int]:
    """How many cards go on each line when cards of ``widths`` wrap in ``width`` columns, the
    first line starting ``first`` columns in (the label), the next ones indented as much, so that
    the cards stand in columns. Every line holds at least one card: none is ever left out."""
    room = max(width - first, 1)
    counts: list[int] = []
    used = 0
    for card in widths:
        if counts and used + card <= room:
            counts[-1] += 1
            used += card
        else:
            counts.append(1)
            used = card
    return counts


class CardLine(Vertical):
    """A line of cards (the hand, the open deck, the options), wrapped onto as many lines as it
    needs, so that no card is ever out of sight: rebuilt only when its cards or their lines change."""

    def __init__(self, tr: gettext.NullTranslations, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tr = tr
        self.shown: tuple[object, ...] | None = None

    def show(self, numbers: Sequence[int], *, boxed: bool, width: int = 10_000, selected: int | None = None,
             marked: Sequence[int] = (), label: str | None = None) -> None:  # fmt: skip
        """``width``: the columns the line has (the cards wrap there)."""
        label_width = Text(label).cell_len + 1 if label is not None else 0  # its padding-right
        widths = [card_width(n, self.tr, boxed=boxed, chosen=n in marked) for n in numbers]
        counts = lines_of_cards(widths, label_width, width)
        key = (tuple(numbers), boxed, tuple(counts), tuple(n for n in numbers if n in marked), label)
        if key == self.shown:
            self._mark(selected, tuple(marked))
            return
        self.shown = key
        self.remove_children()
        lines: list[Horizontal] = []
        cards = iter(numbers)
        for index, count in enumerate(counts or [0]):
            parts: list[Static] = []
            if label is not None:
                # The label on the first line; blank space as wide on the next ones (a grid).
                text = Text(label, style="bold") if index == 0 else Text(" " * (label_width - 1))
                parts.append(Static(text, classes="card-label"))
            for _ in range(count):
                number = next(cards)
                widget = CardWidget(number, self.tr, boxed=boxed)
                widget.mark(selected=number == selected, chosen=number in marked)  # drawn marked at once
                parts.append(widget)
            lines.append(Horizontal(*parts, classes="card-row"))
        self.mount_all(lines)

    def _mark(self, selected: int | None, marked: tuple[int, ...]) -> None:
        for widget in self.query(CardWidget):
            widget.mark(selected=widget.number == selected, chosen=widget.number in marked)

    def card(self, number: int) -> CardWidget | None:
        """The widget showing ``number``, if this line shows it."""
        for widget in self.query(CardWidget):
            if widget.number == number:
                return widget
        return None


class RowWidget(Horizontal):
    """One row of the table on one line: its number, its cards (twins stacked on one place, as in
    Double), its free places and what taking it costs. A click on it posts :class:`Clicked`."""

    class Clicked(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, index: int, tr: gettext.NullTranslations) -> None:
        super().__init__(classes="row")
        self.index = index
        self.tr = tr
        self.shown: tuple[tuple[int, ...], bool, frozenset[int]] | None = None
        # The latest drawing asked for before this row's own parts were mounted (a resize can
        # redraw the table in between); it is drawn as soon as they are.
        self.waiting: tuple[Sequence[int], bool, bool, bool, bool, frozenset[int]] | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="row-label")
        yield Horizontal(classes="row-cards")
        yield Static(classes="row-tail")

    def on_mount(self) -> None:
        if self.waiting is not None:
            cards, boxed, option, cursor, preview, placed = self.waiting
            self.show(cards, boxed=boxed, option=option, cursor=cursor, preview=preview, placed=placed)

    def show(self, cards: Sequence[int], *, boxed: bool, option: bool, cursor: bool, preview: bool,
             placed: frozenset[int] = frozenset()) -> None:  # fmt: skip
        if not self.query(".row-label"):
            self.waiting = (tuple(cards), boxed, option, cursor, preview, placed)
            return
        self.waiting = None
        g, n = self.tr.gettext, self.tr.ngettext
        self.set_class(option, "-option")
        self.set_class(cursor, "-cursor")
        self.set_class(preview, "-preview")
        label = Text("▶" if cursor else " ", style="bold magenta")
        label.append(g("Row {number}").format(number=self.index + 1), style="bold" if option else "")
        self.query_one(".row-label", Static).update(label)
        key = (tuple(cards), boxed, placed & set(cards))
        stacks = [list(group) for _key, group in groupby(cards)]
        if key != self.shown:
            self.shown = key
            holder = self.query_one(".row-cards", Horizontal)
            holder.remove_children()
            widgets: list[Static] = []
            for stack in stacks:
                widget = CardWidget(stack[0], self.tr, count=len(stack), boxed=boxed)
                widget.set_class(stack[0] in placed, "-new")
                widgets.append(widget)
            widgets.extend(Static("·", classes="free -boxed" if boxed else "free") for _ in range(ROW_LIMIT - len(stacks)))
            holder.mount_all(widgets)
        heads = row_bullheads(cards)
        full = len(stacks) >= ROW_LIMIT
        tail = Text(n("{count} bullhead", "{count} bullheads", heads).format(count=heads), style="bold red" if full else "")
        if full:
            tail.append(" " + g("full"), style="bold red")
        if option:
            tail.append(" ◀", style="bold magenta")
        self.query_one(".row-tail", Static).update(tail)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.index))

    def on_card_widget_clicked(self, message: CardWidget.Clicked) -> None:
        message.stop()  # a card of a row stands for its row
        self.post_message(self.Clicked(self.index))

    def on_card_widget_hovered(self, message: CardWidget.Hovered) -> None:
        message.stop()  # only a card to play is previewed
