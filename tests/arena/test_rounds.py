"""Tournaments of bots through the arena (``sixnimmt tournament``): Swiss rounds seat and score as
the competition rules say; a duplicate round deals the same shuffle to every table."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.arena import ArenaError
from sixnimmt.arena.rounds import TournamentConfig, run_tournament
from sixnimmt.cli import app
from sixnimmt.competition import FILL, placement_points, rank
from sixnimmt.competition.swiss import pair_key, repeats, swiss_tables
from tests.competition.test_swiss import every_seating

CHEAP = ("snug", "random", "easy", "snug", "random", "easy", "snug", "random", "easy", "snug", "random", "easy")


def test_a_swiss_tournament_of_twelve_at_four_player_tables_over_three_rounds() -> None:
    report = run_tournament(TournamentConfig(entrants=CHEAP, rounds=3, players=4, target=None, game_deals=1, seed=3))
    assert len(report.rounds) == 3
    met: dict[tuple[int, int], int] = {}
    for number, tables in enumerate(report.rounds):
        assert sorted(e for t in tables for e in t.seats) == list(range(12))  # everyone, once
        seatings = [t.seats for t in tables]
        # As few pairs who met before as any seating of the twelve at three tables allows (from
        # round two on there must be some: four seats of a table come from three earlier tables).
        fewest = min(repeats(s, met) for s in every_seating(list(range(12)), [4, 4, 4]))
        assert repeats(seatings, met) == fewest
        assert fewest >= (0 if number == 0 else 3)
        for table in seatings:
            for a, b in combinations(table, 2):
                met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
    # The standings are the competition's rules applied to the tables played (worked by hand in
    # tests/competition), and each entrant's points are its placement points added up.
    assert report.standings == rank(12, report.rounds, duplicate=False)
    points = [0.0] * 12
    for tables in report.rounds:
        for table in tables:
            for entrant, placed in zip(table.seats, placement_points(table.totals)):
                points[entrant] += placed
    assert {s.entrant: s.points for s in report.standings} == dict(enumerate(points))
    # Each round after the first is seated from the standings before it.
    met = {}
    for number in range(1, 3):
        for table in report.rounds[number - 1]:
            for a, b in combinations(table.seats, 2):
                met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
        order = [s.entrant for s in rank(12, report.rounds[:number], duplicate=False)]
        assert [t.seats for t in report.rounds[number]] == swiss_tables(order, 4, met)


def test_swiss_tables_get_their_own_shuffles_and_a_duplicate_round_one_for_all() -> None:
    def first_hands(fmt: str) -> list[list[tuple[int, ...]]]:
        report = run_tournament(TournamentConfig(
            entrants=CHEAP[:9], format=fmt, rounds=2, players=4, target=None, game_deals=1, seed=5, save_games=True,
        ))
        hands = [tuple(tuple(h) for h in record["deals"][0]["hands"]) for record in report.records]
        return [hands[0:3], hands[3:6]]

    duplicate = first_hands("duplicate")
    for tables in duplicate:
        assert tables[0] == tables[1] == tables[2]
    assert duplicate[0][0] != duplicate[1][0]  # a new shuffle each round
    swiss = first_hands("swiss")
    assert len({hands for tables in swiss for hands in tables}) == 6


def test_the_fill_bot_takes_the_seats_left_over_and_is_not_ranked() -> None:
    report = run_tournament(TournamentConfig(entrants=CHEAP[:5], rounds=1, players=4, target=None, game_deals=1))
    seats = [e for t in report.rounds[0] for e in t.seats]
    assert seats.count(FILL) == 3 and sorted(e for e in seats if e != FILL) == list(range(5))
    assert sorted(s.entrant for s in report.standings) == list(range(5))
    assert "fill (medium)" in json.dumps(report.to_dict()["rounds"])


def test_the_same_seed_gives_the_same_tournament_on_any_number_of_processes() -> None:
    config = TournamentConfig(entrants=CHEAP[:6], format="duplicate", rounds=2, players=3, target=None, seed=9)
    one = run_tournament(config)
    two = run_tournament(TournamentConfig(**{**config.__dict__, "jobs": 2}))
    assert one.rounds == two.rounds and one.standings == two.standings


def test_a_duplicate_tournament_needs_games_of_a_fixed_length() -> None:
    with pytest.raises(ArenaError, match="fixed length"):
        TournamentConfig(entrants=("snug", "easy"), format="duplicate", target=66, game_deals=2).validate()


def test_the_command_prints_standings_writes_results_and_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["tournament", "--bots", "snug,random,easy,snug,random", "--players", "3",
                                 "--rounds", "2", "--format", "duplicate", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Duplicate tournament: 2 rounds, 5 entrants" in result.output
    saved = json.loads((tmp_path / "tournament.json").read_text())
    assert saved["format"] == "sixnimmt-tournament" and len(saved["standings"]) == 5
    assert [s["place"] for s in saved["standings"]] == [1, 2, 3, 4, 5]
    for arguments, message in (
        (["--bots", "snug"], "at least 2 entrants"),
        (["--bots", "snug,nosuchbot"], "nosuchbot"),
        (["--bots", "snug,easy", "--format", "knockout"], "unknown format"),
        (["--bots", "snug,easy", "--format", "duplicate", "--target", "66"], "fixed length"),
    ):
        result = runner.invoke(app, ["tournament", *arguments])
        assert result.exit_code == 2, arguments
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output
