"""A prior prunes the searchers' options: only its best ``keep`` options are searched, with the
whole decision's rollout budget; without one the search is unchanged."""

from __future__ import annotations

from sixnimmt.bots.search import MonteCarloBot, SearchConfig
from sixnimmt.core import Game, PlayerView, Rules


def highest_first(view: PlayerView, options: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(options, reverse=True))


def first_view() -> PlayerView:
    return Game(Rules(players=4, target=None, deals=1), seed=8).view(0)


def test_only_the_priors_best_options_are_searched_with_the_whole_budget() -> None:
    view = first_view()
    assert view.decision is not None
    options = view.decision.options
    pruned = MonteCarloBot(1, SearchConfig(samples=12), prior=highest_first, keep=3)
    best, scores = pruned.explain(view)
    assert set(scores) == set(sorted(options)[-3:]) and best in scores
    assert pruned.rollouts == 12 * len(options)  # the budget of all the options, on three


def test_without_a_prior_or_with_keep_zero_every_option_is_searched() -> None:
    view = first_view()
    assert view.decision is not None
    plain = MonteCarloBot(1, SearchConfig(samples=12))
    unpruned = MonteCarloBot(1, SearchConfig(samples=12), prior=highest_first, keep=0)
    assert plain.explain(view) == unpruned.explain(view)
    assert set(plain.explain(view)[1]) == set(view.decision.options)


def test_keeping_one_option_plays_the_priors_choice() -> None:
    view = first_view()
    assert view.decision is not None
    bot = MonteCarloBot(1, SearchConfig(samples=12), prior=highest_first, keep=1)
    assert bot.decide(view) == max(view.decision.options)
