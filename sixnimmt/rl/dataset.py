"""A dataset of expert games: games of each variant played by ``grandmaster`` in every seat, in the
record format, made reproducibly from a seed; and a loader that yields positions and decisions.

    python -m sixnimmt.rl.dataset --out data/expert --games 2000 --seed 1      # every variant
    python -m sixnimmt.rl.dataset --out data/expert --games 50 --variants standard,nifty --jobs 2

Each variant's games go to ``OUT/VARIANT.jsonl``, one game a line: ``{"record": ..., "moves": ...,
"bot": ..., "seed": ..., "faults": ...}``. ``record`` is the game in the record format
(docs/record-format.md: its rules, seats, every deal's cards and turns, the scores); ``moves`` the
engine's answers in the order they were given, ``[seat, value]`` (a card, a row, or -1 for pass),
which the loader replays over the record's deals; ``seed`` the game's seed (game ``i`` of a variant
has seed ``derive(seed, variant, i)``, so any game can be made again alone); ``faults`` the
decisions where the bot failed and a legal fallback move was played (the variants grandmaster does
not search: see docs/bots.md). Every game is one deal, 4 players. Games are written as they are
played, so the same command run again after a stop goes on where it stopped.

:func:`positions` reads such a file: for each decision, the seat's view (what the player saw), the
decision and the expert's move; ``position.observation()`` and ``position.action()`` are the RL
environments' numbers (``sixnimmt.rl.encoding``). A record whose moves do not replay to its scores
is refused with the game's line number.

A small sample ships with the package (:data:`SAMPLE`: two games of each variant, made with
``--games 2 --seed 1 --bot grandmaster:samples=20``, fewer rollouts than the full bot, so that it
takes a minute); the full dataset is the command above, hours of CPU per variant (docs/rl.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from ..core import DealSetup, Game, PlayerView, Rules, SixNimmtError, replay
from ..core.variants import VARIANT_NAMES, variant_spec
from .encoding import encode, move_to_action

#: The shipped sample, one file per variant.
SAMPLE = Path(__file__).parent / "data" / "expert-sample"
PLAYERS = 4
DEFAULT_BOT = "grandmaster"


class DatasetError(ValueError):
    """A dataset file that cannot be read as games, with where."""


def derive(seed: int, variant: str, index: int) -> int:
    """Game ``index`` of ``variant``'s seed: a hash of the three, so each game can be made alone."""
    digest = hashlib.sha256(f"{seed}/{variant}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def play(variant: str, seed: int, bot: str = DEFAULT_BOT) -> dict[str, Any]:
    """One game of ``variant`` with ``bot`` in every seat: its line of the dataset."""
    from ..seats import make_bot
    from ..seats.guarded import GuardedSeat

    rules = Rules(players=PLAYERS, variant=variant_spec(variant).name, target=None, deals=1)
    game = Game(rules, seed=seed)
    seats = [GuardedSeat(make_bot(bot, seed + s), fallback_seed=seed + 100 + s) for s in range(PLAYERS)]
    moves: list[list[int]] = []
    try:
        while not game.is_over:
            for decision in game.pending():
                seat = decision.seat
                move = seats[seat].decide(game.view(seat))
                events = game.act(seat, move)
                moves.append([seat, move])
                for event in events:
                    for other, guarded in enumerate(seats):
                        guarded.notify(event, game.view(other))
    finally:
        for guarded in seats:
            guarded.close()
    return {"record": game.record(), "moves": moves, "bot": bot, "seed": seed,
            "faults": sum(len(s.faults) for s in seats)}


def _play_task(task: tuple[str, int, str]) -> dict[str, Any]:
    return play(*task)


def generate(out: Path, variants: list[str], games: int, seed: int, bot: str = DEFAULT_BOT, jobs: int = 1) -> list[Path]:
    """Write ``games`` games of each variant to ``out/VARIANT.jsonl``; the same arguments give the
    same files. Each game is written as soon as it is played, in order, so a run that stops goes on
    where it stopped when run again: the games already in a file are kept (a last line cut short is
    dropped), and a file of other games (another seed or bot) is refused before anything is played."""
    out.mkdir(parents=True, exist_ok=True)
    plans = [(out / f"{variant}.jsonl", variant, _games_made(out / f"{variant}.jsonl", variant, seed, bot)) for variant in variants]
    for path, variant, made in plans:
        tasks = [(variant, derive(seed, variant, i), bot) for i in range(made, games)]
        with path.open("a", encoding="utf-8") as file:
            pool = ProcessPoolExecutor(jobs) if jobs > 1 and tasks else None
            try:
                for line in pool.map(_play_task, tasks) if pool else map(_play_task, tasks):
                    file.write(json.dumps(line, separators=(",", ":")) + "\n")
                    file.flush()
            finally:
                if pool:
                    pool.shutdown(cancel_futures=True)
    return [path for path, _, _ in plans]


def _games_made(path: Path, variant: str, seed: int, bot: str) -> int:
    """How many of this run's games ``path`` holds already (0 when it does not exist), a last line
    that a stopped run cut short dropped; ``DatasetError`` if it holds anything else."""
    if not path.exists():
        return 0
    text = path.read_text(encoding="utf-8")
    complete, _, cut = text.rpartition("\n")
    lines = [*complete.splitlines(), *([cut] if cut and not cut.startswith('{"record":') else [])]
    for number, line in enumerate(lines, 1):
        try:
            made = json.loads(line)
        except json.JSONDecodeError:
            made = None
        if not isinstance(made, dict) or made.get("seed") != derive(seed, variant, number - 1) or made.get("bot") != bot:
            raise DatasetError(f"{path}:{number}: not game {number} of {variant} with seed {seed} and bot {bot}: "
                               "give another --out, or move the file away")
    if cut:
        path.write_text(complete + "\n" if complete else "", encoding="utf-8")
    return len(lines)


@dataclass(frozen=True)
class Position:
    """One decision of an expert game: what the seat saw, and what the expert chose."""

    view: PlayerView
    move: int
    game: int  # the game's line in its file, from 1

    def observation(self) -> NDArray[Any]:
        """The RL environments' observation vector of the view."""
        return encode(self.view)

    def action(self) -> int:
        """The RL environments' action number of the move."""
        return move_to_action(self.move, self.view.decision)


def games(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, game)`` for each game of a dataset file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"{path}: cannot be read ({error})") from None
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetError(f"{path}:{number}: not JSON ({error})") from None
        if not isinstance(data, dict) or not isinstance(data.get("record"), dict) or not isinstance(data.get("moves"), list):
            raise DatasetError(f"{path}:{number}: a game is an object with a record and its moves")
        yield number, data


def positions(path: Path) -> Iterator[Position]:
    """Every decision of every game of a dataset file, in order (see the module's docstring)."""
    for number, data in games(path):
        try:
            recorded = replay(data["record"]).game
            game = Game(recorded.rules, recorded.seats, dealer=_RecordedDeals(recorded.dealt))
            for seat, move in data["moves"]:
                view = game.view(seat)
                if view.decision is None:
                    raise DatasetError(f"{path}:{number}: seat {seat} moves when it owes no decision")
                yield Position(view, move, number)
                game.act(seat, move)
        except (SixNimmtError, TypeError, ValueError) as error:
            if isinstance(error, DatasetError):
                raise
            raise DatasetError(f"{path}:{number}: {error}") from None
        if game.totals != recorded.totals:
            raise DatasetError(f"{path}:{number}: the moves end at {game.totals}, the record at {recorded.totals}")


class _RecordedDeals:
    """The dealer of a replayed record: its shuffled deals, as dealt (drafts ask for none)."""

    def __init__(self, dealt: list[DealSetup | None]) -> None:
        self.dealt = dealt

    def __call__(self, index: int) -> DealSetup:
        setup = self.dealt[index]
        if setup is None:
            raise DatasetError(f"deal {index + 1} of the record was not shuffled")
        return setup


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for VARIANT.jsonl files")
    parser.add_argument("--games", type=int, default=2000, help="games per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default=",".join(VARIANT_NAMES), help="variants, separated by commas")
    parser.add_argument("--bot", default=DEFAULT_BOT, help="the bot in every seat (a spec)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    try:
        for variant in variants:
            variant_spec(variant)
        if args.games < 1 or args.jobs < 1:
            raise ValueError("--games and --jobs must be at least 1")
        from ..seats import make_bot

        make_bot(args.bot, 0)
    except (SixNimmtError, ValueError) as error:
        parser.exit(2, f"error: {error}\n")
    try:
        for path in generate(args.out, variants, args.games, args.seed, args.bot, args.jobs):
            print(path)
    except (DatasetError, OSError) as error:
        parser.exit(2, f"error: {error}\n")


if __name__ == "__main__":
    main()
