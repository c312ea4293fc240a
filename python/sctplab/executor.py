"""The executor seam: where sweep runs are computed (docs/sweeps.md).

One interface, `concurrent.futures.Executor`, two back ends: a local process pool
(default) or an existing Dask distributed cluster (`Client(address).get_executor()`,
which is a concurrent.futures Executor too). Workers run `compute_run` only: it calls
the core and returns the results as values; they never touch the store, so one driver
writes every folder and row and workers need no shared file system.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sctplab import _core
from sctplab.code_version import code_version

if TYPE_CHECKING:
    import concurrent.futures as cf


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
    # The catalog's metrics column, made in the worker by the core (None: the driver
    # makes it from summary_json in Python).
    metrics_json: str | None = None

    def fields(self) -> tuple[Any, ...]:
        """The fields in their order, as a local pool's worker sends an outcome (the
        driver makes `RunOutcome(*fields)` of it): a tuple pickles in about a third of
        the time the dataclass takes and unpickles in about half."""
        return (
            self.ok,
            self.code_version,
            self.sets,
            self.error,
            self.summary_json,
            self.resolved_toml,
            self.wall_s,
            self.events,
            self.run_json,
            self.metrics_json,
        )


def one_line(text: str) -> str:
    return " ".join(text.split())


# Tests only: "SEED:SECONDS" makes a worker sleep that long in Python before the core
# runs the task with that seed, standing in for a run stuck inside one event (where the
# core's own wall-clock check, every 4096 events, never comes).
TEST_HANG_ENV = "SCTPLAB_TEST_HANG_BEFORE_RUN"


def _test_hang(seed: int) -> None:
    spec = _test_hang_spec()
    if spec is not None and spec[0] == str(seed):
        time.sleep(float(spec[1]))


@lru_cache(maxsize=1)
def _test_hang_spec() -> tuple[str, str] | None:
    # Read once per process: os.environ.get (a Python mapping that encodes the key)
    # cost a worker some 4,000 instructions per run. Workers inherit it at start.
    spec = os.environ.get(TEST_HANG_ENV)
    if not spec:
        return None
    which, _, seconds = spec.partition(":")
    return which, seconds


def compute_run(task: RunTask) -> RunOutcome:
    """Run one scenario in a worker and return its results (no files written)."""
    from sctplab.runner import _run_json

    version = code_version()
    _test_hang(task.seed)
    try:
        raw = _core.run(
            task.text,
            is_json=task.is_json,
            source=task.source,
            default_name=task.default_name,
            sets=list(task.sets),
            seed=task.seed,
            timeout_s=task.timeout_s,
            # The catalog's metrics column made here by the core, not in the driver.
            catalog_metrics=True,
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
        metrics_json=raw.get("metrics_json"),
    )


# Extra wall time a worker gets past `--run-timeout` before the driver kills it: the
# core stops a run itself at its limit (checked every 4096 events); only a run stuck
# inside one event, or outside the core, outlives this.
KILL_GRACE_S = 2.0


def kill_after(timeout_s: float) -> float:
    """Seconds after a run starts at which the driver kills its worker."""
    return timeout_s * 1.1 + KILL_GRACE_S


@dataclass
class _Worker:
    proc: _WorkerProcess
    conn: _DriverEnd
    # The batch it is working on, the index of the run it is on, and when that run
    # started (when the previous result arrived or the batch was sent).
    batch: list[Any] = field(default_factory=list)
    next: int = 0
    started: float = 0.0


class LocalPool:
    """Worker processes fed batches of runs over pipes, one result sent back per run.

    Unlike concurrent.futures' pool, the driver knows which run each worker is on and
    since when, so it can kill one worker whose run outlives its time limit (and only
    that worker: the others' runs go on), and a batch costs one message each way per run
    rather than a future, a call queue slot and a result queue slot.

    Workers are started with subprocess, not multiprocessing: spawn would also start
    multiprocessing's resource tracker (a third interpreter, which nothing here needs)
    and make every worker import the driver's main module (`sctplab.cli`, with click);
    together that was about 40 % of a sweep's fixed CPU cost. A fresh interpreter (not
    fork) for the reason multiprocessing's spawn exists: the driver may have threads.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.workers: list[_Worker] = []

    def start_worker(self) -> _Worker:
        import socket

        ours, theirs = socket.socketpair()
        try:
            proc = _WorkerProcess(theirs.fileno(), os.getpid())
        finally:
            theirs.close()
        w = _Worker(proc, _DriverEnd(ours))
        w.conn.send(list(sys.path))
        self.workers.append(w)
        return w

    def send(self, w: _Worker, fn: Any, batch: list[Any]) -> None:
        """Give an idle worker a batch: `fn(item.task)` for each item, in order."""
        w.batch, w.next, w.started = batch, 0, time.monotonic()
        w.conn.send((fn, [item.task for item in batch]))

    def kill(self, w: _Worker) -> None:
        self.workers.remove(w)
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(timeout=5)
        w.proc.close()
        w.conn.close()

    def shutdown(self, *, cancel: bool) -> None:
        for w in list(self.workers):
            if cancel:
                w.proc.terminate()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        for w in self.workers:
            w.proc.join(timeout=5)
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(timeout=5)
            w.proc.close()
            w.conn.close()
        self.workers = []


# What a worker interpreter runs: the connection comes in as an inherited descriptor,
# then the driver's sys.path (so it imports what the driver would, as spawn does).
_BOOT = (
    "import os,sys,pickle\n"
    "fd=int(sys.argv[1])\n"
    "def r(k):\n"
    " b=b''\n"
    " while len(b)<k:\n"
    "  x=os.read(fd,k-len(b))\n"
    "  if not x: raise SystemExit(0)\n"
    "  b+=x\n"
    " return b\n"
    "sys.path[:]=pickle.loads(r(int.from_bytes(r(4),'big',signed=True)))\n"
    "from sctplab.executor import _Channel,_worker_main\n"
    "_worker_main(_Channel(fd),int(sys.argv[2]))\n"
)


class _Channel:
    """The worker's end of its socket, speaking multiprocessing.connection's framing
    (a signed 4-byte big-endian length, or -1 and an 8-byte one, then a pickle) to the
    driver's Connection, without importing multiprocessing (a seventh of a worker's
    start-up)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def _read(self, size: int) -> bytes:
        parts: list[bytes] = []
        while size:
            chunk = os.read(self.fd, size)
            if not chunk:
                raise EOFError
            parts.append(chunk)
            size -= len(chunk)
        return b"".join(parts)

    def recv(self) -> Any:
        import pickle

        size = int.from_bytes(self._read(4), "big", signed=True)
        if size == -1:
            size = int.from_bytes(self._read(8), "big")
        return pickle.loads(self._read(size))

    def send(self, obj: Any) -> None:
        view = memoryview(_frame(obj))
        while view:
            view = view[os.write(self.fd, view) :]


def _frame(obj: Any) -> bytes:
    """`obj` pickled behind multiprocessing.Connection's length header (4 bytes, or -1
    and 8 bytes for 2 GiB and more), the framing both ends of a worker's socket speak."""
    import pickle

    data = pickle.dumps(obj)
    size = len(data)
    if size > 0x7FFFFFFF:
        return (-1).to_bytes(4, "big", signed=True) + size.to_bytes(8, "big") + data
    return size.to_bytes(4, "big", signed=True) + data


class _DriverEnd:
    """The driver's end of a worker's socket, in the framing `_Channel` speaks.

    `take` reads what has arrived without blocking and returns the whole messages in it
    (a result may come in several reads). multiprocessing's Connection, used before,
    needed a `poll` before each `recv` and after the last one, and each poll built and
    filled a selector of its own: about a tenth of the driver's instructions per run on
    millisecond runs.
    """

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.buf = bytearray()

    def fileno(self) -> int:
        fd: int = self.sock.fileno()
        return fd

    def send(self, obj: Any) -> None:
        self.sock.sendall(_frame(obj))

    def take(self) -> list[Any]:
        """The messages complete so far; [] if none. EOFError once the worker's end is
        closed (it exited), OSError if the socket failed."""
        import pickle
        import socket

        try:
            chunk = self.sock.recv(_READ_SIZE, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return []
        if not chunk:
            raise EOFError
        buf = self.buf
        buf += chunk
        out: list[Any] = []
        start, end = 0, len(buf)
        view = memoryview(buf)
        try:
            while end - start >= 4:
                size = int.from_bytes(view[start : start + 4], "big", signed=True)
                head = 4
                if size == -1:
                    if end - start < 12:
                        break
                    size = int.from_bytes(view[start + 4 : start + 12], "big")
                    head = 12
                if end - start < head + size:
                    break
                out.append(pickle.loads(view[start + head : start + head + size]))
                start += head + size
        finally:
            view.release()
        if start:
            del buf[:start]
        return out

    def close(self) -> None:
        self.sock.close()


# Bytes read per `take`: a few results of a millisecond run (~6 KB each) at once; a
# larger one comes in several reads.
_READ_SIZE = 1 << 18


class _WorkerProcess:
    """A worker interpreter, with the part of multiprocessing.Process the driver uses."""

    def __init__(self, fd: int, parent: int) -> None:
        import subprocess

        flags: list[str] = getattr(subprocess, "_args_from_interpreter_flags", list)()
        self.popen = subprocess.Popen(
            [sys.executable, *flags, "-c", _BOOT, str(fd), str(parent)],
            pass_fds=(fd,),
            stdin=subprocess.DEVNULL,
        )
        # Readable once the process has exited, for multiprocessing.connection.wait
        # (Linux); elsewhere a dead worker shows as the end of its connection.
        self.sentinel: int | None = None
        if hasattr(os, "pidfd_open"):
            try:
                self.sentinel = os.pidfd_open(self.popen.pid)
            except OSError:
                pass

    @property
    def exitcode(self) -> int | None:
        return self.popen.poll()

    def is_alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        self.popen.kill()

    def terminate(self) -> None:
        self.popen.terminate()

    def join(self, timeout: float | None = None) -> None:
        import subprocess

        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Release the sentinel (once the driver no longer waits on it)."""
        if self.sentinel is not None:
            os.close(self.sentinel)
            self.sentinel = None


def _worker_main(conn: _Channel, parent: int) -> None:
    """A LocalPool worker: batches in, one (index, outcome's fields) out per run."""
    import signal

    # Ctrl-C goes to the whole process group: the driver decides (it terminates us).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent(parent)
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        fn, tasks = msg
        for i, task in enumerate(tasks):
            try:
                outcome = fn(task)
            except Exception as e:
                outcome = RunOutcome(
                    ok=False,
                    code_version=code_version(),
                    sets=task.sets,
                    error=one_line(f"{type(e).__name__}: {e}"),
                )
            conn.send((i, outcome.fields()))


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
        self._executor: cf.Executor | None = None
        # The local pool for sweeps (batches, per-run kill); `executor` stays for the
        # other callers (reproduce) and is only made if they use it.
        self.pool: LocalPool | None = None
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

    @property
    def executor(self) -> cf.Executor:
        """A concurrent.futures executor: Dask's, or a local process pool made on first
        use (making one starts multiprocessing's resource tracker, an interpreter of its
        own, for the pool's queue locks: a sweep on the local pool never needs it)."""
        if self._executor is None:
            self._executor = self._process_pool()
        return self._executor

    def _open_pool(self) -> None:
        self.parallelism = self.jobs or os.cpu_count() or 1
        self.pool = LocalPool(self.parallelism)

    def _process_pool(self) -> cf.ProcessPoolExecutor:
        # Imported here: the sweep's workers import this module, and concurrent.futures
        # (with logging) is a fifth of their start-up.
        import concurrent.futures as cf
        import multiprocessing

        # spawn: see LocalPool. Its processes start on first submit (reproduce uses it).
        return cf.ProcessPoolExecutor(
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
        self._executor = self.client.get_executor(pure=False)

    def restart(self) -> None:
        """Replace a local pool broken by a worker that died (the runs it held are
        recorded as failed by the driver); Dask replaces its workers by itself."""
        if self.scheduler is None and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._process_pool()

    def close(self, *, cancel: bool) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel=cancel)
        if self.client is not None:
            # Dask's ClientExecutor.shutdown has no cancel_futures: wait=False cancels.
            if self._executor is not None:
                self._executor.shutdown(wait=not cancel)
            self.client.close()
        elif self._executor is None:
            pass  # no process pool was made
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
