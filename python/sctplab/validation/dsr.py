"""The DSR rows of `sctplab validate ns2`: our DSR (`[wireless] routing = "dsr"`) against
ns-2.35's `Agent/DSRAgent` (with CMUPriQueue) on seed 004's scenario
(scenarios/manet-tcp.toml), as the DSDV rows (sctplab.validation.dsdv) compare DSDV:
the movement sctplab draws for seed K replayed by both, ns-2 given the CBR pairs and
start times of our run, per-movement differences paired. ns-2 runs
python/sctplab/ns2/manet.tcl with ROUTING = DSR. Four rows per speed:
- `dsr_delivery_ratio`: CBR packets delivered over CBR packets sent from the
  transport's start (20 s) to the end;
- `dsr_routing_packets`: DSR packets transmitted over the whole run, each hop counted
  (ns-2: `s` and `f` lines of type `DSR` at RTR; ours: `routing_packets` summed over
  nodes);
- `dsr_tcp_connect_time_s`: SYN to its ack at the sender (censored at the window);
- `dsr_tcp_goodput_bps`: TCP-SACK payload delivered in order from 20 s to the end.
Known difference: ns-2.35 runs DSR's flow-state extension (`dsragent_enable_flowstate`),
which we do not build: its established flows send data without the source route
(docs/models/wireless.md, DSR).
"""

from __future__ import annotations

from pathlib import Path

from sctplab.validation import routing_replay as rr
from sctplab.validation.check import Check
from sctplab.validation.routing_replay import FULL, METRICS, QUICK, Plan, Point

__all__ = ["FULL", "METRICS", "PROTOCOL", "QUICK", "Plan", "Point", "checks", "read_dsr_trace"]


def read_dsr_trace(path: Path, start: float, end: float) -> tuple[int, int, int]:
    """(CBR packets sent in [start, end), those of them received, routing packets) from
    an ns-2 trace (DSR packets sent or forwarded at RTR)."""
    return rr.read_trace(path, start, end, PROTOCOL)


PROTOCOL = rr.Protocol(name="dsr", ns2="DSR", trace_events=("s", "f"), trace_type="DSR")


def checks(
    tmp: Path,
    quick: bool = False,
    cache: Path | None = None,
    jobs: int | None = None,
    plan: Plan | None = None,
) -> list[Check]:
    """The DSR rows, per speed the four metrics, paired over movements (`plan`, if
    given, instead of QUICK or FULL)."""
    del tmp  # each job has a directory of its own
    return rr.checks(PROTOCOL, quick, cache, jobs, plan)


if __name__ == "__main__":
    raise SystemExit(rr.main(PROTOCOL))
