"""``sixnimmt bench engine``: the checked tier plays whole games as a host does, and the figures
of one run are consistent."""

from __future__ import annotations

import json
import random

from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.commands.bench import checked_game
from sixnimmt.core.record import replay


def test_the_checked_tier_plays_a_whole_game_and_writes_its_record() -> None:
    record = checked_game(random.Random(3), 4)
    result = replay(record)  # every answer came from a view's decision, and the record verifies
    assert list(result.scores) == record["scores"]
    assert max(record["scores"]) >= 66  # to the end: standard rules, target 66
    assert len(record["deals"]) == len(result.game.history)


def test_bench_engine_command_reports_the_ratio_of_its_own_run() -> None:
    result = CliRunner().invoke(app, ["bench", "engine", "--seconds", "0.1", "--players", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["players"] == 3
    assert all(count > 0 for count in data["games"].values())
    ratio = data["checked_games_per_s"] / data["fast_python_games_per_s"]
    assert abs(data["checked_vs_fast"] - ratio) < 0.002
