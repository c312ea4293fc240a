"""Beyond the seeds (issue 38 item 6): SCTP multistreaming, QUIC streams (quinn-proto, a
real QUIC stack) and TCP over seed 001's satellite path, against loss and the receive
buffer, and over seed 004's MANET; with the check that QUIC's CUBIC and TCP's CUBIC get
the same goodput on the same lossy path, or why not.

data.csv names (README "Reproducing the seed studies", `transports`): item `satellite`
(series `<protocol>_e<loss>`, x `buffer_bytes`: `goodput_bps`, and for SCTP and QUIC
`message_delay_mean_s`, `message_delay_p99_s`); item `cubic_check` (series `tcp-cubic`,
`quic-cubic`, x `loss`: `goodput_bps`, `ack_packets_per_data_packet`,
`payload_bytes_per_data_packet`, `repairs_per_data_packet`, `data_packets_per_s`,
`queue_delay_mean_s` (L1's)); item
`manet` (series `tcp`, `sctp`, `quic`, x `max_speed`: `goodput_bps`,
`retransmitted_packets` (TCP, SCTP) or `lost_packets` (QUIC), `ack_bytes_per_s`,
`ack_packets_per_data_packet`, `ack_bytes_per_data_packet`, `bytes_per_ack`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce.common import Row, StudyResult
from sctplab.reproduce.pool import Point, run_points
from sctplab.reproduce.transports_plan import (
    CUBIC_BUFFER,
    CUBIC_METRICS,
    CUBIC_PROTOCOLS,
    KIB,
    MANET_METRICS,
    MANET_SPEED,
    SAT_METRICS,
    Plan,
    Results,
    Stat,
    cubic_series,
    repairs_metric,
    sat_series,
)
from sctplab.reproduce.transports_runs import (
    MANET_START_S,
    PROTOCOLS,
    CubicKey,
    SatKey,
    bulk,
    flow_measures,
    manet_scenario,
    manet_sets,
    satellite_scenario,
    satellite_sets,
)
from sctplab.stats import mean_ci


def _stats(runs: list[dict[str, float]], metrics: list[str]) -> dict[str, Stat]:
    return {m: mean_ci([r[m] for r in runs if not math.isnan(r[m])]) for m in metrics}


def run_study(plan: Plan) -> Results:
    points: list[Point] = []
    tags: list[tuple[str, Any]] = []
    # The MANET runs are the longest: first, so the workers finish together.
    for p in PROTOCOLS:
        scen = manet_scenario(p)
        for seed in range(1, plan.manet_seeds + 1):
            points.append((scen, manet_sets(plan.manet_end_s), seed))
            tags.append(("manet", p))
    for p in CUBIC_PROTOCOLS:
        scen = bulk(satellite_scenario(p))
        for loss in plan.cubic_losses:
            sets = satellite_sets(p, loss, CUBIC_BUFFER, plan.sat_duration_s)
            for seed in range(1, plan.cubic_seeds + 1):
                points.append((scen, sets, seed))
                tags.append(("cubic", CubicKey(p, loss)))
    for p in PROTOCOLS:
        scen = satellite_scenario(p)
        for loss in plan.losses:
            for b in plan.buffers:
                sets = satellite_sets(p, loss, b, plan.sat_duration_s)
                for seed in range(1, plan.seeds + 1):
                    points.append((scen, sets, seed))
                    tags.append(("sat", SatKey(p, loss, b)))
    summaries = run_points(points)
    groups: dict[tuple[str, Any], list[dict[str, float]]] = {}
    for tag, summ in zip(tags, summaries, strict=True):
        window = (
            plan.manet_end_s - MANET_START_S if tag[0] == "manet" else float(summ["sim_time_s"])
        )
        groups.setdefault(tag, []).append(flow_measures(summ, window))
    res = Results(plan, {}, {}, {})
    for (kind, key), runs in groups.items():
        if kind == "sat":
            for m, s in _stats(runs, SAT_METRICS[key.protocol]).items():
                res.sat[(key, m)] = s
        elif kind == "cubic":
            # The timeouts' share is for the discussion only (QUIC has none to count).
            for m, s in _stats(runs, [*CUBIC_METRICS, "timeout_repairs_per_data_packet"]).items():
                res.cubic[(key, m)] = s
        else:
            for m, s in _stats(runs, [*MANET_METRICS, "payload_bytes_per_data_packet"]).items():
                res.manet[(key, m)] = s
    return res


def _row(item: str, series: str, x_name: str, x: float, metric: str, s: Stat) -> Row:
    m, ci, n = s
    return Row(item, series, x_name, x, metric, m, None if math.isnan(ci) else ci, n)


def rows(res: Results) -> list[Row]:
    out: list[Row] = []
    plan = res.plan
    for p in PROTOCOLS:
        for loss in plan.losses:
            for metric in SAT_METRICS[p]:
                for b in plan.buffers:
                    s = res.sat[(SatKey(p, loss, b), metric)]
                    if s[2]:
                        out.append(
                            _row("satellite", sat_series(p, loss), "buffer_bytes", b, metric, s)
                        )
    for p in CUBIC_PROTOCOLS:
        for metric in CUBIC_METRICS:
            for loss in plan.cubic_losses:
                s = res.cubic[(CubicKey(p, loss), metric)]
                out.append(_row("cubic_check", cubic_series(p), "loss", loss, metric, s))
    for p in PROTOCOLS:
        for metric in MANET_METRICS:
            name = repairs_metric(p) if metric == "repairs" else metric
            s = res.manet[(p, metric)]
            if s[2]:
                out.append(_row("manet", p, "max_speed", MANET_SPEED, name, s))
    return out


def settings(plan: Plan, quick: bool) -> list[str]:
    q = " (--quick)" if quick else ""
    kib = ", ".join(f"{b // KIB} KiB" for b in plan.buffers)
    return [
        "Satellite: seed 001's path (`scenarios/transports.toml`, `transports-quic.toml`, "
        "`transports-tcp.toml`): L1 = (5 Mb/s, 130 ms), L2 = (10 Mb/s, 130 ms, random "
        "loss of data packets at rate e), queues of 1000 packets (never full). Each "
        "protocol runs its CUBIC: TCP SACK with sctplab's CUBIC (RFC 9438), 1460-byte "
        "segments, delayed acks, initial window 10; SCTP `rfc9260` with sctplab's CUBIC, "
        "priority scheduler; QUIC: quinn-proto 0.11.19's CUBIC and pacing, datagrams of "
        "1200 B and then what path MTU discovery finds.",
        "Application: stream 0 a backlog of 1452-byte messages, streams 1-3 a 1000-byte "
        "message every 100 ms each, sent before stream 0's (smaller `priority`); TCP "
        "carries the bulk transfer only (sctplab's TCP flows carry no messages, so TCP "
        "has no message delay here).",
        f"Receive buffer B = {kib}: SCTP's `receive_buffer` (its a_rwnd, and its send "
        "buffer), QUIC's `receive_buffer` (the MAX_DATA and MAX_STREAM_DATA credit, RFC "
        "9000 sec. 4), TCP's `window` = floor(B / 1460) segments. Loss e = "
        + ", ".join(f"{100 * x:g} %" for x in plan.losses)
        + f". {plan.seeds} seeds per point, {plan.sat_duration_s:g} s per run, sources "
        f"stop 10 s before the end{q}; goodput over the whole run.",
        "Message delay: from a message's submission (SCTP: its entry into the send "
        "buffer; QUIC: quinn taking its first byte) to its delivery to the receiving "
        "application; the mean over the paced streams' messages and the largest of their "
        "three 99th percentiles, then mean and 95 % Student-t half-width over seeds.",
        f"CUBIC check: the same path, bulk transfer on one stream, B = {CUBIC_BUFFER // KIB} "
        f"KiB, loss "
        + ", ".join(f"{100 * x:g} %" for x in plan.cubic_losses)
        + f", {plan.cubic_seeds} seeds{q}.",
        f"MANET: seed 004's scenario at its base point (46 nodes, 802.11 at 2 Mb/s, AODV, "
        f"random waypoint up to {MANET_SPEED} m/s, ten 16 kb/s CBR pairs), transport "
        f"flow n0 -> n1 from {MANET_START_S:g} s to {plan.manet_end_s:g} s"
        + (" (--quick; the seed: 920 s)" if quick else "")
        + f", {plan.manet_seeds} seeds: TCP SACK (`manet-tcp.toml`, an ack per segment), "
        "SCTP (`manet-sctp.toml`, delayed SACKs), QUIC in TCP's place with quinn's "
        "NewReno and a 64 KiB receive buffer. Ack bandwidth: the receiver's ack packets "
        "(TCP acks, SCTP SACKs, QUIC datagrams with ACK frames and no stream data), IP "
        "headers included, per second of the measurement window. Loss repairs: "
        "retransmitted data packets (TCP, SCTP); QUIC: packets quinn declared lost "
        "(quinn-proto counts no retransmitted packets; each lost packet's stream data is "
        "sent again).",
    ]


def reproduce(out: Path, quick: bool = False) -> StudyResult:
    from sctplab.reproduce.transports_prose import discussion
    from sctplab.reproduce.transports_report import figures, tables

    out.mkdir(parents=True, exist_ok=True)
    plan = Plan.of(quick)
    res = run_study(plan)
    study = StudyResult(
        "transports",
        "Beyond the seeds: SCTP multistreaming, QUIC streams and TCP (satellite and MANET)",
    )
    study.settings = settings(plan, quick)
    study.rows = rows(res)
    study.tables = tables(out, res)
    study.figures = figures(out, res)
    study.discussion = discussion(res)
    return study
