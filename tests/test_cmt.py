"""CMT-SCTP (issue 35) through the Python API: scenarios/cmt.toml's two disjoint 2 Mb/s
paths carry about twice one path's goodput, and a CMT run is deterministic."""

from __future__ import annotations

from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir

CMT = scenarios_dir() / "cmt.toml"


def test_cmt_doubles_goodput_over_two_equal_disjoint_paths() -> None:
    cmt = run(CMT, seed=1).summary["flows"]["sctp1"]
    one = run(CMT, seed=1, set={"flows.sctp1.cmt": False}).summary["flows"]["sctp1"]
    # Issue 35: at least 1.8x one path's goodput on two equal disjoint paths.
    assert cmt["goodput_bps"] >= 1.8 * one["goodput_bps"]
    # Both destinations carry data with CMT; without it the alternate carries only the
    # retransmissions the ns2 preset sends there (`rtxToAlt_`): a handful of chunks.
    assert all(p["bytes_acked"] > 0.4 * cmt["delivered_bytes"] for p in cmt["paths"].values())
    assert one["paths"]["h2:eth1"]["bytes_acked"] < 0.01 * one["delivered_bytes"]
    # bytes_acked counts user data acknowledged in the window: it adds up to what was
    # delivered there, up to the chunks in flight at the window's edges.
    acked = sum(p["bytes_acked"] for p in cmt["paths"].values())
    assert abs(acked - cmt["delivered_bytes"]) <= 200 * 1452


def test_cmt_runs_are_deterministic() -> None:
    sets = {"links.rb_h2.loss.rate": 0.01}
    a = run(CMT, seed=3, set=sets).summary
    b = run(CMT, seed=3, set=sets).summary
    assert a == b
