"""The variants as data (core/variants.py): the specs are what Rules, records and games follow."""

from __future__ import annotations

import dataclasses

import pytest

from sixnimmt.core import (
    VARIANT_NAMES,
    VARIANTS,
    Game,
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
