"""A searcher in the training league plays a vector batch's seats exactly as the registry's bot plays
them from the checked engine's views, takes half the seats of the games it is drawn for, and is
refused where it cannot play."""

from __future__ import annotations

import numpy as np
import pytest

from sixnimmt.core import Game
from sixnimmt.rl.encoding import PASS_ACTION, action_to_move, move_to_action
from sixnimmt.rl.league import StateSearcher
from sixnimmt.rl.train import (
    LEARNER,
    TrainConfig,
    TrainingError,
    _League,
    _Table,
    check_league_bots,
)
from sixnimmt.rl.vector import SixNimmtBatch
from sixnimmt.seats import make_bot


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=-1)


@pytest.mark.parametrize("spec", ["mcs100:samples=6", "mcs:samples=5", "expert:samples=4:rollout=random"])
def test_a_league_searcher_answers_as_the_bot_does_from_the_seats_view(spec: str) -> None:
    """Same seed, same answer: the arrays built from the batch's state are the ones the bot builds
    from the view (hand, rows, hand sizes, the unseen cards in the same order), card decisions and
    row choices alike, over whole deals."""
    count, players = 6, 4
    batch = SixNimmtBatch(num_games=count, players=players, seed=11)
    _, masks = batch.reset()

    def make_game(g: int) -> Game:  # the checked engine's game, dealt the batch game's deals
        return Game(batch.rules, dealer=lambda _deal: batch.deal_setup(g))

    games = [make_game(g) for g in range(count)]
    rng = np.random.default_rng(5)
    compared = rows = 0
    for step in range(40):
        for g, game in enumerate(games):
            for decision in game.pending():
                seed = 1000 * step + 10 * g + decision.seat
                ours = StateSearcher(spec, seed).decide(batch.state, g, decision.seat)
                view = game.view(decision.seat)
                theirs = move_to_action(make_bot(spec, seed).decide(view), view.decision)
                assert ours == theirs, (step, g, decision)
                compared += 1
                rows += decision.kind.value == "row"
        actions = random_legal(masks, rng)
        _, masks, _, dones, _ = batch.step(actions)  # first: the engine's next deal is the batch's
        for g, game in enumerate(games):
            for decision in game.pending():
                game.act(decision.seat, action_to_move(int(actions[g, decision.seat]), decision))
            if dones[g]:
                assert game.is_over
                games[g] = make_game(g)
    assert compared > 500 and rows > 0


def test_a_searcher_takes_half_the_seats_and_answers_legally() -> None:
    config = TrainConfig(games=16, league_bots=("mcs:samples=3",), bot_share=1.0, seed=3)
    league = _League(config)
    rng = np.random.default_rng(0)
    for players in (2, 3, 4, 5):
        table = _Table(config, players, rng)
        table.draw_roles(np.arange(config.games), league, rng, self_play=0.0)
        assert ((table.roles == 0).sum(axis=1) == players // 2).all()
        assert ((table.roles == LEARNER).sum(axis=1) == players - players // 2).all()
        for _ in range(25):
            actions = np.full((config.games, players), PASS_ACTION, dtype=np.int64)
            league.act(table, actions)
            theirs = (table.roles == 0) & (table.masks[..., PASS_ACTION] == 0)
            assert table.masks[theirs, actions[theirs]].all()  # every answer is legal
            mine = table.roles == LEARNER
            actions[mine] = random_legal(table.masks[mine], rng)
            table.obs, table.masks, *_ = table.batch.step(actions)
    assert league.searchers["mcs:samples=3"].bot.rollouts > 0


def test_a_bot_given_a_table_size_sits_only_at_that_size() -> None:
    """``4:mcs:samples=3`` seats the searcher at 4 players only; ``greedy`` sits everywhere; at a size
    with no bot of its own and no snapshot yet, the games are self-play."""
    config = TrainConfig(games=64, players=(2, 4), league_bots=("4:mcs:samples=3", "greedy"), bot_share=1.0, seed=3)
    league = _League(config)
    assert league.bots == ["mcs:samples=3", "greedy"] and league.tables == [4, None]
    rng = np.random.default_rng(0)
    at = {players: _Table(config, players, rng) for players in (2, 4)}
    for table in at.values():
        table.draw_roles(np.arange(config.games), league, rng, self_play=0.0)
    assert not (at[2].roles == 0).any() and (at[2].roles == 1).any()
    assert (at[4].roles == 0).any() and (at[4].roles == 1).any()
    alone = _League(TrainConfig(games=8, players=(2, 4), league_bots=("4:greedy",), seed=3))
    table = _Table(alone.config, 2, rng)
    table.draw_roles(np.arange(8), alone, rng, self_play=0.0)
    assert (table.roles == LEARNER).all()


@pytest.mark.parametrize("half", [False, True])
def test_built_in_players_take_every_other_seat_or_with_half_seats_half_the_table(half: bool) -> None:
    config = TrainConfig(games=32, players=(10,), league_bots=("cautious", "greedy"), bot_share=1.0,
                         half_seats=half, seed=4)
    table = _Table(config, 10, np.random.default_rng(1))
    table.draw_roles(np.arange(config.games), _League(config), np.random.default_rng(2), self_play=0.0)
    learner_seats = (table.roles == LEARNER).sum(axis=1)
    assert (learner_seats == (5 if half else 1)).all()
    assert {int(r) for r in np.unique(table.roles)} == {LEARNER, 0, 1}  # both bots were drawn


def test_league_players_a_run_cannot_seat_are_refused_clearly() -> None:
    check_league_bots(("greedy", "cautious", "mcs100", "expert", "mcs:samples=30"), "standard")
    for bots, variant, message in ((("mcs:samples=0",), "standard", r"league bot 'mcs:samples=0': .*samples"),
                                   (("grandmaster",), "standard", "not a Monte-Carlo searcher this league can seat"),
                                   (("expert-learned",), "standard", "not a Monte-Carlo searcher"),
                                   (("nobody",), "standard", "unknown league bot 'nobody': choose from random, greedy, cautious"),
                                   (("mcs100",), "tactics", "standard games only"),
                                   (("6:mcs100",), "standard", "6 players is not one of the run's table sizes"),
                                   (("4:",), "standard", "a bot's name follows the table size"),
                                   (("4:nobody",), "standard", "unknown league bot 'nobody'")):
        with pytest.raises(TrainingError, match=message):
            check_league_bots(bots, variant, (2, 4))
