"""The process pool the validation rows run on: the sweeps' executor (executor.py), any
picklable function over a list, results in order, with the heartbeat of progress.py."""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from sctplab.executor import open_executor
from sctplab.progress import HEARTBEAT_S, Heartbeat

A = TypeVar("A")
R = TypeVar("R")


def pool_map(fn: Callable[[A], R], items: Sequence[A], jobs: int | None, label: str) -> list[R]:
    """`fn` over `items` on `jobs` worker processes (default: one per core), results in
    order; a heartbeat line on stderr while they run. ns-2 runs in a subprocess of the
    worker, so a pool of N keeps N cores busy."""
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or len(items) <= 1:
        return [fn(x) for x in items]
    beat = Heartbeat("sctplab validate ns2", label, len(items), HEARTBEAT_S)
    with open_executor(workers) as ex:
        futures = [ex.executor.submit(fn, x) for x in items]
        pending = set(futures)
        while pending:
            _, pending = cf.wait(
                pending, timeout=min(5.0, HEARTBEAT_S), return_when=cf.ALL_COMPLETED
            )
            beat.update(len(futures) - len(pending), 0, final=not pending)
        return [f.result() for f in futures]
