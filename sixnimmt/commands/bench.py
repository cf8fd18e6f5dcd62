"""``sixnimmt bench ...``: speed measurements whose figures go into docs/performance.md."""

from __future__ import annotations

import json
import platform
import random
import time
from collections.abc import Callable
from typing import Annotated

import typer

from ..core import Game, Rules
from ..core.fast import FastDeal, nb_random_games

app = typer.Typer(help="Measure speed (one core). Figures belong in docs/performance.md.", no_args_is_help=True)


def _rate(run_one: Callable[[], None], seconds: float) -> tuple[float, int]:
    """Games per second of ``run_one`` over at least ``seconds`` of wall time."""
    count = 0
    start = time.perf_counter()
    while True:
        run_one()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed, count


def checked_game(rng: random.Random, players: int) -> None:
    """A random-bot game through the checked API (validation, events, record)."""
    game = Game(Rules(players=players), rng=rng)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))


def fast_game(rng: random.Random, players: int, target: int = 66) -> list[int]:
    """A random-bot game on the plain-Python fast path (too-low: cheapest row)."""
    totals = [0] * players
    deck = list(range(1, 105))
    while max(totals) < target:
        rng.shuffle(deck)  # the deal and every random player's play order at once
        deal = FastDeal([[c] for c in deck[players * 10 : players * 10 + 4]], players)
        for turn in range(10):
            deal.play_turn([deck[seat * 10 + turn] for seat in range(players)])
        for seat in range(players):
            totals[seat] += deal.penalties[seat]
    return totals


@app.command()
def engine(
    seconds: Annotated[float, typer.Option(min=0.1, help="Time per measurement.")] = 3.0,
    players: Annotated[int, typer.Option(min=2, max=10, help="Players per game.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for the shuffles.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Random-bot games to the end (standard rules, target 66) per second on one core."""
    rng = random.Random(seed)
    checked, n_checked = _rate(lambda: checked_game(rng, players), seconds)
    fast, n_fast = _rate(lambda: fast_game(rng, players), seconds)
    nb_random_games(1, players, 66, seed)  # compile (or load the cache) outside the timing
    batch = 2000
    compiled, n_batches = _rate(lambda: nb_random_games(batch, players, 66, seed), seconds)
    results = {
        "players": players,
        "checked_games_per_s": round(checked, 1),
        "fast_python_games_per_s": round(fast, 1),
        "compiled_games_per_s": round(compiled * batch, 1),
        "games": {"checked": n_checked, "fast_python": n_fast, "compiled": n_batches * batch},
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
    }
    if as_json:
        typer.echo(json.dumps(results))
        return
    typer.echo(f"random-bot games to the end, {players} players, standard rules, one core:")
    typer.echo(f"  checked API (Game)        {checked:>10,.0f} games/s  ({n_checked} games)")
    typer.echo(f"  fast path (FastDeal)      {fast:>10,.0f} games/s  ({n_fast} games)")
    typer.echo(f"  compiled (numba kernel)   {compiled * batch:>10,.0f} games/s  ({n_batches * batch} games)")
