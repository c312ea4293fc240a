"""The transports study's tables (Markdown and CSV) and figures (PNG)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, Table, pyplot, save_figure
from sctplab.reproduce.transports_plan import (
    CUBIC_PROTOCOLS,
    KIB,
    MANET_SPEED,
    Results,
    Stat,
    cubic_series,
)
from sctplab.reproduce.transports_runs import PROTOCOLS, CubicKey, SatKey
from sctplab.tables import write_table

COLORS = {"tcp": "tab:blue", "sctp": "tab:red", "quic": "tab:green"}


def pm(s: Stat, scale: float = 1.0, digits: int = 2) -> str:
    m, ci, n = s
    if n == 0:
        return "none"
    if math.isnan(ci):
        return f"{m * scale:.{digits}f}"
    return f"{m * scale:.{digits}f} ± {ci * scale:.{digits}f}"


def tables(out: Path, res: Results) -> list[Table]:
    plan = res.plan
    bufs = [f"B = {b // KIB} KiB" for b in plan.buffers]
    goodput = [
        [p, f"{100 * loss:g}"]
        + [pm(res.sat[(SatKey(p, loss, b), "goodput_bps")], 1e-3, 0) for b in plan.buffers]
        for p in PROTOCOLS
        for loss in plan.losses
    ]
    md_g = write_table(out, "satellite_goodput", ["protocol", "loss %", *bufs], goodput)
    delay = [
        [p, f"{100 * loss:g}"]
        + [
            f"{pm(res.sat[(SatKey(p, loss, b), 'message_delay_mean_s')], 1e3, 0)} / "
            f"{pm(res.sat[(SatKey(p, loss, b), 'message_delay_p99_s')], 1e3, 0)}"
            for b in plan.buffers
        ]
        for p in ("sctp", "quic")
        for loss in plan.losses
    ]
    md_d = write_table(out, "satellite_delay", ["protocol", "loss %", *bufs], delay)
    cubic = [
        [f"{100 * loss:g}", cubic_series(p)]
        + [
            pm(res.cubic[(CubicKey(p, loss), m)], scale, d)
            for m, scale, d in (
                ("goodput_bps", 1e-3, 0),
                ("payload_bytes_per_data_packet", 1.0, 0),
                ("ack_packets_per_data_packet", 1.0, 3),
                ("repairs_per_data_packet", 100.0, 2),
                ("queue_delay_mean_s", 1e3, 0),
            )
        ]
        for loss in plan.cubic_losses
        for p in CUBIC_PROTOCOLS
    ]
    md_c = write_table(
        out,
        "cubic_check",
        [
            "loss %",
            "series",
            "goodput (kb/s)",
            "payload B per data packet",
            "acks per data packet",
            "loss repairs per 100 data packets",
            "L1 queue delay (ms)",
        ],
        cubic,
    )
    manet = [
        [p]
        + [
            pm(res.manet[(p, m)], scale, d)
            for m, scale, d in (
                ("goodput_bps", 1e-3, 1),
                ("repairs", 1.0, 0),
                ("ack_bytes_per_s", 1.0, 0),
                ("ack_packets_per_data_packet", 1.0, 3),
                ("bytes_per_ack", 1.0, 1),
                ("ack_bytes_per_data_packet", 1.0, 1),
            )
        ]
        for p in PROTOCOLS
    ]
    md_m = write_table(
        out,
        "manet",
        [
            "protocol",
            "goodput (kb/s)",
            "loss repairs",
            "ack bytes/s",
            "acks per data packet",
            "bytes per ack",
            "ack bytes per data packet",
        ],
        manet,
    )
    return [
        Table("Satellite: goodput (kb/s), mean ± 95 % CI over seeds", md_g),
        Table(
            "Satellite: message delay of the paced streams, mean / worst stream's 99th "
            "percentile (ms), each ± 95 % CI",
            md_d,
        ),
        Table(
            "CUBIC check: QUIC's CUBIC (quinn) and TCP's CUBIC on the lossy satellite path, "
            "bulk transfer (loss repairs: TCP retransmitted packets, QUIC packets declared "
            "lost)",
            md_c,
        ),
        Table(
            f"MANET (seed 004, {MANET_SPEED} m/s, 16 kb/s CBR pairs): goodput, loss repairs "
            "(TCP and SCTP retransmitted data packets, QUIC packets declared lost) and the "
            "receiver's ack bandwidth",
            md_m,
        ),
    ]


def _err(s: Stat) -> float:
    return 0.0 if math.isnan(s[1]) else s[1]


def _sat_figure(out: Path, res: Results, metric: str, protocols: list[str]) -> Any:
    plt = pyplot()
    plan = res.plan
    fig, axes = plt.subplots(1, len(plan.losses), figsize=(3.2 * len(plan.losses), 3.4))
    xs = [b / KIB for b in plan.buffers]
    for ax, loss in zip(axes, plan.losses, strict=True):
        for p in protocols:
            ys = [res.sat[(SatKey(p, loss, b), metric)] for b in plan.buffers]
            scale = 1e-3 if metric == "goodput_bps" else 1.0
            ax.errorbar(
                xs,
                [y[0] * scale for y in ys],
                yerr=[_err(y) * scale for y in ys],
                marker="o",
                markersize=3,
                capsize=2,
                color=COLORS[p],
                label=p,
            )
        ax.set_xscale("log", base=2)
        ax.set_title(f"loss {100 * loss:g} %", fontsize=9)
        ax.set_xlabel("receive buffer (KiB)")
    axes[0].set_ylabel("goodput (kb/s)" if metric == "goodput_bps" else "mean delay (s)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def figures(out: Path, res: Results) -> list[Figure]:
    figs: list[Figure] = []
    fig = _sat_figure(out, res, "goodput_bps", PROTOCOLS)
    png = out / "satellite_goodput.png"
    figs.append(
        save_figure(
            fig, png, "Satellite path: goodput against the receive buffer, per loss rate", dpi=110
        )
    )
    fig = _sat_figure(out, res, "message_delay_mean_s", ["sctp", "quic"])
    png = out / "satellite_delay.png"
    figs.append(
        save_figure(
            fig,
            png,
            "Satellite path: mean delay of the paced streams' 1000-byte messages against "
            "the receive buffer, per loss rate",
            dpi=110,
        )
    )
    figs.append(_manet_figure(out, res))
    return figs


def _manet_figure(out: Path, res: Results) -> Figure:
    plt = pyplot()
    panels = [
        ("goodput_bps", "goodput (kb/s)", 1e-3),
        ("repairs", "loss repairs", 1.0),
        ("ack_bytes_per_s", "ack bytes/s", 1.0),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(9, 3.2))
    for ax, (metric, label, scale) in zip(axes, panels, strict=True):
        stats = [res.manet[(p, metric)] for p in PROTOCOLS]
        ax.bar(
            PROTOCOLS,
            [s[0] * scale for s in stats],
            yerr=[_err(s) * scale for s in stats],
            color=[COLORS[p] for p in PROTOCOLS],
            capsize=3,
        )
        ax.set_title(label, fontsize=9)
    fig.tight_layout()
    png = out / "manet.png"
    return save_figure(
        fig,
        png,
        "Seed 004's MANET: goodput, loss repairs and the receiver's ack bandwidth per "
        "protocol (mean and 95 % CI over seeds)",
        dpi=110,
    )
