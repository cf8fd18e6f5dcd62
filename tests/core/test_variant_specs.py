"""The variants as data (core/variants.py): the specs are what Rules, records and games follow."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.core import (
    VARIANT_NAMES,
    VARIANTS,
    CardPlaced,
    CardsRevealed,
    Game,
    PlayerView,
    Rules,
    RulesError,
    TurnOrder,
    Variant,
    variant_spec,
)


def test_every_variant_has_exactly_one_spec_named_after_it() -> None:
    assert set(VARIANTS) == set(Variant)
    assert VARIANT_NAMES == tuple(v.value for v in Variant)
    for variant, spec in VARIANTS.items():
        assert spec.name is variant
        assert variant_spec(variant.value) is spec


def test_an_unknown_variant_is_named_with_the_choices() -> None:
    with pytest.raises(RulesError, match=r"unknown variant 'gin'.*standard.*double"):
        variant_spec("gin")


def test_specs_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        VARIANTS[Variant.NIFTY].hand_size = 12  # type: ignore[misc]


@pytest.mark.parametrize("variant", list(Variant))
def test_rules_follow_the_spec(variant: Variant) -> None:
    spec = VARIANTS[variant]
    low, high = spec.player_range
    for players in (low, high):
        rules = Rules(players=players, variant=variant)
        assert rules.hand_size == spec.hand_size
        assert rules.cards_per_turn == spec.cards_per_turn
        assert rules.sequential == (spec.turn_order in (TurnOrder.SEQUENCE, TurnOrder.SOLO))
        assert rules.deck == spec.deck(players)
        assert (rules.target, rules.deals) == spec.game_end(players, 66, None)
    for players in (low - 1, high + 1):
        with pytest.raises(RulesError, match=f"{players} players"):
            Rules(players=players, variant=variant)


@pytest.mark.parametrize("variant", list(Variant))
def test_a_record_is_written_in_the_specs_version_and_older_versions_are_refused(
    variant: Variant,
) -> None:
    spec = VARIANTS[variant]
    game = Game(Rules(players=spec.min_players, variant=variant), seed=3)
    assert game.record()["version"] == spec.record_version


@pytest.mark.parametrize("variant", [v for v in Variant if VARIANTS[v].turns_per_deal is not None])
def test_a_deal_has_the_specs_turns(variant: Variant) -> None:
    spec = VARIANTS[variant]
    game = Game(Rules(players=3, variant=variant, deals=1, target=None), seed=5)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, decision.options[0])
    assert len(game.record()["deals"][0]["turns"]) == spec.turns_per_deal


# ---------------------------------------------------------------- who played what


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(list(Variant)), seed=st.integers(0, 2**32 - 1))
def test_every_placed_card_was_revealed_as_its_owners(variant: Variant, seed: int) -> None:
    """A reveal's ``(seat, card)`` pairs name each card's owner in every variant: each card placed
    afterwards is placed by the seat the reveal names, and the pairs hold exactly the plays."""
    spec = VARIANTS[variant]
    rng = random.Random(seed)
    game = Game(Rules(players=rng.randint(*spec.player_range), variant=variant, deals=1), seed=seed)
    owed: Counter[tuple[int, int]] = Counter()
    while not game.is_over:
        for decision in game.pending():
            for event in game.act(decision.seat, rng.choice(decision.options)):
                if isinstance(event, CardsRevealed):
                    assert not owed, "a turn's cards were all placed before the next reveal"
                    assert tuple(card for _, card in event.seat_cards) == event.plays
                    owed = Counter(event.seat_cards)
                    view = game.view(None)
                    if view.revealed is not None:
                        assert view.revealed_by == event.seat_cards
                elif isinstance(event, CardPlaced):
                    assert owed[(event.seat, event.card)] > 0, f"{event} was not revealed as theirs"
                    owed[(event.seat, event.card)] -= 1
                    owed += Counter()  # drop zero counts
    assert not owed


@pytest.mark.parametrize("variant", list(Variant))
def test_views_carry_turns_per_deal_and_the_effective_target(variant: Variant) -> None:
    spec = VARIANTS[variant]
    game = Game(Rules(players=spec.min_players, variant=variant, target=50), seed=2)
    view = game.view(0)
    assert view.turns_per_deal == spec.turns_per_deal
    assert view.target == (50 if spec.has_target else None)
    assert PlayerView.from_dict(view.to_dict()) == view
    old = view.to_dict()
    for field in ("turns_per_deal", "target", "revealed_by", "played_by"):
        del old[field]  # a view from before these fields still reads, with what the rules say
    assert PlayerView.from_dict(old) == view
