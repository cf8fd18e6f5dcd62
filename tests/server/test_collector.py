"""The serving process's garbage collection (server/collector.py): the automatic collector stopped,
one full collection per period of the injected clock."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from sixnimmt.server.clock import ManualClock
from sixnimmt.server.web.collector import QuietCollector


class _Node:
    """An object in a reference cycle: only a collection can free it."""

    def __init__(self) -> None:
        self.me = self


@pytest.mark.asyncio
async def test_cycles_wait_for_the_period_then_go() -> None:
    try:
        clock = ManualClock()
        collector = QuietCollector(clock, every=300)
        collector.start()
        try:
            assert not gc.isenabled()
            cycle = weakref.ref(_Node())  # unreachable at once, but a cycle
            for _ in range(10_000):
                _Node()  # far more than would start Python's own collector
            await asyncio.sleep(0)
            assert cycle() is not None, "the automatic collector ran"
            clock.advance(299)
            await asyncio.sleep(0)
            assert cycle() is not None and collector.collections == 0
            clock.advance(1)
            for _ in range(3):  # the collector's task wakes, then collects
                await asyncio.sleep(0)
            assert cycle() is None
            assert collector.collections == 1 and collector.freed >= 10_001
            clock.advance(300)
            for _ in range(3):
                await asyncio.sleep(0)
            assert collector.collections == 2
        finally:
            await collector.stop()
        assert gc.isenabled()
        clock.advance(600)
        await asyncio.sleep(0)
        assert collector.collections == 2, "a stopped collector still collects"
    finally:
        gc.enable()
        gc.unfreeze()


@pytest.mark.asyncio
async def test_a_process_whose_collector_was_off_keeps_it_off() -> None:
    gc.disable()
    try:
        collector = QuietCollector(ManualClock(), every=60)
        collector.start()
        await collector.stop()
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_period_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        QuietCollector(ManualClock(), every=0)
