"""Multihomed SCTP failover against ns-2.35 (rows of `sctplab validate ns2`).

One network, both simulators: scenarios/example-multihoming.toml with the `ns2` SCTP
preset, and python/sctplab/ns2/multihome.tcl, which builds the same dual-homed hosts the
way ns-2 does (a core node per host, one node per interface, `multihome-add-interface`
and `multihome-attach-agent`). The primary path's last link fails at 20 s and returns
at 100 s; the runs are deterministic (one seed), so each row compares one number:

- `mh_failover_s`: from the failure to the first new DATA chunk sent to the alternate
  (the primary has then been marked inactive after Path.Max.Retrans + 1 timeouts);
- `mh_first_new_tsn_alt`: that chunk's TSN (relative, 1 = first);
- `mh_rtx_chunks`: DATA chunks retransmitted over the run;
- `mh_delivered_before_B`, `mh_delivered_during_B`, `mh_delivered_after_B`: payload
  bytes of distinct chunks reaching the receiver in the 10 s before the failure,
  between the failure and the failover, and in 20 s on the alternate starting 5 s
  after the failover (each simulator's own failover time; the first seconds differ by
  the cwnd ramp explained in docs/validation.md).

Times in seconds, sizes in bytes. docs/validation.md discusses the differences.
"""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir
from sctplab.validation.check import Check

START, DOWN, UP, END = 1.0, 20.0, 100.0, 160.0
PAYLOAD = 1452  # 1468-byte DATA chunks (ns-2's dataChunkSize_) less the 16-byte header
BEFORE_S, AFTER_S = 10.0, 20.0
# The after-window starts this long after the failover: ns-2 halves an idle
# destination's cwnd every RTO down to 4 MTU (`CwndDegradeTimer`, RFC 9260 7.2.1), which
# sctplab does not model, so ns-2 starts on the alternate from 4 MTU and needs a few
# more round trips to reach the receive window (docs/validation.md gives the numbers).
RAMP_S = 5.0
SETS = {"flows.sctp1.variant": "ns2"}
# multihome.tcl's node numbers: h1_if0 1, h1_if1 2 (sender side), h2_if0 4, h2_if1 5.
_NS2_SENDER_IF = {"1": "primary", "2": "alternate"}
_NS2_RECEIVER_IF = {"4", "5"}
# Ours (trace.tr uses 0-based declaration indices): h1 0, h2 1.
_OURS_RECEIVER = "1"


class _Timeline:
    """What one simulator did: DATA sends (time, TSN, destination, new?) and the times
    distinct chunks reached the receiver."""

    def __init__(self) -> None:
        self.sends: list[tuple[float, int, str, bool]] = []
        self.delivered: list[float] = []

    def failover(self) -> tuple[float, int]:
        """(time, TSN) of the first new chunk to the alternate after the failure."""
        for t, tsn, dest, new in self.sends:
            if new and dest == "alternate" and t > DOWN:
                return t, tsn
        return float("nan"), 0

    def bytes_in(self, a: float, b: float) -> float:
        return float(PAYLOAD * sum(1 for t in self.delivered if a <= t < b))

    def rtx(self) -> int:
        return sum(1 for _, _, _, new in self.sends if not new)


def _ns2(tmp: Path) -> _Timeline:
    exe = ns2_oracle.ns2_binary()
    assert exe is not None
    out = tmp / "ns-multihome.tr"
    subprocess.run(
        [exe, str(ns2_oracle.script("multihome.tcl")), *map(str, (START, DOWN, UP, END)), str(out)],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    tl = _Timeline()
    highest, seen = 0, set()
    with out.open() as f:
        for line in f:
            x = line.split()
            # With show_sctphdr_ a DATA line's flags end in D and field 11 is the TSN.
            if len(x) < 12 or x[4] != "sctp" or not x[6].endswith("D"):
                continue
            tsn = int(x[11])
            if x[0] == "+" and x[2] in _NS2_SENDER_IF:
                tl.sends.append((float(x[1]), tsn, _NS2_SENDER_IF[x[2]], tsn > highest))
                highest = max(highest, tsn)
            elif x[0] == "r" and x[3] in _NS2_RECEIVER_IF and tsn not in seen:
                seen.add(tsn)
                tl.delivered.append(float(x[1]))
    out.unlink()
    return tl


def _ours(tmp: Path) -> _Timeline:
    out = tmp / "ours-multihome"
    run(
        scenarios_dir() / "example-multihoming.toml",
        seed=1,
        set=SETS,
        out=out,
        trace=["sends", "ns2"],
    )
    tl = _Timeline()
    dests = {"h2:eth0": "primary", "h2:eth1": "alternate"}
    with (out / "sends.csv").open() as f:
        for r in csv.DictReader(f):
            tl.sends.append(
                (float(r["time_s"]), int(r["seq"]), dests.get(r["dest"], ""), r["kind"] == "new")
            )
    seen: set[int] = set()
    with (out / "trace.tr").open() as f:
        for line in f:
            x = line.split()
            # DATA packets arriving at h2 (the only 1500-byte packets), numbered by TSN.
            if x[0] == "r" and x[3] == _OURS_RECEIVER and x[5] == "1500":
                n = int(x[10])
                if n not in seen:
                    seen.add(n)
                    tl.delivered.append(float(x[1]))
    return tl


def timelines(tmp: Path) -> tuple[_Timeline, _Timeline]:
    """(ns-2's, ours)."""
    return _ns2(tmp), _ours(tmp)


def checks(tmp: Path) -> list[Check]:
    """The rows: ns-2's value, ours and the tolerance (no intervals: one deterministic run each)."""

    def make(metric: str, scenario: str, ns2: float, ours: float, tolerance: float) -> Check:
        return Check(metric, scenario, ns2, None, ours, None, tolerance)

    theirs, mine = timelines(tmp)
    (t_ns, tsn_ns), (t_us, tsn_us) = theirs.failover(), mine.failover()
    name = "multihoming: primary link down 20-100 s (example-multihoming.toml, ns2 preset)"

    def windows(tl: _Timeline, fail: float) -> tuple[float, float, float]:
        return (
            tl.bytes_in(DOWN - BEFORE_S, DOWN),
            tl.bytes_in(DOWN, fail),
            tl.bytes_in(fail + RAMP_S, fail + RAMP_S + AFTER_S),
        )

    b_ns, d_ns, a_ns = windows(theirs, t_ns)
    b_us, d_us, a_us = windows(mine, t_us)
    return [
        # Six timeouts with doubling RTO: a shift of one T3 restart by a round trip of
        # the alternate (0.2 s) moves the failover; half of RTO.Min allows two.
        make("mh_failover_s", name, t_ns - DOWN, t_us - DOWN, 0.5),
        make("mh_first_new_tsn_alt", name, float(tsn_ns), float(tsn_us), 0.0),
        make("mh_rtx_chunks", name, float(theirs.rtx()), float(mine.rtx()), 2.0),
        make("mh_delivered_before_B", name, b_ns, b_us, 0.02 * b_ns),
        make("mh_delivered_during_B", name, d_ns, d_us, 2.0 * PAYLOAD),
        make("mh_delivered_after_B", name, a_ns, a_us, 0.02 * a_ns),
    ]


def _expiries(tl: _Timeline) -> list[float]:
    """Times of the timeouts on the primary: the starts of the retransmission bursts to
    the alternate (a burst's packets follow within 1.5 s)."""
    out: list[float] = []
    for t, _, dest, new in tl.sends:
        if not new and dest == "alternate" and (not out or t - out[-1] > 1.5):
            out.append(t)
    return out


def main() -> None:
    """`python -m sctplab.validation.multihoming`: the numbers docs/validation.md quotes."""
    import tempfile

    with tempfile.TemporaryDirectory() as t:
        theirs, mine = timelines(Path(t))
    for name, tl in (("ns-2.35", theirs), ("sctplab", mine)):
        fail, tsn = tl.failover()
        per5 = [int(tl.bytes_in(fail + a, fail + a + 5) // PAYLOAD) for a in range(0, 25, 5)]
        print(f"{name}: failover at {fail:.6f} s (TSN {tsn}), {tl.rtx()} chunks retransmitted")
        print(f"  primary timeouts (retransmission bursts): {[round(x, 6) for x in _expiries(tl)]}")
        print(f"  chunks delivered per 5 s from the failover: {per5}")
        print(f"  chunks delivered in [100 s, 160 s): {int(tl.bytes_in(UP, END) // PAYLOAD)}")


if __name__ == "__main__":
    main()
