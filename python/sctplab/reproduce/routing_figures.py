"""The routing study's figures: delivery ratio and overhead against pause time (one panel
per number of sources), the path-optimality histogram, and seed 004's goodput per
routing protocol."""

from __future__ import annotations

import math
from pathlib import Path

from sctplab.reproduce import routing_transports as rt
from sctplab.reproduce.common import Figure, pyplot, save_figure
from sctplab.reproduce.manet_study import TRANSPORTS
from sctplab.reproduce.routing_claims import Study
from sctplab.reproduce.routing_study import PATH_SOURCES, PROTOCOLS, SOURCES
from sctplab.stats import mean_ci


def figures(out: Path, st: Study, tr: rt.Results, t_seeds: int) -> list[Figure]:
    figs = [
        _versus_pause(out, st, "delivery_ratio", "packet delivery ratio", "delivery"),
        _versus_pause(out, st, "routing_packets", "routing packets transmitted", "overhead"),
        _path_histogram(out, st),
    ]
    if tr:
        figs.append(_transports(out, tr, t_seeds))
    return figs


def _versus_pause(out: Path, st: Study, metric: str, label: str, stem: str) -> Figure:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(SOURCES), figsize=(4 * len(SOURCES), 3.6), sharey=True)
    for ax, n in zip(axes, SOURCES, strict=True):
        for p in PROTOCOLS:
            stats = [mean_ci(st.values(p, n, pause, metric)) for pause in st.pauses]
            ax.errorbar(
                st.pauses,
                [s[0] for s in stats],
                yerr=[0.0 if math.isnan(s[1]) else s[1] for s in stats],
                marker="o",
                markersize=3,
                capsize=2,
                label=p.upper(),
            )
        ax.set_title(f"{n} sources")
        ax.set_xlabel("pause time (s)")
    axes[0].set_ylabel(label)
    axes[0].legend()
    fig.suptitle(f"{label.capitalize()} vs pause time (50 nodes, 1500 m x 300 m, 20 m/s)")
    fig.tight_layout()
    png = out / f"{stem}.png"
    return save_figure(
        fig, png, f"{label.capitalize()} vs pause time per protocol, mean ± 95 % CI", dpi=110
    )


def _path_histogram(out: Path, st: Study) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / len(PROTOCOLS)
    for i, p in enumerate(PROTOCOLS):
        hist, _ = st.path_histogram(p)
        total = sum(hist.values()) or 1
        xs = sorted(hist)
        ax.bar(
            [x - 0.4 + width * (i + 0.5) for x in xs],
            [100 * hist[x] / total for x in xs],
            width=width,
            label=p.upper(),
        )
    ax.set_xlabel("hops taken - shortest path's hops at send time")
    ax.set_ylabel("delivered packets (%)")
    ax.set_title(f"Path optimality, {PATH_SOURCES} sources, all pause times")
    ax.legend()
    fig.tight_layout()
    png = out / "path_optimality.png"
    return save_figure(
        fig, png, "Path optimality: extra hops of the delivered packets per protocol", dpi=110
    )


def _transports(out: Path, tr: rt.Results, seeds: int) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    width = 0.8 / len(TRANSPORTS)
    for i, t in enumerate(TRANSPORTS):
        stats = [
            mean_ci([v / 1e3 for v in rt.per_seed(tr, p, t, "goodput_bps", seeds)])
            for p in PROTOCOLS
        ]
        ax.bar(
            [k - 0.4 + width * (i + 0.5) for k in range(len(PROTOCOLS))],
            [s[0] for s in stats],
            yerr=[0.0 if math.isnan(s[1]) else s[1] for s in stats],
            width=width,
            capsize=3,
            label=t.upper(),
        )
    ax.set_xticks(range(len(PROTOCOLS)), [p.upper() for p in PROTOCOLS])
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Seed 004 (10 m/s, no multihoming) under each routing protocol")
    ax.legend()
    fig.tight_layout()
    png = out / "transport_goodput.png"
    return save_figure(
        fig, png, "Seed 004's TCP and SCTP goodput per routing protocol, mean ± 95 % CI", dpi=110
    )
