"""Swiss tables for a game of several players: who sits with whom in a round.

Chess's Swiss system pairs players of equal score; at a table of P players the same idea groups
entrants in standing order, the first P at the first table, the next P at the second, and so on, so
each round brings together entrants who have done equally well. Two wishes pull against that
grouping, and the search below weighs them:

- **No repeat table-mates where it can be helped.** Any table with two entrants who have already
  met costs more than any reshuffle of the standing groups could, so a repeat is kept only when no
  exchange of entrants between tables avoids it.
- **Stay near one's group.** Among seatings with as few repeats, the one that moves entrants the
  fewest tables away from their standing group wins.

When the entrants do not fill every table, the seats left over are *fill* seats (:data:`FILL`), taken
by players who score nothing (a server's bots, the arena's fill bot). They go one to a table from
the last table up, so the leading tables are played by entrants alone; a fill seat moves up only
where that avoids a repeat meeting, and no table ever has two fill seats more than another.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import combinations

#: A seat that no entrant takes: a fill player sits there and scores nothing.
FILL = -1

#: One table: the entrant in each seat, :data:`FILL` for a fill seat.
Table = tuple[int, ...]


def table_sizes(entrants: int, table_size: int) -> list[int]:
    """How many entrants sit at each table: as few tables as hold everybody, fill seats spread one a
    table from the last table up (so sizes differ by one at most)."""
    if entrants < 1:
        raise ValueError("a round needs at least one entrant")
    if table_size < 2:
        raise ValueError(f"a table seats at least 2 players, not {table_size}")
    tables = math.ceil(entrants / table_size)
    sizes = [table_size] * tables
    for k in range(tables * table_size - entrants):
        sizes[tables - 1 - k % tables] -= 1
    return sizes


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The key of two entrants in a record of who met whom."""
    return (a, b) if a < b else (b, a)


def swiss_tables(
    order: Sequence[int],
    table_size: int,
    met: Mapping[tuple[int, int], int] | None = None,
) -> list[Table]:
    """The tables of a round.

    ``order`` lists the entrants from the leader down (the first round: by rating, strongest first);
    ``met[pair_key(a, b)]`` is how many times ``a`` and ``b`` shared a table before. Each table lists
    its entrants in standing order, fill seats last. Deterministic: the same arguments give the same
    tables.
    """
    if len(set(order)) != len(order):
        raise ValueError("an entrant is listed twice")
    if FILL in order:
        raise ValueError(f"{FILL} names a fill seat, not an entrant")
    met = met or {}
    sizes = table_sizes(len(order), table_size)
    grouped: list[list[int]] = []
    start = 0
    for size in sizes:
        grouped.append([*order[start : start + size], *[FILL] * (table_size - size)])
        start += size
    home = {entrant: t for t, group in enumerate(grouped) for entrant in group if entrant != FILL}
    search = _Search(home, met, len(order) * len(sizes) + 1, max(sizes) - min(sizes))
    best = search.improve([list(group) for group in grouped])
    # Exchanges of two seats can stop short of the fewest repeats (a better seating may need three
    # entrants to move at once), so a few more searches start from seeded shuffles of the seating.
    rng = random.Random(len(order) * 7919 + table_size)
    restarts = RESTARTS if len(order) <= RESTART_LIMIT else 0
    while restarts and repeats(best, met):
        restarts -= 1
        entrants = list(order)
        rng.shuffle(entrants)
        shuffled = [[entrants.pop() if e != FILL else FILL for e in group] for group in grouped]
        candidate = search.improve(shuffled)
        if search.cost(candidate) < search.cost(best):
            best = candidate
    rank_of = {entrant: k for k, entrant in enumerate(order)}
    return [
        tuple(sorted((e for e in group if e != FILL), key=rank_of.__getitem__))
        + (FILL,) * group.count(FILL)
        for group in best
    ]


#: Extra searches from shuffled seatings when repeats remain, for rounds of up to RESTART_LIMIT
#: entrants (beyond, each search costs more than the rare repeat it might save).
RESTARTS = 12
RESTART_LIMIT = 40


class _Search:
    """Local search over seatings: the cost of a seating is its repeat meetings, each weighing more
    than all displacements together, plus how many tables each entrant sits from its standing group."""

    def __init__(self, home: Mapping[int, int], met: Mapping[tuple[int, int], int], repeat_cost: int, spread: int) -> None:
        self.home = home
        self.met = met
        self.repeat_cost = repeat_cost
        self.spread = spread  # fill seats per table may differ by this much (0 or 1)

    def met_count(self, a: int, b: int) -> int:
        return 0 if FILL in (a, b) else self.met.get(pair_key(a, b), 0)

    def moved(self, entrant: int, table: int) -> int:
        return 0 if entrant == FILL else abs(table - self.home[entrant])

    def cost(self, groups: Sequence[Sequence[int]]) -> int:
        return self.repeat_cost * repeats(groups, self.met) + sum(
            self.moved(e, t) for t, group in enumerate(groups) for e in group
        )

    def improve(self, groups: list[list[int]]) -> list[list[int]]:
        """The best exchange of two seats between tables, while one makes the seating cheaper. An
        entrant may change places with a fill seat when the fill seats stay spread evenly. Each step
        lowers the cost, a whole number, so the search ends."""
        fills = [g.count(FILL) for g in groups]
        low = min(fills)
        entrants = [e for g in groups for e in g if e != FILL]
        # against[e][t]: the meetings ``e`` has had with the entrants now at table t (itself excluded),
        # kept up to date after each exchange, so that weighing an exchange costs no loop.
        against = {e: [sum(self.met_count(e, x) for x in g if x != e) for g in groups] for e in entrants}
        against[FILL] = [0] * len(groups)
        while True:
            best = (0, -1, -1, -1, -1)
            for i, j in combinations(range(len(groups)), 2):
                for ai, a in enumerate(groups[i]):
                    for bj, b in enumerate(groups[j]):
                        if a == FILL and b == FILL:
                            continue
                        if FILL in (a, b):
                            gets, loses = (j, i) if a == FILL else (i, j)
                            if fills[gets] + 1 > low + self.spread or fills[loses] - 1 < low:
                                continue
                        both = self.met_count(a, b)
                        met = against[a][i] + against[b][j] - (against[a][j] - both) - (against[b][i] - both)
                        moved = self.moved(a, i) + self.moved(b, j) - self.moved(a, j) - self.moved(b, i)
                        gain = self.repeat_cost * met + moved
                        if gain > best[0]:
                            best = (gain, i, ai, j, bj)
            gain, i, ai, j, bj = best
            if gain <= 0:
                return groups
            a, b = groups[i][ai], groups[j][bj]
            groups[i][ai], groups[j][bj] = b, a
            for e in entrants:
                change = self.met_count(e, a) - self.met_count(e, b)
                against[e][i] -= change
                against[e][j] += change
            if FILL in (a, b):
                fills[i] += 1 if b == FILL else -1
                fills[j] += 1 if a == FILL else -1

def repeats(tables: Sequence[Sequence[int]], met: Mapping[tuple[int, int], int]) -> int:
    """Pairs of entrants at one table of ``tables`` who had met before (counted once per meeting)."""
    return sum(
        met.get(pair_key(a, b), 0)
        for table in tables
        for a, b in combinations([e for e in table if e != FILL], 2)
    )


def record_meetings(tables: Sequence[Table], met: dict[tuple[int, int], int]) -> None:
    """Add the pairs that share a table in ``tables`` to ``met``."""
    for table in tables:
        for a, b in combinations([e for e in table if e != FILL], 2):
            met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
