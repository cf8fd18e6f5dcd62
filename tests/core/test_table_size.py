"""Smaller games of the same rules (``Rules(size=TableSize(...))``): the engine deals and plays them
by the rules of §3 with the size's deck, hands, rows and row length; the full game is unchanged."""

from __future__ import annotations

import random

import pytest

from sixnimmt.core import BULLHEADS, CardPlaced, Game, RowTaken, Rules, RulesError
from sixnimmt.core.variants import TableSize

TINY = TableSize(cards=10, hand=3, rows=2, row_limit=3)


@pytest.mark.parametrize("variant", ["standard", "professional"])
@pytest.mark.parametrize("seed", range(12))
def test_a_smaller_game_is_played_by_the_rules_with_its_size(variant: str, seed: int) -> None:
    rules = Rules(players=2, variant=variant, target=None, deals=1, size=TINY)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    dealt = [list(hand) for hand in game.hands]
    assert [len(hand) for hand in dealt] == [3, 3] and len(game.rows) == 2
    assert {c for hand in dealt for c in hand} | {row[0] for row in game.rows} <= set(range(1, 11))
    while not game.is_over:
        assert all(1 <= len(row) <= TINY.row_limit for row in game.rows)
        decision = game.pending()[0]
        game.act(decision.seat, rng.choice(decision.options))
    # A card that would be the fourth of a row took it instead (the row limit of 3).
    for event in game.events:
        if isinstance(event, RowTaken) and event.reason == "full":
            assert len(event.cards) == TINY.row_limit
    placed = [e for e in game.events if isinstance(e, CardPlaced)]
    assert len(placed) == 6 and all(e.row in (0, 1) for e in placed)
    taken = sum(BULLHEADS[c] for e in game.events if isinstance(e, RowTaken) for c in e.cards)
    assert sum(game.totals) == taken


def test_the_size_is_part_of_the_rules_json_and_only_when_set() -> None:
    rules = Rules(players=2, size=TINY)
    assert rules.to_dict()["size"] == {"cards": 10, "hand": 3, "rows": 2, "row_limit": 3}
    assert Rules.from_dict(rules.to_dict(), sizes=True) == rules
    with pytest.raises(RulesError, match="unknown rules field"):  # the interfaces play the full game
        Rules.from_dict(rules.to_dict())
    assert rules.deck == tuple(range(1, 11)) and rules.hand_size == 3 and rules.turns_per_deal == 3
    full = Rules(players=4)
    assert "size" not in full.to_dict() and full.row_count == 4 and full.row_limit == 5 and len(full.deck) == 104


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (lambda: Rules(players=4, size=TINY), "4 hands of 3 and 2 rows need 14 cards, not 10"),
        (lambda: Rules(players=2, variant="nifty", size=TINY), "standard or professional, not nifty"),
        (lambda: TableSize(cards=10, hand=3, rows=5, row_limit=3), "rows must be 1..4"),
        (lambda: TableSize(cards=200, hand=3, rows=2, row_limit=3), "cards must be 1..104"),
        (lambda: TableSize(cards=10, hand=3, rows=2, row_limit=6), "row_limit must be 1..5"),
        (lambda: Rules.from_dict({"players": 2, "variant": "standard", "size": {"cards": 10}}, sizes=True), "missing"),
    ],
)
def test_a_size_the_rules_cannot_play_is_refused_in_one_line(rules: object, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        rules()  # type: ignore[operator]
