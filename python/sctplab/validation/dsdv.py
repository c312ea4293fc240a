"""The DSDV rows of `sctplab validate ns2`: our DSDV (`[wireless] routing = "dsdv"`)
against ns-2.35's `Agent/DSDV` on seed 004's scenario (scenarios/manet-tcp.toml).

As the AODV MANET rows (sctplab.validation.wireless): the random-waypoint movement
sctplab draws for seed K is exported as an ns-2 setdest file and replayed by both,
ns-2 is given the CBR pairs and start times of our run of seed K, and the per-movement
differences are paired. ns-2 runs python/sctplab/ns2/manet.tcl with ROUTING = DSDV,
which adds the routing-level (RTR) trace lines. Four rows per speed:
- `dsdv_delivery_ratio`: CBR packets delivered over CBR packets sent, of the packets
  sent from the transport's start (20 s) to the end;
- `dsdv_routing_packets`: routing packets sent over the whole run (ns-2: `s` lines of
  type `message` at RTR; ours: `routing_packets` summed over nodes), each node's
  update counted once (DSDV's updates are one-hop broadcasts);
- `dsdv_tcp_connect_time_s`: SYN to its ack at the sender (censored at the window
  when it never opens);
- `dsdv_tcp_goodput_bps`: TCP-SACK payload delivered in order from 20 s to the end.
A row passes when the interval of the paired differences (Bonferroni over the rows
at 5 %) contains 0, or within 2 % of ns-2's mean. ns-2's results are cached
(ns2_oracle.Ns2Cache).
"""

from __future__ import annotations

from pathlib import Path

from sctplab.validation import routing_replay as rr
from sctplab.validation.check import Check
from sctplab.validation.routing_replay import FULL, METRICS, QUICK, Plan, Point

__all__ = ["FULL", "METRICS", "PROTOCOL", "QUICK", "Plan", "Point", "checks", "read_dsdv_trace"]


def read_dsdv_trace(path: Path, start: float, end: float) -> tuple[int, int, int]:
    """(CBR packets sent in [start, end), those of them received, routing packets) from
    an ns-2 trace (DSDV's updates are `message` packets sent at RTR)."""
    return rr.read_trace(path, start, end, PROTOCOL)


PROTOCOL = rr.Protocol(name="dsdv", ns2="DSDV", trace_events=("s",), trace_type="message")


def checks(
    tmp: Path,
    quick: bool = False,
    cache: Path | None = None,
    jobs: int | None = None,
    plan: Plan | None = None,
) -> list[Check]:
    """The DSDV rows, per speed the four metrics, paired over movements (`plan`, if
    given, instead of QUICK or FULL)."""
    del tmp  # each job has a directory of its own
    return rr.checks(PROTOCOL, quick, cache, jobs, plan)


if __name__ == "__main__":
    raise SystemExit(rr.main(PROTOCOL))
