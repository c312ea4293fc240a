"""`[wireless] aqm` as a user reaches it (beyond the contract; docs/scenario.md): the
Python API passing the key through `set`, the node keys in summary.json, CE marks in the
wireless pcap (decoded by tshark), and bad input as one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SCENARIOS, require_tshark, sctplab
from pcap_fields import ecn_counts

import sctplab as api

EXAMPLE = SCENARIOS / "manet-codel.toml"


def test_api_passes_the_key_and_pcap_shows_ce(tmp_path: Path) -> None:
    tshark = require_tshark()
    out = tmp_path / "run"
    api.run(
        EXAMPLE,
        set={"duration": "20s", "wireless.aqm": {"kind": "codel", "ecn": True}},
        out=out,
        pcap=True,
    )
    summary = json.loads((out / "summary.json").read_text())
    nodes = summary["nodes"]
    assert sum(n["ecn_marks"] for n in nodes.values()) > 0
    assert all("aqm_drops" in n and "queue_delay_mean_s" in n for n in nodes.values())
    # n4 sends the SCTP flow's DATA as ECT(0) (2); what reaches n0 marked on the way
    # is CE (3), nothing else.
    sent = ecn_counts(tshark, out / "pcap" / "n4-wlan0.pcap", "sctp.data_tsn")
    assert 2 in sent and set(sent) <= {2, 3}, sent
    arrived = ecn_counts(tshark, out / "pcap" / "n0-wlan0.pcap", "sctp.data_tsn")
    assert arrived.get(3, 0) > 0 and set(arrived) <= {2, 3}, arrived


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{kind="blue"}', ["wireless.aqm.kind", '"blue"']),
        ('{kind="codel",target="-5ms"}', ["wireless.aqm.target", "negative"]),
        ('{kind="fq_codel"}', ["wireless.aqm.kind", "not available"]),
        ('{kind="red",maxthresh=80}', ["wireless.aqm.maxthresh", "interface queue's"]),
    ],
)
def test_bad_wireless_aqm_is_one_line(value: str, expected: list[str], tmp_path: Path) -> None:
    r = sctplab("run", EXAMPLE, "--out", tmp_path / "out", "--set", f"wireless.aqm={value}")
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    for s in expected:
        assert s in lines[0], (s, lines[0])
