"""The expert games: the shipped sample replays in every variant, the command makes the same games
from the same seed, the loader yields each decision with what the seat saw, and a broken file is
refused with its line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sixnimmt.core import VARIANT_NAMES
from sixnimmt.rl.dataset import SAMPLE, DatasetError, generate, main, positions
from sixnimmt.rl.encoding import OBS_SIZE, action_mask


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_the_sample_of_each_variant_yields_every_decision(variant: str) -> None:
    path = SAMPLE / f"{variant}.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 2 and all(line["record"]["rules"]["variant"] == variant for line in lines)
    found = list(positions(path))
    assert len(found) == sum(len(line["moves"]) for line in lines)
    for position in found[:: max(1, len(found) // 20)]:
        decision = position.view.decision
        assert decision is not None and position.move in decision.options
        assert position.view.seat == decision.seat
        assert position.observation().shape == (OBS_SIZE,)
        assert action_mask(decision)[position.action()] == 1


def test_the_command_makes_the_same_games_from_the_same_seed(tmp_path: Path) -> None:
    (path,) = generate(tmp_path, ["standard"], 1, seed=1, bot="grandmaster:samples=20")
    made = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    shipped = json.loads((SAMPLE / "standard.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert made == shipped


def test_a_stopped_run_goes_on_where_it_stopped(tmp_path: Path) -> None:
    """Run again, the command keeps the games already written, drops the line a stop cut short, and
    plays the rest: the file is the one a run without a stop writes (the shipped sample's)."""
    first, second = (SAMPLE / "standard.jsonl").read_text(encoding="utf-8").splitlines()
    kept = json.dumps(json.loads(first))  # the same game spaced out: kept as written, not played again
    path = tmp_path / "standard.jsonl"
    path.write_text(kept + "\n" + second[: len(second) // 2], encoding="utf-8")
    generate(tmp_path, ["standard"], 2, seed=1, bot="grandmaster:samples=20")
    assert path.read_text(encoding="utf-8") == kept + "\n" + second + "\n"


def test_a_file_of_other_games_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped = (SAMPLE / "standard.jsonl").read_text(encoding="utf-8")
    (tmp_path / "standard.jsonl").write_text(shipped, encoding="utf-8")
    with pytest.raises(DatasetError, match=r"standard.jsonl:1: not game 1 of standard with seed 2 and bot grandmaster:samples=20"):
        generate(tmp_path, ["standard"], 3, seed=2, bot="grandmaster:samples=20")
    with pytest.raises(SystemExit) as stopped:
        main(["--out", str(tmp_path), "--variants", "standard", "--games", "3", "--seed", "1"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and "not game 1 of standard with seed 1 and bot grandmaster:" in error
    assert len(error.strip().splitlines()) == 1
    assert (tmp_path / "standard.jsonl").read_text(encoding="utf-8") == shipped


def test_moves_that_do_not_replay_to_the_record_are_refused_with_the_line(tmp_path: Path) -> None:
    lines = (SAMPLE / "standard.jsonl").read_text(encoding="utf-8").splitlines()
    game = json.loads(lines[1])
    first, second = game["moves"][0], game["moves"][1]
    game["moves"][0], game["moves"][1] = [first[0], second[1]], [second[0], first[1]]  # swap two seats' cards
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines[0] + "\n" + json.dumps(game) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"broken.jsonl:2: "):
        list(positions(broken))
    (tmp_path / "junk.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"junk.jsonl:1: not JSON"):
        list(positions(tmp_path / "junk.jsonl"))
    assert np.all([p.game == 1 for p in positions(SAMPLE / "standard.jsonl")][:5])
