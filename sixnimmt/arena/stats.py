"""The arena's statistics: means with Student-t confidence intervals, paired differences, and
Wilson score intervals for shares (which must stay within 0..1).

Everything here is plain arithmetic on lists of floats, so the tests can check it against small
hand-computed cases. No scipy: the t quantile comes from the t distribution's CDF (a regularized
incomplete beta function, by continued fraction) inverted by bisection, exact to ~1e-10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any


@dataclass(frozen=True, slots=True)
class Interval:
    """A sample mean with its two-sided confidence interval (``low``/``high`` are ``None`` when
    fewer than two samples leave the spread unknown)."""

    mean: float
    low: float | None
    high: float | None
    n: int

    @property
    def half_width(self) -> float | None:
        """For a symmetric interval (Student-t); a Wilson interval is not: see :meth:`bounds_text`."""
        return None if self.high is None else self.high - self.mean

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}

    def text(self, digits: int = 2) -> str:
        """``"12.34 ± 0.56"`` (or just the mean when the interval is unknown)."""
        if self.half_width is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"

    def percent_text(self) -> str:
        """``"58% [38, 76]"``: a share and its (possibly asymmetric) interval, in percent."""
        if self.low is None or self.high is None:
            return f"{100 * self.mean:.0f}%"
        return f"{100 * self.mean:.0f}% [{100 * self.low:.0f}, {100 * self.high:.0f}]"


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Lentz's continued fraction for the incomplete beta function (Numerical Recipes, betacf)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (``t_quantile(0.975, 4)`` is 2.776...)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):  # bisection: the CDF is monotone, and 200 halvings reach float precision
        mid = 0.5 * (low + high)
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return 0.5 * (low + high)


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Sample mean with a two-sided Student-t interval: mean ± t(df=n-1) · s / √n.

    The values must be independent; in the arena they are per-duplicate-set figures, never single
    deals (the same shuffle played with the seats permuted gives correlated deals).
    """
    n = len(values)
    if n == 0:
        return Interval(math.nan, None, None, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(mean, None, None, n)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half, n)


def wilson_ci(shares: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``shares`` (each in 0..1) with a Wilson score interval, which never leaves 0..1.

    Each share counts as one trial (in the arena: one duplicate set, whose games are not independent
    of each other); a share of 0.5 is half a success. Unlike mean ± t·s/√n, the interval stays
    honest for a handful of trials and for shares near 0 or 1: two sets that both gave 0.25 do not
    prove the share is exactly 0.25.
    """
    n = len(shares)
    if n == 0:
        return Interval(math.nan, None, None, 0)
    p = math.fsum(shares) / n
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    scale = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(max(0.0, p * (1.0 - p)) / n + z * z / (4 * n * n)) / scale
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n)


def paired_differences(a: Sequence[float | None], b: Sequence[float | None]) -> list[float]:
    """``a[i] - b[i]`` for every index where both are known (the duplicate pairing: the same
    shuffles played by both bots, so the luck of the cards cancels out of the difference)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples need equal lengths, got {len(a)} and {len(b)}")
    return [x - y for x, y in zip(a, b, strict=True) if x is not None and y is not None]
