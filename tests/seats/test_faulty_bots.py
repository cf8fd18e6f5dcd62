"""A faulty external bot gives no advice (exit 1, the fault named), and ``arena --strict`` exits 1
on any fault while the plain arena still reports and exits 0."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app

runner = CliRunner()
MISBEHAVING = Path(__file__).parents[1] / "protocol" / "misbehaving_bot.py"
POSITION = {"hands": [[15, 51], [80, 81], [82, 83], [84, 85]], "rows": [[10, 11, 12, 13, 14], [50], [60], [70]]}


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        (f"{sys.executable} {MISBEHAVING} illegal", "illegal"),
        (f"{sys.executable} {MISBEHAVING} garbage", "malformed"),
        (f"{sys.executable} {MISBEHAVING} hang", "timeout"),
        (f"{sys.executable} -c 'import sys; sys.exit(3)'", "crash"),
    ],
)
def test_advise_with_a_faulty_bot_names_the_fault_and_gives_no_advice(tmp_path: Path, command: str, kind: str) -> None:
    path = tmp_path / "position.json"
    path.write_text(json.dumps(POSITION))
    result = runner.invoke(app, ["advise", str(path), "--seat", "0", "--bot", f"cmd:{command}", "--timeout", "0.5"])
    assert result.exit_code == 1
    assert "plays card" not in result.output and "recommended" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "no advice" in lines[0] and f": {kind}: " in lines[0]


def test_advise_with_a_good_external_bot_still_advises(tmp_path: Path) -> None:
    path = tmp_path / "position.json"
    path.write_text(json.dumps(POSITION))
    result = runner.invoke(app, ["advise", str(path), "--seat", "0", "--bot", f"cmd:{sys.executable} {MISBEHAVING} good", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["choice"] == 15  # the example plays its lowest legal option


ARENA = ["arena", "--deals", "1", "--players", "2", "--game-deals", "1"]


def test_arena_strict_exits_1_on_any_fault_and_still_reports(tmp_path: Path) -> None:
    bots = ["--bots", f"cmd:{sys.executable} {MISBEHAVING} illegal,random"]
    plain = runner.invoke(app, [*ARENA, *bots])
    assert plain.exit_code == 0 and "fault(s)" in plain.output
    strict = runner.invoke(app, [*ARENA, *bots, "--strict", "--out", str(tmp_path)])
    assert strict.exit_code == 1 and "--strict" in strict.output and "illegal" in strict.output
    assert json.loads((tmp_path / "report.json").read_text())["faults"]  # the report is written first


def test_arena_strict_exits_0_without_faults() -> None:
    result = runner.invoke(app, [*ARENA, "--bots", "random,snug", "--strict"])
    assert result.exit_code == 0, result.output


def test_bench_bots_measures_a_faulty_external_bot_instead_of_failing() -> None:
    result = runner.invoke(app, ["bench", "bots", "--bots", f"cmd:{sys.executable} {MISBEHAVING} illegal", "--deals", "1",
                                 "--players", "2", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output.strip().splitlines()[-1])["bots"]
    assert row["decisions"] >= 20  # ten cards per seat (and any row choices), answered by the fallback
