"""Submitting a row to the baseline table (docs/baselines.md, "Submitting a row"): ``--label --out``
writes one file in the documented schema and leaves the tracked results and docs alone; ``--row``
turns the file into the table's rows; a file that is not a submission is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "baselines.py"
TRACKED = (ROOT / "benchmarks" / "baselines-results.json", ROOT / "docs" / "baselines.md")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_a_submission_is_one_file_and_the_tracked_table_is_left_alone(tmp_path: Path) -> None:
    before = [path.read_bytes() for path in TRACKED]
    played = run("--bots", "random", "--label", "my-agent", "--out", str(tmp_path), "--players", "2", "--deals", "4")
    assert played.returncode == 0, played.stderr
    assert [path.read_bytes() for path in TRACKED] == before
    data = json.loads((tmp_path / "my-agent.json").read_text(encoding="utf-8"))
    assert data["format"] == "sixnimmt-baselines-submission" and data["version"] == 1
    assert data["label"] == "my-agent" and data["bot"] == "random"
    assert data["protocol"] == {"field": "medium", "variant": "standard", "game_deals": 1, "seed": 45}
    (cell,) = data["cells"]
    assert cell["players"] == 2 and cell["deals"] == 4 and cell["games"] == 8
    rows = run("--row", str(tmp_path / "my-agent.json"))
    assert rows.returncode == 0, rows.stderr
    heading, row = [line for line in rows.stdout.splitlines() if line]
    assert heading == "### 2 players" and row.startswith("| `my-agent` | ") and "| 4 | 8 | 45 |" in row


def test_a_file_that_is_not_a_submission_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "sixnimmt-baselines-submission", "version": 1, "label": "x", "cells": [{}]}')
    result = run("--row", str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"error: {bad}: cells[0] lacks bot, players, deals, games, seed, "
                                                  "penalty_per_deal, minus_field, ms_per_decision"]


def test_out_needs_a_label_and_one_agent() -> None:
    assert "--out needs --label" in run("--bots", "random", "--out", "/nonexistent").stderr
    assert "exactly one --bots" in run("--bots", "random", "easy", "--label", "x").stderr
