"""``sixnimmt train``: a tiny self-play run writes its log, curve, policy and checkpoint, resumes
where it stopped, and never touches the shipped policy unless told to (needs the rl extra)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE
from sixnimmt.rl.features import DERIVED_SIZE
from sixnimmt.rl.policy import DEFAULT_POLICY, MlpPolicy

torch = pytest.importorskip("torch")

TINY = ["--games", "8", "--steps", "6", "--eval-every", "2", "--eval-games", "8", "--hidden", "16",
        "--init", "none", "--players", "3,5"]


def shipped_digest() -> str:
    return hashlib.sha256(DEFAULT_POLICY.read_bytes()).hexdigest()


def test_a_tiny_run_writes_everything_and_resumes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    before = shipped_digest()
    first = runner.invoke(app, ["train", "--out", str(out), "--agent-steps", "300", "--clone", "greedy",
                                "--clone-decisions", "200", *TINY])
    assert first.exit_code == 0, first.output
    lines = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert lines[0]["config"]["players"] == [3, 5]
    assert lines[1]["cloned"] == "greedy" and 0 < lines[1]["agreement"] <= 1
    iterations = [line["iteration"] for line in lines[2:]]
    assert iterations == list(range(1, len(iterations) + 1)) and lines[-1]["agent_steps"] >= 300
    evaluated = [line["eval_vs_greedy"] for line in lines[1:] if "eval_vs_greedy" in line]
    assert evaluated and set(evaluated[0]) == {"3", "5"}  # every player count trained on
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    policy = MlpPolicy.load(out / "policy.npz")
    assert policy.weights[0].shape == (16, OBS_SIZE) and policy.weights[-1].shape[0] == N_ACTIONS
    # The same run folder again: refused without --resume; with it, the counters go on.
    again = runner.invoke(app, ["train", "--out", str(out), "--agent-steps", "300", *TINY])
    assert again.exit_code != 0 and "already holds a run" in again.output
    more = runner.invoke(app, ["train", "--out", str(out), "--agent-steps", "600", "--resume"])
    assert more.exit_code == 0, more.output
    resumed = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()][2:]
    assert [line["iteration"] for line in resumed] == list(range(1, len(resumed) + 1))
    assert resumed[-1]["agent_steps"] >= 600 > resumed[len(iterations) - 1]["agent_steps"]
    assert shipped_digest() == before  # no --ship: the shipped policy is untouched


def test_the_exported_policy_is_the_trained_actor(tmp_path: Path) -> None:
    from sixnimmt.rl.train import (
        TrainConfig,
        _inherit_residuals,
        build_mlp,
        export_actor,
        load_policy_into,
    )

    actor = build_mlp(torch, [OBS_SIZE, 16, N_ACTIONS])
    policy = export_actor(actor, {})
    obs = np.random.default_rng(0).random((5, OBS_SIZE), dtype=np.float32)
    with torch.no_grad():
        expected = actor(torch.as_tensor(obs)).numpy()
    assert np.allclose(policy.logits(obs), expected, atol=1e-5)
    # Starting from the shipped policy plays as its (first) network does, with its residual weights.
    shipped = MlpPolicy.load()
    big = build_mlp(torch, [OBS_SIZE, 256, 256, N_ACTIONS])
    load_policy_into(torch, big, shipped)
    first = shipped.member(0)
    network = MlpPolicy(first.weights, first.biases, first.activation)
    with torch.no_grad():
        assert np.allclose(big(torch.as_tensor(obs)).numpy(), network.logits(obs), atol=1e-4)
    config = TrainConfig(residual={10: -8.0})
    _inherit_residuals(config, shipped)
    # Every table size the shipped file weighs is inherited; the command line's 10 stays.
    weighed = {count: float(w) for count, w in enumerate(shipped.residual) if count >= 2 and w}
    assert len(weighed) >= 2 and config.residual == {**weighed, 10: -8.0}
    assert config.row_residual == {count: float(shipped.row_residual[count]) for count in range(2, 11)}


def test_bad_runs_are_refused_clearly(tmp_path: Path) -> None:
    runner = CliRunner()
    shipped_dir = runner.invoke(app, ["train", "--out", str(DEFAULT_POLICY.parent), *TINY])
    assert shipped_dir.exit_code != 0 and "--ship" in shipped_dir.output
    nothing = runner.invoke(app, ["train", "--out", str(tmp_path / "none"), "--resume"])
    assert nothing.exit_code != 0 and "nothing to resume" in nothing.output
    bot = runner.invoke(app, ["train", "--out", str(tmp_path / "b"), "--league-bots", "greedy,nobody", *TINY])
    assert bot.exit_code != 0 and "unknown league bot 'nobody'" in bot.output
    variant = runner.invoke(app, ["train", "--out", str(tmp_path / "v"), "--variant", "nifty", *TINY])
    assert variant.exit_code != 0 and "do not cover the nifty variant" in variant.output
    weights = runner.invoke(app, ["train", "--out", str(tmp_path / "w"), "--residual", "10=-8", *TINY])
    assert weights.exit_code != 0 and "PLAYERS:WEIGHT" in weights.output, weights.output
    table = runner.invoke(app, ["train", "--out", str(tmp_path / "t"), "--residual", "12:-8", *TINY])
    assert table.exit_code != 0 and "names 12 players" in table.output
    outputs = shipped_dir.output + nothing.output + bot.output + variant.output + weights.output + table.output
    assert "Traceback" not in outputs


def test_a_run_against_cautious_learns_a_residual_per_table_size(tmp_path: Path) -> None:
    """The ``cautious`` league player, the derived features and residuals at one table size each: the
    run plays, the policy reads the features, each residual
    moves from where it started at that size only, and the exported policy carries it (so the
    ``learned`` bot plays the trained scores); a resumed run starts from the saved weights."""
    runner = CliRunner()
    out = tmp_path / "run"
    args = ["train", "--out", str(out), "--league-bots", "cautious", "--bot-share", "1", "--self-play", "0",
            "--residual", "5:-4", "--row-residual", "3:-2", "--features", "derived", "--agent-steps", "300", *TINY]
    first = runner.invoke(app, [*args, "--lr", "0.05"])
    assert first.exit_code == 0, first.output
    policy = MlpPolicy.load(out / "policy.npz")
    assert policy.features == "derived" and policy.weights[0].shape == (16, OBS_SIZE + DERIVED_SIZE)
    residual = policy.meta["residual"]
    assert len(residual) == 11 and residual[5] != -4.0 and residual[:5] == [0.0] * 5 and residual[6:] == [0.0] * 5
    rows = policy.meta["row_residual"]
    assert rows[3] != -2.0 and rows[:3] == [0.0] * 3 and rows[4:] == [0.0] * 7
    saved = torch.load(out / "checkpoint.pt", weights_only=False)
    assert saved["residual"][0][5] == pytest.approx(residual[5], abs=1e-4)
    assert saved["config"]["residual"] == {5: -4.0} and saved["config"]["row_residual"] == {3: -2.0}
    assert tuple(saved["config"]["league_bots"]) == ("cautious",)
    more = runner.invoke(app, ["train", "--out", str(out), "--agent-steps", "600", "--resume"])
    assert more.exit_code == 0, more.output
    assert MlpPolicy.load(out / "policy.npz").meta["residual"][5] != residual[5]


def test_a_run_keeps_the_init_policys_own_networks_for_tables_it_does_not_train(tmp_path: Path) -> None:
    from sixnimmt.rl.policy import with_tables

    rng = np.random.default_rng(0)

    def net(hidden: int) -> MlpPolicy:
        return MlpPolicy([rng.normal(size=(hidden, OBS_SIZE)).astype(np.float32), rng.normal(size=(N_ACTIONS, hidden)).astype(np.float32)],
                         [np.zeros(hidden, np.float32), np.zeros(N_ACTIONS, np.float32)])

    ten = net(8)
    with_tables(net(16), {10: ten}).save(tmp_path / "init.npz")
    options = [*TINY[: TINY.index("--init")], "--agent-steps", "100", "--init", str(tmp_path / "init.npz")]
    runner = CliRunner()
    kept = runner.invoke(app, ["train", "--out", str(tmp_path / "small"), *options, "--players", "3,5"])
    assert kept.exit_code == 0, kept.output
    policy = MlpPolicy.load(tmp_path / "small" / "policy.npz")
    assert sorted(policy.tables) == [10]
    np.testing.assert_array_equal(policy.tables[10].weights[0], ten.weights[0])
    # Resumed from its checkpoint, the run still writes the table's network.
    more = runner.invoke(app, ["train", "--out", str(tmp_path / "small"), "--agent-steps", "200", "--resume"])
    assert more.exit_code == 0, more.output
    assert sorted(MlpPolicy.load(tmp_path / "small" / "policy.npz").tables) == [10]
    # A run that trains 10 players trains the shared network there, and says so.
    trained = runner.invoke(app, ["train", "--out", str(tmp_path / "ten"), *options, "--players", "3,10"])
    assert trained.exit_code == 0, trained.output
    assert "own network for 10 players is not kept" in trained.output
    assert MlpPolicy.load(tmp_path / "ten" / "policy.npz").tables == {}


def test_a_run_from_the_shipped_policy_says_so_first(tmp_path: Path) -> None:
    """The default ``--init learned`` fine-tunes the shipped policy: the run's first line says it."""
    options = [option for option in TINY if option not in ("--hidden", "16", "--init", "none")]
    result = CliRunner().invoke(app, ["train", "--out", str(tmp_path / "run"), "--agent-steps", "50", *options])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("starting from the shipped policy (standard4.npz): a fine-tuning run")
    assert "--init none trains from scratch" in first


def test_the_help_says_the_default_fine_tunes_the_shipped_policy() -> None:
    result = CliRunner().invoke(app, ["train", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    summary = " ".join(result.output.split())
    assert "By default PPO fine-tunes the shipped policy (--init learned); --init none trains from scratch." in summary
    assert "learned (the shipped policy: a fine-tuning run)" in summary
