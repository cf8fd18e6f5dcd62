"""What the table shows, as pure functions of a :class:`~sixnimmt.tui.session.GameSession`: the
status line, the prompt, the hint, the scores, the cards on the table. No Textual here: the screen
puts these renderables into its widgets, and tests can read them directly.
"""

from __future__ import annotations

from enum import StrEnum

from rich.table import Table
from rich.text import Text

from ..core import PASS, Decision, DecisionKind, Phase, PlayerView
from .render import (
    KEYS_CARD,
    KEYS_CHANGE,
    KEYS_DRAFT,
    KEYS_REVEAL,
    KEYS_ROW,
    KEYS_WAIT,
    Keys,
    card,
    cards_line,
    legend,
    level_name,
    option_chip,
    score_value,
    variant_name,
)
from .session import GameSession, Preview


class Layout(StrEnum):
    """How much the terminal holds. Compact plays fully at 80x24: rows on one line each, the hand
    always visible, the scores and log behind a key. Roomy (160x50 and more): boxed cards on the
    rows too, and a wider log."""

    TOO_SMALL = "too-small"
    COMPACT = "compact"
    NORMAL = "normal"
    ROOMY = "roomy"


MIN_WIDTH, MIN_HEIGHT = 80, 24
NORMAL_WIDTH, NORMAL_HEIGHT = 100, 30
ROOMY_WIDTH, ROOMY_HEIGHT = 160, 50


def layout_for(width: int, height: int) -> Layout:
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return Layout.TOO_SMALL
    if width >= ROOMY_WIDTH and height >= ROOMY_HEIGHT:
        return Layout.ROOMY
    if width >= NORMAL_WIDTH and height >= NORMAL_HEIGHT:
        return Layout.NORMAL
    return Layout.COMPACT


def too_small_text(session: GameSession, width: int, height: int) -> Text:
    message = session.tr.gettext(
        "The terminal is {width}x{height}: the game needs at least {min_width}x{min_height}. "
        "Enlarge the window or reduce the font size."
    )
    return Text(
        message.format(width=width, height=height, min_width=MIN_WIDTH, min_height=MIN_HEIGHT),
        style="bold",
    )


def status_text(session: GameSession, width: int) -> Text:
    """One line: the variant, the deal and turn, how the game ends; the bullhead colours if room."""
    g = session.tr.gettext
    game = session.game
    parts = [g("Deal {number}").format(number=session.shown_deal + 1)]
    if game.phase is Phase.DRAFT and not session.animating:
        parts.append(g("Open draft"))
    elif not game.is_over and game.rules.turns_per_deal is None:  # no fixed number of turns (Hand)
        parts.append(g("Turn {number}").format(number=session.shown_turn + 1))
    elif not game.is_over:
        total = game.turns_per_deal
        parts.append(g("Turn {number} of {total}").format(number=min(session.shown_turn + 1, total), total=total))
    if game.rules.target is not None:
        parts.append(g("Game ends at {target}").format(target=game.rules.target))
    if game.rules.deals is not None and game.rules.turns_per_deal is not None:
        at_most = session.tr.ngettext("{count} deal at most", "{count} deals at most", game.rules.deals)
        parts.append(at_most.format(count=game.rules.deals))
    variant = variant_name(game.rules.variant.value, session.tr)
    facts = "".join(" · " + part for part in parts)
    # the game's name where there is room: what the game is and how it ends matter more
    title = f"6 nimmt! {variant}" if len(f"6 nimmt! {variant}{facts}") <= width else variant
    status = Text(title, style="bold")
    status.append(facts)
    key = legend(session.tr)
    if status.cell_len + 3 + key.cell_len <= width:
        status.append("   ")
        status.append_text(key)
    return status


def table_keys(session: GameSession) -> Keys:
    """What the keys do now, for the key bar: choose a card, take a row, skip the reveal, change
    a card already chosen, or only wait."""
    if session.animating:
        return KEYS_REVEAL
    decision = session.decision()
    if decision is not None and decision.kind is DecisionKind.ROW:
        return KEYS_ROW
    if decision is not None and decision.kind is DecisionKind.DRAFT:
        return KEYS_DRAFT
    if decision is not None:
        return KEYS_CARD
    return KEYS_CHANGE if session.may_change() else KEYS_WAIT


def pieces_line(pieces: list[Text], width: int, start: Text | None = None) -> Text:
    """Pieces (a name and its score, a name and its card) two spaces apart, over as many lines as
    ``width`` needs, a line breaking between pieces, never inside one."""
    line = Text()
    used = 0
    if start is not None:
        line.append_text(start)
        line.append(" ")
        used = start.cell_len + 1
    for index, piece in enumerate(pieces):
        gap = 2 if index else 0
        if used and used + gap + piece.cell_len > width:
            line.append("\n")
            used = 0
        elif gap:
            line.append(" " * gap)
            used += gap
        line.append_text(piece)
        used += piece.cell_len
    line.no_wrap = True  # the lines are broken here, between pieces
    line.overflow = "ellipsis"
    return line


def scores_line(session: GameSession, view: PlayerView, width: int = 10_000) -> Text:
    """The compact layout's scores: ``You 3  Ada 0✓  Bruno 5…`` (the side panel has the table),
    a line breaking between players, never between a name and its score."""
    count_down = session.config.count_down
    entries: list[Text] = []
    for seat, name in enumerate(view.seats):
        entry = Text(name, style="bold" if seat == session.viewer else "")
        entry.append(f" {score_value(view.totals[seat], session.config.target, count_down)}")
        deal = view.penalties[seat]
        if deal:
            entry.append(f"(-{deal})" if count_down else f"(+{deal})", style="red")
        entry.append_text(_mark(session, view, seat))
        entries.append(entry)
    return pieces_line(entries, width)


#: The frames of the spinner a thinking bot shows next to its name (the screen turns it while any
#: bot thinks, ``session.spinner`` counting the turns).
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def _mark(session: GameSession, view: PlayerView, seat: int, *, words: bool = False) -> Text:
    """A seat's state after its name: a spinner (and, with ``words``, "thinking…") while its bot
    thinks, ✓ once it has chosen."""
    if seat in session.thinking:
        mark = Text(SPINNER[session.spinner % len(SPINNER)], style="bold yellow")
        if words:
            mark.append(" " + session.tr.gettext("thinking…"), style="yellow")
        return mark
    if view.phase is Phase.PLAY and view.chosen[seat]:
        return Text("✓", style="green")
    return Text("")


def scores_table(session: GameSession, view: PlayerView) -> Table:
    g = session.tr.gettext
    count_down = session.config.count_down
    table = Table(box=None, padding=(0, 1), expand=True)
    table.add_column(g("Player"))
    table.add_column(g("Deal"), justify="right")
    table.add_column(g("Left") if count_down else g("Total"), justify="right")
    table.add_column("")
    for seat, name in enumerate(view.seats):
        spec = session.config.seats[seat]
        label = Text(name, style="bold" if seat == session.viewer else "")
        if spec.bot is not None:
            label.append(f" ({level_name(spec.bot, session.tr)})", style="grey50")
        if seat in view.winners:
            label.append(" ★", style="bold yellow")
        deal = view.penalties[seat]
        table.add_row(
            label,
            Text(f"-{deal}" if count_down and deal else str(deal), style="red" if deal else ""),
            str(score_value(view.totals[seat], session.config.target, count_down)),
            _mark(session, view, seat, words=True),
        )
    return table


def revealed_text(session: GameSession, view: PlayerView, width: int = 10_000) -> Text:
    """The cards of this turn: Open's face-up cards so far, or the reveal being placed; a line
    breaks between players, never between a name and its card."""
    g = session.tr.gettext
    seats = session.game.seats

    def piece(seat: int, number: int, dim: bool = False) -> Text:
        text = Text(f"{seats[seat]} ")
        text.append_text(card(number, dim=dim))
        return text

    if session.revealed is not None:
        pieces = [piece(seat, number, number in session.placed)
                  for seat, number in sorted(session.revealed, key=lambda p: p[1])]  # fmt: skip
        return pieces_line(pieces, width, Text(g("On the table:"), style="bold"))
    if view.face_up is not None and any(c is not None for c in view.face_up):
        pieces = [piece(seat, number) for seat, number in enumerate(view.face_up) if number is not None]
        return pieces_line(pieces, width, Text(g("Face up:"), style="bold"))
    return Text()


def prompt_text(session: GameSession, view: PlayerView, preview: Preview | None = None) -> Text:
    """What the player is asked, or what the table waits for; an error or a preview after it."""
    text = _prompt(session, view)
    if session.error is not None:
        text.append("\n")
        text.append(session.error, style="bold white on red3")
    elif session.confirming is not None:
        text.append("\n")
        confirm = session.tr.gettext("Play {card}? Enter again to confirm, Esc to choose again.")
        text.append(confirm.format(card=session.confirming), style="bold yellow")
    elif preview is not None:
        text.append("\n")
        text.append_text(preview_text(session, preview))
    return text


def _prompt(session: GameSession, view: PlayerView) -> Text:
    g = session.tr.gettext
    game = session.game
    decision = session.decision()
    if session.animating:
        placing = Text(g("Placing the cards, lowest first… (any key skips)"), style="italic")
        if session.typed:
            placing.append("  " + g("typed: {number}").format(number=session.typed), style="bold magenta")
        return placing
    if game.is_over:
        return Text(g("The game is over."), style="bold")
    if decision is None:
        if session.viewer is not None and view.my_choices and game.phase is Phase.PLAY:
            cards = " + ".join(str(c) for c in view.my_choices)
            if session.may_change():
                text = g("You play {cards}. Waiting for the others… (you may still change it, or u takes it back)")
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
        text += " " + g("(↑ ↓ or the row's number, then Enter; or click the row)")
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
    line = Text(text.format(name=name), style="bold")
    if session.typed:
        line.append("  " + g("typed: {number}").format(number=session.typed), style="bold magenta")
    return line


def preview_text(session: GameSession, preview: Preview) -> Text:
    """Where a hovered card would go, and a warning when it would take a row."""
    g, n = session.tr.gettext, session.tr.ngettext
    if preview.row is None:
        text = g("{card} is lower than every row: you would take a row (the cheapest: {bullheads}).")
        heads = n("{count} bullhead", "{count} bullheads", preview.bullheads).format(count=preview.bullheads)
        return Text(text.format(card=preview.card, bullheads=heads), style="bold red")
    if preview.sixth:
        text = g("{card} would be the 6th card of row {row}: you would take it ({bullheads}).")
        heads = n("{count} bullhead", "{count} bullheads", preview.bullheads).format(count=preview.bullheads)
        return Text(text.format(card=preview.card, row=preview.row + 1, bullheads=heads), style="bold red")
    text = g("{card} would join row {row}.")
    return Text(text.format(card=preview.card, row=preview.row + 1), style="green")


def options_label(session: GameSession, decision: Decision | None) -> str | None:
    """The label before the options when they are not the hand's cards (the open deck, the two
    cards to order, a taken row's cards to keep, a second card or pass); None when they are."""
    if decision is None or decision.kind is DecisionKind.ROW:
        return None
    if decision.kind is DecisionKind.CARD and PASS not in decision.options:
        return None
    if decision.kind is DecisionKind.CARD and session.viewer != decision.seat:
        return None
    g = session.tr.gettext
    labels = {
        DecisionKind.DRAFT: g("Open deck:"),
        DecisionKind.ORDER: g("Place first:"),
        DecisionKind.KEEP: g("Keep in hand:"),
        DecisionKind.CARD: g("Play:"),
    }
    return labels[decision.kind]


def options_text(session: GameSession, decision: Decision) -> Text:
    """Options that are not the hand's cards, as chips, the cursor on one."""
    text = Text()
    for index, option in enumerate(decision.options):
        text.append_text(option_chip(option, session.tr, selected=index == session.cursor))
        text.append(" ")
    return text


def open_hands_text(session: GameSession, view: PlayerView) -> Text:
    """After an open draft every hand is public: everyone else's, one line each."""
    if view.hands is None or view.deal != session.shown_deal:
        return Text()
    text = Text(session.tr.gettext("Open hands:"), style="bold")
    for seat, hand in enumerate(view.hands):
        if seat == session.viewer:
            continue
        text.append(f"\n{view.seats[seat]:>12}  ")
        text.append_text(cards_line(hand))
    return text


def hint_text(session: GameSession) -> Text:
    """The hint bot's advice: its choice, and the expected bullheads of each option."""
    g = session.tr.gettext
    decision = session.decision()
    if session.hint is None or decision is None or session.hint_for != session.hint_key(decision.seat):
        return Text()
    advice = session.hint
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
    bot = level_name(advice.bot, session.tr)
    text = Text(g("Hint ({bot}): {best}.").format(bot=bot, best=best), style="bold cyan")
    if advice.scores:
        text.append("  " + g("Expected bullheads this deal:") + " ")
        for option, score in sorted(advice.scores.items()):
            if decision.kind is DecisionKind.ROW:
                label = str(option + 1)
            else:
                label = g("pass") if option == PASS else str(option)
            # One word per option (no space inside): a line wraps between options, never inside one.
            piece = f"{label}→{score:.1f}"
            text.append(piece, style="bold" if option == advice.choice else "")
            text.append("  ")
    return text
