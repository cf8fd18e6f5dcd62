"""The arena end to end: duplicate deals, determinism, backends, faults, outputs and the command."""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.arena import ArenaConfig, ArenaError, run_arena
from sixnimmt.arena.stats import mean_ci, paired_differences
from sixnimmt.bots import Bot
from sixnimmt.cli import app
from sixnimmt.commands.arena import split_bots
from sixnimmt.core import PlayerView
from sixnimmt.seats import available, registry

MISBEHAVING = Path(__file__).resolve().parents[1] / "protocol" / "misbehaving_bot.py"
#: Short games (one deal, two seats) keep these tests fast.
QUICK = ArenaConfig(bots=("random", "snug"), deals=6, target=None, game_deals=1, seed=11)


def comparable(config: ArenaConfig) -> dict[str, object]:
    """The report minus what may differ between runs: decision times and the run's own settings."""
    data = run_arena(config).to_dict(timings=False)
    del data["config"]
    return data


def test_same_seed_same_report_and_another_seed_differs() -> None:
    first = comparable(QUICK)
    assert first == comparable(QUICK)
    assert first["bots"] != comparable(replace(QUICK, seed=12))["bots"]


def test_fixed_length_games_use_exactly_the_deals_asked() -> None:
    report = run_arena(replace(QUICK, bots=("random", "snug", "cautious"), deals=5))
    assert (report.sets, report.shuffles, report.games) == (5, 5, 15)  # 3 rotations per set
    assert all(b.games == 15 and b.deals == 15 for b in report.bots)


def test_full_games_stop_at_the_first_set_that_reaches_the_deals() -> None:
    config = ArenaConfig(bots=("random", "snug"), deals=9, seed=3)  # games to 66
    report = run_arena(config)
    per_set = {}
    for r in report.results:
        per_set[r.set_index] = max(per_set.get(r.set_index, 0), len(r.deal_penalties))
    assert sorted(per_set) == list(range(report.sets))
    assert report.shuffles == sum(per_set.values()) >= 9
    assert report.shuffles - per_set[report.sets - 1] < 9  # one set fewer would not be enough
    assert all(max(r.totals) >= 66 for r in report.results)


def test_duplicate_sets_replay_the_same_hands_with_bots_rotated() -> None:
    report = run_arena(replace(QUICK, bots=("random", "snug", "cautious"), deals=2, save_games=True))
    for s in range(report.sets):
        games = [r for r in report.results if r.set_index == s]
        assert len(games) == 3
        records = [g.record for g in games]
        assert all(rec is not None for rec in records)
        hands = {json.dumps(rec["deals"][0]["hands"]) for rec in records}  # type: ignore[index]
        rows = {json.dumps(rec["deals"][0]["rows"]) for rec in records}  # type: ignore[index]
        assert len(hands) == 1 and len(rows) == 1  # the same shuffle for every seating
        for bot in range(3):
            assert sorted(g.seating.index(bot) for g in games) == [0, 1, 2]  # each hand once


def test_logic_variant_runs() -> None:
    report = run_arena(replace(QUICK, variant="logic", deals=2))
    assert report.games == 4 and all(b.deals == 4 for b in report.bots)


def test_bot_faults_are_reported_for_that_bot_only() -> None:
    bad = f"cmd:{sys.executable} {MISBEHAVING} illegal"
    report = run_arena(replace(QUICK, bots=(bad, "random"), deals=2))
    faulty, fine = report.bots
    assert faulty.label == "misbehaving_bot.py"
    assert faulty.faults >= 20 and set(faulty.fault_kinds) == {"illegal"}
    assert fine.faults == 0
    assert report.games == 4 and all(len(r.deal_penalties) == 1 for r in report.results)
    assert "999" in report.faults[0]["message"]


class _Raiser(Bot):
    def decide(self, view: PlayerView) -> int:
        raise RuntimeError("bug in my bot")


class _Cheater(Bot):
    def decide(self, view: PlayerView) -> int:
        return 1000


def test_in_process_bots_that_raise_or_cheat_get_fallbacks() -> None:
    # Registered only for this test, so other tests never meet them.
    available()  # load the built-in bots first
    registry.register("test-raiser", _Raiser, "raises on every decision")
    registry.register("test-cheater", _Cheater, "answers an impossible card")
    try:
        report = run_arena(replace(QUICK, bots=("test-raiser", "test-cheater", "random"), deals=1))
    finally:
        registry.unregister("test-raiser")
        registry.unregister("test-cheater")
    raiser, cheater, fine = report.bots
    assert set(raiser.fault_kinds) == {"error"} and raiser.faults >= 30
    assert set(cheater.fault_kinds) == {"illegal"} and cheater.faults >= 30
    assert fine.faults == 0
    assert "bug in my bot" in report.faults[0]["message"]


@pytest.mark.slow
def test_two_processes_give_the_same_report_as_one() -> None:
    config = replace(QUICK, bots=("random", "snug", f"cmd:{sys.executable} {MISBEHAVING} good"), deals=4)
    assert comparable(config) == comparable(replace(config, jobs=2))


@pytest.mark.slow
def test_ray_backend_agrees_with_local() -> None:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'sixnimmt[ray]'")
    config = replace(QUICK, bots=("random", "snug"), deals=4)
    local = comparable(config)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert comparable(replace(config, backend="ray", jobs=2)) == local
    finally:
        ray.shutdown()


def test_report_files(tmp_path: Path) -> None:
    report = run_arena(replace(QUICK, save_games=True, deals=2))
    written = report.write(tmp_path / "out", records=True)
    out = tmp_path / "out"
    data = json.loads((out / "report.json").read_text())
    assert data["format"] == "sixnimmt-arena-report" and data["games"] == 4
    assert [b["label"] for b in data["bots"]] == ["random", "snug"]
    with (out / "bots.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["bot"] for r in rows] == ["random", "snug"]
    assert float(rows[1]["penalty_per_deal"]) == pytest.approx(report.bots[1].penalty_per_deal.mean)
    with (out / "pairs.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (out / "penalty.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == 4 and set(written) >= set(records)
    from sixnimmt.core.record import replay

    assert replay(json.loads(records[0].read_text())).game.is_over


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bots": ("random", "nosuch")}, "unknown bot 'nosuch'"),
        ({"bots": ()}, "no bots"),
        ({"deals": 0}, "deals must be"),
        ({"players": 11}, "2 to 10"),
        ({"variant": "chess"}, "unknown variant"),
        ({"backend": "slurm"}, "unknown backend"),
        ({"permutations": "some"}, "unknown permutations"),
        ({"bots": ("random", "cmd:no-such-program-xyz")}, "not found"),
    ],
)
def test_bad_configurations_are_clear_errors(change: dict[str, object], message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        run_arena(replace(QUICK, **change))  # type: ignore[arg-type]


def test_split_bots_keeps_commas_inside_a_command() -> None:
    assert split_bots(["random,snug", "cautious"]) == ("random", "snug", "cautious")
    assert split_bots(["cmd:bot --weights 1,2,random"]) == ("cmd:bot --weights 1,2", "random")


runner = CliRunner()


def test_command_prints_json_and_writes_the_folder(tmp_path: Path) -> None:
    result = runner.invoke(app, [
        "arena", "--bots", "random,snug", "--deals", "3", "--target", "0", "--game-deals", "1",
        "--json", "--out", str(tmp_path), "--seed", "11",
    ])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["shuffles"] == 3 and {b["label"] for b in data["bots"]} == {"random", "snug"}
    assert (tmp_path / "report.json").exists() and (tmp_path / "penalty.png").exists()


def test_command_table_output() -> None:
    result = runner.invoke(app, ["arena", "-b", "random", "-b", "snug", "--deals", "2", "--target", "0",
                                 "--game-deals", "1"])
    assert result.exit_code == 0, result.output
    assert "per deal" in result.stdout and "Head to head" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,nosuch"], "sixnimmt arena: unknown bot 'nosuch'"),
        ([], "sixnimmt arena: give the bots"),
        (["--bots", "random", "--save-games"], "sixnimmt arena: --save-games needs --out"),
        (["--bots", "random,snug", "--variant", "chess"], "sixnimmt arena: unknown variant"),
        (["--bots", "random,snug", "--out", "/proc/no-such-folder"], "sixnimmt arena: cannot write the report"),
    ],
)
def test_command_errors_are_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_command_lists_bots() -> None:
    result = runner.invoke(app, ["arena", "--list"])
    assert result.exit_code == 0 and "random" in result.stdout and "cmd:" in result.stdout


def test_more_bots_than_seats_meet_in_turn() -> None:
    report = run_arena(replace(QUICK, bots=("random", "snug", "cautious"), players=2, deals=6))
    assert report.sets == 6 and report.games == 12  # one pair per set, two seatings each
    assert all(b.games == 8 for b in report.bots)  # each bot sits in 4 of the 6 sets
    assert [p.difference.n for p in report.pairs] == [2, 2, 2]  # compared only where they met


def test_fewer_bots_than_seats_fill_the_table() -> None:
    report = run_arena(replace(QUICK, bots=("random", "snug"), players=4, deals=3))
    assert report.games == 6  # (A,B,A,B) has two distinct rotations
    assert all(b.deals == 12 for b in report.bots)  # two seats in each of 6 one-deal games
    assert all(len(set(r.seating)) == 2 and len(r.seating) == 4 for r in report.results)


def test_per_set_penalties_give_the_pair_interval_and_pool_across_runs() -> None:
    first = run_arena(replace(QUICK, deals=6, seed=11))
    second = run_arena(replace(QUICK, deals=4, seed=12))
    for report in (first, second):
        assert len(report.per_set_penalty) == 2 and len(report.per_set_penalty[0]) == report.sets
        assert mean_ci(paired_differences(*report.per_set_penalty)) == report.pairs[0].difference
    # Runs with other seeds play other shuffles: their sets can be pooled as independent samples.
    assert paired_differences(*first.per_set_penalty)[:4] != paired_differences(*second.per_set_penalty)
