"""How cards, rows, scores and events look in the terminal (rich ``Text``), in the player's language.

Nothing here decides anything about the game: the engine does. :func:`apply_event` only follows the
engine's events to redraw the rows step by step during the reveal animation and in the replay viewer.
"""

from __future__ import annotations

import gettext
from collections.abc import Sequence
from itertools import groupby

from rich.text import Text

from ..core import (
    BULLHEADS,
    PASS,
    ROW_LIMIT,
    CardPlaced,
    CardShown,
    CardsKept,
    CardsRevealed,
    DealScored,
    DealStarted,
    DraftPicked,
    Event,
    GameOver,
    OrderChosen,
    RowChoiceRequired,
    RowsLaid,
    RowTaken,
)
from ..core.variants import variant_spec
from ..i18n import N_
from .config import HINT_BOT, is_external

Rows = list[list[int]]

def variant_name(variant: str, tr: gettext.NullTranslations) -> str:
    """A variant's name in the player's language: its spec's title is the message id."""
    return tr.gettext(variant_spec(variant).title)


#: The key bars (our own, so that they are translated): key -> what it does now. The table's bar
#: follows the moment (panels.table_keys): a card to choose, a row to take, the reveal, waiting.
Keys = tuple[tuple[str, str], ...]
_KEYS_ALWAYS: Keys = (("l", N_("log")), ("?", N_("help")), ("q", N_("quit")))
KEYS_CARD: Keys = (("Enter", N_("play")), ("← →", N_("card")), ("h", N_("hint")), *_KEYS_ALWAYS)
KEYS_DRAFT: Keys = (("Enter", N_("take the card")), ("← →", N_("card")), ("h", N_("hint")), *_KEYS_ALWAYS)
KEYS_ROW: Keys = (("Enter", N_("take the row")), ("↑ ↓", N_("row")), ("h", N_("hint")), *_KEYS_ALWAYS)
KEYS_CHANGE: Keys = (("u", N_("take back")), ("← →", N_("card")), ("Enter", N_("play")), *_KEYS_ALWAYS)
KEYS_REVEAL: Keys = ((N_("any key"), N_("skip the animation")), *_KEYS_ALWAYS)
KEYS_WAIT: Keys = _KEYS_ALWAYS
KEYS_HELP: Keys = (("↑ ↓", N_("scroll")), ("Esc", N_("back to the game")))
KEYS_HELP_START: Keys = (("↑ ↓", N_("scroll")), ("Esc", N_("close")))  # the rules, from the start screen
KEYS_SUMMARY: Keys = (("Enter", N_("continue")),)
KEYS_PASS: Keys = (("Enter", N_("ready")), ("q", N_("quit")))
KEYS_QUIT: Keys = (("q", N_("quit")),)  # the table hidden for a too small terminal: nothing else works


def key_bar(tr: gettext.NullTranslations, keys: Keys) -> Text:
    """``Enter play  h hint  ...`` in the player's language."""
    bar = Text(no_wrap=True, overflow="ellipsis")
    for key, what in keys:
        bar.append(f" {tr.gettext(key)} ", style="bold reverse")
        bar.append(f" {tr.gettext(what)} ")
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
        "grandmaster": tr.gettext("grandmaster"),
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
        "| Backspace Esc | " + g("correct or forget a typed number") + " |",
        "| ↑ ↓ / 1-4 | " + g("choose a row, when you must take one") + " |",
        "| Enter | " + g("play the card / take the row") + " |",
        "| h | " + g("hint: what the strongest bot ({level}) would play").format(level=level_name(HINT_BOT, tr)) + " |",
        "| Space | " + g("skip the animation (any key does; Enter never plays during it)") + " |",
        "| l | " + g("show or hide the scores and the log") + " |",
        "| " + g("mouse") + " | " + g("click a card to choose it, click it again to play it; click a row to take it") + " |",
        "| ? | " + g("this help") + " |",
        "| q | " + g("quit") + " |",
    ]
    return "\n".join(lines)


#: Card colours by bullheads, so danger shows at a glance: 1 quiet, 2 blue, 3 yellow, 5 orange, 7 red.
CARD_STYLES: dict[int, str] = {
    1: "black on grey82",
    2: "bold white on dodger_blue3",
    3: "bold black on gold1",
    5: "bold white on dark_orange3",
    7: "bold white on red3",
}
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
CARD_WIDTH = 5  # " 55⁷" plus a space between cards


def card(number: int, *, selected: bool = False, dim: bool = False) -> Text:
    """One card: its number and, in superscript, its bullheads, on its bullhead colour."""
    heads = BULLHEADS[number]
    style = CARD_STYLES[heads]
    if selected:
        style = "bold black on cyan1"  # the cursor; the superscript still tells the bullheads
    if dim:
        style = "grey50 on grey23"
    return Text(f"{number:>3}{str(heads).translate(_SUPERSCRIPT)}", style=style)


def option_chip(option: int, tr: gettext.NullTranslations, *, selected: bool = False) -> Text:
    """A card to choose, or the "pass" answer (``PASS``, 0: no second card, keep nothing more)."""
    if option == PASS:
        return Text(f" {tr.gettext('pass')} ", style="bold black on cyan1" if selected else "bold black on grey62")
    return card(option, selected=selected)


def cards_line(numbers: Sequence[int]) -> Text:
    line = Text()
    for index, number in enumerate(numbers):
        if index:
            line.append(" ")
        line.append_text(card(number))
    return line


def legend(_: gettext.NullTranslations) -> Text:
    line = Text(_.gettext("Bullheads:") + " ")
    for heads in (1, 2, 3, 5, 7):
        line.append(f" {heads} ", style=CARD_STYLES[heads])
        line.append(" ")
    return line


def row_bullheads(row: Sequence[int]) -> int:
    return sum(BULLHEADS[c] for c in row)


def row_line(
    index: int,
    row: Sequence[int],
    _: gettext.NullTranslations,
    *,
    option: bool = False,
    cursor: bool = False,
) -> Text:
    """``Row 1  [ 12¹  14¹ ] · · ·  2 🐮``: the cards, the free places, and the row's bullheads."""
    marker = "▶ " if cursor else "  "
    line = Text(marker, style="bold magenta" if cursor else "")
    line.append(_.gettext("Row {number}").format(number=index + 1) + "  ", style="bold" if option else "")
    # Twins only ever lie next to each other in a row (Double), stacked on one place.
    stacks = [list(group) for _key, group in groupby(row)]
    for position in range(ROW_LIMIT):
        if position < len(stacks):
            line.append_text(card(stacks[position][0]))
            if len(stacks[position]) > 1:
                line.append(f"×{len(stacks[position])}", style="bold")
        else:
            line.append("  · ", style="grey50")
        line.append(" ")
    heads = row_bullheads(row)
    tag = _.ngettext("{count} bullhead", "{count} bullheads", heads).format(count=heads)
    full = len(stacks) >= ROW_LIMIT
    line.append(f" {tag}", style="bold red" if full else "")
    if full:
        line.append("  " + _.gettext("full"), style="bold red")
    if option:
        line.append("  ◀", style="bold magenta")
    return line


def apply_event(rows: Rows, event: Event) -> None:
    """Follow one engine event on a copy of the rows (for animation and replay)."""
    if isinstance(event, (DealStarted, RowsLaid)):
        rows[:] = [list(r) for r in event.rows]
    elif isinstance(event, RowTaken):
        rows[event.row] = []
    elif isinstance(event, CardPlaced):
        if event.side == "left":
            rows[event.row].insert(0, event.card)
        else:
            rows[event.row].append(event.card)


def score_value(total: int, target: int | None, count_down: bool) -> int:
    """A total as shown: penalties counted up, or points left counting down from the target."""
    return (target or 66) - total if count_down else total


def _with_cards(line: Text, cards: Sequence[int]) -> Text:
    """A log line followed by the cards it is about."""
    if cards:
        line.append(" ")
        line.append_text(cards_line(cards))
    return line


def event_line(
    event: Event,
    seats: Sequence[str],
    _: gettext.NullTranslations,
    taken: Sequence[int] = (),
) -> Text | None:
    """One log line for an event worth reading, in the player's language (None for the rest).

    ``taken``: the cards of a row taken (the event says only what they cost).
    """
    g, n = _.gettext, _.ngettext
    if isinstance(event, DealStarted):
        return Text(g("Deal {number} begins").format(number=event.deal + 1), style="bold underline")
    if isinstance(event, DraftPicked):
        return Text(g("{card} drafted by {name}").format(name=seats[event.seat], card=event.card))
    if isinstance(event, CardShown):
        line = Text(g("Face up ({name}):").format(name=seats[event.seat]) + " ")
        line.append_text(card(event.card))
        return line
    if isinstance(event, OrderChosen):
        line = Text(g("Order ({name}):").format(name=seats[event.seat]) + " ")
        line.append_text(cards_line(event.cards))
        return line
    if isinstance(event, CardsKept):
        if not event.cards:
            return None
        line = Text(g("Back to hand ({name}):").format(name=seats[event.seat]) + " ")
        line.append_text(cards_line(event.cards))
        return line
    if isinstance(event, RowsLaid):
        return Text(g("The draft is over: the rows are laid"))
    if isinstance(event, CardsRevealed):
        line = Text(g("Turn {number}:").format(number=event.turn + 1) + " ", style="bold")
        for seat, number in sorted(event.seat_cards, key=lambda p: p[1]):
            line.append(f"{seats[seat]} ")
            line.append_text(card(number))
            line.append("  ")
        return line
    if isinstance(event, RowChoiceRequired):
        if event.reason == "tie":
            text = g("{card} ({name}) is as close to two rows: its owner chooses one")
        else:
            text = g("{card} ({name}) is lower than every row: its owner takes a row of their choice")
        return Text(text.format(name=seats[event.seat], card=event.card), style="magenta")
    if isinstance(event, RowTaken) and event.reason == "twin":
        heads = n("{count} bullhead", "{count} bullheads", event.bullheads).format(count=event.bullheads)
        text = g("{name} played the twin and shares the row: {bullheads}").format(
            name=seats[event.seat], bullheads=heads
        )
        return _with_cards(Text(text, style="red"), taken)
    if isinstance(event, RowTaken):
        heads = n("{count} bullhead", "{count} bullheads", event.bullheads).format(count=event.bullheads)
        text = g("Row {row} goes to {name}: {bullheads}").format(
            name=seats[event.seat], row=event.row + 1, bullheads=heads
        )
        return _with_cards(Text(text, style="bold red" if event.bullheads >= 5 else "red"), taken)
    if isinstance(event, CardPlaced):
        if event.side == "left":
            text = g("{card} goes to the left end of row {row}")
        else:
            text = g("{card} goes to row {row}")
        return Text("  " + text.format(card=event.card, row=event.row + 1), style="grey70")
    if isinstance(event, DealScored):
        parts = ", ".join(f"{seats[s]} +{p}" for s, p in enumerate(event.penalties))
        return Text(g("Deal {number} scored:").format(number=event.deal + 1) + " " + parts, style="bold")
    if isinstance(event, GameOver):
        names = ", ".join(seats[s] for s in event.winners)
        return Text(g("Game over. Winner: {names}").format(names=names), style="bold green")
    return None
