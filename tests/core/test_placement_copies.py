"""The compiled and fast copies of the placement rule agree with the reference, position by position.

The reference engine places every card through :func:`~sixnimmt.core.placement.best_slots` (and
:func:`~sixnimmt.core.placement.row_size` for a full row). The fast tier (``FastDeal``) and the numba
kernels (``nb_row_for``, ``nb_slots_pro``, ``nb_place_double``, which the vector env's kernels call
too) keep copies of it for speed; each is checked here on random positions of every variant.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sixnimmt.core import ROW_LIMIT, Rules, Side, best_slots, row_size
from sixnimmt.core.fast import (
    DOUBLE_ROW_WIDTH,
    FastDeal,
    nb_place_double,
    nb_row_for,
    nb_slots_pro,
    row_cost,
)
from sixnimmt.core.variants import VARIANT_NAMES, Placement

Rows = list[list[int]]
#: A Professional tie (20 is 10 above row 0's end and 10 below row 1's start): rare at random.
TIE = (Rules(players=3, variant="professional"), [[10], [30, 31], [50], [70]], 20)


@st.composite
def positions(draw: st.DrawFn, placements: tuple[Placement, ...] = tuple(Placement)) -> tuple[Rules, Rows, int]:
    """Four rows of one to five cards from a variant's deck (each row in ascending order, as play
    leaves it) and a card still to place, for a variant whose placement is one of ``placements``."""
    names = [name for name in VARIANT_NAMES if Rules(players=3, variant=name).spec.placement in placements]
    rules = Rules(players=3, variant=draw(st.sampled_from(names)))
    deck = draw(st.permutations(rules.deck))
    sizes = draw(st.lists(st.integers(1, ROW_LIMIT), min_size=4, max_size=4))
    rows, at = [], 0
    for size in sizes:
        rows.append(sorted(deck[at : at + size]))
        at += size
    return rules, rows, deck[at]


def arrays(rows: Rows, width: int = ROW_LIMIT + 1) -> tuple[np.ndarray, np.ndarray]:
    """The compiled tier's rows: ``int64[4, width]`` and their lengths."""
    cells = np.zeros((4, width), dtype=np.int64)
    for r, row in enumerate(rows):
        cells[r, : len(row)] = row
    return cells, np.array([len(row) for row in rows], dtype=np.int64)


def placed(rows: Rows, card: int, stack: bool, slot_row: int | None, side: Side = Side.RIGHT) -> tuple[Rows, int]:
    """The rows after ``card`` goes to ``slot_row`` (None: too low, it takes row 0) and the
    bullheads taken, as the reference engine places it (``Game._place``)."""
    after = [list(row) for row in rows]
    if slot_row is None:
        return [[card], *after[1:]], row_cost(rows[0])
    row = after[slot_row]
    if stack and row[-1] == card:
        row.append(card)
        return after, 0
    if row_size(row, stack) >= ROW_LIMIT:
        after[slot_row] = [card]
        return after, row_cost(row)
    if side is Side.RIGHT:
        row.append(card)
    else:
        row.insert(0, card)
    return after, 0


@settings(max_examples=300, deadline=None)
@given(positions((Placement.RIGHT_END, Placement.EITHER_END)))
@example(TIE)
def test_the_fast_tier_places_every_card_where_best_slots_says(position: tuple[Rules, Rows, int]) -> None:
    rules, rows, card = position
    professional = rules.spec.placement is Placement.EITHER_END
    slots = best_slots(rows, card, professional)
    fast = FastDeal(rows, 1, professional=professional)
    # A too-low card takes row 0; a Professional tie goes to the first tied end best_slots lists.
    fast.place(0, card, choose=lambda _rows, _seat, _card: slots[0].row if slots else 0)
    slot = slots[0] if slots else None
    expected_rows, taken = placed(rows, card, False, slot and slot.row, slot.side if slot else Side.RIGHT)
    assert (fast.rows, fast.penalties) == (expected_rows, [taken])


@settings(max_examples=300, deadline=None)
@given(positions((Placement.RIGHT_END,)))
def test_the_compiled_row_search_finds_the_row_best_slots_finds(position: tuple[Rules, Rows, int]) -> None:
    _, rows, card = position
    slots = best_slots(rows, card)
    row, gap = nb_row_for(*arrays(rows), card)
    assert row == (slots[0].row if slots else -1)
    if slots:
        assert gap == card - rows[row][-1]


@settings(max_examples=300, deadline=None)
@given(positions((Placement.EITHER_END,)))
@example(TIE)
def test_the_compiled_professional_search_finds_the_ends_best_slots_finds(position: tuple[Rules, Rows, int]) -> None:
    _, rows, card = position
    slots = best_slots(rows, card, professional=True)
    right, left, _ = nb_slots_pro(*arrays(rows), card)
    found = {(right, Side.RIGHT), (left, Side.LEFT)} - {(-1, Side.RIGHT), (-1, Side.LEFT)}
    assert found == {(slot.row, slot.side) for slot in slots}


@settings(max_examples=300, deadline=None)
@given(positions((Placement.STACKED,)))
def test_the_compiled_double_placement_follows_best_slots(position: tuple[Rules, Rows, int]) -> None:
    _, rows, card = position
    slots = best_slots(rows, card, stack=True)
    cells, lens = arrays(rows, DOUBLE_ROW_WIDTH)
    taken = nb_place_double(cells, lens, card, 0)  # a too-low card takes row 0
    expected_rows, expected_taken = placed(rows, card, True, slots[0].row if slots else None)
    assert [list(cells[r, : lens[r]]) for r in range(4)] == expected_rows
    assert taken == expected_taken
