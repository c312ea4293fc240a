"""`sctplab reproduce transports --quick` (issue 38, beyond the seeds) against what the
path and the headers imply, by hand:

- satellite, B = 32 KiB, no loss: every protocol is window-limited; no protocol can
  deliver more than one receive buffer per shortest round trip, 2 x (130 + 130) ms plus
  a 1500-byte packet's transmission at 5 and 10 Mb/s (0.5236 s); TCP's window is
  floor(32768 / 1460) = 22 segments of 1460 B. Each keeps at least half a buffer in
  flight on average (slow start and the handshake take a few of the 76 round trips);
- satellite, B = 512 KiB (above the 327 kB bandwidth-delay product), no loss: no
  protocol exceeds L1's 5 Mb/s, and each gets more than with 32 KiB;
- message delay: no message arrives before its one-way trip (260 ms of propagation);
- MANET: the receiver's ack packets are at least as large as their headers: TCP 40 B
  (IPv4 + TCP) and at most 68 B (three SACK blocks: 2 NOPs + 2 + 3 x 8); SCTP 48 B
  (IPv4 + common header + SACK chunk); a QUIC datagram with an ACK frame 59 B (IPv4 20
  + UDP 8 + short header 1 + 8-byte connection ID + 1-byte packet number + ACK frame of
  5 + AEAD tag 16). TCP's sink acks every segment (`delayed_ack = false`): at most one
  ack per data packet plus the duplicates' acks.
"""

from __future__ import annotations

import csv
from pathlib import Path

from conftest import sctplab

RTT_MIN_S = 0.52 + 1500 * 8 / 5e6 + 1500 * 8 / 10e6
KIB = 1024


def test_transports_quick(tmp_path: Path) -> None:
    out = tmp_path / "repro"
    r = sctplab("reproduce", "transports", "--quick", "--out", out)
    assert r.returncode == 0, r.stderr
    with (out / "transports" / "data.csv").open() as f:
        rows = list(csv.DictReader(f))
    mean = {(r["item"], r["series"], r["x"], r["metric"]): float(r["mean"]) for r in rows}

    def sat(series: str, buffer: int, metric: str = "goodput_bps") -> float:
        return mean[("satellite", series, str(buffer), metric)]

    small, large = 32 * KIB, 512 * KIB
    for p in ("tcp", "sctp", "quic"):
        credit = small // 1460 * 1460 if p == "tcp" else small
        bound = credit * 8 / RTT_MIN_S
        g = sat(f"{p}_e0", small)
        assert 0.5 * bound < g <= bound, (p, g, bound)
        big = sat(f"{p}_e0", large)
        assert g < big <= 5e6, (p, big)
    for p in ("sctp", "quic"):
        for loss in ("0", "0.03"):
            for b in (small, large):
                assert sat(f"{p}_e{loss}", b, "message_delay_mean_s") > 0.26
                assert sat(f"{p}_e{loss}", b, "message_delay_p99_s") > 0.26

    def manet(p: str, metric: str) -> float:
        name = {"tcp": "retransmitted_packets", "sctp": "retransmitted_packets"}.get(
            p, "lost_packets"
        )
        return mean[("manet", p, "10", name if metric == "repairs" else metric)]

    assert 40 <= manet("tcp", "bytes_per_ack") <= 68
    assert manet("sctp", "bytes_per_ack") >= 48
    assert manet("quic", "bytes_per_ack") >= 59
    assert manet("tcp", "ack_packets_per_data_packet") <= 1.05
    for p in ("tcp", "sctp", "quic"):
        assert manet(p, "goodput_bps") > 0, p
        assert manet(p, "repairs") >= 0, p
    # The CUBIC check compares the two with the same loss on the same path.
    assert ("cubic_check", "tcp-cubic", "0.01", "goodput_bps") in mean
    assert ("cubic_check", "quic-cubic", "0.01", "goodput_bps") in mean
    report = (out / "report.md").read_text()
    for png in ("satellite_goodput", "satellite_delay", "manet"):
        assert f"(transports/{png}.png)" in report
    for md in ("satellite_goodput", "satellite_delay", "cubic_check", "manet"):
        assert (out / "transports" / f"{md}.md").is_file()
