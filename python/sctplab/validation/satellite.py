"""Satellite rows of `sctplab validate ns2` (issue 39): ns-2.35's satellite module
(ns2/satellite.tcl: six polar planes of 11 at 780 km, terminals at Berkeley and
Boston, handoff randomisation off, routes recomputed at every change) and sctplab on
the same constellation, built here as an `explicit` constellation from the same
`set-position` arguments.

- `sat_one_way_delay_max_diff_s`: one small UDP packet every 8 s; for every packet
  both deliver, the one-way delay (first enqueue at Berkeley to arrival at Boston) in
  both; the row is the largest difference, sample by sample, against ns-2's printing
  precision (its trace prints times to 0.1 ms: half of that on each of two times).
- `sat_path_agreement`: the share of those packets whose node path (which satellites,
  so which handoffs and route changes) is the same in both; ns-2's is 1 by definition.
- `sat_route_changes`: how many times the path changed from one packet to the next.
- `sat_tcp_goodput_pkts_per_s`: TCP SACK (window 20) data packets delivered per second
  over the run, 1040 bytes on every hop in both (ns2/satellite.tcl says why ns-2's
  segments are 984 bytes); tolerance 2 % of ns-2's.

Packets are 116 bytes on every hop in both (ns-2's 100-byte CBR packet plus the 16 bytes
its satellite links add; ours an 88-byte payload with its 28-byte UDP/IP header).
"""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.validation.check import Check

# ns-2's node numbers: satellites 0..65 (plane by plane), then the two terminals; ours:
# the two stations (nodes 0 and 1), then the satellites in the same order.
_PLANES, _PER_PLANE = 6, 11
_NS2_SRC, _NS2_DST = 66, 67
_NS2_PRINT = 1e-4
FULL_S, QUICK_S = 6100.0, 1000.0
TCP_FULL_S, TCP_QUICK_S = 600.0, 200.0


def _ours_node(n: int) -> int:
    """ns-2's node number as ours."""
    if n == _NS2_SRC:
        return 0
    if n == _NS2_DST:
        return 1
    return n + 2


def scenario(mode: str, duration: float) -> str:
    """The constellation of ns2/satellite.tcl as an sctplab scenario."""
    sats = []
    for p in range(_PLANES):
        for i in range(_PER_PLANE):
            alpha = (360.0 * i / _PER_PLANE + 360.0 * p / (2 * _PER_PLANE)) % 360.0
            sats.append(
                f'  {{ altitude = "780km", inclination = 86.4, longitude = {30.0 * p}, '
                f"alpha = {alpha!r}, plane = {p + 1} }},"
            )
    stations = "".join(
        f"""
[[ground_stations]]
name = "{name}"
lat = {lat}
lon = {lon}
constellation = "iri"
min_elevation = 8.2
handover = "ns2"
handover_interval = "10s"
"""
        for name, lat, lon in (("berkeley", 37.9, -122.3), ("boston", 42.3, -71.1))
    )
    if mode == "cbr":
        flow = """
[[flows]]
name = "probe"
type = "cbr"
from = "berkeley"
to = "boston"
packet_size = "88B"
rate = "88b"
start = "1s"
"""
    else:
        flow = """
[measure]
start = "1s"
[[flows]]
name = "tcp"
type = "tcp"
variant = "sack"
from = "berkeley"
to = "boston"
window = 20
segment_size = "1000B"
start = "1s"
"""
    return f"""name = "ns2-satellite-{mode}"
duration = "{duration:g}s"
[[constellations]]
name = "iri"
kind = "explicit"
isl = "grid"
isl_bandwidth = "25Mb"
gsl_bandwidth = "1.5Mb"
isl_queue = 50
gsl_queue = 50
isl_max_latitude = 60.0
isl_check_interval = "10s"
satellites = [
{chr(10).join(sats)}
]
{stations}{flow}"""


def _ns2_trace(mode: str, duration: float, tmp: Path) -> Path:
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / f"ns2-sat-{mode}.tr"
    script = str(ns2_oracle.script("satellite.tcl"))
    subprocess.run(
        [exe, script, mode, f"{duration:g}", str(out)], check=True, capture_output=True, cwd=tmp
    )
    return out


Delivered = tuple[float, float, tuple[int, ...]]


def _paths(trace: Path, src: int, dst: int, kind: str) -> dict[int, Delivered]:
    """Per packet delivered to `dst`: first enqueue time, arrival time, node path."""
    sent: dict[int, float] = {}
    path: dict[int, list[int]] = {}
    done: dict[int, Delivered] = {}
    with trace.open() as f:
        for line in f:
            x = line.split()
            if len(x) < 12 or x[4] != kind:
                continue
            ev, t, a, b, uid = x[0], float(x[1]), int(x[2]), int(x[3]), int(x[11])
            if ev == "+":
                if a == src and uid not in sent:
                    sent[uid] = t
                    path[uid] = [a]
                if uid in path:
                    path[uid].append(b)
            elif ev == "r" and b == dst and uid in sent:
                done[uid] = (sent[uid], t, tuple(path[uid]))
    return done


def _by_send_time(done: dict[int, Delivered]) -> list[Delivered]:
    return sorted(done.values())


def delay_checks(tmp: Path, quick: bool) -> list[Check]:
    duration = QUICK_S if quick else FULL_S
    theirs = _by_send_time(_paths(_ns2_trace("cbr", duration, tmp), _NS2_SRC, _NS2_DST, "cbr"))
    out = tmp / "ours-sat-cbr"
    run(scenario("cbr", duration), out=out, trace="ns2", force=True)
    mine = _by_send_time(_paths(out / "trace.tr", 0, 1, "cbr"))
    mine_at = {round(s, 3): (s, r, p) for s, r, p in mine}
    diffs: list[float] = []
    same = 0
    for s, r, p in theirs:
        m = mine_at.get(round(s, 3))
        if m is None:
            continue
        diffs.append(abs((m[1] - m[0]) - (r - s)))
        same += tuple(_ours_node(n) for n in p) == m[2]
    label = f"ns2/satellite.tcl, 6 x 11 polar, UDP every 8 s, {duration:g} s"
    matched = len(diffs)

    def changes(paths: list[tuple[int, ...]]) -> float:
        return float(sum(a != b for a, b in itertools.pairwise(paths)))

    return [
        Check(
            "sat_one_way_delay_max_diff_s",
            f"{label}, {matched} of {len(theirs)} packets matched",
            0.0,
            None,
            max(diffs) if diffs else float("nan"),
            None,
            _NS2_PRINT + 1e-6,
        ),
        Check(
            "sat_path_agreement",
            label,
            1.0,
            None,
            same / len(theirs) if theirs else float("nan"),
            None,
            0.0,
        ),
        Check(
            "sat_route_changes",
            label,
            changes([tuple(_ours_node(n) for n in p) for _, _, p in theirs]),
            None,
            changes([p for _, _, p in mine]),
            None,
            0.0,
        ),
    ]


def tcp_checks(tmp: Path, quick: bool) -> list[Check]:
    duration = TCP_QUICK_S if quick else TCP_FULL_S
    trace = _ns2_trace("tcp", duration, tmp)
    seqs: set[int] = set()
    with trace.open() as f:
        for line in f:
            x = line.split()
            if x[0] == "r" and x[3] == str(_NS2_DST) and x[4] == "tcp":
                seqs.add(int(x[10]))
    # Data packets delivered in order: the highest n with 0..n-1 all there.
    in_order = 0
    while in_order in seqs:
        in_order += 1
    window = duration - 1.0
    theirs = in_order / window
    s = run(scenario("tcp", duration)).summary["flows"]["tcp"]
    mine = float(s["goodput_bps"]) / 8.0 / 1000.0
    return [
        Check(
            "sat_tcp_goodput_pkts_per_s",
            f"ns2/satellite.tcl, TCP SACK window 20 Berkeley to Boston, {duration:g} s",
            theirs,
            None,
            mine,
            None,
            0.02 * theirs,
        )
    ]


def checks(tmp: Path, quick: bool) -> list[Check]:
    return delay_checks(tmp, quick) + tcp_checks(tmp, quick)
