"""Ensembles of policies: one file, several networks, the mean of their scores."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, Rules
from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE, encode
from sixnimmt.rl.policy import DEFAULT_POLICY, MlpPolicy, PolicyFileError, ensemble
from sixnimmt.seats import GuardedSeat, make_bot, play_game


def network(seed: int, hidden: int = 8, meta: dict[str, object] | None = None) -> MlpPolicy:
    rng = np.random.default_rng(seed)
    return MlpPolicy(
        [rng.normal(size=(hidden, OBS_SIZE)).astype(np.float32), rng.normal(size=(N_ACTIONS, hidden)).astype(np.float32)],
        [rng.normal(size=hidden).astype(np.float32), rng.normal(size=N_ACTIONS).astype(np.float32)],
        meta=meta,
    )


def observations(count: int, players: int = 4) -> np.ndarray:
    """Observations of real positions: a random game's views, one per decision."""
    rows = []
    game = Game(Rules(players=players), rng=random.Random(3))
    rng = random.Random(4)
    while not game.is_over and len(rows) < count:
        for decision in game.pending():
            rows.append(encode(game.view(decision.seat)))
            game.act(decision.seat, rng.choice(decision.options))
    return np.stack(rows[:count])


def test_the_scores_are_the_mean_of_the_members_scores_with_their_residuals() -> None:
    # Residuals of both kinds: one number, and one per player count; the mean must hold for both.
    a = network(1, meta={"residual": -2.0, "row_residual": -4.0})
    b = network(2, meta={"residual": [0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.0]})
    c = network(3)
    combined = ensemble([a, b, c])
    assert combined.networks == 3
    x = observations(60)
    expected = (a.logits(x) + b.logits(x) + c.logits(x)) / 3
    np.testing.assert_allclose(combined.logits(x), expected, rtol=1e-4, atol=1e-4)
    # One observation at a time gives the same scores as the batch, and the same greedy moves.
    np.testing.assert_allclose(combined.logits(x[7]), expected[7], rtol=1e-4, atol=1e-4)
    assert combined.residual[4] == pytest.approx(-1.0) and combined.residual[10] == pytest.approx(-8 / 3, rel=1e-5)
    assert combined.row_residual.size == 1 and combined.row_residual[0] == pytest.approx(-4 / 3, rel=1e-5)


def test_an_ensemble_round_trips_and_its_members_come_back_out(tmp_path: Path) -> None:
    a, b = network(1), network(2)
    combined = ensemble([a, b], {"note": "two"})
    combined.save(tmp_path / "e.npz")
    loaded = MlpPolicy.load(tmp_path / "e.npz")
    assert loaded.networks == 2 and loaded.meta["note"] == "two"
    x = observations(20)
    np.testing.assert_allclose(loaded.logits(x), combined.logits(x), rtol=1e-6)
    for k, member in enumerate((a, b)):
        np.testing.assert_array_equal(loaded.member(k).weights[0], member.weights[0])
        np.testing.assert_allclose(loaded.member(k).logits(x), member.logits(x), rtol=1e-6)
    # An ensemble of an ensemble and a network: three networks, each counted once.
    three = ensemble([loaded, network(3)])
    assert three.networks == 3
    np.testing.assert_allclose(three.logits(x), (a.logits(x) + b.logits(x) + network(3).logits(x)) / 3,
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(PolicyFileError, match="2 network"):
        loaded.member(2)


def test_an_ensemble_plays_whole_games_legally_as_the_learned_bot(tmp_path: Path) -> None:
    ensemble([network(1), network(2)]).save(tmp_path / "e.npz")
    seats = [GuardedSeat(make_bot(f"learned:policy={tmp_path / 'e.npz'}", seed=0)),
             GuardedSeat(make_bot("random", seed=1)), GuardedSeat(make_bot("random", seed=2))]
    game = play_game(Game(Rules(players=3), seed=5), seats)
    assert game.is_over
    assert seats[0].faults == []  # no illegal answer needed the seat's fallback


def test_networks_of_different_shapes_do_not_make_an_ensemble() -> None:
    with pytest.raises(PolicyFileError, match="same layers"):
        ensemble([network(1, hidden=8), network(2, hidden=16)])
    with pytest.raises(PolicyFileError, match="at least one"):
        ensemble([])
    one = network(1)
    with pytest.raises(PolicyFileError, match="all matrices"):  # one layer stacked, the other not
        MlpPolicy([one.weights[0][None], one.weights[1]], [one.biases[0][None], one.biases[1]])


def test_sixnimmt_train_ensemble_writes_the_averaged_policy(tmp_path: Path) -> None:
    network(1).save(tmp_path / "a.npz")
    network(2).save(tmp_path / "b.npz")
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--ensemble", f"{tmp_path / 'a.npz'},{tmp_path / 'b.npz'}", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    made = MlpPolicy.load(tmp_path / "run" / "policy.npz")
    x = observations(10)
    np.testing.assert_allclose(made.logits(x), (network(1).logits(x) + network(2).logits(x)) / 2, rtol=1e-4, atol=1e-4)
    assert made.meta["networks"] == 2 and "--ensemble" in made.meta["history"][-1]
    assert DEFAULT_POLICY.read_bytes() != (tmp_path / "run" / "policy.npz").read_bytes()  # not shipped unasked


@pytest.mark.parametrize(("sources", "message"), [
    ("one.npz", "two policies or more"),
    ("missing.npz,also-missing.npz", "no policy file"),
])
def test_sixnimmt_train_ensemble_refuses_bad_sources_in_one_line(tmp_path: Path, sources: str, message: str) -> None:
    result = CliRunner().invoke(app, ["train", "--ensemble", sources, "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_sixnimmt_train_ensemble_will_not_write_into_the_shipped_folder(tmp_path: Path) -> None:
    network(1).save(tmp_path / "a.npz")
    network(2).save(tmp_path / "b.npz")
    result = CliRunner().invoke(app, ["train", "--ensemble", f"{tmp_path / 'a.npz'},{tmp_path / 'b.npz'}",
                                      "--out", str(DEFAULT_POLICY.parent)])
    assert result.exit_code == 2 and "--ship" in result.output
