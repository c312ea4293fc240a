"""`sctplab validate ns2`: the shipped ns-2.35 scripts and sctplab on the same scenarios
and seeds, side by side (CONTRACTS.md "Validation and benchmarks").

Three kinds of point-to-point rows:
- deterministic (seed 002's drop lists): the sender's packet order and the packets R1
  forwards in the 5 s after the first DATA packet must be equal; counts may differ by
  one packet at the window's edge (docs/validation.md explains why);
- statistical (random loss on R1's link, several seeds): mean packets forwarded over
  the run, ns-2 and ours, with 95 % Student-t intervals; the difference must lie within
  the sum of both half-widths, or within 2 % of ns-2's mean;
- snoop (seed 003's topology, ns2/snoop_lan.tcl): mean transfer time of a 1 MB file by
  TCP Reno with and without a snoop agent at the base station, random loss of data on
  the wireless hop, 20 seeds in both modes (the runs are short), same tolerance. Our
  agent as the reproduction runs it (`dupack_thresh = 1`; ns-2.35's snoop lets the first
  duplicate ack of a loss through, docs/validation.md compares that setting too).
  ns-2's LL/LLSnoop works only on a LAN interface, so there the wireless hop is a
  two-node LAN whose base `Mac` neither contends nor collides (each side sends on its
  own, as on our full-duplex link), timed to equal our link: both take 4.328 s for the
  lossless transfer (ns-2 32 us less, its first segment is 40 bytes short).
CMT rows (sctplab.validation.cmt, ns2/cmt.tcl): goodput of Agent/SCTP/CMT and ours
over two disjoint paths, with and without loss on one, single path beside it.
Timestamp rows (sctplab.validation.timestamp): the `timestamp` flow key against ns-2.35's
Agent/SCTP/Timestamp on seed 002's drop lists, send and forward order.
Wireless rows (802.11 chains, seed 004's MANET replayed in both at each maximum speed,
and the saturated cell of sctplab.validation.cell) come from sctplab.validation.wireless;
their ns-2 results are cached (ns2_oracle.Ns2Cache). DSDV rows (sctplab.validation.dsdv):
the same replay with `routing = "dsdv"` against ns-2.35's Agent/DSDV; DSR rows
(sctplab.validation.dsr) with `routing = "dsr"` against Agent/DSRAgent. RED rows
(sctplab.validation.red): RED at ns-2.35's `Queue/RED` defaults on seed 000's GEO path,
on 300-s runs in both modes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.tables import markdown_table
from sctplab.validation import (
    cmt,
    dsdv,
    dsr,
    multihoming,
    red,
    satellite,
    timestamp,
    wireless,
)
from sctplab.validation.check import COLUMNS, Check, Validation, run_groups, write_csv
from sctplab.validation.seed002 import deterministic, statistical
from sctplab.validation.snoop import SNOOP_SEEDS, snoop


def _smoke(check: Check, quick: bool) -> bool:
    """--quick's MANET rows: three movements make paired intervals so wide that a row
    passes gaps of 10-20 %; they show the comparison runs, not that the two agree."""
    return quick and check.metric.startswith(("manet_", "dsdv_", "dsr_"))


def validate_ns2(
    out: Path, quick: bool = False, ns2_cache: Path | None = None, jobs: int | None = None
) -> Validation:
    """Writes OUT/validation.md and OUT/validation.csv; returns the report and the pass
    count. Progress goes to stderr, one line as each group of rows starts and ends (and
    the wireless pool's heartbeat).

    The wireless rows' ns-2 results are kept in `ns2_cache` (default OUT/ns2-cache),
    keyed by everything they depend on, so a second run re-runs only sctplab; they run
    on `jobs` processes (default one per core)."""
    if ns2_oracle.ns2_binary() is None:
        raise FileNotFoundError("ns-2 is not installed (Debian package ns2: apt-get install ns2)")
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "ns2-cache" if ns2_cache is None else ns2_cache
    seeds, duration = (5, 60.0) if quick else (20, 300.0)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        groups: list[tuple[str, Callable[[], list[Check]]]] = [
            ("seed 002 send and forward order (30 cases)", lambda: deterministic(tmp)),
            (
                f"random loss, 5 protocols x {seeds} seeds of {duration:g} s",
                lambda: statistical(tmp, seeds, duration),
            ),
            (f"snoop transfer times, {SNOOP_SEEDS} seeds", lambda: snoop(tmp, SNOOP_SEEDS)),
            (
                "multihomed SCTP failover",
                lambda: multihoming.checks(tmp),
            ),
            ("CMT-SCTP goodput over two disjoint paths", lambda: cmt.checks(tmp, quick)),
            (
                "SCTP Timestamp (Agent/SCTP/Timestamp): seed 002 send and forward order",
                lambda: timestamp.checks(tmp),
            ),
            (
                "wireless: chains, MANET replay, saturated cell (ns-2 results cached)",
                lambda: wireless.wireless(tmp, quick, cache, jobs),
            ),
            (
                "wireless: DSDV against ns-2.35's Agent/DSDV, seed-004 TCP replay",
                lambda: dsdv.checks(tmp, quick, cache, jobs),
            ),
            (
                "wireless: DSR against ns-2.35's Agent/DSRAgent, seed-004 TCP replay",
                lambda: dsr.checks(tmp, quick, cache, jobs),
            ),
            (
                "satellites: one-way delay, paths and TCP over a polar constellation",
                lambda: satellite.checks(tmp, quick),
            ),
            (
                f"RED against ns-2.35's Queue/RED, {red.seed_count(quick)} seeds of "
                f"{red.DURATION_S:g} s",
                lambda: red.red(red.seed_count(quick), red.DURATION_S),
            ),
        ]
        checks = run_groups(groups, "ns2")
    write_csv(out / "validation.csv", COLUMNS, checks)
    failed = [c for c in checks if not c.passed]
    smoke = [c for c in checks if _smoke(c, quick)]
    md = [
        "# sctplab against ns-2.35",
        "",
        f"{len(checks) - len(failed)} of {len(checks)} checks pass"
        + (" (--quick: fewer seeds, shorter runs)." if quick else "."),
        "",
    ]
    if smoke:
        md += [
            f"The {len(smoke)} `manet_*`, `dsdv_*` and `dsr_*` rows are smoke tests here (marked "
            "in the scenario column): --quick replays only 3 movements, so their paired "
            "intervals pass differences of 10-20 % and more; they show that the replay "
            "runs in both simulators, not that the two agree. The full run's 12 "
            "movements at four speeds are the comparison (docs/validation.md).",
            "",
        ]
    md += [
        "Deterministic rows: seed 002's drop lists; `*_agreement` is the share of ns-2's "
        "packets (in the 5 s after the first DATA) that we send or forward in the same "
        "order before the first difference, `*_count_5s` the packet counts (tolerance one "
        "packet at the window's edge). Statistical rows: 1 % random loss of data on R1's "
        "link, mean over seeds with 95 % Student-t half-widths; tolerance = the sum of the "
        "half-widths, at least 2 % of ns-2's mean. Snoop rows: seed 003's topology "
        "(scenarios/snoop.toml), TCP Reno with window 20 sending a 1 MB file with and without "
        "a snoop agent at the base station, random loss of data on the wireless hop; "
        "transfer time from the application's start to the last byte in order at the "
        "mobile host, 20 seeds, same statistics and tolerance. ns-2 runs "
        "LL/LLSnoop on a two-node "
        "LAN with the base Mac (no contention, no collisions; python/sctplab/ns2/"
        "snoop_lan.tcl). Wireless rows (802.11 at 2 Mb/s, two-ray ground, AODV): TCP-SACK "
        "throughput over static chains of 1 to 7 hops, mean over seeds, same tolerance; "
        "`manet_*` rows replay seed 004's scenario at each maximum speed (our random-"
        "waypoint movement exported as a setdest file, our CBR pairs) in both, paired over "
        "movements, tolerance = the half-width of the paired differences' interval at "
        "1 - 0.05 / (number of MANET rows) confidence (Bonferroni), at least 2 % of "
        "ns-2's mean; `cell_*` rows: throughput of a saturated 802.11 cell of n stations "
        "(DumbAgent in ns-2, static routes in ours), same tolerance as the chains. "
        "CMT rows: goodput of Agent/SCTP/CMT and ours over two disjoint 2 Mb/s paths "
        "(scenarios/cmt.toml, ns2/cmt.tcl), without loss, single path, with 1 % loss on one "
        "path (mean over seeds, same statistics), and our CMT over single-path ratio against "
        "issue 35's rule of at least 1.8. "
        "Timestamp rows (`seed002-sctp-timestamp-d*`): the `ns2` preset with `timestamp = "
        "true` against Agent/SCTP/Timestamp at both ends on seed 002's drop lists, 1004-byte "
        "DATA chunks in the 1048-byte MTU (the TIMESTAMP chunk takes 12 bytes), same order "
        "checks as seed 002's. "
        "Satellite rows (sctplab.validation.satellite, ns2/satellite.tcl): ns-2.35's "
        "satellite module and ours on a 6 x 11 polar constellation, one-way delay of a "
        "UDP packet every 8 s sample by sample (tolerance ns-2's 0.1 ms printing), the "
        "share of packets on the same node path and the number of route changes, and "
        "TCP SACK goodput (tolerance 2 %). "
        "RED rows (sctplab.validation.red, ns2/red_dumbbell.tcl): seed 000's GEO path "
        "with Queue/RED at ns-2.35's defaults on the 3 Mb/s bottleneck and one TCP-SACK "
        "flow; packets sent there, RED's drops and the mean packets waiting, mean over "
        "seeds, same statistics and tolerance, always on 300-s runs (a 60-s run is mostly "
        "the first slow start; both senders at ns-2.35's defaults, limited transmit "
        "included: docs/models/aqm.md). "
        "docs/validation.md explains the known differences.",
        "",
        markdown_table(COLUMNS, [_md_cells(c, quick) for c in checks]),
        "",
    ]
    report = out / "validation.md"
    report.write_text("\n".join(md))
    return Validation(report, len(checks) - len(failed), len(checks))


def _md_cells(check: Check, quick: bool) -> list[str]:
    cells = check.cells()
    if _smoke(check, quick):
        cells[1] += " (smoke test: --quick)"
    return cells
