"""sctplab's RED against ns-2.35's `Queue/RED` on seed 000's GEO path
(ns2/red_dumbbell.tcl, the same setup in ns-2): the RED rows of `sctplab validate ns2`
(issue 34); bench/red_vs_ns2.py runs them with any seed count and duration.

The runs are 300 s long in both modes (`--quick` only takes fewer seeds). Both sides run
ns-2.35's defaults, limited transmit included (`singledup_ 1`; until session 19 ours
had it off, which put our mean queue 2.8 % above ns-2.35's). On link rates and delays
that are powers of two, where ns-2's double-precision clock adds without rounding, the
two agree packet for packet (crates/sctplab-core/tests/aqm_world.rs,
`red_matches_ns2_on_a_clock_without_rounding`); on this path's 10 Mb/s and 2 ms a
rounding error makes ns-2 take a few arrivals before a departure of the same instant
(docs/models/aqm.md, "Against ns-2.35 in a run").

N0 -10 Mb/s, 2 ms- N2 -3 Mb/s, 250 ms- N3 -10 Mb/s, 2 ms- N4 with RED at its ns-2.35
defaults on N2's bottleneck queue (`aqm = { kind = "red" }`, limit 100 packets), no
random loss, one TCP-SACK flow of 1448-byte segments whose window (300) exceeds the
path's bandwidth-delay product (about 130 segments), so the queue builds and RED acts;
with the handshake, as ns-2.35's default `syn_ true`, and limited transmit, as its
default `singledup_ 1` (docs/models/tcp.md).
Rows: packets N2 sent to N3, packets dropped at N2 (RED's early and forced drops), and
the time-average of the packets waiting there (ns-2: the queue monitor's integrator;
ours: the `queue` series, sampled every 10 ms). The two simulators draw different
random numbers, so only means over seeds compare; tolerance as the random-loss rows.
"""

from __future__ import annotations

import subprocess
from typing import Any

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.stats import mean_ci
from sctplab.validation.check import Check

SCRIPT = "red_dumbbell.tcl"
DURATION_S = 300.0
DIRECTION = "n2->n3"
METRICS = ("red_packets_sent", "red_drops", "red_mean_queue_packets")


def scenario() -> dict[str, Any]:
    """Ours: the same path, queue and flow as ns2/red_dumbbell.tcl."""
    link = {"bandwidth": "10Mb", "delay": "2ms"}
    return {
        "name": "red-dumbbell",
        "duration": "300s",
        "nodes": [{"name": n} for n in ("n0", "n2", "n3", "n4")],
        "links": [
            {"name": "l0", "a": "n0", "b": "n2", **link},
            {
                "name": "l2",
                "a": "n2",
                "b": "n3",
                "bandwidth": "3Mb",
                "delay": "250ms",
                "queue": 100,
                "aqm": {"kind": "red"},
            },
            {"name": "l3", "a": "n3", "b": "n4", **link},
        ],
        "flows": [
            {
                "name": "tcp",
                "type": "tcp",
                "variant": "sack",
                "from": "n0",
                "to": "n4",
                "segment_size": "1448B",
                "window": 300,
                "initial_ssthresh": 300,
                # ns-2.35's default `singledup_ 1` (red_dumbbell.tcl leaves it).
                "limited_transmit": True,
                "delayed_ack": False,
                "handshake": True,
            }
        ],
    }


def ns2(seed: int, duration: float) -> tuple[float, float, float]:
    """ns-2.35's packets sent on N2->N3, drops at N2 and mean packets waiting."""
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = subprocess.run(
        [exe, str(ns2_oracle.script(SCRIPT)), str(seed), str(duration)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def ours(seed: int, duration: float) -> tuple[float, float, float]:
    r = run(scenario(), seed=seed, set={"duration": f"{duration:g}s"}, series="queue")
    link = r.summary["links"][DIRECTION]
    s = r.series
    q = s[(s["variable"] == "queue") & (s["entity"] == DIRECTION)]["value"]
    return (
        float(link["tx_packets"]),
        float(link["queue_drops"] + link["aqm_drops"]),
        float(q.mean()),
    )


def seed_count(quick: bool) -> int:
    """Seeds of the RED rows: 5 with --quick, 20 otherwise (the other statistical rows'
    counts)."""
    return 5 if quick else 20


def red(seeds: int, duration: float) -> list[Check]:
    theirs = [ns2(s, duration) for s in range(1, seeds + 1)]
    mine = [ours(s, duration) for s in range(1, seeds + 1)]
    checks: list[Check] = []
    for i, metric in enumerate(METRICS):
        tm, tci, _ = mean_ci(x[i] for x in theirs)
        mm, mci, _ = mean_ci(x[i] for x in mine)
        checks.append(
            Check(
                metric,
                f"RED (Queue/RED defaults), seed 000 GEO path, {seeds} seeds of {duration:g} s",
                tm,
                tci,
                mm,
                mci,
                max(tci + mci, 0.02 * tm),
            )
        )
    return checks
