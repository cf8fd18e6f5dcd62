"""Everything that happens in a game, as immutable events.

Events carry only public information: anyone at the table (or watching) may see every event. A card
that has been chosen but not revealed appears only as ``CardChosen(seat)``, without the card.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .cards import Card
from .frozen import FrozenTuple

Cards = tuple[Card, ...]


class Event(FrozenTuple):
    """Base of every event: immutable, its fields in order (core/frozen.py), a ``type`` name."""

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        # Each field, then the type; no deep copy: every field is an int, a string, None or a
        # tuple of them, none of which can change.
        data = dict(zip(self._fields, self))
        data["type"] = self.type
        return data


class DealStarted(Event):
    """A new deal: the rows are laid (empty in Logic until the draft ends)."""

    type: ClassVar[str] = "deal-started"
    deal: int
    rows: tuple[Cards, ...]


class DraftPicked(Event):
    """Logic: a player took a card from the open draft."""

    type: ClassVar[str] = "draft-picked"
    deal: int
    seat: int
    card: Card


class RowsLaid(Event):
    """Logic: the draft is over and the four cards left start the rows, ascending."""

    type: ClassVar[str] = "rows-laid"
    deal: int
    rows: tuple[Cards, ...]


class CardChosen(Event):
    """A player has chosen this turn's card; which card stays secret until the reveal."""

    type: ClassVar[str] = "card-chosen"
    deal: int
    turn: int
    seat: int


class CardShown(Event):
    """Open: a player played a card face up (the turn's cards are placed once all are down)."""

    type: ClassVar[str] = "card-shown"
    deal: int
    turn: int
    seat: int
    card: Card


class OrderChosen(Event):
    """Nifty: a player's two cards are placed now, in this order."""

    type: ClassVar[str] = "order-chosen"
    deal: int
    turn: int
    seat: int
    cards: Cards


class CardsKept(Event):
    """Hand: of the row a player just took, these cards went to their hand (the rest to the pile)."""

    type: ClassVar[str] = "cards-kept"
    deal: int
    turn: int
    seat: int
    cards: Cards
    card: Card | None = None  # the card whose placement took the row


#: ``(seat, card)``: who played which card.
SeatCard = tuple[int, Card]


class CardsRevealed(Event):
    """The cards of a turn, shown together. ``seat_cards`` says who played what, the same way in
    every variant: ``((seat, card), ...)``, by seat (Nifty: each seat's pair ascending; Hand: the one
    player's cards in the order they are placed).

    ``plays`` is the same cards without their seats, kept for readers of version 1 and 2 of the
    bot protocol: ``plays[seat]``, in Nifty ``plays[2 * seat]`` and ``plays[2 * seat + 1]``, in Hand
    the cards of the player named by ``seat``.
    """

    type: ClassVar[str] = "cards-revealed"
    deal: int
    turn: int
    plays: Cards
    seat: int | None = None  # Hand: whose turn it is (the others play no card)
    seat_cards: tuple[SeatCard, ...] = ()


class RowChoiceRequired(Event):
    """A player must choose a row: their card is too low, or ties two ends in Professional."""

    type: ClassVar[str] = "row-choice-required"
    deal: int
    turn: int
    seat: int
    card: Card
    rows: tuple[int, ...]
    reason: str  # "too-low" or "tie"


class RowTaken(Event):
    """A player took a row's cards into their pile."""

    type: ClassVar[str] = "row-taken"
    deal: int
    turn: int
    seat: int
    row: int
    cards: Cards
    bullheads: int
    reason: str  # "full" (sixth card), "too-low" (chosen row), "twin" (Double: a shared pickup)


class CardPlaced(Event):
    """A card was added to a row end (after a take, it is the row's only card)."""

    type: ClassVar[str] = "card-placed"
    deal: int
    turn: int
    seat: int
    card: Card
    row: int
    side: str  # "right" or "left"


class DealScored(Event):
    """End of a deal: each pile's bullheads are added to the totals."""

    type: ClassVar[str] = "deal-scored"
    deal: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


class GameOver(Event):
    type: ClassVar[str] = "game-over"
    totals: tuple[int, ...]
    winners: tuple[int, ...]


def _frozen(value: Any) -> Any:
    """JSON's lists back into the tuples an event holds (``rows``, ``seat_cards``' pairs)."""
    return tuple(_frozen(item) for item in value) if isinstance(value, list) else value


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :meth:`Event.to_dict` (a client of the Bot API rebuilds the events it is sent);
    ``ValueError`` naming the type for an event this version does not know."""
    kinds = {kind.type: kind for kind in _EVENT_KINDS}
    kind = kinds.get(data.get("type", ""))
    if kind is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    return kind(**{name: _frozen(data[name]) for name in kind._fields if name in data})


_EVENT_KINDS: tuple[type[Event], ...] = (
    DealStarted, DraftPicked, RowsLaid, CardChosen, CardShown, OrderChosen, CardsKept, CardsRevealed,
    RowChoiceRequired, RowTaken, CardPlaced, DealScored, GameOver,
)
