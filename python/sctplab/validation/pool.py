"""The process pool the validation rows run on: ns-2 and sctplab runs, results in order,
a heartbeat line while they run."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")
HEARTBEAT_S = 60.0


def pool_map(fn: Callable[[A], R], items: Sequence[A], jobs: int | None, label: str) -> list[R]:
    """`fn` over `items` on a local process pool of `jobs` workers (default: one per
    core), results in order; a line on stderr every `HEARTBEAT_S` seconds. ns-2 runs
    in a subprocess of the worker, so a pool of N keeps N cores busy."""
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or len(items) <= 1:
        return [fn(x) for x in items]
    t0 = time.monotonic()
    with cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn")
    ) as ex:
        futures = [ex.submit(fn, x) for x in items]
        pending = set(futures)
        while pending:
            _, pending = cf.wait(pending, timeout=HEARTBEAT_S, return_when=cf.ALL_COMPLETED)
            if pending:
                done = len(futures) - len(pending)
                print(
                    f"sctplab validate ns2: {label}: {done}/{len(futures)} runs, "
                    f"{time.monotonic() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        return [f.result() for f in futures]
