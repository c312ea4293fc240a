"""Figures of `sctplab reproduce leo`: the RTT over time (the 15-s steps) and the
per-protocol bars with their confidence intervals."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sctplab.reproduce.common import Figure, pyplot, save_figure
from sctplab.reproduce.leo_runs import POLICIES, PROTOCOLS, SLOT_S, Config

if TYPE_CHECKING:
    Stats = dict[tuple[str, str, str], tuple[float, float, int]]


def timeline_figure(out: Path, first: dict[Config, dict[str, Any]]) -> Figure:
    """Seed 1: twice the one-way path delay of the TCP (Reno) run and the SCTP run's
    smoothed RTT to its destination, against time since the flow's start."""
    plt = pyplot()
    fig, axes = plt.subplots(len(POLICIES), 1, figsize=(9, 3.2 * len(POLICIES)), sharex=True)
    for ax, policy in zip(axes, POLICIES, strict=True):
        tcp = first[Config("tcp-reno", policy)]
        sctp = first[Config("sctp", policy)]
        t0 = float(tcp["start_s"])
        path = tcp["series"].get("path_delay:flow", [])
        ax.plot(
            [t - t0 for t, _ in path],
            [2e3 * v for _, v in path],
            drawstyle="steps-post",
            label="2 x path_delay (propagation RTT)",
        )
        srtt = sctp["series"].get("srtt:flow@newyork:eth0", [])
        s0 = float(sctp["start_s"])
        ax.plot([t - s0 for t, _ in srtt], [1e3 * v for _, v in srtt], label="SCTP srtt")
        if policy == "slotted":
            end = max((t - t0 for t, _ in path), default=0.0)
            k = math.ceil(t0 / SLOT_S)
            while k * SLOT_S - t0 <= end:
                ax.axvline(k * SLOT_S - t0, color="grey", linewidth=0.6, linestyle=":")
                k += 1
        ax.set_ylabel("ms")
        ax.set_title(f"handover {policy} (seed 1)")
        ax.legend(fontsize=7)
    axes[-1].set_xlabel("time since the flow's start (s); dotted: 15-s slot instants")
    fig.tight_layout()
    png = out / "rtt_timeline.png"
    return save_figure(
        fig,
        png,
        "London to New York, seed 1: the route's propagation RTT (twice `path_delay`) and "
        "SCTP's smoothed RTT over time, slotted 15-s handovers and handovers on loss",
        dpi=120,
    )


def bars_figure(out: Path, stats: Stats) -> Figure:
    plt = pyplot()
    panels = [
        ("goodput_bps", "goodput (Mb/s)", 1e-6),
        ("retransmissions", "retransmissions", 1.0),
        ("handover_drops", "handover drops", 1.0),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(12, 3.8))
    xs = range(len(PROTOCOLS))
    width = 0.8 / len(POLICIES)
    for ax, (metric, label, scale) in zip(axes, panels, strict=True):
        for i, policy in enumerate(POLICIES):
            ms = [stats[(p, policy, metric)] for p in PROTOCOLS]
            ax.bar(
                [x + (i - (len(POLICIES) - 1) / 2) * width for x in xs],
                [m * scale for m, _, _ in ms],
                width,
                yerr=[0.0 if math.isnan(ci) else ci * scale for _, ci, _ in ms],
                capsize=2,
                label=policy,
            )
        ax.set_xticks(list(xs), list(PROTOCOLS), rotation=30, ha="right")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    fig.suptitle("London to New York over the shell (mean, 95 % CI over seeds)")
    fig.tight_layout()
    png = out / "leo_bars.png"
    return save_figure(
        fig,
        png,
        "Goodput, retransmissions and handover drops per series, slotted and on loss",
        dpi=120,
    )
