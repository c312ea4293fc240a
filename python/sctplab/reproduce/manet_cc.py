"""Beyond seed 004: TCP-SACK (the study's TCP runs) against TCP-CUBIC and SCTP-CUBIC on its
network (`sh-mobile`, every maximum speed, CBR at the study's base rate), paired by movement
scenario (issue 33 item 5). The paper has no such experiment, so its rows carry no paper
value."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, Row, Table, pyplot, save_figure
from sctplab.reproduce.manet_format import cell, p_text
from sctplab.reproduce.manet_runs import Todo
from sctplab.reproduce.manet_study import BASE_RATE, SCALE, SPEEDS, Key, Study, metrics, sets_for
from sctplab.reproduce.prose import join
from sctplab.stats import mean_ci, paired
from sctplab.tables import write_table

ITEM = "cc"
CASE = "sh-mobile"
# data.csv series -> (transport, congestion_control or None for the study's own runs).
SERIES: dict[str, tuple[str, str | None]] = {
    "tcp-sack": ("tcp", None),
    "tcp-cubic": ("tcp", "cubic"),
    "sctp-cubic": ("sctp", "cubic"),
}
CC_METRICS = {"goodput_bps": "goodput (kb/s)", "retransmissions": "retransmitted data packets"}


def todo(seeds: int, end_s: float) -> list[Todo]:
    """The runs the study does not already have: the CUBIC series at every speed."""
    out: list[Todo] = []
    for seed in range(1, seeds + 1):
        for name, (transport, cc) in SERIES.items():
            if cc is None:
                continue
            for sp in SPEEDS:
                key = Key(transport, CASE, sp, BASE_RATE, seed)
                sets = {**sets_for(key, end_s), "flows.transport.congestion_control": cc}
                out.append(((ITEM, name, sp, seed), transport, sets, seed))
    return out


Runs = dict[Any, dict[str, Any]]


def values(st: Study, runs: Runs, name: str, speed: int, metric: str) -> list[float]:
    """One value per movement scenario, seeds in order (so the series pair up)."""
    transport, cc = SERIES[name]
    if cc is None:
        return st.mobility(transport, CASE, speed, metric)
    return [
        metrics(runs[(ITEM, name, speed, s)], st.window_s)[metric] for s in range(1, st.seeds + 1)
    ]


def rows(st: Study, runs: Runs) -> list[Row]:
    out: list[Row] = []
    for name in SERIES:
        for sp in SPEEDS:
            for metric in CC_METRICS:
                m, ci, n = mean_ci(values(st, runs, name, sp, metric))
                out.append(
                    Row(ITEM, name, "max_speed", sp, metric, m, None if math.isnan(ci) else ci, n)
                )
    return out


def table(out: Path, st: Study, runs: Runs) -> Table:
    header = ["max speed (m/s)"] + [
        f"{name} {label.split(' (')[0]}" for metric, label in CC_METRICS.items() for name in SERIES
    ]
    body = [
        [
            str(sp),
            *[
                cell(
                    values(st, runs, name, sp, metric), metric, 1 if metric == "goodput_bps" else 0
                )
                for metric in CC_METRICS
                for name in SERIES
            ],
        ]
        for sp in SPEEDS
    ]
    md = write_table(out, "cc", header, body)
    return Table(
        f"Beyond the seed: TCP-SACK, TCP-CUBIC and SCTP-CUBIC (`{CASE}`, CBR {BASE_RATE} kb/s "
        f"per flow), goodput (kb/s) and retransmitted data packets, {st.seeds} scenarios, "
        "mean ± 95 % CI",
        md,
    )


def figure(out: Path, st: Study, runs: Runs) -> Figure:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(CC_METRICS), figsize=(11, 4))
    offset = {name: (i - 1) * 0.3 for i, name in enumerate(SERIES)}
    for ax, (metric, label) in zip(axes, CC_METRICS.items(), strict=True):
        k = SCALE.get(metric, 1.0)
        for name in SERIES:
            stats = [mean_ci(values(st, runs, name, sp, metric)) for sp in SPEEDS]
            ax.errorbar(
                [sp + offset[name] for sp in SPEEDS],
                [m * k for m, _, _ in stats],
                yerr=[0 if math.isnan(ci) else ci * k for _, ci, _ in stats],
                marker="o",
                capsize=3,
                label=name,
            )
        ax.set_xlabel("maximum speed (m/s)")
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    fig.suptitle(f"Beyond the seed: CUBIC on seed 004's MANET, `{CASE}` (mean, 95% CI)")
    fig.tight_layout()
    png = out / "cc.png"
    return save_figure(
        fig,
        png,
        "Beyond the seed: goodput and retransmissions of TCP-SACK, TCP-CUBIC and SCTP-CUBIC "
        "vs maximum speed",
        dpi=120,
    )


def _pair_text(st: Study, runs: Runs, a: str, b: str, sctp_reno: bool = False) -> str:
    """a - b paired by movement scenario at each speed, and where the difference is clear."""

    def vals(name: str, sp: int) -> list[float]:
        if sctp_reno and name == "sctp-reno":
            return st.mobility("sctp", CASE, sp, "goodput_bps")
        return values(st, runs, name, sp, "goodput_bps")

    diffs = [(sp, paired(vals(a, sp), vals(b, sp))) for sp in SPEEDS]
    clear = [f"{sp} m/s ({p_text(d.p)})" for sp, d in diffs if d.p < 0.05]
    return (
        f"{a} - {b}: "
        + join(f"{d.mean / 1e3:+.1f} ± {d.ci / 1e3:.1f} kb/s at {sp} m/s" for sp, d in diffs)
        + (
            f"; different at the 5 % level at {join(clear)}"
            if clear
            else "; at no speed different at the 5 % level"
        )
    )


def discussion(st: Study, runs: Runs) -> str:
    def mean(name: str, sp: int, metric: str) -> float:
        return mean_ci(values(st, runs, name, sp, metric))[0]

    rtx_more = [
        sp
        for sp in SPEEDS
        if mean("tcp-cubic", sp, "retransmissions") > mean("tcp-sack", sp, "retransmissions")
    ]
    return (
        "**Beyond the seed: CUBIC on the MANET** (no paper value: the paper ran TCP-SACK "
        f"and SCTP with Reno-style windows; `{CASE}`, CBR {BASE_RATE} kb/s per flow, "
        f"{st.seeds} movement scenarios per speed, differences paired by scenario, mean ± 95 % "
        "CI). Goodput, "
        + _pair_text(st, runs, "tcp-cubic", "tcp-sack")
        + ". "
        + _pair_text(st, runs, "sctp-cubic", "tcp-cubic")
        + ". Against the study's own SCTP (Reno-style, `sctp-sh-mobile`): "
        + _pair_text(st, runs, "sctp-cubic", "sctp-reno", sctp_reno=True)
        + f". TCP-CUBIC retransmits more data packets than TCP-SACK at {len(rtx_more)} of "
        f"{len(SPEEDS)} speeds"
        + (f" ({join(f'{sp} m/s' for sp in rtx_more)})" if rtx_more else "")
        + "."
    )
