"""Statistics over seeds: means with Student-t confidence intervals.

The reproductions report `mean`, `ci95` (half-width of the 95% Student-t interval over
seeds, empty when n = 1) and `n` (CONTRACTS.md, data.csv); these helpers compute them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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


# ---- paired and unpaired comparisons, trends (the reproductions' claims)


def _t(df: int) -> float:
    return t_quantile(0.975, df)


def finite(xs: Iterable[float]) -> list[float]:
    """The values that are numbers (NaN marks a failed run or a missing metric)."""
    return [x for x in xs if not math.isnan(x)]


def _sd(xs: list[float]) -> float:
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


N_CAP = 10_000


def n_paired(diffs: list[float]) -> int | None:
    """Scenarios a paired difference of this mean and spread needs for its 95 % interval
    to exclude zero (None: more than N_CAP or no difference)."""
    d = finite(diffs)
    if len(d) < 2:
        return None
    mean, sd = math.fsum(d) / len(d), _sd(d)
    if mean == 0:
        return None
    if sd == 0:
        return 2
    for n in range(2, N_CAP + 1):
        if _t(n - 1) * sd / math.sqrt(n) < abs(mean):
            return n
    return None


def n_unpaired(a: list[float], b: list[float]) -> int | None:
    """Scenarios per group two independent samples of this difference and spread need."""
    a, b = finite(a), finite(b)
    if len(a) < 2 or len(b) < 2:
        return None
    d = abs(math.fsum(a) / len(a) - math.fsum(b) / len(b))
    v = _sd(a) ** 2 + _sd(b) ** 2
    if d == 0:
        return None
    for n in range(2, N_CAP + 1):
        if _t(2 * n - 2) * math.sqrt(v / n) < d:
            return n
    return None


@dataclass
class Paired:
    mean: float
    ci: float
    p: float
    n_needed: int | None

    @property
    def significant(self) -> bool:
        return self.p < 0.05


def paired(a: list[float], b: list[float]) -> Paired:
    """a - b, seed by seed."""
    from scipy.stats import ttest_rel

    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not (math.isnan(x) or math.isnan(y))]
    d = [x - y for x, y in pairs]
    m, ci, n = mean_ci(d)
    if n < 2 or all(v == d[0] for v in d):
        p = 0.0 if n >= 2 and d[0] != 0 else 1.0
    else:
        p = float(ttest_rel([x for x, _ in pairs], [y for _, y in pairs]).pvalue)
    return Paired(m, ci, p, n_paired(d))


def welch_p(a: list[float], b: list[float]) -> float:
    from scipy.stats import ttest_ind

    a, b = finite(a), finite(b)
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if _sd(a) == 0 and _sd(b) == 0:
        return 0.0 if a[0] != b[0] else 1.0
    return float(ttest_ind(a, b, equal_var=False).pvalue)


@dataclass
class Trend:
    slope: float
    p: float
    first: float
    last: float

    def verdict(self, sign: int) -> bool:
        return self.p < 0.05 and self.slope * sign > 0


def trend(xs: list[int], runs: list[list[float]]) -> Trend:
    """Least-squares slope of run-level values on x, its p-value, and the means at the
    first and last x."""
    from scipy.stats import linregress

    pts = [(x, v) for x, vals in zip(xs, runs, strict=True) for v in vals if not math.isnan(v)]
    fit = linregress([p[0] for p in pts], [p[1] for p in pts])
    first, last = (mean_ci(runs[0])[0], mean_ci(runs[-1])[0])
    return Trend(float(fit.slope), float(fit.pvalue), first, last)
