"""Cards and their bullheads (docs/rules.md §1).

A card is a plain ``int`` from 1 to 104. Its penalty is looked up in a table computed once at import,
because the search bots ask for it millions of times.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

DECK_SIZE = 104
HAND_SIZE = 10
ROW_COUNT = 4
ROW_LIMIT = 5  # the sixth card takes the row


def _bullheads_of(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


#: ``BULLHEADS[card]`` is the card's penalty; index 0 is unused.
BULLHEADS: tuple[int, ...] = (0, *tuple(_bullheads_of(c) for c in range(1, DECK_SIZE + 1)))

FULL_DECK: tuple[Card, ...] = tuple(range(1, DECK_SIZE + 1))


def bullheads(card: Card) -> int:
    """Penalty points of one card.

    >>> [bullheads(c) for c in (5, 10, 11, 55, 66, 100, 104)]
    [2, 3, 5, 7, 5, 3, 1]
    """
    if not 1 <= card <= DECK_SIZE:
        raise ValueError(f"there is no card {card!r}: cards are numbered 1 to {DECK_SIZE}")
    return BULLHEADS[card]


def total_bullheads(cards: Iterable[Card]) -> int:
    """Sum of the bullheads of ``cards``.

    >>> total_bullheads(range(1, 105))
    171
    """
    return sum(BULLHEADS[c] for c in cards)
