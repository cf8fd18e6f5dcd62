"""docs/rl.md describes the observation the code builds."""

from __future__ import annotations

from pathlib import Path

from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE, SEGMENTS, segment_slice

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_observation_table_matches_the_encoding() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- observation-table")[1].split("<!-- /observation-table -->")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == len(SEGMENTS)
    for row, segment in zip(rows, SEGMENTS):
        where = segment_slice(segment.name)
        expected = f"| `{segment.name}` | {where.start}..{where.stop - 1} | {segment.size} | {segment.meaning} |"
        assert row == expected
    assert f"vector of {OBS_SIZE} numbers" in text and f"`Discrete({N_ACTIONS})`" in text
