"""`sctplab validate ns2` rows of the `timestamp` flow key against ns-2.35's
Agent/SCTP/Timestamp: seed 002's topology and drop lists (python/sctplab/ns2/
sctp_seed002.tcl with the Timestamp agent at both ends), send and forward order packet
for packet as the seed 002 rows compare them, and the sender's SRTT update by update
(`srtt_agreement`): ns-2's `rto_` trace prints SRTT (3 decimals) at every RTT update;
ours is sampled every millisecond (`--series srtt`). Both become the sequence of
distinct consecutive values at 3 decimals (ns-2's updates are 10 ms apart or more, or
several at one instant, of which the last counts), and the row is the share of ns-2's
sequence we follow before the first difference. The base agent updates SRTT once per
round trip, the Timestamp agent on every SACK, so this row tells the two apart; times
are not compared (our handshake packets are larger than ns-2's, which moves our data
1.6 ms later).

The TIMESTAMP chunk takes 12 bytes of every packet, so ns-2 needs its DATA chunks 12
bytes smaller (1004 bytes, 988 of data, in the same 1048-byte MTU): ours runs the same
scenario files with `timestamp = true` and 988-byte messages. ns-2's MTU in cwnd
arithmetic shrinks with it (`uiMaxDataSize`, 1004 bytes), so its initial cwnd is
min(4 x 1004, max(4380, 2 x 1004)) = 4016 bytes. Retransmissions are timed too, so the
RTO after a loss, and with it when T3 expires, differs from the base agent's."""

from __future__ import annotations

import re
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


_RTO_LINE = re.compile(r"time: \S+ .*srtt: (\S+)")


def _distinct(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in values:
        if not out or out[-1] != v:
            out.append(v)
    return out


def read_rto_trace(text: str) -> list[float]:
    """SRTT after each of ns-2's RTT updates (its `rto_` trace), the last of several at
    one instant; the initial line (no measurement yet, SRTT 0) left out."""
    last: dict[str, float] = {}
    for line in text.splitlines():
        m = _RTO_LINE.match(line)
        if m:
            last[line.split()[1]] = float(m.group(1))
    return _distinct([v for v in last.values() if v > 0.0])


def run_ns2(drops: list[int], queue: int = 8) -> tuple[ns2_oracle.Ns2Packets, list[float]]:
    """Seed 002's SCTP case with Agent/SCTP/Timestamp; `drops` are 1-based TSNs (an
    INIT, a COOKIE-ECHO and a HEARTBEAT precede TSN 1 on R1->K1, as for the base
    agent). Returns the packets and the SRTT sequence (`read_rto_trace`)."""
    exe = ns2_oracle.ns2_binary()
    if exe is None:
        raise FileNotFoundError("ns (Debian package ns2) is not installed")
    ns_drops = " ".join(str(d + 2) for d in drops)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.tr"
        rto = Path(tmp) / "rto.tr"
        subprocess.run(
            [
                exe,
                str(ns2_oracle.script("sctp_seed002.tcl")),
                ns_drops,
                str(queue),
                str(out),
                AGENT,
                str(CHUNK),
                str(rto),
            ],
            check=True,
            capture_output=True,
            cwd=tmp,
        )
        pkts = ns2_oracle.read_sctp_trace(out, sender=(0, 1), link=(1, 2))
        return pkts, read_rto_trace(rto.read_text())


def checks(tmp: Path) -> list[Check]:
    out: list[Check] = []
    golden = scenarios_dir() / "golden"
    for d, drops in ns2_oracle.SEED002_DROPS.items():
        theirs, their_srtt = run_ns2(drops)
        folder = tmp / f"sctp-timestamp-d{d}"
        sets = {**SETS, "series.interval": "1ms"}
        r = run(
            golden / f"seed002-sctp-newreno-d{d}.toml",
            set=sets,
            out=folder,
            trace=["ns2"],
            series=["srtt"],
        )
        mine = ns2_oracle.read_trace(folder / "trace.tr", (0, 1), (1, 2), "sctp", True)
        name = f"seed002-sctp-timestamp-d{d}"
        out += _order_checks(name, mine, theirs)
        s = r.series
        srtt = s[(s["variable"].astype(str) == "srtt") & s["value"].notna()]
        my_srtt = _distinct([round(float(v), 3) for v in srtt.sort_values("time_s")["value"]])
        common = min(len(my_srtt), len(their_srtt))
        first_diff = next((i for i in range(common) if my_srtt[i] != their_srtt[i]), common)
        share = first_diff / max(len(their_srtt), 1)
        out.append(Check("srtt_agreement", name, 1.0, None, share, None, 0.01))
    return out
