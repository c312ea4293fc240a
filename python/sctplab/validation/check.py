"""One row of a validation against another simulator, and what a validation wrote."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

COLUMNS = [
    "metric",
    "scenario",
    "ns2_mean",
    "ns2_ci95",
    "ours",
    "ours_ci95",
    "difference",
    "tolerance",
    "pass",
]


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
    """What `validate ns2` wrote and how many of its checks pass."""

    report: Path
    passed: int
    total: int

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    @property
    def last_line(self) -> str:
        return f"{self.passed}/{self.total} checks pass"
