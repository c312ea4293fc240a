"""How seed 004's report writes its numbers: p-values, sample sizes, table cells, and the
plotting backend its figures use."""

from __future__ import annotations

import math

from sctplab.reproduce.manet_study import SCALE
from sctplab.stats import N_CAP, mean_ci


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def need_text(n: int | None) -> str:
    return f"> {N_CAP}" if n is None else str(n)


def mean_of(xs: list[float]) -> float:
    return mean_ci(xs)[0]


def cell(values: list[float], metric: str, digits: int = 1) -> str:
    """`mean ± ci95` of a metric over seeds, in the table's unit (`-` without a value)."""
    m, ci, _ = mean_ci(values)
    k = SCALE.get(metric, 1.0)
    if math.isnan(m):
        return "-"
    if metric == "connect_time_s":
        return f"{m:.3f}" if math.isnan(ci) else f"{m:.3f} ± {ci:.3f}"
    return f"{m * k:.{digits}f}" if math.isnan(ci) else f"{m * k:.{digits}f} ± {ci * k:.{digits}f}"
