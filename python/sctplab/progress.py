"""Progress of many runs on stderr, for sweeps, reproductions and validations alike: a
rich bar on a terminal, otherwise a heartbeat line every `HEARTBEAT_S` seconds, so a long
job in CI or under nohup still shows it is alive."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

HEARTBEAT_S = 30.0


class ProgressBar:
    """A rich progress bar on stderr (done, failed, remaining, time left), or nothing."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.bar: Any = None
        if not enabled or total == 0:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "done {task.fields[done]}  [red]failed {task.fields[failed]}[/red]  "
                "remaining {task.fields[remaining]}"
            ),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.task = self.bar.add_task(label, total=total, done=0, failed=0, remaining=total)
        self.total = total
        self.bar.start()

    def update(self, done: int, failed: int) -> None:
        if self.bar is not None:
            finished = done + failed
            self.bar.update(
                self.task,
                completed=finished,
                done=done,
                failed=failed,
                remaining=self.total - finished,
            )

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@contextmanager
def progress_bar(enabled: bool, total: int, label: str) -> Iterator[ProgressBar]:
    bar = ProgressBar(enabled, total, label)
    try:
        yield bar
    finally:
        bar.stop()


def fmt_s(s: float) -> str:
    s = max(0, round(s))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}h{m:02d}m{sec:02d}s" if h else (f"{m}m{sec:02d}s" if m else f"{sec}s")


class Heartbeat:
    """One line on stderr every `every` seconds, and one at the end of the batch, for
    output that is not a terminal (CI, nohup): `PREFIX: LABEL: n/N runs (k failed), ...`."""

    def __init__(self, prefix: str, label: str, total: int, every: float = HEARTBEAT_S) -> None:
        self.prefix, self.label, self.total, self.every = prefix, label, total, every
        self.t0 = time.monotonic()
        self.last = self.t0

    def line(self, done: int, failed: int) -> str:
        elapsed = time.monotonic() - self.t0
        finished = done + failed
        left = (
            f", about {fmt_s(elapsed / finished * (self.total - finished))} left"
            if 0 < finished < self.total
            else ""
        )
        return (
            f"{self.prefix}: {self.label}: {finished}/{self.total} runs "
            f"({failed} failed), {fmt_s(elapsed)} elapsed{left}"
        )

    def update(self, done: int, failed: int, final: bool = False) -> None:
        now = time.monotonic()
        if final or now - self.last >= self.every:
            self.last = now
            print(self.line(done, failed), file=sys.stderr, flush=True)
