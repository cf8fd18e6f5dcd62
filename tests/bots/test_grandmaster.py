"""The grandmaster: repeatable with a rollout budget, within its time with a time limit, and its
racing, self-play policy and duel objective doing what they say."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from sixnimmt.bots.grandmaster import GrandmasterBot, GrandmasterConfig
from sixnimmt.bots.models import MODELLED
from sixnimmt.bots.rollout import CAUTIOUS, COUNT, MEDIUM, RANDOM, SNUG, rollout_cards
from sixnimmt.core import Game, PlayerView, Rules
from sixnimmt.seats import make_bot

from .test_positions import sure_sixth_position


def play_game(bots: list[GrandmasterBot], seed: int) -> dict[str, object]:
    game = Game(Rules(players=len(bots), deals=1), seed=seed)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, bots[decision.seat].decide(game.view(decision.seat)))
    return game.record()


def test_seeded_budget_is_exactly_repeatable() -> None:
    """The same seeds and the same rollout budget play the same game, move for move."""
    config = GrandmasterConfig(samples=30)
    first = play_game([GrandmasterBot(seat + 10, config) for seat in range(4)], seed=3)
    again = play_game([GrandmasterBot(seat + 10, config) for seat in range(4)], seed=3)
    assert first == again
    view = Game(Rules(players=4), seed=8).view(2)
    assert GrandmasterBot(5, config).explain(view) == GrandmasterBot(5, config).explain(view)
    # And the seed matters: another seed explores other determinizations.
    assert GrandmasterBot(6, config).explain(view)[1] != GrandmasterBot(5, config).explain(view)[1]


class FakeClock:
    """Time advances only when rollouts run: ``cost`` seconds per rollout."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TimedGrandmaster(GrandmasterBot):
    """Charges its fake clock for every rollout it simulates."""

    def __init__(self, ms: float, cost: float) -> None:
        self.fake = FakeClock()
        super().__init__(1, GrandmasterConfig(ms=ms, z=float("inf")), clock=self.fake)
        self.cost = cost

    def simulate(self, view: PlayerView, options: tuple[int, ...], samples: int, a: object = None) -> np.ndarray:
        out = super().simulate(view, options, samples, a)  # type: ignore[arg-type]
        self.fake.now += self.cost * len(options) * samples
        return out


@pytest.mark.parametrize(("players", "ms"), [(4, 250.0), (10, 250.0), (4, 40.0)])
def test_time_limit_holds_on_the_slowest_positions(players: int, ms: float) -> None:
    """The first decision of a deal is the slowest (most options, longest rollouts); with a pace of
    0.2 ms per rollout the search stops before the limit, having used most of it (no option is
    dropped: z = infinity keeps every option running, the worst case)."""
    bot = TimedGrandmaster(ms, cost=0.0002)
    view = Game(Rules(players=players), seed=4).view(0)
    start = bot.fake.now
    choice, scores = bot.explain(view)
    spent = bot.fake.now - start
    assert choice in view.decision.options  # type: ignore[union-attr]
    assert spent <= ms / 1000
    assert spent > 0.5 * ms / 1000  # it used its time rather than stopping at once
    assert set(scores) == set(view.decision.options)  # type: ignore[union-attr]


def test_racing_ends_a_clear_decision_early() -> None:
    """15 is a sure sixth card (11 bullheads), 51 is safe: the race drops 15 after two rounds."""
    view = sure_sixth_position().view(0)
    bot = GrandmasterBot(3, GrandmasterConfig(samples=1000, batch=16))
    choice, scores = bot.explain(view)
    assert choice == 51 and scores[15] >= 11 > scores[51]
    assert bot.rollouts < 2 * 1000 / 4  # far less than the budget of 2 options x 1000


def test_objective_is_own_penalty_unless_the_duel_is_asked_for() -> None:
    two = np.array([[[3.0, 9.0]], [[2.0, 0.0]]])  # two options, one rollout, two players
    four = np.array([[[3.0, 9.0, 9.0, 9.0]], [[2.0, 0.0, 0.0, 0.0]]])
    bot = GrandmasterBot(1)
    assert np.array_equal(bot.objective(two, 0, 2), [[3.0], [2.0]])
    assert np.array_equal(bot.objective(four, 0, 4), [[3.0], [2.0]])
    duel = GrandmasterBot(1, GrandmasterConfig(rival=1.0))
    assert np.array_equal(duel.objective(two, 0, 2), [[-6.0], [2.0]])  # own minus the rival's
    assert np.array_equal(duel.objective(four, 0, 4), [[-6.0], [2.0]])  # own minus the others' mean
    assert make_bot("grandmaster:objective=duel", 1).settings.rival == 1.0  # type: ignore[attr-defined]


def test_own_turns_are_played_by_counting_and_the_others_by_their_models() -> None:
    view = Game(Rules(players=4), seed=2).view(1)
    assert list(GrandmasterBot(1).policies(view)) == [MODELLED, MEDIUM, MODELLED, MODELLED]
    everyone = GrandmasterBot(1, GrandmasterConfig(own_policy=COUNT, others_policy=COUNT))
    assert list(everyone.policies(view)) == [COUNT] * 4


@pytest.mark.parametrize(("players", "own"), [(2, COUNT), (3, MEDIUM), (4, MEDIUM), (5, COUNT), (6, COUNT), (10, COUNT)])
def test_its_own_turns_are_played_by_the_counting_chosen_for_the_table_size(players: int, own: int) -> None:
    view = Game(Rules(players=players), seed=3).view(0)
    assert GrandmasterBot(1).policies(view)[0] == own
    assert make_bot("grandmaster", seed=1).policies(view)[0] == own  # type: ignore[attr-defined]
    chosen = make_bot("grandmaster:own=snug", seed=1)
    assert chosen.policies(view)[0] == SNUG  # type: ignore[attr-defined]


def test_counting_rollouts_avoid_a_sure_sixth_card() -> None:
    """Seat 1 holds 15 (a sure sixth card behind 10..14: 11 bullheads) and 51 (safe) while seat 0
    plays 16. Counting, seat 1 plays 51 first every time; 16 becomes the sixth card (seat 0 takes the
    row) and 15, too low next turn, takes the cheapest row, [16]: 1 bullhead. Playing at random,
    seat 1 plays 15 first half the time and takes the 11 bullheads itself."""
    rows = np.array([[10, 11, 12, 13, 14, 0], [50, 0, 0, 0, 0, 0], [60, 0, 0, 0, 0, 0], [70, 0, 0, 0, 0, 0]])
    lens = np.array([5, 1, 1, 1])
    hands = np.zeros((2, 10), dtype=np.int64)
    hands[0, :2] = [16, 81]
    hands[1, :2] = [15, 51]
    args = (rows, lens, hands, np.array([2, 2]), np.array([True, True]), np.zeros(0, dtype=np.int64), 0,
            np.array([16]), 200)  # fmt: skip
    for policy, seat1_takes_the_row in ((COUNT, False), (CAUTIOUS, False), (MEDIUM, False), (RANDOM, True)):
        policies = np.array([RANDOM, policy])
        out = rollout_cards(*args, policies, False, 0, 0.5, True, 7, np.zeros(2, dtype=np.int64), False)
        assert bool((out[0, :, 1] == 11).any()) is seat1_takes_the_row
        if policy != RANDOM:
            assert np.all(out[0] == [11, 1])


def test_grandmaster_is_registered() -> None:
    bot = make_bot("grandmaster", 1)
    assert isinstance(bot, GrandmasterBot) and bot.name == "grandmaster"


def test_bench_bots_reports_the_grandmasters_median_and_slowest_decision() -> None:
    from typer.testing import CliRunner

    from sixnimmt.cli import app

    result = CliRunner().invoke(app, ["bench", "bots", "--bots", "grandmaster", "--deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["bots"]
    assert row["bot"] == "grandmaster" and row["decisions"] >= 40 and row["rollouts"] > 0
    assert 0 < row["median_ms_per_decision"] <= row["max_ms_per_decision"]


def test_a_decision_never_spends_more_than_the_cap() -> None:
    """Nifty's first card searches every pair of cards (45 here): the cap bounds the whole decision."""
    view = Game(Rules(players=4, variant="nifty", deals=1), seed=1).view(0)
    bot = GrandmasterBot(2, GrandmasterConfig(samples=1000, cap=3000, z=float("inf")))
    assert bot.decide(view) in view.decision.options  # type: ignore[union-attr]
    assert 2000 < bot.rollouts <= 3000


def test_seeded_bot_with_opponent_models_is_repeatable() -> None:
    """With the opponent models and inferred deals, the same seeds still play the same game."""
    config = GrandmasterConfig(samples=12, others_policy=MODELLED)
    first = play_game([GrandmasterBot(seat + 20, config) for seat in range(4)], seed=5)
    again = play_game([GrandmasterBot(seat + 20, config) for seat in range(4)], seed=5)
    assert first == again


def guesses_used(bot: GrandmasterBot, view: PlayerView, monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """The guesses of the hidden hands the bot's modelled rollouts dealt from at one decision."""
    import sixnimmt.bots.search as search

    used: set[int] = set()
    compiled = search.rollout_models

    def spy(*args: object) -> np.ndarray:
        perms, samples, offset = args[5], args[11], args[16]
        used.update((int(offset) + j) % len(perms) for j in range(int(samples)))  # type: ignore[arg-type, call-overload]
        return compiled(*args)  # type: ignore[no-any-return]

    monkeypatch.setattr(search, "rollout_models", spy)
    bot.explain(view)
    return used


def test_the_racing_rounds_walk_through_every_guess_of_the_hidden_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds of 32 rollouts on 96 guesses: walking, the race deals from every guess; not walking,
    every round starts at the first guess and the last 64 are never dealt from."""
    view = Game(Rules(players=4), seed=8).view(2)
    config = GrandmasterConfig(samples=200, z=float("inf"), guesses=96, walk=False)
    assert len(GrandmasterBot(1, config).inference(view).perms) == 96
    walking = guesses_used(GrandmasterBot(1, replace(config, walk=True)), view, monkeypatch)
    assert walking == set(range(96))
    assert guesses_used(GrandmasterBot(1, config), view, monkeypatch) == set(range(32))
    assert make_bot("grandmaster:guesses=96:walk=false", 1).config.walk is False  # type: ignore[attr-defined]


def test_a_time_limited_grandmaster_infers_at_most_a_guess_per_millisecond() -> None:
    """The inference is not cut by the clock: a short time limit bounds the guesses it makes."""
    assert make_bot("grandmaster", 1).config.guesses == 256  # type: ignore[attr-defined]
    assert make_bot("grandmaster:ms=100", 1).config.guesses == 100  # type: ignore[attr-defined]
    assert make_bot("grandmaster:ms=10", 1).config.guesses == 48  # type: ignore[attr-defined]
    assert make_bot("grandmaster:ms=1000", 1).config.guesses == 256  # type: ignore[attr-defined]


def test_a_seeded_walking_grandmaster_is_repeatable() -> None:
    config = GrandmasterConfig(samples=12, guesses=64, walk=True)
    first = play_game([GrandmasterBot(seat + 30, config) for seat in range(4)], seed=6)
    again = play_game([GrandmasterBot(seat + 30, config) for seat in range(4)], seed=6)
    assert first == again
