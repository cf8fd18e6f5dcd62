"""Hostile input to the record reader and to the engine's entry points: each gets a clear, short
error (never a traceback), and the limits of docs/record-format.md hold."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, IllegalMoveError, RecordError, Rules
from sixnimmt.core.fast import FastDeal
from sixnimmt.core.record import (
    MAX_DEPTH,
    MAX_ERROR_CHARS,
    MAX_RECORD_BYTES,
    MAX_SEAT_NAME,
    MAX_STRING_CHARS,
    load,
    loads,
    replay,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "records"
runner = CliRunner()


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def write(tmp_path: Path, content: str | bytes | dict[str, Any], name: str = "record.json") -> Path:
    path = tmp_path / name
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def reject(text: str | bytes) -> str:
    with pytest.raises(RecordError) as caught:
        replay(loads(text))
    message = str(caught.value)
    assert len(message) <= MAX_ERROR_CHARS and message.isprintable(), message
    return message


# ---------------------------------------------------------------------- what the issue tried


def nifty_with_int_plays() -> dict[str, Any]:
    record = example("nifty-4p")
    record["deals"][0]["turns"][0]["plays"] = 5
    return record


def with_long_string() -> dict[str, Any]:
    record = example("standard-4p")
    record["seats"][1] = "x" * 2_000_000
    return record


#: The inputs that used to end in a traceback or a giant line, and what the error says instead.
HOSTILE: dict[str, tuple[Any, str]] = {
    "binary garbage": (bytes(range(256)) * 8, "not UTF-8"),
    "100,000-deep nesting": ("[" * 100_000 + "]" * 100_000, "nested more than"),
    "a 5,000-digit integer": ('{"format": "sixnimmt-record", "version": ' + "9" * 5000 + "}", "a number of 5000 characters"),
    "nifty plays an integer": (nifty_with_int_plays(), "deal 1, turn 1 plays: expected a list, got 5"),
    "a 2 MB string": (with_long_string(), "a string of 2000000 characters"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_files_get_one_bounded_record_error(case: str) -> None:
    content, message = HOSTILE[case]
    text = json.dumps(content) if isinstance(content, dict) else content
    assert message in reject(text)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_verify_json_answers_hostile_files_with_one_short_json_line(tmp_path: Path, case: str) -> None:
    path = write(tmp_path, HOSTILE[case][0])
    result = runner.invoke(app, ["replay", "verify", str(path), "--json"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 1000
    verdict = json.loads(lines[0])
    assert verdict["valid"] is False and HOSTILE[case][1] in verdict["error"]


def test_an_endless_file_is_refused_after_the_size_limit(tmp_path: Path) -> None:
    path = write(tmp_path, b" " * (MAX_RECORD_BYTES + 1))
    with pytest.raises(RecordError, match="more than 4 MiB"):
        load(path)
    if Path("/dev/zero").exists():
        with pytest.raises(RecordError, match="more than 4 MiB"):
            load("/dev/zero")


def test_nesting_within_the_parser_but_past_the_limit_is_refused() -> None:
    record = example("standard-4p")
    record["deals"][0]["turns"][0]["picks"] = {"7": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}
    assert "nested more than" in reject(json.dumps(record))


def test_strings_and_seat_names_have_a_length_limit() -> None:
    record = example("standard-4p")
    record["seats"][0] = "A" * MAX_SEAT_NAME
    replay(record)  # at the limit: fine
    record["seats"][0] = "A" * (MAX_STRING_CHARS + 1)
    assert f"at most {MAX_STRING_CHARS}" in reject(json.dumps(record))


def test_a_bad_value_is_not_echoed_in_full() -> None:
    record = example("standard-4p")
    record["deals"][0]["turns"][0]["plays"][2] = ["y" * 150] * 50
    message = reject(json.dumps(record))
    assert "plays[2]: expected a whole number" in message and len(message) < 200


def test_version_must_be_a_whole_number() -> None:
    for version in ("1.0", "true", '"1"'):
        text = json.dumps(example("standard-4p")).replace('"version": 1', f'"version": {version}', 1)
        assert "unsupported record version" in reject(text)


@pytest.mark.parametrize(
    ("name", "field", "value", "fixed"),
    [
        ("tournament-3p", "deals", "banana", "3"),
        ("tournament-3p", "deals", 7, "3"),
        ("tournament-3p", "target", 66, "null"),
        ("hand-3p", "deals", 2, "1"),
        ("hand-3p", "target", 66, "null"),
    ],
)
def test_fixed_rules_fields_are_checked_not_overwritten(name: str, field: str, value: Any, fixed: str) -> None:
    record = example(name)
    record["rules"][field] = value
    assert f"has {field} {fixed}, not {json.dumps(value)}" in reject(json.dumps(record))


def test_duplicate_fields_are_refused() -> None:
    text = json.dumps(example("standard-4p")).replace('"version": 1', '"version": 1, "version": 2', 1)
    assert "appears twice" in reject(text)


def test_the_first_error_in_play_order_is_reported() -> None:
    record = example("standard-4p")
    turn = record["deals"][0]["turns"][2]
    turn["plays"][0] = 104 if 104 not in record["deals"][0]["hands"][0] else 1  # not in the hand
    del record["deals"][1]["rows"]  # a later deal's shape is broken too
    record["scores"] = "many"  # and so is the summary
    assert reject(json.dumps(record)).startswith("deal 1, turn 3, seat 0 (Ana)")


def test_a_broken_later_deal_is_named_when_the_replay_gets_there() -> None:
    record = example("standard-4p")
    del record["deals"][2]["rows"]
    assert reject(json.dumps(record)) == "deal 3: missing field(s) rows"


def test_seat_names_are_escaped_in_errors_and_in_replay_show(tmp_path: Path) -> None:
    record = example("standard-4p")
    record["seats"][0] = "\x1b[2J\x1b[31mEvil\nName"
    path = write(tmp_path, record)
    shown = runner.invoke(app, ["replay", "show", str(path)])
    verified = runner.invoke(app, ["replay", "verify", str(path)])
    for result in (shown, verified):
        assert result.exit_code == 0
        assert "\x1b" not in result.output and "\\x1b[2J\\x1b[31mEvil\\nName" in result.output
        assert "\nName" not in result.output
    record["deals"][0]["turns"][0]["plays"][0] = 200
    message = reject(json.dumps(record))
    assert "seat 0 (\\x1b[2J\\x1b[31mEvil\\nName)" in message


def test_replay_show_exits_nonzero_when_the_scores_are_wrong(tmp_path: Path) -> None:
    record = example("standard-4p")
    record["scores"][0] += 1
    result = runner.invoke(app, ["replay", "show", str(write(tmp_path, record))])
    assert result.exit_code == 1 and "do not match the replayed totals" in result.output


def test_scores_on_an_unfinished_game_are_refused() -> None:
    record = example("standard-4p")
    record["deals"].pop()
    with pytest.raises(RecordError, match=r"scores .* are given, but the game is not over"):
        replay(record, partial=True)
    del record["scores"]
    assert not replay(record, partial=True).game.is_over


def test_play_resume_of_a_binary_file_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x89PNG\r\n\x1a\n\xff\xfe" * 10, "binary.json")
    result = runner.invoke(app, ["play", "--resume", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith("sixnimmt play: cannot resume") and "not UTF-8" in result.output
    assert len(result.output.splitlines()) == 1


# ---------------------------------------------------------------------- the engine's side


@pytest.mark.parametrize("value", [8.0, True, "8", None])
def test_the_engine_refuses_a_card_that_is_not_a_whole_number(value: Any) -> None:
    game = Game(Rules(players=2), seed=1)
    game.hands[0][0] = 8 if 8 not in game.hands[1] else game.hands[0][0]
    with pytest.raises(IllegalMoveError, match="is a whole number"):
        game.play(0, value)
    with pytest.raises(IllegalMoveError, match="is a whole number"):
        game.act(0, value)
    assert game.choices[0] == ()


def test_numpy_integers_are_played_as_plain_ints_and_the_record_verifies() -> None:
    rng = random.Random(5)
    game = Game(Rules(players=3, deals=1, target=None), seed=5)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, np.int64(rng.choice(decision.options)))
    record = json.loads(json.dumps(game.record()))  # would fail on a numpy value
    assert list(replay(record).scores) == game.totals


@pytest.mark.parametrize("pro_tie", ["left", "right"])
def test_fast_deal_settles_a_professional_tie_like_the_game(pro_tie: str) -> None:
    # 40 is 10 above 30 (row 1's right end) and 10 below 50 (row 2's left end): a tie. The chooser
    # would pick row 2 (the cheaper), so only pro_tie makes the right-hand side win.
    rows = [[5], [21, 25, 30], [50], [80]]
    game = Game.from_position(
        Rules(players=2, variant="professional", pro_tie=pro_tie), [[40, 90], [99, 100]], rows, seed=0
    )
    game.play(0, 40)
    game.play(1, 99)
    fast = FastDeal(rows, 2, professional=True, pro_tie=pro_tie)
    fast.play_turn([40, 99], choose=lambda rows, seat, card: 2)
    assert fast.rows == game.rows
    assert (40 in fast.rows[1]) == (pro_tie == "right")
    chosen = FastDeal(rows, 2, professional=True)  # "choose": the chooser decides
    chosen.place(0, 40, lambda rows, seat, card: 2)
    assert chosen.rows[2] == [40, 50]


def test_play_refuses_a_name_no_record_could_keep() -> None:
    result = runner.invoke(app, ["play", "--name", "N" * (MAX_SEAT_NAME + 1), "--bots", "easy"])
    assert result.exit_code == 2 and f"--name has at most {MAX_SEAT_NAME} characters" in result.output
