"""``sixnimmt bench engine``: the checked tier plays whole games as a host does, and the figures
of one run are consistent."""

from __future__ import annotations

import json
import random

from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.commands.bench import checked_engine_and_record, checked_game, rates_in_turns
from sixnimmt.core.record import replay


def test_the_checked_tier_plays_a_whole_game_and_writes_its_record() -> None:
    record = checked_game(random.Random(3), 4)
    result = replay(record)  # every answer came from a view's decision, and the record verifies
    assert list(result.scores) == record["scores"]
    assert max(record["scores"]) >= 66  # to the end: standard rules, target 66
    assert len(record["deals"]) == len(result.game.history)


def test_the_engine_and_record_tier_writes_the_record_of_a_whole_game() -> None:
    record = checked_engine_and_record(random.Random(3), 4)
    result = replay(record)
    assert list(result.scores) == record["scores"]
    assert max(record["scores"]) >= 66


def test_bench_engine_command_reports_the_ratio_of_its_own_run() -> None:
    result = CliRunner().invoke(app, ["bench", "engine", "--seconds", "0.1", "--players", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["players"] == 3
    assert all(count > 0 for count in data["games"].values())
    fast = data["fast_python_games_per_s"]
    assert abs(data["checked_vs_fast"] - data["checked_games_per_s"] / fast) < 0.002
    assert abs(data["checked_engine_alone_vs_fast"] - data["checked_engine_alone_games_per_s"] / fast) < 0.002
    assert abs(data["checked_engine_and_record_vs_fast"] - data["checked_engine_and_record_games_per_s"] / fast) < 0.002
    # per deal: games per second times deals per game, over the fast path's
    per_game = data["deals_per_game"]
    assert all(1 <= deals <= 20 for deals in per_game.values())  # 66 points take a few deals
    fast_deals = fast * per_game["fast_python"]
    assert abs(data["per_deal_vs_fast"]["checked"] - data["checked_games_per_s"] * per_game["checked"] / fast_deals) < 0.002


def test_the_tiers_take_turns_until_each_has_its_time() -> None:
    order: list[str] = []
    clock = iter(range(1000))
    rates = rates_in_turns(
        {"a": lambda: order.append("a"), "b": lambda: order.append("b")}, seconds=4, turn=2, clock=lambda: next(clock)
    )
    # Each call ticks the injected clock once: a turn is two runs, and each tier gets two turns.
    assert order == ["a", "a", "b", "b", "a", "a", "b", "b"]
    assert rates == {"a": (1.0, 4), "b": (1.0, 4)}
