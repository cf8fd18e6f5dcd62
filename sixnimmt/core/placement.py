"""Where a card goes (docs/rules.md §3 rules 1-4 and §5.3). Pure functions over rows; no state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .cards import Card


class Side(StrEnum):
    RIGHT = "right"  # after the row's last card (the only side outside Professional)
    LEFT = "left"  # before the row's first card (Professional only)


@dataclass(frozen=True, slots=True)
class Slot:
    """One end of one row."""

    row: int
    side: Side = Side.RIGHT


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
    best: list[Slot] = []
    best_distance = 1 << 30
    if stack:
        for index, row in enumerate(rows):
            if row[-1] == card:
                return (Slot(index, Side.RIGHT),)
    for index, row in enumerate(rows):
        distance = card - row[-1]
        if distance > 0:
            if distance < best_distance:
                best_distance, best = distance, [Slot(index, Side.RIGHT)]
            elif distance == best_distance:
                best.append(Slot(index, Side.RIGHT))
        if professional:
            distance = row[0] - card
            if distance > 0:
                if distance < best_distance:
                    best_distance, best = distance, [Slot(index, Side.LEFT)]
                elif distance == best_distance:
                    best.append(Slot(index, Side.LEFT))
    # Row ends are distinct cards, so the rules leave at most a left/right pair tied.
    assert len(best) <= 2, (rows, card, best)
    return tuple(best)
