"""The rule questions the engine answers for its hosts (the web server asks them instead of deriving
the rules again): may a seat still change its card, is the turn complete, which phase asks which
kind of decision. Checked against what the engine does, over random games of every variant."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.core import CardsRevealed, DecisionKind, Game, IllegalMoveError, Phase, Rules
from sixnimmt.core.record import replay

from .test_properties import rules_strategy


def views(game: Game) -> list[object]:
    return [game.view(seat) for seat in (None, *range(game.players))]


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_a_seat_may_change_its_card_exactly_when_the_engine_takes_a_second_one(rules: Rules, seed: int) -> None:
    """Whenever a seat has chosen and waits for the others, another card of its hand is accepted
    (replacing the first, revealing nothing) if and only if ``may_change_card`` says so."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        for seat in range(game.players):
            if game.has_chosen(seat):
                assert game.decision_for(seat) is None and game.phase is Phase.PLAY
                others = [c for c in game.hands[seat] if c != game.chosen[seat]]
                if not others:
                    continue
                card = rng.choice(others)
                if game.may_change_card(seat):
                    events = game.act(seat, card)
                    assert game.chosen[seat] == card and game.phase is Phase.PLAY
                    assert not any(isinstance(e, CardsRevealed) for e in events)
                else:
                    try:
                        game.act(seat, card)
                    except IllegalMoveError:
                        pass
                    else:
                        raise AssertionError(f"{rules.variant}: a second card was taken though it may not be")
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))
            break


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_the_turn_is_complete_exactly_when_the_record_holds_every_answer(rules: Rules, seed: int) -> None:
    """``turn_complete``: the game replayed from its record looks, to every seat and to a
    spectator, as this one does; while it is not, some answer is missing from the record and some
    seat sees the difference."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    steps = 0
    while not game.is_over and steps < 60:
        decision = rng.choice(game.pending())
        game.act(decision.seat, rng.choice(decision.options))
        steps += 1
        same = views(replay(game.record(), partial=True).game) == views(game)
        assert game.turn_complete == same, f"{rules.variant}, {game.phase}: complete {game.turn_complete}"
    if game.is_over:
        assert game.turn_complete


def test_each_kind_of_decision_is_asked_in_its_own_phase() -> None:
    """Every decision the engine asks for is of a kind ``asks_for`` says the phase asks for, and of
    no other kind."""
    rng = random.Random(5)
    for variant in ("standard", "professional", "logic", "nifty", "hand", "open"):
        game = Game(Rules(players=3, variant=variant), seed=rng.randrange(2**32))
        while not game.is_over:
            decision = game.pending()[0]
            assert game.asks_for(decision.kind)
            assert [k for k in DecisionKind if game.asks_for(k)] == [decision.kind]
            game.act(decision.seat, rng.choice(decision.options))
