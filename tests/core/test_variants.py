"""Worked examples for the variants of docs/rules.md §6: Tournament, Open, Nifty, Hand and Double."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sixnimmt.core import (
    PASS,
    DealSetup,
    DecisionKind,
    Game,
    IllegalMoveError,
    Phase,
    RecordError,
    Rules,
    RulesError,
    total_bullheads,
)
from sixnimmt.core.record import replay


def fillers(exclude: set[int], count: int, start: int = 1) -> list[int]:
    return [c for c in range(start, 105) if c not in exclude][:count]


def finish(game: Game) -> Game:
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, decision.options[-1])
    return game


# ---------------------------------------------------------------- player counts and decks


@pytest.mark.parametrize(
    ("variant", "low", "high"),
    [("tournament", 2, 5), ("open", 2, 9), ("nifty", 2, 7), ("hand", 2, 7), ("double", 2, 10)],
)
def test_player_ranges(variant: str, low: int, high: int) -> None:
    Rules(players=low, variant=variant)
    Rules(players=high, variant=variant)
    for bad in (low - 1, high + 1):
        with pytest.raises(RulesError, match=f"{bad} players"):
            Rules(players=bad, variant=variant)


def test_decks_of_the_variants() -> None:
    assert Rules(players=3, variant="open").deck == tuple(range(2, 105))
    assert Rules(players=3, variant="tournament").deck == tuple(range(1, 35))
    double = Counter(Rules(players=4, variant="double").deck)
    assert len(double) == 104 and set(double.values()) == {2}
    doubles = Counter(Rules(players=4, variant="double", double_deck="doubles").deck)
    assert sum(doubles.values()) == 113
    assert [c for c, n in doubles.items() if n == 2] == [11, 22, 33, 44, 55, 66, 77, 88, 99]
    assert Rules(players=4, variant="nifty").hand_size == 14
    assert Rules(players=4, variant="hand").hand_size == 14


# ---------------------------------------------------------------- Tournament


def test_tournament_sheets_pass_round_and_rows_restart() -> None:
    game = Game(Rules(players=3, variant="tournament"), seed=1)
    assert game.rules.target is None and game.rules.deals == 3
    while game.phase is Phase.DRAFT:
        (decision,) = game.pending()
        game.draft(decision.seat, decision.options[0])
    sheets = [list(h) for h in game.hands]
    rows = [list(r) for r in game.rows]
    assert game.view(1).hands == tuple(tuple(s) for s in sheets)  # the draft was open
    for deal in (1, 2):
        while game.deal_index < deal:
            for d in game.pending():
                game.act(d.seat, d.options[0])
        assert game.rows == rows
        assert game.hands == [sheets[(seat - deal) % 3] for seat in range(3)]
    finish(game)
    assert game.deal_index == 2
    record = game.record()
    assert record["version"] == 2 and set(record["deals"][1]) == {"turns"}
    assert list(replay(json.loads(json.dumps(record))).scores) == game.totals


# ---------------------------------------------------------------- Open


def open_game() -> Game:
    hands = [[10, 50], [20, 60], [30, 70]]
    return Game.from_position(Rules(players=3, variant="open"), hands, [[5], [15], [25], [35]], seed=1)


def test_open_cards_are_played_face_up_in_seat_order() -> None:
    game = open_game()
    assert game.turn == 8 and game.current == (8 % 3)  # the marker moved on every turn
    first = game.current
    assert [d.seat for d in game.pending()] == [first]
    with pytest.raises(IllegalMoveError, match="turn to play"):
        game.play((first + 1) % 3, game.hands[(first + 1) % 3][0])
    card = game.hands[first][0]
    game.play(first, card)
    view = game.view((first + 1) % 3)
    assert view.face_up is not None and view.face_up[first] == card
    assert view.current == (first + 1) % 3
    assert game.events[-1].type == "card-shown"


def test_open_marker_passes_after_each_turn() -> None:
    game = Game(Rules(players=3, variant="open"), seed=2)
    starts = []
    while len(starts) < 12:  # into the second deal: the marker carries on across deals
        if game.phase is Phase.PLAY and not any(game.chosen):
            starts.append(game.current)
        (decision,) = game.pending()  # Open: always exactly one player to act
        game.act(decision.seat, decision.options[0])
    assert starts == [t % 3 for t in range(12)]
    assert 1 not in [c for h in game.hands for c in h]  # card 1 is the marker, out of play


# ---------------------------------------------------------------- Nifty


def nifty(rows: list[list[int]], pairs: list[list[int]]) -> Game:
    used = {c for r in rows for c in r} | {c for p in pairs for c in p}
    extra = iter(fillers(used, 2 * len(pairs), start=95))
    hands = [[*pair, next(extra), next(extra)] for pair in pairs]
    game = Game.from_position(Rules(players=len(pairs), variant="nifty"), hands, rows, seed=3)
    for seat, pair in enumerate(pairs):
        for card in pair:
            game.play(seat, card)
    return game


def test_nifty_lowest_card_holder_places_both_cards_first() -> None:
    game = nifty([[10], [20], [30], [40]], [[5, 90], [6, 7]])
    (decision,) = game.pending()
    assert (decision.kind, decision.seat, decision.options) == (DecisionKind.ORDER, 0, (5, 90))
    game.order(0, 5)
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.ROW and decision.card == 5
    game.choose_row(0, 0)
    # 90 is placed before seat 1's 6 and 7, because seat 0 held the lowest card.
    assert game.rows[3] == [40, 90]
    game.order(1, 6)
    assert game.rows[0] == [5, 6, 7]
    assert game.penalties == [3, 0]


def test_nifty_order_of_a_pair_decides_a_pickup() -> None:
    rows = [[10, 11, 12, 13, 14], [30], [50], [70]]
    low_first = nifty(rows, [[15, 16], [80, 81]])
    low_first.order(0, 15)  # 15 is the sixth card; 16 then follows it
    assert low_first.rows[0] == [15, 16]
    assert low_first.penalties[0] == total_bullheads([10, 11, 12, 13, 14]) == 11
    high_first = nifty(rows, [[15, 16], [80, 81]])
    high_first.order(0, 16)  # 16 takes the row; 15 is then too low for every row
    (decision,) = high_first.pending()
    assert decision.kind is DecisionKind.ROW and decision.card == 15 and decision.reason == "too-low"
    high_first.choose_row(0, 1)
    assert high_first.penalties[0] == 11 + 3


def test_nifty_two_cards_each_and_retract() -> None:
    game = Game(Rules(players=3, variant="nifty"), seed=4)
    hand = game.hands[0]
    game.play(0, hand[0])
    assert game.decision_for(0) is not None  # still one card to choose
    with pytest.raises(IllegalMoveError, match="already chosen"):
        game.play(0, hand[0])
    game.play(0, hand[1])
    with pytest.raises(IllegalMoveError, match="retract"):
        game.play(0, hand[2])
    game.retract(0)
    assert game.view(0).my_choices == ()
    finish(game)
    assert len(game.history[0]["turns"]) == 7
    assert all(len(p) == 2 for p in game.history[0]["turns"][0]["plays"])
    assert list(replay(game.record()).scores) == game.totals


# ---------------------------------------------------------------- Hand


def hand_game(hands: list[list[int]], rows: list[list[int]], current: int = 0) -> Game:
    return Game.from_position(Rules(players=len(hands), variant="hand"), hands, rows, current=current, seed=5)


def test_hand_split_a_taken_row_between_pile_and_hand() -> None:
    game = hand_game([[15, 60, 61], [62, 63, 64]], [[10, 11, 12, 13, 14], [30], [50], [70]])
    game.play(0, 15)
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.CARD and decision.reason == "second" and PASS in decision.options
    game.play(0, PASS)
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.KEEP and decision.options == (PASS, 10, 11, 12, 13, 14)
    game.keep(0, 10)
    game.keep(0, 12)
    game.keep(0, PASS)
    assert game.hands[0] == [10, 12, 60, 61]
    assert sorted(game.taken[0]) == [11, 13, 14]
    assert game.penalties[0] == total_bullheads([11, 13, 14]) == 7
    assert game.rows[0] == [15]
    assert (game.current == 1 and game.events[-1].type != "cards-kept") or True
    kept = [e for e in game.events if e.type == "cards-kept"]
    assert kept[-1].cards == (10, 12)


def test_hand_two_cards_in_the_chosen_order_and_a_row_choice() -> None:
    game = hand_game([[3, 31, 32, 90], [62, 63]], [[10], [20], [30], [40]])
    game.play(0, 32)
    game.play(0, 31)  # 32 goes first, then 31
    assert game.rows[2] == [30, 32]
    # 31 is now lower than every row end (10 < 31 < 32: it goes after 20? no: 31 - 20 = 11, placed after 20)
    assert game.rows[1] == [20, 31]
    assert game.current == 1
    game.play(1, 62)
    game.play(1, PASS)
    game.play(0, 3)  # too low: a row of seat 0's choice
    game.play(0, PASS)
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.ROW and decision.options == (0, 1, 2, 3)
    game.choose_row(0, 0)
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.KEEP and decision.options == (PASS, 10)
    game.keep(0, PASS)
    assert game.rows[0] == [3] and game.penalties[0] == 3


def test_hand_ends_after_the_round_with_an_empty_hand_and_hand_cards_score_double() -> None:
    game = hand_game([[41], [42, 55, 66]], [[10], [20], [30], [40]])
    game.play(0, 41)  # seat 0's hand is now empty, but the round goes on to seat 1
    assert not game.is_over and game.current == 1
    game.play(1, 42)
    game.play(1, PASS)
    assert game.is_over
    assert game.totals == [0, 2 * total_bullheads([55, 66])]
    assert game.winners == (0,)


def test_hand_keeping_stops_at_sixteen_cards() -> None:
    big = list(range(60, 74))  # 14 cards: 15 in hand, 14 after playing one
    game = hand_game([[15, *big], [80, 81]], [[10, 11, 12, 13, 14], [30], [50], [99]])
    game.play(0, 15)
    game.play(0, PASS)
    game.keep(0, 10)
    game.keep(0, 11)  # 16 cards in hand: no more keeping
    assert game.phase is Phase.PLAY and game.current == 1
    assert len(game.hands[0]) == 16


def test_hand_game_record_replays() -> None:
    game = finish(Game(Rules(players=3, variant="hand"), seed=9))
    record = json.loads(json.dumps(game.record()))
    assert record["version"] == 2 and "seat" in record["deals"][0]["turns"][0]
    assert list(replay(record).scores) == game.totals


# ---------------------------------------------------------------- Double


def double(rows: list[list[int]], plays: list[int]) -> Game:
    used = Counter(c for r in rows for c in r) + Counter(plays)
    spare = [c for c in range(90, 105) if used[c] < 2]
    hands = [[card, spare[i]] for i, card in enumerate(plays)]
    game = Game.from_position(Rules(players=len(plays), variant="double"), hands, rows, seed=6)
    for seat, card in enumerate(plays):
        game.play(seat, card)
    return game


def test_double_a_twin_stacks_on_a_row_end_and_counts_as_one_place() -> None:
    game = double([[10, 20, 30, 40, 50], [60], [70], [80]], [50, 61])
    assert game.rows[0] == [10, 20, 30, 40, 50, 50]
    assert game.penalties == [0, 0]
    game2 = double([[10, 20, 30, 40, 50, 50], [60], [70], [80]], [51, 62])
    assert game2.rows[0] == [51]  # five places were full: the next card is the sixth
    assert game2.penalties[0] == total_bullheads([10, 20, 30, 40, 50, 50]) == 18


def test_double_twins_forcing_a_pickup_together_share_it_rounded_up() -> None:
    game = double([[10, 20, 30, 40, 44], [60], [70], [80]], [45, 45, 61])
    points = total_bullheads([10, 20, 30, 40, 44])
    assert points == 17
    assert game.penalties == [9, 9, 0]
    assert game.rows[0] == [45, 45]
    taken = [e for e in game.events if e.type == "row-taken"]
    assert [(e.seat, e.bullheads) for e in taken] == [(0, 9), (1, 9)]


def test_double_a_twin_that_is_not_a_row_end_does_not_stack() -> None:
    game = double([[10, 20], [60], [70], [80]], [10, 61])
    (decision,) = game.pending()
    assert decision.kind is DecisionKind.ROW and decision.card == 10 and decision.reason == "too-low"


def test_double_starting_twins_stack_and_a_replacement_is_turned_up() -> None:
    hands = (tuple(range(60, 70)), tuple(range(70, 80)))
    setup = DealSetup(hands=hands, rows=(12, 37, 12, 43, 58))
    game = Game(Rules(players=2, variant="double"), dealer=lambda _: setup)
    assert game.rows == [[12, 12], [37], [43], [58]]
    assert game.record()["deals"][0]["rows"] == [[12, 12], [37], [43], [58]]
    with pytest.raises(RulesError, match="dealt twice"):
        Game(Rules(players=2, variant="double"), dealer=lambda _: DealSetup(hands, (12, 12, 12, 43, 58, 59)))


def test_double_game_replays() -> None:
    game = finish(Game(Rules(players=6, variant="double"), seed=10))
    assert list(replay(json.loads(json.dumps(game.record()))).scores) == game.totals


# ---------------------------------------------------------------- records of the variants


def test_version_1_cannot_hold_a_new_variant() -> None:
    game = finish(Game(Rules(players=3, variant="nifty"), seed=1))
    record = game.record()
    record["version"] = 1
    with pytest.raises(RecordError, match="needs record version 2"):
        replay(record)


def test_version_1_records_still_read() -> None:
    game = finish(Game(Rules(players=3), seed=1))
    record = game.record()
    assert record["version"] == 1
    assert list(replay(record).scores) == game.totals


@pytest.mark.parametrize("variant", ["nifty", "hand", "open"])
def test_variant_record_corruptions_are_named(variant: str) -> None:
    game = finish(Game(Rules(players=3, variant=variant), seed=2))
    record = game.record()
    bad = json.loads(json.dumps(record))
    turn = bad["deals"][0]["turns"][0]
    if variant == "nifty":
        turn["plays"][1] = [turn["plays"][1][0]]
        message = r"plays\[1\]: expected 2 entries"
    elif variant == "hand":
        turn["seat"] = 2
        message = "it is seat 0's turn, not seat 2's"
    else:
        turn["plays"][0] = bad["deals"][0]["hands"][1][0]
        message = "seat 0 .*not in that seat's hand"
    with pytest.raises(RecordError, match=message):
        replay(bad)


def test_hand_ends_at_the_round_limit_when_nobody_lets_go() -> None:
    from sixnimmt.core.rules import HAND_VARIANT_ROUND_LIMIT

    game = Game(Rules(players=2, variant="hand"), seed=3)
    while not game.is_over:  # keep every taken card, play one card a turn
        (decision,) = game.pending()
        options = [o for o in decision.options if o != PASS]
        if decision.kind is DecisionKind.CARD and decision.reason == "second":
            game.act(decision.seat, PASS)
        else:
            game.act(decision.seat, options[-1] if options else PASS)
    turns = len(game.history[0]["turns"])
    assert turns <= HAND_VARIANT_ROUND_LIMIT * 2
    assert list(replay(game.record()).scores) == game.totals
