"""Tournaments of bots, round by round: Swiss tables from the standings, every game played by the
arena's workers, and the standings of :mod:`sixnimmt.competition` after each round.

Two formats (docs/arena.md, "Tournaments"):

- ``swiss``: each table gets its own shuffle; placement points at the table.
- ``duplicate``: every table of a round gets the same shuffle (the round's duplicate set), and each
  entrant is scored against everyone who held the same hand in the same seat at another table.
  Games have a fixed length (one deal unless told otherwise), so every table plays the same deals.

Seats the entrants do not fill are taken by a fill bot (``medium`` unless told otherwise), which
plays like any entrant but is never in the standings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..competition import (
    FILL,
    Standing,
    Table,
    TableResult,
    duplicate_results,
    placement_points,
    rank,
)
from ..competition.swiss import record_meetings, swiss_tables
from .runner import FIXED_LENGTH, ArenaConfig, ArenaError, open_backend
from .schedule import GameTask
from .worker import GameResult

FORMATS = ("swiss", "duplicate")
RESULTS_FORMAT = "sixnimmt-tournament"
RESULTS_VERSION = 1

#: The set index of a Swiss table, apart from every duplicate round's: tables of one Swiss round
#: must not share a shuffle, and no Swiss table may share one with another round's.
SWISS_SETS_PER_ROUND = 1_000_000


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament of bots. ``entrants`` are bot specs in seeding order (strongest first: the first
    round groups them in this order); a spec may repeat (``expert,expert``: two entrants)."""

    entrants: tuple[str, ...]
    format: str = "swiss"  # or "duplicate", whose games need a fixed length (target None)
    rounds: int = 3
    players: int = 4
    variant: str = "standard"
    target: int | None = 66
    game_deals: int | None = None
    fill: str = "medium"
    seed: int = 1
    jobs: int = 1
    timeout: float = 5.0
    save_games: bool = False

    @property
    def duplicate(self) -> bool:
        return self.format == "duplicate"

    def arena(self) -> ArenaConfig:
        """The arena settings every game of the tournament is played with (the fill bot last)."""
        return ArenaConfig(
            bots=(*self.entrants, self.fill), players=self.players, variant=self.variant,
            target=self.target, game_deals=self.game_deals, seed=self.seed, jobs=self.jobs,
            timeout=self.timeout, save_games=self.save_games,
        )

    def labels(self) -> tuple[str, ...]:
        """The entrants' display names (repeated specs numbered), then the fill bot's."""
        return (*self.arena().labels()[: len(self.entrants)], f"fill ({self.fill})")

    def with_defaults(self) -> TournamentConfig:
        """A duplicate tournament with neither a target nor a game length plays one-deal games."""
        if self.duplicate and self.target is None and self.game_deals is None and self.variant not in FIXED_LENGTH:
            return replace(self, target=None, game_deals=1)
        return self

    def validate(self) -> None:
        if self.format not in FORMATS:
            raise ArenaError(f"unknown format {self.format!r}: choose swiss or duplicate")
        if len(self.entrants) < 2:
            raise ArenaError("a tournament needs at least 2 entrants")
        if isinstance(self.rounds, bool) or self.rounds < 1:
            raise ArenaError(f"rounds must be at least 1, not {self.rounds}")
        if self.duplicate and self.target is not None and self.variant not in FIXED_LENGTH:
            raise ArenaError(
                "a duplicate round compares the same deals at every table, so its games have a fixed "
                "length: give --target 0 and --game-deals K (the default is one deal)"
            )
        self.arena().validate()


@dataclass
class TournamentReport:
    """Every round's tables and the final standings."""

    config: TournamentConfig
    labels: tuple[str, ...]
    rounds: list[list[TableResult]] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)

    def label(self, entrant: int) -> str:
        return self.labels[-1] if entrant == FILL else self.labels[entrant]

    def to_dict(self) -> dict[str, Any]:
        config = asdict(self.config)
        config["entrants"] = list(self.config.entrants)
        rounds = []
        for tables in self.rounds:
            scores = duplicate_results(tables) if self.config.duplicate else {}
            rounds.append([
                {
                    "seats": [self.label(e) for e in table.seats],
                    "totals": list(table.totals),
                    "points": [
                        None if e == FILL else (scores[e].score if self.config.duplicate else placed)
                        for e, placed in zip(table.seats, placement_points(table.totals))
                    ],
                }
                for table in tables
            ])
        return {
            "format": RESULTS_FORMAT,
            "version": RESULTS_VERSION,
            "config": config,
            "rounds": rounds,
            "standings": [
                {
                    "place": s.place, "entrant": self.labels[s.entrant], "spec": self.config.entrants[s.entrant],
                    "points": s.points, "tiebreak": s.tiebreak, "bullheads": s.bullheads, "games": s.games,
                }
                for s in self.standings
            ],
            "faults": self.faults,
        }

    def write(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        written = [folder / "tournament.json"]
        written[0].write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        if self.records:
            games = folder / "games"
            games.mkdir(exist_ok=True)
            for k, record in enumerate(self.records):
                path = games / f"game-{k:04d}.json"
                path.write_text(json.dumps(record) + "\n", encoding="utf-8")
                written.append(path)
        return written


def round_tasks(config: TournamentConfig, round_index: int, tables: Sequence[Table]) -> list[GameTask]:
    """The games of one round, one per table: in the duplicate format all from the round's one
    shuffle, in the Swiss format each from its own."""
    arena = config.arena()
    rules = arena.rules()
    fill_index = len(config.entrants)
    return [
        GameTask(
            set_index=round_index if config.duplicate else round_index * SWISS_SETS_PER_ROUND + t,
            seating_index=t,
            seating=tuple(fill_index if e == FILL else e for e in table),
            bots=arena.bots,
            labels=config.labels(),
            rules=rules.to_dict(),
            seed=config.seed,
            timeout=config.timeout,
            save_record=config.save_games,
        )
        for t, table in enumerate(tables)
    ]


RoundDone = Callable[[int, list[Standing]], None]


def run_tournament(config: TournamentConfig, on_round: RoundDone | None = None) -> TournamentReport:
    """Play every round and return the report; ``on_round(k, standings)`` after each."""
    config = config.with_defaults()
    config.validate()
    report = TournamentReport(config, config.labels())
    met: dict[tuple[int, int], int] = {}
    order = list(range(len(config.entrants)))
    with open_backend(config.arena()) as backend:
        for round_index in range(config.rounds):
            tables = swiss_tables(order, config.players, met)
            record_meetings(tables, met)
            played: list[GameResult] = backend.run(round_tasks(config, round_index, tables), lambda _: None)
            played.sort(key=lambda result: result.seating_index)
            report.rounds.append([TableResult(tables[r.seating_index], tuple(r.totals)) for r in played])
            report.faults += [fault for r in played for fault in r.faults]
            report.records += [r.record for r in played if r.record is not None]
            report.standings = rank(len(config.entrants), report.rounds, duplicate=config.duplicate)
            order = [s.entrant for s in report.standings]
            if on_round is not None:
                on_round(round_index, report.standings)
    return report
