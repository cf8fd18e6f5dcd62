"""Warm start: the searching bots' kernels are compiled by numba the first time they run (about a
minute on a small machine), then loaded from numba's disk cache (well under a second). ``sixnimmt
play`` compiles them before the table opens, with a progress line, so that no bot stalls the game.

How: one deal of the table's variant is played by searchers on the smallest budget (one rollout
per option) until both a card and a row decision have been searched; that runs every kernel the
game's searchers will run. Once the kernels are loaded this takes a fraction of a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from ..bots.models import MODELLED
from ..bots.search import MonteCarloBot, SearchConfig
from ..core import DecisionKind, Game, Rules
from .registry import make_bot

#: Deals played at most to meet a row decision (one almost always comes in the first).
_MAX_DEALS = 4


def needs_warm_up(specs: Iterable[str | None]) -> bool:
    """Whether any of these seats is a searcher (a bot that runs the compiled kernels)."""
    for spec in specs:
        if spec is None or spec.startswith("cmd:"):
            continue
        bot = make_bot(spec, seed=0)
        try:
            if isinstance(bot, MonteCarloBot):
                return True
        finally:
            bot.close()
    return False


def warm_up(rules: Rules) -> set[DecisionKind]:
    """Run the searchers' kernels on a throwaway game with these rules; returns the decision kinds
    searched (card and row, unless the variant's searchers fall back to a heuristic)."""
    searched: set[DecisionKind] = set()
    players = rules.players
    # With opponent models, as the levels search: the kernels they run (inference, modelled rollouts).
    bots = [MonteCarloBot(seed, SearchConfig(samples=1, policy=MODELLED)) for seed in range(players)]
    for deal in range(_MAX_DEALS):
        game = Game(rules, [f"p{seat}" for seat in range(players)], seed=deal)
        while not game.is_over and game.deal_index == 0:
            for decision in game.pending():
                before = bots[decision.seat].rollouts
                value = bots[decision.seat].decide(game.view(decision.seat))
                if bots[decision.seat].rollouts > before:
                    searched.add(decision.kind)
                game.act(decision.seat, value)
        if {DecisionKind.CARD, DecisionKind.ROW} <= searched:
            break
    return searched


def warm_up_with_progress(
    rules: Rules,
    say: Callable[[str], None],
    *,
    quiet_for: float = 2.0,
    every: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    warm: Callable[[Rules], object] | None = None,
) -> None:
    """:func:`warm_up` (or ``warm``) in a thread; if it is still running after ``quiet_for``
    seconds (the kernels are being compiled, not loaded), ``say`` a progress line ``every``
    seconds until it ends, then a last one."""
    done = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            (warm or warm_up)(rules)
        except BaseException as error:  # reported to the caller's thread
            failure.append(error)
        finally:
            done.set()

    started = clock()
    worker = threading.Thread(target=run, name="sixnimmt-warm-up", daemon=True)
    worker.start()
    if not done.wait(quiet_for):
        while not done.wait(every):
            say(f"Preparing the bots (compiling the search, first run only)… {clock() - started:.0f} s")
        say(f"Preparing the bots (compiling the search, first run only)… done in {clock() - started:.0f} s")
    worker.join()
    if failure:
        raise failure[0]
