"""The arena in every variant: player ranges, fixed-length variants, Hand and Nifty statistics,
saved records that verify, external bots hearing the new variants, and Tournament's schedule."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.arena import ArenaConfig, ArenaError, run_arena
from sixnimmt.cli import app
from sixnimmt.core import Variant

ROOT = Path(__file__).resolve().parents[2]
PYTHON_EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples/bots/python_bot.py'}"
FIXED = ("tournament", "hand")  # games of their own length
runner = CliRunner()


def short(variant: str, **changes: object) -> ArenaConfig:
    """Two bots, two seats, one-deal games where the variant allows it."""
    length = {} if variant in FIXED else {"target": None, "game_deals": 1}
    config = ArenaConfig(bots=("random", "snug"), deals=2, variant=variant, seed=5, **length)  # type: ignore[arg-type]
    return replace(config, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_every_variant_plays_and_its_saved_records_verify(variant: str, tmp_path: Path) -> None:
    report = run_arena(short(variant, save_games=True))
    assert report.faults == [] and report.games >= 2
    assert report.shuffles >= 2 and all(b.deals > 0 for b in report.bots)
    report.write(tmp_path, records=True)
    by_name = {f"set{r.set_index:05d}-seating{r.seating_index:02d}.json": r for r in report.results}
    records = sorted((tmp_path / "games").glob("*.json"))
    assert sorted(p.name for p in records) == sorted(by_name)
    for path in records:
        result = runner.invoke(app, ["replay", "verify", str(path), "--json"])
        assert result.exit_code == 0, result.output
        verdict = json.loads(result.stdout)
        assert verdict["valid"] is True and verdict["scores"] == by_name[path.name].totals


def test_hand_games_are_one_deal_and_penalties_count_per_game() -> None:
    report = run_arena(short("hand", bots=("random", "snug", "cautious"), deals=2))
    assert (report.sets, report.shuffles, report.games) == (2, 2, 6)
    assert all(len(r.deal_penalties) == 1 for r in report.results)
    for bot in report.bots:
        assert bot.deals == 6
        assert bot.penalty_per_deal.mean == pytest.approx(bot.penalty_per_game.mean)
    assert report.bot("random").penalty_per_deal.mean > report.bot("cautious").penalty_per_deal.mean


def test_nifty_deals_score_all_fourteen_cards() -> None:
    report = run_arena(short("nifty", deals=3))
    for result in report.results:
        assert len(result.deal_penalties) == 1
        assert result.decisions[0] >= 14 + 7  # two cards and an order every turn


def test_tournament_games_pass_the_sheets_and_rotations_balance_the_draft() -> None:
    report = run_arena(short("tournament", bots=("random", "snug", "cautious"), deals=6, save_games=True))
    assert (report.sets, report.games, report.shuffles) == (2, 6, 6)  # 3 seatings of 3-deal games
    for s in range(report.sets):
        seatings = [r.seating for r in report.results if r.set_index == s]
        for bot in range(3):
            assert sorted(seating.index(bot) for seating in seatings) == [0, 1, 2]  # drafts from each seat
    record = report.results[0].record
    assert record is not None and len(record["deals"]) == 3 and "draft" in record["deals"][0]


def test_single_seating_per_set_rotates_the_lineup_between_sets() -> None:
    report = run_arena(short("tournament", bots=("random", "snug", "cautious"), deals=9, permutations="single"))
    assert report.sets == report.games == 3
    assert [r.seating for r in report.results] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]


def test_identical_sets_are_flagged() -> None:
    # No chance in Tournament and two bots that ignore their seeds: every set is the same game.
    copies = run_arena(short("tournament", bots=("snug", "cautious"), deals=6))
    assert copies.identical_sets and copies.to_dict()["identical_sets"] is True
    assert copies.pairs[0].difference.half_width == 0.0
    assert not run_arena(short("tournament", deals=6)).identical_sets  # the random bot varies
    assert not run_arena(short("standard", bots=("snug", "cautious"), deals=3)).identical_sets


@pytest.mark.parametrize("variant", ["nifty", "hand"])
def test_an_external_bot_plays_the_new_variants_in_the_arena(variant: str) -> None:
    report = run_arena(short(variant, bots=(PYTHON_EXAMPLE, "random"), deals=1))
    assert report.faults == [] and report.games == 2
    example, _ = report.bots
    assert example.label == "python_bot.py" and example.decisions > 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"variant": "nifty", "players": 8}, "8 players: nifty is played by 2 to 7"),
        ({"variant": "tournament", "players": 6}, "6 players: tournament is played by 2 to 5"),
        ({"variant": "tournament", "game_deals": 2}, "one deal per player"),
        ({"variant": "hand", "game_deals": 1}, "one long deal"),
        ({"variant": "double", "double_deck": "three"}, "unknown double_deck"),
        ({"permutations": "some"}, "rotations, all or single"),
    ],
)
def test_variant_configurations_that_cannot_run_are_clear_errors(change: dict[str, object], message: str) -> None:
    base = ArenaConfig(bots=("random", "snug"), deals=1)
    with pytest.raises(ArenaError, match=message):
        replace(base, **change).validate()  # type: ignore[arg-type]


def test_default_seats_stay_within_the_variant() -> None:
    eight = ("random",) * 8
    assert ArenaConfig(bots=eight).seat_count == 8
    assert ArenaConfig(bots=eight, variant="nifty").seat_count == 4  # nifty seats 2 to 7
    assert ArenaConfig(bots=eight, variant="nifty").validate().players == 4
    assert ArenaConfig(bots=eight, variant="nifty", players=7).seat_count == 7


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "hand", "--target", "40"], "sixnimmt arena: hand games have no target"),
        (["--variant", "tournament", "--game-deals", "3"], "sixnimmt arena: a tournament game always lasts"),
        (["--variant", "open", "--players", "10"], "sixnimmt arena: 10 players: open is played by 2 to 9"),
        (["--variant", "nine"], "sixnimmt arena: unknown variant 'nine'"),
    ],
)
def test_command_variant_errors_are_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", "--bots", "random,snug", *args])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_command_plays_double_with_the_doubles_deck() -> None:
    result = runner.invoke(app, ["arena", "--bots", "random,snug", "--variant", "double", "--double-deck",
                                 "doubles", "--deals", "2", "--target", "0", "--game-deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert '"double_deck": "doubles"' in result.stdout


def test_command_notes_identical_sets() -> None:
    result = runner.invoke(app, ["arena", "--bots", "snug,cautious", "--variant", "tournament", "--deals", "4"])
    assert result.exit_code == 0, result.output
    assert "played out identically" in result.stdout


@pytest.mark.parametrize("variant", ["nifty", "hand"])
def test_external_bots_hear_every_turn_in_the_arena(variant: str, tmp_path: Path) -> None:
    log = tmp_path / "transcript"
    logger = f"cmd:{sys.executable} {ROOT / 'tests/protocol/misbehaving_bot.py'} transcript {log}"
    report = run_arena(short(variant, bots=(logger, "random"), deals=1, save_games=True))
    assert report.faults == [] and report.games == 2
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    games: list[list[dict[str, object]]] = []
    for message in messages:  # one program per game, games played in schedule order
        if message["type"] == "hello":
            games.append([])
        games[-1].append(message)
    assert len(games) == 2
    for heard, result in zip(games, report.results, strict=True):
        assert result.record is not None
        turns = result.record["deals"][0]["turns"]
        results = [m for m in heard if m["type"] == "turn-result"]
        assert [r["turn"] for r in results] == list(range(len(turns)))
        if variant == "hand":
            assert [r["seat"] for r in results] == [t["seat"] for t in turns]
        else:
            assert all(len(r["plays"]) == 4 for r in results)  # type: ignore[arg-type]
        assert [m["type"] for m in heard[-3:]] == ["deal-end", "game-end", "bye"]
