"""One row of a validation against another simulator, and what a validation wrote."""

from __future__ import annotations

import csv
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def columns(oracle: str) -> list[str]:
    """validation.csv's header; `oracle` (ns2, ns3) names the oracle's mean and CI."""
    return [
        "metric",
        "scenario",
        f"{oracle}_mean",
        f"{oracle}_ci95",
        "ours",
        "ours_ci95",
        "difference",
        "tolerance",
        "pass",
    ]


COLUMNS = columns("ns2")


@dataclass
class Check:
    metric: str
    scenario: str
    ns2_mean: float
    ns2_ci95: float | None
    ours: float
    ours_ci95: float | None
    tolerance: float

    @property
    def difference(self) -> float:
        return self.ours - self.ns2_mean

    @property
    def passed(self) -> bool:
        return abs(self.difference) <= self.tolerance + 1e-9

    def cells(self) -> list[str]:
        def f(v: float | None) -> str:
            return "" if v is None or math.isnan(v) else f"{v:.6g}"

        return [
            self.metric,
            self.scenario,
            f(self.ns2_mean),
            f(self.ns2_ci95),
            f(self.ours),
            f(self.ours_ci95),
            f(self.difference),
            f(self.tolerance),
            "yes" if self.passed else "no",
        ]


@dataclass
class Validation:
    """What a validation (`validate ns2`, `validate ns3`) wrote and how many of its checks pass."""

    report: Path
    passed: int
    total: int

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    @property
    def last_line(self) -> str:
        return f"{self.passed}/{self.total} checks pass"


def say(line: str, oracle: str) -> None:
    """One progress line on stderr, `sctplab validate ORACLE: LINE`."""
    print(f"sctplab validate {oracle}: {line}", file=sys.stderr, flush=True)


def run_groups(groups: list[tuple[str, Callable[[], list[Check]]]], oracle: str) -> list[Check]:
    """Runs each group of rows in turn, one progress line on stderr as it starts and
    ends (`sctplab validate ORACLE: [i/n] label: ...`)."""
    checks: list[Check] = []
    t_start = time.monotonic()
    for i, (label, rows) in enumerate(groups, 1):
        say(f"[{i}/{len(groups)}] {label}: started", oracle)
        t0 = time.monotonic()
        got = rows()
        checks += got
        passed = sum(c.passed for c in got)
        say(
            f"[{i}/{len(groups)}] {label}: {passed}/{len(got)} pass, "
            f"{time.monotonic() - t0:.0f} s ({time.monotonic() - t_start:.0f} s in all)",
            oracle,
        )
    return checks


def write_csv(path: Path, header: list[str], checks: list[Check]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(c.cells() for c in checks)
