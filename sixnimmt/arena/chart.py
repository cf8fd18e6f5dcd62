"""The arena's PNG chart: each bot's mean penalty per deal with its 95% confidence interval."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class _Estimate(Protocol):
    @property
    def mean(self) -> float: ...
    @property
    def half_width(self) -> float | None: ...


class Charted(Protocol):
    """What the chart needs of a bot (the report's ``BotStats`` has it): this module does not
    import the report, which imports it."""

    @property
    def label(self) -> str: ...
    @property
    def penalty_per_deal(self) -> _Estimate: ...


def penalty_chart(bots: Sequence[Charted], path: Path, title: str = "") -> Path:
    """Draw horizontal error bars (best bot on top) and save them as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    ranked = sorted(bots, key=lambda b: b.penalty_per_deal.mean, reverse=True)
    means = [b.penalty_per_deal.mean for b in ranked]
    errors = [b.penalty_per_deal.half_width or 0.0 for b in ranked]
    fig, ax = plt.subplots(figsize=(7.0, 1.2 + 0.5 * len(ranked)))
    try:
        ax.errorbar(means, range(len(ranked)), xerr=errors, fmt="o", capsize=4, color="tab:red")
        ax.set_yticks(range(len(ranked)), [b.label for b in ranked])
        ax.set_xlabel("penalty per deal (bullheads), mean with 95% CI; lower is better")
        ax.grid(axis="x", alpha=0.3)
        if title:
            ax.set_title(title, fontsize=10)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return path
