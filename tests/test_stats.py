"""sctplab.stats against hand-computed Student-t intervals."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from sctplab.stats import aggregate, mean_ci

# [1, 2, 3, 4, 5]: mean 3, s = sqrt(10 / 4) = 1.58114, t(0.975, 4) = 2.77645 (tables),
# half-width = 2.77645 * 1.58114 / sqrt(5) = 1.96324.
# [2, 4]: mean 3, s = sqrt(2) = 1.41421, t(0.975, 1) = 12.7062, half-width
# = 12.7062 * 1.41421 / sqrt(2) = 12.7062.
# [10, 12, 14], 90%: s = 2, t(0.95, 2) = 2.91999, half-width = 2.91999 * 2 / sqrt(3)
# = 3.37171.


def test_mean_ci_five_values() -> None:
    mean, half, n = mean_ci([1, 2, 3, 4, 5])
    assert (mean, n) == (3.0, 5)
    assert half == pytest.approx(1.96324, abs=5e-5)


def test_mean_ci_two_values_and_other_confidence() -> None:
    assert mean_ci([2.0, 4.0]) == pytest.approx((3.0, 12.7062, 2), abs=5e-4)
    assert mean_ci([10, 12, 14], confidence=0.90) == pytest.approx((12.0, 3.37171, 3), abs=5e-5)


def test_mean_ci_small_and_missing() -> None:
    mean, half, n = mean_ci([7.5])
    assert (mean, n) == (7.5, 1) and math.isnan(half)
    mean, half, n = mean_ci([])
    assert n == 0 and math.isnan(mean) and math.isnan(half)
    # NaN (a failed run's metric) is left out, not counted.
    assert mean_ci([1, float("nan"), 2, 3, 4, 5]) == pytest.approx((3.0, 1.96324, 5), abs=5e-5)


def test_aggregate_over_seeds_per_parameter_point() -> None:
    df = pd.DataFrame(
        {
            "rate": [0.01] * 5 + [0.02, 0.02, 0.02],
            "scenario": ["s"] * 8,
            "code_version": ["v"] * 8,
            "seed": [1, 2, 3, 4, 5, 1, 2, 3],
            "status": ["ok"] * 5 + ["ok", "ok", "failed"],
            "goodput": [1, 2, 3, 4, 5, 2, 4, float("nan")],
            "drops": [0, 0, 0, 0, 0, 7, 7, float("nan")],
        }
    )
    df.attrs["parameters"] = ["rate"]
    df.attrs["metrics"] = ["goodput", "drops"]
    out = aggregate(df)
    assert list(out.columns) == ["rate", "scenario", "code_version", "metric", "mean", "ci95", "n"]
    got = {(r.rate, r.metric): (r.mean, r.ci95, r.n) for r in out.itertuples()}
    assert got[(0.01, "goodput")] == pytest.approx((3.0, 1.96324, 5), abs=5e-5)
    assert got[(0.02, "goodput")] == pytest.approx((3.0, 12.7062, 2), abs=5e-4)
    # No spread: half-width 0, not NaN.
    assert got[(0.01, "drops")] == pytest.approx((0.0, 0.0, 5))
    assert len(out) == 4

    one = aggregate(df[df["seed"] == 1], metrics=["goodput"], by=["rate"])
    assert list(one["n"]) == [1, 1] and one["ci95"].isna().all()
    assert list(one["mean"]) == [1.0, 2.0]


def test_aggregate_agrees_with_mean_ci() -> None:
    values = [0.31, 0.35, 0.29, 0.4, 0.33, 0.36]
    df = pd.DataFrame({"p": ["a"] * 6, "m": values})
    [row] = aggregate(df, metrics=["m"], by=["p"]).itertuples()
    assert (row.mean, row.ci95, row.n) == pytest.approx(mean_ci(values), rel=1e-12)
