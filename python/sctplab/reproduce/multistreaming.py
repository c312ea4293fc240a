"""Seed 001 (SCTP multistreaming over satellite links): goodput vs receive buffer and
error rate for one and four streams (Figs. 4, 6, 10, 11), a_rwnd and cwnd over time
(Figs. 7, 8, 12), and the optimal receive buffer (Fig. 13)."""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Figure, Row, StudyResult, Table, pyplot, save_figure
from sctplab.reproduce.pool import Point, run_points
from sctplab.reproduce.prose import by_count, by_number, num, verdict
from sctplab.runner import run
from sctplab.scenario_paths import load_scenario
from sctplab.stats import mean_ci
from sctplab.tables import write_table

ERRORS = [0.0, 0.01, 0.03, 0.05]
STREAMS = [1, 4]
BUFFERS_KIB = [4, 6, 8, 10, 12, 15, 18, 21, 25, 30, 35, 40, 50, 64]
PAYLOAD = 1452
# Plateau criterion for the optimal buffer (sec. III: "the smallest amount of receiver
# buffer for which the goodput is independent of the receiver buffer size"): the
# smallest B whose mean goodput is within 2 % of the goodput at the largest B.
PLATEAU = 0.98


def goodput_bps(summary: dict[str, Any]) -> float:
    """Seed 001's goodput: the highest TSN that reached the sink, in bits per second."""
    f = summary["flows"]["sctp"]
    return float(f["highest_tsn"] * PAYLOAD * 8 / summary["sim_time_s"])


def _series(s: int, e: float) -> str:
    return f"s{s}_e{e:g}"


def reproduce(out: Path, quick: bool = False) -> StudyResult:
    out.mkdir(parents=True, exist_ok=True)
    seeds = 3 if quick else 10
    duration = 100.0 if quick else 300.0
    base = load_scenario("multistreaming.toml")
    res = StudyResult("multistreaming", "Seed 001: SCTP multistreaming over satellite links")
    res.settings = [
        "Scenario `scenarios/multistreaming.toml`: L1 = (5 Mb/s, 130 ms), L2 = (10 Mb/s, "
        "130 ms, error e2 on data packets), queues that never overflow; SCTP `ns2` preset "
        "(ns-2.35's Agent/SCTP defaults, delayed SACKs on), 1452-byte messages (one "
        "chunk fills a 1500-byte packet).",
        f"Run length {duration:.0f} s (the paper gives none), {seeds} seeds per point"
        + (" (--quick)." if quick else "."),
        "Goodput as the paper defines it: highest TSN received x 1452 B x 8 / run length.",
        f"Optimal buffer: the smallest B whose mean goodput is within {100 * (1 - PLATEAU):.0f} % "
        "of the goodput at the largest B (64 KiB).",
    ]
    points: list[Point] = []
    keys: list[tuple[int, float, int]] = []
    for s in STREAMS:
        for e in ERRORS:
            for b in BUFFERS_KIB:
                for seed in range(1, (1 if e == 0 else seeds) + 1):
                    sets = {
                        "duration": f"{duration}s",
                        "flows.sctp.streams": s,
                        "links.l2.loss.rate": e,
                        "flows.sctp.receive_buffer": f"{b}KiB",
                    }
                    points.append((base, sets, seed))
                    keys.append((s, e, b))
    summaries = run_points(points)
    gp: dict[tuple[int, float, int], list[float]] = {}
    for k, summ in zip(keys, summaries, strict=True):
        gp.setdefault(k, []).append(goodput_bps(summ))
    means: dict[tuple[int, float, int], float] = {}
    for (s, e, b), vals in sorted(gp.items()):
        m, ci, n = mean_ci(vals)
        means[(s, e, b)] = m
        res.rows.append(
            Row(
                "goodput_vs_buffer",
                _series(s, e),
                "buffer_bytes",
                b * 1024,
                "goodput_bps",
                m,
                None if math.isnan(ci) else ci,
                n,
            )
        )
    for s in STREAMS:
        for e in ERRORS:
            m, ci, n = mean_ci(gp[(s, e, 15)])
            res.rows.append(
                Row(
                    "goodput_vs_error",
                    f"s{s}",
                    "error_rate",
                    e,
                    "goodput_bps",
                    m,
                    None if math.isnan(ci) else ci,
                    n,
                )
            )
    optimal: dict[tuple[int, float], int] = {}
    for s in STREAMS:
        for e in ERRORS[1:]:
            plateau = means[(s, e, BUFFERS_KIB[-1])]
            b_opt = next(b for b in BUFFERS_KIB if means[(s, e, b)] >= PLATEAU * plateau)
            optimal[(s, e)] = b_opt * 1024
            res.rows.append(
                Row(
                    "optimal_buffer",
                    f"s{s}",
                    "error_rate",
                    e,
                    "buffer_bytes",
                    b_opt * 1024,
                    None,
                    1,
                )
            )

    res.figures += _figures(out, means, gp, optimal)
    time_figs, below_mtu = _time_figures(out, base, duration)
    res.figures += time_figs
    tbl = [
        [
            f"{e:g}",
            f"{optimal[(1, e)]}",
            f"{optimal[(4, e)]}",
            f"{100 * (1 - optimal[(4, e)] / optimal[(1, e)]):.0f} %",
        ]
        for e in ERRORS[1:]
    ]
    md = write_table(
        out, "optimal_buffer", ["e2", "B_opt s=1 (bytes)", "B_opt s=4 (bytes)", "saving"], tbl
    )
    res.tables.append(
        Table("Fig. 13 as a table: optimal receive buffer (paper: ~35 % saving at 1 %)", md)
    )
    gain = [
        [
            f"{e:g}",
            _pm(gp[(1, e, 15)]),
            _pm(gp[(4, e, 15)]),
            f"{100 * (means[(4, e, 15)] / means[(1, e, 15)] - 1):+.1f} %",
        ]
        for e in ERRORS
    ]
    md = write_table(out, "goodput_15k", ["e2", "s=1 (b/s)", "s=4 (b/s)", "s=4 over s=1"], gain)
    res.tables.append(
        Table(
            "Fig. 11 as a table: goodput at B = 15 KiB, mean ± 95 % CI (paper: ~10 % gain at 3 %)",
            md,
        )
    )
    # The numbers the paper prints (sec. IV): "about 10% increase" at 3 % with B = 15K,
    # "a saving of about 35% of receiver buffer space" at 1 %. The gain is paired by seed
    # (one and four streams see the same seeds); the saving comes from the optimal
    # buffers, which are read off the mean curves (one value, no interval).
    for e in ERRORS[1:]:
        pairs = zip(gp[(1, e, 15)], gp[(4, e, 15)], strict=True)
        m, ci, n = mean_ci([100 * (g4 / g1 - 1) for g1, g4 in pairs])
        res.rows.append(
            Row(
                "stream_gain",
                "s4",
                "error_rate",
                e,
                "percent",
                m,
                None if math.isnan(ci) else ci,
                n,
                10.0 if e == 0.03 else None,
            )
        )
        res.rows.append(
            Row(
                "buffer_saving",
                "s4",
                "error_rate",
                e,
                "percent",
                100 * (1 - optimal[(4, e)] / optimal[(1, e)]),
                None,
                1,
                35.0 if e == 0.01 else None,
            )
        )
    gains = [r for r in res.rows if r.item == "stream_gain" and r.x == 0.03]
    gain3 = (gains[0].mean, math.nan if gains[0].ci95 is None else gains[0].ci95)
    res.discussion = _discussion(means, optimal, below_mtu, gain3)
    return res


def _pm(values: list[float]) -> str:
    m, ci, _ = mean_ci(values)
    return f"{m:.0f}" if math.isnan(ci) else f"{m:.0f} ± {ci:.0f}"


def _save(fig: Any, png: Path, caption: str) -> Figure:
    fig.tight_layout()
    return save_figure(fig, png, caption, dpi=120)


def _figures(
    out: Path,
    means: dict[tuple[int, float, int], float],
    gp: dict[tuple[int, float, int], list[float]],
    optimal: dict[tuple[int, float], int],
) -> list[Figure]:
    plt = pyplot()
    figs = []
    xs = [b * 1024 for b in BUFFERS_KIB]
    kb = [x / 1024 for x in xs]

    def curve(ax: Any, s: int, e: float, **kw: Any) -> None:
        ys = [means[(s, e, b)] / 1e3 for b in BUFFERS_KIB]
        ax.plot(kb, ys, marker="o", markersize=3, **kw)

    fig, ax = plt.subplots(figsize=(7, 4))
    curve(ax, 4, 0.0, label="s = 4, e2 = 0")
    ax.set_xlabel("receive buffer B (KiB)")
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Fig. 4: goodput vs receive buffer, no error, s = 4")
    ax.legend()
    figs.append(_save(fig, out / "fig4.png", "Fig. 4: goodput vs B without errors"))

    fig, ax = plt.subplots(figsize=(7, 4))
    for e in ERRORS[1:]:
        curve(ax, 4, e, label=f"s = 4, e2 = {e:g}")
    ax.set_xlabel("receive buffer B (KiB)")
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Fig. 6: goodput vs receive buffer, s = 4")
    ax.legend()
    figs.append(_save(fig, out / "fig6.png", "Fig. 6: goodput vs B for several error rates, s = 4"))

    fig, ax = plt.subplots(figsize=(7, 4))
    for e in (0.01, 0.05):
        for s, style in ((1, "--"), (4, "-")):
            curve(ax, s, e, linestyle=style, label=f"s = {s}, e2 = {e:g}")
    ax.set_xlabel("receive buffer B (KiB)")
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Fig. 10: goodput vs receive buffer, one and four streams")
    ax.legend()
    figs.append(_save(fig, out / "fig10.png", "Fig. 10: one vs four streams"))

    fig, ax = plt.subplots(figsize=(7, 4))
    for s in STREAMS:
        ys, cis = [], []
        for e in ERRORS:
            m, ci, _ = mean_ci(gp[(s, e, 15)])
            ys.append(m / 1e3)
            cis.append(0.0 if math.isnan(ci) else ci / 1e3)
        ax.errorbar(
            [e * 100 for e in ERRORS], ys, yerr=cis, marker="o", capsize=3, label=f"s = {s}"
        )
    # The paper's number for this figure: four streams about 10 % above one at 3 %.
    base3 = means[(1, 0.03, 15)] / 1e3
    ax.plot(
        [3.0],
        [1.10 * base3],
        marker="*",
        markersize=14,
        color="black",
        linestyle="none",
        label="paper: s = 4 about 10 % above s = 1 at 3 %",
    )
    ax.set_xlabel("error rate e2 (%)")
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Fig. 11: goodput vs error rate, B = 15 KiB")
    ax.legend(loc="upper right", fontsize=8)
    figs.append(
        _save(
            fig,
            out / "fig11.png",
            "Fig. 11: goodput vs error rate at B = 15 KiB; the star is the paper's value "
            "(four streams about 10 % above our one-stream mean at 3 %)",
        )
    )

    fig, ax = plt.subplots(figsize=(7, 4))
    for s in STREAMS:
        ax.plot(
            [e * 100 for e in ERRORS[1:]],
            [optimal[(s, e)] / 1024 for e in ERRORS[1:]],
            marker="o",
            label=f"s = {s}",
        )
    # The paper's number for this figure: four streams need about 35 % less at 1 %.
    ax.plot(
        [1.0],
        [0.65 * optimal[(1, 0.01)] / 1024],
        marker="*",
        markersize=14,
        color="black",
        linestyle="none",
        label="paper: s = 4 about 35 % below s = 1 at 1 %",
    )
    ax.set_xlabel("error rate e2 (%)")
    ax.set_ylabel("optimal receive buffer (KiB)")
    ax.set_title("Fig. 13: optimal receive buffer vs error rate")
    ax.legend(loc="best", fontsize=8)
    figs.append(
        _save(
            fig,
            out / "fig13.png",
            "Fig. 13: optimal receive buffer; the star is the paper's value (four streams "
            "about 35 % below our one-stream optimum at 1 %)",
        )
    )
    return figs


def _time_figures(
    out: Path, base: dict[str, Any], duration: float
) -> tuple[list[Figure], dict[int, tuple[float, float]]]:
    """Figs. 7, 8 and 12, and for Fig. 12 per stream count the share of the time a_rwnd
    is below one MTU (1500 B, the paper's threshold) and its minimum."""
    import pandas as pd

    plt = pyplot()
    figs = []
    end = min(duration, 100.0)
    cases = [
        (7, 4, 0.01, 15, "Fig. 7: cwnd and a_rwnd, s = 4, e2 = 1 %, B = 15 KiB"),
        (8, 4, 0.01, 35, "Fig. 8: cwnd and a_rwnd, s = 4, e2 = 1 %, B = 35 KiB"),
    ]
    for no, s, e, b, title in cases:
        folder = out / "runs" / f"fig{no}"
        run(
            base,
            seed=1,
            set={
                "duration": f"{end}s",
                "flows.sctp.streams": s,
                "links.l2.loss.rate": e,
                "flows.sctp.receive_buffer": f"{b}KiB",
                "series.interval": "50ms",
            },
            out=folder,
            series=["cwnd", "a_rwnd"],
        )
        df = pd.read_parquet(folder / "series.parquet")
        fig, ax = plt.subplots(figsize=(8, 3.5))
        for var in ("cwnd", "a_rwnd"):
            d = df[df["variable"] == var]
            ax.plot(d["time_s"], d["value"] / 1024, label=var, linewidth=0.8)
        ax.axhline(1500 / 1024, color="grey", linewidth=0.6, linestyle=":", label="one MTU")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("KiB")
        ax.set_title(title)
        ax.legend(fontsize=8)
        figs.append(_save(fig, out / f"fig{no}.png", title))
    below: dict[int, tuple[float, float]] = {}
    fig, ax = plt.subplots(figsize=(8, 3.5))
    for s in STREAMS:
        folder = out / "runs" / f"fig12-s{s}"
        run(
            base,
            seed=1,
            set={
                "duration": f"{end}s",
                "flows.sctp.streams": s,
                "links.l2.loss.rate": 0.05,
                "flows.sctp.receive_buffer": "15KiB",
                "series.interval": "10ms",
            },
            out=folder,
            series=["a_rwnd"],
        )
        df = pd.read_parquet(folder / "series.parquet")
        below[s] = (float((df["value"] < 1500).mean()), float(df["value"].min()))
        ax.plot(df["time_s"], df["value"] / 1024, label=f"s = {s}", linewidth=0.8)
    ax.axhline(1500 / 1024, color="grey", linewidth=0.6, linestyle=":", label="one MTU")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("a_rwnd (KiB)")
    ax.set_title("Fig. 12: advertised receive window, e2 = 5 %, B = 15 KiB")
    ax.legend(fontsize=8)
    figs.append(_save(fig, out / "fig12.png", "Fig. 12: a_rwnd for one and four streams"))
    return figs, below


def _discussion(
    means: dict[tuple[int, float, int], float],
    optimal: dict[tuple[int, float], int],
    below_mtu: dict[int, tuple[float, float]],
    gain3: tuple[float, float],
) -> list[str]:
    out = []
    no_err = [means[(1, 0.0, b)] == means[(4, 0.0, b)] for b in BUFFERS_KIB]
    rising = all(means[(4, 0.0, a)] <= means[(4, 0.0, b)] for a, b in pairwise(BUFFERS_KIB))
    out.append(
        "**No errors** (paper: goodput grows with B, one burst of floor(B/MTU) packets per "
        "RTT, the same for any number of streams). Ours: goodput "
        + ("rises with B" if rising else "does not always rise with B")
        + f" and is identical for one and four streams at {sum(no_err)} of {len(no_err)}"
        " buffer sizes. "
        + verdict(by_count(sum(no_err) + (len(no_err) if rising else 0), 2 * len(no_err)))
    )
    saving = 100 * (1 - optimal[(4, 0.01)] / optimal[(1, 0.01)])
    out.append(
        f"**Optimal buffer at 1 %** (paper: four streams save about 35 %). Ours: "
        f"{num(optimal[(1, 0.01)])} B with one stream, {num(optimal[(4, 0.01)])} B with "
        f"four: a {saving:.0f} % saving (criterion and buffer grid stated above; the grid's "
        "resolution limits how finely the saving can be measured). "
        + verdict(by_number(saving, 35.0))
    )
    g, ci = gain3
    out.append(
        f"**Gain of four streams at 3 %, B = 15 KiB** (paper: about 10 %). Ours: {g:+.1f} %"
        + ("" if math.isnan(ci) else f" ± {ci:.1f} (95 % interval of the per-seed gains)")
        + ". "
        + verdict(by_number(g, 10.0, None if math.isnan(ci) else ci))
    )
    (f1, min1), (f4, min4) = below_mtu[1], below_mtu[4]
    out.append(
        "**a_rwnd below one MTU** (Fig. 12, e2 = 5 %, B = 15 KiB; paper: with one stream "
        "a_rwnd frequently falls below 1500 bytes, with four less often). Ours, sampled "
        f"every 10 ms over the first 100 s (seed 1): below 1500 B {100 * f1:.1f} % of the "
        f"time with one stream (minimum {num(min1)} B), {100 * f4:.1f} % with four "
        f"(minimum {num(min4)} B). "
        + (
            "One stream is below one MTU more often. " + verdict("holds")
            if f1 > f4
            else "Neither falls below one MTU in this run, so the paper's observation is "
            "not reproduced; one stream does dip lower, the paper's mechanism "
            "(head-of-line blocking holds more chunks in the buffer). " + verdict("differs")
            if f1 == f4 == 0.0 and min1 < min4
            else "One stream is not below one MTU more often. " + verdict("differs")
        )
    )
    steps = [(s, a, b) for s in STREAMS for a, b in pairwise(ERRORS[1:])]
    smaller = [optimal[(s, a)] >= optimal[(s, b)] for s, a, b in steps]
    out.append(
        "**Optimal buffer vs error rate** (paper: smaller at higher error rates). Ours: "
        + (
            "smaller or equal at each higher error rate"
            if all(smaller)
            else f"smaller or equal at {sum(smaller)} of {len(smaller)} steps to a higher "
            "error rate (Fig. 13)"
        )
        + ". "
        + verdict(by_count(sum(smaller), len(smaller)))
    )
    return out
