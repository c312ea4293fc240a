"""Seed 000 (SCTP vs TCP-SACK over a GEO satellite bottleneck): Table 2 with eqs. 1-3,
Figs. 3-9."""

from __future__ import annotations

import csv
import math
from itertools import pairwise
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, Row, StudyResult, Table, pyplot, save_figure
from sctplab.reproduce.pool import Point, run_points
from sctplab.reproduce.prose import join, verdict
from sctplab.reproduce.satellite_aqm import LOSSES as AQM_LOSSES
from sctplab.reproduce.satellite_aqm import aqm_experiment
from sctplab.reproduce.satellite_cc import cc_experiment
from sctplab.runner import run
from sctplab.scenario_paths import load_scenario
from sctplab.stats import mean_ci
from sctplab.tables import write_table

LOSSES = [0.008, 0.009, 0.01, 0.015, 0.02, 0.025, 0.03]
# Table 2 as printed: (TCP %, SCTP %, % increase, link utilisation %).
PAPER = {
    0.008: (49.8, 50.2, 6.1, 20.9),
    0.009: (46.7, 53.3, 13.3, 19.0),
    0.01: (43.7, 56.3, 27.6, 17.8),
    0.015: (44.1, 55.9, 25.6, 14.4),
    0.02: (45.8, 54.2, 17.0, 12.4),
    0.025: (46.7, 53.3, 13.3, 10.8),
    0.03: (46.8, 53.2, 12.7, 9.8),
}
BOTTLENECK_BPS = 3e6
SCTP_MTU = 1468.0  # cwnd unit of the SCTP flow (1500 - 32)


def _fmt(m: float, ci: float) -> str:
    return f"{m:.1f}" if math.isnan(ci) else f"{m:.1f} ± {ci:.1f}"


def reproduce(out: Path, quick: bool = False) -> StudyResult:
    out.mkdir(parents=True, exist_ok=True)
    seeds = 3 if quick else 20
    duration = 200.0 if quick else 1000.0
    base = load_scenario("satellite.toml")
    res = StudyResult("satellite", "Seed 000: SCTP vs TCP-SACK over a GEO satellite link")
    res.settings = [
        "Scenario `scenarios/satellite.toml`: L2 = 3 Mb/s, 250 ms, queue 10; 1448-byte "
        "payloads; TCP-SACK without limited transmit; SCTP `original` (RFC 2960).",
        f"{seeds} seeds per loss probability, {duration:.0f} s per run"
        + (" (--quick)." if quick else ", as the paper."),
        "lambda_k = bytes a source sent excluding retransmissions, over the whole run "
        "(the paper's definition; summary.json's `new_bytes_sent`). Eq. 1: "
        "Gamma_k = lambda_k / sum(lambda) x 100; eq. 2: delta = (lambda_sctp - lambda_tcp) "
        "/ lambda_tcp x 100; eq. 3: eta = sum(lambda) / b_2 x 100.",
        "Mean and 95 % Student-t half-width over seeds.",
    ]
    points: list[Point] = [
        (base, {"duration": f"{duration}s", "links.l2.loss.rate": loss}, seed)
        for loss in LOSSES
        for seed in range(1, seeds + 1)
    ]
    summaries = run_points(points)
    per_loss: dict[float, list[dict[str, Any]]] = {}
    for (_, sets, _), s in zip(points, summaries, strict=True):
        per_loss.setdefault(float(sets["links.l2.loss.rate"]), []).append(s)

    table_rows: list[list[str]] = []
    sctp_share: list[tuple[float, float, float]] = []
    for loss in LOSSES:
        g_tcp, g_sctp, delta, eta = [], [], [], []
        for s in per_loss[loss]:
            lt = s["flows"]["tcp"]["new_bytes_sent"]
            ls = s["flows"]["sctp"]["new_bytes_sent"]
            g_tcp.append(100 * lt / (lt + ls))
            g_sctp.append(100 * ls / (lt + ls))
            delta.append(100 * (ls - lt) / lt)
            eta.append(100 * (lt + ls) * 8 / s["sim_time_s"] / BOTTLENECK_BPS)
        p_tcp, p_sctp, p_delta, p_eta = PAPER[loss]
        stats = [mean_ci(x) for x in (g_tcp, g_sctp, delta, eta)]
        for (series, metric, paper), (m, ci, n) in zip(
            [
                ("tcp", "pct_throughput", p_tcp),
                ("sctp", "pct_throughput", p_sctp),
                ("sctp", "pct_increase", p_delta),
                ("both", "link_utilization", p_eta),
            ],
            stats,
            strict=True,
        ):
            res.rows.append(
                Row(
                    "table2",
                    series,
                    "loss",
                    loss,
                    metric,
                    m,
                    None if math.isnan(ci) else ci,
                    n,
                    paper,
                )
            )
        eq2_from_paper = 100 * (p_sctp - p_tcp) / p_tcp
        table_rows.append(
            [
                f"{loss}",
                f"{p_tcp} / {_fmt(*stats[0][:2])}",
                f"{p_sctp} / {_fmt(*stats[1][:2])}",
                f"{p_delta} ({eq2_from_paper:.1f}) / {_fmt(*stats[2][:2])}",
                f"{p_eta} / {_fmt(*stats[3][:2])}",
                f"{stats[1][0] - p_sctp:+.1f}",
            ]
        )
        sctp_share.append((loss, stats[1][0], stats[1][1]))
    md = write_table(
        out,
        "table2",
        [
            "loss",
            "TCP Gamma % (paper / ours)",
            "SCTP Gamma % (paper / ours)",
            "delta % (paper printed (eq. 2 on the paper's columns) / ours)",
            "eta % (paper / ours)",
            "SCTP Gamma: ours - paper",
        ],
        table_rows,
    )
    res.tables.append(Table("Table 2: percentage throughput, increase and link utilisation", md))
    res.figures.append(_fig3(out, sctp_share))
    res.figures += _traced_figures(out, base, duration)
    res.discussion = _discussion(sctp_share, per_loss)
    aqm = aqm_experiment(base, seeds, duration, out)
    res.settings.append(
        "Beyond the seed (no paper value): L2 as drop-tail, RED (ns-2.35's `Queue/RED` "
        "defaults) and CoDel (RFC 8289 defaults), each without and with ECN (both flows "
        "`ecn = true`, the discipline `ecn = true`), at loss "
        + join(f"{x}" for x in AQM_LOSSES)
        + f", the same {seeds} seeds and {duration:.0f} s; queueing delay is L2's "
        "`queue_delay_mean_s` (N2 -> N3)."
    )
    res.rows += aqm.rows
    res.tables.append(aqm.table)
    res.figures.append(aqm.figure)
    res.discussion += aqm.discussion
    cc_losses = LOSSES
    cc = cc_experiment(base, cc_losses, seeds, duration, {x: per_loss[x] for x in cc_losses}, out)
    res.settings.append(
        "Beyond the seed (no paper value): both flows with `congestion_control` = "
        '`"cubic"` (RFC 9438, HyStart++ on) and `"bbr"` (BBR v1, paced), at loss '
        + join(f"{x}" for x in cc_losses)
        + f", the same {seeds} seeds and {duration:.0f} s; the Reno rows are Table 2's runs. "
        "Goodput is summary.json's `goodput_bps` (payload delivered in order)."
    )
    res.rows += cc.rows
    res.tables.append(cc.table)
    res.figures.append(cc.figure)
    res.discussion += cc.discussion
    return res


def _fig3(out: Path, share: list[tuple[float, float, float]]) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [s[0] for s in share]
    ax.errorbar(
        xs,
        [s[1] for s in share],
        yerr=[0 if math.isnan(s[2]) else s[2] for s in share],
        marker="o",
        capsize=3,
        label="sctplab (mean, 95% CI)",
    )
    ax.plot(xs, [PAPER[x][1] for x in xs], marker="s", linestyle="--", label="paper (Table 2)")
    ax.axhline(50, color="grey", linewidth=0.8)
    ax.set_xlabel("loss probability")
    ax.set_ylabel("percentage throughput of SCTP (%)")
    ax.set_title("Fig. 3: percentage throughput of SCTP")
    ax.legend()
    fig.tight_layout()
    png = out / "fig3.png"
    return save_figure(
        fig, png, "Fig. 3: percentage throughput of SCTP vs loss probability", dpi=120
    )


def _traced_figures(out: Path, base: dict[str, Any], duration: float) -> list[Figure]:
    """Figs. 4-9 from one traced run at loss 0.01 (seed 1), as the paper's figures."""
    folder = out / "runs" / "loss0.01-seed1"
    end = min(duration, 300.0)
    run(
        base,
        seed=1,
        set={"duration": f"{end}s", "links.l2.loss.rate": 0.01, "series.interval": "100ms"},
        out=folder,
        trace=["sends", "acks"],
        series=["cwnd", "ssthresh"],
    )
    with (folder / "sends.csv").open() as f:
        sends = list(csv.DictReader(f))
    with (folder / "acks.csv").open() as f:
        acks = list(csv.DictReader(f))
    plt = pyplot()
    figs: list[Figure] = []
    t0, t1 = (100.0, 140.0) if end >= 140 else (end - 40, end)

    # Fig. 4: total throughput (new data of both sources) every 0.1 s.
    bins = [0.0] * int((t1 - t0) * 10)
    for r in sends:
        t = float(r["time_s"])
        if r["kind"] == "new" and t0 <= t < t1:
            bins[int((t - t0) * 10)] += 1448 * 8 / 0.1 / 1e6
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.plot([t0 + i / 10 for i in range(len(bins))], bins, drawstyle="steps-post")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total throughput (Mb/s)")
    ax.set_title("Fig. 4: total throughput every 0.1 s, loss 0.01")
    fig.tight_layout()
    figs.append(
        save_figure(
            fig, out / "fig4.png", "Fig. 4: total throughput (TCP + SCTP) every 0.1 s", dpi=120
        )
    )

    # Fig. 5: sequence plot.
    fig, ax = plt.subplots(figsize=(8, 4))
    for flow, color in (("tcp", "tab:blue"), ("sctp", "tab:red")):
        pts = [
            (float(r["time_s"]), int(r["seq"]))
            for r in sends
            if r["flow"] == flow and t0 <= float(r["time_s"]) < t1
        ]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=2, color=color, label=flow.upper())
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packet number")
    ahead = {
        flow: sum(1 for r in sends if r["flow"] == flow and r["kind"] == "new")
        for flow in ("tcp", "sctp")
    }
    ax.set_title(f"Fig. 5: sequence plot, loss 0.01, one run (seed 1), {t0:g}-{t1:g} s")
    ax.legend(loc="upper left")
    fig.tight_layout()
    figs.append(
        save_figure(
            fig,
            out / "fig5.png",
            f"Fig. 5: packets sent by each source in {t1 - t0:g} s of one run (seed 1, loss "
            f"0.01). Each flow numbers its own packets, so the lines' heights are not their "
            f"shares, and one seed's window can show either source ahead; Table 2 and "
            f"Fig. 3 average whole runs over every seed. In this run's first {end:g} s, "
            f"TCP sent {ahead['tcp']:,} new packets and SCTP {ahead['sctp']:,}.",
            dpi=120,
        )
    )

    # Figs. 6-7: cwnd and ssthresh over the first 300 s, in packets.
    import pandas as pd

    series = pd.read_parquet(folder / "series.parquet")
    for no, flow, unit in ((6, "tcp", 1.0), (7, "sctp", SCTP_MTU)):
        fig, ax = plt.subplots(figsize=(8, 3.5))
        for var in ("cwnd", "ssthresh"):
            s = series[(series["entity"] == flow) & (series["variable"] == var)]
            ax.plot(s["time_s"], s["value"] / unit, label=var, linewidth=0.8)
        ax.set_ylim(0, 50)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.set_title(f"Fig. {no}: cwnd and ssthresh of {flow.upper()}, loss 0.01")
        ax.legend()
        fig.tight_layout()
        figs.append(
            save_figure(
                fig,
                out / f"fig{no}.png",
                f"Fig. {no}: cwnd and ssthresh for {flow.upper()}",
                dpi=120,
            )
        )

    # Figs. 8-9: one fast-retransmit episode of each source after t0.
    for no, flow in ((8, "tcp"), (9, "sctp")):
        rtx = [
            float(r["time_s"])
            for r in sends
            if r["flow"] == flow and r["kind"] == "fast_rtx" and float(r["time_s"]) > t0
        ]
        if not rtx:
            continue
        t = rtx[0]
        fig, ax = plt.subplots(figsize=(7, 4))
        ep = [
            (float(r["time_s"]), int(r["seq"]), r["kind"])
            for r in sends
            if r["flow"] == flow and t - 0.6 <= float(r["time_s"]) <= t + 0.05
        ]
        ax.scatter(
            [p[0] for p in ep if p[2] == "new"],
            [p[1] for p in ep if p[2] == "new"],
            marker="o",
            s=14,
            label="new packet sent",
        )
        ax.scatter(
            [p[0] for p in ep if p[2] != "new"],
            [p[1] for p in ep if p[2] != "new"],
            marker="x",
            s=40,
            color="red",
            label="retransmission",
        )
        ak = [
            (float(r["time_s"]), int(r["cum_ack"]))
            for r in acks
            if r["flow"] == flow and t - 0.6 <= float(r["time_s"]) <= t + 0.05
        ]
        ax.scatter(
            [a[0] for a in ak],
            [a[1] for a in ak],
            marker="|",
            s=30,
            color="grey",
            label="ack received (cumulative)",
        )
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packet number")
        ax.set_title(f"Fig. {no}: {flow.upper()} fast retransmission at t = {t:.4f} s")
        ax.legend(fontsize=8)
        fig.tight_layout()
        figs.append(
            save_figure(
                fig,
                out / f"fig{no}.png",
                f"Fig. {no}: a {flow.upper()} fast-retransmit episode",
                dpi=120,
            )
        )
    return figs


def _discussion(
    share: list[tuple[float, float, float]], per_loss: dict[float, list[dict[str, Any]]]
) -> list[str]:
    out = []
    above = [loss for loss, m, _ in share if m > 50]
    best = max(share, key=lambda s: s[1])
    close = [loss for loss, m, _ in share if abs(m - PAPER[loss][1]) <= 2.0]
    far = [f"{loss} ({m - PAPER[loss][1]:+.1f})" for loss, m, _ in share if loss not in close]
    out.append(
        f"**SCTP's share** (paper: above 50 % at every loss probability, highest, 56.3 %, "
        f"at 0.01). Ours is above 50 % at {len(above)} of {len(share)} loss probabilities "
        f"and highest, {best[1]:.1f} %, at {best[0]}. It is within 2 percentage points of "
        f"Table 2 at {join(close) if close else 'none of them'}"
        + (f", and further at {join(far)} (ours - paper)." if far else ".")
        + " "
        + verdict(
            "holds"
            if len(above) == len(share) and best[0] == 0.01
            else ("partly" if above else "differs")
        )
    )
    if best[0] != 0.01:
        out.append(
            "Why the paper's peak at 0.01 is not reproduced: our SCTP advantage grows "
            "steadily with the loss probability instead. The mechanisms the paper credits "
            "are modelled and checked packet by packet (seed 000 Figs. 8-9 golden tests): "
            "TCP sends nothing on the first two dupacks, SCTP clocks out a packet on each of "
            "the first three and retransmits regardless of cwnd; both matter more the more "
            "often losses occur. The paper used ns-2.1 with an early Delaware SCTP module "
            "whose other settings we cannot recover from the text (RTO.min and timer "
            "granularity of both agents, TCP's minimum RTO, the Max.Burst rule); the peak "
            "may come from one of them. We did not tune any constant to move it."
        )
    util = {
        loss: sum(
            100
            * (s["flows"]["tcp"]["new_bytes_sent"] + s["flows"]["sctp"]["new_bytes_sent"])
            * 8
            / s["sim_time_s"]
            / BOTTLENECK_BPS
            for s in v
        )
        / len(v)
        for loss, v in per_loss.items()
    }
    worst = max(abs(u - PAPER[loss][3]) for loss, u in util.items())
    ordered = [util[loss] for loss in sorted(util)]
    falls = all(a > b for a, b in pairwise(ordered))
    near = sum(abs(u - PAPER[loss][3]) <= 0.25 * PAPER[loss][3] for loss, u in util.items())
    out.append(
        "**Link utilisation** (eq. 3; paper: falls with the loss probability). Ours "
        + ("falls at every step" if falls else "does not fall at every step")
        + f", within {worst:.1f} percentage points of Table 2 at every loss probability: "
        + join(f"{loss}: {u:.1f} % (paper {PAPER[loss][3]})" for loss, u in util.items())
        + ". "
        + verdict("holds" if falls and near == len(util) else ("partly" if near else "differs"))
    )
    out.append(
        "**Eq. 2 in the paper.** The printed percentage increase does not follow from the "
        "printed throughput columns (at 0.008: (50.2 - 49.8) / 49.8 = 0.8 %, printed 6.1 %); "
        "Table 2 above shows both, ours computed per seed from eq. 2."
    )
    return out
