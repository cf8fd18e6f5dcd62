"""Per-address budgets hold across processes (skipped without ``SIXNIMMT_TEST_POSTGRES_URL``): with
two live processes on one database each grants half of every per-address budget, so one address
whose requests are spread over both gets the documented budget, not twice it. In one event loop,
as in ``test_cluster.py``; the buckets' clock is held still, so nothing refills."""

from __future__ import annotations

import pytest

from sixnimmt.server.config import Settings
from sixnimmt.server.limits import AddressCount, LookupBudget, RateLimits

from .conftest import POSTGRES_URL, fresh_postgres_url
from .test_cluster import process
from .test_cluster_faults import close_all

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL not reachable: set SIXNIMMT_TEST_POSTGRES_URL (.ci/run does)"),
]


def lookups_allowed(budgets: list[LookupBudget], address: str) -> int:
    """Lookups from ``address`` allowed at one instant, its requests going to each process in turn."""
    allowed = 0
    for attempt in range(1000):
        if budgets[attempt % len(budgets)].take(address, 0.0) == 0:
            allowed += 1
    return allowed


async def test_two_processes_give_one_address_its_budget_once() -> None:
    settings = Settings()
    url = fresh_postgres_url()
    a = await process(url)
    alone = [LookupBudget(settings.lookup_per_minute, settings.lookup_burst, settings.miss_per_minute,
                          settings.miss_burst)]
    assert lookups_allowed(alone, "203.0.113.7") == settings.lookup_burst  # one process: the whole budget
    b = await process(url)
    assert a.cluster is not None and b.cluster is not None
    await a.cluster.ownership.share_budgets()  # (A's next heartbeat would)
    both = [LookupBudget(settings.lookup_per_minute, settings.lookup_burst, settings.miss_per_minute,
                         settings.miss_burst) for _ in range(2)]
    assert lookups_allowed(both, "203.0.113.8") == settings.lookup_burst  # two processes: once, not twice
    # the same for sign-ins (any bucket per address) and the open sockets of one address
    signins = [RateLimits(settings.signin_per_minute / 60, settings.signin_burst) for _ in range(2)]
    assert sum(signins[i % 2].retry_after("203.0.113.9", 0.0) == 0 for i in range(1000)) == settings.signin_burst
    sockets = [AddressCount(settings.max_connections_per_address) for _ in range(2)]
    assert sum(sockets[i % 2].acquire("203.0.113.10") for i in range(1000)) == settings.max_connections_per_address
    await close_all(a, b)
