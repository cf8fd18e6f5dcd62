"""Every built-in bot plays whole games of every variant legally, and a seed fixes its play."""

from __future__ import annotations

import pytest

from sixnimmt.bots import Bot
from sixnimmt.core import DecisionKind, Game, PlayerView, Rules, Variant
from sixnimmt.seats import available, make_bot, play_game

BUILTIN = ["random", "snug", "cautious", "mcs100", "mcs", "hard", "expert", "easy", "medium", "grandmaster:samples=30"]
SEARCHERS = ["mcs100", "hard", "expert", "grandmaster:samples=30"]


class Checked(Bot):
    """Wraps a bot: checks that every answer is one of the options and counts decision kinds."""

    def __init__(self, inner: Bot, kinds: dict[str, int]) -> None:
        super().__init__(0)
        self.inner, self.kinds = inner, kinds

    def decide(self, view: PlayerView) -> int:
        assert view.decision is not None
        answer = self.inner.decide(view)
        assert answer in view.decision.options, (view.decision, answer)
        key = view.decision.kind.value + (f":{view.decision.reason}" if view.decision.reason else "")
        self.kinds[key] = self.kinds.get(key, 0) + 1
        return answer


def play(name: str, rules: Rules, seed: int, kinds: dict[str, int] | None = None) -> Game:
    kinds = {} if kinds is None else kinds
    bots = [Checked(make_bot(name, seed + seat), kinds) for seat in range(rules.players)]
    return play_game(Game(rules, seed=seed), bots)


def rules_for(variant: Variant, players: int = 4) -> Rules:
    # Tournament and Hand fix their own length; every other variant plays one or two deals here.
    if variant in (Variant.TOURNAMENT, Variant.HAND):
        return Rules(players=players, variant=variant)
    return Rules(players=players, variant=variant, deals=2, target=None)


def test_levels_and_benchmark_are_registered() -> None:
    names = available()
    for name in ("random", "snug", "cautious", "mcs100", "easy", "medium", "hard", "expert"):
        assert name in names


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("name", BUILTIN)
def test_every_bot_plays_every_variant(name: str, variant: Variant) -> None:
    game = play(name, rules_for(variant), seed=3)
    assert game.is_over
    # Every bullhead taken was charged to someone: the piles add up to the totals.
    assert sum(game.totals) >= 0 and len(game.winners) >= 1


@pytest.mark.parametrize("name", [*SEARCHERS, "cautious", "snug"])
def test_row_choices_of_both_kinds_are_answered(name: str) -> None:
    """Professional with owner-chosen ties produces too-low and tie row choices; the searchers
    answer them with their rollouts (not the fallback)."""
    kinds: dict[str, int] = {}
    for seed in range(4):
        play(name, Rules(players=5, variant="professional", deals=2, target=None), seed, kinds)
    assert kinds.get("row:too-low", 0) > 0
    assert kinds.get("row:tie", 0) > 0


@pytest.mark.parametrize("players", [2, 3, 7, 10])
@pytest.mark.parametrize("name", ["cautious", "hard"])
def test_any_number_of_players(name: str, players: int) -> None:
    for variant in ("standard", "tactics"):
        game = play(name, Rules(players=players, variant=variant, deals=1), seed=players)
        assert game.is_over


@pytest.mark.parametrize("name", ["random", "snug", "cautious", "mcs100", "hard", "expert"])
def test_same_seed_same_game(name: str) -> None:
    rules = Rules(players=4, deals=2, target=None)
    first = play(name, rules, seed=11).record()
    second = play(name, rules, seed=11).record()
    assert first == second


def test_searchers_depend_on_their_seed() -> None:
    """The seed reaches the rollouts: different seeds give different games somewhere."""
    rules = Rules(players=4, deals=3, target=None)

    def record(bot_seed: int) -> object:
        bots = [make_bot("hard", bot_seed + seat) for seat in range(4)]
        return play_game(Game(rules, seed=5), bots).record()

    assert len({repr(record(s)) for s in (1, 100, 1000)}) > 1


def test_logic_draft_answers_are_draft_picks() -> None:
    kinds: dict[str, int] = {}
    play("expert", Rules(players=3, variant="logic", deals=1), 2, kinds)
    assert kinds[DecisionKind.DRAFT.value] == 30
