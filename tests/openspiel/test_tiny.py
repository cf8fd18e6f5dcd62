"""Tiny 6 nimmt!: the same engine on a few cards, solved by OpenSpiel's CFR. Skipped without the
openspiel extra."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra: pip install 'sixnimmt[openspiel]'")

from open_spiel.python import policy  # noqa: E402
from open_spiel.python.algorithms import expected_game_score  # noqa: E402

import sixnimmt.rl.openspiel.game  # noqa: E402, F401  (registers the game)
from sixnimmt.rl.openspiel import tiny  # noqa: E402


@pytest.fixture(scope="module")
def written() -> tiny.Tree:
    return tiny.tree(tiny.TINY)


def test_the_tiny_game_passes_openspiels_checks() -> None:
    game = pyspiel.load_game(tiny.TINY)
    assert game.rules.deck == (1, 2, 3, 4, 5, 6) and game.rules.hand_size == 2
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=3, serialize=False, verbose=False)


def test_cfr_solves_the_tiny_game(written: tiny.Tree) -> None:
    """OpenSpiel's CFR+ brings the exploitability under 0.01 bullheads in 20 iterations (the figure
    docs/baselines.md gives); after one it is still far from it."""
    first = tiny.solve(written, 1)
    solved = tiny.solve(written, 20)
    assert solved.exploitability <= 0.01 < first.exploitability


def test_the_written_out_tree_is_the_game(written: tiny.Tree) -> None:
    """Uniform play is worth the same to each player in the tree CFR runs on as in the game."""
    game = tiny.turn_based(tiny.TINY)
    uniform = policy.UniformRandomPolicy(game)
    in_the_game = expected_game_score.policy_value(game.new_initial_state(), [uniform, uniform])
    in_the_tree = pyspiel.expected_returns(
        written.efg.new_initial_state(), pyspiel.UniformRandomPolicy(written.efg), -1, True
    )
    assert list(in_the_tree) == pytest.approx(list(in_the_game))


def test_a_bots_exploitability_is_measured_from_its_moves(written: tiny.Tree) -> None:
    """A bot's policy plays the bot's move at every information set; our ``random`` bot is one pure
    draw per set: more exploitable than CFR's policy, no more than the game's range allows."""
    bot = tiny.bot_policy(written, "random", seed=3)
    state = written.efg.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert sorted(p for _, p in bot.policy_table()[state.information_state_string()]) == [0.0, 1.0]
    assert 0.01 < tiny.exploitability(written, bot) <= written.efg.max_utility()


def test_zero_sum_returns_are_the_others_mean_against_ones_own() -> None:
    game = pyspiel.load_game("sixnimmt(players=3,zero_sum=true)")
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    state = game.new_initial_state()
    rng = np.random.RandomState(5)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probabilities)))
        else:
            state.apply_actions([int(rng.choice(state.legal_actions(p))) if state.legal_actions(p) else 0 for p in range(3)])
    totals = state.engine.totals
    assert sum(state.returns()) == pytest.approx(0.0)
    assert state.returns()[0] == pytest.approx((totals[1] + totals[2]) / 2 - totals[0])


def test_the_command_refuses_a_game_it_cannot_measure_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for game, message in (
        ("chess", "is a game sixnimmt(...)"),
        ("sixnimmt(players=2,cards=3,hand=2,rows=1,row_limit=2,zero_sum=true)", "need 5 cards, not 3"),
        ("sixnimmt(players=2,cards=6,hand=2,rows=1,row_limit=2)", "two-player zero-sum"),
    ):
        with pytest.raises(SystemExit) as exit_:
            tiny.main(["--game", game, "--bots", ""])
        assert exit_.value.code == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("error: ") and message in line
