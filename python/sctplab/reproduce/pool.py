"""Runs many (scenario, overrides, seed) points on the sweep module's local process pool
and returns their results. Reproductions aggregate over seeds themselves, so they need
no store.

Progress: on a terminal the sweep module's rich bar (runs done, failed, time left) per
batch of runs; otherwise a heartbeat line on stderr every `HEARTBEAT_S` seconds, so a
long `sctplab reproduce` in CI or under nohup still shows it is alive.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sctplab.progress import HEARTBEAT_S, Heartbeat, progress_bar

Point = tuple[dict[str, Any], dict[str, Any], int]
# A worker: one point in, a JSON-able result out (module level, so it pickles).
Work = Callable[[Point], dict[str, Any]]


class RunFailed(RuntimeError):
    """One run of a study failed; the message names its overrides and seed."""


@dataclass
class _Outcome:
    ok: bool
    value: dict[str, Any] | None = None
    error: str = ""


def _run(point: Point) -> dict[str, Any]:
    """The default work: the run's summary.json as a dict."""
    from sctplab.runner import run

    scenario, sets, seed = point
    return run(scenario, seed=seed, set=sets).summary


def _guarded(work: Work, point: Point) -> _Outcome:
    try:
        return _Outcome(True, work(point))
    except BaseException as e:
        # A Rust panic reaches Python as PanicException, a BaseException: one bad run
        # must be reported with its point, not kill the worker. Interrupts propagate.
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return _Outcome(False, error=" ".join(f"{type(e).__name__}: {e}".split()))


@dataclass
class _Settings:
    label: str = "runs"
    tty: bool | None = None  # None: whether stderr is a terminal
    heartbeat_s: float = HEARTBEAT_S


_settings = _Settings()
# Worker processes of run_points when the caller names none (`reproduce --jobs`).
_jobs: int | None = None


@contextmanager
def default_jobs(jobs: int | None) -> Iterator[None]:
    """Inside the block, run_points without `jobs` uses `jobs` processes (None: one per
    core)."""
    global _jobs
    old = _jobs
    _jobs = jobs
    try:
        yield
    finally:
        _jobs = old


@contextmanager
def progress_label(
    label: str, tty: bool | None = None, heartbeat_s: float | None = None
) -> Iterator[None]:
    """Names the runs `run_points` does inside the block (the study) in progress output;
    `tty` forces the bar (True) or the heartbeat (False)."""
    global _settings
    old = _settings
    _settings = _Settings(label, tty, old.heartbeat_s if heartbeat_s is None else heartbeat_s)
    try:
        yield
    finally:
        _settings = old


def run_points(
    points: Sequence[Point],
    jobs: int | None = None,
    work: Work = _run,
    on_result: Callable[[int, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """`work(point)` for every point, in order, on the local process pool;
    `on_result(index, result)` as each arrives.

    Raises RunFailed naming the first point that failed (the others are cancelled).
    """
    from sctplab.executor import open_executor

    if not points:
        return []
    settings = _settings
    jobs = _jobs if jobs is None else jobs
    tty = sys.stderr.isatty() if settings.tty is None else settings.tty
    # Scenario dicts go through JSON so workers get plain data.
    safe = [(json.loads(json.dumps(s)), dict(sets), seed) for s, sets, seed in points]
    results: list[dict[str, Any] | None] = [None] * len(safe)
    beat = Heartbeat("sctplab reproduce", settings.label, len(safe), settings.heartbeat_s)
    done = 0
    with (
        open_executor(jobs) as ex,
        progress_bar(tty, len(safe), settings.label) as bar,
    ):
        futures = {ex.executor.submit(_guarded, work, p): i for i, p in enumerate(safe)}
        pending = set(futures)
        while pending:
            # Wake up at least every few seconds so the heartbeat keeps its pace while
            # long runs are still going.
            finished, pending = cf.wait(
                pending,
                timeout=min(5.0, settings.heartbeat_s) or None,
                return_when=cf.FIRST_COMPLETED,
            )
            for fut in finished:
                i = futures[fut]
                try:
                    outcome = fut.result()
                except cf.BrokenExecutor as e:
                    outcome = _Outcome(
                        False, error=f"worker process died ({type(e).__name__}: {e})"
                    )
                if not outcome.ok or outcome.value is None:
                    bar.update(done, 1)
                    if not tty:
                        beat.update(done, 1, final=True)
                    for f in pending:
                        f.cancel()
                    _, sets, seed = safe[i]
                    where = ", ".join(f"{k}={v}" for k, v in sets.items()) or "(no overrides)"
                    raise RunFailed(f"run {where} seed {seed} failed: {outcome.error}")
                results[i] = outcome.value
                if on_result is not None:
                    on_result(i, outcome.value)
                done += 1
                bar.update(done, 0)
            if not tty:
                beat.update(done, 0, final=done == len(safe))
    return [r for r in results if r is not None]
