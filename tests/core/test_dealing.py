"""Dealing (core/dealing.py) and the quick frozen dataclasses (core/frozen.py) the engine relies on."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sixnimmt.core import CardsRevealed, Decision, DecisionKind, Rules, RulesError
from sixnimmt.core.dealing import DealSetup, lay_rows, shuffle
from sixnimmt.core.frozen import quick_init


@given(seed=st.integers(0, 2**64), size=st.integers(0, 220))
def test_shuffle_gives_the_same_cards_as_random_shuffle(seed: int, size: int) -> None:
    ours, theirs = list(range(size)), list(range(size))
    ours_rng, theirs_rng = random.Random(seed), random.Random(seed)
    shuffle(ours, ours_rng)
    theirs_rng.shuffle(theirs)
    assert ours == theirs
    assert ours_rng.random() == theirs_rng.random()  # the generator is left in the same state


def test_a_deal_with_a_card_twice_or_out_of_the_deck_is_refused() -> None:
    rules = Rules(players=2, variant="tactics")  # deck 1..24
    hands = (tuple(range(1, 11)), tuple(range(11, 21)))
    DealSetup(hands, (21, 22, 23, 24)).validate(rules)
    with pytest.raises(RulesError, match="dealt twice"):
        DealSetup(hands, (21, 22, 23, 10)).validate(rules)
    with pytest.raises(RulesError, match="not in the tactics deck"):
        DealSetup(hands, (21, 22, 23, 30)).validate(rules)


def test_twins_among_the_cards_turned_up_stack() -> None:
    assert lay_rows((7, 40, 7, 12, 90)) == [[7, 7], [40], [12], [90]]


def test_quick_init_keeps_fields_defaults_equality_and_frozenness() -> None:
    event = CardsRevealed(0, 1, (5, 9), seat_cards=((0, 5), (1, 9)))
    assert (event.deal, event.turn, event.plays, event.seat, event.seat_cards) == (0, 1, (5, 9), None, ((0, 5), (1, 9)))
    assert event == CardsRevealed(0, 1, (5, 9), None, ((0, 5), (1, 9)))
    assert hash(event) == hash(CardsRevealed(0, 1, (5, 9), None, ((0, 5), (1, 9))))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.turn = 2  # type: ignore[misc]
    decision = Decision(DecisionKind.ROW, 1, (0, 1), card=3, reason="tie")
    assert dataclasses.asdict(decision)["reason"] == "tie"
    with pytest.raises(TypeError):
        Decision(DecisionKind.ROW)  # type: ignore[call-arg]


def test_quick_init_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="cannot build"):
        quick_init(WithFactory)
