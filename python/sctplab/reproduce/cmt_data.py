"""The CMT study's numbers: per item, series and x, the per-seed goodputs and their mean
and 95 % interval, read from the runs (ours and ns-2.35's)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sctplab.reproduce.cmt_plan import (
    BUFFER_SETUPS,
    EQUAL,
    LOSS_BUFFER,
    LOSS_ITEM,
    Grid,
    Key,
)
from sctplab.reproduce.common import Row
from sctplab.stats import mean_ci

ITEMS = [s.item for s in BUFFER_SETUPS] + [LOSS_ITEM]
X_NAME = {**{s.item: "buffer_bytes" for s in BUFFER_SETUPS}, LOSS_ITEM: "loss"}


@dataclass
class Paths:
    """The two-path runs of one grid."""

    grid: Grid
    runs: dict[Key, dict[str, Any]]

    def xs(self, item: str) -> list[float]:
        return (
            list(self.grid.losses) if item == LOSS_ITEM else [float(b) for b in self.grid.buffers]
        )

    def key(self, item: str, series: str, x: float, seed: int) -> Key:
        if item == LOSS_ITEM:
            return Key(series, EQUAL.delay_b_ms, x, LOSS_BUFFER, seed)
        s = next(s for s in BUFFER_SETUPS if s.item == item)
        return Key(series, s.delay_b_ms, s.loss_b, int(x), seed)

    def values(self, item: str, series: str, x: float) -> list[float]:
        """Goodput (b/s) per seed, seeds in order."""
        out = []
        for s in range(1, self.grid.seeds + 1):
            g = self.runs[self.key(item, series, x, s)]["goodput_bps"]
            # An ns-2 run stopped at its CPU limit has no goodput (cmt_runs).
            out.append(math.nan if g is None else float(g))
        return out

    def failed(self) -> list[Key]:
        """ns-2.35's runs that were stopped at their CPU limit."""
        return sorted(
            (k for k, r in self.runs.items() if r.get("ns2_failed")),
            key=lambda k: (k.config, k.delay_b_ms, k.loss_b, k.buffer, k.seed),
        )

    def stat(self, item: str, series: str, x: float) -> tuple[float, float]:
        """(mean, 95 % half-width; 0 when n = 1)."""
        m, ci, _ = mean_ci(self.values(item, series, x))
        return m, 0.0 if math.isnan(ci) else ci

    def mean(self, item: str, series: str, x: float) -> float:
        return self.stat(item, series, x)[0]

    def apart(self, item: str, a: str, b: str, x: float) -> bool:
        """Whether a's and b's 95 % intervals at x do not overlap."""
        (ma, ca), (mb, cb) = self.stat(item, a, x), self.stat(item, b, x)
        return abs(ma - mb) > ca + cb


def rows(p: Paths) -> list[Row]:
    out: list[Row] = []
    for item in ITEMS:
        for series in p.grid.series:
            for x in p.xs(item):
                m, ci, n = mean_ci(p.values(item, series, x))
                if n == 0:
                    continue  # every seed's ns-2 run stopped: no value (the report says)
                xv: float | int = int(x) if item != LOSS_ITEM else x
                out.append(
                    Row(
                        item,
                        series,
                        X_NAME[item],
                        xv,
                        "goodput_bps",
                        m,
                        None if math.isnan(ci) else ci,
                        n,
                    )
                )
    return out
