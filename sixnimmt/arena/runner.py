"""Run an arena: build the duplicate schedule, play it on a backend, summarise the results.

>>> from sixnimmt.arena import ArenaConfig, run_arena
>>> report = run_arena(ArenaConfig(bots=("random", "random"), deals=2, players=2, game_deals=1))
>>> report.games, report.shuffles
(4, 2)
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import shlex
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ..core import VARIANTS, Rules, RulesError, Variant, variant_spec
from ..core.rules import MAX_PLAYERS, MIN_PLAYERS, PLAYER_RANGE
from ..seats import check_bot
from .report import ArenaReport, summarise
from .schedule import GameTask, Permutations, set_tasks
from .worker import GameResult, play_task

log = logging.getLogger("sixnimmt.arena")

#: ``progress(games_done, games_expected)``, called after every finished game.
Progress = Callable[[int, int], None]


class ArenaError(ValueError):
    """A configuration the arena cannot run (the message says what to change)."""


#: Variants whose games have a length of their own (Tournament: one deal per player; Hand: one deal).
FIXED_LENGTH = frozenset(
    v.value for v, spec in VARIANTS.items() if spec.deals_per_player or spec.fixed_deals is not None
)


@dataclass(frozen=True)
class ArenaConfig:
    """What to play. ``deals`` is the number of distinct shuffles: each is played once per seating
    (duplicate), in full games under the rules (target 66 unless ``target``/``game_deals`` say
    otherwise); the arena plays whole duplicate sets until at least ``deals`` shuffles are used.

    Any of the nine variants (docs/rules.md §5, §6), within its player range. Tournament games always last
    one deal per player and Hand games one long deal: neither takes ``game_deals``, and ``target`` is
    ignored (they have none).
    """

    bots: tuple[str, ...]
    deals: int = 100
    players: int | None = None  # default: one seat per bot (4 when the variant allows fewer)
    variant: str = "standard"
    target: int | None = 66
    end: str = "at-least"
    game_deals: int | None = None  # fixed game length in deals (with target None: exactly this)
    pro_tie: str = "choose"
    double_deck: str = "two-decks"  # Double: two full decks, or "doubles" (the second deck's 11..99)
    seed: int = 1
    jobs: int = 1
    backend: str = "local"  # "local" (processes on this machine) or "ray"
    address: str | None = None  # Ray cluster address; None starts a local Ray instance
    permutations: str = "rotations"  # or "all", or "single" (one seating per set)
    timeout: float = 5.0  # seconds an external bot may take per reply
    save_games: bool = False

    @property
    def seat_count(self) -> int:
        if self.players is not None:
            return self.players
        try:
            low, high = PLAYER_RANGE.get(Variant(self.variant), (MIN_PLAYERS, MAX_PLAYERS))
        except ValueError:  # an unknown variant: rules() says so
            low, high = MIN_PLAYERS, MAX_PLAYERS
        return len(self.bots) if low <= len(self.bots) <= high else 4

    def rules(self) -> Rules:
        if self.variant in FIXED_LENGTH and self.game_deals is not None:
            length = "one deal per player" if variant_spec(self.variant).deals_per_player else "one long deal"
            raise ArenaError(
                f"a {self.variant} game always lasts {length}: leave out game_deals (--game-deals)"
            )
        try:
            return Rules.from_dict({
                "players": self.seat_count,
                "variant": self.variant,
                "target": self.target,
                "end": self.end,
                "deals": self.game_deals,
                "pro_tie": self.pro_tie,
                "double_deck": self.double_deck,
            })
        except RulesError as error:
            raise ArenaError(str(error)) from None

    def labels(self) -> tuple[str, ...]:
        """Display names: the specs (an external program by its file name), with ``#2``, ``#3``
        added to repeated ones. The full specs stay in the report."""
        seen: dict[str, int] = {}
        labels = []
        for spec in self.bots:
            short = short_label(spec)
            seen[short] = seen.get(short, 0) + 1
            labels.append(short if seen[short] == 1 else f"{short} #{seen[short]}")
        return tuple(labels)

    def validate(self) -> Rules:
        """Check everything that can be checked before playing; returns the rules."""
        if not self.bots:
            raise ArenaError("no bots: give at least one, e.g. --bots random,random")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ArenaError(f"deals must be a whole number of at least 1, not {self.deals!r}")
        if self.jobs < 1:
            raise ArenaError(f"jobs must be at least 1, not {self.jobs}")
        if not self.timeout > 0:
            raise ArenaError(f"timeout must be a positive number of seconds, not {self.timeout}")
        if self.backend not in ("local", "ray"):
            raise ArenaError(f"unknown backend {self.backend!r}: choose local or ray")
        try:
            Permutations(self.permutations)
        except ValueError:
            raise ArenaError(
                f"unknown permutations {self.permutations!r}: choose rotations, all or single"
            ) from None
        rules = self.rules()
        for spec in dict.fromkeys(self.bots):
            try:
                check_bot(spec)  # names and options; an external program is found, not started
            except ValueError as error:
                raise ArenaError(str(error)) from None
        return rules

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["players"] = self.seat_count
        return data


def short_label(spec: str) -> str:
    """``cmd:python3 bots/mybot.py --fast`` -> ``mybot.py``: the program file, not the whole line."""
    if not spec.startswith("cmd:"):
        return spec
    try:
        words = shlex.split(spec[4:])
    except ValueError:
        return spec
    arguments = [w for w in words[1:] if not w.startswith("-")]
    files = [w for w in arguments if "/" in w] + [w for w in arguments if "." in w]
    if files:
        return os.path.basename(files[0].rstrip("/"))
    return os.path.basename(words[0]) if words and "/" in words[0] else spec


# ---------------------------------------------------------------------- backends


class Backend(Protocol):
    def run(self, tasks: Sequence[GameTask], done: Callable[[GameResult], None]) -> list[GameResult]: ...


class InProcess:
    """One game after another in this process (jobs=1: no start-up cost, easiest to debug)."""

    def run(self, tasks: Sequence[GameTask], done: Callable[[GameResult], None]) -> list[GameResult]:
        results = []
        for task in tasks:
            results.append(play_task(task))
            done(results[-1])
        return results


def _worker_logging(level: int) -> None:
    """A spawned worker logs faults to stderr like the parent: one line each, same level."""
    logging.basicConfig(level=level, format="sixnimmt: %(message)s")


class ProcessPool:
    """Games spread over ``jobs`` worker processes. Spawned (not forked) workers: the parent may run
    threads (progress bar, logging) that a fork would copy in an arbitrary state."""

    def __init__(self, jobs: int) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_logging,
            initargs=(logging.getLogger("sixnimmt").getEffectiveLevel(),),
        )

    def run(self, tasks: Sequence[GameTask], done: Callable[[GameResult], None]) -> list[GameResult]:
        pending: set[Future[GameResult]] = {self._pool.submit(play_task, t) for t in tasks}
        results = []
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    results.append(future.result())
                except BrokenProcessPool as error:
                    raise ArenaError(f"a worker process died ({error}); try --jobs 1 to see why") from None
                done(results[-1])
        return results

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class RayBackend:
    """The same games as Ray tasks, on a cluster (``address``) or a local Ray instance."""

    def __init__(self, address: str | None, jobs: int) -> None:
        try:
            import ray
        except ImportError:
            raise ArenaError(
                "the ray backend needs Ray: pip install 'sixnimmt[ray]' (or use --backend local)"
            ) from None
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            options: dict[str, Any] = {
                "include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR,
            }
            if address is None:
                options["num_cpus"] = jobs
            try:
                ray.init(address=address, **options)
            except Exception as error:
                raise ArenaError(f"cannot start or reach Ray at {address or 'a local instance'}: {error}") from None
        self._play = ray.remote(play_task)

    def run(self, tasks: Sequence[GameTask], done: Callable[[GameResult], None]) -> list[GameResult]:
        pending = [self._play.remote(t) for t in tasks]
        results = []
        while pending:
            finished, pending = self._ray.wait(pending, num_returns=1)
            for ref in finished:
                results.append(self._ray.get(ref))
                done(results[-1])
        return results

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()


@contextmanager
def open_backend(config: ArenaConfig) -> Iterator[Backend]:
    backend: Backend
    if config.backend == "ray":
        backend = RayBackend(config.address, config.jobs)
    elif config.jobs > 1:
        backend = ProcessPool(config.jobs)
    else:
        backend = InProcess()
    try:
        yield backend
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()


# ---------------------------------------------------------------------- the arena


def _shuffles(results: Sequence[GameResult]) -> int:
    """Distinct deals used by one set: its longest game (every seating replays the same deals)."""
    return max(len(r.deal_penalties) for r in results)


def run_arena(config: ArenaConfig, progress: Progress | None = None) -> ArenaReport:
    """Play the schedule and return the report (write it with :meth:`ArenaReport.write`).

    Whole duplicate sets are played until they use at least ``config.deals`` shuffles, and every
    game played is in the report (none is thrown away). With a fixed game length that is exactly
    ``ceil(deals / deals per game)`` sets, in one go. Games to a target vary in length, so the sets
    are played in waves: each wave holds the sets that are sure to be needed if no set is longer
    than the longest so far (the shuffles still missing divided by that length, rounded down, at
    least one), so a wave can pass ``deals`` only when one of its sets is longer than all before it. The waves depend only on the results so far, so the outcome is the same whatever
    the backend or the number of jobs.
    """
    rules = config.validate()
    bots, labels = tuple(config.bots), config.labels()
    permutations = Permutations(config.permutations)

    def tasks_of(set_index: int) -> list[GameTask]:
        return set_tasks(
            set_index, bots=bots, labels=labels, rules=rules, seed=config.seed,
            permutations=permutations, timeout=config.timeout, save_record=config.save_games,
        )

    games_per_set = len(tasks_of(0))
    fixed_length = rules.deals if rules.target is None else None
    results: list[GameResult] = []
    set_lengths: list[int] = []
    used = 0

    done = 0

    def on_done(_: GameResult) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, max(expected(), done))

    def expected() -> int:
        """Games the run will have played, as far as can be told now (the bar's total)."""
        if fixed_length is not None:
            return games_per_set * math.ceil(config.deals / fixed_length)
        average = used / len(set_lengths) if set_lengths else 3.0
        remaining = max(0, config.deals - used)
        return games_per_set * (len(set_lengths) + math.ceil(remaining / max(1.0, average)))

    with open_backend(config) as backend:
        while used < config.deals:
            remaining = config.deals - used
            if fixed_length is not None:
                wave = math.ceil(remaining / fixed_length)
            else:
                wave = max(1, remaining // max(set_lengths, default=remaining))
            first = len(set_lengths)
            tasks = [t for s in range(first, first + wave) for t in tasks_of(s)]
            played = backend.run(tasks, on_done)
            by_set: dict[int, list[GameResult]] = {}
            for result in played:
                by_set.setdefault(result.set_index, []).append(result)
            for s in range(first, first + wave):
                set_lengths.append(_shuffles(by_set[s]))
            used = sum(set_lengths)
            results.extend(played)
    if progress is not None:
        progress(len(results), len(results))  # the bar ends on what the report counts
    return summarise(results, labels, bots, config.to_dict())
