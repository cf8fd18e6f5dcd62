"""Every worked example of docs/rules.md §7 (E1-E9) and the bullhead table of §1."""

from __future__ import annotations

import pytest

from sixnimmt.core import (
    BULLHEADS,
    DecisionKind,
    Game,
    IllegalMoveError,
    Phase,
    RowTaken,
    Rules,
    bullheads,
    total_bullheads,
)
from sixnimmt.core.dealing import DealSetup

from .conftest import play_all, position


def test_e9_bullhead_values_and_deck_total() -> None:
    assert [bullheads(c) for c in (5, 10, 11, 55, 66, 100, 104)] == [2, 3, 5, 7, 5, 3, 1]
    assert total_bullheads(range(1, 105)) == 171


def test_bullhead_table_counts_and_partial_sums() -> None:
    values = [BULLHEADS[c] for c in range(1, 105)]
    assert {v: values.count(v) for v in set(values)} == {1: 76, 2: 9, 3: 10, 5: 8, 7: 1}
    assert total_bullheads(range(1, 25)) == 38
    assert total_bullheads(range(1, 45)) == 72
    assert total_bullheads(range(1, 65)) == 103


@pytest.mark.parametrize("card", [0, 105, -3])
def test_bullheads_rejects_cards_outside_the_deck(card: int) -> None:
    with pytest.raises(ValueError, match=str(card)):
        bullheads(card)


def test_e1_cards_go_to_the_closest_lower_row_end() -> None:
    game = position([[12], [37], [43], [58]], [14, 15, 44, 61])
    play_all(game, [14, 15, 44, 61])
    assert game.rows == [[12, 14, 15], [37], [43, 44], [58, 61]]
    assert game.penalties == [0, 0, 0, 0]


def test_e2_closest_end_wins_and_a_full_row_is_taken() -> None:
    game = position([[41], [42], [3], [4]], [45, 5])
    play_all(game, [45, 5])
    assert game.rows == [[41], [42, 45], [3], [4, 5]]
    full = position([[41], [10, 20, 30, 40, 42], [3], [4]], [45, 5])
    play_all(full, [45, 5])
    assert full.rows[1] == [45]
    assert full.penalties[0] == total_bullheads([10, 20, 30, 40, 42]) == 13
    assert full.taken[0] == [10, 20, 30, 40, 42]


E3_ROWS = [[50, 61], [70, 88], [33, 95], [31, 35, 47, 52, 60]]


def test_e3_taking_the_cheapest_row_can_cost_more() -> None:
    game = position(E3_ROWS, [29, 62])
    play_all(game, [29, 62])
    assert game.phase is Phase.ROW_CHOICE
    (decision,) = game.pending()
    assert (decision.kind, decision.seat, decision.card) == (DecisionKind.ROW, 0, 29)
    game.choose_row(0, 0)
    assert game.penalties == [4, 8]
    assert game.rows == [[29], [70, 88], [33, 95], [62]]
    taken = [e for e in game.events if isinstance(e, RowTaken)]
    assert [(e.seat, e.cards, e.bullheads, e.reason) for e in taken] == [
        (0, (50, 61), 4, "too-low"),
        (1, (31, 35, 47, 52, 60), 8, "full"),
    ]


def test_e3_taking_the_dearer_row_saves_the_next_card() -> None:
    game = position(E3_ROWS, [29, 62])
    play_all(game, [29, 62])
    game.choose_row(0, 3)
    assert game.penalties == [8, 0]
    assert game.rows == [[50, 61, 62], [70, 88], [33, 95], [29]]


def test_e4_too_low_card_takes_any_row_then_next_card_follows_it() -> None:
    game = position([[20], [30], [40], [50]], [3, 9])
    play_all(game, [3, 9])
    (decision,) = game.pending()
    assert decision.options == (0, 1, 2, 3) and decision.reason == "too-low"
    game.choose_row(0, 0)
    assert game.penalties == [3, 0]
    assert game.rows == [[3, 9], [30], [40], [50]]


@pytest.mark.parametrize(
    ("end", "totals", "over", "winners"),
    [
        ("at-least", [66, 50, 50], True, (1, 2)),
        ("above", [66, 50, 50], False, ()),
        ("at-least", [70, 68, 30], True, (2,)),
        ("above", [70, 68, 30], True, (2,)),
    ],
)
def test_e5_game_end_and_shared_wins(end: str, totals: list[int], over: bool, winners: tuple[int, ...]) -> None:
    rules = Rules(players=3, end=end)
    assert rules.game_over_after(totals, deals_played=1) is over
    # The same through a real deal: start one turn before the end with the totals minus the deal's
    # penalties, and play a last turn that takes nothing.
    game = Game.from_position(
        rules, [[20], [21], [22]], [[10], [30], [40], [50]], totals=totals, seed=1
    )
    play_all(game, [20, 21, 22])
    assert game.is_over is over
    assert game.winners == winners


def test_e6_professional_left_ends_and_a_sixth_card_on_the_left() -> None:
    rows = [[40, 43, 47, 50, 52], [9, 28, 61], [59, 70], [67, 80, 90]]
    game = position(rows, [5, 17, 58, 62], variant="professional")
    play_all(game, [5, 17, 58, 62])
    assert game.rows == [[17], [5, 9, 28, 61, 62], [58, 59, 70], [67, 80, 90]]
    assert game.penalties == [0, total_bullheads([40, 43, 47, 50, 52]), 0, 0]
    assert game.penalties[1] == 9


def test_e7_professional_any_card_can_fit_no_end() -> None:
    rows = [[50, 61], [52, 63, 70], [44, 80], [57, 99]]
    game = position(rows, [56, 58], variant="professional")
    play_all(game, [56, 58])
    assert game.rows[3] == [56, 57, 99]
    (decision,) = game.pending()
    assert (decision.seat, decision.card, decision.reason) == (1, 58, "too-low")
    game.choose_row(1, 2)
    assert game.rows[2] == [58]
    assert game.penalties == [0, total_bullheads([44, 80])]


E8_ROWS = [[30, 40, 50], [54, 60], [10, 20], [90]]


def test_e8_professional_tie_owner_chooses_between_the_tied_rows() -> None:
    game = position(E8_ROWS, [52, 99], variant="professional")
    play_all(game, [52, 99])
    (decision,) = game.pending()
    assert decision.options == (0, 1) and decision.reason == "tie"
    with pytest.raises(IllegalMoveError, match="row 2"):
        game.choose_row(0, 2)
    game.choose_row(0, 1)
    assert game.rows[1] == [52, 54, 60]
    assert game.rows[0] == [30, 40, 50]


@pytest.mark.parametrize(("pro_tie", "row", "expected"), [("left", 1, [52, 54, 60]), ("right", 0, [30, 40, 50, 52])])
def test_e8_professional_tie_rules_fixed_by_option(pro_tie: str, row: int, expected: list[int]) -> None:
    game = position(E8_ROWS, [52, 99], variant="professional", pro_tie=pro_tie)
    play_all(game, [52, 99])
    assert game.phase is Phase.PLAY
    assert game.rows[row] == expected


def test_tactics_and_logic_use_the_short_deck() -> None:
    assert Rules(players=3, variant="tactics").deck == tuple(range(1, 35))
    assert Rules(players=5, variant="tactics").deck[-1] == 54
    assert Rules(players=10, variant="tactics").deck[-1] == 104
    assert Rules(players=2, variant="logic").deck[-1] == 24
    game = Game(Rules(players=3, variant="tactics"), seed=5)
    dealt = sorted(c for hand in game.hands for c in hand) + [r[0] for r in game.rows]
    assert sorted(dealt) == list(range(1, 35))


def test_logic_draft_is_round_robin_and_rows_ascend() -> None:
    game = Game(Rules(players=2, variant="logic"))
    picks = []
    while game.phase is Phase.DRAFT:
        (decision,) = game.pending()
        picks.append(decision.seat)
        game.draft(decision.seat, decision.options[-1])  # always the highest card
    assert picks == [0, 1] * 10
    assert game.rows == [[1], [2], [3], [4]]
    assert game.hands[0] == list(range(24, 4, -2))[::-1]
    assert game.view(1).hands == (tuple(game.hands[0]), tuple(game.hands[1]))


def test_logic_first_picker_rotates_with_the_deal() -> None:
    game = Game(Rules(players=3, variant="logic"))
    for deal in range(3):
        assert game.deal_index == deal and game.drafter == deal % 3
        while not game.is_over and game.deal_index == deal:
            (decision, *_) = game.pending()
            game.act(decision.seat, decision.options[0])
        if game.is_over:
            break


def test_fixed_number_of_deals_ends_the_game() -> None:
    game = Game(Rules(players=4, target=None, deals=2), seed=3)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, decision.options[0])
    assert game.deal_index == 1
    assert len(game.record()["deals"]) == 2


def test_a_deal_setup_is_validated() -> None:
    rules = Rules(players=2)
    bad = DealSetup(hands=(tuple(range(1, 11)), tuple(range(10, 20))), rows=(30, 31, 32, 33))
    with pytest.raises(ValueError, match="dealt twice"):
        Game(rules, dealer=lambda _: bad)
