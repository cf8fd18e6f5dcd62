"""Every level plays smaller games of the same rules (``Rules.size``: fewer and shorter rows, a
small deck) whole, with legal moves only: the bots' look-ahead takes the table's shape from the
rules, as the engine does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sixnimmt.bots import Bot
from sixnimmt.core import DecisionKind, Game, Rules
from sixnimmt.core.variants import TableSize
from sixnimmt.seats import make_bot

#: Every level, the grandmaster at a small budget (its search is the same at any budget).
LEVELS = ("random", "easy", "medium", "hard", "expert", "grandmaster:samples=20")


@st.composite
def tiny_rules(draw: st.DrawFn) -> Rules:
    """Two or three players, one to three rows of two to five cards, hands of two to five, a deck
    with up to six cards more than the deal needs; standard or Professional placement."""
    players = draw(st.integers(2, 3))
    rows = draw(st.integers(1, 3))
    hand = draw(st.integers(2, 5))
    cards = players * hand + rows + draw(st.integers(0, 6))
    size = TableSize(cards=cards, hand=hand, rows=rows, row_limit=draw(st.integers(2, 5)))
    variant = draw(st.sampled_from(["standard", "professional"]))
    return Rules(players=players, variant=variant, deals=2, target=None, size=size)


def play_unguarded(rules: Rules, bots: list[Bot], seed: int) -> Game:
    """The game to its end, each bot asked directly (no guard that would hide an exception behind a
    fallback move); every answer must be one of the decision's options."""
    game = Game(rules, seed=seed)
    while not game.is_over:
        for decision in game.pending():
            answer = bots[decision.seat].decide(game.view(decision.seat))
            assert answer in decision.options, (rules.size, decision, answer)
            game.act(decision.seat, answer)
    return game


@settings(max_examples=12, deadline=None)
@given(rules=tiny_rules(), seed=st.integers(0, 2**20))
def test_every_level_plays_whole_tiny_games(rules: Rules, seed: int) -> None:
    for level in LEVELS:
        bots = [make_bot(level, seed + seat) for seat in range(rules.players)]
        game = play_unguarded(rules, bots, seed)
        assert game.is_over and len(game.history) == 2, level
        assert len(game.rows) == rules.row_count
        assert all(1 <= len(row) <= rules.row_limit for row in game.rows), (level, game.rows)


def test_medium_settles_row_choices_on_two_short_rows() -> None:
    """The docs' table game (2 rows of 2): ``medium`` looks one turn ahead at each row choice."""
    rules = Rules(players=2, deals=6, target=None, size=TableSize(cards=7, hand=2, rows=2, row_limit=2))
    asked = 0
    for seed in range(6):
        bots = [make_bot("medium", seed + seat) for seat in range(2)]
        game = Game(rules, seed=seed)
        while not game.is_over:
            for decision in game.pending():
                if decision.kind is DecisionKind.ROW:
                    asked += 1
                answer = bots[decision.seat].decide(game.view(decision.seat))
                assert answer in decision.options
                game.act(decision.seat, answer)
    assert asked > 0
