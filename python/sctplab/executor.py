"""The executor seam: where sweep runs are computed (docs/sweeps.md).

One interface, `concurrent.futures.Executor`, two back ends: a local process pool
(default) or an existing Dask distributed cluster (`Client(address).get_executor()`,
which is a concurrent.futures Executor too). Workers run `compute_run` only: it calls
the core and returns the results as values; they never touch the store, so one driver
writes every folder and row and workers need no shared file system.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sctplab import _core
from sctplab.store import code_version


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run (plain values: it crosses processes)."""

    text: str
    is_json: bool
    source: str
    default_name: str
    sets: tuple[tuple[str, str], ...]
    seed: int
    # Wall-clock limit of the run in seconds (`--run-timeout`), or none.
    timeout_s: float | None = None


@dataclass
class RunOutcome:
    """What a worker sends back. `ok` False: `error` is one line, nothing else is set."""

    ok: bool
    code_version: str
    sets: tuple[tuple[str, str], ...] = ()
    error: str | None = None
    summary_json: str | None = None
    resolved_toml: str | None = None
    wall_s: float | None = None
    events: int | None = None
    run_json: dict[str, Any] = field(default_factory=dict)


def one_line(text: str) -> str:
    return " ".join(text.split())


def compute_run(task: RunTask) -> RunOutcome:
    """Run one scenario in a worker and return its results (no files written)."""
    from sctplab.runner import _run_json

    version = code_version()
    try:
        raw = _core.run(
            task.text,
            is_json=task.is_json,
            source=task.source,
            default_name=task.default_name,
            sets=list(task.sets),
            seed=task.seed,
            timeout_s=task.timeout_s,
        )
    except BaseException as e:
        # pyo3 turns a Rust panic into PanicException, a BaseException: catch it too, so
        # one bad run is a failed row, not a dead worker. Interrupts still propagate.
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        expected = _core.ScenarioError | _core.UsageError | _core.RunError
        message = str(e) if isinstance(e, expected) else None
        return RunOutcome(
            ok=False,
            code_version=version,
            sets=task.sets,
            error=one_line(message or f"{type(e).__name__}: {e}"),
        )
    return RunOutcome(
        ok=True,
        code_version=version,
        sets=task.sets,
        summary_json=raw["summary_json"],
        resolved_toml=raw["resolved_toml"],
        wall_s=raw["wall_s"],
        events=raw["events"],
        run_json=_run_json(raw, task.seed, list(task.sets)),
    )


def _exit_with_parent(parent: int) -> None:
    """Pool worker initializer: exit when the driver is gone.

    A process-pool worker blocks forever on its task queue if the driver is SIGKILLed
    (it holds the queue's write end itself, so it never sees EOF); polling the parent
    pid is portable and cheap.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="sctplab-parent-watch", daemon=True).start()


class Executors:
    """An open executor plus what the driver needs to know about it."""

    def __init__(self, jobs: int | None, scheduler: str | None) -> None:
        self.jobs = jobs
        self.scheduler = scheduler
        self.client: Any = None
        self.executor: cf.Executor
        self.parallelism = 1
        if scheduler is not None:
            self._open_dask(scheduler)
        else:
            self._open_pool()

    @property
    def description(self) -> str:
        if self.scheduler is not None:
            return f"Dask cluster {self.scheduler} ({self.parallelism} worker threads)"
        return f"{self.parallelism} local process(es)"

    def _open_pool(self) -> None:
        import multiprocessing

        self.parallelism = self.jobs or os.cpu_count() or 1
        # spawn, not fork: the driver may already have threads (rich, pyarrow), and
        # forking a threaded process can deadlock; it is also what macOS and (from 3.14)
        # Linux use by default, so scripts need the usual `if __name__ == "__main__":`.
        self.executor = cf.ProcessPoolExecutor(
            max_workers=self.parallelism,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )

    def _open_dask(self, address: str) -> None:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import backends

        # Checked before a Client exists: a half-built one complains again at exit.
        try:
            scheme, location = parse_address(address)
            _, port = parse_host_port(location)
        except (ValueError, TypeError) as e:
            raise _core.UsageError(
                f"--scheduler {address}: not a scheduler address ({one_line(str(e))}); "
                "expected tcp://HOST:PORT"
            ) from None
        if scheme not in backends or not 0 < int(port) < 65536:
            raise _core.UsageError(
                f"--scheduler {address}: not a scheduler address (protocol {scheme!r}, "
                f"port {port}); expected tcp://HOST:PORT"
            )
        try:
            # distributed.Client is not annotated.
            self.client = Client(address, timeout="10s", set_as_default=False)  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError, ValueError) as e:
            raise _core.UsageError(
                f"--scheduler {address}: cannot reach the Dask scheduler: {one_line(str(e))}"
            ) from None
        threads = self.client.nthreads()
        self.parallelism = max(1, sum(threads.values()))
        # pure=False: a run's results include the worker's host and clock (run.json), so
        # Dask must not reuse a result computed for an identical earlier task.
        self.executor = self.client.get_executor(pure=False)

    def restart(self) -> None:
        """Replace a local pool broken by a worker that died (the runs it held are
        recorded as failed by the driver); Dask replaces its workers by itself."""
        if self.scheduler is None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self._open_pool()

    def close(self, *, cancel: bool) -> None:
        if self.client is not None:
            # Dask's ClientExecutor.shutdown has no cancel_futures: wait=False cancels.
            self.executor.shutdown(wait=not cancel)
            self.client.close()
        elif cancel:
            # Interrupted (Ctrl-C) or failed: runs in progress are abandoned, not waited
            # for (one may take hours). A worker that got the SIGINT too stops by itself;
            # one that did not (a signal to the driver alone) is terminated here.
            processes = dict(getattr(self.executor, "_processes", None) or {})
            self.executor.shutdown(wait=False, cancel_futures=True)
            for proc in processes.values():
                proc.terminate()
            for proc in processes.values():
                proc.join(timeout=5)
        else:
            self.executor.shutdown(wait=True)


@contextmanager
def open_executor(jobs: int | None = None, scheduler: str | None = None) -> Iterator[Executors]:
    """The local pool (`jobs` processes, default the CPU count) or a Dask cluster."""
    ex = Executors(jobs, scheduler)
    try:
        yield ex
    except BaseException:
        ex.close(cancel=True)
        raise
    ex.close(cancel=False)
