"""`sctplab validate ns2` rows of the `timestamp` flow key against ns-2.35's
Agent/SCTP/Timestamp: seed 002's topology and drop lists (python/sctplab/ns2/
sctp_seed002.tcl with the Timestamp agent at both ends), send and forward order packet
for packet as the seed 002 rows compare them.

The TIMESTAMP chunk takes 12 bytes of every packet, so ns-2 needs its DATA chunks 12
bytes smaller (1004 bytes, 988 of data, in the same 1048-byte MTU): ours runs the same
scenario files with `timestamp = true` and 988-byte messages. ns-2's MTU in cwnd
arithmetic shrinks with it (`uiMaxDataSize`, 1004 bytes), so its initial cwnd is
min(4 x 1004, max(4380, 2 x 1004)) = 4016 bytes. Retransmissions are timed too, so the
RTO after a loss, and with it when T3 expires, differs from the base agent's."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir
from sctplab.validation.check import Check
from sctplab.validation.seed002 import _order_checks

AGENT = "SCTP/Timestamp"
CHUNK = 1004
SETS = {
    "flows.sctp1.variant": "ns2",
    "flows.sctp1.timestamp": True,
    "flows.sctp1.message_size": f"{CHUNK - 16}B",
    "flows.sctp1.initial_cwnd": f"{4 * CHUNK}B",
}


def run_ns2(drops: list[int], queue: int = 8) -> ns2_oracle.Ns2Packets:
    """Seed 002's SCTP case with Agent/SCTP/Timestamp; `drops` are 1-based TSNs (an
    INIT, a COOKIE-ECHO and a HEARTBEAT precede TSN 1 on R1->K1, as for the base
    agent)."""
    exe = ns2_oracle.ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    ns_drops = " ".join(str(d + 2) for d in drops)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.tr"
        subprocess.run(
            [
                exe,
                str(ns2_oracle.script("sctp_seed002.tcl")),
                ns_drops,
                str(queue),
                str(out),
                AGENT,
                str(CHUNK),
            ],
            check=True,
            capture_output=True,
            cwd=tmp,
        )
        return ns2_oracle.read_sctp_trace(out, sender=(0, 1), link=(1, 2))


def checks(tmp: Path) -> list[Check]:
    out: list[Check] = []
    golden = scenarios_dir() / "golden"
    for d, drops in ns2_oracle.SEED002_DROPS.items():
        theirs = run_ns2(drops)
        folder = tmp / f"sctp-timestamp-d{d}"
        run(golden / f"seed002-sctp-newreno-d{d}.toml", set=SETS, out=folder, trace=["ns2"])
        mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "sctp", True)
        out += _order_checks(f"seed002-sctp-timestamp-d{d}", mine, theirs)
    return out
