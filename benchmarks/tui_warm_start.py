"""Warm start of the terminal game's bots (docs/terminal.md, "Warm start"): the warm-up's time, then
the first ``hard`` decision's. Run it twice with one fresh numba cache: the first run compiles the
searchers' kernels, the second loads them.

    rm -rf /tmp/nb
    NUMBA_CACHE_DIR=/tmp/nb python benchmarks/tui_warm_start.py
    NUMBA_CACHE_DIR=/tmp/nb python benchmarks/tui_warm_start.py
"""

from __future__ import annotations

import time


def main() -> None:
    started = time.perf_counter()
    from sixnimmt.core import Game, Rules
    from sixnimmt.seats import make_bot
    from sixnimmt.seats.warmup import warm_up

    imported = time.perf_counter()
    rules = Rules(players=4)
    searched = warm_up(rules)
    warmed = time.perf_counter()
    game = Game(rules, ["a", "b", "c", "d"], seed=1)
    bot = make_bot("hard", seed=1)
    asked = time.perf_counter()
    bot.decide(game.view(1))
    answered = time.perf_counter()
    kinds = sorted(kind.value for kind in searched)
    print(
        f"import {imported - started:.2f}s  warm_up {warmed - imported:.2f}s (searched {kinds})  "
        f"first hard decision {answered - asked:.3f}s"
    )


if __name__ == "__main__":
    main()
