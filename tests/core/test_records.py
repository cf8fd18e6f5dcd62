"""Records: every game writes one, it replays to the same totals, and each kind of corruption is
rejected with a message naming where it went wrong."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, RecordError, Rules
from sixnimmt.core.record import dumps, replay
from sixnimmt.core.variants import VARIANTS


def finished_record(variant: str = "standard", players: int = 4, seed: int = 3, **rules: Any) -> dict[str, Any]:
    rng = random.Random(seed)
    game = Game(Rules(players=players, variant=variant, **rules), [f"P{i}" for i in range(players)], seed=seed)
    while not game.is_over:
        for d in game.pending():
            game.act(d.seat, rng.choice(d.options))
    return game.record()


def first_turn_with_pick(record: dict[str, Any]) -> tuple[int, int, str]:
    for d, deal in enumerate(record["deals"]):
        for t, turn in enumerate(deal["turns"]):
            if turn.get("picks"):
                return d, t, next(iter(turn["picks"]))
    raise AssertionError("no pick in this record")


@pytest.mark.parametrize("variant", ["standard", "tactics", "logic", "professional"])
def test_written_records_verify_with_the_same_scores(variant: str) -> None:
    record = finished_record(variant)
    result = replay(json.loads(json.dumps(record)))
    assert list(result.scores) == record["scores"]
    assert result.deals == len(record["deals"])
    assert result.game.record() == record


def test_example_record_shape_from_the_issue() -> None:
    record = finished_record()
    assert record["format"] == "sixnimmt-record" and record["version"] == 1
    deal = record["deals"][0]
    assert set(deal) == {"hands", "rows", "turns"}
    assert all(len(h) == 10 for h in deal["hands"]) and all(len(r) == 1 for r in deal["rows"])
    assert all(len(t["plays"]) == 4 for t in deal["turns"])
    logic = finished_record("logic", players=2)
    assert set(logic["deals"][0]) == {"draft", "turns"}
    assert logic["deals"][0]["draft"]["first"] == 0 and len(logic["deals"][0]["draft"]["order"]) == 20


def corrupt(record: dict[str, Any], how: str) -> tuple[dict[str, Any], str]:
    bad = copy.deepcopy(record)
    if how == "card not in hand":
        foreign = bad["deals"][0]["hands"][1][0]
        bad["deals"][0]["turns"][0]["plays"][0] = foreign
        return bad, rf"deal 1, turn 1, seat 0 \(P0\), card {foreign}: not in that seat's hand"
    if how == "missing pick":
        d, t, card = first_turn_with_pick(bad)
        del bad["deals"][d]["turns"][t]["picks"]
        return bad, rf"deal {d + 1}, turn {t + 1}, seat \d \(P\d\), card {card}: .*no pick"
    if how == "needless pick":
        turn = next(t for t in bad["deals"][0]["turns"] if "picks" not in t)
        turn["picks"] = {str(turn["plays"][2]): 1}
        return bad, rf"seat 2 \(P2\), card {turn['plays'][2]}: needless pick"
    if how == "pick out of range":
        d, t, card = first_turn_with_pick(bad)
        bad["deals"][d]["turns"][t]["picks"][card] = 4
        return bad, rf"card {card}: pick row 4 is not allowed"
    if how == "too many turns":
        bad["deals"][0]["turns"].append(bad["deals"][0]["turns"][0])
        return bad, "deal 1: 11 turns, but a deal has 10"
    if how == "too few turns":
        bad["deals"][0]["turns"].pop()
        return bad, r"deal 2|deal 1"  # the next deal cannot start where the record says
    if how == "continues after the end":
        bad["deals"].append(copy.deepcopy(bad["deals"][-1]))
        return bad, rf"deal {len(bad['deals'])}: the game was already over"
    if how == "ends too early":
        bad["deals"].pop()
        bad.pop("scores")
        return bad, "the game is not over"
    if how == "wrong scores":
        bad["scores"][0] += 1
        return bad, "do not match the replayed totals"
    if how == "unknown field":
        bad["comment"] = "hi"
        return bad, "unknown field.*comment"
    if how == "unknown version":
        bad["version"] = 7
        return bad, "unsupported record version 7"
    if how == "bad rules":
        bad["rules"]["variant"] = "chess"
        return bad, "rules: unknown variant 'chess'"
    if how == "duplicate card dealt":
        bad["deals"][0]["rows"][0] = [bad["deals"][0]["hands"][0][0]]
        return bad, "deal 1: card.*dealt twice"
    if how == "unknown turn field":
        bad["deals"][0]["turns"][0]["note"] = 1
        return bad, "deal 1, turn 1: unknown field.*note"
    raise AssertionError(how)


CORRUPTIONS = [
    "card not in hand", "missing pick", "needless pick", "pick out of range", "too many turns",
    "too few turns", "continues after the end", "ends too early", "wrong scores", "unknown field",
    "unknown version", "bad rules", "duplicate card dealt", "unknown turn field",
]


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_corrupt_records_are_rejected_with_the_place(how: str) -> None:
    record = finished_record(seed=5)
    bad, message = corrupt(record, how)
    with pytest.raises(RecordError, match=message):
        replay(bad)


def test_partial_record_resumes_a_game_in_progress() -> None:
    game = Game(Rules(players=3), seed=8)
    for _ in range(13):  # into the second deal
        for d in game.pending():
            game.act(d.seat, d.options[0])
    resumed = replay(json.loads(json.dumps(game.record())), partial=True).game
    assert (resumed.deal_index, resumed.turn, resumed.hands, resumed.rows, resumed.totals) == (
        game.deal_index, game.turn, game.hands, game.rows, game.totals
    )
    with pytest.raises(RecordError, match=r"deal 2: only \d of 10 turns"):
        replay(game.record())


runner = CliRunner()


def write(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_cli_verify_valid_record(tmp_path: Path) -> None:
    record = finished_record(seed=12)
    path = write(tmp_path, record)
    result = runner.invoke(app, ["replay", "verify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    low = min(record["scores"])
    assert verdict == {
        "valid": True,
        "scores": record["scores"],
        "winners": [i for i, s in enumerate(record["scores"]) if s == low],
        "deals": len(record["deals"]),
    }
    text = runner.invoke(app, ["replay", "verify", str(path)])
    assert text.exit_code == 0 and "winner" in text.output and "P0" in text.output


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_cli_verify_invalid_record_exits_1_with_one_line(tmp_path: Path, how: str) -> None:
    bad, message = corrupt(finished_record(seed=5), how)
    path = write(tmp_path, bad)
    result = runner.invoke(app, ["replay", "verify", str(path), "--json"])
    assert result.exit_code == 1
    verdict = json.loads(result.output)
    assert verdict["valid"] is False
    import re

    assert re.search(message, verdict["error"])
    plain = runner.invoke(app, ["replay", "verify", str(path)])
    assert plain.exit_code == 1 and "Traceback" not in plain.output
    assert len(plain.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not valid JSON"), ("[1, 2]", "a record is a JSON object"), ('{"format": "x"}', "missing field")],
)
def test_cli_verify_malformed_files(tmp_path: Path, content: str, message: str) -> None:
    path = write(tmp_path, content)
    result = runner.invoke(app, ["replay", "verify", str(path), "--json"])
    assert result.exit_code == 1
    assert message in json.loads(result.output)["error"]


def test_cli_verify_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", "verify", str(tmp_path / "nope.json")])
    assert result.exit_code == 1 and "cannot read" in result.output


def test_cli_show_prints_turns_and_takes(tmp_path: Path) -> None:
    record = finished_record("professional", seed=4)
    result = runner.invoke(app, ["replay", "show", str(write(tmp_path, record))])
    assert result.exit_code == 0
    assert result.output.count("-- Turn ") == 10 * len(record["deals"])
    assert "takes row" in result.output and "Game over" in result.output


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "examples" / "records").glob("*.json")))
def test_shipped_example_records_verify(path: Path) -> None:
    record = json.loads(path.read_text())
    assert list(replay(record).scores) == record["scores"]


def _played(variant: str, seed: int, ask_as_it_goes: bool) -> Game:
    rules = Rules(players=4, variant=variant)
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        for d in game.pending():
            game.act(d.seat, rng.choice(d.options))
            if ask_as_it_goes:
                game.record()  # as the server does: the writer keeps its place and copies
    return game


@pytest.mark.parametrize("variant", [v.value for v in VARIANTS])
def test_a_record_asked_for_once_at_the_end_is_the_one_written_as_the_game_goes(variant: str) -> None:
    for seed in range(4):
        at_the_end = _played(variant, seed, ask_as_it_goes=False)
        as_it_goes = _played(variant, seed, ask_as_it_goes=True)
        once = at_the_end.record()
        # the same record, fields in the same order (the files are byte for byte the same)
        assert dumps(once) == dumps(as_it_goes.record())
        # what was handed over is the caller's: changing it changes no later record
        expected = dumps(once)
        for deal in once["deals"]:
            deal["turns"].clear()
        assert dumps(at_the_end.record()) == expected
        assert dumps(at_the_end.record()) == expected


def test_a_hand_turn_with_a_keep_and_a_pick_writes_the_pick_first() -> None:
    # Hand: a row taken and kept from, then a pick in the same turn, in some of these games.
    seen = 0
    for seed in range(40):
        record = _played("hand", seed, ask_as_it_goes=False).record()
        for deal in record["deals"]:
            for turn in deal["turns"]:
                if "picks" in turn and "keeps" in turn:
                    seen += 1
                    assert list(turn) == ["seat", "plays", "picks", "keeps"]
    assert seen
