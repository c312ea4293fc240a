"""`sctplab validate ns2 --quick` compares with ns-2.35 and passes today."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from conftest import sctplab

from sctplab.ns2 import oracle as ns2_oracle


def test_validate_ns2_quick(tmp_path: Path) -> None:
    if ns2_oracle.ns2_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("ns-2 is required in CI (scripts/test.sh installs Debian's ns2)")
        pytest.skip("ns-2 not installed")
    r = sctplab("validate", "ns2", "--quick", "--out", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    with (tmp_path / "validation.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "metric",
        "scenario",
        "ns2_mean",
        "ns2_ci95",
        "ours",
        "ours_ci95",
        "difference",
        "tolerance",
        "pass",
    ]
    assert all(row["pass"] == "yes" for row in rows)
    # Progress on stderr as each group of rows ends, the pass count as the last line, and
    # --quick's MANET rows marked as smoke tests.
    assert r.stdout.splitlines()[-1] == f"{len(rows)}/{len(rows)} checks pass"
    assert "sctplab validate ns2: [7/11] wireless" in r.stderr
    assert "sctplab validate ns2: [8/11] wireless: DSDV" in r.stderr
    assert "sctplab validate ns2: [9/11] wireless: DSR" in r.stderr
    assert "sctplab validate ns2: [10/11] satellites" in r.stderr
    assert "(smoke test: --quick)" in (tmp_path / "validation.md").read_text()
    # 24 TCP + 6 SCTP drop scenarios x 4 order checks, 5 statistical rows, TCP and
    # TCP-snoop transfer times at two loss rates, 6 multihoming rows, 8 CMT rows, 6
    # Timestamp drop scenarios x (4 order checks and the SRTT agreement), and 18 wireless
    # rows (7 chains, 4 MANET TCP metrics (connect time included) and 3 MANET SCTP
    # metrics at 10 m/s, the saturated cell at n = 5 and 20 with RTS/CTS and basic
    # access), then 4 DSDV rows and 4 DSR rows at 10 m/s, 4 satellite rows and 3 RED rows.
    assert "sctplab validate ns2: [11/11] RED" in r.stderr
    assert len(rows) == 30 * 4 + 5 + 4 + 6 + 8 + 6 * 5 + 18 + 4 + 4 + 4 + 3
    red = rows[-3:]
    rows = rows[:-3]
    assert [r["metric"] for r in red] == [
        "red_packets_sent",
        "red_drops",
        "red_mean_queue_packets",
    ]
    sat = rows[-4:]
    rows = rows[:-4]
    assert [r["metric"] for r in sat] == [
        "sat_one_way_delay_max_diff_s",
        "sat_path_agreement",
        "sat_route_changes",
        "sat_tcp_goodput_pkts_per_s",
    ]
    dsr = rows[-4:]
    rows = rows[:-4]
    assert [r["metric"] for r in dsr] == [
        "dsr_delivery_ratio",
        "dsr_routing_packets",
        "dsr_tcp_connect_time_s",
        "dsr_tcp_goodput_bps",
    ]
    dsdv = rows[-4:]
    rows = rows[:-4]
    assert [r["metric"] for r in dsdv] == [
        "dsdv_delivery_ratio",
        "dsdv_routing_packets",
        "dsdv_tcp_connect_time_s",
        "dsdv_tcp_goodput_bps",
    ]
    snoop = [r["metric"] for r in rows[-66:-62]]
    assert snoop == ["tcp_transfer_time_s", "tcp_snoop_transfer_time_s"] * 2
    assert (tmp_path / "validation.md").read_text().startswith("# sctplab against ns-2.35")
    assert [r["metric"] for r in rows[-62:-56]] == [
        "mh_failover_s",
        "mh_first_new_tsn_alt",
        "mh_rtx_chunks",
        "mh_delivered_before_B",
        "mh_delivered_during_B",
        "mh_delivered_after_B",
    ]
    assert [r["metric"] for r in rows[-56:-48]] == [
        "cmt_goodput_bps",
        "single_goodput_bps",
        "cmt_goodput_loss1pct_bps",
        "cmt_over_single",
        "cmt_swnd64k_loss1pct_bps",
        "cmt_swnd64k_nrsack_loss1pct_bps",
        "nrsack_gain",
        "cmt_rwnd64k_bps",
    ]
    order = ["send_order_agreement", "send_order_count_5s"]
    order += ["forward_order_agreement", "forward_order_count_5s", "srtt_agreement"]
    assert [r["metric"] for r in rows[-48:-18]] == order * 6
    assert rows[-48]["scenario"] == "seed002-sctp-timestamp-d0"
    assert [r["metric"] for r in rows[-4:]] == ["cell_throughput_bps"] * 4
    # The wireless rows' ns-2 results went to the default cache under --out.
    assert list((tmp_path / "ns2-cache" / "manet").glob("*.json"))
    assert list((tmp_path / "ns2-cache" / "dsdv").glob("*.json"))
    assert list((tmp_path / "ns2-cache" / "dsr").glob("*.json"))
