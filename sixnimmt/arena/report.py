"""From game results to the arena's report: per-bot figures with confidence intervals, pairwise
duplicate differences, OpenSkill ratings, faults and decision times; as a table, JSON, CSV and PNG.

Independence is what makes an interval honest. Games of one duplicate set share their shuffles, so
they are not independent; duplicate *sets* are. Every interval here is therefore computed over
per-set figures: a bot's mean penalty per deal in set 1, in set 2, ... and, for a pair of bots, the
per-set *difference* of those figures, from which the luck of the cards has cancelled out.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

from .stats import Interval, mean_ci, paired_differences, wilson_ci
from .worker import GameResult

REPORT_FORMAT = "sixnimmt-arena-report"
REPORT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Rating:
    """An OpenSkill (Plackett-Luce) rating; ``ordinal`` = mu - 3 sigma, a cautious skill estimate."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


@dataclass(frozen=True, slots=True)
class BotStats:
    label: str
    spec: str
    games: int  # games this bot sat in
    deals: int  # seat-deals it played (two seats in one deal count twice)
    penalty_per_deal: Interval  # over duplicate sets
    penalty_per_game: Interval
    win_share: Interval  # per game: the bot's share of the win (ties shared), averaged per set; Wilson
    rating: Rating
    faults: int
    fault_kinds: dict[str, int]
    decisions: int
    mean_decision_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "spec": self.spec,
            "games": self.games,
            "deals": self.deals,
            "penalty_per_deal": self.penalty_per_deal.to_dict(),
            "penalty_per_game": self.penalty_per_game.to_dict(),
            "win_share": self.win_share.to_dict(),
            "rating": self.rating.to_dict(),
            "faults": self.faults,
            "fault_kinds": dict(self.fault_kinds),
            "decisions": self.decisions,
            "mean_decision_ms": self.mean_decision_ms,
        }


@dataclass(frozen=True, slots=True)
class PairStats:
    """Bot ``a`` minus bot ``b`` in mean penalty per deal, paired by duplicate set: a negative
    difference whose interval stays below zero means ``a`` is significantly better."""

    a: str
    b: str
    difference: Interval

    @property
    def verdict(self) -> str:
        d = self.difference
        if d.low is None or d.high is None:
            return "too few sets"
        if d.high < 0:
            return f"{self.a} better"
        if d.low > 0:
            return f"{self.b} better"
        return "no significant difference"

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "difference": self.difference.to_dict(), "verdict": self.verdict}


@dataclass(slots=True)
class ArenaReport:
    config: dict[str, Any]
    sets: int
    games: int
    shuffles: int  # distinct deals (each played once per seating)
    bots: list[BotStats]
    pairs: list[PairStats]
    faults: list[dict[str, Any]]
    results: list[GameResult] = field(default_factory=list, repr=False)
    #: Per bot, its mean penalty per deal in each duplicate set (None: it sat out the set), in set
    #: order: what the intervals are computed from, kept so that runs can be pooled set by set.
    per_set_penalty: list[list[float | None]] = field(default_factory=list, repr=False)
    #: Every set played out exactly like the first: no chance in the variant (Logic, Tournament)
    #: and bots that do not draw on their seeds. Then the sets are copies, not samples, and the
    #: intervals say nothing.
    identical_sets: bool = False

    def bot(self, label: str) -> BotStats:
        for stats in self.bots:
            if stats.label == label:
                return stats
        raise KeyError(label)

    def to_dict(self, *, timings: bool = True) -> dict[str, Any]:
        """The JSON report. ``timings=False`` drops decision times, the one figure that depends on
        the machine rather than on the seed (tests compare backends with it)."""
        bots = [b.to_dict() for b in self.bots]
        if not timings:
            for b in bots:
                del b["mean_decision_ms"]
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "config": self.config,
            "sets": self.sets,
            "games": self.games,
            "shuffles": self.shuffles,
            "bots": bots,
            "pairs": [p.to_dict() for p in self.pairs],
            "identical_sets": self.identical_sets,
            "fault_count": len(self.faults),
            "faults": self.faults[:1000],
        }

    # ------------------------------------------------------------------ output

    def table(self) -> _FitLabels:
        """The per-bot table; it fits 80 columns without wrapping a cell (labels of up to ~12
        characters). Where it is too wide (a long label, a narrow terminal, a pipe's 80 columns)
        only the labels are cut, with an ellipsis: every figure is printed whole."""
        table = _table(
            f"Arena: {self.games} games, {self.shuffles} duplicate deals, {self.sets} sets",
            "penalty in bullheads (lower is better), 95% Student-t intervals over duplicate sets; "
            "win share, 95% Wilson score interval over sets; OpenSkill rating mu ± sigma; "
            "ms per decision",
        )
        table.add_column("bot", no_wrap=True, overflow="ellipsis", max_width=24)
        for name in ("games", "per deal", "per game", "win share", "rating", "faults", "ms"):
            table.add_column(name, justify="right", no_wrap=True)
        for b in self.bots:
            table.add_row(
                b.label,
                str(b.games),
                b.penalty_per_deal.text(2),
                b.penalty_per_game.text(1),
                b.win_share.percent_text(),
                f"{b.rating.mu:.1f} ± {b.rating.sigma:.1f}",
                str(b.faults),
                f"{b.mean_decision_ms:.2f}",
            )
        return _figures_whole(table)

    def pairs_table(self) -> _FitLabels:
        table = _table(
            "Head to head: penalty per deal, a minus b",
            "95% Student-t intervals, paired by duplicate set",
        )
        for name in ("a", "b"):
            table.add_column(name, no_wrap=True, overflow="ellipsis", max_width=16)
        for name in ("a - b", "sets"):
            table.add_column(name, justify="right", no_wrap=True)
        table.add_column("verdict", no_wrap=True, overflow="ellipsis")
        for p in self.pairs:
            table.add_row(p.a, p.b, p.difference.text(3), str(p.difference.n), p.verdict)
        return _figures_whole(table)

    def write(self, out: Path, *, records: bool = False) -> list[Path]:
        """report.json, bots.csv, pairs.csv and penalty.png in ``out`` (and games/*.json records)."""
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "report.json", out / "bots.csv", out / "pairs.csv"]
        written[0].write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        with written[1].open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow([
                "bot", "spec", "games", "deals", "penalty_per_deal", "ppd_low", "ppd_high",
                "penalty_per_game", "ppg_low", "ppg_high", "win_share", "win_low", "win_high",
                "rating_mu", "rating_sigma", "rating_ordinal", "faults", "decisions", "mean_decision_ms",
            ])
            for b in self.bots:
                writer.writerow([
                    b.label, b.spec, b.games, b.deals,
                    *_interval_cells(b.penalty_per_deal), *_interval_cells(b.penalty_per_game),
                    *_interval_cells(b.win_share),
                    b.rating.mu, b.rating.sigma, b.rating.ordinal, b.faults, b.decisions, b.mean_decision_ms,
                ])
        with written[2].open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["a", "b", "difference", "low", "high", "sets", "verdict"])
            for p in self.pairs:
                d = p.difference
                writer.writerow([p.a, p.b, d.mean, d.low, d.high, d.n, p.verdict])
        from .chart import penalty_chart  # matplotlib is slow to import; only load it to draw

        title = f"{self.games} games, {self.shuffles} duplicate deals, {self.sets} sets"
        written.append(penalty_chart(self.bots, out / "penalty.png", title))
        if records:
            games = out / "games"
            games.mkdir(exist_ok=True)
            for r in self.results:
                if r.record is not None:
                    path = games / f"set{r.set_index:05d}-seating{r.seating_index:02d}.json"
                    path.write_text(json.dumps(r.record) + "\n", encoding="utf-8")
                    written.append(path)
        return written


def _table(title: str, caption: str) -> Table:
    """A compact table whose cells never wrap (a wrapped number reads as two numbers)."""
    from rich import box

    table = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    return table


def _figures_whole(table: Table) -> _FitLabels:
    return _FitLabels(table)


class _FitLabels:
    """A table printed at the console's width (a pipe's is 80) by cutting its labels (the columns
    with ``overflow="ellipsis"``: bot names, verdicts), widest first, down to 6 characters, and never
    a figure or an interval: those columns keep the width of their widest cell."""

    LABEL_MIN = 6

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Any, options: Any) -> Any:
        table = self.table
        widths = []
        for column in table.columns:
            cells = [len(str(cell)) for cell in column.cells]
            natural = max([len(str(column.header)), *cells])
            if column.overflow == "ellipsis" and column.max_width:
                natural = min(natural, column.max_width)
            widths.append(natural)
        labels = [i for i, column in enumerate(table.columns) if column.overflow == "ellipsis"]
        room = options.max_width - (len(widths) - 1)
        while sum(widths) > room:
            widest = max(labels, key=lambda i: widths[i], default=None)
            if widest is None or widths[widest] <= self.LABEL_MIN:
                break  # narrower than the figures: the console cuts as it must
            widths[widest] -= 1
        for column, width in zip(table.columns, widths, strict=True):
            column.width = width
        yield table


def _interval_cells(interval: Interval) -> list[float | None]:
    return [interval.mean, interval.low, interval.high]


# ---------------------------------------------------------------------- the statistics


def _ratings(results: Sequence[GameResult], bots: int) -> list[Rating]:
    """OpenSkill Plackett-Luce ratings, updated game by game in schedule order (so the same games
    always give the same ratings). A bot in several seats is one team ranked by its mean total."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=str(i)) for i in range(bots)]
    for result in results:
        present = sorted(set(result.seating))
        if len(present) < 2:
            continue
        score = {
            b: math.fsum(t for t, s in zip(result.totals, result.seating) if s == b)
            / result.seating.count(b)
            for b in present
        }
        ranks: list[float] = [1 + sum(1 for other in present if score[other] < score[b]) for b in present]
        updated = model.rate([[ratings[b]] for b in present], ranks=ranks)
        for b, team in zip(present, updated):
            ratings[b] = team[0]
    return [Rating(r.mu, r.sigma) for r in ratings]


def summarise(
    results: Iterable[GameResult],
    labels: Sequence[str],
    specs: Sequence[str],
    config: dict[str, Any] | None = None,
) -> ArenaReport:
    """The report for a finished schedule (results in any order: they are sorted here)."""
    ordered = sorted(results, key=lambda r: r.key)
    by_set: dict[int, list[GameResult]] = defaultdict(list)
    for r in ordered:
        by_set[r.set_index].append(r)
    set_ids = sorted(by_set)
    count = len(labels)

    per_deal: list[list[float | None]] = [[] for _ in range(count)]
    per_game: list[list[float | None]] = [[] for _ in range(count)]
    win: list[list[float | None]] = [[] for _ in range(count)]
    games = [0] * count
    seat_deals = [0] * count
    decisions = [0] * count
    think = [0.0] * count
    fault_kinds: list[Counter[str]] = [Counter() for _ in range(count)]
    faults: list[dict[str, Any]] = []

    for s in set_ids:
        penalty_sum = [0.0] * count
        penalty_n = [0] * count
        totals: list[list[int]] = [[] for _ in range(count)]
        shares: list[list[float]] = [[] for _ in range(count)]
        for r in by_set[s]:
            for seat, b in enumerate(r.seating):
                for deal in r.deal_penalties:
                    penalty_sum[b] += deal[seat]
                    penalty_n[b] += 1
                totals[b].append(r.totals[seat])
                decisions[b] += r.decisions[seat]
                think[b] += r.think_seconds[seat]
            for b in set(r.seating):
                games[b] += 1
                winners_here = sum(1 for w in r.winners if r.seating[w] == b)
                shares[b].append(winners_here / len(r.winners) if r.winners else 0.0)
            for fault in r.faults:
                faulty = fault.get("seat")
                if isinstance(faulty, int) and 0 <= faulty < len(r.seating):
                    fault_kinds[r.seating[faulty]][fault["kind"]] += 1
                faults.append({**fault, "set": r.set_index, "seating": r.seating_index})
        for b in range(count):
            seat_deals[b] += penalty_n[b]
            per_deal[b].append(penalty_sum[b] / penalty_n[b] if penalty_n[b] else None)
            per_game[b].append(math.fsum(totals[b]) / len(totals[b]) if totals[b] else None)
            win[b].append(math.fsum(shares[b]) / len(shares[b]) if shares[b] else None)

    def known(values: list[float | None]) -> list[float]:
        return [v for v in values if v is not None]

    ratings = _ratings(ordered, count)
    bots = [
        BotStats(
            label=labels[b],
            spec=specs[b],
            games=games[b],
            deals=seat_deals[b],
            penalty_per_deal=mean_ci(known(per_deal[b])),
            penalty_per_game=mean_ci(known(per_game[b])),
            win_share=wilson_ci(known(win[b])),
            rating=ratings[b],
            faults=sum(fault_kinds[b].values()),
            fault_kinds=dict(sorted(fault_kinds[b].items())),
            decisions=decisions[b],
            mean_decision_ms=1000.0 * think[b] / decisions[b] if decisions[b] else 0.0,
        )
        for b in range(count)
    ]
    pairs = [
        PairStats(labels[a], labels[b], mean_ci(paired_differences(per_deal[a], per_deal[b])))
        for a in range(count)
        for b in range(a + 1, count)
    ]
    shuffles = sum(max((len(r.deal_penalties) for r in by_set[s]), default=0) for s in set_ids)

    # Games with the same seating (in different sets) that played out alike, penalty for penalty.
    outcomes: dict[tuple[int, ...], list[list[list[int]]]] = defaultdict(list)
    for r in ordered:
        outcomes[r.seating].append(r.deal_penalties)
    identical = any(len(o) > 1 for o in outcomes.values()) and all(
        all(other == o[0] for other in o[1:]) for o in outcomes.values()
    )
    return ArenaReport(
        config=dict(config or {}),
        sets=len(set_ids),
        games=len(ordered),
        shuffles=shuffles,
        bots=bots,
        pairs=pairs,
        faults=faults,
        results=ordered,
        identical_sets=identical,
        per_set_penalty=per_deal,
    )
