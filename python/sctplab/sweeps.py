"""Sweeps: a grid of overrides times seeds 1..N, run through the executor seam, kept in
the store (docs/sweeps.md).

The driver plans the runs, skips those the store already holds (so asking for more
seeds tops up, and an interrupted sweep resumes), hands the rest to the executor, and
writes each result as it arrives: run folder first, catalog row second.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import json
import math
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sctplab import _core
from sctplab.code_version import code_version
from sctplab.executor import (
    Executors,
    LocalPool,
    RunOutcome,
    RunTask,
    _Worker,
    compute_run,
    kill_after,
    one_line,
    open_executor,
)
from sctplab.progress import ProgressBar, progress_bar
from sctplab.run_args import MOBILITY_FILE_KEY, blamed_on_file, check_timeout
from sctplab.runner import movement_file_sets
from sctplab.scenario_input import (
    NotToml,
    clip,
    read_scenario,
    show_value,
    toml_value,
)
from sctplab.store import DEFAULT_STORE, Cleanup, StoreWriter, open_store
from sctplab.store_rows import RunKey, canonical_json, scenario_hash

if TYPE_CHECKING:
    import pandas as pd

GRID_EXAMPLE = "links.bottleneck.loss.rate=[0.008,0.01]"


def parse_grid(items: Sequence[str]) -> dict[str, list[Any]]:
    """`--grid KEY=JSON_LIST` items as `{key: values}`."""
    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _core.UsageError(f"--grid {item}: expected KEY=JSON_LIST, e.g. {GRID_EXAMPLE}")
        try:
            values = json.loads(text)
        except (ValueError, RecursionError) as e:
            if isinstance(e, json.JSONDecodeError):
                why = f"{e.msg} at column {e.colno}"
            elif isinstance(e, RecursionError):
                why = "nested too deeply"
            else:  # an integer longer than Python converts (4300 digits)
                why = one_line(str(e)).split(";")[0]
            raise _core.UsageError(
                f"--grid {clip(key)}={clip(text)}: not valid JSON ({why}); "
                'expected a JSON list such as [0.008,0.01] or ["250ms","500ms"]'
            ) from None
        if key in grid:
            raise _core.UsageError(f"--grid {key}: given twice; put all its values in one list")
        grid[key] = values
    return check_grid(grid)


def check_grid(grid: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Every key a non-empty list of values that can be written as TOML."""
    if not isinstance(grid, Mapping):
        raise TypeError(
            "grid: expected a dict of dotted keys to lists of values, e.g. "
            f"{{'links.bottleneck.loss.rate': [0.008, 0.01]}}, not {type(grid).__name__}"
        )
    out: dict[str, list[Any]] = {}
    for key, values in grid.items():
        if not isinstance(key, str) or not key.strip():
            raise _core.UsageError(
                f"--grid {show_value(key)}: expected a dotted key such as {GRID_EXAMPLE}"
            )
        if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
            raise _core.UsageError(
                f"--grid {clip(key)}={show_value(values)}: expected a non-empty list "
                "of values, e.g. [0.008,0.01]"
            )
        if len(values) > MAX_RUNS:
            raise _core.UsageError(
                f"--grid {clip(key)}: {len(values)} values, more than the {MAX_RUNS} runs "
                "one sweep plans"
            )
        for v in values:
            try:
                toml_value(v)  # first: it bounds the nesting _finite walks
            except NotToml as e:
                raise _core.UsageError(f"--grid {clip(key)}: {show_value(v)}: {e}") from None
            if not _finite(v):
                raise _core.UsageError(
                    f"--grid {clip(key)}: {show_value(v)}: NaN and Infinity are not "
                    "scenario values (and the catalog could not store them)"
                )
        out[key.strip()] = list(values)
    return out


@dataclass(frozen=True)
class PlannedRun:
    key: RunKey
    params: dict[str, Any]
    task: RunTask


@dataclass
class SweepReport:
    """What a sweep did. `run_ids` are all the runs it asked for, reused ones included."""

    store: Path
    scenario: str
    executor: str
    requested: int
    reused: int
    ran: int = 0
    failed: list[tuple[PlannedRun, str]] = field(default_factory=list)
    wall_s: float = 0.0
    cleanup: Cleanup | None = None
    run_ids: list[str] = field(default_factory=list)


def _finite(v: Any) -> bool:
    """No NaN or infinity anywhere inside a grid value."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, Mapping):
        return all(_finite(x) for x in v.values())
    if isinstance(v, list | tuple):
        return all(_finite(x) for x in v)
    return True


# The most runs one sweep plans (each is a catalog row and a folder).
MAX_RUNS = 10_000_000
# The most local worker processes (each an interpreter with the core, some 50 MB).
MAX_JOBS = 1024


def check_run_timeout(timeout: object) -> float | None:
    """`--run-timeout`: seconds of wall time, positive and finite, or None."""
    return check_timeout("--run-timeout", timeout)


def plan(
    scenario: str | Path | Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]],
    seeds: int,
    run_timeout: float | None = None,
) -> tuple[str, str, str, list[PlannedRun]]:
    """(scenario name, its content hash, resolved base TOML, the runs) for a sweep.

    Checks the scenario itself (a bad file fails here, before anything runs); a bad
    value in one grid point only fails that point's runs.
    """
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise _core.UsageError(
            f"--seeds {show_value(seeds)}: expected a positive integer (seeds 1..N)"
        )
    checked = check_grid(grid)
    points_n = math.prod(len(v) for v in checked.values())
    if points_n * seeds > MAX_RUNS:
        raise _core.UsageError(
            f"--seeds {show_value(seeds)}: {points_n} grid point(s) x {show_value(seeds)} "
            "seed(s) is more than the "
            f"{MAX_RUNS} runs one sweep plans"
        )
    src = read_scenario(scenario)
    # A movement file named in the scenario file is found beside it, wherever workers run.
    base_sets, _ = movement_file_sets(src, [])
    name, base = _core.resolve(
        src.text,
        is_json=src.is_json,
        source=src.source,
        default_name=src.default_name,
        sets=base_sets,
    )
    digest = scenario_hash(base)
    version = code_version()
    keys = list(checked)
    runs: list[PlannedRun] = []
    seen: set[str] = set()
    # Each value's override text and canonical JSON made once, and a point's joined from
    # them (canonical JSON sorts the keys): a 1000 x 1000 grid has 10^6 points, and
    # making each point's texts from scratch took most of a minute.
    tomls = [[(k, toml_value(v)) for v in checked[k]] for k in keys]
    jsons = [[f"{encode_basestring(k)}:{canonical_json(v)}" for v in checked[k]] for k in keys]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    movement_sets = tuple(base_sets)
    # The scenario's own movement file (in base_sets) was found once above: only points
    # that set `mobility.file` themselves need their path made absolute.
    own_movement = MOBILITY_FILE_KEY in checked
    of_point = RunKey.of_point
    points: list[dict[str, Any]] = []
    point_sets: list[tuple[tuple[str, str], ...]] = []
    point_keys: list[Callable[[int], RunKey]] = []
    for combo in itertools.product(*(range(len(checked[k])) for k in keys)):
        points.append({k: checked[k][i] for k, i in zip(keys, combo, strict=True)})
        sets = tuple(tomls[j][i] for j, i in enumerate(combo))
        if own_movement:
            point_sets.append(tuple(movement_file_sets(src, [*movement_sets, *sets])[0]))
        else:
            point_sets.append(sets + movement_sets)
        text = "{" + ",".join(jsons[j][combo[j]] for j in order) + "}"
        point_keys.append(of_point(digest, text, version))
    # Seed-major order: an interrupted sweep has covered every grid point with the
    # first seeds rather than some points with all seeds.
    for seed in range(1, seeds + 1):
        for point, sets, point_key in zip(points, point_sets, point_keys, strict=True):
            key = point_key(seed)
            if key.run_id in seen:  # a value listed twice
                continue
            seen.add(key.run_id)
            task = RunTask(
                text=src.text,
                is_json=src.is_json,
                source=src.source,
                default_name=src.default_name,
                sets=sets,
                seed=seed,
                timeout_s=run_timeout,
            )
            runs.append(PlannedRun(key, point, task))
    return name, digest, base, runs


def run_sweep(
    scenario: str | Path | Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]] | None = None,
    seeds: int = 1,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    store: str | Path = DEFAULT_STORE,
    progress: bool = False,
    on_start: Callable[[SweepReport], None] | None = None,
    run_timeout: float | None = None,
) -> SweepReport:
    """Plan, skip what the store has, compute the rest, record every result.

    `run_timeout` (seconds of wall time) stops a run that takes longer; it is recorded
    as failed with the reason and the sweep goes on.
    """
    run_timeout = check_run_timeout(run_timeout)
    if jobs is not None and (isinstance(jobs, bool) or not 1 <= jobs <= MAX_JOBS):
        raise _core.UsageError(
            f"--jobs {show_value(jobs)}: expected a number of processes from 1 to {MAX_JOBS}"
        )
    if jobs is not None and scheduler is not None:
        raise _core.UsageError(
            "--jobs sets the local pool's size; with --scheduler the Dask workers decide"
        )
    name, digest, base, runs = plan(scenario, grid or {}, seeds, run_timeout)
    t0 = time.perf_counter()
    # The executor first: an unreachable scheduler is bad input, reported before the
    # store is created or touched. (A local pool starts its processes on first use.)
    with open_executor(jobs, scheduler) as ex, open_store(store) as writer:
        cleanup = writer.cleanup()
        writer.add_scenario(digest, name, base)
        done = writer.done(digest, code_version())
        todo = [r for r in runs if (r.key.overrides, r.key.seed) not in done]
        report = SweepReport(
            store=Path(store),
            scenario=name,
            executor=ex.description,
            requested=len(runs),
            reused=len(runs) - len(todo),
            cleanup=cleanup,
            run_ids=[r.key.run_id for r in runs],
        )
        if on_start is not None:
            on_start(report)
        with progress_bar(progress and bool(todo), len(todo), name) as bar:
            _execute(todo, writer, ex, name, report, bar, run_timeout)
    report.wall_s = time.perf_counter() - t0
    return report


# Results wait at most this long (or this many runs) in the driver before their folders
# and rows are written in one batch: a killed sweep loses at most the runs in flight and
# those finished in the last FLUSH_S.
FLUSH_S = 0.5
FLUSH_RUNS = 256
# Runs per batch sent to a local worker: at most this many, and few enough that every
# worker gets several batches (so the last ones end together).
MAX_BATCH = 32


class _Recorder:
    """Buffers outcomes and writes them in batches (StoreWriter.record_many)."""

    def __init__(
        self, writer: StoreWriter, name: str, report: SweepReport, bar: ProgressBar
    ) -> None:
        self.writer, self.name, self.report, self.bar = writer, name, report, bar
        self.pending: list[tuple[PlannedRun, RunOutcome]] = []
        self.since = time.monotonic()

    def add(self, run: PlannedRun, outcome: RunOutcome) -> None:
        if outcome.ok and outcome.code_version != run.key.code_version:
            # Results from other code must not be filed under this code's key.
            outcome = RunOutcome(
                ok=False,
                code_version=outcome.code_version,
                run_json=outcome.run_json,
                error=(
                    f"worker runs sctplab {outcome.code_version}, the driver "
                    f"{run.key.code_version}: install the same build on every worker"
                ),
            )
        elif not outcome.ok and outcome.error and MOBILITY_FILE_KEY not in run.params:
            # The scenario's own movement file travels as an override: its errors are
            # the file's (runner.blamed_on_file).
            error = blamed_on_file(outcome.error, run.task.source, False, run.task.sets)
            if error != outcome.error:
                outcome = dataclasses.replace(outcome, error=error)
        if not self.pending:
            self.since = time.monotonic()
        self.pending.append((run, outcome))
        if len(self.pending) >= FLUSH_RUNS:
            self.flush()

    def due(self) -> float:
        """Seconds until the buffer must be written (inf when empty)."""
        if not self.pending:
            return math.inf
        return max(0.0, self.since + FLUSH_S - time.monotonic())

    def flush(self) -> None:
        if not self.pending:
            return
        items = [(r.key, self.name, r.params, o) for r, o in self.pending]
        self.writer.record_many(items)
        for run, outcome in self.pending:
            if outcome.ok:
                self.report.ran += 1
            else:
                self.report.failed.append((run, outcome.error or "failed"))
        self.pending = []
        self.bar.update(self.report.ran, len(self.report.failed))


def _execute(
    todo: list[PlannedRun],
    writer: StoreWriter,
    ex: Executors,
    name: str,
    report: SweepReport,
    bar: ProgressBar,
    run_timeout: float | None = None,
) -> None:
    rec = _Recorder(writer, name, report, bar)
    try:
        if ex.pool is not None:
            _execute_local(todo, ex.pool, rec, run_timeout)
        else:
            _execute_futures(todo, ex, rec)
    finally:
        # What finished is kept even when the sweep is interrupted.
        rec.flush()


def _execute_local(
    todo: list[PlannedRun], pool: LocalPool, rec: _Recorder, run_timeout: float | None
) -> None:
    """Batches to the local workers; one result back per run; a worker whose run outlives
    its limit (a run stuck inside one event) is killed and replaced, the run recorded as
    timed out and the rest of its batch run by the others."""
    import selectors

    queue = deque(todo)
    fn = compute_run  # looked up here, so tests can stand another function in
    idle: list[_Worker] = []
    limit = kill_after(run_timeout) if run_timeout is not None else None
    # One selector for the whole sweep, holding the busy workers' connections and exit
    # sentinels: multiprocessing.connection.wait builds and fills a new one per call,
    # which was a good part of the driver's time per result on short runs.
    selector = selectors.DefaultSelector()
    watched: dict[int, list[Any]] = {}

    def watch(w: _Worker) -> None:
        if id(w) not in watched:
            handles: list[Any] = [w.conn]
            if w.proc.sentinel is not None:
                handles.append(w.proc.sentinel)
            for h in handles:
                selector.register(h, selectors.EVENT_READ, w)
            watched[id(w)] = handles

    def unwatch(w: _Worker) -> None:
        # Before its descriptors are closed: a new worker may get the same numbers.
        for h in watched.pop(id(w), []):
            selector.unregister(h)

    def give(w: _Worker) -> None:
        if not queue:
            unwatch(w)
            idle.append(w)
            return
        size = max(1, min(MAX_BATCH, len(queue) // (4 * pool.size)))
        batch = [queue.popleft() for _ in range(min(size, len(queue)))]
        pool.send(w, fn, batch)
        watch(w)

    def lost(w: _Worker, error: str) -> None:
        """`w` is gone: its current run failed with `error`, the rest goes back."""
        unwatch(w)
        run = w.batch[w.next]
        rec.add(run, RunOutcome(ok=False, code_version=run.key.code_version, error=error))
        queue.extendleft(reversed(w.batch[w.next + 1 :]))
        w.batch = []
        pool.kill(w)
        while idle and queue:
            give(idle.pop())
        if queue:
            give(pool.start_worker())

    for _ in range(min(pool.size, len(queue))):
        give(pool.start_worker())
    while any(w.batch for w in pool.workers):
        busy = [w for w in pool.workers if w.batch]
        now = time.monotonic()
        wait_s = rec.due()
        if limit is not None:
            wait_s = min(wait_s, *(w.started + limit - now for w in busy))
        ready = selector.select(None if math.isinf(wait_s) else max(0.0, wait_s))
        handled: set[int] = set()
        for key, _ in ready:
            w = key.data
            if id(w) in handled or w not in pool.workers:
                continue
            handled.add(id(w))
            try:
                got = w.conn.take()
            except (EOFError, OSError):
                # Its end of the socket closed: the process exited (or is exiting).
                w.proc.join(timeout=1)
                lost(w, one_line(f"worker process died (exit code {w.proc.exitcode})"))
                continue
            if not got and key.fileobj is not w.conn and w.proc.exitcode is not None:
                # Only its exit sentinel was ready and nothing came (not seen on Linux,
                # where the socket's end closes before the exit shows).
                lost(w, one_line(f"worker process died (exit code {w.proc.exitcode})"))
                continue
            for i, fields in got:
                rec.add(w.batch[i], RunOutcome(*fields))
                w.next, w.started = i + 1, time.monotonic()
                if w.next == len(w.batch):
                    w.batch = []
                    give(w)
        if limit is not None:
            now = time.monotonic()
            for w in [w for w in pool.workers if w.batch and now - w.started > limit]:
                assert run_timeout is not None
                lost(
                    w,
                    f"timed out: no result {now - w.started:.1f} s after the run started "
                    f"(--run-timeout {run_timeout:g} s); its worker process was killed",
                )
        if rec.due() == 0.0:
            rec.flush()
    selector.close()


def _execute_futures(todo: list[PlannedRun], ex: Executors, rec: _Recorder) -> None:
    """One future per run (a Dask cluster's executor)."""
    queue = deque(todo)
    inflight: dict[cf.Future[RunOutcome], PlannedRun] = {}
    # A bounded window of submitted runs: memory stays flat for huge sweeps and a
    # Ctrl-C has little queued work to cancel; twice the parallelism keeps workers busy
    # while the driver writes results.
    window = max(2, 2 * ex.parallelism)
    while queue or inflight:
        while queue and len(inflight) < window:
            run = queue.popleft()
            try:
                fut = ex.executor.submit(compute_run, run.task)
            except cf.BrokenExecutor:
                ex.restart()
                fut = ex.executor.submit(compute_run, run.task)
            inflight[fut] = run
        timeout = rec.due()
        finished, _ = cf.wait(
            list(inflight),
            timeout=None if math.isinf(timeout) else timeout,
            return_when=cf.FIRST_COMPLETED,
        )
        broken = False
        for fut in finished:
            run = inflight.pop(fut)
            try:
                outcome = fut.result()
            except cf.BrokenExecutor as e:
                broken = True
                outcome = RunOutcome(
                    ok=False,
                    code_version=run.key.code_version,
                    error=one_line(f"worker process died ({type(e).__name__}: {e})"),
                )
            except Exception as e:
                outcome = RunOutcome(
                    ok=False,
                    code_version=run.key.code_version,
                    error=one_line(f"{type(e).__name__}: {e}"),
                )
            rec.add(run, outcome)
        if rec.due() == 0.0:
            rec.flush()
        if broken:
            ex.restart()


def sweep(
    scenario: str | Path | Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]] | None = None,
    seeds: int = 1,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    store: str | Path = DEFAULT_STORE,
    progress: bool | None = None,
    run_timeout: float | None = None,
) -> pd.DataFrame:
    """Run a sweep like `sctplab sweep` and return its runs as a DataFrame.

    `scenario` is a path, a TOML string or a dict (as for `sctplab.run`); `grid` maps
    dotted keys to lists of values (`{"links.bottleneck.loss.rate": [0.008, 0.01]}`);
    every grid point runs with seeds 1..`seeds`. `jobs` local processes (default: the
    CPU count) or `scheduler="tcp://host:port"` for a Dask cluster; results go to
    `store` (default `store/`), and runs already there are not run again.
    `run_timeout` (seconds of wall time per run) records a run that takes longer as
    failed, with the reason, and goes on.

    Returns the runs this sweep asked for (those found in the store included), in the
    format of `sctplab.load`; failed runs have `status == "failed"` and an `error`.
    Uses worker processes: call it under `if __name__ == "__main__":` in a script.
    """
    show = sys.stderr.isatty() if progress is None else progress
    report = run_sweep(
        scenario,
        grid,
        seeds,
        jobs=jobs,
        scheduler=scheduler,
        store=store,
        progress=show,
        run_timeout=run_timeout,
    )
    from sctplab.store import load

    return load(report.store, failed=True, only=report.run_ids)
