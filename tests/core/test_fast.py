"""The fast path plays exactly the rules of the checked engine."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.core import Game, Phase, Rules
from sixnimmt.core.fast import FastDeal, cheapest_row, nb_play_turn, nb_random_games


def checked_deal(rules: Rules, seed: int) -> tuple[Game, list[list[int]]]:
    """A whole deal through the checked engine with too-low rows chosen like the fast path does;
    returns the game and each turn's plays."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    turns: list[list[int]] = []
    while game.deal_index == 0 and not game.is_over:
        if game.phase is Phase.ROW_CHOICE:
            (decision,) = game.pending()
            if decision.reason == "too-low":
                game.choose_row(decision.seat, cheapest_row(game.rows))
            else:
                game.choose_row(decision.seat, decision.options[0])
            continue
        plays = [rng.choice(game.hands[s]) for s in range(rules.players)]
        turns.append(plays)
        for seat, card in enumerate(plays):
            game.play(seat, card)
    return game, turns


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 10),
    variant=st.sampled_from(["standard", "tactics", "professional"]),
    seed=st.integers(0, 2**31),
)
def test_fast_deal_matches_the_checked_engine(players: int, variant: str, seed: int) -> None:
    rules = Rules(players=players, variant=variant, pro_tie="choose", deals=1)
    game, turns = checked_deal(rules, seed)
    first = game.history[0]
    fast = FastDeal(first["rows"], players, professional=rules.professional)
    # A tie is answered with the first tied row, as in checked_deal.
    for plays in turns:
        fast.play_turn(plays, choose=lambda rows, seat, card: _first_option(rows, card, rules))
    assert fast.penalties == game.totals
    assert fast.rows == game.rows


def _first_option(rows: list[list[int]], card: int, rules: Rules) -> int:
    from sixnimmt.core import best_slots

    slots = best_slots(rows, card, rules.professional)
    return slots[0].row if slots else cheapest_row(rows)


def test_fast_copy_is_independent() -> None:
    deal = FastDeal([[10], [20], [30], [40]], 2)
    clone = deal.copy()
    clone.play_turn([11, 5])
    assert deal.rows == [[10], [20], [30], [40]] and deal.penalties == [0, 0]
    assert clone.rows[0] == [5, 11] and clone.penalties == [0, 3]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 10), seed=st.integers(0, 2**31))
def test_compiled_turns_match_the_checked_engine(players: int, seed: int) -> None:
    rules = Rules(players=players, deals=1)
    game, turns = checked_deal(rules, seed)
    rows = np.zeros((4, 6), dtype=np.int64)
    lens = np.ones(4, dtype=np.int64)
    for r, row in enumerate(game.history[0]["rows"]):
        rows[r, 0] = row[0]
    penalties = np.zeros(players, dtype=np.int64)
    for plays in turns:
        nb_play_turn(rows, lens, np.array(plays, dtype=np.int64), penalties)
    assert penalties.tolist() == game.totals
    assert [rows[r, : lens[r]].tolist() for r in range(4)] == game.rows


def test_compiled_random_games_end_at_the_target_and_are_seeded() -> None:
    totals = nb_random_games(200, 4, 66, 7)
    assert (totals.max(axis=1) >= 66).all()
    assert np.array_equal(totals, nb_random_games(200, 4, 66, 7))
    assert not np.array_equal(totals, nb_random_games(200, 4, 66, 8))
    # Bullheads are conserved: a deal hands out at most the 171 of the deck.
    assert (totals.sum(axis=1) > 0).all()
