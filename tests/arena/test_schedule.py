"""Duplicate scheduling: lineups, seatings and dealers."""

from __future__ import annotations

import itertools

from sixnimmt.arena import DuplicateDealer, Permutations, derive_seed, lineup, seatings
from sixnimmt.core import Rules


def test_lineup_as_many_fewer_and_more_bots_than_seats() -> None:
    assert lineup(4, 4, 0) == (0, 1, 2, 3)
    assert lineup(2, 4, 7) == (0, 1, 0, 1)
    assert lineup(3, 5, 0) == (0, 1, 2, 0, 1)
    combos = {lineup(5, 3, s) for s in range(10)}
    assert combos == set(itertools.combinations(range(5), 3))  # every trio in 10 sets
    assert lineup(5, 3, 10) == lineup(5, 3, 0)


def test_rotations_give_every_bot_every_seat() -> None:
    rotations = seatings((0, 1, 2, 3), Permutations.ROTATIONS)
    assert len(rotations) == 4
    for bot in range(4):
        assert sorted(s.index(bot) for s in rotations) == [0, 1, 2, 3]


def test_seatings_are_distinct() -> None:
    assert seatings((0, 1, 0, 1), Permutations.ROTATIONS) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert len(seatings((0, 1, 2), Permutations.ALL)) == 6
    assert len(seatings((0, 1, 0), Permutations.ALL)) == 3


def test_duplicate_dealer_depends_only_on_seed_set_and_deal() -> None:
    rules = Rules(players=4)
    a, b = DuplicateDealer(rules, 9, 0), DuplicateDealer(rules, 9, 0)
    assert [a(k) for k in (0, 1, 2)] == [b(k) for k in (2, 1, 0)][::-1]  # order of calls is irrelevant
    assert a(0) != DuplicateDealer(rules, 9, 1)(0)
    assert a(0) != DuplicateDealer(rules, 10, 0)(0)
    assert a(0) != a(1)
    a(0).validate(rules)


def test_derive_seed_is_stable() -> None:
    assert derive_seed(1, "bot", 2) == derive_seed(1, "bot", 2)
    assert derive_seed(1, "bot", 2) != derive_seed(1, "bot", 3)
    assert 0 <= derive_seed("x") < 2**63
