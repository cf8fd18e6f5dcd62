"""``sixnimmt advise FILE``: whatever FILE holds, one line and exit 1, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app

runner = CliRunner()
POSITION = {"hands": [[1, 2], [3, 4]], "rows": [[5], [6], [7], [8]]}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)), "not UTF-8"),
        (b"[" * 100_000, "nested more than"),
        (b'{"hands": ' + b"9" * 5000 + b"}", "a number of 5000 characters"),
        (json.dumps({**POSITION, "totals": 5}).encode(), "totals must be a list of whole numbers"),
        (json.dumps({**POSITION, "totals": [[1], 2]}).encode(), "totals must be a list of whole numbers"),
        (json.dumps({**POSITION, "penalties": [None, 0]}).encode(), "penalties must be a list"),
        (json.dumps({**POSITION, "hands": [[1.5, 2], [3, 4]]}).encode(), "lists of lists of cards"),
        (json.dumps({**POSITION, "hands": [[True, 2], [3, 4]]}).encode(), "lists of lists of cards"),
    ],
)
def test_hostile_files_get_one_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    result = runner.invoke(app, ["advise", str(path), "--seat", "0", "--bot", "snug"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and len(lines[0]) < 400, lines


def test_a_seat_name_with_escapes_is_printed_escaped(tmp_path: Path) -> None:
    record = json.loads((Path(__file__).resolve().parents[2] / "examples/records/standard-4p.json").read_text())
    record["seats"][0] = "\x1b[31mRed"
    record["deals"] = [{**record["deals"][0], "turns": record["deals"][0]["turns"][:3]}]
    del record["scores"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["advise", str(path), "--seat", "0", "--bot", "snug"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\\x1b[31mRed" in result.output
