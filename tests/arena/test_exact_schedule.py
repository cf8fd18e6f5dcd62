"""The arena plays exactly what it reports: no game is thrown away, the progress bar ends on the
report's count, win shares keep within 0..1, and the tables fit 80 columns."""

from __future__ import annotations

import io
import math
from dataclasses import replace

import pytest
from rich.console import Console

from sixnimmt.arena import ArenaConfig, run_arena
from sixnimmt.arena import runner as arena_runner
from sixnimmt.arena.schedule import GameTask
from sixnimmt.arena.stats import wilson_ci
from sixnimmt.arena.worker import GameResult


@pytest.mark.parametrize("jobs", [1, 2])
def test_games_to_a_target_are_all_reported_and_counted(monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    played: list[tuple[int, int]] = []
    real = arena_runner.play_task

    def counting(task: GameTask) -> GameResult:
        played.append((task.set_index, task.seating_index))
        return real(task)

    if jobs == 1:  # the in-process backend calls play_task from the runner module
        monkeypatch.setattr(arena_runner, "play_task", counting)
    ticks: list[tuple[int, int]] = []
    config = ArenaConfig(bots=("random", "snug", "cautious"), deals=12, seed=5, jobs=jobs)  # games to 66
    report = run_arena(config, progress=lambda done, total: ticks.append((done, total)))
    if jobs == 1:
        assert sorted(played) == sorted(r.key for r in report.results)
    assert [done for done, _ in ticks[:-1]] == list(range(1, report.games + 1))
    assert ticks[-1] == (report.games, report.games)
    assert all(total >= done for done, total in ticks)
    assert report.shuffles >= 12
    assert report.games == 3 * report.sets  # whole sets only


def test_the_same_seed_gives_the_same_sets_with_any_jobs() -> None:
    config = ArenaConfig(bots=("random", "snug"), deals=10, seed=8)
    one = run_arena(config)
    two = run_arena(ArenaConfig(bots=("random", "snug"), deals=10, seed=8, jobs=2))
    assert [r.key for r in one.results] == [r.key for r in two.results]
    assert [r.totals for r in one.results] == [r.totals for r in two.results]


def test_fixed_length_games_play_exactly_the_sets_needed() -> None:
    ticks: list[tuple[int, int]] = []
    config = ArenaConfig(bots=("random", "snug"), deals=7, target=None, game_deals=2, seed=1)
    report = run_arena(config, progress=lambda done, total: ticks.append((done, total)))
    assert (report.sets, report.shuffles, report.games) == (4, 8, 8)
    assert {total for _, total in ticks} == {8}  # the bar knew the total from the start


def test_wilson_interval_matches_the_textbook_and_stays_in_bounds() -> None:
    eight_of_ten = wilson_ci([1.0] * 8 + [0.0] * 2)
    assert eight_of_ten.low == pytest.approx(0.4902, abs=1e-4)
    assert eight_of_ten.high == pytest.approx(0.9433, abs=1e-4)
    two_sets = wilson_ci([0.25, 0.25])  # where mean ± t·s/√n gave nonsense with spread
    assert two_sets.low is not None and two_sets.high is not None
    assert 0.0 <= two_sets.low < 0.25 < two_sets.high <= 1.0
    spread = wilson_ci([0.0, 0.5])
    assert spread.low is not None and spread.high is not None
    assert 0.0 <= spread.low and spread.high <= 1.0
    assert wilson_ci([1.0, 1.0, 1.0]).high == 1.0 and wilson_ci([0.0]).low == 0.0


def test_report_win_shares_stay_within_zero_and_one() -> None:
    report = run_arena(ArenaConfig(bots=("random", "cautious"), deals=2, target=None, game_deals=1, seed=2))
    for bot in report.bots:
        assert bot.win_share.low is not None and bot.win_share.high is not None
        assert 0.0 <= bot.win_share.low <= bot.win_share.mean <= bot.win_share.high <= 1.0
    assert math.isclose(sum(b.win_share.mean for b in report.bots), 1.0)


def test_tables_fit_80_columns_without_wrapping_a_cell() -> None:
    report = run_arena(ArenaConfig(bots=("random", "snug", "cautious", "random"), deals=3, players=4,
                                   target=None, game_deals=1, seed=4))
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(report.table())
    console.print(report.pairs_table())
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    for bot in report.bots:  # each bot's row is one line holding all its cells, none cut
        row = next(line for line in lines if line.startswith(bot.label + " "))
        assert bot.win_share.percent_text() in row and f"{bot.mean_decision_ms:.2f}" in row
        assert "…" not in row
    assert "Wilson" in text
    for pair in report.pairs:
        row = next(line for line in lines if line.startswith(f"{pair.a} ") and f" {pair.b} " in line)
        assert pair.difference.text(3) in row and pair.verdict in row


def test_long_labels_are_cut_at_80_columns_and_never_a_figure() -> None:
    """A pipe gives the table 80 columns: a bot label longer than the room left (a policy's path in
    a spec) is cut with an ellipsis; every interval, share, rating and time stays whole."""
    report = run_arena(ArenaConfig(bots=("random", "snug", "cautious", "random"), deals=3, players=4,
                                   target=None, game_deals=1, seed=4))
    suffix = "-with-a-label-far-too-long-for-its-column"
    report.bots = [replace(bot, label=bot.label + suffix) for bot in report.bots]
    report.pairs = [replace(pair, a=pair.a + suffix, b=pair.b + suffix) for pair in report.pairs]
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(report.table())
    console.print(report.pairs_table())
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    for bot in report.bots:
        row = next(line for line in lines if line.startswith(bot.label[:5]) and f"{bot.rating.mu:.1f} ±" in line)
        assert bot.penalty_per_deal.text(2) in row and bot.penalty_per_game.text(1) in row
        assert bot.win_share.percent_text() in row and f"{bot.mean_decision_ms:.2f}" in row
        assert "…" in row  # the label, cut
    for pair in report.pairs:
        assert any(pair.difference.text(3) in line for line in lines)
