"""Seed 004's figures: TCP and SCTP vs maximum speed (Figs. 1-3 and connect time) with
the paired differences the claims rest on, and the load sweep.

TCP and SCTP are drawn side by side at each x (offset, different markers and line
styles), never on top of each other. Goodput, retransmissions and SACK bandwidth show
the mean and the 95 % Student-t interval over movement scenarios. Connect time is one
handshake per run whose distribution is skewed (most take tens of milliseconds, a
route that breaks during the handshake takes seconds), so a symmetric Student-t interval
would reach below 0 s: it shows the median and the interquartile range on a log axis."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, pyplot, save_figure
from sctplab.stats import finite, mean_ci

STYLE = {
    "tcp": {"color": "tab:blue", "marker": "o", "linestyle": "-", "label": "TCP"},
    "sctp": {"color": "tab:red", "marker": "s", "linestyle": "--", "label": "SCTP"},
}
# Horizontal offset of each transport at a speed (m/s on a linear axis) and at a load
# (a factor on the log2 axis).
SPEED_OFFSET = {"tcp": -0.35, "sctp": 0.35}
LOAD_FACTOR = {"tcp": 2**-0.07, "sctp": 2**0.07}


def mean_bar(vals: list[float], k: float) -> tuple[float, float, float]:
    """(centre, below, above): the mean and its 95 % half-width on both sides."""
    m, ci, _ = mean_ci(finite(vals)) if finite(vals) else (math.nan, math.nan, 0)
    e = 0.0 if math.isnan(ci) else ci * k
    return m * k, e, e


def median_bar(vals: list[float], k: float) -> tuple[float, float, float]:
    """(centre, below, above): the median and the distances to the quartiles."""
    import numpy as np

    v = finite(vals)
    if not v:
        return math.nan, 0.0, 0.0
    q1, med, q3 = (float(x) * k for x in np.percentile(v, [25, 50, 75]))
    return med, med - q1, q3 - med


def _bars(
    ax: Any,
    xs: list[float],
    groups: list[list[float]],
    k: float,
    robust: bool,
    **style: Any,
) -> None:
    stats = [(median_bar if robust else mean_bar)(g, k) for g in groups]
    ax.errorbar(
        xs,
        [c for c, _, _ in stats],
        yerr=[[lo for _, lo, _ in stats], [hi for _, _, hi in stats]],
        capsize=3,
        markersize=5,
        **style,
    )


def mobility_figure(
    out: Path,
    stem: str,
    title: str,
    metric: str,
    label: str,
    k: float,
    speeds: list[int],
    cases: dict[str, str],
    values: Any,
    seeds: int,
    all_acks: Any = None,
) -> Figure:
    """One column per case: TCP and SCTP on top, SCTP - TCP paired by movement below.
    `values(transport, case, speed)` gives one value per movement scenario (seeds in
    order, so TCP's and SCTP's lists pair up); `all_acks`, for SACK bandwidth, TCP's
    bytes of every ack, drawn dotted."""
    plt = pyplot()
    robust = metric == "connect_time_s"
    fig, axes = plt.subplots(
        2,
        len(cases),
        figsize=(4.3 * len(cases), 6.4),
        sharex=True,
        sharey="row",
        gridspec_kw={"height_ratios": [3, 2]},
    )
    for col, (case, case_title) in enumerate(cases.items()):
        top, bottom = axes[0][col], axes[1][col]
        for t in ("tcp", "sctp"):
            xs = [sp + SPEED_OFFSET[t] for sp in speeds]
            _bars(top, xs, [values(t, case, sp) for sp in speeds], k, robust, **STYLE[t])
        if all_acks is not None:
            xs = [sp + 2 * SPEED_OFFSET["tcp"] for sp in speeds]
            _bars(
                top,
                xs,
                [all_acks(case, sp) for sp in speeds],
                k,
                robust,
                color="tab:blue",
                marker="v",
                linestyle=":",
                alpha=0.7,
                label="TCP, all acks",
            )
        diffs = []
        for sp in speeds:
            a, b = values("sctp", case, sp), values("tcp", case, sp)
            diffs.append([x - y for x, y in zip(a, b, strict=True)])
        _bars(
            bottom,
            [float(sp) for sp in speeds],
            diffs,
            k,
            robust,
            color="black",
            marker="D",
            linestyle="none",
            label="SCTP - TCP, paired by movement",
        )
        bottom.axhline(0.0, color="grey", linewidth=0.8)
        top.set_title(case_title)
        if robust or metric == "sack_bytes_per_s":
            top.set_yscale("log")
        if robust:
            bottom.set_yscale("symlog", linthresh=0.01 * k)
        bottom.set_xlabel("maximum speed (m/s)")
        bottom.set_xticks(speeds)
        top.grid(alpha=0.3)
        bottom.grid(alpha=0.3)
    axes[0][0].set_ylabel(label)
    unit = label[label.rfind("(") :] if label.endswith(")") else ""
    axes[1][0].set_ylabel(f"SCTP - TCP {unit}".strip())
    what = (
        "median and interquartile range"
        if robust
        else f"mean and 95 % CI over {seeds} movement scenarios"
    )
    fig.suptitle(f"{title} vs mobility: {what}")
    handles, labels = axes[0][0].get_legend_handles_labels()
    h2, l2 = axes[1][0].get_legend_handles_labels()
    # Above the panels, so no legend covers data.
    fig.legend(handles + h2, labels + l2, loc="upper center", ncol=4, bbox_to_anchor=(0.5, 0.95))
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    png = out / f"{stem}.png"
    fig.savefig(png, dpi=110)
    plt.close(fig)
    note = (
        " Dotted (triangles): TCP's bytes of all acks; every SCTP ack is a SACK."
        if all_acks is not None
        else ""
    )
    spread = (
        "median and interquartile range over movement scenarios, log axis (the handshake "
        "time is skewed: a Student-t interval would reach below 0 s)"
        if robust
        else "mean and 95 % CI over movement scenarios"
    )
    return Figure(
        png,
        f"{title} vs maximum speed, three multihoming/mobility cases"
        + (
            "; the paper's figure is the middle panel (multihoming, mobile)"
            if "Fig." in title
            else ""
        )
        + f". Top: TCP (blue circles, left of each speed) and SCTP (red squares, right), "
        f"{spread}. Bottom: SCTP - TCP, paired by movement scenario (same movement and CBR "
        "pairs), with the same statistic; the grey line is no difference." + note,
    )


def load_figure(
    out: Path,
    rates: list[int],
    speed: int,
    panels: list[tuple[str, str, float]],
    values: Any,
) -> Figure:
    """Goodput, SACK bandwidth, connect time and retransmissions vs CBR load;
    `values(transport, rate, metric)` one value per movement scenario."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.4))
    for ax, (metric, label, k) in zip(axes.flat, panels, strict=True):
        robust = metric == "connect_time_s"
        for t in ("tcp", "sctp"):
            xs = [r * LOAD_FACTOR[t] for r in rates]
            _bars(ax, xs, [values(t, r, metric) for r in rates], k, robust, **STYLE[t])
        ax.set_xlabel("CBR rate per flow (kb/s)")
        ax.set_ylabel(label + (" (median, IQR)" if robust else ""))
        ax.set_xscale("log", base=2)
        ax.set_xticks(rates, [str(r) for r in rates])
        if robust:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 0.95))
    fig.suptitle(f"Load sweep: no multihoming, {speed} m/s, 10 CBR flows")
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    png = out / "load.png"
    return save_figure(
        fig,
        png,
        "Goodput, SACK bandwidth, connect time and retransmissions vs load: TCP (blue "
        "circles, left) and SCTP (red squares, right), mean and 95 % CI over movement "
        "scenarios; connect time median and interquartile range on a log axis",
        dpi=110,
    )
