"""`sctplab validate ns3`: the project's ns-3.37 programs and sctplab on the same dumbbells
(CONTRACTS.md "Validation and benchmarks"): the TCP congestion controllers
(validation/ns3_tcp.py) and the queue disciplines (validation/ns3_aqm.py), with the
progress, outputs and last line of `validate ns2`."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from sctplab.ns3 import oracle as ns3_oracle
from sctplab.tables import markdown_table
from sctplab.validation import ns3_aqm, ns3_tcp
from sctplab.validation.check import Check, Validation, run_groups, say, write_csv


def validate_ns3(
    out: Path,
    quick: bool = False,
    build_cache: Path | None = None,
    only: tuple[str, ...] | None = None,
) -> Validation:
    """Writes OUT/validation.md and OUT/validation.csv; returns the report and the pass
    count. Progress goes to stderr as `validate ns2`'s does. The ns-3 programs are built
    into `build_cache` (default OUT/ns3-build) unless they are there already; `only`
    picks row sets by name (default all: newreno, cubic, bbr, aqm)."""
    why = ns3_oracle.missing()
    if why is not None:
        raise FileNotFoundError(why)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "ns3-build" if build_cache is None else build_cache
    p = ns3_tcp.plan(quick)
    chosen = [c for c in ns3_tcp.CONTROLLERS if only is None or c.name in only]
    say(f"building the ns-3 programs into {cache}", "ns3")
    b = ns3_oracle.build(cache)
    say(
        "ns-3 programs reused from the build cache"
        if b.cached
        else f"ns-3 programs compiled in {b.compile_s:.1f} s",
        "ns3",
    )
    groups: list[tuple[str, Callable[[], list[Check]]]] = []
    for c in chosen:
        rates = len(ns3_tcp.LOSS_RATES)
        label = f"{c.label}, {rates} loss rates x {p.seeds} seeds of {p.duration_s:g} s"
        groups.append((label, partial(ns3_tcp.rows, b.binary, c, p)))
    if only is None or "aqm" in only:
        label = (
            f"AQM: CoDel, FQ-CoDel, PIE, CoDel+ECN (ns-3 queue discs), {ns3_aqm.FLOWS} flows, "
            f"{p.seeds} seeds of {p.duration_s:g} s"
        )
        groups.append((label, partial(ns3_aqm.rows, b.binary, p)))
    checks = run_groups(groups, "ns3")
    write_csv(out / "validation.csv", ns3_tcp.COLUMNS, checks)
    failed = [c for c in checks if not c.passed]
    md = [
        "# sctplab against ns-3.37",
        "",
        f"{len(checks) - len(failed)} of {len(checks)} checks pass"
        + (" (--quick: fewer seeds, shorter runs)." if quick else "."),
        "",
        "One bulk TCP flow over scenarios/dumbbell.toml (10 Mb/s bottleneck, 50 ms base RTT, "
        "a one-BDP buffer of 42 packets, 1460-byte segments, SACK, random loss of data "
        "packets on the bottleneck) in sctplab and in the project's ns-3.37 program "
        "(python/sctplab/ns3/dumbbell.cc) with the same parameters; ns-3's controllers "
        "carry the corrections docs/validation.md lists (python/sctplab/ns3/"
        "lab_controllers.h). `goodput_bps`: payload delivered in order from "
        f"{p.start_s:g} s to the end; `cwnd_mean`: cwnd in segments sampled every 10 ms "
        "in that window. Mean over seeds with 95 % Student-t half-widths; tolerance = the "
        "sum of the half-widths, at least 2 % of ns-3's mean. `stalled_runs`: runs whose "
        "goodput is below half of ns-3's mean, counted on both sides; they must be equal "
        "(a few stalled runs widen the intervals enough for the mean rows to pass).",
        "",
        "AQM rows: four such flows share the bottleneck, whose hard limit is 1000 packets "
        "and whose loss model is off, under CoDel, FQ-CoDel and PIE with their defaults "
        "(python/sctplab/ns3/aqm_dumbbell.cc: ns-3.37's queue discs); `goodput_bps` of "
        "all four, `queue_delay_mean_s` from arrival at the queue to the start of "
        "transmission, `aqm_drops` the drops the discipline decided; same statistics. "
        "CoDel+ECN: CoDel marks instead of dropping and the flows are ECN-capable "
        "(RFC 3168 ECE/CWR on both sides); `ecn_marks` replaces `aqm_drops`.",
        "",
        "ns-3 programs: "
        + ("reused from the build cache" if b.cached else f"compiled in {b.compile_s:.1f} s")
        + f" ({b.binary}).",
        "",
        markdown_table(ns3_tcp.COLUMNS, [c.cells() for c in checks]),
        "",
    ]
    report = out / "validation.md"
    report.write_text("\n".join(md))
    return Validation(report, len(checks) - len(failed), len(checks))
