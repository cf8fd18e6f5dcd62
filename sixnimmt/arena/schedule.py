"""Which games the arena plays: duplicate sets, seatings, and the seeds that make them repeatable.

A *duplicate set* is one stream of shuffles (deal 0, deal 1, ...) played once per *seating*: the same
lineup of bots rotated (or permuted) over the seats. Over the rotations every bot holds every hand,
so the luck of the cards cancels out of the comparison between bots of the same set.

Every seed is derived from the arena seed and the game's place in the schedule, never from the order
in which games happen to run, so any number of processes (or a Ray cluster) gives the same games.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..core import DealSetup, RandomDealer, Rules


class Permutations(StrEnum):
    ROTATIONS = "rotations"  # the lineup rotated over the seats: `players` games per set
    ALL = "all"  # every distinct ordering of the lineup (24 games per set for 4 bots)
    #: One game per set, the lineup rotated one seat further from set to set. For Tournament, whose
    #: sheets already pass round the table inside each game (docs/arena.md measures the choice).
    SINGLE = "single"


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across processes and Python versions, unlike hash())."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def lineup(bots: int, players: int, set_index: int) -> tuple[int, ...]:
    """The bots (by index) that sit down in duplicate set ``set_index``.

    As many bots as seats: all of them. Fewer: the bots repeated in turn (A,B,A,B). More: one
    combination of ``players`` bots per set, cycling through all combinations so each pair meets.
    """
    if bots <= players:
        return tuple(i % bots for i in range(players))
    combos = list(itertools.combinations(range(bots), players))
    return combos[set_index % len(combos)]


def seatings(
    base: tuple[int, ...], permutations: Permutations, set_index: int = 0
) -> list[tuple[int, ...]]:
    """The distinct seatings of a lineup for one duplicate set, in a fixed order."""
    candidates: Iterable[tuple[int, ...]]
    if permutations is Permutations.SINGLE:
        k = set_index % len(base)
        return [base[k:] + base[:k]]
    if permutations is Permutations.ALL:
        candidates = itertools.permutations(base)
    else:
        candidates = (base[k:] + base[:k] for k in range(len(base)))
    seen: dict[tuple[int, ...], None] = {}
    for seating in candidates:
        seen.setdefault(tuple(seating), None)
    return list(seen)


class DuplicateDealer:
    """The dealer of one duplicate set: deal ``k`` depends only on (seed, set, k), so every seating
    of the set gets the very same hands and rows whatever order the deals are asked in."""

    def __init__(self, rules: Rules, seed: int, set_index: int) -> None:
        self._rules = rules
        self._seed = seed
        self._set = set_index

    def __call__(self, deal_index: int) -> DealSetup:
        rng = random.Random(derive_seed(self._seed, "deal", self._set, deal_index))
        return RandomDealer(self._rules, rng)(deal_index)


@dataclass(frozen=True, slots=True)
class GameTask:
    """Everything a worker process needs to play one scheduled game (picklable, no live objects)."""

    set_index: int
    seating_index: int
    seating: tuple[int, ...]  # bot index per seat
    bots: tuple[str, ...]  # every bot spec of the arena (indexed by ``seating``)
    labels: tuple[str, ...]  # display names, unique
    rules: dict[str, Any]
    seed: int
    timeout: float
    save_record: bool

    def bot_seed(self, seat: int) -> int:
        return derive_seed(self.seed, "bot", self.set_index, self.seating_index, seat)


def set_tasks(
    set_index: int,
    *,
    bots: tuple[str, ...],
    labels: tuple[str, ...],
    rules: Rules,
    seed: int,
    permutations: Permutations,
    timeout: float,
    save_record: bool,
) -> list[GameTask]:
    """The games of one duplicate set."""
    base = lineup(len(bots), rules.players, set_index)
    return [
        GameTask(
            set_index=set_index,
            seating_index=k,
            seating=seating,
            bots=bots,
            labels=labels,
            rules=rules.to_dict(),
            seed=seed,
            timeout=timeout,
            save_record=save_record,
        )
        for k, seating in enumerate(seatings(base, permutations, set_index))
    ]
