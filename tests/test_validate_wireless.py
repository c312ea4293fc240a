"""The wireless rows of `sctplab validate ns2` (sctplab.validation.wireless)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sctplab.ns2 import oracle as ns2_oracle
from sctplab.runner import run
from sctplab.validation import wireless as validate_wireless
from sctplab.validation.check import COLUMNS


def require_ns2() -> None:
    if ns2_oracle.ns2_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("ns-2 is required in CI (scripts/test.sh installs Debian's ns2)")
        pytest.skip("ns-2 not installed")


# Long runs: there is no slow marker in pyproject.toml, so they wait for SCTPLAB_SLOW=1.
slow = pytest.mark.skipif(
    not os.environ.get("SCTPLAB_SLOW"), reason="long ns-2 comparison (set SCTPLAB_SLOW=1)"
)


# 1-hop bounds by hand, 802.11 at 2 Mb/s with RTS/CTS before every unicast frame
# (RTSThreshold_ 0), PLCP preamble + header 192 us at 1 Mb/s, MAC header + FCS 34 B:
#   RTS 192 + 20*4 = 272 us, CTS and ACK 192 + 14*4 = 248 us, SIFS 10 us, DIFS 50 us;
#   data frame (1400 + 40 B TCP/IP) 192 + 1474*4 = 6088 us; TCP ack (40 B) 192 + 74*4 = 488 us.
# An exchange is DIFS + RTS + SIFS + CTS + SIFS + frame + SIFS + ACK = 848 us + frame, and
# each segment takes two (the sink acks every segment): 848 * 2 + 6088 + 488 = 8272 us
# without backoff, so at most 1400 * 8 / 8.272 ms = 1.354 Mb/s. With the largest first
# backoff (31 slots of 20 us) before both exchanges, 8272 + 1240 = 9512 us: 1.177 Mb/s.
# Backoffs are uniform in [0, 31] slots, so a run's mean lies between the two, less a
# little for the flow's start (route discovery, SYN, slow start): 5 % allowed for that.
ONE_HOP_MAX_BPS = 1400 * 8 / 8272e-6
ONE_HOP_ALL_MAX_BACKOFF_BPS = 1400 * 8 / 9512e-6


def test_one_hop_chain_in_both_is_within_the_dcf_bounds(tmp_path: Path) -> None:
    require_ns2()
    duration = 10.0
    theirs = validate_wireless.ns2_chain_throughput(1, 1, duration, tmp_path)
    ours = run(validate_wireless.chain_scenario(1, duration), seed=1)
    mine = float(ours.summary["flows"]["tcp"]["goodput_bps"])
    for bps in (theirs, mine):
        assert 0.95 * ONE_HOP_ALL_MAX_BACKOFF_BPS < bps < ONE_HOP_MAX_BPS


def test_seven_hop_chain_runs_in_ns2_and_delivers(tmp_path: Path) -> None:
    require_ns2()
    # A 7-hop route exists (neighbours 200 m apart, range 250 m), so data arrives. The
    # senders of three consecutive hops are at most 400 m apart, inside the 550 m carrier
    # sense range, so a segment's first three hops (and their acks) cannot overlap: at
    # most a third of the 1-hop maximum.
    theirs = validate_wireless.ns2_chain_throughput(7, 2, 5.0, tmp_path)
    assert 0 < theirs < ONE_HOP_MAX_BPS / 3
    assert not list(tmp_path.glob("*.tr"))


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_tcp_agent_trace_counts(tmp_path: Path) -> None:
    # A hand-made AGT trace of a flow 0 -> 3: SYN (segment 0) at 1.0 s, its ack back at
    # node 0 at 1.015 s (connect time 15 ms), segments 1, 2, 3 sent, 2 lost and sent
    # again, one SACK ack of 1 block (48 B). In order at node 3:
    # 1 at 1.1 s, then 2 and 3 at 1.5 s, all before end = 2 s, so 3 * 1400 bytes; one
    # retransmission; acks after the first data segment: 3 (40 + 48 + 40 = 128 B).
    fmt = "{e} {t:.9f} _{n}_ AGT  --- {u} {k} {s} [0 0 0 0] ------- [0:0 3:0 32 0] [{q} 0] 0 0"
    tr = _write(
        tmp_path / "t.tr",
        [
            fmt.format(e="s", t=1.0, n=0, u=0, k="tcp", s=40, q=0),
            fmt.format(e="r", t=1.01, n=3, u=0, k="tcp", s=40, q=0),
            fmt.format(e="s", t=1.01, n=3, u=1, k="ack", s=40, q=0),
            fmt.format(e="r", t=1.015, n=0, u=1, k="ack", s=40, q=0),
            fmt.format(e="s", t=1.02, n=0, u=2, k="tcp", s=1440, q=1),
            fmt.format(e="s", t=1.02, n=0, u=3, k="tcp", s=1440, q=2),
            fmt.format(e="s", t=1.03, n=0, u=4, k="tcp", s=1440, q=3),
            "D 1.05 _1_ IFQ  ARP 3 tcp 1440 [0 0 0 0] ------- [0:0 3:0 32 0] [2 0] 0 0",
            fmt.format(e="r", t=1.1, n=3, u=2, k="tcp", s=1440, q=1),
            fmt.format(e="s", t=1.1, n=3, u=5, k="ack", s=40, q=1),
            fmt.format(e="r", t=1.2, n=3, u=4, k="tcp", s=1440, q=3),
            fmt.format(e="s", t=1.2, n=3, u=6, k="ack", s=48, q=1),
            fmt.format(e="s", t=1.4, n=0, u=7, k="tcp", s=1440, q=2),
            fmt.format(e="r", t=1.5, n=3, u=7, k="tcp", s=1440, q=2),
            fmt.format(e="s", t=1.5, n=3, u=8, k="ack", s=40, q=3),
        ],
    )
    c = validate_wireless.read_tcp_agt(tr, 0, 3, 1.0, 2.0)
    assert (c.delivered_bytes, c.retransmissions, c.ack_packets, c.ack_bytes) == (
        3 * 1400,
        1,
        3,
        128,
    )
    assert c.connect_time_s == pytest.approx(0.015, abs=1e-9)
    # With end = 1.3 s only segment 1 is in order in the window, and one ack is after it.
    c = validate_wireless.read_tcp_agt(tr, 0, 3, 1.0, 1.3)
    assert (c.delivered_bytes, c.ack_packets) == (1400, 2)


def test_sctp_agent_trace_counts(tmp_path: Path) -> None:
    # Node 0 sends TSNs 1-2, 3-4 (2 chunks a packet, the trace shows the last), 3-4 again
    # (2 retransmitted chunks); node 1 SACKs cum TSN 2 and 4 (48 B each) and one
    # HEARTBEAT-ACK (not a SACK). Delivered: cum TSN 4 * 684 B.
    fmt = "{e} {t:.9f} _{n}_ AGT  --- {u} sctp {s} [0 0 0 0] ------- [0:0 1:0 32 0] [{c}] 0 0"
    tr = _write(
        tmp_path / "s.tr",
        [
            fmt.format(e="s", t=20.0, n=0, u=0, s=56, c="1 I -1 65535 65535"),
            fmt.format(e="s", t=21.0, n=0, u=1, s=1432, c="2 D 2 0 1"),
            fmt.format(e="s", t=21.0, n=0, u=2, s=1432, c="2 D 4 0 3"),
            fmt.format(e="s", t=21.1, n=1, u=3, s=48, c="1 S 2 65535 65535"),
            fmt.format(e="s", t=22.0, n=0, u=4, s=1432, c="2 D 4 0 3"),
            fmt.format(e="s", t=22.1, n=1, u=5, s=56, c="1 B -1 65535 65535"),
            fmt.format(e="s", t=22.2, n=1, u=6, s=48, c="1 S 4 65535 65535"),
        ],
    )
    c = validate_wireless.read_sctp_agt(tr, 0, 1, 20.0, 30.0)
    assert (c.delivered_bytes, c.retransmissions, c.ack_packets, c.ack_bytes) == (
        4 * 684,
        2,
        2,
        96,
    )


def test_rows_have_the_contract_columns(tmp_path: Path) -> None:
    require_ns2()
    # A short version of the rows: 2 seeds of 3 s per chain, 2 movements of 5 s of MANET
    # at two speeds.
    rows = validate_wireless.chain(tmp_path, 2, 3.0) + validate_wireless.manet(
        tmp_path, 2, 25.0, speeds=(1, 20)
    )
    # Per speed: TCP's three metrics and its connect time, SCTP's three.
    assert len(rows) == 7 + 2 * (4 + 3) == 7 + validate_wireless.manet_rows(2)
    assert [r.metric for r in rows[7:]] == [
        f"manet_{t}_{m}"
        for _ in (1, 20)
        for t in ("tcp", "sctp")
        for m in validate_wireless.MANET_METRICS + (("connect_time_s",) if t == "tcp" else ())
    ]
    assert all("1 m/s" in r.scenario for r in rows[7:14])
    assert all("20 m/s" in r.scenario for r in rows[14:])
    for r in rows:
        cells = r.cells()
        assert len(cells) == len(COLUMNS)
        assert cells[-1] in ("yes", "no")
        # ns-2 mean, ours, difference and tolerance are numbers.
        for i in (2, 4, 6, 7):
            float(cells[i])


def test_paired_confidence_is_bonferronis() -> None:
    # 5 % for the family: 28 rows (4 speeds x (TCP's 4 metrics + SCTP's 3)) at
    # 1 - 0.05 / 28 = 0.998214 each; 7 rows (--quick) at 1 - 0.05 / 7 = 0.992857.
    assert validate_wireless.manet_rows(4) == 28
    assert validate_wireless.manet_rows(1) == 7
    assert validate_wireless.paired_confidence(28) == pytest.approx(0.998214, abs=1e-6)
    assert validate_wireless.paired_confidence(7) == pytest.approx(0.992857, abs=1e-6)
    assert validate_wireless.paired_confidence(24) == pytest.approx(0.997917, abs=1e-6)
    assert validate_wireless.paired_confidence(6) == pytest.approx(0.991667, abs=1e-6)


def test_the_movement_follows_the_speed() -> None:
    # setdest lines: `$ns_ at T "$node_(i) setdest X Y SPEED"`; no leg is faster than
    # the maximum speed, and the 1 m/s and 20 m/s files differ.
    def speeds(text: str) -> list[float]:
        return [
            float(line.split()[-1].rstrip('"')) for line in text.splitlines() if "setdest" in line
        ]

    slow_mv = validate_wireless.manet_movement(1, 1)
    fast_mv = validate_wireless.manet_movement(20, 1)
    assert slow_mv != fast_mv
    assert 0 < max(speeds(slow_mv)) <= 1.0
    assert 1.0 < max(speeds(fast_mv)) <= 20.0


def test_ns2_results_come_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_ns2()
    # One movement of 2 s of transport time: the first call runs ns-2 and fills the
    # cache; the second must not run ns-2 (it would raise) and gives the same counts;
    # other CBR pairs are another key, so ns-2 runs again.
    cache = tmp_path / "cache"
    mv = tmp_path / "movement.tcl"
    mv.write_text(validate_wireless.manet_movement(10, 1))
    pairs = validate_wireless.manet_pairs("tcp", 1, mv, 10)
    first = validate_wireless.manet_ns2("tcp", 1, mv, pairs, 22.0, tmp_path, cache)
    assert len(list((cache / "manet").glob("*.json"))) == 1

    def no_ns2(args: list[str], tmp: Path) -> None:
        raise AssertionError("ns-2 ran although the cache holds the result")

    monkeypatch.setattr(validate_wireless, "_ns", no_ns2)
    assert validate_wireless.manet_ns2("tcp", 1, mv, pairs, 22.0, tmp_path, cache) == first
    with pytest.raises(AssertionError, match="cache holds"):
        validate_wireless.manet_ns2("tcp", 1, mv, pairs[1:], 22.0, tmp_path, cache)


@slow
def test_full_wireless_rows_pass(tmp_path: Path) -> None:
    require_ns2()
    # SCTPLAB_NS2_CACHE: a folder of ns-2 results kept between runs (the full set is 96
    # MANET runs of ns-2, 17-45 s of CPU each).
    cache = os.environ.get("SCTPLAB_NS2_CACHE")
    rows = validate_wireless.wireless(
        tmp_path, quick=False, cache=Path(cache) if cache else tmp_path / "ns2-cache"
    )
    failed = [r.cells() for r in rows if not r.passed]
    assert not failed
