"""Runs many (scenario, overrides, seed) points on a local process pool and returns
their summaries. Reproductions aggregate over seeds themselves, so they need no store."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

Point = tuple[dict[str, Any], dict[str, Any], int]


def _run(point: Point) -> dict[str, Any]:
    from sctplab.runner import run

    scenario, sets, seed = point
    return run(scenario, seed=seed, set=sets).summary


def run_points(points: Sequence[Point], jobs: int | None = None) -> list[dict[str, Any]]:
    """Summaries of every point, in order."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(points) < 2:
        return [_run(p) for p in points]
    # Scenario dicts go through JSON so workers get plain data.
    safe = [(json.loads(json.dumps(s)), sets, seed) for s, sets, seed in points]
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(_run, safe, chunksize=max(1, len(safe) // (4 * jobs))))
