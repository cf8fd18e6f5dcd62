"""Bots across the two worlds: ours as ``pyspiel.Bot``, OpenSpiel's ISMCTS in an arena seat.
Skipped without the openspiel extra."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")

from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

from sixnimmt.arena import ArenaConfig, run_arena  # noqa: E402
from sixnimmt.core import Game, Rules  # noqa: E402
from sixnimmt.rl.openspiel.bots import OpenSpielSeat, SixNimmtBot, searchable  # noqa: E402
from sixnimmt.rl.openspiel.game import SixNimmtState  # noqa: E402
from sixnimmt.seats import make_bot  # noqa: E402

SEARCHED = ["standard", "tactics", "professional", "open", "nifty", "double"]


@pytest.mark.parametrize("variant", ["standard", "nifty", "open", "logic"])
def test_our_bots_play_inside_openspiel(variant: str) -> None:
    game = pyspiel.load_game("sixnimmt", {"players": 4, "variant": variant})
    bots = [SixNimmtBot("medium", p, seed=p) for p in range(3)] + [pyspiel.make_uniform_random_bot(3, 7)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(1))
    assert isinstance(state, SixNimmtState) and state.engine is not None and state.engine.is_over
    assert list(returns) == [-float(t) for t in state.engine.totals]


def test_our_bots_play_the_turn_based_game() -> None:
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("sixnimmt", {"players": 3}))
    bots = [SixNimmtBot("medium", p, seed=p) for p in range(3)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(2))
    engine = state.simultaneous_game_state().engine
    assert engine.is_over and list(returns) == [-float(t) for t in engine.totals]


def test_our_bot_refuses_a_state_of_another_game() -> None:
    state = pyspiel.load_game("kuhn_poker").new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(pyspiel.SpielError, match="plays states of the game 'sixnimmt'"):
        SixNimmtBot("random", 0).step(state)


@pytest.mark.parametrize("variant", SEARCHED)
def test_openspiel_ismcts_takes_a_seat_in_the_arena(variant: str) -> None:
    report = run_arena(ArenaConfig(
        bots=("openspiel:ismcts:simulations=3", "random"), deals=1, players=3, variant=variant,
        target=None, game_deals=1, seed=4,
    ))
    assert report.games == 3 and not report.faults


def test_openspiel_ismcts_refuses_a_variant_it_cannot_rebuild_in_one_line() -> None:
    game = Game(Rules(players=3, variant="logic"), seed=1)
    bot = make_bot("openspiel:ismcts:simulations=3", seed=1)
    with pytest.raises(ValueError, match="not logic"):
        bot.decide(game.view(game.pending()[0].seat))


@pytest.mark.parametrize("variant", SEARCHED)
def test_the_rebuilt_deal_has_the_seats_information_state(variant: str) -> None:
    """Along a random one-deal game, at every decision with a choice: the world the ISMCTS seat
    rebuilds from its view and the public events is one the seat cannot tell from the true one
    (the same information state), for several draws of the hidden cards."""
    players = 3
    game = pyspiel.load_game("sixnimmt", {"players": players, "variant": variant})
    turn_based = pyspiel.convert_to_turn_based(game)
    rng = random.Random(variant)
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, probabilities)[0])
    checked = 0
    while not state.is_terminal():
        engine = state.engine
        for decision in engine.pending():
            if len(decision.options) < 2 or engine.view(decision.seat).my_choices:
                continue
            seat = OpenSpielSeat("ismcts", {"simulations": 1, "uct_c": 1.0, "rollouts": 1, "policy": "max_visit_count"}, seed=1)
            for event in engine.events:  # what a host tells the seat, as it happened
                seat.notify(event, engine.view(decision.seat))
            for draw in range(2):
                world = turn_based.new_initial_state()
                for action in seat.rebuild(engine.view(decision.seat), random.Random(draw)):
                    world.apply_action(action)
                assert world.current_player() == decision.seat
                assert world.information_state_string(decision.seat).endswith(state.information_state(decision.seat))
                checked += 1
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 10


def test_only_shuffled_variants_that_keep_no_taken_cards_are_searched() -> None:
    assert [v for v in ("standard", "tactics", "logic", "professional", "tournament", "open", "nifty", "hand", "double")
            if searchable(Rules(players=3, variant=v))] == SEARCHED


def test_openspiel_ismcts_refuses_an_open_deal_whose_marker_starts_elsewhere() -> None:
    game = Game(Rules(players=3, variant="open", target=None, deals=2), seed=2)
    rng = random.Random(2)
    while game.deal_index == 0:
        decision = game.pending()[0]
        game.act(decision.seat, rng.choice(decision.options))
    bot = make_bot("openspiel:ismcts:simulations=2", seed=1)
    with pytest.raises(ValueError, match="marker starts at seat 0"):
        bot.decide(game.view(game.pending()[0].seat))
