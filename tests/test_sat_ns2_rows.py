"""The satellite rows of `sctplab validate ns2` (issue 39) in their --quick form: ns-2.35's
satellite module and ours on the polar constellation of ns2/satellite.tcl. The TCP row
runs 200 s in both and is marked slow."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sctplab.validation import satellite

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed")


def test_one_way_delay_and_paths_sample_by_sample(tmp_path: Path) -> None:
    rows = {c.metric: c for c in satellite.delay_checks(tmp_path, quick=True)}
    for c in rows.values():
        assert c.passed, c.cells()
    # 1000 s at one packet every 8 s from 1 s: 125 packets, each matched.
    assert "125 of 125 packets matched" in rows["sat_one_way_delay_max_diff_s"].scenario
    assert rows["sat_route_changes"].ns2_mean > 0


@pytest.mark.slow
def test_tcp_goodput_over_the_constellation(tmp_path: Path) -> None:
    (row,) = satellite.tcp_checks(tmp_path, quick=True)
    assert row.passed, row.cells()
