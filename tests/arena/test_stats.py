"""The arena's statistics against small cases computed by hand."""

from __future__ import annotations

import math

import pytest

from sixnimmt.arena import GameResult, mean_ci, paired_differences, summarise, t_quantile
from sixnimmt.arena.stats import t_cdf


@pytest.mark.parametrize(
    ("df", "expected"),
    # Two-sided 95% critical values from any t table.
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281), (30, 2.0423), (1_000_000, 1.9600)],
)
def test_t_quantile_matches_the_table(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)


def test_t_cdf_is_a_distribution() -> None:
    assert t_cdf(0.0, 5) == pytest.approx(0.5)
    assert t_cdf(1.0, 1) == pytest.approx(0.75)  # Cauchy: 1/2 + atan(1)/pi
    assert t_cdf(-40.0, 3) < 1e-3 < t_cdf(-1.0, 3) < t_cdf(1.0, 3) < 1 - 1e-3 < t_cdf(40.0, 3)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_mean_ci_by_hand() -> None:
    # 1..5: mean 3, s^2 = 10/4, se = sqrt(2.5/5) = 0.7071, t(4) = 2.7764 -> half width 1.9633
    interval = mean_ci([1, 2, 3, 4, 5])
    assert interval.mean == 3 and interval.n == 5
    assert interval.low == pytest.approx(3 - 1.9633, abs=1e-4)
    assert interval.high == pytest.approx(3 + 1.9633, abs=1e-4)
    assert interval.text(2) == "3.00 ± 1.96"


def test_mean_ci_with_too_few_values() -> None:
    assert math.isnan(mean_ci([]).mean)
    single = mean_ci([4.0])
    assert (single.mean, single.low, single.high, single.n) == (4.0, None, None, 1)
    assert single.text() == "4.00"
    same = mean_ci([2.0, 2.0, 2.0])
    assert same.low == same.high == 2.0


def test_paired_differences_skip_unpaired_sets() -> None:
    assert paired_differences([3.0, None, 5.0, 1.0], [1.0, 2.0, None, 4.0]) == [2.0, -3.0]
    with pytest.raises(ValueError):
        paired_differences([1.0], [1.0, 2.0])


def _game(set_index: int, seating: tuple[int, ...], pens: list[int], winners: list[int],
          think: list[float] | None = None, faults: list[dict[str, object]] | None = None) -> GameResult:
    return GameResult(
        set_index=set_index, seating_index=0 if seating == (0, 1) else 1, seating=seating,
        deal_penalties=[pens], totals=list(pens), winners=winners, decisions=[10, 10],
        think_seconds=think or [0.0, 0.0], faults=faults or [],
    )


def hand_made_results() -> list[GameResult]:
    """Two bots, two seats, one-deal games, two duplicate sets of two seatings each."""
    return [
        # set 0: bot 0 scores 3 then 2 (mean 2.5), bot 1 scores 5 then 4 (4.5); bot 0 wins both
        _game(0, (0, 1), [3, 5], [0], think=[0.04, 0.0]),
        _game(0, (1, 0), [4, 2], [1]),
        # set 1: bot 0 scores 6 then 7 (6.5), bot 1 scores 6 then 1 (3.5); a tie, then bot 1 wins
        _game(1, (0, 1), [6, 6], [0, 1]),
        _game(1, (1, 0), [1, 7], [0], faults=[{"bot": "a", "kind": "illegal", "message": "x", "seat": 1}]),
    ]


def test_summary_by_hand() -> None:
    report = summarise(reversed(hand_made_results()), ["a", "b"], ["random", "snug"])
    assert (report.sets, report.games, report.shuffles) == (2, 4, 2)
    a, b = report.bot("a"), report.bot("b")
    assert (a.games, a.deals, b.games, b.deals) == (4, 4, 4, 4)
    # per-set means: a [2.5, 6.5] -> 4.5, s = 2.8284, se = 2, t(1) = 12.7062
    assert a.penalty_per_deal.mean == pytest.approx(4.5)
    assert a.penalty_per_deal.half_width == pytest.approx(2 * 12.7062, abs=1e-3)
    # b [4.5, 3.5] -> 4.0, s = 0.7071, se = 0.5
    assert b.penalty_per_deal.mean == pytest.approx(4.0)
    assert b.penalty_per_deal.half_width == pytest.approx(0.5 * 12.7062, abs=1e-3)
    assert a.penalty_per_game.mean == pytest.approx(4.5)  # one-deal games
    # win shares per set: a [1, (0.5 + 0) / 2] -> 0.625; b [0, (0.5 + 1) / 2] -> 0.375
    assert a.win_share.mean == pytest.approx(0.625)
    assert b.win_share.mean == pytest.approx(0.375)
    # paired differences a - b: [2.5 - 4.5, 6.5 - 3.5] = [-2, 3] -> 0.5, s = 3.5355, se = 2.5
    (pair,) = report.pairs
    assert (pair.a, pair.b) == ("a", "b")
    assert pair.difference.mean == pytest.approx(0.5)
    assert pair.difference.half_width == pytest.approx(2.5 * 12.7062, abs=1e-3)
    assert pair.verdict == "no significant difference"
    # faults go to the bot in the faulting seat; decision time is per decision
    assert (a.faults, a.fault_kinds, b.faults) == (1, {"illegal": 1}, 0)
    assert a.mean_decision_ms == pytest.approx(1.0)  # 0.04 s over 40 decisions
    assert b.mean_decision_ms == 0.0
    # a won two games, tied one and lost one: rated above b
    assert a.rating.mu > b.rating.mu
    assert report.faults[0]["set"] == 1


def test_summary_does_not_depend_on_result_order() -> None:
    forward = summarise(hand_made_results(), ["a", "b"], ["random", "snug"])
    backward = summarise(list(reversed(hand_made_results())), ["a", "b"], ["random", "snug"])
    assert forward.to_dict() == backward.to_dict()


def test_verdict_when_the_interval_excludes_zero() -> None:
    results = [
        _game(s, seating, pens, [0])
        for s in range(3)
        for seating, pens in (((0, 1), [1, 5 + s]), ((1, 0), [6, 2]))
    ]
    report = summarise(results, ["a", "b"], ["x", "y"])
    assert report.pairs[0].difference.high is not None and report.pairs[0].difference.high < 0
    assert report.pairs[0].verdict == "a better"
