"""The head-to-head intervals are honest: between two identical bots (true difference 0) a 95%
interval covers 0 about 95% of the time, and its width matches the spread seen across seeds."""

from __future__ import annotations

import math
import statistics

import pytest

from sixnimmt.arena import ArenaConfig, run_arena

RUNS = 40


@pytest.mark.slow
def test_identical_bots_intervals_cover_zero_and_have_the_right_width() -> None:
    means, halves, covered = [], [], 0
    for seed in range(RUNS):
        config = ArenaConfig(bots=("random", "random"), deals=12, target=None, game_deals=1, seed=seed)
        (pair,) = run_arena(config).pairs
        d = pair.difference
        assert d.low is not None and d.high is not None and d.half_width is not None
        covered += d.low <= 0 <= d.high
        means.append(d.mean)
        halves.append(d.half_width)
    # Binomial(40, 0.95): P(covered <= 33) < 0.01. Intervals that ignore the pairing or the
    # correlation inside duplicate sets would be too narrow and fail this.
    assert covered >= 34
    # The typical half width vs 1.96 x the spread of the estimates across seeds (t(11) and the
    # noise of 40 samples put the ratio near 1.1; an interval twice too wide or narrow fails).
    ratio = statistics.fmean(halves) / (1.96 * statistics.stdev(means))
    assert 0.7 < ratio < 1.6, ratio
    assert not math.isnan(ratio)
