"""Warm start: the searchers' kernels are run before the table opens, with a progress line."""

from __future__ import annotations

import itertools
import threading

from sixnimmt.core import DecisionKind, Rules
from sixnimmt.seats.warmup import needs_warm_up, warm_up, warm_up_with_progress


def test_only_searchers_need_a_warm_up() -> None:
    assert not needs_warm_up([None, "easy", "medium", "random"])
    assert needs_warm_up([None, "easy", "hard"])


def test_the_warm_up_searches_a_card_and_a_row_decision() -> None:
    assert warm_up(Rules(players=4)) >= {DecisionKind.CARD, DecisionKind.ROW}


def test_a_long_warm_up_says_so_and_says_when_it_is_done() -> None:
    said: list[str] = []
    release = threading.Event()

    def slow_warm_up(_: Rules) -> None:
        release.wait()  # until the progress line has been shown

    def say(line: str) -> None:
        said.append(line)
        release.set()

    ticks = itertools.count()
    warm_up_with_progress(
        Rules(players=3), say, quiet_for=0, every=0, clock=lambda: float(next(ticks)), warm=slow_warm_up
    )
    assert len(said) >= 2 and all(line.startswith("Preparing the bots") for line in said)
    assert "done in" not in said[0] and "done in" in said[-1]


def test_a_quick_warm_up_says_nothing() -> None:
    said: list[str] = []
    warm_up_with_progress(Rules(players=3), said.append, quiet_for=60, warm=lambda _: None)
    assert said == []
