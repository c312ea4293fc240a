"""stream_traffic and PR-SCTP through the CLI: the message keys in summary.json, a pcap
whose Forward-TSN-Supported parameters and FORWARD TSN chunks tshark decodes with a
correct CRC32c, and bad input in one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import SCENARIOS, require_tshark, sctplab

EXAMPLE = SCENARIOS / "example-prsctp.toml"
SHORT = ["--set", "duration=12s", "--set", "flows.messages.stop=10s"]


def run(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "run"
    r = sctplab("run", EXAMPLE, "--out", out, "--quiet", *SHORT, *extra)
    assert r.returncode == 0, r.stderr
    return out


def test_message_keys_in_the_summary(tmp_path: Path) -> None:
    flow = json.loads((run(tmp_path) / "summary.json").read_text())["flows"]["messages"]
    assert set(flow) >= {"abandoned_messages", "forward_tsn_sent"}
    assert len(flow["streams"]) == 2
    for s in flow["streams"]:
        assert s["delivered_messages"] > 0
        # Submission to delivery crosses the 260 ms one-way path at least.
        assert s["message_delay_mean_s"] >= 0.26
        assert s["message_delay_p99_s"] >= s["message_delay_mean_s"] * 0.999
    assert flow["abandoned_messages"] == sum(s["abandoned_messages"] for s in flow["streams"])


def test_a_flow_without_stream_traffic_keeps_its_keys(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    r = sctplab("run", SCENARIOS / "example-sctp.toml", "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    flow = json.loads((out / "summary.json").read_text())["flows"]["sctp1"]
    assert "abandoned_messages" not in flow and "forward_tsn_sent" not in flow
    assert all("message_delay_mean_s" not in s for s in flow["streams"])


def test_pcap_decodes_in_tshark_with_forward_tsn(tmp_path: Path) -> None:
    tshark = require_tshark()
    pcap = run(tmp_path, "--pcap") / "pcap" / "source-eth0.pcap"

    def fields(filt: str, *names: str) -> list[str]:
        cmd = [tshark, "-r", str(pcap), "-o", "sctp.checksum:crc-32c", "-Y", filt, "-T", "fields"]
        for n in names:
            cmd += ["-e", n]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return [line for line in r.stdout.splitlines() if line]

    verbose = subprocess.run(
        [tshark, "-r", str(pcap), "-V", "-o", "sctp.checksum:crc-32c"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Malformed" not in verbose
    assert "Checksum Status: Bad" not in verbose
    # INIT and INIT ACK (both cross this interface) carry Forward-TSN-Supported.
    assert verbose.count("Forward TSN supported parameter") >= 2
    fwd = fields("sctp.chunk_type == 192", "sctp.chunk_type")
    assert fwd, "no FORWARD TSN chunk"


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ('pr_policy = "lifetime", pr_value = "1s"', "pr_policy: unknown policy"),
        ('pr_policy = "rtx", pr_value = "100ms"', "pr_value: expected a whole number"),
        ('pr_policy = "ttl", pr_value = 3', 'pr_value: expected a time like "100ms"'),
    ],
)
def test_bad_policy_is_one_line_and_exit_2(tmp_path: Path, entry: str, needle: str) -> None:
    text = EXAMPLE.read_text().replace('pr_policy = "ttl", pr_value = "300ms"', entry)
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    r = sctplab("run", bad, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "flows.messages.stream_traffic.0." in lines[0] and needle in lines[0]


def test_a_stream_beyond_streams_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace("{ stream = 1,", "{ stream = 2,"))
    r = sctplab("run", bad, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0
    assert "stream_traffic.1.stream: stream 2 does not exist" in r.stderr
