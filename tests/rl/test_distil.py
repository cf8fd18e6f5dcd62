"""``sixnimmt train --distil``: the searchers' rollout values as labels, a network fitted to them in
rounds; a tiny run writes its log, curve, policy and checkpoint, repeats under its seed, resumes,
and leaves the shipped policy alone (needs the rl extra)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sixnimmt.cli import app
from sixnimmt.core import Game, Rules
from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE
from sixnimmt.rl.features import DERIVED_SIZE
from sixnimmt.rl.policy import DEFAULT_POLICY, MlpPolicy
from sixnimmt.seats import make_bot, play_game

torch = pytest.importorskip("torch")

from sixnimmt.rl.distil import DistilConfig, Labelled, collect, judge, value_targets  # noqa: E402

TINY = ["--distil", "--players", "2,3", "--decisions", "60", "--samples", "2", "--hidden", "16", "--epochs", "1"]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_tiny_run_writes_everything_plays_on_numpy_and_resumes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    shipped = digest(DEFAULT_POLICY)
    first = runner.invoke(app, ["train", "--out", str(out), "--rounds", "2", "--seed", "3", *TINY])
    assert first.exit_code == 0, first.output
    lines = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert lines[0]["config"]["players"] == [2, 3] and lines[0]["config"]["samples"] == 2
    assert [line["round"] for line in lines[1:]] == [1, 2]
    assert lines[2]["decisions"] > lines[1]["decisions"] > 0  # round 2 trains on both rounds' data
    for line in lines[1:]:
        assert set(line["holdout"]) == {"2", "3"}  # every player count measured
        assert all(0 <= m["best"] <= 1 and m["regret"] >= 0 for m in line["holdout"].values())
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (out / "data").iterdir()) == ["round-0.npz", "round-1.npz"]
    policy = MlpPolicy.load(out / "policy.npz")
    assert policy.weights[0].shape == (16, OBS_SIZE + DERIVED_SIZE) and policy.weights[-1].shape[0] == N_ACTIONS
    assert policy.meta["rounds"] == 2 and policy.meta["players"] == [2, 3] and policy.features == "derived"
    # The policy plays whole games as the learned bot (numpy inference), at a count it never saw.
    bots = [make_bot(f"learned:policy={out / 'policy.npz'}", seed=0), make_bot("random", 1), make_bot("random", 2),
            make_bot("random", 3)]
    game = play_game(Game(Rules(players=4), seed=5), bots)
    assert game.is_over and max(game.totals) >= 66
    # The same folder again: refused without --resume; with it, one more round.
    again = runner.invoke(app, ["train", "--out", str(out), "--rounds", "3", *TINY])
    assert again.exit_code != 0 and "already holds a run" in again.output
    more = runner.invoke(app, ["train", "--out", str(out), "--rounds", "3", "--resume", *TINY])
    assert more.exit_code == 0, more.output
    resumed = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [line["round"] for line in resumed[1:]] == [1, 2, 3]
    assert MlpPolicy.load(out / "policy.npz").meta["rounds"] == 3
    assert digest(DEFAULT_POLICY) == shipped  # no --ship: the shipped policy is untouched


def test_a_seed_repeats_the_run_and_another_seed_does_not(tmp_path: Path) -> None:
    runner = CliRunner()
    for name, seed in (("a", 4), ("b", 4), ("c", 5)):
        result = runner.invoke(app, ["train", "--out", str(tmp_path / name), "--rounds", "1", "--seed", str(seed),
                                     "--features", "none", *TINY])
        assert result.exit_code == 0, result.output
    weights = {name: MlpPolicy.load(tmp_path / name / "policy.npz").weights for name in "abc"}
    assert weights["a"][0].shape[1] == OBS_SIZE  # --features none: the observation alone
    assert all(np.array_equal(x, y) for x, y in zip(weights["a"], weights["b"]))
    assert not np.array_equal(weights["a"][0], weights["c"][0])
    assert digest(tmp_path / "a" / "data" / "round-0.npz") == digest(tmp_path / "b" / "data" / "round-0.npz")


def test_labels_are_the_options_rollout_values() -> None:
    config = DistilConfig(samples=8)
    data = collect(config, None, 4, 120, np.random.default_rng(1))
    assert len(data) >= 120 and data.obs.shape[1] == OBS_SIZE and set(np.unique(data.players)) == {4}
    legal = data.masks.astype(bool)
    assert (legal.sum(axis=1) > 1).all()  # only decisions with a choice are labelled
    assert (data.values[~legal] == 0).all() and (data.values[legal] >= 0).all()
    # A row choice's value counts at least the row it takes (the seat takes it now, then the rest).
    rows = np.flatnonzero(legal[:, 104:108].any(axis=1))
    assert len(rows) > 0
    for i in rows:
        bullheads = data.obs[i, 936:960].reshape(4, 6)[:, 3].astype(np.float32) * 20
        assert (data.values[i, 104:108] >= bullheads - 0.05).all()
    # Not every option is worth the same: the labels tell the options apart.
    assert np.mean([np.ptp(v[m]) > 0 for v, m in zip(data.values, legal)]) > 0.5


def test_targets_rank_the_options_and_judge_scores_a_perfect_pick() -> None:
    values = np.zeros((2, N_ACTIONS), dtype=np.float32)
    masks = np.zeros((2, N_ACTIONS), dtype=np.int8)
    masks[0, [3, 7, 9]] = 1
    values[0, [3, 7, 9]] = [4.0, 1.0, 7.0]
    masks[1, [104, 105]] = 1
    values[1, [104, 105]] = [2.0, 6.0]
    targets = value_targets(values, masks, scale=2.0)
    assert np.allclose(targets[0, [3, 7, 9]], [0.0, 1.5, -1.5]) and np.allclose(targets[1, [104, 105]], [1.0, -1.0])
    assert (targets[masks == 0] == 0).all()
    data = Labelled(np.zeros((2, OBS_SIZE), dtype=np.float16), masks, values, np.array([4, 4], dtype=np.int8),
                    np.array([True, True]))
    # A policy whose scores are the targets themselves picks the best option: no regret.
    bias = np.where(masks[0] == 1, targets[0], 0.0).astype(np.float32)
    picks_first = MlpPolicy([np.zeros((N_ACTIONS, OBS_SIZE), dtype=np.float32)], [bias])
    report = judge(picks_first, data)["4"]
    assert report["decisions"] == 2
    # Row 0 (value 2) is also the best in the second decision, where the bias favours no row.
    assert report["best"] == 1.0 and report["regret"] == 0.0
    worst = MlpPolicy([np.zeros((N_ACTIONS, OBS_SIZE), dtype=np.float32)], [-bias])
    assert judge(worst, data)["4"]["regret"] == pytest.approx((7.0 - 1.0 + 0.0) / 2)


def test_variants_the_labels_do_not_model_are_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train", "--out", str(tmp_path / "n"), "--variant", "nifty", *TINY])
    assert result.exit_code == 2 and "nifty" in result.output.lower()
    assert not (tmp_path / "n" / "checkpoint.pt").exists()
