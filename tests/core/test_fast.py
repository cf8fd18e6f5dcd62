"""The fast path plays exactly the rules of the checked engine."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.core import Game, Phase, ProTie, Rules
from sixnimmt.core.fast import (
    TIE_LEFT,
    TIE_RIGHT,
    FastDeal,
    cheapest_row,
    nb_place_pro,
    nb_play_turn,
    nb_random_games,
)
from sixnimmt.core.variants import TableSize


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


@st.composite
def tiny_rules(draw: st.DrawFn) -> Rules:
    """A smaller game of the same rules: two or three players, one to three rows of two to five
    cards, hands of one to five, a deck with up to six cards to spare; standard or Professional."""
    players = draw(st.integers(2, 3))
    rows = draw(st.integers(1, 3))
    hand = draw(st.integers(1, 5))
    size = TableSize(cards=players * hand + rows + draw(st.integers(0, 6)), hand=hand, rows=rows,
                     row_limit=draw(st.integers(2, 5)))  # fmt: skip
    variant = draw(st.sampled_from(["standard", "professional"]))
    pro_tie = draw(st.sampled_from(["choose", "left", "right"]))
    return Rules(players=players, variant=variant, pro_tie=pro_tie, deals=1, size=size)


@settings(max_examples=150, deadline=None)
@given(rules=tiny_rules(), seed=st.integers(0, 2**31))
def test_fast_deal_plays_smaller_tables_as_the_checked_engine(rules: Rules, seed: int) -> None:
    game, turns = checked_deal(rules, seed)
    fast = FastDeal(game.history[0]["rows"], rules.players, rules.professional, rules.pro_tie, rules.row_limit)
    for plays in turns:
        fast.play_turn(plays, choose=lambda rows, seat, card: _first_option(rows, card, rules))
    assert fast.penalties == game.totals
    assert fast.rows == game.rows


@settings(max_examples=150, deadline=None)
@given(rules=tiny_rules(), seed=st.integers(0, 2**31))
def test_compiled_turns_play_smaller_tables_as_the_checked_engine(rules: Rules, seed: int) -> None:
    """The kernels read the rows and the row limit from the arrays' shape, ``int64[rows, limit + 1]``.
    A Professional tie goes to the end the rules fix (the kernels' ``choose`` is a rollout's guess)."""
    if rules.professional and rules.pro_tie is ProTie.CHOOSE:
        rules = replace(rules, pro_tie=ProTie.RIGHT)
    game, turns = checked_deal(rules, seed)
    rows = np.zeros((rules.row_count, rules.row_limit + 1), dtype=np.int64)
    lens = np.ones(rules.row_count, dtype=np.int64)
    for r, row in enumerate(game.history[0]["rows"]):
        rows[r, 0] = row[0]
    penalties = np.zeros(rules.players, dtype=np.int64)
    tie = TIE_LEFT if rules.pro_tie is ProTie.LEFT else TIE_RIGHT
    for plays in turns:
        if not rules.professional:
            nb_play_turn(rows, lens, np.array(plays, dtype=np.int64), penalties)
            continue
        for card, seat in sorted(zip(plays, range(rules.players))):
            penalties[seat] += nb_place_pro(rows, lens, card, -1, tie)
    assert penalties.tolist() == game.totals
    assert [rows[r, : lens[r]].tolist() for r in range(rules.row_count)] == game.rows
