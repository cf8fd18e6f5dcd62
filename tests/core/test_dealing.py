"""Dealing (core/dealing.py) and the frozen tuples (core/frozen.py) the engine makes its events of."""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sixnimmt.core import (
    CardsRevealed,
    DealStarted,
    Decision,
    DecisionKind,
    RandomDealer,
    RowsLaid,
    Rules,
    RulesError,
)
from sixnimmt.core.dealing import DealSetup, lay_rows, shuffle
from sixnimmt.core.frozen import FrozenTuple, make
from sixnimmt.core.rules import PLAYER_RANGE, Variant


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


def test_frozen_tuples_keep_fields_defaults_equality_and_frozenness() -> None:
    event = CardsRevealed(0, 1, (5, 9), seat_cards=((0, 5), (1, 9)))
    assert (event.deal, event.turn, event.plays, event.seat, event.seat_cards) == (0, 1, (5, 9), None, ((0, 5), (1, 9)))
    assert event == CardsRevealed(0, 1, (5, 9), None, ((0, 5), (1, 9)))
    assert event == make(CardsRevealed, (0, 1, (5, 9), None, ((0, 5), (1, 9))))
    assert hash(event) == hash(CardsRevealed(0, 1, (5, 9), None, ((0, 5), (1, 9))))
    assert repr(event) == "CardsRevealed(deal=0, turn=1, plays=(5, 9), seat=None, seat_cards=((0, 5), (1, 9)))"
    with pytest.raises(AttributeError):
        event.turn = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        event.other = 2  # type: ignore[attr-defined]
    decision = Decision(DecisionKind.ROW, 1, (0, 1), card=3, reason="tie")
    assert decision._asdict()["reason"] == "tie"
    with pytest.raises(TypeError):
        Decision(DecisionKind.ROW)  # type: ignore[call-arg]
    assert pickle.loads(pickle.dumps(event)) == event and copy.deepcopy(decision) == decision


def test_frozen_tuples_equal_only_their_own_kind() -> None:
    # A tuple equals any tuple with the same items; two kinds of event with the same fields differ.
    rows = ((1,), (2,), (3,), (4,))
    assert DealStarted(0, rows) != RowsLaid(0, rows)
    assert not DealStarted(0, rows) == RowsLaid(0, rows)
    assert DealStarted(0, rows) != (0, rows) and (0, rows) != DealStarted(0, rows)
    assert DealStarted(0, rows) == DealStarted(0, rows)


def test_a_field_without_a_default_may_not_follow_one_with_a_default() -> None:
    with pytest.raises(TypeError, match="without a default"):

        class Wrong(FrozenTuple):
            first: int = 0
            second: int


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_the_random_dealer_deals_distinct_cards_of_the_deck_in_sorted_hands(variant: str) -> None:
    # Deals trusts its own dealer's deals unchecked (dealing.Deals.start): hold it to the checks.
    low, high = PLAYER_RANGE[Variant(variant)]
    for players in range(low, high + 1):
        rules = Rules(players=players, variant=variant)
        dealer = RandomDealer(rules, random.Random(players))
        for deal in range(3):
            setup = dealer(deal)
            setup.validate(rules)
            assert all(list(hand) == sorted(hand) for hand in setup.hands)
