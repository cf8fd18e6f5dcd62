"""The web server with two probes, for load tests: how long its garbage collections stop it, and how
late its event loop wakes up (a 10 ms sleep, again and again). Run it, point the load test at it,
then stop it with Ctrl-C (or SIGINT/SIGTERM): it prints one JSON line of what it saw after ``--skip``
seconds (the tables' creation left out).

    .venv/bin/python benchmarks/serve_probe.py --port 8765 --skip 35 &
    .venv/bin/python benchmarks/load_web.py --tables 1000 --seconds 60 --url http://127.0.0.1:8765 --pid $!
    kill -INT %1

Settings are those of ``sixnimmt serve`` (SQLite in a temporary folder, bots without delay, the
quiet garbage collection of server/collector.py, uvicorn's event loop: uvloop where it is installed;
before 2026-12-01 evening the probe ran asyncio's own loop), as ``load_web.py`` starts it; ``--full-every S``
sets its period (``Settings.full_collection_seconds``), ``--automatic-gc`` gives the server Python's
automatic collector instead, with ``--threshold`` for its thresholds."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import uvicorn

from sixnimmt.server.config import Settings
from sixnimmt.server.store.database import Store
from sixnimmt.server.web.app import create_app


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--skip", type=float, default=35.0, help="seconds from the start not counted")
    parser.add_argument("--full-every", type=float, default=Settings().full_collection_seconds,
                        help="seconds between the quiet collector's full collections")
    parser.add_argument("--automatic-gc", action="store_true", help="Python's automatic collector instead")
    parser.add_argument("--threshold", default="700,10,10", help="with --automatic-gc: gc.set_threshold's three numbers")
    args = parser.parse_args()
    url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='sixnimmt-probe-')) / 'probe.db'}"
    store = Store(url)
    store.migrate()
    store.close()
    start = time.monotonic()
    pauses: list[tuple[float, int, float]] = []  # (when, generation, ms)
    lags: list[tuple[float, float]] = []  # (when, ms late)
    began = 0.0

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
        else:
            pauses.append((time.monotonic() - start, info["generation"], (time.perf_counter() - began) * 1000))

    gc.callbacks.append(on_gc)

    async def lag_probe() -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.monotonic() - start, (time.perf_counter() - asked - 0.01) * 1000))

    settings = Settings(database_url=url, bot_delay=0.0, absent_grace=600.0, quiet_gc=not args.automatic_gc,
                        full_collection_seconds=args.full_every)
    if args.automatic_gc:
        gc.set_threshold(*(int(n) for n in args.threshold.split(",")))
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=args.port, log_level="warning",
                            ws_max_size=65536, ws_per_message_deflate=False)  # as `sixnimmt serve`

    async def serve() -> None:
        probe = asyncio.get_running_loop().create_task(lag_probe())
        await uvicorn.Server(config).serve()
        probe.cancel()

    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    # The event loop that uvicorn.run, and so `sixnimmt serve`, runs (uvloop where it is installed).
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(serve())
    counted = [ms for when, _, ms in pauses if when > args.skip]
    late = [ms for when, ms in lags if when > args.skip]
    print(json.dumps({
        "gc_collections": len(counted),
        "gc_ms_total": round(sum(counted), 1),
        "gc_ms_max": round(max(counted, default=0.0), 1),
        "gc_by_generation": {g: sum(1 for when, gen, _ in pauses if when > args.skip and gen == g) for g in range(3)},
        "loop_late_ms_p50": round(percentile(late, 0.5), 2),
        "loop_late_ms_p99": round(percentile(late, 0.99), 2),
        "loop_late_ms_max": round(max(late, default=0.0), 1),
        "loop_late_over_100ms": sum(1 for ms in late if ms > 100),
        "loop_samples": len(late),
        # Each collection over 10 ms: seconds since the start, generation, milliseconds (the last
        # ones may be the shutdown's, after the load test has stopped measuring).
        "gc_pauses": [[round(when, 1), gen, round(ms, 1)] for when, gen, ms in pauses if when > args.skip and ms > 10],
        "seconds": round(time.monotonic() - start, 1),
    }), flush=True)


if __name__ == "__main__":
    main()
