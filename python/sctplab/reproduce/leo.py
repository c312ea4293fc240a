"""Beyond the seeds (issue 39 item 6): TCP (Reno, CUBIC, BBR), SCTP and multihomed SCTP
from London to New York over a Starlink-like shell, with slotted 15-s handovers and with
handovers only on loss of the satellite; and seed 000's GEO path as a real GEO satellite
beside the seed's fixed-delay link. docs/models/satellite.md ("In a study") names the rows."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from sctplab.reproduce import leo_geo
from sctplab.reproduce.common import Row, StudyResult, Table
from sctplab.reproduce.leo_figures import bars_figure, timeline_figure
from sctplab.reproduce.leo_prose import discussion
from sctplab.reproduce.leo_runs import (
    POLICIES,
    PROTOCOLS,
    SAMPLE_S,
    START_SPAN_S,
    Config,
    measures,
    overrides,
    scenario,
    work,
)
from sctplab.reproduce.pool import Point, run_points
from sctplab.scenario_paths import load_scenario
from sctplab.stats import mean_ci
from sctplab.tables import write_table

ITEM = "leo"
METRICS = [
    "goodput_bps",
    "retransmissions",
    "handover_drops",
    "handovers",
    "path_delay_mean_s",
    "route_changes",
    "route_changes_at_slots",
    "path_delay_step_s",
    "srtt_mean_s",
]
Stats = dict[tuple[str, str, str], tuple[float, float, int]]


def reproduce(out: Path, quick: bool = False) -> StudyResult:
    out.mkdir(parents=True, exist_ok=True)
    seeds = 2 if quick else 6
    duration = 30.0 if quick else 60.0
    geo_duration = 60.0 if quick else 300.0
    base = load_scenario("leo.toml")
    res = StudyResult("leo", "Beyond the seeds: transport over a LEO constellation and a GEO")
    res.settings = [
        "Scenario `scenarios/leo.toml`: a Walker delta shell of 72 x 22 satellites at 550 km "
        "and 53 deg (phasing 1, ISL grid at 100 Mb/s, ground links 20 Mb/s, queues of 100 "
        "packets); a user in London and one in New York, each wired (1 Gb/s, 0.1 ms) to a "
        "terminal of its city (multihomed SCTP: to two terminals a few km apart, the "
        "association using both addresses of each end); 25 deg mask.",
        "Handover policies: `slotted` (a new satellite every 15 s, Starlink's reassignment) "
        "and `on_loss` (`longest_visible` checked every second: a handover only when the "
        "satellite drops below the mask).",
        f"Series: {', '.join(f'`{p}`' for p in PROTOCOLS)} (TCP with SACK and the named "
        "congestion control; SCTP `rfc9260`, one flow per run).",
        f"{seeds} seeds per point; a seed sets the flow's start, uniform in "
        f"[0, {START_SPAN_S:.0f}) s: the phase of the constellation over the two cities and "
        "of the 15-s slots when the flow begins (nothing else in a run is random: no loss "
        f"model on satellite links). Measured from the flow's start for {duration:.0f} s; "
        f"RTT series sampled every {SAMPLE_S:g} s" + (" (--quick)." if quick else "."),
        "Seed 000's GEO path: scenarios/satellite.toml without loss (no loss model on "
        "satellite links), as shipped (L2 a 3 Mb/s link of 250 ms) and with L2 replaced by "
        "a geostationary satellite over 0 deg E and two ground stations on the equator "
        f"placed so that the slant ranges give the seed's 250 ms; {geo_duration:.0f} s, "
        "one run each.",
    ]
    configs = [Config(p, pol) for p in PROTOCOLS for pol in POLICIES]
    points: list[Point] = [
        (scenario(base, c), overrides(seed, duration), seed)
        for c in configs
        for seed in range(1, seeds + 1)
    ]
    raw = run_points(points, work=work)
    per: dict[Config, list[dict[str, float]]] = {}
    first: dict[Config, dict[str, Any]] = {}
    it = iter(raw)
    for c in configs:
        runs = [next(it) for _ in range(seeds)]
        first[c] = runs[0]
        per[c] = [measures(r) for r in runs]
    stats: Stats = {}
    for c in configs:
        for metric in METRICS:
            m, ci, n = mean_ci([r[metric] for r in per[c]])
            stats[(c.protocol, c.policy, metric)] = (m, ci, n)
            if n:
                res.rows.append(Row(ITEM, c.protocol, "handover", c.policy, metric, m, _ci(ci), n))
    geo = leo_geo.run_geo(load_scenario("satellite.toml"), geo_duration)
    res.rows += _geo_rows(geo)
    res.tables.append(_leo_table(out, configs, stats))
    res.tables.append(_geo_table(out, geo))
    res.figures.append(timeline_figure(out, first))
    res.figures.append(bars_figure(out, stats))
    res.discussion = discussion(stats, per, first, geo)
    return res


def _ci(ci: float) -> float | None:
    return None if math.isnan(ci) else ci


def _geo_rows(geo: dict[str, dict[str, Any]]) -> list[Row]:
    g = leo_geo.geometry_for(leo_geo.L2_DELAY_S)
    rows = [
        Row("geo_geometry", "geo-satellite", "station", st, metric, v, None, 1)
        for st in ("n2", "n3")
        for metric, v in (
            ("elevation_deg", g.elevation_deg),
            ("slant_range_km", g.slant_km),
            ("gamma_deg", g.gamma_deg),
        )
    ]
    for series, r in geo.items():
        flows = r["summary"]["flows"]
        for flow in leo_geo.FLOWS:
            rows.append(
                Row("geo", series, "flow", flow, "goodput_bps", flows[flow]["goodput_bps"], None, 1)
            )
        srtt = flows["sctp"]["paths"][leo_geo.FLOWS["sctp"]]["srtt_s"]
        rows.append(Row("geo", series, "flow", "sctp", "srtt_s", float(srtt), None, 1))
        rows.append(
            Row(
                "geo",
                series,
                "flow",
                "tcp",
                "one_way_delay_s",
                leo_geo.one_way_s(series, r),
                None,
                1,
            )
        )
    return rows


def _pm(s: tuple[float, float, int], scale: float = 1.0, digits: int = 1) -> str:
    m, ci, n = s
    if n == 0:
        return "-"
    if math.isnan(ci):
        return f"{m * scale:.{digits}f}"
    return f"{m * scale:.{digits}f} ± {ci * scale:.{digits}f}"


def _leo_table(out: Path, configs: list[Config], stats: Stats) -> Table:
    header = [
        "series",
        "handover",
        "goodput (Mb/s)",
        "retransmissions",
        "handover drops",
        "handovers (2 stations)",
        "one-way path delay (ms)",
        "route changes",
        "step (ms)",
        "SCTP srtt (ms)",
    ]
    rows = []
    for c in configs:
        s = {m: stats[(c.protocol, c.policy, m)] for m in METRICS}
        rows.append(
            [
                c.protocol,
                c.policy,
                _pm(s["goodput_bps"], 1e-6, 2),
                _pm(s["retransmissions"]),
                _pm(s["handover_drops"]),
                _pm(s["handovers"]),
                _pm(s["path_delay_mean_s"], 1e3, 2),
                _pm(s["route_changes"]),
                _pm(s["path_delay_step_s"], 1e3, 2),
                _pm(s["srtt_mean_s"], 1e3, 1),
            ]
        )
    md = write_table(out, "leo", header, rows)
    return Table("London to New York over the shell (mean ± 95 % CI over seeds)", md)


def _geo_table(out: Path, geo: dict[str, dict[str, Any]]) -> Table:
    g = leo_geo.geometry_for(leo_geo.L2_DELAY_S)
    rows = []
    for series, r in geo.items():
        flows = r["summary"]["flows"]
        srtt = flows["sctp"]["paths"][leo_geo.FLOWS["sctp"]]["srtt_s"]
        rows.append(
            [
                series,
                f"{1e3 * leo_geo.one_way_s(series, r):.2f}",
                f"{flows['tcp']['goodput_bps'] / 1e6:.4f}",
                f"{flows['sctp']['goodput_bps'] / 1e6:.4f}",
                f"{1e3 * float(srtt):.1f}",
            ]
        )
    md = write_table(
        out,
        "geo",
        [
            "L2",
            "one-way delay N0 -> N4 (ms)",
            "TCP goodput (Mb/s)",
            "SCTP goodput (Mb/s)",
            "SCTP srtt (ms)",
        ],
        rows,
    )
    title = (
        f"Seed 000 without loss: the fixed 250-ms link and a GEO satellite (stations "
        f"{g.gamma_deg:.2f} deg of longitude either side of it, elevation "
        f"{g.elevation_deg:.1f} deg, slant range {g.slant_km:,.0f} km each)"
    )
    return Table(title, md)
