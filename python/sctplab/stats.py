"""Statistics over seeds: means with Student-t confidence intervals.

The reproductions report `mean`, `ci95` (half-width of the 95% Student-t interval over
seeds, empty when n = 1) and `n` (CONTRACTS.md, data.csv); these helpers compute them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, int]:
    """(mean, half-width of the Student-t interval, n) of `values`.

    NaN values (failed runs, metrics a run did not have) are left out and not counted.
    The half-width is t(1 - (1 - confidence)/2, n - 1) * s / sqrt(n) with s the sample
    standard deviation; it is NaN when n < 2 (no spread to estimate), and the mean is
    NaN when n = 0.
    """
    xs = [float(v) for v in values]
    xs = [v for v in xs if not math.isnan(v)]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    mean = math.fsum(xs) / n
    if n == 1:
        return mean, math.nan, 1
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(var / n)
    return mean, half, n


@lru_cache(maxsize=4096)
def t_quantile(q: float, df: int) -> float:
    """Student-t quantile `q` with `df` degrees of freedom. Cached: a reproduction asks
    for the same few (q, df) thousands of times, and each scipy call costs ~0.1 ms."""
    from scipy.stats import t

    return float(t.ppf(q, df))


def aggregate(
    df: pd.DataFrame,
    metrics: Sequence[str] | None = None,
    by: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean and confidence half-width over seeds of each metric, per parameter point.

    `df` is what `sctplab.load` or `sctplab.sweep` returns. `by` defaults to the
    parameter columns plus `scenario` and `code_version` (runs of different code are
    never averaged together); `metrics` defaults to the numeric metric columns. Only
    runs with `status == "ok"` count. The result is long form, one row per group and
    metric: the `by` columns, `metric`, `mean`, `ci95`, `n` (ci95 NaN when n = 1;
    with another `confidence` the column is named after it, e.g. `ci90`).
    """
    import numpy as np
    import pandas as pd
    from scipy.stats import t

    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    if by is None:
        params = list(df.attrs.get("parameters", []))
        by = [c for c in [*params, "scenario", "code_version"] if c in df.columns]
    if metrics is None:
        names = df.attrs.get("metrics") or [c for c in df.columns if c not in by]
        metrics = [
            c
            for c in names
            if c in df.columns
            and c != "seed"
            and pd.api.types.is_numeric_dtype(df[c])
            and not pd.api.types.is_bool_dtype(df[c])
        ]
    ci = f"ci{confidence * 100:g}"
    columns = [*by, "metric", "mean", ci, "n"]
    if df.empty or not metrics:
        return pd.DataFrame(columns=columns)
    numeric = df[[*by, *metrics]].copy()
    numeric[list(metrics)] = numeric[list(metrics)].astype("float64")
    long = numeric.melt(id_vars=list(by), value_vars=list(metrics), var_name="metric")
    keys = [*by, "metric"]
    # Vectorised form of mean_ci: count and std skip NaN exactly as mean_ci does.
    grouped = long.groupby(keys, dropna=False, sort=True)["value"]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    n = out["count"].to_numpy(dtype="float64")
    with np.errstate(invalid="ignore", divide="ignore"):
        tq = np.where(n >= 2, t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1)), np.nan)
        half = tq * out["std"].to_numpy(dtype="float64") / np.sqrt(n)
    out[ci] = np.where(n >= 2, half, np.nan)
    out["n"] = out["count"].astype("int64")
    return out[columns]
