"""AQM and ECN as a user reaches them: the link key `aqm`, the flow key `ecn`, the ECN
field in pcap (decoded by tshark), and `--series queue_delay`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from conftest import require_tshark, sctplab
from pcap_fields import ecn_counts, tshark_fields

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


def test_tcp_ece_and_cwr_in_pcap(tmp_path: Path) -> None:
    """RFC 3168 sec. 6.1 as tshark reads it: an ECN-setup SYN (ECE+CWR) and SYN-ACK
    (ECE), ECE on the acks after a CE, CWR on a later data segment, and no
    retransmission for a mark."""
    tshark = require_tshark()
    path = tmp_path / "ecn.toml"
    # The flow's `ecn` is the last line of SCENARIO: the flow gets the handshake.
    path.write_text(SCENARIO + "handshake = true\n")
    out = tmp_path / "run"
    r = sctplab("run", path, "--out", out, "--pcap", "--quiet")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"]["t1"]
    assert flow["ecn_reductions"] > 0 and flow["retransmissions"] == 0, flow
    pcap = out / "pcap" / "a-eth0.pcap"
    syn = tshark_fields(
        tshark, pcap, "tcp.flags.syn == 1", "tcp.flags.ack", "tcp.flags.ece", "tcp.flags.cwr"
    )
    flags = [[v in ("1", "True") for v in row] for row in syn]
    assert flags == [[False, True, True], [True, True, False]], syn
    ece = tshark_fields(tshark, pcap, "tcp.flags.ece == 1 && tcp.flags.syn == 0", "ip.src")
    cwr = tshark_fields(
        tshark, pcap, "tcp.flags.cwr == 1 && tcp.flags.syn == 0", "ip.src", "tcp.len"
    )
    assert ece and all(row == ["10.0.0.4"] for row in ece)
    assert cwr and all(row[0] == "10.0.0.1" and int(row[1]) > 0 for row in cwr)


def test_sctp_ecne_and_cwr_in_pcap(tmp_path: Path) -> None:
    """RFC 9260 appendix A as tshark reads it (CRC32c checked): the ECN Capable
    parameter in INIT and INIT ACK, ECNE chunks from the receiver, CWR chunks from the
    sender, ECT(0) DATA, and no retransmission for a mark."""
    tshark = require_tshark()
    text = SCENARIO.replace(
        'type = "tcp"\nvariant = "sack"\nfrom = "a"\nto = "b"\nwindow = 1000\n',
        'type = "sctp"\nvariant = "newreno"\nfrom = "a"\nto = "b"\nreceive_buffer = "4MB"\n',
    )
    assert 'type = "sctp"' in text
    path = tmp_path / "ecn.toml"
    path.write_text(text)
    out = tmp_path / "run"
    r = sctplab("run", path, "--out", out, "--pcap", "--quiet")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    flow = summary["flows"]["t1"]
    assert flow["ecn_reductions"] > 0 and flow["retransmissions"] == 0, flow
    pcap = out / "pcap" / "a-eth0.pcap"
    params = tshark_fields(tshark, pcap, "sctp.parameter_type == 0x8000", "sctp.chunk_type")
    assert sorted(row[0] for row in params) == ["1", "2"], params
    ecne = tshark_fields(
        tshark,
        pcap,
        "sctp.chunk_type == 12",
        "ip.src",
        "sctp.ecne_lowest_tsn",
        "sctp.checksum.status",
    )
    cwr = tshark_fields(
        tshark,
        pcap,
        "sctp.chunk_type == 13",
        "ip.src",
        "sctp.cwr_lowest_tsn",
        "sctp.checksum.status",
    )
    assert ecne and all(row[0] == "10.0.0.4" and row[2] == "1" for row in ecne), ecne[:3]
    assert cwr and all(row[0] == "10.0.0.1" and row[2] == "1" for row in cwr), cwr[:3]
    # Every CWR answers a TSN some ECNE carried.
    assert {row[1] for row in cwr} <= {row[1] for row in ecne}
    data = ecn_counts(tshark, pcap, "sctp.chunk_type == 0")
    assert set(data) == {2}, data
