"""Beyond the seeds (issue 40): the MANET routing-protocol comparison of Broch, Maltz,
Johnson, Hu and Jetcheva (MobiCom 1998) with ns-2.35's protocols as sctplab builds them:
packet delivery ratio, routing overhead and path optimality per protocol, number of CBR
sources and pause time; and seed 004's TCP vs SCTP comparison under each protocol."""

from __future__ import annotations

import math
from pathlib import Path

from sctplab.reproduce import routing_transports as rt
from sctplab.reproduce.common import Row, StudyResult, Table
from sctplab.reproduce.manet_format import p_text
from sctplab.reproduce.manet_study import TRANSPORTS
from sctplab.reproduce.routing_claims import Study, claims, discussion
from sctplab.reproduce.routing_figures import figures
from sctplab.reproduce.routing_study import (
    DURATION_S,
    FULL_PATH_SEEDS,
    FULL_SEEDS,
    PACKETS_PER_S,
    PATH_SOURCES,
    PAUSES,
    PROTOCOLS,
    QUICK_PAUSES,
    QUICK_SEEDS,
    SOURCES,
    plan,
    run_cached,
    series,
)
from sctplab.stats import mean_ci, paired
from sctplab.tables import write_table


def reproduce(
    out: Path, quick: bool = False, *, duration_s: float = DURATION_S, transports: bool = True
) -> StudyResult:
    """The study into `out`; `duration_s` (shorter runs) and `transports` (False: without
    seed 004's part) are for tests."""
    out.mkdir(parents=True, exist_ok=True)
    seeds = QUICK_SEEDS if quick else FULL_SEEDS
    path_seeds = QUICK_SEEDS if quick else FULL_PATH_SEEDS
    pauses = QUICK_PAUSES if quick else PAUSES
    runs, reused = run_cached(out, plan(seeds, path_seeds, pauses), duration_s)
    st = Study(seeds, path_seeds, pauses, runs, duration_s)
    tr, t_seeds, t_end, t_reused = rt.run(out, quick) if transports else ({}, 0, 0.0, 0)

    res = StudyResult("routing", "Beyond the seeds: MANET routing protocols (Broch et al. 1998)")
    res.settings = _settings(st, quick)
    if tr:
        res.settings.append(rt.settings(t_seeds, t_end))
    if reused or t_reused:
        res.settings.append(
            f"{reused + t_reused} runs reused from `routing/runs_broch.json` and "
            "`routing/runs.json` (same core build)."
        )
    res.rows = _rows(st) + (_transport_rows(tr, t_seeds) if tr else [])
    res.tables += _tables(out, st)
    if tr:
        res.tables.append(_transport_table(out, tr, t_seeds))
    res.figures += figures(out, st, tr, t_seeds)
    res.discussion = [*claims(st), discussion(st, tr, t_seeds)]
    return res


def _settings(st: Study, quick: bool) -> list[str]:
    return [
        "Scenario `scenarios/routing.toml`, Broch et al.'s set-up: 50 nodes in 1500 m x "
        "300 m, random waypoint at up to 20 m/s (each node first stays put for the pause "
        "time, then moves to a uniform destination at 20 m/s x U(0, 1), pauses, and so on; "
        "pause 900 s: no movement), 802.11 at 2 Mb/s, two-ray ground (250 m range), "
        f"interface queue 50, {st.duration_s:g} s; CBR/UDP sources of {PACKETS_PER_S:g} "
        "packets/s with 64-byte payloads between random pairs of the 50 nodes, each "
        "starting at a uniform time in [0 s, 180 s], gaps jittered as cbrgen.tcl's "
        "`random_ 1` (ns-2.35 defaults elsewhere).",
        f"Protocols: {', '.join(f'`{p}`' for p in PROTOCOLS)} (`[wireless] routing`, "
        "ns-2.35's agents). Series `<protocol>-<n>src` for "
        f"{', '.join(map(str, SOURCES))} sources; pause times "
        f"{', '.join(map(str, st.pauses))} s"
        + (" (--quick; the paper: 0, 30, 60, 120, 300, 600, 900 s)." if quick else ".")
        + f" {st.seeds} movement scenarios (run seeds 1..{st.seeds}) per point"
        + (" (--quick; the paper: 10)" if quick else ", as the paper")
        + "; a scenario seed gives every protocol and source count the same movement and "
        "the same first CBR pairs, so protocols are compared seed by seed (paired t). "
        "Mean and 95 % Student-t half-width over scenarios.",
        "Delivery ratio: CBR packets delivered / sent over the whole run (summary.json "
        "`delivered_packets` and `data_packets_sent` summed over the flows). Overhead: "
        "routing packets transmitted, each hop counted (summary.json `routing_packets` "
        "summed over the nodes: every RREQ, RREP, RERR or DSDV update a node sends or "
        "forwards).",
        "Path optimality (item `path_optimality`): for each delivered CBR packet, the hops "
        "it took (the ns-2 trace's `num_forwards` at the destination's agent) minus the "
        "hops of the shortest path that existed when it was sent (breadth-first search "
        "over the node positions at its send time, read from the run's movement, with a "
        "link wherever two nodes are within 250 m, as ns-2's God object computes it); "
        "metrics `extra_hops` (mean over the run's packets) and `shortest_path_share` "
        "(share sent on a shortest path or shorter, where the nodes moved closer while it "
        "was on its way). Packets sent while no path existed are left out (counted in the "
        f"table). Measured on the {PATH_SOURCES}-source runs of scenarios "
        f"1..{st.path_seeds} (the ns-2 trace costs about as much CPU as the run).",
    ]


def _ci(ci: float) -> float | None:
    return None if math.isnan(ci) else ci


def _rows(st: Study) -> list[Row]:
    rows: list[Row] = []
    for item, metric in (("delivery", "delivery_ratio"), ("overhead", "routing_packets")):
        for p in PROTOCOLS:
            for n in SOURCES:
                for pause in st.pauses:
                    m, ci, k = mean_ci(st.values(p, n, pause, metric))
                    rows.append(Row(item, series(p, n), "pause_s", pause, metric, m, _ci(ci), k))
    for p in PROTOCOLS:
        for pause in st.pauses:
            for metric in ("extra_hops", "shortest_path_share"):
                m, ci, k = mean_ci(st.path_values(p, pause, metric))
                rows.append(
                    Row(
                        "path_optimality",
                        series(p, PATH_SOURCES),
                        "pause_s",
                        pause,
                        metric,
                        m,
                        _ci(ci),
                        k,
                    )
                )
    return rows


def _transport_rows(tr: rt.Results, seeds: int) -> list[Row]:
    rows: list[Row] = []
    for p in PROTOCOLS:
        for t in TRANSPORTS:
            for metric in rt.METRICS:
                m, ci, k = mean_ci(rt.per_seed(tr, p, t, metric, seeds))
                rows.append(Row("transport", f"{p}-{t}", "max_speed", 10, metric, m, _ci(ci), k))
    return rows


def _cell(values: list[float], digits: int) -> str:
    m, ci, _ = mean_ci(values)
    if math.isnan(m):
        return "-"
    return f"{m:,.{digits}f}" if math.isnan(ci) else f"{m:,.{digits}f} ± {ci:,.{digits}f}"


def _tables(out: Path, st: Study) -> list[Table]:
    tables: list[Table] = []
    cols = [(p, n) for n in SOURCES for p in PROTOCOLS]
    for stem, metric, digits, title in (
        ("delivery", "delivery_ratio", 3, "Packet delivery ratio"),
        ("overhead", "routing_packets", 0, "Routing overhead (packets transmitted, each hop)"),
    ):
        header = ["pause (s)", *[series(p, n) for p, n in cols]]
        rows = [
            [str(pause), *[_cell(st.values(p, n, pause, metric), digits) for p, n in cols]]
            for pause in st.pauses
        ]
        md = write_table(out, stem, header, rows)
        tables.append(Table(f"{title}, mean ± 95 % CI over scenarios", md))
    buckets = ["<0", "0", "1", "2", "3", ">=4"]
    header = ["protocol", *[f"{b} extra hops (%)" for b in buckets], "no path at send", "packets"]
    rows = []
    for p in PROTOCOLS:
        hist, no_path = st.path_histogram(p)
        total = sum(hist.values())
        share = dict.fromkeys(buckets, 0)
        for d, c in hist.items():
            b = "<0" if d < 0 else (">=4" if d >= 4 else str(d))
            share[b] += c
        rows.append(
            [p]
            + [f"{100 * share[b] / total:.1f}" if total else "-" for b in buckets]
            + [str(no_path), f"{total:,}"]
        )
    md = write_table(out, "path_optimality", header, rows)
    tables.append(
        Table(
            f"Path optimality, {PATH_SOURCES} sources, all pause times pooled: share of "
            "delivered packets by hops taken minus the shortest path's hops at send time",
            md,
        )
    )
    return tables


def _transport_table(out: Path, tr: rt.Results, seeds: int) -> Table:
    header = [
        "protocol",
        "TCP goodput (kb/s)",
        "SCTP goodput (kb/s)",
        "TCP - SCTP, paired (kb/s)",
        "paired t",
        "TCP connect (s)",
        "SCTP connect (s)",
    ]
    rows = []
    for p in PROTOCOLS:
        g = {t: [v / 1e3 for v in rt.per_seed(tr, p, t, "goodput_bps", seeds)] for t in TRANSPORTS}
        d = paired(g["tcp"], g["sctp"])
        rows.append(
            [
                p,
                _cell(g["tcp"], 1),
                _cell(g["sctp"], 1),
                f"{d.mean:+.1f} ± {d.ci:.1f}" if not math.isnan(d.ci) else f"{d.mean:+.1f}",
                p_text(d.p),
                _cell(rt.per_seed(tr, p, "tcp", "connect_time_s", seeds), 3),
                _cell(rt.per_seed(tr, p, "sctp", "connect_time_s", seeds), 3),
            ]
        )
    md = write_table(out, "transport", header, rows)
    return Table(
        "Seed 004's TCP vs SCTP under each routing protocol (`sh-mobile`, 10 m/s), mean ± "
        "95 % CI over scenarios",
        md,
    )
