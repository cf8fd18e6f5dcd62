"""From results at the tables to standings, in the two formats.

**Swiss** (placement points). At a table of P players an entrant scores one point for each player
who took more bullheads in the game and half a point for each who took as many: from P - 1 for a
clear first place to 0 for a clear last. Fill players count as opponents at the table but are never
in the standings.

**Duplicate**. Every table of a round plays the same shuffle, so seat s holds the same hand at every
table. Each entrant is compared with every other entrant who held that hand (seat s at another
table): a *matchpoint* for each one who took more bullheads with it, half for each who took as many.
A round's score is the share of comparisons won (0 to 1); an entrant whose hand nobody else held
(seat s taken by fill players everywhere else) scores the neutral 0.5 for that round. The standings
add the rounds' scores. Because the comparison is hand against same hand, a good or bad deal is the
same for everyone it was dealt to: the standings measure play, as duplicate bridge does.

Tie-breaks, in order (each documented in docs/arena.md, "Tournaments"):

1. points;
2. Swiss: *Buchholz*, the sum of the final points of every entrant one shared a table with (once per
   meeting): a win over strong opposition counts for more. Duplicate: bullheads *saved*, the sum
   over rounds of the mean bullheads of one's comparisons minus one's own;
3. fewer bullheads over all games;
4. the seeding order (the order entrants were given in: by rating).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .swiss import FILL


@dataclass(frozen=True, slots=True)
class TableResult:
    """One table's game: the entrant in each seat (``FILL`` for a fill player) and each seat's
    bullheads over the whole game."""

    seats: tuple[int, ...]
    totals: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.seats) != len(self.totals):
            raise ValueError("one total per seat")


def placement_points(totals: Sequence[int]) -> tuple[float, ...]:
    """Each seat's placement points at one table (more bullheads is worse)."""
    return tuple(
        sum(1.0 if other > mine else 0.5 if other == mine else 0.0 for k, other in enumerate(totals) if k != seat)
        for seat, mine in enumerate(totals)
    )


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """An entrant's duplicate result in one round."""

    matchpoints: float  # comparisons won, ties counting half
    comparisons: int  # entrants at other tables who held the same hand
    saved: float  # their mean bullheads minus this entrant's (above zero: better than they did)

    @property
    def score(self) -> float:
        """The share of comparisons won, 0.5 when there was nobody to compare with."""
        return self.matchpoints / self.comparisons if self.comparisons else 0.5


def duplicate_results(tables: Sequence[TableResult]) -> dict[int, DuplicateResult]:
    """Every entrant's duplicate result in one round whose tables all played the same shuffle."""
    results: dict[int, DuplicateResult] = {}
    for t, table in enumerate(tables):
        for seat, entrant in enumerate(table.seats):
            if entrant == FILL:
                continue
            mine = table.totals[seat]
            others = [
                other.totals[seat]
                for u, other in enumerate(tables)
                if u != t and seat < len(other.seats) and other.seats[seat] != FILL
            ]
            results[entrant] = DuplicateResult(
                matchpoints=sum(1.0 if o > mine else 0.5 if o == mine else 0.0 for o in others),
                comparisons=len(others),
                saved=sum(others) / len(others) - mine if others else 0.0,
            )
    return results


@dataclass(frozen=True, slots=True)
class Standing:
    """An entrant's place after the rounds played."""

    entrant: int
    place: int  # 1 for the leader; the tie-breaks leave no two entrants on one place
    points: float
    tiebreak: float  # Buchholz (Swiss) or bullheads saved (duplicate)
    bullheads: int
    games: int


def rank(entrants: int, rounds: Sequence[Sequence[TableResult]], *, duplicate: bool) -> list[Standing]:
    """The standings of entrants ``0 .. entrants - 1`` (numbered in seeding order) after ``rounds``,
    best first."""
    points = [0.0] * entrants
    bullheads = [0] * entrants
    games = [0] * entrants
    saved = [0.0] * entrants
    mates: list[list[int]] = [[] for _ in range(entrants)]
    for tables in rounds:
        if duplicate:
            for entrant, result in duplicate_results(tables).items():
                points[entrant] += result.score
                saved[entrant] += result.saved
        for table in tables:
            placed = placement_points(table.totals)
            seated = [e for e in table.seats if e != FILL]
            for seat, entrant in enumerate(table.seats):
                if entrant == FILL:
                    continue
                if not duplicate:
                    points[entrant] += placed[seat]
                bullheads[entrant] += table.totals[seat]
                games[entrant] += 1
                mates[entrant] += [e for e in seated if e != entrant]
    tiebreak = saved if duplicate else [sum(points[m] for m in mates[e]) for e in range(entrants)]

    def key(e: int) -> tuple[float, float, int]:
        return (-points[e], -tiebreak[e], bullheads[e])

    order = sorted(range(entrants), key=lambda e: (*key(e), e))  # e: the seeding order, last
    return [
        Standing(e, place, points[e], tiebreak[e], bullheads[e], games[e])
        for place, e in enumerate(order, start=1)
    ]
