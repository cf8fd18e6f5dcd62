"""The searchers in Open and Double: the compiled Double kernels against the checked engine, and
hand-made positions where the right move needs the variant's own rules (Open's face-up cards,
Double's stacked twins)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixnimmt.bots.search import MonteCarloBot
from sixnimmt.core import DecisionKind, Game, Phase, Rules
from sixnimmt.core.fast import (
    DOUBLE_ROW_WIDTH,
    cheapest_row,
    nb_place_double,
    nb_play_turn_double,
    nb_play_turn_nifty,
    nb_row_size_double,
)
from sixnimmt.core.placement import row_size
from sixnimmt.core.views import PASS
from sixnimmt.seats import make_bot

SEARCHERS = ["hard", "expert"]


def as_arrays(rows: tuple[tuple[int, ...], ...] | list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    array = np.zeros((4, DOUBLE_ROW_WIDTH), dtype=np.int64)
    lens = np.zeros(4, dtype=np.int64)
    for i, row in enumerate(rows):
        array[i, : len(row)] = row
        lens[i] = len(row)
    return array, lens


def as_lists(array: np.ndarray, lens: np.ndarray) -> list[list[int]]:
    return [[int(c) for c in array[i, : lens[i]]] for i in range(4)]


@pytest.mark.parametrize("players", [4, 10])
def test_double_turn_kernel_matches_the_engine(players: int) -> None:
    """Whole random Double games in the checked engine (too-low cards take the cheapest row); every
    turn is replayed with the compiled kernel from the same rows: same rows after, same penalties.
    Ten players make twins in one turn common, so shared pickups are exercised."""
    rng = random.Random(players)
    stacked = shared = taken = 0
    for game_seed in range(12 if players == 10 else 25):
        game = Game(Rules(players=players, variant="double", deals=1), seed=game_seed)
        while not game.is_over:
            before_rows = game.view(None).rows
            before = list(game.penalties)
            cards = np.array([rng.choice(game.hands[s]) for s in range(players)], dtype=np.int64)
            for seat, card in enumerate(cards):
                game.act(seat, int(card))
            while game.pending() and game.pending()[0].kind is DecisionKind.ROW:
                decision = game.pending()[0]
                game.act(decision.seat, cheapest_row([list(r) for r in game.rows]))
            after = game.penalties if not game.is_over and game.turn > 0 else None
            array, lens = as_arrays(before_rows)
            penalties = np.zeros(players, dtype=np.int64)
            nb_play_turn_double(array, lens, cards, penalties)
            if after is None:  # the deal ended: the engine has reset its counters, use the events
                break
            assert [int(p) for p in penalties] == [a - b for a, b in zip(after, before)]
            assert as_lists(array, lens) == [list(r) for r in game.rows]
            for r in range(4):
                assert nb_row_size_double(array, lens, r) == row_size(game.rows[r], True)
            stacked += sum(1 for r in game.rows for i in range(1, len(r)) if r[i] == r[i - 1])
            taken += sum(1 for a, b in zip(after, before) if a > b)
            shared += sum(1 for e in game.events if e.to_dict().get("reason") == "twin")
    assert stacked and taken
    if players == 10:
        assert shared  # the random games reached a shared pickup


def test_double_place_kernel_cases() -> None:
    """Each branch of the Double placement kernel on a board where the answer is written out."""
    rows = [[10, 11, 12, 13, 13, 14], [50], [60], [70]]
    array, lens = as_arrays(rows)
    assert nb_row_size_double(array, lens, 0) == 5
    assert nb_place_double(array, lens, 14, -1) == 0  # stacked on its twin although the row is full
    assert as_lists(array, lens)[0] == [10, 11, 12, 13, 13, 14, 14]
    # 15 is a sixth place: it takes the row, twins counted twice (3+5+1+1+1+1+1 = 13 bullheads).
    assert nb_place_double(array, lens, 15, -1) == 13
    assert as_lists(array, lens)[0] == [15]
    assert nb_place_double(array, lens, 5, 2) == 3  # too low: takes the named row
    assert as_lists(array, lens)[2] == [5]


def test_twins_forcing_a_pickup_share_it() -> None:
    array, lens = as_arrays([[10, 11, 12, 13, 14], [50], [60], [70]])
    penalties = np.zeros(4, dtype=np.int64)
    nb_play_turn_double(array, lens, np.array([80, 15, 90, 15], dtype=np.int64), penalties)
    # Row 0 is worth 3+5+1+1+1 = 11: each 15 pays half, rounded up.
    assert list(penalties) == [0, 6, 0, 6]
    assert as_lists(array, lens)[0] == [15, 15]


def open_position() -> Game:
    """Open, seat 0 has played 45 face up; seat 1 holds 8 and 46.

    8 is a sure sixth card behind 2 3 4 5 7 (6 bullheads). Seen alone, 46 is a sure sixth card behind
    40..44 (11 bullheads), but 45 is placed first and takes that row, so 46 then lies safely behind
    it: the face-up card makes 46 the right play now (8 costs the same next turn)."""
    rows = [[2, 3, 4, 5, 7], [60], [70], [40, 41, 42, 43, 44]]
    hands = [[45, 80], [8, 46], [82, 83], [84, 85]]
    game = Game.from_position(Rules(players=4, variant="open"), hands, rows, seed=1)
    game.act(0, 45)
    return game


@pytest.mark.parametrize("name", SEARCHERS)
def test_open_search_conditions_on_face_up_cards(name: str) -> None:
    view = open_position().view(1)
    assert view.decision is not None and view.decision.seat == 1
    bot = make_bot(name, 7)
    assert isinstance(bot, MonteCarloBot)
    choice, scores = bot.explain(view)
    assert choice == 46
    # Whole-deal estimates: 8 costs its 6 bullheads now or next turn, but 46 is only sure to be
    # safe now, right behind the face-up 45.
    assert scores[8] >= 6 > scores[46]
    assert bot.rollouts > 0  # searched, not the heuristic


def double_position() -> Game:
    """Double, seat 0 holds 55 and 56; row 0 is 50 51 52 53 55 (13 bullheads), row 1 is the full
    20 22 33 44 54 (19).

    55 stacks on its twin ending row 0, for free. Without stacking it would be a sixth card behind
    54 (19), worse than 56, a sure sixth card behind 55 (13): a search with standard placement
    picks 56. Double's rules make 55 the right play."""
    rows = [[50, 51, 52, 53, 55], [20, 22, 33, 44, 54], [30], [40]]
    hands = [[55, 56], [90, 91], [92, 93], [94, 95]]
    return Game.from_position(Rules(players=4, variant="double"), hands, rows, seed=1)


@pytest.mark.parametrize("name", SEARCHERS)
def test_double_search_stacks_on_a_twin(name: str) -> None:
    bot = make_bot(name, 3)
    assert isinstance(bot, MonteCarloBot)
    choice, scores = bot.explain(double_position().view(0))
    assert choice == 55
    assert scores[56] > scores[55] + 5  # 56 then 55 takes both full rows (13 + 19)
    assert bot.rollouts > 0


def nifty_order_position() -> Game:
    """Nifty, turn revealed: seat 0 holds the lowest cards, 14 and 20, behind 10 11 12 13.

    14 first makes 20 the sixth card: it takes 10 11 12 13 14 (11 bullheads). 20 first leaves 14 too
    low, and it takes the cheapest row, [50] (3): 20 must go first."""
    rows = [[10, 11, 12, 13], [50], [60], [70]]
    hands = [[14, 20], [80, 81], [82, 83], [84, 85]]
    game = Game.from_position(Rules(players=4, variant="nifty"), hands, rows, seed=1)
    for seat, hand in enumerate(hands):
        for card in hand:
            game.act(seat, card)
    return game


@pytest.mark.parametrize("name", ["medium", "hard", "expert"])
def test_nifty_order_is_played_out(name: str) -> None:
    view = nifty_order_position().view(0)
    assert view.decision is not None and view.decision.kind is DecisionKind.ORDER
    assert make_bot(name, 1).decide(view) == 20


def test_nifty_order_scores_are_this_turns_bullheads() -> None:
    from sixnimmt.bots.heuristics import order_pick

    choice, scores = order_pick(nifty_order_position().view(0))
    assert (choice, scores) == (20, {14: 11.0, 20: 3.0})


def hand_position(hand: list[int]) -> Game:
    """Hand: 51 fits behind 50; 15 is a sure sixth card (11 bullheads); 99 lands behind 70."""
    rows = [[10, 11, 12, 13, 14], [50], [60], [70]]
    return Game.from_position(
        Rules(players=4, variant="hand"), [hand, [80], [81], [82]], rows, seed=1
    )


@pytest.mark.parametrize("name", ["medium", "hard", "expert"])
def test_hand_second_card_only_when_free(name: str) -> None:
    game = hand_position([15, 51, 99])
    assert make_bot(name, 1).decide(game.view(0)) in (51, 99)  # never the sure sixth card
    game.act(0, 51)
    assert make_bot(name, 1).decide(game.view(0)) == 99  # a free second card sheds 5 bullheads
    game = hand_position([15, 51])
    game.act(0, 51)
    assert make_bot(name, 1).decide(game.view(0)) == PASS  # the only second card costs 11


def test_nifty_turn_kernel_matches_the_engine() -> None:
    """Random Nifty games in the checked engine (each seat's order: the first card it chose first;
    too-low cards take the cheapest row), every turn replayed with the compiled kernel."""
    rng = random.Random(3)
    taken = low = 0
    for game_seed in range(20):
        game = Game(Rules(players=5, variant="nifty", deals=1), seed=game_seed)
        while not game.is_over:
            before_rows = [list(r) for r in game.rows]
            before = list(game.penalties)
            cards = np.array([rng.sample(game.hands[s], 2) for s in range(5)], dtype=np.int64)
            for seat in range(5):
                for card in cards[seat]:
                    game.act(seat, int(card))
            while game.phase in (Phase.ORDER, Phase.ROW_CHOICE):
                decision = game.pending()[0]
                if decision.kind is DecisionKind.ORDER:
                    game.act(decision.seat, int(cards[decision.seat, 0]))
                else:
                    low += 1
                    game.act(decision.seat, cheapest_row([list(r) for r in game.rows]))
            if game.is_over:
                break  # the deal was scored: the engine reset its counters
            array = np.zeros((4, 6), dtype=np.int64)
            lens = np.zeros(4, dtype=np.int64)
            for i, row in enumerate(before_rows):
                array[i, : len(row)] = row
                lens[i] = len(row)
            penalties = np.zeros(5, dtype=np.int64)
            nb_play_turn_nifty(array, lens, cards, penalties)
            assert [int(p) for p in penalties] == [a - b for a, b in zip(game.penalties, before)]
            assert [[int(c) for c in array[i, : lens[i]]] for i in range(4)] == [
                list(r) for r in game.rows
            ]
            taken += any(a > b for a, b in zip(game.penalties, before))
    assert taken and low


def nifty_pair_position() -> Game:
    """Nifty, seat 0 holds 14, 15, 61 and 62; row 0 is 10 11 12 13 (four cards, 11 bullheads).

    Any pair with 14 and 15 makes the sixth card itself (14 fifth, 15 sixth); 61 and 62 land safely
    behind 60 for now. The pair to play now is 61 62 or one of 14/15 with one of 61/62."""
    rows = [[10, 11, 12, 13], [60], [80], [90]]
    hands = [[14, 15, 61, 62], [91, 92, 93, 94], [95, 96, 97, 98], [99, 100, 101, 102]]
    return Game.from_position(Rules(players=4, variant="nifty"), hands, rows, seed=1)


@pytest.mark.parametrize("name", SEARCHERS)
def test_nifty_search_never_plays_its_own_sixth_card(name: str) -> None:
    game = nifty_pair_position()
    bot = make_bot(name, 2)
    assert isinstance(bot, MonteCarloBot)
    first, _ = bot.explain(game.view(0))
    assert bot.rollouts > 0
    game.act(0, first)
    second = bot.decide(game.view(0))
    assert {first, second} != {14, 15}
    assert second != first and second in game.hands[0]


@pytest.mark.parametrize("name", SEARCHERS)
def test_nifty_second_card_searched_when_the_first_is_not_the_plan(name: str) -> None:
    """A first card the plan did not choose (a human's hint, a take-back): the second card is
    searched with that first card fixed, so 14 is not paired with 15 (its own sixth card)."""
    game = nifty_pair_position()
    bot = make_bot(name, 2)
    assert isinstance(bot, MonteCarloBot)
    bot.explain(game.view(0))  # leaves a plan for this turn
    assert bot._nifty_plan is not None
    planned = bot._nifty_plan[1]
    game.act(0, 14)
    before = bot.rollouts
    second, scores = bot.explain(game.view(0))
    assert second in (61, 62)
    assert scores[15] > scores[second]
    if 14 not in planned:  # off the plan: a fresh search with 14 fixed
        assert bot.rollouts > before
