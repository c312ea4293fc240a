"""Seed 004 (Kumar, Jacob, Ananda: SCTP vs TCP in MANETs): goodput, connect time,
retransmissions and SACK bandwidth vs maximum speed for three multihoming/mobility cases
(Figs. 1-3), and vs the CBR load, each claim of the paper checked from our runs."""

from __future__ import annotations

import math
from pathlib import Path

from sctplab.reproduce import manet_cc
from sctplab.reproduce.common import Figure, Row, StudyResult, Table
from sctplab.reproduce.manet_claims import claims, paired_table
from sctplab.reproduce.manet_experiments import (
    ACK_EXPERIMENTS,
    MH_EXPERIMENT,
    ack_discussion,
    ack_table,
    mh_discussion,
    mh_table,
)
from sctplab.reproduce.manet_format import cell
from sctplab.reproduce.manet_mobility import (
    _one_hop_figure,
    check_pairing,
    mobility_explained,
    movement_stats,
)
from sctplab.reproduce.manet_runs import Todo, run_cached
from sctplab.reproduce.manet_study import (
    BASE_RATE,
    CASE_TITLES,
    CASES,
    FULL_END_S,
    LABELS,
    LOAD_SPEED,
    METRICS,
    QUICK_END_S,
    RATES,
    SCALE,
    SPEEDS,
    START_S,
    TRANSPORTS,
    Key,
    Study,
    plan,
    series,
    sets_for,
)
from sctplab.stats import (
    mean_ci,
)
from sctplab.tables import write_table


def reproduce(out: Path, quick: bool = False, *, seeds: int | None = None) -> StudyResult:
    """The study into `out`; `seeds` (default 12, --quick 3) scenarios per point."""
    out.mkdir(parents=True, exist_ok=True)
    seeds = seeds or (3 if quick else 12)
    end_s = QUICK_END_S if quick else FULL_END_S
    keys = plan(seeds)
    exp_base = Key("tcp", "sh-mobile", LOAD_SPEED, BASE_RATE, 0)
    # Seed-major, as the plan (run_cached runs them longest first; an interrupted study
    # resumes from manet/runs.json whatever the order).
    todo: list[Todo] = []
    for seed in range(1, seeds + 1):
        todo += [(k, k.transport, sets_for(k, end_s), k.seed) for k in keys if k.seed == seed]
        todo += [
            ((name, seed), transport, {**sets_for(exp_base, end_s), **extra}, seed)
            for name, (transport, extra) in ACK_EXPERIMENTS.items()
        ]
        mh = Key("sctp", "mh-mobile", LOAD_SPEED, BASE_RATE, seed)
        todo.append(
            ((MH_EXPERIMENT[0], seed), "sctp", {**sets_for(mh, end_s), **MH_EXPERIMENT[1]}, seed)
        )
    todo += manet_cc.todo(seeds, end_s)
    results, reused = run_cached(out, todo)
    st = Study(seeds, end_s, {k: results[k] for k in keys})
    exps = {
        name: [results[(name, s)] for s in range(1, seeds + 1)]
        for name in [*ACK_EXPERIMENTS, MH_EXPERIMENT[0]]
    }

    res = StudyResult("manet", "Seed 004: SCTP vs TCP in MANETs")
    res.settings = _settings(st, quick)
    pairing, mv = check_pairing(st)
    moves = {k: movement_stats(text, START_S, end_s) for k, text in mv.items()}
    res.rows = _rows(st)
    res.tables += _tables(out, st)
    res.tables.append(paired_table(out, st))
    res.figures += _figures(out, st)
    res.figures.append(_one_hop_figure(out, st, moves))
    res.tables.append(ack_table(out, st, exps))
    res.tables.append(mh_table(out, st, exps[MH_EXPERIMENT[0]]))
    res.discussion = [
        pairing,
        *claims(st),
        mobility_explained(st, moves),
        ack_discussion(st, exps),
        mh_discussion(st, exps[MH_EXPERIMENT[0]]),
    ]
    # Beyond the seed: TCP-SACK vs TCP-CUBIC vs SCTP-CUBIC (issue 33).
    res.settings.append(
        f"Beyond the seed (no paper value): the transport flow with `congestion_control = "
        f'"cubic"` (RFC 9438, HyStart++ on) for TCP-SACK and for SCTP (`ns2` preset), '
        f"`sh-mobile` at every speed, CBR {BASE_RATE} kb/s, the same scenarios; "
        "`tcp-sack` is the study's own TCP runs."
    )
    res.rows += manet_cc.rows(st, results)
    res.tables.append(manet_cc.table(out, st, results))
    res.figures.append(manet_cc.figure(out, st, results))
    res.discussion.append(manet_cc.discussion(st, results))
    if reused:
        res.settings.append(
            f"{reused} of {len(todo)} runs reused from `manet/runs.json` (same core build)."
        )
    return res


def _settings(st: Study, quick: bool) -> list[str]:
    return [
        "Scenarios `scenarios/manet-tcp.toml` and `scenarios/manet-sctp.toml` (seed "
        "004): 46 nodes in 1000 m x 300 m, random waypoint with pause 0, 802.11 at "
        "2 Mb/s, two-ray ground, AODV, interface queue 50; 10 CBR/UDP flows of 512-byte "
        "packets between random pairs of nodes 2..45, each gap jittered as ns-2's CBR with "
        "cbrgen.tcl's `random_ 1` (the interval times U(0.5, 1.5), `jitter = true`); one "
        "transport flow n0 -> n1. TCP-SACK "
        "with 1400-byte segments, an ack per segment; SCTP (`ns2` preset) with 700-byte "
        "chunks, two per packet, delayed SACK and heartbeats on.",
        "Our reading of the paper's cases: `sh-mobile` (no multihoming, all 46 nodes "
        "mobile); `mh-mobile` (n0 and n1 each have two wireless NICs, `wlan0` and `wlan1`, "
        "on the one shared channel at the node's position, each with its own address, and, "
        "as in ns-2.35's channel, neither hears the other's frames; the "
        "association uses both addresses of both ends, TCP uses `wlan0` only); `mh-static` "
        "(as `mh-mobile`, but n0 and n1 stay at their random start positions while the "
        "other 44 nodes move). The paper says only that 'the multihomed endpoints had two "
        "interfaces' and names the case 'Multihoming, Stationary nodes'; this is the "
        "reading the project's interface contract fixes.",
        f"Mobility: maximum speeds {', '.join(map(str, SPEEDS))} m/s, pause 0, CBR "
        f"{BASE_RATE} kb/s per flow. Load: {', '.join(map(str, RATES))} kb/s per CBR flow, "
        f"case `sh-mobile` at {LOAD_SPEED} m/s (the paper gives neither the speed nor the "
        "rates of its load runs).",
        f"{st.seeds} movement scenarios (run seeds 1..{st.seeds}) per point"
        + (" (--quick; the paper: 12)" if quick else ", as the paper")
        + f"; the transport flow runs from {START_S:g} s to {st.end_s:g} s"
        + (
            f" ({st.end_s - START_S:g} s, --quick; the paper: 900 s)."
            if quick
            else " (900 s, as the paper)."
        )
        + " Mean and 95 % Student-t half-width over scenarios.",
        "Metrics over the transport's measurement window: goodput (in-order payload bits "
        "delivered per second), connect time (handshake), retransmissions = data packets "
        "that carry no new data (an SCTP packet bundling two retransmitted chunks is one; "
        "summary.json's `retransmitted_packets`, counted by the sender as it builds each "
        "packet, which a test checks against the sends trace), SACK bandwidth = bytes per "
        "second of the receiver's packets that carry selective-ack information (every SCTP "
        "SACK; TCP acks with at least one SACK block), IP header included; ack bandwidth = "
        "the same for every ack the receiver sends.",
        "Changed by issue 28 (results before it are not comparable; the run cache is per "
        "core build): the CBR gaps are jittered as above (before: evenly spaced); a "
        "multihomed node's two NICs no longer hear each other (before, the second decoded "
        "the first one's frames at 1 m, so the node was one half-duplex radio, which "
        "ns-2.35's channel does not make it); AODV hands what it produces to the link layer "
        "in one order, data released before the route reply as ns-2.35 does (before, the "
        "reply went first, and with ARP unresolved the data replaced it). "
        "docs/models/wireless.md describes each.",
    ]


def _ci(ci: float) -> float | None:
    return None if math.isnan(ci) else ci


def _rows(st: Study) -> list[Row]:
    rows: list[Row] = []
    for t in TRANSPORTS:
        for case in CASES:
            for sp in SPEEDS:
                for m in METRICS:
                    mean, ci, n = mean_ci(st.mobility(t, case, sp, m))
                    rows.append(
                        Row("mobility", series(t, case), "max_speed", sp, m, mean, _ci(ci), n)
                    )
        for r in RATES:
            for m in METRICS:
                mean, ci, n = mean_ci(st.load(t, r, m))
                rows.append(Row("load", series(t, "sh-mobile"), "cbr_rate", r, m, mean, _ci(ci), n))
    return rows


def _tables(out: Path, st: Study) -> list[Table]:
    tables: list[Table] = []
    all_series = [(t, c) for c in CASES for t in TRANSPORTS]
    for m in METRICS:
        header = ["max speed (m/s)", *[series(t, c) for t, c in all_series]]
        rows = [
            [str(sp), *[cell(st.mobility(t, c, sp, m), m) for t, c in all_series]] for sp in SPEEDS
        ]
        md = write_table(out, f"mobility_{m}", header, rows)
        tables.append(Table(f"Mobility: {LABELS[m]}, mean ± 95 % CI", md))
    header = ["CBR rate (kb/s)"] + [
        f"{t} {LABELS[m].split(' (')[0]}" for m in METRICS for t in TRANSPORTS
    ]
    rows = [
        [str(r), *[cell(st.load(t, r, m), m) for m in METRICS for t in TRANSPORTS]] for r in RATES
    ]
    md = write_table(out, "load", header, rows)
    tables.append(
        Table(
            f"Load (`sh-mobile`, {LOAD_SPEED} m/s): goodput (kb/s), connect time (s), "
            "retransmitted packets, SACK and ack bandwidth (bytes/s), mean ± 95 % CI",
            md,
        )
    )
    return tables


def _figures(out: Path, st: Study) -> list[Figure]:
    from sctplab.reproduce import manet_figures as mf

    figs: list[Figure] = []
    for stem, title, metric in [
        ("fig1_goodput", "Fig. 1: goodput", "goodput_bps"),
        ("fig2_retransmissions", "Fig. 2: retransmissions", "retransmissions"),
        ("fig3_sack_bandwidth", "Fig. 3: SACK bandwidth", "sack_bytes_per_s"),
        ("connect_time", "Connect time", "connect_time_s"),
    ]:
        figs.append(
            mf.mobility_figure(
                out,
                stem,
                title,
                metric,
                LABELS[metric],
                SCALE.get(metric, 1.0),
                SPEEDS,
                CASE_TITLES,
                lambda t, c, sp, m=metric: st.mobility(t, c, sp, m),
                st.seeds,
                (lambda c, sp: st.mobility("tcp", c, sp, "ack_bytes_per_s"))
                if metric == "sack_bytes_per_s"
                else None,
            )
        )
    panels = [
        (m, LABELS[m], SCALE.get(m, 1.0))
        for m in ["goodput_bps", "sack_bytes_per_s", "connect_time_s", "retransmissions"]
    ]
    figs.append(mf.load_figure(out, RATES, LOAD_SPEED, panels, st.load))
    return figs
