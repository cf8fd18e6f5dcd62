"""Game review: each decision of a seat, from its view at the time, against the best option found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sixnimmt.bots.review import MISTAKE, describe_review, review
from sixnimmt.cli import app
from sixnimmt.core import BULLHEADS, DealSetup, DecisionKind, Game, RecordError, Rules
from sixnimmt.core.record import load

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "records" / "standard-4p.json"
runner = CliRunner()


def blundering_game() -> tuple[dict[str, object], dict[int, float]]:
    """One deal, two players. Seat 0 plays its hand from the top down and ends with 1, too low for
    every row on the last turn, and then takes the costliest row (a deliberate blunder); seat 1 plays
    from the bottom up and takes the cheapest row when it must. Returns the record and, for seat 0's
    last-turn row choice, each row's exact penalty for the deal (nothing is left to play after it)."""
    setup = DealSetup(
        hands=((1, 20, 30, 41, 42, 55, 61, 62, 77, 90), (5, 6, 7, 8, 33, 34, 66, 67, 88, 99)),
        rows=(10, 25, 50, 70),
    )
    game = Game(Rules(players=2, deals=1), dealer=lambda _: setup)
    last: dict[int, float] = {}
    while not game.is_over:
        for decision in game.pending():
            seat = decision.seat
            if decision.kind is DecisionKind.CARD:
                hand = sorted(decision.options)
                game.act(seat, hand[-1] if seat == 0 else hand[0])
                continue
            costs = {r: sum(BULLHEADS[c] for c in game.rows[r]) for r in decision.options}
            if seat == 0 and game.turn == 9:
                last = {r: float(game.penalties[0] + cost) for r, cost in costs.items()}
            pick = max if seat == 0 else min
            game.act(seat, pick(costs, key=lambda r: (costs[r], -r)))
    return game.record(), last


def test_review_of_a_constructed_game() -> None:
    record, last = blundering_game()
    result = review(record, 0, samples=60, seed=3)
    assert result.seat == 0 and result.skipped_turns == 0
    cards = [d for d in result.decisions if d.kind == "card"]
    rows = [d for d in result.decisions if d.kind == "row"]
    assert [d.turn for d in cards] == list(range(1, 11))  # every card decision of the deal
    turns = record["deals"][0]["turns"]  # type: ignore[index]
    assert [d.played for d in cards] == [t["plays"][0] for t in turns]
    for d in result.decisions:
        assert d.played in d.options and d.best in d.options
        assert d.expected_best == min(d.options.values()) <= d.expected_played
        assert d.mistake is (d.expected_played - d.expected_best > MISTAKE)
    # The last turn's row choice is exact: the costliest row played, the cheapest one best.
    final = rows[-1]
    assert (final.turn, final.card) == (10, 1)
    assert dict(final.options) == last
    assert final.best == min(last, key=lambda r: (last[r], r)) and final.played == max(last, key=last.__getitem__)
    assert final.loss == max(last.values()) - min(last.values()) > MISTAKE and final.mistake
    assert cards[-1].loss == 0.0  # the last card is forced
    text = describe_review(result)
    assert "MISTAKE" in text
    # People read rows 1-4, as the games number them.
    last_line = next(line for line in text.splitlines() if "row for 1 " in line).split()
    assert last_line[5:7] == ["row", str(final.played + 1)] and last_line[8:10] == ["row", str(final.best + 1)]


def test_review_is_repeatable_and_rejects_a_missing_seat() -> None:
    record, _ = blundering_game()
    assert review(record, 1, samples=20, seed=1) == review(record, 1, samples=20, seed=1)
    with pytest.raises(RecordError, match="no seat 2"):
        review(record, 2, samples=20)


def test_replay_show_review_json() -> None:
    """Each of seat 0's decisions in the example record, with both expected penalties."""
    result = runner.invoke(app, ["replay", "show", str(EXAMPLE), "--review", "0", "--json", "--samples", "20"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    record = load(EXAMPLE)
    turns = [t for deal in record["deals"] for t in deal["turns"]]
    own_picks = sum(1 for t in turns for card in t.get("picks", {}) if int(card) == t["plays"][0])
    assert len(data["decisions"]) == len(turns) + own_picks
    assert sum(d["kind"] == "row" for d in data["decisions"]) == own_picks
    for d in data["decisions"]:
        assert {"expected_played", "expected_best", "played", "best", "mistake"} <= set(d)
        assert d["expected_best"] <= d["expected_played"]


def test_replay_show_review_of_a_bad_seat_is_one_clear_line() -> None:
    result = runner.invoke(app, ["replay", "show", str(EXAMPLE), "--review", "7"])
    assert result.exit_code == 1
    assert "no seat 7" in result.output and "Traceback" not in result.output
