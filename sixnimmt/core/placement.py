"""Where a card goes (docs/rules.md §3 rules 1-4 and §5.3). Pure functions over rows; no state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .cards import ROW_COUNT, Card


class Side(StrEnum):
    RIGHT = "right"  # after the row's last card (the only side outside Professional)
    LEFT = "left"  # before the row's first card (Professional only)


@dataclass(frozen=True, slots=True)
class Slot:
    """One end of one row."""

    row: int
    side: Side = Side.RIGHT


_FAR = 1 << 30  # farther than any two cards
#: ``(Slot(row),)`` for each row, the answer of nearly every call, made once: the engine places every
#: card through :func:`best_slots`, and its record tier runs 11% faster so (docs/performance.md).
_ON_THE_RIGHT: tuple[tuple[Slot], ...] = tuple((Slot(row),) for row in range(ROW_COUNT))


def row_size(row: Sequence[Card], stack: bool = False) -> int:
    """Places a row fills toward the limit of 5: its cards, or in Double its stacks of twins."""
    if not stack:
        return len(row)
    return sum(1 for i, card in enumerate(row) if i == 0 or row[i - 1] != card)


def best_slots(
    rows: Sequence[Sequence[Card]], card: Card, professional: bool = False, stack: bool = False
) -> tuple[Slot, ...]:
    """The row ends closest to ``card`` that accept it.

    Returns ``()`` when no end accepts the card (it is too low: its owner takes a row of their
    choice), one slot normally, and two slots only for a Professional tie between one row's left end
    and another row's right end. With ``stack`` (Double) a card whose twin ends a row goes on it.

    >>> best_slots([[12], [37], [43], [58]], 44)
    (Slot(row=2, side=<Side.RIGHT: 'right'>),)
    >>> best_slots([[20], [30], [40], [50]], 3)
    ()
    """
    if stack:
        for index, row in enumerate(rows):
            if row[-1] == card:
                return _ON_THE_RIGHT[index]
    if not professional:
        # The row whose last card is the highest below this one (§3 rule 1).
        best_row, best_end = -1, 0
        for index, row in enumerate(rows):
            end = row[-1]
            if best_end < end < card:
                best_row, best_end = index, end
        return _ON_THE_RIGHT[best_row] if best_row >= 0 else ()
    # Professional (§5.3): also before the row whose first card is the lowest above this one.
    best: list[Slot] = []
    best_distance = _FAR
    for index, row in enumerate(rows):
        for side, distance in ((Side.RIGHT, card - row[-1]), (Side.LEFT, row[0] - card)):
            if 0 < distance < best_distance:
                best_distance, best = distance, [Slot(index, side)]
            elif distance == best_distance:
                best.append(Slot(index, side))
    # Row ends are distinct cards, so the rules leave at most a left/right pair tied.
    assert len(best) <= 2, (rows, card, best)
    return tuple(best)
