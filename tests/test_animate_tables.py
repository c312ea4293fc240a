"""Route-table changes in the animator (issue 41): the `table` records of an AODV chain
reach the page's data, and the player rebuilds a node's table from them (the browser
half is in tests/test_animate_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import sctplab
from sctplab.animate.page import page_data
from sctplab.animate.trace import read

# n0 - n1 - n2, 200 m apart (the receive range is 250 m), AODV, one CBR flow n0 -> n2
# from 0.5 s; the run ends with the flow, at about 2 s, before any route expires.
AODV_CHAIN = """
name = "aodv-chain"
duration = "3s"
[wireless]
width = "1000m"
height = "300m"
routing = "aodv"
[[nodes]]
name = "n0"
wlan = 1
x = "100m"
y = "100m"
[[nodes]]
name = "n1"
wlan = 1
x = "300m"
y = "100m"
[[nodes]]
name = "n2"
wlan = 1
x = "500m"
y = "100m"
[[flows]]
name = "cbr"
type = "cbr"
from = "n0"
to = "n2"
rate = "100Kb"
packet_size = "512B"
start = "0.5s"
stop = "2s"
"""

# By hand (ns-2.35 aodv.cc): n0's request gives n1 a reverse route to n0 (1 hop) and,
# rebroadcast, n2 one via n1 (2 hops); n2's reply gives n1 its route to n2 (1 hop) and
# n0 its route to n2 via n1 (2 hops). [node, destination, next hop, hops], in order.
DISCOVERY = [[1, 0, 0, 1], [2, 0, 1, 2], [1, 2, 2, 1], [0, 2, 1, 2]]


@pytest.fixture(scope="module")
def aodv_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("tables") / "run"
    sctplab.run(AODV_CHAIN, out=run, trace="anim")
    return run


def test_table_records_are_the_discovery(aodv_run: Path) -> None:
    d = read(aodv_run)
    assert [r[1:] for r in d.tables] == DISCOVERY
    times = [r[0] for r in d.tables]
    assert times == sorted(times)
    assert 500_000 < times[0] and times[-1] < 600_000
    assert d.tables_counted == []
    data = page_data(d)
    assert data["tables"] == d.tables
    assert data["tables_counted"] == []


def test_a_malformed_table_record_is_one_line(aodv_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "bad"
    run.mkdir()
    lines = (aodv_run / "anim.jsonl").read_text().splitlines()
    (run / "anim.jsonl").write_text("\n".join([lines[0], '["table",1,2]', *lines[1:]]) + "\n")
    with pytest.raises(sctplab.UsageError, match="line 2: malformed record"):
        read(run)
