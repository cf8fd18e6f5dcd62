"""Networks of their own for some table sizes: one policy file, the shared network for every table
but those, and a table of such a size played by its own network."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, Rules
from sixnimmt.rl.features import players_of
from sixnimmt.rl.policy import (
    DEFAULT_POLICY,
    MlpPolicy,
    PolicyFileError,
    ensemble,
    with_residuals,
    with_tables,
)
from sixnimmt.seats import GuardedSeat, make_bot, play_game

from .test_ensemble import network, observations


def mixed() -> np.ndarray:
    """Observations of tables of 4 and of 10 players, interleaved."""
    four, ten = observations(40, players=4), observations(40, players=10)
    mixed = np.empty((80, four.shape[1]), dtype=np.float32)
    mixed[0::2], mixed[1::2] = four, ten
    return mixed


def test_each_table_size_is_played_by_its_own_network_or_the_shared_one() -> None:
    shared, ten = network(1, meta={"residual": -2.0}), network(2, meta={"row_residual": -4.0})
    policy = with_tables(shared, {10: ten})
    x = mixed()
    players = players_of(x)
    assert set(players[0::2]) == {4} and set(players[1::2]) == {10}
    scores = policy.logits(x)
    np.testing.assert_allclose(scores[0::2], shared.logits(x[0::2]), rtol=1e-6)
    np.testing.assert_allclose(scores[1::2], ten.logits(x[1::2]), rtol=1e-6)
    # One observation at a time: the same scores as in the batch.
    for i in (0, 1, 2, 3):
        np.testing.assert_allclose(policy.logits(x[i]), scores[i], rtol=1e-5, atol=1e-4)
    # A batch of one table size alone, and a batch with a leading axis more (the vector env's [N, P, D]).
    np.testing.assert_allclose(policy.logits(x[1::2]), ten.logits(x[1::2]), rtol=1e-6)
    np.testing.assert_allclose(policy.logits(x.reshape(20, 4, -1)), scores.reshape(20, 4, -1), rtol=1e-6)
    # The networks differ, so the test would see a table played by the wrong one.
    assert not np.allclose(shared.logits(x[1::2]), ten.logits(x[1::2]))


def test_a_policy_with_tables_round_trips_through_its_file(tmp_path: Path) -> None:
    policy = with_tables(network(1, meta={"note": "shared"}), {10: network(2, meta={"residual": -1000.0}),
                                                                  6: network(3, hidden=16)})
    policy.save(tmp_path / "p.npz")
    loaded = MlpPolicy.load(tmp_path / "p.npz")
    assert sorted(loaded.tables) == [6, 10] and loaded.meta == {"note": "shared"}
    assert loaded.tables[10].residual[0] == -1000.0 and loaded.tables[6].weights[0].shape[0] == 16
    x = np.concatenate([mixed(), observations(20, players=6)])
    np.testing.assert_allclose(loaded.logits(x), policy.logits(x), rtol=1e-6)
    # An ensemble's member keeps the tables; an ensemble is not made of policies with tables.
    assert loaded.member(0).tables.keys() == loaded.tables.keys()
    with pytest.raises(PolicyFileError, match="ensemble"):
        ensemble([loaded, network(4)])


def test_residuals_are_set_in_the_network_that_plays_the_table() -> None:
    policy = with_tables(network(1, meta={"residual": -2.0}), {10: network(2)})
    changed = with_residuals(policy, {10: -1000.0, 4: -3.0}, {})
    assert changed.tables[10].residual[10] == -1000.0 and changed.tables[10].residual[4] == 0.0
    assert changed.residual[4] == -3.0 and changed.residual[10] == -2.0  # the shared one, untouched at 10
    with pytest.raises(PolicyFileError, match="2 to 10"):
        with_residuals(policy, {11: -1.0}, {})
    with pytest.raises(PolicyFileError, match="2 to 10"):
        with_tables(network(1), {1: network(2)})


def test_a_policy_with_a_table_network_plays_whole_games_legally(tmp_path: Path) -> None:
    with_tables(network(1), {10: network(2)}).save(tmp_path / "t.npz")
    for players in (3, 10):
        seats = [GuardedSeat(make_bot(f"learned:policy={tmp_path / 't.npz'}", seed=0))]
        seats += [GuardedSeat(make_bot("random", seed=s)) for s in range(1, players)]
        game = play_game(Game(Rules(players=players), seed=5), seats)
        assert game.is_over and seats[0].faults == []


def test_sixnimmt_train_tables_writes_the_combined_policy(tmp_path: Path) -> None:
    network(1, meta={"history": ["made"]}).save(tmp_path / "shared.npz")
    network(2).save(tmp_path / "ten.npz")
    result = CliRunner().invoke(app, ["train", "--init", str(tmp_path / "shared.npz"), "--tables",
                                      f"10:{tmp_path / 'ten.npz'}", "--residual", "10:-1000",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.splitlines()[-1])["tables"] == [10]
    made = MlpPolicy.load(tmp_path / "run" / "policy.npz")
    x = mixed()
    np.testing.assert_allclose(made.logits(x[0::2]), network(1).logits(x[0::2]), rtol=1e-6)
    expected = with_residuals(network(2), {10: -1000.0}, {}).logits(x[1::2])
    np.testing.assert_allclose(made.logits(x[1::2]), expected, rtol=1e-5)
    assert made.meta["history"][0] == "made" and "--tables" in made.meta["history"][-1]
    assert DEFAULT_POLICY.read_bytes() != (tmp_path / "run" / "policy.npz").read_bytes()  # not shipped unasked


@pytest.mark.parametrize(("tables", "message"), [
    ("ten.npz", "PLAYERS:FILE"),
    ("x:ten.npz", "PLAYERS:FILE"),
    ("10:missing.npz", "no policy file"),
    ("12:{ten}", "2 to 10"),
])
def test_sixnimmt_train_tables_refuses_bad_input_in_one_line(tmp_path: Path, tables: str, message: str) -> None:
    network(2).save(tmp_path / "ten.npz")
    result = CliRunner().invoke(app, ["train", "--tables", tables.format(ten=tmp_path / "ten.npz"),
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run" / "policy.npz").exists()


def test_the_shipped_policy_plays_ten_players_with_a_network_of_its_own() -> None:
    shipped = MlpPolicy.load()
    assert sorted(shipped.tables) == [10]
    x = mixed()
    np.testing.assert_allclose(shipped.logits(x[1::2]), shipped.tables[10].logits(x[1::2]), rtol=1e-6)
    # At 10 players the counting chooses the card (docs/rl.md): its weight dwarfs the network's scores.
    assert shipped.tables[10].residual[10] <= -100


def test_a_table_network_taken_from_a_file_with_tables_is_the_one_that_plays_that_size() -> None:
    shared, ten = network(1), network(2)
    source = with_tables(shared, {10: ten})
    combined = with_tables(network(4), {10: source, 6: source})
    x = mixed()
    np.testing.assert_allclose(combined.logits(x[1::2]), ten.logits(x[1::2]), rtol=1e-6)
    six_players = observations(10, players=6)
    np.testing.assert_allclose(combined.logits(six_players), shared.logits(six_players), rtol=1e-6)
    assert not combined.tables[6].tables
