"""The compiled Professional kernels (added to sixnimmt.core.fast for the search bots) place cards
exactly like the plain-Python fast path, which the core tests check against the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixnimmt.core import Side, best_slots
from sixnimmt.core.fast import TIE_LEFT, TIE_RIGHT, FastDeal, cheapest_row, nb_place_pro


def random_board(rng: random.Random) -> tuple[list[list[int]], int]:
    cards = rng.sample(range(1, 105), 21)
    rows = [sorted(cards[i * 5 : i * 5 + rng.randint(1, 5)]) for i in range(4)]
    return rows, cards[20]


@pytest.mark.parametrize("tie_mode", [TIE_LEFT, TIE_RIGHT])
def test_professional_kernel_matches_the_fast_path(tie_mode: int) -> None:
    rng = random.Random(tie_mode)
    wanted = Side.LEFT if tie_mode == TIE_LEFT else Side.RIGHT
    seen_tie = seen_low = seen_full = 0
    for _ in range(3000):
        rows, card = random_board(rng)
        slots = best_slots(rows, card, True)
        seen_tie += len(slots) == 2
        seen_low += not slots

        def choose(r: list[list[int]], seat: int, c: int, slots: tuple = slots) -> int:
            if not slots:
                return cheapest_row(r)
            return next(s.row for s in slots if s.side is wanted)

        deal = FastDeal(rows, 1, professional=True)
        deal.place(0, card, choose)
        array = np.zeros((4, 6), dtype=np.int64)
        lens = np.zeros(4, dtype=np.int64)
        for i, row in enumerate(rows):
            array[i, : len(row)] = row
            lens[i] = len(row)
        cost = nb_place_pro(array, lens, card, -1, tie_mode)
        seen_full += cost > 0 and bool(slots)
        assert cost == deal.penalties[0]
        assert [list(array[i, : lens[i]]) for i in range(4)] == deal.rows
    # The random boards exercised every case.
    assert seen_tie and seen_low and seen_full
