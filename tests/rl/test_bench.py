"""``sixnimmt bench env``: the figures are consistent, and bad options get one clear line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.rl.benchmark import measure


def test_measure_reports_consistent_figures() -> None:
    speed = measure(players=3, variant="logic", seconds=0.05, seed=2)
    assert speed.players == 3 and speed.variant == "logic"
    # A game is dozens of steps, so steps/s must exceed games/s in both engine and env.
    assert speed.engine_steps_per_s > speed.engine_games_per_s > 0
    assert speed.parallel_steps_per_s > speed.parallel_games_per_s > 0
    assert speed.gym_steps_per_s > 0
    assert speed.ratio == speed.parallel_steps_per_s / speed.engine_steps_per_s
    assert speed.to_dict()["ratio"] == round(speed.ratio, 3)


def test_bench_env_command() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "env", "--seconds", "0.1", "--players", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["players"] == 2 and data["parallel_steps_per_s"] > 0
    bad = runner.invoke(app, ["bench", "env", "--variant", "bogus"])
    assert bad.exit_code != 0 and "unknown variant 'bogus'" in bad.output and "Traceback" not in bad.output


def test_bench_env_vector_reports_both_envs_from_one_run() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "env", "--vector", "--games", "64", "--seconds", "0.1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["vector_steps_per_s"] > 0 and data["parallel_steps_per_s"] > 0
    assert data["speedup"] == round(data["vector_steps_per_s"] / data["parallel_steps_per_s"], 1)
    assert set(data["scaling_games"]) == {"1", "16", "256", "1024", "4096"}
    assert set(data["scaling_players"]) == {"2", "3", "4", "6", "8", "10"}
    text = runner.invoke(app, ["bench", "env", "--vector", "--games", "8", "--seconds", "0.1"])
    assert text.exit_code == 0 and "agent-steps/s" in text.output
    bad = runner.invoke(app, ["bench", "env", "--vector", "--variant", "nifty", "--seconds", "0.1"])
    assert bad.exit_code != 0 and "do not cover the nifty variant" in bad.output and "Traceback" not in bad.output
