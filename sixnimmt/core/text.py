"""Plain-text descriptions of games and events, for logs and ``sixnimmt replay show``."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BULLHEADS
from .events import (
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
    RowsLaid,
    RowTaken,
)
from .game import Game


def printable(text: str, limit: int | None = None) -> str:
    """``text`` safe for a terminal: control and format characters (newlines, ANSI escapes...)
    escaped as ``\\x1b``-style sequences; cut to ``limit`` characters with ``...`` when longer."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 3)] + "..."
    return text


def card_text(card: int) -> str:
    """``55*7``: the number, with its bullheads when there is more than one."""
    heads = BULLHEADS[card]
    return f"{card}" if heads == 1 else f"{card}*{heads}"


def rows_text(rows: Sequence[Sequence[int]]) -> str:
    return "  ".join("[" + " ".join(card_text(c) for c in row) + "]" for row in rows)


def describe_event(event: Event, seats: Sequence[str]) -> str | None:
    """One line for an event a reader cares about, or None."""
    if isinstance(event, DealStarted):
        start = f" rows {rows_text(event.rows)}" if any(event.rows) else " (open draft)"
        return f"== Deal {event.deal + 1}:{start}"
    if isinstance(event, DraftPicked):
        return f"   draft: {seats[event.seat]} takes {event.card}"
    if isinstance(event, RowsLaid):
        return f"   rows laid: {rows_text(event.rows)}"
    if isinstance(event, CardShown):
        return f"   {seats[event.seat]} plays {card_text(event.card)} face up"
    if isinstance(event, CardsRevealed):
        by_seat: dict[int, list[str]] = {}
        for seat, card in event.seat_cards:
            by_seat.setdefault(seat, []).append(card_text(card))
        if event.seat is not None:  # Hand: one player's turn
            plays = f"{seats[event.seat]} plays " + " ".join(by_seat.get(event.seat, []))
        else:
            plays = ", ".join(f"{seats[s]} " + " ".join(cards) for s, cards in by_seat.items())
        return f"-- Turn {event.turn + 1}: {plays}"
    if isinstance(event, OrderChosen):
        return f"   {seats[event.seat]} places " + " then ".join(card_text(c) for c in event.cards)
    if isinstance(event, CardsKept):
        if not event.cards:
            return None
        return f"   {seats[event.seat]} keeps " + " ".join(card_text(c) for c in event.cards) + " in hand"
    if isinstance(event, RowTaken) and event.reason == "twin":
        return f"   {seats[event.seat]} shares that pickup: {event.bullheads} bullheads"
    if isinstance(event, RowTaken):
        why = "sixth card" if event.reason == "full" else "chosen row"
        cards = " ".join(card_text(c) for c in event.cards)
        return (
            f"   {seats[event.seat]} takes row {event.row + 1} ({why}): {cards}"
            f" = {event.bullheads} bullhead{'s' if event.bullheads != 1 else ''}"
        )
    if isinstance(event, CardPlaced):
        side = " (left end)" if event.side == "left" else ""
        return f"   {card_text(event.card)} -> row {event.row + 1}{side}"
    if isinstance(event, DealScored):
        parts = ", ".join(
            f"{seats[s]} +{p} = {t}" for s, (p, t) in enumerate(zip(event.penalties, event.totals))
        )
        return f"   deal scored: {parts}"
    if isinstance(event, GameOver):
        names = " and ".join(seats[s] for s in event.winners)
        return f"== Game over. Winner{'s' if len(event.winners) > 1 else ''}: {names}"
    return None


def describe_game(game: Game) -> str:
    """The whole game so far as text, one line per event worth reading."""
    seats = [printable(name, 40) for name in game.seats]  # names come from outside: no raw escapes
    lines = [f"6 nimmt! {game.rules.variant.value}, {game.players} players: " + ", ".join(seats)]
    for event in game.events:
        line = describe_event(event, seats)
        if line is not None:
            lines.append(line)
    return "\n".join(lines)
