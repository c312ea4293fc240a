"""AQM and ECN as a user reaches them: the link key `aqm`, the flow key `ecn`, the ECN
field in pcap (decoded by tshark), and `--series queue_delay`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
from conftest import require_tshark, sctplab

SCENARIO = """
duration = "5s"
[[nodes]]
name = "a"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "b"
[[links]]
name = "l1"
a = "a"
b = "r1"
bandwidth = "100Mb"
delay = "1ms"
queue = 1000
[[links]]
name = "bn"
a = "r1"
b = "r2"
bandwidth = "10Mb"
delay = "20ms"
queue = 1000
aqm = { kind = "codel", ecn = true }
[[links]]
name = "l3"
a = "r2"
b = "b"
bandwidth = "100Mb"
delay = "1ms"
queue = 1000
[[flows]]
name = "t1"
type = "tcp"
variant = "sack"
from = "a"
to = "b"
window = 1000
ecn = true
"""


def ecn_counts(tshark: str, pcap: Path, flt: str) -> dict[int, int]:
    """Packets per ECN codepoint among those matching the display filter `flt`."""
    r = subprocess.run(
        [tshark, "-r", str(pcap), "-Y", flt, "-T", "fields", "-e", "ip.dsfield.ecn"],
        capture_output=True,
        text=True,
        check=True,
    )
    counts: dict[int, int] = {}
    for line in r.stdout.split():
        counts[int(line, 0)] = counts.get(int(line, 0), 0) + 1
    return counts


def test_pcap_shows_ect_and_ce(tmp_path: Path) -> None:
    tshark = require_tshark()
    path = tmp_path / "ecn.toml"
    path.write_text(SCENARIO)
    out = tmp_path / "run"
    r = sctplab("run", path, "--out", out, "--pcap", "--series", "queue_delay", "--quiet")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    marks = summary["links"]["r1->r2"]["ecn_marks"]
    assert marks > 0
    # Leaving a: every data segment ECT(0) (2), the acks coming back not-ECT (0).
    sent = ecn_counts(tshark, out / "pcap" / "a-eth0.pcap", "ip.src == 10.0.0.1 && tcp.len > 0")
    assert set(sent) == {2}, sent
    acks = ecn_counts(tshark, out / "pcap" / "a-eth0.pcap", "ip.dst == 10.0.0.1")
    assert set(acks) == {0}, acks
    # Arriving at b: the marked ones are CE (3), each counted by the receiver (the
    # window is the whole run); the last few marked were still on their way at the end.
    arrived = ecn_counts(tshark, out / "pcap" / "b-eth0.pcap", "ip.dst == 10.0.0.4 && tcp.len > 0")
    assert set(arrived) == {2, 3}, arrived
    assert arrived[3] == summary["flows"]["t1"]["ce_marks"]
    assert 0 <= marks - arrived[3] < 20
    series = pd.read_parquet(out / "series.parquet")
    delay = series[(series["variable"] == "queue_delay") & (series["entity"] == "r1->r2")]
    assert len(delay) > 0 and delay["value"].max() > 0
