"""The hint API (advise) and the ``sixnimmt advise`` and ``sixnimmt bench bots`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, Rules
from sixnimmt.seats.advise import Advice, NothingToAdviseError, advise

runner = CliRunner()
SURE_SIXTH = {"hands": [[15, 51], [80, 81], [82, 83], [84, 85]], "rows": [[10, 11, 12, 13, 14], [50], [60], [70]]}


def sure_sixth_view():  # type: ignore[no-untyped-def]
    return Game.from_position(Rules(players=4), SURE_SIXTH["hands"], SURE_SIXTH["rows"], seed=1).view(0)


@pytest.mark.parametrize("bot", ["medium", "hard", "expert", "grandmaster"])
def test_advice_recommends_the_safe_card_with_numbers(bot: str) -> None:
    advice = advise(sure_sixth_view(), bot=bot, seed=2)
    assert isinstance(advice, Advice) and advice.bot == bot
    assert advice.choice == 51
    assert set(advice.scores) == {15, 51}
    # 15 is a sure sixth card behind 10..14: 11 bullheads.
    assert advice.scores[15] >= 11 > advice.scores[51]


def test_advice_is_repeatable_under_a_seed() -> None:
    view = Game(Rules(players=4), seed=9).view(2)
    assert advise(view, "expert", seed=4) == advise(view, "expert", seed=4)


def test_no_decision_no_advice() -> None:
    game = Game(Rules(players=2), seed=1)
    game.act(0, game.hands[0][0])  # seat 0 has chosen; only seat 1 is waited for
    with pytest.raises(NothingToAdviseError, match="seat 0 has no decision"):
        advise(game.view(0))


def test_cli_advises_on_a_position_file(tmp_path: Path) -> None:
    path = tmp_path / "position.json"
    path.write_text(json.dumps(SURE_SIXTH))
    result = runner.invoke(app, ["advise", str(path), "--seat", "0", "--bot", "hard", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["choice"] == 51 and data["seat"] == 0 and set(data["scores"]) == {"15", "51"}


def test_cli_advises_on_a_record_and_a_view(tmp_path: Path) -> None:
    game = Game(Rules(players=3), seed=4)
    for _ in range(2):
        for decision in game.pending():
            game.act(decision.seat, decision.options[-1])
    seat = game.pending()[0].seat
    record = tmp_path / "record.json"
    record.write_text(json.dumps(game.record()))
    result = runner.invoke(app, ["advise", str(record), "--seat", str(seat), "--bot", "cautious"])
    assert result.exit_code == 0, result.output
    assert "recommended" in result.output
    view = tmp_path / "view.json"
    view.write_text(json.dumps(game.view(seat).to_dict()))
    result = runner.invoke(app, ["advise", str(view), "--bot", "cautious", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["choice"] in game.view(seat).decision.options  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, ["--seat", "0"], "cannot read"),
        ("[1", ["--seat", "0"], "not valid JSON"),
        ("[1, 2]", ["--seat", "0"], "JSON object"),
        ('{"a": 1}', ["--seat", "0"], "neither a record"),
        (json.dumps(SURE_SIXTH), [], "--seat"),
        (json.dumps(SURE_SIXTH), ["--seat", "7"], "no seat 7"),
        (json.dumps(SURE_SIXTH), ["--seat", "0", "--bot", "nobody"], "unknown bot 'nobody'"),
        (json.dumps({"hands": [[1, 2], [3]], "rows": [[5], [6], [7], [8]]}), ["--seat", "0"], "same number"),
    ],
)
def test_cli_bad_input_is_one_clear_line(tmp_path: Path, content: str | None, args: list[str], message: str) -> None:
    path = tmp_path / "input.json"
    if content is not None:
        path.write_text(content)
    result = runner.invoke(app, ["advise", str(path), *args])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_bench_bots_reports_decisions_and_rollouts() -> None:
    result = runner.invoke(app, ["bench", "bots", "--bots", "snug,hard", "--deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = {b["bot"]: b for b in json.loads(result.output)["bots"]}
    assert data["snug"]["decisions"] >= 40
    assert data["snug"]["rollouts"] is None and data["snug"]["rollouts_per_s"] is None  # it has none
    assert data["hard"]["decisions"] >= 40 and data["hard"]["rollouts"] > 0
    assert data["hard"]["rollouts_per_s"] > 0


def test_bench_bots_table_shows_no_rollout_rate_for_bots_without_rollouts() -> None:
    result = runner.invoke(app, ["bench", "bots", "--bots", "random,snug", "--deals", "1", "--players", "2"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines() if line.split()[:1] in (["random"], ["snug"])]
    assert len(rows) == 2 and all(row[-1] == "-" for row in rows)
    assert "0.0" not in [row[-1] for row in rows]


def test_bench_bots_rejects_unknown_bots() -> None:
    result = runner.invoke(app, ["bench", "bots", "--bots", "snug,nobody"])
    assert result.exit_code != 0 and "unknown bot 'nobody'" in result.output
